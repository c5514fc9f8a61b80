"""Authentication and authorization: signatures, presigned URLs, anonymous
access through ACLs, and one user's key on another user's bucket."""
import os
import re
import time

from helpers import anonymous_get, error_of


def test_wrong_secret_and_unknown_key(t, bucket):
    wrong = t.client(os.environ["ALICE_AK"], "not-the-secret")
    code, status, _ = error_of(wrong.list_objects_v2, Bucket=bucket)
    assert (code, status) == ("SignatureDoesNotMatch", 403)
    unknown = t.client("NOSUCHACCESSKEY00000", "whatever")
    code, status, _ = error_of(unknown.list_objects_v2, Bucket=bucket)
    assert (code, status) == ("InvalidAccessKeyId", 403)


def test_sigv2_client(t, bucket):
    v2 = t.client(os.environ["ALICE_AK"], os.environ["ALICE_SK"], signature_version="s3")
    v2.put_object(Bucket=bucket, Key="v2", Body=b"signed with v2")
    assert v2.get_object(Bucket=bucket, Key="v2")["Body"].read() == b"signed with v2"


def test_anonymous_public_and_private(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="public.txt", Body=b"for everyone", ACL="public-read")
    t.alice.put_object(Bucket=bucket, Key="private.txt", Body=b"for alice")
    status, body, headers = anonymous_get(f"{t.endpoint}/{bucket}/public.txt")
    assert (status, body) == (200, b"for everyone")
    status, body, headers = anonymous_get(f"{t.endpoint}/{bucket}/private.txt")
    assert status == 403
    assert b"<Code>AccessDenied</Code>" in body
    assert headers.get("x-amz-request-id")
    # a private bucket cannot be listed anonymously
    status, body, _ = anonymous_get(f"{t.endpoint}/{bucket}")
    assert status == 403


def test_other_users_bucket(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="secret", Body=b"alice only")
    code, status, _ = error_of(t.bob.get_object, Bucket=bucket, Key="secret")
    assert (code, status) == ("AccessDenied", 403)
    code, status, _ = error_of(t.bob.list_objects_v2, Bucket=bucket)
    assert (code, status) == ("AccessDenied", 403)
    code, status, _ = error_of(t.bob.delete_object, Bucket=bucket, Key="secret")
    assert status == 403
    assert t.alice.get_object(Bucket=bucket, Key="secret")["Body"].read() == b"alice only"


def test_presigned_urls(t, bucket):
    t.alice.put_object(Bucket=bucket, Key="p", Body=b"presigned")
    url = t.alice.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "p"}, ExpiresIn=300)
    assert anonymous_get(url)[:2] == (200, b"presigned")
    short = t.alice.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "p"}, ExpiresIn=1)
    time.sleep(2.5)
    status, body, _ = anonymous_get(short)
    assert status == 403
    assert b"AccessDenied" in body
    assert "X-Amz-Signature=" in url
    tampered = re.sub(r"X-Amz-Signature=([0-9a-f])", lambda m: "X-Amz-Signature=" + "01"[m.group(1) == "0"], url)
    assert tampered != url
    status, body, _ = anonymous_get(tampered)
    assert status == 403
    assert b"SignatureDoesNotMatch" in body


def test_presigned_v2(t, bucket):
    v2 = t.client(os.environ["ALICE_AK"], os.environ["ALICE_SK"], signature_version="s3")
    t.alice.put_object(Bucket=bucket, Key="p2", Body=b"v2 presigned")
    url = v2.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "p2"}, ExpiresIn=300)
    assert "Signature=" in url and "X-Amz-Signature" not in url
    assert anonymous_get(url)[:2] == (200, b"v2 presigned")

