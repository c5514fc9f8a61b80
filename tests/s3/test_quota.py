"""Bucket quotas answered as radosgw answers them: set with the admin tool
(`rsgw admin quota`, `radosgw-admin quota`, the same arguments), a write
past one is `403 QuotaExceeded` and stores nothing, an overwrite counts as
one object more, a delete makes room again, CopyObject is checked like a
PUT. Sizes are multiples of 4 KiB, where radosgw's rounding of each object
to 4 KiB and rsgw's exact bytes agree."""
import uuid

import pytest

from helpers import error_of, target_admin

KiB = 4096


admin = target_admin


@pytest.fixture
def quota_bucket(t, bucket):
    """A bucket with a quota of 3 objects and 12 KiB, enabled."""
    admin(t, "quota", "set", "--quota-scope=bucket", f"--bucket={bucket}", "--max-objects=3",
          f"--max-size={3 * KiB}")
    admin(t, "quota", "enable", "--quota-scope=bucket", f"--bucket={bucket}")
    return bucket


def test_objects_past_the_quota_are_refused(t, quota_bucket):
    c, b = t.alice, quota_bucket
    for k in ("a", "b", "c"):
        c.put_object(Bucket=b, Key=k, Body=b"x" * 10)
    code, status, _ = error_of(c.put_object, Bucket=b, Key="d", Body=b"x")
    assert (code, status) == ("QuotaExceeded", 403)
    # an overwrite counts as one more object, as radosgw counts it
    code, status, _ = error_of(c.put_object, Bucket=b, Key="a", Body=b"y")
    assert (code, status) == ("QuotaExceeded", 403)
    code, status, _ = error_of(c.copy_object, Bucket=b, Key="e", CopySource={"Bucket": b, "Key": "a"})
    assert (code, status) == ("QuotaExceeded", 403)
    listed = sorted(o["Key"] for o in c.list_objects_v2(Bucket=b).get("Contents", []))
    assert listed == ["a", "b", "c"]
    assert c.get_object(Bucket=b, Key="a")["Body"].read() == b"x" * 10
    c.delete_object(Bucket=b, Key="b")
    c.put_object(Bucket=b, Key="d", Body=b"x")


def test_bytes_past_the_quota_are_refused(t, quota_bucket):
    c, b = t.alice, quota_bucket
    c.put_object(Bucket=b, Key="two", Body=b"x" * (2 * KiB))
    code, status, _ = error_of(c.put_object, Bucket=b, Key="big", Body=b"x" * (2 * KiB))
    assert (code, status) == ("QuotaExceeded", 403)
    c.put_object(Bucket=b, Key="one", Body=b"x" * KiB)
    code, status, _ = error_of(c.put_object, Bucket=b, Key="more", Body=b"x" * KiB)
    assert (code, status) == ("QuotaExceeded", 403)
    assert sorted(o["Key"] for o in c.list_objects_v2(Bucket=b)["Contents"]) == ["one", "two"]


def test_a_disabled_quota_refuses_nothing(t, quota_bucket):
    c, b = t.alice, quota_bucket
    admin(t, "quota", "disable", "--quota-scope=bucket", f"--bucket={b}")
    for i in range(5):
        c.put_object(Bucket=b, Key=f"k{i}", Body=b"x" * KiB)
    assert len(c.list_objects_v2(Bucket=b)["Contents"]) == 5


def test_other_buckets_are_not_limited(t, quota_bucket):
    c = t.alice
    for k in ("a", "b", "c"):
        c.put_object(Bucket=quota_bucket, Key=k, Body=b"x")
    other = f"t-{uuid.uuid4().hex[:20]}"
    c.create_bucket(Bucket=other)
    try:
        for i in range(5):
            c.put_object(Bucket=other, Key=f"k{i}", Body=b"x")
    finally:
        for i in range(5):
            c.delete_object(Bucket=other, Key=f"k{i}")
        c.delete_bucket(Bucket=other)
