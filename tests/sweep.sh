#!/usr/bin/env bash
# The sizing lab's check: `rsgw bench sweep --quick --duration 1 --warmup 0`
# (benches/sweep.sh) with both gateways on the throwaway cluster, within 10
# minutes, producing the CSV, JSON, Markdown report and SVG/PNG charts;
# every rsgw measurement error-free, every radosgw measurement present.
#   tests/sweep.sh RSGW_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
rsgw=$(realpath "$1")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
start=$SECONDS
# one measured second per workload and no warm-up: the check is of the
# machinery (every cell measured, error-free, reported and charted), not of
# the figures, which docs/sizing.md takes from longer runs; the two halve
# the step's time and take 90 s (18 starts x 5 workloads x 1 s) more off it.
# 8 workers and 16 MiB per size, not 32 and 64: this debug build spends
# about 150 ms of CPU on one 4 MiB PUT, so a second of 4 MiB writes waited
# for 32 in flight and the preload wrote 16 such objects per start; they
# took the sweep from 222 s to 177 s (docs/testing.md)
RSGW=$rsgw timeout 600 benches/sweep.sh "$out" --quick --duration 1 --warmup 0 --workers 8 --dataset-mib 16
took=$((SECONDS - start))
echo "sweep --quick took ${took} s"
((took < 600)) || { echo "sweep --quick took over 10 minutes"; exit 1; }
python3 - "$out" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
rows = json.load(open(os.path.join(out, "results.json")))
# 3 layouts (1x1 2x1 1x2) x 2 thread counts x 3 variants; 4 KiB: write read ab, 4 MiB: write read
assert len(rows) == 3 * 2 * 3 * 5, len(rows)
assert len(list(csv.DictReader(open(os.path.join(out, "results.csv"))))) == len(rows)
variants = {r["variant"] for r in rows}
assert variants == {"rsgw async", "rsgw blocking", "radosgw"}, variants
for r in rows:
    assert r["ops"] > 0 and r["gateway_cpu_s"] > 0 and r["cpu_us_per_op"] > 0, r
    if r["gateway"] == "rsgw":
        assert r["errors"] == 0, r
layouts = {(r["cores"], r["instances"]) for r in rows}
assert layouts == {(1, 1), (2, 1), (1, 2)}, layouts
charts = set(os.listdir(os.path.join(out, "charts")))
for w in ["write-4KiB", "read-4KiB", "ab-4KiB", "write-4MiB", "read-4MiB"]:
    for kind in ["cores", "instances", "threads", "cpu-threads"]:
        for ext in ["svg", "png"]:
            name = f"{kind}-{w}.{ext}"
            assert name in charts, (name, sorted(charts))
            assert os.path.getsize(os.path.join(out, "charts", name)) > 2000, name
report = open(os.path.join(out, "report.md")).read()
for h in ["## write 4KiB", "## read 4KiB", "## ab 4KiB", "## write 4MiB", "## read 4MiB",
          "rsgw async / radosgw", "(charts/instances-ab-4KiB.svg)"]:
    assert h in report, h
print(f"sweep check: {len(rows)} rows, {len(charts)} chart files, report.md with every table")
PY
