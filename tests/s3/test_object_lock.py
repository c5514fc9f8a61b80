"""Object lock (issue 36) with boto3 and the aws CLI, the same assertions
against rsgw on each backend and against radosgw: a bucket made with
object lock (versioned for good), its default retention, each version's
retention and legal hold (by the write's headers or set afterwards),
deletes of a locked version refused and a GOVERNANCE retention bypassed,
retentions extended but not shortened, and the flow backup products drive
through the aws CLI. COMPLIANCE retentions last seconds here: the tests
wait them out to clean up."""
import datetime
import json
import os
import subprocess
import time
import uuid

import pytest

from helpers import error_of

DAY = datetime.timedelta(days=1)
# how long a COMPLIANCE retention holds: the calls that must meet it in
# force take well under this, even on a loaded machine
COMPLIANCE_S = 12


def NO_LOCK(t):
    """The code of a version's missing retention or legal hold: AWS's
    NoSuchObjectLockConfiguration; radosgw (Pacific) answers with the
    bucket's, ObjectLockConfigurationNotFoundError."""
    return "ObjectLockConfigurationNotFoundError" if t.is_radosgw else "NoSuchObjectLockConfiguration"


def _now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def _purge(t, name):
    """Every version and marker of a bucket deleted (GOVERNANCE bypassed,
    legal holds lifted), then the bucket."""
    for page in t.alice.get_paginator("list_object_versions").paginate(Bucket=name):
        for v in page.get("Versions", []) + page.get("DeleteMarkers", []):
            kw = dict(Bucket=name, Key=v["Key"], VersionId=v["VersionId"])
            if "Size" in v and _held(t, kw):
                t.alice.put_object_legal_hold(LegalHold={"Status": "OFF"}, **kw)
            t.alice.delete_object(BypassGovernanceRetention=True, **kw)
    t.alice.delete_bucket(Bucket=name)


def _held(t, kw):
    try:
        return t.alice.get_object_legal_hold(**kw)["LegalHold"]["Status"] == "ON"
    except t.alice.exceptions.ClientError:
        return False


@pytest.fixture
def lbucket(t):
    """A fresh bucket of alice's made with object lock; emptied and
    deleted afterwards."""
    name = f"lock-{uuid.uuid4().hex[:20]}"
    t.alice.create_bucket(Bucket=name, ObjectLockEnabledForBucket=True)
    yield name
    _purge(t, name)


def _retention(t, bucket, key, version=None):
    kw = dict(VersionId=version) if version else {}
    r = t.alice.get_object_retention(Bucket=bucket, Key=key, **kw)["Retention"]
    return r["Mode"], r["RetainUntilDate"]


def test_a_locked_bucket_is_versioned_for_good(t, lbucket):
    assert t.alice.get_bucket_versioning(Bucket=lbucket)["Status"] == "Enabled"
    conf = t.alice.get_object_lock_configuration(Bucket=lbucket)["ObjectLockConfiguration"]
    assert conf == {"ObjectLockEnabled": "Enabled"}
    code, status, _ = error_of(t.alice.put_bucket_versioning, Bucket=lbucket,
                               VersioningConfiguration={"Status": "Suspended"})
    assert (code, status) == ("InvalidBucketState", 409)
    assert t.alice.get_bucket_versioning(Bucket=lbucket)["Status"] == "Enabled"
    # only the owner reads or sets the configuration
    assert error_of(t.bob.get_object_lock_configuration, Bucket=lbucket)[:2] == ("AccessDenied", 403)


def test_a_bucket_without_object_lock(t, bucket):
    code, status, _ = error_of(t.alice.get_object_lock_configuration, Bucket=bucket)
    assert (code, status) == ("ObjectLockConfigurationNotFoundError", 404)
    code, status, _ = error_of(t.alice.put_object_lock_configuration, Bucket=bucket,
                               ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"})
    assert (code, status) == ("InvalidBucketState", 409)
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    for get in (t.alice.get_object_legal_hold, t.alice.get_object_retention):
        assert error_of(get, Bucket=bucket, Key="k")[:2] == ("InvalidRequest", 400), get
    code, status, _ = error_of(t.alice.put_object_legal_hold, Bucket=bucket, Key="k",
                               LegalHold={"Status": "ON"})
    assert (code, status) == ("InvalidRequest", 400)
    code, status, _ = error_of(t.alice.put_object_retention, Bucket=bucket, Key="k",
                               Retention={"Mode": "GOVERNANCE", "RetainUntilDate": _now() + DAY})
    assert (code, status) == ("InvalidRequest", 400)


def test_default_retention(t, lbucket):
    for rule, want in [({"Mode": "GOVERNANCE", "Days": 2}, 2 * DAY),
                       ({"Mode": "GOVERNANCE", "Years": 1}, datetime.timedelta(days=365))]:
        conf = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": rule}}
        t.alice.put_object_lock_configuration(Bucket=lbucket, ObjectLockConfiguration=conf)
        got = t.alice.get_object_lock_configuration(Bucket=lbucket)["ObjectLockConfiguration"]
        assert got == conf
        before = _now()
        put = t.alice.put_object(Bucket=lbucket, Key="k", Body=b"data")
        head = t.alice.head_object(Bucket=lbucket, Key="k")
        assert head["ObjectLockMode"] == "GOVERNANCE"
        assert before + want - datetime.timedelta(seconds=2) <= head["ObjectLockRetainUntilDate"] \
            <= _now() + want + datetime.timedelta(seconds=2)
        assert _retention(t, lbucket, "k", put["VersionId"]) == ("GOVERNANCE", head["ObjectLockRetainUntilDate"])
    # a version that asks for its own retention gets it, not the default
    until = _now() + 3 * DAY
    t.alice.put_object(Bucket=lbucket, Key="own", Body=b"x", ObjectLockMode="GOVERNANCE",
                       ObjectLockRetainUntilDate=until)
    assert _retention(t, lbucket, "own") == ("GOVERNANCE", until)
    # no rule: no default
    t.alice.put_object_lock_configuration(Bucket=lbucket, ObjectLockConfiguration={"ObjectLockEnabled": "Enabled"})
    t.alice.put_object(Bucket=lbucket, Key="free", Body=b"x")
    assert "ObjectLockMode" not in t.alice.head_object(Bucket=lbucket, Key="free")
    assert error_of(t.alice.get_object_retention, Bucket=lbucket, Key="free")[:2] == (NO_LOCK(t), 404)
    assert error_of(t.alice.get_object_legal_hold, Bucket=lbucket, Key="free")[:2] == (NO_LOCK(t), 404)


def test_bad_lock_configurations(t, lbucket):
    cases = [({"Mode": "GOVERNANCE", "Days": 0}, ("InvalidRetentionPeriod", 400)),
             ({"Mode": "GOVERNANCE", "Years": -1}, ("InvalidRetentionPeriod", 400)),
             ({"Mode": "GOVERNANCE", "Days": 1, "Years": 1}, ("MalformedXML", 400)),
             ({"Mode": "GOVERNANCE"}, ("MalformedXML", 400)),
             ({"Mode": "SOMETIMES", "Days": 1}, ("MalformedXML", 400))]
    for rule, want in cases:
        conf = {"ObjectLockEnabled": "Enabled", "Rule": {"DefaultRetention": rule}}
        got = error_of(t.alice.put_object_lock_configuration, Bucket=lbucket, ObjectLockConfiguration=conf)
        assert got[:2] == want, rule
    assert "Rule" not in t.alice.get_object_lock_configuration(Bucket=lbucket)["ObjectLockConfiguration"]


def test_governance_retention(t, lbucket):
    until = _now() + DAY
    v = t.alice.put_object(Bucket=lbucket, Key="k", Body=b"kept", ObjectLockMode="GOVERNANCE",
                           ObjectLockRetainUntilDate=until)["VersionId"]
    got = t.alice.get_object(Bucket=lbucket, Key="k", VersionId=v)
    assert (got["ObjectLockMode"], got["ObjectLockRetainUntilDate"]) == ("GOVERNANCE", until)
    # deleting the version is refused; a plain DELETE makes a marker
    code, status, _ = error_of(t.alice.delete_object, Bucket=lbucket, Key="k", VersionId=v)
    assert (code, status) == ("AccessDenied", 403)
    assert t.alice.delete_object(Bucket=lbucket, Key="k")["DeleteMarker"] is True
    assert t.alice.get_object(Bucket=lbucket, Key="k", VersionId=v)["Body"].read() == b"kept"
    # DeleteObjects answers the version's error, and deletes the rest
    free = t.alice.put_object(Bucket=lbucket, Key="free", Body=b"x")["VersionId"]
    out = t.alice.delete_objects(Bucket=lbucket, Delete={"Objects": [
        {"Key": "k", "VersionId": v}, {"Key": "free", "VersionId": free}]})
    assert [(d["Key"], d["VersionId"]) for d in out.get("Deleted", [])] == [("free", free)]
    assert [(e["Key"], e["Code"]) for e in out["Errors"]] == [("k", "AccessDenied")]
    # extended: allowed; shortened: only with a bypass
    longer = until + DAY
    t.alice.put_object_retention(Bucket=lbucket, Key="k", VersionId=v,
                                 Retention={"Mode": "GOVERNANCE", "RetainUntilDate": longer})
    assert _retention(t, lbucket, "k", v) == ("GOVERNANCE", longer)
    code, status, _ = error_of(t.alice.put_object_retention, Bucket=lbucket, Key="k", VersionId=v,
                               Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until})
    assert (code, status) == ("AccessDenied", 403)
    t.alice.put_object_retention(Bucket=lbucket, Key="k", VersionId=v, BypassGovernanceRetention=True,
                                 Retention={"Mode": "GOVERNANCE", "RetainUntilDate": until})
    assert _retention(t, lbucket, "k", v) == ("GOVERNANCE", until)
    # the owner deletes it with a bypass
    out = t.alice.delete_object(Bucket=lbucket, Key="k", VersionId=v, BypassGovernanceRetention=True)
    assert out["VersionId"] == v
    code, status, _ = error_of(t.alice.head_object, Bucket=lbucket, Key="k", VersionId=v)
    assert status == 404


def test_compliance_retention(t, lbucket):
    until = _now() + datetime.timedelta(seconds=COMPLIANCE_S)
    v = t.alice.put_object(Bucket=lbucket, Key="k", Body=b"kept", ObjectLockMode="COMPLIANCE",
                           ObjectLockRetainUntilDate=until)["VersionId"]
    assert _retention(t, lbucket, "k") == ("COMPLIANCE", until)
    # no bypass, no shortening, no change to GOVERNANCE
    code, status, _ = error_of(t.alice.delete_object, Bucket=lbucket, Key="k", VersionId=v,
                               BypassGovernanceRetention=True)
    assert (code, status) == ("AccessDenied", 403)
    for mode, when in [("COMPLIANCE", until - datetime.timedelta(seconds=5)), ("GOVERNANCE", until + DAY)]:
        code, status, _ = error_of(t.alice.put_object_retention, Bucket=lbucket, Key="k", VersionId=v,
                                   BypassGovernanceRetention=True,
                                   Retention={"Mode": mode, "RetainUntilDate": when})
        assert (code, status) == ("AccessDenied", 403), mode
    # extended by a second: allowed
    longer = until + datetime.timedelta(seconds=1)
    t.alice.put_object_retention(Bucket=lbucket, Key="k", VersionId=v,
                                 Retention={"Mode": "COMPLIANCE", "RetainUntilDate": longer})
    assert _retention(t, lbucket, "k", v) == ("COMPLIANCE", longer)
    # once it has passed, the version goes
    time.sleep(max(0.0, (longer - _now()).total_seconds()) + 1.5)
    t.alice.delete_object(Bucket=lbucket, Key="k", VersionId=v)


def test_legal_hold(t, lbucket):
    v = t.alice.put_object(Bucket=lbucket, Key="k", Body=b"held", ObjectLockLegalHoldStatus="ON")["VersionId"]
    assert t.alice.head_object(Bucket=lbucket, Key="k")["ObjectLockLegalHoldStatus"] == "ON"
    assert t.alice.get_object_legal_hold(Bucket=lbucket, Key="k")["LegalHold"] == {"Status": "ON"}
    code, status, _ = error_of(t.alice.delete_object, Bucket=lbucket, Key="k", VersionId=v,
                               BypassGovernanceRetention=True)
    assert (code, status) == ("AccessDenied", 403)
    t.alice.put_object_legal_hold(Bucket=lbucket, Key="k", VersionId=v, LegalHold={"Status": "OFF"})
    assert t.alice.get_object_legal_hold(Bucket=lbucket, Key="k", VersionId=v)["LegalHold"] == {"Status": "OFF"}
    # a hold set afterwards on an older version
    v2 = t.alice.put_object(Bucket=lbucket, Key="k", Body=b"newer")["VersionId"]
    t.alice.put_object_legal_hold(Bucket=lbucket, Key="k", VersionId=v, LegalHold={"Status": "ON"})
    code, status, _ = error_of(t.alice.delete_object, Bucket=lbucket, Key="k", VersionId=v)
    assert (code, status) == ("AccessDenied", 403)
    t.alice.delete_object(Bucket=lbucket, Key="k", VersionId=v2)
    code, status, _ = error_of(t.alice.put_object_legal_hold, Bucket=lbucket, Key="k", VersionId=v,
                               LegalHold={"Status": "MAYBE"})
    assert (code, status) == ("MalformedXML", 400)
    t.alice.put_object_legal_hold(Bucket=lbucket, Key="k", VersionId=v, LegalHold={"Status": "OFF"})
    t.alice.delete_object(Bucket=lbucket, Key="k", VersionId=v)


def test_locks_of_multipart_uploads_and_copies(t, lbucket):
    until = _now() + DAY
    up = t.alice.create_multipart_upload(Bucket=lbucket, Key="mp", ObjectLockMode="GOVERNANCE",
                                         ObjectLockRetainUntilDate=until, ObjectLockLegalHoldStatus="ON")
    part = t.alice.upload_part(Bucket=lbucket, Key="mp", UploadId=up["UploadId"], PartNumber=1, Body=b"p" * 100)
    done = t.alice.complete_multipart_upload(Bucket=lbucket, Key="mp", UploadId=up["UploadId"], MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    head = t.alice.head_object(Bucket=lbucket, Key="mp", VersionId=done["VersionId"])
    got = tuple(head.get(f"ObjectLock{f}") for f in ("Mode", "RetainUntilDate", "LegalHoldStatus"))
    # radosgw 16.2 drops the upload's lock headers: the version has no lock
    assert got == ((None,) * 3 if t.is_radosgw else ("GOVERNANCE", until, "ON"))
    # a copy gets the locks its request asks for, not its source's;
    # radosgw 16.2 drops a copy's lock headers too, and names no version
    # of the copy (its current one is it)
    copy = t.alice.copy_object(Bucket=lbucket, Key="copy", CopySource={"Bucket": lbucket, "Key": "mp"},
                               ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=until + DAY)
    head = t.alice.head_object(Bucket=lbucket, Key="copy", **(
        {} if t.is_radosgw else dict(VersionId=copy["VersionId"])))
    got = tuple(head.get(f"ObjectLock{f}") for f in ("Mode", "RetainUntilDate", "LegalHoldStatus"))
    assert got == ((None,) * 3 if t.is_radosgw else ("GOVERNANCE", until + DAY, None))


def test_bad_lock_headers(t, lbucket):
    past = _now() - DAY
    cases = [(dict(ObjectLockMode="GOVERNANCE"), ("InvalidArgument", 400)),
             (dict(ObjectLockRetainUntilDate=_now() + DAY), ("InvalidArgument", 400)),
             (dict(ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=past), ("InvalidArgument", 400)),
             (dict(ObjectLockMode="SOMETIMES", ObjectLockRetainUntilDate=_now() + DAY), ("InvalidArgument", 400)),
             (dict(ObjectLockLegalHoldStatus="MAYBE"), ("InvalidArgument", 400))]
    for kw, want in cases:
        assert error_of(t.alice.put_object, Bucket=lbucket, Key="bad", Body=b"x", **kw)[:2] == want, kw
    assert t.alice.list_object_versions(Bucket=lbucket).get("Versions", []) == []
    # a retention in the past, set afterwards
    t.alice.put_object(Bucket=lbucket, Key="k", Body=b"x")
    code, status, _ = error_of(t.alice.put_object_retention, Bucket=lbucket, Key="k",
                               Retention={"Mode": "GOVERNANCE", "RetainUntilDate": past})
    assert (code, status) == ("InvalidArgument", 400)


def test_bypass_needs_its_permission(t, lbucket):
    """bob, allowed to delete versions by the bucket's policy, may bypass
    a GOVERNANCE retention only when allowed s3:BypassGovernanceRetention
    too (AWS); radosgw (Pacific) lets him unless a policy denies it."""
    until = _now() + DAY
    v = t.alice.put_object(Bucket=lbucket, Key="k", Body=b"x", ObjectLockMode="GOVERNANCE",
                           ObjectLockRetainUntilDate=until)["VersionId"]

    def allow(*actions):
        stmt = dict(Effect="Allow", Principal={"AWS": ["arn:aws:iam:::user/bob"]}, Action=list(actions),
                    Resource=[f"arn:aws:s3:::{lbucket}/*"])
        t.alice.put_bucket_policy(Bucket=lbucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [stmt]}))

    allow("s3:DeleteObjectVersion", "s3:GetObjectRetention")
    assert t.bob.get_object_retention(Bucket=lbucket, Key="k", VersionId=v)["Retention"]["Mode"] == "GOVERNANCE"
    code, status, _ = error_of(t.bob.delete_object, Bucket=lbucket, Key="k", VersionId=v)
    assert (code, status) == ("AccessDenied", 403)
    if not t.is_radosgw:
        code, status, _ = error_of(t.bob.delete_object, Bucket=lbucket, Key="k", VersionId=v,
                                   BypassGovernanceRetention=True)
        assert (code, status) == ("AccessDenied", 403)
        allow("s3:DeleteObjectVersion", "s3:BypassGovernanceRetention")
    t.bob.delete_object(Bucket=lbucket, Key="k", VersionId=v, BypassGovernanceRetention=True)
    assert t.alice.list_object_versions(Bucket=lbucket).get("Versions", []) == []


def _aws(t, tmp_path, *args):
    cfg = tmp_path / "aws-config"
    cfg.write_text("[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n")
    env = dict(os.environ)
    env.pop("AWS_CA_BUNDLE", None)
    env.update({"AWS_ACCESS_KEY_ID": os.environ["ALICE_AK"], "AWS_SECRET_ACCESS_KEY": os.environ["ALICE_SK"],
                "AWS_CONFIG_FILE": str(cfg), "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")})
    cmd = ["/usr/bin/aws", "--endpoint-url", t.endpoint, "--output", "json", "s3api", *args]
    r = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def _ok(got):
    rc, out, err = got
    assert rc == 0, err
    return json.loads(out) if out.strip() else {}


def test_backup_flow_with_the_aws_cli(t, tmp_path):
    """What a backup product does: a locked bucket with a default
    retention, an upload that asks for a longer one, attempts to delete
    it and to shorten it, a legal hold on and off, and the clean-up a
    GOVERNANCE retention allows."""
    name = f"lock-{uuid.uuid4().hex[:20]}"
    _ok(_aws(t, tmp_path, "create-bucket", "--bucket", name, "--object-lock-enabled-for-bucket"))
    try:
        _ok(_aws(t, tmp_path, "put-object-lock-configuration", "--bucket", name, "--object-lock-configuration",
                 '{"ObjectLockEnabled":"Enabled","Rule":{"DefaultRetention":{"Mode":"GOVERNANCE","Days":1}}}'))
        (tmp_path / "backup.tar").write_bytes(os.urandom(64 * 1024))
        until = (_now() + 7 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ")
        v = _ok(_aws(t, tmp_path, "put-object", "--bucket", name, "--key", "backup.tar", "--body",
                     str(tmp_path / "backup.tar"), "--object-lock-mode", "GOVERNANCE",
                     "--object-lock-retain-until-date", until))["VersionId"]
        got = _ok(_aws(t, tmp_path, "get-object-retention", "--bucket", name, "--key", "backup.tar"))
        assert got["Retention"]["Mode"] == "GOVERNANCE"
        rc, _, err = _aws(t, tmp_path, "delete-object", "--bucket", name, "--key", "backup.tar", f"--version-id={v}")
        assert rc != 0 and "AccessDenied" in err, err
        shorter = (_now() + 2 * DAY).strftime("%Y-%m-%dT%H:%M:%SZ")
        rc, _, err = _aws(t, tmp_path, "put-object-retention", "--bucket", name, "--key", "backup.tar",
                          "--retention", f'{{"Mode":"GOVERNANCE","RetainUntilDate":"{shorter}"}}')
        assert rc != 0 and "AccessDenied" in err, err
        _ok(_aws(t, tmp_path, "put-object-legal-hold", "--bucket", name, "--key", "backup.tar",
                 "--legal-hold", "Status=ON"))
        assert _ok(_aws(t, tmp_path, "get-object-legal-hold", "--bucket", name, "--key", "backup.tar"))[
            "LegalHold"]["Status"] == "ON"
        rc, _, err = _aws(t, tmp_path, "delete-object", "--bucket", name, "--key", "backup.tar", f"--version-id={v}",
                          "--bypass-governance-retention")
        assert rc != 0 and "AccessDenied" in err, err
        _ok(_aws(t, tmp_path, "put-object-legal-hold", "--bucket", name, "--key", "backup.tar",
                 "--legal-hold", "Status=OFF"))
        _ok(_aws(t, tmp_path, "delete-object", "--bucket", name, "--key", "backup.tar", f"--version-id={v}",
                 "--bypass-governance-retention"))
    finally:
        _purge(t, name)
