"""The rados backend's RSS over many objects past the head (5 MiB, striped),
for docs/reliability.md "Memory of striped objects": the leak check's round
(tests/gateway/test_leaks.py: PUT, GET, a GET broken off, DELETE) on
CLIENTS threads, STEPS times ROUNDS rounds each, the gateway's RssAnon and
threads sampled after every step; at the end glibc's malloc_stats() (gdb
attached for a moment) goes to the gateway's log, which is printed: what
glibc's arenas, used by librados' C++ code, hold against what is in use
(rsgw's own Rust allocations go to mimalloc). Extra NAME=VALUE arguments
are set in the gateway's environment (MALLOC_ARENA_MAX=2...).

  CEPH_CONF=... RSGW_BIN=target/debug/rsgw \\
    python3 tests/reliability/striped_rss.py OUT.csv STEPS ROUNDS [NAME=VALUE...]"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import uuid

here = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(here.parent / "support"), str(here.parent / "gateway")]
os.environ.setdefault("ALICE_AK", "ALICEACCESSKEY000001")
os.environ.setdefault("ALICE_SK", "alicesecretkey0000000000000000000000001")
from rsgw_gateway import Gateway, remove_pools  # noqa: E402
import test_leaks as leaks  # noqa: E402


def main():
    out, steps, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    env = dict(a.split("=", 1) for a in sys.argv[4:])
    prefix = f"rss{uuid.uuid4().hex[:6]}"
    g = Gateway(tempfile.mkdtemp(), "striped-rss", backend="rados", ceph_conf=os.environ["CEPH_CONF"],
                pool_prefix=prefix, env=env,
                users=[("alice", "Alice", os.environ["ALICE_AK"], os.environ["ALICE_SK"])]).start()
    try:
        bucket = f"rss-{uuid.uuid4().hex[:8]}"
        c = leaks.Client(g)
        assert c.request("PUT", f"/{bucket}")[0] == 200
        c.close()
        with open(out, "w") as f:
            f.write("objects,rss_mib,threads\n")
            for i in range(steps + 1):
                if i:
                    leaks.run(g, bucket, leaks.striped_round, f"rss-{i}", rounds=rounds)
                    time.sleep(2)
                s = leaks.sample(g)
                line = f"{i * rounds * leaks.CLIENTS},{s['rss_mib']:.1f},{s['threads']}"
                print(line, flush=True)
                f.write(line + "\n")
        subprocess.run(["gdb", "-p", str(g.pid), "-batch", "-ex", "call (void)malloc_stats()"],
                       capture_output=True, timeout=120)
        time.sleep(1)
        log = g.log.read_text()
        print(log[log.find("Arena 0:"):])
    finally:
        g.stop()
        remove_pools(prefix)


if __name__ == "__main__":
    main()
