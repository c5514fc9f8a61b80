"""Bucket operations: create, head, list, location, ACLs, delete."""
import uuid

from helpers import error_of


def test_bucket_lifecycle(t):
    name = f"life-{uuid.uuid4().hex[:16]}"
    t.alice.create_bucket(Bucket=name)
    t.alice.head_bucket(Bucket=name)
    assert name in [b["Name"] for b in t.alice.list_buckets()["Buckets"]]
    assert name not in [b["Name"] for b in t.bob.list_buckets()["Buckets"]]
    # radosgw names its zonegroup, and so does rsgw (test_conformance.py)
    assert t.alice.get_bucket_location(Bucket=name)["LocationConstraint"] == "default"
    t.alice.put_object(Bucket=name, Key="k", Body=b"x")
    code, status, _ = error_of(t.alice.delete_bucket, Bucket=name)
    assert (code, status) == ("BucketNotEmpty", 409)
    t.alice.delete_object(Bucket=name, Key="k")
    t.alice.delete_bucket(Bucket=name)
    code, status, _ = error_of(t.alice.head_bucket, Bucket=name)
    assert status == 404


def test_bucket_name_taken(t, bucket):
    code, status, _ = error_of(t.bob.create_bucket, Bucket=bucket)
    assert (code, status) == ("BucketAlreadyExists", 409)


def test_recreate_own_bucket(t, bucket):
    # radosgw (Pacific), AWS us-east-1 and rsgw treat re-creating your own
    # bucket as success (AWS elsewhere: 409 BucketAlreadyOwnedByYou)
    t.alice.create_bucket(Bucket=bucket)


def test_invalid_bucket_names(t):
    for name in ["ab", "UpperCase", "under_score", "a..b", "-start", "192.168.5.4"]:
        code, status, _ = error_of(t.alice.create_bucket, Bucket=name)
        assert status == 400, name
        assert code == "InvalidBucketName", name


def test_missing_bucket(t):
    code, status, resp = error_of(t.alice.list_objects_v2, Bucket="no-such-bucket-" + uuid.uuid4().hex[:8])
    assert (code, status) == ("NoSuchBucket", 404)
    assert resp["ResponseMetadata"]["HTTPHeaders"].get("x-amz-request-id")


def test_bucket_acl(t, bucket):
    acl = t.alice.get_bucket_acl(Bucket=bucket)
    assert [g["Permission"] for g in acl["Grants"]] == ["FULL_CONTROL"]
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    acl = t.alice.get_bucket_acl(Bucket=bucket)
    uris = {g["Grantee"].get("URI") for g in acl["Grants"]}
    assert "http://acs.amazonaws.com/groups/global/AllUsers" in uris
    # public-read bucket: bob may list it, not write to it
    t.alice.put_object(Bucket=bucket, Key="x", Body=b"1")
    assert [o["Key"] for o in t.bob.list_objects_v2(Bucket=bucket)["Contents"]] == ["x"]
    code, status, _ = error_of(t.bob.put_object, Bucket=bucket, Key="y", Body=b"2")
    assert (code, status) == ("AccessDenied", 403)
    # only the owner may delete it
    code, status, _ = error_of(t.bob.delete_bucket, Bucket=bucket)
    assert status == 403


def test_create_bucket_with_canned_acl(t):
    name = f"acl-{uuid.uuid4().hex[:16]}"
    t.alice.create_bucket(Bucket=name, ACL="public-read-write")
    try:
        t.bob.put_object(Bucket=name, Key="from-bob", Body=b"hi")
        assert t.bob.get_object(Bucket=name, Key="from-bob")["Body"].read() == b"hi"
    finally:
        t.alice.delete_object(Bucket=name, Key="from-bob")
        t.alice.delete_bucket(Bucket=name)
