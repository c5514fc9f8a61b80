//! A bucket's lifecycle rules as its record keeps them
//! (Put/GetBucketLifecycleConfiguration), and the lifecycle worker's state
//! (`meta/lc/state`: the lease and the marker in xattrs, the last pass's
//! report as data).

use std::collections::BTreeMap;

use bytes::Bytes;
use serde::{Deserialize, Serialize};

/// How a rule's filter was written, so that GET answers it back as given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FilterForm {
    /// `<Prefix>` on the rule itself (the older form).
    RulePrefix,
    /// `<Filter><Prefix>` (also an empty `<Filter/>`).
    #[default]
    Prefix,
    /// `<Filter><Tag>`.
    Tag,
    /// `<Filter><And>`: a prefix, tags and size bounds.
    And,
    /// `<Filter><ObjectSizeGreaterThan>` or `<ObjectSizeLessThan>` alone.
    Size,
}

/// One lifecycle rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LifecycleRule {
    /// Its id (unique in the configuration).
    pub id: String,
    /// `Status`: only enabled rules are applied.
    pub enabled: bool,
    /// How the filter was written.
    #[serde(default)]
    pub form: FilterForm,
    /// Keys the rule applies to start with this.
    #[serde(default)]
    pub prefix: String,
    /// ... and carry each of these tags.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// ... and are larger than this many bytes (`ObjectSizeGreaterThan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_greater_than: Option<u64>,
    /// ... and smaller than this many bytes (`ObjectSizeLessThan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_less_than: Option<u64>,
    /// Expire objects this many days after their last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_days: Option<u32>,
    /// Expire objects from this date (seconds since the epoch, a midnight UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<i64>,
    /// Abort multipart uploads this many days after they began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_incomplete_days: Option<u32>,
    /// Delete noncurrent versions this many days after they stopped being
    /// current (`NoncurrentVersionExpiration`'s `NoncurrentDays`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noncurrent_days: Option<u32>,
    /// ... except the newest this many of a key's noncurrent versions
    /// (`NewerNoncurrentVersions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub newer_noncurrent: Option<u32>,
    /// Delete a delete marker that is its key's only version
    /// (`ExpiredObjectDeleteMarker`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub expired_object_delete_marker: bool,
}

/// What a lifecycle pass did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LcReport {
    /// Who ran it.
    pub holder: String,
    /// When it started, seconds since the epoch.
    pub started: f64,
    /// When it ended.
    pub finished: f64,
    /// Whether it went through every bucket (else it lost its lease).
    pub complete: bool,
    /// Where it resumed a pass that died (`bucket/key`), if it did.
    pub resumed_from: Option<String>,
    /// Buckets with enabled rules.
    pub buckets: u64,
    /// Objects looked at.
    pub examined: u64,
    /// Objects expired (deleted).
    pub expired: u64,
    /// Multipart uploads aborted.
    pub uploads_aborted: u64,
    /// Noncurrent versions deleted, delete markers among them.
    #[serde(default)]
    pub noncurrent_expired: u64,
    /// Delete markers deleted that were their keys' only versions.
    #[serde(default)]
    pub markers_expired: u64,
    /// Versions due that a retention or legal hold kept.
    #[serde(default)]
    pub locked: u64,
    /// Deletions or aborts that failed (logged; tried again next pass).
    pub errors: u64,
}

/// What [`crate::Gateway::lifecycle_pass`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum LcPass {
    /// The pass ran.
    Ran(LcReport),
    /// Another holder's pass runs (its lease expires at `expires`).
    Held {
        /// Who holds the lease.
        holder: String,
        /// When it expires, seconds since the epoch.
        expires: f64,
    },
}

/// The worker's state on the store.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LcStatus {
    /// The lease's holder and expiry, if held.
    pub lease: Option<(String, f64)>,
    /// Where an unfinished pass got to (`bucket/key`).
    pub marker: Option<String>,
    /// The last finished pass.
    pub last: Option<LcReport>,
}

/// The value of the lease's xattr: its holder, and when it expires
/// (seconds since the epoch).
pub(crate) fn lease_value(holder: &str, expires: f64) -> Bytes {
    Bytes::from(format!("{holder} {expires:.3}"))
}

/// The value of the marker's xattr: the bucket, then the key after which
/// the pass goes on.
pub(crate) fn marker_value(bucket: &str, key: &str) -> String {
    format!("{bucket}\n{key}")
}

/// The lease's holder and expiry in the value of its xattr.
pub(crate) fn parse_lease(raw: &[u8]) -> Option<(String, f64)> {
    let text = std::str::from_utf8(raw).ok()?;
    let (holder, expires) = text.rsplit_once(' ')?;
    Some((holder.to_string(), expires.parse().ok()?))
}

/// The bucket and key in the value of the marker's xattr.
pub(crate) fn parse_marker(raw: &[u8]) -> Option<(String, String)> {
    let text = std::str::from_utf8(raw).ok()?;
    let (bucket, key) = text.split_once('\n')?;
    Some((bucket.to_string(), key.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_and_markers_parse() {
        assert_eq!(
            parse_lease(b"host a:12 1700000000.500"),
            Some(("host a:12".into(), 1_700_000_000.5))
        );
        assert_eq!(parse_lease(b"nothing"), None);
        assert_eq!(
            parse_marker(b"bucket\nkey/with\nnewline"),
            Some(("bucket".into(), "key/with\nnewline".into()))
        );
        assert_eq!(parse_marker(b"no marker"), None);
    }
}
