#!/usr/bin/env bash
# What server-side encryption costs a 4 MiB PUT and GET (docs/perf/crypt.md),
# on rsgw (rados backend) and radosgw on the same throwaway cluster, in one
# run, with the same keys (radosgw's testing KMS backend) and the same load:
#   benches/crypt.sh OUT [RUNS] [SECONDS]
# For each run (default 3) and each gateway, in turn: 4 MiB writes, then
# reads of 16 objects, for SECONDS each (default 20), 4 workers of
# `rsgw bench s3 --sse MODE`, for MODE in clear, SSE-C (c) and SSE-KMS
# (kms:testkey-1). The gateway is pinned to CPU 0, the client to CPU 1; the
# cluster's OSD and monitor float over both. What is measured is the
# gateway's CPU (utime + stime of its process) around each timed work, the
# objects written and removed around it by unmeasured workloads.
# Then an independent client's check of the reads: wrk (if installed) GETs
# one public-read 4 MiB object of each mode from each gateway for 10 s
# (RUNS 0: only this check).
# OUT/results.csv: one row per gateway, mode, operation and run;
# OUT/wrk.csv: wrk's figures; OUT/report.md: each gateway's MB/s and CPU
# ms per operation, the range over runs, and each encrypted mode's ratio
# to the clear one in the same run, then wrk's; OUT/run.json: the command,
# date, commit and host.
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 1 ]] || { sed -n '2,25p' "$0"; exit 2; }
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

KMS_KEYS="testkey-1=YmluCmJvb3N0CmJvb3N0LWJ1aWxkCmNlcGguY29uZgo= testkey-2=aWIKTWFrZWZpbGUKbWFuCm91dApzcmMKVGVzdGluZwo="
RGW_ARGS="--rgw-crypt-require-ssl=false --rgw-crypt-s3-kms-backend=testing --rgw-crypt-s3-kms-encryption-keys=${KMS_KEYS// /,}" \
  start_gateway_pair crypt rsgwcrypt --toml "[crypt]
require_ssl = false
kms_keys = \"$KMS_KEYS\""

# a workload file of STAGES (init prepare main cleanup dispose) with OP the
# main work's operation
workload() { # FILE OP STAGES...
  local file=$1 op=$2 s
  shift 2
  {
    echo '<workload name="crypt"><storage type="s3" config="path_style_access=true"/><workflow>'
    for s in "$@"; do
      case $s in
        init) echo '<workstage name="init"><work type="init" workers="1" config="cprefix=crypt;containers=r(1,1)"/></workstage>' ;;
        prepare) echo '<workstage name="prepare"><work type="prepare" workers="4" config="cprefix=crypt;containers=r(1,1);objects=r(1,16);sizes=c(4194304)B"/></workstage>' ;;
        main) echo "<workstage name=\"main\"><work name=\"$op\" workers=\"4\" runtime=\"$SECONDS_EACH\"><operation type=\"$op\" ratio=\"100\" config=\"cprefix=crypt;containers=c(1);objects=u(1,16);sizes=c(4194304)B\"/></work></workstage>" ;;
        cleanup) echo '<workstage name="cleanup"><work type="cleanup" workers="4" config="cprefix=crypt;containers=r(1,1);objects=r(1,16)"/></workstage>' ;;
        dispose) echo '<workstage name="dispose"><work type="dispose" workers="1" config="cprefix=crypt;containers=r(1,1)"/></workstage>' ;;
      esac
    done
    echo '</workflow></workload>'
  } >"$file"
}
workload "$work/setup.xml" read init prepare
workload "$work/write.xml" write main
workload "$work/read.xml" read main
workload "$work/teardown.xml" read cleanup dispose

hz=$(getconf CLK_TCK)
echo "gateway,mode,op,run,ops,errors,seconds,ops_per_s,mb_per_s,cpu_s,cpu_ms_per_op" >"$work/results.csv"
for run in $(seq "$RUNS"); do
  for gw in rsgw radosgw; do
    for mode in clear c kms:testkey-1; do
      sse=()
      [[ $mode == clear ]] || sse=(--sse "$mode")
      bench=(taskset -c 1 "$RSGW" bench s3 --endpoint "${url[$gw]}" --access-key "$BENCH_AK"
        --secret-key "$BENCH_SK" --quiet "${sse[@]}")
      "${bench[@]}" "$work/setup.xml" >/dev/null
      for op in write read; do
        c0=$(cpu_ticks "${pid[$gw]}")
        "${bench[@]}" --json "$work/$op.xml" >"$work/out.json"
        c1=$(cpu_ticks "${pid[$gw]}")
        python3 - "$work/out.json" "$gw" "$mode" "$op" "$run" $((c1 - c0)) "$hz" >>"$work/results.csv" <<'PY'
import json, sys
path, gw, mode, op, run, ticks, hz = sys.argv[1:]
(work,) = [w for w in json.load(open(path)) if w["stage"] == "main"]
(r,) = work["ops"]
cpu = int(ticks) / int(hz)
mode = {"clear": "clear", "c": "SSE-C", "kms:testkey-1": "SSE-KMS"}[mode]
print(f"{gw},{mode},{op},{run},{r['ops']},{r['errors']},{work['seconds']:.1f},{r['ops_per_s']:.1f},"
      f"{r['mb_per_s']:.1f},{cpu:.2f},{cpu / max(r['ops'], 1) * 1000:.2f}")
PY
        tail -1 "$work/results.csv"
      done
      "${bench[@]}" "$work/teardown.xml" >/dev/null
    done
  done
done

# An independent client's check of the GET figures: wrk (apt-get install
# wrk; one thread, 4 connections, 10 s, on CPU 1) reading one public-read
# 4 MiB object per mode, the SSE-C one with its key's headers:
# OUT/wrk.csv, gateway, mode, requests/s, MB/s, gateway CPU ms per request.
if command -v wrk >/dev/null; then
  key_b64=$(printf 'rsgw bench SSE-C key, 32 bytes!!' | base64)
  md5_b64=$(printf 'rsgw bench SSE-C key, 32 bytes!!' | openssl md5 -binary | base64)
  ssec=(-H "x-amz-server-side-encryption-customer-algorithm: AES256"
    -H "x-amz-server-side-encryption-customer-key: $key_b64"
    -H "x-amz-server-side-encryption-customer-key-md5: $md5_b64")
  # boto3 writes the objects (curl 7.88 signs these headers out of order)
  # shellcheck source=tests/venv.sh
  source tests/venv.sh
  echo "gateway,mode,requests_per_s,mb_per_s,cpu_ms_per_request" >"$work/wrk.csv"
  for gw in rsgw radosgw; do
    python3 - "${url[$gw]}" "$BENCH_AK" "$BENCH_SK" <<'PY'
import os, sys, boto3, botocore.config
c = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3],
                 region_name="us-east-1", config=botocore.config.Config(s3={"addressing_style": "path"}))
c.create_bucket(Bucket="wrkcheck")
body = os.urandom(4 << 20)
modes = {"clear": {}, "SSE-C": {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": b"rsgw bench SSE-C key, 32 bytes!!"},
         "SSE-KMS": {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": "testkey-1"}}
for name, kw in modes.items():
    c.put_object(Bucket="wrkcheck", Key=name, Body=body, ACL="public-read", **kw)
PY
    for mode in clear SSE-C SSE-KMS; do
      read_hdrs=()
      [[ $mode == SSE-C ]] && read_hdrs=("${ssec[@]}")
      c0=$(cpu_ticks "${pid[$gw]}")
      taskset -c 1 wrk -t1 -c4 -d10s "${read_hdrs[@]}" "${url[$gw]}/wrkcheck/$mode" >"$work/wrk.out"
      c1=$(cpu_ticks "${pid[$gw]}")
      awk -v gw="$gw" -v mode="$mode" -v ticks=$((c1 - c0)) -v hz="$hz" '
        /requests in/ {n = $1}
        /^Requests\/sec:/ {rps = $2}
        /Non-2xx/ {bad = $NF}
        END {if (bad) {print "wrk: " bad " answers not 2xx" > "/dev/stderr"; exit 1}
             printf "%s,%s,%.1f,%.1f,%.2f\n", gw, mode, rps, rps * 4.194304, ticks / hz / n * 1000}
      ' "$work/wrk.out" >>"$work/wrk.csv"
      tail -1 "$work/wrk.csv"
    done
    python3 - "${url[$gw]}" "$BENCH_AK" "$BENCH_SK" <<'PY'
import sys, boto3, botocore.config
c = boto3.client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3],
                 region_name="us-east-1", config=botocore.config.Config(s3={"addressing_style": "path"}))
for k in ("clear", "SSE-C", "SSE-KMS"):
    c.delete_object(Bucket="wrkcheck", Key=k)
c.delete_bucket(Bucket="wrkcheck")
PY
  done
  wrk_file=$work/wrk.csv
else
  echo "wrk is not installed (apt-get install wrk): no independent check" >&2
  wrk_file=
fi

python3 - "$work/results.csv" "$RUNS" "$SECONDS_EACH" "$wrk_file" >"$work/report.md" <<'PY'
import csv, sys
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
runs, secs, wrk = sys.argv[2], sys.argv[3], sys.argv[4]
by = defaultdict(dict)
for r in rows:
    by[(r["gateway"], r["op"], r["mode"])][r["run"]] = r
def rng(vals, fmt="{:.1f}"):
    lo, hi = min(vals), max(vals)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"
print(f"4 MiB objects, 4 workers, {secs} s per work, {runs} runs; gateway on CPU 0, client on CPU 1.\n")
print("| gateway | op | mode | MB/s | CPU ms per op | MB/s vs clear | CPU per op vs clear | errors |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for gw in ["rsgw", "radosgw"]:
    for op in ["write", "read"]:
        clear = by[(gw, op, "clear")]
        for mode in ["clear", "SSE-C", "SSE-KMS"]:
            cur = by[(gw, op, mode)]
            if not cur:
                continue
            mb = [float(r["mb_per_s"]) for r in cur.values()]
            cpu = [float(r["cpu_ms_per_op"]) for r in cur.values()]
            errs = sum(int(r["errors"]) for r in cur.values())
            if mode == "clear":
                rel_mb = rel_cpu = "1"
            else:
                rel_mb = rng([float(cur[k]["mb_per_s"]) / float(clear[k]["mb_per_s"]) for k in cur if k in clear], "{:.2f}x")
                rel_cpu = rng([float(cur[k]["cpu_ms_per_op"]) / float(clear[k]["cpu_ms_per_op"]) for k in cur if k in clear], "{:.2f}x")
            print(f"| {gw} | {op} | {mode} | {rng(mb)} | {rng(cpu, '{:.2f}')} | {rel_mb} | {rel_cpu} | {errs} |")
if wrk:
    print("\nwrk, 1 thread, 4 connections, 10 s, one public-read 4 MiB object per mode:\n")
    print("| gateway | mode | MB/s | CPU ms per GET |")
    print("|---|---|---:|---:|")
    for r in csv.DictReader(open(wrk)):
        print(f"| {r['gateway']} | {r['mode']} | {r['mb_per_s']} | {r['cpu_ms_per_request']} |")
PY
cat "$work/report.md"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json" ${wrk_file:+"$wrk_file"}
