#!/usr/bin/env bash
# The sizing sweep of docs/sizing.md: rsgw on the rados backend against
# radosgw on the same throwaway cluster, both started by `rsgw bench sweep`
# over layouts (cores x instances, pinned), thread pool sizes and rsgw's two
# execution models, with write, read and ab-style loads of 4 KiB and 4 MiB.
#   benches/sweep.sh OUT [rsgw bench sweep flags...]
#   benches/sweep.sh /tmp/sweep --quick          # the < 10 min check
#   benches/sweep.sh docs/sizing                 # the full sweep of docs/sizing.md
# Uses the dev cluster of scripts/ceph-micro (started if needed; RSGW_CEPH_DIR
# picks another); radosgw and rsgw share its user "micro" (the same keys on
# both). RSGW=path/to/rsgw uses that binary instead of building a release one.
# OUT gets the sweep's results.csv, results.json, report.md and charts/, and
# run.json (command, date, commit, host).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { sed -n '2,13p' "$0"; exit 2; }
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
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.rsgw"\npool_prefix = "rsgwsweep"\n' \
  "$CEPH_CONF" >"$cfg"
"$RSGW" admin -c "$cfg" user info --uid micro >/dev/null 2>&1 ||
  "$RSGW" admin -c "$cfg" user create --uid micro --display-name "ceph-micro test user" \
    --access-key "$AK" --secret-key "$SK" >/dev/null
ulimit -n "$(ulimit -Hn)"
"$RSGW" bench sweep --rsgw-config "$cfg" --ceph-conf "$CEPH_CONF" --radosgw-name client.rgw.gw \
  --access-key "$AK" --secret-key "$SK" --out "$OUT" "$@"
