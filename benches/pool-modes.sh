#!/usr/bin/env bash
# The execution model, measured: rsgw on the embedded backend serving a
# 260-byte public object to `rsgw bench ab -c 256` (keep-alive), for
# pool.mode async and blocking at several thread_pool_size values, with the
# store as fast as it is and with 2 ms added to every store call
# (store.inject_latency_ms, a cluster round trip). Prints req/s and the
# gateway's CPU per request. Figures in docs/perf/frontend.md.
#   benches/pool-modes.sh [SECONDS] [OUT]  # default 5 per point
# Writes OUT/results.csv (one row per point), OUT/report.md (the table
# printed) and OUT/run.json (command, date, commit, host); OUT defaults to
# docs/perf/pool-modes.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
OUT=${2:-docs/perf/pool-modes}
cargo build --release -q -p rsgw
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
cleanup() { rsgw_stop_all; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
small_object "$work/obj"
hz=$(getconf CLK_TCK)
port=$(free_port)
printf '%s\n' "| mode | thread_pool_size | store latency | req/s | p99 ms | CPU µs / req |" \
  "|---|---:|---:|---:|---:|---:|" | tee "$work/report.md"
echo "mode,thread_pool_size,store_latency_ms,seconds,requests,req_per_s,p50_ms,p99_ms,failed,non_2xx,cpu_us_per_req" >"$work/results.csv"
for latency in 0 2; do
  for mode in async blocking; do
    for threads in 8 64 512; do
      rm -rf "$work/data"
      rsgw_start rsgw --backend local --path "$work/data" --port "$port" --no-admin --toml "[pool]
mode = \"$mode\"
thread_pool_size = $threads
[store]
inject_latency_ms = $latency" --user "bench:Bench:$BENCH_AK:$BENCH_SK"
      pid=${RSGW_PID[rsgw]}
      put_public_object "http://127.0.0.1:$port" "$BENCH_AK" "$BENCH_SK" "$work/obj"
      url="http://127.0.0.1:$port/bench/small"
      "$RSGW" bench ab -q -k -c 256 -t 1 "$url" >/dev/null   # warm-up
      c0=$(cpu_ticks "$pid")
      out=$("$RSGW" bench ab -q -k -c 256 -t "$SECS" --json "$url")
      c1=$(cpu_ticks "$pid")
      python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ticks, hz = int(sys.argv[2]), int(sys.argv[3])
n = max(r["complete_requests"], 1)
p99 = dict((p, v) for p, v in r["percentiles"])[99]
rps = r["requests_per_second"]
p50 = dict((p, v) for p, v in r["percentiles"])[50]
us = ticks / hz / n * 1e6
print(f"| {sys.argv[4]} | {sys.argv[5]} | {sys.argv[6]} ms | {rps:.0f} | {p99:.0f} | {us:.0f} |")
secs = r["time_taken_s"]
row = [*sys.argv[4:7], f"{secs:.3f}", r["complete_requests"], f"{rps:.1f}", p50, p99,
       r["failed_requests"], r["non_2xx_responses"], f"{us:.1f}"]
with open(sys.argv[7], "a") as f:
    print(",".join(map(str, row)), file=f)
assert r["failed_requests"] == 0, r
' "$out" $((c1 - c0)) "$hz" "$mode" "$threads" "$latency" "$work/results.csv" | tee -a "$work/report.md"
      rsgw_stop rsgw
    done
  done
done
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
