//! Canned ACLs as buckets and objects keep them.

use serde::{Deserialize, Serialize};

/// The canned ACLs rsgw supports, on buckets and objects. The owner always
/// has full control.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CannedAcl {
    /// Only the owner.
    #[default]
    Private,
    /// Anyone may read.
    PublicRead,
    /// Anyone may read and write.
    PublicReadWrite,
    /// Any authenticated user may read.
    AuthenticatedRead,
    /// Objects: the bucket's owner may read too.
    BucketOwnerRead,
    /// Objects: the bucket's owner has full control too (reads the object,
    /// reads and sets its ACL).
    BucketOwnerFullControl,
}

impl CannedAcl {
    /// Parses an `x-amz-acl` value.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "private" => CannedAcl::Private,
            "public-read" => CannedAcl::PublicRead,
            "public-read-write" => CannedAcl::PublicReadWrite,
            "authenticated-read" => CannedAcl::AuthenticatedRead,
            "bucket-owner-read" => CannedAcl::BucketOwnerRead,
            "bucket-owner-full-control" => CannedAcl::BucketOwnerFullControl,
            _ => return None,
        })
    }

    /// The `x-amz-acl` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            CannedAcl::Private => "private",
            CannedAcl::PublicRead => "public-read",
            CannedAcl::PublicReadWrite => "public-read-write",
            CannedAcl::AuthenticatedRead => "authenticated-read",
            CannedAcl::BucketOwnerRead => "bucket-owner-read",
            CannedAcl::BucketOwnerFullControl => "bucket-owner-full-control",
        }
    }

    /// The ACL as a bucket keeps it: the bucket-owner ACLs grant the
    /// bucket's owner what it has anyway, so on a bucket they are
    /// `Private` (AWS ignores them there; radosgw's PutBucketAcl shows the
    /// owner's grant alone).
    pub fn for_bucket(self) -> Self {
        match self {
            CannedAcl::BucketOwnerRead | CannedAcl::BucketOwnerFullControl => CannedAcl::Private,
            acl => acl,
        }
    }
}
