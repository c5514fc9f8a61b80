"""Conformance with radosgw (the reference, run in the same session) and
AWS where clients notice the difference (issue 15)."""
import datetime
import hashlib
import http.client
import os
import re
import urllib.error
import urllib.parse
import urllib.request
import uuid

import botocore
import botocore.auth

from helpers import error_of
from sigv4 import signed_headers, streaming_upload


def _complete(t, bucket, key, uid, parts):
    return t.alice.complete_multipart_upload(
        Bucket=bucket, Key=key, UploadId=uid,
        MultipartUpload={"Parts": [{"PartNumber": n, "ETag": e} for n, e in parts]},
    )


def _result(r):
    return {k: r.get(k) for k in ("ETag", "Location", "Bucket", "Key")}


def test_retried_complete_answers_the_same_result(t, bucket):
    # a client whose first response was lost retries the same request
    uid = t.alice.create_multipart_upload(Bucket=bucket, Key="retried")["UploadId"]
    etag = t.alice.upload_part(Bucket=bucket, Key="retried", UploadId=uid, PartNumber=1, Body=b"only part")["ETag"]
    first = _complete(t, bucket, "retried", uid, [(1, etag)])
    again = _complete(t, bucket, "retried", uid, [(1, etag)])
    want = _result(first)
    if t.is_radosgw:
        # radosgw (Pacific) leaves the first result's ETag empty and gives
        # the retry the object's ETag, unquoted
        want["ETag"] = t.alice.head_object(Bucket=bucket, Key="retried")["ETag"].strip('"')
        assert first["ETag"] == ""
    assert _result(again) == want
    assert first["Bucket"] == bucket and first["Key"] == "retried"
    assert t.alice.get_object(Bucket=bucket, Key="retried")["Body"].read() == b"only part"
    # the upload itself is gone: it cannot be listed or aborted-and-redone
    assert not t.alice.list_multipart_uploads(Bucket=bucket).get("Uploads")


def test_retried_complete_after_the_object_changed(t, bucket):
    # once the key holds another version, the completed upload is forgotten
    uid = t.alice.create_multipart_upload(Bucket=bucket, Key="moved")["UploadId"]
    etag = t.alice.upload_part(Bucket=bucket, Key="moved", UploadId=uid, PartNumber=1, Body=b"part")["ETag"]
    _complete(t, bucket, "moved", uid, [(1, etag)])
    t.alice.put_object(Bucket=bucket, Key="moved", Body=b"overwritten")
    code, status, _ = error_of(_complete, t, bucket, "moved", uid, [(1, etag)])
    # radosgw (Pacific) answers 500 InternalError ("This multipart completion
    # is already in progress"); AWS and rsgw: the upload is gone
    assert (code, status) == (("InternalError", 500) if t.is_radosgw else ("NoSuchUpload", 404))
    assert t.alice.get_object(Bucket=bucket, Key="moved")["Body"].read() == b"overwritten"


def test_part_uploaded_twice_first_finishing_last(t, bucket):
    # s3-tests' test_multipart_resend_first_finishes_last: the client names
    # part 1 once per upload in the order the responses came (B, then A);
    # A finished last, so it is the part ListParts shows and the object holds
    uid = t.alice.create_multipart_upload(Bucket=bucket, Key="twice")["UploadId"]
    etag_b = t.alice.upload_part(Bucket=bucket, Key="twice", UploadId=uid, PartNumber=1, Body=b"B" * 8)["ETag"]
    etag_a = t.alice.upload_part(Bucket=bucket, Key="twice", UploadId=uid, PartNumber=1, Body=b"A" * 8)["ETag"]
    listed = t.alice.list_parts(Bucket=bucket, Key="twice", UploadId=uid)["Parts"]
    assert [(p["PartNumber"], p["ETag"]) for p in listed] == [(1, etag_a)]
    _complete(t, bucket, "twice", uid, [(1, etag_b), (1, etag_a)])
    g = t.alice.get_object(Bucket=bucket, Key="twice")
    assert g["Body"].read() == b"A" * 8
    assert g["ETag"] == '"%s-1"' % hashlib.md5(hashlib.md5(b"A" * 8).digest()).hexdigest()


def test_bucket_names_with_dot_dash(t):
    for name in [f"a.-{uuid.uuid4().hex[:8]}", f"a-.{uuid.uuid4().hex[:8]}"]:
        code, status, _ = error_of(t.alice.create_bucket, Bucket=name)
        assert (code, status) == ("InvalidBucketName", 400), name


def test_recreate_own_bucket_succeeds(t, bucket):
    # radosgw and AWS us-east-1 answer 200; the bucket and its ACL stay
    t.alice.put_object(Bucket=bucket, Key="kept", Body=b"x")
    r = t.alice.create_bucket(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket)["Contents"]] == ["kept"]
    code, status, _ = error_of(t.bob.create_bucket, Bucket=bucket)
    assert (code, status) == ("BucketAlreadyExists", 409)


def _raw(t, method, path, headers, body=b""):
    req = urllib.request.Request(f"{t.endpoint}{path}", data=body, method=method,
                                 headers=signed_headers(t.endpoint, method, path, headers))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def test_empty_content_md5_is_refused(t, bucket):
    status, body, _ = _raw(t, "PUT", f"/{bucket}/md5", {"Content-MD5": "", "Content-Length": "5"}, b"hello")
    assert (status, b"<Code>InvalidDigest</Code>" in body) == (400, True), body
    code, status, _ = error_of(t.alice.head_object, Bucket=bucket, Key="md5")
    assert status == 404


def test_not_modified_carries_etag_and_last_modified(t, bucket):
    etag = t.alice.put_object(Bucket=bucket, Key="cond", Body=b"cond")["ETag"]
    head = t.alice.head_object(Bucket=bucket, Key="cond")
    later = head["LastModified"] + datetime.timedelta(hours=1)
    for fn in (t.alice.get_object, t.alice.head_object):
        for cond in ({"IfNoneMatch": etag}, {"IfModifiedSince": later}):
            _, status, resp = error_of(fn, Bucket=bucket, Key="cond", **cond)
            h = resp["ResponseMetadata"]["HTTPHeaders"]
            assert status == 304, cond
            if t.is_radosgw:
                # radosgw (Pacific) sends neither; AWS and rsgw send both
                assert "etag" not in h and "last-modified" not in h, (fn, cond, h)
                continue
            assert h.get("etag") == etag, (fn, cond, h)
            assert h.get("last-modified") == head["ResponseMetadata"]["HTTPHeaders"]["last-modified"], (fn, cond, h)


def _listing(t, bucket, query):
    """A raw listing's XML (the clients would decode it): the body."""
    status, body, _ = _raw(t, "GET", f"/{bucket}?{query}", {})
    assert status == 200, (query, body[:300])
    return body


def _texts(body, element):
    return re.findall(rb"<%s>(.*?)</%s>" % (element.encode(), element.encode()), body, re.S)


LISTINGS = {"v1": "", "v2": "list-type=2&", "versions": "versions&"}


def test_listing_echoes(t, bucket):
    keys = ["a/1", "a/2", "b"]
    for k in keys:
        t.alice.put_object(Bucket=bucket, Key=k, Body=b"x")
    for name, q in LISTINGS.items():
        # an empty delimiter delimits nothing and is not echoed
        body = _listing(t, bucket, q + "delimiter=")
        assert b"<Delimiter" not in body, (name, body)
        assert b"<CommonPrefixes>" not in body, (name, body)
        assert [k.decode() for k in _texts(body, "Key")] == keys, (name, body)
        # max-keys=0: nothing, and nothing more to come
        body = _listing(t, bucket, q + "max-keys=0")
        assert _texts(body, "IsTruncated") == [b"false"], (name, body)
        assert _texts(body, "Key") == [], (name, body)
    r = t.alice.list_objects(Bucket=bucket, Delimiter="")
    assert "Delimiter" not in r and [o["Key"] for o in r["Contents"]] == keys
    assert t.alice.list_objects_v2(Bucket=bucket, MaxKeys=0)["IsTruncated"] is False


def test_listing_prefix_comes_back_as_given(t, bucket):
    # botocore asks every listing for encoding-type=url and decodes what S3
    # encodes: v1's Delimiter, Marker and keys, but not v1's Prefix, which
    # radosgw echoes as given (s3-tests' test_bucket_list_prefix_unreadable)
    for k in ["a b/1", "\nkey", "x%41y"]:
        t.alice.put_object(Bucket=bucket, Key=k, Body=b"x")
    for prefix, key in [("a b/", "a b/1"), ("\n", "\nkey"), ("x%41", "x%41y")]:
        r = t.alice.list_objects(Bucket=bucket, Prefix=prefix)
        assert (r["Prefix"], [o["Key"] for o in r["Contents"]]) == (prefix, [key]), prefix
        for r in (t.alice.list_objects_v2(Bucket=bucket, Prefix=prefix),
                  t.alice.list_object_versions(Bucket=bucket, Prefix=prefix)):
            if t.is_radosgw and "%" in prefix:
                # radosgw (Pacific) does not encode v2's and versions' Prefix,
                # which botocore decodes: x%41 comes back as xA (AWS encodes)
                assert r["Prefix"] == "xA"
                continue
            assert r["Prefix"] == prefix, (prefix, r)


def test_listing_control_characters_without_encoding(t, bucket):
    # no encoding-type=url: keys, prefixes and delimiters go out as XML
    # text, control characters as character references (XML 1.0 has no
    # other way), tab and line feed as they are: radosgw's answer
    keys = ["c\x01d", "e\x7ff", "cr\rkey", "tab\tkey", "nl\nkey"]
    for k in keys:
        t.alice.put_object(Bucket=bucket, Key=k, Body=b"x")
    try:
        _check_control_characters(t, bucket)
    finally:
        # one by one: radosgw refuses a DeleteObjects document holding them
        for k in keys:
            t.alice.delete_object(Bucket=bucket, Key=k)


def _check_control_characters(t, bucket):
    for name, q in LISTINGS.items():
        body = _listing(t, bucket, q + "prefix=c%01")
        assert _texts(body, "Prefix") == [b"c&#x01;"], (name, body)
        assert _texts(body, "Key") == [b"c&#x01;d"], (name, body)
        body = _listing(t, bucket, q + "delimiter=%01")
        assert _texts(body, "Delimiter") == [b"&#x01;"], (name, body)
        assert b"<CommonPrefixes><Prefix>c&#x01;</Prefix></CommonPrefixes>" in body, (name, body)
        assert set(_texts(body, "Key")) == {b"cr&#x0d;key", b"e&#x7f;f", b"nl\nkey", b"tab\tkey"}, (name, body)
    # asked for, url encoding covers the keys
    body = _listing(t, bucket, "prefix=c%01&encoding-type=url")
    assert _texts(body, "Key") == [b"c%01d"], body


def _presigned(t, bucket, method, expires):
    op = {"GET": "get_object", "PUT": "put_object"}[method]
    url = t.alice.generate_presigned_url(op, Params={"Bucket": bucket, "Key": "signed"}, ExpiresIn=expires)
    req = urllib.request.Request(url, data=b"by url" if method == "PUT" else None, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, None
    except urllib.error.HTTPError as e:
        return e.code, re.search(rb"<Code>(.*?)</Code>", e.read()).group(1).decode()


def test_presigned_expiry_limits(t, bucket, monkeypatch):
    t.alice.put_object(Bucket=bucket, Key="signed", Body=b"x")
    for method in ("GET", "PUT"):
        # 7 days is the most SigV4 allows
        assert _presigned(t, bucket, method, 604800) == (200, None), method
        # beyond, or negative: radosgw answers 403 AccessDenied, and so does
        # rsgw (AWS: 400 AuthorizationQueryParametersError)
        for expires in (604801, -1, 10**10):
            assert _presigned(t, bucket, method, expires) == (403, "AccessDenied"), (method, expires)
    # signed an hour ago, valid for a minute: expired
    now = botocore.auth.get_current_datetime
    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: now() - datetime.timedelta(hours=1))
    for method in ("GET", "PUT"):
        assert _presigned(t, bucket, method, 60) == (403, "AccessDenied"), method
    monkeypatch.undo()
    assert t.alice.get_object(Bucket=bucket, Key="signed")["Body"].read() == b"by url"


def test_bucket_location_names_the_zonegroup(t, bucket):
    # radosgw names its zonegroup (this cluster's only one, "default"); rsgw
    # names s3.zonegroup, "default" unless configured
    assert t.alice.get_bucket_location(Bucket=bucket)["LocationConstraint"] == "default"
    status, body, _ = _raw(t, "GET", f"/{bucket}?location", {})
    assert status == 200
    assert re.search(rb"<LocationConstraint[^>]*>default</LocationConstraint>", body), body
    # the owner's to ask, even of a public bucket
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    code, status, _ = error_of(t.bob.get_bucket_location, Bucket=bucket)
    assert (code, status) == ("AccessDenied", 403)


def _upload(t, path, headers, body, chunked):
    """Sends a prepared PUT, its body framed by Content-Length or, with
    `chunked`, Transfer-Encoding: chunked: (status, S3 error code)."""
    host = urllib.parse.urlparse(t.endpoint)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=30)
    try:
        if chunked:
            pieces = (body[i:i + 10000] for i in range(0, len(body), 10000))
            conn.request("PUT", path, body=pieces, headers=headers, encode_chunked=True)
        else:
            conn.request("PUT", path, body=body, headers=headers)
    except OSError:
        pass  # answered (and closed) before the whole body went
    r = conn.getresponse()
    code = re.search(rb"<Code>(.*?)</Code>", r.read())
    conn.close()
    return r.status, code and code.group(1).decode()


def _encoding(t, bucket, key):
    return t.alice.head_object(Bucket=bucket, Key=key).get("ContentEncoding")


def test_aws_chunked_is_no_content_encoding(t, bucket):
    # aws-chunked names the upload's framing: AWS stores the rest of
    # Content-Encoding (gzip) and none for aws-chunked alone; radosgw
    # (Pacific) stores what was sent
    data = os.urandom(100_000)
    for key, sent, stored in [("gz", "gzip, aws-chunked", "gzip"), ("plain", "aws-chunked", None),
                              ("gz-first", "aws-chunked, gzip", "gzip"), ("none", None, None)]:
        headers, body = streaming_upload(t.endpoint, f"/{bucket}/{key}", data, {"Content-Encoding": sent})
        assert _upload(t, f"/{bucket}/{key}", headers, body, chunked=False) == (200, None), key
        assert t.alice.get_object(Bucket=bucket, Key=key)["Body"].read() == data, key
        assert _encoding(t, bucket, key) == (sent if t.is_radosgw else stored), key


def test_aws_chunked_upload_without_content_length(t, bucket):
    # an aws-chunked body sent with Transfer-Encoding: chunked, its length
    # in x-amz-decoded-content-length only: radosgw takes it, as AWS does
    data = os.urandom(100_000)
    headers, body = streaming_upload(t.endpoint, f"/{bucket}/te", data, {"Content-Encoding": "gzip, aws-chunked"},
                                     content_length=False)
    assert "Content-Length" not in headers
    assert _upload(t, f"/{bucket}/te", headers, body, chunked=True) == (200, None)
    assert t.alice.get_object(Bucket=bucket, Key="te")["Body"].read() == data
    assert _encoding(t, bucket, "te") == ("gzip, aws-chunked" if t.is_radosgw else "gzip")
    # without the decoded length there is no length at all: rsgw answers
    # 411 MissingContentLength, as for a plain chunked PUT (test_malformed);
    # radosgw (Pacific) 400 InvalidArgument
    headers, body = streaming_upload(t.endpoint, f"/{bucket}/nolen", data,
                                     {"x-amz-decoded-content-length": None}, content_length=False)
    got = _upload(t, f"/{bucket}/nolen", headers, body, chunked=True)
    assert got == ((400, "InvalidArgument") if t.is_radosgw else (411, "MissingContentLength"))
    _, status, _ = error_of(t.alice.head_object, Bucket=bucket, Key="nolen")
    assert status == 404


ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTH_USERS = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"
ALICE = ("alice", "Alice")
BOB = ("bob", "Bob")


def _user(who, perm):
    return {"Grantee": {"DisplayName": who[1], "ID": who[0], "Type": "CanonicalUser"}, "Permission": perm}


def _group(uri, perm):
    return {"Grantee": {"Type": "Group", "URI": uri}, "Permission": perm}


# each canned ACL's grants as radosgw lists them, for an owner in their own
# bucket: groups first, in the canned ACL's order, then users by ID
CANNED = {
    "private": [],
    "public-read": [_group(ALL_USERS, "READ")],
    "public-read-write": [_group(ALL_USERS, "READ"), _group(ALL_USERS, "WRITE")],
    "authenticated-read": [_group(AUTH_USERS, "READ")],
    "bucket-owner-read": [],
    "bucket-owner-full-control": [],
}


def _acl(r):
    return r["Owner"], r["Grants"]


def test_canned_acl_documents(t, bucket):
    owner = {"DisplayName": "Alice", "ID": "alice"}
    for acl, groups in CANNED.items():
        want = (owner, groups + [_user(ALICE, "FULL_CONTROL")])
        t.alice.put_object(Bucket=bucket, Key=acl, Body=b"x", ACL=acl)
        assert _acl(t.alice.get_object_acl(Bucket=bucket, Key=acl)) == want, acl
        t.alice.put_bucket_acl(Bucket=bucket, ACL=acl)
        assert _acl(t.alice.get_bucket_acl(Bucket=bucket)) == want, acl
        name = f"c-{uuid.uuid4().hex[:20]}"
        t.alice.create_bucket(Bucket=name, ACL=acl)
        try:
            got = _acl(t.alice.get_bucket_acl(Bucket=name))
        finally:
            t.alice.delete_bucket(Bucket=name)
        if t.is_radosgw and acl.startswith("bucket-owner-"):
            # radosgw (Pacific) creates the bucket with a grant to a user
            # with an empty ID; AWS ignores these two on buckets, as rsgw
            # does, and radosgw's own PutBucketAcl above shows the owner alone
            perm = "READ" if acl == "bucket-owner-read" else "FULL_CONTROL"
            want = (owner, [{"Grantee": {"ID": "", "Type": "CanonicalUser"}, "Permission": perm},
                            _user(ALICE, "FULL_CONTROL")])
        assert got == want, acl


def test_acls_of_another_users_objects(t, bucket):
    # bob writes into alice's public-read-write bucket: his objects are his
    # own; the bucket-owner ACLs grant alice what they name, nothing more
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    bob = {"DisplayName": "Bob", "ID": "bob"}
    cases = {
        # ACL: (grants, alice may read, alice may read and set the ACL)
        "private": ([_user(BOB, "FULL_CONTROL")], False, False),
        "public-read": ([_group(ALL_USERS, "READ"), _user(BOB, "FULL_CONTROL")], True, False),
        "bucket-owner-read": ([_user(ALICE, "READ"), _user(BOB, "FULL_CONTROL")], True, False),
        "bucket-owner-full-control": ([_user(ALICE, "FULL_CONTROL"), _user(BOB, "FULL_CONTROL")], True, True),
    }
    for acl, (grants, reads, acp) in cases.items():
        t.bob.put_object(Bucket=bucket, Key=acl, Body=b"bob's", ACL=acl)
        assert _acl(t.bob.get_object_acl(Bucket=bucket, Key=acl)) == (bob, grants), acl
        if reads:
            assert t.alice.get_object(Bucket=bucket, Key=acl)["Body"].read() == b"bob's", acl
        else:
            assert error_of(t.alice.get_object, Bucket=bucket, Key=acl)[:2] == ("AccessDenied", 403), acl
        if acp:
            assert _acl(t.alice.get_object_acl(Bucket=bucket, Key=acl)) == (bob, grants), acl
            t.alice.put_object_acl(Bucket=bucket, Key=acl, ACL="private")
            assert _acl(t.bob.get_object_acl(Bucket=bucket, Key=acl)) == (bob, [_user(BOB, "FULL_CONTROL")]), acl
        else:
            assert error_of(t.alice.get_object_acl, Bucket=bucket, Key=acl)[:2] == ("AccessDenied", 403), acl
            code, status, _ = error_of(t.alice.put_object_acl, Bucket=bucket, Key=acl, ACL="private")
            assert (code, status) == ("AccessDenied", 403), acl
    # an anonymous writer's object is the bucket owner's
    anonymous = t.client("", "", signature_version=botocore.UNSIGNED)
    anonymous.put_object(Bucket=bucket, Key="anonymous", Body=b"anon")
    owner = {"DisplayName": "Alice", "ID": "alice"}
    assert _acl(t.alice.get_object_acl(Bucket=bucket, Key="anonymous")) == (owner, [_user(ALICE, "FULL_CONTROL")])
    assert t.alice.get_object(Bucket=bucket, Key="anonymous")["Body"].read() == b"anon"


def test_copy_of_another_users_readable_object(t, bucket):
    for acl in ("public-read", "authenticated-read", "private"):
        t.alice.put_object(Bucket=bucket, Key=acl, Body=acl.encode(), ACL=acl)
    t.alice.put_object(Bucket=bucket, Key="bucket-public", Body=b"x")
    theirs = f"c-{uuid.uuid4().hex[:20]}"
    t.bob.create_bucket(Bucket=theirs)
    try:
        # the source object's ACL is what counts, not its bucket's
        for acl in ("public-read", "authenticated-read"):
            t.bob.copy_object(Bucket=theirs, Key=acl, CopySource={"Bucket": bucket, "Key": acl})
            assert t.bob.get_object(Bucket=theirs, Key=acl)["Body"].read() == acl.encode()
            # the copy is bob's, private
            assert _acl(t.bob.get_object_acl(Bucket=theirs, Key=acl))[1] == [_user(BOB, "FULL_CONTROL")]
        code, status, _ = error_of(t.bob.copy_object, Bucket=theirs, Key="no", CopySource={"Bucket": bucket, "Key": "private"})
        assert (code, status) == ("AccessDenied", 403)
        t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
        code, status, _ = error_of(t.bob.copy_object, Bucket=theirs, Key="no",
                                   CopySource={"Bucket": bucket, "Key": "bucket-public"})
        assert (code, status) == ("AccessDenied", 403)
        # bob copies into alice's bucket, handing her full control of the copy
        t.bob.copy_object(Bucket=bucket, Key="handed", CopySource={"Bucket": theirs, "Key": "public-read"},
                          ACL="bucket-owner-full-control")
        assert t.alice.get_object(Bucket=bucket, Key="handed")["Body"].read() == b"public-read"
        assert _acl(t.alice.get_object_acl(Bucket=bucket, Key="handed"))[1] == [
            _user(ALICE, "FULL_CONTROL"), _user(BOB, "FULL_CONTROL")]
        # alice copies what bob's bucket-owner-read object lets her read
        t.bob.put_object(Bucket=bucket, Key="readable", Body=b"for alice", ACL="bucket-owner-read")
        t.alice.copy_object(Bucket=bucket, Key="mine", CopySource={"Bucket": bucket, "Key": "readable"})
        assert t.alice.get_object(Bucket=bucket, Key="mine")["Body"].read() == b"for alice"
    finally:
        for o in t.bob.list_objects_v2(Bucket=theirs).get("Contents", []):
            t.bob.delete_object(Bucket=theirs, Key=o["Key"])
        t.bob.delete_bucket(Bucket=theirs)
