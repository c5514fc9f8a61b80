"""Metadata caches stay coherent across instances (rsgw only, both backends):
two instances on one store, plus `rsgw admin` as a third process. A change
made through one (a bucket ACL or policy, a deleted or re-created bucket) or by the
admin tool (a removed key, a deleted user) applies on the other on its very
next request, though that one had the old record cached: the change returns
only after every watching instance dropped it (docs/layout.md, "Caches")."""
import json
import os
import uuid

import boto3
import botocore.config
import pytest

from helpers import anonymous_get, error_of

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent

ROUNDS = 100


def client(gw, access, secret):
    return boto3.client("s3", endpoint_url=gw.url, region_name="us-east-1", aws_access_key_id=access,
                        aws_secret_access_key=secret,
                        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                                      retries={"total_max_attempts": 1, "mode": "standard"}))


@pytest.fixture
def pair(gateway):
    return gateway("a"), gateway("b")


def test_bucket_acl_and_deletion_reach_the_other_instance(pair):
    a, b = pair
    alice = (os.environ["ALICE_AK"], os.environ["ALICE_SK"])
    on_a, on_b = client(a, *alice), client(b, *alice)
    name = f"coh-{uuid.uuid4().hex[:12]}"
    for i in range(ROUNDS):
        on_a.create_bucket(Bucket=name)
        # b reads (and caches) the new bucket's record: private
        assert on_b.list_objects_v2(Bucket=name)["KeyCount"] == 0
        assert anonymous_get(f"{b.url}/{name}")[0] == 403, f"round {i}"
        on_a.put_bucket_acl(Bucket=name, ACL="public-read")
        assert anonymous_get(f"{b.url}/{name}")[0] == 200, f"round {i}: ACL made public on a"
        on_a.put_bucket_acl(Bucket=name, ACL="private")
        assert anonymous_get(f"{b.url}/{name}")[0] == 403, f"round {i}: ACL made private on a"
        on_a.delete_bucket(Bucket=name)
        code, status, _ = error_of(on_b.list_objects_v2, Bucket=name)
        assert (code, status) == ("NoSuchBucket", 404), f"round {i}: bucket deleted on a"


def test_bucket_policy_reaches_the_other_instance(pair):
    """A bucket policy lives in the bucket's record: putting or deleting it
    on one instance applies on the other's next request, whose cached
    record held the old policy (the public GET the policy opens or shuts)."""
    a, b = pair
    alice = (os.environ["ALICE_AK"], os.environ["ALICE_SK"])
    on_a, on_b = client(a, *alice), client(b, *alice)
    name = f"coh-{uuid.uuid4().hex[:12]}"
    on_a.create_bucket(Bucket=name)
    on_a.put_object(Bucket=name, Key="asset.js", Body=b"js")
    doc = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{name}/*"}]})
    url = f"{b.url}/{name}/asset.js"
    try:
        for i in range(ROUNDS):
            assert anonymous_get(url)[0] == 403, f"round {i}: no policy yet"
            on_a.put_bucket_policy(Bucket=name, Policy=doc)
            assert anonymous_get(url)[:2] == (200, b"js"), f"round {i}: policy put on a"
            assert on_b.get_bucket_policy(Bucket=name)["Policy"] == doc
            on_a.delete_bucket_policy(Bucket=name)
            assert anonymous_get(url)[0] == 403, f"round {i}: policy deleted on a"
    finally:
        on_a.delete_object(Bucket=name, Key="asset.js")
        on_a.delete_bucket(Bucket=name)


def test_removed_keys_and_users_are_refused_by_the_other_instance(pair):
    a, b = pair
    for i in range(ROUNDS):
        uid = f"coh-{uuid.uuid4().hex[:12]}"
        key = a.admin("user", "create", "--uid", uid, "--display-name", "Coherence")["keys"][0]
        on_a, on_b = (client(g, key["access_key"], key["secret_key"]) for g in (a, b))
        # both instances cache the key
        assert on_a.list_buckets()["Buckets"] == on_b.list_buckets()["Buckets"] == []
        if i % 2:
            a.admin("key", "rm", "--access-key", key["access_key"])
        else:
            a.admin_run("user", "rm", "--uid", uid).check_returncode()
        for c, where in ((on_b, "b"), (on_a, "a")):
            code, status, _ = error_of(c.list_buckets)
            assert (code, status) == ("InvalidAccessKeyId", 403), f"round {i} on {where}"
        if i % 2:
            a.admin_run("user", "rm", "--uid", uid).check_returncode()
