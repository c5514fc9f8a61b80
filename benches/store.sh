#!/usr/bin/env bash
# The store benchmark: rsgw's store API on both backends, and `rados bench` on the
# same cluster in the same run, so the rados backend is judged by a ratio, not a
# figure from another day.
#
#   benches/store.sh [SECONDS] [OUT]   # seconds per measurement (default 5)
#
# Starts the throwaway cluster if it is not running (scripts/ceph-micro), builds
# rsgw with the rados backend, prints a Markdown report (the source of
# docs/perf/store.md). Target: rados backend 4 KiB reads at 64 concurrent ops
# within 10% of `rados bench -t 64 rand`. Writes OUT/results.csv (store bench,
# one row per backend, op and concurrency), OUT/rados-bench.csv, OUT/report.md
# (the report printed) and OUT/run.json (command, date, commit, host); OUT
# defaults to docs/perf/store.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-5}
OUT=${2:-docs/perf/store}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
run_info "$work/run.json" "$0" "$@"

cargo build --release --features rados -q
RSGW=target/release/rsgw
scripts/ceph-micro start >&2
eval "$(scripts/ceph-micro env)"

cat >"$work/local.toml" <<TOML
[store]
backend = "local"
path = "$work/local-data"
TOML
cat >"$work/rados.toml" <<TOML
[store]
backend = "rados"
ceph_conf = "$CEPH_CONF"
pool_prefix = "rsgw"
TOML

echo "== rsgw store-bench, local backend" >&2
$RSGW admin -c "$work/local.toml" store-bench -s "$SECS" --json >"$work/local.json"
echo "== rsgw store-bench, rados backend" >&2
$RSGW admin -c "$work/rados.toml" store-bench -s "$SECS" --json >"$work/rados.json"

# rados bench on the pool the store bench used (it exists now)
echo "== rados bench -t 64, 4 KiB" >&2
rados -p rsgw.bench bench "$SECS" write -t 64 -b 4096 --no-cleanup >"$work/rb-write.txt" 2>&1
rados -p rsgw.bench bench "$SECS" rand -t 64 >"$work/rb-rand.txt" 2>&1
rados -p rsgw.bench bench "$SECS" write -t 1 -b 4096 --no-cleanup >"$work/rb-write1.txt" 2>&1
rados -p rsgw.bench bench "$SECS" rand -t 1 >"$work/rb-rand1.txt" 2>&1
rados -p rsgw.bench cleanup >/dev/null 2>&1 || true

python3 - "$work" "$SECS" <<'PY' | tee "$work/report.md"
import json, re, sys, os, platform, datetime
work, secs = sys.argv[1], sys.argv[2]
def iops(name):
    text = open(os.path.join(work, name)).read()
    m = re.search(r"Average IOPS:\s+(\d+)", text)
    lat = re.search(r"Average Latency\(s\):\s+([\d.]+)", text)
    if not m:
        sys.exit(f"could not read rados bench output {name}:\n{text[-2000:]}")
    return int(m.group(1)), float(lat.group(1)) * 1e6 if lat else float("nan")
rows = json.load(open(os.path.join(work, "local.json"))) + json.load(open(os.path.join(work, "rados.json")))
print(f"Measured {datetime.date.today()} on {os.cpu_count()} cores ({platform.machine()}), "
      f"{secs} s per measurement, 4 KiB objects.\n")
with open(os.path.join(work, "results.csv"), "w") as f:
    print("backend,op,concurrency,ops_per_s,p50_us,p99_us,errors", file=f)
    for r in rows:
        print(f"{r['backend']},{r['op']},{r['concurrency']},{r['ops_per_sec']:.1f},{r['p50_us']},{r['p99_us']},{r['errors']}", file=f)
print("| backend | op | concurrency | ops/s | p50 (µs) | p99 (µs) | errors |")
print("|---|---|---:|---:|---:|---:|---:|")
for r in rows:
    print(f"| {r['backend']} | {r['op']} | {r['concurrency']} | {r['ops_per_sec']:.0f} | {r['p50_us']} | {r['p99_us']} | {r['errors']} |")
w64, w64l = iops("rb-write.txt"); r64, r64l = iops("rb-rand.txt")
w1, w1l = iops("rb-write1.txt"); r1, r1l = iops("rb-rand1.txt")
print("\n| rados bench, same cluster, same run | ops/s | mean latency (µs) |")
print("|---|---:|---:|")
print(f"| write -t 1 -b 4096 | {w1} | {w1l:.0f} |")
print(f"| rand -t 1 | {r1} | {r1l:.0f} |")
print(f"| write -t 64 -b 4096 | {w64} | {w64l:.0f} |")
print(f"| rand -t 64 | {r64} | {r64l:.0f} |")
with open(os.path.join(work, "rados-bench.csv"), "w") as f:
    print("test,threads,block_size,ops_per_s,mean_latency_us", file=f)
    for test, t, ops, lat in [("write", 1, w1, w1l), ("rand", 1, r1, r1l), ("write", 64, w64, w64l), ("rand", 64, r64, r64l)]:
        print(f"{test},{t},4096,{ops},{lat:.0f}", file=f)
def find(backend, op, c):
    return next(r for r in rows if r["backend"] == backend and r["op"] == op and r["concurrency"] == c)
read64 = find("rados", "read", 64)["ops_per_sec"]
write64 = find("rados", "write_full", 64)["ops_per_sec"]
ratio = read64 / r64
print(f"\nrados backend / rados bench: 4 KiB read at 64 concurrent = {ratio:.2f}x "
      f"({read64:.0f} vs {r64} ops/s; target >= 0.90x: {'met' if ratio >= 0.9 else 'NOT met'}); "
      f"write_full at 64 = {write64 / w64:.2f}x ({write64:.0f} vs {w64} ops/s)")
PY
publish "$OUT" "$work/results.csv" "$work/rados-bench.csv" "$work/report.md" "$work/run.json"
