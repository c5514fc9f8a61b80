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
