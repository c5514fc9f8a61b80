"""The handler pool, admission, connection cap, CPU pinning, colocated
instances, the admin listener, the radosgw config import and the drain on
SIGTERM, each on a gateway of its own started here with small settings."""
import concurrent.futures
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pytest

from helpers import anonymous_get
from rsgw_gateway import Gateway, free_ports, metric, wait_for_port
from targets import configs, store_of

RSGW = os.environ.get("RSGW_BIN", "rsgw")


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def eventually(read, want, timeout=5.0):
    """read() once it equals `want`, or its last value after `timeout` s: a
    gauge may lag the response the client already has by a moment."""
    deadline = time.monotonic() + timeout
    while (got := read()) != want and time.monotonic() < deadline:
        time.sleep(0.05)
    return got


# librados starts threads of its own (messenger, timers, finisher)
LIBRADOS_THREADS = 40


@pytest.mark.parametrize("mode", ["async", "blocking"])
def test_thread_count_follows_thread_pool_size(t, gateway, mode):
    g = gateway(f"threads-{mode}", sections=f"[pool]\nmode = \"{mode}\"\nthread_pool_size = 24\nio_threads = 2\n")
    assert anonymous_get(f"{g.url}/nosuchbucket-x/k")[0] == 404
    names = g.threads()
    if mode == "async":
        assert names.count("rsgw-worker") >= 24
        pool_threads = 24
    else:
        assert sum(n.startswith("rsgw-handler-") for n in names) == 24, names
        pool_threads = 24 + 2
    # docs/config.md: the pool, up to store_threads (8) helpers, main and admin
    bound = pool_threads + 8 + 2 + (LIBRADOS_THREADS if t.name == "rsgw-rados" else 0)
    assert pool_threads <= len(names) <= bound, sorted(names)
    assert metric(g.metrics(), "rsgw_pool_threads") == 24


def test_slow_down_beyond_max_concurrent_requests(t, gateway, public_object):
    """With a slow store and room for 4, 12 simultaneous requests: 4 are
    served, 8 get 503 SlowDown at once, with Retry-After and a request id.
    (The store takes 3 s, so that all 12 arrive while the first 4 hold
    their slots even on a loaded host, and a rejection that waited for a
    slot would take 3 s, not the 2 s allowed.)"""
    b, k = public_object
    g = gateway("slowdown", sections="[pool]\nmax_concurrent_requests = 4\n[store]\ninject_latency_ms = 3000\n")

    def get(_):
        started = time.monotonic()
        status, body, headers = anonymous_get(f"{g.url}/{b}/{k}")
        return status, body, headers, time.monotonic() - started

    with concurrent.futures.ThreadPoolExecutor(12) as ex:
        results = list(ex.map(get, range(12)))
    served = [r for r in results if r[0] == 200]
    rejected = [r for r in results if r[0] == 503]
    assert len(served) == 4 and len(rejected) == 8, [r[0] for r in results]
    for status, body, headers, took in rejected:
        assert b"<Code>SlowDown</Code>" in body and b"<RequestId>tx" in body, body
        assert {k.lower(): v for k, v in headers.items()}.get("retry-after") == "1"
        assert took < 2.0, f"a rejection took {took:.2f}s: it must not wait"
    m = g.metrics()
    assert metric(m, "rsgw_admission_rejected_total") == 8
    assert 'rsgw_requests_total{op="GetObject",status="200"} 4' in m
    assert eventually(lambda: g.metric("rsgw_outstanding_requests"), 0) == 0


def test_queue_admission_waits_instead(t, gateway, public_object):
    b, k = public_object
    g = gateway("queue", sections="[pool]\nmax_concurrent_requests = 4\nadmission = \"queue\"\n"
                "queue_timeout_ms = 5000\n[store]\ninject_latency_ms = 300\n")
    with concurrent.futures.ThreadPoolExecutor(12) as ex:
        statuses = [r[0] for r in ex.map(lambda _: anonymous_get(f"{g.url}/{b}/{k}"), range(12))]
    assert statuses == [200] * 12
    assert metric(g.metrics(), "rsgw_admission_rejected_total") == 0


def ab(url, concurrency, requests, keepalive=False):
    ab_bin = shutil.which("ab")
    assert ab_bin, "ab (apache2-utils) is missing"
    cmd = [ab_bin, "-r", "-c", str(concurrency), "-n", str(requests), "-s", "60"]
    if keepalive:
        cmd.append("-k")
    out = subprocess.run(cmd + [url], capture_output=True, text=True, preexec_fn=raise_nofile, timeout=300)
    assert out.returncode == 0, out.stderr + out.stdout
    field = lambda name: int(re.search(rf"^{name}:\s+(\d+)", out.stdout, re.M).group(1))
    return {"complete": field("Complete requests"), "failed": field("Failed requests"),
            "non2xx": int(m.group(1)) if (m := re.search(r"^Non-2xx responses:\s+(\d+)", out.stdout, re.M)) else 0,
            "resets": out.stderr.count("reset"), "text": out.stdout + out.stderr}


def test_blocking_pool_of_8_serves_1000_clients(t, gateway, public_object):
    """The classic radosgw result: with 8 threads, 1000 concurrent ab
    clients. Requests wait in the FIFO with their connections open: none
    fails, none is reset."""
    b, k = public_object
    g = gateway("blocking-ab", sections="[pool]\nmode = \"blocking\"\nthread_pool_size = 8\n")
    r = ab(f"{g.url}/{b}/{k}", 1000, 4000)
    assert r["complete"] == 4000 and r["failed"] == 0 and r["non2xx"] == 0 and r["resets"] == 0, r["text"]
    assert eventually(lambda: g.metric("rsgw_pool_busy_threads"), 0) == 0


def http_get_on(sock, path="/nosuchbucket-x/k"):
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())


def test_max_connections_holds_with_the_backlog(t, gateway):
    """At the cap the listener stops accepting: the fifth client waits in
    the backlog, not reset, and is served once a connection closes."""
    g = gateway("maxconn", frontend="max_connections = 4")
    held = [socket.create_connection(("127.0.0.1", g.port), timeout=10) for _ in range(4)]
    for s in held:
        http_get_on(s)
        assert s.recv(12).startswith(b"HTTP/1.1 404")
    waiting = socket.create_connection(("127.0.0.1", g.port), timeout=10)
    http_get_on(waiting)
    waiting.settimeout(1.5)
    with pytest.raises(socket.timeout):
        waiting.recv(12)
    m = g.metrics()
    assert metric(m, "rsgw_connections_open") == 4
    assert metric(m, "rsgw_connection_cap_waits_total") >= 1
    held[0].close()
    waiting.settimeout(10)
    assert waiting.recv(12).startswith(b"HTTP/1.1 404")
    for s in held[1:] + [waiting]:
        s.close()


def cpus_allowed(pid):
    lists = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        status = open(f"/proc/{pid}/task/{task}/status").read()
        lists.add(re.search(r"^Cpus_allowed_list:\s+(\S+)", status, re.M).group(1))
    return lists


def test_cpuset_pins_every_thread(t, gateway):
    last = max(os.sched_getaffinity(0))
    g = gateway("pinned", sections=f"[pool]\nthread_pool_size = 6\n[cpu]\ncpuset = \"{last}\"\n")
    assert anonymous_get(f"{g.url}/nosuchbucket-x/k")[0] == 404
    assert cpus_allowed(g.pid) == {str(last)}


def test_unavailable_cpu_is_a_start_up_error(t, gateway):
    beyond = max(os.sched_getaffinity(0)) + 1
    g = gateway("badcpu", sections=f"[cpu]\ncpuset = \"{beyond}\"\n", start=False).start(wait=False)
    assert g.wait_exit(timeout=30) != 0
    stderr = g.log_text()
    assert f"CPU {beyond}" in stderr and "not available" in stderr, stderr


def test_admin_listener_serves_health_and_metrics_only(t, gateway):
    g = gateway("admin")
    with urllib.request.urlopen(f"http://127.0.0.1:{g.admin_port}/health", timeout=5) as r:
        assert r.status == 200 and r.read() == b"ok\n"
    anonymous_get(f"{g.url}/nosuchbucket-x/k")
    m = g.metrics()
    assert 'rsgw_requests_total{op="GetObject",status="404"} 1' in m, m
    assert 'rsgw_request_duration_seconds_count{op="GetObject"} 1' in m
    status, body, _ = anonymous_get(f"http://127.0.0.1:{g.admin_port}/nosuchbucket-x/k")
    assert status == 404 and b"<Error>" not in body


def test_sigterm_drains_requests_in_flight(t, gateway, public_object):
    """SIGTERM during a slow request: health turns 503, no new connections,
    the request in flight completes, the process exits 0. (The store takes
    4 s, and each step waits for what it checks, so that a loaded host has
    seconds of margin before the request completes.)"""
    b, k = public_object
    g = gateway("drain", sections="[store]\ninject_latency_ms = 4000\n")
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        inflight = ex.submit(anonymous_get, f"{g.url}/{b}/{k}")
        assert eventually(lambda: g.metric("rsgw_outstanding_requests"), 1) == 1, "the request never arrived"
        g.proc.send_signal(signal.SIGTERM)
        assert eventually(g.health, 503, timeout=3) == 503, "health not 503 while draining"
        deadline = time.monotonic() + 2
        while True:  # the listener closes right after health turns 503
            try:
                socket.create_connection(("127.0.0.1", g.port), timeout=2).close()
            except OSError:
                break
            assert time.monotonic() < deadline, "new connections still accepted while draining"
            time.sleep(0.05)
        status, body, _ = inflight.result(timeout=30)
    assert status == 200 and body == b"x" * 260
    assert g.stop(timeout=30) == 0


def test_drain_notice_keeps_serving_while_health_is_503(t, gateway, public_object):
    """With frontend.drain_notice_ms, SIGTERM turns health 503 at once but
    the instance goes on accepting and serving for the notice (a load
    balancer takes it out meanwhile); then its listener closes and it exits
    0. A second SIGTERM ends the notice early."""
    b, k = public_object
    for second_signal in (False, True):
        g = gateway(f"notice{int(second_signal)}", frontend="drain_notice_ms = 6000\n")
        started = time.monotonic()
        g.proc.send_signal(signal.SIGTERM)
        assert eventually(g.health, 503, timeout=3) == 503, "health not 503 after SIGTERM"
        # a new connection, well within the notice, is still served
        status, body, _ = anonymous_get(f"{g.url}/{b}/{k}")
        assert (status, body) == (200, b"x" * 260)
        if second_signal:
            g.proc.send_signal(signal.SIGTERM)
        g.proc.wait(timeout=30)  # (stop() would send the second SIGTERM)
        took = time.monotonic() - started
        assert g.stop() == 0
        if second_signal:
            assert took < 5, f"the second SIGTERM did not end the notice ({took:.1f} s)"
        else:
            assert took >= 6, f"stopped {took:.1f} s after SIGTERM, before the notice ended"


def two_instance_ports():
    """An S3 port and an admin port whose next port (instance 1's admin
    listener, instance_port_step = 1) is free too."""
    for _ in range(100):
        port, admin = free_ports(2)
        if admin + 1 == port:
            continue
        try:
            s = socket.socket()
            s.bind(("127.0.0.1", admin + 1))
            s.close()
        except OSError:
            continue
        return port, admin
    raise AssertionError("no free port pair")


def test_instances_share_one_port(t, gateway, public_object):
    """Two instances with reuse_port on one port, pinned to disjoint CPUs:
    both serve; one killed is restarted; SIGTERM stops both."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.fail("this test needs 2 CPUs")
    b, k = public_object
    port, admin = two_instance_ports()
    g = gateway("two", "reuse_port = true\ninstance_port_step = 1", "[pool]\nthread_pool_size = 8\n",
                args=["--instances", "2"], port=port, admin=admin)
    wait_for_port(admin + 1)
    r = ab(f"http://127.0.0.1:{port}/{b}/{k}", 16, 2000)
    assert r["failed"] == 0 and r["non2xx"] == 0, r["text"]
    served = []
    for a in (admin, admin + 1):
        m = re.search(r'rsgw_requests_total\{op="GetObject",status="200"\} (\d+)', g.metrics(port=a))
        served.append(int(m.group(1)) if m else 0)
    assert sum(served) == 2000 and min(served) > 100, served
    kids = [int(p) for p in subprocess.run(["pgrep", "-P", str(g.pid)], capture_output=True,
                                            text=True).stdout.split()]
    assert len(kids) == 2
    assert cpus_allowed(kids[0]) != cpus_allowed(kids[1])
    assert all(len(cpus_allowed(p)) == 1 for p in kids)
    os.kill(kids[0], signal.SIGKILL)
    deadline = time.monotonic() + 15
    while True:
        now = [int(p) for p in subprocess.run(["pgrep", "-P", str(g.pid)], capture_output=True,
                                               text=True).stdout.split()]
        if len(now) == 2 and kids[0] not in now:
            break
        assert time.monotonic() < deadline, "the killed instance was not restarted"
        time.sleep(0.2)
    wait_for_port(admin)
    assert anonymous_get(f"http://127.0.0.1:{port}/{b}/{k}")[0] == 200
    g.stop()
    assert subprocess.run(["pgrep", "-P", str(g.pid)], capture_output=True).returncode != 0


def test_radosgw_settings_come_from_ceph_conf(tmp_path):
    """`--ceph-conf --name` takes rgw_frontends, rgw_thread_pool_size,
    rgw_max_concurrent_requests and the ops log's file from the instance's
    section of the test cluster's ceph.conf, and warns about what it cannot
    use (radosgw's usage log flushes by count too; rsgw by time only)."""
    if "rsgw-rados" not in configs():
        pytest.skip("no cluster in this run (tests/run.sh RSGW -)")
    port, admin = free_ports(2)
    conf = tmp_path / "ceph.conf"
    conf.write_text(open(os.environ["CEPH_CONF"]).read() + f"""
[client.rgw.rsgw]
rgw_frontends = "beast endpoint=127.0.0.1:{port} tcp_nodelay=1 request_timeout_ms=5000"
rgw thread pool size = 12
rgw_max_concurrent_requests = 64
rgw_enable_ops_log = true
rgw_ops_log_file_path = {tmp_path / "ops.log"}
rgw_usage_log_flush_threshold = 64
""")
    # no endpoints and no backend in the file: both come from ceph.conf
    g = Gateway(tmp_path, "import", backend="none", port=port, admin=admin, endpoint_in_config=False,
                sections={"store": {"pool_prefix": store_of("rsgw-rados")["pool_prefix"]}},
                args=["--ceph-conf", str(conf), "--name", "client.rgw.rsgw"])
    with g:
        assert anonymous_get(f"http://127.0.0.1:{port}/nosuchbucket-x/k")[0] == 404
        assert g.metric("rsgw_pool_threads") == 12
    text = g.log_text()
    assert "rgw_usage_log_flush_threshold = 64" in text, text
    lines = (tmp_path / "ops.log").read_text().splitlines()
    assert any('"uri":"/nosuchbucket-x/k"' in line and '"http_status":404' in line for line in lines), lines


def test_health_and_metrics_answer_while_the_pool_is_full(t, gateway, public_object):
    """One blocking handler thread held by a slow store: further requests
    queue, yet /health and /metrics answer at once and show the queue. (Once
    all 4 are in, the pool is busy for 4.5 s more at least: answers that
    waited for it would take seconds, and the 1 s allowed is margin for a
    loaded host.)"""
    b, k = public_object
    g = gateway("full", sections="[pool]\nmode = \"blocking\"\nthread_pool_size = 1\n"
                "[store]\ninject_latency_ms = 1500\n")
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        gets = [ex.submit(anonymous_get, f"{g.url}/{b}/{k}") for _ in range(4)]
        deadline = time.monotonic() + 10
        while g.metric("rsgw_outstanding_requests") < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        started = time.monotonic()
        with urllib.request.urlopen(f"http://127.0.0.1:{g.admin_port}/health", timeout=5) as r:
            assert r.status == 200
        m = g.metrics()
        assert time.monotonic() - started < 1.0, "the admin listener waited for the pool"
        assert metric(m, "rsgw_pool_busy_threads") == 1
        assert metric(m, "rsgw_pool_queued_requests") >= 1
        assert metric(m, "rsgw_outstanding_requests") >= 2
        assert [f.result(timeout=60)[0] for f in gets] == [200] * 4


def test_bucket_recreated_by_another_instance(t, gateway):
    """Instance A has bucket b cached; instance B deletes and re-creates it.
    Through A, within the cache TTL: a PUT lands in the new bucket (not the
    deleted one's namespace), a GET of an object written through B finds
    it, and a listing shows both; a PUT after a plain delete is refused."""
    b2 = gateway("second")
    a = t.alice
    b = type(t)(t.name, b2.url).alice
    name = f"recreate-{uuid.uuid4().hex[:12]}"
    a.create_bucket(Bucket=name)
    a.put_object(Bucket=name, Key="old", Body=b"1")
    a.head_bucket(Bucket=name)  # cached in A
    b.delete_object(Bucket=name, Key="old")
    b.delete_bucket(Bucket=name)
    b.create_bucket(Bucket=name)
    b.put_object(Bucket=name, Key="from-b", Body=b"b")
    try:
        assert a.get_object(Bucket=name, Key="from-b")["Body"].read() == b"b"
        a.put_object(Bucket=name, Key="from-a", Body=b"a" * 300_000)
        assert b.get_object(Bucket=name, Key="from-a")["Body"].read() == b"a" * 300_000
        keys = [o["Key"] for o in a.list_objects_v2(Bucket=name)["Contents"]]
        assert keys == ["from-a", "from-b"]
    finally:
        for k in ("from-a", "from-b"):
            b.delete_object(Bucket=name, Key=k)
        b.delete_bucket(Bucket=name)
    with pytest.raises(a.exceptions.NoSuchBucket):
        a.put_object(Bucket=name, Key="late", Body=b"x")
