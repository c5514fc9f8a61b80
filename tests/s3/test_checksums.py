"""x-amz-checksum-*: sent as headers, computed by the SDK or in aws-chunked
trailers; verified before the object is visible, returned on request."""
import base64
import hashlib
import os
import zlib

from helpers import error_of


def crc32_b64(data):
    return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()


def test_checksum_headers(t, bucket):
    body = b"checksummed body" * 1000
    sha = base64.b64encode(hashlib.sha256(body).digest()).decode()
    r = t.alice.put_object(Bucket=bucket, Key="s", Body=body, ChecksumSHA256=sha)
    g = t.alice.get_object(Bucket=bucket, Key="s", ChecksumMode="ENABLED")
    assert g["Body"].read() == body
    if t.is_radosgw:
        # radosgw (Pacific) predates flexible checksums: it neither verifies
        # nor returns x-amz-checksum-* (Reef and later do)
        return
    assert r.get("ChecksumSHA256") == sha
    assert g.get("ChecksumSHA256") == sha
    h = t.alice.head_object(Bucket=bucket, Key="s", ChecksumMode="ENABLED")
    assert h.get("ChecksumSHA256") == sha
    code, status, _ = error_of(t.alice.put_object, Bucket=bucket, Key="bad", Body=body, ChecksumCRC32=crc32_b64(b"other"))
    assert status == 400
    assert code in ("BadDigest", "InvalidRequest", "XAmzContentChecksumMismatch")
    _, status, _ = error_of(t.alice.head_object, Bucket=bucket, Key="bad")
    assert status == 404


def test_sdk_computed_checksum(t, bucket):
    body = b"x" * 100_000
    r = t.alice.put_object(Bucket=bucket, Key="c", Body=body, ChecksumAlgorithm="CRC32")
    if t.is_radosgw:
        return  # see test_checksum_headers
    assert r.get("ChecksumCRC32") == crc32_b64(body)
    h = t.alice.head_object(Bucket=bucket, Key="c", ChecksumMode="ENABLED")
    assert h.get("ChecksumCRC32") == crc32_b64(body)


def test_streaming_trailer_upload(t, bucket):
    """The aws-chunked upload with a CRC32 trailer that current SDKs send by
    default (STREAMING-UNSIGNED-PAYLOAD-TRAILER). botocore only does this
    over TLS; the hook makes its own encoder do it over plain HTTP."""
    client = t.client(os.environ["ALICE_AK"], os.environ["ALICE_SK"], request_checksum_calculation="when_supported")

    def force_trailer(params, **_):
        algorithm = params["context"].get("checksum", {}).get("request_algorithm")
        if algorithm:
            algorithm["in"] = "trailer"

    client.meta.events.register("before-call.s3.PutObject", force_trailer)
    sent = {}
    client.meta.events.register(
        "before-send.s3.PutObject",
        lambda request, **_: sent.update({k.lower(): v for k, v in request.headers.items()}),
    )
    body = os.urandom(3 * 1024 * 1024 + 5)
    if t.is_radosgw:
        # radosgw (Pacific) does not accept STREAMING-UNSIGNED-PAYLOAD-TRAILER
        code, status, _ = error_of(client.put_object, Bucket=bucket, Key="trailer", Body=body)
        assert (code, status) == ("MissingContentLength", 411)
        return
    r = client.put_object(Bucket=bucket, Key="trailer", Body=body)
    assert sent["x-amz-trailer"] in (b"x-amz-checksum-crc32", "x-amz-checksum-crc32")
    assert sent["x-amz-content-sha256"] in (b"STREAMING-UNSIGNED-PAYLOAD-TRAILER", "STREAMING-UNSIGNED-PAYLOAD-TRAILER")
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 200
    g = t.alice.get_object(Bucket=bucket, Key="trailer", ChecksumMode="ENABLED")
    assert g["Body"].read() == body
    assert g.get("ChecksumCRC32") == crc32_b64(body)
