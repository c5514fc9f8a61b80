#!/bin/bash
# What docs/testing.md ("The fuzz targets' build beside the second phase")
# measured: the suites' second phase with the fuzz build at SCHED_IDLE beside it.
# Run from the repository root with a throwaway cluster up and target/debug/rsgw built.
# Writes /tmp/exp.log (when each part ended), /tmp/exp-fuzz.log, /tmp/exp-phase2.log.
set -u
cd "$(dirname "$0")/../.."
export RSGW_CEPH_DIR=/tmp/rsgw-ceph-test
eval "$(scripts/ceph-micro env)"
rm -rf tests/fuzz/target
t0=$SECONDS
( FUZZ_PROFILE=quick chrt --idle 0 nice -n 19 tests/fuzz/run.sh 1 config > /tmp/exp-fuzz.log 2>&1; echo "fuzz build+run done at $((SECONDS - t0)) s rc=$?" >> /tmp/exp.log ) &
RSGW_TEST_WORKERS=1 RSGW_TEST_PHASE=alone tests/run.sh target/debug/rsgw "$CEPH_CONF" > /tmp/exp-phase2.log 2>&1
echo "phase 2 done at $((SECONDS - t0)) s rc=$?" >> /tmp/exp.log
wait
