#!/usr/bin/env bash
# Rate limits protecting one user from an anonymous flood, and what the
# check costs (docs/perf/ratelimit.md). One rsgw on the rados backend of the
# throwaway cluster; user "bench" runs a signed 50/50 GET/PUT mix of 4 KiB
# objects (`rsgw bench s3`, 4 workers) for SECONDS, three times:
#   alone              the mix by itself
#   flood              while `rsgw bench ab -c FLOOD_CONNECTIONS` (no keep-alive) GETs a
#                      public 260-byte object anonymously, no limit set
#   flood, limited     the same flood with the anonymous limit enabled
#                      (`rsgw admin ratelimit --global anonymous
#                      --max-read-ops LIMIT`)
# and prints the mix's ops/s, p50 and p99 per operation and the flood's
# rates (2xx, 503 SlowDown) in each.
#   benches/ratelimit.sh [SECONDS] [LIMIT] [FLOOD_CONNECTIONS] [OUT]
#   # defaults: 20 s, 200/s, 1500 connections
# FLOOD_BYTES=N makes the public object N bytes (default 260),
# FLOOD_KEEPALIVE=1 has the flood reuse its connections (default: a new
# connection per GET), FLOOD_RATE=R sends R GETs a second at most (default:
# as fast as answers come): a flood of large objects at a set rate over
# kept connections is dear to serve and cheap to refuse.
# Writes OUT/results.csv, OUT/report.md and OUT/run.json (command, date,
# commit, host); OUT defaults to docs/perf/ratelimit. Uses the cluster of
# scripts/ceph-micro (started if needed; RSGW_CEPH_DIR picks another);
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-20}
LIMIT=${2:-200}
FLOOD_C=${3:-1500}
OUT=${4:-docs/perf/ratelimit}
# shellcheck source=benches/lib.sh
source benches/lib.sh
rsgw_and_cluster
work=$(mktemp -d)
cleanup() {
  rsgw_stop_all
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
FLOOD_BYTES=${FLOOD_BYTES:-260}
if [[ $FLOOD_BYTES == 260 ]]; then
  small_object "$work/obj"
else
  head -c "$FLOOD_BYTES" /dev/urandom >"$work/obj"
fi
keepalive=()
[[ ${FLOOD_KEEPALIVE:-0} == 1 ]] && keepalive=(-k)
[[ -n ${FLOOD_RATE:-} ]] && keepalive+=(--rate "$FLOOD_RATE")
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.gw"\npool_prefix = "rsgwbench"\n' \
  "$CEPH_CONF" >"$work/admin.toml"
bench_user "$RSGW" "$work/admin.toml"
limit() { "$RSGW" admin -c "$work/admin.toml" ratelimit "$@" --global anonymous >/dev/null; }
limit disable
rsgw_start gw --backend rados --ceph-conf "$CEPH_CONF" --client-name client.rgw.gw --pool-prefix rsgwbench
url=${RSGW_URL[gw]}
put_public_object "$url" "$BENCH_AK" "$BENCH_SK" "$work/obj"
results=$work/results

# phase NAME FLOOD(yes|no)
phase() {
  local name=$1 flood=$2 flood_pid=
  echo "== $name"
  if [[ $flood == yes ]]; then
    "$RSGW" bench ab -q --json -l "${keepalive[@]}" -c "$FLOOD_C" -n 1000000000 -t "$((S + 4))" "$url/bench/small" >"$work/flood.json" &
    flood_pid=$!
    sleep 2
  fi
  "$RSGW" bench s3 --mix read=50,write=50 --sizes 'c(4)KB' --objects 200 --workers 4 --runtime "$S" \
    --cprefix "rl${name// /}" --endpoint "$url" --access-key "$BENCH_AK" --secret-key "$BENCH_SK" --json -q \
    >"$work/mix.json" || true # failed operations are counted in the report
  local flood_ok=- flood_503=- flood_failed=-
  if [[ -n $flood_pid ]]; then
    wait "$flood_pid"
    read -r flood_ok flood_503 flood_failed < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
t, bad, failed = r["time_taken_s"], r["non_2xx_responses"], r["failed_requests"]
print(round((r["complete_requests"] - bad - failed) / t), round(bad / t), failed)' "$work/flood.json")
  fi
  python3 - "$work/mix.json" "$name" "$flood_ok" "$flood_503" "$flood_failed" <<'PY' | tee -a "$results"
import json, sys
works, name, ok, slow, failed = json.load(open(sys.argv[1])), *sys.argv[2:]
main = [w for w in works["works"] if w["stage"] == "main"] if isinstance(works, dict) else [w for w in works if w.get("stage") == "main"]
for w in main:
    for op in w["ops"]:
        print(f'{name.replace(" ", "_")} {op["op"]} {op["ops_per_s"]:.0f} {op["p50_ms"]:.2f} {op["p99_ms"]:.2f} {op["errors"]} {ok} {slow} {failed}')
PY
}
phase alone no
phase flood yes
limit set --max-read-ops "$LIMIT"
limit enable
phase "flood limited" yes
limit disable

echo
{
  echo "| phase | bench's op | ops/s | p50 ms | p99 ms | errors | flood 2xx/s | flood 503/s | flood failed |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  while read -r phase op ops p50 p99 errors ok slow failed; do
    echo "| ${phase//_/ } | $op | $ops | $p50 | $p99 | $errors | $ok | $slow | $failed |"
  done <"$results"
  echo
  echo "flood: rsgw bench ab -c $FLOOD_C ${keepalive[*]}, anonymous GETs of a $FLOOD_BYTES-byte object; limit: $LIMIT read ops/s"
} | tee "$work/report.md"
{
  echo "phase,op,ops_per_s,p50_ms,p99_ms,errors,flood_2xx_per_s,flood_503_per_s,flood_failed"
  tr ' ' ',' <"$results" | sed 's/_/ /'
} >"$work/results.csv"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
