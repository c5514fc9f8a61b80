"""SigV4 for hand-made requests: the one signer of every suite (tests/s3,
tests/gateway, tests/reliability). botocore signs, as a client would; the
caller sends the headers, and its body, itself, so that a request may be
anything a test needs (cut short, streamed, malformed around a valid
signature)."""
import hashlib
import hmac
import os

import botocore.auth
import botocore.awsrequest
import botocore.credentials

UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD"
STREAMING_PAYLOAD = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"


def signed_headers(endpoint, method, path, headers=None, payload=None, body=None, key=None, secret=None,
                   region="us-east-1", service="s3", shift=None, content_sha256=True):
    """The headers of a SigV4-signed request for `endpoint` + `path` (path
    and query as sent): `headers` with X-Amz-Date, X-Amz-Content-SHA256 and
    Authorization added.

    `payload` is what X-Amz-Content-SHA256 declares and the signature
    covers: a hex SHA-256, UNSIGNED-PAYLOAD, a STREAMING-* form; by default
    the SHA-256 of `body` (bytes), or UNSIGNED-PAYLOAD when there is no body.
    `key` and `secret` default to alice's (ALICE_AK, ALICE_SK); `region` and
    `service` name the credential scope; `shift` (a datetime.timedelta) moves
    the signing clock; `content_sha256` False signs as botocore's generic
    SigV4, without the X-Amz-Content-SHA256 header."""
    if payload is None:
        payload = UNSIGNED_PAYLOAD if body is None else hashlib.sha256(body).hexdigest()
    base = botocore.auth.S3SigV4Auth if content_sha256 else botocore.auth.SigV4Auth

    class Auth(base):
        def payload(self, request):
            return payload

    req = botocore.awsrequest.AWSRequest(method=method, url=f"{endpoint}{path}", headers=dict(headers or {}))
    creds = botocore.credentials.Credentials(key or os.environ["ALICE_AK"], secret or os.environ["ALICE_SK"])
    real = botocore.auth.get_current_datetime
    try:
        if shift is not None:
            botocore.auth.get_current_datetime = lambda: real() + shift
        Auth(creds, service, region).add_auth(req)
    finally:
        botocore.auth.get_current_datetime = real
    return dict(req.headers.items())


def signing_key(secret, day, region="us-east-1", service="s3"):
    """SigV4's signing key for `day` (YYYYMMDD): what signs a POST policy
    and the chunks of a streamed body."""
    k = hmac.new(("AWS4" + secret).encode(), day.encode(), hashlib.sha256).digest()
    for part in [region, service, "aws4_request"]:
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    return k


def sign_chunks(key_date, scope, stamp, seed, data, chunk):
    """STREAMING-AWS4-HMAC-SHA256-PAYLOAD's body: each chunk signed after
    the last, the seed being the request's own signature (AWS's published
    algorithm); `key_date` is the SigV4 signing key."""
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
    hdrs = {"x-amz-content-sha256": STREAMING_PAYLOAD,
            "x-amz-decoded-content-length": str(len(data)),
            "Content-Encoding": "aws-chunked"}
    hdrs.update(headers or {})
    hdrs = {k: v for k, v in hdrs.items() if v is not None}
    if content_length:
        hdrs["Content-Length"] = str(len(sign_chunks(b"k", "s", "t", "0" * 64, data, chunk)))
    signed = signed_headers(endpoint, "PUT", path, hdrs, payload=STREAMING_PAYLOAD)
    seed = signed["Authorization"].split("Signature=")[1]
    stamp = signed["X-Amz-Date"]
    day = stamp[:8]
    key = signing_key(os.environ["ALICE_SK"], day)
    body = sign_chunks(key, f"{day}/us-east-1/s3/aws4_request", stamp, seed, data, chunk)
    assert not content_length or int(hdrs["Content-Length"]) == len(body)
    return signed, body
