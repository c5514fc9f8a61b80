#!/usr/bin/env bash
# The frontend benchmark of docs/perf/frontend.md, in one run on the same
# cores: a 260-byte public-read object fetched anonymously with ab
#   - `ab -c 1000 -n N` (no keep-alive: the published radosgw thread-pool test)
#   - `ab -k -c 100 -n N`
# from rsgw on the rados backend against radosgw on the same throwaway cluster
# (both configured from the same ceph.conf section, [client.rgw.gw]:
# 512 threads; radosgw also with 8, its best count on a 2-core host), rsgw
# on the rados backend with its object cache (the default) and without
# (s3.object_cache_bytes = 0), and rsgw on the embedded backend against
# nginx serving the same 260-byte file. Prints req/s, p50/p99, failed
# requests and each server's CPU-seconds per 10,000 requests (utime+stime
# from /proc/PID/stat), then the ratios the object cache issue targets.
#   benches/frontend.sh [REQUESTS] [OUT]   # default 50000 per ab run
# Writes OUT/results.csv (one row per server and load), OUT/report.md (the
# tables printed) and OUT/run.json (command, date, commit, host); OUT
# defaults to docs/perf/frontend, the data of docs/perf/frontend.md.
# Uses the dev cluster of scripts/ceph-micro (started if needed) and port 7480.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-50000}
OUT=${2:-docs/perf/frontend}
cargo build --release -q --features rados -p rsgw
RSGW=$PWD/target/release/rsgw
scripts/ceph-micro start >/dev/null
eval "$(scripts/ceph-micro env)"
D=$(dirname "$CEPH_CONF")
PORT=7480
URL=http://127.0.0.1:$PORT
work=$(mktemp -d)
pids=()
cleanup() {
  rsgw_stop_all
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  scripts/ceph-micro stop rgw >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
small_object "$work/obj"
results=$work/results

put_public() { put_public_object "$URL" "$1" "$2" "$work/obj"; }
# measure NAME PATH PID...: both ab loads, one result line each
measure() {
  local name=$1 path=$2
  shift 2
  [[ $(curl -s "$URL$path" | wc -c) == 260 ]] || { echo "$name: the object is not served"; exit 1; }
  ab -q -c 100 -n 2000 "$URL$path" >/dev/null 2>&1 || true   # warm-up
  local load args
  for load in "c1000" "k100"; do
    case $load in
      c1000) args=(-r -s 60 -c 1000 -n "$N") ;;
      k100) args=(-r -s 60 -k -c 100 -n "$N") ;;
    esac
    measure_load "$name" "$load" "$N" "$@" -- ab "${args[@]}" "$URL$path" | tee -a "$results"
  done
}

echo "== radosgw (client.rgw.gw, rgw_thread_pool_size = 512, tcp_nodelay=1)"
# tcp_nodelay=1 as rsgw has by default, so Nagle does not handicap radosgw
RGW_PORT=$PORT RGW_BEAST_OPTS="tcp_nodelay=1" scripts/ceph-micro rgw 512 >/dev/null
rgw_pid=$(awk '$1=="rgw.gw"{p=$2} END{print p}' "$D/pids")
put_public MICROACCESSKEY000001 microsecretkey00000000000000000000000001
measure radosgw /bench/small "$rgw_pid"
scripts/ceph-micro stop rgw >/dev/null

echo "== radosgw, rgw_thread_pool_size = 8"
RGW_PORT=$PORT RGW_BEAST_OPTS="tcp_nodelay=1" scripts/ceph-micro rgw 8 >/dev/null
rgw_pid=$(awk '$1=="rgw.gw"{p=$2} END{print p}' "$D/pids")
measure radosgw-8 /bench/small "$rgw_pid"
scripts/ceph-micro stop rgw >/dev/null

echo "== rsgw, rados backend, from the same ceph.conf section"
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.gw"\npool_prefix = "rsgwbench"\n' \
  "$CEPH_CONF" >"$work/admin.toml"
bench_user "$RSGW" "$work/admin.toml"
# endpoints, backend and threads from ceph.conf's [client.rgw.gw]
rsgw_start rsgw-rados --backend none --port "$PORT" --no-endpoints --no-admin --toml '[store]
pool_prefix = "rsgwbench"' -- --ceph-conf "$CEPH_CONF" --name client.rgw.gw
put_public "$BENCH_AK" "$BENCH_SK"
measure rsgw-rados /bench/small "${RSGW_PID[rsgw-rados]}"
rsgw_stop rsgw-rados

echo "== rsgw, rados backend, object cache off"
rsgw_start rsgw-rados-nocache --backend none --port "$PORT" --no-endpoints --no-admin --toml '[store]
pool_prefix = "rsgwbench"
[s3]
object_cache_bytes = 0' -- --ceph-conf "$CEPH_CONF" --name client.rgw.gw
measure rsgw-rados-nocache /bench/small "${RSGW_PID[rsgw-rados-nocache]}"
rsgw_stop rsgw-rados-nocache

echo "== rsgw, embedded backend (defaults: async, 512 threads)"
rsgw_start rsgw-local --backend local --path "$work/data" --port "$PORT" --no-admin --user "bench:Bench:$BENCH_AK:$BENCH_SK"
put_public "$BENCH_AK" "$BENCH_SK"
measure rsgw-local /bench/small "${RSGW_PID[rsgw-local]}"
rsgw_stop rsgw-local

echo "== nginx, the same 260-byte file"
master=$(start_nginx "$PORT" "$work/obj" "worker_processes auto;")
pids+=("$master")
measure nginx /bench/small "$master" $(pgrep -P "$master")
kill -QUIT "$master"

echo
{
  echo "| server | load | req/s | p50 ms | p99 ms | failed | non-2xx | CPU s / 10k req |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|"
  while read -r name load rps p50 p99 failed non2xx cpu _; do
    case $load in c1000) l="ab -c 1000 -n $N" ;; k100) l="ab -k -c 100 -n $N" ;; esac
    echo "| $name | \`$l\` | $rps | $p50 | $p99 | $failed | $non2xx | $cpu |"
  done <"$results"
  echo
  awk '
    {rps[$1 " " $2] = $3; cpu[$1 " " $2] = $8}
    END {
      l = "c1000"
      printf "c1000: rsgw-rados / rsgw-local req/s %.2fx (target >= 0.9x)\n", rps["rsgw-rados " l] / rps["rsgw-local " l]
      printf "c1000: rsgw-rados / radosgw (512 threads) req/s %.2fx (target >= 5x), CPU per request %.3f (target <= 0.1)\n",
        rps["rsgw-rados " l] / rps["radosgw " l], cpu["rsgw-rados " l] / cpu["radosgw " l]
      printf "c1000: rsgw-rados / radosgw-8 req/s %.2fx (target >= 3x), CPU per request %.3f (target <= 0.2)\n",
        rps["rsgw-rados " l] / rps["radosgw-8 " l], cpu["rsgw-rados " l] / cpu["radosgw-8 " l]
      printf "c1000: rsgw-rados with / without its object cache req/s %.2fx, CPU per request %.2f\n",
        rps["rsgw-rados " l] / rps["rsgw-rados-nocache " l], cpu["rsgw-rados " l] / cpu["rsgw-rados-nocache " l]
      l = "k100"
      printf "k100: rsgw-local / nginx req/s %.2fx, rsgw-rados / nginx %.2fx (target >= 0.7x both)\n",
        rps["rsgw-local " l] / rps["nginx " l], rps["rsgw-rados " l] / rps["nginx " l]
    }' "$results"
} | tee "$work/report.md"
{
  echo "server,load,requests,req_per_s,p50_ms,p99_ms,failed,non_2xx,cpu_s_per_10k_req"
  while read -r name load rps p50 p99 failed non2xx cpu _; do
    case $load in c1000) l="-c 1000" ;; k100) l="-k -c 100" ;; esac
    echo "$name,$l,$N,$rps,$p50,$p99,$failed,$non2xx,$cpu"
  done <"$results"
} >"$work/results.csv"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
