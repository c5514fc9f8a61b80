"""Fixtures of both suites (tests/s3, tests/gateway), run by tests/run.sh:
every test that takes `t` runs once per target (rsgw on each backend, and
the real radosgw; `rsgw_only` leaves radosgw out), and `gateway` starts
gateways of the test's own on the target's store (tests/support/rsgw_gateway.py)."""
import os
import uuid

import pytest

from rsgw_gateway import Gateway
from targets import Target, configs, targets

TARGETS = targets()


def pytest_generate_tests(metafunc):
    if "target" in metafunc.fixturenames:
        names = sorted(TARGETS)
        if "rsgw_only" in metafunc.fixturenames:
            # expectations that are rsgw's own (hostile input): radosgw is
            # the reference in every other test
            names = [n for n in names if n != "radosgw"]
        metafunc.parametrize("target", names, scope="module")


def in_s3(item):
    """Whether a test is one of tests/s3's."""
    return item.path.parent.name == "s3"


def concurrent(item):
    """Whether a test may run beside others (tests/run.sh's first phase):
    the S3 tests (fresh buckets of their own, the shared users unchanged)
    but those marked `alone`, and the tests/gateway modules marked
    `concurrent`."""
    if in_s3(item):
        return item.get_closest_marker("alone") is None
    return item.get_closest_marker("concurrent") is not None


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which reads the group mark
def pytest_collection_modifyitems(config, items):
    """Tests marked `chaos` run only with RSGW_TEST_CHAOS=1 (scripts/test
    --chaos). RSGW_TEST_PHASE (tests/run.sh) keeps the tests of one phase:
    `concurrent` the tests that may run beside others, `alone` the rest;
    unset, every test. For pytest-xdist's `--dist loadgroup`: in the first
    phase a module's tests against one target form one group, run on one
    worker in the order written, so module-scoped fixtures are made once
    and tests that build on each other's state keep their order; different
    targets' runs of a module share nothing and go to different workers. In
    the second phase the groups are two lanes, one test at a time in each:
    rsgw-local's tests (and those marked `embedded`) on the embedded store,
    and the cluster's (rsgw-rados, radosgw, and the other tests without a
    target). What makes a test `alone` (stopped OSDs, a filled cluster,
    quotas on the shared users, GC or lifecycle passes over a whole store)
    reaches no further than its lane's store; its timing margins are for a
    loaded host. Without xdist the group mark means nothing."""
    if not os.environ.get("RSGW_TEST_CHAOS"):
        chaos = [item for item in items if item.get_closest_marker("chaos")]
        if chaos:
            config.hook.pytest_deselected(items=chaos)
            items[:] = [item for item in items if not item.get_closest_marker("chaos")]
    phase = os.environ.get("RSGW_TEST_PHASE")
    if phase not in (None, "concurrent", "alone"):
        raise pytest.UsageError(f"RSGW_TEST_PHASE is concurrent or alone, not {phase!r}")
    if phase is not None:
        keep, drop = [], []
        for item in items:
            (keep if concurrent(item) == (phase == "concurrent") else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if phase == "concurrent":
        # the long groups first (a gateway module's run takes a minute or
        # two), so that the many short S3 groups fill the workers' tails;
        # tests/run.sh keeps xdist from reordering (--no-loadscope-reorder)
        items.sort(key=in_s3)
    for item in items:
        target = item.callspec.params.get("target", "-") if hasattr(item, "callspec") else "-"
        if phase != "alone":
            group = f"{item.module.__name__}.{target}"
        elif target == "rsgw-local" or (target == "-" and item.get_closest_marker("embedded")):
            group = "lane.embedded"
        else:
            group = "lane.cluster"
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def rsgw_only():
    """Marks a test whose expectations are rsgw's, not S3-wide."""


@pytest.fixture(scope="module")
def t(target):
    return Target(target, TARGETS[target])


@pytest.fixture
def bucket(t):
    """A fresh bucket of alice's, emptied and removed afterwards."""
    name = f"t-{uuid.uuid4().hex[:20]}"
    t.alice.create_bucket(Bucket=name)
    yield name
    paginator = t.alice.get_paginator("list_objects_v2")
    for page in paginator.paginate(Bucket=name):
        keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if keys:
            t.alice.delete_objects(Bucket=name, Delete={"Objects": keys, "Quiet": True})
    t.alice.delete_bucket(Bucket=name)


@pytest.fixture
def gateway(t, rsgw_only, tmp_path):
    """Starts gateways of the test's own on the target's store:
    gateway(name, frontend="", sections="", args=(), start=True, **Gateway options)
    takes the target's config with its own S3 and admin ports, `frontend`
    keys added to [frontend] and `sections` (TOML) merged in. Each is
    stopped at the end (SIGTERM, exit status 0 checked) unless the test
    stopped or killed it."""
    started = []

    def make(name="own", frontend="", sections="", args=(), start=True, **options):
        g = Gateway(tmp_path, name, base=configs()[t.name], frontend=frontend, sections=sections, args=args,
                    **options)
        started.append(g)
        return g.start() if start else g

    yield make
    for g in started:
        if g.running:
            g.stop()
