"""radosgw's records as rsgw decodes them (crates/rsgw-radosgw, the
radosgw layout's first parts, issue 31), against radosgw-admin on the same
records:
- users made with radosgw-admin 16.2 (several S3 keys, subusers with Swift
  keys, caps, quotas, a tenant, unicode names, suspended, system and admin
  users): their `users.uid` objects saved with `rados get` and printed by
  `rsgw decode user` must give exactly `radosgw-admin user info`'s JSON;
  the `users.keys`, `users.email` and `users.swift` links must name the
  user (radosgw-admin writes these; radosgw need not run);
- buckets made through radosgw's S3 API (objects of 0 B to 40 MiB,
  multipart with uneven parts, unicode keys, a website with routing rules,
  a redirect-all website, object lock, versioning suspended, a tenant's
  bucket, a resharded bucket whose instance is no longer its marker): the
  entry point and instance must print as `metadata get`'s, every plain
  index entry as `bi list`'s, and the shard headers must give `bucket
  stats`' versions and usage (these skip without radosgw in the run).
Bad bytes are a clear error, never a panic."""
import json
import os
import subprocess
import time
import uuid

import boto3
import botocore.config
import pytest

from targets import configs, targets

pytestmark = pytest.mark.concurrent

RSGW = os.environ.get("RSGW_BIN", "rsgw")
META = "default.rgw.meta"
INDEX = "default.rgw.buckets.index"
DATA = "default.rgw.buckets.data"


@pytest.fixture(scope="module")
def cluster():
    if "rsgw-rados" not in configs():
        pytest.skip("no cluster in this run (tests/run.sh RSGW -)")


def admin(*args):
    # bi list prints versioned entries' index keys with their raw 0x80 byte
    r = subprocess.run(["radosgw-admin", *args], capture_output=True, text=True, errors="surrogateescape",
                       timeout=120)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return json.loads(r.stdout) if r.stdout.strip() else None


def saved(tmp_path, ns, oid):
    path = tmp_path / f"{ns}-{uuid.uuid4().hex[:8]}"
    r = subprocess.run(["rados", "-p", META, "-N", ns, "get", oid, str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (ns, oid, r.stderr)
    return path


def rados_index(tmp_path, *args):
    """`rados -p <index pool> ARGS... FILE`: an omap value or header saved."""
    path = tmp_path / f"index-{uuid.uuid4().hex[:8]}"
    r = subprocess.run(["rados", "-p", INDEX, *args, str(path)], capture_output=True, timeout=60)
    assert r.returncode == 0, (args, r.stderr)
    return path


def decode(record, *paths):
    r = subprocess.run([RSGW, "decode", record, *map(str, paths)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def users(cluster):
    """uid (as radosgw-admin's --uid takes it, with --tenant apart) -> made users."""
    tag = uuid.uuid4().hex[:8]
    made = []

    def user(uid, *args, tenant=None):
        t = ["--tenant", tenant] if tenant else []
        admin("user", "create", "--uid", uid, *t, *args)
        made.append((uid, t))
        return uid, t

    full = user(f"full-{tag}", "--display-name", "Zoë Ünïcode 名前", "--email", f"full-{tag}@example.com",
                "--access-key", f"AKFULL{tag.upper()}01", "--secret", f"secret-one-{tag}",
                "--max-buckets", "7", "--caps", "users=*;buckets=read;usage=write")
    for n in (2, 3):
        admin("key", "create", "--uid", full[0], "--key-type", "s3",
              "--access-key", f"AKFULL{tag.upper()}0{n}", "--secret", f"secret-{n}-{tag}")
    admin("subuser", "create", "--uid", full[0], "--subuser", f"{full[0]}:swift", "--access", "full",
          "--key-type", "swift", "--secret", f"swift-secret-{tag}")
    admin("subuser", "create", "--uid", full[0], "--subuser", f"{full[0]}:reader", "--access", "read")
    admin("user", "modify", "--uid", full[0], "--op-mask", "read, write", "--temp-url-key", f"tu-{tag}")
    admin("quota", "set", "--quota-scope", "bucket", "--uid", full[0], "--max-objects", "100",
          "--max-size", "1073741824")
    admin("quota", "enable", "--quota-scope", "bucket", "--uid", full[0])
    admin("quota", "set", "--quota-scope", "user", "--uid", full[0], "--max-size", "12345")
    admin("user", "suspend", "--uid", full[0])
    plain = user(f"plain-{tag}", "--display-name", "Plain")
    tenant = user(f"tenanted-{tag}", "--display-name", "In a tenant", "--access-key", f"AKTEN{tag.upper()}",
                  "--secret", f"tenant-secret-{tag}", tenant=f"tn{tag}")
    system = user(f"system-{tag}", "--display-name", "System", "--system", "--admin")
    yield {"full": full, "plain": plain, "tenant": tenant, "system": system}
    for uid, t in made:
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", uid, *t, "--purge-keys"],
                       capture_output=True, timeout=120)


@pytest.mark.parametrize("which", ["full", "plain", "tenant", "system"])
def test_a_user_decodes_to_radosgw_admins_json(users, tmp_path, which):
    uid, tenant = users[which]
    want = admin("user", "info", "--uid", uid, *tenant)
    oid = f"{tenant[1]}${uid}" if tenant else uid
    got = decode("user", saved(tmp_path, "users.uid", oid))
    assert got == want


def test_links_name_their_user(users, tmp_path):
    uid, _ = users["full"]
    info = admin("user", "info", "--uid", uid)
    # the reader subuser got a Swift key of its own (subuser create makes one)
    assert len(info["keys"]) == 3 and len(info["swift_keys"]) == 2, info
    for key in info["keys"]:
        assert decode("link", saved(tmp_path, "users.keys", key["access_key"])) == {"user_id": uid}
    for key in info["swift_keys"]:
        assert decode("link", saved(tmp_path, "users.swift", key["user"])) == {"user_id": uid}
    assert decode("link", saved(tmp_path, "users.email", info["email"])) == {"user_id": uid}
    tuid, tenant = users["tenant"]
    akey = admin("user", "info", "--uid", tuid, *tenant)["keys"][0]["access_key"]
    assert decode("link", saved(tmp_path, "users.keys", akey)) == {"user_id": f"{tenant[1]}${tuid}"}


def test_bad_bytes_are_a_clear_error(users, tmp_path):
    whole = saved(tmp_path, "users.uid", users["full"][0]).read_bytes()
    cases = {
        "cut": whole[: len(whole) // 2],
        "longer": whole + b"\0",
        "empty": b"",
        "garbage": b"\xff" * 64,
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        r = subprocess.run([RSGW, "decode", "user", str(path)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and r.stdout == "", (name, r)
        assert r.stderr.startswith("rsgw: ") and "panicked" not in r.stderr, (name, r.stderr)
    r = subprocess.run([RSGW, "decode", "user", str(tmp_path / "longer")], capture_output=True, text=True)
    assert "1 bytes after the record's end" in r.stderr, r.stderr


@pytest.fixture(scope="module")
def buckets(cluster):
    """name -> (metadata key, rados name of the entry point) of buckets
    radosgw made, of every kind the decoders read."""
    url = targets().get("radosgw")
    if not url:
        pytest.skip("no radosgw in this run (RSGW_TEST_RADOSGW=no)")
    tag = uuid.uuid4().hex[:8]
    tenant = f"tn{tag}"
    users = [(f"bk-{tag}", []), (f"bk-{tag}", ["--tenant", tenant]), (f"bkr-{tag}", [])]
    for (uid, t), n in zip(users, (1, 2, 3)):
        admin("user", "create", "--uid", uid, *t, "--display-name", "Bücket Öwner",
              "--access-key", f"AKBK{n}{tag.upper()}", "--secret", f"bk-secret-{n}-{tag}")

    def client(n):
        return boto3.client("s3", endpoint_url=url, aws_access_key_id=f"AKBK{n}{tag.upper()}",
                            aws_secret_access_key=f"bk-secret-{n}-{tag}", region_name="us-east-1",
                            config=botocore.config.Config(s3={"addressing_style": "path"},
                                                          retries={"max_attempts": 1, "mode": "standard"}))
    s3, s3t = client(1), client(2)
    made = {}
    objects = f"rec-{tag}"
    s3.create_bucket(Bucket=objects)
    bodies = {}

    def put(key, body, **kw):
        s3.put_object(Bucket=objects, Key=key, Body=body, **kw)
        bodies[key] = body
    put("zero", b"")
    put("one-kib", os.urandom(1024), ContentType="text/plain", Metadata={"colour": "blue"})
    put("five-mib", os.urandom(5 << 20))
    put("forty-mib", os.urandom(40 << 20))
    put("dir/ünïcode ✓ 名前", b"hello")
    put("_underscore", b"a key whose RADOS name doubles its _")
    put("public", b"for everyone", ACL="public-read")
    put("shared", b"for a reader")
    s3.put_object_acl(Bucket=objects, Key="shared", GrantRead=f"id=bkr-{tag}",
                      GrantFullControl=f"id=bk-{tag}")
    up = s3.create_multipart_upload(Bucket=objects, Key="multipart")["UploadId"]
    parts, whole = [], b""
    for i, n in enumerate([5 << 20, (5 << 20) + 7, 1234], 1):
        body = os.urandom(n)
        r = s3.upload_part(Bucket=objects, Key="multipart", UploadId=up, PartNumber=i, Body=body)
        parts.append({"ETag": r["ETag"], "PartNumber": i})
        whole += body
    s3.complete_multipart_upload(Bucket=objects, Key="multipart", UploadId=up,
                                 MultipartUpload={"Parts": parts})
    bodies["multipart"] = whole
    made["bodies"] = bodies
    made["client"] = s3
    # an upload left open: its parts are index entries in the multipart namespace
    open_up = s3.create_multipart_upload(Bucket=objects, Key="open")["UploadId"]
    s3.upload_part(Bucket=objects, Key="open", UploadId=open_up, PartNumber=1, Body=b"part")
    s3.put_bucket_acl(Bucket=objects, ACL="public-read")
    made["objects"] = objects
    site = f"recsite-{tag}"
    s3.create_bucket(Bucket=site)
    s3.put_bucket_website(Bucket=site, WebsiteConfiguration={
        "IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"},
        "RoutingRules": [
            {"Condition": {"KeyPrefixEquals": "old/"},
             "Redirect": {"ReplaceKeyPrefixWith": "new/", "HttpRedirectCode": "302", "Protocol": "https",
                          "HostName": "example.com"}},
            {"Condition": {"HttpErrorCodeReturnedEquals": "404"}, "Redirect": {"ReplaceKeyWith": "missing.html"}},
        ]})
    s3.put_bucket_cors(Bucket=site, CORSConfiguration={"CORSRules": [
        {"ID": "one", "AllowedOrigins": ["https://a.example", "http://*.b.example"],
         "AllowedMethods": ["GET", "HEAD", "PUT"], "AllowedHeaders": ["x-amz-*", "Content-Type"],
         "ExposeHeaders": ["ETag", "x-amz-request-id"], "MaxAgeSeconds": 600},
        {"AllowedOrigins": ["*"], "AllowedMethods": ["GET"]}]})
    s3.put_bucket_policy(Bucket=site, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Sid": "public", "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
         "Resource": f"arn:aws:s3:::{site}/*"}]}))
    made["website"] = site
    redirect = f"recredir-{tag}"
    s3.create_bucket(Bucket=redirect)
    s3.put_bucket_website(Bucket=redirect, WebsiteConfiguration={
        "RedirectAllRequestsTo": {"HostName": "elsewhere.example", "Protocol": "https"}})
    made["redirect"] = redirect
    locked = f"reclock-{tag}"
    s3.create_bucket(Bucket=locked, ObjectLockEnabledForBucket=True)
    s3.put_object_lock_configuration(Bucket=locked, ObjectLockConfiguration={
        "ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": {"Mode": "GOVERNANCE", "Days": 2}}})
    made["locked"] = locked
    versioned = f"recvers-{tag}"
    s3.create_bucket(Bucket=versioned)
    s3.put_bucket_versioning(Bucket=versioned, VersioningConfiguration={"Status": "Enabled"})
    for body in (b"one", b"two"):
        s3.put_object(Bucket=versioned, Key="k", Body=body)
    s3.delete_object(Bucket=versioned, Key="k")
    s3.put_bucket_versioning(Bucket=versioned, VersioningConfiguration={"Status": "Suspended"})
    made["versioned"] = versioned
    resharded = f"recrs-{tag}"
    s3.create_bucket(Bucket=resharded)
    for k in ("a", "b", "c/d"):
        s3.put_object(Bucket=resharded, Key=k, Body=k.encode())
    r = subprocess.run(["radosgw-admin", "bucket", "reshard", "--bucket", resharded, "--num-shards", "13"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "completed successfully" in r.stderr, r
    made["resharded"] = resharded
    tenants = f"rectn-{tag}"
    s3t.create_bucket(Bucket=tenants)
    s3t.put_object(Bucket=tenants, Key="x", Body=b"in a tenant")
    made["tenant"] = f"{tenant}/{tenants}"
    made["tenant_client"] = s3t
    made["keys"] = {"objects": f"AKBK1{tag.upper()}", "tenant": f"AKBK2{tag.upper()}"}
    made["uids"] = {"objects": f"bk-{tag}", "tenant": f"{tenant}$bk-{tag}"}
    yield made
    for uid, t in users:
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", uid, *t, "--purge-data"],
                       capture_output=True, timeout=300)


def instance_of(bucket):
    """(bucket_id, root object of the instance) of a bucket's current instance."""
    ep = admin("metadata", "get", f"bucket:{bucket}")["data"]["bucket"]
    tenant, _, name = bucket.rpartition("/")
    prefix = f"{tenant}:" if tenant else ""
    return ep["bucket_id"], f".bucket.meta.{prefix}{name}:{ep['bucket_id']}"


KINDS = ["objects", "website", "redirect", "locked", "versioned", "resharded", "tenant"]


@pytest.mark.parametrize("kind", KINDS)
def test_bucket_records_decode_to_metadata_get(buckets, tmp_path, kind):
    bucket = buckets[kind]
    want = admin("metadata", "get", f"bucket:{bucket}")["data"]
    assert decode("bucket", saved(tmp_path, "root", bucket)) == want
    bucket_id, oid = instance_of(bucket)
    want = admin("metadata", "get", f"bucket.instance:{bucket}:{bucket_id}")["data"]["bucket_info"]
    got = decode("bucket-instance", saved(tmp_path, "root", oid))
    assert got == want
    if kind == "resharded":
        assert got["bucket"]["marker"] != got["bucket"]["bucket_id"] and got["num_shards"] == 13, got


def shard_objects(bucket):
    bucket_id, _ = instance_of(bucket)
    shards = admin("bucket", "stats", "--bucket", bucket)["num_shards"]
    if shards == 0:
        return [f".dir.{bucket_id}"]
    return [f".dir.{bucket_id}.{n}" for n in range(shards)]


@pytest.mark.parametrize("kind", ["objects", "versioned", "resharded", "tenant"])
def test_index_entries_decode_to_bi_list(buckets, tmp_path, kind):
    bucket = buckets[kind]
    listed = admin("bi", "list", "--bucket", bucket)
    # plain entries whose omap key a command line can carry: instance and
    # OLH entries' keys begin with the byte 0x80, and a versioned key's
    # plain entries per version are `name\0v<instance>`
    want = {e["idx"]: e["entry"] for e in listed if e["type"] == "plain" and "\0" not in e["idx"]}
    assert want, listed
    got = {}
    for oid in shard_objects(bucket):
        r = subprocess.run(["rados", "-p", INDEX, "listomapkeys", oid], capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
        for key in r.stdout.decode("utf-8", "surrogateescape").splitlines():
            if key in want:
                got[key] = decode("index-entry", rados_index(tmp_path, "getomapval", oid, key))
    assert got == want


@pytest.mark.parametrize("kind", ["objects", "versioned", "resharded", "tenant"])
def test_shard_headers_give_bucket_stats(buckets, tmp_path, kind):
    bucket = buckets[kind]
    headers = [rados_index(tmp_path, "getomapheader", oid) for oid in shard_objects(bucket)]
    got = decode("bucket-stats", *headers)
    stats = admin("bucket", "stats", "--bucket", bucket)
    assert got == {k: stats[k] for k in ("ver", "master_ver", "max_marker", "usage")}
    if kind == "objects":
        # the 9 objects, and the open upload's part (radosgw counts parts
        # as objects); its meta object counts apart
        assert got["usage"]["rgw.main"]["num_objects"] == 10, got
        assert got["usage"]["rgw.multimeta"]["num_objects"] == 1, got


def test_bad_bucket_records_are_a_clear_error(buckets, tmp_path):
    _, oid = instance_of(buckets["website"])
    whole = saved(tmp_path, "root", oid).read_bytes()
    for name, data in {"cut": whole[:-1], "longer": whole + b"\0", "garbage": b"\x17" * 64}.items():
        path = tmp_path / name
        path.write_bytes(data)
        for record in ("bucket", "bucket-instance", "index-entry"):
            r = subprocess.run([RSGW, "decode", record, str(path)], capture_output=True, text=True, timeout=60)
            assert r.returncode == 1 and r.stdout == "", (name, record, r)
            assert r.stderr.startswith("rsgw: ") and "panicked" not in r.stderr, (name, record, r.stderr)


def xattr(tmp_path, oid, name, locator=""):
    """An xattr of a RADOS object in the data pool, saved to a file."""
    r = subprocess.run(["rados", "-p", DATA, "--object-locator", locator, "getxattr", oid, name],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, (oid, name, r.stderr)
    path = tmp_path / f"xattr-{uuid.uuid4().hex[:8]}"
    path.write_bytes(r.stdout)
    return path


def rados_object(tmp_path, oid, locator):
    path = tmp_path / f"data-{uuid.uuid4().hex[:8]}"
    r = subprocess.run(["rados", "-p", DATA, "--object-locator", locator, "get", oid, str(path)],
                       capture_output=True, timeout=120)
    assert r.returncode == 0, (oid, r.stderr)
    return path.read_bytes()


def test_objects_read_back_byte_for_byte_through_their_manifests(buckets, tmp_path):
    """Each object's head manifest, decoded, names the RADOS objects and
    ranges that hold it: read from RADOS directly and put together, they
    are the object radosgw was given, byte for byte (head-only, striped
    past the 4 MiB head, multipart with uneven parts, empty)."""
    bucket = buckets["objects"]
    marker = admin("metadata", "get", f"bucket:{bucket}")["data"]["bucket"]["marker"]
    for key, body in buckets["bodies"].items():
        # a key beginning with _ is escaped, and placed by a locator
        head, locator = f"{marker}_{key}", ""
        if key.startswith("_"):
            head, locator = f"{marker}__{key}", f"{marker}_{key}"
        m = decode("manifest", xattr(tmp_path, head, "user.rgw.manifest", locator))
        assert m["obj_size"] == len(body) and (m["head"], m["head_locator"]) == (head, locator), (key, m)
        got, cache = b"", {}
        for s in m["stripes"]:
            if s["oid"] not in cache:
                cache[s["oid"]] = rados_object(tmp_path, s["oid"], s["locator"])
            got += cache[s["oid"]][s["loc_ofs"]:s["loc_ofs"] + s["size"]]
        assert got == body, (key, m)
        if key == "forty-mib":
            # a 4 MiB head, then 4 MiB shadow stripes
            assert len(m["stripes"]) == 10 and "__shadow_" in m["stripes"][1]["oid"], m
        if key == "multipart":
            assert m["head_size"] == 0 and "__multipart_" in m["stripes"][0]["oid"], m
            assert sum(s["size"] for s in m["stripes"]) == len(body)


def s3_view(acl):
    """A get_*_acl response as rsgw decode acl prints a policy."""
    grants = []
    for g in acl["Grants"]:
        e = g["Grantee"]
        if e["Type"] == "CanonicalUser":
            grantee = {"type": "CanonicalUser", "id": e["ID"], "display_name": e.get("DisplayName", "")}
        else:
            grantee = {"type": "Group", "uri": e["URI"]}
        grants.append({"grantee": grantee, "permission": g["Permission"]})
    key = lambda g: json.dumps(g, sort_keys=True)  # noqa: E731
    return {"owner": {"id": acl["Owner"]["ID"], "display_name": acl["Owner"]["DisplayName"]},
            "grants": sorted(grants, key=key)}


def test_acls_decode_to_what_radosgw_serves(buckets, tmp_path):
    """The user.rgw.acl xattrs of object heads and of the bucket instance,
    decoded, hold what radosgw answers GetObjectAcl and GetBucketAcl with:
    private, public-read, and grants to users by id."""
    bucket, s3 = buckets["objects"], buckets["client"]
    marker = admin("metadata", "get", f"bucket:{bucket}")["data"]["bucket"]["marker"]
    for key in ("one-kib", "public", "shared"):
        got = decode("acl", xattr(tmp_path, f"{marker}_{key}", "user.rgw.acl"))
        got["grants"].sort(key=lambda g: json.dumps(g, sort_keys=True))
        assert got == s3_view(s3.get_object_acl(Bucket=bucket, Key=key)), key
    _, oid = instance_of(bucket)
    r = subprocess.run(["rados", "-p", META, "-N", "root", "getxattr", oid, "user.rgw.acl"],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    path = tmp_path / "bucket-acl"
    path.write_bytes(r.stdout)
    got = decode("acl", path)
    got["grants"].sort(key=lambda g: json.dumps(g, sort_keys=True))
    assert got == s3_view(s3.get_bucket_acl(Bucket=bucket))
    assert {"grantee": {"type": "Group", "uri": "http://acs.amazonaws.com/groups/global/AllUsers"},
            "permission": "READ"} in got["grants"]


def zone(*args):
    """`rsgw admin radosgw ARGS...` on the run's cluster (the rados target's config)."""
    return subprocess.run([RSGW, "admin", "-c", configs()["rsgw-rados"], "radosgw", *args],
                          capture_output=True, timeout=300)


def zone_json(*args):
    r = zone(*args)
    assert r.returncode == 0, (args, r.stderr)
    return json.loads(r.stdout)


def s3_listing(s3, bucket, prefix=""):
    """(key, size, etag, mtime to the millisecond) of every object radosgw lists."""
    out = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        out += [(o["Key"], o["Size"], o["ETag"].strip('"'), o["LastModified"].strftime("%Y-%m-%dT%H:%M:%S.%f")[:23])
                for o in page.get("Contents", [])]
    return out


def zone_listing(bucket, *args):
    got = zone_json("ls", bucket, *args)
    return [(o["key"], o["size"], o["etag"], o["mtime"][:23]) for o in got["objects"]], got["truncated"]


@pytest.mark.parametrize("kind", ["objects", "website", "resharded", "tenant"])
def test_zone_lists_buckets_as_radosgw_does(buckets, kind):
    """The bucket index merged from every shard (13 for the resharded
    bucket) lists what radosgw lists, in its order; pages chained by
    --after give the same; a prefix beginning with _ finds the escaped key;
    an open upload's parts stay out."""
    bucket = buckets[kind]
    s3 = buckets["tenant_client"] if kind == "tenant" else buckets["client"]
    name = bucket.split("/")[-1]
    want = s3_listing(s3, name)
    got, truncated = zone_listing(bucket)
    assert (got, truncated) == (want, False)
    paged, after = [], ""
    while True:
        page, truncated = zone_listing(bucket, "--max", "2", "--after", after)
        paged += page
        if not truncated:
            break
        after = page[-1][0]
    assert paged == want
    if kind == "objects":
        for prefix in ("dir/", "_", "f"):
            got, _ = zone_listing(bucket, "--prefix", prefix)
            assert got == s3_listing(s3, name, prefix) and got, prefix
        assert "open" not in [k for k, *_ in want]


def test_zone_reads_objects_as_radosgw_serves_them(buckets):
    """Every object read through its head and manifest is the object radosgw
    serves, byte for byte (empty, head only, striped, multipart with uneven
    parts, a key placed by a locator), with its ETag, Content-Type,
    x-amz-meta-* and ACL; ranges across stripes and parts are the same
    bytes as radosgw's ranged GETs."""
    bucket, s3 = buckets["objects"], buckets["client"]
    for key, body in buckets["bodies"].items():
        r = zone("get", bucket, key)
        assert r.returncode == 0 and r.stdout == body, (key, r.stderr)
        head = s3.head_object(Bucket=bucket, Key=key)
        st = zone_json("stat", bucket, key)
        assert (st["size"], st["etag"], st["meta"]) == (len(body), head["ETag"].strip('"'), head["Metadata"]), key
        if st["content_type"]:
            assert st["content_type"] == head["ContentType"], key
    assert zone_json("stat", bucket, "one-kib")["content_type"] == "text/plain"
    for key, first, last in [("forty-mib", (4 << 20) - 5, (4 << 20) + 5), ("forty-mib", 0, 0),
                             ("forty-mib", (40 << 20) - 3, (40 << 20) + 100),
                             ("multipart", (5 << 20) - 10, (10 << 20) + 20), ("five-mib", 1000, 4 << 20)]:
        want = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes={first}-{last}")["Body"].read()
        r = zone("get", bucket, key, "--range", f"{first}-{last}")
        assert r.returncode == 0 and r.stdout == want, (key, first, last, r.stderr)
    for key in ("public", "shared"):
        got = zone_json("stat", bucket, key)["acl"]
        got["grants"].sort(key=lambda g: json.dumps(g, sort_keys=True))
        assert got == s3_view(s3.get_object_acl(Bucket=bucket, Key=key)), key


def test_zone_finds_users_by_key_and_refuses_what_it_does_not_serve(buckets):
    """An access key names its user; a versioned bucket is refused with a
    clear error, never listed half-right; missing buckets and keys are
    named."""
    for kind, key in buckets["keys"].items():
        owner = admin("metadata", "get", f"bucket:{buckets[kind]}")["data"]["owner"]
        assert zone_json("key", key)["user_id"] == owner, kind
    cases = [(("ls", buckets["versioned"]), "is versioned"),
             (("stat", buckets["versioned"], "k"), "is versioned"),
             (("ls", "no-such-bucket-" + uuid.uuid4().hex[:6]), "no bucket"),
             (("stat", buckets["objects"], "no-such-key"), "no object"),
             (("key", "AKNOSUCHKEY"), "no access key")]
    for args, why in cases:
        r = zone(*args)
        assert r.returncode == 1 and r.stdout == b"" and why in r.stderr.decode(), (args, r)
        assert b"panicked" not in r.stderr


@pytest.mark.parametrize("kind", ["objects", "website", "resharded", "tenant"])
def test_zone_reads_buckets_as_radosgw_serves_them(buckets, kind):
    """A bucket's instance as `metadata get` prints it, and its ACL, policy
    and CORS rules as radosgw answers GetBucketAcl, GetBucketPolicy and
    GetBucketCors."""
    bucket = buckets[kind]
    s3 = buckets["tenant_client"] if kind == "tenant" else buckets["client"]
    name = bucket.split("/")[-1]
    got = zone_json("bucket", bucket)
    bucket_id, _ = instance_of(bucket)
    assert got["bucket_info"] == admin("metadata", "get", f"bucket.instance:{bucket}:{bucket_id}")["data"]["bucket_info"]
    got["acl"]["grants"].sort(key=lambda g: json.dumps(g, sort_keys=True))
    assert got["acl"] == s3_view(s3.get_bucket_acl(Bucket=name))
    if kind == "website":
        assert got["policy"] == json.loads(s3.get_bucket_policy(Bucket=name)["Policy"])
        assert got["cors"] == s3.get_bucket_cors(Bucket=name)["CORSRules"]
        assert len(got["cors"]) == 2
    else:
        assert (got["policy"], got["cors"]) == (None, []), kind


@pytest.mark.parametrize("kind", ["objects", "tenant"])
def test_zone_lists_a_users_buckets_as_radosgw_does(buckets, kind):
    """A user's buckets (its `<uid>.buckets` omap) are what radosgw's
    ListBuckets answers: names and creation dates, in order."""
    s3 = buckets["tenant_client"] if kind == "tenant" else buckets["client"]
    want = [(b["Name"], b["CreationDate"].strftime("%Y-%m-%dT%H:%M:%S.%f")[:23])
            for b in s3.list_buckets()["Buckets"]]
    got = [(b["name"], b["creation_time"][:23]) for b in zone_json("buckets", buckets["uids"][kind])]
    assert got == want and got
    assert zone_json("buckets", "no-such-user-" + uuid.uuid4().hex[:6]) == []


def test_zone_parameters_decode_to_zone_get(cluster):
    """The zone's parameters (`.rgw.root`), from which the reader takes
    every pool, print as `radosgw-admin zone get`; a zone that does not
    exist is named."""
    assert zone_json("zone") == admin("zone", "get")
    r = zone("--zone", "no-such-zone", "ls", "x")
    assert r.returncode == 1 and b"no zone no-such-zone" in r.stderr, r


def test_watch_names_the_records_radosgw_changes(cluster):
    """Watching the zone's control objects, every metadata change radosgw
    and radosgw-admin announce decodes to the record it names: a user made
    and modified (with the version `metadata get` then shows), its key, a
    bucket's instance whose ACL changed, and the user and key removed."""
    url = targets().get("radosgw")
    if not url:
        pytest.skip("no radosgw in this run (RSGW_TEST_RADOSGW=no)")
    tag = uuid.uuid4().hex[:8]
    uid, key, secret = f"watch-{tag}", f"AKWATCH{tag.upper()}", f"watch-secret-{tag}"
    watcher = subprocess.Popen([RSGW, "admin", "-c", configs()["rsgw-rados"], "radosgw", "watch",
                                "--seconds", "60"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert b"watching zone default" in watcher.stderr.readline()
        admin("user", "create", "--uid", uid, "--display-name", "Watched", "--access-key", key,
              "--secret", secret)
        admin("user", "modify", "--uid", uid, "--display-name", "Watched Twice")
        ver = admin("metadata", "get", f"user:{uid}")["ver"]
        s3 = boto3.client("s3", endpoint_url=url, aws_access_key_id=key, aws_secret_access_key=secret,
                          region_name="us-east-1",
                          config=botocore.config.Config(s3={"addressing_style": "path"}))
        bucket = f"watched-{tag}"
        s3.create_bucket(Bucket=bucket)
        s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
        _, instance = instance_of(bucket)
        admin("user", "rm", "--uid", uid, "--purge-data")
        seen = []
        deadline = time.monotonic() + 30
        want_gone = ("default.rgw.meta:users.uid", uid, "invalidate")
        while time.monotonic() < deadline and want_gone not in [(n["pool"], n["oid"], n["op"]) for n in seen]:
            line = watcher.stdout.readline()
            assert line, watcher.stderr.read()
            notice = json.loads(line)
            assert "error" not in notice, notice
            seen.append(notice)
    finally:
        watcher.kill()
        watcher.wait()
    named = [(n["pool"], n["oid"], n["op"]) for n in seen]
    assert ("default.rgw.meta:users.keys", key, "update") in named, named
    assert want_gone in named, named
    updates = [n for n in seen if (n["pool"], n["oid"], n["op"]) == ("default.rgw.meta:users.uid", uid, "update")]
    assert updates and updates[-1]["data_len"] > 0, seen
    assert {"ver": ver["ver"], "tag": ver["tag"]} in [u["version"] for u in updates], (ver, updates)
    acl_changes = [n for n in seen if n["pool"] == "default.rgw.meta:root" and n["oid"] == instance
                   and "user.rgw.acl" in n["xattrs"]]
    assert acl_changes, (instance, [n["oid"] for n in seen])
