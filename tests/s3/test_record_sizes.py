"""How large a bucket's configuration may grow: the largest of each that
S3 allows, all set at once, reads back and leaves the bucket usable on
every target; a change past the limit gets a clear 400 and loses nothing
(docs/s3.md, "Record sizes").

rsgw keeps a bucket's policy, lifecycle, CORS, website and tags in one
record; it once read that record with a 64 KiB cap, so a valid lifecycle
of 1,000 long rules made every request on the bucket answer 500 for good
(test_the_reproduction_leaves_the_bucket_usable)."""
import json

from helpers import error_of

# rsgw's limit on a bucket's record (MAX_BUCKET_RECORD_BYTES)
RECORD_LIMIT = 4 << 20


def lifecycle(n, id_len, prefix_len):
    return [{"ID": f"{i:04}" + "i" * (id_len - 4), "Status": "Enabled",
             "Filter": {"Prefix": f"{i:04}" + "p" * (prefix_len - 4)}, "Expiration": {"Days": 1}}
            for i in range(n)]


def policy(bucket, size):
    """A valid policy document of about `size` bytes: one statement that
    lets bob read many prefixes."""
    n = size // len(f'"arn:aws:s3:::{bucket}/dir-0000/*", ')
    doc = {"Version": "2012-10-17", "Statement": [{
        "Sid": "manyprefixes", "Effect": "Allow", "Principal": {"AWS": ["arn:aws:iam:::user/bob"]},
        "Action": "s3:GetObject", "Resource": [f"arn:aws:s3:::{bucket}/dir-{i:04}/*" for i in range(n)]}]}
    return json.dumps(doc)


def cors(rules, origins):
    return {"CORSRules": [{"AllowedMethods": ["GET"], "AllowedHeaders": ["*"],
                           "AllowedOrigins": [f"https://{r:03}-{i:05}.example.com" for i in range(origins)]}
                          for r in range(rules)]}


def website(rules):
    return {"IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"},
            "RoutingRules": [{"Condition": {"KeyPrefixEquals": f"{i:02}/" + "k" * 200},
                              "Redirect": {"ReplaceKeyPrefixWith": f"{i:02}/" + "r" * 200}}
                             for i in range(rules)]}


def tags(n):
    return {"TagSet": [{"Key": f"{i:02}" + "k" * 126, "Value": "v" * 256} for i in range(n)]}


def assert_usable(t, bucket):
    """Every kind of request on the bucket still works."""
    c = t.alice
    c.put_object(Bucket=bucket, Key="k", Body=b"still here")
    assert [o["Key"] for o in c.list_objects_v2(Bucket=bucket).get("Contents", [])] == ["k"]
    assert c.get_object(Bucket=bucket, Key="k")["Body"].read() == b"still here"
    c.head_bucket(Bucket=bucket)
    c.delete_object(Bucket=bucket, Key="k")


def test_the_reproduction_leaves_the_bucket_usable(t):
    """The issue's request, within S3's limits (1,000 rules, ids of 205 and
    prefixes of 200 characters): taken, and the bucket answers every
    request after it, DeleteBucket included."""
    c = t.alice
    bucket = "record-size-repro"
    c.create_bucket(Bucket=bucket)
    try:
        rules = lifecycle(1000, 205, 200)
        c.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
        assert [r["ID"] for r in c.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]] == \
            [r["ID"] for r in rules]
        assert_usable(t, bucket)
        code, status, _ = error_of(c.get_bucket_policy, Bucket=bucket)
        assert (code, status) == ("NoSuchBucketPolicy", 404)
        c.delete_bucket_lifecycle(Bucket=bucket)
    finally:
        c.delete_bucket(Bucket=bucket)
    code, status, _ = error_of(c.head_bucket, Bucket=bucket)
    assert status == 404


def test_the_largest_of_everything_together(t, bucket):
    """A policy of nearly 20 KiB (AWS's limit), 1,000 lifecycle rules with
    255-character ids, 100 CORS rules, 50 tags of the longest key and value
    and 50 routing rules, all at once, each read back whole. The lifecycle
    document stays under 1 MiB, radosgw's limit on a request's XML
    (rgw_max_put_param_size), so that radosgw can be asked the same."""
    c = t.alice
    doc = policy(bucket, 19 << 10)
    assert 18 << 10 < len(doc) <= 20 << 10
    rules = lifecycle(1000, 255, 520)
    c.put_bucket_policy(Bucket=bucket, Policy=doc)
    c.put_bucket_lifecycle_configuration(Bucket=bucket, LifecycleConfiguration={"Rules": rules})
    c.put_bucket_cors(Bucket=bucket, CORSConfiguration=cors(100, 20))
    c.put_bucket_tagging(Bucket=bucket, Tagging=tags(50))
    c.put_bucket_website(Bucket=bucket, WebsiteConfiguration=website(50))

    assert json.loads(c.get_bucket_policy(Bucket=bucket)["Policy"]) == json.loads(doc)
    got = c.get_bucket_lifecycle_configuration(Bucket=bucket)["Rules"]
    assert [(r["ID"], r["Filter"]["Prefix"]) for r in got] == [(r["ID"], r["Filter"]["Prefix"]) for r in rules]
    got = c.get_bucket_cors(Bucket=bucket)["CORSRules"]
    assert [r["AllowedOrigins"] for r in got] == [r["AllowedOrigins"] for r in cors(100, 20)["CORSRules"]]
    got = c.get_bucket_tagging(Bucket=bucket)["TagSet"]
    assert sorted((x["Key"], x["Value"]) for x in got) == sorted((x["Key"], x["Value"]) for x in tags(50)["TagSet"])
    got = c.get_bucket_website(Bucket=bucket)["RoutingRules"]
    assert [r["Condition"]["KeyPrefixEquals"] for r in got] == \
        [r["Condition"]["KeyPrefixEquals"] for r in website(50)["RoutingRules"]]
    assert_usable(t, bucket)
    for delete in (c.delete_bucket_policy, c.delete_bucket_lifecycle, c.delete_bucket_cors,
                   c.delete_bucket_tagging, c.delete_bucket_website):
        delete(Bucket=bucket)


def test_a_change_past_the_limit_is_refused_and_nothing_lost(t, bucket):
    """A CORS configuration of 10 MiB (5.5 MiB in rsgw's record): rsgw
    refuses it as longer than a bucket's record may be (AWS's code for a
    request too large), radosgw as longer than a request's XML may be; the
    rules set before are kept and the bucket stays usable."""
    c = t.alice
    small = cors(1, 1)
    c.put_bucket_cors(Bucket=bucket, CORSConfiguration=small)
    huge = cors(100, 1700)
    code, status, resp = error_of(c.put_bucket_cors, Bucket=bucket, CORSConfiguration=huge)
    message = resp["Error"].get("Message", "")
    if t.is_radosgw:
        # radosgw 16.2 answers a body over rgw_max_put_param_size (1 MiB)
        # with ERANGE's mapping (docs/s3.md)
        assert (code, status) == ("InvalidRange", 416)
    else:
        assert (code, status) == ("MaxMessageLengthExceeded", 400)
        assert str(RECORD_LIMIT) in message, message
    assert c.get_bucket_cors(Bucket=bucket)["CORSRules"][0]["AllowedOrigins"] == \
        small["CORSRules"][0]["AllowedOrigins"]
    assert_usable(t, bucket)
