//! Rate limits as stored: one record (`meta/ratelimits/all`) holding every
//! scope's default, then users' and buckets' own limits by name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One entity's limits, per second and per instance; 0 is unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limit {
    /// Enforced only when enabled.
    pub enabled: bool,
    /// GET and HEAD requests per second.
    pub max_read_ops: u64,
    /// Requests of other methods per second.
    pub max_write_ops: u64,
    /// Response bytes of reads per second.
    pub max_read_bytes: u64,
    /// Request bytes of writes per second.
    pub max_write_bytes: u64,
}

impl Limit {
    /// Whether it is enforced and limits anything.
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.enabled
            && (self.max_read_ops | self.max_write_ops | self.max_read_bytes | self.max_write_bytes)
                > 0
    }
}

/// Every rate limit of the store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RateLimits {
    /// Users without limits of their own.
    pub global_user: Limit,
    /// Buckets without limits of their own.
    pub global_bucket: Limit,
    /// Requests without a signature.
    pub anonymous: Limit,
    /// Users' own limits, by user id.
    pub users: BTreeMap<String, Limit>,
    /// Buckets' own limits, by bucket name.
    pub buckets: BTreeMap<String, Limit>,
}

impl RateLimits {
    /// The limit of a user (`None`: anonymous).
    #[inline]
    pub(crate) fn of_user(&self, uid: Option<&str>) -> &Limit {
        match uid {
            None => &self.anonymous,
            Some(u) => self.users.get(u).unwrap_or(&self.global_user),
        }
    }

    /// The limit of a bucket, by name.
    #[inline]
    pub(crate) fn of_bucket(&self, name: &str) -> &Limit {
        self.buckets.get(name).unwrap_or(&self.global_bucket)
    }

    /// Whether any limit is enforced at all: the requests of a store without
    /// one skip the limiter.
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.global_user.active()
            || self.global_bucket.active()
            || self.anonymous.active()
            || self.users.values().any(Limit::active)
            || self.buckets.values().any(Limit::active)
    }
}

/// Which limit an admin command sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitTarget {
    /// The default of every user without limits of their own.
    GlobalUser,
    /// The default of every bucket without limits of its own.
    GlobalBucket,
    /// Unsigned requests.
    Anonymous,
    /// One user.
    User(String),
    /// One bucket (by name, whether it exists yet or not).
    Bucket(String),
}
