//! Quotas as radosgw keeps them: a user's record holds the user's quota
//! and the default quota of their buckets, a bucket's record its own.

use serde::{Deserialize, Serialize};

/// A quota: enforced when enabled, a negative maximum is no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Quota {
    /// Enforced only when enabled.
    pub enabled: bool,
    /// Bytes at most (-1: no limit).
    pub max_size: i64,
    /// Objects at most (-1: no limit).
    pub max_objects: i64,
}

impl Default for Quota {
    fn default() -> Self {
        Quota {
            enabled: false,
            max_size: -1,
            max_objects: -1,
        }
    }
}

impl Quota {
    /// Whether it is the default (not worth storing in a bucket record).
    pub(crate) fn is_default(&self) -> bool {
        *self == Quota::default()
    }
}

/// The quotas a user's record holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OwnerQuotas {
    /// Over all the user's buckets.
    pub(crate) user: Quota,
    /// Each of the user's buckets without an enabled quota of its own.
    pub(crate) bucket: Quota,
}

/// Which quota an admin command sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuotaTarget {
    /// A user's quota over all their buckets.
    User(String),
    /// The quota of each of a user's buckets (without one of its own).
    UserBuckets(String),
    /// One bucket's own quota.
    Bucket(String),
}
