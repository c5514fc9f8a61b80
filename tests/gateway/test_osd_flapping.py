"""An OSD flapping under load (issue 37): one of three BlueStore OSDs is
stopped, started DOWN_S later, and stopped again UP_S after it serves,
for the test's duration, while 8 clients PUT and GET 64 KiB objects
through a gateway of the test's own (rados backend, store timeout
OP_TIMEOUT_MS). Replication (size 3, min_size 2) hides each outage, so:
every request succeeds (no S3 error, no reset, no client timeout), none
waits past the store timeout's bound, every acknowledged write reads back
whole afterwards, and the cluster comes back clean. The outcomes and the
slowest request are printed (and kept with FLAPPING_OUT=DIR as JSON).

The short form runs for SHORT_S in the test command; the long form, 5
minutes, runs with `scripts/test --chaos`."""
import json
import os
import subprocess
import time
import uuid

import pytest

from test_faults import Load, ceph_micro, check_acknowledged, client, collections_of, outcome_counts
from test_osd_kill import osd_count

DOWN_S = 20
UP_S = 20
SHORT_S = 40
LONG_S = 300
OP_TIMEOUT_MS = 10000
# sequential store calls of the slowest request (a PUT): each may wait the
# store's timeout when the outage starts under it
STORE_CALLS = 6
FLAPPING = "osd.1"


def pgs_clean(limit=300):
    """Waits until every PG is active+clean again."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        r = subprocess.run(["ceph", "pg", "stat", "--format", "json"], capture_output=True, text=True, timeout=60)
        if r.returncode == 0:
            stat = json.loads(r.stdout)
            stat = stat.get("pg_summary", stat)
            states = {s["name"]: s["num"] for s in stat.get("num_pg_by_state", [])}
            if set(states) == {"active+clean"}:
                return time.monotonic() - t0
        time.sleep(2)
    raise AssertionError(f"PGs not active+clean within {limit} s: {r.stdout[-500:]}")


def flap(gw, seconds):
    if osd_count() < 3:
        pytest.skip("needs 3 OSDs (scripts/ceph-micro start --osds 3)")
    bucket = f"flap-{uuid.uuid4().hex[:12]}"
    client(gw.port).create_bucket(Bucket=bucket)
    outages = []
    with Load(gw.port, bucket, workers=8) as load:
        time.sleep(3)
        t_end = time.monotonic() + seconds
        while time.monotonic() < t_end:
            t_down = time.monotonic()
            ceph_micro("stop", FLAPPING)
            time.sleep(DOWN_S)
            ceph_micro("restart", FLAPPING)
            outages.append((t_down, time.monotonic()))
            time.sleep(min(UP_S, max(0.0, t_end - time.monotonic())))
        time.sleep(3)
    results = load.results
    failed = [r for r in results if r[3] != "ok"]
    during = [r for r in results if any(a <= r[0] < b for a, b in outages)]
    summary = {
        "seconds": seconds, "outages": len(outages), "down_s": DOWN_S, "up_s": UP_S, "requests": len(results),
        "requests_during_outages": len(during), "errors": len(failed),
        "error_rate": round(len(failed) / max(1, len(results)), 5),
        "outcomes": dict(sorted(outcome_counts(results).items())),
        "slowest_s": round(max((r[1] for r in results), default=0), 2),
        "acknowledged_writes": len(load.written),
    }
    print(json.dumps(summary))
    out = os.environ.get("FLAPPING_OUT")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "runs.jsonl"), "a") as f:
            f.write(json.dumps(summary) + "\n")
    # replication hides each outage: every request served, none reset,
    # none timed out, none refused
    assert not failed, collections_of(failed)
    bound = STORE_CALLS * OP_TIMEOUT_MS / 1000 + 1
    assert summary["slowest_s"] < bound, f"a request took {summary['slowest_s']} s (bound {bound} s)"
    for op in ("put", "get"):
        assert any(r[2] == op and r[3] == "ok" for r in during), f"no {op} completed while {FLAPPING} was down"
    check_acknowledged(gw.port, bucket, load)
    pgs_clean()
    return summary


@pytest.fixture
def rados_gateway(t, gateway):
    if t.name != "rsgw-rados":
        pytest.skip("cluster faults: the rados backend's")
    return gateway("flap", sections=f"[store]\nop_timeout_ms = {OP_TIMEOUT_MS}\n")


def test_an_osd_flapping_under_load(rados_gateway):
    flap(rados_gateway, SHORT_S)


@pytest.mark.chaos
def test_an_osd_flapping_for_five_minutes(rados_gateway):
    flap(rados_gateway, LONG_S)
