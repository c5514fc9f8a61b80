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
