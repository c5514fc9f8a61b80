"""Hostile and mistaken credentials: altered and replayed signed requests,
forged, expired and clock-skewed signatures, one user's signature on
another's bucket, anonymous access to everything private, keys that try to
leave the local backend's data directory, S3 on the admin port, and secrets
in logs. radosgw is the reference wherever S3 defines the answer."""
import datetime
import os
import re
import subprocess
import time
import uuid

import boto3
import botocore.config
import pytest

from helpers import anonymous_get, error_of, raw_request
from sigv4 import UNSIGNED_PAYLOAD, signed_headers
from targets import store_of


def sign(t, method, path, body=b"", headers=None, key=None, secret=None, shift=None, payload_hash=True,
         region="us-east-1"):
    """SigV4 headers for a request (body hash signed unless payload_hash is
    False); `shift` moves the signing clock."""
    return signed_headers(t.endpoint, method, path, headers, body=body, key=key, secret=secret, shift=shift,
                          region=region, payload=None if payload_hash else UNSIGNED_PAYLOAD)


def send(t, method, path, headers, body=b""):
    status, _, data = raw_request(t.endpoint, method, path, body, headers)
    return status, data


def code(body):
    m = re.search(rb"<Code>([^<]*)</Code>", body)
    return m.group(1).decode() if m else None


def test_replayed_and_altered_requests(t, bucket):
    """A captured signed PUT replays as itself within the clock window (S3
    has no nonce), but any change to what it signed fails: another body,
    key, method or signed header, and the same request once it is older than
    15 minutes."""
    body = b"the signed body"
    path = f"/{bucket}/replay"
    h = sign(t, "PUT", path, body)
    assert send(t, "PUT", path, h, body)[0] == 200
    assert send(t, "PUT", path, h, body)[0] == 200  # the identical replay
    st, b = send(t, "PUT", path, h, b"another body...")
    assert st in (400, 403) and code(b) in ("XAmzContentSHA256Mismatch", "SignatureDoesNotMatch", "BadDigest"), b
    st, b = send(t, "PUT", f"/{bucket}/elsewhere", h, body)
    assert (st, code(b)) == (403, "SignatureDoesNotMatch"), b
    st, b = send(t, "DELETE", path, h)
    assert (st, code(b)) == (403, "SignatureDoesNotMatch"), b
    altered = dict(h, **{"x-amz-acl": "public-read"})
    altered["Authorization"] = altered["Authorization"].replace("SignedHeaders=", "SignedHeaders=x-amz-acl;")
    st, b = send(t, "PUT", path, altered, body)
    assert (st, code(b)) == (403, "SignatureDoesNotMatch"), b
    old = sign(t, "PUT", path, body, shift=datetime.timedelta(minutes=-20))
    st, b = send(t, "PUT", path, old, body)
    assert (st, code(b)) == (403, "RequestTimeTooSkewed"), b
    future = sign(t, "PUT", path, body, shift=datetime.timedelta(minutes=20))
    st, b = send(t, "PUT", path, future, body)
    assert (st, code(b)) == (403, "RequestTimeTooSkewed"), b
    assert anonymous_get(f"{t.endpoint}{path}")[0] == 403, "an altered header made the object public"
    assert t.alice.get_object(Bucket=bucket, Key="replay")["Body"].read() == body


def test_forged_signatures(t, bucket):
    """Signatures that are not alice's: her key id with bob's secret, bob's
    key id on her signature, another region in the scope, a presigned URL
    moved to another key or stretched past seven days, and SigV2 with a
    stale date."""
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"alice's")
    path = f"/{bucket}/k"
    st, b = send(t, "GET", path, sign(t, "GET", path, secret=os.environ["BOB_SK"]))
    assert (st, code(b)) == (403, "SignatureDoesNotMatch"), b
    h = sign(t, "GET", path)
    h["Authorization"] = h["Authorization"].replace(os.environ["ALICE_AK"], os.environ["BOB_AK"])
    st, b = send(t, "GET", path, h)
    assert (st, code(b)) == (403, "SignatureDoesNotMatch"), b
    st, b = send(t, "GET", path, sign(t, "GET", path, key="NOSUCHKEY00000000000"))
    assert (st, code(b)) == (403, "InvalidAccessKeyId"), b
    url = t.alice.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "k"}, ExpiresIn=300)
    assert anonymous_get(url)[:2] == (200, b"alice's")
    moved = url.replace(f"/{bucket}/k?", f"/{bucket}/other?")
    st, b, _ = anonymous_get(moved)
    assert (st, code(b)) == (403, "SignatureDoesNotMatch"), b
    stretched = re.sub(r"X-Amz-Expires=\d+", "X-Amz-Expires=604801", url)
    st, b, _ = anonymous_get(stretched)
    assert st in (400, 403) and b"<RequestId>" in b, (st, b)
    # SigV2 with a Date 20 minutes old
    import base64
    import hmac
    date = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=20)).strftime(
        "%a, %d %b %Y %H:%M:%S GMT")
    to_sign = f"GET\n\n\n{date}\n{path}"
    sig = base64.b64encode(hmac.new(os.environ["ALICE_SK"].encode(), to_sign.encode(), "sha1").digest()).decode()
    st, b = send(t, "GET", path, {"Date": date, "Authorization": f"AWS {os.environ['ALICE_AK']}:{sig}"})
    assert (st, code(b)) == (403, "RequestTimeTooSkewed"), b


def test_one_users_signature_on_anothers_bucket(t, bucket):
    """Bob's valid signatures get nothing of alice's bucket: no read, list,
    write, ACL read or change, delete, or multipart upload."""
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"alice's")
    bob = t.bob
    for call, kw in [
        (bob.get_object, {"Key": "k"}), (bob.head_object, {"Key": "k"}), (bob.list_objects, {}),
        (bob.list_objects_v2, {}), (bob.get_bucket_acl, {}), (bob.get_object_acl, {"Key": "k"}),
        (bob.put_object, {"Key": "k", "Body": b"bob's"}), (bob.put_object, {"Key": "new", "Body": b"bob's"}),
        (bob.put_object_acl, {"Key": "k", "ACL": "public-read"}), (bob.put_bucket_acl, {"ACL": "public-read"}),
        (bob.delete_object, {"Key": "k"}), (bob.delete_bucket, {}),
        (bob.create_multipart_upload, {"Key": "mp"}), (bob.list_multipart_uploads, {}),
        (bob.copy_object, {"Key": "copy", "CopySource": {"Bucket": bucket, "Key": "k"}}),
    ]:
        _, status, _ = error_of(call, Bucket=bucket, **kw)
        assert status == 403, (call.__name__, status)
    assert t.alice.get_object(Bucket=bucket, Key="k")["Body"].read() == b"alice's"
    assert [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket)["Contents"]] == ["k"]
    assert anonymous_get(f"{t.endpoint}/{bucket}/k")[0] == 403


def test_anonymous_gets_nothing_private(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"private")
    up = t.alice.create_multipart_upload(Bucket=bucket, Key="mp")["UploadId"]
    tries = [
        ("GET", f"/{bucket}/k"), ("HEAD", f"/{bucket}/k"), ("GET", f"/{bucket}"),
        ("GET", f"/{bucket}?list-type=2"), ("GET", f"/{bucket}?versions"), ("GET", f"/{bucket}?acl"),
        ("GET", f"/{bucket}/k?acl"), ("GET", f"/{bucket}?uploads"), ("GET", f"/{bucket}/mp?uploadId={up}"),
        ("PUT", f"/{bucket}/k"), ("PUT", f"/{bucket}/new"), ("PUT", f"/{bucket}?acl"), ("PUT", f"/{bucket}/k?acl"),
        ("DELETE", f"/{bucket}/k"), ("DELETE", f"/{bucket}"), ("POST", f"/{bucket}/new?uploads"),
        ("DELETE", f"/{bucket}/mp?uploadId={up}"),
    ]
    for method, path in tries:
        body = b"anonymous" if method == "PUT" and "acl" not in path else b""
        hdrs = {"x-amz-acl": "public-read"} if "acl" in path else {}
        status, _, data = raw_request(t.endpoint, method, path, body, hdrs, timeout=10)
        assert status == 403, (method, path, status, data[:200])
        if method != "HEAD":
            assert code(data) == "AccessDenied", (method, path, data[:200])
    assert t.alice.get_object(Bucket=bucket, Key="k")["Body"].read() == b"private"
    assert [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket)["Contents"]] == ["k"]
    grants = t.alice.get_object_acl(Bucket=bucket, Key="k")["Grants"]
    assert all("URI" not in g["Grantee"] for g in grants), grants
    t.alice.abort_multipart_upload(Bucket=bucket, Key="mp", UploadId=up)


ESCAPES = ["../../../../../../tmp/{m}", "..%2F..%2F..%2F{m}", "/../{m}", "a/../../../{m}", "./{m}/..",
           "%2e%2e/%2e%2e/{m}", "..\\..\\{m}", "{m}/../../..", "~/{m}", "../../../../../../tmp/{m}/"]


def test_keys_stay_inside_the_data_directory(t, rsgw_only, bucket):
    """Keys made of `..`, slashes, backslashes and what looks like their
    encodings are names, not paths: each round-trips as itself, and nothing
    appears outside the local backend's data directory; NUL is refused."""
    if t.name != "rsgw-local":
        pytest.skip("the local backend's files")
    m = f"escape-{uuid.uuid4().hex[:12]}"
    data_dir = str(store_of(t.name)["path"])
    keys = [raw.format(m=m) for raw in ESCAPES]
    for k in keys:
        t.alice.put_object(Bucket=bucket, Key=k, Body=m.encode())
    listed = [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket).get("Contents", [])]
    assert sorted(listed) == sorted(keys), listed
    for k in keys:
        assert t.alice.get_object(Bucket=bucket, Key=k)["Body"].read() == m.encode()
    for nul in ["a%00b", f"..%00/{m}"]:
        path = f"/{bucket}/{nul}"
        st, _ = send(t, "PUT", path, sign(t, "PUT", path, b"x"), b"x")
        assert st == 400
    parent = os.path.dirname(data_dir)
    named = subprocess.run(["find", "/tmp", "/var/tmp", parent, "-xdev", "-name", f"*{m}*"],
                           capture_output=True, text=True).stdout.split()
    assert named == [], named
    holding = subprocess.run(["grep", "-rlF", m, parent], capture_output=True, text=True).stdout.split()
    assert holding and all(f.startswith(data_dir + "/") for f in holding), holding


def test_admin_port_takes_no_s3(t, gateway):
    """The admin listener answers /health and /metrics only: signed S3
    requests there create and read nothing."""
    g = gateway("adminport")

    class AdminEndpoint:
        endpoint = f"http://127.0.0.1:{g.admin_port}"

    name = f"adm-{uuid.uuid4().hex[:12]}"
    for method, path in [("PUT", f"/{name}"), ("GET", "/"), ("PUT", f"/{name}/k"), ("DELETE", f"/{name}")]:
        st, b = send(AdminEndpoint, method, path, sign(AdminEndpoint, method, path), b"")
        assert st in (404, 405) and b"<Error>" not in b, (method, path, st, b[:200])
    assert name not in [b["Name"] for b in t.alice.list_buckets()["Buckets"]]


def test_secrets_stay_out_of_logs(t, gateway):
    """With every log level on (RSGW_LOG=trace, s3s included), signed,
    presigned, SigV2 and failed requests and a key created while serving
    leave no secret key in the gateway's log or the admin tool's stderr."""
    g = gateway("logs", env={"RSGW_LOG": "trace"})
    cfg = g.cfg
    env = dict(os.environ, RSGW_LOG="trace")
    new_secret = "carolsecret" + uuid.uuid4().hex
    endpoint = g.url
    c = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"],
                     config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"}))
    name = f"log-{uuid.uuid4().hex[:12]}"
    c.create_bucket(Bucket=name)
    c.put_object(Bucket=name, Key="k", Body=b"v")
    url = c.generate_presigned_url("get_object", Params={"Bucket": name, "Key": "k"}, ExpiresIn=60)
    assert anonymous_get(url)[0] == 200
    v2 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                      aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"],
                      config=botocore.config.Config(signature_version="s3", s3={"addressing_style": "path"}))
    v2.get_object(Bucket=name, Key="k")["Body"].read()
    wrong = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                         aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key="wrong" * 8,
                         config=botocore.config.Config(signature_version="s3v4", retries={"total_max_attempts": 1},
                                                       s3={"addressing_style": "path"}))
    error_of(wrong.get_object, Bucket=name, Key="k")
    r = subprocess.run([os.environ["RSGW_BIN"], "admin", "-c", str(cfg), "user", "create", "--uid",
                        f"carol-{uuid.uuid4().hex[:6]}", "--display-name", "Carol", "--access-key", f"CAROL{uuid.uuid4().hex[:15].upper()}",
                        "--secret-key", new_secret],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert new_secret in r.stdout  # the tool's answer, to its caller
    assert new_secret not in r.stderr
    c.delete_object(Bucket=name, Key="k")
    c.delete_bucket(Bucket=name)
    time.sleep(0.5)
    g.stop()
    log = g.log
    text = log.read_text(errors="replace")
    assert len(text.splitlines()) > 50, "trace logging logged nothing: the test proves nothing"
    for secret in (os.environ["ALICE_SK"], os.environ["BOB_SK"], new_secret, "wrong" * 8):
        assert secret not in text, f"a secret key is in the log: {secret[:6]}..."
