//! Users (`meta/users/<uid>`) and their access keys (`meta/keys/<access
//! key>`).

use serde::{Deserialize, Serialize};

use crate::model::caps::Caps;
use crate::model::quota::Quota;

/// How many buckets a user may own unless told otherwise: radosgw's
/// default (`rgw_user_max_buckets`).
pub const DEFAULT_MAX_BUCKETS: i64 = 1000;

fn default_max_buckets() -> i64 {
    DEFAULT_MAX_BUCKETS
}

/// An S3 user, as `rsgw admin user info` prints it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct User {
    /// The user id (`--uid`).
    pub user_id: String,
    /// Display name, shown as the owner's name in listings.
    pub display_name: String,
    /// E-mail address (lowercase), by which ACL grants may name the user;
    /// unique across users.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// The user's S3 keys.
    pub keys: Vec<AccessKey>,
    /// Creation time, seconds since the epoch.
    pub created: f64,
    /// The user's quota over all their buckets.
    #[serde(default)]
    pub user_quota: Quota,
    /// The quota of each of the user's buckets that has none of its own.
    #[serde(default)]
    pub bucket_quota: Quota,
    /// The Admin Ops API parts the user may use (`users=*`...).
    #[serde(default, skip_serializing_if = "Caps::is_empty")]
    pub caps: Caps,
    /// A suspended user's requests are refused (`403 UserSuspended`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub suspended: bool,
    /// How many buckets the user may own, as radosgw reads it: 0, any
    /// number; negative, none may be created (`403 AccessDenied`);
    /// otherwise that many (`400 TooManyBuckets` past it).
    #[serde(default = "default_max_buckets")]
    pub max_buckets: i64,
}

/// The key pair a new user (or a user being changed) gets.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum NewKey {
    /// One generated: 20 upper-case letters and digits, a 40-character
    /// secret.
    #[default]
    Generate,
    /// This access key and secret.
    Given(String, String),
    /// None.
    None,
}

/// A user to create: what radosgw's `user create` (and the Admin Ops
/// API's `PUT /admin/user`) takes.
#[derive(Debug, Clone, Default)]
pub struct NewUser {
    /// The user id.
    pub uid: String,
    /// The display name (required, as radosgw requires it).
    pub display_name: String,
    /// An e-mail address, unique across users.
    pub email: Option<String>,
    /// The user's first key pair.
    pub key: NewKey,
    /// Admin caps, in radosgw's `users=*;buckets=read` form.
    pub caps: Option<String>,
    /// [`User::max_buckets`]; radosgw's default if `None`.
    pub max_buckets: Option<i64>,
    /// Created suspended.
    pub suspended: bool,
}

/// What `user modify` changes; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct UserChange {
    /// A new display name.
    pub display_name: Option<String>,
    /// A new e-mail address (empty: none).
    pub email: Option<String>,
    /// A new bucket limit.
    pub max_buckets: Option<i64>,
    /// Suspend (`true`) or re-enable (`false`) the user.
    pub suspended: Option<bool>,
    /// Caps to add, in radosgw's form.
    pub caps: Option<String>,
    /// A key pair to add (`NewKey::None`: none).
    pub key: NewKey,
}

/// One S3 key pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessKey {
    /// The owning user id.
    pub user: String,
    /// Access key id.
    pub access_key: String,
    /// Secret key.
    pub secret_key: String,
}

/// What an access key object stores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KeyRecord {
    pub(crate) uid: String,
    pub(crate) secret: String,
    /// The user is suspended: kept on each key, so the signature check,
    /// which reads the key (cached), refuses them without a second read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) suspended: bool,
}
