"""Admission's queue (`admission = "queue"`) end to end: clients that give up
while queued leave the queue with their connections, and queue mode keeps
queueing afterwards instead of turning into reject mode."""
import concurrent.futures
import socket
import time
import urllib.request

# every store operation of the test's gateway sleeps this long, so that the
# two requests holding both slots hold them for the whole test
LATENCY_MS = 6000


def slow_get(url):
    """An anonymous GET that may wait for minutes: its status."""
    with urllib.request.urlopen(url, timeout=180) as r:
        r.read()
        return r.status


def until(read, want, timeout):
    """Polls read() until it returns `want`; its last value otherwise."""
    deadline = time.monotonic() + timeout
    while (got := read()) != want and time.monotonic() < deadline:
        time.sleep(0.05)
    return got


def test_clients_that_give_up_while_queued_leave_the_queue(t, gateway, public_object):
    b, k = public_object
    g = gateway("queue-leak", sections=f"""
[pool]
max_concurrent_requests = 2
admission = "queue"
queue_size = 8
queue_timeout_ms = 120000
[store]
inject_latency_ms = {LATENCY_MS}
""")
    queued = lambda: g.metric("rsgw_admission_queued_requests")
    url = f"{g.url}/{b}/{k}"
    with concurrent.futures.ThreadPoolExecutor(3) as ex:
        # two slow GETs take both slots
        holders = [ex.submit(slow_get, url) for _ in range(2)]
        assert until(lambda: g.metric("rsgw_outstanding_requests"), 2, 20) == 2
        # eight clients queue behind them, then give up (close their sockets)
        quitters = []
        for _ in range(8):
            s = socket.create_connection(("127.0.0.1", g.port), timeout=10)
            s.sendall(f"GET /{b}/{k} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            quitters.append(s)
        assert until(queued, 8, 20) == 8, "eight requests queued"
        for s in quitters:
            s.close()
        assert until(queued, 0, 20) == 0, "the clients that left are still counted as queued"
        # the slots are still taken: a newcomer waits in the queue for one
        # (with the leak it was refused at once: the queue looked full)
        assert g.metric("rsgw_outstanding_requests") == 2
        newcomer = ex.submit(slow_get, url)
        assert until(queued, 1, 20) == 1, "the newcomer was not queued"
        assert [h.result(timeout=180) for h in holders] == [200, 200]
        assert newcomer.result(timeout=180) == 200
    assert g.metric("rsgw_admission_rejected_total") == 0
    assert until(queued, 0, 10) == 0
