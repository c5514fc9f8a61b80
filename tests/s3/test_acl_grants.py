"""Sharing with named users: ACL grants by canonical id, by e-mail
address and to groups, set with ACL documents and `x-amz-grant-*`
headers (boto3 and the aws CLI), and READ, WRITE, READ_ACP, WRITE_ACP and
FULL_CONTROL enforced on buckets and objects. Every test runs against
radosgw too, with the same assertions; the test users' addresses are
uid@example.com (tests/run.sh, tests/lib.sh)."""
import json

from helpers import anonymous_get, error_of
from test_clients import AWS_V1, aws_env, run

ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTH_USERS = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"


def user(uid, perm):
    return {"Grantee": {"Type": "CanonicalUser", "ID": uid}, "Permission": perm}


def document(*grants):
    return {"Owner": {"ID": "alice"}, "Grants": list(grants)}


def shown(grants):
    """Grants as (grantee, display name, permission), sorted."""
    return sorted((g["Grantee"].get("ID") or g["Grantee"].get("URI"), g["Grantee"].get("DisplayName"),
                   g["Permission"]) for g in grants)


def denied(fn, **kw):
    code, status, _ = error_of(fn, **kw)
    return (code, status) == ("AccessDenied", 403)


def test_a_bucket_shared_with_one_user(t, bucket):
    a, b = t.alice, t.bob
    a.put_object(Bucket=bucket, Key="mine", Body=b"alice's")
    assert denied(b.list_objects_v2, Bucket=bucket)
    # READ lists the bucket, and no more
    a.put_bucket_acl(Bucket=bucket, AccessControlPolicy=document(user("alice", "FULL_CONTROL"), user("bob", "READ")))
    assert [o["Key"] for o in b.list_objects_v2(Bucket=bucket)["Contents"]] == ["mine"]
    assert denied(b.put_object, Bucket=bucket, Key="bobs", Body=b"x")
    assert denied(b.get_object, Bucket=bucket, Key="mine")  # the object's ACL decides
    assert denied(b.get_bucket_acl, Bucket=bucket)
    # WRITE adds writes and deletes; what bob writes is bob's
    a.put_bucket_acl(Bucket=bucket, AccessControlPolicy=document(
        user("alice", "FULL_CONTROL"), user("bob", "READ"), user("bob", "WRITE")))
    b.put_object(Bucket=bucket, Key="bobs", Body=b"bob's")
    assert b.get_object(Bucket=bucket, Key="bobs")["Body"].read() == b"bob's"
    assert b.get_object_acl(Bucket=bucket, Key="bobs")["Owner"]["ID"] == "bob"
    assert denied(a.get_object, Bucket=bucket, Key="bobs")
    b.put_object(Bucket=bucket, Key="for-alice", Body=b"x", GrantFullControl='id="alice"')
    assert a.get_object(Bucket=bucket, Key="for-alice")["Body"].read() == b"x"
    b.delete_object(Bucket=bucket, Key="mine")
    assert shown(a.get_bucket_acl(Bucket=bucket)["Grants"]) == [
        ("alice", "Alice", "FULL_CONTROL"), ("bob", "Bob", "READ"), ("bob", "Bob", "WRITE")]
    # taken away again
    a.put_bucket_acl(Bucket=bucket, ACL="private")
    assert denied(b.list_objects_v2, Bucket=bucket)
    assert denied(b.put_object, Bucket=bucket, Key="more", Body=b"x")


def test_grants_by_email_address(t, bucket):
    a = t.alice
    a.put_object(Bucket=bucket, Key="k", Body=b"for bob", GrantRead='emailAddress="bob@example.com"')
    assert t.bob.get_object(Bucket=bucket, Key="k")["Body"].read() == b"for bob"
    # stored and shown as the user the address names
    assert shown(a.get_object_acl(Bucket=bucket, Key="k")["Grants"]) == [("bob", "Bob", "READ")]
    doc = document(user("alice", "FULL_CONTROL"),
                   {"Grantee": {"Type": "AmazonCustomerByEmail", "EmailAddress": "bob@example.com"},
                    "Permission": "READ_ACP"})
    a.put_object_acl(Bucket=bucket, Key="k", AccessControlPolicy=doc)
    assert shown(t.bob.get_object_acl(Bucket=bucket, Key="k")["Grants"]) == [
        ("alice", "Alice", "FULL_CONTROL"), ("bob", "Bob", "READ_ACP")]
    doc["Grants"][1]["Grantee"]["EmailAddress"] = "nobody@example.com"
    code, status, _ = error_of(a.put_object_acl, Bucket=bucket, Key="k", AccessControlPolicy=doc)
    assert (code, status) == ("UnresolvableGrantByEmailAddress", 400)


def test_groups(t, bucket):
    a = t.alice
    a.put_object(Bucket=bucket, Key="signed", Body=b"s", GrantRead=f'uri="{AUTH_USERS}"')
    a.put_object(Bucket=bucket, Key="public", Body=b"p", GrantRead=f'uri="{AUTH_USERS}", uri="{ALL_USERS}"')
    assert t.bob.get_object(Bucket=bucket, Key="signed")["Body"].read() == b"s"
    assert anonymous_get(f"{t.endpoint}/{bucket}/signed")[0] == 403
    # twice: the second may come from rsgw's object cache, which must
    # decide as the store's copy does
    for _ in range(2):
        assert anonymous_get(f"{t.endpoint}/{bucket}/public")[:2] == (200, b"p")
    a.put_object_acl(Bucket=bucket, Key="public", GrantRead=f'uri="{AUTH_USERS}"')
    assert anonymous_get(f"{t.endpoint}/{bucket}/public")[0] == 403


def test_acl_permissions(t, bucket):
    a, b = t.alice, t.bob
    a.put_object(Bucket=bucket, Key="k", Body=b"x", GrantReadACP='id="bob"')
    # READ_ACP reads the ACL, not the object nor a change of the ACL
    assert shown(b.get_object_acl(Bucket=bucket, Key="k")["Grants"]) == [("bob", "Bob", "READ_ACP")]
    assert denied(b.get_object, Bucket=bucket, Key="k")
    assert denied(b.put_object_acl, Bucket=bucket, Key="k", ACL="public-read")
    # WRITE_ACP changes it (and so bob can give himself more)
    a.put_object_acl(Bucket=bucket, Key="k", GrantWriteACP='id="bob"')
    assert denied(b.get_object_acl, Bucket=bucket, Key="k")
    b.put_object_acl(Bucket=bucket, Key="k", GrantRead='id="bob"', GrantFullControl='id="alice"')
    assert b.get_object(Bucket=bucket, Key="k")["Body"].read() == b"x"
    # FULL_CONTROL is all of them
    a.put_object_acl(Bucket=bucket, Key="k", GrantFullControl='id="bob"')
    assert b.get_object(Bucket=bucket, Key="k")["Body"].read() == b"x"
    b.get_object_acl(Bucket=bucket, Key="k")
    b.put_object_acl(Bucket=bucket, Key="k", ACL="private")
    assert denied(b.get_object, Bucket=bucket, Key="k")


def test_the_owner_keeps_the_acl(t, bucket):
    """Grants that leave the owner out leave it only the ACL itself, as in
    AWS and radosgw: it may read and set the ACL, not the object."""
    a = t.alice
    a.put_object(Bucket=bucket, Key="k", Body=b"x", GrantRead='id="bob"')
    assert denied(a.get_object, Bucket=bucket, Key="k")
    assert shown(a.get_object_acl(Bucket=bucket, Key="k")["Grants"]) == [("bob", "Bob", "READ")]
    a.put_object_acl(Bucket=bucket, Key="k", ACL="private")
    assert a.get_object(Bucket=bucket, Key="k")["Body"].read() == b"x"
    assert denied(t.bob.get_object, Bucket=bucket, Key="k")


def test_refusals(t, bucket):
    a = t.alice
    a.put_object(Bucket=bucket, Key="k", Body=b"x")
    # more grants than radosgw's rgw_acl_grants_max_num (100)
    code, status, _ = error_of(a.put_object_acl, Bucket=bucket, Key="k",
                               AccessControlPolicy=document(*[user("bob", "READ")] * 101))
    assert (code, status) == ("LimitExceeded", 400)
    # an unknown canonical id in a document
    code, status, _ = error_of(a.put_object_acl, Bucket=bucket, Key="k",
                               AccessControlPolicy=document(user("nosuchuser", "READ")))
    assert (code, status) == ("InvalidArgument", 400)
    # nothing changed
    assert shown(a.get_object_acl(Bucket=bucket, Key="k")["Grants"]) == [("alice", "Alice", "FULL_CONTROL")]


def test_aws_cli(t, bucket, tmp_path):
    env = aws_env(tmp_path)
    aws = AWS_V1 + ["--endpoint-url", t.endpoint, "s3api"]
    t.alice.put_object(Bucket=bucket, Key="k", Body=b"shared")
    run(aws + ["put-object-acl", "--bucket", bucket, "--key", "k", "--grant-read", "id=bob",
               "--grant-full-control", "emailAddress=alice@example.com"], env)
    out = json.loads(run(aws + ["get-object-acl", "--bucket", bucket, "--key", "k"], env))
    assert shown(out["Grants"]) == [("alice", "Alice", "FULL_CONTROL"), ("bob", "Bob", "READ")]
    assert t.bob.get_object(Bucket=bucket, Key="k")["Body"].read() == b"shared"
