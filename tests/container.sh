#!/usr/bin/env bash
# The container path of docs/deploy.md, for real, with podman: the base image
# (debootstrap + podman import, kept between runs), the rsgw image from
# docker/Dockerfile, a least-privilege cephx key on pre-created pools, two
# gateway containers from docker/compose.yml (podman-compose from the tests'
# virtual environment; a compose file or podman-compose that fails fails the
# test, with the compose log) pinned to CPU 0 and CPU 1 on the host network against the
# throwaway cluster; then S3 round trips through each, each container's
# cpuset seen from inside, a public object under ab through both, the
# HEALTHCHECK, the HAProxy ingress in front of both (docker/haproxy.cfg),
# Prometheus (the monitoring profile, docker/prometheus/) scraping both
# with the alerting rules, a rolling restart of each instance while ab -k
# and an S3 read/write mix run through the ingress (no request may fail,
# every acknowledged write reads back), and a clean stop (exit status 0 after the drain). Then the
# same gateways and ingress deployed by cephadm from docker/cephadm/rsgw.yaml
# (tests/cephadm.sh). Last, the demo profile's single-node cluster
# image with a gateway beside it.
#   tests/container.sh RSGW_BINARY CEPH_CONF
# Env: RSGW_TEST_COMPOSE=no starts the two gateways with `podman run` and
# docker/compose.yml's settings instead (only when asked for: compose itself
# is then untested, and the output says so).
# A machine that cannot run containers fails here with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "container test: $*" >&2; exit 1; }
rsgw=$(realpath --relative-to="$PWD" "$1")
conf=$(realpath "$2")
[[ $rsgw == target/* ]] || fail "the binary must be under target/ (the image's build context)"
export CONTAINERS_CONF=$PWD/tests/containers.conf
# podman-compose, hadolint, boto3 and the aws CLI v1
# shellcheck source=tests/venv.sh
source tests/venv.sh
compose=yes
[[ ${RSGW_TEST_COMPOSE:-yes} == no ]] && compose=no
[[ $compose == no ]] || command -v podman-compose >/dev/null || fail "podman-compose is missing (tests/requirements.txt)"
command -v podman >/dev/null || fail "podman is not installed (scripts/test installs podman, buildah, runc, debootstrap)"
podman info >/dev/null 2>&1 || fail "podman cannot run here: $(podman info 2>&1 | tail -3)"
work=$(mktemp -d)
project=rsgwtest$$
a=${project}_rsgw-a_1
b=${project}_rsgw-b_1
ingress=${project}_ingress_1
prometheus=${project}_prometheus_1
cleanup() {
  [[ -n ${load_pid:-} ]] && kill "$load_pid" 2>/dev/null
  if [[ $compose == yes ]]; then
    podman-compose -f docker/compose.yml -p "$project" down -t 5 >/dev/null 2>&1 || true
  fi
  local c
  for c in "$a" "$b" "$ingress" "$prometheus" "${project}_demo-gw" "${project}_ceph-demo"; do
    podman rm -f -i -t 5 "$c" >/dev/null 2>>"$work/cleanup.log" || cat "$work/cleanup.log" >&2
  done
  rm -rf "$work"
}
trap cleanup EXIT

echo "== hadolint"
hadolint docker/Dockerfile docker/ceph-demo.Dockerfile docker/haproxy.Dockerfile docker/prometheus.Dockerfile

echo "== base image (debootstrap minbase bookworm, kept between runs)"
base=localhost/rsgw-bookworm:latest
if ! podman image exists "$base"; then
  debootstrap --variant=minbase bookworm "$work/rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; fail "debootstrap failed"; }
  tar -C "$work/rootfs" -c . | podman import - "$base" >/dev/null
  rm -rf "$work/rootfs"
fi

echo "== rsgw image from docker/Dockerfile ($rsgw)"
image=localhost/rsgw:test
podman build -q --format docker --network host --build-arg BASE="$base" --build-arg RSGW_BIN="$rsgw" \
  -f docker/Dockerfile -t "$image" . >/dev/null

echo "== ingress image from docker/haproxy.Dockerfile"
ingress_image=localhost/rsgw-ingress:test
podman build -q --format docker --network host --build-arg BASE="$base" \
  -f docker/haproxy.Dockerfile -t "$ingress_image" . >/dev/null

echo "== Prometheus image from docker/prometheus.Dockerfile"
prometheus_image=localhost/rsgw-prometheus:test
podman build -q --format docker --network host --build-arg BASE="$base" \
  -f docker/prometheus.Dockerfile -t "$prometheus_image" . >/dev/null

echo "== cephx key and pools for the gateways (docs/deploy.md, step 2)"
export CEPH_CONF=$conf
prefix=rsgwct
for p in meta index data; do
  ceph osd pool create "$prefix.$p" >/dev/null 2>&1
  ceph osd pool application enable "$prefix.$p" rgw >/dev/null 2>&1
done
ceph auth get-or-create client.rgw.ct mon 'allow r' \
  osd "allow rwx pool=$prefix.meta, allow rwx pool=$prefix.index, allow rwx pool=$prefix.data" \
  -o "$work/ceph.client.rgw.ct.keyring"
chown 7480:7480 "$work/ceph.client.rgw.ct.keyring"
chmod 600 "$work/ceph.client.rgw.ct.keyring"

port_a=$((17480 + $$ % 500 * 20))
port_b=$((port_a + 10))
export RSGW_IMAGE=$image CEPH_CONF=$conf RSGW_KEYRING=$work/ceph.client.rgw.ct.keyring
export RSGW_CLIENT=client.rgw.ct RSGW_POOL_PREFIX=$prefix RSGW_BIND=127.0.0.1
export RSGW_A_CPUS=0 RSGW_B_CPUS=1 RSGW_A_PORT=$port_a RSGW_B_PORT=$port_b
export RSGW_A_ADMIN_PORT=$((port_a + 1)) RSGW_B_ADMIN_PORT=$((port_b + 1))
port_ingress=$((port_a + 5))
export INGRESS_IMAGE=$ingress_image INGRESS_BIND=127.0.0.1 INGRESS_PORT=$port_ingress
port_prometheus=$((port_a + 7))
export PROMETHEUS_IMAGE=$prometheus_image PROMETHEUS_BIND=127.0.0.1 PROMETHEUS_PORT=$port_prometheus
export PROMETHEUS_INTERVAL=1s

echo "== a user, with rsgw admin in the image (docs/deploy.md, step 4)"
store_env=(-e RSGW_STORE_BACKEND=rados -e RSGW_STORE_CEPH_CONF=/etc/ceph/ceph.conf
  -e RSGW_STORE_KEYRING=/etc/ceph/rsgw.keyring -e RSGW_STORE_CLIENT_NAME=$RSGW_CLIENT
  -e RSGW_STORE_POOL_PREFIX=$prefix)
mounts=(-v "$conf:/etc/ceph/ceph.conf:ro" -v "$RSGW_KEYRING:/etc/ceph/rsgw.keyring:ro")
AK=CONTAINERACCESSKEY001 SK=containersecret
podman run --rm --network host "${mounts[@]}" "${store_env[@]}" "$image" \
  admin user info --uid ct >/dev/null 2>&1 ||
  podman run --rm --network host "${mounts[@]}" "${store_env[@]}" "$image" \
    admin user create --uid ct --display-name "container test" --access-key "$AK" --secret-key "$SK" >/dev/null

# run_gateway a|b: gateway a or b with docker/compose.yml's settings,
# started with podman run (RSGW_TEST_COMPOSE=no)
run_gateway() {
  local name=${project}_rsgw-${1}_1 cpus_var=RSGW_${1^^}_CPUS port_var=RSGW_${1^^}_PORT
  local admin_var=RSGW_${1^^}_ADMIN_PORT
  podman run -d --name "$name" --network host --cpuset-cpus "${!cpus_var}" \
    --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 --stop-timeout 40 \
    "${mounts[@]}" "${store_env[@]}" \
    -e RSGW_FRONTEND_ENDPOINTS="[\"$RSGW_BIND:${!port_var}\"]" \
    -e RSGW_FRONTEND_DRAIN_NOTICE_MS=3000 -e RSGW_FRONTEND_TRUSTED_PROXIES='["127.0.0.1"]' \
    -e RSGW_FRONTEND_ADMIN_ENDPOINT="\"127.0.0.1:${!admin_var}\"" "$image" >/dev/null
}

echo "== two pinned gateways, the ingress and Prometheus (docs/deploy.md, step 5 and Alerts)"
if [[ $compose == yes ]]; then
  if ! podman-compose -f docker/compose.yml -p "$project" --profile monitoring up -d >"$work/compose.log" 2>&1 ||
    ! podman container exists "$a" || ! podman container exists "$b" || ! podman container exists "$ingress" ||
    ! podman container exists "$prometheus"; then
    cat "$work/compose.log"
    fail "podman-compose -f docker/compose.yml --profile monitoring up did not bring both gateways, the ingress and Prometheus up"
  fi
  how="podman-compose -f docker/compose.yml --profile monitoring up -d"
else
  echo "RSGW_TEST_COMPOSE=no: podman run with docker/compose.yml's settings; compose is not tested"
  # the same settings as docker/compose.yml, service by service
  for s in a b; do
    run_gateway "$s"
  done
  podman run -d --name "$ingress" --network host --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 \
    -e INGRESS_BIND -e INGRESS_PORT -e RSGW_HOST=127.0.0.1 -e RSGW_A_PORT -e RSGW_A_ADMIN_PORT \
    -e RSGW_B_PORT -e RSGW_B_ADMIN_PORT "$ingress_image" >/dev/null
  podman run -d --name "$prometheus" --network host -e PROMETHEUS_BIND -e PROMETHEUS_PORT -e PROMETHEUS_INTERVAL \
    -e RSGW_HOST=127.0.0.1 -e RSGW_A_ADMIN_PORT -e RSGW_B_ADMIN_PORT "$prometheus_image" >/dev/null
  how="podman run with docker/compose.yml's settings (RSGW_TEST_COMPOSE=no)"
fi
echo "started with: $how"
for p in "$RSGW_A_ADMIN_PORT" "$RSGW_B_ADMIN_PORT"; do
  for _ in $(seq 300); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$p/health") == 200 ]] && break
    sleep 0.2
  done
  [[ $(curl -s "http://127.0.0.1:$p/health") == ok ]] ||
    { podman logs "$a" 2>&1 | tail -20; podman logs "$b" 2>&1 | tail -20; fail "no health on admin port $p"; }
done
podman healthcheck run "$a" && podman healthcheck run "$b" || fail "the image's HEALTHCHECK fails"

echo "== each container's cpuset, from inside"
[[ $(podman exec "$a" grep Cpus_allowed_list /proc/1/status | awk '{print $2}') == 0 ]] || fail "rsgw-a is not on CPU 0"
[[ $(podman exec "$b" grep Cpus_allowed_list /proc/1/status | awk '{print $2}') == 1 ]] || fail "rsgw-b is not on CPU 1"
[[ $(podman exec "$a" id -u) == 7480 ]] || fail "the gateway does not run as uid 7480"
[[ $(podman exec "$a" sh -c 'ulimit -n') == 20000 ]] || fail "nofile is not 20000"

echo "== S3 through each"
bucket=ct-$project
python3 - "http://127.0.0.1:$port_a" "http://127.0.0.1:$port_b" "$AK" "$SK" "$bucket" <<'PY'
import sys, boto3, botocore.config
a_url, b_url, ak, sk, bucket = sys.argv[1:]
def client(url):
    return boto3.client("s3", endpoint_url=url, aws_access_key_id=ak, aws_secret_access_key=sk,
                        region_name="us-east-1",
                        config=botocore.config.Config(s3={"addressing_style": "path"}))
a, b = client(a_url), client(b_url)
a.create_bucket(Bucket=bucket)
a.put_object(Bucket=bucket, Key="via-a", Body=b"a" * 100_000)
b.put_object(Bucket=bucket, Key="via-b", Body=b"b" * 5)
assert b.get_object(Bucket=bucket, Key="via-a")["Body"].read() == b"a" * 100_000
assert a.get_object(Bucket=bucket, Key="via-b")["Body"].read() == b"b" * 5
keys = [o["Key"] for o in b.list_objects_v2(Bucket=bucket)["Contents"]]
assert keys == ["via-a", "via-b"], keys
a.put_object(Bucket=bucket, Key="public", Body=b"p" * 260, ACL="public-read")
print("S3 round trips through both containers: ok")
PY

# the aws CLI example of docs/deploy.md, step 5
AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_DEFAULT_REGION=us-east-1 \
  aws --endpoint-url "http://127.0.0.1:$port_b" s3 mb "s3://$bucket-cli" >/dev/null ||
  fail "aws s3 mb through rsgw-b"
AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK AWS_DEFAULT_REGION=us-east-1 \
  aws --endpoint-url "http://127.0.0.1:$port_a" s3 rb "s3://$bucket-cli" >/dev/null ||
  fail "aws s3 rb through rsgw-a"

echo "== both in the cluster's service map (docs/deploy.md, In a Ceph cluster)"
in_map() {
  ceph service dump --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)["services"].get("rgw", {}).get("daemons", {})
print(sum(1 for v in d.values() if isinstance(v, dict) and v["metadata"].get("pool_prefix") == sys.argv[1]))' "$prefix"
}
for _ in $(seq 60); do [[ $(in_map) == 2 ]] && break; sleep 1; done
[[ $(in_map) == 2 ]] || fail "ceph service dump lists $(in_map) of the two gateways"
ceph -s | grep -q "rgw:" || fail "ceph -s has no rgw line"

echo "== a public object under ab, through both"
for p in "$port_a" "$port_b"; do
  out=$(ab -q -r -n 2000 -c 50 "http://127.0.0.1:$p/$bucket/public" 2>&1)
  grep -q "^Complete requests:      2000" <<<"$out" && grep -q "^Failed requests:        0" <<<"$out" ||
    { echo "$out"; fail "ab through port $p"; }
  grep -q "^Non-2xx" <<<"$out" && { echo "$out"; fail "non-2xx through port $p"; }
  echo "port $p: $(grep 'Requests per second' <<<"$out")"
done

echo "== Prometheus: both instances scraped, every rule evaluated (docs/deploy.md, Alerts)"
python3 - "http://127.0.0.1:$port_prometheus" <<'PY' || { podman logs "$prometheus" 2>&1 | tail -20; fail "Prometheus with the rules"; }
import json, sys, time, urllib.request
base = sys.argv[1]
def api(path):
    with urllib.request.urlopen(f"{base}/api/v1/{path}", timeout=5) as r:
        return json.load(r)["data"]
deadline, state = time.monotonic() + 90, "not ready"
while time.monotonic() < deadline:
    try:
        targets = api("targets")["activeTargets"]
        rules = [r for g in api("rules")["groups"] for r in g["rules"]]
        rates = api("query?query=rsgw:requests:rate5m")["result"]
    except OSError as e:
        state = f"no answer: {e}"
    else:
        state = (f"{sum(t['health'] == 'up' for t in targets)}/2 targets up, "
                 f"{sum(r['health'] == 'ok' for r in rules)}/13 rules evaluated, {len(rates)}/2 request rates")
        if state == "2/2 targets up, 13/13 rules evaluated, 2/2 request rates":
            print(f"Prometheus: {state}")
            sys.exit(0)
    time.sleep(1)
sys.exit(f"Prometheus: {state} after 90 s")
PY

echo "== through the ingress: a rolling restart of each instance under load (docs/deploy.md, Upgrades)"
ingress_url=http://127.0.0.1:$port_ingress
for _ in $(seq 100); do
  [[ $(curl -s -o /dev/null -w '%{http_code}' "$ingress_url/$bucket/public") == 200 ]] && break
  sleep 0.2
done
[[ $(curl -s -o /dev/null -w '%{http_code}' "$ingress_url/$bucket/public") == 200 ]] ||
  { podman logs "$ingress" 2>&1 | tail -20; fail "the ingress does not serve"; }
# an S3 read/write mix through the ingress until $work/stop exists
python3 - "$ingress_url" "$AK" "$SK" "$bucket" "$work/stop" >"$work/mix.log" 2>&1 <<'PY' &
import os, sys, threading, boto3, botocore.config
url, ak, sk, bucket, stop_file = sys.argv[1:]
def client():
    return boto3.client("s3", endpoint_url=url, aws_access_key_id=ak, aws_secret_access_key=sk,
                        region_name="us-east-1",
                        config=botocore.config.Config(s3={"addressing_style": "path"},
                                                      retries={"max_attempts": 1, "mode": "standard"}))
acked, failures = {}, []
def mix(w):
    c, n = client(), 0
    while not os.path.exists(stop_file):
        key, body = f"mix/{w}/{n}", os.urandom(1024 + n * 7919 % 65536)
        try:
            c.put_object(Bucket=bucket, Key=key, Body=body)
            acked[key] = body
            if c.get_object(Bucket=bucket, Key=key)["Body"].read() != body:
                failures.append(f"{key} read back wrong")
        except Exception as e:
            failures.append(f"{key}: {e!r}")
        n += 1
threads = [threading.Thread(target=mix, args=(w,)) for w in range(4)]
for t in threads: t.start()
for t in threads: t.join()
c = client()
for key, body in acked.items():
    if c.get_object(Bucket=bucket, Key=key)["Body"].read() != body:
        failures.append(f"{key} lost")
print(f"mix: {len(acked)} writes acknowledged and read back, {len(failures)} failures")
for f in failures[:10]: print(f)
sys.exit(1 if failures or len(acked) < 20 else 0)
PY
load_pid=$!
"$rsgw" bench ab -k -c 8 -t 40 --json "$ingress_url/$bucket/public" >"$work/ab.json" 2>"$work/ab.log" &
ab_pid=$!
sleep 3
for s in a b; do
  if [[ $compose == yes ]]; then
    podman-compose -f docker/compose.yml -p "$project" up -d --force-recreate --no-deps "rsgw-$s" >"$work/upgrade.log" 2>&1 ||
      { cat "$work/upgrade.log"; fail "podman-compose could not recreate rsgw-$s"; }
  else
    podman stop -t 40 "${project}_rsgw-${s}_1" >/dev/null 2>&1
    podman rm "${project}_rsgw-${s}_1" >/dev/null
    run_gateway "$s"
  fi
  admin_var=RSGW_${s^^}_ADMIN_PORT
  for _ in $(seq 300); do
    [[ $(curl -s "http://127.0.0.1:${!admin_var}/health") == ok ]] && break
    sleep 0.2
  done
  [[ $(curl -s "http://127.0.0.1:${!admin_var}/health") == ok ]] || fail "rsgw-$s is not healthy after its restart"
  # the ingress takes it back after two good checks, 500 ms apart
  sleep 3
done
wait "$ab_pid" || { cat "$work/ab.log"; fail "rsgw bench ab through the ingress"; }
touch "$work/stop"
wait "$load_pid" || { cat "$work/mix.log"; fail "the S3 mix through the ingress failed during the rolling restart"; }
load_pid=
cat "$work/mix.log"
python3 - "$work/ab.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = (r["failed_requests"], r["non_2xx_responses"], r["connection_resets"])
print(f"ab -k through the ingress: {r['complete_requests']} requests, failed/non-2xx/resets {bad}")
sys.exit(0 if r["complete_requests"] > 0 and bad == (0, 0, 0) else 1)
PY
[[ $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port_a/$bucket/public") == 200 ]] ||
  fail "rsgw-a does not serve after its restart"

echo "== clean stop: SIGTERM, drain, exit 0"
podman stop -t 40 "$a" "$b" "$ingress" "$prometheus" >/dev/null 2>"$work/stop.log" || { cat "$work/stop.log"; fail "podman stop"; }
for c in "$a" "$b"; do
  code=$(podman inspect -f '{{.State.ExitCode}}' "$c")
  [[ $code == 0 ]] || { podman logs "$c" 2>&1 | tail -20; fail "$c exited $code"; }
done

echo "== the same gateways and ingress deployed by cephadm (docker/cephadm/rsgw.yaml, tests/cephadm.sh)"
tests/cephadm.sh "$image" "$ingress_image" "$conf" "$RSGW_KEYRING" "$RSGW_CLIENT" "$prefix" "$AK" "$SK" \
  $((port_a + 12)) || fail "the cephadm deployment"

echo "== the demo profile's cluster image, with a gateway beside it"
# the test host already runs a cluster on the fixed Ceph ports, so the demo
# runs in a network namespace of its own (--network none: loopback only)
# and the gateway joins that namespace; docs/deploy.md runs the same image
# on the host network
demo=${project}_ceph-demo
demo_gw=${project}_demo-gw
mkdir -p "$work/demo"
podman build -q --format docker --network host --build-arg BASE="$base" \
  -f docker/ceph-demo.Dockerfile -t localhost/rsgw-ceph-demo:test . >/dev/null
podman run -d --name "$demo" --network none -v "$work/demo:/var/lib/rsgw-demo" \
  localhost/rsgw-ceph-demo:test >/dev/null 2>"$work/demo-run.log"
for _ in $(seq 240); do
  podman logs "$demo" 2>&1 | grep -q "cluster writable" && [[ $(stat -c %a "$work/demo/rsgw.keyring" 2>/dev/null) == 644 ]] && break
  sleep 0.5
done
podman logs "$demo" 2>&1 | grep -q "cluster writable" || { podman logs "$demo" 2>&1 | tail; fail "the demo cluster did not start"; }
demo_env=(-v "$work/demo:/var/lib/rsgw-demo:ro" -e RSGW_STORE_BACKEND=rados
  -e RSGW_STORE_CEPH_CONF=/var/lib/rsgw-demo/ceph.conf -e RSGW_STORE_KEYRING=/var/lib/rsgw-demo/rsgw.keyring)
podman run --rm --network "container:$demo" "${demo_env[@]}" "$image" \
  admin user create --uid demo --display-name Demo --access-key DEMOACCESSKEY0000001 --secret-key demosecret >/dev/null 2>&1
podman run -d --name "$demo_gw" --network "container:$demo" "${demo_env[@]}" "$image" >/dev/null 2>>"$work/demo-run.log"
for _ in $(seq 150); do podman exec "$demo_gw" rsgw health >/dev/null 2>&1 && break; sleep 0.2; done
podman exec "$demo_gw" rsgw bench s3 --mix read=50,write=50 --objects 20 --ops 400 --workers 4 --json \
  --endpoint http://127.0.0.1:7480 --access-key DEMOACCESSKEY0000001 --secret-key demosecret >"$work/demo.json" ||
  fail "rsgw bench s3 against the demo cluster"
python3 - "$work/demo.json" <<'PY'
import json, sys
works = json.load(open(sys.argv[1]))
ops = [o for w in works for o in w["ops"]]
assert sum(o["errors"] for o in ops) == 0, ops
assert sum(o["ops"] for o in ops if o["op"] in ("read", "write")) == 400, ops
print("demo cluster: 400 reads and writes through a gateway beside it, no error")
PY
podman stop -t 40 "$demo_gw" >/dev/null 2>&1
podman stop -t 30 "$demo" >/dev/null 2>&1
for c in "$demo_gw" "$demo"; do
  [[ $(podman inspect -f '{{.State.ExitCode}}' "$c") == 0 ]] || fail "$c did not stop cleanly"
done
echo "container test passed ($how)"
