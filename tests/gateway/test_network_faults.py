"""A bad network between the gateway and the OSDs (issue 37), made with
Ceph's own messenger fault injection, as teuthology's thrashers make it
(this machine's kernel has no netem qdisc): the rados backend only.

The same verified mix (`rsgw bench s3 --verify`: reads and writes of 1-256
KiB objects by 8 workers, each read checked against the last acknowledged
write of its object) runs three times through a gateway of the test's own:
  baseline  no fault;
  delay     replies from the OSDs delayed on the gateway's side and its
            requests delayed on the OSDs' side (`ms_inject_delay_type`,
            each message with probability 0.5 by up to DELAY s);
  sockets   the gateway's sockets (1 operation in CLIENT_FAILURES) and the
            OSDs' (1 in OSD_FAILURES) failing: librados reconnects and
            resends, the OSDs' request ids keep a resent write from being
            applied twice.
In every run: no error, no stale read, no request longer than the
gateway's store timeout; the delay makes requests slower by about what it
injects, not more (a bound of ROUND_TRIPS delays each way on p99).
The gateway's side takes the options from a copy of ceph.conf; the OSDs'
from the monitors' central config, set before the gateway connects (a
connection's delay queue is made when it opens) and removed after.

NETWORK_FAULTS_OUT=DIR keeps each run's bench report (JSON) and a
summary there (docs/reliability/network)."""
import json
import os
import pathlib
import subprocess
import time
import uuid

import pytest

from helpers import ceph
from targets import store_of

RSGW = os.environ.get("RSGW_BIN", "rsgw")
RUNTIME_S = 20
DELAY = 0.05
CLIENT_FAILURES = 400
OSD_FAILURES = 2000
# sequential RADOS round trips of the slowest request of the mix (a PUT:
# head read, head write, index read and write, GC log entries): each may
# wait up to DELAY on the way out and on the way back
ROUND_TRIPS = 6


def osds_all_up(limit=120):
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        stat = json.loads(ceph("osd", "stat", "--format", "json"))
        stat = stat.get("osdmap", stat)
        if stat["num_up_osds"] == stat["num_osds"] and stat["num_in_osds"] == stat["num_osds"]:
            return
        time.sleep(1)
    raise AssertionError(f"OSDs not all up within {limit} s: {stat}")


class OsdOptions:
    """Options set on every OSD through the monitors for a `with` block."""

    def __init__(self, **options):
        self.options = options

    def __enter__(self):
        for k, v in self.options.items():
            ceph("config", "set", "osd", k, str(v))
        return self

    def __exit__(self, *exc):
        for k in self.options:
            ceph("config", "rm", "osd", k)
        osds_all_up()


def conf_with(tmp_path, name, **options):
    """A copy of the cluster's ceph.conf with `options` in [global] (the
    copy is the gateway's alone)."""
    text = pathlib.Path(os.environ["CEPH_CONF"]).read_text()
    lines = "".join(f"{k} = {v}\n" for k, v in options.items())
    assert "[global]\n" in text
    path = tmp_path / f"{name}.conf"
    path.write_text(text.replace("[global]\n", f"[global]\n{lines}", 1))
    return path


def run_mix(gw, name):
    r = subprocess.run([RSGW, "bench", "s3", "--endpoint", gw.url, "--access-key", os.environ["ALICE_AK"],
                        "--secret-key", os.environ["ALICE_SK"], "--mix", "read=60,write=40", "--sizes", "u(1,256)KB",
                        "--objects", "200", "--workers", "8", "--runtime", str(RUNTIME_S), "--verify",
                        "--cprefix", f"net{name}{uuid.uuid4().hex[:8]}", "--json", "-q"],
                       capture_output=True, text=True, timeout=RUNTIME_S + 240)
    report = json.loads(r.stdout) if r.stdout.strip().startswith("[") else None
    assert r.returncode == 0 and report is not None, f"{name}: bench failed ({r.returncode}): {r.stderr[-2000:]}"
    return report


def connections_made(asok):
    """Connections the gateway's messenger opened so far (its perf
    counters, read through the admin socket of the copy of ceph.conf)."""
    r = subprocess.run(["ceph", "--admin-daemon", str(asok), "perf", "dump"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return sum(v.get("msgr_created_connections", 0) for k, v in json.loads(r.stdout).items()
               if k.startswith("AsyncMessenger::Worker"))


def summary(name, report):
    main = next(w for w in report if w["stage"] == "main")
    ops = {o["op"]: o for o in main["ops"]}
    every = [o for w in report for o in w["ops"]]
    return {
        "run": name,
        "seconds": round(main["seconds"], 1),
        "requests": sum(o["ops"] for o in every),
        "errors": sum(o["errors"] for o in every),
        "stale_reads": main["verified"]["stale"],
        "verified_reads": main["verified"]["reads"],
        "read_p50_ms": ops["read"]["p50_ms"], "read_p99_ms": ops["read"]["p99_ms"],
        "write_p50_ms": ops["write"]["p50_ms"], "write_p99_ms": ops["write"]["p99_ms"],
        "max_ms": max(o["max_ms"] for o in every),
    }


def test_delays_and_socket_failures_between_gateway_and_osds(t, gateway, tmp_path):
    if t.name != "rsgw-rados":
        pytest.skip("messenger faults: the rados backend's")
    timeout_ms = store_of(t.name).get("op_timeout_ms", 30000)
    runs = []

    def serve(name, **client_options):
        asok = tmp_path / f"{name}.asok"
        conf = conf_with(tmp_path, name, admin_socket=asok, **client_options)
        return gateway(f"net-{name}", sections=f'[store]\nceph_conf = "{conf}"\n'), asok

    def measured(name, **client_options):
        gw, asok = serve(name, **client_options)
        run = summary(name, run_mix(gw, name))
        run["connections_made"] = connections_made(asok)
        assert "panicked" not in gw.log_text()
        gw.stop()
        runs.append(run)

    measured("baseline")
    with OsdOptions(ms_inject_delay_type="client", ms_inject_delay_max=DELAY, ms_inject_delay_probability=0.5):
        measured("delay", ms_inject_delay_type="osd", ms_inject_delay_max=DELAY, ms_inject_delay_probability=0.5)
    with OsdOptions(ms_inject_socket_failures=OSD_FAILURES):
        measured("sockets", ms_inject_socket_failures=CLIENT_FAILURES)
    for r in runs:
        print(json.dumps(r))
    out = os.environ.get("NETWORK_FAULTS_OUT")
    if out:
        pathlib.Path(out).mkdir(parents=True, exist_ok=True)
        (pathlib.Path(out) / "runs.json").write_text(json.dumps(runs, indent=1) + "\n")
    base, delay, sockets = runs
    for r in runs:
        assert (r["errors"], r["stale_reads"]) == (0, 0), r
        assert r["max_ms"] < timeout_ms, r
    # the delay shows (half the messages each way wait 0-DELAY s), and costs
    # no more than it injects
    assert delay["write_p50_ms"] > base["write_p50_ms"], runs
    bound = base["write_p99_ms"] + ROUND_TRIPS * 2 * DELAY * 1000
    assert delay["write_p99_ms"] < bound, (runs, bound)
    # the sockets did fail: the gateway's messenger opened connections anew
    assert sockets["connections_made"] > 2 * base["connections_made"], runs
