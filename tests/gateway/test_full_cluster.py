"""A full store (issue 37): writes fail at once with `507
InsufficientStorage`, everything already stored stays readable, deletes
free space, and writes work again once there is room.

rados backend, gateway and pools of the test's own:
  quota  the data pool's quota (`ceph osd pool set-quota`) reached;
  full   every OSD past the full ratio (`ceph osd set-full-ratio`), as a
         cluster that ran out of disk: the ratio is set below what the
         OSDs hold and put back after.
local backend: its directory on a tmpfs of DISK_MIB, filled by PUTs until
         less than its reserve (`min_free_bytes`, RESERVE_MIB here) is free.

radosgw 16.2 behaves otherwise on a full pool (docs/reliability.md#a-full-store):
its PUTs and DELETEs wait in librados until space is freed, so clients
time out; not asserted here, as each try costs a client timeout."""
import json
import os
import subprocess
import time
import uuid

import boto3
import botocore.config
import botocore.exceptions
import pytest

from helpers import ceph, record_run
from rsgw_gateway import Gateway, remove_pools

AK, SK = os.environ.get("ALICE_AK", ""), os.environ.get("ALICE_SK", "")
# a failed write answers within this (a write held by librados would wait
# for the store's op timeout, 30 s by default, and answer 503)
ANSWER_S = 5
DISK_MIB = 24
RESERVE_MIB = 2
MIB = 1 << 20


def pool_flags(pool):
    pools = json.loads(ceph("osd", "pool", "ls", "detail", "--format", "json"))
    return next(p for p in pools if p["pool_name"] == pool)["flags_names"].split(",")


def wait_flag(pool, flag, present, limit=120):
    """Waits until the monitors set (or clear) `flag` on `pool`: they judge
    quotas and fullness from the OSDs' reports, seconds after the fact."""
    t0 = time.monotonic()
    while (flag in pool_flags(pool)) != present:
        assert time.monotonic() - t0 < limit, f"{pool}: flag {flag} {'not set' if present else 'still set'}"
        time.sleep(1)


def client(gw):
    return boto3.client("s3", endpoint_url=gw.url, region_name="us-east-1", aws_access_key_id=AK,
                        aws_secret_access_key=SK,
                        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                                      retries={"total_max_attempts": 1}, connect_timeout=5,
                                                      read_timeout=60))


def refused(call, **kw):
    """Runs a write that must be refused for want of space: 507, S3's XML
    error with a request id, within ANSWER_S, naming no pool."""
    t0 = time.monotonic()
    with pytest.raises(botocore.exceptions.ClientError) as e:
        call(**kw)
    took = time.monotonic() - t0
    r = e.value.response
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 507, r
    assert r["Error"]["Code"] == "InsufficientStorage", r
    assert r["ResponseMetadata"]["RequestId"], r
    assert "pool" not in r["Error"]["Message"] and "/" not in r["Error"]["Message"], r
    assert took < ANSWER_S, f"{call.__name__} answered after {took:.1f} s"
    return r["Error"]["Message"], took


class Stored:
    """What a test stored before the store filled up, to check after."""

    def __init__(self, s3, bucket):
        self.s3, self.bucket, self.bodies = s3, bucket, {}
        self.part1 = self.part1_etag = None
        s3.create_bucket(Bucket=bucket)

    def put(self, key, size):
        body = os.urandom(size)
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=body)
        self.bodies[key] = body

    def check(self):
        listed = self.s3.list_objects_v2(Bucket=self.bucket).get("Contents", [])
        assert sorted(o["Key"] for o in listed) == sorted(self.bodies)
        for key, body in self.bodies.items():
            assert self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read() == body, key

    def absent(self, key):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            self.s3.head_object(Bucket=self.bucket, Key=key)
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404, key


def writes_refused(st, upload):
    """Every kind of write is refused and leaves nothing behind: the
    refusals' message, and the slowest refusal's seconds."""
    s3, b = st.s3, st.bucket
    answers = [
        refused(s3.put_object, Bucket=b, Key="late-small", Body=b"x" * 100),
        refused(s3.put_object, Bucket=b, Key="late-large", Body=os.urandom(6 * MIB)),
        refused(s3.copy_object, Bucket=b, Key="late-copy", CopySource={"Bucket": b, "Key": "large"}),
        refused(s3.upload_part, Bucket=b, Key="mp", UploadId=upload, PartNumber=2, Body=os.urandom(5 * MIB)),
    ]
    for key in ("late-small", "late-large", "late-copy"):
        st.absent(key)
    parts = s3.list_parts(Bucket=b, Key="mp", UploadId=upload).get("Parts", [])
    assert [p["PartNumber"] for p in parts] == [1], parts
    st.check()
    return answers[0][0], max(took for _, took in answers)


def record_full(name, st, slowest_refusal):
    """The run's row of the faults table: what was refused, what stayed."""
    record_run(name, {
        "writes_refused": 4, "refusal": "507 InsufficientStorage",
        "slowest_refusal_s": round(slowest_refusal, 2), "objects_checked": len(st.bodies),
        "left_behind": 0, "lost": 0, "delete_while_full": "ok", "writes_after": "ok"})


def delete_works(st, key):
    """A delete works on the full store (it frees space)."""
    st.s3.delete_object(Bucket=st.bucket, Key=key)
    del st.bodies[key]
    st.absent(key)
    st.check()


def writes_work(st, upload):
    """Writes work again: a PUT, the upload's second part and its completion."""
    s3, b = st.s3, st.bucket
    st.put("after", 4096)
    part2 = s3.upload_part(Bucket=b, Key="mp", UploadId=upload, PartNumber=2, Body=b"2" * 1000)["ETag"]
    s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=upload, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": st.part1_etag}, {"PartNumber": 2, "ETag": part2}]})
    st.bodies["mp"] = st.part1 + b"2" * 1000
    st.check()


def start_with_data(gw):
    """A bucket with objects of 300 B to 6 MiB and an upload with one part."""
    st = Stored(client(gw), f"full-{uuid.uuid4().hex[:10]}")
    st.put("small", 300)
    st.put("large", 6 * MIB)
    st.put("other", 2 * MIB)
    upload = st.s3.create_multipart_upload(Bucket=st.bucket, Key="mp")["UploadId"]
    st.part1 = os.urandom(5 * MIB)
    st.part1_etag = st.s3.upload_part(Bucket=st.bucket, Key="mp", UploadId=upload, PartNumber=1,
                                      Body=st.part1)["ETag"]
    return st, upload


@pytest.fixture
def rados_gateway(t, tmp_path):
    if t.name != "rsgw-rados":
        pytest.skip("pool quotas and full ratios: the rados backend's")
    prefix = f"full{uuid.uuid4().hex[:10]}"
    gw = Gateway(tmp_path, "full", backend="rados", pool_prefix=prefix, users=[("alice", "Alice", AK, SK)])
    try:
        yield gw.start(), f"{prefix}.data"
        gw.stop()
    finally:
        gw.kill()
        remove_pools(prefix)


@pytest.mark.concurrent
def test_pool_quota_reached(rados_gateway):
    gw, pool = rados_gateway
    st, upload = start_with_data(gw)
    ceph("osd", "pool", "set-quota", pool, "max_bytes", "1")
    try:
        wait_flag(pool, "full_quota", True)
        message, _ = writes_refused(st, upload)
        assert message == "no space for the write: the storage quota is reached"
        delete_works(st, "other")
    finally:
        ceph("osd", "pool", "set-quota", pool, "max_bytes", "0")
    wait_flag(pool, "full_quota", False)
    writes_work(st, upload)


# every OSD is full for a while: no other test may run beside it
def test_osds_past_the_full_ratio(rados_gateway):
    gw, pool = rados_gateway
    st, upload = start_with_data(gw)
    ratios = {r: float(v) for r, v in (line.split() for line in ceph("osd", "dump").splitlines()
                                        if line.split()[0] in ("full_ratio", "backfillfull_ratio", "nearfull_ratio"))}
    used = json.loads(ceph("osd", "df", "--format", "json"))["summary"]["average_utilization"] / 100
    # below what every OSD holds, in the order the monitors require
    ceph("osd", "set-nearfull-ratio", str(used / 4))
    ceph("osd", "set-backfillfull-ratio", str(used / 3))
    ceph("osd", "set-full-ratio", str(used / 2))
    try:
        wait_flag(pool, "full", True)
        message, slowest = writes_refused(st, upload)
        assert message == "no space for the write: the storage is full"
        delete_works(st, "other")
    finally:
        ceph("osd", "set-full-ratio", str(ratios["full_ratio"]))
        ceph("osd", "set-backfillfull-ratio", str(ratios["backfillfull_ratio"]))
        ceph("osd", "set-nearfull-ratio", str(ratios["nearfull_ratio"]))
    wait_flag(pool, "full", False)
    writes_work(st, upload)
    record_full("osds-full-ratio", st, slowest)


@pytest.mark.concurrent
def test_local_disk_full(t, tmp_path):
    if t.name != "rsgw-local":
        pytest.skip("a disk of its own: the local backend's")
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_MIB}m", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    gw = Gateway(tmp_path, "full", backend="local", path=disk / "store", users=[("alice", "Alice", AK, SK)],
                 sections=f"[store]\nmin_free_bytes = {RESERVE_MIB * MIB}\n")
    try:
        gw.start()
        st, upload = start_with_data(gw)
        # fill the disk: objects of each size until one is refused
        n = 0
        for size in (MIB, 64 << 10, 4 << 10, 100):
            while True:
                assert n < 10 * DISK_MIB * MIB // size, f"{n} objects fit on a {DISK_MIB} MiB disk"
                n += 1
                try:
                    st.put(f"fill{n}", size)
                except botocore.exceptions.ClientError as e:
                    assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 507, e.response
                    st.absent(f"fill{n}")
                    break
        message, slowest = writes_refused(st, upload)
        assert message == "no space for the write: the storage is full"
        delete_works(st, "large")
        writes_work(st, upload)
        record_full("local-disk-full", st, slowest)
        gw.stop()
    finally:
        gw.kill()
        subprocess.run(["umount", "-l", str(disk)], check=False)
