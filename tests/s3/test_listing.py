"""Listings: v1 and v2, prefix, delimiter, pagination, encoding-type=url."""
from concurrent.futures import ThreadPoolExecutor


def put_many(client, bucket, keys):
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda k: client.put_object(Bucket=bucket, Key=k, Body=b"x"), keys))


def test_delimiter_and_pagination(t, bucket):
    keys = [f"photos/{y}/{m:02d}/img{i}.jpg" for y in (2023, 2024) for m in range(1, 4) for i in range(3)]
    keys += ["photos/readme.txt", "top.txt", "zeta/a", "zeta/b"]
    put_many(t.alice, bucket, keys)
    r = t.alice.list_objects_v2(Bucket=bucket, Delimiter="/")
    assert [c["Prefix"] for c in r["CommonPrefixes"]] == ["photos/", "zeta/"]
    assert [o["Key"] for o in r["Contents"]] == ["top.txt"]
    assert r["KeyCount"] == 3
    r = t.alice.list_objects_v2(Bucket=bucket, Prefix="photos/", Delimiter="/")
    assert [c["Prefix"] for c in r["CommonPrefixes"]] == ["photos/2023/", "photos/2024/"]
    assert [o["Key"] for o in r["Contents"]] == ["photos/readme.txt"]
    # pages of 4 with a delimiter, continuation tokens in between
    seen, token = [], None
    while True:
        kw = {"ContinuationToken": token} if token else {}
        r = t.alice.list_objects_v2(Bucket=bucket, Prefix="photos/2024/", Delimiter="/", MaxKeys=2, **kw)
        seen += [c["Prefix"] for c in r.get("CommonPrefixes", [])] + [o["Key"] for o in r.get("Contents", [])]
        if not r["IsTruncated"]:
            break
        token = r["NextContinuationToken"]
    assert seen == ["photos/2024/01/", "photos/2024/02/", "photos/2024/03/"]
    # v1 with marker
    r = t.alice.list_objects(Bucket=bucket, Prefix="photos/2023/01/", MaxKeys=2)
    assert r["IsTruncated"]
    assert [o["Key"] for o in r["Contents"]] == ["photos/2023/01/img0.jpg", "photos/2023/01/img1.jpg"]
    r = t.alice.list_objects(Bucket=bucket, Prefix="photos/2023/01/", Marker="photos/2023/01/img1.jpg")
    assert [o["Key"] for o in r["Contents"]] == ["photos/2023/01/img2.jpg"]
    assert not r["IsTruncated"]
    # start-after
    r = t.alice.list_objects_v2(Bucket=bucket, StartAfter="top.txt")
    assert [o["Key"] for o in r["Contents"]] == ["zeta/a", "zeta/b"]


def test_listing_many_keys(t, bucket):
    # 2,100 keys: three pages of ListObjectsV2, 21 common prefixes, and every
    # shard of an 11-shard index holding keys of each page (5,100 keys took
    # about 90 s a target on 3 BlueStore OSDs, most of it in the deletes)
    keys = [f"many/{i // 100:03d}/{i:05d}" for i in range(2100)]
    put_many(t.alice, bucket, keys)
    paginator = t.alice.get_paginator("list_objects_v2")
    listed = [o["Key"] for page in paginator.paginate(Bucket=bucket, Prefix="many/") for o in page.get("Contents", [])]
    assert listed == sorted(keys)
    r = t.alice.list_objects_v2(Bucket=bucket, Prefix="many/", Delimiter="/")
    assert len(r["CommonPrefixes"]) == 21
    assert not r["IsTruncated"]
    r = t.alice.list_objects_v2(Bucket=bucket, Prefix="many/", MaxKeys=2000)
    assert r["KeyCount"] == 1000, "S3 caps max-keys at 1000"
    assert r["IsTruncated"]


def test_fetch_owner_and_encoding(t, bucket):
    keys = ["pct%41/b", "with space/é+x"]
    for k in keys:
        t.alice.put_object(Bucket=bucket, Key=k, Body=b"x")
    r = t.alice.list_objects_v2(Bucket=bucket, FetchOwner=True)
    assert r["Contents"][0]["Owner"]["ID"] == "alice"
    # boto3 asks for encoding-type=url and decodes keys back: a server that
    # did not encode would turn "%41" into "A"
    assert [o["Key"] for o in r["Contents"]] == keys
    r = t.alice.list_objects(Bucket=bucket, Delimiter="/")
    assert [c["Prefix"] for c in r["CommonPrefixes"]] == ["pct%41/", "with space/"]
