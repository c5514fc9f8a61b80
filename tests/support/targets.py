"""The targets tests/run.sh started (S3_TARGETS: name=url, RSGW_CONFIGS:
name=config of the rsgw ones) and clients for them."""
import os
import tomllib

import boto3
import botocore.config


def targets():
    raw = os.environ.get("S3_TARGETS")
    if not raw:
        raise RuntimeError("S3_TARGETS is not set: run the suites with tests/run.sh")
    return dict(item.split("=", 1) for item in raw.split(",") if item)


def configs():
    """name -> config file of each rsgw target."""
    return dict(i.split("=", 1) for i in os.environ.get("RSGW_CONFIGS", "").split(",") if i)


def store_of(name):
    """The [store] section of an rsgw target's config."""
    with open(configs()[name], "rb") as f:
        return tomllib.load(f).get("store", {})


class Target:
    """One S3 endpoint with clients for its two users."""

    def __init__(self, name, endpoint):
        self.name = name
        self.endpoint = endpoint
        self.is_radosgw = name == "radosgw"
        self.alice = self.client(os.environ["ALICE_AK"], os.environ["ALICE_SK"])
        self.bob = self.client(os.environ["BOB_AK"], os.environ["BOB_SK"])

    def client(self, access, secret, **config):
        config.setdefault("signature_version", "s3v4")
        config.setdefault("retries", {"max_attempts": 1, "mode": "standard"})
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=access,
            aws_secret_access_key=secret,
            region_name="us-east-1",
            config=botocore.config.Config(s3={"addressing_style": "path"}, **config),
        )
