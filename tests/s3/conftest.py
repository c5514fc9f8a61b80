"""Fixtures of the S3 client suite: every test runs once per target
(rsgw on each backend, and the real radosgw) with real clients."""
import os
import uuid

import boto3
import botocore.config
import pytest


def _targets():
    raw = os.environ.get("S3_TARGETS")
    if not raw:
        raise RuntimeError("S3_TARGETS is not set: run the suite with tests/s3/run.sh")
    return dict(item.split("=", 1) for item in raw.split(",") if item)


TARGETS = _targets()


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        names = sorted(TARGETS)
        if "rsgw_only" in metafunc.fixturenames:
            # expectations that are rsgw's own (hostile input): radosgw is
            # the reference in every other test
            names = [n for n in names if n != "radosgw"]
        metafunc.parametrize("target", names, scope="module")


@pytest.fixture
def rsgw_only():
    """Marks a test whose expectations are rsgw's, not S3-wide."""


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


@pytest.fixture(scope="module")
def t(target):
    return Target(target, TARGETS[target])


@pytest.fixture
def bucket(t):
    """A fresh bucket of alice's, emptied and removed afterwards."""
    name = f"t-{uuid.uuid4().hex[:20]}"
    t.alice.create_bucket(Bucket=name)
    yield name
    paginator = t.alice.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=name):
        keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if keys:
            t.alice.delete_objects(Bucket=name, Delete={"Objects": keys, "Quiet": True})
    t.alice.delete_bucket(Bucket=name)
