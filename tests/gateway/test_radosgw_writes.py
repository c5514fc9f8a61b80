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
  rsgw's objects and radosgw's, leave no index entry and no pending
  change, and hand the replaced tail stripes to radosgw's garbage
  collector as radosgw does (`radosgw-admin gc list` shows the chain,
  `gc process` releases it);
- writers through both gateways at once, on the same keys, keep the
  bucket index and its stats consistent: `radosgw-admin bucket check`
  finds the stats it computes equal to the stored ones, and every listed
  object reads the same through both; `rsgw bench s3 --verify` with both
  endpoints finds every read seeing the last acknowledged write, whichever
  gateway made it;
- multipart uploads through rsgw are radosgw's own: the upload's meta
  object, each part's stripes, index entry and record, and the completed
  object are what the same requests through radosgw make (but tags,
  random ids and request headers); an upload begun through either
  gateway is listed, continued, completed or aborted through the other;
  parts are copied from radosgw's objects (UploadPartCopy);
  a part uploaded again, parts left out of the object and aborted
  uploads leave no stripe, record or index entry behind; the aws CLI
  copies a file in parts through rsgw;
- an object's ACL set through rsgw (canned, or grants to users and
  groups) is the same record the same request through radosgw makes, the
  index entry's ETag and size kept, and both gateways answer anonymous
  reads by it alike;
- a bucket's ACL, policy, CORS rules or tags set (or removed) through rsgw is the
  record radosgw makes, its version raised, and announced as radosgw
  announces its changes: radosgw answers anonymous requests by the change
  from its next request;
- an object's tags, put with it or set and removed later through rsgw, are
  the record radosgw makes for the same requests;
- HeadBucket counts a bucket's objects and bytes as radosgw counts them
  (from the index shards' headers, an upload's parts included);
- what radosgw's layout would keep otherwise (encryption, object lock)
  is refused with `501 NotImplemented`, nothing written.
"""
import concurrent.futures
import hashlib
import json
import os
import random
import subprocess
import sys
import urllib.error
import urllib.request
import uuid

import boto3
import botocore.config
import botocore.handlers
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


def request_header_xattrs(attrs):
    """The xattrs radosgw keeps of the request's `x-amz-*` headers (not
    user metadata, nor the tags' record)."""
    return {n for n in attrs if n.startswith("user.rgw.x-amz-") and not n.startswith("user.rgw.x-amz-meta-")
            and n != "user.rgw.x-amz-tagging"}


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
    ("tagged", b"with tags", {"Tagging": "zeta=last&alpha=first%20one&empty="}),
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
    request_headers = request_header_xattrs(b)
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


def collect_garbage():
    """radosgw's collector, now: what rsgw and radosgw queued for release
    is released without the two hours' wait."""
    admin("gc", "process", "--include-all")


def shadows(marker):
    return {o for o in rados("-p", data_pool(), "ls").decode().split() if o.startswith(f"{marker}__shadow_")}


def test_overwrites_and_removals_leave_nothing_behind(both):
    """Through rsgw: a striped object overwritten by a small one, radosgw's
    striped object overwritten, both removed: each read through radosgw
    as its last write left it, the replaced objects' tail stripes released
    by radosgw's collector, the index consistent; removing a missing key
    succeeds."""
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
    # queued in radosgw's collector, which releases them
    assert shadows(marker) - before == striped
    collect_garbage()
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
    source's, leaves the other whole once radosgw's collector has released
    the removed head's references; removing both removes the stripes."""
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
        collect_garbage()
        for c in (rgw, ours):
            assert c.get_object(Bucket=bucket, Key=second)["Body"].read() == body, (first, second)
        assert shadows(marker) - before == stripes
        ours.delete_object(Bucket=bucket, Key=second)
        collect_garbage()
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
    for kw in ({"ServerSideEncryption": "AES256"}, {"ObjectLockMode": "GOVERNANCE",
                                                   "ObjectLockRetainUntilDate": "2099-01-01T00:00:00Z"}):
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


# a multipart upload's parts: 6 MiB (two stripes), 6 MiB, then 1 MiB
PART_SIZES = (6 << 20, 6 << 20, 1 << 20)


def upload_parts(clients, bucket, key, upload_id, bodies):
    """Uploads `bodies` as parts 1, 2, ... through `clients` in turn; the
    completion's part list."""
    parts = []
    for n, body in enumerate(bodies, 1):
        c = clients[(n - 1) % len(clients)]
        r = c.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=n, Body=body)
        assert r["ETag"] == f'"{hashlib.md5(body).hexdigest()}"'
        parts.append({"PartNumber": n, "ETag": r["ETag"]})
    return parts


def multipart_etag(bodies):
    digests = b"".join(hashlib.md5(b).digest() for b in bodies)
    return f'"{hashlib.md5(digests).hexdigest()}-{len(bodies)}"'


def extra_pool():
    zone = admin("zone", "get")
    return zone["placement_pools"][0]["val"]["data_extra_pool"]


def pool_objects(pool, marker):
    r = subprocess.run(["rados", "-p", pool, "ls"], capture_output=True, timeout=120)
    # the extra pool is made with the first upload
    return {o for o in r.stdout.decode().split() if o.startswith(f"{marker}_")} if r.returncode == 0 else set()


def upload_objects(marker):
    """A bucket's RADOS objects of uploads: parts' stripes, meta objects."""
    data = {o for o in pool_objects(data_pool(), marker)
            if o.startswith((f"{marker}__multipart_", f"{marker}__shadow_"))}
    return data | pool_objects(extra_pool(), marker)


def index_names(bucket, prefix=""):
    return sorted(e["idx"] for e in admin("bi", "list", "--bucket", bucket) if e["idx"].startswith(prefix))


def test_uploads_rsgw_takes_are_radosgws_own(both):
    """The same multipart upload through rsgw (`mp/ours`) and radosgw
    (`mp/theirs`): while it is in progress, the meta object's xattrs and
    data, the parts' stripes, index entries and records are alike; once
    completed, the objects read the same through both gateways, and their
    heads, manifests and index entries are alike."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    bodies = [os.urandom(n) for n in PART_SIZES]
    kw = {"ContentType": "text/x-parts", "CacheControl": "no-cache", "Metadata": {"part": "ly"},
          "ACL": "public-read", "Tagging": "made=in%20parts"}
    uploads = {}
    for name, c in (("ours", ours), ("theirs", rgw)):
        key = f"mp/{name}"
        uploads[name] = c.create_multipart_upload(Bucket=bucket, Key=key, **kw)["UploadId"]
        assert uploads[name].startswith("2~")
    # the meta objects: the object's xattrs and the placement
    metas = {name: f"{marker}__multipart_mp/{name}.{u}.meta" for name, u in uploads.items()}
    pool = extra_pool()
    got = {}
    for name, oid in metas.items():
        names = rados("-p", pool, "listxattr", oid).decode().split()
        # radosgw 16.2 keeps an upload's tags as the x-amz-tagging header
        # came, with the other request headers; rsgw as RGWObjTags
        got[name] = {n: rados("-p", pool, "getxattr", oid, n) for n in names
                     if not (n.startswith("user.rgw.x-amz-") and not n.startswith("user.rgw.x-amz-meta-"))}
        got[name]["data"] = rados("-p", pool, "get", oid, "-")
        got[name].pop("user.rgw.pg_ver")
    assert got["ours"] == got["theirs"]
    results = {}
    for name, c in (("ours", ours), ("theirs", rgw)):
        results[name] = upload_parts([c], bucket, f"mp/{name}", uploads[name], bodies)
    # stripes: the same names but for the upload id
    stripes = {name: sorted(o.replace(uploads[name], "ID").replace(f"mp/{name}", "KEY")
                            for o in upload_objects(marker) if uploads[name] in o)
               for name in uploads}
    assert stripes["ours"] == stripes["theirs"] and len(stripes["ours"]) == 6, stripes  # and the meta object
    entries = {e["idx"]: e["entry"] for e in admin("bi", "list", "--bucket", bucket)}
    for n in range(1, 4):
        a, b = (entries[f"_multipart_mp/{name}.{uploads[name]}.{n}"] for name in ("ours", "theirs"))
        fields = ("category", "size", "etag", "owner", "owner_display_name", "content_type", "accounted_size")
        assert {k: a["meta"][k] for k in fields} == {k: b["meta"][k] for k in fields}, n
        assert a["ver"]["pool"] == b["ver"]["pool"]
    a, b = (entries[f"_multipart_mp/{name}.{uploads[name]}.meta"] for name in ("ours", "theirs"))
    fields = ("category", "size", "owner", "content_type", "accounted_size")
    assert {k: a["meta"][k] for k in fields} == {k: b["meta"][k] for k in fields}
    consistent(bucket)
    # the parts as each gateway lists them
    for c in (rgw, ours):
        listed = [{k: p[k] for k in ("PartNumber", "ETag", "Size")}
                  for name in uploads
                  for p in c.list_parts(Bucket=bucket, Key=f"mp/{name}", UploadId=uploads[name])["Parts"]]
        assert listed[:3] == listed[3:] and [p["Size"] for p in listed[:3]] == list(PART_SIZES)
    for name, c in (("ours", ours), ("theirs", rgw)):
        r = c.complete_multipart_upload(Bucket=bucket, Key=f"mp/{name}", UploadId=uploads[name],
                                        MultipartUpload={"Parts": results[name]})
        # S3's answer names the ETag; radosgw 16.2's leaves it empty
        assert r["ETag"] == (multipart_etag(bodies) if c is ours else "")
    whole = b"".join(bodies)
    for c in (rgw, ours):
        views = []
        for name in uploads:
            r = c.get_object(Bucket=bucket, Key=f"mp/{name}")
            assert r["Body"].read() == whole
            views.append(head_view(r))
        assert views[0] == views[1] and views[0]["ETag"] == multipart_etag(bodies)
        ranged = c.get_object(Bucket=bucket, Key="mp/ours", Range="bytes=6291000-12583000")["Body"].read()
        assert ranged == whole[6291000:12583001]
    assert acl_view(rgw, bucket, "mp/ours") == acl_view(rgw, bucket, "mp/theirs")
    stats = {name: admin("object", "stat", "--bucket", bucket, "--object", f"mp/{name}") for name in uploads}
    shape = lambda m: (m["obj_size"], m["head_size"], m["max_head_size"],
                       [(r["key"], {k: v for k, v in r["val"].items() if k != "override_prefix"})
                        for r in m["rules"]])
    assert shape(stats["ours"]["manifest"]) == shape(stats["theirs"]["manifest"])
    assert len(stats["ours"]["manifest"]["rules"]) == 2, "parts 1 and 2 share a rule"
    a, b = (xattrs(head_oid(marker, f"mp/{name}")) for name in uploads)
    request_headers = request_header_xattrs(b) | {"user.rgw.x-amz-tagging"}
    assert {n: v for n, v in a.items() if n not in INCIDENTAL | {"user.rgw.x-amz-tagging"}} == \
        {n: v for n, v in b.items() if n not in INCIDENTAL | request_headers}
    # rsgw writes the tags' record on the object, where radosgw 16.2 copies
    # the upload's header as it came; rsgw reads either
    assert b["user.rgw.x-amz-tagging"] == b"made=in%20parts\0"
    for name in uploads:
        tags = ours.get_object_tagging(Bucket=bucket, Key=f"mp/{name}")["TagSet"]
        assert tags == [{"Key": "made", "Value": "in parts"}], name
    assert rgw.get_object_tagging(Bucket=bucket, Key="mp/ours")["TagSet"] == [{"Key": "made", "Value": "in parts"}]
    entries = {e["idx"]: e["entry"] for e in admin("bi", "list", "--bucket", bucket)}
    fields = ("category", "size", "etag", "owner", "owner_display_name", "content_type", "accounted_size")
    assert {k: entries["mp/ours"]["meta"][k] for k in fields} == \
        {k: entries["mp/theirs"]["meta"][k] for k in fields}
    # the upload's records are gone; its stripes are the object's
    assert index_names(bucket, "_multipart_") == []
    assert not {o for o in pool_objects(extra_pool(), marker) if any(u in o for u in uploads.values())}
    consistent(bucket)
    for name in uploads:
        ours.delete_object(Bucket=bucket, Key=f"mp/{name}")
    collect_garbage()
    assert not {o for o in upload_objects(marker) if any(u in o for u in uploads.values())}
    consistent(bucket)


def test_an_upload_goes_on_through_either_gateway(both):
    """Begun through one gateway, parts through both, listed through both,
    completed (or aborted) through the other."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    bodies = [os.urandom(n) for n in PART_SIZES]
    for first, last in ((rgw, ours), (ours, rgw)):
        key = "across/" + ("ours-last" if last is ours else "theirs-last")
        upload_id = first.create_multipart_upload(Bucket=bucket, Key=key, ContentType="a/b")["UploadId"]
        for c in (rgw, ours):
            listed = c.list_multipart_uploads(Bucket=bucket, Prefix="across/")["Uploads"]
            assert [(u["Key"], u["UploadId"]) for u in listed] == [(key, upload_id)]
        parts = upload_parts([first, last], bucket, key, upload_id, bodies)
        for c in (rgw, ours):
            got = c.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)["Parts"]
            assert [(p["PartNumber"], p["ETag"], p["Size"]) for p in got] == \
                [(p["PartNumber"], p["ETag"], len(b)) for p, b in zip(parts, bodies)]
        last.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id,
                                       MultipartUpload={"Parts": parts})
        for c in (rgw, ours):
            r = c.get_object(Bucket=bucket, Key=key)
            assert r["Body"].read() == b"".join(bodies) and r["ContentType"] == "a/b"
        consistent(bucket)
        # and an upload aborted through the other gateway
        upload_id = first.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
        upload_parts([first, last], bucket, key, upload_id, bodies[:2])
        last.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
        for c in (rgw, ours):
            with pytest.raises(ClientError) as e:
                c.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)
            # S3's error; radosgw 16.2 answers NoSuchKey
            assert e.value.response["Error"]["Code"] == ("NoSuchUpload" if c is ours else "NoSuchKey")
        if last is rgw:
            # radosgw hands an aborted upload's stripes to its collector,
            # which removes them two hours later: now, here
            admin("gc", "process", "--include-all")
        assert not {o for o in upload_objects(marker) if upload_id in o}
        consistent(bucket)
    for key in ("across/ours-last", "across/theirs-last"):
        ours.delete_object(Bucket=bucket, Key=key)


def test_replaced_and_unused_parts_leave_nothing_behind(both):
    """Through rsgw: part 1 uploaded twice (the second replaces the
    first), a part left out of the completion, an upload aborted: once
    done, the bucket holds no stripe, record or index entry of any but
    the object's, and the object is the parts chosen."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    before = upload_objects(marker)
    key = "again/obj"
    upload_id = ours.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    first = os.urandom(5 << 20)
    ours.upload_part(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=1, Body=first)
    bodies = [os.urandom(5 << 20), os.urandom(100), os.urandom(7)]
    parts = upload_parts([ours], bucket, key, upload_id, bodies)
    assert len(index_names(bucket, f"_multipart_{key}.")) == 4, "one entry per part and the meta object"
    ours.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id,
                                   MultipartUpload={"Parts": parts[:2]})
    r = rgw.get_object(Bucket=bucket, Key=key)
    assert r["Body"].read() == bodies[0] + bodies[1] and r["ETag"] == multipart_etag(bodies[:2])
    assert index_names(bucket, "_multipart_") == []
    manifest = admin("object", "stat", "--bucket", bucket, "--object", key)["manifest"]
    prefixes = {manifest["prefix"]} | {r["val"]["override_prefix"] for r in manifest["rules"]} - {""}
    left = upload_objects(marker) - before
    assert all(any(f"_{p}." in o for p in prefixes) for o in left), (left, prefixes)
    assert len(left) == 3, left  # part 1's two stripes, part 2's one
    consistent(bucket)
    upload_id = ours.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    upload_parts([ours], bucket, key, upload_id, bodies)
    ours.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
    assert upload_objects(marker) - before == left
    assert index_names(bucket, "_multipart_") == []
    ours.delete_object(Bucket=bucket, Key=key)
    collect_garbage()
    assert upload_objects(marker) - before == set()
    consistent(bucket)


def test_parts_copied_from_radosgws_objects(both):
    """UploadPartCopy through rsgw: a whole object radosgw wrote and a
    range of it become parts; radosgw reads the completed object as those
    bytes."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    src = os.urandom((5 << 20) + 13)
    rgw.put_object(Bucket=bucket, Key="pcopy/src", Body=src)
    key = "pcopy/obj"
    upload_id = ours.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = []
    for n, extra in ((1, {}), (2, {"CopySourceRange": "bytes=100-1099"})):
        r = ours.upload_part_copy(Bucket=bucket, Key=key, UploadId=upload_id, PartNumber=n,
                                  CopySource={"Bucket": bucket, "Key": "pcopy/src"}, **extra)
        parts.append({"PartNumber": n, "ETag": r["CopyPartResult"]["ETag"]})
    ours.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts})
    r = rgw.get_object(Bucket=bucket, Key=key)
    assert r["Body"].read() == src + src[100:1100]
    assert r["ETag"] == multipart_etag([src, src[100:1100]])
    for k in (key, "pcopy/src"):
        ours.delete_object(Bucket=bucket, Key=k)
    consistent(bucket)


def test_uploads_list_as_radosgw_lists_them(both):
    """ListMultipartUploads through rsgw and radosgw: the same uploads,
    page by page, in the index's order. Where radosgw 16.2 departs from
    S3, rsgw answers as S3 does: with a delimiter, radosgw drops the
    uploads it should roll up into common prefixes (rsgw lists the
    prefixes); after a key marker, radosgw lists the marker's own uploads
    again (rsgw lists later keys only)."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    made = []
    for i, key in enumerate(["lu/a", "lu/a", "lu/b/1", "lu/b/2", "lu/c.d", "lu/c"]):
        c = ours if i % 2 else rgw
        made.append((key, c.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]))
    try:
        def view(c, **kw):
            r = c.list_multipart_uploads(Bucket=bucket, **kw)
            return ([(u["Key"], u["UploadId"], u["Initiator"]["ID"]) for u in r.get("Uploads", [])],
                    [p["Prefix"] for p in r.get("CommonPrefixes", [])], r["IsTruncated"],
                    r.get("NextKeyMarker"), r.get("NextUploadIdMarker"))
        for kw in ({"Prefix": "lu/"}, {"Prefix": "lu/b/"}, {"Prefix": "lu/", "MaxUploads": 2},
                   {"Prefix": "lu/", "MaxUploads": 2, "KeyMarker": "lu/a", "UploadIdMarker": made[0][1]},
                   {"Prefix": "lu/", "Delimiter": "/", "MaxUploads": 1}):
            assert view(rgw, **kw) == view(ours, **kw), kw
        everything = view(ours, Prefix="lu/")[0]
        assert [u[0] for u in everything] == ["lu/a", "lu/a", "lu/b/1", "lu/b/2", "lu/c", "lu/c.d"]
        rolled = view(ours, Prefix="lu/", Delimiter="/")
        assert rolled[0] == [u for u in everything if not u[0].startswith("lu/b/")] and rolled[1] == ["lu/b/"]
        assert view(ours, Prefix="lu/", KeyMarker="lu/b/1")[0] == everything[3:]
    finally:
        for key, upload_id in made:
            ours.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
    assert rgw.list_multipart_uploads(Bucket=bucket, Prefix="lu/").get("Uploads", []) == []
    consistent(bucket)


def test_completions_radosgw_refuses_rsgw_refuses(both):
    """A wrong ETag, a part too small: the same S3 error through both
    gateways, the upload left as it was; an unknown upload: S3's error
    through rsgw; encryption, which radosgw's layout would keep
    otherwise, refused with 501."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    key = "refuse/obj"
    upload_id = rgw.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = upload_parts([ours], bucket, key, upload_id, [os.urandom(100), os.urandom(100)])
    cases = [
        ({"UploadId": upload_id, "MultipartUpload": {"Parts": [{"PartNumber": 1, "ETag": '"' + "0" * 32 + '"'}]}},
         "InvalidPart", "InvalidPart"),
        ({"UploadId": upload_id, "MultipartUpload": {"Parts": parts}}, "EntityTooSmall", "EntityTooSmall"),
        # S3's error; radosgw 16.2 answers 500
        ({"UploadId": "2~nosuchupload", "MultipartUpload": {"Parts": parts}}, "InternalError", "NoSuchUpload"),
    ]
    for kw, theirs, mine in cases:
        for c, code in ((rgw, theirs), (ours, mine)):
            with pytest.raises(ClientError) as e:
                c.complete_multipart_upload(Bucket=bucket, Key=key, **kw)
            assert e.value.response["Error"]["Code"] == code, (kw, e.value.response)
    assert len(ours.list_parts(Bucket=bucket, Key=key, UploadId=upload_id)["Parts"]) == 2
    with pytest.raises(ClientError) as e:
        ours.create_multipart_upload(Bucket=bucket, Key="refuse/other", ServerSideEncryption="AES256")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501, e.value.response
    assert ours.list_multipart_uploads(Bucket=bucket, Prefix="refuse/")["Uploads"][0]["UploadId"] == upload_id
    assert len(ours.list_multipart_uploads(Bucket=bucket, Prefix="refuse/")["Uploads"]) == 1
    ours.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
    consistent(bucket)


def test_the_aws_cli_copies_a_large_file_through_rsgw(both, tmp_path):
    """`aws s3 cp` of a 20 MiB file through rsgw (uploaded in 8 MiB parts
    by the CLI) and back through radosgw: the same bytes."""
    bucket = both["bucket"]
    src, back = tmp_path / "big.bin", tmp_path / "back.bin"
    src.write_bytes(os.urandom(20 << 20))
    env = dict(os.environ, AWS_ACCESS_KEY_ID=both["key"][0], AWS_SECRET_ACCESS_KEY=both["key"][1],
               AWS_DEFAULT_REGION="us-east-1", AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null")
    aws = os.path.join(os.path.dirname(sys.executable), "aws")  # the test venv's CLI
    rgw_url, rsgw_url = both["urls"]
    for args in (["--endpoint-url", rsgw_url, "s3", "cp", str(src), f"s3://{bucket}/cli/big.bin"],
                 ["--endpoint-url", rgw_url, "s3", "cp", f"s3://{bucket}/cli/big.bin", str(back)]):
        r = subprocess.run([aws, *args], capture_output=True, timeout=300, env=env)
        assert r.returncode == 0, r.stderr[-2000:]
    assert back.read_bytes() == src.read_bytes()
    etag = both["radosgw"].head_object(Bucket=bucket, Key="cli/big.bin")["ETag"]
    assert etag.endswith('-3"'), etag
    both["rsgw"].delete_object(Bucket=bucket, Key="cli/big.bin")
    consistent(bucket)


def test_object_acls_rsgw_sets_are_radosgws_own(both):
    """PutObjectAcl through rsgw (`acl/ours`) and radosgw (`acl/theirs`),
    on objects each gateway wrote: canned public-read, grants by XML (a
    user's READ, all users' READ_ACP), then private. After each: the same
    ACL through both gateways and the same `user.rgw.acl` bytes on both
    heads, the index entries' size, ETag, content type and owner alike,
    anonymous reads answered alike by both; the index consistent."""
    bucket, rgw, ours, uid = both["bucket"], both["radosgw"], both["rsgw"], both["uid"]
    other = f"{uid}-other"
    admin("user", "create", "--uid", other, "--display-name", "Other One")
    try:
        ours.put_object(Bucket=bucket, Key="acl/ours", Body=b"ours", ContentType="text/x-ours")
        rgw.put_object(Bucket=bucket, Key="acl/theirs", Body=b"ours", ContentType="text/x-ours")
        owner = {"ID": uid, "DisplayName": "Written Twice"}
        grants = {"AccessControlPolicy": {"Owner": owner, "Grants": [
            {"Grantee": {"Type": "CanonicalUser", "ID": uid}, "Permission": "FULL_CONTROL"},
            {"Grantee": {"Type": "CanonicalUser", "ID": other}, "Permission": "READ"},
            {"Grantee": {"Type": "Group", "URI": "http://acs.amazonaws.com/groups/global/AllUsers"},
             "Permission": "READ_ACP"}]}}
        anonymous = [client(u, "", "") for u in both["urls"]]
        for c in anonymous:
            c.meta.events.register("choose-signer.s3.*", botocore.handlers.disable_signing)
        marker, _ = bucket_ids(bucket)
        for kw in ({"ACL": "public-read"}, grants, {"ACL": "private"}):
            ours.put_object_acl(Bucket=bucket, Key="acl/ours", **kw)
            rgw.put_object_acl(Bucket=bucket, Key="acl/theirs", **kw)
            for c in (rgw, ours):
                assert acl_view(c, bucket, "acl/ours") == acl_view(c, bucket, "acl/theirs"), kw
            a, b = (xattrs(head_oid(marker, f"acl/{n}")) for n in ("ours", "theirs"))
            assert a["user.rgw.acl"] == b["user.rgw.acl"], kw
            entries = {e["idx"]: e["entry"]["meta"] for e in admin("bi", "list", "--bucket", bucket)}
            fields = ("category", "size", "etag", "owner", "owner_display_name", "content_type", "accounted_size")
            assert {k: entries["acl/ours"][k] for k in fields} == {k: entries["acl/theirs"][k] for k in fields}
            answers = []
            for c in anonymous:
                for key in ("acl/ours", "acl/theirs"):
                    try:
                        answers.append(c.get_object(Bucket=bucket, Key=key)["Body"].read())
                    except ClientError as e:
                        answers.append(e.response["Error"]["Code"])
            want = b"ours" if kw.get("ACL") == "public-read" else "AccessDenied"
            assert answers == [want] * 4, (kw, answers)
            consistent(bucket)
        for key in ("acl/ours", "acl/theirs"):
            ours.delete_object(Bucket=bucket, Key=key)
    finally:
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", other], capture_output=True, timeout=120)


def test_bucket_acls_policies_and_cors_rsgw_sets_reach_radosgw_at_once(both):
    """Put/DeleteBucketPolicy, Put/DeleteBucketCors, Put/DeleteBucketTagging,
    then PutBucketAcl, through rsgw on a bucket
    radosgw made, and the same requests through radosgw on another: the
    same `user.rgw.acl`, `user.rgw.iam-policy`, `user.rgw.cors` and
    `user.rgw.x-amz-tagging` bytes on both instances,
    each change raising the instance's version by one. radosgw, which had
    cached the bucket refusing anonymous listings, lists it anonymously on
    the next request after rsgw made it public-read, and refuses again on
    the next request after rsgw made it private; likewise anonymous GETs
    by a policy rsgw put, then removed, and browsers' preflights by CORS
    rules rsgw put, then removed: rsgw announced each change on the
    zone's control objects. A malformed policy is refused by both (with
    S3's error by rsgw), nothing changed."""
    rgw, ours = both["radosgw"], both["rsgw"]
    tag = uuid.uuid4().hex[:6]
    mine, theirs = f"bacl-ours-{tag}", f"bacl-theirs-{tag}"
    for b in (mine, theirs):
        rgw.create_bucket(Bucket=b)
        rgw.put_object(Bucket=b, Key="k", Body=b"k")
    anonymous = [client(u, "", "") for u in both["urls"]]
    for c in anonymous:
        c.meta.events.register("choose-signer.s3.*", botocore.handlers.disable_signing)

    def listed(c, bucket):
        try:
            return [o["Key"] for o in c.list_objects_v2(Bucket=bucket).get("Contents", [])]
        except ClientError as e:
            return e.response["Error"]["Code"]

    def instance(bucket):
        _, bucket_id = bucket_ids(bucket)
        md = admin("metadata", "get", f"bucket.instance:{bucket}:{bucket_id}")
        acl = rados("-p", "default.rgw.meta", "-N", "root", "getxattr", f".bucket.meta.{bucket}:{bucket_id}",
                    "user.rgw.acl")
        return md["ver"]["ver"], acl
    try:
        # radosgw caches the bucket while answering these
        assert [listed(c, mine) for c in anonymous] == ["AccessDenied"] * 2
        bucket_policies(both, (mine, theirs), anonymous, instance)
        bucket_cors(both, (mine, theirs), instance)
        bucket_tags(both, (mine, theirs), instance)
        for acl, want in (("public-read", ["k"]), ("private", "AccessDenied")):  # bucket ACLs
            before = {b: instance(b)[0] for b in (mine, theirs)}
            ours.put_bucket_acl(Bucket=mine, ACL=acl)
            rgw.put_bucket_acl(Bucket=theirs, ACL=acl)
            assert [listed(c, mine) for c in anonymous] == [want] * 2, acl
            after = {b: instance(b) for b in (mine, theirs)}
            assert after[mine][1] == after[theirs][1], acl
            assert after[mine][0] == before[mine] + 1 and after[theirs][0] == before[theirs] + 1, (before, after)
            for c in (rgw, ours):
                views = [{k: v for k, v in c.get_bucket_acl(Bucket=b).items() if k != "ResponseMetadata"}
                         for b in (mine, theirs)]
                assert views[0] == views[1], acl
    finally:
        for b in (mine, theirs):
            rgw.delete_object(Bucket=b, Key="k")
            rgw.delete_bucket(Bucket=b)


def bucket_policies(both, buckets, anonymous, instance):
    """The policy half of the test above: an anonymous GET allowed by a
    policy put through rsgw (`buckets[0]`) and radosgw (`buckets[1]`), then
    refused once it is removed, through both gateways from the next
    request."""
    rgw, ours = both["radosgw"], both["rsgw"]
    mine, theirs = buckets

    def got(c, bucket):
        try:
            return c.get_object(Bucket=bucket, Key="k")["Body"].read()
        except ClientError as e:
            return e.response["Error"]["Code"]
    assert [got(c, mine) for c in anonymous] == ["AccessDenied"] * 2
    # S3's error, as rsgw answers it; radosgw 16.2 answers InvalidArgument
    for b, c, code in ((mine, ours, "MalformedPolicy"), (theirs, rgw, "InvalidArgument")):
        with pytest.raises(ClientError) as e:
            c.put_bucket_policy(Bucket=b, Policy='{"Version": "2012-10-17", "Statement": [{"Effect": "Maybe"}]}')
        assert e.value.response["Error"]["Code"] == code, e.value.response
    for document, want in ((True, b"k"), (False, "AccessDenied")):
        before = {b: instance(b)[0] for b in buckets}
        for b, c in ((mine, ours), (theirs, rgw)):
            if document:
                c.put_bucket_policy(Bucket=b, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
                    {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
                     "Resource": f"arn:aws:s3:::{b}/*"}]}))
            else:
                c.delete_bucket_policy(Bucket=b)
        assert [got(c, mine) for c in anonymous] == [want] * 2, document
        assert {b: instance(b)[0] for b in buckets} == {b: v + 1 for b, v in before.items()}
        stored = []
        for b in buckets:
            _, bid = bucket_ids(b)
            r = subprocess.run(["rados", "-p", "default.rgw.meta", "-N", "root", "getxattr", f".bucket.meta.{b}:{bid}",
                                "user.rgw.iam-policy"], capture_output=True, timeout=60)
            stored.append(r.stdout.replace(b.encode(), b"B") if r.returncode == 0 else None)
        assert stored[0] == stored[1] and (stored[0] is not None) == document, stored
        for c in (rgw, ours):
            if document:
                texts = [c.get_bucket_policy(Bucket=b)["Policy"].replace(b, "B") for b in buckets]
                assert texts[0] == texts[1]
            else:
                for b in buckets:
                    with pytest.raises(ClientError) as e:
                        c.get_bucket_policy(Bucket=b)
                    assert e.value.response["Error"]["Code"] == "NoSuchBucketPolicy"


def bucket_cors(both, buckets, instance):
    """The CORS part of the test above: rules put through rsgw
    (`buckets[0]`) and radosgw (`buckets[1]`) stored alike and answering a
    preflight through both gateways from the next request, then removed."""
    rgw, ours = both["radosgw"], both["rsgw"]
    mine, theirs = buckets

    def preflight(url, bucket):
        req = urllib.request.Request(f"{url}/{bucket}/k", method="OPTIONS", headers={
            "Origin": "https://site.example", "Access-Control-Request-Method": "PUT",
            "Access-Control-Request-Headers": "content-type"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.headers.get("Access-Control-Allow-Origin"), r.headers.get("Access-Control-Max-Age")
        except urllib.error.HTTPError as e:
            return e.code, None, None
    rules = {"CORSRules": [
        {"ID": "site", "AllowedOrigins": ["https://site.example", "http://*.other.example"],
         "AllowedMethods": ["PUT", "GET"], "AllowedHeaders": ["content-type", "x-amz-*"],
         "ExposeHeaders": ["ETag"], "MaxAgeSeconds": 120},
        {"AllowedOrigins": ["*"], "AllowedMethods": ["GET"]}]}
    assert [preflight(u, mine) for u in both["urls"]] == [(403, None, None)] * 2
    for present, want in ((True, (200, "https://site.example", "120")), (False, (403, None, None))):
        before = {b: instance(b)[0] for b in buckets}
        for b, c in ((mine, ours), (theirs, rgw)):
            if present:
                c.put_bucket_cors(Bucket=b, CORSConfiguration=rules)
            else:
                c.delete_bucket_cors(Bucket=b)
        assert [preflight(u, mine) for u in both["urls"]] == [want] * 2, present
        assert {b: instance(b)[0] for b in buckets} == {b: v + 1 for b, v in before.items()}
        stored = []
        for b in buckets:
            _, bid = bucket_ids(b)
            r = subprocess.run(["rados", "-p", "default.rgw.meta", "-N", "root", "getxattr", f".bucket.meta.{b}:{bid}",
                                "user.rgw.cors"], capture_output=True, timeout=60)
            stored.append(r.stdout if r.returncode == 0 else None)
        assert stored[0] == stored[1] and (stored[0] is not None) == present, stored
        for c in (rgw, ours):
            if present:
                got = [c.get_bucket_cors(Bucket=b)["CORSRules"] for b in buckets]
                assert got[0] == got[1]
            else:
                for b in buckets:
                    with pytest.raises(ClientError) as e:
                        c.get_bucket_cors(Bucket=b)
                    assert e.value.response["Error"]["Code"] == "NoSuchCORSConfiguration"


def test_object_tags_rsgw_sets_are_radosgws_own(both):
    """Put/Get/DeleteObjectTagging through rsgw (`tags/ours`) and radosgw
    (`tags/theirs`): after each change the same `user.rgw.x-amz-tagging`
    bytes on both heads, the same tags and tag count through both
    gateways, rsgw's entry as its PUT left it, the index consistent;
    removing tags from an object without any changes nothing."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    ours.put_object(Bucket=bucket, Key="tags/ours", Body=b"t", Tagging="first=1")
    rgw.put_object(Bucket=bucket, Key="tags/theirs", Body=b"t", Tagging="first=1")
    keys = ("tags/ours", "tags/theirs")
    fields = ("category", "size", "etag", "owner", "owner_display_name", "content_type", "accounted_size")
    entry = lambda: {k: v for k, v in
                     {e["idx"]: e["entry"]["meta"] for e in admin("bi", "list", "--bucket", bucket)}["tags/ours"].items()
                     if k in fields}
    put = entry()
    for change in ({"TagSet": [{"Key": "b", "Value": "two"}, {"Key": "a", "Value": ""}]}, None, None):
        for key, c in zip(keys, (ours, rgw)):
            if change:
                c.put_object_tagging(Bucket=bucket, Key=key, Tagging=change)
            else:
                c.delete_object_tagging(Bucket=bucket, Key=key)
        a, b = (xattrs(head_oid(marker, k)) for k in keys)
        assert a.get("user.rgw.x-amz-tagging") == b.get("user.rgw.x-amz-tagging"), change
        assert ("user.rgw.x-amz-tagging" in a) == bool(change)
        for c in (rgw, ours):
            got = [sorted((t["Key"], t["Value"]) for t in c.get_object_tagging(Bucket=bucket, Key=k)["TagSet"])
                   for k in keys]
            assert got[0] == got[1] == sorted((t["Key"], t["Value"]) for t in (change or {}).get("TagSet", []))
            counts = [c.get_object(Bucket=bucket, Key=k).get("TagCount") for k in keys]
            assert counts[0] == counts[1], (change, counts)
        # the entry as the PUT left it (radosgw 16.2 blanks its ETag and
        # owner, which its listings still answer from elsewhere)
        assert entry() == put, change
        consistent(bucket)
    for key in keys:
        ours.delete_object(Bucket=bucket, Key=key)


def test_head_bucket_counts_as_radosgw_counts(both):
    """HeadBucket's X-RGW-Object-Count and X-RGW-Bytes-Used through rsgw
    and radosgw, on a bucket of 11 shards: equal after objects are put
    through both, with an upload in progress (its parts counted, its meta
    object not), and once it is aborted and the objects removed."""
    rgw, ours = both["radosgw"], both["rsgw"]
    bucket = f"hb-{uuid.uuid4().hex[:6]}"
    rgw.create_bucket(Bucket=bucket)

    def counts():
        views = []
        for c in (rgw, ours):
            h = c.head_bucket(Bucket=bucket)["ResponseMetadata"]["HTTPHeaders"]
            views.append((int(h["x-rgw-object-count"]), int(h["x-rgw-bytes-used"])))
        assert views[0] == views[1], views
        return views[0]
    try:
        assert counts() == (0, 0)
        for i, c in enumerate((ours, rgw, ours)):
            c.put_object(Bucket=bucket, Key=f"o{i}", Body=b"x" * (1000 * (i + 1)))
        assert counts() == (3, 6000)
        upload_id = ours.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
        ours.upload_part(Bucket=bucket, Key="mp", UploadId=upload_id, PartNumber=1, Body=b"p" * 777)
        assert counts() == (4, 6777)
        ours.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=upload_id)
        for i in range(3):
            ours.delete_object(Bucket=bucket, Key=f"o{i}")
        assert counts() == (0, 0)
    finally:
        rgw.delete_bucket(Bucket=bucket)


def bucket_tags(both, buckets, instance):
    """The tags part of the test above: tags put through rsgw
    (`buckets[0]`) and radosgw (`buckets[1]`) stored alike and read alike
    through both gateways, then removed."""
    rgw, ours = both["radosgw"], both["rsgw"]
    mine, theirs = buckets
    for tags in ([{"Key": "team", "Value": "web"}, {"Key": "cost", "Value": "a b"}], None):
        before = {b: instance(b)[0] for b in buckets}
        for b, c in ((mine, ours), (theirs, rgw)):
            if tags:
                c.put_bucket_tagging(Bucket=b, Tagging={"TagSet": tags})
            else:
                c.delete_bucket_tagging(Bucket=b)
        assert {b: instance(b)[0] for b in buckets} == {b: v + 1 for b, v in before.items()}
        stored = []
        for b in buckets:
            _, bid = bucket_ids(b)
            r = subprocess.run(["rados", "-p", "default.rgw.meta", "-N", "root", "getxattr", f".bucket.meta.{b}:{bid}",
                                "user.rgw.x-amz-tagging"], capture_output=True, timeout=60)
            stored.append(r.stdout if r.returncode == 0 else None)
        assert stored[0] == stored[1] and (stored[0] is not None) == bool(tags), stored
        for c in (rgw, ours):
            for b in buckets:
                if tags:
                    got = c.get_bucket_tagging(Bucket=b)["TagSet"]
                    assert sorted(got, key=lambda t: t["Key"]) == sorted(tags, key=lambda t: t["Key"])
                else:
                    with pytest.raises(ClientError) as e:
                        c.get_bucket_tagging(Bucket=b)
                    assert e.value.response["Error"]["Code"] == "NoSuchTagSet"


def test_replaced_tails_wait_in_radosgws_collector(both):
    """An object of three stripes put through rsgw, then overwritten
    through rsgw: its two tail stripes stay while a read begun before could
    still need them, queued in radosgw's garbage collector under the old
    head's tail tag (`radosgw-admin gc list` decodes rsgw's entry); radosgw's
    `gc process` releases them, and the entry is gone."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    before = shadows(marker)
    ours.put_object(Bucket=bucket, Key="gcq", Body=os.urandom(9 << 20))
    tails = shadows(marker) - before
    assert len(tails) == 2, tails
    tag = xattrs(head_oid(marker, "gcq"))["user.rgw.tail_tag"].decode()
    ours.put_object(Bucket=bucket, Key="gcq", Body=b"small now")
    assert shadows(marker) - before == tails
    assert rgw.get_object(Bucket=bucket, Key="gcq")["Body"].read() == b"small now"
    queued = [e for e in admin("gc", "list", "--include-all") if e["tag"] == tag]
    assert len(queued) == 1, [e["tag"] for e in admin("gc", "list", "--include-all")]
    assert {o["oid"] for o in queued[0]["objs"]} == tails
    assert {o["pool"] for o in queued[0]["objs"]} == {data_pool()}
    collect_garbage()
    assert shadows(marker) - before == set()
    assert not [e for e in admin("gc", "list", "--include-all") if e["tag"] == tag]
    ours.delete_object(Bucket=bucket, Key="gcq")
    consistent(bucket)


def test_conditional_puts_as_radosgw_answers_them(both):
    """PutObject with `If-None-Match: *` and `If-Match` through rsgw and
    radosgw, each on a key of its own: a new key taken, an existing one
    refused with 412, the right ETag taken by rsgw (S3's answer; radosgw
    16.2 refuses it), another refused; a refused put of 9 MiB leaves the
    object as it was and no stripe behind."""
    bucket, rgw, ours = both["bucket"], both["radosgw"], both["rsgw"]
    marker, _ = bucket_ids(bucket)
    answers = {}
    for name, c in (("ours", ours), ("theirs", rgw)):
        key = f"cond/{name}"

        def put(body=b"v", **kw):
            try:
                c.put_object(Bucket=bucket, Key=key, Body=body, **kw)
                return 200
            except ClientError as e:
                return e.response["ResponseMetadata"]["HTTPStatusCode"]
        got = [put(IfNoneMatch="*"), put(IfNoneMatch="*")]
        etag = c.head_object(Bucket=bucket, Key=key)["ETag"]
        got += [put(IfMatch=etag), put(IfMatch='"' + "0" * 32 + '"')]
        before = shadows(marker)
        got.append(put(body=os.urandom(9 << 20), IfNoneMatch="*"))
        assert shadows(marker) == before
        assert rgw.get_object(Bucket=bucket, Key=key)["Body"].read() == b"v"
        answers[name] = got
    # S3's answers; radosgw 16.2 compares If-Match's quoted ETag with the
    # bare one it stores, and refuses the right ETag too
    assert answers["ours"] == [200, 412, 200, 412, 412], answers
    assert answers["theirs"] == [200, 412, 412, 412, 412], answers
    for name in answers:
        ours.delete_object(Bucket=bucket, Key=f"cond/{name}")
    consistent(bucket)
