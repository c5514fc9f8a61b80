"""A real browser on another origin: headless Chromium (Debian's chromium
and chromium-driver, driven over the W3C WebDriver protocol) loads a page
from a plain web server on its own port, and the page's scripts fetch
objects from the gateway (another origin): reads CORS allows, reads it
does not (the browser blocks them), an error the page may read, and an
upload through a presigned URL whose Content-Type needs a preflight. A
second page is served by the gateway itself, from a bucket's static
website endpoint (`<bucket>.web.test`, which Chromium resolves to
127.0.0.1): it reads another bucket on the S3 endpoint (another origin)
where CORS allows the website's origin and is blocked where it does not,
and uploads a file through an HTML form turned into FormData, the form's
fields those of a presigned POST the test made. The pages report what
they saw; the test reads that back. Against every target, radosgw
included, as the rest of the suite."""
import functools
import http.client
import http.server
import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse
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

# The website's page: reads of another origin, then uploads through an HTML
# form whose hidden fields are a presigned POST's and whose file input
# holds a file the page made (DataTransfer), sent as FormData.
SITE_PAGE = """<!doctype html><html><head><title>site</title></head><body><h1>a website</h1><script>
async function probe(url, init) {
  try {
    const r = await fetch(url, init);
    return {status: r.status, body: (await r.text()).slice(0, 1000)};
  } catch (e) {
    return {blocked: String(e)};
  }
}
function upload(url, fields, filename, content) {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = url;
  form.enctype = 'multipart/form-data';
  for (const [name, value] of fields) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  const file = document.createElement('input');
  file.type = 'file';
  file.name = 'file';
  const picked = new DataTransfer();
  picked.items.add(new File([content], filename, {type: 'text/plain'}));
  file.files = picked.files;
  form.appendChild(file);
  document.body.appendChild(form);
  return probe(url, {method: 'POST', body: new FormData(form)});
}
(async () => {
  const config = %s;
  const seen = {origin: location.origin};
  for (const [name, url] of config.reads) {
    seen[name] = await probe(url, {});
  }
  for (const [name, url, fields, filename, content] of config.uploads) {
    seen[name] = await upload(url, fields, filename, content);
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
                "--disable-dev-shm-usage", "--host-resolver-rules=MAP *.web.test 127.0.0.1",
                f"--user-data-dir={tmp}"]
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
    return results(browser, f"{origin}/page.html")


def results(browser, url):
    """Opens the page and waits for its <pre id=results>."""
    browser.open(url)
    deadline = time.time() + 30
    while time.time() < deadline:
        got = browser.script("const e = document.getElementById('results'); return e && e.textContent;")
        if got:
            return json.loads(got)
        time.sleep(0.2)
    shown = browser.script("return location.href + ' ' + document.body.innerText.slice(0, 500);")
    raise AssertionError(f"the page reported nothing within 30 s: {shown}")


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


def test_a_page_from_the_website_endpoint(t, bucket, browser):
    """The page is the index document of `bucket`'s website, loaded as
    http://<bucket>.web.test:<port>/ (rsgw: s3.website_dns_names, radosgw:
    rgw_dns_s3website_name): its origin is the website, the S3 endpoint
    (127.0.0.1) another."""
    port = urllib.parse.urlparse(t.endpoint).port
    site_origin = f"http://{bucket}.web.test:{port}"
    data = f"{bucket[:40]}-data"
    closed = f"{bucket[:40]}-closed"
    made = []
    try:
        for b in (data, closed):
            t.alice.create_bucket(Bucket=b)
            made.append(b)
        t.alice.put_object(Bucket=data, Key="shared.txt", Body=b"data for the site", ACL="public-read")
        t.alice.put_bucket_cors(Bucket=data, CORSConfiguration={"CORSRules": [
            {"AllowedOrigins": [site_origin], "AllowedMethods": ["GET", "POST"], "ExposeHeaders": ["ETag"]}]})
        # public too, but its rule names another origin than the website's
        t.alice.put_object(Bucket=closed, Key="shared.txt", Body=b"not for the site", ACL="public-read")
        t.alice.put_bucket_cors(Bucket=closed, CORSConfiguration={"CORSRules": [
            {"AllowedOrigins": [f"http://elsewhere.web.test:{port}"], "AllowedMethods": ["GET", "POST"]}]})
        post = t.alice.generate_presigned_post(
            data, "uploads/${filename}", Fields={"success_action_status": "201", "Content-Type": "text/plain"},
            Conditions=[{"success_action_status": "201"}, ["starts-with", "$Content-Type", "text/"],
                        ["content-length-range", 1, 1024]], ExpiresIn=300)
        small = t.alice.generate_presigned_post(
            data, "uploads/${filename}", Fields={"success_action_status": "201", "Content-Type": "text/plain"},
            Conditions=[{"success_action_status": "201"}, ["starts-with", "$Content-Type", "text/"],
                        ["content-length-range", 1, 10]], ExpiresIn=300)
        # the presigned POST's URL is the S3 endpoint's, path-style
        assert post["url"] == f"{t.endpoint}/{data}"
        config = {
            "reads": [["allowed", f"{t.endpoint}/{data}/shared.txt"],
                      ["blocked", f"{t.endpoint}/{closed}/shared.txt"]],
            "uploads": [["upload", post["url"], list(post["fields"].items()), "from chromium.txt",
                         "uploaded through a form by chromium"],
                        ["too_large", small["url"], list(small["fields"].items()), "big.txt",
                         "more than ten bytes"]],
        }
        t.alice.put_object(Bucket=bucket, Key="index.html", Body=(SITE_PAGE % json.dumps(config)).encode(),
                           ContentType="text/html", ACL="public-read")
        t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
        # the website endpoint serves it (without a browser first, for a
        # plainer failure)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        conn.request("GET", "/", headers={"Host": f"{bucket}.web.test:{port}"})
        r = conn.getresponse()
        page = r.read()
        conn.close()
        assert (r.status, b"<h1>a website</h1>" in page) == (200, True), (r.status, page[:300])
        seen = results(browser, f"{site_origin}/")
        # the page came from the website endpoint: the index document of /
        assert seen["origin"] == site_origin, seen
        assert seen["allowed"] == {"status": 200, "body": "data for the site"}, seen
        # public, but its CORS rule is for another origin: the browser blocks it
        assert "blocked" in seen["blocked"], seen
        # the form's answer: 201 and a PostResponse the page may read
        assert seen["upload"]["status"] == 201, seen
        assert "<Key>uploads/from chromium.txt</Key>" in seen["upload"]["body"], seen
        assert f"<Bucket>{data}</Bucket>" in seen["upload"]["body"], seen
        got = t.alice.get_object(Bucket=data, Key="uploads/from chromium.txt")
        assert got["Body"].read() == b"uploaded through a form by chromium"
        assert got["ContentType"] == "text/plain"
        # a refusal the page can read too (CORS headers on errors)
        assert seen["too_large"]["status"] == 400 and "EntityTooLarge" in seen["too_large"]["body"], seen
        keys = [o["Key"] for o in t.alice.list_objects_v2(Bucket=data)["Contents"]]
        assert sorted(keys) == ["shared.txt", "uploads/from chromium.txt"]
    finally:
        for b in made:
            for o in t.alice.list_objects_v2(Bucket=b).get("Contents", []):
                t.alice.delete_object(Bucket=b, Key=o["Key"])
            t.alice.delete_bucket(Bucket=b)
