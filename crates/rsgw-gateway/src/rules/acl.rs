//! Who a canned ACL lets do what, besides the owner.

use crate::model::acl::CannedAcl;

impl CannedAcl {
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
