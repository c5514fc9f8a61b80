"""The alerting and recording rules of docker/prometheus/ (docs/deploy.md):
promtool's unit tests of every alert on synthetic series, then a real
Prometheus with the shipped prometheus.yml and rules scraping two
instances: both targets up, every rule evaluated without error, the
recording rules giving each instance's figures, and an instance stopped
turning RsgwInstanceDown pending."""
import json
import pathlib
import shutil
import subprocess
import urllib.request

import pytest

from helpers import wait_for
from rsgw_gateway import free_port

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent

REPO = pathlib.Path(__file__).resolve().parents[2]
RULES = REPO / "docker" / "prometheus" / "rules.yml"
CONFIG = REPO / "docker" / "prometheus" / "prometheus.yml"


def promtool(*args):
    tool = shutil.which("promtool")
    assert tool, "promtool is not installed (the prometheus package: tests/apt-packages.txt)"
    r = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_rules_and_config_pass_promtool():
    assert "SUCCESS" in promtool("check", "rules", str(RULES))
    assert "SUCCESS" in promtool("check", "config", str(CONFIG))
    assert "SUCCESS" in promtool("test", "rules", "tests/prometheus/rules_test.yml")


def api(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/{path}", timeout=10) as r:
        body = json.load(r)
    assert body["status"] == "success", body
    return body["data"]


@pytest.fixture
def prometheus(tmp_path):
    """Starts Prometheus with the shipped config, its targets and intervals
    made the test's: prometheus(targets) -> its port."""
    binary = shutil.which("prometheus")
    assert binary, "prometheus is not installed (tests/apt-packages.txt)"
    procs = []

    def start(targets):
        shutil.copy(RULES, tmp_path / "rules.yml")
        text = CONFIG.read_text()
        assert '["127.0.0.1:7481", "127.0.0.1:7491"]' in text and "15s" in text
        text = text.replace('["127.0.0.1:7481", "127.0.0.1:7491"]', json.dumps(targets)).replace("15s", "1s")
        (tmp_path / "prometheus.yml").write_text(text)
        port = free_port()
        log = open(tmp_path / "prometheus.log", "wb")
        procs.append(subprocess.Popen(
            [binary, f"--config.file={tmp_path / 'prometheus.yml'}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=log, cwd=tmp_path))

        def ready():
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/ready", timeout=2) as r:
                    return r.status == 200
            except OSError:
                assert procs[-1].poll() is None, (tmp_path / "prometheus.log").read_text()[-3000:]
                return False

        wait_for("ready Prometheus", ready)
        return port

    yield start
    for p in procs:
        p.terminate()
        p.wait(timeout=30)


def test_a_real_prometheus_scrapes_two_instances_with_the_rules(t, gateway, prometheus):
    if t.name != "rsgw-local":
        pytest.skip("the rules read the frontend's metrics; one backend is enough")
    a, b = gateway("a"), gateway("b")
    port = prometheus([f"127.0.0.1:{a.admin_port}", f"127.0.0.1:{b.admin_port}"])

    def targets_up():
        active = api(port, "targets")["activeTargets"]
        return len(active) == 2 and all(x["health"] == "up" for x in active)

    wait_for("two targets up", targets_up)
    # some traffic for the rates: anonymous requests are refused (403)
    for g in (a, b):
        for _ in range(20):
            try:
                urllib.request.urlopen(f"{g.url}/", timeout=5)
            except OSError:
                pass

    def rules_evaluated():
        groups = api(port, "rules")["groups"]
        rules = [r for g in groups for r in g["rules"]]
        return len(rules) == 13 and all(r["health"] == "ok" for r in rules)

    wait_for("every rule evaluated", rules_evaluated)

    def rates():
        series = api(port, "query?query=rsgw:requests:rate5m")["result"]
        return len(series) == 2 and all(float(s["value"][1]) > 0 for s in series)

    wait_for("a request rate for each instance", rates)
    watch = api(port, "query?query=rsgw_metadata_watch_up")["result"]
    assert sorted(s["value"][1] for s in watch) == ["1", "1"], watch

    b.stop()

    def down_pending():
        alerts = api(port, "alerts")["alerts"]
        return [x for x in alerts if x["labels"]["alertname"] == "RsgwInstanceDown"]

    pending = wait_for("RsgwInstanceDown", down_pending)
    assert [x["labels"]["instance"] for x in pending] == [f"127.0.0.1:{b.admin_port}"], pending
    assert pending[0]["state"] == "pending", "for: 1m has not passed"
