#!/usr/bin/env bash
# "Listing slows after mass deletes" on BlueStore, with RocksDB's
# deletion-triggered compaction (rocksdb_cf_compact_on_deletion) off and on:
# the seed study reproduced natively (docs/sizing.md).
#   benches/list-after-delete.sh [N] [OUT]   # default 20000 objects per run, docs/perf/list-after-delete
# For each setting, on a fresh throwaway cluster of 3 BlueStore OSDs (pools of
# 3 copies; scripts/ceph-micro, RSGW_CEPH_DIR picks its directory; the
# setting applied with `ceph config set osd` and an OSD restart, checked on
# every OSD):
# 1. RADOS: two `rados bench` writers at once put N 4 KiB objects each into
#    pool lad-mixed (run1, run2), one writer N into lad-fresh; run2 is
#    removed (`rados cleanup`); then `rados ls` of each pool is timed 5
#    times (median), with the OSDs' CPU time over those listings.
# 2. S3: `rsgw bench list-after-delete -n N --repeat 5` through rsgw on the
#    rados backend (the bucket listing and a raw listing of the index omap,
#    `rsgw admin bucket stats`), fresh bucket of the survivors as reference.
# Around each phase (written, deleted, listed) it reads every OSD's BlueFS
# db_used_bytes and SST bytes written (compactions and flushes; `ceph tell
# osd.N perf dump`) and the OSDs' CPU time. RSGW=path/to/rsgw uses that
# binary instead of building a release one. LAD_OSD_SET="option=value ..."
# sets more OSD options on both clusters (a scale model: RocksDB flushes its
# 256 MiB memtables, and counts deletions in windows of 32768 entries, long
# after this host's runs end). Writes OUT/phases.csv (counters per setting, part and phase),
# OUT/rados-ls.csv, OUT/lad-{off,on}.json, OUT/report.md and OUT/run.json.
# Takes about 20 minutes with the default N on the 2-core machine; the
# cluster is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-20000}
OUT=${2:-docs/perf/list-after-delete}
if [[ -z ${RSGW:-} ]]; then
  cargo build --release -q --features rados -p rsgw
  RSGW=$PWD/target/release/rsgw
fi
work=$(mktemp -d)
cleanup() {
  rsgw_stop_all
  scripts/ceph-micro stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
eval "$(scripts/ceph-micro env)"

export RSGW_CEPH_DIR=${RSGW_CEPH_DIR:-/tmp/rsgw-ceph}
osd_pids() { awk '$1 ~ /^osd\./ {print $2}' "$RSGW_CEPH_DIR/pids"; }
echo "setting,part,phase,osd_cpu_s,db_used_bytes,bytes_written_sst,rocksdb_compact" \
  >"$work/phases.csv"
# one row: the OSDs' CPU and the sum over the OSDs of their counters
snapshot() { # SETTING PART PHASE
  local i dumps=() pids
  mapfile -t pids < <(osd_pids)
  for i in 0 1 2; do
    ceph tell "osd.$i" perf dump >"$work/perf.$i.json"
    dumps+=("$work/perf.$i.json")
  done
  python3 - "$1" "$2" "$3" "$(cpu_ticks "${pids[@]}")" "$(getconf CLK_TCK)" "${dumps[@]}" \
    >>"$work/phases.csv" <<'PY'
import json, sys
setting, part, phase, ticks, hz, *files = sys.argv[1:]
# RocksDB's own compactions show as SST bytes BlueFS writes; its "compact"
# counter counts only compactions asked for (ceph tell osd.N compact)
tot = {"db_used_bytes": 0, "bytes_written_sst": 0, "compact": 0}
for f in files:
    d = json.load(open(f))
    for k in ("db_used_bytes", "bytes_written_sst"):
        tot[k] += d["bluefs"][k]
    tot["compact"] += d.get("rocksdb", {}).get("compact", 0)
print(f"{setting},{part},{phase},{int(ticks) / int(hz):.2f},{tot['db_used_bytes']},"
      f"{tot['bytes_written_sst']},{tot['compact']}")
PY
}

echo "setting,pool,objects,ls_ms_median,ls_ms_runs,osd_cpu_s" >"$work/rados-ls.csv"
time_ls() { # SETTING POOL
  local runs=() i t0 c0 objs pids
  mapfile -t pids < <(osd_pids)
  c0=$(cpu_ticks "${pids[@]}")
  for i in 1 2 3 4 5; do
    t0=$EPOCHREALTIME
    objs=$(rados -p "$2" ls | wc -l)
    runs+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", (b-a)*1000}')")
  done
  local cpu
  cpu=$(awk -v a="$c0" -v b="$(cpu_ticks "${pids[@]}")" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.2f", (b-a)/hz}')
  local med
  med=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 3p)
  echo "$1,$2,$objs,$med,$(
    IFS=' '
    echo "${runs[*]}"
  ),$cpu" >>"$work/rados-ls.csv"
  tail -1 "$work/rados-ls.csv" >&2
}

for setting in off on; do
  echo "== rocksdb_cf_compact_on_deletion $setting: a fresh cluster of 3 BlueStore OSDs" >&2
  scripts/ceph-micro start --fresh --osds 3 --objectstore bluestore >&2
  value=false
  [[ $setting == on ]] && value=true
  ceph config set osd rocksdb_cf_compact_on_deletion "$value"
  for kv in ${LAD_OSD_SET:-}; do
    ceph config set osd "${kv%%=*}" "${kv#*=}"
  done
  # RocksDB takes its column families' options when the OSD opens it
  scripts/ceph-micro restart osd >&2
  for i in 0 1 2; do
    got=$(ceph tell "osd.$i" config get rocksdb_cf_compact_on_deletion -f json | jq -r .rocksdb_cf_compact_on_deletion)
    [[ $got == "$value" ]] || { echo "osd.$i has rocksdb_cf_compact_on_deletion=$got, not $value"; exit 1; }
  done

  echo "== 1. RADOS: two writers of $N objects into lad-mixed, one into lad-fresh" >&2
  for p in lad-mixed lad-fresh; do ceph osd pool create "$p" >/dev/null; done
  bench() { rados bench -p "$1" 3600 write -b 4096 -t 16 --max-objects "$N" --no-cleanup --run-name "$2" >/dev/null; }
  bench lad-mixed run1 &
  w1=$!
  bench lad-mixed run2 &
  w2=$!
  wait "$w1" "$w2"
  bench lad-fresh run1
  snapshot "$setting" rados written
  rados -p lad-mixed cleanup --run-name run2 >/dev/null
  snapshot "$setting" rados deleted
  time_ls "$setting" lad-mixed
  time_ls "$setting" lad-fresh
  snapshot "$setting" rados listed

  echo "== 2. S3: rsgw bench list-after-delete -n $N through rsgw (rados backend)" >&2
  rsgw_start lad --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix lad \
    --user "bench:Bench:$BENCH_AK:$BENCH_SK"
  # rsgw bench runs it between its phases: the same snapshot, from a script
  { echo "source benches/lib.sh; work=$work"; declare -f osd_pids snapshot; echo 'snapshot "$@"'; } >"$work/snapshot.sh"
  "$RSGW" bench list-after-delete --endpoint "${RSGW_URL[lad]}" --access-key "$BENCH_AK" \
    --secret-key "$BENCH_SK" -n "$N" --repeat 5 --prefix "lad$setting" \
    --raw-list "$RSGW admin -c ${RSGW_CONFIG[lad]} bucket stats --bucket {bucket}" \
    --on-phase "bash $work/snapshot.sh $setting s3 {phase}" --json >"$work/lad-$setting.json"
  rsgw_stop lad
  scripts/ceph-micro stop >&2
done

python3 - "$work" <<'PY' | tee "$work/report.md"
import csv, json, os, sys
work = sys.argv[1]
rows = lambda name: list(csv.DictReader(open(os.path.join(work, name), encoding="utf-8")))
run = json.load(open(os.path.join(work, "run.json")))
print(f"Run {run['started']} at commit {run['commit']}, {run['host']['cpus']} CPUs, "
      "3 BlueStore OSDs, pools of 3 copies; OSD options beyond the defaults: "
      f"{os.environ.get('LAD_OSD_SET') or 'none'}.\n")
ls = {(r["setting"], r["pool"]): r for r in rows("rados-ls.csv")}
ph = {(r["setting"], r["part"], r["phase"]): r for r in rows("phases.csv")}
print("| compaction on deletion | `rados ls` after the delete (ms) | fresh pool (ms) | slowdown | OSD CPU over the 5 listings after / fresh (s) |")
print("|---|---:|---:|---:|---:|")
for s in ("off", "on"):
    m, f = ls[(s, "lad-mixed")], ls[(s, "lad-fresh")]
    print(f"| {s} | {float(m['ls_ms_median']):.1f} | {float(f['ls_ms_median']):.1f} | "
          f"{float(m['ls_ms_median']) / float(f['ls_ms_median']):.2f}x | {m['osd_cpu_s']} / {f['osd_cpu_s']} |")
print("\n| compaction on deletion | S3 listing after the delete (ms) | fresh bucket (ms) | slowdown | raw index listing slowdown |")
print("|---|---:|---:|---:|---:|")
for s in ("off", "on"):
    j = json.load(open(os.path.join(work, f"lad-{s}.json")))
    raw = j.get("raw_slowdown")
    print(f"| {s} | {j['list_after_delete_ms']:.1f} | {j['list_fresh_ms']:.1f} | {j['list_slowdown']:.2f}x | "
          + (f"{raw:.2f}x |" if raw is not None else "n/a |"))
print("\n| compaction on deletion | part | BlueFS db_used after writes (MiB) | after the delete | after the listings | SST MiB written during the delete | during the listings |")
print("|---|---|---:|---:|---:|---:|---:|")
for s in ("off", "on"):
    for part in ("rados", "s3"):
        w, d, l = (ph[(s, part, p)] for p in ("written", "deleted", "listed"))
        mib = lambda r: int(r["db_used_bytes"]) / 2**20
        sst = lambda a, b: (int(b["bytes_written_sst"]) - int(a["bytes_written_sst"])) / 2**20
        print(f"| {s} | {part} | {mib(w):.1f} | {mib(d):.1f} | {mib(l):.1f} | {sst(w, d):.1f} | {sst(d, l):.1f} |")
PY
publish "$OUT" "$work/run.json" "$work/report.md" "$work/phases.csv" "$work/rados-ls.csv" "$work/lad-off.json" "$work/lad-on.json"
