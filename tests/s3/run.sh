#!/usr/bin/env bash
# Runs the S3 client test suite (pytest + boto3 and the other real clients)
# against three targets started here, on one throwaway Ceph cluster:
#   rsgw-local  rsgw serve on the embedded backend
#   rsgw-rados  rsgw serve on the rados backend
#   radosgw     the real radosgw, proving the tests encode S3, not rsgw
# Each target gets the same two users (alice, bob). Everything started here
# is stopped on exit.
#   tests/s3/run.sh RSGW_BINARY CEPH_CONF [pytest args...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
RSGW=$(realpath "$1")
CEPH_CONF=$2
shift 2
pytest_args=("$@")
export CEPH_CONF
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  "$here/../../scripts/ceph-micro" stop rgw >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

ALICE_AK=ALICEACCESSKEY000001 ALICE_SK=alicesecretkey0000000000000000000000001
BOB_AK=BOBACCESSKEY00000001 BOB_SK=bobsecretkey00000000000000000000000001
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

start_rsgw() { # name backend-toml-lines
  local name=$1 cfg=$work/$1.toml p
  p=$(port)
  printf '[frontend]\nendpoints = ["127.0.0.1:%s"]\nadmin_endpoint = "127.0.0.1:%s"\n[s3]\ndns_names = ["s3.test"]\n%s\n' \
    "$p" "$(port)" "$2" >"$cfg"
  "$RSGW" admin -c "$cfg" user create --uid alice --display-name Alice --access-key $ALICE_AK --secret-key $ALICE_SK >/dev/null
  "$RSGW" admin -c "$cfg" user create --uid bob --display-name Bob --access-key $BOB_AK --secret-key $BOB_SK >/dev/null
  "$RSGW" serve -c "$cfg" 2>"$work/$name.log" &
  pids+=($!)
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$p/" && break; sleep 0.1; done
  targets+="$name=http://127.0.0.1:$p,"
  configs+="$name=$cfg,"
}

targets=""
configs=""
prefix=s3t$RANDOM
start_rsgw rsgw-local "[store]
path = \"$work/local-data\""
start_rsgw rsgw-rados "[store]
backend = \"rados\"
ceph_conf = \"$CEPH_CONF\"
pool_prefix = \"$prefix\""

rgw_port=$(port)
RGW_PORT=$rgw_port RGW_THREADS=64 RGW_DNS_NAME=s3.test "$here/../../scripts/ceph-micro" rgw >/dev/null
rgw_user() { # uid name access secret
  radosgw-admin user info --uid="$1" >/dev/null 2>&1 ||
    radosgw-admin user create --uid="$1" --display-name="$2" --access-key="$3" --secret-key="$4" >/dev/null
}
rgw_user alice Alice $ALICE_AK $ALICE_SK
rgw_user bob Bob $BOB_AK $BOB_SK
targets+="radosgw=http://127.0.0.1:$rgw_port"

export S3_TARGETS=$targets RSGW_CONFIGS=$configs RSGW_BIN=$RSGW ALICE_AK ALICE_SK BOB_AK BOB_SK
echo "targets: $S3_TARGETS"
cd "$here"
python3 -m pytest -q -p no:cacheprovider "${pytest_args[@]}"
