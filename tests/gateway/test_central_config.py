"""radosgw's settings from the monitors' central config (issue 32): `rsgw
serve` on the rados backend takes `ceph config set client.rgw.X rgw_...`
for the client it connects as, under its own file and `--set` (as radosgw
puts the monitors under its ceph.conf and command line), follows a change
of `rgw_max_concurrent_requests` while it serves, and takes any other at
its next start, saying so in its log.

The gateways here connect as a client of their own (a key made for the
test), so that the settings never reach the other tests' gateways."""
import concurrent.futures
import uuid

import pytest

from helpers import anonymous_get, ceph, wait_for
from rsgw_gateway import Gateway, remove_pools

# how long the monitors take to push a change and the gateway to see it
# (it looks every second): seconds, on a loaded host
FOLLOW_S = 30
RSGW_DEFAULT_LIMIT = 1024


@pytest.mark.concurrent
def test_settings_come_from_the_monitors_and_follow_them(t, tmp_path):
    if t.name != "rsgw-rados":
        pytest.skip("the central config is the cluster's: the rados backend's")
    tag = uuid.uuid4().hex[:10]
    client, prefix = f"client.rgw.cc{tag}", f"cc{tag}"
    keyring = tmp_path / "keyring"
    ceph("auth", "get-or-create", client, "mon", "allow rw", "osd", "allow rwx", "-o", str(keyring))

    def gateway(name, *, sections="", sets=()):
        return Gateway(tmp_path / name, name, backend="rados", pool_prefix=prefix, client_name=client,
                       sets=(f"store.keyring={keyring}", *sets), sections=sections)

    def limit(g):
        return g.metric("rsgw_admission_limit")

    # a: everything from the monitors; its store takes 2 s a call, so that
    # requests hold their admission slots long enough to count them
    a = gateway("a", sections="[store]\ninject_latency_ms = 2000\n")
    # b: its file sets the thread pool (the monitors' value loses), not the limit
    b = gateway("b", sections="[pool]\nthread_pool_size = 6\n")
    # c: the central config off
    c = gateway("c", sets=("store.central_config=false",))
    gws = (a, b, c)
    try:
        ceph("config", "set", client, "rgw_thread_pool_size", "7")
        ceph("config", "set", client, "rgw_max_concurrent_requests", "5")
        for g in gws:
            g.start(wait=False)
        for g in gws:
            g.wait_ready()
        assert (a.metric("rsgw_pool_threads"), limit(a)) == (7, 5), a.log_text()[-2000:]
        assert (b.metric("rsgw_pool_threads"), limit(b)) == (6, 5), b.log_text()[-2000:]
        assert (c.metric("rsgw_pool_threads"), limit(c)) == (512, RSGW_DEFAULT_LIMIT)
        assert "rgw_thread_pool_size" in a.log_text() and "taken from the monitors" in a.log_text()

        # live: the limit follows, and holds
        ceph("config", "set", client, "rgw_max_concurrent_requests", "2")
        wait_for("a's limit at 2", lambda: limit(a) == 2, FOLLOW_S)
        wait_for("b's limit at 2", lambda: limit(b) == 2, FOLLOW_S)
        assert "applied from the monitors' central config" in a.log_text()
        with concurrent.futures.ThreadPoolExecutor(6) as ex:
            statuses = sorted(s for s, _, _ in ex.map(
                lambda _: anonymous_get(f"{a.url}/nosuchbucket-cc/k"), range(6)))
        assert statuses == [404, 404, 503, 503, 503, 503], statuses

        # the thread pool takes a restart, and a says so; b's file holds it
        ceph("config", "set", client, "rgw_thread_pool_size", "11")
        wait_for("a's restart notice", lambda: "restart needed" in a.log_text(), FOLLOW_S)
        notice = [line for line in a.log_text().splitlines() if "restart needed" in line]
        assert "pool.thread_pool_size" in notice[0] and "11" in notice[0], notice
        assert a.metric("rsgw_pool_threads") == 7

        # removed from the monitors: back to rsgw's default
        ceph("config", "rm", client, "rgw_max_concurrent_requests")
        wait_for("a's limit back at the default", lambda: limit(a) == RSGW_DEFAULT_LIMIT, FOLLOW_S)
        assert "restart needed" not in b.log_text(), "b's file sets the thread pool"
        assert limit(c) == RSGW_DEFAULT_LIMIT and "central config" not in c.log_text()

        # at its next start, a takes what took a restart
        a.stop()
        a.start()
        assert (a.metric("rsgw_pool_threads"), limit(a)) == (11, RSGW_DEFAULT_LIMIT)
        for g in gws:
            g.stop()
    finally:
        for g in gws:
            if g.proc is not None:
                g.kill()
        for option in ("rgw_thread_pool_size", "rgw_max_concurrent_requests"):
            ceph("config", "rm", client, option)
        ceph("auth", "rm", client)
        remove_pools(prefix)
