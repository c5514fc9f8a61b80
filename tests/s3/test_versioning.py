"""Bucket versioning (issue 36) with boto3, the same assertions against
rsgw on each backend and against radosgw: the bucket's state, versions
written, read and deleted by id, delete markers, the null version (objects
from before versioning, writes while suspended), DeleteObjects with
versions, multipart uploads and copies, and ListObjectVersions' order and
paging."""
import concurrent.futures
import os
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
    for page in t.alice.get_paginator("list_object_versions").paginate(Bucket=name):
        doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                  for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
        if doomed:
            t.alice.delete_objects(Bucket=name, Delete={"Objects": doomed, "Quiet": True})
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
# issue 36 asks for 2,500: 130 s (rsgw, embedded store) to 430 s (radosgw)
# per target here, too long for the test command; RSGW_TEST_VERSIONS=2500
# runs it so
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
