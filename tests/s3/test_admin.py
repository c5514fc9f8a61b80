"""rsgw admin on the store of a running gateway, and what interrupted
uploads leave behind (rsgw only: radosgw has its own admin tool)."""
import json
import os
import signal
import socket
import subprocess
import time
import urllib.parse
import uuid

import boto3
import botocore.config
import pytest

from helpers import error_of, signed_headers

MiB = 1024 * 1024


def configs():
    return dict(i.split("=", 1) for i in os.environ["RSGW_CONFIGS"].split(",") if i)


def admin(config, *args):
    r = subprocess.run([os.environ["RSGW_BIN"], "admin", "-c", config, *args], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    return json.loads(r.stdout)


@pytest.fixture
def cfg(t, rsgw_only):
    return configs()[t.name]


def test_user_and_keys_while_serving(t, cfg):
    uid = f"carol-{uuid.uuid4().hex[:8]}"
    user = admin(cfg, "user", "create", "--uid", uid, "--display-name", "Carol")
    key = user["keys"][0]
    assert len(key["access_key"]) == 20 and len(key["secret_key"]) == 40
    carol = t.client(key["access_key"], key["secret_key"])
    assert carol.list_buckets()["Buckets"] == []
    # a second key works at once; a removed one stops within the cache TTL (5 s)
    user = admin(cfg, "key", "create", "--uid", uid, "--access-key", f"K{uuid.uuid4().hex[:15].upper()}",
                 "--secret-key", "s" * 40)
    assert len(user["keys"]) == 2
    second = t.client(user["keys"][1]["access_key"], user["keys"][1]["secret_key"])
    second.list_buckets()
    admin(cfg, "key", "rm", "--access-key", key["access_key"])
    time.sleep(5.5)
    code, status, _ = error_of(carol.list_buckets)
    assert (code, status) == ("InvalidAccessKeyId", 403)
    assert admin(cfg, "user", "info", "--uid", uid)["keys"][0]["access_key"] == user["keys"][1]["access_key"]
    admin(cfg, "user", "rm", "--uid", uid)
    r = subprocess.run([os.environ["RSGW_BIN"], "admin", "-c", cfg, "user", "info", "--uid", uid], capture_output=True)
    assert r.returncode != 0 and b"does not exist" in r.stderr


def test_bucket_stats(t, cfg, bucket):
    for i in range(5):
        t.alice.put_object(Bucket=bucket, Key=f"k{i}", Body=b"x" * 100)
    stats = admin(cfg, "bucket", "stats", "--bucket", bucket)
    assert (stats["num_objects"], stats["size_bytes"], stats["owner"]) == (5, 500, "alice")
    assert bucket in admin(cfg, "bucket", "list", "--uid", "alice")


def stripes_of(cfg, bucket_id):
    return [n for n in admin(cfg, "objects", "--pool", "data") if n.startswith(f"/{bucket_id}.")]


def start_put(t, bucket, key, declared, send):
    """Starts a signed PUT declaring `declared` bytes and sends `send` of them."""
    host = urllib.parse.urlparse(t.endpoint)
    signed = signed_headers(t.endpoint, "PUT", f"/{bucket}/{key}", {"Content-Length": str(declared)})
    s = socket.create_connection((host.hostname, host.port), timeout=20)
    head = f"PUT /{bucket}/{key} HTTP/1.1\r\nHost: {host.netloc}\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in signed.items()) + "\r\n"
    s.sendall(head.encode() + os.urandom(send))
    return s


def test_client_gone_mid_upload_leaves_nothing(t, cfg, bucket):
    t.alice.put_object(Bucket=bucket, Key="big", Body=b"old version")
    bucket_id = admin(cfg, "bucket", "stats", "--bucket", bucket)["id"]
    s = start_put(t, bucket, "big", 20 * MiB, 14 * MiB)
    time.sleep(1)
    s.close()
    deadline = time.time() + 10
    while stripes_of(cfg, bucket_id) and time.time() < deadline:
        time.sleep(0.3)
    assert stripes_of(cfg, bucket_id) == []
    assert t.alice.get_object(Bucket=bucket, Key="big")["Body"].read() == b"old version"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def own_gateway_config(target, tmp_path, name, extra="", sections=""):
    """A config for a gateway of our own on `target`'s store, on free S3 and
    admin ports, with `extra` [frontend] lines and `sections` appended (a
    `[store]` there adds to the target's): (config path, port)."""
    port, admin = free_port(), free_port()
    text = open(configs()[target.name]).read()
    lines = [line for line in text.splitlines() if not line.startswith(("endpoints", "admin_endpoint"))]
    text = "\n".join(lines).replace(
        "[frontend]", f'[frontend]\nendpoints = ["127.0.0.1:{port}"]\nadmin_endpoint = "127.0.0.1:{admin}"\n{extra}')
    for block in sections.split("\n["):
        block = block.strip()
        if not block:
            continue
        block = block if block.startswith("[") else "[" + block
        head, _, body = block.partition("\n")
        if head in text:
            text = text.replace(head, f"{head}\n{body}", 1)
        else:
            text += f"\n{block}\n"
    cfg = tmp_path / f"{name}.toml"
    cfg.write_text(text)
    return cfg, port


def admin_port(cfg):
    """The admin listener's port of a config written by own_gateway_config."""
    import re
    return int(re.search(r'admin_endpoint = "127.0.0.1:(\d+)"', open(cfg).read()).group(1))


def wait_for_port(port):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on port {port}")


def test_kill_minus_9_mid_upload_then_gc(t, cfg, tmp_path):
    """A gateway killed mid-upload leaves stripes; the collector removes them,
    and the object is its old version."""
    own, p = own_gateway_config(t, tmp_path, "own")
    server = subprocess.Popen([os.environ["RSGW_BIN"], "serve", "-c", str(own)], stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{p}"
        wait_for_port(p)

        class Own:
            endpoint = url

        own_client = boto3.client("s3", endpoint_url=url, aws_access_key_id=os.environ["ALICE_AK"],
                                  aws_secret_access_key=os.environ["ALICE_SK"], region_name="us-east-1",
                                  config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"}))
        bucket = f"gc-{uuid.uuid4().hex[:16]}"
        own_client.create_bucket(Bucket=bucket)
        own_client.put_object(Bucket=bucket, Key="obj", Body=b"old version")
        bucket_id = admin(str(own), "bucket", "stats", "--bucket", bucket)["id"]
        s = start_put(Own, bucket, "obj", 30 * MiB, 17 * MiB)
        deadline = time.time() + 20
        while len(stripes_of(str(own), bucket_id)) < 3 and time.time() < deadline:
            time.sleep(0.2)
        assert len(stripes_of(str(own), bucket_id)) >= 3, "the upload never reached its stripes"
        server.send_signal(signal.SIGKILL)
        server.wait()
        s.close()
        assert stripes_of(str(own), bucket_id), "killed upload left no stripes to collect?"
        report = admin(str(own), "gc", "run")
        assert report["in_progress"] >= 1, report  # too young for a normal pass
        report = admin(str(own), "gc", "run", "--include-all")
        assert report["stripes_deleted"] >= 3, report
        assert stripes_of(str(own), bucket_id) == []
        server = subprocess.Popen([os.environ["RSGW_BIN"], "serve", "-c", str(own)], stderr=subprocess.DEVNULL)
        wait_for_port(p)
        assert own_client.get_object(Bucket=bucket, Key="obj")["Body"].read() == b"old version"
        own_client.delete_object(Bucket=bucket, Key="obj")
        own_client.delete_bucket(Bucket=bucket)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
