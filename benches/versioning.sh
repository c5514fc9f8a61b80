#!/usr/bin/env bash
# What versioning costs a small PUT (docs/perf/versioning.md), on rsgw (rados
# backend) and radosgw on the same throwaway cluster, in one run, with the
# same load:
#   benches/versioning.sh OUT [RUNS] [SECONDS]
# For each run (default 3) and each gateway, in turn: 4 KiB writes over 100
# keys (so that nearly every write overwrites a key: in a versioned bucket
# it makes the key's current version noncurrent), 8 workers of `rsgw bench
# s3` for SECONDS (default 20), into a bucket without versioning, then into
# one with versioning enabled (`--versioning` on the bucket's creation).
# The gateway is pinned to CPU 0, the client to CPU 1; the cluster's OSDs
# and monitor float over both. What is measured is the gateway's CPU
# (utime + stime of its process) around the timed writes; the bucket is
# created before and emptied (every version deleted) after, unmeasured.
# OUT/results.csv: one row per gateway, mode and run; OUT/report.md: each
# gateway's PUTs/s and CPU ms per PUT, the range over runs, and the
# versioned bucket's ratio to the unversioned one in the same run;
# OUT/run.json: the command, date, commit and host.
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { sed -n '2,21p' "$0"; exit 2; }
cmd=("$0" "$@")
OUT=$1
RUNS=${2:-3}
SECONDS_EACH=${3:-20}
# shellcheck source=benches/lib.sh
source benches/lib.sh
rsgw_and_cluster
work=$(mktemp -d)
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
ulimit -n "$(ulimit -Hn)"
run_info "$work/run.json" "${cmd[@]}"
start_gateway_pair versioning rsgwver

# a workload file of STAGES (init write cleanup dispose) on bucket ver1
workload() { # FILE STAGES...
  local file=$1 s
  shift
  {
    echo '<workload name="versioning"><storage type="s3" config="path_style_access=true"/><workflow>'
    for s in "$@"; do
      case $s in
        init) echo '<workstage name="init"><work type="init" workers="1" config="cprefix=ver;containers=r(1,1)"/></workstage>' ;;
        write) echo "<workstage name=\"main\"><work name=\"write\" workers=\"8\" runtime=\"$SECONDS_EACH\"><operation type=\"write\" ratio=\"100\" config=\"cprefix=ver;containers=c(1);objects=u(1,100);sizes=c(4096)B\"/></work></workstage>" ;;
        cleanup) echo '<workstage name="cleanup"><work type="cleanup" workers="4" config="cprefix=ver;containers=r(1,1);objects=r(1,100)"/></workstage>' ;;
        dispose) echo '<workstage name="dispose"><work type="dispose" workers="1" config="cprefix=ver;containers=r(1,1)"/></workstage>' ;;
      esac
    done
    echo '</workflow></workload>'
  } >"$file"
}
workload "$work/setup.xml" init
workload "$work/write.xml" write
workload "$work/teardown.xml" cleanup dispose

hz=$(getconf CLK_TCK)
echo "gateway,mode,run,ops,errors,seconds,ops_per_s,p99_ms,cpu_s,cpu_ms_per_op" >"$work/results.csv"
for run in $(seq "$RUNS"); do
  for gw in rsgw radosgw; do
    for mode in unversioned versioned; do
      flag=()
      [[ $mode == versioned ]] && flag=(--versioning)
      bench=(taskset -c 1 "$RSGW" bench s3 --endpoint "${url[$gw]}" --access-key "$BENCH_AK"
        --secret-key "$BENCH_SK" --quiet "${flag[@]}")
      "${bench[@]}" "$work/setup.xml" >/dev/null
      c0=$(cpu_ticks "${pid[$gw]}")
      "${bench[@]}" --json "$work/write.xml" >"$work/out.json"
      c1=$(cpu_ticks "${pid[$gw]}")
      python3 - "$work/out.json" "$gw" "$mode" "$run" $((c1 - c0)) "$hz" >>"$work/results.csv" <<'PY'
import json, sys
path, gw, mode, run, ticks, hz = sys.argv[1:]
(work,) = [w for w in json.load(open(path)) if w["stage"] == "main"]
(r,) = work["ops"]
cpu = int(ticks) / int(hz)
print(f"{gw},{mode},{run},{r['ops']},{r['errors']},{work['seconds']:.1f},{r['ops_per_s']:.1f},"
      f"{r['p99_ms']:.1f},{cpu:.2f},{cpu / max(r['ops'], 1) * 1000:.3f}")
PY
      tail -1 "$work/results.csv"
      "${bench[@]}" "$work/teardown.xml" >/dev/null
    done
  done
done

python3 - "$work/results.csv" "$RUNS" "$SECONDS_EACH" >"$work/report.md" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
runs, secs = sys.argv[2], sys.argv[3]
by = defaultdict(dict)
for r in rows:
    by[(r["gateway"], r["mode"])][r["run"]] = r
def rng(vals, fmt):
    lo, hi = fmt.format(min(vals)), fmt.format(max(vals))
    return lo if lo == hi else f"{lo}-{hi}"
print(f"4 KiB PUTs over 100 keys, 8 workers, {secs} s per mode, {runs} runs; gateway on CPU 0, "
      "client (`rsgw bench s3`) on CPU 1, the cluster's 3 OSDs and monitor on both.\n")
print("| gateway | bucket | PUTs/s | p99 ms | CPU ms per PUT | PUTs/s vs unversioned | CPU per PUT vs unversioned | errors |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for gw in ["rsgw", "radosgw"]:
    base = by[(gw, "unversioned")]
    for mode in ["unversioned", "versioned"]:
        cur = by[(gw, mode)]
        ops = [float(r["ops_per_s"]) for r in cur.values()]
        p99 = [float(r["p99_ms"]) for r in cur.values()]
        cpu = [float(r["cpu_ms_per_op"]) for r in cur.values()]
        errs = sum(int(r["errors"]) for r in cur.values())
        if mode == "unversioned":
            rel_ops = rel_cpu = "1"
        else:
            rel_ops = rng([float(cur[k]["ops_per_s"]) / float(base[k]["ops_per_s"]) for k in cur], "{:.2f}")
            rel_cpu = rng([float(cur[k]["cpu_ms_per_op"]) / float(base[k]["cpu_ms_per_op"]) for k in cur], "{:.2f}")
        print(f"| {gw} | {mode} | {rng(ops, '{:.0f}')} | {rng(p99, '{:.1f}')} | {rng(cpu, '{:.3f}')} | "
              f"{rel_ops} | {rel_cpu} | {errs} |")
print("\nRatios are of the same run (versioned / unversioned), the range over runs.")
PY
cat "$work/report.md"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
