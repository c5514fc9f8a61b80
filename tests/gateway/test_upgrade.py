"""Upgrades (issue 37, docs/layout.md#format): a store written by the
project's last release (the newest `v*` tag before this commit, built from
git here and cached) is served and changed by this build, then served by
the release again (releases of one format mix during a rolling upgrade).
Both backends, each store of the test's own. Marked `chaos`: it builds a
release (minutes the first time), so it runs with `scripts/test --chaos`,
not in the test command.

The release writes a set of every kind: small, large (tails) and
multipart objects, metadata, tags, a public-read ACL, an SSE-C object, a
bucket policy, CORS, lifecycle rules, a user quota, a versioned bucket
with versions and a delete marker, a locked version, and a multipart
upload left in progress. This build reads every byte and setting back,
completes the upload, overwrites, deletes and adds versions; the release
then reads what this build wrote."""
import hashlib
import json
import os
import pathlib
import subprocess
import uuid

import boto3
import botocore.config
import pytest

from rsgw_gateway import Gateway, remove_pools

pytestmark = pytest.mark.chaos

ROOT = pathlib.Path(__file__).resolve().parents[2]
CACHE = pathlib.Path(os.environ.get("RSGW_RELEASE_CACHE", pathlib.Path.home() / ".cache" / "rsgw" / "releases"))
AK, SK = "UPGRADEACCESSKEY0001", "upgradesecretkey00000000000000000000001"
MiB = 1024 * 1024
SSE_KEY = bytes(range(32))
SSE = {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": SSE_KEY}


def last_release():
    """The newest release tag before this commit (a commit that is itself
    a release upgrades from the one before)."""
    r = subprocess.run(["git", "-C", str(ROOT), "describe", "--tags", "--abbrev=0", "--match", "v[0-9]*", "HEAD^"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        pytest.fail(f"no release tag (v*) before HEAD: {r.stderr.strip()} (a shallow clone? fetch the tags)")
    return r.stdout.strip()


def release_binary(tag):
    """The release's rsgw (rados backend included), built from git once and
    cached under CACHE/<tag>/ (its own target directory)."""
    out = CACHE / tag / "rsgw"
    if out.exists():
        return out
    src = CACHE / tag / "src"
    if not src.exists():
        src.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", tag], capture_output=True, check=True,
                                 timeout=300).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True, timeout=300)
    target = CACHE / tag / "target"
    r = subprocess.run(["cargo", "build", "--locked", "-p", "rsgw", "--features", "rsgw/rados", "--target-dir",
                        str(target)], cwd=src, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, f"building {tag}: {r.stderr[-3000:]}"
    (target / "debug" / "rsgw").replace(out)
    return out


def s3(gw):
    return boto3.client("s3", endpoint_url=gw.url, region_name="us-east-1", aws_access_key_id=AK,
                        aws_secret_access_key=SK,
                        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                                      retries={"total_max_attempts": 1, "mode": "standard"}))


def body(c, bucket, key, **kw):
    return c.get_object(Bucket=bucket, Key=key, **kw)["Body"].read()


def data(n, seed):
    block = hashlib.sha256(seed.encode()).digest() * 2048  # 64 KiB
    return (block * (n // len(block) + 1))[:n]


def write_set(c, names):
    """What the release writes; answers what must read back."""
    plain, ver, locked = names
    c.create_bucket(Bucket=plain)
    objects = {"small": data(3000, "small"), "large": data(5 * MiB + 17, "large")}
    for key, d in objects.items():
        c.put_object(Bucket=plain, Key=key, Body=d, Metadata={"origin": "release"}, ContentType="text/x-upgrade")
    parts = [data(5 * MiB, "p1"), data(1 * MiB + 3, "p2")]
    up = c.create_multipart_upload(Bucket=plain, Key="multi")["UploadId"]
    etags = [c.upload_part(Bucket=plain, Key="multi", UploadId=up, PartNumber=i + 1, Body=p)["ETag"]
             for i, p in enumerate(parts)]
    c.complete_multipart_upload(Bucket=plain, Key="multi", UploadId=up, MultipartUpload={
        "Parts": [{"PartNumber": i + 1, "ETag": e} for i, e in enumerate(etags)]})
    objects["multi"] = b"".join(parts)
    c.put_object_tagging(Bucket=plain, Key="small", Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    c.put_object(Bucket=plain, Key="public", Body=b"public", ACL="public-read")
    objects["public"] = b"public"
    c.put_object(Bucket=plain, Key="secret", Body=b"sse-c data", **SSE)
    policy = json.dumps({"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{plain}/small"}]})
    c.put_bucket_policy(Bucket=plain, Policy=policy)
    cors = {"CORSRules": [{"AllowedMethods": ["GET"], "AllowedOrigins": ["https://example.com"]}]}
    c.put_bucket_cors(Bucket=plain, CORSConfiguration=cors)
    lc = {"Rules": [{"ID": "old", "Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 30}}]}
    c.put_bucket_lifecycle_configuration(Bucket=plain, LifecycleConfiguration=lc)
    pending = c.create_multipart_upload(Bucket=plain, Key="pending")["UploadId"]
    pending_part = data(5 * MiB, "pending")
    pending_etag = c.upload_part(Bucket=plain, Key="pending", UploadId=pending, PartNumber=1,
                                 Body=pending_part)["ETag"]
    c.create_bucket(Bucket=ver)
    c.put_bucket_versioning(Bucket=ver, VersioningConfiguration={"Status": "Enabled"})
    v1 = c.put_object(Bucket=ver, Key="doc", Body=b"one")["VersionId"]
    v2 = c.put_object(Bucket=ver, Key="doc", Body=b"two")["VersionId"]
    marker = c.delete_object(Bucket=ver, Key="doc")["VersionId"]
    c.create_bucket(Bucket=locked, ObjectLockEnabledForBucket=True)
    held = c.put_object(Bucket=locked, Key="held", Body=b"held", ObjectLockLegalHoldStatus="ON")["VersionId"]
    return {"objects": objects, "policy": policy, "cors": cors, "lc": lc,
            "pending": (pending, pending_part, pending_etag), "versions": (v1, v2, marker), "held": held}


def check_set(c, names, w):
    plain, ver, locked = names
    for key, d in w["objects"].items():
        got = c.get_object(Bucket=plain, Key=key)
        assert got["Body"].read() == d, key
    head = c.head_object(Bucket=plain, Key="large")
    assert (head["Metadata"], head["ContentType"]) == ({"origin": "release"}, "text/x-upgrade")
    assert c.get_object(Bucket=plain, Key="multi", Range="bytes=5242878-5242881")["Body"].read() == \
        w["objects"]["multi"][5242878:5242882]
    assert c.get_object_tagging(Bucket=plain, Key="small")["TagSet"] == [{"Key": "k", "Value": "v"}]
    grants = c.get_object_acl(Bucket=plain, Key="public")["Grants"]
    assert any(g["Grantee"].get("URI", "").endswith("/AllUsers") and g["Permission"] == "READ" for g in grants)
    assert body(c, plain, "secret", **SSE) == b"sse-c data"
    assert json.loads(c.get_bucket_policy(Bucket=plain)["Policy"]) == json.loads(w["policy"])
    assert c.get_bucket_cors(Bucket=plain)["CORSRules"][0]["AllowedOrigins"] == ["https://example.com"]
    assert c.get_bucket_lifecycle_configuration(Bucket=plain)["Rules"][0]["ID"] == "old"
    v1, v2, marker = w["versions"]
    assert body(c, ver, "doc", VersionId=v1) == b"one" and body(c, ver, "doc", VersionId=v2) == b"two"
    listed = c.list_object_versions(Bucket=ver)
    assert [m["VersionId"] for m in listed.get("DeleteMarkers", [])] == [marker]
    assert sorted(v["VersionId"] for v in listed["Versions"]) == sorted([v1, v2])
    assert c.get_object_legal_hold(Bucket=locked, Key="held", VersionId=w["held"])["LegalHold"]["Status"] == "ON"
    code = None
    try:
        c.delete_object(Bucket=locked, Key="held", VersionId=w["held"])
    except c.exceptions.ClientError as e:
        code = e.response["ResponseMetadata"]["HTTPStatusCode"]
    assert code == 403, "a held version was deleted"


@pytest.mark.parametrize("backend", ["local", "rados"])
def test_a_release_store_served_and_changed_by_this_build(tmp_path, backend):
    if backend == "rados" and not os.environ.get("CEPH_CONF"):
        pytest.skip("no cluster (CEPH_CONF)")
    old = release_binary(last_release())
    store = {"backend": backend}
    prefix = f"up{uuid.uuid4().hex[:10]}"
    if backend == "local":
        store["path"] = tmp_path / "store"
    else:
        store["pool_prefix"] = prefix
    users = [("upgrader", "Upgrader", AK, SK)]
    # SSE-C over plain HTTP, as on a gateway behind a TLS-terminating proxy
    plain_http = "[crypt]\nrequire_ssl = false\n"
    release = Gateway(tmp_path / "release", "release", rsgw=str(old), users=users, sections=plain_http, **store)
    ours = Gateway(tmp_path / "ours", "ours", users=users, sections=plain_http, **store)
    names = tuple(f"{p}-{uuid.uuid4().hex[:12]}" for p in ("plain", "ver", "locked"))
    try:
        with release:
            written = write_set(s3(release), names)
            release.admin("quota", "set", "--quota-scope", "user", "--uid", "upgrader", "--max-objects", "1000")
            release.admin("quota", "enable", "--quota-scope", "user", "--uid", "upgrader")
        with ours:
            c = s3(ours)
            check_set(c, names, written)
            quota = ours.admin("quota", "get", "--quota-scope", "user", "--uid", "upgrader")
            assert quota["enabled"] and quota["max_objects"] == 1000, quota
            plain, ver, _ = names
            up, part, etag = written["pending"]
            c.complete_multipart_upload(Bucket=plain, Key="pending", UploadId=up, MultipartUpload={
                "Parts": [{"PartNumber": 1, "ETag": etag}]})
            assert body(c, plain, "pending") == part
            c.put_object(Bucket=plain, Key="small", Body=b"rewritten")
            c.delete_object(Bucket=plain, Key="public")
            v3 = c.put_object(Bucket=ver, Key="doc", Body=b"three")["VersionId"]
        with release.start():
            c = s3(release)
            assert body(c, plain, "small") == b"rewritten" and body(c, plain, "pending") == part
            assert body(c, ver, "doc") == b"three" and body(c, ver, "doc", VersionId=v3) == b"three"
            assert body(c, ver, "doc", VersionId=written["versions"][0]) == b"one"
            keys = [o["Key"] for o in c.list_objects_v2(Bucket=plain)["Contents"]]
            assert keys == ["large", "multi", "pending", "secret", "small"], keys
    finally:
        for g in (release, ours):
            if g.running:
                g.kill()
        if backend == "rados":
            remove_pools(prefix)
