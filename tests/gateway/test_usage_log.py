"""The usage log's last counts: a gateway that stops writes what it
counted since its last flush (here, with a flush an hour away, all of
it), so a rolling restart loses no request from /admin/usage. On the
embedded backend's target: the flush is the gateway's, the same for every
backend (tests/s3/test_admin_ops.py reads the log on every target)."""
import uuid

import boto3
import botocore.config
import pytest
import requests
from requests_aws4auth import AWS4Auth

# may run beside other tests (tests/run.sh): its own gateway, users and
# bucket
pytestmark = pytest.mark.concurrent


def test_a_stopping_gateway_writes_its_last_counts(t, gateway):
    if t.name != "rsgw-local":
        pytest.skip("the flush is the gateway's; one backend is enough")
    g = gateway("usage", sections="[s3]\nusage_log = true\nusage_log_flush_s = 3600\n")
    ops = "ops" + uuid.uuid4().hex[:8]
    ak, sk = "U" + uuid.uuid4().hex[:19].upper(), uuid.uuid4().hex
    g.admin("user", "create", f"--uid={ops}", "--display-name=Ops", f"--access-key={ak}", f"--secret-key={sk}")
    g.admin("caps", "add", f"--uid={ops}", "--caps=usage=read")
    # a user of its own: the store is the target's, whose gateway counts
    # the other tests' requests
    user = "u" + uuid.uuid4().hex[:10]
    uak, usk = "U" + uuid.uuid4().hex[:19].upper(), uuid.uuid4().hex
    g.admin("user", "create", f"--uid={user}", "--display-name=Counted", f"--access-key={uak}",
            f"--secret-key={usk}")
    s3 = boto3.client("s3", endpoint_url=g.url, region_name="us-east-1",
                      aws_access_key_id=uak, aws_secret_access_key=usk,
                      config=botocore.config.Config(s3={"addressing_style": "path"}))
    bucket = "usage-" + uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=bucket)
    for n in range(7):
        s3.put_object(Bucket=bucket, Key=f"k{n}", Body=b"x" * 100)
    usage_url = f"{g.url}/admin/usage?format=json&uid={user}&show-summary=True"
    auth = AWS4Auth(ak, sk, "us-east-1", "s3")

    def put_obj():
        r = requests.get(usage_url, auth=auth, timeout=10)
        assert r.status_code == 200, r.text
        (mine,) = r.json()["summary"] or [{"categories": []}]
        return {c["category"]: c for c in mine["categories"]}.get("put_obj", {}).get("ops", 0)

    assert put_obj() == 0, "nothing is written before the flush"
    g.stop()
    g.start()
    try:
        assert put_obj() == 7
    finally:
        for n in range(7):
            s3.delete_object(Bucket=bucket, Key=f"k{n}")
        s3.delete_bucket(Bucket=bucket)
        for uid in (user, ops):
            g.admin("user", "rm", f"--uid={uid}")
