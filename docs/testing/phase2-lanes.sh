#!/bin/bash
# What docs/testing.md ("The second phase in two lanes") measured: the
# suites' second phase as the test command runs it (RSGW_TEST_PHASE=alone
# tests/run.sh: two lanes on two pytest-xdist workers), N times, with a
# timeline of every test (worker, start, end, outcome) from a small pytest
# plugin this script puts in tests/support for the run.
# Run from the repository root with a throwaway cluster up and
# target/debug/rsgw built: docs/testing/phase2-lanes.sh N OUT
set -u
cd "$(dirname "$0")/../.."
n=${1:-1} out=${2:-/tmp/phase2-lanes}
mkdir -p "$out"
export RSGW_CEPH_DIR=${RSGW_CEPH_DIR:-/tmp/rsgw-ceph-test}
eval "$(scripts/ceph-micro env)"
plugin=tests/support/lanetrace_tmp.py
trap 'rm -f "$plugin"' EXIT
cat >"$plugin" <<PY
import os, time
def _log(line):
    with open("$out/trace.txt", "a") as f:
        f.write(f"{time.strftime('%H:%M:%S')} {os.environ.get('PYTEST_XDIST_WORKER', '-')} {line}\n")
def pytest_runtest_logstart(nodeid, location):
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _log(f"start {nodeid}")
def pytest_runtest_logreport(report):
    if os.environ.get("PYTEST_XDIST_WORKER") and (report.when == "call" or report.outcome != "passed"):
        _log(f"{report.when} {report.outcome} {report.nodeid} {report.duration:.1f}")
PY
for i in $(seq 1 "$n"); do
  echo "== run $i" >>"$out/trace.txt"
  s=$SECONDS
  RSGW_TEST_PHASE=alone tests/run.sh target/debug/rsgw "$CEPH_CONF" --durations=0 -p lanetrace_tmp >"$out/run$i.log" 2>&1
  echo "run $i exit $? in $((SECONDS - s)) s: $(tail -1 "$out/run$i.log")" >>"$out/summary.txt"
done
