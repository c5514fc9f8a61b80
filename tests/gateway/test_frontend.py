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


def exchange(port, head):
    """Sends a request head (no body) on a fresh connection; returns the
    response's head, lower-cased, and whether the server closed the
    connection after it (rather than waiting 3 s for another request)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(65536)
            assert chunk, f"closed before a response: {data!r}"
            data += chunk
        s.settimeout(3)
        try:
            while s.recv(65536):
                pass
            closed = True
        except TimeoutError:
            closed = False
        return data.split(b"\r\n\r\n", 1)[0].decode().lower(), closed


def test_expect_100_continue_answered_without_a_body_read_closes(t, gateway, bucket):
    """A final answer to `Expect: 100-continue` that never read the body (an
    empty one, as the aws CLI sends for an empty file, or one the answer did
    not need) closes the connection: a client waiting for 100 never sent the
    body, and botocore would parse the next response on that connection as if
    it had read its status line already (the aws CLI then waited out its 60 s
    read timeout in `aws s3 sync`). A request whose body was read keeps it."""
    from sigv4 import signed_headers
    g = gateway("expect")
    path = f"/{bucket}/empty"

    def head(method, path, extra):
        h = signed_headers(g.url, method, path, extra)
        return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{g.port}\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"

    resp, closed = exchange(g.port, head("PUT", path, {"Expect": "100-continue", "Content-Length": "0"}))
    assert resp.startswith("http/1.1 200"), resp
    assert "connection: close" in resp and closed, resp
    # a body the handler did not read (the bucket does not exist)
    resp, closed = exchange(g.port, head("PUT", "/no-such-bucket-x/k",
                                          {"Expect": "100-continue", "Content-Length": "10"}))
    assert resp.startswith("http/1.1 404"), resp
    assert "connection: close" in resp and closed, resp
    # an empty PUT without Expect keeps its connection
    resp, closed = exchange(g.port, head("PUT", path, {"Content-Length": "0"}))
    assert resp.startswith("http/1.1 200"), resp
    assert "connection: close" not in resp and not closed, resp
