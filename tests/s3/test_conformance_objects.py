"""The object operations parameter by parameter (issue 15): PutObject,
GetObject, HeadObject, DeleteObject, DeleteObjects, CopyObject,
Get/PutObjectAcl, the tagging limits, and the object operations rsgw does
not implement, each request header, query parameter and documented error
of AWS's S3 API reference against rsgw on both backends and radosgw (the
reference) in the same run. radosgw's differing answers are asserted in
place; where rsgw answers wrongly, the check is split into a test of its
own (`rsgw_only`, strict xfail naming the bug), so that a fix shows. The
conformance table in docs/s3.md names each test."""
import base64
import datetime
import hashlib
import os
import re
import urllib.parse
import uuid
import zlib

import pytest

from helpers import error_of, raw_request
from sigv4 import signed_headers

USERS = {"alice": ("ALICE_AK", "ALICE_SK"), "bob": ("BOB_AK", "BOB_SK")}
ALL_USERS = 'uri="http://acs.amazonaws.com/groups/global/AllUsers"'
NO_ETAG = '"00000000000000000000000000000000"'


def _send(t, method, path, headers=None, body=b"", who="alice"):
    """One hand-made request on a fresh connection, signed (its body's hash
    included) as `who`, or anonymous for None: (status, headers with
    lower-case names, body). `path` is sent as given: encode it first."""
    headers = dict(headers or {})
    if who:
        ak, sk = (os.environ[v] for v in USERS[who])
        headers = signed_headers(t.endpoint, method, path, headers, body=body, key=ak, secret=sk)
    # no body: no Content-Length either, except where HTTP expects one
    return raw_request(t.endpoint, method, path, body or None, headers)


def _code(body):
    m = re.search(rb"<Code>([^<]*)</Code>", body)
    return m.group(1).decode() if m else None


def _answer(t, method, path, headers=None, body=b"", who="alice"):
    """(status, S3 error code or None)."""
    st, _, b = _send(t, method, path, headers, body, who)
    return st, _code(b)


def _q(v):
    return urllib.parse.quote(v, safe="-_.~")


def _http_date(d):
    return d.strftime("%a, %d %b %Y %H:%M:%S GMT")


def _dates(h):
    """The object's Last-Modified, a day before it and a day after it."""
    lm = h["last-modified"]
    mod = datetime.datetime.strptime(lm, "%a, %d %b %Y %H:%M:%S GMT")
    return lm, _http_date(mod - datetime.timedelta(days=1)), _http_date(mod + datetime.timedelta(days=1))


def _md5(b):
    return base64.b64encode(hashlib.md5(b).digest()).decode()


def _present(t, bucket, key):
    return _send(t, "HEAD", f"/{bucket}/{key}")[0] == 200


# --- PutObject ----------------------------------------------------------------

STORED = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
          "Content-Disposition": 'attachment; filename="a.txt"', "Content-Encoding": "gzip",
          "Content-Language": "de-DE", "Expires": "Thu, 01 Dec 2044 16:00:00 GMT"}


def test_put_stored_headers_and_response_headers(t, bucket):
    # what PutObject stores comes back as sent on GET and HEAD
    assert _send(t, "PUT", f"/{bucket}/stored", STORED, b"stored")[0] == 200
    for method in ("GET", "HEAD"):
        st, h, _ = _send(t, method, f"/{bucket}/stored")
        assert st == 200, method
        assert {k: h.get(k.lower()) for k in STORED} == STORED, method
        # response headers every GET and HEAD carries: a quoted ETag, an
        # RFC 7231 Last-Modified, Accept-Ranges, the length; no storage
        # class for STANDARD
        assert h["etag"] == '"%s"' % hashlib.md5(b"stored").hexdigest(), method
        assert re.fullmatch(r"[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT", h["last-modified"]), h
        assert h.get("accept-ranges") == "bytes", method
        assert h["content-length"] == "6", method
        assert "x-amz-storage-class" not in h, method
    # no Content-Type: AWS and radosgw answer binary/octet-stream (rsgw:
    # test_default_content_type_is_binary_octet_stream)
    assert _send(t, "PUT", f"/{bucket}/untyped", {}, b"x")[0] == 200
    if t.is_radosgw:
        assert _send(t, "GET", f"/{bucket}/untyped")[1].get("content-type") == "binary/octet-stream"
    # an empty body is an object like any other
    assert _send(t, "PUT", f"/{bucket}/empty", {}, b"")[0] == 200
    st, h, b = _send(t, "GET", f"/{bucket}/empty")
    assert (st, b, h["content-length"], h["etag"]) == (200, b"", "0", '"d41d8cd98f00b204e9800998ecf8427e"')


def test_default_content_type_is_binary_octet_stream(t, bucket, rsgw_only):
    _send(t, "PUT", f"/{bucket}/untyped", {}, b"x")
    t.alice.put_object(Bucket=bucket, Key="typed", Body=b"x", ContentType="text/plain")
    t.alice.copy_object(Bucket=bucket, Key="replaced", CopySource=f"{bucket}/typed", MetadataDirective="REPLACE")
    for key in ("untyped", "replaced"):
        assert _send(t, "GET", f"/{bucket}/{key}")[1].get("content-type") == "binary/octet-stream", key


def test_expires_that_is_no_date(t, bucket):
    # AWS stores Expires as sent (hence the SDKs' ExpiresString); so does
    # radosgw, "0" (HTTP's "already expired") included; rsgw refuses it
    # with 400 InvalidArgument: test_expires_that_is_no_date_is_stored_as_sent
    if not t.is_radosgw:
        return
    for value in ("0", "not a date"):
        assert _answer(t, "PUT", f"/{bucket}/e", {"Expires": value}, b"x") == (200, None), value
        assert _send(t, "GET", f"/{bucket}/e")[1].get("expires") == value
    copy = {"x-amz-copy-source": f"{bucket}/e", "x-amz-metadata-directive": "REPLACE", "Expires": "0"}
    assert _answer(t, "PUT", f"/{bucket}/copy", copy) == (200, None)
    assert _send(t, "HEAD", f"/{bucket}/copy")[1].get("expires") == "0"


@pytest.mark.xfail(reason="rsgw: a PutObject or CopyObject Expires that is not an HTTP date is refused "
                          "(400 InvalidArgument); AWS and radosgw store it as sent", strict=True, raises=AssertionError)
def test_expires_that_is_no_date_is_stored_as_sent(t, bucket, rsgw_only):
    for value in ("0", "not a date"):
        assert _send(t, "PUT", f"/{bucket}/e", {"Expires": value}, b"x")[0] == 200, value
        assert _send(t, "HEAD", f"/{bucket}/e")[1].get("expires") == value
    st, code = _answer(t, "PUT", f"/{bucket}/copy", {"x-amz-copy-source": f"{bucket}/e",
                                                       "x-amz-metadata-directive": "REPLACE", "Expires": "0"})
    assert st == 200, code
    assert _send(t, "HEAD", f"/{bucket}/copy")[1].get("expires") == "0"


def test_user_metadata(t, bucket):
    headers = {"x-amz-meta-MixedCase": "V", "x-amz-meta-a_b": "u", "x-amz-meta-big": "v" * 8000}
    assert _send(t, "PUT", f"/{bucket}/meta", headers, b"x")[0] == 200
    got = t.alice.head_object(Bucket=bucket, Key="meta")["Metadata"]
    # names come back lower-case; radosgw (Pacific) turns "_" into "-"
    # (AWS and rsgw keep the name)
    assert got == {"mixedcase": "V", "a-b" if t.is_radosgw else "a_b": "u", "big": "v" * 8000}
    # 8 KB of metadata: AWS refuses more than 2 KB (400 MetadataTooLarge);
    # radosgw takes it, and so does rsgw, up to its 16 KiB header section,
    # so that radosgw's users' objects keep their metadata


def test_put_conditions(t, bucket):
    etag = t.alice.put_object(Bucket=bucket, Key="k", Body=b"first")["ETag"]
    put = lambda key, **h: _answer(t, "PUT", f"/{bucket}/{key}", h, b"next")  # noqa: E731
    # If-None-Match: * creates, never overwrites
    assert put("k", **{"If-None-Match": "*"}) == (412, "PreconditionFailed")
    assert put("new", **{"If-None-Match": "*"}) == (200, None)
    # If-Match: overwrite that version only; a missing key never matches
    assert put("k", **{"If-Match": NO_ETAG}) == (412, "PreconditionFailed")
    assert put("missing", **{"If-Match": etag}) == (412, "PreconditionFailed")
    assert put("missing", **{"If-Match": "*"}) == (412, "PreconditionFailed")
    assert put("k", **{"If-Match": etag.strip('"')}) == (200, None)
    etag = t.alice.head_object(Bucket=bucket, Key="k")["ETag"]
    # the ETag as GET gives it, quoted: radosgw (Pacific) compares the
    # quotes too and fails it (AWS and rsgw overwrite)
    assert put("k", **{"If-Match": etag}) == ((412, "PreconditionFailed") if t.is_radosgw else (200, None))
    assert put("k", **{"If-Match": "*"}) == (200, None)
    assert t.alice.get_object(Bucket=bucket, Key="k")["Body"].read() == b"next"
    if t.is_radosgw:
        # If-None-Match naming the current ETag, quoted: radosgw (Pacific)
        # overwrites (RFC 7232: 412; AWS takes * only; rsgw:
        # test_put_if_none_match_etag_is_not_ignored)
        etag = t.alice.head_object(Bucket=bucket, Key="k")["ETag"]
        assert put("k", **{"If-None-Match": etag}) == (200, None)
    assert not _present(t, bucket, "missing")


def test_put_if_none_match_etag_is_not_ignored(t, bucket, rsgw_only):
    etag = t.alice.put_object(Bucket=bucket, Key="k", Body=b"kept")["ETag"]
    st, code = _answer(t, "PUT", f"/{bucket}/k", {"If-None-Match": etag}, b"overwritten")
    assert (st, code) in [(412, "PreconditionFailed"), (501, "NotImplemented")]
    assert t.alice.get_object(Bucket=bucket, Key="k")["Body"].read() == b"kept"


def test_storage_class(t, bucket):
    assert _answer(t, "PUT", f"/{bucket}/std", {"x-amz-storage-class": "STANDARD"}, b"x") == (200, None)
    # radosgw (Pacific) names the class an object was stored with
    # explicitly; AWS and rsgw leave STANDARD out
    h = _send(t, "HEAD", f"/{bucket}/std")[1]
    assert h.get("x-amz-storage-class") == ("STANDARD" if t.is_radosgw else None)
    if t.is_radosgw:
        # a class the zone lacks, or no class at all: 400 InvalidArgument
        # (AWS: InvalidStorageClass for an unknown one); rsgw:
        # test_storage_classes_rsgw_lacks_are_refused
        for sc in ("FOO", "GLACIER", "REDUCED_REDUNDANCY"):
            assert _answer(t, "PUT", f"/{bucket}/other", {"x-amz-storage-class": sc}, b"x") == (400, "InvalidArgument")
        copy = {"x-amz-copy-source": f"{bucket}/std", "x-amz-storage-class": "FOO"}
        assert _answer(t, "PUT", f"/{bucket}/copy", copy) == (400, "InvalidArgument")
        assert not _present(t, bucket, "other")


def test_storage_classes_rsgw_lacks_are_refused(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="std", Body=b"x")
    for sc in ("FOO", "GLACIER"):
        assert _answer(t, "PUT", f"/{bucket}/other", {"x-amz-storage-class": sc}, b"x") == (400, "InvalidStorageClass")
        copy = {"x-amz-copy-source": f"{bucket}/std", "x-amz-storage-class": sc}
        assert _answer(t, "PUT", f"/{bucket}/copy", copy) == (400, "InvalidStorageClass")
    assert not _present(t, bucket, "other") and not _present(t, bucket, "copy")


def test_website_redirect_location(t, bucket):
    # AWS and radosgw store it and return it on GET and HEAD (rsgw:
    # test_website_redirect_location_is_kept_or_refused)
    if not t.is_radosgw:
        return
    for loc in ("/other", "https://example.com/x"):
        assert _send(t, "PUT", f"/{bucket}/r", {"x-amz-website-redirect-location": loc}, b"x")[0] == 200
        for method in ("GET", "HEAD"):
            assert _send(t, method, f"/{bucket}/r")[1].get("x-amz-website-redirect-location") == loc, method


def test_website_redirect_location_is_kept_or_refused(t, bucket, rsgw_only):
    st, code = _answer(t, "PUT", f"/{bucket}/r", {"x-amz-website-redirect-location": "/other"}, b"x")
    if (st, code) == (501, "NotImplemented"):
        assert not _present(t, bucket, "r")
        return
    assert st == 200
    assert _send(t, "HEAD", f"/{bucket}/r")[1].get("x-amz-website-redirect-location") == "/other"


LOCK = [{"x-amz-object-lock-mode": "GOVERNANCE", "x-amz-object-lock-retain-until-date": "2044-01-01T00:00:00Z"},
        {"x-amz-object-lock-legal-hold": "ON"}]


@pytest.mark.parametrize("op", ["put", "copy"])
def test_object_lock_headers(t, bucket, op):
    # a bucket without object lock: AWS refuses a write asking for a lock
    # with 400 InvalidRequest; radosgw (Pacific) too, but copies, ignoring
    # them
    t.alice.put_object(Bucket=bucket, Key="src", Body=b"x")
    for headers in LOCK:
        if op == "copy":
            headers = dict(headers, **{"x-amz-copy-source": f"{bucket}/src"})
        got = _answer(t, "PUT", f"/{bucket}/lock", headers, b"x" if op == "put" else b"")
        if t.is_radosgw and op == "copy":
            assert got == (200, None), headers
            continue
        assert got == (400, "InvalidRequest"), headers
        assert not _present(t, bucket, "lock")


def test_request_payer_and_expected_bucket_owner(t, bucket):
    # x-amz-request-payer acknowledges charges: taken, nothing charged
    # (no requester-pays buckets here, nor on radosgw)
    st, h, _ = _send(t, "PUT", f"/{bucket}/k", {"x-amz-request-payer": "requester"}, b"x")
    assert (st, h.get("x-amz-request-charged")) == (200, None)
    st, h, _ = _send(t, "GET", f"/{bucket}/k", {"x-amz-request-payer": "requester"})
    assert (st, h.get("x-amz-request-charged")) == (200, None)
    # the bucket's real owner
    assert _answer(t, "GET", f"/{bucket}/k", {"x-amz-expected-bucket-owner": "alice"}) == (200, None)
    if t.is_radosgw:
        # radosgw (Pacific) ignores another owner (AWS: 403 AccessDenied;
        # rsgw: test_expected_bucket_owner_is_checked)
        wrong = {"x-amz-expected-bucket-owner": "123456789012"}
        assert _answer(t, "GET", f"/{bucket}/k", wrong) == (200, None)
        assert _answer(t, "PUT", f"/{bucket}/k", wrong, b"x") == (200, None)


def test_expected_bucket_owner_is_checked(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    wrong = {"x-amz-expected-bucket-owner": "bob"}
    assert _answer(t, "GET", f"/{bucket}/k", wrong) == (403, "AccessDenied")
    assert _answer(t, "PUT", f"/{bucket}/k2", wrong, b"x") == (403, "AccessDenied")
    assert not _present(t, bucket, "k2")


def test_key_length_in_bytes(t, bucket):
    # at most 1024 bytes of UTF-8, not characters
    for key in ("k" * 1024, "é" * 512):
        t.alice.put_object(Bucket=bucket, Key=key, Body=b"x")
        assert t.alice.get_object(Bucket=bucket, Key=key)["Body"].read() == b"x"
    # radosgw (Pacific) answers 400 InvalidObjectName; AWS and rsgw
    # KeyTooLongError
    want = ("InvalidObjectName", 400) if t.is_radosgw else ("KeyTooLongError", 400)
    for key in ("k" * 1025, "é" * 512 + "k"):
        assert error_of(t.alice.put_object, Bucket=bucket, Key=key, Body=b"x")[:2] == want
    assert t.alice.list_objects_v2(Bucket=bucket)["KeyCount"] == 2


def test_malformed_content_md5(t, bucket):
    # not base64, not 16 bytes, hex instead of base64: 400 InvalidDigest
    for md5 in ("abc", base64.b64encode(b"x" * 15).decode(), hashlib.md5(b"x").hexdigest()):
        assert _answer(t, "PUT", f"/{bucket}/m", {"Content-MD5": md5}, b"x") == (400, "InvalidDigest"), md5
    assert not _present(t, bucket, "m")


# --- GetObject, HeadObject --------------------------------------------------

BODY = bytes(range(100))


def test_range_forms(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="r", Body=BODY)
    t.alice.put_object(Bucket=bucket, Key="empty", Body=b"")
    for rng, first, last in [("bytes=0-9", 0, 9), ("bytes=90-", 90, 99), ("bytes=-5", 95, 99),
                             ("bytes=95-200", 95, 99), ("bytes=-200", 0, 99)]:
        for method in ("GET", "HEAD"):
            st, h, b = _send(t, method, f"/{bucket}/r", {"Range": rng})
            assert h.get("content-range") == f"bytes {first}-{last}/100", (method, rng)
            assert h["content-length"] == str(last - first + 1), (method, rng)
            if method == "GET":
                assert (st, b) == (206, BODY[first:last + 1]), rng
            elif t.is_radosgw:
                # AWS and radosgw answer HEAD 206 too (rsgw:
                # test_head_with_range_answers_206)
                assert st == 206, rng
    # nothing of the object in the range: 416 InvalidRange, an empty
    # object included; neither sends RFC 9110's Content-Range: bytes */100
    for key, rng in [("r", "bytes=100-"), ("r", "bytes=100-200"), ("empty", "bytes=0-0"), ("empty", "bytes=0-"),
                     ("empty", "bytes=-1")]:
        st, h, b = _send(t, "GET", f"/{bucket}/{key}", {"Range": rng})
        assert (st, _code(b)) == (416, "InvalidRange"), (key, rng)
        assert h.get("content-range") in ((None,) if t.is_radosgw else (None, f"bytes */{len(BODY)}")), rng
    # a suffix of 0 bytes is unsatisfiable (RFC 9110; rsgw); radosgw
    # (Pacific) serves the whole object as a range
    st, h, b = _send(t, "GET", f"/{bucket}/r", {"Range": "bytes=-0"})
    if t.is_radosgw:
        assert (st, h["content-range"], b) == (206, "bytes 0-99/100", BODY)
    else:
        assert (st, _code(b)) == (416, "InvalidRange")


def test_head_with_range_answers_206(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="r", Body=BODY)
    st, h, _ = _send(t, "HEAD", f"/{bucket}/r", {"Range": "bytes=0-9"})
    assert (st, h.get("content-range")) == (206, "bytes 0-9/100")


# ranges S3 does not serve as asked: several ranges (AWS: "doesn't support
# retrieving multiple ranges"), another unit, broken syntax
ODD_RANGES = ["bytes=0-1,3-4", "pages=1-2", "bytes=abc", "bytes=5-2", "bytes= 0-1"]


def test_range_headers_not_served_as_asked(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="r", Body=BODY)
    if not t.is_radosgw:
        return  # test_range_headers_rsgw_cannot_serve_are_ignored
    # radosgw (Pacific): the first of several ranges, the whole object for
    # another unit, 416 for broken syntax, a space after "=" taken
    want = {"bytes=0-1,3-4": (206, BODY[:2]), "pages=1-2": (200, BODY), "bytes=abc": (416, None),
            "bytes=5-2": (416, None), "bytes= 0-1": (206, BODY[:2])}
    for rng in ODD_RANGES:
        st, _, b = _send(t, "GET", f"/{bucket}/r", {"Range": rng})
        assert (st, b if st < 300 else None) == want[rng], rng


@pytest.mark.xfail(reason="rsgw: a Range header it cannot serve (several ranges, another unit, broken syntax) "
                          "fails the GET with 400 InvalidArgument (HTTP: ignored, the whole object; radosgw: the "
                          "first range, or 416)", strict=True, raises=AssertionError)
def test_range_headers_rsgw_cannot_serve_are_ignored(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="r", Body=BODY)
    for rng in ODD_RANGES:
        st, h, b = _send(t, "GET", f"/{bucket}/r", {"Range": rng})
        # ignored as HTTP allows, or radosgw's answer
        assert (st, b) == (200, BODY) or (st, _code(b)) == (416, "InvalidRange") or (
            st == 206 and h.get("content-range") == "bytes 0-1/100"), (rng, st, b[:200])


def test_conditional_combinations(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="c", Body=BODY)
    h = _send(t, "HEAD", f"/{bucket}/c")[1]
    etag = h["etag"]
    lm, past, future = _dates(h)
    cases = [
        # AWS's documented pairs: If-Match true beats If-Unmodified-Since
        # false (200); If-None-Match false beats If-Modified-Since true (304)
        ({"If-Match": etag, "If-Unmodified-Since": past}, 200),
        ({"If-None-Match": etag, "If-Modified-Since": past}, 304),
        ({"If-Match": NO_ETAG, "If-Unmodified-Since": future}, 412),
        ({"If-None-Match": NO_ETAG, "If-Modified-Since": future}, 200),
        # a failed If-Match is 412 whatever If-None-Match says
        ({"If-Match": NO_ETAG, "If-None-Match": etag}, 412),
        ({"If-Match": etag, "If-None-Match": etag}, 304),
        # RFC 7232 orders If-Unmodified-Since before If-Modified-Since:
        # 412 (rsgw); radosgw (Pacific) answers 304; AWS documents no order
        ({"If-Unmodified-Since": past, "If-Modified-Since": future}, 304 if t.is_radosgw else 412),
        # `*` matches any object (RFC 7232): radosgw (Pacific) fails
        # If-Match: * and ignores If-None-Match: *
        ({"If-Match": "*"}, 412 if t.is_radosgw else 200),
        ({"If-None-Match": "*"}, 200 if t.is_radosgw else 304),
        # If-None-Match compares weakly (RFC 7232): radosgw does not
        ({"If-None-Match": "W/" + etag}, 200 if t.is_radosgw else 304),
        ({"If-Match": etag.strip('"')}, 200),
        # a list: neither matches its members (RFC 7232 would)
        ({"If-Match": f"{NO_ETAG}, {etag}"}, 412),
        # the dates compare in whole seconds: Last-Modified itself is "not
        # modified since"
        ({"If-Modified-Since": lm}, 304),
        ({"If-Unmodified-Since": lm}, 200),
        # conditions come before the range
        ({"If-Match": NO_ETAG, "Range": "bytes=500-"}, 412),
        ({"If-Modified-Since": future, "Range": "bytes=500-"}, 304),
        ({"If-Match": etag, "Range": "bytes=0-0"}, 206),
    ]
    for cond, want in cases:
        for method in ("GET", "HEAD"):
            st, h, b = _send(t, method, f"/{bucket}/c", cond)
            if method == "HEAD" and want == 206 and not t.is_radosgw:
                continue  # test_head_with_range_answers_206
            assert st == want, (method, cond)
            if method == "GET" and want == 412:
                assert _code(b) == "PreconditionFailed", cond
    # a date that is none: 400 InvalidArgument from both (HTTP would ignore it)
    for name in ("If-Modified-Since", "If-Unmodified-Since"):
        for method in ("GET", "HEAD"):
            assert _send(t, method, f"/{bucket}/c", {name: "garbage"})[0] == 400, (method, name)
        assert _answer(t, "GET", f"/{bucket}/c", {name: "garbage"}) == (400, "InvalidArgument")
    # a condition on a missing key: 404 NoSuchKey
    assert _answer(t, "GET", f"/{bucket}/nope", {"If-Match": etag}) == (404, "NoSuchKey")


def test_head_errors_have_no_body(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    etag = t.alice.head_object(Bucket=bucket, Key="k")["ETag"]
    for key, cond, want in [("nope", {}, 404), ("k", {"If-Match": NO_ETAG}, 412), ("k", {"If-None-Match": etag}, 304)]:
        st, h, b = _send(t, "HEAD", f"/{bucket}/{key}", cond)
        assert (st, b) == (want, b""), (key, cond)
        assert h.get("x-amz-request-id"), h
    # a missing bucket
    missing = f"nosuch-{uuid.uuid4().hex[:12]}"
    assert _answer(t, "GET", f"/{missing}/k") == (404, "NoSuchBucket")
    st, _, b = _send(t, "HEAD", f"/{missing}/k")
    assert (st, b) == (404, b"")


OVERRIDES = {"response-content-type": ("content-type", "application/x-over"),
             "response-content-language": ("content-language", "fr"),
             "response-expires": ("expires", "Thu, 01 Dec 2044 16:00:00 GMT"),
             "response-cache-control": ("cache-control", "no-cache"),
             "response-content-disposition": ("content-disposition", "attachment; filename=x.bin"),
             "response-content-encoding": ("content-encoding", "br")}
OVERRIDE_QUERY = "&".join(f"{k}={_q(v)}" for k, (_, v) in OVERRIDES.items())


def _headers_named(h):
    return {name: h.get(name) for name, _ in OVERRIDES.values()}


def test_response_overrides(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="o", Body=b"x", ContentType="text/plain", ContentLanguage="en",
                       ACL="public-read")
    want = dict(OVERRIDES.values())
    for who in ("alice", "bob"):
        st, h, _ = _send(t, "GET", f"/{bucket}/o?{OVERRIDE_QUERY}", who=who)
        assert (st, _headers_named(h)) == (200, want), who
    if t.is_radosgw:
        # HeadObject takes them too (rsgw: test_head_applies_response_overrides)
        st, h, _ = _send(t, "HEAD", f"/{bucket}/o?{OVERRIDE_QUERY}")
        assert (st, _headers_named(h)) == (200, want)
    # what a presigned URL carries
    url = urllib.parse.urlparse(t.alice.generate_presigned_url(
        "get_object", Params={"Bucket": bucket, "Key": "o", "ResponseContentType": "application/x-over"}))
    st, h, _ = _send(t, "GET", f"{url.path}?{url.query}", who=None)
    assert (st, h.get("content-type")) == (200, "application/x-over")
    # an empty value empties the header; an unknown response-* is ignored
    assert _send(t, "GET", f"/{bucket}/o?response-content-type=")[1].get("content-type") == ""
    assert _send(t, "GET", f"/{bucket}/o?response-x-other=1")[1].get("content-type") == "text/plain"
    # response-expires that is no date: radosgw (Pacific) sends it as
    # given, rsgw refuses it (400 InvalidArgument); AWS documents none
    st, h, b = _send(t, "GET", f"/{bucket}/o?response-expires=garbage")
    if t.is_radosgw:
        assert (st, h.get("expires")) == (200, "garbage")
    else:
        assert (st, _code(b)) == (400, "InvalidArgument")
    if t.is_radosgw:
        # anonymous: AWS refuses them (400 InvalidRequest); radosgw
        # (Pacific) sends a broken answer: 200, no stored header, one byte
        # of an error document; to such a HEAD it sends nothing at all (not
        # asked here: a 15 s time-out). rsgw:
        # test_anonymous_request_cannot_override_response_headers
        st, h, b = _send(t, "GET", f"/{bucket}/o?{OVERRIDE_QUERY}", who=None)
        assert (st, _headers_named(h)) == (200, dict.fromkeys(want))
        assert b != b"x"


def test_head_applies_response_overrides(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="o", Body=b"x", ContentType="text/plain")
    st, h, _ = _send(t, "HEAD", f"/{bucket}/o?{OVERRIDE_QUERY}")
    assert (st, _headers_named(h)) == (200, dict(OVERRIDES.values()))


def test_anonymous_request_cannot_override_response_headers(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="o", Body=b"x", ContentType="text/plain", ACL="public-read")
    for method in ("GET", "HEAD"):
        st, h, b = _send(t, method, f"/{bucket}/o?response-content-type=text%2Fhtml", who=None)
        assert st == 400 and h.get("content-type") != "text/html", method
        if method == "GET":
            assert _code(b) == "InvalidRequest"


MiB = 1024 * 1024


def _two_part_object(t, bucket, key):
    up = t.alice.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]
    parts = []
    for n, data in ((1, b"1" * (5 * MiB)), (2, b"tail")):
        etag = t.alice.upload_part(Bucket=bucket, Key=key, UploadId=up, PartNumber=n, Body=data)["ETag"]
        parts.append({"PartNumber": n, "ETag": etag})
    t.alice.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=up, MultipartUpload={"Parts": parts})


def test_part_number(t, bucket):
    # an object of one part: partNumber=1 is the whole object
    t.alice.put_object(Bucket=bucket, Key="simple", Body=BODY)
    st, h, b = _send(t, "GET", f"/{bucket}/simple?partNumber=1")
    assert (st, b) == (200, BODY)
    if t.is_radosgw:
        # radosgw (Pacific) ignores partNumber: the whole object, no
        # x-amz-mp-parts-count (AWS: the part, 206, with the count; rsgw:
        # test_part_number_reads_one_part)
        _two_part_object(t, bucket, "mp")
        for n in (1, 2, 3):
            st, h, _ = _send(t, "HEAD", f"/{bucket}/mp?partNumber={n}")
            assert (st, h["content-length"], h.get("x-amz-mp-parts-count")) == (200, str(5 * MiB + 4), None), n


def test_part_number_reads_one_part(t, bucket, rsgw_only):
    _two_part_object(t, bucket, "mp")
    st, h, _ = _send(t, "HEAD", f"/{bucket}/mp?partNumber=1")
    assert (st, h["content-length"], h.get("x-amz-mp-parts-count")) == (206, str(5 * MiB), "2")
    st, h, b = _send(t, "GET", f"/{bucket}/mp?partNumber=2")
    assert (st, b, h.get("content-range")) == (206, b"tail", f"bytes {5 * MiB}-{5 * MiB + 3}/{5 * MiB + 4}")
    assert _answer(t, "GET", f"/{bucket}/mp?partNumber=3") == (416, "InvalidPartNumber")


def test_version_id_of_an_unversioned_object(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="v", Body=b"v")
    # "null" names the only version of an object of an unversioned bucket;
    # radosgw (Pacific) says so in x-amz-version-id, rsgw does not
    for method in ("GET", "HEAD"):
        st, h, _ = _send(t, method, f"/{bucket}/v?versionId=null")
        assert (st, h.get("x-amz-version-id")) == (200, "null" if t.is_radosgw else None), method
    t.alice.copy_object(Bucket=bucket, Key="copy", CopySource=f"{bucket}/v?versionId=null")
    assert t.alice.get_object(Bucket=bucket, Key="copy")["Body"].read() == b"v"
    if t.is_radosgw:
        # another version: 404 NoSuchKey from GET, HEAD and as a copy source
        # (AWS: 400 InvalidArgument, or 404 NoSuchVersion); DELETE 204,
        # the object kept (rsgw: test_unknown_version_id_is_not_the_object,
        # test_delete_of_an_unknown_version_keeps_the_object)
        assert _answer(t, "GET", f"/{bucket}/v?versionId=bogus123") == (404, "NoSuchKey")
        assert _send(t, "HEAD", f"/{bucket}/v?versionId=bogus123")[0] == 404
        assert _answer(t, "PUT", f"/{bucket}/c2", {"x-amz-copy-source": f"{bucket}/v?versionId=bogus123"}) == (
            404, "NoSuchKey")
        assert _send(t, "DELETE", f"/{bucket}/v?versionId=bogus123")[0] == 204
        assert _present(t, bucket, "v")
    # DELETE of the null version deletes the object
    assert _send(t, "DELETE", f"/{bucket}/v?versionId=null")[0] == 204
    assert not _present(t, bucket, "v")


def test_unknown_version_id_is_not_the_object(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="v", Body=b"v")
    refused = {(400, "InvalidArgument"), (404, "NoSuchVersion"), (404, "NoSuchKey")}
    assert _answer(t, "GET", f"/{bucket}/v?versionId=bogus123") in refused
    assert _send(t, "HEAD", f"/{bucket}/v?versionId=bogus123")[0] in {400, 404}
    assert _answer(t, "PUT", f"/{bucket}/c", {"x-amz-copy-source": f"{bucket}/v?versionId=bogus123"}) in refused
    assert not _present(t, bucket, "c")


def test_delete_of_an_unknown_version_keeps_the_object(t, bucket, rsgw_only):
    t.alice.put_object(Bucket=bucket, Key="v", Body=b"v")
    assert _send(t, "DELETE", f"/{bucket}/v?versionId=bogus123")[0] in {204, 400, 404}
    assert _present(t, bucket, "v")


# --- DeleteObject, DeleteObjects ----------------------------------------------

def test_delete_object(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    for key in ("k", "k", "never-was"):
        # 204 whether it was there or not
        assert _send(t, "DELETE", f"/{bucket}/{key}")[0] == 204, key
    assert _answer(t, "DELETE", f"/nosuch-{uuid.uuid4().hex[:12]}/k") == (404, "NoSuchBucket")


def _delete_doc(keys, quiet=False):
    return ("<Delete>" + ("<Quiet>true</Quiet>" if quiet else "")
            + "".join(f"<Object><Key>{k}</Key></Object>" for k in keys) + "</Delete>").encode()


def _delete_objects(t, bucket, doc, who="alice", headers=None):
    """A DeleteObjects request, with the body's Content-MD5 unless `headers`
    are given: (status, code, deleted keys, [(key, code)] of Errors)."""
    if headers is None:
        headers = {"Content-MD5": _md5(doc)}
    st, _, b = _send(t, "POST", f"/{bucket}?delete", headers, doc, who)
    deleted = [k.decode() for k in re.findall(rb"<Deleted><Key>([^<]*)</Key>", b)]
    errors = [(m.group(2).decode(), m.group(1).decode())
              for m in re.finditer(rb"<Error><Code>([^<]*)</Code><Key>([^<]*)</Key>", b)]
    if not errors:  # the other order of the elements
        errors = [(m.group(1).decode(), m.group(2).decode())
                  for m in re.finditer(rb"<Error><Key>([^<]*)</Key><Code>([^<]*)</Code>", b)]
    return st, (_code(b) if st >= 300 else None), sorted(deleted), errors


def test_delete_objects_answers(t, bucket):
    for k in ("a", "b"):
        t.alice.put_object(Bucket=bucket, Key=k, Body=b"x")
    # keys that do not exist are reported deleted too
    assert _delete_objects(t, bucket, _delete_doc(["a", "never-was"])) == (200, None, ["a", "never-was"], [])
    # Quiet: only errors are reported
    assert _delete_objects(t, bucket, _delete_doc(["b", "never-was"], quiet=True)) == (200, None, [], [])
    assert t.alice.list_objects_v2(Bucket=bucket)["KeyCount"] == 0
    # AWS requires Content-MD5 or an x-amz-checksum-*; radosgw takes the
    # request without, and so does rsgw, so as not to break its clients
    t.alice.put_object(Bucket=bucket, Key="c", Body=b"x")
    assert _delete_objects(t, bucket, _delete_doc(["c"]), headers={}) == (200, None, ["c"], [])
    # at most 1000 keys
    st, _, deleted, _ = _delete_objects(t, bucket, _delete_doc([f"k{i}" for i in range(1000)], quiet=True))
    assert (st, deleted) == (200, [])
    # radosgw (Pacific) answers its 400s here without a body (AWS and
    # rsgw: MalformedXML), and takes a <Delete> without objects (AWS:
    # MalformedXML); an empty body is MissingRequestBodyError to rsgw
    many = _delete_doc([f"k{i}" for i in range(1001)])
    bad = {"1001 keys": many, "not xml": b"not xml", "truncated": b"<Delete><Object><Key>a</Key>",
           "no key": b"<Delete><Object></Object></Delete>"}
    for why, doc in bad.items():
        assert _delete_objects(t, bucket, doc)[:2] == (400, None if t.is_radosgw else "MalformedXML"), why
    got = _delete_objects(t, bucket, b"<Delete></Delete>")
    assert got == ((200, None, [], []) if t.is_radosgw else (400, "MalformedXML", [], [])), got
    st, code, _, _ = _delete_objects(t, bucket, b"")
    assert (st, code) == ((400, None) if t.is_radosgw else (400, "MissingRequestBodyError"))
    missing = f"nosuch-{uuid.uuid4().hex[:12]}"
    assert _delete_objects(t, missing, _delete_doc(["a"]))[:2] == (404, "NoSuchBucket")


def test_delete_objects_of_another_user(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    got = _delete_objects(t, bucket, _delete_doc(["k"]), who="bob")
    if t.is_radosgw:
        # radosgw (Pacific) refuses the whole request
        assert got[:2] == (403, "AccessDenied")
    else:
        # AWS and rsgw decide key by key: 200, each key an AccessDenied Error
        assert got == (200, None, [], [("k", "AccessDenied")])
    assert _present(t, bucket, "k")
    # a bucket anyone may write to: deleted
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    assert _delete_objects(t, bucket, _delete_doc(["k"]), who="bob") == (200, None, ["k"], [])
    assert not _present(t, bucket, "k")


def test_delete_objects_body_digests(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    doc = _delete_doc(["k"])
    for name, value in [("Content-MD5", _md5(b"other")), ("x-amz-checksum-crc32", "AAAAAA==")]:
        got = _delete_objects(t, bucket, doc, headers={name: value})
        if t.is_radosgw:
            # radosgw (Pacific) checks neither
            assert got[0] == 200, name
            t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
        else:
            # AWS and rsgw: 400 BadDigest, nothing deleted
            assert got[:2] == (400, "BadDigest"), name
            assert _present(t, bucket, "k")
    # the body's own digests: deleted
    crc = base64.b64encode(zlib.crc32(doc).to_bytes(4, "big")).decode()
    for name, value in [("Content-MD5", _md5(doc)), ("x-amz-checksum-crc32", crc)]:
        assert _delete_objects(t, bucket, doc, headers={name: value})[:3] == (200, None, ["k"]), name
        t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    # a Content-MD5 that is no MD5: rsgw 400 InvalidDigest (AWS)
    if not t.is_radosgw:
        assert _delete_objects(t, bucket, doc, headers={"Content-MD5": "AAAA"})[:2] == (400, "InvalidDigest")


# --- CopyObject ---------------------------------------------------------------

def test_copy_directives(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="src", Body=b"src", ContentType="text/x", Metadata={"m": "1"})
    src = {"x-amz-copy-source": f"{bucket}/src"}
    assert _answer(t, "PUT", f"/{bucket}/c", dict(src, **{"x-amz-metadata-directive": "MERGE"})) == (
        400, "InvalidArgument")
    # radosgw (Pacific) ignores an unknown x-amz-tagging-directive (AWS
    # and rsgw: 400 InvalidArgument)
    assert _answer(t, "PUT", f"/{bucket}/c", dict(src, **{"x-amz-tagging-directive": "MERGE"})) == (
        (200, None) if t.is_radosgw else (400, "InvalidArgument"))
    # the directive's case: radosgw (Pacific) takes "replace", rsgw
    # COPY and REPLACE only (AWS's enumeration)
    lower = _answer(t, "PUT", f"/{bucket}/c", dict(src, **{"x-amz-metadata-directive": "replace"}))
    assert lower == ((200, None) if t.is_radosgw else (400, "InvalidArgument"))
    # without REPLACE, headers and x-amz-meta-* of the request are ignored
    sent = dict(src, **{"x-amz-meta-new": "2", "Content-Type": "a/b", "Cache-Control": "no-cache"})
    assert _answer(t, "PUT", f"/{bucket}/kept", sent) == (200, None)
    h = t.alice.head_object(Bucket=bucket, Key="kept")
    assert (h["ContentType"], h["Metadata"], h.get("CacheControl")) == ("text/x", {"m": "1"}, None)
    # REPLACE with nothing replaces everything by nothing
    assert _answer(t, "PUT", f"/{bucket}/bare", dict(src, **{"x-amz-metadata-directive": "REPLACE"})) == (200, None)
    assert t.alice.head_object(Bucket=bucket, Key="bare")["Metadata"] == {}
    # onto itself, changing only the ACL or the tags: 400 InvalidRequest
    for change in ({"x-amz-acl": "public-read"}, {"x-amz-tagging-directive": "REPLACE", "x-amz-tagging": "a=b"}):
        assert _answer(t, "PUT", f"/{bucket}/src", dict(src, **change)) == (400, "InvalidRequest"), change


def test_copy_source_forms(t, bucket):
    key = "a b/é+x?y"
    t.alice.put_object(Bucket=bucket, Key=key, Body=b"src", ACL="public-read")
    encoded = _q(bucket) + "/" + urllib.parse.quote(key, safe="/")
    # URL-encoded, with or without a leading slash, with ?versionId=null
    for n, source in enumerate([encoded, "/" + encoded, encoded + "?versionId=null"]):
        assert _answer(t, "PUT", f"/{bucket}/c{n}", {"x-amz-copy-source": source}) == (200, None), source
        assert t.alice.get_object(Bucket=bucket, Key=f"c{n}")["Body"].read() == b"src", source
    # no key, or no valid encoding: 400 InvalidArgument
    for source in (bucket, "%%%"):
        assert _answer(t, "PUT", f"/{bucket}/bad", {"x-amz-copy-source": source}) == (400, "InvalidArgument"), source
    missing = f"nosuch-{uuid.uuid4().hex[:12]}"
    assert _answer(t, "PUT", f"/{bucket}/bad", {"x-amz-copy-source": f"{missing}/k"}) == (404, "NoSuchBucket")
    assert _answer(t, "PUT", f"/{missing}/k", {"x-amz-copy-source": encoded}) == (404, "NoSuchBucket")
    assert _answer(t, "PUT", f"/{bucket}/bad", {"x-amz-copy-source": f"{bucket}/nope"}) == (404, "NoSuchKey")
    assert not _present(t, bucket, "bad")
    # CopyObjectResult: the copy's LastModified and ETag (radosgw, Pacific:
    # unquoted)
    st, _, body = _send(t, "PUT", f"/{bucket}/result", {"x-amz-copy-source": encoded})
    assert st == 200
    h = _send(t, "HEAD", f"/{bucket}/result")[1]
    stamp = re.search(rb"<LastModified>(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?Z</LastModified>", body).group(1)
    when = datetime.datetime.strptime(stamp.decode(), "%Y-%m-%dT%H:%M:%S")
    assert _http_date(when) == h["last-modified"]
    assert re.search(rb"<ETag>([^<]*)</ETag>", body).group(1).decode() == (
        h["etag"].strip('"') if t.is_radosgw else h["etag"])
    # the copy's ACL is the request's, never the source's
    assert _send(t, "GET", f"/{bucket}/result", who=None)[0] == 403
    assert _answer(t, "PUT", f"/{bucket}/open", {"x-amz-copy-source": encoded, "x-amz-acl": "public-read"}) == (
        200, None)
    assert _send(t, "GET", f"/{bucket}/open", who=None)[:3:2] == (200, b"src")


def test_copy_source_conditions(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="src", Body=b"src")
    h = _send(t, "HEAD", f"/{bucket}/src")[1]
    etag = h["etag"]
    _, past, future = _dates(h)
    cases = [
        ({"x-amz-copy-source-if-match": etag}, 200),
        ({"x-amz-copy-source-if-match": etag.strip('"')}, 200),
        ({"x-amz-copy-source-if-match": NO_ETAG}, 412),
        ({"x-amz-copy-source-if-none-match": etag}, 412),
        ({"x-amz-copy-source-if-none-match": NO_ETAG}, 200),
        ({"x-amz-copy-source-if-modified-since": future}, 412),
        ({"x-amz-copy-source-if-modified-since": past}, 200),
        ({"x-amz-copy-source-if-unmodified-since": past}, 412),
        ({"x-amz-copy-source-if-unmodified-since": future}, 200),
        # AWS's documented pairs: if-match true, if-unmodified-since false:
        # copied; if-none-match false, if-modified-since true: 412
        ({"x-amz-copy-source-if-match": etag, "x-amz-copy-source-if-unmodified-since": past}, 200),
        ({"x-amz-copy-source-if-none-match": etag, "x-amz-copy-source-if-modified-since": past}, 412),
    ]
    for cond, want in cases:
        st, code = _answer(t, "PUT", f"/{bucket}/dst", dict(cond, **{"x-amz-copy-source": f"{bucket}/src"}))
        # radosgw (Pacific) ignores every x-amz-copy-source-if-* (it reads
        # x-amz-copy-if-*): it always copies
        assert (st, code) == ((200, None) if t.is_radosgw or want == 200 else (412, "PreconditionFailed")), cond
    # a date that is none: rsgw 400 InvalidArgument (radosgw ignores it)
    bad = {"x-amz-copy-source": f"{bucket}/src", "x-amz-copy-source-if-modified-since": "garbage"}
    assert _answer(t, "PUT", f"/{bucket}/dst", bad) == ((200, None) if t.is_radosgw else (400, "InvalidArgument"))


# --- ACLs -------------------------------------------------------------------

ACL_DOC = ('<AccessControlPolicy xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>alice</ID></Owner>'
           '<AccessControlList><Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
           'xsi:type="CanonicalUser"><ID>alice</ID></Grantee><Permission>FULL_CONTROL</Permission></Grant>'
           '<Grant><Grantee xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="CanonicalUser">'
           '<ID>bob</ID></Grantee><Permission>READ</Permission></Grant></AccessControlList></AccessControlPolicy>'
           ).encode()


def test_object_acl_requests(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    # an unknown canned ACL: 400 InvalidArgument, on PutObject, CopyObject
    # and PutObjectAcl
    assert _answer(t, "PUT", f"/{bucket}/n", {"x-amz-acl": "public"}, b"x") == (400, "InvalidArgument")
    assert _answer(t, "PUT", f"/{bucket}/n", {"x-amz-acl": "public", "x-amz-copy-source": f"{bucket}/k"}) == (
        400, "InvalidArgument")
    assert _answer(t, "PUT", f"/{bucket}/k?acl", {"x-amz-acl": "public"}) == (400, "InvalidArgument")
    assert not _present(t, bucket, "n")
    # neither header nor document: radosgw 400 InvalidArgument, rsgw 400
    # MalformedACLError (AWS documents none)
    assert _answer(t, "PUT", f"/{bucket}/k?acl") == (400, "InvalidArgument" if t.is_radosgw else "MalformedACLError")
    # both: refused (400 InvalidArgument)
    both = _answer(t, "PUT", f"/{bucket}/k?acl", {"x-amz-acl": "private"}, ACL_DOC)
    assert both == (400, "InvalidArgument")
    # a document granting a user: honoured
    assert _answer(t, "PUT", f"/{bucket}/k?acl", {}, ACL_DOC) == (200, None)
    assert _send(t, "GET", f"/{bucket}/k", who="bob")[0] == 200
    # a missing key: 404 NoSuchKey
    assert _answer(t, "GET", f"/{bucket}/nope?acl") == (404, "NoSuchKey")
    assert _answer(t, "PUT", f"/{bucket}/nope?acl", {"x-amz-acl": "private"}) == (404, "NoSuchKey")
    # x-amz-grant-* headers: honoured on PutObject, CopyObject and
    # PutObjectAcl; with x-amz-acl as well: 400 InvalidRequest, as on AWS
    for n, headers in enumerate([{}, {"x-amz-copy-source": f"{bucket}/k"}]):
        assert _answer(t, "PUT", f"/{bucket}/g{n}", dict(headers, **{"x-amz-grant-read": ALL_USERS}),
                       b"" if headers else b"x") == (200, None)
        assert _send(t, "GET", f"/{bucket}/g{n}", who=None)[0] == 200, headers
    assert _answer(t, "PUT", f"/{bucket}/h", {"x-amz-grant-full-control": 'id="bob"'}, b"x") == (200, None)
    assert _send(t, "GET", f"/{bucket}/h", who="bob")[0] == 200
    assert _answer(t, "PUT", f"/{bucket}/k?acl", {"x-amz-grant-read": ALL_USERS}) == (200, None)
    assert _send(t, "GET", f"/{bucket}/k", who=None)[0] == 200
    both = {"x-amz-grant-read": ALL_USERS, "x-amz-acl": "private"}
    assert _answer(t, "PUT", f"/{bucket}/both", both, b"x") == (400, "InvalidRequest")


def test_tag_limits(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"x")
    tag = lambda k, v: t.alice.put_object_tagging(  # noqa: E731
        Bucket=bucket, Key="k", Tagging={"TagSet": [{"Key": k, "Value": v}]})
    # keys of 1 to 128 characters, values of 0 to 256
    for k, v in [("k" * 128, "v"), ("k", "v" * 256), ("k", "")]:
        tag(k, v)
    for k, v in [("k" * 129, "v"), ("k", "v" * 257)]:
        assert error_of(tag, k, v)[:2] == ("InvalidTag", 400), (len(k), len(v))
    # the aws: prefix is AWS's own: rsgw refuses it (400 InvalidTag, as
    # AWS); radosgw (Pacific) takes it
    if t.is_radosgw:
        tag("aws:x", "v")
    else:
        assert error_of(tag, "aws:x", "v")[:2] == ("InvalidTag", 400)
    # Put and DeleteObjectTagging of a missing key: 404 NoSuchKey
    put_missing = error_of(t.alice.put_object_tagging, Bucket=bucket, Key="nope", Tagging={"TagSet": []})
    assert put_missing[:2] == ("NoSuchKey", 404)
    assert error_of(t.alice.delete_object_tagging, Bucket=bucket, Key="nope")[:2] == ("NoSuchKey", 404)


# --- what rsgw does not implement -------------------------------------------

SELECT = (b"<SelectObjectContentRequest><Expression>select * from s3object</Expression>"
          b"<ExpressionType>SQL</ExpressionType><InputSerialization><CSV/></InputSerialization>"
          b"<OutputSerialization><CSV/></OutputSerialization></SelectObjectContentRequest>")


def test_object_operations_rsgw_does_not_implement(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"a,b\n")
    # rsgw answers each 501 NotImplemented; radosgw (Pacific) as noted
    calls = {
        # radosgw has no GetObjectAttributes: a plain GET of the object
        "GetObjectAttributes": ("GET", "k?attributes", {"x-amz-object-attributes": "ETag"}, b"", (200, None)),
        "RestoreObject": ("POST", "k?restore", {}, b"<RestoreRequest><Days>1</Days></RestoreRequest>",
                          (501, "NotImplemented")),
        # radosgw runs S3 Select, and afterwards refuses every POST form's
        # policy as malformed JSON until it restarts (16.2.15: the radosgw
        # runs of test_post_object.py all failed after this call): asked of
        # rsgw only, and radosgw's 200 is kept in docs/s3.md
        "SelectObjectContent": ("POST", "k?select&select-type=2", {}, SELECT, None),
        "GetObjectTorrent": ("GET", "k?torrent", {}, b"", (400, "InvalidArgument")),
    }
    for op, (method, path, headers, body, radosgw) in calls.items():
        if t.is_radosgw and radosgw is None:
            continue
        got = _answer(t, method, f"/{bucket}/{path}", headers, body)
        assert got == (radosgw if t.is_radosgw else (501, "NotImplemented")), op
    assert t.alice.get_object(Bucket=bucket, Key="k")["Body"].read() == b"a,b\n"
