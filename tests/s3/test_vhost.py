"""Virtual-hosted-style addressing (`bucket.s3.test`), configured as
`s3.dns_names` in rsgw and `rgw_dns_name` in radosgw."""
import socket
import urllib.parse

import boto3
import botocore.config
import os
import pytest


@pytest.fixture
def vhost_client(t, monkeypatch):
    real = socket.getaddrinfo

    def resolve(host, *args, **kwargs):
        return real("127.0.0.1" if str(host).endswith("s3.test") else host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    port = urllib.parse.urlparse(t.endpoint).port
    return boto3.client(
        "s3",
        endpoint_url=f"http://s3.test:{port}",
        aws_access_key_id=os.environ["ALICE_AK"],
        aws_secret_access_key=os.environ["ALICE_SK"],
        region_name="us-east-1",
        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "virtual"}),
    )


def test_virtual_hosted_style(t, bucket, vhost_client):
    sent = []
    vhost_client.meta.events.register("before-send.s3.*", lambda request, **_: sent.append(request.url))
    vhost_client.put_object(Bucket=bucket, Key="dir/v.txt", Body=b"virtual")
    assert vhost_client.get_object(Bucket=bucket, Key="dir/v.txt")["Body"].read() == b"virtual"
    keys = [o["Key"] for o in vhost_client.list_objects_v2(Bucket=bucket)["Contents"]]
    assert keys == ["dir/v.txt"]
    assert all(urllib.parse.urlparse(u).hostname == f"{bucket}.s3.test" for u in sent), sent
    # and path-style still works on the same endpoint
    assert t.alice.get_object(Bucket=bucket, Key="dir/v.txt")["Body"].read() == b"virtual"
