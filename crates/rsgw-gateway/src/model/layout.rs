//! Where everything lives on the store (see docs/layout.md).
//!
//! - pool `meta`: namespace `users` (one object per user id: the user as JSON
//!   data, its buckets as omap keys), `keys` (one object per access key:
//!   owner and secret), `buckets` (one object per bucket name: the bucket's
//!   info as JSON), `uploads` (one object per multipart upload: the future
//!   object's headers as data, its parts as omap; and per bucket
//!   `bucket.<bucket id>` listing its uploads), `gc` (one object whose omap
//!   lists writes to clean up), `usage` (one object per user: the usage
//!   log's entries in its omap), `control` (object `notify`, which every
//!   serving instance watches: changes of cached metadata are notified there);
//! - pool `index`: the bucket's index shards, `<bucket id>` for a bucket of
//!   one shard, `<bucket id>.<n>` (n = 0..shards) otherwise; omap key =
//!   object key, value = the listing entry; a key lives in shard
//!   [`shard_of`] of it;
//! - pool `data`: the head of each object `<bucket id>/<key>` (first chunk
//!   of data, and the object's metadata in xattr `rsgw.obj`): its current
//!   version; in a versioned bucket each other version's
//!   `<bucket id>:<version id>/<key>`, laid out as a head; and their tail
//!   stripes `<bucket id>.<tag>.<n>`.

use rsgw_store::ObjectId;

pub(crate) const META: &str = "meta";
pub(crate) const INDEX: &str = "index";
pub(crate) const DATA: &str = "data";
pub(crate) const POOLS: [&str; 3] = [META, INDEX, DATA];

/// Xattr of a head object holding its [`crate::model::object::ObjectMeta`].
pub(crate) const META_XATTR: &str = "rsgw.obj";
/// Xattr of a head object holding the tag of the write that made it; the
/// guard of the next overwrite compares it.
pub(crate) const TAG_XATTR: &str = "rsgw.tag";
/// Xattr marking a head object that an instance may hold in its object
/// cache: a write of a marked head announces itself (see
/// `cache::objects`). Set once, kept by overwrites.
pub(crate) const CACHED_XATTR: &str = "rsgw.cached";
/// Xattr of an index shard holding its usage counters
/// ([`crate::model::index::Counters`]).
pub(crate) const STATS_XATTR: &str = "rsgw.stats";
/// Xattr of the rate limits' record: its generation, for read-modify-write.
pub(crate) const GEN_XATTR: &str = "rsgw.gen";
/// Xattr of the lifecycle worker's state object: `<holder> <expiry>` while
/// a pass holds the lease.
pub(crate) const LEASE_XATTR: &str = "rsgw.lease";
/// Xattr of the lifecycle worker's state object: how far the pass got
/// (`<bucket>\n<key>`).
pub(crate) const MARKER_XATTR: &str = "rsgw.marker";

pub(crate) fn user(uid: &str) -> ObjectId {
    ObjectId::in_namespace(META, "users", uid)
}

pub(crate) fn key(access_key: &str) -> ObjectId {
    ObjectId::in_namespace(META, "keys", access_key)
}

/// The user an e-mail address names (its data: the user id).
pub(crate) fn email(address: &str) -> ObjectId {
    ObjectId::in_namespace(META, "emails", address)
}

pub(crate) fn bucket(name: &str) -> ObjectId {
    ObjectId::in_namespace(META, "buckets", name)
}

/// A user's usage log (`model::usage_log`): its entries in the omap.
pub(crate) fn usage(uid: &str) -> ObjectId {
    ObjectId::in_namespace(META, "usage", uid)
}

/// The store's layout format ([`crate::model::format::FormatRecord`]).
pub(crate) fn format() -> ObjectId {
    ObjectId::in_namespace(META, "format", "layout")
}

/// Every rate limit of the store, in one record.
pub(crate) fn ratelimits() -> ObjectId {
    ObjectId::in_namespace(META, "ratelimits", "all")
}

/// The object every instance watches for changes of cached metadata.
pub(crate) fn control() -> ObjectId {
    ObjectId::in_namespace(META, "control", "notify")
}

/// The lifecycle worker's lease, progress and last report.
pub(crate) fn lc_state() -> ObjectId {
    ObjectId::in_namespace(META, "lc", "state")
}

/// The buckets with lifecycle rules (omap keys: bucket names).
pub(crate) fn lc_buckets() -> ObjectId {
    ObjectId::in_namespace(META, "lc", "buckets")
}

pub(crate) fn gc_log() -> ObjectId {
    ObjectId::in_namespace(META, "gc", "log")
}

pub(crate) fn upload(upload_id: &str) -> ObjectId {
    ObjectId::in_namespace(META, "uploads", upload_id)
}

pub(crate) fn upload_index(bucket_id: &str) -> ObjectId {
    ObjectId::in_namespace(META, "uploads", format!("bucket.{bucket_id}"))
}

/// Index shard `shard` of a bucket of `shards` shards: `<bucket id>` when
/// there is one shard (the name every bucket had before shards existed),
/// `<bucket id>.<shard>` otherwise, as radosgw's `.dir.<marker>` and
/// `.dir.<marker>.<shard>`.
pub(crate) fn index_shard(bucket_id: &str, shards: u32, shard: u32) -> ObjectId {
    if shards <= 1 {
        ObjectId::new(INDEX, bucket_id)
    } else {
        ObjectId::new(INDEX, format!("{bucket_id}.{shard}"))
    }
}

/// Every index shard of a bucket, in shard order.
pub(crate) fn index_shards(bucket_id: &str, shards: u32) -> Vec<ObjectId> {
    (0..shards.max(1))
        .map(|n| index_shard(bucket_id, shards, n))
        .collect()
}

/// The index shard that holds `key`.
pub(crate) fn index_of(bucket_id: &str, shards: u32, key: &str) -> ObjectId {
    index_shard(bucket_id, shards, shard_of(key, shards))
}

/// The shard (0..shards) of an object key: radosgw's
/// `bucket_shard_index` (Pacific), so a key lands in the shard number
/// radosgw gives it: `ceph_str_hash_linux` over the key's UTF-8 bytes,
/// `h ^ ((h & 0xff) << 24)`, then modulo 7877 (65521 above 7877 shards)
/// and modulo the shard count. Stable across versions and platforms: it is
/// part of the layout on the store (docs/layout.md,
/// docs/decisions/0004-bucket-index-shards.md).
pub(crate) fn shard_of(key: &str, shards: u32) -> u32 {
    if shards <= 1 {
        return 0;
    }
    // ceph_str_hash_linux: computed in an unsigned long, returned as an
    // unsigned (32 bits); + and * wrap alike in either width
    let mut h: u32 = 0;
    for &c in key.as_bytes() {
        let c = u32::from(c);
        h = h.wrapping_add(c << 4).wrapping_add(c >> 4).wrapping_mul(11);
    }
    let h = h ^ ((h & 0xff) << 24);
    let prime = if shards <= SHARD_PRIME {
        SHARD_PRIME
    } else {
        SHARD_PRIME_LARGE
    };
    h % prime % shards
}

/// radosgw's modulus of the shard hash (`RGW_SHARDS_PRIME_0`), for up to
/// as many shards.
const SHARD_PRIME: u32 = 7877;
/// radosgw's modulus of the shard hash above [`SHARD_PRIME`] shards
/// (`RGW_SHARDS_PRIME_1`).
const SHARD_PRIME_LARGE: u32 = 65521;

pub(crate) fn head(bucket_id: &str, key: &str) -> ObjectId {
    ObjectId::new(DATA, format!("{bucket_id}/{key}"))
}

/// A version of `key` that is not its current one (`null`: the null
/// version): `<bucket id>:<version id>/<key>`. Bucket ids are hex, so these
/// names never meet heads' (`/`) or stripes' (`.`).
pub(crate) fn version(bucket_id: &str, version: Option<&str>, key: &str) -> ObjectId {
    ObjectId::new(
        DATA,
        format!(
            "{bucket_id}:{}/{key}",
            version.unwrap_or(crate::model::versioning::NULL_VERSION)
        ),
    )
}

pub(crate) fn stripe(bucket_id: &str, tag: &str, n: u64) -> ObjectId {
    ObjectId::new(DATA, format!("{bucket_id}.{tag}.{n}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name the layout gives, as docs/layout.md documents it.
    #[test]
    fn names_follow_the_documented_layout() {
        let cases: [(&str, ObjectId, (&str, &str, &str)); 15] = [
            ("user", user("alice"), (META, "users", "alice")),
            ("access key", key("AKIA0"), (META, "keys", "AKIA0")),
            (
                "bucket record",
                bucket("my-bucket"),
                (META, "buckets", "my-bucket"),
            ),
            ("gc log", gc_log(), (META, "gc", "log")),
            ("upload", upload("2~abc"), (META, "uploads", "2~abc")),
            (
                "upload index",
                upload_index("0123456789abcdef"),
                (META, "uploads", "bucket.0123456789abcdef"),
            ),
            (
                "bucket index of one shard",
                index_shard("0123456789abcdef", 1, 0),
                (INDEX, "", "0123456789abcdef"),
            ),
            (
                "first index shard",
                index_shard("0123456789abcdef", 11, 0),
                (INDEX, "", "0123456789abcdef.0"),
            ),
            (
                "last index shard",
                index_shard("0123456789abcdef", 11, 10),
                (INDEX, "", "0123456789abcdef.10"),
            ),
            (
                "index shard of a key",
                index_of("0123456789abcdef", 11, "photo.jpg"),
                (INDEX, "", "0123456789abcdef.3"),
            ),
            ("head", head("b1", "photo.jpg"), (DATA, "", "b1/photo.jpg")),
            (
                "head of a nested key",
                head("b1", "a/b/../c d"),
                (DATA, "", "b1/a/b/../c d"),
            ),
            ("first stripe", stripe("b1", "t1", 0), (DATA, "", "b1.t1.0")),
            ("later stripe", stripe("b1", "t1", 7), (DATA, "", "b1.t1.7")),
            (
                "stripe numbers are not padded",
                stripe("b1", "t1", 12345),
                (DATA, "", "b1.t1.12345"),
            ),
        ];
        for (what, id, (pool, ns, name)) in cases {
            assert_eq!(
                (id.pool.as_str(), id.namespace.as_str(), id.name.as_str()),
                (pool, ns, name),
                "{what}"
            );
        }
        assert_eq!(POOLS, ["meta", "index", "data"]);
    }

    /// A head is `<bucket id>/<key>`, a stripe `<bucket id>.<tag>.<n>`: no
    /// key, however shaped, names a stripe of its bucket or any object of
    /// another bucket (bucket ids are hex, without '/' or '.').
    #[test]
    fn heads_never_collide_with_stripes_or_other_buckets() {
        let id = "0123456789abcdef";
        let other = "fedcba9876543210";
        let stripes = [
            stripe(id, "t", 0),
            stripe(id, "0", 1),
            stripe(other, "t", 0),
        ];
        for key in [
            ".t.0",
            "t.0",
            "/t.0",
            ".0.1",
            "",
            "x",
            "../fedcba9876543210.t.0",
        ] {
            let h = head(id, key);
            assert!(h.name.starts_with("0123456789abcdef/"), "{key:?}");
            for s in &stripes {
                assert_ne!(&h, s, "key {key:?}");
            }
            assert_ne!(h, head(other, key), "key {key:?}");
        }
        // a stripe's name splits back into bucket id, tag and number
        let s = stripe(id, "ffee", 42);
        let parts: Vec<&str> = s.name.split('.').collect();
        assert_eq!(parts, [id, "ffee", "42"]);
    }

    /// The shard hash is radosgw's: every key of
    /// docs/perf/shards/radosgw-shards.csv lands in the shard a real
    /// radosgw 16.2.15 put it in (benches/shards.sh records them), and a
    /// few more values of Pacific's `bucket_shard_index` hold. They are
    /// part of the layout: a change would lose every key of every sharded
    /// bucket.
    #[test]
    fn shard_hash_is_radosgws() {
        let placed = include_str!("../../../../docs/perf/shards/radosgw-shards.csv");
        let mut rows = 0;
        for line in placed.lines().skip(1) {
            let mut fields = line.rsplitn(3, ',');
            let (Some(shard), Some(shards), Some(key)) =
                (fields.next(), fields.next(), fields.next())
            else {
                panic!("bad row {line:?}");
            };
            let (shard, shards): (u32, u32) = (
                shard.parse().expect("shard"),
                shards.parse().expect("shards"),
            );
            assert_eq!(shard_of(key, shards), shard, "{key:?} over {shards}");
            rows += 1;
        }
        assert_eq!(rows, 200, "radosgw's placement of 200 keys");
        let cases: [(&str, u32, u32); 10] = [
            ("photo.jpg", 11, 3),
            ("", 11, 0),
            ("a", 11, 1),
            ("obj-00000001", 11, 9),
            ("é/ü", 11, 4),
            ("myobjects_1", 11, 7),
            ("photo.jpg", 2, 1),
            ("a", 2, 1),
            // above 7877 shards the first modulus is 65521
            ("photo.jpg", 8000, 388),
            ("a", 8000, 5124),
        ];
        for (key, shards, want) in cases {
            assert_eq!(shard_of(key, shards), want, "{key:?} over {shards}");
        }
        for key in ["", "a", "photo.jpg"] {
            assert_eq!(shard_of(key, 1), 0);
            assert_eq!(shard_of(key, 0), 0);
        }
    }

    /// Every key lands in a shard that exists, and common key shapes
    /// spread evenly: no shard of 11 gets 5% more or less than its share of
    /// 100,000 numbered keys, nor of 50,000 keys in 25,000 directories.
    #[test]
    fn shards_are_balanced() {
        let numbered: Vec<String> = (0..100_000).map(|i| format!("obj-{i:08}")).collect();
        let dirs: Vec<String> = (0..25_000)
            .flat_map(|i| [format!("d{i:05}/x"), format!("d{i:05}/y")])
            .collect();
        for keys in [numbered, dirs] {
            for shards in [2, 3, 11, 16] {
                let mut counts = vec![0usize; shards as usize];
                for k in &keys {
                    let s = shard_of(k, shards);
                    assert!(s < shards, "{k:?}");
                    counts[s as usize] += 1;
                }
                let share = keys.len() as f64 / f64::from(shards);
                for (n, &c) in counts.iter().enumerate() {
                    let r = c as f64 / share;
                    assert!(
                        (0.95..=1.05).contains(&r),
                        "shard {n} of {shards} holds {c} of {} keys",
                        keys.len()
                    );
                }
            }
        }
    }
}
