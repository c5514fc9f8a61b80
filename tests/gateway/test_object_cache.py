"""The object cache (rsgw only, both backends): small objects served from
memory stay coherent across instances. Two instances on one store, one
writing and one reading the same keys at the same time: a read that starts
after a write returned never gets the older version (body, ETag) nor an
older ACL decision. The byte budget holds under a scan of ten times its
size, and the scan does not push the hot objects out (docs/layout.md,
"The object cache"; docs/decisions/0007-object-cache.md)."""
import hashlib
import http.client
import os
import threading
import time
import urllib.parse
import uuid

import boto3
import botocore.config
import pytest

from helpers import anonymous_get, error_of

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent

SIZE = 260


def client(gw):
    return boto3.client("s3", endpoint_url=gw.url, region_name="us-east-1",
                        aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"],
                        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                                      retries={"total_max_attempts": 1, "mode": "standard"}))


def version_body(key, n):
    head = f"{key}:{n}:".encode()
    return head + b"." * (SIZE - len(head))


def stats(gw):
    text = gw.metrics()
    return {name: gw.metric(f"rsgw_object_cache_{name}", text)
            for name in ("serving", "capacity_bytes", "bytes", "entries", "hits_total", "misses_total",
                         "admissions_total", "rejections_total", "evictions_total", "invalidations_total")}


def cached(gw, url, want=None):
    """Reads `url` anonymously until a read is served from memory (an
    object is cached from its second read, once its head is marked, which
    the instance does in the background); every read must answer 200 and
    `want` if given."""
    hits = stats(gw)["hits_total"]
    for _ in range(200):
        status, body, _ = anonymous_get(url)
        assert status == 200 and (want is None or body == want), (status, body[:80])
        if stats(gw)["hits_total"] > hits:
            return
        time.sleep(0.01)
    raise AssertionError(f"{url} never served from memory")


@pytest.fixture
def bucket(t):
    name = f"ocache-{uuid.uuid4().hex[:12]}"
    t.alice.create_bucket(Bucket=name)
    yield name
    for page in t.alice.get_paginator("list_objects_v2").paginate(Bucket=name):
        for o in page.get("Contents", []):
            t.alice.delete_object(Bucket=name, Key=o["Key"])
    t.alice.delete_bucket(Bucket=name)


def test_reads_on_one_instance_follow_writes_on_the_other(gateway, bucket):
    """A writer on `a` overwrites two keys 1,000 times each; a reader on
    `b` reads them in a tight loop. Each read notes the last version
    acknowledged before it was sent, and must get that one or a newer one,
    with the ETag of the body it got."""
    a, b = gateway("a"), gateway("b")
    keys = ["hot-1", "hot-2"]
    writes = 1000
    acked = {k: -1 for k in keys}
    done = threading.Event()
    stale, reads = [], [0]
    on_a = client(a)
    for k in keys:
        on_a.put_object(Bucket=bucket, Key=k, Body=version_body(k, 0), ACL="public-read")
        acked[k] = 0

    def reader():
        conn = http.client.HTTPConnection("127.0.0.1", b.port, timeout=10)
        while not done.is_set():
            for k in keys:
                floor = acked[k]
                conn.request("GET", f"/{bucket}/{k}")
                r = conn.getresponse()
                body = r.read()
                reads[0] += 1
                if r.status != 200:
                    stale.append((k, floor, r.status))
                    continue
                got = int(body.split(b":")[1])
                etag = r.getheader("ETag", "").strip('"')
                if got < floor or etag != hashlib.md5(body).hexdigest():
                    stale.append((k, floor, got, etag))
        conn.close()

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for th in threads:
        th.start()
    try:
        for n in range(1, writes + 1):
            for k in keys:
                on_a.put_object(Bucket=bucket, Key=k, Body=version_body(k, n), ACL="public-read")
                acked[k] = n
    finally:
        done.set()
        for th in threads:
            th.join()
    s = stats(b)
    print(f"{reads[0]} reads on b during {writes * len(keys)} writes on a; b's cache: {s}")
    assert not stale, stale[:10]
    assert s["serving"] == 1
    assert s["hits_total"] > 0, "the reader was never served from memory"
    assert s["invalidations_total"] > 0


def test_an_object_made_private_is_refused_on_the_other_instance(gateway, bucket):
    a, b = gateway("a"), gateway("b")
    on_a, on_b = client(a), client(b)
    url = f"{b.url}/{bucket}/asset.css"
    for i in range(50):
        on_a.put_object(Bucket=bucket, Key="asset.css", Body=version_body("css", i), ACL="public-read")
        cached(b, url, version_body("css", i))
        on_a.put_object_acl(Bucket=bucket, Key="asset.css", ACL="private")
        assert anonymous_get(url)[0] == 403, f"round {i}: made private on a"
        on_a.put_object_acl(Bucket=bucket, Key="asset.css", ACL="public-read")
        assert anonymous_get(url)[0] == 200, f"round {i}: public again"
        on_a.delete_object(Bucket=bucket, Key="asset.css")
        code, status, _ = error_of(on_b.get_object, Bucket=bucket, Key="asset.css")
        assert (code, status) == ("NoSuchKey", 404), f"round {i}: deleted on a"
    assert stats(b)["hits_total"] >= 50


def test_the_budget_holds_and_a_scan_keeps_the_hot_objects(gateway, bucket):
    """256 KiB of cache: 16 hot objects read often, then a scan of 640
    objects of 4 KiB (ten times the budget) read twice each."""
    g = gateway("scan", sections="[s3]\nobject_cache_bytes = 262144\nobject_cache_max_object = 4096")
    c = client(g)
    hot = [f"hot/{i}" for i in range(16)]
    for k in hot:
        c.put_object(Bucket=bucket, Key=k, Body=version_body(k, 0) * 4, ACL="public-read")
    for _ in range(8):
        for k in hot:
            assert anonymous_get(f"{g.url}/{bucket}/{k}")[0] == 200
    for k in hot:
        cached(g, f"{g.url}/{bucket}/{k}")
    assert stats(g)["entries"] == len(hot)
    peak = 0
    for i in range(640):
        k = f"cold/{i}"
        c.put_object(Bucket=bucket, Key=k, Body=os.urandom(4096), ACL="public-read")
        for _ in range(2):
            assert anonymous_get(f"{g.url}/{bucket}/{k}")[0] == 200
        if i % 32 == 0:
            peak = max(peak, stats(g)["bytes"])
    s = stats(g)
    print(f"after the scan: {s}, peak {peak} bytes")
    assert max(peak, s["bytes"]) <= s["capacity_bytes"] == 262144
    assert s["rejections_total"] > 0
    before = s["hits_total"]
    for k in hot:
        assert anonymous_get(f"{g.url}/{bucket}/{k}")[0] == 200
    assert stats(g)["hits_total"] - before == len(hot), "a hot object was pushed out by the scan"


def test_a_cache_turned_off_serves_nothing_from_memory(gateway, bucket):
    g = gateway("off", sections="[s3]\nobject_cache_bytes = 0")
    client(g).put_object(Bucket=bucket, Key="k", Body=b"v", ACL="public-read")
    for _ in range(5):
        assert anonymous_get(f"{g.url}/{bucket}/k")[:2] == (200, b"v")
    s = stats(g)
    assert (s["serving"], s["hits_total"], s["misses_total"], s["capacity_bytes"]) == (0, 0, 0, 0)


def raw(gw, method, path, headers=()):
    """(status, headers without the per-response ones, body) of a plain request."""
    conn = http.client.HTTPConnection("127.0.0.1", gw.port, timeout=10)
    conn.request(method, path, headers=dict(headers))
    r = conn.getresponse()
    body = r.read()
    conn.close()
    got = {k.lower(): v for k, v in r.getheaders() if k.lower() not in ("x-amz-request-id", "date")}
    return r.status, got, body


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_answers_from_memory_are_the_usual_answers(gateway, bucket, method):
    """An anonymous GET or HEAD of a cached object is answered without s3s
    (the fast path); its status, headers and body are those of the same
    request sent through s3s (made to go there by a condition that holds)."""
    g = gateway("same")
    c = client(g)
    objects = {
        "plain": {},
        "full.css": dict(ContentType="text/css", CacheControl="max-age=60", ContentDisposition="inline",
                         ContentEncoding="identity", ContentLanguage="en", Expires="Thu, 01 Dec 1994 16:00:00 GMT",
                         Metadata={"a": "1", "b-c": "x y"}, Tagging="k=v&k2=v2"),
        "dir/n\u00e9e.txt": dict(ContentType="text/plain", Metadata={"u": "=?utf-8?q?x?="}),
    }
    for key, extra in objects.items():
        c.put_object(Bucket=bucket, Key=key, Body=version_body(key, 1), ACL="public-read", **extra)
        path = f"/{bucket}/{urllib.parse.quote(key)}"
        cached(g, f"{g.url}{path}")
        fast = raw(g, method, path)
        slow = raw(g, method, path, [("If-None-Match", '"not-the-etag"')])
        assert fast[0] == 200 and fast == slow, (key, fast, slow)
    s = stats(g)
    assert s["hits_total"] >= len(objects)
