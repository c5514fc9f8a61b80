#!/usr/bin/env bash
# The small public GET path of rsgw on the embedded backend: a 260-byte
# public-read object fetched anonymously with ab, with and without keep-alive,
# and rsgw's CPU time per request from /proc/PID/stat. Source of the figures
# in docs/decisions/0003-s3-protocol-library.md.
#   benches/small-get.sh [REQUESTS] [OUT]  # default 100000 (keep-alive run)
# Writes OUT/results.csv (one row per load), OUT/report.md (the table
# printed) and OUT/run.json (command, date, commit, host); OUT defaults to
# docs/perf/small-get.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
OUT=${2:-docs/perf/small-get}
cargo build --release -q
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
cleanup() { rsgw_stop_all; rm -rf "$work"; }
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
rsgw_start rsgw --backend local --path "$work/data" --no-admin --user "bench:Bench:$BENCH_AK:$BENCH_SK"
port=${RSGW_PORT[rsgw]} pid=${RSGW_PID[rsgw]}
small_object "$work/obj"
put_public_object "http://127.0.0.1:$port" "$BENCH_AK" "$BENCH_SK" "$work/obj"
url="http://127.0.0.1:$port/bench/small"
[[ $(curl -s "$url" | wc -c) == 260 ]] || { echo "object not served"; exit 1; }
hz=$(getconf CLK_TCK)
printf '%s\n' "| load | req/s | failed | rsgw CPU per request |" "|---|---:|---:|---:|" | tee "$work/report.md"
echo "load,requests,req_per_s,failed,cpu_us_per_req" >"$work/results.csv"
for args in "-k -c 32 -n $N" "-c 100 -n $((N * 3 / 10))"; do
  c0=$(cpu_ticks "$pid")
  # shellcheck disable=SC2086
  out=$(ab $args "$url" 2>&1)
  c1=$(cpu_ticks "$pid")
  n=${args##* }
  rps=$(awk '/Requests per second/ {print $4}' <<<"$out")
  failed=$(awk '/Failed requests/ {print $3}' <<<"$out")
  us=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / hz / n * 1e6}')
  echo "| \`ab $args\` | ${rps%.*} | $failed | $(printf "%.0f" "$us") µs |" | tee -a "$work/report.md"
  echo "${args% -n *},$n,$rps,$failed,$us" >>"$work/results.csv"
done
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
