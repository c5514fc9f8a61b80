#!/usr/bin/env bash
# End-to-end checks of the rsgw binary itself, run by scripts/test:
#   - `rsgw serve` on the embedded backend answers an anonymous request for a
#     missing bucket (curl) with an S3 XML error and a request id, and exits 0
#     on SIGTERM;
#   - `rsgw admin store-bench` runs on the local and the rados backend.
#   tests/smoke.sh RSGW_BINARY CEPH_CONF
set -euo pipefail
RSGW=$1
CEPH_CONF=$2
# shellcheck source=tests/lib.sh
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
RSGW_WORK=$work
trap 'rsgw_stop_all; rm -rf "$work"' EXIT
rsgw_start serve --backend local --path "$work/serve-data"
url=${RSGW_URL[serve]}
curl -s -D "$work/headers" -o "$work/body" "$url/bucket/key" || true
grep -q '^HTTP/1.1 404' "$work/headers" || { cat "$work/headers" "${RSGW_LOG[serve]}"; exit 1; }
grep -qi '^x-amz-request-id: tx' "$work/headers" || { echo "no request id"; exit 1; }
grep -q '<Code>NoSuchBucket</Code>.*<RequestId>tx' "$work/body" || { cat "$work/body"; exit 1; }
rsgw_stop serve || { echo "rsgw serve did not exit cleanly on SIGTERM"; exit 1; }
echo "rsgw serve: 404 NoSuchBucket with an S3 error body and request id; clean exit on SIGTERM"
printf '[store]\nbackend = "local"\npath = "%s/data"\n' "$work" >"$work/local.toml"
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\npool_prefix = "rsgwsmoke"\n' "$CEPH_CONF" >"$work/rados.toml"
for cfg in local rados; do
  "$RSGW" admin -c "$work/$cfg.toml" store-bench -s 0.3 --concurrency 1,8 --objects 64
done

