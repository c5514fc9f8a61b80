"""The lifecycle worker of running gateways (rsgw only, both backends; the
rules' effect is compared with radosgw in tests/s3/test_lifecycle.py): two
instances with days of 2 s and a pass every second expire a bucket's
objects on their own, one instance at a time (the lease), and `rsgw admin
lc status` reports who ran the last pass and what it did; `rsgw admin lc
run` refuses while a gateway's pass holds the lease."""
import os
import time
import uuid

import boto3
import botocore.config

LC = "[s3]\nlc_day_s = 2\nlc_interval_s = 1\nlc_lease_s = 5\n"


def client(g):
    cfg = botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                 retries={"total_max_attempts": 1})
    return boto3.client("s3", endpoint_url=g.url, region_name="us-east-1", config=cfg,
                        aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"])


def keys(c, bucket):
    return sorted(o["Key"] for o in c.list_objects_v2(Bucket=bucket).get("Contents", []))


def drop(c, bucket):
    """Removes a test's bucket with its rules and objects."""
    c.delete_bucket_lifecycle(Bucket=bucket)
    for k in keys(c, bucket):
        c.delete_object(Bucket=bucket, Key=k)
    c.delete_bucket(Bucket=bucket)


def test_running_gateways_expire_objects_one_pass_at_a_time(gateway):
    a, b = gateway("lc-a", sections=LC), gateway("lc-b", sections=LC)
    c = client(a)
    bucket = f"lc-{uuid.uuid4().hex[:12]}"
    c.create_bucket(Bucket=bucket)
    try:
        for i in range(20):
            c.put_object(Bucket=bucket, Key=f"tmp/{i:02}", Body=b"x")
        c.put_object(Bucket=bucket, Key="keep", Body=b"x")
        c.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
            {"ID": "tmp", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 1}}]})
        deadline = time.time() + 30
        while keys(c, bucket) != ["keep"] and time.time() < deadline:
            time.sleep(0.5)
        assert keys(c, bucket) == ["keep"]
        assert keys(client(b), bucket) == ["keep"]
        status = a.admin("lc", "status")
        last = status["last"]
        assert last["complete"] is True and last["errors"] == 0, status
        assert last["holder"].startswith("serve@"), status
        # the stats follow the expirations
        assert a.admin("bucket", "stats", "--bucket", bucket)["num_objects"] == 1
    finally:
        drop(c, bucket)


def test_admin_run_waits_for_a_gateways_pass(gateway):
    """A gateway whose every store call takes 300 ms holds the lease through
    a long pass; `rsgw admin lc run` meanwhile names it and exits 1, and
    runs once the pass is over."""
    g = gateway("lc-slow", sections=LC + "[store]\ninject_latency_ms = 300\n")
    fast = gateway("lc-fast")
    c = client(fast)
    bucket = f"lc-{uuid.uuid4().hex[:12]}"
    c.create_bucket(Bucket=bucket)
    try:
        for i in range(30):
            c.put_object(Bucket=bucket, Key=f"k{i:02}", Body=b"x")
        c.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": [
            {"ID": "old", "Status": "Enabled", "Filter": {"Prefix": "k"}, "Expiration": {"Days": 100}}]})
        deadline = time.time() + 30
        while time.time() < deadline:
            lease = fast.admin("lc", "status")["lease"]
            if lease and lease["holder"].startswith("serve@"):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the slow gateway never held the lease")
        r = fast.admin_run("lc", "run")
        assert r.returncode == 1 and "serve@" in r.stderr, (r.returncode, r.stderr)
        g.stop()
        deadline = time.time() + 30
        while fast.admin_run("lc", "run").returncode != 0:
            assert time.time() < deadline, "the lease never came free"
            time.sleep(1)
        assert len(keys(c, bucket)) == 30
    finally:
        drop(c, bucket)
