#!/usr/bin/env bash
# Runs the Python suites (pytest, in the pinned virtual environment of
# tests/venv.sh) against targets started here:
#   tests/s3/       the S3 client suite: S3 behaviour, every test once per
#                   target with boto3 and the real command-line clients
#   tests/gateway/  rsgw's own behaviour on gateways the tests start (admin
#                   CLI and GC, handler pools and admission, frontend limits,
#                   overload, faults, rsgw bench, the leak check)
# Targets, each with the same two users (alice, bob):
#   rsgw-local  rsgw serve on the embedded backend
#   rsgw-rados  rsgw serve on the rados backend      } only with a CEPH_CONF
#   radosgw     the real radosgw, proving the tests  } (a throwaway cluster,
#               encode S3, not rsgw                  }  scripts/ceph-micro)
# Everything started here is stopped on exit.
#   tests/run.sh RSGW_BINARY CEPH_CONF|- [pytest args...]
# "-" for CEPH_CONF: no cluster, rsgw-local only. Without a test path among
# the pytest args both suites run; a bare file name (test_pool.py,
# test_faults.py::test_mon_restart_under_load) is looked up in both.
#   tests/run.sh target/debug/rsgw "$CEPH_CONF" -x -k 'not radosgw'
#   tests/run.sh target/debug/rsgw - s3          # the inner loop's suite
# Two phases (tests/conftest.py): first tests/s3 and the tests/gateway
# modules marked `concurrent` on RSGW_TEST_WORKERS pytest-xdist workers
# (default 3), a module's tests against one target together on one worker
# in order; then the rest of tests/gateway and the tests/s3 modules marked
# `alone` (they measure timing and load, stop OSDs, change the shared users'
# quotas, or run lifecycle passes) in two lanes on two workers, one test at
# a time in each: the embedded store's (rsgw-local) beside the cluster's.
# RSGW_TEST_WORKERS=1 runs everything in one process, in one phase;
# RSGW_TEST_PHASE=concurrent or alone runs that phase only, as it runs here;
# RSGW_TEST_ALONE_MARK=FILE is created as the second phase begins
# (scripts/test starts the fuzz targets' build beside that phase).
# Env: RSGW_TEST_RADOSGW=no leaves radosgw out (the cluster has one radosgw:
# two runs at once on one cluster would stop each other's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[[ $# -ge 2 ]] || { sed -n "2,33p" "$0"; exit 2; }
RSGW=$(realpath "$1")
CEPH_CONF=$2
shift 2
# shellcheck source=tests/venv.sh
source "$here/venv.sh"
# shellcheck source=tests/lib.sh
source "$here/lib.sh"

workers=${RSGW_TEST_WORKERS:-3}
[[ $workers =~ ^[1-9][0-9]*$ ]] || { echo "RSGW_TEST_WORKERS: a positive number, not '$workers'" >&2; exit 2; }
phases=(concurrent alone)
case ${RSGW_TEST_PHASE:-} in
  "") ;;
  concurrent | alone) phases=("$RSGW_TEST_PHASE") ;;
  *) echo "RSGW_TEST_PHASE: concurrent or alone, not '$RSGW_TEST_PHASE'" >&2; exit 2 ;;
esac
pytest_args=() paths=()
prev=
for a in "$@"; do
  case $prev in
    -k | -m | -p | -o | -W | -c | --deselect | --ignore | --tb | --maxfail | --durations | --junitxml)
      pytest_args+=("$a") prev=$a
      continue
      ;;
  esac
  prev=$a
  if [[ $a == -* ]]; then
    pytest_args+=("$a")
    continue
  fi
  file=${a%%::*}
  if [[ $file == *.py && ! -e $here/$file ]]; then
    for d in s3 gateway; do [[ -e $here/$d/$file ]] && a=$d/$a && break; done
  fi
  if [[ -e $here/${a%%::*} ]]; then paths+=("$a"); else pytest_args+=("$a"); fi
done
((${#paths[@]})) || paths=(s3 gateway)

RSGW_WORK=$(mktemp -d)
rgw=0 prefix=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  rsgw_stop_all
  ((rgw)) && { "$here/../scripts/ceph-micro" stop rgw >/dev/null 2>&1 || true; }
  # this run's pools: runs repeated on one cluster would otherwise pile up
  # pools until the OSD takes no more placement groups
  if [[ -n $prefix ]]; then
    local p
    for p in $(ceph osd pool ls 2>/dev/null | grep "^$prefix\."); do
      ceph osd pool rm "$p" "$p" --yes-i-really-really-mean-it >/dev/null 2>&1 || true
    done
  fi
  rm -rf "$RSGW_WORK"
}
trap cleanup EXIT

ALICE_AK=ALICEACCESSKEY000001 ALICE_SK=alicesecretkey0000000000000000000000001
BOB_AK=BOBACCESSKEY00000001 BOB_SK=bobsecretkey00000000000000000000000001
users=(--user "alice:Alice:$ALICE_AK:$ALICE_SK" --user "bob:Bob:$BOB_AK:$BOB_SK")
# encryption keys in radosgw's testing form, the same on every target
# (tests/s3/test_encryption.py); plain HTTP may carry them here
KMS_KEYS="testkey-1=YmluCmJvb3N0CmJvb3N0LWJ1aWxkCmNlcGguY29uZgo= testkey-2=aWIKTWFrZWZpbGUKbWFuCm91dApzcmMKVGVzdGluZwo="
SSE_S3_KEY=c3NlLXMzIG1hc3RlciBrZXkgb2YgdGhlIHRlc3RzISE=
# the usage log kept on every target, written every second
# (tests/s3/test_admin_ops.py reads it)
s3=(--toml "[s3]
dns_names = [\"s3.test\"]
website_dns_names = [\"web.test\"]
usage_log = true
usage_log_flush_s = 1
[crypt]
require_ssl = false
kms_keys = \"$KMS_KEYS\"
kms_default_key = \"testkey-1\"
sse_s3_key = \"$SSE_S3_KEY\"")
targets="" configs=""

rsgw_start rsgw-local --backend local "${s3[@]}" "${users[@]}"
targets+="rsgw-local=${RSGW_URL[rsgw-local]},"
configs+="rsgw-local=${RSGW_CONFIG[rsgw-local]},"

if [[ $CEPH_CONF != - ]]; then
  export CEPH_CONF
  prefix=s3t$RANDOM$RANDOM
  rsgw_start rsgw-rados --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix "$prefix" "${s3[@]}" "${users[@]}"
  targets+="rsgw-rados=${RSGW_URL[rsgw-rados]},"
  configs+="rsgw-rados=${RSGW_CONFIG[rsgw-rados]},"
fi
if [[ $CEPH_CONF != - && ${RSGW_TEST_RADOSGW:-yes} != no ]]; then
  rgw_port=$(rsgw_free_port)
  rgw=1
  # no lifecycle thread in radosgw: between 00:00 and 06:00 UTC (its default
  # rgw_lifecycle_work_time) it processed the test buckets' lifecycle shards
  # with real days and marked them done, so test_lifecycle.py's
  # `radosgw-admin lc process` expired nothing; the tests run every pass
  RGW_PORT=$rgw_port RGW_THREADS=64 RGW_DNS_NAME=s3.test RGW_WEBSITE_DNS_NAME=web.test \
    RGW_ARGS="--rgw-enable-lc-threads=false --rgw-enable-usage-log=true --rgw-usage-log-tick-interval=1 --rgw-crypt-require-ssl=false --rgw-crypt-s3-kms-backend=testing --rgw-crypt-s3-kms-encryption-keys=${KMS_KEYS// /,}" \
    "$here/../scripts/ceph-micro" rgw >/dev/null
  rgw_user() { # uid name access secret (e-mail: uid@example.com, as rsgw's)
    if radosgw-admin user info --uid="$1" >/dev/null 2>&1; then
      radosgw-admin user modify --uid="$1" --email="$1@example.com" >/dev/null
    else
      radosgw-admin user create --uid="$1" --display-name="$2" --email="$1@example.com" \
        --access-key="$3" --secret-key="$4" >/dev/null
    fi
  }
  rgw_user alice Alice $ALICE_AK $ALICE_SK
  rgw_user bob Bob $BOB_AK $BOB_SK
  targets+="radosgw=http://127.0.0.1:$rgw_port"
fi
[[ $CEPH_CONF != - ]] || unset CEPH_CONF

export S3_TARGETS=$targets RSGW_CONFIGS=$configs RSGW_BIN=$RSGW ALICE_AK ALICE_SK BOB_AK BOB_SK KMS_KEYS
echo "targets: $S3_TARGETS"
echo "python: $(command -v python3) ($(python3 -c 'import boto3, pytest; print("boto3", boto3.__version__, "pytest", pytest.__version__)'))"
cd "$here"
status=0 collected=0 empty=0
suite() { # pytest [args...]: rc 5 (nothing collected, e.g. a -k matching one suite) is a failure only if no run collected anything
  local rc=0
  python3 -m pytest -q -p no:cacheprovider --durations=15 "$@" || rc=$?
  case $rc in
    0) collected=1 ;;
    5) empty=1 ;;
    *) collected=1 status=$rc ;;
  esac
}
if ((workers == 1)); then
  suite "${pytest_args[@]}" "${paths[@]}"
else
  for phase in "${phases[@]}"; do
    case $phase in
      concurrent) RSGW_TEST_PHASE=concurrent suite -n "$workers" --dist loadgroup --no-loadscope-reorder "${pytest_args[@]}" "${paths[@]}" ;;
      alone)
        [[ -z ${RSGW_TEST_ALONE_MARK:-} ]] || touch "$RSGW_TEST_ALONE_MARK"
        RSGW_TEST_PHASE=alone suite -n 2 --dist loadgroup --no-loadscope-reorder "${pytest_args[@]}" "${paths[@]}"
        ;;
    esac
  done
fi
((collected || !empty)) || status=5
# the targets must still run, and stop cleanly
for name in "${RSGW_NAMES[@]}"; do rsgw_stop "$name" || status=1; done
exit $status
