"""Server-side encryption: SSE-C, SSE-KMS (radosgw's `testing` keys, the
same on every target: tests/run.sh), SSE-S3 and bucket defaults, with boto3
and the aws CLI; the data at rest read back from the store itself. Every
test runs against radosgw 16.2 too, with the same assertions; where it
answers otherwise than AWS (and rsgw) the test says how (docs/s3.md,
"Server-side encryption")."""
import base64
import hashlib
import os
import pathlib
import subprocess

import botocore
import pytest

from helpers import error_of
from targets import Target, store_of, targets
from test_clients import AWS_V1, AWS_V2, aws_env, run

MiB = 1024 * 1024
KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))


def ssec(key=KEY):
    return {"SSECustomerAlgorithm": "AES256", "SSECustomerKey": key}


def key_md5(key=KEY):
    return base64.b64encode(hashlib.md5(key).digest()).decode()


def headers(r):
    return r["ResponseMetadata"]["HTTPHeaders"]


def marked(n, token=b""):
    """`n` bytes of a text no store holds by chance (with `token`, not even
    from an earlier run): what the plaintext scans look for."""
    line = b"rsgw plaintext marker " + token.hex().encode() + b": the quick brown fox jumps\n"
    return (line * (n // len(line) + 1))[:n]


def test_sse_c_round_trip_and_its_key_on_every_read(t, bucket):
    data = os.urandom(100_000)
    r = t.alice.put_object(Bucket=bucket, Key="c", Body=data, **ssec())
    assert r["SSECustomerAlgorithm"] == "AES256"
    assert r["SSECustomerKeyMD5"] == key_md5()
    assert r["ETag"] == f'"{hashlib.md5(data).hexdigest()}"', "the plaintext's MD5"
    got = t.alice.get_object(Bucket=bucket, Key="c", **ssec())
    assert got["Body"].read() == data
    assert got["SSECustomerKeyMD5"] == key_md5()
    head = t.alice.head_object(Bucket=bucket, Key="c", **ssec())
    assert head["ContentLength"] == len(data)
    assert head["SSECustomerAlgorithm"] == "AES256"
    for first, last in [(0, 0), (4095, 4096), (5000, 9999), (99_999, 99_999), (1, 65_537)]:
        got = t.alice.get_object(Bucket=bucket, Key="c", Range=f"bytes={first}-{last}", **ssec())
        assert got["Body"].read() == data[first : last + 1], (first, last)
    # no key: AWS (and rsgw) 400 InvalidRequest, radosgw 400 InvalidArgument
    want = ("InvalidArgument", 400) if t.is_radosgw else ("InvalidRequest", 400)
    code, status, _ = error_of(t.alice.get_object, Bucket=bucket, Key="c")
    assert (code, status) == want
    code, status, _ = error_of(t.alice.head_object, Bucket=bucket, Key="c")
    assert status == 400
    # another key: AWS (and rsgw) 403 AccessDenied, radosgw 400 InvalidArgument
    want = ("InvalidArgument", 400) if t.is_radosgw else ("AccessDenied", 403)
    for call in (t.alice.get_object, t.alice.head_object):
        code, status, _ = error_of(call, Bucket=bucket, Key="c", **ssec(OTHER_KEY))
        assert status == want[1], call
    code, status, _ = error_of(t.alice.get_object, Bucket=bucket, Key="c", Range="bytes=0-9", **ssec(OTHER_KEY))
    assert (code, status) == want


def test_every_read_path_demands_the_key(t, bucket):
    """An SSE-C object read by each path that reads data, without its key
    and with another: GET (whole, a range, a part), HEAD, CopyObject's and
    UploadPartCopy's source. Nothing is read, nothing stored."""
    t.alice.put_object(Bucket=bucket, Key="c", Body=os.urandom(10_000), **ssec())
    up = t.alice.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    source = {"Bucket": bucket, "Key": "c"}
    paths = {
        "get": (t.alice.get_object, dict(Bucket=bucket, Key="c")),
        "range": (t.alice.get_object, dict(Bucket=bucket, Key="c", Range="bytes=100-200")),
        "part": (t.alice.get_object, dict(Bucket=bucket, Key="c", PartNumber=1)),
        "head": (t.alice.head_object, dict(Bucket=bucket, Key="c")),
    }
    copies = {
        "copy": (t.alice.copy_object, dict(Bucket=bucket, Key="copied", CopySource=source)),
        "part copy": (
            t.alice.upload_part_copy,
            dict(Bucket=bucket, Key="mp", UploadId=up, PartNumber=1, CopySource=source),
        ),
    }
    for name, (call, kw) in paths.items():
        for key, want in [(None, {400}), (OTHER_KEY, {400} if t.is_radosgw else {403})]:
            extra = ssec(key) if key else {}
            code, status, _ = error_of(call, **kw, **extra)
            assert status in want, (name, key is not None, code, status)
    for name, (call, kw) in copies.items():
        for key in (None, OTHER_KEY):
            extra = {"CopySourceSSECustomerAlgorithm": "AES256", "CopySourceSSECustomerKey": key} if key else {}
            code, status, _ = error_of(call, **kw, **extra)
            if t.is_radosgw and name == "copy":
                # radosgw 16.2 copies no encrypted object at all
                assert (code, status) == ("NotImplemented", 501), name
            else:
                assert status in ({400} if key is None or t.is_radosgw else {403}), (name, key is not None, code, status)
    listed = [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket)["Contents"]]
    assert listed == ["c"]
    assert t.alice.list_parts(Bucket=bucket, Key="mp", UploadId=up).get("Parts", []) == []
    t.alice.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=up)


def test_sse_c_headers_are_checked(t, bucket):
    bad = [
        # AES256 is the one algorithm
        ({"SSECustomerAlgorithm": "AES128", "SSECustomerKey": KEY}, ("InvalidEncryptionAlgorithmError", 400)),
        # a key of 16 bytes
        ({"SSECustomerAlgorithm": "AES256", "SSECustomerKey": KEY[:16]}, ("InvalidArgument", 400)),
        # an MD5 of another key
        (
            # (with an MD5 given, botocore sends the key as given: base64)
            {
                "SSECustomerAlgorithm": "AES256",
                "SSECustomerKey": base64.b64encode(KEY).decode(),
                "SSECustomerKeyMD5": key_md5(OTHER_KEY),
            },
            ("InvalidArgument", 400),
        ),
    ]
    for kwargs, want in bad:
        code, status, _ = error_of(t.alice.put_object, Bucket=bucket, Key="x", Body=b"x", **kwargs)
        assert (code, status) == want, kwargs
    assert "Contents" not in t.alice.list_objects_v2(Bucket=bucket), "nothing stored"


def test_a_key_for_data_stored_in_the_clear(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="clear", Body=b"hello")
    if t.is_radosgw:
        # radosgw 16.2 ignores the key (docs/s3.md)
        assert t.alice.get_object(Bucket=bucket, Key="clear", **ssec())["Body"].read() == b"hello"
    else:
        code, status, _ = error_of(t.alice.get_object, Bucket=bucket, Key="clear", **ssec())
        assert (code, status) == ("InvalidRequest", 400)
    assert t.alice.get_object(Bucket=bucket, Key="clear")["Body"].read() == b"hello"


def test_sse_kms_with_the_testing_keys(t, bucket):
    data = os.urandom(10_000)
    r = t.alice.put_object(Bucket=bucket, Key="k", Body=data, ServerSideEncryption="aws:kms", SSEKMSKeyId="testkey-2")
    assert r["ServerSideEncryption"] == "aws:kms"
    assert r["SSEKMSKeyId"] == "testkey-2"
    got = t.alice.get_object(Bucket=bucket, Key="k")
    assert got["Body"].read() == data
    assert (got["ServerSideEncryption"], got["SSEKMSKeyId"]) == ("aws:kms", "testkey-2")
    got = t.alice.get_object(Bucket=bucket, Key="k", Range="bytes=4000-4200")
    assert got["Body"].read() == data[4000:4201]
    # bob reads it as any object he may read: the gateway holds the key
    t.alice.put_object_acl(Bucket=bucket, Key="k", ACL="public-read")
    assert t.bob.get_object(Bucket=bucket, Key="k")["Body"].read() == data
    # an unknown key: rsgw 400 InvalidArgument, radosgw 403
    # InvalidAccessKeyId (AWS: 400 KMS.NotFoundException)
    want = ("InvalidAccessKeyId", 403) if t.is_radosgw else ("InvalidArgument", 400)
    code, status, _ = error_of(
        t.alice.put_object, Bucket=bucket, Key="k2", Body=b"x", ServerSideEncryption="aws:kms", SSEKMSKeyId="nope"
    )
    assert (code, status) == want
    # SSE-C and SSE-KMS at once: AWS and rsgw refuse it, radosgw 16.2
    # takes the customer key and drops the rest (docs/s3.md)
    both = dict(Bucket=bucket, Key="k3", Body=b"x", ServerSideEncryption="aws:kms", SSEKMSKeyId="testkey-1", **ssec())
    if t.is_radosgw:
        assert t.alice.put_object(**both)["SSECustomerAlgorithm"] == "AES256"
    else:
        code, status, _ = error_of(t.alice.put_object, **both)
        assert (code, status) == ("InvalidArgument", 400)


def test_sse_s3(t, bucket):
    data = marked(9000)
    r = t.alice.put_object(Bucket=bucket, Key="s", Body=data, ServerSideEncryption="AES256")
    if t.is_radosgw:
        # radosgw 16.2 takes AES256 and stores the object in the clear,
        # naming no encryption (docs/s3.md): SSE-S3 came with Quincy
        assert "ServerSideEncryption" not in r
        return
    assert r["ServerSideEncryption"] == "AES256"
    got = t.alice.get_object(Bucket=bucket, Key="s")
    assert got["Body"].read() == data
    assert got["ServerSideEncryption"] == "AES256"
    assert "SSEKMSKeyId" not in got


def test_bucket_default_encryption(t, bucket):
    config = {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "testkey-1"}}]}
    if t.is_radosgw:
        # radosgw 16.2 has no PutBucketEncryption (docs/s3.md)
        code, status, _ = error_of(t.alice.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=config)
        assert status == 400
        return
    code, status, _ = error_of(t.alice.get_bucket_encryption, Bucket=bucket)
    assert (code, status) == ("ServerSideEncryptionConfigurationNotFoundError", 404)
    code, status, _ = error_of(t.bob.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=config)
    assert (code, status) == ("AccessDenied", 403)
    t.alice.put_bucket_encryption(Bucket=bucket, ServerSideEncryptionConfiguration=config)
    rule = t.alice.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"][0]
    assert rule["ApplyServerSideEncryptionByDefault"] == {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "testkey-1"}
    r = t.alice.put_object(Bucket=bucket, Key="d", Body=b"by default")
    assert (r["ServerSideEncryption"], r["SSEKMSKeyId"]) == ("aws:kms", "testkey-1")
    # a request's own choice wins
    r = t.alice.put_object(Bucket=bucket, Key="own", Body=b"own", **ssec())
    assert "ServerSideEncryption" not in r and r["SSECustomerAlgorithm"] == "AES256"
    # a default naming a key the gateway does not hold is refused when set
    bad = {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "nope"}}]}
    code, status, _ = error_of(t.alice.put_bucket_encryption, Bucket=bucket, ServerSideEncryptionConfiguration=bad)
    assert (code, status) == ("InvalidArgument", 400)
    t.alice.delete_bucket_encryption(Bucket=bucket)
    r = t.alice.put_object(Bucket=bucket, Key="after", Body=b"clear")
    assert "ServerSideEncryption" not in r
    assert t.alice.get_object(Bucket=bucket, Key="d")["Body"].read() == b"by default"


def test_copy_decrypts_its_source_and_encrypts_as_asked(t, bucket):
    data = os.urandom(20_000)
    t.alice.put_object(Bucket=bucket, Key="src", Body=data, **ssec())
    copy = dict(
        Bucket=bucket,
        Key="dst",
        CopySource={"Bucket": bucket, "Key": "src"},
        CopySourceSSECustomerAlgorithm="AES256",
        CopySourceSSECustomerKey=KEY,
        ServerSideEncryption="aws:kms",
        SSEKMSKeyId="testkey-1",
    )
    if t.is_radosgw:
        # radosgw 16.2 copies no encrypted object (501 NotImplemented)
        code, status, _ = error_of(t.alice.copy_object, **copy)
        assert (code, status) == ("NotImplemented", 501)
        return
    r = t.alice.copy_object(**copy)
    assert (r["ServerSideEncryption"], r["SSEKMSKeyId"]) == ("aws:kms", "testkey-1")
    assert t.alice.get_object(Bucket=bucket, Key="dst")["Body"].read() == data
    # without the source's key the copy is refused
    del copy["CopySourceSSECustomerKey"], copy["CopySourceSSECustomerAlgorithm"]
    code, status, _ = error_of(t.alice.copy_object, **copy)
    assert (code, status) == ("InvalidRequest", 400)
    # into SSE-C with another key, then read with that one only
    t.alice.copy_object(
        Bucket=bucket,
        Key="dst2",
        CopySource={"Bucket": bucket, "Key": "dst"},
        **ssec(OTHER_KEY),
    )
    assert t.alice.get_object(Bucket=bucket, Key="dst2", **ssec(OTHER_KEY))["Body"].read() == data
    # the same object re-encrypted in place (a copy onto itself that
    # changes its encryption is allowed)
    t.alice.copy_object(
        Bucket=bucket,
        Key="dst2",
        CopySource={"Bucket": bucket, "Key": "dst2"},
        CopySourceSSECustomerAlgorithm="AES256",
        CopySourceSSECustomerKey=OTHER_KEY,
        ServerSideEncryption="aws:kms",
        SSEKMSKeyId="testkey-2",
    )
    assert t.alice.get_object(Bucket=bucket, Key="dst2")["Body"].read() == data


def test_multipart_with_unaligned_parts_read_by_ranges(t, bucket):
    """Parts of lengths no multiple of the 4 KiB cipher chunk, each
    encrypted from its own start: ranges across every part boundary."""
    sizes = [5 * MiB + 17, 5 * MiB + 4001, 1234]
    data = os.urandom(sum(sizes))
    up = t.alice.create_multipart_upload(Bucket=bucket, Key="mp", **ssec())
    assert up["SSECustomerKeyMD5"] == key_md5()
    uid = up["UploadId"]
    parts, at = [], 0
    for n, size in enumerate(sizes, 1):
        body = data[at : at + size]
        at += size
        # a part without the upload's key, or with another, is refused
        code, status, _ = error_of(t.alice.upload_part, Bucket=bucket, Key="mp", UploadId=uid, PartNumber=n, Body=body)
        assert status == 400
        code, status, _ = error_of(
            t.alice.upload_part, Bucket=bucket, Key="mp", UploadId=uid, PartNumber=n, Body=body, **ssec(OTHER_KEY)
        )
        assert status in (400, 403)
        r = t.alice.upload_part(Bucket=bucket, Key="mp", UploadId=uid, PartNumber=n, Body=body, **ssec())
        assert r["SSECustomerKeyMD5"] == key_md5()
        parts.append({"PartNumber": n, "ETag": r["ETag"]})
    t.alice.complete_multipart_upload(Bucket=bucket, Key="mp", UploadId=uid, MultipartUpload={"Parts": parts})
    assert t.alice.get_object(Bucket=bucket, Key="mp", **ssec())["Body"].read() == data
    b1, b2 = sizes[0], sizes[0] + sizes[1]
    for first, last in [(b1 - 1, b1), (b1 - 5000, b1 + 5000), (b2 - 3, b2 + 3), (4095, b2 + 100), (len(data) - 1, len(data) - 1)]:
        got = t.alice.get_object(Bucket=bucket, Key="mp", Range=f"bytes={first}-{last}", **ssec())
        assert got["Body"].read() == data[first : last + 1], (first, last)
    got = t.alice.get_object(Bucket=bucket, Key="mp", PartNumber=2, **ssec())
    # radosgw 16.2 answers a part of an encrypted multipart object with
    # the whole object (docs/s3.md)
    assert got["Body"].read() == (data if t.is_radosgw else data[b1:b2])
    code, status, _ = error_of(t.alice.get_object, Bucket=bucket, Key="mp", Range="bytes=0-1")
    assert status == 400


def test_aws_cli_sse_c_and_kms(t, bucket, tmp_path):
    """The aws CLI's --sse-c (multipart above its 8 MiB threshold) and
    --sse aws:kms, up and down."""
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY)
    src = tmp_path / "big.bin"
    src.write_bytes(os.urandom(9 * MiB + 5))
    env = aws_env(tmp_path)
    for cli in (AWS_V1, AWS_V2):
        base = [*cli, "--endpoint-url", t.endpoint, "s3"]
        ssec_args = ["--sse-c", "AES256", "--sse-c-key", f"fileb://{key_file}"]
        run([*base, "cp", str(src), f"s3://{bucket}/cli-c", *ssec_args], env)
        back = tmp_path / "back-c"
        run([*base, "cp", f"s3://{bucket}/cli-c", str(back), *ssec_args], env)
        assert back.read_bytes() == src.read_bytes(), cli
        run([*base, "cp", str(src), f"s3://{bucket}/cli-k", "--sse", "aws:kms", "--sse-kms-key-id", "testkey-2"], env)
        back = tmp_path / "back-k"
        run([*base, "cp", f"s3://{bucket}/cli-k", str(back)], env)
        assert back.read_bytes() == src.read_bytes(), cli
    head = t.alice.head_object(Bucket=bucket, Key="cli-k")
    assert (head["ServerSideEncryption"], head["SSEKMSKeyId"]) == ("aws:kms", "testkey-2")


def pool_of(t):
    return "default.rgw.buckets.data" if t.is_radosgw else f"{store_of(t.name)['pool_prefix']}.data"


def rados_ls(pool):
    out = subprocess.run(["rados", "-p", pool, "ls"], capture_output=True, check=True, timeout=120).stdout
    return out.decode().split()


def rados_get(pool, name):
    return subprocess.run(["rados", "-p", pool, "get", name, "-"], capture_output=True, check=True, timeout=60).stdout


def head_of(t, names, key):
    """`key`'s head object among a data pool's object `names`, and its
    bucket's marker: radosgw's `<marker>_<key>`, rsgw's `<bucket id>/<key>`."""
    sep = "_" if t.is_radosgw else "/"
    (head,) = [n for n in names if n.endswith(sep + key)]
    return head, head[: -len(sep + key)]


def stored_bytes(t, key):
    """Every byte the target's store holds for the data of the bucket
    that holds `key` (a key no other bucket has): the data pool's objects
    of that bucket (rados backend, radosgw), or every file of the embedded
    store (data files and the database that holds small objects)."""
    if t.name == "rsgw-local":
        root = pathlib.Path(store_of(t.name)["path"])
        return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())
    pool = pool_of(t)
    names = rados_ls(pool)
    _, bucket_id = head_of(t, names, key)
    prefixes = (bucket_id + "_",) if t.is_radosgw else (bucket_id + "/", bucket_id + ".")
    return b"".join(rados_get(pool, n) for n in names if n.startswith(prefixes))


def test_no_plaintext_at_rest(t, bucket):
    """The store itself holds no byte of an encrypted object's plaintext:
    its marker text is found for the object stored in the clear (so the
    scan sees the data) and for none of the encrypted ones."""
    token = os.urandom(8)
    body = lambda n: marked(n, token)  # noqa: E731
    sizes = {"small": 3000, "striped": 5 * MiB + 99}
    for name, size in sizes.items():
        t.alice.put_object(Bucket=bucket, Key=f"c-{name}", Body=body(size), **ssec())
        t.alice.put_object(
            Bucket=bucket, Key=f"k-{name}", Body=body(size), ServerSideEncryption="aws:kms", SSEKMSKeyId="testkey-1"
        )
    up = t.alice.create_multipart_upload(Bucket=bucket, Key="mp", **ssec())
    r = t.alice.upload_part(Bucket=bucket, Key="mp", UploadId=up["UploadId"], PartNumber=1, Body=body(5 * MiB), **ssec())
    t.alice.complete_multipart_upload(
        Bucket=bucket, Key="mp", UploadId=up["UploadId"], MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": r["ETag"]}]}
    )
    needle = body(200)[57:157]
    assert needle not in stored_bytes(t, "c-small"), "plaintext of an encrypted object at rest"
    # the control: the same text stored in the clear is found by the scan
    t.alice.put_object(Bucket=bucket, Key="clear", Body=body(3000))
    assert needle in stored_bytes(t, "c-small")


def test_ciphertext_is_radosgws(tmp_path):
    """rsgw encrypts as radosgw does: the same plaintext under the same
    SSE-C key is stored as the same bytes by both (radosgw's head object
    holds the first 4 MiB), for an object ending in a short chunk and a
    short block."""
    all_targets = targets()
    if "rsgw-rados" not in all_targets or "radosgw" not in all_targets:
        pytest.skip("needs the rados target and radosgw on one cluster (tests/run.sh with a CEPH_CONF)")
    ours, theirs = Target("rsgw-rados", all_targets["rsgw-rados"]), Target("radosgw", all_targets["radosgw"])
    name = f"t-same-{os.urandom(6).hex()}"
    data = os.urandom(3 * 4096 + 100 + 7)
    stored = {}
    for t in (ours, theirs):
        t.alice.create_bucket(Bucket=name)
        try:
            t.alice.put_object(Bucket=name, Key="same", Body=data, **ssec())
            pool = pool_of(t)
            head, _ = head_of(t, rados_ls(pool), "same")
            stored[t.name] = rados_get(pool, head)
        finally:
            t.alice.delete_object(Bucket=name, Key="same")
            t.alice.delete_bucket(Bucket=name)
    assert len(stored["rsgw-rados"]) == len(data)
    assert stored["rsgw-rados"] != data
    assert stored["rsgw-rados"] == stored["radosgw"]
