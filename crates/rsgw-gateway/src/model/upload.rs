//! Multipart uploads' records: the upload (`meta/uploads/<upload id>`:
//! the future object as data, one omap entry per part) and its entry in
//! the bucket's upload index (`meta/uploads/bucket.<bucket id>`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::acl::Acl;
use crate::model::crypt::Sse;
use crate::model::lock::LockRequest;
use crate::model::object::Tail;

/// An upload in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadInfo {
    /// The upload id.
    pub upload_id: String,
    /// Bucket name.
    pub bucket: String,
    /// Bucket marker.
    pub bucket_id: String,
    /// The object key.
    pub key: String,
    /// Who started it ("" for anonymous).
    pub owner: String,
    /// When it started, seconds since the epoch.
    pub initiated: f64,
    /// Stored headers of the future object.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` of the future object.
    pub user_meta: BTreeMap<String, String>,
    /// ACL of the future object.
    pub acl: Acl,
    /// Tags of the future object.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// How the parts are encrypted (each from its own offset 0); `None`:
    /// in the clear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sse: Option<Sse>,
    /// The lock the upload asked for its object (object lock); a
    /// default retention is the bucket's when the upload completes.
    #[serde(default, skip_serializing_if = "LockRequest::is_empty")]
    pub lock: LockRequest,
    /// The checksum algorithm every part carries (lowercase S3 name); the
    /// object gets their composite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum_algorithm: Option<String>,
}

/// One uploaded part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartInfo {
    /// Part number, 1 to 10000.
    pub number: u32,
    /// Hex MD5 of the part.
    pub etag: String,
    /// Bytes.
    pub size: u64,
    /// Upload time, seconds since the epoch.
    pub mtime: f64,
    /// Where its data is.
    pub tail: Tail,
    /// Verified checksums sent with the part.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checksums: BTreeMap<String, String>,
}

/// Between the key and the upload id in an upload index key: U+0001,
/// below the characters keys are made of. A key may hold it too; an
/// upload id never does, so the id is after the last one.
pub(crate) const SEP: char = '\u{1}';

/// The omap key of part `n` in its upload's record: five digits, so
/// that parts list in number order.
pub(crate) fn part_key(n: u32) -> String {
    format!("{n:05}")
}

/// The omap key of an upload in its bucket's upload index: the key, then
/// the upload id, so that uploads list as S3 lists them.
pub(crate) fn upload_index_key(key: &str, upload_id: &str) -> String {
    format!("{key}{SEP}{upload_id}")
}
