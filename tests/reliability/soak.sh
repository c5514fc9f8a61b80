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
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export ALICE_AK=SOAKACCESSKEY0000001 ALICE_SK=soaksecretkey000000000000000000000000001
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
endpoints="" gateways="" gc=()
start() { # NAME STORE-LINES
  local p cfg=$work/$1.toml
  p=$(port)
  printf '[frontend]\nendpoints = ["127.0.0.1:%s"]\nadmin_endpoint = "127.0.0.1:%s"\n[store]\n%s\n' "$p" "$(port)" "$2" >"$cfg"
  "$RSGW" admin -c "$cfg" user info --uid soak >/dev/null 2>&1 ||
    "$RSGW" admin -c "$cfg" user create --uid soak --display-name Soak --access-key $ALICE_AK --secret-key $ALICE_SK >/dev/null
  "$RSGW" serve -c "$cfg" 2>"$OUT/$1.log" &
  pids+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$p/" && break; sleep 0.1; done
  endpoints+="$1=http://127.0.0.1:$p,"
  gateways+="$1=$!,"
  # once the load stopped nothing is in flight: collect every orphan, and the
  # final check then proves the collector removed nothing that lives
  gc+=(--after-load "'$RSGW' admin -c '$cfg' gc run --include-all")
}
start rsgw-local "path = \"$work/local\""
start rsgw-rados "backend = \"rados\"
ceph_conf = \"$CEPH_CONF\"
pool_prefix = \"soak\""
echo "rsgw $("$RSGW" --version), ceph $(ceph --version | awk '{print $3}'), $(nproc) CPUs"
python3 "$here/soak.py" --endpoint "$endpoints" --pid "$gateways" --duration "$SECONDS_OF_LOAD" --out "$OUT" "${gc[@]}" "$@"
