"""rsgw serving radosgw's layout (`[store] layout = "radosgw"`, issue 31's
first part), beside the radosgw of the same cluster: buckets, users and
objects radosgw wrote through S3 are served by rsgw to the same clients
with the same keys, and every answer is compared with radosgw's own for
the same request:
- listings (v1 and v2, prefixes, delimiters, pages), ListBuckets;
- objects of 0 B to 5 MiB and multipart with uneven parts, a key whose
  RADOS head is placed by a locator, unicode keys: bytes, ETag, length,
  stored headers and metadata, ranges, conditional GETs;
- anonymous reads as the objects' ACLs and the bucket policy allow them,
  CORS preflights as the bucket's rules answer them, a static website as
  radosgw's website configuration makes it (index and error documents,
  routing rules);
- coherence: radosgw's bucket and user records are cached by rsgw (a
  repeated request reads none of them again) and dropped as radosgw
  announces their changes: a bucket made private, a key removed or added
  through radosgw is answered as radosgw answers it from the next request;
- least privilege: a cephx key that may only read the zone's pools (and
  watch its control objects) serves all of the above; without the watch
  rsgw refuses to start, naming what the key lacks;
- what rsgw does not serve: every write but PutObject, CopyObject,
  DeleteObject(s), PutObjectAcl, Put/DeleteObjectTagging, PutBucketAcl,
  Put/DeleteBucketPolicy, Put/DeleteBucketCors, Put/DeleteBucketTagging and
  multipart uploads (test_radosgw_writes.py) answered
  `501 NotImplemented` (nothing written:
  radosgw still reads the same objects, and rsgw's own layout's pools were
  not made), a versioned bucket refused with an error naming why.
"""
import json
import os
import subprocess
import urllib.error
import urllib.parse
import urllib.request
import uuid

import boto3
import botocore.config
import pytest
from botocore import UNSIGNED
from botocore.exceptions import ClientError

from helpers import raw_request
from rsgw_gateway import Gateway
from sigv4 import signed_headers
from targets import configs, targets

pytestmark = pytest.mark.concurrent


def client(url, key=None, secret=None):
    cfg = {"s3": {"addressing_style": "path"}, "retries": {"max_attempts": 1, "mode": "standard"}}
    if key is None:
        cfg["signature_version"] = UNSIGNED
    return boto3.client("s3", endpoint_url=url, aws_access_key_id=key or "x", aws_secret_access_key=secret or "x",
                        region_name="us-east-1", config=botocore.config.Config(**cfg))


def admin(*args):
    r = subprocess.run(["radosgw-admin", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return json.loads(r.stdout) if r.stdout.strip() else None


def pools():
    r = subprocess.run(["ceph", "osd", "pool", "ls"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


SITE = {"index.html": b"<h1>home</h1>", "error.html": b"<h1>lost</h1>", "sub/index.html": b"<h1>sub</h1>",
        "documents/a.html": b"<h1>a</h1>"}
WEBSITE = {"IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"},
           "RoutingRules": [{"Condition": {"KeyPrefixEquals": "docs/"},
                             "Redirect": {"ReplaceKeyPrefixWith": "documents/"}},
                            {"Condition": {"KeyPrefixEquals": "old/"},
                             "Redirect": {"HostName": "elsewhere.example", "Protocol": "https",
                                          "HttpRedirectCode": "302", "ReplaceKeyWith": "new.html"}}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """radosgw's S3 clients and rsgw's on the same data: {"radosgw": ...,
    "rsgw": ..., "anon": {name: unsigned client}, the buckets' names and
    the objects' bodies}."""
    if "rsgw-rados" not in configs():
        pytest.skip("no cluster in this run (tests/run.sh RSGW -)")
    url = targets().get("radosgw")
    if not url:
        pytest.skip("no radosgw in this run (RSGW_TEST_RADOSGW=no)")
    tag = uuid.uuid4().hex[:8]
    uid, key, secret = f"layout-{tag}", f"AKLAYOUT{tag.upper()}", f"layout-secret-{tag}"
    admin("user", "create", "--uid", uid, "--display-name", "Served Twice", "--access-key", key,
          "--secret", secret)
    rgw = client(url, key, secret)
    names = {"objects": f"lay-{tag}", "policy": f"laypol-{tag}", "versioned": f"layver-{tag}",
             "site": f"laysite-{tag}"}
    bodies = {}

    def put(key_, body, **kw):
        rgw.put_object(Bucket=names["objects"], Key=key_, Body=body, **kw)
        bodies[key_] = body
    rgw.create_bucket(Bucket=names["objects"])
    put("zero", b"")
    put("one-kib", os.urandom(1024), ContentType="text/plain", CacheControl="max-age=60",
        ContentDisposition="inline", Metadata={"colour": "blue", "size": "small"})
    put("five-mib", os.urandom(5 << 20))
    put("_under", b"placed by a locator")
    put("dir/a", b"a")
    put("dir/b", b"b")
    put("dir/sub/c", b"c")
    put("ünï/cödé ✓", b"unicode")
    put("public", b"for everyone", ACL="public-read")
    up = rgw.create_multipart_upload(Bucket=names["objects"], Key="multipart")["UploadId"]
    parts, whole = [], b""
    for n, size in enumerate([5 << 20, (5 << 20) + 7, 1234], 1):
        body = os.urandom(size)
        r = rgw.upload_part(Bucket=names["objects"], Key="multipart", UploadId=up, PartNumber=n, Body=body)
        parts.append({"ETag": r["ETag"], "PartNumber": n})
        whole += body
    rgw.complete_multipart_upload(Bucket=names["objects"], Key="multipart", UploadId=up,
                                  MultipartUpload={"Parts": parts})
    bodies["multipart"] = whole
    pol = names["policy"]
    rgw.create_bucket(Bucket=pol)
    for k in ("pub/x", "priv/y"):
        rgw.put_object(Bucket=pol, Key=k, Body=k.encode())
    rgw.put_bucket_policy(Bucket=pol, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{pol}/pub/*"}]}))
    rgw.put_bucket_cors(Bucket=pol, CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": ["https://site.example"], "AllowedMethods": ["GET", "HEAD"],
         "AllowedHeaders": ["x-custom"], "ExposeHeaders": ["ETag"], "MaxAgeSeconds": 300}]})
    site = names["site"]
    rgw.create_bucket(Bucket=site, ACL="public-read")
    for k, body in SITE.items():
        rgw.put_object(Bucket=site, Key=k, Body=body, ContentType="text/html", ACL="public-read")
    rgw.put_bucket_website(Bucket=site, WebsiteConfiguration=WEBSITE)
    rgw.create_bucket(Bucket=names["versioned"])
    rgw.put_bucket_versioning(Bucket=names["versioned"], VersioningConfiguration={"Status": "Enabled"})
    rgw.put_object(Bucket=names["versioned"], Key="k", Body=b"v1")
    gw = Gateway(tmp_path_factory.mktemp("radosgw-layout"), "rsgw-radosgw", base=configs()["rsgw-rados"],
                 sections='[store]\nlayout = "radosgw"\n').start()
    try:
        yield {"radosgw": rgw, "rsgw": client(gw.url, key, secret), "anon": {"radosgw": client(url),
               "rsgw": client(gw.url)}, "urls": {"radosgw": url, "rsgw": gw.url}, "names": names,
               "bodies": bodies, "gateway": gw, "key": (key, secret), "uid": uid}
    finally:
        gw.stop()
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", uid, "--purge-data"], capture_output=True,
                       timeout=300)


def both(served, call, anonymous=False):
    """(radosgw's answer, rsgw's) to `call(client)`: a response, or the
    error's (HTTP status, S3 code)."""
    out = []
    for name in ("radosgw", "rsgw"):
        c = served["anon"][name] if anonymous else served[name]
        try:
            out.append(call(c))
        except ClientError as e:
            out.append((e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Code"]))
    return out


def listing(r):
    return {"contents": [(o["Key"], o["Size"], o["ETag"], o["LastModified"]) for o in r.get("Contents", [])],
            "prefixes": [p["Prefix"] for p in r.get("CommonPrefixes", [])],
            "truncated": r["IsTruncated"]}


@pytest.mark.parametrize("args", [{}, {"Prefix": "dir/"}, {"Delimiter": "/"}, {"Prefix": "dir/", "Delimiter": "/"},
                                  {"Prefix": "_"}, {"StartAfter": "dir/b"}, {"Prefix": "nothing"}],
                         ids=["all", "prefix", "delimiter", "prefix-delimiter", "underscore", "start-after", "none"])
def test_listings_are_radosgws(served, args):
    bucket = served["names"]["objects"]
    rgw, ours = both(served, lambda c: listing(c.list_objects_v2(Bucket=bucket, **args)))
    assert ours == rgw
    if not args:
        keys = [k for k, *_ in rgw["contents"]]
        assert set(keys) == set(served["bodies"]), keys


def test_pages_are_radosgws(served):
    """Pages of 2 (v2 with continuation tokens, v1 with markers, with and
    without a delimiter) list what radosgw's pages list."""
    bucket = served["names"]["objects"]

    def pages(c, **kw):
        out = []
        for page in c.get_paginator("list_objects_v2").paginate(Bucket=bucket, PaginationConfig={"PageSize": 2},
                                                                 **kw):
            out.append(listing(page))
        for page in c.get_paginator("list_objects").paginate(Bucket=bucket, PaginationConfig={"PageSize": 2},
                                                             **kw):
            out.append(listing(page))
        return out
    for kw in ({}, {"Delimiter": "/"}):
        rgw, ours = both(served, lambda c: pages(c, **kw))
        assert ours == rgw and len(rgw) > 4, kw


def test_list_buckets_is_radosgws(served):
    rgw, ours = both(served, lambda c: [(b["Name"], b["CreationDate"]) for b in c.list_buckets()["Buckets"]])
    assert ours == rgw and len(rgw) == len(served["names"])


def head_view(r):
    return {k: r.get(k) for k in ("ContentLength", "ETag", "ContentType", "Metadata", "CacheControl",
                                  "ContentDisposition", "LastModified")}


def test_objects_are_radosgws(served):
    """Every object: its bytes, and what GET and HEAD say of it."""
    bucket = served["names"]["objects"]
    for key, body in served["bodies"].items():
        rgw, ours = both(served, lambda c: c.get_object(Bucket=bucket, Key=key))
        assert ours["Body"].read() == rgw["Body"].read() == body, key
        assert head_view(ours) == head_view(rgw), key
        rgw, ours = both(served, lambda c: head_view(c.head_object(Bucket=bucket, Key=key)))
        assert ours == rgw, key
    rgw, ours = both(served, lambda c: c.get_object(Bucket=bucket, Key="no-such-key"))
    assert ours == rgw == (404, "NoSuchKey")


@pytest.mark.parametrize("key,rng", [("five-mib", "bytes=0-0"), ("five-mib", "bytes=4194300-4194400"),
                                     ("five-mib", "bytes=-100"), ("multipart", "bytes=5242870-10485790"),
                                     ("multipart", "bytes=10485700-"), ("one-kib", "bytes=2000-3000")])
def test_ranges_are_radosgws(served, key, rng):
    bucket = served["names"]["objects"]

    def get(c):
        r = c.get_object(Bucket=bucket, Key=key, Range=rng)
        return r["ResponseMetadata"]["HTTPStatusCode"], r["ContentRange"], r["Body"].read()
    rgw, ours = both(served, get)
    assert ours == rgw, (key, rng)


def test_conditional_gets_are_radosgws(served):
    bucket = served["names"]["objects"]
    etag = served["radosgw"].head_object(Bucket=bucket, Key="one-kib")["ETag"]
    for kw in ({"IfNoneMatch": etag}, {"IfMatch": '"0000"'}, {"IfMatch": etag},
               {"IfModifiedSince": "2100-01-01T00:00:00Z"}):
        def get(c):
            r = c.get_object(Bucket=bucket, Key="one-kib", **kw)
            return r["ResponseMetadata"]["HTTPStatusCode"]
        rgw, ours = both(served, get)
        assert ours == rgw, kw


def test_anonymous_reads_follow_acls_and_policies(served):
    """ACLs and the bucket policy radosgw stored decide for rsgw as for
    radosgw: a public-read object and objects under the policy's prefix
    are read, the rest and the private buckets' listings are refused."""
    objects, pol = served["names"]["objects"], served["names"]["policy"]
    for bucket, key, status in [(objects, "public", 200), (objects, "one-kib", 403), (pol, "pub/x", 200),
                                (pol, "priv/y", 403)]:
        def get(c):
            return c.get_object(Bucket=bucket, Key=key)["ResponseMetadata"]["HTTPStatusCode"]
        rgw, ours = both(served, get, anonymous=True)
        assert ours == rgw, (bucket, key, rgw, ours)
        assert (rgw if isinstance(rgw, int) else rgw[0]) == status, (bucket, key, rgw)
    rgw, ours = both(served, lambda c: c.list_objects_v2(Bucket=objects), anonymous=True)
    assert ours == rgw == (403, "AccessDenied")
    rgw, ours = both(served, lambda c: c.get_bucket_policy(Bucket=pol)["Policy"])
    assert json.loads(ours) == json.loads(rgw)


def test_cors_preflights_are_radosgws(served):
    pol = served["names"]["policy"]
    answers = []
    for name in ("radosgw", "rsgw"):
        req = urllib.request.Request(f"{served['urls'][name]}/{pol}/pub/x", method="OPTIONS", headers={
            "Origin": "https://site.example", "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "x-custom"})
        with urllib.request.urlopen(req, timeout=30) as r:
            answers.append((r.status, r.headers.get("Access-Control-Allow-Origin"),
                            r.headers.get("Access-Control-Max-Age")))
    assert answers[0] == answers[1] == (200, "https://site.example", "300"), answers


def test_writes_are_refused_and_nothing_is_written(served):
    """Every write but PutObject, CopyObject, DeleteObject(s), PutObjectAcl,
    Put/DeleteObjectTagging, PutBucketAcl, Put/DeleteBucketPolicy,
    Put/DeleteBucketCors, Put/DeleteBucketTagging and multipart uploads is
    `501 NotImplemented`
    naming the layout; radosgw still serves the same bytes, and rsgw made
    no pool."""
    bucket = served["names"]["objects"]
    ours = served["rsgw"]
    for call in (lambda: ours.put_bucket_website(Bucket=bucket,
                                                 WebsiteConfiguration={"IndexDocument": {"Suffix": "i.html"}}),
                 lambda: ours.delete_bucket_website(Bucket=bucket),
                 lambda: ours.create_bucket(Bucket=f"new-{uuid.uuid4().hex[:6]}"),
                 lambda: ours.delete_bucket_lifecycle(Bucket=bucket),
                 lambda: ours.put_bucket_versioning(Bucket=bucket,
                                                    VersioningConfiguration={"Status": "Enabled"}),
                 lambda: ours.put_object_legal_hold(Bucket=bucket, Key="one-kib", LegalHold={"Status": "ON"})):
        with pytest.raises(ClientError) as e:
            call()
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501, e.value.response
        assert e.value.response["Error"]["Code"] == "NotImplemented"
        assert "radosgw's layout" in e.value.response["Error"]["Message"]
    body = served["radosgw"].get_object(Bucket=bucket, Key="one-kib")["Body"].read()
    assert body == served["bodies"]["one-kib"]
    # what rsgw's own layout would have made with the zone's whole pool
    # names (other tests make pools of their own meanwhile)
    assert not {"meta", "index", "data"} & pools()
    # radosgw's Admin Ops API is radosgw's to serve
    url = served["gateway"].url
    headers = signed_headers(url, "GET", "/admin/user?uid=x", key=served["key"][0], secret=served["key"][1])
    req = urllib.request.Request(f"{url}/admin/user?uid=x", headers=headers)
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == 501 and b"Admin Ops API" in e.value.read()


def test_a_versioned_bucket_is_refused_clearly(served):
    bucket = served["names"]["versioned"]
    for call in (lambda c: c.list_objects_v2(Bucket=bucket), lambda c: c.get_object(Bucket=bucket, Key="k")):
        with pytest.raises(ClientError) as e:
            call(served["rsgw"])
        assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 501, e.value.response
        assert "versioned" in e.value.response["Error"]["Message"]


def test_radosgws_changes_reach_rsgws_cache_by_the_next_request(served):
    """rsgw keeps radosgw's bucket and key records in memory and drops
    each as radosgw (or radosgw-admin) announces its change on the zone's
    control objects, before radosgw answers the change: a bucket made
    private and a key removed are refused by rsgw's next request, a key
    added is accepted by it, each as radosgw answers."""
    gw, uid = served["gateway"], served["uid"]
    rgw, anon = served["radosgw"], served["anon"]["rsgw"]
    assert gw.metric("rsgw_metadata_watch_up") == 1
    tag = uuid.uuid4().hex[:8]
    bucket = f"laycoh-{tag}"
    rgw.create_bucket(Bucket=bucket, ACL="public-read")
    rgw.put_object(Bucket=bucket, Key="k", Body=b"coherent", ACL="public-read")
    try:
        anon.list_objects_v2(Bucket=bucket)
        misses, hits = gw.metric("rsgw_radosgw_records_misses_total"), gw.metric("rsgw_radosgw_records_hits_total")
        for _ in range(3):
            anon.list_objects_v2(Bucket=bucket)
            assert anon.get_object(Bucket=bucket, Key="k")["Body"].read() == b"coherent"
        assert gw.metric("rsgw_radosgw_records_misses_total") == misses, "a cached record read again"
        # each request: the bucket's entry point and instance
        assert gw.metric("rsgw_radosgw_records_hits_total") >= hits + 12
        notices = gw.metric("rsgw_radosgw_records_notices_total")
        rgw.put_bucket_acl(Bucket=bucket, ACL="private")
        rgw_answer, ours = both(served, lambda c: c.list_objects_v2(Bucket=bucket), anonymous=True)
        assert ours == rgw_answer == (403, "AccessDenied")
        assert gw.metric("rsgw_radosgw_records_notices_total") > notices
        # the object's own ACL still lets everyone read it, on both
        rgw_answer, ours = both(served, lambda c: c.get_object(Bucket=bucket, Key="k")["Body"].read(),
                                anonymous=True)
        assert ours == rgw_answer == b"coherent"

        key2, secret2 = f"AKCOH{tag.upper()}", f"coh-secret-{tag}"
        clients = {name: client(served["urls"][name], key2, secret2) for name in ("radosgw", "rsgw")}

        def listed(name):
            try:
                return [o["Key"] for o in clients[name].list_objects_v2(Bucket=bucket).get("Contents", [])]
            except ClientError as e:
                return e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Code"]
        # unknown, then added: rsgw caches no absence
        assert listed("rsgw") == listed("radosgw") == (403, "InvalidAccessKeyId")
        admin("key", "create", "--uid", uid, "--access-key", key2, "--secret", secret2)
        assert listed("rsgw") == listed("radosgw") == ["k"]
        assert listed("rsgw") == ["k"]
        admin("key", "rm", "--uid", uid, "--access-key", key2)
        assert listed("rsgw") == listed("radosgw") == (403, "InvalidAccessKeyId")
    finally:
        rgw.delete_object(Bucket=bucket, Key="k")
        rgw.delete_bucket(Bucket=bucket)


def test_websites_are_radosgws(served):
    """radosgw's website configuration, served by rsgw's website endpoint
    (`<bucket>.web.test`) as by radosgw's: index documents, the error
    document with its status, and routing rules' redirects."""
    site = served["names"]["site"]
    rgw, ours = both(served, lambda c: {k: v for k, v in c.get_bucket_website(Bucket=site).items()
                                        if k != "ResponseMetadata"})
    assert ours == rgw == WEBSITE
    for path in ("/", "/sub/", "/documents/a.html", "/docs/a.html", "/old/page.html", "/missing.html"):
        answers = []
        for name in ("radosgw", "rsgw"):
            url = served["urls"][name]
            port = urllib.parse.urlparse(url).port
            status, headers, body = raw_request(url, "GET", path, headers={"Host": f"{site}.web.test:{port}"})
            location = headers.get("location", "").replace(f":{port}", ":PORT")
            answers.append((status, location, body if status < 300 or status >= 400 else b""))
        assert answers[0] == answers[1], (path, answers)
    assert answers[0][:1] == (404,) and answers[0][2] == SITE["error.html"], answers


def test_object_acls_are_radosgws(served):
    """GetObjectAcl: the owner and grants radosgw stored, to the owner;
    refused to an anonymous requester, as radosgw refuses it."""
    bucket = served["names"]["objects"]
    for key in ("public", "one-kib", "multipart"):
        rgw, ours = both(served, lambda c: {k: v for k, v in c.get_object_acl(Bucket=bucket, Key=key).items()
                                            if k != "ResponseMetadata"})
        assert ours == rgw, key
        assert rgw["Owner"]["ID"] == served["uid"]
    grants = both(served, lambda c: c.get_object_acl(Bucket=bucket, Key="public")["Grants"])[0]
    assert any(g["Grantee"].get("URI", "").endswith("/AllUsers") for g in grants), grants
    rgw, ours = both(served, lambda c: c.get_object_acl(Bucket=bucket, Key="public"), anonymous=True)
    assert ours == rgw == (403, "AccessDenied")
    rgw, ours = both(served, lambda c: c.get_object_acl(Bucket=bucket, Key="no-such-key"))
    assert ours == rgw == (404, "NoSuchKey")


def ceph_cli(*args):
    r = subprocess.run(["ceph", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return r.stdout


def test_a_key_that_only_reads_radosgws_pools_serves(served, tmp_path):
    """The cephx caps deploy.md gives a gateway on radosgw's layout: read on
    the zone's pools, read and write (the watch) on its control pool. rsgw
    serves radosgw's objects with them (a PUT is refused by the cluster,
    `503`); with read alone on the control pool it refuses to start and
    names what the key lacks."""
    zone = admin("zone", "get")
    pool = lambda spec: spec.split(":")[0]
    placement = zone["placement_pools"][0]["val"]
    reads = {".rgw.root", pool(zone["domain_root"]), pool(zone["user_keys_pool"]), pool(placement["index_pool"]),
             pool(placement["storage_classes"]["STANDARD"]["data_pool"])}
    control = pool(zone["control_pool"])
    entity = f"client.layro-{uuid.uuid4().hex[:8]}"
    keyring = tmp_path / "keyring"

    def caps(control_cap):
        osd = ", ".join([f"allow r pool={p}" for p in sorted(reads)] + [f"allow {control_cap} pool={control}"])
        return ["mon", "allow r", "osd", osd]
    ceph_cli("auth", "get-or-create", entity, *caps("rw"), "-o", str(keyring))
    sections = f'[store]\nlayout = "radosgw"\nclient_name = "{entity}"\nkeyring = "{keyring}"\n'
    try:
        gw = Gateway(tmp_path / "ro", "rsgw-ro", base=configs()["rsgw-rados"], sections=sections).start()
        try:
            bucket = served["names"]["objects"]
            ours = client(gw.url, *served["key"])
            assert ours.get_object(Bucket=bucket, Key="one-kib")["Body"].read() == served["bodies"]["one-kib"]
            assert [o["Key"] for o in ours.list_objects_v2(Bucket=bucket, Prefix="dir/")["Contents"]] == \
                ["dir/a", "dir/b", "dir/sub/c"]
            assert gw.metric("rsgw_metadata_watch_up") == 1
            # a write is refused by the cluster (deploy.md), nothing written
            with pytest.raises(ClientError) as e:
                ours.put_object(Bucket=bucket, Key="by-a-reader", Body=b"x")
            assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503, e.value.response
            with pytest.raises(ClientError) as e:
                served["radosgw"].head_object(Bucket=bucket, Key="by-a-reader")
            assert e.value.response["Error"]["Code"] == "404"
        finally:
            gw.stop()
        ceph_cli("auth", "caps", entity, *caps("r"))
        gw = Gateway(tmp_path / "ro2", "rsgw-ro2", base=configs()["rsgw-rados"], sections=sections).start(wait=False)
        assert gw.wait_exit(timeout=60) != 0
        assert "needs 'allow rw' on that pool" in gw.log_text(), gw.log_text()[-2000:]
    finally:
        ceph_cli("auth", "del", entity)
