"""POST object: browser uploads, an HTML form sent as multipart/form-data
to the bucket's URL. A presigned POST policy (boto3's
generate_presigned_post, SigV4: x-amz-algorithm, -credential, -date,
policy, x-amz-signature) names what the form may carry: eq, starts-with
and content-length-range conditions; key with ${filename}, acl,
Content-Type, x-amz-meta-*, the stored headers; success_action_status
(200, 201 with a PostResponse document, 204) and success_action_redirect
(303); expired, tampered and unmet policies; and anonymous forms where an
ACL or bucket policy lets anyone write. The forms are built by hand (the
file last, as browsers send them) and sent with http.client. Every test
runs against radosgw too; where it answers differently from AWS's
documentation the test says which (docs/s3.md, "Browser uploads")."""
import base64
import datetime
import hashlib
import hmac
import http.client
import json
import os
import re
import urllib.parse
import uuid
import xml.etree.ElementTree as ET

from helpers import error_of, raw_request
from sigv4 import signing_key

HELLO = b"hello from a form"


def form(fields, file=("hello.txt", HELLO, None), boundary=None):
    """A multipart/form-data body: the fields in order, then the file (the
    last part, as browsers send it; None for no file). (body, Content-Type)."""
    boundary = boundary or f"----rsgwform{uuid.uuid4().hex}"
    out = b""
    for name, value in fields:
        value = value.encode() if isinstance(value, str) else value
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode() + value + b"\r\n"
    if file is not None:
        filename, data, ctype = file
        out += f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'.encode()
        if ctype:
            out += f"Content-Type: {ctype}\r\n".encode()
        out += b"\r\n" + data + b"\r\n"
    return out + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def send(url, body, content_type, headers=None):
    """A raw POST: (status, lowercase headers, body)."""
    h = {"Content-Type": content_type}
    h.update(headers or {})
    return raw_request(url, "POST", urllib.parse.urlparse(url).path or "/", body, h, timeout=30)


def post(url, fields, file=("hello.txt", HELLO, None), headers=None):
    body, ctype = form(fields, file)
    return send(url, body, ctype, headers)


def code_of(body):
    m = re.search(rb"<Code>([^<]*)</Code>", body)
    return m.group(1).decode() if m else None


def presigned(client, bucket, key, fields=None, conditions=None, expires=300):
    """boto3's generate_presigned_post: (url, [(name, value)...])."""
    p = client.generate_presigned_post(bucket, key, Fields=fields, Conditions=conditions, ExpiresIn=expires)
    return p["url"], list(p["fields"].items())


def replaced(fields, **new):
    """The fields with some values replaced (names with - spelt _)."""
    new = {k.replace("_", "-"): v for k, v in new.items()}
    return [(k, new.get(k, v)) for k, v in fields]


def expiration(seconds):
    when = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return when.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def self_signed(document=None, raw=None, access=None, secret=None):
    """The SigV4 fields of a policy signed here (not by boto3), so that it
    may be anything: `document` gets the algorithm, credential and date
    conditions added; `raw` is signed as it is."""
    access = access or os.environ["ALICE_AK"]
    secret = secret or os.environ["ALICE_SK"]
    now = datetime.datetime.now(datetime.timezone.utc)
    day, stamp = now.strftime("%Y%m%d"), now.strftime("%Y%m%dT%H%M%SZ")
    credential = f"{access}/{day}/us-east-1/s3/aws4_request"
    if raw is None:
        doc = dict(document)
        doc["conditions"] = list(doc.get("conditions", [])) + [
            {"x-amz-algorithm": "AWS4-HMAC-SHA256"}, {"x-amz-credential": credential}, {"x-amz-date": stamp}]
        raw = json.dumps(doc)
    policy = base64.b64encode(raw.encode()).decode()
    signature = hmac.new(signing_key(secret, day), policy.encode(), hashlib.sha256).hexdigest()
    return [("x-amz-algorithm", "AWS4-HMAC-SHA256"), ("x-amz-credential", credential), ("x-amz-date", stamp),
            ("policy", policy), ("x-amz-signature", signature)]


def keys(t, bucket):
    return [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket).get("Contents", [])]


def local(tag):
    return tag.rsplit("}", 1)[-1]


def test_presigned_post_stores_the_file(t, bucket):
    url, fields = presigned(t.alice, bucket, "hello.txt")
    assert url == f"{t.endpoint}/{bucket}"
    status, _, body = post(url, fields)
    # no success_action_status: 204 and an empty body
    assert (status, body) == (204, b"")
    got = t.alice.get_object(Bucket=bucket, Key="hello.txt")
    assert got["Body"].read() == HELLO
    assert got["ETag"] == f'"{hashlib.md5(HELLO).hexdigest()}"'
    # no Content-Type field: S3's default (the file part's own type is not
    # the object's)
    assert got["ContentType"] == "binary/octet-stream"
    # a second form with the same key replaces the object
    status, _, _ = post(url, fields, file=("other.txt", b"second", None))
    assert status == 204
    assert t.alice.get_object(Bucket=bucket, Key="hello.txt")["Body"].read() == b"second"


def test_a_large_binary_file(t, bucket):
    # bytes that look like the form's framing, across more than one chunk
    data = os.urandom(3 * 1024 * 1024 + 17) + b"\r\n--\r\n------rsgwform\r\n--" + os.urandom(4096)
    url, fields = presigned(t.alice, bucket, "big.bin")
    status, _, _ = post(url, fields, file=("big.bin", data, "application/octet-stream"))
    assert status == 204
    got = t.alice.get_object(Bucket=bucket, Key="big.bin")
    assert got["ContentLength"] == len(data)
    assert got["Body"].read() == data
    assert got["ETag"] == f'"{hashlib.md5(data).hexdigest()}"'


def test_success_action_status(t, bucket):
    etag = hashlib.md5(HELLO).hexdigest()
    for value, want in [("200", 200), ("204", 204), ("404", 204)]:
        # 200 and 204: an empty document; any other number: 204 (AWS, radosgw)
        url, fields = presigned(t.alice, bucket, f"s{value}", {"success_action_status": value},
                                [{"success_action_status": value}])
        status, _, body = post(url, fields)
        assert (status, body) == (want, b""), value
    key = "dir/a b+c.txt"
    url, fields = presigned(t.alice, bucket, key, {"success_action_status": "201"}, [{"success_action_status": "201"}])
    status, headers, body = post(url, fields)
    assert status == 201
    assert "xml" in headers["content-type"]
    doc = ET.fromstring(body)
    assert local(doc.tag) == "PostResponse"
    got = {local(e.tag): e.text for e in doc}
    assert (got["Bucket"], got["Key"]) == (bucket, key)
    location = urllib.parse.urlparse(got["Location"])
    if t.is_radosgw:
        # radosgw 16.2: the ETag unquoted, and a Location without a scheme
        # made of rgw_dns_name, the bucket and the encoded key (docs/s3.md)
        assert got["ETag"] == etag
        assert got["Location"] == f"s3.test/{bucket}/{urllib.parse.quote(key, safe='')}"
    else:
        # AWS: the ETag quoted as everywhere, Location the object's URL
        assert got["ETag"] == f'"{etag}"'
        assert location.scheme in ("http", "https"), got
        path = urllib.parse.unquote(location.path)
        assert path == f"/{bucket}/{key}" or (location.hostname.startswith(f"{bucket}.") and path == f"/{key}"), got
    assert t.alice.get_object(Bucket=bucket, Key=key)["Body"].read() == HELLO
    url, fields = presigned(t.alice, bucket, "sabc", {"success_action_status": "abc"},
                            [{"success_action_status": "abc"}])
    status, _, body = post(url, fields)
    # a value that is no number: rsgw, as radosgw 16.2, refuses the form;
    # AWS: "if it is set to an invalid value, Amazon S3 returns an empty
    # document with a 204 status code" (docs/s3.md)
    assert (status, code_of(body)) == (400, "InvalidArgument")
    # radosgw 16.2 has stored the object by then
    assert ("sabc" in keys(t, bucket)) == t.is_radosgw


def test_success_action_redirect(t, bucket):
    etag = f'"{hashlib.md5(HELLO).hexdigest()}"'
    target = "http://example.com/uploaded"
    key = "r e/d.txt"
    url, fields = presigned(t.alice, bucket, key, {"success_action_redirect": target},
                            [{"success_action_redirect": target}])
    status, headers, _ = post(url, fields)
    # 303 See Other to the URL with bucket, key and etag in its query
    assert status == 303
    loc = urllib.parse.urlparse(headers["location"])
    assert (loc.scheme, loc.netloc, loc.path) == ("http", "example.com", "/uploaded"), headers["location"]
    assert urllib.parse.parse_qs(loc.query) == {"bucket": [bucket], "key": [key], "etag": [etag]}, headers["location"]
    assert t.alice.get_object(Bucket=bucket, Key=key)["Body"].read() == HELLO
    # a URL with a query of its own
    target = "http://example.com/uploaded?from=form"
    url, fields = presigned(t.alice, bucket, "q.txt", {"success_action_redirect": target},
                            [{"success_action_redirect": target}])
    status, headers, _ = post(url, fields)
    assert status == 303
    if t.is_radosgw:
        # radosgw 16.2 appends "?bucket=..." to it: a second "?" (docs/s3.md)
        assert headers["location"].startswith(f"{target}?bucket={bucket}&key=q.txt&etag="), headers["location"]
    else:
        loc = urllib.parse.urlparse(headers["location"])
        assert (loc.netloc, loc.path) == ("example.com", "/uploaded")
        assert urllib.parse.parse_qs(loc.query) == {"from": ["form"], "bucket": [bucket], "key": ["q.txt"],
                                                    "etag": [etag]}, headers["location"]
    # a form refused: its error, no redirect
    url, fields = presigned(t.alice, bucket, "refused.txt", {"success_action_redirect": target},
                            [{"success_action_redirect": target}, ["content-length-range", 0, 3]])
    status, headers, body = post(url, fields)
    assert (status, code_of(body)) == (400, "EntityTooLarge")
    assert "location" not in headers
    assert "refused.txt" not in keys(t, bucket)


def test_key_with_filename(t, bucket):
    url, fields = presigned(t.alice, bucket, "uploads/${filename}")
    # boto3 turns a key ending in ${filename} into starts-with "uploads/"
    assert ["starts-with", "$key", "uploads/"] in json.loads(base64.b64decode(dict(fields)["policy"]))["conditions"]
    status, _, _ = post(url, fields, file=("photo one.jpg", b"jpeg bytes", "image/jpeg"))
    assert status == 204
    assert keys(t, bucket) == ["uploads/photo one.jpg"]
    assert t.alice.get_object(Bucket=bucket, Key="uploads/photo one.jpg")["Body"].read() == b"jpeg bytes"
    # the key outside the prefix the policy allows
    status, _, body = post(url, replaced(fields, key="elsewhere/${filename}"), file=("x.jpg", b"x", None))
    assert (status, code_of(body)) == (403, "AccessDenied")
    assert keys(t, bucket) == ["uploads/photo one.jpg"]


def test_acl_content_type_and_metadata(t, bucket):
    url, fields = presigned(
        t.alice, bucket, "page.html",
        {"acl": "public-read", "Content-Type": "text/html", "x-amz-meta-owner": "alice",
         "x-amz-meta-purpose": "a form"},
        [{"acl": "public-read"}, ["starts-with", "$Content-Type", "text/"], {"x-amz-meta-owner": "alice"},
         ["starts-with", "$x-amz-meta-purpose", ""]])
    status, _, _ = post(url, fields, file=("page.html", b"<h1>form</h1>", "application/octet-stream"))
    assert status == 204
    head = t.alice.head_object(Bucket=bucket, Key="page.html")
    assert head["ContentType"] == "text/html"
    assert head["Metadata"] == {"owner": "alice", "purpose": "a form"}
    # public-read: anyone reads it
    u = urllib.parse.urlparse(t.endpoint)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=15)
    conn.request("GET", f"/{bucket}/page.html")
    r = conn.getresponse()
    assert (r.status, r.read(), r.getheader("Content-Type")) == (200, b"<h1>form</h1>", "text/html")
    # without the acl field the object is private
    url, fields = presigned(t.alice, bucket, "private.txt")
    assert post(url, fields)[0] == 204
    conn.request("GET", f"/{bucket}/private.txt")
    r = conn.getresponse()
    r.read()
    assert r.status == 403
    conn.close()


def test_stored_headers(t, bucket):
    sent = {"Cache-Control": "max-age=60", "Content-Disposition": 'attachment; filename="report.txt"',
            "Content-Encoding": "identity", "Expires": "Thu, 01 Dec 2094 16:00:00 GMT"}
    url, fields = presigned(t.alice, bucket, "report.txt", sent, [["starts-with", f"${k}", ""] for k in sent])
    assert post(url, fields)[0] == 204
    head = t.alice.head_object(Bucket=bucket, Key="report.txt")
    got = {"Cache-Control": head.get("CacheControl"), "Content-Disposition": head.get("ContentDisposition"),
           "Content-Encoding": head.get("ContentEncoding"),
           "Expires": head["ResponseMetadata"]["HTTPHeaders"].get("expires")}
    if t.is_radosgw:
        # radosgw 16.2 stores only Content-Type and x-amz-meta-* of a form's
        # fields; the others are dropped (docs/s3.md)
        assert got == dict.fromkeys(sent), got
    else:
        # AWS: the REST-specific headers PutObject stores
        assert got == sent, got


def test_conditions_not_met(t, bucket):
    url, fields = presigned(
        t.alice, bucket, "doc.txt", {"acl": "public-read", "Content-Type": "text/plain", "x-amz-meta-owner": "alice"},
        [{"acl": "public-read"}, ["starts-with", "$Content-Type", "text/"], ["eq", "$x-amz-meta-owner", "alice"]])
    other = f"{bucket[:40]}-other"
    t.alice.create_bucket(Bucket=other)
    try:
        other_url, other_fields = presigned(t.alice, other, "doc.txt")
        cases = {
            "starts-with": replaced(fields, Content_Type="image/png"),
            "eq, short form": replaced(fields, key="doc2.txt"),
            "eq, the acl": replaced(fields, acl="public-read-write"),
            "eq, long form": replaced(fields, x_amz_meta_owner="mallory"),
            "a field the policy does not name": fields + [("x-amz-meta-extra", "1")],
            "a field the policy names left out": [(k, v) for k, v in fields if k != "x-amz-meta-owner"],
            "another bucket's policy": other_fields,
        }
        for why, form_fields in cases.items():
            status, _, body = post(url, form_fields)
            assert (status, code_of(body)) == (403, "AccessDenied"), (why, body)
        assert keys(t, bucket) == []
        # every condition met
        status, _, _ = post(url, fields)
        assert status == 204
        # x-ignore- fields need no condition (AWS, radosgw)
        status, _, _ = post(url, fields + [("x-ignore-note", "not in the policy")])
        assert status == 204
        assert keys(t, bucket) == ["doc.txt"]
        # and the other bucket's own form still works there
        assert post(other_url, other_fields)[0] == 204
    finally:
        t.alice.delete_object(Bucket=other, Key="doc.txt")
        t.alice.delete_bucket(Bucket=other)


def test_content_length_range(t, bucket):
    url, fields = presigned(t.alice, bucket, "sized", conditions=[["content-length-range", 3, 5]])
    for data in [b"123", b"12345"]:
        status, _, _ = post(url, fields, file=("f", data, None))
        assert status == 204, data
        assert t.alice.get_object(Bucket=bucket, Key="sized")["Body"].read() == data
    t.alice.delete_object(Bucket=bucket, Key="sized")
    for data, code in [(b"123456", "EntityTooLarge"), (b"x" * 1_000_000, "EntityTooLarge"), (b"12", "EntityTooSmall"),
                       (b"", "EntityTooSmall")]:
        status, _, body = post(url, fields, file=("f", data, None))
        assert (status, code_of(body)) == (400, code), len(data)
    assert keys(t, bucket) == []


def test_expired_policy(t, bucket):
    fields = [("key", "late.txt")] + self_signed(
        {"expiration": expiration(-60), "conditions": [{"bucket": bucket}, ["starts-with", "$key", ""]]})
    status, _, body = post(f"{t.endpoint}/{bucket}", fields)
    assert (status, code_of(body)) == (403, "AccessDenied")
    # boto3's own, expired while the page waited
    url, fields = presigned(t.alice, bucket, "late2.txt", expires=-1)
    status, _, body = post(url, fields)
    assert (status, code_of(body)) == (403, "AccessDenied")
    assert keys(t, bucket) == []
    # the same document, not expired yet
    fields = [("key", "ontime.txt")] + self_signed(
        {"expiration": expiration(120), "conditions": [{"bucket": bucket}, ["starts-with", "$key", ""]]})
    assert post(f"{t.endpoint}/{bucket}", fields)[0] == 204


def test_bad_signatures(t, bucket):
    url, fields = presigned(t.alice, bucket, "signed.txt")
    policy = json.loads(base64.b64decode(dict(fields)["policy"]))
    policy["conditions"] = [c for c in policy["conditions"] if c != {"key": "signed.txt"}]
    policy["conditions"].append(["starts-with", "$key", ""])
    tampered = base64.b64encode(json.dumps(policy).encode()).decode()
    stranger = t.client("NOSUCHACCESSKEY00001", "nosuchsecret0000000000000000000000000001")
    cases = {
        "another signature": (replaced(fields, x_amz_signature="0" * 64), "SignatureDoesNotMatch"),
        "the policy changed after signing": (replaced(fields, policy=tampered, key="other.txt"),
                                              "SignatureDoesNotMatch"),
        "signed with another secret": (presigned(t.client(os.environ["ALICE_AK"], "wrong" * 8), bucket,
                                                 "signed.txt")[1], "SignatureDoesNotMatch"),
        "an unknown access key": (presigned(stranger, bucket, "signed.txt")[1], "InvalidAccessKeyId"),
    }
    for why, (form_fields, aws) in cases.items():
        status, _, body = post(url, form_fields)
        # radosgw 16.2 answers AccessDenied to each (docs/s3.md)
        assert (status, code_of(body)) == (403, "AccessDenied" if t.is_radosgw else aws), why
    assert keys(t, bucket) == []
    assert post(url, fields)[0] == 204


def test_malformed_policy_documents(t, bucket):
    url = f"{t.endpoint}/{bucket}"
    conditions = [{"bucket": bucket}, ["starts-with", "$key", ""]]
    cases = {
        "not JSON": self_signed(raw="{not json"),
        "no expiration": self_signed({"conditions": conditions}),
        "an expiration that is no date": self_signed({"expiration": "tomorrow", "conditions": conditions}),
        "an unknown operator": self_signed({"expiration": expiration(300),
                                            "conditions": conditions + [["contains", "$key", "x"]]}),
    }
    for why, signed in cases.items():
        status, _, body = post(url, [("key", "x.txt")] + signed)
        # AWS: 400 InvalidPolicyDocument; radosgw 16.2: 400 InvalidArgument
        # (docs/s3.md)
        assert (status, code_of(body)) == (400, "InvalidArgument" if t.is_radosgw else "InvalidPolicyDocument"), why
    assert keys(t, bucket) == []


def test_form_rules(t, bucket):
    url, fields = presigned(t.alice, bucket, "form.txt", {"Content-Type": "text/plain"},
                            [{"Content-Type": "text/plain"}])
    # no key field: 400 InvalidArgument (AWS: "Bucket POST must contain a
    # field named 'key'"; radosgw: "Key not specified")
    status, _, body = post(url, [(k, v) for k, v in fields if k != "key"])
    assert (status, code_of(body)) == (400, "InvalidArgument")
    assert keys(t, bucket) == []
    # field names are case-insensitive (AWS's own SigV4 example form spells
    # them X-Amz-Credential, Policy...)
    names = {"key": "Key", "policy": "Policy", "x-amz-signature": "X-Amz-Signature", "x-amz-date": "X-Amz-Date",
             "x-amz-credential": "X-Amz-Credential", "x-amz-algorithm": "X-Amz-Algorithm",
             "Content-Type": "content-type"}
    status, _, _ = post(url, [(names.get(k, k), v) for k, v in fields])
    assert status == 204
    assert t.alice.head_object(Bucket=bucket, Key="form.txt")["ContentType"] == "text/plain"
    # fields after the file are ignored (AWS: "any fields below it are
    # ignored"; radosgw the same): not checked against the policy, not stored
    body, ctype = form(fields)
    boundary = ctype.split("boundary=")[1]
    late = f'--{boundary}\r\nContent-Disposition: form-data; name="x-amz-meta-late"\r\n\r\nlate\r\n'.encode()
    body = body.replace(f"--{boundary}--\r\n".encode(), late + f"--{boundary}--\r\n".encode())
    status, _, _ = send(url, body, ctype)
    assert status == 204
    assert t.alice.head_object(Bucket=bucket, Key="form.txt")["Metadata"] == {}
    t.alice.delete_object(Bucket=bucket, Key="form.txt")
    # no file
    status, _, body = post(url, fields, file=None)
    if t.is_radosgw:
        # radosgw 16.2 takes a form without a file and stores an object
        # (docs/s3.md)
        assert status == 204
        t.alice.delete_object(Bucket=bucket, Key="form.txt")
    else:
        # AWS: "POST requires exactly one file upload per request"
        assert (status, code_of(body)) == (400, "IncorrectNumberOfFilesInPostRequest")
    # a body that is no form: AWS (and rsgw) 412 PreconditionFailed ("Bucket
    # POST must be of the enclosure-type multipart/form-data"); radosgw 400
    # InvalidArgument ("Request Content-Type is not multipart/form-data")
    status, _, body = send(url, urllib.parse.urlencode(fields).encode(), "application/x-www-form-urlencoded")
    assert (status, code_of(body)) == ((400, "InvalidArgument") if t.is_radosgw else (412, "PreconditionFailed"))
    assert keys(t, bucket) == []


def test_fields_before_the_file_are_bounded(t, bucket):
    url = f"{t.endpoint}/{bucket}"
    signed = self_signed({"expiration": expiration(300),
                          "conditions": [{"bucket": bucket}, ["starts-with", "$key", ""]]})
    status, _, _ = post(url, [("key", "small"), ("x-ignore-pad", "p" * 10_000)] + signed)
    assert status == 204
    status, _, body = post(url, [("key", "huge"), ("x-ignore-pad", "p" * 1_100_000)] + signed)
    if t.is_radosgw:
        # radosgw 16.2 reads fields of any size (docs/s3.md)
        assert status == 204
    else:
        # AWS: 400 MaxPostPreDataLengthExceededError, "Your POST request
        # fields preceding the upload file were too large"
        assert (status, code_of(body)) == (400, "MaxPostPreDataLengthExceededError")
        assert keys(t, bucket) == ["small"]


def test_who_may_post(t, bucket):
    url = f"{t.endpoint}/{bucket}"
    # a policy signed by a user the bucket does not let write
    bob_url, bob_fields = presigned(t.bob, bucket, "from-bob.txt")
    status, _, body = post(bob_url, bob_fields)
    assert (status, code_of(body)) == (403, "AccessDenied")
    # no policy at all, on a private bucket
    status, _, body = post(url, [("key", "anonymous.txt")])
    assert (status, code_of(body)) == (403, "AccessDenied")
    # a bucket that does not exist
    none_url, none_fields = presigned(t.alice, f"{bucket}-none", "x.txt")
    status, _, body = post(none_url, none_fields)
    assert (status, code_of(body)) == (404, "NoSuchBucket")
    assert keys(t, bucket) == []
    # a bucket policy: bob may write under inbox/, anyone under drop/
    t.alice.put_bucket_policy(Bucket=bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam:::user/bob"]}, "Action": "s3:PutObject",
         "Resource": f"arn:aws:s3:::{bucket}/inbox/*"},
        {"Effect": "Allow", "Principal": "*", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket}/drop/*"},
    ]}))
    bob_url, bob_fields = presigned(t.bob, bucket, "inbox/from-bob.txt")
    assert post(bob_url, bob_fields)[0] == 204
    status, _, body = post(url, [("key", "drop/anonymous.txt"), ("Content-Type", "text/plain")])
    assert status == 204
    status, _, body = post(url, [("key", "elsewhere.txt")])
    assert (status, code_of(body)) == (403, "AccessDenied")
    t.alice.delete_bucket_policy(Bucket=bucket)
    assert t.alice.get_object(Bucket=bucket, Key="drop/anonymous.txt")["ContentType"] == "text/plain"
    # public-read-write: anyone posts, with no policy; the object is the
    # bucket owner's
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    status, _, _ = post(url, [("key", "anonymous.txt"), ("x-amz-meta-from", "anyone")])
    assert status == 204
    got = t.alice.head_object(Bucket=bucket, Key="anonymous.txt")
    assert got["Metadata"] == {"from": "anyone"}
    assert t.alice.get_object_acl(Bucket=bucket, Key="anonymous.txt")["Owner"]["ID"] == "alice"
    assert sorted(keys(t, bucket)) == ["anonymous.txt", "drop/anonymous.txt", "inbox/from-bob.txt"]
    t.alice.put_bucket_acl(Bucket=bucket, ACL="private")
    status, _, body = post(url, [("key", "anonymous2.txt")])
    assert (status, code_of(body)) == (403, "AccessDenied")


def test_virtual_hosted_style(t, bucket):
    # the bucket in the Host (s3.dns_names, rgw_dns_name): the form goes to /
    url, fields = presigned(t.alice, bucket, "vhost.txt")
    port = urllib.parse.urlparse(t.endpoint).port
    status, _, _ = post(f"http://127.0.0.1:{port}/", fields, headers={"Host": f"{bucket}.s3.test:{port}"})
    assert status == 204
    assert t.alice.get_object(Bucket=bucket, Key="vhost.txt")["Body"].read() == HELLO


def test_cors_on_a_form_answer(t, bucket):
    origin = "https://forms.example.com"
    t.alice.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": [origin], "AllowedMethods": ["POST"], "ExposeHeaders": ["ETag", "Location"]}]})
    url, fields = presigned(t.alice, bucket, "cors.txt", {"success_action_status": "201"},
                            [{"success_action_status": "201"}])
    status, headers, _ = post(url, fields, headers={"Origin": origin})
    assert status == 201
    assert headers["access-control-allow-origin"] == origin
    # refusals carry them too, so that the page can read why
    status, headers, body = post(url, replaced(fields, key="other.txt"), headers={"Origin": origin})
    assert (status, code_of(body)) == (403, "AccessDenied")
    assert headers["access-control-allow-origin"] == origin


def test_error_answers_are_s3_errors(t, bucket):
    url, fields = presigned(t.alice, bucket, "e.txt", conditions=[["content-length-range", 0, 1]])
    status, headers, body = post(url, fields)
    assert status == 400
    assert "xml" in headers["content-type"]
    doc = ET.fromstring(body)
    assert local(doc.tag) == "Error" and doc.find("Code").text == "EntityTooLarge"
    code, status, _ = error_of(t.alice.head_object, Bucket=bucket, Key="e.txt")
    assert status == 404
