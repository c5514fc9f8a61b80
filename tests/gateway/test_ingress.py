"""The ingress of docs/deploy.md, for real: Debian's HAProxy with
docker/haproxy.cfg in front of two rsgw instances on one store (the
compose file's layout, on the host), each instance restarted in turn while
`rsgw bench ab -k` and an S3 read/write mix run through the ingress. No
request may fail and every acknowledged write must read back: HAProxy
takes an instance out on its /health (503 for frontend.drain_notice_ms
after SIGTERM) before its port closes. The same holds with
docker/haproxy-beside-radosgw.cfg in front of the run's radosgw and an rsgw
serving radosgw's data, object reads spread over both."""
import concurrent.futures
import contextlib
import json
import os
import pathlib
import shutil
import socket
import ssl
import struct
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import boto3
import botocore.config
import pytest

from rsgw_gateway import Gateway, free_port, make_cert, wait_for_port
from targets import configs, targets

CFG = pathlib.Path(__file__).resolve().parents[2] / "docker" / "haproxy.cfg"
BESIDE = CFG.with_name("haproxy-beside-radosgw.cfg")
FRONTEND = 'drain_notice_ms = 2000\ntrusted_proxies = ["127.0.0.1"]\n'


@contextlib.contextmanager
def haproxy(tmp_path, instances, config):
    """HAProxy with `config` (docker/haproxy.cfg's text) in front of two
    instances: the ingress's plain HTTP port."""
    a, b = instances
    with haproxy_with(tmp_path, config, RSGW_A_PORT=str(a.port), RSGW_A_ADMIN_PORT=str(a.admin_port),
                      RSGW_B_PORT=str(b.port), RSGW_B_ADMIN_PORT=str(b.admin_port)) as port:
        yield port


@contextlib.contextmanager
def haproxy_with(tmp_path, config, **settings):
    """HAProxy with `config` and its environment `settings`: the
    ingress's plain HTTP port."""
    exe = shutil.which("haproxy")
    assert exe, "haproxy is missing (tests/apt-packages.txt)"
    port = free_port()
    env = dict(os.environ, INGRESS_BIND="127.0.0.1", INGRESS_PORT=str(port), RSGW_HOST="127.0.0.1", **settings)
    cfg = tmp_path / "haproxy.cfg"
    cfg.write_text(config)
    log = open(tmp_path / "haproxy.log", "wb")
    proc = subprocess.Popen([exe, "-db", "-f", str(cfg)], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


@pytest.fixture
def ingress(gateway, tmp_path):
    """Two instances and HAProxy in front: (url, [instances])."""
    instances = [gateway("a", frontend=FRONTEND), gateway("b", frontend=FRONTEND)]
    with haproxy(tmp_path, instances, CFG.read_text()) as port:
        yield f"http://127.0.0.1:{port}", instances


def client(url):
    return boto3.client("s3", endpoint_url=url, aws_access_key_id=os.environ["ALICE_AK"],
                        aws_secret_access_key=os.environ["ALICE_SK"], region_name="us-east-1",
                        config=botocore.config.Config(s3={"addressing_style": "path"},
                                                      retries={"max_attempts": 1, "mode": "standard"}))


def under_load(url, bucket, make_client, restart, seconds):
    """Runs `rsgw bench ab -k` on `url`/`bucket`/small and 4 writers, each
    writing objects through `url` (a client from `make_client`) and reading
    each back, for `seconds`, calling `restart()` 3 s in. Asserts that no
    request failed and the mix ran; answers the acknowledged writes, by
    key."""
    stop = threading.Event()
    acked, failures = {}, []

    def mix(worker):
        c = make_client()
        n = 0
        while not stop.is_set():
            key = f"w{worker}/{n}"
            body = os.urandom(1024 + (n * 7919) % 65536)
            try:
                c.put_object(Bucket=bucket, Key=key, Body=body)
                acked[key] = body
                got = c.get_object(Bucket=bucket, Key=key)["Body"].read()
                if got != body:
                    failures.append(f"{key}: read back {len(got)} bytes, not the {len(body)} written")
            except Exception as e:  # noqa: BLE001 - every failure counts
                failures.append(f"{key}: {e!r}")
            n += 1

    ab = subprocess.Popen([os.environ["RSGW_BIN"], "bench", "ab", "-k", "-c", "8", "-t", str(seconds), "--json",
                           f"{url}/{bucket}/small"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        workers = [ex.submit(mix, i) for i in range(4)]
        time.sleep(3)
        restart()
        out, err = ab.communicate(timeout=120)
        stop.set()
        for w in workers:
            w.result()
    r = json.loads(out)
    assert r["complete_requests"] > 0, err.decode()
    assert (r["failed_requests"], r["non_2xx_responses"], r["connection_resets"]) == (0, 0, 0), r
    assert not failures, failures[:5]
    assert len(acked) > 20, "the read/write mix hardly ran"
    return acked


def test_rolling_restart_through_the_ingress(t, ingress):
    url, instances = ingress
    s3 = client(url)
    bucket = f"ingress-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="small", Body=b"x" * 260, ACL="public-read")
    # both instances serve through the ingress before anything stops
    for g in instances:
        deadline = time.monotonic() + 10
        while 'rsgw_requests_total{op="GetObject"' not in g.metrics():
            assert time.monotonic() < deadline, f"{g.name} gets no requests from the ingress"
            s3.get_object(Bucket=bucket, Key="small")["Body"].read()

    def restart():
        for g in instances:
            g.stop(timeout=60)  # SIGTERM: notice, then drain; exit 0 checked
            g.start()
            # HAProxy takes it back after `rise` good checks
            time.sleep(3)
    acked = under_load(url, bucket, lambda: client(url), restart, seconds=30)
    for key, body in acked.items():
        assert s3.get_object(Bucket=bucket, Key=key)["Body"].read() == body, key
    keys = list(acked) + ["small"]
    for i in range(0, len(keys), 1000):
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]]})
    s3.delete_bucket(Bucket=bucket)


def test_https_terminated_at_the_ingress(t, gateway, tmp_path):
    """docs/deploy.md's HTTPS at HAProxy, as written there: a `bind ... ssl
    crt` line added to the `s3` frontend. HAProxy says X-Forwarded-Proto
    https, the instances trust it from 127.0.0.1 (frontend.trusted_proxies):
    an object that a bucket policy serves only over TLS
    (aws:SecureTransport) is read through the ingress's HTTPS port and
    refused through its HTTP port and by an instance's own."""
    if t.name != "rsgw-local":
        pytest.skip("the ingress and the frontend are the same for every backend")
    cert, key = make_cert(tmp_path, "ingress", "ingress")
    pem = tmp_path / "ingress.pem"
    pem.write_bytes(cert.read_bytes() + key.read_bytes())
    tls_port = free_port()
    plain = '    bind "${INGRESS_BIND}:${INGRESS_PORT}"\n'
    config = CFG.read_text()
    assert plain in config
    config = config.replace(plain, plain + f'    bind "${{INGRESS_BIND}}:{tls_port}" ssl crt {pem} alpn http/1.1\n')
    instances = [gateway("a", frontend=FRONTEND), gateway("b", frontend=FRONTEND)]
    with haproxy(tmp_path, instances, config) as port:
        wait_for_port(tls_port)
        s3 = client(f"http://127.0.0.1:{port}")
        bucket = f"ingress-tls-{uuid.uuid4().hex[:12]}"
        s3.create_bucket(Bucket=bucket)
        s3.put_object(Bucket=bucket, Key="page.html", Body=b"<p>tls</p>")
        s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
            "Resource": f"arn:aws:s3:::{bucket}/*", "Condition": {"Bool": {"aws:SecureTransport": "true"}}}]}))
        ctx = ssl.create_default_context(cafile=str(cert))

        def get(url):
            try:
                with urllib.request.urlopen(url, timeout=15, context=ctx if url.startswith("https") else None) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.read()

        # each of the two instances answers through the ingress
        for _ in range(4):
            assert get(f"https://127.0.0.1:{tls_port}/{bucket}/page.html") == (200, b"<p>tls</p>")
        for g in instances:
            assert 'rsgw_requests_total{op="GetObject"' in g.metrics(), f"{g.name} served nothing"
        assert get(f"http://127.0.0.1:{port}/{bucket}/page.html")[0] == 403
        assert get(f"http://127.0.0.1:{instances[0].port}/{bucket}/page.html")[0] == 403
        s3.delete_object(Bucket=bucket, Key="page.html")
        s3.delete_bucket(Bucket=bucket)


def proxy_v2(client_ip, client_port=4711):
    """A PROXY protocol v2 header for a TCP/IPv4 connection from
    `client_ip`, as HAProxy's send-proxy-v2 writes it."""
    block = socket.inet_aton(client_ip) + socket.inet_aton("127.0.0.1") + struct.pack(">HH", client_port, 443)
    return b"\r\n\r\n\x00\r\nQUIT\n" + bytes([0x21, 0x11]) + struct.pack(">H", len(block)) + block


def raw_get(port, path, prefix=b"", source="127.0.0.2"):
    """A GET sent from `source` after `prefix`: the status, or None when
    the connection is closed without an answer."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.sendall(prefix + f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    data = b""
    try:
        while chunk := s.recv(4096):
            data += chunk
    except ConnectionResetError:
        # closed with the request unread: the kernel resets the connection
        pass
    s.close()
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else None


def test_proxy_protocol_through_a_tcp_ingress(t, gateway, tmp_path):
    """docs/deploy.md's TLS passed through the ingress: HAProxy balances TCP
    to an instance's HTTPS listener with send-proxy-v2 (from 127.0.0.2, the
    instance's only trusted proxy) and the instance (frontend.proxy_protocol)
    takes the client's address from the header: a bucket policy on
    aws:SourceIp and aws:SecureTransport sees the client over TLS, not the
    ingress. Headers sent by hand stand for remote clients; a trusted proxy's
    connection without one is closed, and from any other peer a header is
    no header."""
    if t.name != "rsgw-local":
        pytest.skip("the ingress and the frontend are the same for every backend")
    exe = shutil.which("haproxy")
    assert exe, "haproxy is missing (tests/apt-packages.txt)"
    cert, key = make_cert(tmp_path, "server", "rsgw")
    ssl_port = free_port()
    g = gateway("pp", frontend=f'trusted_proxies = ["127.0.0.2"]\nproxy_protocol = true\n'
                               f'ssl_endpoints = ["127.0.0.1:{ssl_port}"]\nssl_certificate = "{cert}"\n'
                               f'ssl_private_key = "{key}"\n')
    s3 = client(g.url)  # from 127.0.0.1: no header expected
    bucket = f"ingress-pp-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"through the proxy")
    arn = f"arn:aws:s3:::{bucket}/*"
    s3.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": arn,
         "Condition": {"IpAddress": {"aws:SourceIp": "198.51.100.0/24"}}},
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": arn,
         "Condition": {"IpAddress": {"aws:SourceIp": "127.0.0.1/32"}, "Bool": {"aws:SecureTransport": "true"}}},
    ]}))
    path = f"/{bucket}/k"
    # from the trusted proxy: the header names the client
    assert raw_get(g.port, path, proxy_v2("198.51.100.7")) == 200
    assert raw_get(g.port, path, proxy_v2("203.0.113.9")) == 403
    # a LOCAL header (the proxy's own health check): the proxy is the client
    local = b"\r\n\r\n\x00\r\nQUIT\n" + bytes([0x20, 0x00, 0x00, 0x00])
    assert raw_get(g.port, path, local) == 403
    # without a header, or with a version 1 line: closed, counted
    before = g.metric("rsgw_proxy_header_failures_total")
    assert raw_get(g.port, path) is None
    assert raw_get(g.port, path, b"PROXY TCP4 198.51.100.7 127.0.0.1 4711 443\r\n") is None
    deadline = time.monotonic() + 5
    while g.metric("rsgw_proxy_header_failures_total") < before + 2:
        assert time.monotonic() < deadline, "closed connections not counted"
        time.sleep(0.05)
    # from a peer that is no trusted proxy a header is not read as one
    assert raw_get(g.port, path, proxy_v2("198.51.100.7"), source="127.0.0.1") != 200
    # HAProxy in TCP mode, TLS passed through to the instance
    port = free_port()
    config = f"""
global
    log stdout format raw local0 notice
defaults
    mode tcp
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend s3s
    bind 127.0.0.1:{port}
    default_backend rsgw_tls
backend rsgw_tls
    server pp 127.0.0.1:{ssl_port} send-proxy-v2 source 127.0.0.2
"""
    cfg = tmp_path / "haproxy-tcp.cfg"
    cfg.write_text(config)
    log = open(tmp_path / "haproxy-tcp.log", "wb")
    proc = subprocess.Popen([exe, "-db", "-f", str(cfg)], stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
        ctx = ssl.create_default_context(cafile=str(cert))
        with urllib.request.urlopen(f"https://127.0.0.1:{port}{path}", timeout=15, context=ctx) as r:
            assert (r.status, r.read()) == (200, b"through the proxy")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
    s3.delete_bucket_policy(Bucket=bucket)
    s3.delete_object(Bucket=bucket, Key="k")
    s3.delete_bucket(Bucket=bucket)


def test_rolling_restart_beside_radosgw(tmp_path):
    """docker/haproxy-beside-radosgw.cfg: radosgw and an rsgw serving its
    data (`[store] layout = "radosgw"`) behind one HAProxy, object reads
    and writes to both, everything else to radosgw. rsgw is restarted
    twice while `rsgw bench ab -k` reads a public object and an S3 mix
    writes and reads back through the ingress: no request fails, rsgw
    serves reads and writes after its restarts (radosgw all of them while
    rsgw is away), every acknowledged write reads back
    byte for byte through each gateway directly, and radosgw-admin finds
    the bucket's index consistent."""
    if "rsgw-rados" not in configs():
        pytest.skip("no cluster in this run (tests/run.sh RSGW -)")
    rgw_url = targets().get("radosgw")
    if not rgw_url:
        pytest.skip("no radosgw in this run (RSGW_TEST_RADOSGW=no)")
    tag = uuid.uuid4().hex[:8]
    uid, key, secret = f"beside-{tag}", f"AKBESIDE{tag.upper()}", f"beside-secret-{tag}"
    r = subprocess.run(["radosgw-admin", "user", "create", "--uid", uid, "--display-name", "Beside",
                        "--access-key", key, "--secret", secret], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]

    def s3(url):
        return boto3.client("s3", endpoint_url=url, aws_access_key_id=key, aws_secret_access_key=secret,
                            region_name="us-east-1",
                            config=botocore.config.Config(s3={"addressing_style": "path"},
                                                          retries={"max_attempts": 1, "mode": "standard"}))
    gw = Gateway(tmp_path / "rsgw", "beside", base=configs()["rsgw-rados"], frontend=FRONTEND,
                 sections='[store]\nlayout = "radosgw"\n').start()
    try:
        rgw_port = urllib.parse.urlparse(rgw_url).port
        with haproxy_with(tmp_path, BESIDE.read_text(), RADOSGW_HOST="127.0.0.1", RADOSGW_PORT=str(rgw_port),
                          RSGW_PORT=str(gw.port), RSGW_ADMIN_PORT=str(gw.admin_port)) as port:
            url = f"http://127.0.0.1:{port}"
            c = s3(url)
            bucket = f"beside-{tag}"
            c.create_bucket(Bucket=bucket)
            c.put_object(Bucket=bucket, Key="small", Body=b"x" * 260, ACL="public-read")
            deadline = time.monotonic() + 10
            while 'rsgw_requests_total{op="GetObject"' not in gw.metrics():
                assert time.monotonic() < deadline, "rsgw gets no reads from the ingress"
                c.get_object(Bucket=bucket, Key="small")["Body"].read()

            def restart():
                for _ in range(2):
                    gw.stop(timeout=60)  # SIGTERM: notice, then drain; exit 0 checked
                    gw.start()
                    time.sleep(3)  # HAProxy takes it back after `rise` good checks
            acked = under_load(url, bucket, lambda: s3(url), restart, seconds=16)
            metrics = gw.metrics()
            for op in ("GetObject", "PutObject"):
                assert f'rsgw_requests_total{{op="{op}"' in metrics, f"rsgw served no {op} after its restarts"

            def read_back(direct_url):
                direct = s3(direct_url)
                return [k for k, body in list(acked.items())
                        if direct.get_object(Bucket=bucket, Key=k)["Body"].read() != body]
            with concurrent.futures.ThreadPoolExecutor(2) as ex:
                wrong = dict(zip(("radosgw", "rsgw"), ex.map(read_back, (rgw_url, gw.url))))
            assert wrong == {"radosgw": [], "rsgw": []}, {n: ks[:5] for n, ks in wrong.items()}
            check = json.loads(subprocess.run(["radosgw-admin", "bucket", "check", "--bucket", bucket],
                                              capture_output=True, timeout=120).stdout)["check_result"]
            assert check["existing_header"] == check["calculated_header"], check
            keys = list(acked) + ["small"]
            for i in range(0, len(keys), 1000):
                c.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]],
                                                        "Quiet": True})
            c.delete_bucket(Bucket=bucket)
    finally:
        gw.stop()
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", uid, "--purge-data"], capture_output=True,
                       timeout=300)
