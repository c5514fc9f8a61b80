#!/usr/bin/env bash
# Checks `rsgw bench ab` against ab itself, in one run, on the same servers:
#   - nginx serving a 260-byte file and rsgw (embedded backend) serving a
#     260-byte public object, each loaded by ab and by rsgw bench ab in
#     alternating rounds, without and with keep-alive: the median req/s of
#     the two tools must agree within 10%. The server runs on the last CPU,
#     the load generator (one thread, as ab) on CPU 0: on a shared CPU the
#     tools would measure their own speed, not the server's;
#   - a server that resets every third connection (tests/tools/reset_server.py):
#     ab aborts, rsgw bench ab finishes and counts the resets.
# Exits non-zero when a check fails. Figures in docs/bench.md.
#   benches/ab-check.sh [REQUESTS] [OUT]   # default 30000 per run
# Writes OUT/results.csv (one row per server and load, every round's req/s),
# OUT/resets.csv, OUT/report.md (what it printed) and OUT/run.json (command,
# date, commit, host); OUT defaults to docs/bench/ab-check.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-30000}
OUT=${2:-docs/bench/ab-check}
ROUNDS=3
cargo build --release -q -p rsgw
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  rsgw_stop_all
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
server_cpu=$(($(nproc) - 1))
((server_cpu > 0)) || { echo "needs 2 CPUs: one for the server, one for the load generator"; exit 1; }
client=(taskset -c 0)
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
small_object "$work/obj"

# nginx
ngx_port=$(free_port)
pids+=("$(start_nginx "$ngx_port" "$work/obj" "worker_processes 1;
worker_cpu_affinity 1$(printf '%0*d' "$server_cpu" 0);")")

# rsgw, embedded backend
rsgw_start rsgw --backend local --path "$work/data" --no-admin --toml "[cpu]
cpuset = \"$server_cpu\"" --user "bench:Bench:$BENCH_AK:$BENCH_SK"
gw_port=${RSGW_PORT[rsgw]}
put_public_object "http://127.0.0.1:$gw_port" "$BENCH_AK" "$BENCH_SK" "$work/obj"

rps() { awk '/^Requests per second/ {print $4}'; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
fail=0
printf '%s\n' "| server | load | ab req/s (median of $ROUNDS) | rsgw bench ab req/s | ratio |" \
  "|---|---|---:|---:|---:|" | tee "$work/report.md"
echo "server,load,requests,rounds,ab_req_per_s_median,rsgw_bench_req_per_s_median,ratio,ab_req_per_s_rounds,rsgw_bench_req_per_s_rounds" \
  >"$work/results.csv"
for target in "nginx http://127.0.0.1:$ngx_port/bench/small" "rsgw http://127.0.0.1:$gw_port/bench/small"; do
  name=${target%% *} url=${target#* }
  for load in "-c 100" "-k -c 100"; do
    : >"$work/ab" && : >"$work/rb"
    for _ in $(seq $ROUNDS); do
      # shellcheck disable=SC2086
      "${client[@]}" ab -q -r $load -n "$N" "$url" 2>/dev/null | rps >>"$work/ab"
      # shellcheck disable=SC2086
      "${client[@]}" "$RSGW" bench ab --threads 1 -q $load -n "$N" "$url" | rps >>"$work/rb"
    done
    a=$(median <"$work/ab") b=$(median <"$work/rb")
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
    echo "| $name | \`$load -n $N\` | ${a%.*} | ${b%.*} | $ratio |" | tee -a "$work/report.md"
    echo "$name,$load,$N,$ROUNDS,$a,$b,$ratio,$(paste -sd' ' "$work/ab"),$(paste -sd' ' "$work/rb")" >>"$work/results.csv"
    awk -v r="$ratio" 'BEGIN {exit !(r >= 0.9 && r <= 1.1)}' || { echo "  ^ outside 10%" | tee -a "$work/report.md"; fail=1; }
  done
done

rs_port=$(free_port)
python3 tests/tools/reset_server.py "$rs_port" 3 &
pids+=($!)
wait_http "http://127.0.0.1:$rs_port/" || true
ab_rc=0
ab_out=$(ab -c 4 -n 300 "http://127.0.0.1:$rs_port/" 2>&1) || ab_rc=$?
# ab prints "Total of N requests completed" when it aborts after N, nothing when none had
if [[ $ab_out =~ Total\ of\ ([0-9]+)\ requests\ completed ]]; then
  ab_done=${BASH_REMATCH[1]}
elif ((ab_rc == 0)); then
  ab_done=$(awk '/^Complete requests/ {print $3}' <<<"$ab_out")
else
  ab_done=0
fi
rb=$("$RSGW" bench ab -q -c 4 -n 300 "http://127.0.0.1:$rs_port/")
complete=$(awk '/^Complete requests/ {print $3}' <<<"$rb")
resets=$(awk '/^Connection resets/ {print $3}' <<<"$rb")
{
  echo
  echo "server resetting every 3rd connection, 300 requests: ab (exit status $ab_rc): $(grep -o 'apr_socket_recv.*' <<<"$ab_out" | head -1); $ab_done requests completed. rsgw bench ab: $complete complete, $resets resets."
} | tee -a "$work/report.md"
printf 'tool,concurrency,requests,exit_status,completed,resets\nab,4,300,%s,%s,\nrsgw bench ab,4,300,0,%s,%s\n' \
  "$ab_rc" "$ab_done" "$complete" "$resets" >"$work/resets.csv"
publish "$OUT" "$work/results.csv" "$work/resets.csv" "$work/report.md" "$work/run.json"
[[ $complete == 300 && $resets -gt 0 ]] || fail=1
exit $fail
