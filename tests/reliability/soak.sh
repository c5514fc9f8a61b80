#!/usr/bin/env bash
# The soak of docs/reliability.md: rsgw on both backends (the embedded one and
# rados on the throwaway cluster of scripts/ceph-micro, started if needed),
# under tests/reliability/soak.py's mixed workload for SECONDS, with RSS,
# descriptors and threads sampled every 10 s and every object checked at the end.
#   tests/reliability/soak.sh RSGW SECONDS OUT [soak.py flags...]
#   tests/reliability/soak.sh target/release/rsgw 1800 docs/reliability/soak
# Env: RSGW_CEPH_DIR (the cluster's directory, as for scripts/ceph-micro).
set -euo pipefail
[[ $# -ge 3 ]] || { sed -n '2,8p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
RSGW=$(realpath "$1")
SECONDS_OF_LOAD=$2
OUT=$3
shift 3
mkdir -p "$OUT"
"$root/scripts/ceph-micro" start >/dev/null
eval "$("$root/scripts/ceph-micro" env)"
# shellcheck source=tests/venv.sh
source "$here/../venv.sh"
# shellcheck source=tests/lib.sh
source "$here/../lib.sh"
RSGW_WORK=$(mktemp -d)
cleanup() {
  rsgw_stop_all
  rm -rf "$RSGW_WORK"
}
trap cleanup EXIT
export ALICE_AK=SOAKACCESSKEY0000001 ALICE_SK=soaksecretkey000000000000000000000000001
endpoints="" gateways="" gc=()
start() { # NAME rsgw_start options...
  local name=$1
  shift
  rsgw_start "$name" --log "$OUT/$name.log" --user "soak:Soak:$ALICE_AK:$ALICE_SK" "$@"
  endpoints+="$name=${RSGW_URL[$name]},"
  gateways+="$name=${RSGW_PID[$name]},"
  # once the load stopped nothing is in flight: collect every orphan, and the
  # final check then proves the collector removed nothing that lives
  gc+=(--after-load "'$RSGW' admin -c '${RSGW_CONFIG[$name]}' gc run --include-all")
}
start rsgw-local --backend local --path "$RSGW_WORK/local"
start rsgw-rados --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix soak
echo "rsgw $("$RSGW" --version), ceph $(ceph --version | awk '{print $3}'), $(nproc) CPUs"
python3 "$here/soak.py" --endpoint "$endpoints" --pid "$gateways" --duration "$SECONDS_OF_LOAD" --out "$OUT" "${gc[@]}" "$@"
# both gateways must still run, and stop cleanly
rsgw_stop rsgw-local
rsgw_stop rsgw-rados
