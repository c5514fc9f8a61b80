#!/usr/bin/env python3
"""A soak: a mixed S3 workload against one or more gateways for a fixed time,
with the gateways' RSS, open descriptors and threads sampled every
--interval seconds, and every object read back and checked at the end.

Workers each own a key range (worker w writes only under `w<w>/`), so each
keeps an exact model of its keys: the MD5 of the last acknowledged write.
Every GET, ranged GET and listing is checked against that model while the
load runs, and once more at the end. Injected faults are counted apart: a
PUT whose client vanishes mid-body (the object must keep its old version)
and a multipart upload abandoned half-way (aborted later, nothing visible).

  soak.py --endpoint NAME=URL[,NAME=URL] --pid NAME=PID[,...] --duration S --out DIR

Credentials come from ALICE_AK / ALICE_SK. Writes DIR/samples.csv (one line
per interval and gateway), DIR/summary.json and DIR/report.md (the figures
as Markdown), and prints progress every interval. Clients never retry.
Exits 1 when any error other than the injected ones happened, an object read
back wrong, or a resource or the p99 latency of each --window (all operations
together) grew steadily (see `trend`; judged on 30 samples and 6 windows at
least, so a p99 trend needs 30 minutes of the default 5-minute windows).
"""
import argparse
import collections
import csv
import hashlib
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid

import boto3
import botocore.config
import botocore.exceptions

# the suites' SigV4 signer, in tests/support
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from sigv4 import signed_headers  # noqa: E402

KiB, MiB = 1024, 1024 * 1024
# (operation, weight): COSBench-like mix of small and large objects with
# listings, multipart and deletes, plus the two injected faults
MIX = [
    ("put_small", 30), ("get", 28), ("head", 5), ("range_get", 4), ("list", 8),
    ("delete", 8), ("delete_batch", 2), ("put_large", 4), ("multipart", 2),
    ("copy", 3), ("inject_cut_put", 3), ("inject_abandoned_multipart", 1),
]
SMALL = (1 * KiB, 64 * KiB)
LARGE = (4 * MiB, 10 * MiB)
PART = 5 * MiB
# keys per worker: writes to new keys turn into overwrites beyond this, which
# bounds the data a soak keeps (about 1 GiB for 8 workers)
MAX_KEYS = 150
# samples a resource trend is judged on at least (5 minutes at 10 s)
MIN_TREND_SAMPLES = 30
# latency windows a p99 trend is judged on at least (30 minutes of 5)
MIN_TREND_WINDOWS = 6


def payload(size, rng):
    """Bytes of `size`: a random 64 KiB block repeated with a random prefix
    (cheap to make at 10 MiB, distinct per write)."""
    block = rng.randbytes(min(size, 64 * KiB))
    head = rng.randbytes(16)
    reps = size // len(block) + 1 if block else 0
    return (head + block * reps)[:size]


class Stats:
    def __init__(self, window_s):
        self.lock = threading.Lock()
        self.ops = collections.Counter()
        self.errors = collections.Counter()  # unexpected: must stay empty
        self.injected = collections.Counter()
        self.latency = collections.defaultdict(list)
        # every operation's latency by the window (of window_s from t0) it ended in
        self.windows = collections.defaultdict(list)
        self.window_s = window_s
        self.t0 = time.monotonic()
        self.bytes = 0

    def ok(self, op, dt, n=0):
        with self.lock:
            self.ops[op] += 1
            self.bytes += n
            self.latency[op].append(dt)
            self.windows[int((time.monotonic() - self.t0) // self.window_s)].append(dt)

    def error(self, what):
        with self.lock:
            self.errors[what] += 1
        print(f"ERROR {what}", file=sys.stderr, flush=True)


class Worker(threading.Thread):
    def __init__(self, wid, name, endpoint, bucket, stats, stop, seed):
        super().__init__(daemon=True)
        self.wid, self.name, self.endpoint, self.bucket = wid, name, endpoint, bucket
        self.stats, self.stop = stats, stop
        self.rng = random.Random(seed)
        self.model = {}  # key -> (md5 hex, size)
        self.uploads = []  # abandoned multipart upload ids, aborted later
        self.client = client(endpoint)
        self.prefix = f"w{wid}/"
        self.next_key = 0

    def existing_key(self):
        return self.rng.choice(sorted(self.model))

    def write_key(self, overwrite):
        """An existing key with probability `overwrite` (always once the
        worker holds MAX_KEYS), else a new one."""
        if self.model and (len(self.model) >= MAX_KEYS or self.rng.random() < overwrite):
            return self.existing_key()
        self.next_key += 1
        return f"{self.prefix}k{self.next_key:06d}"

    def run(self):
        ops, weights = zip(*MIX)
        while not self.stop.is_set():
            op = self.rng.choices(ops, weights)[0]
            t0 = time.monotonic()
            try:
                n = getattr(self, op)()
            except Exception as e:  # noqa: BLE001: every failure is counted and named
                self.stats.error(f"{self.name} {op}: {type(e).__name__}: {e}")
                continue
            if n is not None:
                self.stats.ok(op, time.monotonic() - t0, n)

    def put(self, key, data):
        self.client.put_object(Bucket=self.bucket, Key=key, Body=data)
        self.model[key] = (hashlib.md5(data).hexdigest(), len(data))
        return len(data)

    def put_small(self):
        return self.put(self.write_key(0.3), payload(self.rng.randint(*SMALL), self.rng))

    def put_large(self):
        return self.put(self.write_key(0.3), payload(self.rng.randint(*LARGE), self.rng))

    def check_body(self, key, body, what):
        want = self.model[key]
        if hashlib.md5(body).hexdigest() != want[0]:
            self.stats.error(f"{self.name} {what} {key}: {len(body)} bytes, not the last write ({want[1]} bytes)")

    def get(self):
        if not self.model:
            return None
        key = self.existing_key()
        body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        self.check_body(key, body, "get")
        return len(body)

    def head(self):
        if not self.model:
            return None
        key = self.existing_key()
        size = self.client.head_object(Bucket=self.bucket, Key=key)["ContentLength"]
        if size != self.model[key][1]:
            self.stats.error(f"{self.name} head {key}: size {size}, want {self.model[key][1]}")
        return 0

    def range_get(self):
        if not self.model:
            return None
        key = self.existing_key()
        full = self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        self.check_body(key, full, "get")
        a = self.rng.randrange(len(full)) if full else 0
        b = min(len(full) - 1, a + self.rng.randint(0, 256 * KiB))
        if not full:
            return 0
        part = self.client.get_object(Bucket=self.bucket, Key=key, Range=f"bytes={a}-{b}")["Body"].read()
        if part != full[a:b + 1]:
            self.stats.error(f"{self.name} range {key} {a}-{b}: wrong bytes")
        return len(part)

    def list(self):
        keys = set()
        token = None
        while True:
            kw = {"Bucket": self.bucket, "Prefix": self.prefix, "MaxKeys": self.rng.choice([50, 1000])}
            if token:
                kw["ContinuationToken"] = token
            page = self.client.list_objects_v2(**kw)
            for o in page.get("Contents", []):
                keys.add(o["Key"])
                if o["Key"] in self.model and o["Size"] != self.model[o["Key"]][1]:
                    self.stats.error(f"{self.name} list {o['Key']}: size {o['Size']}")
            if not page.get("IsTruncated"):
                break
            token = page["NextContinuationToken"]
        if keys != set(self.model):
            extra, missing = keys - set(self.model), set(self.model) - keys
            self.stats.error(f"{self.name} list: {len(extra)} unexpected, {len(missing)} missing keys")
        return 0

    def delete(self):
        if not self.model:
            return None
        key = self.existing_key()
        self.client.delete_object(Bucket=self.bucket, Key=key)
        del self.model[key]
        return 0

    def delete_batch(self):
        if len(self.model) < 20:
            return None
        keys = self.rng.sample(sorted(self.model), 10)
        r = self.client.delete_objects(Bucket=self.bucket, Delete={"Objects": [{"Key": k} for k in keys]})
        if r.get("Errors"):
            self.stats.error(f"{self.name} delete_batch: {r['Errors']}")
        for k in keys:
            del self.model[k]
        return 0

    def copy(self):
        if not self.model:
            return None
        src = self.existing_key()
        dst = self.write_key(0.0)
        if dst == src:
            return None
        self.client.copy_object(Bucket=self.bucket, Key=dst, CopySource={"Bucket": self.bucket, "Key": src})
        self.model[dst] = self.model[src]
        return 0

    def multipart(self):
        key = self.write_key(0.3)
        parts = [payload(PART, self.rng) for _ in range(2)] + [payload(self.rng.randint(1, PART), self.rng)]
        up = self.client.create_multipart_upload(Bucket=self.bucket, Key=key)["UploadId"]
        done = []
        for i, p in enumerate(parts, 1):
            etag = self.client.upload_part(Bucket=self.bucket, Key=key, UploadId=up, PartNumber=i, Body=p)["ETag"]
            done.append({"PartNumber": i, "ETag": etag})
        self.client.complete_multipart_upload(Bucket=self.bucket, Key=key, UploadId=up,
                                              MultipartUpload={"Parts": done})
        data = b"".join(parts)
        self.model[key] = (hashlib.md5(data).hexdigest(), len(data))
        return len(data)

    def inject_cut_put(self):
        """A PUT whose client goes away after part of the body: the gateway
        must keep the old version (or no object) and leak nothing."""
        key = self.write_key(0.8)
        declared = self.rng.randint(64 * KiB, 6 * MiB)
        cut_put(self.endpoint, self.bucket, key, declared, self.rng.randint(1, declared - 1))
        with self.stats.lock:
            self.stats.injected["cut_put"] += 1
        return None

    def inject_abandoned_multipart(self):
        key = self.write_key(0.8)
        up = self.client.create_multipart_upload(Bucket=self.bucket, Key=key)["UploadId"]
        self.client.upload_part(Bucket=self.bucket, Key=key, UploadId=up, PartNumber=1,
                                Body=payload(self.rng.randint(1, PART), self.rng))
        self.uploads.append((key, up))
        if len(self.uploads) > 3:
            k, u = self.uploads.pop(0)
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=k, UploadId=u)
        with self.stats.lock:
            self.stats.injected["abandoned_multipart"] += 1
        return None

    def verify_all(self):
        """Final check: every key reads back as its last write; nothing else listed."""
        for k, u in self.uploads:
            self.client.abort_multipart_upload(Bucket=self.bucket, Key=k, UploadId=u)
        bad = 0
        for key, (md5, size) in sorted(self.model.items()):
            body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
            if hashlib.md5(body).hexdigest() != md5 or len(body) != size:
                bad += 1
                self.stats.error(f"{self.name} final {key}: wrong content")
        self.list()
        return len(self.model), bad


def client(endpoint):
    return boto3.client(
        "s3", endpoint_url=endpoint, region_name="us-east-1",
        aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"],
        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                      retries={"total_max_attempts": 1, "mode": "standard"},
                                      connect_timeout=10, read_timeout=60, max_pool_connections=4))


def cut_put(endpoint, bucket, key, declared, send):
    """Sends a signed PUT declaring `declared` bytes, `send` of them, and closes."""
    u = urllib.parse.urlparse(endpoint)
    path = f"/{bucket}/{urllib.parse.quote(key)}"
    signed = signed_headers(endpoint, "PUT", path, {"Content-Length": str(declared)})
    head = f"PUT {path} HTTP/1.1\r\nHost: {u.netloc}\r\n" + "".join(
        f"{k}: {v}\r\n" for k, v in signed.items()) + "\r\n"
    with socket.create_connection((u.hostname, u.port), timeout=10) as s:
        s.sendall(head.encode() + os.urandom(send))
        time.sleep(0.05)


def proc_sample(pid):
    """(RSS MiB, open fds, threads) of a process."""
    rss = threads = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    return rss, fds, threads


def trend(values, tolerance, min_samples=MIN_TREND_SAMPLES):
    """Whether `values` (one per sample) grow steadily: the mean of the last
    third exceeds the mean of the middle third by more than `tolerance`
    (relative) and the last third's minimum exceeds the middle third's
    maximum. A warm-up first third (caches, allocator arenas) is not judged."""
    n = len(values)
    if n < min_samples:
        return False
    mid, last = values[n // 3: 2 * n // 3], values[2 * n // 3:]
    grew = sum(last) / len(last) > (sum(mid) / len(mid)) * (1 + tolerance)
    return grew and min(last) > max(mid)


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))]


def latency_windows(stats, elapsed):
    """Each whole window's operations and latency percentiles (a last,
    partial window is left out: fewer operations, not comparable)."""
    whole = int(elapsed // stats.window_s)
    return [{"start_s": i * stats.window_s, "ops": len(stats.windows[i]),
             "p50_ms": round(percentile(stats.windows[i], 0.5) * 1000, 1),
             "p99_ms": round(percentile(stats.windows[i], 0.99) * 1000, 1)}
            for i in range(whole) if stats.windows.get(i)]


def report(summary, samples, pids):
    """The soak's figures as Markdown: totals, operations, and each
    gateway's resources over time."""
    lines = [
        f"{summary['duration_s']} s, {summary['workers']} workers on {', '.join(summary['endpoints'])}: "
        f"{summary['ops_total']} operations, {summary['bytes'] / MiB / 1024:.1f} GiB moved, "
        f"{sum(summary['injected'].values())} faults injected "
        f"({', '.join(f'{v} {k}' for k, v in sorted(summary['injected'].items()))}), "
        f"{sum(summary['errors'].values())} unexpected errors; {summary['objects_verified']} objects read back "
        f"at the end, {summary['objects_wrong']} wrong; resource growth: {summary['growth'] or 'none'}.",
        "",
        "| operation | count | p50 ms | p99 ms |",
        "|---|---:|---:|---:|",
    ]
    for op, v in sorted(summary["latency"].items(), key=lambda kv: -kv[1]["n"]):
        lines.append(f"| {op} | {v['n']} | {v['p50_ms']} | {v['p99_ms']} |")
    lines += ["", "| gateway | resource | first | mean, middle third | mean, last third | max | last |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for name in pids:
        series = [x for x in samples if x[1] == name]
        if not series:
            continue
        n = len(series)
        for i, what in ((2, "RSS MiB"), (3, "open fds"), (4, "threads")):
            vals = [x[i] for x in series]
            mid, last = vals[n // 3: 2 * n // 3] or vals, vals[2 * n // 3:] or vals
            lines.append(f"| {name} | {what} | {vals[0]:.0f} | {sum(mid) / len(mid):.0f} | "
                         f"{sum(last) / len(last):.0f} | {max(vals):.0f} | {vals[-1]:.0f} |")
    lines += ["", "| window from (s) | operations | p50 ms | p99 ms |", "|---:|---:|---:|---:|"]
    for w in summary["windows"]:
        lines.append(f"| {w['start_s']:.0f} | {w['ops']} | {w['p50_ms']} | {w['p99_ms']} |")
    step = max(1, len([x for x in samples if x[1] == next(iter(pids), None)]) // 6)
    lines += ["", "| t (s) | " + " | ".join(f"{n} RSS MiB / fds / threads" for n in pids) + " |",
              "|---:|" + "---:|" * len(pids)]
    by_t = {}
    for x in samples:
        by_t.setdefault(round(x[0]), {})[x[1]] = x
    times = sorted(by_t)
    for t in times[::step] + ([times[-1]] if times and times[-1] not in times[::step] else []):
        row = by_t[t]
        cells = [f"{row[n][2]:.0f} / {row[n][3]} / {row[n][4]}" if n in row else "" for n in pids]
        lines.append(f"| {t} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--endpoint", required=True, help="NAME=URL[,NAME=URL...]")
    ap.add_argument("--pid", default="", help="NAME=PID[,...]: gateway processes to sample")
    ap.add_argument("--duration", type=float, default=1800, help="seconds of load (default 1800)")
    ap.add_argument("--interval", type=float, default=10, help="seconds between samples (default 10)")
    ap.add_argument("--workers", type=int, default=4, help="workers per endpoint (default 4)")
    ap.add_argument("--out", required=True, help="directory for samples.csv and summary.json")
    ap.add_argument("--window", type=float, default=300,
                    help="seconds of each latency window whose p99 is judged for a trend (default 300)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--after-load", action="append", default=[], metavar="CMD",
                    help="shell command run once the load stopped, before the final check "
                         "(a garbage collection pass, say); its JSON output goes into the summary")
    a = ap.parse_args()
    endpoints = dict(e.split("=", 1) for e in a.endpoint.split(",") if e)
    pids = {k: int(v) for k, v in (p.split("=", 1) for p in a.pid.split(",") if p)}
    os.makedirs(a.out, exist_ok=True)
    stats, stop = Stats(a.window), threading.Event()
    workers = []
    buckets = {}
    for name, url in endpoints.items():
        buckets[name] = f"soak-{uuid.uuid4().hex[:12]}"
        client(url).create_bucket(Bucket=buckets[name])
        for i in range(a.workers):
            workers.append(Worker(len(workers), name, url, buckets[name], stats, stop, a.seed * 1000 + len(workers)))
    print(f"soak: {a.duration:.0f} s, {len(workers)} workers on {', '.join(endpoints)}; sampling {pids}", flush=True)
    samples = []
    out = open(os.path.join(a.out, "samples.csv"), "w", newline="")
    w = csv.writer(out)
    w.writerow(["t_s", "gateway", "rss_mib", "fds", "threads", "ops_total", "errors_total", "injected_total"])
    t0 = stats.t0 = time.monotonic()
    for wk in workers:
        wk.start()
    next_sample = t0
    while True:
        now = time.monotonic()
        if now >= next_sample:
            with stats.lock:
                ops, errs, inj = sum(stats.ops.values()), sum(stats.errors.values()), sum(stats.injected.values())
            line = [f"[{now - t0:6.0f} s] ops {ops} errors {errs} injected {inj}"]
            for name, pid in pids.items():
                rss, fds, threads = proc_sample(pid)
                samples.append((now - t0, name, rss, fds, threads))
                w.writerow([f"{now - t0:.0f}", name, f"{rss:.1f}", fds, threads, ops, errs, inj])
                line.append(f"{name}: rss {rss:.0f} MiB fds {fds} threads {threads}")
            out.flush()
            print("  ".join(line), flush=True)
            next_sample += a.interval
        if now - t0 >= a.duration:
            break
        time.sleep(min(1.0, max(0.0, next_sample - now)))
    stop.set()
    for wk in workers:
        wk.join(timeout=120)
    elapsed = time.monotonic() - t0
    after = []
    for cmd in a.after_load:
        r = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=600)
        print(f"after load: {cmd}: exit {r.returncode} {r.stdout.strip()}", flush=True)
        if r.returncode != 0:
            stats.error(f"after-load command failed: {cmd}: {r.stderr.strip()}")
        try:
            after.append({"cmd": cmd, "output": json.loads(r.stdout)})
        except ValueError:
            after.append({"cmd": cmd, "output": r.stdout})
    print("load stopped; reading every object back", flush=True)
    objects = bad = 0
    for wk in workers:
        n, b = wk.verify_all()
        objects, bad = objects + n, bad + b
    for name, url in endpoints.items():
        c = client(url)
        left = c.list_multipart_uploads(Bucket=buckets[name]).get("Uploads", [])
        if left:
            stats.error(f"{name}: {len(left)} multipart uploads left after aborting all")
    growth = {}
    n_samples = len(samples) // max(1, len(pids))
    if n_samples < MIN_TREND_SAMPLES:
        print(f"resource trends not judged: {n_samples} samples, fewer than {MIN_TREND_SAMPLES}")
    for name in pids:
        series = [s for s in samples if s[1] == name]
        for i, what, tol in ((2, "rss_mib", 0.10), (3, "fds", 0.10), (4, "threads", 0.0)):
            vals = [s[i] for s in series]
            if trend(vals, tol):
                growth[f"{name}.{what}"] = [vals[0], vals[len(vals) // 3], vals[-1]]
        if series:
            print(f"{name}: rss {series[0][2]:.0f} -> {max(s[2] for s in series):.0f} max -> {series[-1][2]:.0f} MiB, "
                  f"fds {series[0][3]} -> {max(s[3] for s in series)} max -> {series[-1][3]}, "
                  f"threads {series[0][4]} -> {max(s[4] for s in series)} max -> {series[-1][4]}")
    windows = latency_windows(stats, elapsed)
    if len(windows) < MIN_TREND_WINDOWS:
        print(f"latency trend not judged: {len(windows)} windows of {a.window:.0f} s, fewer than {MIN_TREND_WINDOWS}")
    elif trend([w["p99_ms"] for w in windows], 0.25, MIN_TREND_WINDOWS):
        growth["latency_p99_ms"] = [w["p99_ms"] for w in windows]
    lat = {op: {"n": len(v), "p50_ms": round(percentile(v, 0.5) * 1000, 1),
                "p99_ms": round(percentile(v, 0.99) * 1000, 1)} for op, v in stats.latency.items() if v}
    summary = {
        "duration_s": round(elapsed), "endpoints": endpoints, "workers": len(workers),
        "ops": dict(stats.ops), "ops_total": sum(stats.ops.values()), "bytes": stats.bytes,
        "errors": dict(stats.errors), "injected": dict(stats.injected), "latency": lat,
        "objects_verified": objects, "objects_wrong": bad, "growth": growth, "after_load": after,
        "windows": windows, "window_s": a.window,
        "first": {n: next(([s[2], s[3], s[4]] for s in samples if s[1] == n), None) for n in pids},
        "last": {n: next(([s[2], s[3], s[4]] for s in reversed(samples) if s[1] == n), None) for n in pids},
        "max": {n: [max((s[i] for s in samples if s[1] == n), default=0) for i in (2, 3, 4)] for n in pids},
    }
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(report(summary, samples, pids))
    print(f"{summary['ops_total']} operations ({stats.bytes / MiB:.0f} MiB) in {elapsed:.0f} s, "
          f"{sum(stats.injected.values())} injected faults, {sum(stats.errors.values())} unexpected errors; "
          f"{objects} objects verified, {bad} wrong; growth: {growth or 'none'}")
    ok = not stats.errors and not bad and not growth
    print("soak passed" if ok else "soak FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
