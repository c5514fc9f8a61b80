"""Bucket lifecycle with boto3's lifecycle API, answered as radosgw answers
it: the configuration round-trips, bad ones are refused with the same
codes, and a lifecycle pass (`rsgw admin lc run`, `radosgw-admin lc
process`, both with days of a few seconds) expires the same objects and
aborts the same uploads on every target."""
import datetime
import os
import subprocess
import time

import pytest

from helpers import error_of
from targets import configs

# alone (tests/run.sh's second phase): on the loaded first phase one run of
# `rsgw admin lc run` on the rados target found the lease still held by an
# admin pass (2026-12-04, once in two runs; serial runs never did), not yet
# explained
pytestmark = pytest.mark.alone

DAY_S = 2


def lc_run(t):
    """One lifecycle pass on the target's store, a day lasting DAY_S."""
    if t.is_radosgw:
        cmd = ["radosgw-admin", "lc", "process", f"--rgw_lc_debug_interval={DAY_S}"]
        env = None
    else:
        cmd = [os.environ.get("RSGW_BIN", "rsgw"), "admin", "-c", configs()[t.name], "lc", "run"]
        env = {**os.environ, "RSGW_S3_LC_DAY_S": str(DAY_S)}
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, f"{' '.join(cmd)}: {r.stderr}"


def put_rules(c, bucket, rules):
    c.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})


RULES = [
    {"ID": "logs", "Status": "Enabled", "Filter": {"Prefix": "logs/"}, "Expiration": {"Days": 1}},
    {"ID": "tagged", "Status": "Enabled",
     "Filter": {"And": {"Prefix": "t/", "Tags": [{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}]}},
     "Expiration": {"Days": 1}},
    {"ID": "later", "Status": "Disabled", "Filter": {"Tag": {"Key": "x", "Value": "y"}},
     "Expiration": {"Date": datetime.datetime(2040, 1, 1, tzinfo=datetime.timezone.utc)}},
    {"ID": "uploads", "Status": "Enabled", "Filter": {"Prefix": "mp/"},
     "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}},
]


def test_configuration_round_trips(t, bucket):
    c = t.alice
    code, status, _ = error_of(c.get_bucket_lifecycle_configuration, Bucket=bucket)
    assert (code, status) == ("NoSuchLifecycleConfiguration", 404)
    put_rules(c, bucket, RULES)
    got = c.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    if t.is_radosgw:
        # radosgw answers the rules by ID (AWS and rsgw in the order given),
        # and an And's prefix beside the And instead of in it
        tagged = {**RULES[1], "Filter": {"Prefix": "t/", "And": {"Tags": RULES[1]["Filter"]["And"]["Tags"]}}}
        assert got == sorted([RULES[0], tagged, *RULES[2:]], key=lambda r: r["ID"])
    else:
        assert got == RULES
    c.delete_bucket_lifecycle(Bucket=bucket)
    code, status, _ = error_of(c.get_bucket_lifecycle_configuration, Bucket=bucket)
    assert (code, status) == ("NoSuchLifecycleConfiguration", 404)
    c.delete_bucket_lifecycle(Bucket=bucket)


# rule, (rsgw's answer, as AWS documents it), radosgw 16.2's where it differs
@pytest.mark.parametrize("rule, expected, radosgw", [
    ({"ID": "r", "Status": "Enabled", "Filter": {"Prefix": ""}, "Expiration": {"Days": 0}},
     ("InvalidArgument", 400), None),
    ({"ID": "r", "Status": "Enabled", "Filter": {"Prefix": ""},
      "Expiration": {"Date": datetime.datetime(2040, 1, 1, 5, tzinfo=datetime.timezone.utc)}},
     ("InvalidArgument", 400), ("MalformedXML", 400)),
    ({"ID": "r", "Status": "Enabled", "Filter": {"Prefix": "a"}}, ("InvalidRequest", 400), ("MalformedXML", 400)),
    ({"ID": "x" * 256, "Status": "Enabled", "Filter": {"Prefix": "a"}, "Expiration": {"Days": 1}},
     ("InvalidArgument", 400), None),
])
def test_bad_rules_are_refused(t, bucket, rule, expected, radosgw):
    code, status, _ = error_of(put_rules, t.alice, bucket, [rule])
    assert (code, status) == (radosgw or expected if t.is_radosgw else expected)
    code, _, _ = error_of(t.alice.get_bucket_lifecycle_configuration, Bucket=bucket)
    assert code == "NoSuchLifecycleConfiguration"


def test_rule_ids_are_unique(t, bucket):
    rule = {"ID": "r", "Status": "Enabled", "Filter": {"Prefix": "a"}, "Expiration": {"Days": 1}}
    code, status, _ = error_of(put_rules, t.alice, bucket, [rule, {**rule, "Filter": {"Prefix": "b"}}])
    assert (code, status) == ("InvalidArgument", 400)


def test_a_pass_expires_the_objects_and_uploads_the_rules_name(t, bucket):
    c = t.alice
    for k in ("logs/a", "logs/b", "keep/c", "logsx", "t/one"):
        c.put_object(Bucket=bucket, Key=k, Body=b"data")
    c.put_object(Bucket=bucket, Key="t/both", Body=b"data", Tagging="a=1&b=2")
    c.put_object(Bucket=bucket, Key="t/wrong", Body=b"data", Tagging="a=1&b=3")
    kept_upload = c.create_multipart_upload(Bucket=bucket, Key="other/big")["UploadId"]
    c.create_multipart_upload(Bucket=bucket, Key="mp/big")
    put_rules(c, bucket, RULES)
    # a day (and one more second) later: every rule is due
    time.sleep(DAY_S + 1)
    lc_run(t)
    keys = sorted(o["Key"] for o in c.list_objects_v2(Bucket=bucket).get("Contents", []))
    assert keys == ["keep/c", "logsx", "t/one", "t/wrong"]
    uploads = c.list_multipart_uploads(Bucket=bucket).get("Uploads", [])
    assert [(u["Key"], u["UploadId"]) for u in uploads] == [("other/big", kept_upload)]
    c.abort_multipart_upload(Bucket=bucket, Key="other/big", UploadId=kept_upload)


SIZED = [
    {"ID": "small", "Status": "Enabled", "Filter": {"ObjectSizeLessThan": 10}, "Expiration": {"Days": 1}},
    {"ID": "big-logs", "Status": "Enabled",
     "Filter": {"And": {"Prefix": "logs/", "ObjectSizeGreaterThan": 100, "ObjectSizeLessThan": 1000, "Tags": []}},
     "Expiration": {"Days": 1}},
]


def test_object_size_filters(t, bucket):
    c = t.alice
    put_rules(c, bucket, SIZED)
    got = c.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    if t.is_radosgw:
        # radosgw 16.2 knows no size filters (Reef added them): it stores
        # the rules without them (the first as a rule Prefix of ""), and so
        # would expire every object (rsgw, as AWS, keeps and applies them)
        assert all("ObjectSize" not in str(r) for r in got)
        return
    assert [r["Filter"] for r in got] == [
        {"ObjectSizeLessThan": 10},
        {"And": {"Prefix": "logs/", "ObjectSizeGreaterThan": 100, "ObjectSizeLessThan": 1000}}]
    # sizes the bounds leave out, and both bounds exclusive
    for key, size in [("tiny", 9), ("ten", 10), ("logs/100", 100), ("logs/101", 101), ("logs/999", 999),
                      ("logs/1000", 1000), ("other/500", 500)]:
        c.put_object(Bucket=bucket, Key=key, Body=b"x" * size)
    time.sleep(DAY_S + 1)
    lc_run(t)
    keys = sorted(o["Key"] for o in c.list_objects_v2(Bucket=bucket).get("Contents", []))
    assert keys == ["logs/100", "logs/1000", "other/500", "ten"]


@pytest.mark.parametrize("filt, expected", [
    ({"ObjectSizeGreaterThan": 10, "ObjectSizeLessThan": 20}, ("MalformedXML", 400)),
    ({"And": {"Prefix": "a", "ObjectSizeGreaterThan": 20, "ObjectSizeLessThan": 20}}, ("InvalidArgument", 400)),
    ({"ObjectSizeGreaterThan": -1}, ("InvalidArgument", 400)),
])
def test_bad_size_filters_are_refused(t, rsgw_only, bucket, filt, expected):
    rule = {"ID": "r", "Status": "Enabled", "Filter": filt, "Expiration": {"Days": 1}}
    assert error_of(put_rules, t.alice, bucket, [rule])[:2] == expected


@pytest.fixture
def vbucket(t, bucket):
    """The test's bucket with versioning enabled; every version and marker
    deleted afterwards, before the bucket goes."""
    t.alice.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    yield bucket
    for page in t.alice.get_paginator("list_object_versions").paginate(Bucket=bucket):
        doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                  for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
        if doomed:
            t.alice.delete_objects(Bucket=bucket, Delete={"Objects": doomed, "Quiet": True})


def _versions(c, bucket, key):
    """The ids of the versions of `key` (newest first, as listed), and of
    its delete markers."""
    doc = c.list_object_versions(Bucket=bucket, Prefix=key)
    return ([v["VersionId"] for v in doc.get("Versions", []) if v["Key"] == key],
            [m["VersionId"] for m in doc.get("DeleteMarkers", []) if m["Key"] == key])


VERSION_RULES = [
    {"ID": "k", "Status": "Enabled", "Filter": {"Prefix": "k/"},
     "NoncurrentVersionExpiration": {"NoncurrentDays": 1}},
    {"ID": "gone", "Status": "Enabled", "Filter": {"Prefix": "gone/"},
     "Expiration": {"ExpiredObjectDeleteMarker": True}, "NoncurrentVersionExpiration": {"NoncurrentDays": 1}},
]


def test_noncurrent_versions_and_lone_delete_markers(t, vbucket):
    """NoncurrentVersionExpiration deletes versions a day after the next one
    was made; ExpiredObjectDeleteMarker deletes a marker once it is its
    key's only version (a pass after its versions went)."""
    c = t.alice
    current = None
    for body in (b"one", b"two", b"three"):
        current = c.put_object(Bucket=vbucket, Key="k/a", Body=body)["VersionId"]
    c.put_object(Bucket=vbucket, Key="gone/b", Body=b"x")
    c.delete_object(Bucket=vbucket, Key="gone/b")
    c.put_object(Bucket=vbucket, Key="other", Body=b"1")
    c.put_object(Bucket=vbucket, Key="other", Body=b"2")
    put_rules(c, vbucket, VERSION_RULES)
    got = c.get_bucket_lifecycle_configuration(Bucket=vbucket)["Rules"]
    # radosgw answers the rules by ID
    assert got == (sorted(VERSION_RULES, key=lambda r: r["ID"]) if t.is_radosgw else VERSION_RULES)
    time.sleep(DAY_S + 1)
    lc_run(t)
    assert _versions(c, vbucket, "k/a") == ([current], [])
    assert len(_versions(c, vbucket, "other")[0]) == 2
    versions, markers = _versions(c, vbucket, "gone/b")
    assert (versions, len(markers)) == ([], 1)
    # the marker, alone now, goes on the next pass
    lc_run(t)
    assert _versions(c, vbucket, "gone/b") == ([], [])
    assert c.get_object(Bucket=vbucket, Key="k/a")["Body"].read() == b"three"


def test_newer_noncurrent_versions_are_kept(t, rsgw_only, vbucket):
    """NewerNoncurrentVersions keeps a key's newest noncurrent versions
    (radosgw 16.2 has no NewerNoncurrentVersions)."""
    c = t.alice
    ids = [c.put_object(Bucket=vbucket, Key="k", Body=str(i).encode())["VersionId"] for i in range(4)]
    rule = {"ID": "r", "Status": "Enabled", "Filter": {"Prefix": ""},
            "NoncurrentVersionExpiration": {"NoncurrentDays": 1, "NewerNoncurrentVersions": 2}}
    put_rules(c, vbucket, [rule])
    assert c.get_bucket_lifecycle_configuration(Bucket=vbucket)["Rules"] == [rule]
    time.sleep(DAY_S + 1)
    lc_run(t)
    assert _versions(c, vbucket, "k") == (ids[:0:-1], [])
    for bad in ({"NoncurrentDays": 0}, {"NoncurrentDays": 1, "NewerNoncurrentVersions": 101}):
        bad_rule = {**rule, "NoncurrentVersionExpiration": bad}
        assert error_of(put_rules, c, vbucket, [bad_rule])[:2] == ("InvalidArgument", 400), bad
