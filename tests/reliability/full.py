"""One gateway's answers on a full data pool (docs/reliability.md, "A full
store"), for full.sh: objects are written, the pool's quota is set to 1
byte (`ceph osd pool set-quota`), and once the monitors flag the pool
`full_quota` each operation is timed with a client that waits at most
--timeout s and does not retry; then the quota is lifted and a PUT tried
again. Prints one JSON line per operation:
  {"target", "run", "phase", "op", "status" (HTTP, or "timeout"), "code", "seconds"}

  python3 full.py --target NAME --endpoint URL --pool DATA_POOL --run N
(ALICE_AK / ALICE_SK: the user's keys; CEPH_CONF: the cluster.)"""
import argparse
import json
import os
import subprocess
import sys
import time
import uuid

import boto3
import botocore.config
import botocore.exceptions

MIB = 1 << 20


def ceph(*args):
    subprocess.run(["ceph", *args], check=True, capture_output=True, timeout=120)


def flagged(pool):
    out = subprocess.run(["ceph", "osd", "pool", "ls", "detail", "--format", "json"], check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return "full_quota" in next(p for p in json.loads(out) if p["pool_name"] == pool)["flags_names"]


def wait_flag(pool, present, limit=120):
    t0 = time.monotonic()
    while flagged(pool) != present:
        if time.monotonic() - t0 > limit:
            sys.exit(f"{pool}: full_quota {'not set' if present else 'still set'} after {limit} s")
        time.sleep(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", required=True)
    ap.add_argument("--endpoint", required=True)
    ap.add_argument("--pool", required=True, help="the gateway's data pool")
    ap.add_argument("--run", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20, help="client read timeout, s")
    a = ap.parse_args()
    s3 = boto3.client("s3", endpoint_url=a.endpoint, region_name="us-east-1",
                      aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"],
                      config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                                    retries={"total_max_attempts": 1}, connect_timeout=5,
                                                    read_timeout=a.timeout))
    b = f"full-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=b)
    for key, size in (("small", 300), ("large", 6 * MIB), ("other", 2 * MIB)):
        s3.put_object(Bucket=b, Key=key, Body=os.urandom(size))
    upload = s3.create_multipart_upload(Bucket=b, Key="mp")["UploadId"]

    def timed(phase, op, call, **kw):
        t0 = time.monotonic()
        try:
            call(**kw)
            status, code = 200, ""
        except botocore.exceptions.ReadTimeoutError:
            status, code = "timeout", ""
        except botocore.exceptions.ClientError as e:
            status, code = e.response["ResponseMetadata"]["HTTPStatusCode"], e.response["Error"]["Code"]
        print(json.dumps({"target": a.target, "run": a.run, "phase": phase, "op": op, "status": status,
                          "code": code, "seconds": round(time.monotonic() - t0, 3)}), flush=True)

    ceph("osd", "pool", "set-quota", a.pool, "max_bytes", "1")
    try:
        wait_flag(a.pool, True)
        timed("full", "PUT 100 B", s3.put_object, Bucket=b, Key="late-small", Body=b"x" * 100)
        timed("full", "PUT 6 MiB", s3.put_object, Bucket=b, Key="late-large", Body=os.urandom(6 * MIB))
        timed("full", "UploadPart 5 MiB", s3.upload_part, Bucket=b, Key="mp", UploadId=upload, PartNumber=1,
              Body=os.urandom(5 * MIB))
        timed("full", "GET 6 MiB", lambda **kw: s3.get_object(**kw)["Body"].read(), Bucket=b, Key="large")
        timed("full", "ListObjectsV2", s3.list_objects_v2, Bucket=b)
        timed("full", "DELETE", s3.delete_object, Bucket=b, Key="other")
    finally:
        ceph("osd", "pool", "set-quota", a.pool, "max_bytes", "0")
    wait_flag(a.pool, False)
    # writes a full pool held may complete now; give them the client's timeout
    time.sleep(a.timeout)
    timed("after", "PUT 100 B", s3.put_object, Bucket=b, Key="after", Body=b"y" * 100)
    left = sorted(o["Key"] for o in s3.list_objects_v2(Bucket=b).get("Contents", []))
    print(json.dumps({"target": a.target, "run": a.run, "phase": "after", "op": "listed", "keys": left}), flush=True)
    s3.abort_multipart_upload(Bucket=b, Key="mp", UploadId=upload)
    for key in left:
        s3.delete_object(Bucket=b, Key=key)
    s3.delete_bucket(Bucket=b)


if __name__ == "__main__":
    main()
