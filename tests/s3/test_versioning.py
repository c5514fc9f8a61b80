"""Bucket versioning (issue 36) with boto3, the same assertions against
rsgw on each backend and against radosgw: the bucket's state, versions
written, read and deleted by id, delete markers, the null version (objects
from before versioning, writes while suspended), DeleteObjects with
versions, multipart uploads and copies, and ListObjectVersions' order and
paging; then the clients operators point at a versioned bucket: the aws
CLI, rclone (--s3-versions) and restic (Debian's) backing up and
restoring."""
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import uuid
from unittest.mock import ANY

import pytest

from helpers import error_of

BIG = 5 * 1024 * 1024 + 123  # more than a 4 MiB head: a version with tails


@pytest.fixture
def vbucket(t):
    """A fresh bucket of alice's; every version and marker deleted, then
    the bucket, afterwards."""
    name = f"v-{uuid.uuid4().hex[:20]}"
    t.alice.create_bucket(Bucket=name)
    yield name
    # passes until nothing is listed: radosgw, deleting 2,500 versions while
    # they are paged through, left some listed after one pass
    for _ in range(5):
        left = 0
        for page in t.alice.get_paginator("list_object_versions").paginate(Bucket=name):
            doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                      for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
            if doomed:
                left += len(doomed)
                t.alice.delete_objects(Bucket=name, Delete={"Objects": doomed, "Quiet": True})
        if not left:
            break
    t.alice.delete_bucket(Bucket=name)


def _enable(t, bucket, status="Enabled"):
    t.alice.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": status})


def _versions(t, bucket, **kw):
    """A listing's versions and its delete markers, each as (key, version
    id, latest) in the listing's order (S3's document lists versions and
    markers apart, in any interleaving: s3s writes the markers first)."""
    doc = t.alice.list_object_versions(Bucket=bucket, **kw)
    return ([(v["Key"], v["VersionId"], v["IsLatest"]) for v in doc.get("Versions", [])],
            [(m["Key"], m["VersionId"], m["IsLatest"]) for m in doc.get("DeleteMarkers", [])])


def test_bucket_versioning_state(t, vbucket):
    assert "Status" not in t.alice.get_bucket_versioning(Bucket=vbucket)
    _enable(t, vbucket)
    assert t.alice.get_bucket_versioning(Bucket=vbucket)["Status"] == "Enabled"
    _enable(t, vbucket, "Suspended")
    assert t.alice.get_bucket_versioning(Bucket=vbucket)["Status"] == "Suspended"
    assert error_of(t.bob.get_bucket_versioning, Bucket=vbucket)[:2] == ("AccessDenied", 403)
    code, status, _ = error_of(t.bob.put_bucket_versioning, Bucket=vbucket,
                               VersioningConfiguration={"Status": "Enabled"})
    assert (code, status) == ("AccessDenied", 403)
    code, status, _ = error_of(t.alice.put_bucket_versioning, Bucket=vbucket,
                               VersioningConfiguration={"Status": "Sometimes"})
    # AWS's MalformedXML (the document breaks its schema); radosgw 16.2's
    # InvalidArgument
    assert (code, status) == ("InvalidArgument" if t.is_radosgw else "MalformedXML", 400)
    assert t.alice.get_bucket_versioning(Bucket=vbucket)["Status"] == "Suspended"


def test_versions_written_read_and_deleted(t, vbucket):
    _enable(t, vbucket)
    big = bytes(range(256)) * (BIG // 256) + b"x" * (BIG % 256)
    v1 = t.alice.put_object(Bucket=vbucket, Key="k", Body=b"one")["VersionId"]
    v2 = t.alice.put_object(Bucket=vbucket, Key="k", Body=big)["VersionId"]
    v3 = t.alice.put_object(Bucket=vbucket, Key="k", Body=b"three")["VersionId"]
    assert len({v1, v2, v3}) == 3 and "null" not in {v1, v2, v3}
    cur = t.alice.get_object(Bucket=vbucket, Key="k")
    assert (cur["Body"].read(), cur["VersionId"]) == (b"three", v3)
    for vid, data in [(v1, b"one"), (v2, big), (v3, b"three")]:
        got = t.alice.get_object(Bucket=vbucket, Key="k", VersionId=vid)
        assert (got["Body"].read() == data, got["VersionId"]) == (True, vid)
        assert t.alice.head_object(Bucket=vbucket, Key="k", VersionId=vid)["ContentLength"] == len(data)
    part = t.alice.get_object(Bucket=vbucket, Key="k", VersionId=v2, Range="bytes=4194300-4194309")
    assert part["Body"].read() == big[4194300:4194310]
    assert _versions(t, vbucket) == ([("k", v3, True), ("k", v2, False), ("k", v1, False)], [])

    # a delete without a version id makes a delete marker
    d = t.alice.delete_object(Bucket=vbucket, Key="k")
    marker = d["VersionId"]
    assert d["DeleteMarker"] is True and marker not in {v1, v2, v3}
    code, status, resp = error_of(t.alice.get_object, Bucket=vbucket, Key="k")
    headers = resp["ResponseMetadata"]["HTTPHeaders"]
    # AWS names the marker in the 404; radosgw 16.2 does not
    names = (None, None) if t.is_radosgw else ("true", marker)
    assert (code, status, headers.get("x-amz-delete-marker"), headers.get("x-amz-version-id")) == (
        "NoSuchKey", 404, *names)
    code, status, resp = error_of(t.alice.get_object, Bucket=vbucket, Key="k", VersionId=marker)
    # AWS: a marker has no data to GET (405, naming the marker); radosgw
    # 16.2 answers as for no key
    want = ("NoSuchKey", 404, None) if t.is_radosgw else ("MethodNotAllowed", 405, "true")
    assert (code, status, resp["ResponseMetadata"]["HTTPHeaders"].get("x-amz-delete-marker")) == want
    assert t.alice.list_objects_v2(Bucket=vbucket)["KeyCount"] == 0
    assert _versions(t, vbucket) == ([("k", v3, False), ("k", v2, False), ("k", v1, False)],
                                     [("k", marker, True)])
    assert error_of(t.alice.delete_bucket, Bucket=vbucket)[:2] == ("BucketNotEmpty", 409)

    # deleting the marker by its id brings the object back
    d = t.alice.delete_object(Bucket=vbucket, Key="k", VersionId=marker)
    assert (d["VersionId"], d.get("DeleteMarker")) == (marker, True)
    assert t.alice.get_object(Bucket=vbucket, Key="k")["Body"].read() == b"three"
    # deleting the current version makes the one before it current
    d = t.alice.delete_object(Bucket=vbucket, Key="k", VersionId=v3)
    assert d["VersionId"] == v3 and not d.get("DeleteMarker")
    cur = t.alice.get_object(Bucket=vbucket, Key="k")
    assert (cur["VersionId"], cur["ContentLength"]) == (v2, BIG)
    listed = t.alice.list_objects_v2(Bucket=vbucket)["Contents"]
    assert [(o["Key"], o["Size"]) for o in listed] == [("k", BIG)]
    code, status, _ = error_of(t.alice.get_object, Bucket=vbucket, Key="k", VersionId=v3)
    # AWS's NoSuchVersion; radosgw 16.2 answers NoSuchKey
    assert (code, status) == ("NoSuchKey" if t.is_radosgw else "NoSuchVersion", 404)
    # a noncurrent version goes alone
    t.alice.delete_object(Bucket=vbucket, Key="k", VersionId=v1)
    assert _versions(t, vbucket) == ([("k", v2, True)], [])
    # a version that does not exist: nothing to delete
    t.alice.delete_object(Bucket=vbucket, Key="k", VersionId=v1)
    assert _versions(t, vbucket) == ([("k", v2, True)], [])


def test_objects_from_before_versioning_are_the_null_version(t, vbucket):
    t.alice.put_object(Bucket=vbucket, Key="old", Body=b"legacy")
    # an unversioned bucket lists its objects as their null versions
    assert _versions(t, vbucket) == ([("old", "null", True)], [])
    _enable(t, vbucket)
    v1 = t.alice.put_object(Bucket=vbucket, Key="old", Body=b"new")["VersionId"]
    assert _versions(t, vbucket) == ([("old", v1, True), ("old", "null", False)], [])
    assert t.alice.get_object(Bucket=vbucket, Key="old", VersionId="null")["Body"].read() == b"legacy"
    t.alice.delete_object(Bucket=vbucket, Key="old", VersionId="null")
    assert _versions(t, vbucket) == ([("old", v1, True)], [])


def test_suspended_versioning_writes_the_null_version(t, vbucket):
    _enable(t, vbucket)
    v1 = t.alice.put_object(Bucket=vbucket, Key="k", Body=b"kept")["VersionId"]
    _enable(t, vbucket, "Suspended")
    t.alice.put_object(Bucket=vbucket, Key="k", Body=b"null one")
    t.alice.put_object(Bucket=vbucket, Key="k", Body=b"null two")
    assert _versions(t, vbucket) == ([("k", "null", True), ("k", v1, False)], [])
    assert t.alice.get_object(Bucket=vbucket, Key="k", VersionId="null")["Body"].read() == b"null two"
    d = t.alice.delete_object(Bucket=vbucket, Key="k")
    assert (d.get("DeleteMarker"), d.get("VersionId")) == (True, "null")
    assert _versions(t, vbucket) == ([("k", v1, False)], [("k", "null", True)])
    # enabled again: new versions beside the null marker
    _enable(t, vbucket)
    v2 = t.alice.put_object(Bucket=vbucket, Key="k", Body=b"back")["VersionId"]
    assert _versions(t, vbucket) == ([("k", v2, True), ("k", v1, False)], [("k", "null", False)])


def test_delete_objects_with_versions(t, vbucket):
    _enable(t, vbucket)
    a1 = t.alice.put_object(Bucket=vbucket, Key="a", Body=b"a1")["VersionId"]
    a2 = t.alice.put_object(Bucket=vbucket, Key="a", Body=b"a2")["VersionId"]
    t.alice.put_object(Bucket=vbucket, Key="b", Body=b"b1")
    r = t.alice.delete_objects(Bucket=vbucket, Delete={"Objects": [
        {"Key": "a", "VersionId": a1},
        {"Key": "b"},
    ]})
    deleted = {d["Key"]: d for d in r["Deleted"]}
    assert deleted["a"]["VersionId"] == a1 and not deleted["a"].get("DeleteMarker")
    assert deleted["b"]["DeleteMarker"] is True
    marker = deleted["b"]["DeleteMarkerVersionId"]
    assert _versions(t, vbucket) == ([("a", a2, True), ("b", ANY, False)], [("b", marker, True)])
    assert [o["Key"] for o in t.alice.list_objects_v2(Bucket=vbucket)["Contents"]] == ["a"]


def test_multipart_and_copies_make_versions(t, vbucket):
    _enable(t, vbucket)
    v1 = t.alice.put_object(Bucket=vbucket, Key="src", Body=b"first")["VersionId"]
    t.alice.put_object(Bucket=vbucket, Key="src", Body=b"second")
    c = t.alice.copy_object(Bucket=vbucket, Key="dst", CopySource={"Bucket": vbucket, "Key": "src", "VersionId": v1})
    # AWS names the source's version and the copy's; radosgw 16.2 neither
    if t.is_radosgw:
        assert (c.get("CopySourceVersionId"), c.get("VersionId")) == (None, None)
        c["VersionId"] = t.alice.head_object(Bucket=vbucket, Key="dst")["VersionId"]
    else:
        assert c["CopySourceVersionId"] == v1 and c["VersionId"]
    assert t.alice.get_object(Bucket=vbucket, Key="dst")["Body"].read() == b"first"
    up = t.alice.create_multipart_upload(Bucket=vbucket, Key="dst")["UploadId"]
    part = t.alice.upload_part(Bucket=vbucket, Key="dst", UploadId=up, PartNumber=1, Body=b"multi")
    done = t.alice.complete_multipart_upload(Bucket=vbucket, Key="dst", UploadId=up, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    assert done["VersionId"] and done["VersionId"] != c["VersionId"]
    assert _versions(t, vbucket, Prefix="dst") == ([("dst", done["VersionId"], True),
                                                   ("dst", c["VersionId"], False)], [])
    got = t.alice.get_object(Bucket=vbucket, Key="dst", VersionId=c["VersionId"])
    assert got["Body"].read() == b"first"


def test_version_ids_refused_where_they_name_nothing(t, vbucket):
    _enable(t, vbucket)
    t.alice.put_object(Bucket=vbucket, Key="k", Body=b"x")
    code, status, _ = error_of(t.alice.get_object, Bucket=vbucket, Key="k", VersionId="no-such-version")
    # a malformed id is AWS's 400 InvalidArgument; radosgw 16.2 looks for it
    assert (code, status) == (("NoSuchKey", 404) if t.is_radosgw else ("InvalidArgument", 400))
    # a well-formed id of no version
    code, status, _ = error_of(t.alice.get_object, Bucket=vbucket, Key="k", VersionId=WELL_FORMED)
    assert (code, status) == (("NoSuchKey", 404) if t.is_radosgw else ("NoSuchVersion", 404))
    # the null version of a key that has none: NoSuchKey (radosgw's answer)
    code, status, _ = error_of(t.alice.get_object, Bucket=vbucket, Key="missing", VersionId="null")
    assert (code, status) == ("NoSuchKey", 404)
    code, status, _ = error_of(t.alice.get_object, Bucket=vbucket, Key="k", VersionId="null")
    assert (code, status) == ("NoSuchKey", 404)


# the shape of a version id rsgw makes (and of radosgw's: 32 characters)
WELL_FORMED = "fff99e2cd9d90ffa17NdHGFodBWEH7Ih"

KEYS3 = ["a", "b/c", "d"]
# issue 36 asks for 2,500: 69 s (rsgw, embedded store), 105 s (rsgw, rados)
# and 169 s (radosgw) on 2026-12-05, too long for the test command;
# RSGW_TEST_VERSIONS=2500 runs it so
VERSIONS = int(os.environ.get("RSGW_TEST_VERSIONS", "300"))


def test_list_object_versions_pages(t, vbucket):
    """RSGW_TEST_VERSIONS versions of 3 keys (a delete marker every 50),
    listed whole and paged with every max-keys from 1 to 7: the pages add
    up to the whole, each within its max-keys, in the same order, one
    latest version per key."""
    _enable(t, vbucket)

    def write(i):
        key = KEYS3[i % 3]
        if i % 50 == 49:
            t.alice.delete_object(Bucket=vbucket, Key=key)
        else:
            t.alice.put_object(Bucket=vbucket, Key=key, Body=str(i).encode())

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(write, range(VERSIONS)))
    whole = _pages(t, vbucket, {})
    assert sum(len(rows) for rows in whole) == VERSIONS
    for rows in whole:
        assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    for key in KEYS3:
        latest = [r for rows in whole for r in rows if r[0] == key and r[2]]
        assert len(latest) == 1, key
    with concurrent.futures.ThreadPoolExecutor(7) as pool:
        paged = pool.map(lambda n: _pages(t, vbucket, {"MaxKeys": n}), range(1, 8))
        for max_keys, pages in zip(range(1, 8), paged):
            assert pages == whole, f"max-keys {max_keys}"


def _pages(t, bucket, kw):
    """Pages through ListObjectVersions (with `kw`'s MaxKeys, each page
    checked against it): its versions and its delete markers, each as
    (key, version id, latest) in the listing's order."""
    versions, markers = [], []
    marker = {}
    while True:
        page = t.alice.list_object_versions(Bucket=bucket, **kw, **marker)
        rows = page.get("Versions", []) + page.get("DeleteMarkers", [])
        assert len(rows) <= kw.get("MaxKeys", 1000)
        versions += [(v["Key"], v["VersionId"], v["IsLatest"]) for v in page.get("Versions", [])]
        markers += [(m["Key"], m["VersionId"], m["IsLatest"]) for m in page.get("DeleteMarkers", [])]
        if not page["IsTruncated"]:
            return versions, markers
        marker = {"KeyMarker": page["NextKeyMarker"], "VersionIdMarker": page["NextVersionIdMarker"]}


def _run(cmd, env):
    full = dict(os.environ)
    full.pop("AWS_CA_BUNDLE", None)
    full.update(env)
    r = subprocess.run(cmd, env=full, capture_output=True, timeout=300)
    assert r.returncode == 0, f"{cmd} failed ({r.returncode}):\n{r.stdout.decode()}\n{r.stderr.decode()}"
    return r.stdout.decode()


def test_aws_cli_and_rclone_see_versions(t, vbucket, tmp_path):
    cfg = tmp_path / "aws-config"
    cfg.write_text("[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n")
    env = {"AWS_ACCESS_KEY_ID": os.environ["ALICE_AK"], "AWS_SECRET_ACCESS_KEY": os.environ["ALICE_SK"],
           "AWS_CONFIG_FILE": str(cfg), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}
    aws = ["/usr/bin/aws", "--endpoint-url", t.endpoint, "--output", "json"]
    _run(aws + ["s3api", "put-bucket-versioning", "--bucket", vbucket,
                "--versioning-configuration", "Status=Enabled"], env)
    assert '"Enabled"' in _run(aws + ["s3api", "get-bucket-versioning", "--bucket", vbucket], env)
    (tmp_path / "a").write_bytes(b"first")
    (tmp_path / "b").write_bytes(b"second, longer")
    for f in ["a", "b"]:
        _run(aws + ["s3", "cp", str(tmp_path / f), f"s3://{vbucket}/doc.txt"], env)
    import json
    listed = json.loads(_run(aws + ["s3api", "list-object-versions", "--bucket", vbucket], env))
    versions = listed["Versions"]
    assert [(v["Key"], v["Size"], v["IsLatest"]) for v in versions] == [("doc.txt", 14, True), ("doc.txt", 5, False)]
    old = versions[1]["VersionId"]
    _run(aws + ["s3api", "get-object", "--bucket", vbucket, "--key", "doc.txt", f"--version-id={old}",
                str(tmp_path / "old.out")], env)
    assert (tmp_path / "old.out").read_bytes() == b"first"
    # rclone lists old versions with their time as a suffix, and reads them
    renv = {"RCLONE_CONFIG": str(tmp_path / "rclone.conf"), "RCLONE_CONFIG_T_TYPE": "s3",
            "RCLONE_CONFIG_T_PROVIDER": "Ceph", "RCLONE_CONFIG_T_ACCESS_KEY_ID": os.environ["ALICE_AK"],
            "RCLONE_CONFIG_T_SECRET_ACCESS_KEY": os.environ["ALICE_SK"], "RCLONE_CONFIG_T_ENDPOINT": t.endpoint,
            "RCLONE_CONFIG_T_FORCE_PATH_STYLE": "true", "RCLONE_CONFIG_T_REGION": "us-east-1"}
    rclone = [shutil.which("rclone") or "rclone"]
    names = _run(rclone + ["lsf", "--s3-versions", f"t:{vbucket}"], renv).split()
    assert len(names) == 2 and "doc.txt" in names, names
    older = next(n for n in names if n != "doc.txt")
    assert older.startswith("doc-v") and older.endswith(".txt"), older
    assert _run(rclone + ["cat", "--s3-versions", f"t:{vbucket}/{older}"], renv) == "first"
    # a delete through the CLI leaves a marker that rclone hides
    _run(aws + ["s3", "rm", f"s3://{vbucket}/doc.txt"], env)
    assert _run(rclone + ["lsf", f"t:{vbucket}"], renv).split() == []
    listed = json.loads(_run(aws + ["s3api", "list-object-versions", "--bucket", vbucket], env))
    assert [m["IsLatest"] for m in listed["DeleteMarkers"]] == [True]


def test_restic_backs_up_to_and_restores_from_a_versioned_bucket(t, vbucket, tmp_path):
    restic = shutil.which("restic")
    assert restic, "restic is not installed (tests/apt-packages.txt installs it)"
    _enable(t, vbucket)
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "small.txt").write_bytes(b"restic on a versioned bucket\n")
    (src / "sub" / "big.bin").write_bytes(os.urandom(9 * 1024 * 1024 + 17))
    env = {"RESTIC_REPOSITORY": f"s3:{t.endpoint}/{vbucket}/repo", "RESTIC_PASSWORD": "not a secret",
           "AWS_ACCESS_KEY_ID": os.environ["ALICE_AK"], "AWS_SECRET_ACCESS_KEY": os.environ["ALICE_SK"],
           "RESTIC_CACHE_DIR": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    _run([restic, "init"], env)
    _run([restic, "backup", str(src)], env)
    (src / "small.txt").write_bytes(b"changed\n")
    _run([restic, "backup", str(src)], env)
    # forget and prune delete pack files: delete markers, versions kept
    _run([restic, "forget", "--keep-last", "1", "--prune"], env)
    _run([restic, "check", "--read-data"], env)
    _run([restic, "restore", "latest", "--target", str(tmp_path / "back")], env)
    back = tmp_path / "back" / str(src).lstrip("/")

    def digest(p):
        return hashlib.sha256(p.read_bytes()).hexdigest()

    for rel in ["small.txt", "sub/big.bin"]:
        assert digest(back / rel) == digest(src / rel), rel
    markers = t.alice.list_object_versions(Bucket=vbucket).get("DeleteMarkers", [])
    assert markers, "prune deleted something: markers in a versioned bucket"
