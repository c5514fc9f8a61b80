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
# Then an independent client's check: ab PUTs a 4 KiB file anonymously to
# one key of a public-read-write bucket of each kind on each gateway, 10 s.
# OUT/results.csv: one row per gateway, mode and run; OUT/ab.csv: ab's
# figures; OUT/report.md: each gateway's PUTs/s and CPU ms per PUT, the
# range over runs, and the versioned bucket's ratio to the unversioned one
# in the same run, then ab's; OUT/run.json: the command, date, commit and
# host.
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { sed -n '2,24p' "$0"; exit 2; }
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

# An independent client's check of the PUT rates: ab (on CPU 1, 8
# connections, 10 s) PUTs a 4 KiB file anonymously to one key of a
# public-read-write bucket on each gateway, unversioned then versioned:
# OUT/ab.csv, gateway, bucket, PUTs/s, gateway CPU ms per PUT.
# shellcheck source=tests/venv.sh
source tests/venv.sh
head -c 4096 /dev/urandom >"$work/put.bin"
echo "gateway,mode,puts_per_s,cpu_ms_per_put" >"$work/ab.csv"
boto() { # ENDPOINT ACTION BUCKET
  python3 - "$@" "$BENCH_AK" "$BENCH_SK" <<'PY'
import sys, boto3, botocore.config
ep, action, bucket, ak, sk = sys.argv[1:]
c = boto3.client("s3", endpoint_url=ep, aws_access_key_id=ak, aws_secret_access_key=sk, region_name="us-east-1",
                 config=botocore.config.Config(s3={"addressing_style": "path"}))
if action == "make":
    c.create_bucket(Bucket=bucket, ACL="public-read-write")
    if bucket.endswith("v"):
        c.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
else:
    import time
    for attempt in range(5):
        for page in c.get_paginator("list_object_versions").paginate(Bucket=bucket):
            doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                      for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
            if doomed:
                c.delete_objects(Bucket=bucket, Delete={"Objects": doomed, "Quiet": True})
        try:
            c.delete_bucket(Bucket=bucket)
            break
        except c.exceptions.ClientError as e:
            # radosgw 16.2 after ab's cut PUTs into a versioned bucket:
            # BucketNotEmpty with nothing listed, for a while or for good
            print(f"{ep} {bucket}: {e.response['Error']['Code']} with nothing listed", file=sys.stderr)
            time.sleep(2)
PY
}
for gw in rsgw radosgw; do
  for mode in unversioned versioned; do
    bucket=abput
    [[ $mode == versioned ]] && bucket=abputv
    boto "${url[$gw]}" make "$bucket"
    c0=$(cpu_ticks "${pid[$gw]}")
    taskset -c 1 ab -q -c 8 -t 10 -n 1000000 -u "$work/put.bin" -T application/octet-stream \
      "${url[$gw]}/$bucket/k" >"$work/ab.out" 2>&1
    c1=$(cpu_ticks "${pid[$gw]}")
    awk -v gw="$gw" -v mode="$mode" -v ticks=$((c1 - c0)) -v hz="$hz" '
      /^Complete requests:/ {n = $3}
      /^Failed requests:/ {failed = $3}
      /^Non-2xx responses:/ {bad = $3}
      /^Requests per second:/ {rps = $4}
      END {if (failed + bad) {print "ab: " failed + bad " requests failed" > "/dev/stderr"; exit 1}
           printf "%s,%s,%.1f,%.3f\n", gw, mode, rps, ticks / hz / n * 1000}
    ' "$work/ab.out" >>"$work/ab.csv"
    tail -1 "$work/ab.csv"
    boto "${url[$gw]}" drop "$bucket"
  done
done

python3 - "$work/results.csv" "$RUNS" "$SECONDS_EACH" "$work/ab.csv" >"$work/report.md" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
runs, secs, ab = sys.argv[2], sys.argv[3], sys.argv[4]
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
abs_ = {(r["gateway"], r["mode"]): r for r in csv.DictReader(open(ab))}
print("\nab (`-c 8 -t 10 -u`, anonymous PUTs of 4 KiB to one key of a public-read-write bucket, on CPU 1):\n")
print("| gateway | bucket | PUTs/s | CPU ms per PUT | PUTs/s vs unversioned |")
print("|---|---|---:|---:|---:|")
for gw in ["rsgw", "radosgw"]:
    base = float(abs_[(gw, "unversioned")]["puts_per_s"])
    for mode in ["unversioned", "versioned"]:
        r = abs_[(gw, mode)]
        print(f"| {gw} | {mode} | {float(r['puts_per_s']):.0f} | {float(r['cpu_ms_per_put']):.3f} | "
              f"{float(r['puts_per_s']) / base:.2f} |")
PY
cat "$work/report.md"
publish "$OUT" "$work/results.csv" "$work/ab.csv" "$work/report.md" "$work/run.json"
