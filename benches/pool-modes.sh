#!/usr/bin/env bash
# The execution model, measured: rsgw on the embedded backend serving a
# 260-byte public object to `rsgw bench ab -c 256` (keep-alive), for
# pool.mode async and blocking at several thread_pool_size values, with the
# store as fast as it is and with 2 ms added to every store call
# (store.inject_latency_ms, a cluster round trip). Prints req/s and the
# gateway's CPU per request. Figures in docs/perf/frontend.md.
#   benches/pool-modes.sh [SECONDS]      # default 5 per point
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
cargo build --release -q -p rsgw
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
pid=""
cleanup() { [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck source=benches/lib.sh
source benches/lib.sh
small_object "$work/obj"
hz=$(getconf CLK_TCK)
port=$(free_port)
echo "| mode | thread_pool_size | store latency | req/s | p99 ms | CPU µs / req |"
echo "|---|---:|---:|---:|---:|---:|"
for latency in 0 2; do
  for mode in async blocking; do
    for threads in 8 64 512; do
      rm -rf "$work/data"
      printf '[frontend]\nendpoints = ["127.0.0.1:%s"]\nadmin_endpoint = ""\n[pool]\nmode = "%s"\nthread_pool_size = %s\n[store]\npath = "%s/data"\ninject_latency_ms = %s\n' \
        "$port" "$mode" "$threads" "$work" "$latency" >"$work/rsgw.toml"
      bench_user "$RSGW" "$work/rsgw.toml"
      "$RSGW" serve -c "$work/rsgw.toml" 2>"$work/serve.log" &
      pid=$!
      wait_http "http://127.0.0.1:$port/"
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
print(f"| {sys.argv[4]} | {sys.argv[5]} | {sys.argv[6]} ms | {rps:.0f} | {p99:.0f} | {ticks / hz / n * 1e6:.0f} |")
assert r["failed_requests"] == 0, r
' "$out" $((c1 - c0)) "$hz" "$mode" "$threads" "$latency"
      kill -TERM "$pid"
      wait "$pid" || true
      pid=""
    done
  done
done
