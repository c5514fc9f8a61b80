"""Small helpers shared by the S3 client tests."""
import urllib.error
import urllib.request

import botocore.exceptions
import pytest


def error_of(fn, *args, **kwargs):
    """Runs a boto3 call that must fail; returns (code, HTTP status, response)."""
    with pytest.raises(botocore.exceptions.ClientError) as info:
        fn(*args, **kwargs)
    resp = info.value.response
    return resp["Error"].get("Code"), resp["ResponseMetadata"]["HTTPStatusCode"], resp


def anonymous_get(url):
    """A plain unsigned GET: (status, body, headers)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, e.read(), dict(e.headers)


def signed_headers(endpoint, method, path, headers=None, payload="UNSIGNED-PAYLOAD"):
    """SigV4 headers for a hand-made request whose body the caller sends
    itself; `payload` is what x-amz-content-sha256 declares."""
    import os

    import botocore.auth
    import botocore.awsrequest
    import botocore.credentials

    class Auth(botocore.auth.S3SigV4Auth):
        def payload(self, request):
            return payload

    req = botocore.awsrequest.AWSRequest(method=method, url=f"{endpoint}{path}", headers=dict(headers or {}))
    creds = botocore.credentials.Credentials(os.environ["ALICE_AK"], os.environ["ALICE_SK"])
    Auth(creds, "s3", "us-east-1").add_auth(req)
    return dict(req.headers.items())


def sign_chunks(key_date, scope, stamp, seed, data, chunk):
    """STREAMING-AWS4-HMAC-SHA256-PAYLOAD's body: each chunk signed after
    the last, the seed being the request's own signature (AWS's published
    algorithm); `key_date` is the SigV4 signing key."""
    import hashlib
    import hmac

    out, prev = b"", seed
    empty = hashlib.sha256(b"").hexdigest()
    for piece in [data[i:i + chunk] for i in range(0, len(data), chunk)] + [b""]:
        sts = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", stamp, scope, prev, empty, hashlib.sha256(piece).hexdigest()])
        sig = hmac.new(key_date, sts.encode(), hashlib.sha256).hexdigest()
        out += f"{len(piece):x};chunk-signature={sig}\r\n".encode() + piece + b"\r\n"
        prev = sig
    return out


def streaming_upload(endpoint, path, data, headers=None, chunk=65536, content_length=True):
    """A signed aws-chunked PUT of `data` (STREAMING-AWS4-HMAC-SHA256-PAYLOAD,
    what the Java and Go SDKs send over plain HTTP), as alice: the headers
    and the framed body to send. With `content_length` False the headers
    carry no Content-Length: the body goes with Transfer-Encoding: chunked."""
    import hashlib
    import hmac
    import os

    import botocore.auth
    import botocore.awsrequest
    import botocore.credentials

    hdrs = {"x-amz-content-sha256": "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
            "x-amz-decoded-content-length": str(len(data)),
            "Content-Encoding": "aws-chunked"}
    hdrs.update(headers or {})
    hdrs = {k: v for k, v in hdrs.items() if v is not None}
    if content_length:
        hdrs["Content-Length"] = str(len(sign_chunks(b"k", "s", "t", "0" * 64, data, chunk)))
    req = botocore.awsrequest.AWSRequest(method="PUT", url=f"{endpoint}{path}", headers=hdrs)
    secret = os.environ["ALICE_SK"]

    class StreamingAuth(botocore.auth.S3SigV4Auth):
        def payload(self, request):
            return "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"

    StreamingAuth(botocore.credentials.Credentials(os.environ["ALICE_AK"], secret), "s3", "us-east-1").add_auth(req)
    seed = req.headers["Authorization"].split("Signature=")[1]
    stamp = req.headers["X-Amz-Date"]
    day = stamp[:8]
    k = hmac.new(("AWS4" + secret).encode(), day.encode(), hashlib.sha256).digest()
    for part in ["us-east-1", "s3", "aws4_request"]:
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    body = sign_chunks(k, f"{day}/us-east-1/s3/aws4_request", stamp, seed, data, chunk)
    assert not content_length or int(hdrs["Content-Length"]) == len(body)
    return dict(req.headers.items()), body
