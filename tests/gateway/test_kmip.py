"""SSE-KMS with keys on a KMIP server (crypt.kms_backend = "kmip", radosgw's
`rgw_crypt_s3_kms_backend = kmip`): a PyKMIP server with its own CA and a
client certificate, keys created on it by PyKMIP's client, and the same
assertions against rsgw on both backends and against a radosgw 16.2 the
test starts with its KMIP options (docs/config.md#crypt, decision record
0011). radosgw's answers where it differs are asserted in place."""
import os
import shutil
import subprocess
import time
import uuid

import boto3
import botocore.config
import botocore.exceptions
import pytest
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from helpers import error_of, wait_for
from rsgw_gateway import Gateway, free_port
from targets import configs, store_of, targets

pytestmark = pytest.mark.concurrent

MiB = 1 << 20
TEMPLATE = "rsgw-test-$keyid"


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)


def make_pki(d):
    """A CA, a server certificate for 127.0.0.1 and a client certificate,
    as PEM files in `d`. EC keys: PyKMIP's TLS 1.2 suites offer AES-GCM
    (all rsgw's TLS client takes, as rustls has no CBC suites) only with an
    ECDSA certificate."""
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")
    openssl("req", "-x509", *ec, "-nodes", "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.crt",
            "-days", "2", "-subj", "/CN=kmip-test-ca")
    for name, cn, ext in (("server", "127.0.0.1", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"),
                          ("client", "rsgw", "extendedKeyUsage=clientAuth\n")):
        (d / f"{name}.ext").write_text(ext)
        openssl("req", *ec, "-nodes", "-keyout", f"{d}/{name}.key", "-out", f"{d}/{name}.csr",
                "-subj", f"/CN={cn}")
        openssl("x509", "-req", "-in", f"{d}/{name}.csr", "-CA", f"{d}/ca.crt", "-CAkey", f"{d}/ca.key",
                "-CAcreateserial", "-out", f"{d}/{name}.crt", "-days", "2", "-extfile", f"{d}/{name}.ext")


class KmipServer:
    """pykmip-server on a free port, and PyKMIP's client to make keys."""

    def __init__(self, d):
        self.dir, self.port = d, free_port()
        make_pki(d)
        (d / "policies").mkdir()
        (d / "server.conf").write_text(
            f"[server]\nhostname=127.0.0.1\nport={self.port}\ncertificate_path={d}/server.crt\n"
            f"key_path={d}/server.key\nca_path={d}/ca.crt\nauth_suite=TLS1.2\nenable_tls_client_auth=True\n"
            f"database_path={d}/pykmip.db\npolicy_path={d}/policies\nlogging_level=INFO\n")
        self.proc = None
        self.start()

    @property
    def addr(self):
        return f"127.0.0.1:{self.port}"

    def start(self):
        log = open(self.dir / "server.out", "ab")
        self.proc = subprocess.Popen([shutil.which("pykmip-server"), "-f", str(self.dir / "server.conf"),
                                      "-l", str(self.dir / "server.log")], stdout=log, stderr=log)
        wait_for("the KMIP server", lambda: self.proc.poll() is None and self.listens(), timeout=60)

    def listens(self):
        import socket
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)

    def client(self):
        from kmip import enums
        from kmip.pie.client import ProxyKmipClient
        return ProxyKmipClient(hostname="127.0.0.1", port=self.port, cert=str(self.dir / "client.crt"),
                               key=str(self.dir / "client.key"), ca=str(self.dir / "ca.crt"),
                               config_file="/dev/null", kmip_version=enums.KMIPVersion.KMIP_1_2)

    def create(self, key_id, bits=256):
        """A new active AES key named after `key_id`; its bytes."""
        from kmip import enums
        with self.client() as c:
            uid = c.create(enums.CryptographicAlgorithm.AES, bits, name=TEMPLATE.replace("$keyid", key_id))
            c.activate(uid)
            return c.get(uid).value

    def crypt_toml(self, **extra):
        d = self.dir
        lines = [
            'kms_backend = "kmip"', f'kmip_addr = "{self.addr}"', f'kmip_ca_path = "{d}/ca.crt"',
            f'kmip_client_cert = "{d}/client.crt"', f'kmip_client_key = "{d}/client.key"',
            f'kmip_kms_key_template = "{TEMPLATE}"', 'kms_default_key = "k1"',
            *(f"{k} = {v}" for k, v in extra.items()),
        ]
        return "[crypt]\n" + "\n".join(lines) + "\n"

    def radosgw_args(self):
        d = self.dir
        return ["--rgw-crypt-s3-kms-backend=kmip", f"--rgw-crypt-kmip-addr={self.addr}",
                f"--rgw-crypt-kmip-ca-path={d}/ca.crt", f"--rgw-crypt-kmip-client-cert={d}/client.crt",
                f"--rgw-crypt-kmip-client-key={d}/client.key", f"--rgw-crypt-kmip-kms-key-template={TEMPLATE}"]


class Radosgw:
    """A radosgw of the test's own on the throwaway cluster, with `args`."""

    def __init__(self, d, args):
        conf = os.environ["CEPH_CONF"]
        self.name = f"client.rgw.kmip{uuid.uuid4().hex[:8]}"
        keyring = d / "rgw.keyring"
        subprocess.run(["ceph", "auth", "get-or-create", self.name, "mon", "allow rw", "osd", "allow rwx",
                        "mgr", "allow rw", "-o", str(keyring)], check=True, capture_output=True, timeout=60)
        (d / "rgw").mkdir()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = d / "radosgw.log"
        self.proc = subprocess.Popen(
            ["radosgw", "-c", conf, "-n", self.name, "--keyring", str(keyring), "-f", f"--rgw-data={d}/rgw",
             f"--rgw-frontends=beast endpoint=127.0.0.1:{self.port}", f"--log-file={self.log}",
             f"--admin-socket={d}/rgw.asok", f"--pid-file={d}/rgw.pid", "--rgw-crypt-require-ssl=false",
             "--rgw-enable-lc-threads=false", "--rgw-enable-gc-threads=false", *args],
            stdout=subprocess.DEVNULL, stderr=open(d / "radosgw.err", "wb"))
        wait_for("radosgw", self.answers, timeout=90)

    def answers(self):
        assert self.proc.poll() is None, (self.log.read_text()[-3000:] if self.log.exists() else "radosgw exited")
        try:
            import urllib.request
            urllib.request.urlopen(self.url, timeout=2).read()
            return True
        except OSError:
            return False

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)
        subprocess.run(["ceph", "auth", "rm", self.name], capture_output=True, timeout=60)


def client(url):
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id=os.environ["ALICE_AK"], aws_secret_access_key=os.environ["ALICE_SK"],
                        config=botocore.config.Config(signature_version="s3v4", s3={"addressing_style": "path"},
                                                      retries={"total_max_attempts": 1}))


@pytest.fixture(scope="module")
def kms(tmp_path_factory):
    """The module's KMIP server, with keys k1, k2 (AES-256), two keys named
    after `dup`, and `short` (AES-128): {id: bytes}."""
    server = KmipServer(tmp_path_factory.mktemp("kmip"))
    server.keys = {k: server.create(k) for k in ("k1", "k2")}
    server.create("dup")
    server.create("dup")
    server.create("short", bits=128)
    yield server
    server.stop()


def start_endpoint(name, d, kms, **crypt):
    """The target's gateway with SSE-KMS keys from `kms`: rsgw on the
    target's store, or a radosgw of the test's own: (url, stop)."""
    if name == "radosgw":
        rgw = Radosgw(d, kms.radosgw_args())
        return rgw.url, rgw.stop
    g = Gateway(d, "kmip", base=configs()[name], sections=kms.crypt_toml(require_ssl="false", **crypt))
    g.start()
    return g.url, g.stop


@pytest.fixture(scope="module")
def endpoint(t, kms, tmp_path_factory):
    url, stop = start_endpoint(t.name, tmp_path_factory.mktemp(f"gw-{t.name}"), kms)
    yield url
    stop()


@pytest.fixture
def kbucket(endpoint):
    s3 = client(endpoint)
    name = f"kmip-{uuid.uuid4().hex[:16]}"
    s3.create_bucket(Bucket=name)
    yield s3, name
    for o in s3.list_objects_v2(Bucket=name).get("Contents", []):
        s3.delete_object(Bucket=name, Key=o["Key"])
    for u in s3.list_multipart_uploads(Bucket=name).get("Uploads", []):
        s3.abort_multipart_upload(Bucket=name, Key=u["Key"], UploadId=u["UploadId"])
    s3.delete_bucket(Bucket=name)


def kms_args(key_id):
    return {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": key_id}


def test_kmip_keys_encrypt_and_read_back(t, kbucket):
    """PUT, GET, HEAD, ranges, a copy to another key and a multipart object
    of unaligned parts read across their boundary, all under KMIP keys."""
    s3, b = kbucket
    data = os.urandom(5 * MiB + 99)
    r = s3.put_object(Bucket=b, Key="big", Body=data, **kms_args("k1"))
    assert (r["ServerSideEncryption"], r["SSEKMSKeyId"]) == ("aws:kms", "k1")
    assert s3.get_object(Bucket=b, Key="big")["Body"].read() == data
    h = s3.head_object(Bucket=b, Key="big")
    assert (h["ServerSideEncryption"], h["SSEKMSKeyId"], h["ContentLength"]) == ("aws:kms", "k1", len(data))
    got = s3.get_object(Bucket=b, Key="big", Range="bytes=4090-8200")["Body"].read()
    assert got == data[4090:8201]
    if t.is_radosgw:
        # radosgw 16.2 copies no encrypted object (docs/s3.md)
        err = error_of(s3.copy_object, Bucket=b, Key="copy", CopySource={"Bucket": b, "Key": "big"},
                       **kms_args("k2"))
        assert err[:2] == ("NotImplemented", 501)
    else:
        s3.copy_object(Bucket=b, Key="copy", CopySource={"Bucket": b, "Key": "big"}, **kms_args("k2"))
        c = s3.get_object(Bucket=b, Key="copy")
        assert (c["SSEKMSKeyId"], c["Body"].read()) == ("k2", data)
    parts = [os.urandom(5 * MiB + 3), os.urandom(1000)]
    up = s3.create_multipart_upload(Bucket=b, Key="mp", **kms_args("k2"))
    etags = [s3.upload_part(Bucket=b, Key="mp", UploadId=up["UploadId"], PartNumber=i + 1, Body=p)["ETag"]
             for i, p in enumerate(parts)]
    s3.complete_multipart_upload(Bucket=b, Key="mp", UploadId=up["UploadId"], MultipartUpload={
        "Parts": [{"PartNumber": i + 1, "ETag": e} for i, e in enumerate(etags)]})
    whole = b"".join(parts)
    start = len(parts[0]) - 10
    got = s3.get_object(Bucket=b, Key="mp", Range=f"bytes={start}-{start + 99}")["Body"].read()
    assert got == whole[start:start + 100]
    assert s3.get_object(Bucket=b, Key="mp")["Body"].read() == whole


def test_kmip_keys_the_server_cannot_give(t, kbucket):
    """A key id the server has no key for, one naming two keys, and one
    whose key is no AES-256 key: the PUT is refused, nothing stored; and a
    bucket default naming a missing key is refused when set."""
    s3, b = kbucket
    for key_id in ("absent", "dup", "short"):
        err = error_of(s3.put_object, Bucket=b, Key=f"o-{key_id}", Body=b"secret", **kms_args(key_id))
        if t.is_radosgw and key_id == "absent":
            # radosgw 16.2 answers Locate's ENOENT as a missing object
            assert err[:2] == ("NoSuchKey", 404), err
        else:
            assert err[:2] == ("InvalidArgument", 400), (key_id, err)
    assert "Contents" not in s3.list_objects_v2(Bucket=b)
    default = {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms", "KMSMasterKeyID": "k2"}}]}
    if t.is_radosgw:
        # radosgw 16.2 has no PutBucketEncryption (docs/s3.md)
        assert error_of(s3.put_bucket_encryption, Bucket=b, ServerSideEncryptionConfiguration=default)[1] == 400
        return
    s3.put_bucket_encryption(Bucket=b, ServerSideEncryptionConfiguration=default)
    r = s3.put_object(Bucket=b, Key="by-default", Body=b"default")
    assert (r["ServerSideEncryption"], r["SSEKMSKeyId"]) == ("aws:kms", "k2")
    assert s3.get_object(Bucket=b, Key="by-default")["Body"].read() == b"default"
    absent = {"Rules": [{"ApplyServerSideEncryptionByDefault": {"SSEAlgorithm": "aws:kms",
                                                                "KMSMasterKeyID": "absent"}}]}
    err = error_of(s3.put_bucket_encryption, Bucket=b, ServerSideEncryptionConfiguration=absent)
    assert err[:2] == ("InvalidArgument", 400)


def test_kmip_server_down(t, rsgw_only, tmp_path):
    """With the KMIP server stopped: rsgw answers from the keys it fetched
    within kmip_key_cache_s, and a key it never fetched is 503
    ServiceUnavailable within kmip_timeout_ms (a gateway asking for every
    request, kmip_key_cache_s = 0, reads nothing); once the server is back,
    every key serves again. rsgw's own: radosgw 16.2 answered 400
    InvalidArgument with its server down from the start, and hung (no
    answer in 60 s, SIGTERM ignored) when the server stopped right after a
    request (docs/s3.md)."""
    (tmp_path / "kmip").mkdir()
    server = KmipServer(tmp_path / "kmip")
    server.create("k1")
    server.create("k2")
    urls, stops = [], []
    try:
        for n, crypt in ((0, {}), (1, {"kmip_key_cache_s": 0, "kmip_timeout_ms": 2000})):
            d = tmp_path / f"gw{n}"
            d.mkdir()
            url, stop = start_endpoint(t.name, d, server, **crypt)
            urls.append(url)
            stops.append(stop)
        clients = [client(u) for u in urls]
        b = f"kmip-down-{uuid.uuid4().hex[:12]}"
        clients[0].create_bucket(Bucket=b)
        for c in clients:
            c.put_object(Bucket=b, Key="before", Body=b"fetched before", **kms_args("k1"))
        server.stop()
        s3 = clients[0]
        assert s3.get_object(Bucket=b, Key="before")["Body"].read() == b"fetched before"
        s3.put_object(Bucket=b, Key="cached", Body=b"cached key", **kms_args("k1"))
        began = time.monotonic()
        err = error_of(s3.put_object, Bucket=b, Key="new", Body=b"x", **kms_args("k2"))
        assert err[:2] == ("ServiceUnavailable", 503), err
        assert time.monotonic() - began < 6
        err = error_of(clients[1].get_object, Bucket=b, Key="before")
        assert err[:2] == ("ServiceUnavailable", 503), err
        server.start()
        for c in clients:
            c.put_object(Bucket=b, Key="after", Body=b"back", **kms_args("k2"))
            assert c.get_object(Bucket=b, Key="before")["Body"].read() == b"fetched before"
        for o in s3.list_objects_v2(Bucket=b).get("Contents", []):
            s3.delete_object(Bucket=b, Key=o["Key"])
        s3.delete_bucket(Bucket=b)
    finally:
        for stop in stops:
            stop()
        if server.proc.poll() is None:
            server.stop()


def test_kmip_data_is_encrypted_with_the_servers_key(t, kbucket, kms):
    """What the store holds is the plaintext encrypted with the KMIP
    server's key itself, as radosgw's `kmip` backend writes it (AES-256-CBC
    in 4 KiB chunks, IV `aes256iv_ctr1337` plus the offset / 16): decrypted
    with the key PyKMIP reads back, the stored head is the plaintext."""
    if t.name == "rsgw-local":
        pytest.skip("reads the head object in RADOS")
    s3, b = kbucket
    data = os.urandom(2 * 4096)
    key = f"raw-{uuid.uuid4().hex}"
    s3.put_object(Bucket=b, Key=key, Body=data, **kms_args("k1"))
    pool = "default.rgw.buckets.data" if t.is_radosgw else f"{store_of(t.name)['pool_prefix']}.data"
    names = subprocess.run(["rados", "-p", pool, "ls"], capture_output=True, check=True, timeout=120).stdout.decode()
    sep = "_" if t.is_radosgw else "/"
    (head,) = [n for n in names.split() if n.endswith(sep + key)]
    stored = subprocess.run(["rados", "-p", pool, "get", head, "-"], capture_output=True, check=True,
                            timeout=60).stdout
    assert stored != data
    plain = b""
    for off in range(0, len(data), 4096):
        iv = (int.from_bytes(b"aes256iv_ctr1337", "big") + off // 16).to_bytes(16, "big")
        d = Cipher(algorithms.AES(kms.keys["k1"]), modes.CBC(iv)).decryptor()
        plain += d.update(stored[off:off + 4096]) + d.finalize()
    assert plain == data
