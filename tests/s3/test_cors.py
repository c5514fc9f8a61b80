"""CORS: Put/Get/DeleteBucketCors, preflight OPTIONS answered from the
bucket's rules, and Access-Control-* headers on actual responses (errors
included). Every test runs against radosgw too; where it answers
differently from AWS the test says which (docs/s3.md)."""

from helpers import error_of, raw_request

RULES = {"CORSRules": [
    {"ID": "app", "AllowedOrigins": ["https://app.example.com"], "AllowedMethods": ["GET", "PUT", "HEAD"],
     "AllowedHeaders": ["Content-Type", "x-amz-meta-*"], "ExposeHeaders": ["ETag", "x-amz-request-id"],
     "MaxAgeSeconds": 600},
    {"AllowedOrigins": ["*"], "AllowedMethods": ["GET"]},
]}


def request(t, method, path, headers):
    """A raw request: (status, lowercase headers, body)."""
    return raw_request(t.endpoint, method, path, headers=headers)


def preflight(t, path, origin, method, headers=None):
    h = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers:
        h["Access-Control-Request-Headers"] = headers
    return request(t, "OPTIONS", path, h)


def test_put_get_delete(t, bucket):
    code, status, _ = error_of(t.alice.get_bucket_cors, Bucket=bucket)
    assert (code, status) == ("NoSuchCORSConfiguration", 404)
    t.alice.put_bucket_cors(Bucket=bucket, CORSConfiguration=RULES)
    got = t.alice.get_bucket_cors(Bucket=bucket)["CORSRules"]
    assert [r["AllowedOrigins"] for r in got] == [["https://app.example.com"], ["*"]]
    assert got[0]["AllowedMethods"] == ["GET", "PUT", "HEAD"]
    assert got[0]["AllowedHeaders"] == ["Content-Type", "x-amz-meta-*"]
    assert got[0]["ExposeHeaders"] == ["ETag", "x-amz-request-id"]
    assert got[0]["MaxAgeSeconds"] == 600
    code, status, _ = error_of(t.bob.get_bucket_cors, Bucket=bucket)
    assert (code, status) == ("AccessDenied", 403)
    code, status, _ = error_of(t.bob.put_bucket_cors, Bucket=bucket, CORSConfiguration=RULES)
    assert (code, status) == ("AccessDenied", 403)
    r = t.alice.delete_bucket_cors(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 204
    code, status, _ = error_of(t.alice.get_bucket_cors, Bucket=bucket)
    assert (code, status) == ("NoSuchCORSConfiguration", 404)


def test_bad_rules_are_refused(t, bucket):
    bad = {"CORSRules": [{"AllowedOrigins": ["*"], "AllowedMethods": ["PATCH"]}]}
    code, status, _ = error_of(t.alice.put_bucket_cors, Bucket=bucket, CORSConfiguration=bad)
    # AWS: InvalidRequest, "Found unsupported HTTP method in CORS config";
    # radosgw 16.2: MalformedXML (docs/s3.md)
    assert (code, status) == ("MalformedXML" if t.is_radosgw else "InvalidRequest", 400)
    two = {"CORSRules": [{"AllowedOrigins": ["https://*.*.example.com"], "AllowedMethods": ["GET"]}]}
    code, status, _ = error_of(t.alice.put_bucket_cors, Bucket=bucket, CORSConfiguration=two)
    assert (code, status) == ("MalformedXML" if t.is_radosgw else "InvalidRequest", 400)


def test_preflight(t, bucket):
    path = f"/{bucket}/photos/cat.jpg"
    # no configuration: refused
    status, h, body = preflight(t, path, "https://app.example.com", "GET")
    assert status == 403
    t.alice.put_bucket_cors(Bucket=bucket, CORSConfiguration=RULES)
    status, h, _ = preflight(t, path, "https://app.example.com", "PUT", "content-type, x-amz-meta-owner")
    assert status == 200
    assert h["access-control-allow-origin"] == "https://app.example.com"
    assert "PUT" in h["access-control-allow-methods"]
    assert h["access-control-allow-headers"].lower().replace(" ", "") == "content-type,x-amz-meta-owner"
    assert h["access-control-max-age"] == "600"
    assert "etag" in h["access-control-expose-headers"].lower()
    # another origin, a method only the named origin has, a header no rule allows
    status, h, _ = preflight(t, path, "https://other.example.net", "GET")
    # the wildcard rule: AWS answers *, radosgw 16.2 echoes the origin
    want = "https://other.example.net" if t.is_radosgw else "*"
    assert (status, h["access-control-allow-origin"]) == (200, want)
    for origin, method, headers in [("https://other.example.net", "PUT", None),
                                    ("https://app.example.com", "DELETE", None),
                                    ("https://app.example.com", "PUT", "authorization")]:
        status, h, body = preflight(t, path, origin, method, headers)
        assert status == 403, (origin, method, headers)
        assert "access-control-allow-origin" not in h
    # a preflight without its headers is a bad request
    status, _, _ = request(t, "OPTIONS", path, {"Origin": "https://app.example.com"})
    assert status in (400, 403)


def test_actual_responses_carry_cors_headers(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="pub.txt", Body=b"hello", ACL="public-read")
    t.alice.put_bucket_cors(Bucket=bucket, CORSConfiguration=RULES)
    origin = {"Origin": "https://app.example.com"}
    status, h, body = request(t, "GET", f"/{bucket}/pub.txt", origin)
    assert (status, body) == (200, b"hello")
    assert h["access-control-allow-origin"] == "https://app.example.com"
    assert "etag" in h["access-control-expose-headers"].lower()
    assert "origin" in h.get("vary", "").lower()
    # errors carry them too, so that the page can read the error
    status, h, body = request(t, "GET", f"/{bucket}/private-missing", origin)
    assert status in (403, 404)
    assert h["access-control-allow-origin"] == "https://app.example.com"
    # any other origin gets the wildcard rule's answer
    status, h, _ = request(t, "GET", f"/{bucket}/pub.txt", {"Origin": "https://evil.example.org"})
    assert status == 200
    assert h["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in h
    # no Origin, no CORS headers
    status, h, _ = request(t, "GET", f"/{bucket}/pub.txt", {})
    assert "access-control-allow-origin" not in h
