//! Users (`meta/users/<uid>`) and their access keys (`meta/keys/<access
//! key>`).

use serde::{Deserialize, Serialize};

use crate::model::quota::Quota;

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
}
