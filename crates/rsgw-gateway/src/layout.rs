//! Where everything lives on the store (see docs/layout.md).
//!
//! - pool `meta`: namespace `users` (one object per user id: the user as JSON
//!   data, its buckets as omap keys), `keys` (one object per access key:
//!   owner and secret), `buckets` (one object per bucket name: the bucket's
//!   info as JSON), `uploads` (one object per multipart upload: the future
//!   object's headers as data, its parts as omap; and per bucket
//!   `bucket.<bucket id>` listing its uploads), `gc` (one object whose omap
//!   lists writes to clean up), `control` (object `notify`, which every
//!   serving instance watches: changes of cached metadata are notified there);
//! - pool `index`: one object per bucket id, omap key = object key, value =
//!   the listing entry;
//! - pool `data`: the head of each object `<bucket id>/<key>` (first chunk
//!   of data, and the object's metadata in xattr `rsgw.obj`), and its tail
//!   stripes `<bucket id>.<tag>.<n>`.

use rsgw_store::ObjectId;

pub(crate) const META: &str = "meta";
pub(crate) const INDEX: &str = "index";
pub(crate) const DATA: &str = "data";
pub(crate) const POOLS: [&str; 3] = [META, INDEX, DATA];

/// Xattr of a head object holding its [`crate::ObjectMeta`].
pub(crate) const META_XATTR: &str = "rsgw.obj";
/// Xattr of a head object holding the tag of the write that made it; the
/// guard of the next overwrite compares it.
pub(crate) const TAG_XATTR: &str = "rsgw.tag";

pub(crate) fn user(uid: &str) -> ObjectId {
    ObjectId::in_namespace(META, "users", uid)
}

pub(crate) fn key(access_key: &str) -> ObjectId {
    ObjectId::in_namespace(META, "keys", access_key)
}

pub(crate) fn bucket(name: &str) -> ObjectId {
    ObjectId::in_namespace(META, "buckets", name)
}

/// The object every instance watches for changes of cached metadata.
pub(crate) fn control() -> ObjectId {
    ObjectId::in_namespace(META, "control", "notify")
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

pub(crate) fn index(bucket_id: &str) -> ObjectId {
    ObjectId::new(INDEX, bucket_id)
}

pub(crate) fn head(bucket_id: &str, key: &str) -> ObjectId {
    ObjectId::new(DATA, format!("{bucket_id}/{key}"))
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
        let cases: [(&str, ObjectId, (&str, &str, &str)); 12] = [
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
                "bucket index",
                index("0123456789abcdef"),
                (INDEX, "", "0123456789abcdef"),
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
}
