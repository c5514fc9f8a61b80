//! ACLs as buckets and objects keep them: a canned ACL, or the grants an
//! ACL document or `x-amz-grant-*` headers gave.

use serde::{Deserialize, Serialize};

/// A bucket's or an object's ACL: a canned ACL (its owner has full
/// control), or the grants an ACL document or `x-amz-grant-*` headers gave
/// (its owner has what they grant it, and may always read and set the ACL,
/// as in AWS and radosgw). Encoded as the canned ACL's name (as records
/// were before grants existed) or as the list of grants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Acl {
    /// A canned ACL.
    Canned(CannedAcl),
    /// Grants, in the order given; a user's by user id.
    Grants(Vec<Grant>),
}

impl Default for Acl {
    fn default() -> Self {
        Acl::Canned(CannedAcl::Private)
    }
}

impl From<CannedAcl> for Acl {
    fn from(canned: CannedAcl) -> Self {
        Acl::Canned(canned)
    }
}

impl Acl {
    /// The ACL as a bucket keeps it (see [`CannedAcl::for_bucket`]).
    pub fn for_bucket(self) -> Self {
        match self {
            Acl::Canned(c) => Acl::Canned(c.for_bucket()),
            grants => grants,
        }
    }
}

/// One grant of an ACL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
    /// To whom.
    pub grantee: Grantee,
    /// What.
    pub permission: Permission,
}

/// Whom a grant names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Grantee {
    /// A user, by user id (S3's canonical id).
    User(String),
    /// A user by e-mail address, as a request names one; the gateway
    /// stores it as [`Grantee::User`].
    Email(String),
    /// Everyone, signed or not (`.../groups/global/AllUsers`).
    AllUsers,
    /// Every signed request (`.../groups/global/AuthenticatedUsers`).
    AuthenticatedUsers,
}

/// What a grant allows (S3's ACL permissions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    /// Read the object, or list the bucket.
    Read,
    /// Write and delete objects in the bucket.
    Write,
    /// Read the ACL.
    ReadAcp,
    /// Set the ACL.
    WriteAcp,
    /// All of them.
    FullControl,
}

impl Permission {
    /// Every permission, in S3's order.
    pub const ALL: [Permission; 5] = [
        Permission::FullControl,
        Permission::Write,
        Permission::WriteAcp,
        Permission::Read,
        Permission::ReadAcp,
    ];

    /// S3's spelling (`READ`, `FULL_CONTROL`...).
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Read => "READ",
            Permission::Write => "WRITE",
            Permission::ReadAcp => "READ_ACP",
            Permission::WriteAcp => "WRITE_ACP",
            Permission::FullControl => "FULL_CONTROL",
        }
    }

    /// Parses S3's spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Permission::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A canned ACL encodes as before grants existed; grants as a list.
    #[test]
    fn encoding() {
        let canned = Acl::from(CannedAcl::PublicRead);
        assert_eq!(
            serde_json::to_string(&canned).expect("encode"),
            r#""public-read""#
        );
        let granted = Acl::Grants(vec![Grant {
            grantee: Grantee::User("bob".into()),
            permission: Permission::ReadAcp,
        }]);
        let text = serde_json::to_string(&granted).expect("encode");
        assert_eq!(
            text,
            r#"[{"grantee":{"user":"bob"},"permission":"read-acp"}]"#
        );
        for (text, acl) in [(r#""public-read""#, canned), (text.as_str(), granted)] {
            assert_eq!(serde_json::from_str::<Acl>(text).expect("decode"), acl);
        }
    }
}
