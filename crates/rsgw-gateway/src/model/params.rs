//! What the operations take and answer: request parameters and results
//! (nothing here is stored).

use std::collections::BTreeMap;
use std::pin::Pin;
use std::time::SystemTime;

use bytes::Bytes;
use futures::Stream;

use crate::model::acl::Acl;
use crate::model::crypt::{CustomerKey, SseRequest};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::lock::LockRequest;
use crate::model::object::ObjectMeta;
use crate::model::upload::UploadInfo;

/// A stream of body bytes, in or out.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, GatewayError>> + Send>>;

/// Runs once the whole body has been read and before anything becomes
/// visible: checks the protocol's own digests of the body (checksum headers
/// and trailers) and returns those to store with the object.
pub type BodyCheck = Box<dyn FnOnce() -> GatewayResult<BTreeMap<String, String>> + Send + Sync>;

/// How to store an object.
#[derive(Default)]
pub struct PutParams {
    /// Stored headers (lowercase names).
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` metadata.
    pub user_meta: BTreeMap<String, String>,
    /// Tags to store (checked: `check_tags`).
    pub tags: BTreeMap<String, String>,
    /// The object's ACL.
    pub acl: Acl,
    /// Content-MD5, decoded.
    pub content_md5: Option<Vec<u8>>,
    /// Declared length, if any.
    pub content_length: Option<u64>,
    /// If-Match: write only over this ETag ("*" any existing object).
    pub if_match: Option<String>,
    /// If-None-Match: *: write only if the object does not exist.
    pub if_none_match_any: bool,
    /// Extra verification of the body before the commit.
    pub check: Option<BodyCheck>,
    /// The encryption asked for (none: the bucket's default, if any).
    pub sse: Option<SseRequest>,
    /// The object lock asked for (none: the bucket's default retention,
    /// if any).
    pub lock: LockRequest,
    /// CreateMultipartUpload's `x-amz-checksum-algorithm`, lowercase: every
    /// part carries a checksum of it and the object their composite.
    pub checksum_algorithm: Option<String>,
}

/// What a PUT produced.
#[derive(Debug, Clone)]
pub struct PutResult {
    /// The new version's metadata.
    pub meta: ObjectMeta,
}

/// A byte range as S3 requests it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeSpec {
    /// `bytes=first-` or `bytes=first-last`.
    Int {
        /// First byte.
        first: u64,
        /// Last byte, inclusive.
        last: Option<u64>,
    },
    /// `bytes=-length`: the last `length` bytes.
    Suffix {
        /// How many bytes.
        length: u64,
    },
    /// `partNumber`: the bytes one part of a multipart upload made; part 1
    /// of any other object is all of it.
    Part(u32),
}

/// How to read an object.
#[derive(Debug, Clone, Default)]
pub struct GetParams {
    /// Only this range.
    pub range: Option<RangeSpec>,
    /// If-Match ETags ("*" matches any).
    pub if_match: Option<Vec<String>>,
    /// If-None-Match ETags ("*" matches any).
    pub if_none_match: Option<Vec<String>>,
    /// If-Modified-Since.
    pub if_modified_since: Option<SystemTime>,
    /// If-Unmodified-Since.
    pub if_unmodified_since: Option<SystemTime>,
    /// HEAD: metadata only.
    pub head_only: bool,
    /// The customer key of an SSE-C object (a copy's source's, for the
    /// source).
    pub sse_key: Option<CustomerKey>,
    /// This version (`versionId`; `null` too) instead of the current one.
    pub version_id: Option<String>,
}

/// What a GET or HEAD found.
pub struct GetResult {
    /// The object's metadata.
    pub meta: ObjectMeta,
    /// The byte range served, `start..end`, if a range or a part of a
    /// multipart object was asked for.
    pub range: Option<(u64, u64)>,
    /// How many parts made the object, if a part was asked for and a
    /// multipart upload made it (`x-amz-mp-parts-count`).
    pub parts_count: Option<u32>,
    /// The data (None for HEAD).
    pub body: Option<BodyStream>,
    /// The version read, in a bucket whose versioning was ever set
    /// (`x-amz-version-id`; `null` too).
    pub version_id: Option<String>,
}

/// What a DeleteObject did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deleted {
    /// The version deleted, or the delete marker made
    /// (`x-amz-version-id`), in a bucket whose versioning was ever set.
    pub version_id: Option<String>,
    /// Whether that version is a delete marker (`x-amz-delete-marker`).
    pub delete_marker: bool,
}

/// An object's ACL as GetObjectAcl shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectAcl {
    /// The object's owner (user id).
    pub owner: String,
    /// Its ACL.
    pub acl: Acl,
    /// The bucket's owner, whom the bucket-owner ACLs name.
    pub bucket_owner: String,
}

/// How CopyObject treats the destination's metadata.
#[derive(Debug, Clone)]
pub enum CopyMetadata {
    /// Keep the source's headers and `x-amz-meta-*` (COPY).
    Copy,
    /// Use these instead (REPLACE).
    Replace {
        /// Stored headers.
        headers: BTreeMap<String, String>,
        /// `x-amz-meta-*`.
        user_meta: BTreeMap<String, String>,
    },
}

/// What CompleteMultipartUpload may ask of the object it makes.
#[derive(Debug, Clone, Default)]
pub struct CompleteChecks {
    /// `If-Match`: complete only over this ETag (`*`: over any object).
    pub if_match: Option<String>,
    /// `If-None-Match: *`: complete only where the key holds no object.
    pub if_none_match_any: bool,
    /// `x-amz-mp-object-size`: the size the parts must make.
    pub object_size: Option<u64>,
    /// The SSE-C key sent (not required): checked against the upload's.
    pub sse_key: Option<CustomerKey>,
}

/// Which of a user's buckets ListBuckets lists.
#[derive(Debug, Clone, Default)]
pub struct BucketsPage {
    /// Only names starting with this.
    pub prefix: String,
    /// Only names after this one (the continuation token's).
    pub after: String,
    /// At most this many; none: every one.
    pub max: Option<usize>,
}

/// One page of a user's buckets.
#[derive(Debug, Clone, Default)]
pub struct BucketsListed {
    /// The buckets, in name order.
    pub buckets: Vec<crate::model::bucket::BucketInfo>,
    /// Where a next page starts (its last name): `Some` when names were
    /// left out.
    pub next_after: Option<String>,
}

/// HeadBucket's answer.
#[derive(Debug, Clone)]
pub struct BucketHead {
    /// The bucket.
    pub info: crate::model::bucket::BucketInfo,
    /// Its objects and their bytes (radosgw's `X-RGW-Object-Count`,
    /// `X-RGW-Bytes-Used`).
    pub usage: crate::model::index::Usage,
    /// For its owner: the owner's quota over all their buckets and the
    /// quota of each of their buckets (radosgw's `X-RGW-Quota-*`).
    pub quotas: Option<(crate::model::quota::Quota, crate::model::quota::Quota)>,
}

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct ListParams {
    /// Only keys starting with this.
    pub prefix: String,
    /// Roll keys up to common prefixes at the first delimiter after the prefix.
    pub delimiter: Option<String>,
    /// Only keys (and prefixes) after this one (marker / start-after / token).
    pub start_after: String,
    /// At most this many keys plus common prefixes (S3 caps it at 1000).
    pub max_keys: usize,
}

/// One listed object.
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntry {
    /// The key.
    pub key: String,
    /// Data length.
    pub size: u64,
    /// Hex MD5 ETag.
    pub etag: String,
    /// Last modification, seconds since the epoch.
    pub mtime: f64,
    /// Owning user id.
    pub owner: String,
}

/// A page of a listing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListResult {
    /// Objects, in key order.
    pub entries: Vec<ListEntry>,
    /// Common prefixes, in order.
    pub common_prefixes: Vec<String>,
    /// Whether more keys follow.
    pub is_truncated: bool,
    /// The last key or prefix returned (where the next page starts after).
    pub next_marker: Option<String>,
}

/// What ListObjectVersions lists.
#[derive(Debug, Clone, Default)]
pub struct VersionListParams {
    /// Only keys starting with this.
    pub prefix: String,
    /// Roll keys up to common prefixes at the first delimiter after the prefix.
    pub delimiter: Option<String>,
    /// Only versions of keys after this one (`key-marker`), or of this one
    /// after `version_marker`.
    pub key_marker: String,
    /// `version-id-marker`: with a key marker, the versions of that key
    /// after this one.
    pub version_marker: Option<String>,
    /// At most this many versions, delete markers and common prefixes.
    pub max_keys: usize,
}

/// One version listed.
#[derive(Debug, Clone, PartialEq)]
pub struct VersionEntry {
    /// The key.
    pub key: String,
    /// Its version id (`None`: `null`).
    pub version_id: Option<String>,
    /// Whether it is the key's current version.
    pub latest: bool,
    /// Whether it is a delete marker.
    pub delete_marker: bool,
    /// Data length.
    pub size: u64,
    /// Hex MD5 ETag.
    pub etag: String,
    /// Last modification, seconds since the epoch.
    pub mtime: f64,
    /// Owning user id.
    pub owner: String,
}

/// What a bucket's versions add up to ([`crate::Gateway::count_versions`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct VersionCounts {
    /// Versions that hold data (current or not).
    pub versions: u64,
    /// Of them, keys' current versions.
    pub current: u64,
    /// Delete markers.
    pub delete_markers: u64,
}

/// A page of ListObjectVersions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VersionList {
    /// Versions and delete markers, by key and newest first.
    pub versions: Vec<VersionEntry>,
    /// Common prefixes, in order.
    pub common_prefixes: Vec<String>,
    /// Whether more follow.
    pub is_truncated: bool,
    /// Where the next page starts: the key marker and version-id marker
    /// (none after a common prefix), when truncated.
    pub next: Option<(String, Option<String>)>,
}

/// A page of ListMultipartUploads.
#[derive(Debug, Clone, Default)]
pub struct UploadList {
    /// Uploads in (key, upload id) order.
    pub uploads: Vec<UploadInfo>,
    /// The common prefixes their keys were rolled up into (with a
    /// delimiter), in order.
    pub common_prefixes: Vec<String>,
    /// The key and upload id markers of the page's last entry (a common
    /// prefix's has no upload id).
    pub next_marker: Option<(String, String)>,
    /// Whether more follow.
    pub is_truncated: bool,
}
