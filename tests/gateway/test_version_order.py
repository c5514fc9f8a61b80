"""Writers of one key of a versioned bucket on two instances at once
(issue 36, rsgw only, both backends): every version and marker made is
kept, both instances list the key's versions in the same order, and on
both the key's listing (ListObjectsV2), its latest version
(ListObjectVersions) and a HEAD agree on which version is current.

A version's place in the order is its rank (the time its write began); the
head holds the newest one, and the key's own index entry is settled
against the head by every writer after its index write, so a writer whose
index write lands after a newer writer's cannot leave its older version
listed as the key's (docs/layout.md, "Versions")."""
import concurrent.futures
import os
import uuid

import pytest

from helpers import error_of
from test_coherence import client

# may run beside other tests (tests/run.sh): changes no shared user, setting
# or daemon, measures no timing or load
pytestmark = pytest.mark.concurrent

ROUNDS = 40
# per round, alternately on each instance; every fourth a DELETE (a marker)
WRITERS = 8


@pytest.fixture
def bucket(gateway):
    a, b = gateway("a"), gateway("b")
    alice = (os.environ["ALICE_AK"], os.environ["ALICE_SK"])
    on_a, on_b = client(a, *alice), client(b, *alice)
    name = f"vo-{uuid.uuid4().hex[:12]}"
    on_a.create_bucket(Bucket=name)
    on_a.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
    yield name, (on_a, on_b)
    for page in on_a.get_paginator("list_object_versions").paginate(Bucket=name):
        doomed = [{"Key": v["Key"], "VersionId": v["VersionId"]}
                  for v in page.get("Versions", []) + page.get("DeleteMarkers", [])]
        if doomed:
            on_a.delete_objects(Bucket=name, Delete={"Objects": doomed, "Quiet": True})
    on_a.delete_bucket(Bucket=name)


def _versions_of(c, bucket, key):
    """(version id, marker, latest) of each of `key`'s versions, newest
    first (markers and versions merged by the order the listing gives)."""
    doc = c.list_object_versions(Bucket=bucket, Prefix=key)
    rows = [(v["VersionId"], False, v["IsLatest"], v["LastModified"]) for v in doc.get("Versions", [])]
    rows += [(m["VersionId"], True, m["IsLatest"], m["LastModified"]) for m in doc.get("DeleteMarkers", [])]
    assert not doc["IsTruncated"]
    # version ids begin with their rank: newest first is their order
    return sorted(((vid, marker, latest) for vid, marker, latest, _ in rows), key=lambda r: r[0])


def test_two_instances_writing_one_key_agree_on_its_versions(bucket):
    name, clients = bucket
    with concurrent.futures.ThreadPoolExecutor(WRITERS) as pool:
        for r in range(ROUNDS):
            key = f"k{r:03d}"

            def write(i):
                c = clients[i % 2]
                if i % 4 == 3:
                    return c.delete_object(Bucket=name, Key=key)["VersionId"], True
                return c.put_object(Bucket=name, Key=key, Body=f"{r}-{i}".encode())["VersionId"], False

            made = list(pool.map(write, range(WRITERS)))
            seen = [_versions_of(c, name, key) for c in clients]
            assert seen[0] == seen[1], f"round {r}: the instances list the versions differently"
            assert sorted((vid, marker) for vid, marker, _ in seen[0]) == sorted(made), f"round {r}"
            latest = [(vid, marker) for vid, marker, is_latest in seen[0] if is_latest]
            assert latest == [seen[0][0][:2]], f"round {r}: the newest version is not the only latest"
            vid, marker = latest[0]
            for c, where in zip(clients, "ab"):
                listed = c.list_objects_v2(Bucket=name, Prefix=key).get("Contents", [])
                if marker:
                    code, status, _ = error_of(c.head_object, Bucket=name, Key=key)
                    assert status == 404, f"round {r} on {where}: a marker is current"
                    assert listed == [], f"round {r} on {where}: the key listed under a current marker"
                    continue
                head = c.head_object(Bucket=name, Key=key)
                assert head["VersionId"] == vid, f"round {r} on {where}"
                assert [(o["Key"], o["ETag"], o["Size"]) for o in listed] == \
                    [(key, head["ETag"], head["ContentLength"])], f"round {r} on {where}: listed is not current"
