"""radosgw's Admin Ops API (`/admin/user`, `/admin/bucket`, `/admin/usage`,
`/admin/metadata`), driven by `rgwadmin` from PyPI as the Ceph dashboard's
and Rook's tools drive it, with the same assertions on every target: users,
keys, caps, quotas, suspension, buckets (stats, link, unlink, removal with
purge), usage, and radosgw's error answers (unknown user, missing caps, bad
quota type, taken ids). Each module run makes an operator user with caps
through the target's own admin tool."""
import time
import uuid

import botocore.exceptions
import pytest
import requests
import rgwadmin
from requests_aws4auth import AWS4Auth
from rgwadmin.exceptions import (AccessDenied, BucketAlreadyExists, BucketNotEmpty, EmailExists,
                                 InvalidArgument, KeyExists, NoSuchBucket, NoSuchUser,
                                 RGWAdminException, UserAlreadyExists)

from helpers import target_admin

CAPS = "users=*;buckets=*;usage=*;metadata=read"


def code(e):
    """The error code of an rgwadmin exception."""
    return e.value.code if isinstance(e.value, RGWAdminException) else type(e.value).__name__


@pytest.fixture(scope="module")
def ops(t):
    """(uid, access, secret) of an operator with CAPS on the target."""
    uid = "ops" + uuid.uuid4().hex[:8]
    access, secret = "OPS" + uuid.uuid4().hex[:17].upper(), uuid.uuid4().hex + "0123456789"
    target_admin(t, "user", "create", f"--uid={uid}", "--display-name=Operator",
                 f"--access-key={access}", f"--secret-key={secret}")
    target_admin(t, "caps", "add", f"--uid={uid}", f"--caps={CAPS}")
    return uid, access, secret


def api(t, access, secret):
    host = t.endpoint.split("://", 1)[1]
    return rgwadmin.RGWAdmin(access_key=access, secret_key=secret, server=host, secure=False,
                             timeout=30)


@pytest.fixture(scope="module")
def rgw(t, ops):
    return api(t, ops[1], ops[2])


@pytest.fixture
def uid(rgw):
    """A fresh user id, its user removed (with its buckets) afterwards."""
    u = "u" + uuid.uuid4().hex[:10]
    yield u
    try:
        rgw.remove_user(uid=u, purge_data=True)
    except NoSuchUser:
        pass


def s3_of(t, keys):
    return t.client(keys["access_key"], keys["secret_key"])


def test_users_are_created_read_changed_and_removed(t, rgw, uid):
    made = rgw.create_user(uid=uid, display_name="First Last", email=f"{uid}@example.com",
                           max_buckets=5)
    assert made["user_id"] == uid and made["display_name"] == "First Last"
    assert made["email"] == f"{uid}@example.com"
    assert made["suspended"] == 0 and made["max_buckets"] == 5
    assert made["caps"] == [] and made["subusers"] == []
    (key,) = made["keys"]
    assert key["user"] == uid and len(key["access_key"]) == 20 and len(key["secret_key"]) == 40
    assert made["user_quota"]["enabled"] is False and made["user_quota"]["max_objects"] == -1
    got = rgw.get_user(uid=uid)
    assert got["keys"] == made["keys"] and got["display_name"] == "First Last"
    assert rgw.get_user(access_key=key["access_key"])["user_id"] == uid
    stats = rgw.get_user(uid=uid, stats=True)["stats"]
    assert {"size", "size_kb", "num_objects"} <= set(stats)
    # the key works for S3
    s3_of(t, key).list_buckets()
    changed = rgw.modify_user(uid=uid, display_name="Renamed", max_buckets=7)
    assert changed["display_name"] == "Renamed" and changed["max_buckets"] == 7
    assert uid in rgw.get_users()
    rgw.remove_user(uid=uid)
    with pytest.raises(NoSuchUser):
        rgw.get_user(uid=uid)
    with pytest.raises(NoSuchUser):
        rgw.remove_user(uid=uid)


def test_refusals_are_radosgws(t, rgw, uid, ops):
    rgw.create_user(uid=uid, display_name="One", email=f"{uid}@example.com")
    with pytest.raises(UserAlreadyExists):
        rgw.create_user(uid=uid, display_name="Again")
    with pytest.raises(EmailExists):
        rgw.create_user(uid=uid + "x", display_name="Other", email=f"{uid}@example.com")
    with pytest.raises(KeyExists):
        rgw.create_user(uid=uid + "y", display_name="Other", access_key=ops[1], secret_key="s")
    with pytest.raises(InvalidArgument):
        rgw.request("put", f"/admin/user?format=json&uid={uid}z")  # no display name
    with pytest.raises(InvalidArgument):
        rgw.request("get", "/admin/user?format=json")  # no uid
    with pytest.raises(NoSuchUser):
        rgw.get_user(uid="nosuch" + uid)
    with pytest.raises(InvalidArgument):
        rgw.request("get", f"/admin/user?quota&format=json&uid={uid}&quota-type=foo")
    # the ids the refused calls named were not made
    for other in (uid + "x", uid + "y", uid + "z"):
        with pytest.raises(NoSuchUser):
            rgw.get_user(uid=other)
    # a user without caps, anonymous requests, and a bad signature
    keys = rgw.get_user(uid=uid)["keys"][0]
    with pytest.raises(AccessDenied):
        api(t, keys["access_key"], keys["secret_key"]).get_user(uid=uid)
    url = f"{t.endpoint}/admin/user?format=json&uid={uid}"
    r = requests.get(url, timeout=30)
    assert (r.status_code, r.json()["Code"]) == (403, "AccessDenied")
    r = requests.get(url, auth=AWS4Auth(ops[1], "wrong", "us-east-1", "s3"), timeout=30)
    assert (r.status_code, r.json()["Code"]) == (403, "SignatureDoesNotMatch")
    assert r.json()["RequestId"]
    r = requests.get(f"{t.endpoint}/admin/nothing?format=json",
                     auth=AWS4Auth(ops[1], ops[2], "us-east-1", "s3"), timeout=30)
    assert (r.status_code, r.json()["Code"]) == (405, "MethodNotAllowed")


def test_a_caps_holder_may_do_what_the_caps_say(t, rgw, uid):
    made = rgw.create_user(uid=uid, display_name="Reader")
    assert rgw.add_capability(uid=uid, user_caps="users=read;buckets=*") == [
        {"type": "buckets", "perm": "*"}, {"type": "users", "perm": "read"}]
    assert rgw.remove_capability(uid=uid, user_caps="buckets=write") == [
        {"type": "buckets", "perm": "read"}, {"type": "users", "perm": "read"}]
    with pytest.raises(RGWAdminException) as e:
        rgw.add_capability(uid=uid, user_caps="bogus=read")
    assert code(e) == "InvalidCapability"
    reader = api(t, made["keys"][0]["access_key"], made["keys"][0]["secret_key"])
    assert reader.get_user(uid=uid)["caps"] == [
        {"type": "buckets", "perm": "read"}, {"type": "users", "perm": "read"}]
    with pytest.raises(AccessDenied):
        reader.create_user(uid=uid + "n", display_name="No")
    with pytest.raises(AccessDenied):
        reader.get_usage()


def test_keys_are_added_and_removed(t, rgw, uid):
    rgw.create_user(uid=uid, display_name="Keys", generate_key=False)
    assert rgw.get_user(uid=uid)["keys"] == []
    given = "K" + uuid.uuid4().hex[:19].upper()
    keys = rgw.create_key(uid=uid, access_key=given, secret_key="s" * 40)
    assert [k["access_key"] for k in keys] == [given]
    keys = rgw.create_key(uid=uid)
    assert len(keys) == 2 and given in [k["access_key"] for k in keys]
    new = next(k for k in keys if k["access_key"] != given)
    s3 = s3_of(t, new)
    s3.list_buckets()
    rgw.remove_key(access_key=new["access_key"])
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.list_buckets()
    assert e.value.response["Error"]["Code"] == "InvalidAccessKeyId"
    assert [k["access_key"] for k in rgw.get_user(uid=uid)["keys"]] == [given]


def test_a_suspended_user_is_refused(t, rgw, uid):
    made = rgw.create_user(uid=uid, display_name="Sus")
    s3 = s3_of(t, made["keys"][0])
    s3.list_buckets()
    assert rgw.modify_user(uid=uid, suspended=True)["suspended"] == 1
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.list_buckets()
    assert (e.value.response["ResponseMetadata"]["HTTPStatusCode"],
            e.value.response["Error"]["Code"]) == (403, "UserSuspended")
    assert rgw.modify_user(uid=uid, suspended=False)["suspended"] == 0
    s3.list_buckets()


def test_max_buckets_limits_bucket_creation(t, rgw, uid):
    made = rgw.create_user(uid=uid, display_name="Few", max_buckets=1)
    s3 = s3_of(t, made["keys"][0])
    first = "adm-" + uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=first)
    with pytest.raises(botocore.exceptions.ClientError) as e:
        s3.create_bucket(Bucket=first + "-2")
    assert (e.value.response["ResponseMetadata"]["HTTPStatusCode"],
            e.value.response["Error"]["Code"]) == (400, "TooManyBuckets")
    rgw.modify_user(uid=uid, max_buckets=2)
    s3.create_bucket(Bucket=first + "-2")
    assert sorted(rgw.get_bucket(uid=uid)) == [first, first + "-2"]


def test_quotas(t, rgw, uid):
    rgw.create_user(uid=uid, display_name="Quota")
    rgw.set_user_quota(uid=uid, quota_type="user", max_size_kb=1024, max_objects=10, enabled=True)
    q = rgw.get_user_quota(uid=uid)
    assert (q["enabled"], q["max_size"], q["max_size_kb"], q["max_objects"]) == (
        True, 1 << 20, 1024, 10)
    rgw.set_user_quota(uid=uid, quota_type="bucket", max_objects=3, enabled=True)
    q = rgw.get_user_bucket_quota(uid=uid)
    assert (q["enabled"], q["max_objects"]) == (True, 3)
    assert rgw.get_user(uid=uid)["user_quota"]["max_objects"] == 10
    with pytest.raises(NoSuchUser):
        rgw.get_user_quota(uid="nosuch" + uid)


def test_buckets_stats_link_unlink_and_removal(t, rgw, uid):
    owner = rgw.create_user(uid=uid, display_name="Owner")
    s3 = s3_of(t, owner["keys"][0])
    bucket = "adm-" + uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="a", Body=b"x" * 1000)
    s3.put_object(Bucket=bucket, Key="b", Body=b"y" * 10)
    info = rgw.get_bucket(bucket=bucket)
    assert info["bucket"] == bucket and info["owner"] == uid and info["id"]
    assert info["usage"]["rgw.main"]["num_objects"] == 2
    assert info["usage"]["rgw.main"]["size"] == 1010
    assert rgw.get_bucket(uid=uid) == [bucket]
    assert [b["bucket"] for b in rgw.get_bucket(uid=uid, stats=True)] == [bucket]
    assert bucket in rgw.get_bucket()
    assert bucket in rgw.get_buckets()
    with pytest.raises(NoSuchBucket):
        rgw.get_bucket(bucket=bucket + "-none")
    rgw.set_bucket_quota(uid=uid, bucket=bucket, max_objects=3, enabled=True)
    q = rgw.get_bucket(bucket=bucket)["bucket_quota"]
    assert (q["enabled"], q["max_objects"]) == (True, 3)
    # a user who still owns a bucket stays
    with pytest.raises(BucketAlreadyExists):
        rgw.remove_user(uid=uid)
    # link to another user, unlink
    other = uid + "o"
    rgw.create_user(uid=other, display_name="Other")
    try:
        rgw.link_bucket(bucket=bucket, uid=other, bucket_id=info["id"])
        assert rgw.get_bucket(bucket=bucket)["owner"] == other
        assert rgw.get_bucket(uid=other) == [bucket]
        assert rgw.get_bucket(uid=uid) == []
        rgw.unlink_bucket(bucket=bucket, uid=other)
        assert rgw.get_bucket(uid=other) == []
        rgw.link_bucket(bucket=bucket, uid=uid, bucket_id=info["id"])
        assert rgw.get_bucket(uid=uid) == [bucket]
    finally:
        rgw.remove_user(uid=other)
    rgw.remove_object(bucket=bucket, object_name="a")
    assert [o["Key"] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]] == ["b"]
    with pytest.raises(BucketNotEmpty):
        rgw.remove_bucket(bucket=bucket)
    rgw.remove_bucket(bucket=bucket, purge_objects=True)
    with pytest.raises(NoSuchBucket):
        rgw.get_bucket(bucket=bucket)
    with pytest.raises(NoSuchBucket):
        rgw.remove_bucket(bucket=bucket, purge_objects=True)


def test_removing_a_user_with_purge_removes_their_buckets(t, rgw, uid):
    owner = rgw.create_user(uid=uid, display_name="Purged")
    s3 = s3_of(t, owner["keys"][0])
    bucket = "adm-" + uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="k", Body=b"data")
    rgw.remove_user(uid=uid, purge_data=True)
    with pytest.raises(NoSuchBucket):
        rgw.get_bucket(bucket=bucket)
    with pytest.raises(NoSuchUser):
        rgw.get_user(uid=uid)


def test_the_usage_log_counts_requests_and_trims(t, rgw, uid):
    """tests/run.sh keeps the usage log on every target, written every
    second (radosgw: rgw_enable_usage_log, tick interval 1 s)."""
    made = rgw.create_user(uid=uid, display_name="Counted")
    s3 = s3_of(t, made["keys"][0])
    bucket = "adm-" + uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=bucket)
    s3.put_object(Bucket=bucket, Key="a", Body=b"x" * 1000)
    s3.put_object(Bucket=bucket, Key="b", Body=b"y" * 10)
    assert s3.get_object(Bucket=bucket, Key="a")["Body"].read() == b"x" * 1000
    s3.list_objects_v2(Bucket=bucket)
    with pytest.raises(botocore.exceptions.ClientError):
        s3.get_object(Bucket=bucket, Key="missing")
    want = {"create_bucket": (1, 1), "put_obj": (2, 2), "get_obj": (2, 1), "list_bucket": (1, 1)}

    def summary():
        u = rgw.get_usage(uid=uid, show_entries=True, show_summary=True)
        mine = [s for s in u["summary"] if s["user"] == uid]
        return u, ({c["category"]: c for c in mine[0]["categories"]} if mine else {})

    deadline = time.monotonic() + 30
    while True:
        u, cats = summary()
        got = {k: (cats[k]["ops"], cats[k]["successful_ops"]) for k in want if k in cats}
        if got == want or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert got == want, cats
    assert cats["put_obj"]["bytes_received"] >= 1010
    assert cats["get_obj"]["bytes_sent"] >= 1000
    (entry,) = [e for e in u["entries"] if e["user"] == uid]
    buckets = {b["bucket"] for b in entry["buckets"]}
    # the 404 is counted under bucket "-", as radosgw counts it
    assert bucket in buckets and "-" in buckets, buckets
    assert all(b["owner"] == uid and b["epoch"] % 3600 == 0 for b in entry["buckets"])
    rgw.trim_usage(uid=uid, remove_all=True)
    assert [s for s in rgw.get_usage(uid=uid, show_summary=True)["summary"] if s["user"] == uid] == []
    if not t.is_radosgw:  # radosgw reads a date it cannot parse as none; rsgw refuses it
        with pytest.raises(InvalidArgument):
            rgw.get_usage(uid=uid, start="yesterday")


def test_rate_limits(t, rgw, uid, ops):
    """radosgw 17's /admin/ratelimit; radosgw 16.2 has none (405)."""
    rgw.create_user(uid=uid, display_name="Limited")
    path = f"/admin/ratelimit?format=json&ratelimit-scope=user&uid={uid}"
    if t.is_radosgw:
        with pytest.raises(RGWAdminException) as e:
            rgw.request("get", path)
        assert code(e) == "MethodNotAllowed"
        return
    with pytest.raises(AccessDenied):
        rgw.request("get", path)
    target_admin(t, "caps", "add", f"--uid={ops[0]}", "--caps=ratelimit=*")
    rgw.request("post", path + "&max-read-ops=100&max-write-bytes=4096&enabled=true")
    assert rgw.request("get", path) == {"user_ratelimit": {
        "max_read_ops": 100, "max_write_ops": 0, "max_read_bytes": 0, "max_write_bytes": 4096,
        "enabled": True}}
    with pytest.raises(NoSuchUser):
        rgw.request("post", path.replace(uid, "nosuch" + uid) + "&max-read-ops=1")
