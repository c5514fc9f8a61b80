"""rsgw admin on the store of a running gateway, and what interrupted
uploads leave behind (rsgw only: radosgw has its own admin tool)."""
import json
import os
import socket
import subprocess
import time
import urllib.parse
import uuid

import boto3
import botocore.config
import pytest

from helpers import error_of
from sigv4 import signed_headers
from targets import configs

MiB = 1024 * 1024


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
    # a second key works at once; a removed one stops at once (the cache is
    # coherent: tests/gateway/test_coherence.py)
    user = admin(cfg, "key", "create", "--uid", uid, "--access-key", f"K{uuid.uuid4().hex[:15].upper()}",
                 "--secret-key", "s" * 40)
    assert len(user["keys"]) == 2
    second = t.client(user["keys"][1]["access_key"], user["keys"][1]["secret_key"])
    second.list_buckets()
    admin(cfg, "key", "rm", "--access-key", key["access_key"])
    code, status, _ = error_of(carol.list_buckets)
    assert (code, status) == ("InvalidAccessKeyId", 403)
    assert admin(cfg, "user", "info", "--uid", uid)["keys"][0]["access_key"] == user["keys"][1]["access_key"]
    admin(cfg, "user", "rm", "--uid", uid)
    r = subprocess.run([os.environ["RSGW_BIN"], "admin", "-c", cfg, "user", "info", "--uid", uid], capture_output=True)
    assert r.returncode != 0 and b"does not exist" in r.stderr


def test_bucket_stats(t, cfg, bucket):
    for i in range(30):
        t.alice.put_object(Bucket=bucket, Key=f"k{i}", Body=b"x" * 100)
    stats = admin(cfg, "bucket", "stats", "--bucket", bucket)
    # summed over the bucket's index shards: 11 by default, one object each
    assert (stats["num_objects"], stats["size_bytes"], stats["owner"]) == (30, 3000, "alice")
    assert stats["num_shards"] == 11
    shards = [n for n in admin(cfg, "objects", "--pool", "index") if n.startswith(f"/{stats['id']}")]
    assert sorted(shards) == sorted(f"/{stats['id']}.{n}" for n in range(11))
    assert bucket in admin(cfg, "bucket", "list", "--uid", "alice")


def test_bucket_stats_of_a_versioned_bucket(t, cfg):
    """A versioned bucket's objects are its versions; stats add how many
    are current and the delete markers."""
    bucket = f"vs-{uuid.uuid4().hex[:16]}"
    t.alice.create_bucket(Bucket=bucket)
    try:
        for i in range(3):
            t.alice.put_object(Bucket=bucket, Key=f"k{i}", Body=b"x" * 100)
        t.alice.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
        t.alice.put_object(Bucket=bucket, Key="k0", Body=b"y" * 10)
        t.alice.delete_object(Bucket=bucket, Key="k1")
        stats = admin(cfg, "bucket", "stats", "--bucket", bucket)
        assert (stats["num_objects"], stats["size_bytes"]) == (4, 310)
        assert stats["versioning"] == "Enabled"
        assert stats["versions"] == {"versions": 4, "current": 2, "delete_markers": 1}
    finally:
        for page in t.alice.get_paginator("list_object_versions").paginate(Bucket=bucket):
            for v in page.get("Versions", []) + page.get("DeleteMarkers", []):
                t.alice.delete_object(Bucket=bucket, Key=v["Key"], VersionId=v["VersionId"])
        t.alice.delete_bucket(Bucket=bucket)


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


def test_kill_minus_9_mid_upload_then_gc(t, cfg, gateway):
    """A gateway killed mid-upload leaves stripes; the collector removes them,
    and the object is its old version."""
    g = gateway("own")
    own = str(g.cfg)
    url = g.url

    class Own:
        endpoint = url

    own_client = boto3.client("s3", endpoint_url=url, aws_access_key_id=os.environ["ALICE_AK"],
                              aws_secret_access_key=os.environ["ALICE_SK"], region_name="us-east-1",
                              config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"}))
    bucket = f"gc-{uuid.uuid4().hex[:16]}"
    own_client.create_bucket(Bucket=bucket)
    own_client.put_object(Bucket=bucket, Key="obj", Body=b"old version")
    bucket_id = admin(own, "bucket", "stats", "--bucket", bucket)["id"]
    s = start_put(Own, bucket, "obj", 30 * MiB, 17 * MiB)
    deadline = time.time() + 20
    while len(stripes_of(own, bucket_id)) < 3 and time.time() < deadline:
        time.sleep(0.2)
    assert len(stripes_of(own, bucket_id)) >= 3, "the upload never reached its stripes"
    g.kill()
    s.close()
    assert stripes_of(own, bucket_id), "killed upload left no stripes to collect?"
    report = admin(own, "gc", "run")
    assert report["in_progress"] >= 1, report  # too young for a normal pass
    report = admin(own, "gc", "run", "--include-all")
    assert report["stripes_deleted"] >= 3, report
    assert stripes_of(own, bucket_id) == []
    g.start()
    assert own_client.get_object(Bucket=bucket, Key="obj")["Body"].read() == b"old version"
    own_client.delete_object(Bucket=bucket, Key="obj")
    own_client.delete_bucket(Bucket=bucket)
