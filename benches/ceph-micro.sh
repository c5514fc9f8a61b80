#!/usr/bin/env bash
# What the throwaway cluster costs, per topology: 1 memstore OSD (the default)
# and 3 BlueStore OSDs (what the test command runs). For each: the time
# `scripts/ceph-micro start --fresh` takes, each daemon's RSS idle (30 s after
# the start) and after a short load (rados bench: 20 s of 4 KiB writes, then
# 20 s of random 4 KiB reads, 16 in flight), its peak RSS (VmHWM) then, and
# the load's ops/s. With 3 OSDs or more, also how fast a killed OSD is marked down:
# osd.1 is SIGKILLed (scripts/ceph-micro kill osd.1) under 15 s of 4 KiB writes;
# the seconds until `ceph osd dump` shows it down, and the writes' max latency.
#
#   benches/ceph-micro.sh [OUT]    # OUT defaults to docs/ceph-micro
#
# Starts and stops its own clusters in a scratch directory, so the mon's fixed
# ports (3300, 6789) must be free: run it where no other ceph-micro cluster
# runs, or in a network namespace of its own
# (`ip netns add bench; ip netns exec bench ip link set lo up;
#   ip netns exec bench benches/ceph-micro.sh`).
# Writes OUT/results.csv (one row per daemon and topology), OUT/report.md (the
# Markdown printed) and OUT/run.json (command, date, commit, host).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-docs/ceph-micro}
work=$(mktemp -d)
export RSGW_CEPH_DIR=$work/ceph
cleanup() {
  scripts/ceph-micro stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
if ss -Hltn 'sport = :3300' | grep -q .; then
  echo "port 3300 is taken (another cluster?): run this in a network namespace of its own" >&2
  exit 1
fi
run_info "$work/run.json" "$0" "$@"
export CEPH_CONF=$RSGW_CEPH_DIR/ceph.conf

rss_kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; } # PID VmRSS|VmHWM

# bench OUTPUT_FILE rados-bench-args...: ops/s of a rados bench run
bench() {
  local out=$1
  shift
  rados bench -p ceph-micro-probe "$@" >"$out" 2>&1
  awk '/^Average IOPS:/ {print $3}' "$out"
}

echo "topology,daemon,start_s,idle_rss_mib,loaded_rss_mib,peak_rss_mib,write_4k_ops,read_4k_ops,kill_down_s,kill_max_latency_s" >"$work/results.csv"
for topo in "1 memstore" "3 bluestore"; do
  read -r osds store <<<"$topo"
  t=$EPOCHREALTIME
  scripts/ceph-micro start --fresh --osds "$osds" --objectstore "$store" >&2
  start_s=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')
  mapfile -t daemons <"$RSGW_CEPH_DIR/pids"
  sleep 30
  declare -A idle=()
  for d in "${daemons[@]}"; do
    read -r name pid <<<"$d"
    idle[$name]=$(rss_kib "$pid" VmRSS)
  done
  write_ops=$(bench "$work/write.txt" 20 write -t 16 -b 4096 --no-cleanup)
  read_ops=$(bench "$work/read.txt" 20 rand -t 16)
  declare -A loaded=() peak=()
  for d in "${daemons[@]}"; do
    read -r name pid <<<"$d"
    loaded[$name]=$(rss_kib "$pid" VmRSS) peak[$name]=$(rss_kib "$pid" VmHWM)
  done
  kill_down="" kill_lat=""
  if ((osds >= 3)); then
    rados bench -p ceph-micro-probe 15 write -t 16 -b 4096 --no-cleanup >"$work/kill.txt" 2>&1 &
    bench_pid=$!
    sleep 5
    t=$EPOCHREALTIME
    scripts/ceph-micro kill osd.1 >&2
    end=$((SECONDS + 60))
    until ceph osd dump | grep -q '^osd\.1 down'; do
      ((SECONDS < end)) || { echo "osd.1 not marked down within 60 s" >&2; exit 1; }
      sleep 0.1
    done
    kill_down=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}')
    wait "$bench_pid"
    kill_lat=$(awk '/^Max latency/ {printf "%.2f", $3}' "$work/kill.txt")
  fi
  for d in "${daemons[@]}"; do
    read -r name pid <<<"$d"
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$osds $store" "$name" "$start_s" \
      "$((idle[$name] / 1024))" "$((loaded[$name] / 1024))" "$((peak[$name] / 1024))" \
      "$write_ops" "$read_ops" "$kill_down" "$kill_lat" >>"$work/results.csv"
  done
  unset idle loaded peak
  scripts/ceph-micro stop >&2
done

python3 - "$work/results.csv" >"$work/report.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| topology | start | daemon | RSS idle | RSS after load | peak RSS |")
print("|---|---:|---|---:|---:|---:|")
for r in rows:
    print(f"| {r['topology']} | {r['start_s']} s | {r['daemon']} | {r['idle_rss_mib']} MiB | {r['loaded_rss_mib']} MiB | {r['peak_rss_mib']} MiB |")
print()
print("| topology | RSS idle, all daemons | RSS after load, all | 4 KiB writes | 4 KiB random reads | killed OSD marked down after | max write latency across the kill |")
print("|---|---:|---:|---:|---:|---:|---:|")
for topo in dict.fromkeys(r["topology"] for r in rows):
    rs = [r for r in rows if r["topology"] == topo]
    r = rs[0]
    kill = (f"{r['kill_down_s']} s", f"{r['kill_max_latency_s']} s") if r["kill_down_s"] else ("-", "-")
    total = lambda k: sum(int(x[k]) for x in rs)
    print(f"| {topo} | {total('idle_rss_mib')} MiB | {total('loaded_rss_mib')} MiB | {r['write_4k_ops']} ops/s | {r['read_4k_ops']} ops/s | {kill[0]} | {kill[1]} |")
PY
cat "$work/report.md"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
