#!/usr/bin/env bash
# An A/B test on the throwaway cluster: `rsgw bench ab-test` with rsgw (rados
# backend) and radosgw both able to serve as either side, sharing one user.
#   benches/ab-test.sh OUT [rsgw bench ab-test flags...]
#   benches/ab-test.sh /tmp/ab --gateway radosgw \
#       --a-set rgw_thread_pool_size=512 --b-set rgw_thread_pool_size=128
#   benches/ab-test.sh /tmp/ab --a-set pool.mode=async --b-set pool.mode=blocking
#   benches/ab-test.sh /tmp/ab --a-gateway rsgw --b-gateway radosgw --workload read
# Uses the dev cluster of scripts/ceph-micro (started if needed; RSGW_CEPH_DIR
# picks another); radosgw and rsgw share its user "micro" (the same keys on
# both). RSGW=path/to/rsgw uses that binary instead of building a release one
# (it needs the rados feature). OUT gets the test's report.md, trials.csv,
# summary.csv, results.json, abtest.svg and abtest.png, the rsgw config, and
# run.json (command, date, commit, host).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { sed -n '2,16p' "$0"; exit 2; }
cmd=("$0" "$@")
OUT=$1
shift
# shellcheck source=benches/lib.sh
source benches/lib.sh
rsgw_and_cluster
AK=MICROACCESSKEY000001
SK=microsecretkey00000000000000000000000001
mkdir -p "$OUT"
run_info "$OUT/run.json" "${cmd[@]}"
cfg=$OUT/rsgw.toml
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.rsgw"\npool_prefix = "rsgwabtest"\n' \
  "$CEPH_CONF" >"$cfg"
"$RSGW" admin -c "$cfg" user info --uid micro >/dev/null 2>&1 ||
  "$RSGW" admin -c "$cfg" user create --uid micro --display-name "ceph-micro test user" \
    --access-key "$AK" --secret-key "$SK" >/dev/null
ulimit -n "$(ulimit -Hn)"
"$RSGW" bench ab-test --rsgw-config "$cfg" --ceph-conf "$CEPH_CONF" --radosgw-name client.rgw.gw \
  --access-key "$AK" --secret-key "$SK" --out "$OUT" "$@"
