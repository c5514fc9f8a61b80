#!/usr/bin/env bash
# docker/cephadm/rsgw.yaml deployed with cephadm's own `cephadm deploy`, as
# the orchestrator deploys a custom-container service: each service's spec
# turned into the --config-json the manager gives cephadm (the spec's
# image, uid, gid, args, envs, ports, volume mounts: CustomContainerSpec's
# config_json), with this test's images, ports, CPUs, cephx client, pools
# and files in place of the spec's; cephadm writes the daemon's directory
# and its unit.run (the podman command its systemd unit runs), and the
# unit.run starts the container. Then S3 through the ingress to both
# gateways, both in the service map, cephadm's unit.stop, rm-daemon.
#
# What cannot run here, and is replaced: this machine has no systemd, so
# `systemctl` is a stub that logs what cephadm asks of it, and the unit.run
# runs by hand with its two systemd-only podman options changed
# (`--log-driver journald` to k8s-file, `--cgroups=split` dropped); a
# cluster bootstrapped by cephadm needs its images from quay.io, which this
# machine cannot reach, so the cluster is the throwaway one and the
# orchestrator's `ceph orch apply` is not run.
#   tests/cephadm.sh RSGW_IMAGE INGRESS_IMAGE CEPH_CONF KEYRING CLIENT POOL_PREFIX ACCESS SECRET BASE_PORT
# (called by tests/container.sh, with its key, pools and user)
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "cephadm test: $*" >&2; exit 1; }
(($# == 9)) || fail "usage: tests/cephadm.sh RSGW_IMAGE INGRESS_IMAGE CEPH_CONF KEYRING CLIENT POOL_PREFIX ACCESS SECRET BASE_PORT"
image=$1 ingress_image=$2 conf=$3 keyring=$4 client=$5 prefix=$6 ak=$7 sk=$8 base=$9
command -v cephadm >/dev/null || fail "cephadm is missing (tests/apt-packages.txt)"
fsid=$(ceph --conf "$conf" fsid)
host=$(hostname -s)
work=$(mktemp -d)
port_a=$base port_b=$((base + 2)) port_ingress=$((base + 4))
services=(rsgw-a rsgw-b rsgw-ingress)

# systemctl as cephadm calls it, logged
mkdir -p "$work/bin"
cat >"$work/bin/systemctl" <<EOF
#!/bin/sh
echo "systemctl \$*" >>"$work/systemctl.log"
EOF
chmod +x "$work/bin/systemctl"

cleanup() {
  local s
  for s in "${services[@]}"; do
    PATH=$work/bin:$PATH cephadm rm-daemon --fsid "$fsid" --name "container.$s.$host" --force >/dev/null 2>&1 || true
    podman rm -f "ceph-$fsid-container-$s-$host" >/dev/null 2>&1 || true
  done
  rm -f /run/ceph-"$fsid"@container.rsgw-*
  # what cephadm deploy leaves for the cluster's fsid (the throwaway one)
  rm -rf "/var/lib/ceph/$fsid" "/var/log/ceph/$fsid" "/etc/logrotate.d/ceph-$fsid" \
    /etc/systemd/system/ceph-"$fsid"* "$work"
}
trap cleanup EXIT

echo "== the services of docker/cephadm/rsgw.yaml as cephadm's --config-json"
python3 - docker/cephadm/rsgw.yaml "$work" "$image" "$ingress_image" "$conf" "$keyring" "$client" \
  "$prefix" "$port_a" "$port_b" "$port_ingress" <<'PY'
import json, sys
import yaml
spec_file, work, image, ingress_image, conf, keyring, client, prefix, pa, pb, pi = sys.argv[1:]
# the spec's values, and this test's
swap = {
    "localhost/rsgw:latest": image, "localhost/rsgw-ingress:latest": ingress_image,
    "client.rgw.rsgw": client, "POOL_PREFIX=rsgw": f"POOL_PREFIX={prefix}",
    "0.0.0.0": "127.0.0.1", "--cpuset-cpus=0-3": "--cpuset-cpus=0", "--cpuset-cpus=4-7": "--cpuset-cpus=1",
    "7480": pa, "7481": str(int(pa) + 1), "7490": pb, "7491": str(int(pb) + 1), "8080": pi,
}
docs = [d for d in yaml.safe_load_all(open(spec_file)) if d]
assert [d["service_type"] for d in docs] == ["container"] * 3, docs
for d in docs:
    # CustomContainerSpec.config_json: the spec's properties that are set
    props = ["image", "entrypoint", "uid", "gid", "args", "envs", "volume_mounts", "privileged",
             "bind_mounts", "ports", "dirs", "files"]
    config = {p: d["spec"][p] for p in props if d["spec"].get(p) is not None}
    # the host's files: this test's in place of /etc/ceph's
    sources = {"/etc/ceph/ceph.conf": conf, "/etc/ceph/ceph.client.rgw.rsgw.keyring": keyring}
    mounts = {sources.get(k, k): v for k, v in config.pop("volume_mounts", {}).items()}
    text = json.dumps(config)
    for old, new in swap.items():
        text = text.replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])
    config = json.loads(text)
    if mounts:
        config["volume_mounts"] = mounts
    with open(f"{work}/{d['service_id']}.json", "w") as f:
        json.dump(config, f)
    with open(f"{work}/{d['service_id']}.ports", "w") as f:
        f.write(" ".join(str(p) for p in config.get("ports", [])))
    with open(f"{work}/{d['service_id']}.image", "w") as f:
        f.write(config["image"])
print("specs:", ", ".join(d["service_id"] for d in docs))
PY

echo "== cephadm deploy, then each daemon's unit.run"
for s in "${services[@]}"; do
  PATH=$work/bin:$PATH cephadm --image "$(cat "$work/$s.image")" deploy --fsid "$fsid" \
    --name "container.$s.$host" --config-json "$work/$s.json" \
    --tcp-ports "$(cat "$work/$s.ports")" >"$work/deploy-$s.log" 2>&1 ||
    { cat "$work/deploy-$s.log"; fail "cephadm deploy container.$s.$host"; }
  dir=/var/lib/ceph/$fsid/container.$s.$host
  [[ -f $dir/unit.run ]] || fail "cephadm wrote no unit.run for $s"
  grep -q -- "--net=host" "$dir/unit.run" || fail "$s: the spec's args are not in cephadm's podman command"
  grep -q "systemctl start ceph-$fsid@container.$s.$host" "$work/systemctl.log" ||
    fail "cephadm did not start the unit of $s"
  sed -e 's/--log-driver journald/--log-driver k8s-file/' -e 's/ --cgroups=split//' "$dir/unit.run" >"$work/$s.run"
  bash "$work/$s.run" >"$work/run-$s.log" 2>&1 || { cat "$work/run-$s.log"; fail "unit.run of $s"; }
done
a=ceph-$fsid-container-rsgw-a-$host
for p in $((port_a + 1)) $((port_b + 1)); do
  for _ in $(seq 300); do
    [[ $(curl -s "http://127.0.0.1:$p/health") == ok ]] && break
    sleep 0.2
  done
  [[ $(curl -s "http://127.0.0.1:$p/health") == ok ]] || { podman logs "$a" 2>&1 | tail; fail "no health on $p"; }
done
[[ $(podman exec "$a" id -u) == 7480 ]] || fail "the gateway does not run as uid 7480"
[[ $(podman exec "$a" grep Cpus_allowed_list /proc/1/status | awk '{print $2}') == 0 ]] ||
  fail "rsgw-a is not on the CPU its args name"

echo "== S3 through the ingress to both gateways"
python3 - "http://127.0.0.1:$port_ingress" "http://127.0.0.1:$port_a" "http://127.0.0.1:$port_b" "$ak" "$sk" <<'PY'
import sys, time, uuid
import boto3, botocore.config
ingress, a_url, b_url, ak, sk = sys.argv[1:]
def client(url):
    return boto3.client("s3", endpoint_url=url, aws_access_key_id=ak, aws_secret_access_key=sk,
                        region_name="us-east-1",
                        config=botocore.config.Config(s3={"addressing_style": "path"},
                                                      retries={"max_attempts": 1}))
deadline = time.monotonic() + 30
while True:
    try:
        client(ingress).list_buckets()
        break
    except Exception:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.5)
bucket = "cephadm-" + uuid.uuid4().hex[:10]
i = client(ingress)
i.create_bucket(Bucket=bucket)
for n in range(10):
    i.put_object(Bucket=bucket, Key=f"k{n}", Body=b"x" * n)
for url in (a_url, b_url):
    keys = [o["Key"] for o in client(url).list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys == [f"k{n}" for n in range(10)], (url, keys)
for n in range(10):
    i.delete_object(Bucket=bucket, Key=f"k{n}")
i.delete_bucket(Bucket=bucket)
print("S3 through the cephadm-deployed ingress and both gateways: ok")
PY

echo "== both in the service map"
in_map() {
  ceph --conf "$conf" service dump --format json | python3 -c '
import json, sys
prefix, ports = sys.argv[1], sys.argv[2:]
d = json.load(sys.stdin)["services"].get("rgw", {}).get("daemons", {})
print(sum(1 for v in d.values() if isinstance(v, dict) and v["metadata"].get("pool_prefix") == prefix
          and any(p in v["metadata"].get("frontend_config#0", "") for p in ports)))' \
    "$prefix" ":$port_a" ":$port_b"
}
for _ in $(seq 60); do [[ $(in_map) == 2 ]] && break; sleep 1; done
[[ $(in_map) == 2 ]] || fail "ceph service dump lists $(in_map) of the two cephadm gateways"

echo "== cephadm's unit.stop, rm-daemon"
for s in "${services[@]}"; do
  bash "/var/lib/ceph/$fsid/container.$s.$host/unit.stop" >/dev/null 2>&1 || fail "unit.stop of $s"
  [[ $(podman inspect -f '{{.State.Status}}' "ceph-$fsid-container-$s-$host" 2>/dev/null || echo gone) != running ]] ||
    fail "$s still runs after unit.stop"
  PATH=$work/bin:$PATH cephadm rm-daemon --fsid "$fsid" --name "container.$s.$host" --force >/dev/null 2>&1 ||
    fail "cephadm rm-daemon $s"
  [[ ! -e /var/lib/ceph/$fsid/container.$s.$host ]] || fail "rm-daemon left the directory of $s"
done
echo "cephadm test passed (cephadm $(dpkg-query -W -f '${Version}' cephadm 2>/dev/null), systemd stubbed)"
