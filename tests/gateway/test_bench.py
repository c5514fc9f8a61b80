"""`rsgw bench ab` against every target (rsgw on both backends and the real
radosgw), compared with ab's report format, and against a server that
resets connections: ab aborts there, rsgw bench ab counts the resets and
finishes."""
import json
import os
import re
import shutil
import subprocess
import sys
import uuid

import pytest

from rsgw_gateway import free_port, wait_for_port
from targets import configs

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent

RSGW = os.environ.get("RSGW_BIN", "rsgw")
RESET_SERVER = os.path.join(os.path.dirname(__file__), "..", "tools", "reset_server.py")


def bench_ab(*args):
    r = subprocess.run([RSGW, "bench", "ab", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def public_small(t):
    b = f"bench-{uuid.uuid4().hex[:16]}"
    t.alice.create_bucket(Bucket=b)
    t.alice.put_object(Bucket=b, Key="small", Body=b"y" * 260, ACL="public-read")
    yield f"{t.endpoint}/{b}/small"
    t.alice.delete_object(Bucket=b, Key="small")
    t.alice.delete_bucket(Bucket=b)


@pytest.mark.parametrize("keepalive", [False, True])
def test_ab_load_on_a_public_object(public_small, keepalive):
    args = ["-c", "10", "-n", "400", "--json"] + (["-k"] if keepalive else [])
    r = json.loads(bench_ab(*args, public_small).stdout)
    assert r["complete_requests"] == 400
    assert r["failed_requests"] == 0 and r["non_2xx_responses"] == 0 and r["connection_resets"] == 0
    assert r["document_length"] == 260 and r["html_transferred"] == 400 * 260
    assert r["requests_per_second"] > 0
    assert [p for p, _ in r["percentiles"]] == [50, 66, 75, 80, 90, 95, 98, 99, 100]
    if keepalive:
        assert r["keepalive_requests"] >= 390


def test_ab_at_a_set_rate(public_small):
    """--rate paces the clients: 200 a second for 2 s is about 400
    requests, where the same clients unpaced make thousands (20 clients,
    each a request every 100 ms: a server's latency, radosgw's on this
    cluster tens of ms, does not hold them back)."""
    r = json.loads(bench_ab("-c", "20", "-k", "-t", "2", "--rate", "200", "--json", public_small).stdout)
    assert r["failed_requests"] == 0
    assert 0.7 * 400 <= r["complete_requests"] <= 1.05 * 400 + 4, r["complete_requests"]
    bad = subprocess.run([RSGW, "bench", "ab", "--rate", "0", public_small], capture_output=True, text=True)
    assert bad.returncode != 0 and "--rate" in bad.stderr


def test_text_report_reads_like_ab(public_small):
    out = bench_ab("-c", "4", "-n", "200", public_small).stdout
    for line in ["Document Length:        260 bytes", "Complete requests:      200",
                 "Failed requests:        0", "Connection Times (ms)",
                 "Percentage of the requests served within a certain time (ms)"]:
        assert line in out, out
    assert re.search(r"^Requests per second:\s+[\d.]+ \[#/sec\] \(mean\)$", out, re.M), out
    assert re.search(r"^ 100%\s+\d+ \(longest request\)$", out, re.M), out


def test_non_2xx_responses_are_counted(t):
    r = json.loads(bench_ab("-c", "2", "-n", "50", "--json", f"{t.endpoint}/nosuchbucket-{uuid.uuid4().hex[:8]}/k").stdout)
    assert r["complete_requests"] == 50 and r["non_2xx_responses"] == 50


def test_resets_are_counted_where_ab_aborts(tmp_path):
    port = free_port()
    server = subprocess.Popen([sys.executable, RESET_SERVER, str(port), "3"])
    try:
        wait_for_port(port)
        url = f"http://127.0.0.1:{port}/"
        r = json.loads(bench_ab("-c", "4", "-n", "300", "--json", url).stdout)
        assert r["complete_requests"] == 300
        assert 80 <= r["connection_resets"] <= 120, r
        assert r["failed_receive"] == r["connection_resets"]
        ab = shutil.which("ab")
        assert ab, "ab (apache2-utils) is missing"
        a = subprocess.run([ab, "-c", "4", "-n", "300", url], capture_output=True, text=True, timeout=60)
        assert "Connection reset by peer" in a.stderr, a.stderr
        # ab ends the run at the first reset: no report, an error status, and
        # "Total of N requests completed" only when some had completed before
        assert a.returncode != 0 and "Complete requests:" not in a.stdout, a.stdout + a.stderr
        done = re.search(r"Total of (\d+) requests completed", a.stdout + a.stderr)
        assert done is None or int(done.group(1)) < 300, a.stdout + a.stderr
    finally:
        server.kill()
        server.wait()


def test_refuses_more_connections_than_it_can_open():
    r = subprocess.run([RSGW, "bench", "ab", "-c", "20001", "-n", "30000", "http://127.0.0.1:9/"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "-c must be between 1 and 20000" in r.stderr


# Runs argv and prints its exit code and peak RSS (KiB) on stderr. A child
# forked from pytest itself would count pytest's memory too: Linux folds
# the forked copy's high-water mark into the exec'd program's ru_maxrss,
# and pytest grows past 300 MiB over the whole suite. This small process
# forks the program from its own small image.
PEAK_RSS = ("import os, subprocess, sys; p = subprocess.Popen(sys.argv[1:]); _, s, u = os.wait4(p.pid, 0); "
            "print(os.waitstatus_to_exitcode(s), u.ru_maxrss, file=sys.stderr)")


def test_a_connection_costs_little_memory():
    """2000 clients fit in well under 300 MiB: the latency histograms are
    one set per thread (a set per client took 980 MiB and stalled the first
    connections for seconds). Refused connections keep the run short; the
    clients are made all the same."""
    r = subprocess.run([sys.executable, "-c", PEAK_RSS, RSGW, "bench", "ab", "-q", "-c", "2000", "-n", "2000",
                        "--json", "http://127.0.0.1:9/"], capture_output=True, text=True, timeout=60)
    code, maxrss = (int(x) for x in r.stderr.split()[-2:])
    assert code == 0, r.stderr
    assert json.loads(r.stdout)["failed_connect"] == 2000
    assert maxrss < 300 * 1024, f"{maxrss // 1024} MiB"


WORKLOADS = os.path.join(os.path.dirname(__file__), "..", "..", "benches", "workloads")


@pytest.mark.parametrize("workload,prepared", [("cosbench-mix-small.xml", 400), ("cosbench-read99.xml", 10)])
def test_cosbench_workloads_run_unchanged(t, workload, prepared):
    """The sample COSBench workloads, endpoint and keys overridden, timed
    works cut to 2 s and 8 workers: every stage runs, nothing fails."""
    r = bench_s3(os.path.join(WORKLOADS, workload), "--endpoint", t.endpoint,
                 "--access-key", os.environ["ALICE_AK"], "--secret-key", os.environ["ALICE_SK"],
                 "--runtime", "2", "--max-workers", "8", "--json")
    works = {(w["work"], o["op"]): o for w in r for o in w["ops"]}
    assert all(o["errors"] == 0 for o in works.values()), works
    assert works[("prepare", "prepare")]["ops"] == prepared
    assert works[("main", "read")]["ops"] > 0 and works[("main", "read")]["mb_per_s"] > 0
    assert ("cleanup", "cleanup") in works and ("dispose", "dispose") in works
    if workload == "cosbench-mix-small.xml":
        assert works[("fixed-count", "read")]["ops"] == 400


def bench_s3(*args):
    r = subprocess.run([RSGW, "bench", "s3", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_mix_without_a_workload_file(t):
    """--mix: the bucket and objects are made, the mix runs for a count of
    operations, and everything is removed."""
    r = bench_s3("--mix", "read=80,write=20", "--objects", "20", "--workers", "4", "--sizes", "u(1,8)KB",
                 "--ops", "200", "--cprefix", f"mix{uuid.uuid4().hex[:8]}", "--endpoint", t.endpoint,
                 "--access-key", os.environ["ALICE_AK"], "--secret-key", os.environ["ALICE_SK"], "--json")
    works = {(w["work"], o["op"]): o for w in r for o in w["ops"]}
    assert all(o["errors"] == 0 for o in works.values()), works
    assert works[("prepare", "prepare")]["ops"] == 20
    assert works[("main", "read")]["ops"] + works[("main", "write")]["ops"] == 200
    assert works[("dispose", "dispose")]["ops"] == 1


def test_versioning_of_the_buckets_a_load_makes(t, tmp_path):
    """--versioning: init makes the bucket versioned, so overwrites keep
    versions and cleanup makes delete markers; dispose deletes every one of
    them before the bucket (a bucket left with versions fails its DELETE)."""
    prefix = f"ver{uuid.uuid4().hex[:8]}"
    target = f'cprefix={prefix};containers=r(1,1)'
    stages = {
        "init": f'<work type="init" workers="1" config="{target}"/>',
        "write": f'<work name="write" workers="2" totalOps="12"><operation type="write" ratio="100" '
                 f'config="cprefix={prefix};containers=c(1);objects=c(1);sizes=c(64)B"/></work>',
        "cleanup": f'<work type="cleanup" workers="1" config="{target};objects=r(1,1)"/>',
        "dispose": f'<work type="dispose" workers="1" config="{target}"/>',
    }

    def run(*names):
        path = tmp_path / ("-".join(names) + ".xml")
        path.write_text('<workload name="v"><storage type="s3"/><workflow>' + "".join(
            f'<workstage name="{n}">{stages[n]}</workstage>' for n in names) + "</workflow></workload>")
        r = bench_s3(str(path), "--versioning", "--endpoint", t.endpoint, "--access-key", os.environ["ALICE_AK"],
                     "--secret-key", os.environ["ALICE_SK"], "--json")
        assert all(o["errors"] == 0 for w in r for o in w["ops"]), r

    bucket = f"{prefix}1"
    run("init", "write", "cleanup")
    assert t.alice.get_bucket_versioning(Bucket=bucket)["Status"] == "Enabled"
    listed = t.alice.list_object_versions(Bucket=bucket)
    assert len(listed.get("Versions", [])) == 12
    assert len(listed.get("DeleteMarkers", [])) == 1
    run("dispose")
    with pytest.raises(t.alice.exceptions.ClientError) as e:
        t.alice.head_bucket(Bucket=bucket)
    assert e.value.response["Error"]["Code"] in ("404", "NoSuchBucket")


def test_list_after_delete(t, tmp_path):
    """The mass-delete listing test, small: both buckets list the survivors
    exactly (the tool checks), with the raw index listing of each gateway's
    own admin tool timed too, and the phase command run after each phase,
    in order."""
    raw = ("radosgw-admin bi list --bucket {bucket}" if t.is_radosgw
           else f"{RSGW} admin -c {configs()[t.name]} bucket stats --bucket {{bucket}}")
    phases = tmp_path / "phases"
    r = subprocess.run([RSGW, "bench", "list-after-delete", "--endpoint", t.endpoint,
                        "--access-key", os.environ["ALICE_AK"], "--secret-key", os.environ["ALICE_SK"],
                        "-n", "300", "--workers", "8", "--repeat", "1", "--prefix", f"lad{uuid.uuid4().hex[:8]}",
                        "--raw-list", raw, "--on-phase", f"echo {{phase}} >>{phases}", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert phases.read_text().split() == ["written", "deleted", "listed"]
    rep = json.loads(r.stdout)
    assert rep["objects"] == 300
    assert rep["list_after_delete_ms"] > 0 and rep["list_fresh_ms"] > 0 and rep["raw_slowdown"] > 0
