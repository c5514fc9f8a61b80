"""Static websites: Put/Get/DeleteBucketWebsite on the S3 endpoint (boto3
and the aws CLI v1), and the website endpoint: a GET or HEAD to
`<bucket>.web.test` (`s3.website_dns_names` in rsgw,
`rgw_dns_s3website_name` in radosgw; tests/run.sh) on the S3 port, served
from the bucket's website configuration as AWS's website endpoints serve
it: index documents, the error document with the error's status, HTML
error pages, RedirectAllRequestsTo, RoutingRules, anonymous access as the
bucket's policy and ACLs allow, 405 for any other method. Every test runs
against radosgw too; where it answers differently from AWS the test says
which (docs/s3.md#static-websites)."""
import base64
import collections
import hashlib
import json
import os
import re
import subprocess
import urllib.parse
import uuid

from helpers import error_of, raw_request
from sigv4 import signed_headers

NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'
AWS_V1 = ["python3", "-m", "awscli"]

Resp = collections.namedtuple("Resp", "status headers body")


def port_of(t):
    return urllib.parse.urlparse(t.endpoint).port


def host_of(t, bucket):
    return f"{bucket}.web.test:{port_of(t)}"


def web(t, bucket, method="GET", path="/", headers=None, host=None):
    """A raw, anonymous request to the website endpoint: the S3 port with
    Host `<bucket>.web.test:<port>`."""
    h = {"Host": host or host_of(t, bucket)}
    h.update(headers or {})
    return Resp(*raw_request(f"http://127.0.0.1:{port_of(t)}", method, path, headers=h))


def assert_html_error(r, status, code, head=False):
    """AWS's website error page: text/html, `<h1>404 Not Found</h1>` and
    `<li>Code: NoSuchKey</li>` (radosgw's page has the same shape)."""
    assert r.status == status, r
    assert r.headers.get("content-type", "").startswith("text/html"), r
    if head:
        assert r.body == b""
    else:
        text = r.body.decode()
        assert f"<h1>{status} " in text, text
        assert f"Code: {code}" in text, text


def put_xml(t, bucket, xml):
    """PutBucketWebsite with a body of our own (what boto3 would refuse to
    send): (status, error code or None)."""
    body = xml.encode()
    path = f"/{bucket}?website"
    headers = signed_headers(t.endpoint, "PUT", path,
                             {"Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()})
    status, _, data = raw_request(f"http://127.0.0.1:{port_of(t)}", "PUT", path, body, headers)
    code = re.search(rb"<Code>(.*?)</Code>", data)
    return status, code.group(1).decode() if code else None


def public(t, bucket, key, body, **extra):
    t.alice.put_object(Bucket=bucket, Key=key, Body=body, ACL="public-read", **extra)


CONFIG = {
    "IndexDocument": {"Suffix": "index.html"},
    "ErrorDocument": {"Key": "error.html"},
    "RoutingRules": [
        {"Condition": {"KeyPrefixEquals": "docs/"}, "Redirect": {"ReplaceKeyPrefixWith": "documents/"}},
        {"Condition": {"HttpErrorCodeReturnedEquals": "404"},
         "Redirect": {"HostName": "fallback.example.com", "Protocol": "https", "HttpRedirectCode": "302",
                      "ReplaceKeyWith": "not-found.html"}},
    ],
}


# Put/Get/DeleteBucketWebsite

def test_put_get_delete(t, bucket):
    code, status, _ = error_of(t.alice.get_bucket_website, Bucket=bucket)
    assert (code, status) == ("NoSuchWebsiteConfiguration", 404)
    r = t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration=CONFIG)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 200
    got = t.alice.get_bucket_website(Bucket=bucket)
    assert {k: v for k, v in got.items() if k != "ResponseMetadata"} == CONFIG
    # a later configuration replaces the whole of the earlier one
    redirect = {"RedirectAllRequestsTo": {"HostName": "www.example.com", "Protocol": "https"}}
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration=redirect)
    got = t.alice.get_bucket_website(Bucket=bucket)
    assert {k: v for k, v in got.items() if k != "ResponseMetadata"} == redirect
    # the owner's alone
    for call, kwargs in [(t.bob.put_bucket_website, {"WebsiteConfiguration": CONFIG}),
                         (t.bob.get_bucket_website, {}), (t.bob.delete_bucket_website, {})]:
        code, status, _ = error_of(call, Bucket=bucket, **kwargs)
        assert (code, status) == ("AccessDenied", 403), call
    assert "RedirectAllRequestsTo" in t.alice.get_bucket_website(Bucket=bucket)
    r = t.alice.delete_bucket_website(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 204
    code, status, _ = error_of(t.alice.get_bucket_website, Bucket=bucket)
    assert (code, status) == ("NoSuchWebsiteConfiguration", 404)
    # deleting what is not there is fine
    r = t.alice.delete_bucket_website(Bucket=bucket)
    assert r["ResponseMetadata"]["HTTPStatusCode"] == 204
    missing = f"t-{uuid.uuid4().hex[:20]}"
    for call, kwargs in [(t.alice.put_bucket_website, {"WebsiteConfiguration": CONFIG}),
                         (t.alice.get_bucket_website, {}), (t.alice.delete_bucket_website, {})]:
        code, status, _ = error_of(call, Bucket=missing, **kwargs)
        assert (code, status) == ("NoSuchBucket", 404), call


def aws_cli(t, tmp_path, *args, check=True):
    cfg = tmp_path / "aws-config"
    cfg.write_text("[default]\nregion = us-east-1\ns3 =\n    addressing_style = path\n")
    env = dict(os.environ, AWS_ACCESS_KEY_ID=os.environ["ALICE_AK"], AWS_SECRET_ACCESS_KEY=os.environ["ALICE_SK"],
               AWS_CONFIG_FILE=str(cfg), AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"))
    env.pop("AWS_CA_BUNDLE", None)
    r = subprocess.run(AWS_V1 + ["--endpoint-url", t.endpoint, *args], env=env, capture_output=True, timeout=120)
    if check:
        assert r.returncode == 0, f"{args} failed ({r.returncode}):\n{r.stdout.decode()}\n{r.stderr.decode()}"
    return r


def test_aws_cli(t, bucket, tmp_path):
    aws_cli(t, tmp_path, "s3", "website", f"s3://{bucket}", "--index-document", "index.html",
            "--error-document", "error.html")
    got = json.loads(aws_cli(t, tmp_path, "s3api", "get-bucket-website", "--bucket", bucket).stdout)
    assert got == {"IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"}}
    page = tmp_path / "index.html"
    page.write_bytes(b"<h1>from the cli</h1>")
    aws_cli(t, tmp_path, "s3", "cp", str(page), f"s3://{bucket}/index.html", "--acl", "public-read")
    r = web(t, bucket)
    assert (r.status, r.body) == (200, b"<h1>from the cli</h1>")
    assert r.headers["content-type"] == "text/html"
    doc = tmp_path / "website.json"
    doc.write_text(json.dumps(CONFIG))
    aws_cli(t, tmp_path, "s3api", "put-bucket-website", "--bucket", bucket,
            "--website-configuration", f"file://{doc}")
    got = json.loads(aws_cli(t, tmp_path, "s3api", "get-bucket-website", "--bucket", bucket).stdout)
    assert got == CONFIG
    aws_cli(t, tmp_path, "s3api", "delete-bucket-website", "--bucket", bucket)
    r = aws_cli(t, tmp_path, "s3api", "get-bucket-website", "--bucket", bucket, check=False)
    assert r.returncode != 0
    # radosgw 16.2's error has an empty Message, which the CLI v1 fails to
    # print ("argument of type 'NoneType' is not iterable"); AWS's names it
    if not t.is_radosgw:
        assert b"NoSuchWebsiteConfiguration" in r.stderr, r.stderr


def W(inner):
    return f"<WebsiteConfiguration {NS}>{inner}</WebsiteConfiguration>"


def RULES(*rules):
    return "<RoutingRules>" + "".join(f"<RoutingRule>{r}</RoutingRule>" for r in rules) + "</RoutingRules>"


IDX = "<IndexDocument><Suffix>index.html</Suffix></IndexDocument>"
ALL = "<RedirectAllRequestsTo><HostName>example.com</HostName></RedirectAllRequestsTo>"
TO = "<Redirect><HostName>example.com</HostName></Redirect>"

# why: (document, radosgw 16.2's answer, AWS's): an error code (400), or
# None where the configuration is stored
INVALID = {
    # AWS: a body that is no XML, or not this document, is MalformedXML;
    # an empty one MissingRequestBodyError ("Request body is empty", AWS's
    # error code list)
    "not XML": ("<WebsiteConfiguration", "InvalidArgument", "MalformedXML"),
    "empty body": ("", "InvalidArgument", "MissingRequestBodyError"),
    "another root element": (f"<CORSConfiguration {NS}>{IDX}</CORSConfiguration>", "InvalidArgument",
                             "MalformedXML"),
    # "A value for IndexDocument Suffix must be provided if
    # RedirectAllRequestsTo is empty" (both)
    "no IndexDocument nor RedirectAllRequestsTo": (W(""), "InvalidArgument", "InvalidArgument"),
    "ErrorDocument alone": (W("<ErrorDocument><Key>e.html</Key></ErrorDocument>"), "InvalidArgument",
                            "InvalidArgument"),
    # "The IndexDocument Suffix is not well formed": AWS's Suffix "must not
    # be empty and must not include a slash character"; radosgw stores one
    # with a slash
    "empty Suffix": (W("<IndexDocument><Suffix></Suffix></IndexDocument>"), "InvalidArgument", "InvalidArgument"),
    "Suffix with a slash": (W("<IndexDocument><Suffix>a/index.html</Suffix></IndexDocument>"), None,
                            "InvalidArgument"),
    # HostName is required in RedirectAllRequestsTo (AWS's schema)
    "RedirectAllRequestsTo without HostName": (
        W("<RedirectAllRequestsTo><Protocol>https</Protocol></RedirectAllRequestsTo>"), "InvalidArgument",
        "MalformedXML"),
    # AWS: "If you provide this element, you cannot provide any other
    # element"; radosgw stores both
    "RedirectAllRequestsTo and IndexDocument": (W(ALL + IDX), None, "InvalidArgument"),
    "RedirectAllRequestsTo and RoutingRules": (W(ALL + RULES(TO)), None, "InvalidArgument"),
    # Protocol: http or https (AWS); radosgw stores anything
    "RedirectAllRequestsTo Protocol ftp": (
        W("<RedirectAllRequestsTo><HostName>e.com</HostName><Protocol>ftp</Protocol></RedirectAllRequestsTo>"), None,
        "InvalidArgument"),
    "Redirect Protocol ftp": (W(IDX + RULES("<Redirect><HostName>e.com</HostName><Protocol>ftp</Protocol></Redirect>")),
                              None, "InvalidArgument"),
    # a RoutingRule's Redirect is required (AWS's schema); radosgw stores it
    "RoutingRule without Redirect": (
        W(IDX + RULES("<Condition><KeyPrefixEquals>a/</KeyPrefixEquals></Condition>")), None, "MalformedXML"),
    # "You can only define ReplaceKeyPrefix or ReplaceKey but not both"
    "ReplaceKeyWith and ReplaceKeyPrefixWith": (
        W(IDX + RULES("<Redirect><ReplaceKeyWith>x</ReplaceKeyWith><ReplaceKeyPrefixWith>y/</ReplaceKeyPrefixWith>"
                      "</Redirect>")), "InvalidArgument", "InvalidArgument"),
    # "The provided HTTP redirect code (200) is not valid. Valid codes are
    # 3XX except 300"
    "HttpRedirectCode 200": (W(IDX + RULES("<Redirect><HostName>e.com</HostName><HttpRedirectCode>200"
                                           "</HttpRedirectCode></Redirect>")), "InvalidArgument", "InvalidArgument"),
    "HttpRedirectCode 300": (W(IDX + RULES("<Redirect><HostName>e.com</HostName><HttpRedirectCode>300"
                                           "</HttpRedirectCode></Redirect>")), "InvalidArgument", "InvalidArgument"),
    "HttpRedirectCode not a number": (
        W(IDX + RULES("<Redirect><HostName>e.com</HostName><HttpRedirectCode>abc</HttpRedirectCode></Redirect>")),
        "InvalidArgument", "InvalidArgument"),
    # "The provided HTTP error code (200) is not valid. Valid codes are 4XX
    # or 5XX"
    "HttpErrorCodeReturnedEquals 200": (
        W(IDX + RULES("<Condition><HttpErrorCodeReturnedEquals>200</HttpErrorCodeReturnedEquals></Condition>" + TO)),
        "InvalidArgument", "InvalidArgument"),
    "HttpErrorCodeReturnedEquals not a number": (
        W(IDX + RULES("<Condition><HttpErrorCodeReturnedEquals>abc</HttpErrorCodeReturnedEquals></Condition>" + TO)),
        "InvalidArgument", "InvalidArgument"),
    # AWS allows at most 50 rules; radosgw refuses the 51st with AWS's
    # message, "51 routing rules provided, the number of routing rules in a
    # website configuration is limited to 50."
    "51 routing rules": (
        W(IDX + RULES(*[f"<Condition><KeyPrefixEquals>p{i}/</KeyPrefixEquals></Condition>{TO}" for i in range(51)])),
        "InvalidRequest", "InvalidRequest"),
}


def test_invalid_configurations_are_refused(t, bucket):
    wrong = []
    for why, (doc, radosgw, aws) in INVALID.items():
        refusal = radosgw if t.is_radosgw else aws
        want = (200, None) if refusal is None else (400, refusal)
        got = put_xml(t, bucket, doc)
        if got != want:
            wrong.append((why, "want", want, "got", got))
        if got[0] == 200:
            t.alice.delete_bucket_website(Bucket=bucket)
        else:
            code, status, _ = error_of(t.alice.get_bucket_website, Bucket=bucket)
            assert (code, status) == ("NoSuchWebsiteConfiguration", 404), why
    assert not wrong, "\n".join(map(str, wrong))
    # the valid edges are stored: 50 rules, a rule without a Condition (it
    # applies to every request), a document without the namespace
    for doc in [W(IDX + RULES(*[f"<Condition><KeyPrefixEquals>p{i}/</KeyPrefixEquals></Condition>{TO}"
                                for i in range(50)])),
                W(IDX + RULES(TO)),
                f"<WebsiteConfiguration>{IDX}</WebsiteConfiguration>"]:
        assert put_xml(t, bucket, doc) == (200, None), doc
    assert t.alice.get_bucket_website(Bucket=bucket)["IndexDocument"] == {"Suffix": "index.html"}


# The website endpoint

def test_index_and_error_documents(t, bucket):
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"}})
    public(t, bucket, "index.html", b"<h1>home</h1>", ContentType="text/html")
    public(t, bucket, "docs/index.html", b"<h1>docs</h1>", ContentType="text/html")
    public(t, bucket, "error.html", b"<h1>oops</h1>", ContentType="text/html")
    public(t, bucket, "a b.txt", b"spaced", ContentType="text/plain")
    t.alice.put_object(Bucket=bucket, Key="private.txt", Body=b"secret")
    r = web(t, bucket)
    assert (r.status, r.body, r.headers["content-type"]) == (200, b"<h1>home</h1>", "text/html")
    etag = r.headers["etag"]
    assert web(t, bucket, path="/index.html").body == b"<h1>home</h1>"
    r = web(t, bucket, "HEAD", "/")
    assert (r.status, r.body, r.headers["content-length"], r.headers["etag"]) == (200, b"", "13", etag)
    assert (web(t, bucket, path="/docs/").status, web(t, bucket, path="/docs/").body) == (200, b"<h1>docs</h1>")
    r = web(t, bucket, path="/a%20b.txt")
    assert (r.status, r.body, r.headers["content-type"]) == (200, b"spaced", "text/plain")
    # the Host header without its port
    assert web(t, bucket, path="/index.html", host=f"{bucket}.web.test").body == b"<h1>home</h1>"
    # conditional GETs (AWS lists 304 among the website endpoint's answers)
    assert web(t, bucket, headers={"If-None-Match": etag}).status == 304
    # the error document, with the error's status: a missing key (anyone may
    # list this bucket: 404), a private object (403), a directory without
    # its index document
    for path, status in [("/missing.html", 404), ("/private.txt", 403), ("/nodir/", 404)]:
        r = web(t, bucket, path=path)
        assert (r.status, r.body, r.headers["content-type"]) == (status, b"<h1>oops</h1>", "text/html"), path
        r = web(t, bucket, "HEAD", path)
        assert (r.status, r.body) == (status, b""), path
    # the S3 endpoint on the same port is still S3: the owner lists, as XML
    assert [o["Key"] for o in t.alice.list_objects_v2(Bucket=bucket, Prefix="docs/")["Contents"]] == \
        ["docs/index.html"]


def test_directory_without_its_slash(t, bucket):
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
    public(t, bucket, "docs/index.html", b"docs index")
    public(t, bucket, "blog", b"the blog object")
    public(t, bucket, "blog/index.html", b"blog index")
    host = host_of(t, bucket)
    r = web(t, bucket, path="/docs")
    if t.is_radosgw:
        # radosgw 16.2 serves docs/index.html at once, where AWS redirects to
        # the key with its slash
        assert (r.status, r.body) == (200, b"docs index")
    else:
        # AWS: "docs" missing and "docs/index.html" there: 302 Found to docs/
        assert r.status == 302, r
        assert urllib.parse.urljoin(f"http://{host}/docs", r.headers["location"]) == f"http://{host}/docs/", r
    assert web(t, bucket, path="/docs/").body == b"docs index"
    # an object of that very name is served as it is
    r = web(t, bucket, path="/blog")
    assert (r.status, r.body) == (200, b"the blog object")
    # neither: 404
    assert_html_error(web(t, bucket, path="/nothing"), 404, "NoSuchKey")


def test_html_error_pages(t, bucket):
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
    t.alice.put_object(Bucket=bucket, Key="private.txt", Body=b"secret")
    # no error document: an HTML page naming the error
    assert_html_error(web(t, bucket), 404, "NoSuchKey")  # no index document at the root
    assert_html_error(web(t, bucket, path="/missing"), 404, "NoSuchKey")
    assert_html_error(web(t, bucket, "HEAD", "/missing"), 404, "NoSuchKey", head=True)
    assert_html_error(web(t, bucket, path="/private.txt"), 403, "AccessDenied")
    assert_html_error(web(t, bucket, "HEAD", "/private.txt"), 403, "AccessDenied", head=True)
    # an error document that is missing, or that anonymous may not read:
    # the HTML page, with the original error's status
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"}})
    assert_html_error(web(t, bucket, path="/missing"), 404, "NoSuchKey")
    t.alice.put_object(Bucket=bucket, Key="error.html", Body=b"private error page", ContentType="text/html")
    r = web(t, bucket, path="/missing")
    assert r.status == 404 and b"private error page" not in r.body, r


def test_bucket_without_website_or_missing(t, bucket):
    public(t, bucket, "index.html", b"home")
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    for method in ["GET", "HEAD"]:
        r = web(t, bucket, method, "/index.html")
        assert_html_error(r, 404, "NoSuchWebsiteConfiguration", head=method == "HEAD")
    # configured, then deleted: gone at once
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
    assert web(t, bucket).body == b"home"
    t.alice.delete_bucket_website(Bucket=bucket)
    assert_html_error(web(t, bucket), 404, "NoSuchWebsiteConfiguration")
    missing = f"t-{uuid.uuid4().hex[:20]}"
    r = web(t, missing, path="/index.html")
    assert_html_error(r, 404, "NoSuchBucket")
    assert_html_error(web(t, missing, "HEAD", "/"), 404, "NoSuchBucket", head=True)
    # the page names the bucket, as AWS's does (BucketName, as in its XML
    # error)
    unnamed = [body for name, body in [(missing, r.body), (bucket, web(t, bucket).body)]
               if f"BucketName: {name}" not in body.decode()]
    assert not unnamed, "\n".join(b.decode() for b in unnamed)


def test_other_methods_are_not_allowed(t, bucket):
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read-write")
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
    public(t, bucket, "index.html", b"home")
    # even on a bucket anyone may write to through the S3 endpoint: the
    # website endpoint serves GET and HEAD only
    for method, path in [("PUT", "/new.html"), ("DELETE", "/index.html"), ("POST", "/"), ("POST", "/index.html")]:
        assert_html_error(web(t, bucket, method, path), 405, "MethodNotAllowed")
    code, status, _ = error_of(t.alice.head_object, Bucket=bucket, Key="new.html")
    assert status == 404
    assert web(t, bucket).body == b"home"
    # redirects do not change that
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "RedirectAllRequestsTo": {"HostName": "example.com"}})
    assert_html_error(web(t, bucket, "PUT", "/new.html"), 405, "MethodNotAllowed")


def test_redirect_all_requests(t, bucket):
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "RedirectAllRequestsTo": {"HostName": "www.example.com"}})
    public(t, bucket, "index.html", b"home")
    # 301 to the same path on the host named; the protocol of the request
    # (plain HTTP here) when none is named
    for method, path in [("GET", "/"), ("GET", "/index.html"), ("GET", "/a/b.html"), ("HEAD", "/a/b.html")]:
        r = web(t, bucket, method, path)
        assert (r.status, r.headers.get("location")) == (301, f"http://www.example.com{path}"), (method, path)
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "RedirectAllRequestsTo": {"HostName": "www.example.com", "Protocol": "https"}})
    r = web(t, bucket, path="/a/b.html")
    assert (r.status, r.headers.get("location")) == (301, "https://www.example.com/a/b.html")


def test_routing_rules(t, bucket):
    t.alice.put_bucket_acl(Bucket=bucket, ACL="public-read")
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"},
        "RoutingRules": [
            # the first rule that matches applies
            {"Condition": {"KeyPrefixEquals": "docs/old/"}, "Redirect": {"ReplaceKeyPrefixWith": "archive/"}},
            {"Condition": {"KeyPrefixEquals": "docs/"}, "Redirect": {"ReplaceKeyPrefixWith": "documents/"}},
            {"Condition": {"KeyPrefixEquals": "images/"}, "Redirect": {"ReplaceKeyWith": "folderdeleted.html"}},
            {"Condition": {"KeyPrefixEquals": "ext/"},
             "Redirect": {"HostName": "other.example.com", "Protocol": "https", "HttpRedirectCode": "302"}},
            {"Condition": {"KeyPrefixEquals": "moved/"},
             "Redirect": {"HostName": "other.example.com", "ReplaceKeyPrefixWith": "new/", "HttpRedirectCode": "307"}},
            # both conditions must hold
            {"Condition": {"KeyPrefixEquals": "shop/", "HttpErrorCodeReturnedEquals": "404"},
             "Redirect": {"ReplaceKeyWith": "shop-closed.html"}},
            {"Condition": {"HttpErrorCodeReturnedEquals": "403"}, "Redirect": {"ReplaceKeyPrefixWith": "denied/"}},
            {"Condition": {"HttpErrorCodeReturnedEquals": "404"},
             "Redirect": {"HostName": "fallback.example.com", "ReplaceKeyPrefixWith": "report-404/"}},
        ]})
    public(t, bucket, "docs/there.html", b"a page the rule hides")
    public(t, bucket, "shop/open.html", b"open")
    public(t, bucket, "page.html", b"page")
    public(t, bucket, "error.html", b"error document")
    t.alice.put_object(Bucket=bucket, Key="private.html", Body=b"secret")
    host = host_of(t, bucket)
    want = {
        # HostName not named: the request's own host
        "/docs/a.html": (301, f"http://{host}/documents/a.html"),
        "/docs/there.html": (301, f"http://{host}/documents/there.html"),  # whether or not the key exists
        "/docs/": (301, f"http://{host}/documents/"),
        "/docs/old/x.html": (301, f"http://{host}/archive/x.html"),
        "/images/cat.png": (301, f"http://{host}/folderdeleted.html"),
        "/ext/y": (302, "https://other.example.com/ext/y"),
        "/moved/z/w.html": (307, "http://other.example.com/new/z/w.html"),
        "/shop/gone.html": (301, f"http://{host}/shop-closed.html"),
        "/private.html": (301, f"http://{host}/denied/private.html"),
        "/nothing.html": (301, "http://fallback.example.com/report-404/nothing.html"),
        "/a/b/c": (301, "http://fallback.example.com/report-404/a/b/c"),
    }
    for path, (status, location) in want.items():
        r = web(t, bucket, path=path)
        assert (r.status, r.headers.get("location")) == (status, location), path
    r = web(t, bucket, "HEAD", "/docs/a.html")
    assert (r.status, r.headers.get("location")) == (301, f"http://{host}/documents/a.html")
    # no rule matches: served as usual
    for path, body in [("/shop/open.html", b"open"), ("/page.html", b"page")]:
        r = web(t, bucket, path=path)
        assert (r.status, r.body) == (200, body), path


def test_access_by_bucket_policy(t, bucket):
    """A private bucket whose policy grants s3:GetObject to everyone: every
    object is served, none needs an ACL; without s3:ListBucket a missing
    key is 403, as from the S3 endpoint (AWS documents the same for the
    website endpoint)."""
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={
        "IndexDocument": {"Suffix": "index.html"}, "ErrorDocument": {"Key": "error.html"}})
    t.alice.put_object(Bucket=bucket, Key="index.html", Body=b"home", ContentType="text/html")
    t.alice.put_object(Bucket=bucket, Key="docs/index.html", Body=b"docs", ContentType="text/html")
    t.alice.put_object(Bucket=bucket, Key="error.html", Body=b"error document", ContentType="text/html")
    # private: nothing is served, not even the error document
    assert_html_error(web(t, bucket), 403, "AccessDenied")
    assert_html_error(web(t, bucket, path="/docs/"), 403, "AccessDenied")
    # an object's own public-read ACL is enough for that object
    public(t, bucket, "open.html", b"open")
    assert web(t, bucket, path="/open.html").body == b"open"
    grant = {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Principal": "*", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/*"}]}
    t.alice.put_bucket_policy(Bucket=bucket, Policy=json.dumps(grant))
    assert (web(t, bucket).status, web(t, bucket).body) == (200, b"home")
    assert web(t, bucket, path="/docs/").body == b"docs"
    r = web(t, bucket, path="/missing")
    assert (r.status, r.body) == (403, b"error document")
    t.alice.delete_bucket_website(Bucket=bucket)
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
    assert_html_error(web(t, bucket, path="/missing"), 403, "AccessDenied")
    # an explicit Deny wins over the Allow and over an object's ACL
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:GetObject",
            "Resource": [f"arn:aws:s3:::{bucket}/docs/*", f"arn:aws:s3:::{bucket}/open.html"]}
    grant["Statement"].append(deny)
    t.alice.put_bucket_policy(Bucket=bucket, Policy=json.dumps(grant))
    assert_html_error(web(t, bucket, path="/docs/"), 403, "AccessDenied")
    assert_html_error(web(t, bucket, path="/open.html"), 403, "AccessDenied")
    assert web(t, bucket).body == b"home"
    # the policy removed, the site is private again at once
    t.alice.delete_bucket_policy(Bucket=bucket)
    assert_html_error(web(t, bucket), 403, "AccessDenied")


def test_credentials_open_nothing_private(t, bucket):
    """AWS's website endpoints serve only publicly readable content: a
    request signed by the owner reads no more than an anonymous one."""
    t.alice.put_bucket_website(Bucket=bucket, WebsiteConfiguration={"IndexDocument": {"Suffix": "index.html"}})
    t.alice.put_object(Bucket=bucket, Key="private.html", Body=b"secret")
    signed = signed_headers(f"http://{host_of(t, bucket)}", "GET", "/private.html")
    r = web(t, bucket, path="/private.html", headers=signed)
    if t.is_radosgw:
        # radosgw 16.2 checks the signature on its website endpoint and
        # serves the owner's private object
        assert (r.status, r.body) == (200, b"secret")
    else:
        assert_html_error(r, 403, "AccessDenied")
