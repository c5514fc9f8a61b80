"""rsgw writing radosgw's layout (`[store] layout = "radosgw"`, issue 31's
second part): objects put and removed through rsgw are radosgw's own, as
radosgw, radosgw-admin and the `rgw` object class judge them, on the same
cluster beside the radosgw that is the oracle:
- an object rsgw puts is read back through radosgw byte-identical, with the
  same ETag, stored headers, metadata and ACL as the same request made
  through radosgw, the same listing entry, and the same xattrs on its
  RADOS head (but the tags, the manifest's random prefix and the request
  headers radosgw keeps besides); `radosgw-admin object stat` reads it;
- a copy through rsgw (CopyObject), of radosgw's object, is radosgw's;
  the tails a copy made by radosgw shares with its source outlive the
  head rsgw removes first and go with the second;
- overwrites and removals through rsgw (DeleteObject, DeleteObjects), of
  rsgw's objects and radosgw's, leave no index entry, no pending change
  and no tail stripe behind;
- writers through both gateways at once, on the same keys, keep the
  bucket index and its stats consistent: `radosgw-admin bucket check`
  finds the stats it computes equal to the stored ones, and every listed
  object reads the same through both; `rsgw bench s3 --verify` with both
  endpoints finds every read seeing the last acknowledged write, whichever
  gateway made it;
- what radosgw's layout would keep otherwise (object tags, encryption) is
  refused with `501 NotImplemented`, nothing written.
"""
import concurrent.futures
import hashlib
import json
import os
import random
import subprocess
import uuid

import boto3
import botocore.config
import pytest
from botocore.exceptions import ClientError

from rsgw_gateway import Gateway, rsgw_bin
from targets import configs, targets

pytestmark = pytest.mark.concurrent


def client(url, key, secret):
    cfg = botocore.config.Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1, "mode": "standard"})
    return boto3.client("s3", endpoint_url=url, aws_access_key_id=key, aws_secret_access_key=secret,
                        region_name="us-east-1", config=cfg)


def admin(*args):
    """radosgw-admin's JSON. `object stat` prints xattrs it does not decode
    (`user.rgw.pg_ver`, a binary version) as raw bytes inside strings."""
    r = subprocess.run(["radosgw-admin", *args], capture_output=True, timeout=120)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    out = r.stdout.decode(errors="replace")
    return json.loads(out, strict=False) if out.strip() else None


def rados(*args):
    r = subprocess.run(["rados", *args], capture_output=True, timeout=120)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return r.stdout


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """radosgw's client and rsgw's, the same user, one bucket radosgw made."""
    if "rsgw-rados" not in configs():
        pytest.skip("no cluster in this run (tests/run.sh RSGW -)")
    url = targets().get("radosgw")
    if not url:
        pytest.skip("no radosgw in this run (RSGW_TEST_RADOSGW=no)")
    tag = uuid.uuid4().hex[:8]
    uid, key, secret = f"writes-{tag}", f"AKWRITES{tag.upper()}", f"writes-secret-{tag}"
    admin("user", "create", "--uid", uid, "--display-name", "Written Twice", "--access-key", key,
          "--secret", secret)
    rgw = client(url, key, secret)
    bucket = f"wr-{tag}"
    rgw.create_bucket(Bucket=bucket)
    gw = Gateway(tmp_path_factory.mktemp("radosgw-writes"), "rsgw-radosgw-writes", base=configs()["rsgw-rados"],
                 sections='[store]\nlayout = "radosgw"\n').start()
    try:
        yield {"radosgw": rgw, "rsgw": client(gw.url, key, secret), "bucket": bucket, "uid": uid,
               "urls": (url, gw.url), "key": (key, secret)}
    finally:
        gw.stop()
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", uid, "--purge-data"], capture_output=True,
                       timeout=300)


def bucket_ids(bucket):
    stats = admin("bucket", "stats", "--bucket", bucket)
    return stats["marker"], stats["id"]


def data_pool():
    zone = admin("zone", "get")
    return zone["placement_pools"][0]["val"]["storage_classes"]["STANDARD"]["data_pool"]


def head_oid(marker, key):
    return f"{marker}_{'_' + key if key.startswith('_') else key}"


def xattrs(oid, locator=None):
    loc = ["--object-locator", locator] if locator else []
    names = rados("-p", data_pool(), *loc, "listxattr", oid).decode().split()
    return {n: rados("-p", data_pool(), *loc, "getxattr", oid, n) for n in names}


def consistent(bucket):
    """radosgw-admin's check of the index: the stats it computes from the
    entries equal the stored ones; and no entry has a change pending."""
    check = admin("bucket", "check", "--bucket", bucket)["check_result"]
    # a category whose objects are all gone stays in the stored header,
    # zeroed, as radosgw leaves it (radosgw-admin computes none)
    stored, computed = ({c: u for c, u in check[h]["usage"].items() if any(u.values())}
                        for h in ("existing_header", "calculated_header"))
    assert stored == computed, check
    pending = [e["idx"] for e in admin("bi", "list", "--bucket", bucket) if e["entry"].get("pending_map")]
    assert pending == []
    return stored


def head_view(r):
    return {k: r.get(k) for k in ("ContentLength", "ETag", "ContentType", "Metadata", "CacheControl",
                                  "ContentDisposition", "ContentEncoding", "ContentLanguage")}


def acl_view(c, bucket, key):
    return {k: v for k, v in c.get_object_acl(Bucket=bucket, Key=key).items() if k != "ResponseMetadata"}


# what differs by write: the tags, the manifest's random prefix, the
# placement group's version at the write (radosgw also keeps the request's
# x-amz-* headers, which rsgw does not)
INCIDENTAL = {"user.rgw.idtag", "user.rgw.tail_tag", "user.rgw.manifest", "user.rgw.pg_ver"}


OBJECTS = [
    ("zero", b"", {}),
    ("one-kib", os.urandom(1024), {"ContentType": "text/html", "CacheControl": "max-age=60",
                                   "ContentDisposition": "inline", "ContentEncoding": "identity",
                                   "ContentLanguage": "en", "Metadata": {"colour": "blue", "size": "small"}}),
    ("public", b"for everyone", {"ACL": "public-read"}),
    ("four-mib", os.urandom(4 << 20), {}),
    ("striped", os.urandom((9 << 20) + 5), {"ContentType": "application/octet-stream"}),
    ("_under", b"placed by a locator", {}),
    ("ünï/cödé ✓", b"unicode", {}),
]


@pytest.mark.parametrize("key,body,kw", OBJECTS, ids=[o[0] for o in OBJECTS])
def test_what_rsgw_writes_is_radosgws_own(both, key, body, kw):
    """The same PUT through rsgw (`key`) and radosgw (`key~rgw`): radosgw
    reads rsgw's as it reads its own."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    put = ours.put_object(Bucket=bucket, Key=key, Body=body, **kw)
    assert put["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
    rgw.put_object(Bucket=bucket, Key=f"{key}~rgw", Body=body, **kw)
    mine, theirs = (rgw.get_object(Bucket=bucket, Key=k) for k in (key, f"{key}~rgw"))
    assert mine["Body"].read() == theirs["Body"].read() == body
    assert head_view(mine) == head_view(theirs)
    assert acl_view(rgw, bucket, key) == acl_view(rgw, bucket, f"{key}~rgw")
    listed = {o["Key"]: o for o in rgw.list_objects_v2(Bucket=bucket, Prefix=key, FetchOwner=True)["Contents"]}
    entry = lambda o: (o["Size"], o["ETag"], o["Owner"], o["StorageClass"])
    assert entry(listed[key]) == entry(listed[f"{key}~rgw"])
    # the same through rsgw's own reading
    assert ours.get_object(Bucket=bucket, Key=key)["Body"].read() == body
    stat = admin("object", "stat", "--bucket", bucket, "--object", key)
    assert stat["size"] == len(body) and stat["etag"] == hashlib.md5(body).hexdigest()
    assert stat["manifest"]["obj_size"] == len(body)
    marker, _ = bucket_ids(bucket)
    locator = lambda k: f"{marker}_{k}" if k.startswith("_") else None
    a = xattrs(head_oid(marker, key), locator(key))
    b = xattrs(head_oid(marker, f"{key}~rgw"), locator(f"{key}~rgw"))
    request_headers = {n for n in b if n.startswith("user.rgw.x-amz-") and not n.startswith("user.rgw.x-amz-meta-")}
    assert set(a) == set(b) - request_headers
    assert {n: v for n, v in a.items() if n not in INCIDENTAL} == \
        {n: v for n, v in b.items() if n not in INCIDENTAL | request_headers}
    assert a["user.rgw.idtag"] == a["user.rgw.tail_tag"]
    # the index entry: made by the write that made the head (its tag), at
    # the head's RADOS version in the data pool, as radosgw's own entries
    entries = {e["entry"]["name"]: e["entry"] for e in admin("bi", "list", "--bucket", bucket)}
    index_key = "_" + key if key.startswith("_") else key
    mine, theirs = entries[index_key], entries[f"{index_key}~rgw"]
    assert mine["tag"].encode() + b"\0" == a["user.rgw.idtag"]
    assert mine["ver"]["pool"] == theirs["ver"]["pool"] and mine["ver"]["epoch"] > 0, (mine, theirs)
    assert {k: mine["meta"][k] for k in ("category", "size", "etag", "owner", "owner_display_name",
                                         "content_type", "accounted_size", "storage_class")} == \
        {k: theirs["meta"][k] for k in ("category", "size", "etag", "owner", "owner_display_name",
                                        "content_type", "accounted_size", "storage_class")}
    consistent(bucket)


def shadows(marker):
    return {o for o in rados("-p", data_pool(), "ls").decode().split() if o.startswith(f"{marker}__shadow_")}


def test_overwrites_and_removals_leave_nothing_behind(both):
    """Through rsgw: a striped object overwritten by a small one, radosgw's
    striped object overwritten, both removed: each read through radosgw
    as its last write left it, no tail stripe of a replaced object left,
    the index consistent; removing a missing key succeeds."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    before = shadows(marker)
    ours.put_object(Bucket=bucket, Key="ow-ours", Body=os.urandom(9 << 20))
    rgw.put_object(Bucket=bucket, Key="ow-theirs", Body=os.urandom(6 << 20))
    striped = shadows(marker) - before
    assert len(striped) == 3, striped  # two of rsgw's, one of radosgw's
    for key in ("ow-ours", "ow-theirs"):
        ours.put_object(Bucket=bucket, Key=key, Body=key.encode())
        assert rgw.get_object(Bucket=bucket, Key=key)["Body"].read() == key.encode()
    assert shadows(marker) - before == set()
    consistent(bucket)
    for key in ("ow-ours", "ow-theirs", "never-there"):
        assert ours.delete_object(Bucket=bucket, Key=key)["ResponseMetadata"]["HTTPStatusCode"] == 204
        with pytest.raises(ClientError) as e:
            rgw.head_object(Bucket=bucket, Key=key)
        assert e.value.response["Error"]["Code"] == "404"
    keys = {o["Key"] for o in rgw.list_objects_v2(Bucket=bucket, Prefix="ow-").get("Contents", [])}
    assert keys == set()
    marker_objects = rados("-p", data_pool(), "ls").decode().split()
    assert not {head_oid(marker, k) for k in ("ow-ours", "ow-theirs")} & set(marker_objects)
    consistent(bucket)


def test_tails_radosgws_copies_share_outlive_either_head(both):
    """radosgw copies an object by sharing its tail stripes (counted by the
    `refcount` class). rsgw removing either head, the copy's or the
    source's, leaves the other whole; removing both removes the stripes."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    for first, second in (("share/copy", "share/src"), ("share/src", "share/copy")):
        before = shadows(marker)
        body = os.urandom((6 << 20) + 11)
        rgw.put_object(Bucket=bucket, Key="share/src", Body=body)
        stripes = shadows(marker) - before
        rgw.copy_object(Bucket=bucket, Key="share/copy", CopySource={"Bucket": bucket, "Key": "share/src"})
        assert shadows(marker) - before == stripes and stripes, "radosgw's copy shares the source's stripes"
        ours.delete_object(Bucket=bucket, Key=first)
        for c in (rgw, ours):
            assert c.get_object(Bucket=bucket, Key=second)["Body"].read() == body, (first, second)
        assert shadows(marker) - before == stripes
        ours.delete_object(Bucket=bucket, Key=second)
        assert shadows(marker) - before == set(), (first, second)
    consistent(bucket)


def test_copies_are_radosgws_own(both):
    """CopyObject through rsgw (a read and a put): of radosgw's striped
    object, its metadata copied or replaced; radosgw reads each copy as
    the source's bytes with the copy's metadata."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    body = os.urandom((6 << 20) + 3)
    rgw.put_object(Bucket=bucket, Key="copy/src", Body=body, ContentType="image/png", Metadata={"a": "1"})
    src = {"Bucket": bucket, "Key": "copy/src"}
    ours.copy_object(Bucket=bucket, Key="copy/same", CopySource=src)
    ours.copy_object(Bucket=bucket, Key="copy/new-meta", CopySource=src, MetadataDirective="REPLACE",
                     ContentType="text/plain", Metadata={"b": "2"})
    for key, ctype, meta in (("copy/same", "image/png", {"a": "1"}), ("copy/new-meta", "text/plain", {"b": "2"})):
        r = rgw.get_object(Bucket=bucket, Key=key)
        assert r["Body"].read() == body, key
        assert (r["ETag"], r["ContentType"], r["Metadata"]) == \
            (f'"{hashlib.md5(body).hexdigest()}"', ctype, meta), key
    consistent(bucket)


def test_many_removed_at_once(both):
    """DeleteObjects through rsgw: objects of both gateways (one striped)
    and a missing key, each answered deleted, none left in the index or
    the pool; a version is radosgw's to remove (`501`)."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    ours.put_object(Bucket=bucket, Key="many/a", Body=b"a")
    ours.put_object(Bucket=bucket, Key="many/striped", Body=os.urandom(5 << 20))
    rgw.put_object(Bucket=bucket, Key="many/b", Body=b"b")
    keys = ["many/a", "many/striped", "many/b", "many/never-there"]
    r = ours.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys]})
    assert sorted(d["Key"] for d in r["Deleted"]) == sorted(keys) and not r.get("Errors"), r
    assert rgw.list_objects_v2(Bucket=bucket, Prefix="many/").get("Contents", []) == []
    pool = set(rados("-p", data_pool(), "ls").decode().split())
    assert not {head_oid(marker, k) for k in keys} & pool
    consistent(bucket)
    with pytest.raises(ClientError) as e:
        ours.delete_object(Bucket=bucket, Key="many/a", VersionId="null")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501, e.value.response


def test_writers_through_both_keep_the_index_consistent(both):
    """Four writers, two through each gateway, put and remove the same 12
    keys (0 B to 5 MiB) 240 times: afterwards radosgw-admin finds the
    index's stats as it computes them, nothing pending, and every listed
    object reads through both gateways with the listed ETag and size."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    keys = [f"mix/{i:02d}" for i in range(12)]
    sizes = [0, 1, 100, 4096, 65536, (4 << 20) + 1, 5 << 20]

    def worker(seed):
        c = ours if seed % 2 else rgw
        rnd = random.Random(seed)
        for _ in range(60):
            key = rnd.choice(keys)
            if rnd.random() < 0.25:
                c.delete_object(Bucket=bucket, Key=key)
            else:
                c.put_object(Bucket=bucket, Key=key, Body=os.urandom(rnd.choice(sizes)))
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for f in [pool.submit(worker, s) for s in range(4)]:
            f.result()
    usage = consistent(bucket)
    listed = rgw.list_objects_v2(Bucket=bucket, Prefix="mix/").get("Contents", [])
    for o in listed:
        for c in (rgw, ours):
            r = c.get_object(Bucket=bucket, Key=o["Key"])
            body = r["Body"].read()
            assert (len(body), f'"{hashlib.md5(body).hexdigest()}"') == (o["Size"], o["ETag"]), o["Key"]
    assert usage, "the bucket holds objects"


def test_what_radosgws_layout_cannot_keep_is_refused(both):
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    for kw in ({"Tagging": "a=b"}, {"ServerSideEncryption": "AES256"}):
        with pytest.raises(ClientError) as e:
            ours.put_object(Bucket=bucket, Key="refused", Body=b"x", **kw)
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501, (kw, e.value.response)
        assert "radosgw's layout" in e.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as e:
        rgw.head_object(Bucket=bucket, Key="refused")
    assert e.value.response["Error"]["Code"] == "404"


def test_a_verified_load_through_both_gateways(both):
    """`rsgw bench s3 --verify --keep` with radosgw's endpoint and rsgw's
    (workers alternate between them): 1200 reads and writes of 40
    objects, each read required to return its object's last
    acknowledged write or a newer one, whichever gateway wrote it; then
    radosgw-admin finds the bucket's index consistent, and every object
    left reads the same through both."""
    prefix = f"vb{uuid.uuid4().hex[:8]}"
    key, secret = both["key"]
    r = subprocess.run([rsgw_bin(), "bench", "s3", "--mix", "read=60,write=40", "--objects", "40",
                        "--workers", "4", "--sizes", "u(1,64)KB", "--ops", "1200", "--verify", "--keep",
                        "--cprefix", prefix, "--endpoint", ",".join(both["urls"]), "--access-key", key,
                        "--secret-key", secret, "--json", "--quiet"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    works = json.loads(r.stdout)
    main = next(w for w in works if w["work"] == "main")
    assert all(o["errors"] == 0 for o in main["ops"]), main
    assert main["verified"]["reads"] > 0 and main["verified"]["stale"] == 0, main["verified"]
    assert [w["work"] for w in works] == ["init", "prepare", "main"]
    bucket = f"{prefix}1"
    consistent(bucket)
    for o in both["radosgw"].list_objects_v2(Bucket=bucket).get("Contents", []):
        bodies = [c.get_object(Bucket=bucket, Key=o["Key"])["Body"].read() for c in (both["radosgw"], both["rsgw"])]
        assert bodies[0] == bodies[1] and f'"{hashlib.md5(bodies[0]).hexdigest()}"' == o["ETag"], o["Key"]
