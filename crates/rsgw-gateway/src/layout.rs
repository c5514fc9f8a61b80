//! Where everything lives on the store (see docs/layout.md).
//!
//! - pool `meta`: namespace `users` (one object per user id: the user as JSON
//!   data, its buckets as omap keys), `keys` (one object per access key:
//!   owner and secret), `buckets` (one object per bucket name: the bucket's
//!   info as JSON), `uploads` (one object per multipart upload: the future
//!   object's headers as data, its parts as omap; and per bucket
//!   `bucket.<bucket id>` listing its uploads), `gc` (one object whose omap
//!   lists writes to clean up);
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
