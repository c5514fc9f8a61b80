"""Bucket tags: Put/Get/DeleteBucketTagging with boto3 and the aws CLI,
S3's limits on them, and who may read and change them. Every test runs
against radosgw too; where it answers differently from AWS the test says
which (docs/s3.md)."""
import json

import botocore

from helpers import error_of
from test_clients import AWS_V1, aws_env, run


def tags(*pairs):
    return {"TagSet": [{"Key": k, "Value": v} for k, v in pairs]}


def test_put_get_delete(t, bucket):
    code, status, _ = error_of(t.alice.get_bucket_tagging, Bucket=bucket)
    assert (code, status) == ("NoSuchTagSet", 404)
    t.alice.put_bucket_tagging(Bucket=bucket, Tagging=tags(("team", "web"), ("tier", "hot")))
    got = t.alice.get_bucket_tagging(Bucket=bucket)["TagSet"]
    assert sorted((x["Key"], x["Value"]) for x in got) == [("team", "web"), ("tier", "hot")]
    # a put replaces the whole set
    t.alice.put_bucket_tagging(Bucket=bucket, Tagging=tags(("only", "")))
    got = t.alice.get_bucket_tagging(Bucket=bucket)["TagSet"]
    assert [(x["Key"], x["Value"]) for x in got] == [("only", "")]
    # AWS answers 204; radosgw 16.2 200 (docs/s3.md)
    deleted = 200 if t.is_radosgw else 204
    r = t.alice.delete_bucket_tagging(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == deleted
    code, status, _ = error_of(t.alice.get_bucket_tagging, Bucket=bucket)
    assert (code, status) == ("NoSuchTagSet", 404)
    # deleting what is not there is fine
    r = t.alice.delete_bucket_tagging(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == deleted


def test_only_the_owner_reads_and_changes_them(t, bucket):
    t.alice.put_bucket_tagging(Bucket=bucket, Tagging=tags(("k", "v")))
    anonymous = t.client("", "", signature_version=botocore.UNSIGNED)
    for call, kwargs in [
        (t.bob.get_bucket_tagging, {}),
        (t.bob.put_bucket_tagging, {"Tagging": tags(("k", "bob"))}),
        (t.bob.delete_bucket_tagging, {}),
        (anonymous.get_bucket_tagging, {}),
    ]:
        code, status, _ = error_of(call, Bucket=bucket, **kwargs)
        assert (code, status) == ("AccessDenied", 403), call
    got = t.alice.get_bucket_tagging(Bucket=bucket)["TagSet"]
    assert [(x["Key"], x["Value"]) for x in got] == [("k", "v")]


def test_missing_bucket(t):
    code, status, _ = error_of(t.alice.get_bucket_tagging, Bucket="no-such-bucket-tags")
    assert (code, status) == ("NoSuchBucket", 404)
    code, status, _ = error_of(t.alice.put_bucket_tagging, Bucket="no-such-bucket-tags", Tagging=tags(("k", "v")))
    assert (code, status) == ("NoSuchBucket", 404)


def test_limits(t, bucket):
    fifty = tags(*[(f"k{i}", "v") for i in range(50)])
    t.alice.put_bucket_tagging(Bucket=bucket, Tagging=fifty)
    assert len(t.alice.get_bucket_tagging(Bucket=bucket)["TagSet"]) == 50
    bad = [
        tags(*[(f"k{i}", "v") for i in range(51)]),  # more than 50
        tags(("k" * 129, "v")),  # key longer than 128
        tags(("k", "v" * 257)),  # value longer than 256
    ]
    for tagging in bad:
        code, status, _ = error_of(t.alice.put_bucket_tagging, Bucket=bucket, Tagging=tagging)
        assert (code, status) == ("InvalidTag", 400), tagging
    # a refused set leaves the stored one
    assert len(t.alice.get_bucket_tagging(Bucket=bucket)["TagSet"]) == 50
    # the same key twice: AWS and rsgw refuse it; radosgw 16.2 stores it
    # (docs/s3.md)
    twice = tags(("k", "1"), ("k", "2"))
    if t.is_radosgw:
        t.alice.put_bucket_tagging(Bucket=bucket, Tagging=twice)
    else:
        code, status, _ = error_of(t.alice.put_bucket_tagging, Bucket=bucket, Tagging=twice)
        assert (code, status) == ("InvalidTag", 400)


def test_aws_cli(t, bucket, tmp_path):
    env = aws_env(tmp_path)
    aws = AWS_V1 + ["--endpoint-url", t.endpoint, "s3api"]
    doc = json.dumps(tags(("project", "site"), ("cost-centre", "42")))
    run(aws + ["put-bucket-tagging", "--bucket", bucket, "--tagging", doc], env)
    out = json.loads(run(aws + ["get-bucket-tagging", "--bucket", bucket], env))
    assert sorted((x["Key"], x["Value"]) for x in out["TagSet"]) == [("cost-centre", "42"), ("project", "site")]
    run(aws + ["delete-bucket-tagging", "--bucket", bucket], env)
    code, status, _ = error_of(t.alice.get_bucket_tagging, Bucket=bucket)
    assert (code, status) == ("NoSuchTagSet", 404)
