"""The store's layout format (issue 37, docs/layout.md#format), on the rados
backend with pools of the test's own: the first rsgw to open a store
records its format; a store recorded with a newer format than this rsgw
reads is refused, by `rsgw serve` and by `rsgw admin`, with a message that
names both formats, before anything is written. The record is changed
with the `rados` tool, as a newer release would leave it."""
import json
import subprocess
import uuid

import pytest

from rsgw_gateway import Gateway, remove_pools

# may run beside other tests (tests/run.sh): its pools are its own
pytestmark = pytest.mark.concurrent


def rados(*args, data=None):
    r = subprocess.run(["rados", *args], input=data, capture_output=True, timeout=120)
    assert r.returncode == 0, f"rados {' '.join(args)}: {r.stderr.decode()}"
    return r.stdout


@pytest.fixture
def prefix():
    prefix = f"fmt{uuid.uuid4().hex[:10]}"
    yield prefix
    remove_pools(prefix)


def test_a_newer_layout_format_is_refused(t, tmp_path, prefix):
    if t.name != "rsgw-rados":
        pytest.skip("the format record is changed with the rados tool")
    gw = Gateway(tmp_path, "fmt", backend="rados", pool_prefix=prefix).start()
    gw.stop()
    record = json.loads(rados("-p", f"{prefix}.meta", "-N", "format", "get", "layout", "-"))
    assert record["format"] == 1 and record["written_by"].startswith("rsgw "), record
    newer = json.dumps({"format": 2, "written_by": "rsgw 9.0.0"}).encode()
    rados("-p", f"{prefix}.meta", "-N", "format", "put", "layout", "-", data=newer)
    users = rados("-p", f"{prefix}.meta", "-N", "users", "ls")
    gw.start(wait=False)
    try:
        assert gw.wait_exit(timeout=60) == 1
    finally:
        gw.kill()
    log = gw.log_text()
    assert "layout format 2 (written by rsgw 9.0.0)" in log and "formats up to 1" in log, log[-2000:]
    r = gw.admin_run("user", "create", "--uid", "late", "--display-name", "Late")
    assert r.returncode != 0 and "layout format 2" in r.stderr, r.stderr
    # nothing was written: no user, and the record is the newer one still
    assert rados("-p", f"{prefix}.meta", "-N", "users", "ls") == users
    assert rados("-p", f"{prefix}.meta", "-N", "format", "get", "layout", "-") == newer
