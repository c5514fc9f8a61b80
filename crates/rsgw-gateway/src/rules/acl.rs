//! Who an ACL lets do what: a canned ACL's rules, or its grants.

use crate::model::acl::{Acl, CannedAcl, Grant, Grantee, Permission};

impl Acl {
    /// Whether `who` has `perm` under this ACL, on a resource owned by
    /// `owner` in a bucket owned by `bucket_owner`: the owner has every
    /// permission under a canned ACL, and under grants what they give it
    /// besides reading and setting the ACL, which it always may.
    pub fn permits(
        &self,
        who: &Principal,
        perm: Permission,
        owner: &str,
        bucket_owner: &str,
    ) -> bool {
        match self {
            Acl::Canned(c) => {
                who.is(owner)
                    || match perm {
                        Permission::Read => c.grants_read(who, bucket_owner),
                        Permission::Write => c.grants_write(who),
                        Permission::ReadAcp | Permission::WriteAcp => {
                            c.grants_acp(who, bucket_owner)
                        }
                        Permission::FullControl => false,
                    }
            }
            Acl::Grants(grants) => {
                (who.is(owner) && matches!(perm, Permission::ReadAcp | Permission::WriteAcp))
                    || grants.iter().any(|g| g.permits(who, perm))
            }
        }
    }
}

impl Grant {
    /// Whether this grant gives `who` the permission `perm`.
    fn permits(&self, who: &Principal, perm: Permission) -> bool {
        (self.permission == perm || self.permission == Permission::FullControl)
            && match &self.grantee {
                Grantee::User(uid) => who.is(uid),
                Grantee::AllUsers => true,
                Grantee::AuthenticatedUsers => matches!(who, Principal::User(_)),
                // e-mail grantees are stored as the users they name
                Grantee::Email(_) => false,
            }
    }
}

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

    /// Grants give what they name, FULL_CONTROL everything; under grants
    /// the owner keeps only reading and setting the ACL.
    #[test]
    fn grants() {
        use Permission::*;
        let g = |grantee, permission| Grant {
            grantee,
            permission,
        };
        let acl = Acl::Grants(vec![
            g(Grantee::User("bob".into()), Read),
            g(Grantee::User("carol".into()), FullControl),
            g(Grantee::AuthenticatedUsers, WriteAcp),
            g(Grantee::AllUsers, ReadAcp),
        ]);
        let anon = Principal::Anonymous;
        let who = |u: &str| Principal::User(u.into());
        // (who, permission, allowed)
        let cases = [
            (who("bob"), Read, true),
            (who("bob"), Write, false),
            (who("bob"), WriteAcp, true),
            (who("carol"), Write, true),
            (who("carol"), Read, true),
            (who("dave"), WriteAcp, true),
            (who("dave"), Read, false),
            (anon.clone(), ReadAcp, true),
            (anon.clone(), WriteAcp, false),
            (anon, Read, false),
            (who("alice"), Read, false),
            (who("alice"), Write, false),
            (who("alice"), ReadAcp, true),
            (who("alice"), WriteAcp, true),
        ];
        for (p, perm, want) in cases {
            assert_eq!(
                acl.permits(&p, perm, "alice", "alice"),
                want,
                "{p:?} {perm:?}"
            );
        }
        // a canned ACL leaves the owner everything
        let private = Acl::from(CannedAcl::Private);
        for perm in Permission::ALL {
            assert!(private.permits(&who("alice"), perm, "alice", "alice"));
            assert!(!private.permits(&who("bob"), perm, "alice", "alice"));
        }
    }

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
