"""radosgw's user records as rsgw decodes them (crates/rsgw-radosgw, the
radosgw layout's first part, issue 31), against radosgw-admin on the same
records: users made with radosgw-admin 16.2 (several S3 keys, subusers with
Swift keys, caps, quotas, a tenant, unicode names, suspended, system and
admin users), their `users.uid` objects saved with `rados get` and printed
by `rsgw decode user`, must give exactly `radosgw-admin user info`'s JSON;
the `users.keys`, `users.email` and `users.swift` links must name the
user. Bad bytes are a clear error, never a panic. Cluster only; radosgw
itself need not run (radosgw-admin writes the records)."""
import json
import os
import subprocess
import uuid

import pytest

from targets import configs

pytestmark = pytest.mark.concurrent

RSGW = os.environ.get("RSGW_BIN", "rsgw")
META = "default.rgw.meta"


@pytest.fixture(scope="module")
def cluster():
    if "rsgw-rados" not in configs():
        pytest.skip("no cluster in this run (tests/run.sh RSGW -)")


def admin(*args):
    r = subprocess.run(["radosgw-admin", *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (args, r.stderr[-2000:])
    return json.loads(r.stdout) if r.stdout.strip() else None


def saved(tmp_path, ns, oid):
    path = tmp_path / f"{ns}-{uuid.uuid4().hex[:8]}"
    r = subprocess.run(["rados", "-p", META, "-N", ns, "get", oid, str(path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (ns, oid, r.stderr)
    return path


def decode(record, path):
    r = subprocess.run([RSGW, "decode", record, str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def users(cluster):
    """uid (as radosgw-admin's --uid takes it, with --tenant apart) -> made users."""
    tag = uuid.uuid4().hex[:8]
    made = []

    def user(uid, *args, tenant=None):
        t = ["--tenant", tenant] if tenant else []
        admin("user", "create", "--uid", uid, *t, *args)
        made.append((uid, t))
        return uid, t

    full = user(f"full-{tag}", "--display-name", "Zoë Ünïcode 名前", "--email", f"full-{tag}@example.com",
                "--access-key", f"AKFULL{tag.upper()}01", "--secret", f"secret-one-{tag}",
                "--max-buckets", "7", "--caps", "users=*;buckets=read;usage=write")
    for n in (2, 3):
        admin("key", "create", "--uid", full[0], "--key-type", "s3",
              "--access-key", f"AKFULL{tag.upper()}0{n}", "--secret", f"secret-{n}-{tag}")
    admin("subuser", "create", "--uid", full[0], "--subuser", f"{full[0]}:swift", "--access", "full",
          "--key-type", "swift", "--secret", f"swift-secret-{tag}")
    admin("subuser", "create", "--uid", full[0], "--subuser", f"{full[0]}:reader", "--access", "read")
    admin("user", "modify", "--uid", full[0], "--op-mask", "read, write", "--temp-url-key", f"tu-{tag}")
    admin("quota", "set", "--quota-scope", "bucket", "--uid", full[0], "--max-objects", "100",
          "--max-size", "1073741824")
    admin("quota", "enable", "--quota-scope", "bucket", "--uid", full[0])
    admin("quota", "set", "--quota-scope", "user", "--uid", full[0], "--max-size", "12345")
    admin("user", "suspend", "--uid", full[0])
    plain = user(f"plain-{tag}", "--display-name", "Plain")
    tenant = user(f"tenanted-{tag}", "--display-name", "In a tenant", "--access-key", f"AKTEN{tag.upper()}",
                  "--secret", f"tenant-secret-{tag}", tenant=f"tn{tag}")
    system = user(f"system-{tag}", "--display-name", "System", "--system", "--admin")
    yield {"full": full, "plain": plain, "tenant": tenant, "system": system}
    for uid, t in made:
        subprocess.run(["radosgw-admin", "user", "rm", "--uid", uid, *t, "--purge-keys"],
                       capture_output=True, timeout=120)


@pytest.mark.parametrize("which", ["full", "plain", "tenant", "system"])
def test_a_user_decodes_to_radosgw_admins_json(users, tmp_path, which):
    uid, tenant = users[which]
    want = admin("user", "info", "--uid", uid, *tenant)
    oid = f"{tenant[1]}${uid}" if tenant else uid
    got = decode("user", saved(tmp_path, "users.uid", oid))
    assert got == want


def test_links_name_their_user(users, tmp_path):
    uid, _ = users["full"]
    info = admin("user", "info", "--uid", uid)
    # the reader subuser got a Swift key of its own (subuser create makes one)
    assert len(info["keys"]) == 3 and len(info["swift_keys"]) == 2, info
    for key in info["keys"]:
        assert decode("link", saved(tmp_path, "users.keys", key["access_key"])) == {"user_id": uid}
    for key in info["swift_keys"]:
        assert decode("link", saved(tmp_path, "users.swift", key["user"])) == {"user_id": uid}
    assert decode("link", saved(tmp_path, "users.email", info["email"])) == {"user_id": uid}
    tuid, tenant = users["tenant"]
    akey = admin("user", "info", "--uid", tuid, *tenant)["keys"][0]["access_key"]
    assert decode("link", saved(tmp_path, "users.keys", akey)) == {"user_id": f"{tenant[1]}${tuid}"}


def test_bad_bytes_are_a_clear_error(users, tmp_path):
    whole = saved(tmp_path, "users.uid", users["full"][0]).read_bytes()
    cases = {
        "cut": whole[: len(whole) // 2],
        "longer": whole + b"\0",
        "empty": b"",
        "garbage": b"\xff" * 64,
    }
    for name, data in cases.items():
        path = tmp_path / name
        path.write_bytes(data)
        r = subprocess.run([RSGW, "decode", "user", str(path)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 1 and r.stdout == "", (name, r)
        assert r.stderr.startswith("rsgw: ") and "panicked" not in r.stderr, (name, r.stderr)
    r = subprocess.run([RSGW, "decode", "user", str(tmp_path / "longer")], capture_output=True, text=True)
    assert "1 bytes after the record's end" in r.stderr, r.stderr
