//! An object's record: everything stored about it besides its data, in
//! the xattr `rsgw.obj` of its head (docs/layout.md).

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::model::acl::Acl;
use crate::model::bucket::BucketInfo;
use crate::model::crypt::Sse;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::lock::Retention;

/// Everything stored about an object besides its data (xattr `rsgw.obj` of
/// its head).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectMeta {
    /// Data length.
    pub size: u64,
    /// Hex MD5 of the data (the ETag, without quotes).
    pub etag: String,
    /// Last modification, seconds since the epoch.
    pub mtime: f64,
    /// Owning user id: the writer's, or the bucket owner's for an
    /// anonymous writer (as in radosgw); "" where an anonymous writer's
    /// object was stored before rsgw recorded that (see
    /// [`ObjectMeta::owner_in`]).
    pub owner: String,
    /// The object's ACL.
    pub acl: Acl,
    /// Stored headers: content-type, content-encoding, content-disposition,
    /// content-language, cache-control, expires.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` metadata, names without the prefix.
    pub user_meta: BTreeMap<String, String>,
    /// The object's tags (`x-amz-tagging`, PutObjectTagging).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Tag of the write that made this version; the next overwrite is
    /// guarded by it.
    pub tag: String,
    /// Bytes held by the head object.
    pub head_len: u64,
    /// The data after the head, in order: one tail for a plain PUT larger
    /// than a chunk, one per part for a multipart upload.
    pub tails: Vec<Tail>,
    /// Verified whole-object checksums sent with the upload
    /// (`x-amz-checksum-*`), by algorithm name ("crc32", "sha256", ...),
    /// base64 as S3 shows them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checksums: BTreeMap<String, String>,
    /// The multipart upload that made this version ("" for a PUT or a
    /// copy): a retried CompleteMultipartUpload of it answers success for
    /// as long as this version is the key's current one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub upload_id: String,
    /// How the data is encrypted at rest; `None`: in the clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse: Option<Sse>,
    /// The version's id; `None`: the `null` version (every object of a
    /// bucket that was never versioned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_id: Option<String>,
    /// Whether this version is a delete marker (no data: the key reads as
    /// deleted while it is the current version).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delete_marker: bool,
    /// The version's retention (object lock), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention: Option<Retention>,
    /// The version's legal hold (object lock): `Some(true)` holds it;
    /// `None`: never set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_hold: Option<bool>,
}

/// A run of data stored as stripes `<bucket id>.<tag>.<n>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tail {
    /// Names the stripes.
    pub tag: String,
    /// Bytes in this run.
    pub size: u64,
    /// Bytes per stripe (the last may hold fewer).
    pub stripe_size: u64,
}

impl Tail {
    /// Number of stripe objects.
    pub fn stripes(&self) -> u64 {
        self.size.div_ceil(self.stripe_size.max(1))
    }
}

impl ObjectMeta {
    /// The object's owner in `bucket`: its recorded owner, or the bucket's
    /// for an object an anonymous user wrote (recorded as "" by earlier
    /// versions).
    #[inline]
    pub fn owner_in<'a>(&'a self, bucket: &'a BucketInfo) -> &'a str {
        if self.owner.is_empty() {
            &bucket.owner
        } else {
            &self.owner
        }
    }

    /// The version's id as S3 shows it (`null` for the null version).
    pub fn version_name(&self) -> &str {
        self.version_id
            .as_deref()
            .unwrap_or(crate::model::versioning::NULL_VERSION)
    }

    /// The version's rank among the key's versions (newest first).
    pub(crate) fn rank(&self) -> String {
        crate::model::versioning::rank(self.version_id.as_deref(), self.mtime)
    }

    /// Whether this version is `id` (`None`: the null version).
    pub(crate) fn is_version(&self, id: Option<&str>) -> bool {
        self.version_id.as_deref() == id
    }

    /// Last modification as a time.
    pub fn modified(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs_f64(self.mtime.max(0.0))
    }
}

/// The record in a head's xattrs.
pub(crate) fn parse_meta(xattrs: &BTreeMap<String, Bytes>) -> GatewayResult<ObjectMeta> {
    let raw = xattrs
        .get(layout::META_XATTR)
        .ok_or_else(|| GatewayError::Corrupt("head object without metadata".into()))?;
    Ok(serde_json::from_slice(raw)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::acl::CannedAcl;
    use crate::testutil::bucket_record;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn tail_stripe_counts() {
        // (size, stripe size, stripes)
        let cases = [
            (0, 4, 0),
            (1, 4, 1),
            (3, 4, 1),
            (4, 4, 1),
            (5, 4, 2),
            (8, 4, 2),
            (9, 4, 3),
            (4 << 20, 4 << 20, 1),
            ((4 << 20) + 1, 4 << 20, 2),
            // a zero stripe size is read as 1 (no division by zero)
            (5, 0, 5),
        ];
        for (size, stripe_size, want) in cases {
            let t = Tail {
                tag: "t".into(),
                size,
                stripe_size,
            };
            assert_eq!(
                t.stripes(),
                want,
                "{size} bytes in stripes of {stripe_size}"
            );
        }
    }

    #[test]
    fn modified_is_mtime_as_a_time() {
        let m = |mtime| ObjectMeta {
            mtime,
            ..Default::default()
        };
        assert_eq!(m(1000.0).modified(), at(1000));
        assert_eq!(m(1000.5).modified(), at(1000) + Duration::from_millis(500));
        assert_eq!(m(-5.0).modified(), SystemTime::UNIX_EPOCH);
    }

    /// An object stored by an anonymous writer before rsgw recorded the
    /// bucket's owner as its owner (owner "") is the bucket owner's.
    #[test]
    fn an_unrecorded_owner_is_the_bucket_owners() {
        let bucket = BucketInfo {
            acl: CannedAcl::PublicReadWrite.into(),
            ..bucket_record("b", "id", "alice")
        };
        let mut meta = ObjectMeta::default();
        assert_eq!(meta.owner_in(&bucket), "alice");
        meta.owner = "bob".into();
        assert_eq!(meta.owner_in(&bucket), "bob");
    }
}
