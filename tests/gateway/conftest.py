"""rsgw's own behaviour, mostly on gateways the tests start on a target's
store (fixtures in tests/conftest.py; tests/support/rsgw_gateway.py). Run
with tests/run.sh."""
import uuid

import pytest


@pytest.fixture
def public_object(t):
    """A 260-byte public-read object: (bucket, key)."""
    b = f"pool-{uuid.uuid4().hex[:16]}"
    t.alice.create_bucket(Bucket=b)
    t.alice.put_object(Bucket=b, Key="small", Body=b"x" * 260, ACL="public-read")
    yield b, "small"
    t.alice.delete_object(Bucket=b, Key="small")
    t.alice.delete_bucket(Bucket=b)
