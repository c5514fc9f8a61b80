"""One of three OSDs killed (SIGKILL) under a mixed S3 load through two
rsgw instances on the rados backend: replication (size 3, min_size 2)
hides it, so no request fails, reads and writes go on while it is down, the
OSD rejoins, and every acknowledged write reads back. Needs a cluster of 3
OSDs or more (the test command starts `scripts/ceph-micro start --osds 3
--objectstore bluestore`); skipped on smaller ones."""
import json
import subprocess
import time
import uuid

import pytest

from helpers import record_run
from test_faults import Load, ceph_micro, check_acknowledged, client, collections_of, outcome_counts


def osd_count():
    r = subprocess.run(["ceph", "osd", "ls"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return len(r.stdout.split())


def test_one_of_three_osds_killed_under_load(t, gateway):
    if t.name != "rsgw-rados":
        pytest.skip("cluster faults: the rados backend's")
    if osd_count() < 3:
        pytest.skip("needs 3 OSDs (scripts/ceph-micro start --osds 3)")
    a, b = gateway("osd-kill-a"), gateway("osd-kill-b")
    bucket = f"osdkill-{uuid.uuid4().hex[:12]}"
    client(a.port).create_bucket(Bucket=bucket)
    with Load(a.port, bucket, workers=4, prefix="a/") as la, Load(b.port, bucket, workers=4, prefix="b/") as lb:
        time.sleep(3)
        t_kill = time.monotonic()
        ceph_micro("kill", "osd.1")
        time.sleep(10)
        t_restart = time.monotonic()
        ceph_micro("restart", "osd.1")
        time.sleep(3)
    results = la.results + lb.results
    down = [r for r in results if t_kill + 1 <= r[0] < t_restart]
    print(f"{len(results)} requests, {collections_of(down)} while osd.1 was down")
    failed = [r for r in results if r[3] != "ok"]
    assert not failed, collections_of(failed)
    # reads and writes went on through both instances while it was down
    for op in ("put", "get"):
        assert any(r[2] == op for r in down), f"no {op} completed while osd.1 was down"
    read_back = check_acknowledged(a.port, bucket, la) + check_acknowledged(b.port, bucket, lb)
    # the restarted OSD is up and in again
    dump = json.loads(subprocess.run(["ceph", "osd", "dump", "--format", "json"], capture_output=True, text=True,
                                     timeout=60, check=True).stdout)
    osd1 = next(o for o in dump["osds"] if o["osd"] == 1)
    assert (osd1["up"], osd1["in"]) == (1, 1), osd1
    record_run("osd-kill", {
        "clients": 8, "gateways": 2, "requests": len(results), "down_s": round(t_restart - t_kill, 1),
        "during_outage": outcome_counts(down), "errors": len(failed),
        "slowest_s": round(max(r[1] for r in results), 2),
        "acknowledged_writes": len(la.written) + len(lb.written), "read_back": read_back,
        "lost": len(la.written) + len(lb.written) - read_back})
