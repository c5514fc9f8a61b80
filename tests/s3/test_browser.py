"""A real browser on another origin: headless Chromium (Debian's chromium
and chromium-driver, driven over the W3C WebDriver protocol) loads a page
from a plain web server on its own port, and the page's scripts fetch
objects from the gateway (another origin): reads CORS allows, reads it
does not (the browser blocks them), an error the page may read, and an
upload through a presigned URL whose Content-Type needs a preflight. The
page reports what it saw; the test reads that back. Against every target,
radosgw included, as the rest of the suite."""
import functools
import http.server
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

PAGE = """<!doctype html><html><head><title>cors</title></head><body><script>
async function probe(name, url, init) {
  try {
    const r = await fetch(url, init);
    return [name, {status: r.status, body: (await r.text()).slice(0, 200)}];
  } catch (e) {
    return [name, {blocked: String(e)}];
  }
}
(async () => {
  const cases = %s;
  const seen = {};
  for (const [name, url, init] of cases) {
    const [n, v] = await probe(name, url, init);
    seen[n] = v;
  }
  const out = document.createElement('pre');
  out.id = 'results';
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
})();
</script></body></html>"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriver:
    """Just enough of the W3C WebDriver protocol: a session, a page, a
    script."""

    def __init__(self, tmp):
        driver = shutil.which("chromedriver")
        if not driver or not shutil.which("chromium"):
            pytest.fail("chromium and chromium-driver are needed (tests/apt-packages.txt)")
        self.port = free_port()
        self.proc = subprocess.Popen([driver, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 20
        while True:
            try:
                self.call("GET", "/status")
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={tmp}"]
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                 "goog:chromeOptions": {"binary": shutil.which("chromium"),
                                                                        "args": args}}}}
        self.session = self.call("POST", "/session", caps)["value"]["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())

    def open(self, url):
        self.call("POST", f"/session/{self.session}/url", {"url": url})

    def script(self, js):
        return self.call("POST", f"/session/{self.session}/execute/sync", {"script": js, "args": []})["value"]

    def close(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        finally:
            self.proc.terminate()
            self.proc.wait(timeout=20)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    b = WebDriver(tmp_path_factory.mktemp("chromium"))
    yield b
    b.close()


@pytest.fixture
def site(tmp_path):
    """A plain web server for the page: its own origin."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def run_page(browser, site, cases):
    root, origin = site
    (root / "page.html").write_text(PAGE % json.dumps(cases))
    browser.open(f"{origin}/page.html")
    deadline = time.time() + 30
    while time.time() < deadline:
        got = browser.script("const e = document.getElementById('results'); return e && e.textContent;")
        if got:
            return json.loads(got)
        time.sleep(0.2)
    raise AssertionError("the page reported nothing within 30 s")


def test_a_page_on_another_origin(t, bucket, browser, site):
    _, origin = site
    t.alice.put_object(Bucket=bucket, Key="allowed.txt", Body=b"hello browser", ACL="public-read")
    t.alice.put_bucket_cors(Bucket=bucket, CORSConfiguration={"CORSRules": [
        {"AllowedOrigins": [origin], "AllowedMethods": ["GET", "PUT"], "AllowedHeaders": ["content-type"],
         "ExposeHeaders": ["ETag"]}]})
    other = f"{bucket[:40]}-nocors"
    t.alice.create_bucket(Bucket=other)
    try:
        t.alice.put_object(Bucket=other, Key="public.txt", Body=b"no cors here", ACL="public-read")
        put_url = t.alice.generate_presigned_url(
            "put_object", Params={"Bucket": bucket, "Key": "from-browser.txt", "ContentType": "text/plain"},
            ExpiresIn=300)
        base = t.endpoint
        seen = run_page(browser, site, [
            ["allowed", f"{base}/{bucket}/allowed.txt", {}],
            ["no_cors_bucket", f"{base}/{other}/public.txt", {}],
            ["missing", f"{base}/{bucket}/missing.txt", {}],
            ["upload", put_url, {"method": "PUT", "body": "uploaded by chromium",
                                 "headers": {"Content-Type": "text/plain"}}],
        ])
        assert seen["allowed"] == {"status": 200, "body": "hello browser"}, seen
        # the object is public, but its bucket lets no other origin read it
        assert "blocked" in seen["no_cors_bucket"], seen
        # the page may read the error: CORS headers on errors too
        assert seen["missing"]["status"] == 403 and "AccessDenied" in seen["missing"]["body"], seen
        # the PUT's Content-Type made the browser ask first (preflight)
        assert seen["upload"]["status"] == 200, seen
        got = t.alice.get_object(Bucket=bucket, Key="from-browser.txt")
        assert got["Body"].read() == b"uploaded by chromium"
        assert got["ContentType"] == "text/plain"
    finally:
        t.alice.delete_object(Bucket=other, Key="public.txt")
        t.alice.delete_bucket(Bucket=other)
