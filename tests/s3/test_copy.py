"""CopyObject within and across buckets, metadata directives; versions
listing of an unversioned bucket."""
import os
import uuid

from helpers import error_of


def test_copy_within_and_across_buckets(t, bucket):
    body = os.urandom(5 * 1024 * 1024 + 99)
    t.alice.put_object(Bucket=bucket, Key="src", Body=body, ContentType="image/png", Metadata={"a": "1"})
    r = t.alice.copy_object(Bucket=bucket, Key="dst", CopySource={"Bucket": bucket, "Key": "src"})
    want = t.alice.head_object(Bucket=bucket, Key="src")["ETag"]
    # AWS quotes the ETag in CopyObjectResult; radosgw (Pacific) does not
    assert r["CopyObjectResult"]["ETag"] == (want.strip('"') if t.is_radosgw else want)
    g = t.alice.get_object(Bucket=bucket, Key="dst")
    assert g["Body"].read() == body
    assert g["ContentType"] == "image/png"
    assert g["Metadata"] == {"a": "1"}
    other = f"copy-{uuid.uuid4().hex[:16]}"
    t.alice.create_bucket(Bucket=other)
    try:
        t.alice.copy_object(
            Bucket=other,
            Key="replaced",
            CopySource=f"{bucket}/src",
            MetadataDirective="REPLACE",
            ContentType="text/plain",
            Metadata={"b": "2"},
        )
        g = t.alice.get_object(Bucket=other, Key="replaced")
        assert g["Body"].read() == body
        assert g["ContentType"] == "text/plain"
        assert g["Metadata"] == {"b": "2"}
    finally:
        t.alice.delete_object(Bucket=other, Key="replaced")
        t.alice.delete_bucket(Bucket=other)


def test_copy_errors(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="src", Body=b"x")
    code, status, _ = error_of(t.alice.copy_object, Bucket=bucket, Key="src", CopySource={"Bucket": bucket, "Key": "src"})
    assert (code, status) == ("InvalidRequest", 400)
    # replacing metadata in place is allowed
    t.alice.copy_object(Bucket=bucket, Key="src", CopySource={"Bucket": bucket, "Key": "src"},
                        MetadataDirective="REPLACE", Metadata={"new": "yes"})
    assert t.alice.head_object(Bucket=bucket, Key="src")["Metadata"] == {"new": "yes"}
    code, status, _ = error_of(t.alice.copy_object, Bucket=bucket, Key="d", CopySource={"Bucket": bucket, "Key": "missing"})
    assert (code, status) == ("NoSuchKey", 404)
    # radosgw (Pacific) ignores a quoted x-amz-copy-source-if-match that does not match
    if not t.is_radosgw:
        code, status, _ = error_of(t.alice.copy_object, Bucket=bucket, Key="d",
                                   CopySource={"Bucket": bucket, "Key": "src"}, CopySourceIfMatch='"0000"')
        assert (code, status) == ("PreconditionFailed", 412)
    # bob may not copy alice's private object into his own bucket
    mine = f"bob-{uuid.uuid4().hex[:16]}"
    t.bob.create_bucket(Bucket=mine)
    try:
        code, status, _ = error_of(t.bob.copy_object, Bucket=mine, Key="stolen", CopySource={"Bucket": bucket, "Key": "src"})
        assert status == 403
    finally:
        t.bob.delete_bucket(Bucket=mine)


def test_list_object_versions_unversioned(t, bucket):
    for k in ["a", "b/c"]:
        t.alice.put_object(Bucket=bucket, Key=k, Body=b"x")
    r = t.alice.list_object_versions(Bucket=bucket)
    assert [(v["Key"], v["VersionId"], v["IsLatest"]) for v in r["Versions"]] == [("a", "null", True), ("b/c", "null", True)]
    assert not r.get("DeleteMarkers")
