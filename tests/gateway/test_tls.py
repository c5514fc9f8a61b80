"""Native TLS (frontend.ssl_endpoints, as Beast's ssl_endpoint), on the
embedded backend's target (the TLS layer is the same for every backend):
S3 clients and presigned URLs over HTTPS beside plain HTTP on one pool,
TLS 1.2 and 1.3 with ALPN http/1.1, session resumption, the certificate
replaced on SIGHUP without dropping a connection, a handshake that never
comes cut like a slowloris, and clear errors for unusable files."""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import boto3
import botocore.config
import pytest

from rsgw_gateway import free_port, make_cert, make_expired_cert, metric

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent


def start_tls(t, gateway, tmp_path, name, request_timeout_ms):
    """An rsgw with an HTTPS listener beside its HTTP one."""
    if t.name != "rsgw-local":
        pytest.skip("the TLS layer is the frontend's; one backend is enough")
    cert, key = make_cert(tmp_path, "server", "rsgw-one")
    port = free_port()
    g = gateway(name, f'ssl_endpoints = ["127.0.0.1:{port}"]\nssl_certificate = "{cert}"\n'
                      f'ssl_private_key = "{key}"\nrequest_timeout_ms = {request_timeout_ms}')
    g.ssl_port, g.cert, g.key = port, cert, key
    return g


@pytest.fixture
def tls_gateway(t, gateway, tmp_path):
    """request_timeout_ms = 1000: handshakes that never come are cut fast."""
    return start_tls(t, gateway, tmp_path, "tls", 1000)


@pytest.fixture
def patient_tls_gateway(t, gateway, tmp_path):
    """request_timeout_ms = 60000: idle keep-alive connections stay open."""
    return start_tls(t, gateway, tmp_path, "tls-patient", 60000)


def context(cafile, version=None):
    ctx = ssl.create_default_context(cafile=str(cafile))
    if version:
        ctx.minimum_version = ctx.maximum_version = version
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


def request(tls_sock, path="/"):
    tls_sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = tls_sock.recv(4096)
        assert chunk, "connection closed before an answer"
        head += chunk
    return head.split(b" ", 2)[1].decode()


def connect(g, ctx, session=None):
    raw = socket.create_connection(("127.0.0.1", g.ssl_port), timeout=10)
    return ctx.wrap_socket(raw, server_hostname="127.0.0.1", session=session)


def peer_cn(s):
    return dict(x[0] for x in s.getpeercert()["subject"])["commonName"]


def wait_for_metric(g, name, count, what, timeout=5):
    """Waits until `g`'s metric `name` reaches `count`; fails with `what`
    after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while metric(g.metrics(), name) < count:
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_s3_and_presigned_urls_over_https_beside_http(tls_gateway):
    g = tls_gateway
    cfg = botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                 retries={"total_max_attempts": 1})
    https, http = (boto3.client("s3", endpoint_url=url, region_name="us-east-1", verify=str(g.cert), config=cfg,
                                aws_access_key_id=os.environ["ALICE_AK"],
                                aws_secret_access_key=os.environ["ALICE_SK"])
                   for url in (f"https://127.0.0.1:{g.ssl_port}", g.url))
    b = f"tls-{uuid.uuid4().hex[:12]}"
    https.create_bucket(Bucket=b)
    https.put_object(Bucket=b, Key="k", Body=b"over tls")
    # one store, one pool: what HTTPS wrote, HTTP reads, and back
    assert http.get_object(Bucket=b, Key="k")["Body"].read() == b"over tls"
    url = https.generate_presigned_url("get_object", Params={"Bucket": b, "Key": "k"}, ExpiresIn=60)
    assert url.startswith("https://")
    with urllib.request.urlopen(url, context=context(g.cert), timeout=10) as r:
        assert r.read() == b"over tls"
    https.delete_object(Bucket=b, Key="k")
    https.delete_bucket(Bucket=b)


@pytest.mark.parametrize("version", [ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3])
def test_versions_alpn_and_resumption(tls_gateway, version):
    g = tls_gateway
    ctx = context(g.cert, version)
    first = connect(g, ctx)
    assert first.version() == version.name.replace("v1_", "v1.")
    assert first.selected_alpn_protocol() == "http/1.1"
    assert request(first) == "403"
    session = first.session  # TLS 1.3 tickets arrive with the first answer
    first.close()
    again = connect(g, ctx, session=session)
    assert again.session_reused, f"{version.name}: session not resumed"
    assert request(again) == "403"
    again.close()


def test_certificate_reloaded_on_sighup_without_dropping_connections(patient_tls_gateway, tmp_path):
    g = patient_tls_gateway
    ctx = context(g.cert)
    before = connect(g, ctx)
    assert peer_cn(before) == "rsgw-one" and request(before) == "403"
    new_cert, new_key = make_cert(tmp_path, "next", "rsgw-two")
    old = tmp_path / "old.crt"
    old.write_bytes(g.cert.read_bytes())
    # a broken file first: the reload fails and the old certificate stays
    g.cert.write_text("not a certificate\n")
    os.kill(g.pid, signal.SIGHUP)
    wait_for_metric(g, 'rsgw_tls_reloads_total{outcome="failed"}', 1, "the failed reload was not counted", 10)
    assert peer_cn(connect(g, context(old))) == "rsgw-one"
    g.cert.write_bytes(new_cert.read_bytes())
    g.key.write_bytes(new_key.read_bytes())
    os.kill(g.pid, signal.SIGHUP)
    wait_for_metric(g, 'rsgw_tls_reloads_total{outcome="ok"}', 1, "the reload was not counted", 10)
    after = connect(g, context(new_cert))
    assert peer_cn(after) == "rsgw-two" and request(after) == "403"
    # the connection made before the reload goes on with its session
    assert request(before) == "403"
    before.close()
    after.close()


def test_a_handshake_that_never_comes_is_cut(tls_gateway):
    g = tls_gateway
    silent = socket.create_connection(("127.0.0.1", g.ssl_port), timeout=10)
    partial = socket.create_connection(("127.0.0.1", g.ssl_port), timeout=10)
    partial.sendall(bytes.fromhex("160301"))  # the start of a ClientHello's record header
    started = time.monotonic()
    for s in (silent, partial):
        assert s.recv(1) == b"", "the server sent something"
    # request_timeout_ms is 1 s; 5 s leaves a loaded host time
    assert time.monotonic() - started < 5
    # counted just after the connection closes
    wait_for_metric(g, "rsgw_tls_handshake_failures_total", 2, "failed handshakes not counted")
    # and meanwhile a real client is served
    s = connect(g, context(g.cert))
    assert request(s) == "403"
    s.close()


def test_unusable_certificates_on_reload_keep_the_current_one(patient_tls_gateway, tmp_path):
    """An expired certificate, or one whose key is another's, is refused on
    SIGHUP with a log line that says why; the one in use stays."""
    g = patient_tls_gateway
    ctx = context(g.cert)
    expired_cert, expired_key = make_expired_cert(tmp_path, "expired", "rsgw-expired")
    other_cert, _ = make_cert(tmp_path, "other", "rsgw-other")
    original_cert, original_key = g.cert.read_bytes(), g.key.read_bytes()
    cases = [((expired_cert, expired_key), "expired at 2020-01-02"), ((other_cert, g.key), "TLS configuration")]
    for n, ((cert, key), why) in enumerate(cases, start=1):
        g.cert.write_bytes(cert.read_bytes())
        g.key.write_bytes(key.read_bytes())
        os.kill(g.pid, signal.SIGHUP)
        deadline = time.monotonic() + 10
        # counted, then logged
        while metric(g.metrics(), 'rsgw_tls_reloads_total{outcome="failed"}') < n or why not in g.log_text():
            assert time.monotonic() < deadline, (f"the failed reload ({why}) was not counted and logged",
                                                 g.log_text()[-2000:])
            time.sleep(0.1)
        s = connect(g, ctx)
        assert peer_cn(s) == "rsgw-one" and request(s) == "403"
        s.close()
        g.cert.write_bytes(original_cert)
        g.key.write_bytes(original_key)
    assert metric(g.metrics(), 'rsgw_tls_reloads_total{outcome="ok"}') == 0


def test_plaintext_and_garbage_on_the_tls_port(tls_gateway):
    """What is no TLS handshake is answered with at most a TLS alert and
    the connection closed at once; never an HTTP answer, never a hang."""
    g = tls_gateway
    before = metric(g.metrics(), "rsgw_tls_handshake_failures_total")
    sends = [
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",  # plain HTTP to the HTTPS port
        bytes.fromhex("16030100ff") + os.urandom(255),  # a handshake record of noise
        os.urandom(64),
    ]
    for data in sends:
        s = socket.create_connection(("127.0.0.1", g.ssl_port), timeout=10)
        started = time.monotonic()
        s.sendall(data)
        got = b""
        while chunk := s.recv(4096):
            got += chunk
        assert time.monotonic() - started < 5, data[:16]
        # nothing, or TLS alert records (content type 21)
        assert got == b"" or got[0] == 0x15, (data[:16], got[:32])
        s.close()
    wait_for_metric(g, "rsgw_tls_handshake_failures_total", before + len(sends), "failed handshakes not counted")
    s = connect(g, context(g.cert))
    assert request(s) == "403"
    s.close()


def test_command_line_clients_over_https(tls_gateway, tmp_path):
    """The aws CLI with --ca-bundle, s3cmd with its ca_certs_file and curl
    with --cacert, each verifying the certificate."""
    g = tls_gateway
    endpoint = f"https://127.0.0.1:{g.ssl_port}"
    ak, sk = os.environ["ALICE_AK"], os.environ["ALICE_SK"]
    bucket = f"tls-cli-{uuid.uuid4().hex[:12]}"
    src = tmp_path / "hello.txt"
    src.write_bytes(b"hello over https\n")
    cfg = tmp_path / "aws-config"
    cfg.write_text("[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=ak, AWS_SECRET_ACCESS_KEY=sk, AWS_CONFIG_FILE=str(cfg),
               AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"))
    env.pop("AWS_CA_BUNDLE", None)

    def run(cmd):
        r = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
        assert r.returncode == 0, f"{cmd} failed:\n{r.stdout.decode()}\n{r.stderr.decode()}"
        return r.stdout

    aws = ["python3", "-m", "awscli", "--endpoint-url", endpoint, "--ca-bundle", str(g.cert)]
    run(aws + ["s3", "mb", f"s3://{bucket}"])
    run(aws + ["s3", "cp", str(src), f"s3://{bucket}/aws.txt"])
    # without the CA the CLI refuses the certificate
    r = subprocess.run(aws[:-2] + ["s3", "ls", f"s3://{bucket}"], env=env, capture_output=True, timeout=120)
    assert r.returncode != 0 and b"SSL" in r.stderr, r.stderr
    s3cfg = tmp_path / "s3cfg"
    host = f"127.0.0.1:{g.ssl_port}"
    s3cfg.write_text(f"[default]\naccess_key = {ak}\nsecret_key = {sk}\nhost_base = {host}\nhost_bucket = {host}\n"
                     f"use_https = True\ncheck_ssl_certificate = True\nca_certs_file = {g.cert}\n"
                     "signature_v2 = False\nbucket_location = us-east-1\n")
    s3cmd = [shutil.which("s3cmd") or "s3cmd", "-c", str(s3cfg)]
    run(s3cmd + ["put", str(src), f"s3://{bucket}/s3cmd.txt"])
    assert b"aws.txt" in run(s3cmd + ["ls", f"s3://{bucket}"])
    curl = ["curl", "-sS", "--fail-with-body", "--cacert", str(g.cert), "--aws-sigv4", "aws:amz:us-east-1:s3",
            "--user", f"{ak}:{sk}", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD"]
    assert run(curl + [f"{endpoint}/{bucket}/s3cmd.txt"]) == b"hello over https\n"
    run(curl + ["-X", "PUT", "--data-binary", "@" + str(src), f"{endpoint}/{bucket}/curl.txt"])
    assert run(aws + ["s3", "cp", f"s3://{bucket}/curl.txt", "-"]) == b"hello over https\n"
    run(aws + ["s3", "rb", "--force", f"s3://{bucket}"])


def test_bench_ab_over_https(tls_gateway, tmp_path):
    """rsgw bench ab speaks TLS: like ab a full handshake for every
    connection, sessions resumed with --tls-resume, one handshake per client
    with keep-alive, and with --cacert a certificate of another server is
    refused, each connection counted as a failure with its cause."""
    g = tls_gateway
    url = f"https://127.0.0.1:{g.ssl_port}/"

    def ab(*args):
        r = subprocess.run([os.environ.get("RSGW_BIN", "rsgw"), "bench", "ab", "--json", *args, url],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    # anonymous on / is refused: every answer a 403, over TLS
    r = ab("-c", "4", "-n", "100")
    assert (r["complete_requests"], r["failed_requests"], r["non_2xx_responses"]) == (100, 0, 100), r
    assert (r["tls_handshakes_full"], r["tls_handshakes_resumed"]) == (100, 0), r
    assert r["tls_protocol"].startswith("TLSv1.3,TLS_"), r
    r = ab("-c", "4", "-n", "100", "--tls-resume", "--cacert", str(g.cert))
    assert r["failed_requests"] == 0, r
    assert r["tls_handshakes_full"] + r["tls_handshakes_resumed"] == 100, r
    assert r["tls_handshakes_resumed"] >= 50, r
    r = ab("-k", "-c", "4", "-n", "100")
    assert r["failed_requests"] == 0 and r["keepalive_requests"] == 100, r
    assert (r["tls_handshakes_full"], r["tls_handshakes_resumed"]) == (4, 0), r
    other_cert, _ = make_cert(tmp_path, "stranger", "rsgw-stranger")
    r = ab("-c", "2", "-n", "10", "--cacert", str(other_cert))
    assert (r["failed_requests"], r["failed_connect"]) == (10, 10), r
    assert "invalid peer certificate" in r["first_failure"], r


def test_unusable_certificate_files_stop_the_start(t, gateway, tmp_path):
    if t.name != "rsgw-local":
        pytest.skip("the TLS layer is the frontend's; one backend is enough")
    cert, key = make_cert(tmp_path, "c", "x")
    other_cert, other_key = make_cert(tmp_path, "o", "y")
    cases = [
        (tmp_path / "missing.pem", key, "missing.pem"),
        (cert, other_key, "TLS configuration"),  # a key of another certificate
        (key, key, "holds no PEM certificate"),
    ]
    for c, k, message in cases:
        g = gateway(f"bad-{uuid.uuid4().hex[:6]}",
                    f'ssl_endpoints = ["127.0.0.1:{free_port()}"]\nssl_certificate = "{c}"\n'
                    f'ssl_private_key = "{k}"', start=False)
        r = subprocess.run([g.rsgw, "serve", "-c", str(g.cfg)], capture_output=True, text=True, timeout=30,
                           env=g.env)
        assert r.returncode != 0 and message in r.stderr, (message, r.stderr[-2000:])


def test_forwarded_headers_only_from_trusted_proxies(t, gateway):
    """The client's address and scheme in the request's log span come from
    Forwarded / X-Forwarded-* only when the peer is a trusted proxy."""
    if t.name != "rsgw-local":
        pytest.skip("the frontend's; one backend is enough")
    env = {"RSGW_LOG": "info,s3s=off,rsgw_frontend::service=debug"}
    trusting = gateway("trusting", 'trusted_proxies = ["127.0.0.0/8"]', env=env)
    other = gateway("untrusting", 'trusted_proxies = ["10.0.0.0/8"]', env=env)
    for g in (trusting, other):
        for headers in ({"Forwarded": 'for="[2001:db8::7]:4711";proto=https'},
                        {"X-Forwarded-For": "198.51.100.7", "X-Forwarded-Proto": "https"}):
            req = urllib.request.Request(f"{g.url}/", headers=headers)
            try:
                urllib.request.urlopen(req, timeout=10)
            except urllib.error.HTTPError as e:
                assert e.code == 403
    deadline = time.monotonic() + 10
    while "198.51.100.7" not in trusting.log_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    log = trusting.log_text()
    assert "client=2001:db8::7 secure=true" in log, log[-2000:]
    assert "client=198.51.100.7 secure=true" in log, log[-2000:]
    log = other.log_text()
    assert "client=127.0.0.1 secure=false" in log, log[-2000:]
    assert "198.51.100.7" not in log and "2001:db8::7" not in log


def test_customer_keys_only_over_tls(t, gateway, tmp_path):
    """crypt.require_ssl (rgw_crypt_require_ssl, on by default): a
    customer key (SSE-C) or an SSE-KMS request over plain HTTP is refused
    (400 InvalidRequest, nothing stored), the same over HTTPS served; SSE-S3
    sends no key and is served over both."""
    if t.name != "rsgw-local":
        pytest.skip("the TLS layer is the frontend's; one backend is enough")
    cert, key = make_cert(tmp_path, "server", "rsgw-crypt")
    port = free_port()
    g = gateway("crypt-tls", f'ssl_endpoints = ["127.0.0.1:{port}"]\nssl_certificate = "{cert}"\n'
                             f'ssl_private_key = "{key}"',
                sections="[crypt]\nrequire_ssl = true\n")
    cfg = botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                 retries={"total_max_attempts": 1})
    https, http = (boto3.client("s3", endpoint_url=url, region_name="us-east-1", verify=str(cert), config=cfg,
                                aws_access_key_id=os.environ["ALICE_AK"],
                                aws_secret_access_key=os.environ["ALICE_SK"])
                   for url in (f"https://127.0.0.1:{port}", g.url))
    b = f"crypt-{uuid.uuid4().hex[:12]}"
    http.create_bucket(Bucket=b)
    ssec = {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": b"k" * 32}
    kms = {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": "testkey-1"}
    for kw in (ssec, kms):
        with pytest.raises(botocore.exceptions.ClientError) as e:
            http.put_object(Bucket=b, Key="refused", Body=b"secret", **kw)
        err = e.value.response
        assert (err["Error"]["Code"], err["ResponseMetadata"]["HTTPStatusCode"]) == ("InvalidRequest", 400), kw
        assert "secure connection" in err["Error"]["Message"]
    assert "Contents" not in http.list_objects_v2(Bucket=b)
    https.put_object(Bucket=b, Key="c", Body=b"secret", **ssec)
    assert https.get_object(Bucket=b, Key="c", **ssec)["Body"].read() == b"secret"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        http.get_object(Bucket=b, Key="c", **ssec)
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    https.put_object(Bucket=b, Key="k", Body=b"kms", **kms)
    http.put_object(Bucket=b, Key="s", Body=b"s3", ServerSideEncryption="AES256")
    assert http.get_object(Bucket=b, Key="k")["Body"].read() == b"kms"
    assert http.get_object(Bucket=b, Key="s")["Body"].read() == b"s3"
    for k in ("c", "k", "s"):
        http.delete_object(Bucket=b, Key=k)
    http.delete_bucket(Bucket=b)
