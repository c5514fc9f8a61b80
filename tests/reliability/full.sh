#!/usr/bin/env bash
# A full data pool, radosgw beside rsgw (docs/reliability.md, "A full
# store"): for each target and each of RUNS runs, tests/reliability/full.py
# writes objects, sets the target's data pool quota to 1 byte, times PUTs,
# an UploadPart, a GET, a listing and a DELETE with a client that waits
# CLIENT_TIMEOUT s (default 20), lifts the quota and PUTs again. On the
# throwaway cluster (scripts/ceph-micro, started if needed, radosgw too);
# rsgw runs on the rados backend with pools of its own.
#   tests/reliability/full.sh RSGW [RUNS] [OUT]
#   tests/reliability/full.sh target/release/rsgw 3 docs/reliability/full
# Writes OUT/runs.jsonl (one line per operation) and prints a summary.
set -euo pipefail
[[ $# -ge 1 ]] || { sed -n '2,11p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
RSGW=$(realpath "$1")
RUNS=${2:-3}
OUT=${3:-$(mktemp -d)}
mkdir -p "$OUT"
"$root/scripts/ceph-micro" start >/dev/null
eval "$("$root/scripts/ceph-micro" env)"
curl -s -o /dev/null "http://127.0.0.1:${RGW_PORT:-7480}/" || "$root/scripts/ceph-micro" rgw >/dev/null
# shellcheck source=tests/venv.sh
source "$here/../venv.sh"
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
RSGW_WORK=$(mktemp -d)
prefix=full$RANDOM
trap 'rsgw_stop_all; rm -rf "$RSGW_WORK"; for p in meta index data; do
  ceph osd pool rm "$prefix.$p" "$prefix.$p" --yes-i-really-really-mean-it >/dev/null 2>&1 || true; done' EXIT
export ALICE_AK=${S3_ACCESS_KEY:-MICROACCESSKEY000001} ALICE_SK=${S3_SECRET_KEY:-microsecretkey00000000000000000000000001}
rsgw_start full --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix "$prefix" \
  --user "alice:Alice:$ALICE_AK:$ALICE_SK"
: >"$OUT/runs.jsonl"
for i in $(seq "$RUNS"); do
  for target in radosgw rsgw; do
    if [[ $target == radosgw ]]; then
      url=http://127.0.0.1:${RGW_PORT:-7480} pool=default.rgw.buckets.data
    else
      url=${RSGW_URL[full]} pool=$prefix.data
    fi
    echo "run $i: $target" >&2
    python3 "$here/full.py" --target "$target" --endpoint "$url" --pool "$pool" --run "$i" \
      --timeout "${CLIENT_TIMEOUT:-20}" | tee -a "$OUT/runs.jsonl"
  done
done
python3 - "$OUT/runs.jsonl" <<'PY'
import collections, json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
seen = collections.defaultdict(list)
for r in rows:
    if "status" in r:
        seen[(r["phase"], r["op"], r["target"])].append(r)
print(f"{'phase':6} {'operation':18} {'target':8} {'answers':34} seconds")
for (phase, op, target), rs in seen.items():
    answers = ", ".join(sorted({f"{r['status']} {r['code']}".strip() for r in rs}))
    secs = [r["seconds"] for r in rs]
    print(f"{phase:6} {op:18} {target:8} {answers:34} {min(secs):.2f}-{max(secs):.2f}")
PY
