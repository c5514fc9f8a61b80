#!/usr/bin/env bash
# Writes whose clients leave (docs/reliability.md, "Clients that leave
# mid-write"): rsgw on the rados backend of the throwaway cluster
# (scripts/ceph-micro, started if needed); for each of RUNS fresh versioned
# public-read-write buckets, `ab -c 8 -t 4 -u` PUTs 4 KiB into one key and
# closes its 8 connections mid-request when its time is up; then the key's
# current version (HEAD) must be listed by ListObjectVersions. It showed
# with release builds (timing): a debug build did not.
#   tests/reliability/cut-writes.sh RSGW [RUNS]
#   tests/reliability/cut-writes.sh target/release/rsgw 6
# Exits 1 if any run left the current version unlisted.
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '2,12p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
RSGW=$(realpath "$1")
RUNS=${2:-6}
"$root/scripts/ceph-micro" start >/dev/null
eval "$("$root/scripts/ceph-micro" env)"
# shellcheck source=tests/venv.sh
source "$here/../venv.sh"
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
RSGW_WORK=$(mktemp -d)
trap 'rsgw_stop_all; rm -rf "$RSGW_WORK"' EXIT
export ALICE_AK=CUTACCESSKEY00000001 ALICE_SK=cutsecretkey0000000000000000000000000001
rsgw_start cut --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix "cut$RANDOM" \
  --user "alice:Alice:$ALICE_AK:$ALICE_SK"
url=${RSGW_URL[cut]}
head -c 4096 /dev/urandom >"$RSGW_WORK/put.bin"
leaks=0
for i in $(seq "$RUNS"); do
  bucket=cut-$i-$RANDOM
  python3 - "$url" "$bucket" make <<'PY'
import os, sys, boto3, botocore.config
c = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=os.environ["ALICE_AK"],
                 aws_secret_access_key=os.environ["ALICE_SK"], region_name="us-east-1",
                 config=botocore.config.Config(s3={"addressing_style": "path"}))
c.create_bucket(Bucket=sys.argv[2], ACL="public-read-write")
c.put_bucket_versioning(Bucket=sys.argv[2], VersioningConfiguration={"Status": "Enabled"})
PY
  done=$(ab -q -c 8 -t 4 -n 1000000 -u "$RSGW_WORK/put.bin" -T application/octet-stream "$url/$bucket/k" 2>&1 |
    awk '/^Complete requests:/ {print $3}')
  sleep 2
  python3 - "$url" "$bucket" "$done" <<'PY' || leaks=$((leaks + 1))
import os, sys, boto3, botocore.config
c = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=os.environ["ALICE_AK"],
                 aws_secret_access_key=os.environ["ALICE_SK"], region_name="us-east-1",
                 config=botocore.config.Config(s3={"addressing_style": "path"}))
b = sys.argv[2]
listed = [v["VersionId"] for p in c.get_paginator("list_object_versions").paginate(Bucket=b)
          for v in p.get("Versions", [])]
head = c.head_object(Bucket=b, Key="k")["VersionId"]
ok = head in listed
print(f"{b}: ab completed {sys.argv[3]}, {len(listed)} versions listed, current version listed: {ok}")
doomed = [{"Key": "k", "VersionId": v} for v in set(listed) | {head}]
for n in range(0, len(doomed), 1000):
    c.delete_objects(Bucket=b, Delete={"Objects": doomed[n:n + 1000], "Quiet": True})
c.delete_bucket(Bucket=b)
sys.exit(0 if ok else 1)
PY
done
echo "$leaks of $RUNS runs left the current version unlisted"
((leaks == 0))
