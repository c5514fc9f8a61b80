"""Frontend limits of a gateway started here with small settings: the
listen backlog, the request timeout that cuts slowloris clients while
others are served, and the open-files limit raised to the hard limit."""
import re
import resource
import socket
import subprocess
import time

import pytest


@pytest.fixture
def own_gateway(gateway):
    """rsgw on the target's store, own port, request_timeout_ms = 1000, backlog = 777."""
    g = gateway("frontend", "request_timeout_ms = 1000\nbacklog = 777")
    return g, g.port


def test_backlog_and_open_files(own_gateway):
    server, port = own_gateway
    ss = subprocess.run(["ss", "-ltn", f"sport = :{port}"], capture_output=True, text=True).stdout
    assert re.search(r"LISTEN\s+\d+\s+777\s", ss), ss
    limits = open(f"/proc/{server.pid}/limits").read()
    soft, hard = re.search(r"Max open files\s+(\d+)\s+(\d+)", limits).groups()
    assert soft == hard, limits


def test_slowloris_is_cut_and_others_served(t, own_gateway):
    _, port = own_gateway
    slow = socket.create_connection(("127.0.0.1", port), timeout=10)
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    started = time.monotonic()
    cut = None
    while time.monotonic() - started < 8:
        # meanwhile a normal client is answered at once
        ok = socket.create_connection(("127.0.0.1", port), timeout=5)
        ok.sendall(b"GET /nosuchbucket-x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert ok.recv(12).startswith(b"HTTP/1.1 4")
        ok.close()
        try:
            slow.sendall(b"X-Slow: a\r\n")
            if slow.recv(1, socket.MSG_DONTWAIT) == b"":
                cut = time.monotonic() - started
                break
        except BlockingIOError:
            pass
        except OSError:
            cut = time.monotonic() - started
            break
        time.sleep(0.3)
    slow.close()
    # request_timeout_ms is 1 s; 5 s leaves a loaded host time to notice
    assert cut is not None and cut < 5, f"slow client not cut (after {cut})"


def test_recovers_from_descriptor_exhaustion(t, gateway):
    """With only 64 descriptors, 100 idle clients exhaust them: accept backs
    off instead of dying, and once they leave the gateway serves again,
    without a restart."""
    g = gateway("fd", preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64)))
    port = g.port
    idle = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(100)]
    deadline = time.monotonic() + 10
    while b"accept failed" not in g.log.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert g.running, "the gateway died when descriptors ran out"
    assert b"accept failed" in g.log.read_bytes()
    for c in idle:
        c.close()
    deadline = time.monotonic() + 10
    while True:
        try:
            ok = socket.create_connection(("127.0.0.1", port), timeout=5)
            ok.sendall(b"GET /nosuchbucket-x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            if ok.recv(12).startswith(b"HTTP/1.1 4"):
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "the gateway did not recover"
        time.sleep(0.2)
