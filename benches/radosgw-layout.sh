#!/usr/bin/env bash
# The small public GET of an object radosgw wrote, served by radosgw and by
# rsgw on radosgw's layout (`[store] layout = "radosgw"`, the same zone,
# the same RADOS objects), in one run on the throwaway cluster:
#   benches/radosgw-layout.sh [OUT] [RUNS] [REQUESTS]
# radosgw (64 threads, scripts/ceph-micro's default, and Beast's
# `tcp_nodelay=1`, rsgw's default, so that Nagle and delayed ACKs do not
# stall its keep-alive answers by 40 ms) writes bucket `bench`
# and the 260-byte public-read object `bench/small` through S3; rsgw
# (its defaults, rados backend) then serves them beside it. Both gateways
# are pinned to CPU 0 and the client to CPU 1; the cluster's daemons float
# over both. Per run (default 3) and gateway, in turn: `ab -k -c 32 -n
# REQUESTS` (default 20000) and `ab -c 32 -n REQUESTS/4` (a connection per
# request), each gateway's CPU per request from /proc/PID/stat around each
# load. Then an independent client's check: `wrk -t1 -c32 -d10s` (if
# installed) on each gateway once. rsgw serves radosgw's metadata records
# from its coherent cache and reads the head (one RADOS read) per GET, as
# radosgw does (docs/layout.md#serving-radosgws-buckets).
# OUT/results.csv: one row per run, gateway and load; OUT/wrk.csv; OUT/report.md:
# each gateway's req/s and CPU per request (range over runs), rsgw's ratio
# to radosgw in the same run (range), and wrk's; OUT/run.json: the command,
# date, commit and host. OUT defaults to docs/perf/radosgw-layout.
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
cmd=("$0" "$@")
OUT=${1:-docs/perf/radosgw-layout}
RUNS=${2:-3}
N=${3:-20000}
# shellcheck source=benches/lib.sh
source benches/lib.sh
rsgw_and_cluster
work=$(mktemp -d)
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
ulimit -n "$(ulimit -Hn)"
run_info "$work/run.json" "${cmd[@]}"
trap 'rsgw_stop_all; scripts/ceph-micro stop rgw >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

rgw_port=$(free_port)
RGW_PORT=$rgw_port RGW_THREADS=64 RGW_BEAST_OPTS=tcp_nodelay=1 scripts/ceph-micro rgw >/dev/null
rgw_pid=$(awk '$1=="rgw.gw"{p=$2} END{print p}' "${RSGW_CEPH_DIR:-/tmp/rsgw-ceph}/pids")
radosgw-admin user info --uid=bench >/dev/null 2>&1 ||
  radosgw-admin user create --uid=bench --display-name=Bench --access-key="$BENCH_AK" \
    --secret-key="$BENCH_SK" >/dev/null
small_object "$work/obj"
put_public_object "http://127.0.0.1:$rgw_port" "$BENCH_AK" "$BENCH_SK" "$work/obj"
rsgw_start layout --backend rados --ceph-conf "$CEPH_CONF" --toml $'[store]\nlayout = "radosgw"'
taskset -apc 0 "${RSGW_PID[layout]}" >/dev/null
taskset -apc 0 "$rgw_pid" >/dev/null
declare -A url=([rsgw]=${RSGW_URL[layout]}/bench/small [radosgw]=http://127.0.0.1:$rgw_port/bench/small)
declare -A pid=([rsgw]=${RSGW_PID[layout]} [radosgw]=$rgw_pid)
for gw in rsgw radosgw; do
  cmp -s <(curl -sSf "${url[$gw]}") "$work/obj" || { echo "$gw does not serve the object radosgw wrote" >&2; exit 1; }
  ab -k -c 8 -n 2000 "${url[$gw]}" >/dev/null 2>&1 # warm-up
done

echo "run,gateway,load,req_per_s,p50_ms,p99_ms,failed,non_2xx,cpu_us_per_req" >"$work/results.csv"
for run in $(seq "$RUNS"); do
  for gw in rsgw radosgw; do
    for load in "-k -c 32 -n $N" "-c 32 -n $((N / 4))"; do
      n=${load##* }
      # shellcheck disable=SC2086
      read -r _ _ rps p50 p99 failed non2xx cpu10k _ < <(measure_load "$gw" x "$n" "${pid[$gw]}" -- \
        taskset -c 1 ab $load "${url[$gw]}")
      ((failed + non2xx == 0)) || { echo "$gw, ab $load: $failed failed, $non2xx not 2xx" >&2; exit 1; }
      us=$(awk -v c="$cpu10k" 'BEGIN {printf "%.1f", c * 100}')
      echo "$run,$gw,ab ${load% -n *},$rps,$p50,$p99,$failed,$non2xx,$us" | tee -a "$work/results.csv"
    done
  done
done

echo "gateway,req_per_s,cpu_us_per_req" >"$work/wrk.csv"
if command -v wrk >/dev/null; then
  for gw in rsgw radosgw; do
    c0=$(cpu_ticks "${pid[$gw]}")
    taskset -c 1 wrk -t1 -c32 -d10s "${url[$gw]}" >"$work/wrk.out"
    c1=$(cpu_ticks "${pid[$gw]}")
    awk -v gw="$gw" -v ticks=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" '
      /requests in/ {n = $1}
      /^Requests\/sec:/ {rps = $2}
      /Non-2xx/ {bad = $NF}
      END {if (bad) {print "wrk: " bad " answers not 2xx" > "/dev/stderr"; exit 1}
           printf "%s,%.0f,%.1f\n", gw, rps, ticks / hz / n * 1e6}
    ' "$work/wrk.out" | tee -a "$work/wrk.csv"
  done
else
  echo "wrk not installed (apt-get install wrk): no independent client's check" >&2
fi

python3 - "$work/results.csv" "$work/wrk.csv" >"$work/report.md" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
by = defaultdict(dict)
for r in rows:
    by[(r["load"], r["run"])][r["gateway"]] = r
rng = lambda xs, f="{:.0f}": f.format(min(xs)) if min(xs) == max(xs) else f"{f.format(min(xs))}-{f.format(max(xs))}"
print("Small public GET (260 B) of an object radosgw wrote; range over runs.\n")
print("| load | gateway | req/s | CPU per request | p99 |")
print("|---|---|---:|---:|---:|")
loads = list(dict.fromkeys(r["load"] for r in rows))
for load in loads:
    for gw in ("rsgw", "radosgw"):
        rs = [r for r in rows if r["load"] == load and r["gateway"] == gw]
        print(f"| `{load}` | {gw} | {rng([float(r['req_per_s']) for r in rs])} | "
              f"{rng([float(r['cpu_us_per_req']) for r in rs])} µs | {rng([float(r['p99_ms']) for r in rs])} ms |")
print("\n| load | rsgw / radosgw req/s (same run) | rsgw / radosgw CPU per request |")
print("|---|---:|---:|")
for load in loads:
    pairs = [v for (l, _), v in by.items() if l == load and len(v) == 2]
    rate = [float(p["rsgw"]["req_per_s"]) / float(p["radosgw"]["req_per_s"]) for p in pairs]
    cpu = [float(p["rsgw"]["cpu_us_per_req"]) / float(p["radosgw"]["cpu_us_per_req"]) for p in pairs]
    print(f"| `{load}` | {rng(rate, '{:.2f}')}x | {rng(cpu, '{:.2f}')}x |")
wrk = {r["gateway"]: r for r in csv.DictReader(open(sys.argv[2]))}
if len(wrk) == 2:
    print("\nIndependent client, `wrk -t1 -c32 -d10s` (keep-alive), once:\n")
    print("| gateway | req/s | CPU per request |")
    print("|---|---:|---:|")
    for gw in ("rsgw", "radosgw"):
        print(f"| {gw} | {wrk[gw]['req_per_s']} | {wrk[gw]['cpu_us_per_req']} µs |")
    print(f"\nrsgw / radosgw (wrk): {float(wrk['rsgw']['req_per_s']) / float(wrk['radosgw']['req_per_s']):.2f}x req/s, "
          f"{float(wrk['rsgw']['cpu_us_per_req']) / float(wrk['radosgw']['cpu_us_per_req']):.2f}x CPU per request.")
PY
cat "$work/report.md"
publish "$OUT" "$work/results.csv" "$work/wrk.csv" "$work/report.md" "$work/run.json"
