//! Canned ACLs and who may do what.

use serde::{Deserialize, Serialize};

/// The canned ACLs rsgw supports, on buckets and objects.
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
}

impl CannedAcl {
    /// Parses an `x-amz-acl` value.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "private" => CannedAcl::Private,
            "public-read" => CannedAcl::PublicRead,
            "public-read-write" => CannedAcl::PublicReadWrite,
            "authenticated-read" => CannedAcl::AuthenticatedRead,
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
        }
    }

    /// Whether `who`, not being the owner, may read under this ACL.
    pub fn grants_read(self, who: &Principal) -> bool {
        match self {
            CannedAcl::Private => false,
            CannedAcl::PublicRead | CannedAcl::PublicReadWrite => true,
            CannedAcl::AuthenticatedRead => matches!(who, Principal::User(_)),
        }
    }

    /// Whether `who`, not being the owner, may write under this ACL.
    pub fn grants_write(self, _who: &Principal) -> bool {
        self == CannedAcl::PublicReadWrite
    }
}

/// Who makes a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// No signature.
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
        // (x-amz-acl, acl, a user may read, anyone may read, anyone may write)
        let cases = [
            ("private", Private, false, false, false),
            ("public-read", PublicRead, true, true, false),
            ("public-read-write", PublicReadWrite, true, true, true),
            ("authenticated-read", AuthenticatedRead, true, false, false),
        ];
        for (name, acl, user_reads, anyone_reads, anyone_writes) in cases {
            assert_eq!(CannedAcl::parse(name), Some(acl));
            assert_eq!(acl.as_str(), name);
            assert_eq!(
                serde_json::to_string(&acl).expect("json"),
                format!("\"{name}\"")
            );
            assert_eq!(acl.grants_read(&user), user_reads, "{name}");
            assert_eq!(acl.grants_read(&anon), anyone_reads, "{name}");
            assert_eq!(acl.grants_write(&user), anyone_writes, "{name}");
            assert_eq!(acl.grants_write(&anon), anyone_writes, "{name}");
        }
        for other in [
            "",
            "Private",
            "bucket-owner-full-control",
            "log-delivery-write",
        ] {
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
