"""The one way the tests start `rsgw serve`.

`Gateway` writes a config (S3 and admin endpoints on free ports, a `[store]`
section for the embedded `local` backend or for `rados`, or the settings of
another config such as a suite target's, plus extra TOML and `--set`
overrides), creates users with `rsgw admin user create`, starts `rsgw serve`
with its stderr in a log file, waits until the admin `/health` answers 200
and the S3 port answers HTTP, and stops it with SIGTERM, checking the exit
status. It exposes the url, ports, pid, log, `/metrics` and the process's
threads, descriptors and RSS.

The shell scripts get the same through tests/lib.sh, which calls this file's
command line (`config` and `wait`) so that both write configs and judge
readiness alike:
    python3 tests/support/rsgw_gateway.py config --out FILE [options]
    python3 tests/support/rsgw_gateway.py wait --pid PID --port P [--admin-port A]
    python3 tests/support/rsgw_gateway.py free-port

Standard library only (tomllib: Python 3.11), so that benchmark scripts run
it with any python3.
"""
import argparse
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request

# Sections of rsgw's config; RSGW_<SECTION>_<KEY> variables override the
# file (docs/config.md), so they are removed from a gateway's environment
# unless a test passes them on purpose.
SECTIONS = ("frontend", "pool", "cpu", "s3", "store")
READY_TIMEOUT = 60.0


def rsgw_bin():
    return os.environ.get("RSGW_BIN", "rsgw")


def make_cert(directory, name, cn):
    """A self-signed EC certificate for 127.0.0.1 and localhost, made with
    openssl: (cert path, key path)."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={cn}",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


def make_expired_cert(directory, name, cn):
    """A self-signed certificate for 127.0.0.1 that was valid for one day
    in 2020 (openssl ca, as openssl req cannot date one in the past): (cert
    path, key path)."""
    ca = directory / f"{name}-ca"
    ca.mkdir()
    (ca / "index.txt").write_text("")
    (ca / "serial").write_text("01\n")
    (ca / "ca.cnf").write_text(f"[ca]\ndefault_ca = d\n[d]\ndatabase = {ca}/index.txt\nnew_certs_dir = {ca}\n"
                               f"serial = {ca}/serial\ndefault_md = sha256\npolicy = p\ncopy_extensions = copy\n"
                               "[p]\ncommonName = supplied\n")
    cert, key, csr = directory / f"{name}.crt", directory / f"{name}.key", ca / "req.csr"
    subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={cn}",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    subprocess.run(["openssl", "ca", "-config", str(ca / "ca.cnf"), "-selfsign", "-keyfile", str(key),
                    "-in", str(csr), "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-batch",
                    "-notext", "-out", str(cert)], check=True, capture_output=True)
    return cert, key


# Ports for the gateways a pytest-xdist worker starts: a slice of its own
# below the kernel's ephemeral range (32768-60999 here), taken in turn.
# The kernel's choice (bind to port 0, close, hand the number on) let two
# workers start gateways on one port: the second failed "Address already
# in use" while the first answered its test (a clean clone, 2026-12-07).
PORT_SLICES = range(20000, 32000, 2000)
_next_port = {}


def _worker_slice():
    """The port slice of this xdist worker, or None outside one (a single
    process, or a shell script before the workers start: the kernel's
    choice is safe there, nothing else picks ports at the same time)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not (worker.startswith("gw") and worker[2:].isdigit()):
        return None
    start = PORT_SLICES[int(worker[2:]) % len(PORT_SLICES)]
    return range(start, start + PORT_SLICES.step)


def free_ports(n=1):
    """`n` distinct free TCP ports on 127.0.0.1 (held together while chosen):
    an xdist worker's from its own slice (see PORT_SLICES), in turn, so that
    no two workers, and no port a client's connection took, can meet."""
    socks = []
    try:
        ports = _worker_slice()
        if ports is None:
            for _ in range(n):
                s = socket.socket()
                s.bind(("127.0.0.1", 0))
                socks.append(s)
            return [s.getsockname()[1] for s in socks]
        at = _next_port.get(ports.start, ports.start)
        for _ in range(len(ports)):
            if len(socks) == n:
                break
            port, at = at, ports.start + (at + 1 - ports.start) % len(ports)
            s = socket.socket()
            # what the gateway's own listener sets: a port in TIME_WAIT is free
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                s.close()
                continue
            socks.append(s)
        _next_port[ports.start] = at
        assert len(socks) == n, f"no {n} free ports in {ports}"
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_port():
    return free_ports(1)[0]


def wait_for_port(port, timeout=10.0, host="127.0.0.1"):
    """Waits until something accepts connections on `port`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise AssertionError(f"nothing listens on port {port} after {timeout:.0f} s")
            time.sleep(0.1)


# --- config -----------------------------------------------------------------

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (str, pathlib.PurePath)):
        return json.dumps(str(v))  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {v!r}")


def render(cfg):
    """TOML text of {section: {key: value}}."""
    out = []
    for section, keys in cfg.items():
        out.append(f"[{section}]")
        out.extend(f"{k} = {toml_value(v)}" for k, v in keys.items())
        out.append("")
    return "\n".join(out)


def fragment(text, section=None):
    """{section: {key: value}} of a TOML fragment; `section` wraps bare keys."""
    if not text:
        return {}
    if isinstance(text, dict):
        return text
    parsed = tomllib.loads(f"[{section}]\n{text}" if section else text)
    for name, keys in parsed.items():
        if not isinstance(keys, dict):
            raise ValueError(f"'{name}' is outside a section in {text!r}")
    return parsed


def merge(cfg, extra):
    """Merges `extra` into `cfg`; a key whose value is None is removed."""
    for section, keys in extra.items():
        dst = cfg.setdefault(section, {})
        for k, v in keys.items():
            if v is None:
                dst.pop(k, None)
            else:
                dst[k] = v
    return cfg


def remove_pools(pool_prefix):
    """Removes the pools of a rados-backed gateway's `pool_prefix` (a test's
    own store); absent ones are fine."""
    for pool in ("meta", "index", "data"):
        name = f"{pool_prefix}.{pool}"
        subprocess.run(["ceph", "osd", "pool", "rm", name, name, "--yes-i-really-really-mean-it"],
                       capture_output=True, timeout=120)


def store_section(backend, workdir, name, path=None, ceph_conf=None, pool_prefix=None, client_name=None):
    if backend is None or backend == "none":
        return {}
    if backend == "local":
        return {"backend": "local", "path": str(path or pathlib.Path(workdir) / f"{name}-data")}
    if backend == "rados":
        ceph_conf = ceph_conf or os.environ.get("CEPH_CONF")
        if not ceph_conf:
            raise ValueError("the rados backend needs ceph_conf (or CEPH_CONF)")
        store = {"backend": "rados", "ceph_conf": str(ceph_conf)}
        if pool_prefix:
            store["pool_prefix"] = pool_prefix
        if client_name:
            store["client_name"] = client_name
        return store
    raise ValueError(f"unknown backend {backend!r}")


def build_config(workdir, name="rsgw", backend=None, path=None, ceph_conf=None, pool_prefix=None,
                 client_name=None, base=None, port=None, admin=True, endpoint_in_config=True,
                 frontend="", sections=""):
    """The config of a gateway: ({section: {key: value}}, S3 port, admin port or None).

    backend: "local" (the default without a base; data in workdir/NAME-data
    unless `path` says), "rados" (ceph_conf, default $CEPH_CONF; pool_prefix;
    client_name) or "none" (no [store] keys).
    base: a config file whose settings are taken (a suite target's, to run
    on its store), its endpoints replaced; its [store] stays unless a
    backend is named.
    port: the S3 port (default: a free one). admin: True (a free port), a
    port number, or False ("" in the config: no admin listener).
    endpoint_in_config=False leaves `endpoints` out of the file (they come
    from `--ceph-conf`; `port` must then say where the gateway listens).
    frontend: extra [frontend] keys (TOML text or dict); sections: extra
    TOML (text or {section: {key: value}}), merged key by key."""
    cfg = {}
    if base is not None:
        cfg = tomllib.loads(pathlib.Path(base).read_text())
        cfg.get("frontend", {}).pop("endpoints", None)
        cfg.get("frontend", {}).pop("admin_endpoint", None)
    if backend is None:
        backend = "none" if base is not None else "local"
    need = (port is None) + (admin is True)
    picked = iter(free_ports(need) if need else [])
    port = port if port is not None else next(picked)
    if admin is True:
        admin = next(picked)
    fe = cfg.setdefault("frontend", {})
    if endpoint_in_config:
        fe["endpoints"] = [f"127.0.0.1:{port}"]
    fe["admin_endpoint"] = f"127.0.0.1:{admin}" if admin else ""
    merge(cfg, {"store": store_section(backend, workdir, name, path, ceph_conf, pool_prefix, client_name)})
    merge(cfg, fragment(frontend, "frontend"))
    merge(cfg, fragment(sections))
    return {k: v for k, v in cfg.items() if v or k == "frontend"}, port, (admin or None)


# --- readiness ----------------------------------------------------------------

def http_status(url, timeout=2.0):
    """The HTTP status `url` answers (4xx/5xx included), None when nothing does."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, ValueError):
        return None


def wait_ready(port, admin_port=None, alive=lambda: True, timeout=READY_TIMEOUT, describe=lambda: ""):
    """Waits until the admin /health answers 200 (when there is an admin
    port) and the S3 port answers HTTP; fails early when `alive()` turns
    false (the process exited)."""
    deadline = time.monotonic() + timeout
    while True:
        if not alive():
            raise AssertionError(f"rsgw exited before it was ready{describe()}")
        health_ok = admin_port is None or http_status(f"http://127.0.0.1:{admin_port}/health") == 200
        if health_ok and http_status(f"http://127.0.0.1:{port}/") is not None:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"rsgw not ready after {timeout:.0f} s (port {port}, admin {admin_port})"
                                 f"{describe()}")
        time.sleep(0.1)


def clean_env(extra=None):
    """The environment for rsgw: ours without RSGW_<SECTION>_* overrides, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("RSGW_") and k[5:].split("_", 1)[0].lower() in SECTIONS)}
    env.update(extra or {})
    return env


def tail(path, n=4000):
    try:
        data = pathlib.Path(path).read_bytes()
    except OSError:
        return ""
    return data[-n:].decode(errors="replace")


# --- the gateway --------------------------------------------------------------

class Gateway:
    """One `rsgw serve` of a test's own (see the module's doc).

        g = Gateway(tmp_path, "name", backend="local", sections="[pool]\\nmode = \\"blocking\\"\\n",
                    users=[("alice", "Alice", AK, SK)]).start()
        g.url, g.port, g.admin_port, g.pid, g.log, g.metrics(), g.stop()

    Nothing runs until start(); stop() sends SIGTERM and asserts the exit
    status (0 unless said otherwise); start() again restarts on the same
    config and ports."""

    def __init__(self, workdir, name="rsgw", *, backend=None, path=None, ceph_conf=None, pool_prefix=None,
                 client_name=None, base=None, port=None, admin=True, endpoint_in_config=True, frontend="",
                 sections="", sets=(), args=(), env=None, users=(), rsgw=None, preexec_fn=None,
                 ready_timeout=READY_TIMEOUT):
        self.workdir = pathlib.Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.rsgw = rsgw or rsgw_bin()
        self.config, self.port, self.admin_port = build_config(
            self.workdir, name, backend, path, ceph_conf, pool_prefix, client_name, base, port, admin,
            endpoint_in_config, frontend, sections)
        self.cfg = self.workdir / f"{name}.toml"
        self.cfg.write_text(render(self.config))
        self.log = self.workdir / f"{name}.log"
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [a for kv in sets for a in ("--set", kv)] + list(args)
        self.env = clean_env(env)
        self.users = list(users)
        self.preexec_fn = preexec_fn
        self.ready_timeout = ready_timeout
        self.proc = None
        self.starts = 0

    # lifecycle
    def start(self, wait=True):
        assert not self.running, f"{self.name} already runs"
        for uid, display, ak, sk in self.users:
            self.ensure_user(uid, display, ak, sk)
        self.starts += 1
        mode = "wb" if self.starts == 1 else "ab"
        with open(self.log, mode) as log:
            self.proc = subprocess.Popen([self.rsgw, "serve", "-c", str(self.cfg), *self.args],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                         env=self.env, preexec_fn=self.preexec_fn)
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self, timeout=None):
        wait_ready(self.port, self.admin_port, alive=lambda: self.proc.poll() is None,
                   timeout=timeout or self.ready_timeout, describe=self._describe)
        return self

    def _describe(self):
        status = "" if self.proc is None or self.proc.poll() is None else f", exit status {self.proc.returncode}"
        return f"{status}; {self.log}:\n{tail(self.log)}"

    @property
    def running(self):
        return self.proc is not None and self.proc.poll() is None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def stop(self, expect=0, timeout=60):
        """SIGTERM (if it still runs), wait, and assert the exit status."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"{self.name} did not exit within {timeout} s of SIGTERM{self._describe()}")
        if expect is not None:
            assert code == expect, f"{self.name} exited {code}, not {expect}{self._describe()}"
        return code

    def kill(self):
        """SIGKILL, as a crash would."""
        if self.running:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def wait_exit(self, timeout=30):
        """For a gateway that must not start: its exit status."""
        return self.proc.wait(timeout=timeout)

    def log_text(self):
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def __enter__(self):
        return self if self.proc else self.start()

    def __exit__(self, *exc):
        self.stop(expect=0 if exc[0] is None else None)

    # admin CLI on the gateway's config
    def admin_run(self, *args, env=None, timeout=120):
        return subprocess.run([self.rsgw, "admin", "-c", str(self.cfg), *args], capture_output=True,
                              text=True, env=clean_env(env), timeout=timeout)

    def admin(self, *args):
        r = self.admin_run(*args)
        assert r.returncode == 0, f"rsgw admin {' '.join(args)}: {r.stderr}"
        return json.loads(r.stdout)

    def ensure_user(self, uid, display, ak, sk):
        if self.admin_run("user", "info", "--uid", uid).returncode == 0:
            return
        self.admin("user", "create", "--uid", uid, "--display-name", display, "--email", f"{uid}@example.com",
                   "--access-key", ak, "--secret-key", sk)

    # what it shows
    def metrics(self, port=None):
        with urllib.request.urlopen(f"http://127.0.0.1:{port or self.admin_port}/metrics", timeout=10) as r:
            return r.read().decode()

    def metric(self, name, text=None):
        return metric(text if text is not None else self.metrics(), name)

    def health(self, port=None):
        return http_status(f"http://127.0.0.1:{port or self.admin_port}/health", timeout=5)

    def threads(self, pid=None):
        """The names of the process's threads."""
        pid = pid or self.pid
        names = []
        for task in os.listdir(f"/proc/{pid}/task"):
            try:
                names.append(open(f"/proc/{pid}/task/{task}/comm").read().strip())
            except OSError:
                pass
        return names

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def status(self, field):
        for line in open(f"/proc/{self.pid}/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1])
        raise KeyError(field)

    def rss_kib(self):
        return self.status("VmRSS")


def metric(text, name):
    """The value of an unlabelled (or fully labelled) sample in Prometheus text."""
    m = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


# --- command line, for tests/lib.sh -----------------------------------------------

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("config", help="write a gateway's config; prints 'PORT ADMIN_PORT' (0: no admin)")
    c.add_argument("--out", required=True)
    c.add_argument("--name", default="rsgw")
    c.add_argument("--backend", choices=["local", "rados", "none"])
    c.add_argument("--path")
    c.add_argument("--ceph-conf")
    c.add_argument("--pool-prefix")
    c.add_argument("--client-name")
    c.add_argument("--base")
    c.add_argument("--port", type=int)
    c.add_argument("--admin-port", type=int)
    c.add_argument("--no-admin", action="store_true")
    c.add_argument("--no-endpoints", action="store_true")
    c.add_argument("--toml", action="append", default=[], help="extra TOML, merged key by key (repeatable)")
    sub.add_parser("free-port", help="print a free TCP port on 127.0.0.1")
    w = sub.add_parser("wait", help="wait until a started gateway is ready")
    w.add_argument("--pid", type=int, required=True)
    w.add_argument("--port", type=int, required=True)
    w.add_argument("--admin-port", type=int, default=0)
    w.add_argument("--log")
    w.add_argument("--timeout", type=float, default=READY_TIMEOUT)
    a = p.parse_args(argv)
    if a.cmd == "free-port":
        print(free_port())
        return 0
    if a.cmd == "config":
        out = pathlib.Path(a.out)
        admin = False if a.no_admin else (a.admin_port or True)
        cfg, port, admin_port = build_config(out.parent, a.name, a.backend,
                                             a.path, a.ceph_conf, a.pool_prefix, a.client_name, a.base,
                                             a.port, admin, not a.no_endpoints)
        for t in a.toml:
            merge(cfg, fragment(t))
        out.write_text(render(cfg))
        print(port, admin_port or 0)
        return 0

    def alive():
        try:
            os.kill(a.pid, 0)
        except ProcessLookupError:
            return False
        # a zombie has exited too
        try:
            return open(f"/proc/{a.pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    try:
        wait_ready(a.port, a.admin_port or None, alive, a.timeout,
                   lambda: f"; {a.log}:\n{tail(a.log)}" if a.log else "")
    except AssertionError as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
