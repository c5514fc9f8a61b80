#!/usr/bin/env bash
# The fault tests behind docs/reliability.md's table of faults, RUNS times
# each, their summaries kept: the gateway SIGKILLed under writes (both
# backends), an OSD and the mon stopped and restarted under load, one of
# three OSDs SIGKILLed under load through two gateways, the OSDs past the
# full ratio, and the local backend's disk full. Each test appends one
# JSON line per passing run to OUT/<fault>.jsonl (RSGW_FAULTS_OUT, read by
# tests/support/helpers.py's record_run); a run that fails is counted in
# OUT/rounds.jsonl with pytest's status. Needs the throwaway cluster of the
# test command (3 BlueStore OSDs), found as scripts/ceph-micro finds it
# (RSGW_CEPH_DIR), and root (the disk-full test mounts a tmpfs). About 80 s
# a round on 2 CPUs.
#   tests/reliability/faults.sh RSGW_BINARY CEPH_CONF RUNS OUT
set -euo pipefail
[[ $# -eq 4 ]] || { sed -n '2,14p' "$0"; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
rsgw=$(realpath "$1") conf=$2 runs=$3 out=$4
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "RUNS: a positive number, not '$runs'" >&2; exit 2; }
# the tests stop and kill the cluster's daemons through scripts/ceph-micro
"$here/../scripts/ceph-micro" status >/dev/null 2>&1 ||
  { echo "no running cluster in ${RSGW_CEPH_DIR:-/tmp/rsgw-ceph} (set RSGW_CEPH_DIR)" >&2; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")
tests=(
  test_faults.py::test_kill_9_under_write_load_keeps_old_or_new
  test_faults.py::test_osd_stop_and_restart_under_load
  test_faults.py::test_mon_restart_under_load
  test_osd_kill.py::test_one_of_three_osds_killed_under_load
  test_full_cluster.py::test_osds_past_the_full_ratio
  test_full_cluster.py::test_local_disk_full
)
for ((i = 1; i <= runs; i++)); do
  start=$SECONDS rc=0
  RSGW_FAULTS_OUT=$out RSGW_TEST_RADOSGW=no RSGW_TEST_WORKERS=1 \
    "$here/run.sh" "$rsgw" "$conf" "${tests[@]}" >"$out/round-$i.log" 2>&1 || rc=$?
  printf '{"round": %d, "pytest_status": %d, "seconds": %d}\n' "$i" "$rc" $((SECONDS - start)) | tee -a "$out/rounds.jsonl"
done
python3 - "$out" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for f in sorted(out.glob("*.jsonl")):
    if f.name == "rounds.jsonl":
        continue
    rows = [json.loads(line) for line in f.read_text().splitlines() if line.strip()]
    total = lambda k: sum(r.get(k, 0) for r in rows)
    print(f"{f.stem}: {len(rows)} runs, {total('requests')} requests, {total('errors')} client errors, "
          f"{total('lost')} lost")
PY
