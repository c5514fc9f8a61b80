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
