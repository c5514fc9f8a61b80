"""Small helpers shared by the S3 client tests and the gateway tests."""
import http.client
import json
import os
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import botocore.exceptions
import pytest

from targets import configs


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


def raw_request(endpoint, method, path, body=None, headers=None, timeout=15):
    """One request sent as given (path, headers and body; nothing signed or
    added but what http.client adds) on a fresh connection to `endpoint`'s
    host and port: (status, headers with lower-case names, body)."""
    u = urllib.parse.urlparse(endpoint)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def ceph(*args):
    """Runs a `ceph` command against $CEPH_CONF's cluster; its stdout."""
    r = subprocess.run(["ceph", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"ceph {' '.join(args)}: {r.stderr}"
    return r.stdout


def wait_for(what, check, timeout=60):
    """`check()`'s first true value, polled every 0.5 s for `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"no {what} after {timeout} s"
        time.sleep(0.5)


def record_run(name, summary):
    """Prints a fault test's `summary` (a dict) and, with RSGW_FAULTS_OUT
    set, appends it to $RSGW_FAULTS_OUT/NAME.jsonl: the data behind
    docs/reliability.md's table of faults (tests/reliability/faults.sh)."""
    line = json.dumps({"test": name, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **summary})
    print(line)
    out = os.environ.get("RSGW_FAULTS_OUT")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f"{name}.jsonl"), "a") as f:
            f.write(line + "\n")


def target_admin(t, *args):
    """The target's admin tool with radosgw-admin's arguments: radosgw-admin
    for radosgw (on CEPH_CONF's cluster), `rsgw admin` on the target's
    config for rsgw; its output."""
    if t.is_radosgw:
        cmd = ["radosgw-admin", *args]
    else:
        cmd = [os.environ.get("RSGW_BIN", "rsgw"), "admin", "-c", configs()[t.name], *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"{' '.join(cmd)}: {r.stderr}"
    return r.stdout
