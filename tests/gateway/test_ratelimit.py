"""Rate limits (rsgw admin ratelimit, as radosgw-admin's): anonymous, user
and bucket limits on read and write operations hold within 10% under
load, refusals are 503 SlowDown with a Retry-After, other users and
buckets are untouched, and a change made with rsgw admin applies on every
running instance from its next request (both backends, two instances on
one store)."""
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import boto3
import botocore.config
import botocore.exceptions
import pytest

from rsgw_gateway import metric

RSGW = os.environ.get("RSGW_BIN", "rsgw")


def admin(g, *args):
    r = subprocess.run([RSGW, "admin", "-c", str(g.cfg), "ratelimit", *args], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def client(g, ak, sk):
    cfg = botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                 retries={"total_max_attempts": 1})
    return boto3.client("s3", endpoint_url=g.url, region_name="us-east-1", config=cfg,
                        aws_access_key_id=ak, aws_secret_access_key=sk)


def ab(url, seconds):
    r = subprocess.run([RSGW, "bench", "ab", "-q", "--json", "-l", "-c", "8", "-t", str(seconds), url],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["failed_requests"] == 0, out
    return out["complete_requests"] - out["non_2xx_responses"], out["time_taken_s"]


def assert_rate(passed, seconds, rate):
    """A full second's burst, then the rate: within 10% (and a request)."""
    expected = rate + rate * seconds
    assert abs(passed - expected) <= 0.1 * rate * seconds + 1, f"{passed} passed in {seconds:.2f} s at {rate}/s"


@pytest.fixture
def two(gateway):
    """Two instances on the target's store; every limit off again after."""
    a, b = gateway("a"), gateway("b")
    yield a, b
    for target in (["--global", "anonymous"], ["--uid", "alice"], ["--uid", "bob"]):
        admin(a, "disable", *target)


def test_anonymous_reads_limited_on_every_instance(two):
    a, b = two
    alice = client(a, os.environ["ALICE_AK"], os.environ["ALICE_SK"])
    bucket = f"rl-{uuid.uuid4().hex[:12]}"
    alice.create_bucket(Bucket=bucket)
    alice.put_object(Bucket=bucket, Key="public", Body=b"p" * 260, ACL="public-read")
    try:
        shown = admin(a, "set", "--global", "anonymous", "--max-read-ops", "40")
        assert (shown["scope"], shown["max_read_ops"], shown["enabled"]) == ("anonymous", 40, False)
        admin(a, "enable", "--global", "anonymous")
        # enabled through instance a's store: b limits from its next request
        for g in (b, a):
            assert_rate(*ab(f"{g.url}/{bucket}/public", 3), 40)
        with pytest.raises(urllib.error.HTTPError) as e:
            for _ in range(100):
                urllib.request.urlopen(f"{b.url}/{bucket}/public", timeout=10).read()
        assert e.value.code == 503
        assert int(e.value.headers["Retry-After"]) >= 1
        body = e.value.read().decode()
        assert "<Code>SlowDown</Code>" in body and "<RequestId>" in body, body
        assert metric(b.metrics(), 'rsgw_ratelimit_rejected_total{scope="anonymous",limit="read_ops"}') > 0
        # signed requests are not anonymous ones
        for _ in range(60):
            assert alice.get_object(Bucket=bucket, Key="public")["Body"].read() == b"p" * 260
        admin(a, "disable", "--global", "anonymous")
        # the tokens are spent, but the limit is off everywhere at once
        with urllib.request.urlopen(f"{b.url}/{bucket}/public", timeout=10) as r:
            assert r.status == 200
    finally:
        alice.delete_object(Bucket=bucket, Key="public")
        alice.delete_bucket(Bucket=bucket)


def test_a_users_writes_and_a_buckets_reads(two):
    a, b = two
    alice = client(b, os.environ["ALICE_AK"], os.environ["ALICE_SK"])
    bob = client(b, os.environ["BOB_AK"], os.environ["BOB_SK"])
    hot, cold = (f"rl-{uuid.uuid4().hex[:12]}" for _ in range(2))
    for name in (hot, cold):
        alice.create_bucket(Bucket=name)
    bob_bucket = f"rl-{uuid.uuid4().hex[:12]}"
    bob.create_bucket(Bucket=bob_bucket)
    try:
        admin(a, "set", "--uid", "alice", "--max-write-ops", "5")
        admin(a, "enable", "--uid", "alice")
        outcomes = []
        start = time.monotonic()
        for i in range(40):
            try:
                alice.put_object(Bucket=cold, Key=f"k{i}", Body=b"x")
                outcomes.append("ok")
            except botocore.exceptions.ClientError as e:
                assert e.response["Error"]["Code"] == "SlowDown", e.response
                assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 503
                outcomes.append("slow")
        elapsed = time.monotonic() - start
        assert "slow" in outcomes, "alice's writes were never limited"
        assert outcomes.count("ok") <= 5 + 5 * elapsed + 1, (outcomes, elapsed)
        # bob's writes and alice's reads are not alice's writes
        for i in range(40):
            bob.put_object(Bucket=bob_bucket, Key=f"k{i}", Body=b"x")
        alice.get_object(Bucket=cold, Key="k0")
        admin(a, "disable", "--uid", "alice")

        admin(a, "set", "--bucket", hot, "--max-read-ops", "5")
        shown = admin(a, "enable", "--bucket", hot)
        assert (shown["scope"], shown["name"], shown["enabled"]) == ("bucket", hot, True)
        alice.put_object(Bucket=hot, Key="k", Body=b"x")
        refused = 0
        for _ in range(30):
            try:
                alice.head_object(Bucket=hot, Key="k")
            except botocore.exceptions.ClientError as e:
                assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 503
                refused += 1
        assert refused > 0, "the bucket's reads were never limited"
        for _ in range(30):
            alice.head_object(Bucket=cold, Key="k0")
        assert metric(b.metrics(), 'rsgw_ratelimit_rejected_total{scope="bucket",limit="read_ops"}') == refused
        admin(a, "disable", "--bucket", hot)
        alice.head_object(Bucket=hot, Key="k")
    finally:
        for c, name in ((alice, hot), (alice, cold), (bob, bob_bucket)):
            keys = [{"Key": o["Key"]} for o in c.list_objects_v2(Bucket=name).get("Contents", [])]
            if keys:
                c.delete_objects(Bucket=name, Delete={"Objects": keys})
            c.delete_bucket(Bucket=name)
