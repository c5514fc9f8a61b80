//! Canned ACLs and who may do what.

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

    /// Whether `who`, not being the owner, may read under this ACL, in a
    /// bucket owned by `bucket_owner`.
    pub fn grants_read(self, who: &Principal, bucket_owner: &str) -> bool {
        match self {
            CannedAcl::Private => false,
            CannedAcl::PublicRead | CannedAcl::PublicReadWrite => true,
            CannedAcl::AuthenticatedRead => matches!(who, Principal::User(_)),
            CannedAcl::BucketOwnerRead | CannedAcl::BucketOwnerFullControl => who.is(bucket_owner),
        }
    }

    /// Whether `who`, not being the owner, may read and set the ACL itself
    /// (READ_ACP and WRITE_ACP, which only full control grants here), in a
    /// bucket owned by `bucket_owner`.
    pub fn grants_acp(self, who: &Principal, bucket_owner: &str) -> bool {
        self == CannedAcl::BucketOwnerFullControl && who.is(bucket_owner)
    }

    /// Whether `who`, not being the owner, may write under this bucket ACL.
    pub fn grants_write(self, _who: &Principal) -> bool {
        self == CannedAcl::PublicReadWrite
    }
}

/// Who makes a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Principal {
    /// No signature.
    #[default]
    Anonymous,
    /// An authenticated user, by user id.
    User(String),
}

impl Principal {
    /// Whether this is the user `uid`.
    pub fn is(&self, uid: &str) -> bool {
        matches!(self, Principal::User(u) if u == uid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canned_acls() {
        use CannedAcl::*;
        let anon = Principal::Anonymous;
        let user = Principal::User("bob".into());
        let bucket_owner = Principal::User("carol".into());
        // (x-amz-acl, acl, a user may read, anyone may read, anyone may
        // write, the bucket's owner may read, and read and set the ACL,
        // the ACL on a bucket)
        let cases = [
            (
                "private", Private, false, false, false, false, false, Private,
            ),
            (
                "public-read",
                PublicRead,
                true,
                true,
                false,
                true,
                false,
                PublicRead,
            ),
            (
                "public-read-write",
                PublicReadWrite,
                true,
                true,
                true,
                true,
                false,
                PublicReadWrite,
            ),
            (
                "authenticated-read",
                AuthenticatedRead,
                true,
                false,
                false,
                true,
                false,
                AuthenticatedRead,
            ),
            (
                "bucket-owner-read",
                BucketOwnerRead,
                false,
                false,
                false,
                true,
                false,
                Private,
            ),
            (
                "bucket-owner-full-control",
                BucketOwnerFullControl,
                false,
                false,
                false,
                true,
                true,
                Private,
            ),
        ];
        for (name, acl, user_reads, anyone_reads, anyone_writes, bo_reads, bo_acp, on_bucket) in
            cases
        {
            assert_eq!(CannedAcl::parse(name), Some(acl));
            assert_eq!(acl.as_str(), name);
            assert_eq!(
                serde_json::to_string(&acl).expect("json"),
                format!("\"{name}\"")
            );
            assert_eq!(acl.grants_read(&user, "carol"), user_reads, "{name}");
            assert_eq!(acl.grants_read(&anon, "carol"), anyone_reads, "{name}");
            assert_eq!(acl.grants_write(&user), anyone_writes, "{name}");
            assert_eq!(acl.grants_write(&anon), anyone_writes, "{name}");
            assert_eq!(acl.grants_read(&bucket_owner, "carol"), bo_reads, "{name}");
            assert_eq!(acl.grants_acp(&bucket_owner, "carol"), bo_acp, "{name}");
            for who in [&user, &anon] {
                assert!(!acl.grants_acp(who, "carol"), "{name}: {who:?}");
            }
            assert_eq!(acl.for_bucket(), on_bucket, "{name}");
        }
        // anonymous is nobody's bucket owner
        assert!(!BucketOwnerRead.grants_read(&anon, ""));
        assert!(!BucketOwnerFullControl.grants_acp(&anon, ""));
        for other in ["", "Private", "log-delivery-write", "aws-exec-read"] {
            assert_eq!(CannedAcl::parse(other), None, "{other}");
        }
        assert_eq!(CannedAcl::default(), Private);
    }

    #[test]
    fn principals() {
        assert!(Principal::User("a".into()).is("a"));
        assert!(!Principal::User("a".into()).is("b"));
        assert!(!Principal::User("a".into()).is(""));
        // anonymous objects have owner "": still nobody's
        assert!(!Principal::Anonymous.is(""));
        assert!(!Principal::Anonymous.is("a"));
    }
}
