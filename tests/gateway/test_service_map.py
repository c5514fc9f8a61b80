"""rsgw in the cluster's service map (issue 32): `rsgw serve` on the rados
backend registers as an `rgw` daemon, as radosgw does, so that `ceph -s`,
`ceph service dump` and the dashboard list it with its metadata; a
gateway with `store.service_map = false` stays out; and once the gateways
stop, the manager drops them after `mgr_service_beacon_grace` (set to
GRACE_S here for the test's length; 60 s by default).

Other tests' gateways register too, so this one finds its own by their
pool prefix in the metadata."""
import json
import os
import uuid

import pytest

from helpers import ceph, wait_for
from rsgw_gateway import Gateway, remove_pools

AK, SK = os.environ.get("ALICE_AK", ""), os.environ.get("ALICE_SK", "")
GRACE_S = 10
# the manager reports its service map to the monitors every few seconds
# (mgr_stats_period 5 s), and prunes it every tick
APPEAR_S = 60
GONE_S = GRACE_S + 60


def ours(prefix):
    """Our gateways' entries in the service map: {daemon name: entry}."""
    dump = json.loads(ceph("service", "dump", "--format", "json"))
    daemons = dump["services"].get("rgw", {}).get("daemons", {})
    return {name: d for name, d in daemons.items()
            if isinstance(d, dict) and d.get("metadata", {}).get("pool_prefix") == prefix}


@pytest.mark.concurrent
def test_gateways_are_listed_while_they_run_and_not_after(t, tmp_path):
    if t.name != "rsgw-rados":
        pytest.skip("the service map is the cluster's: the rados backend's")
    prefix = f"svc{uuid.uuid4().hex[:10]}"
    users = [("alice", "Alice", AK, SK)]
    gws = [Gateway(tmp_path / name, name, backend="rados", pool_prefix=prefix, users=users, sets=sets)
           for name, sets in (("a", ()), ("b", ()), ("off", ("store.service_map=false",)))]
    ceph("config", "set", "mgr", "mgr_service_beacon_grace", str(GRACE_S))
    try:
        for g in gws:
            g.start()
        listed = wait_for("two gateways in `ceph service dump`",
                          lambda: len(found := ours(prefix)) >= 2 and found, APPEAR_S)
        # each under the name its log gives, radosgw's metadata keys set
        names = set()
        for g in gws[:2]:
            logged = [line for line in g.log_text().splitlines() if "registered in the service map as rgw." in line]
            assert logged, g.log_text()[-2000:]
            names.add(logged[0].rsplit("as rgw.", 1)[1].split()[0].strip('",'))
        assert set(listed) == names, (sorted(listed), names)
        for name, d in listed.items():
            m = d["metadata"]
            assert m["id"] == "rgw.rsgw" and m["frontend_type#0"] == "rsgw", m
            assert m["frontend_config#0"].startswith("rsgw endpoint=127.0.0.1:"), m
            assert m["rsgw_version"] and m["zonegroup_name"], m
            assert m.get("hostname") == os.uname().nodename, m  # librados' own
            assert str(d["gid"]) == name, d
        # the third gateway had as long, and is not there
        assert "registered in the service map" not in gws[2].log_text()
        assert len(ours(prefix)) == 2, ours(prefix)
        assert "rgw:" in ceph("-s")
        for g in gws:
            g.stop()
        wait_for("the gateways gone from the service map", lambda: not ours(prefix), GONE_S)
    finally:
        for g in gws:
            if g.proc is not None:
                g.kill()
        ceph("config", "rm", "mgr", "mgr_service_beacon_grace")
        remove_pools(prefix)
