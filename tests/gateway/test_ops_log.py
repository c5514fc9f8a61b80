"""The ops log ([ops_log]): one JSON line per request with who (user or
anonymous, client address, user agent, referer), what (operation, bucket,
object, bytes) and how (status, time), the query of presigned URLs left
out; 100,000 requests each logged or counted as dropped; rotation by size.
On the embedded backend's target: the log is the frontend's, the same for
every backend."""
import json
import os
import re
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import boto3
import botocore.config
import pytest
import requests
from requests_aws4auth import AWS4Auth

from rsgw_gateway import metric

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent


def logged_gateway(t, gateway, tmp_path, name="ops", **ops_log):
    if t.name != "rsgw-local":
        pytest.skip("the ops log is the frontend's; one backend is enough")
    # not NAME.log: that is the gateway's own log
    keys = {"path": str(tmp_path / "requests.jsonl"), **ops_log}
    section = "[ops_log]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in keys.items())
    g = gateway(name, sections=section)
    g.ops_log = tmp_path / "requests.jsonl"
    return g


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def requests_counted(metrics):
    """Every request the gateway answered, from rsgw_requests_total."""
    return sum(float(v) for v in re.findall(r"^rsgw_requests_total\{[^}]*\} (\S+)$", metrics, re.M))


def client(g):
    cfg = botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                 retries={"total_max_attempts": 1})
    return boto3.client("s3", endpoint_url=g.url, region_name="us-east-1", config=cfg,
                        aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"])


def test_who_did_what(t, gateway, tmp_path):
    g = logged_gateway(t, gateway, tmp_path)
    s3 = client(g)
    b = f"ops-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=b)
    s3.put_object(Bucket=b, Key="dir/cat.jpg", Body=b"m" * 1000, ACL="public-read")
    req = urllib.request.Request(f"{g.url}/{b}/dir/cat.jpg",
                                 headers={"User-Agent": "surge-client/1.0", "Referer": "https://example.org/page"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert len(r.read()) == 1000
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"{g.url}/{b}/missing", timeout=10)
    assert e.value.code in (403, 404)
    url = s3.generate_presigned_url("get_object", Params={"Bucket": b, "Key": "dir/cat.jpg"}, ExpiresIn=60)
    signature = re.search(r"X-Amz-Signature=([0-9a-f]+)", url).group(1)
    with urllib.request.urlopen(url, timeout=10) as r:
        r.read()
    s3.delete_object(Bucket=b, Key="dir/cat.jpg")
    s3.delete_bucket(Bucket=b)
    counted = requests_counted(g.metrics())
    g.stop()  # SIGTERM: every answered request's line is written before exit

    text = g.ops_log.read_text()
    assert signature not in text, "a presigned URL's signature must not be logged"
    log = lines(g.ops_log)
    assert len(log) == counted, f"{len(log)} lines for {counted} requests"
    mine = [e for e in log if e["bucket"] == b]
    assert [e["operation"] for e in mine] == [
        "CreateBucket", "PutObject", "GetObject", "GetObject", "GetObject", "DeleteObject", "DeleteBucket"]
    put, anon_get, missing, presigned = mine[1:5]
    assert (put["user"], put["access_key_id"]) == ("alice", os.environ["ALICE_AK"])
    assert (put["object"], put["http_status"], put["bytes_received"]) == ("dir/cat.jpg", 200, 1000)
    assert put["method"] == "PUT" and put["uri"] == f"/{b}/dir/cat.jpg"
    assert (anon_get["user"], anon_get["access_key_id"]) == ("anonymous", None)
    assert anon_get["http_status"] == 200 and anon_get["bytes_sent"] == 1000
    assert (anon_get["user_agent"], anon_get["referrer"]) == ("surge-client/1.0", "https://example.org/page")
    assert anon_get["remote_addr"] == "127.0.0.1"
    assert missing["http_status"] == e.value.code and missing["object"] == "missing"
    assert missing["bytes_sent"] > 0, "the error document was sent"
    assert presigned["user"] == "alice" and presigned["uri"] == f"/{b}/dir/cat.jpg"
    for entry in mine:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry["time"]), entry
        assert entry["trans_id"].startswith("tx") and entry["total_time"] > 0
    assert len({e["trans_id"] for e in mine}) == len(mine)


def test_admin_ops_calls_are_logged(t, gateway, tmp_path):
    """An Admin Ops API call is logged as its operation, with its signer,
    refused or not (alice holds no caps)."""
    g = logged_gateway(t, gateway, tmp_path)
    auth = AWS4Auth(os.environ["ALICE_AK"], os.environ["ALICE_SK"], "us-east-1", "s3")
    r = requests.get(f"{g.url}/admin/user?format=json&uid=alice", auth=auth, timeout=10)
    assert (r.status_code, r.json()["Code"]) == (403, "AccessDenied")
    g.stop()
    (entry,) = [e for e in lines(g.ops_log) if e["uri"] == "/admin/user"]
    assert (entry["operation"], entry["user"], entry["http_status"]) == ("AdminGetUser", "alice", 403)
    assert entry["trans_id"] == r.json()["RequestId"]


def test_every_request_logged_or_counted_as_dropped(t, gateway, tmp_path):
    """100,000 keep-alive GETs: each is a line, or a drop counted in
    rsgw_ops_log_dropped_total; the file holds exactly the lines counted."""
    g = logged_gateway(t, gateway, tmp_path)
    s3 = client(g)
    b = f"ops-{uuid.uuid4().hex[:12]}"
    s3.create_bucket(Bucket=b)
    s3.put_object(Bucket=b, Key="small", Body=b"y" * 260, ACL="public-read")
    r = subprocess.run([os.environ.get("RSGW_BIN", "rsgw"), "bench", "ab", "-q", "--json", "-k", "-c", "50",
                        "-n", "100000", f"{g.url}/{b}/small"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["complete_requests"] == 100_000
    # the writer may still be at work: wait until every request is a line
    # or a drop (the metrics come from the admin port: no S3 request)
    deadline = time.monotonic() + 30
    while True:
        m = g.metrics()
        counted = requests_counted(m)
        written, dropped = metric(m, "rsgw_ops_log_lines_total"), metric(m, "rsgw_ops_log_dropped_total")
        if written + dropped == counted or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert counted >= 100_000 and written + dropped == counted, (counted, written, dropped)
    g.stop()
    with open(g.ops_log) as f:
        assert sum(1 for _ in f) == written


def test_the_file_rotates_by_size(t, gateway, tmp_path):
    g = logged_gateway(t, gateway, tmp_path, max_bytes=4096, files=2)
    for _ in range(100):
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(f"{g.url}/", timeout=10)  # anonymous: 403
    g.stop()
    files = [g.ops_log, tmp_path / "requests.jsonl.1", tmp_path / "requests.jsonl.2"]
    for f in files:
        size = f.stat().st_size
        assert 0 < size <= 4096, f"{f}: {size}"
        assert all(e["http_status"] in (200, 403) for e in lines(f))
    assert not (tmp_path / "requests.jsonl.3").exists()
