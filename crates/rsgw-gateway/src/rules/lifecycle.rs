//! Lifecycle rules: the checks S3 and radosgw make of a configuration,
//! and what a rule applies to and when. Rules expire current objects a
//! number of days after their last modification or from a date, filtered
//! by key prefix, tags and size; in a versioned bucket they delete
//! noncurrent versions a number of days after they stopped being current
//! (keeping the newest few) and delete markers left as a key's only
//! version; and they abort multipart uploads left incomplete a number of
//! days after they began. The worker that applies them is `workers::lc`.

use std::collections::BTreeMap;

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::lifecycle::LifecycleRule;
use crate::model::limits::{MAX_LIFECYCLE_RULES, MAX_NEWER_NONCURRENT, MAX_RULE_ID};

impl LifecycleRule {
    /// Whether the rule applies to `key` of `size` bytes with `tags`.
    pub(crate) fn matches(&self, key: &str, size: u64, tags: &BTreeMap<String, String>) -> bool {
        self.matches_untagged(key, size) && self.tags.iter().all(|(k, v)| tags.get(k) == Some(v))
    }

    /// Whether the rule's prefix and size bounds take `key` of `size`
    /// bytes (its tags are the object's record's, read only if this holds).
    pub(crate) fn matches_untagged(&self, key: &str, size: u64) -> bool {
        key.starts_with(&self.prefix)
            && self.size_greater_than.is_none_or(|min| size > min)
            && self.size_less_than.is_none_or(|max| size < max)
    }

    /// Whether an object modified at `mtime` has expired under this rule at
    /// `now`, with days of `day_s` seconds. With real days (86400 s) the
    /// age is counted from the start of today (UTC), as radosgw counts it;
    /// with shorter debug days, from now (radosgw's `rgw_lc_debug_interval`).
    pub(crate) fn expired(&self, mtime: f64, now: f64, day_s: u64) -> bool {
        if let Some(date) = self.expiration_date {
            return now >= date as f64;
        }
        let Some(days) = self.expiration_days else {
            return false;
        };
        age_reached(mtime, now, days, day_s)
    }

    /// Whether a noncurrent version that stopped being current at `since`
    /// (when the next newer version was made), with `newer` noncurrent
    /// versions of its key newer than it, has expired under this rule at
    /// `now`.
    pub(crate) fn noncurrent_expired(&self, since: f64, newer: u32, now: f64, day_s: u64) -> bool {
        let Some(days) = self.noncurrent_days else {
            return false;
        };
        newer >= self.newer_noncurrent.unwrap_or(0) && age_reached(since, now, days, day_s)
    }
}

/// Whether `days` days of `day_s` seconds have passed since `since` at `now`.
pub(crate) fn age_reached(since: f64, now: f64, days: u32, day_s: u64) -> bool {
    let base = if day_s == 86_400 {
        (now / 86_400.0).floor() * 86_400.0
    } else {
        now
    };
    base - since >= f64::from(days) * day_s as f64
}

fn invalid(msg: &str) -> GatewayError {
    GatewayError::InvalidArgument(msg.into())
}

/// Checks a configuration as S3 does; the rules as stored.
pub fn check_lifecycle(rules: Vec<LifecycleRule>) -> GatewayResult<Vec<LifecycleRule>> {
    if rules.is_empty() {
        return Err(GatewayError::MalformedXml(
            "a lifecycle configuration holds at least one rule".into(),
        ));
    }
    if rules.len() > MAX_LIFECYCLE_RULES {
        return Err(invalid(&format!(
            "a lifecycle configuration holds at most {MAX_LIFECYCLE_RULES} rules"
        )));
    }
    let mut ids = std::collections::BTreeSet::new();
    for r in &rules {
        if r.id.len() > MAX_RULE_ID {
            return Err(invalid(&format!(
                "ID length should not exceed allowed limit of {MAX_RULE_ID}"
            )));
        }
        if !ids.insert(r.id.as_str()) {
            return Err(invalid(
                "Rule ID must be unique. Found same ID for more than one rule",
            ));
        }
        if r.expiration_days.is_some() && r.expiration_date.is_some() {
            return Err(GatewayError::MalformedXml(
                "an Expiration gives Days or Date, not both".into(),
            ));
        }
        if r.expiration_days.is_none()
            && r.expiration_date.is_none()
            && r.abort_incomplete_days.is_none()
            && r.noncurrent_days.is_none()
            && !r.expired_object_delete_marker
        {
            return Err(GatewayError::InvalidRequest(
                "At least one action needs to be specified in a rule".into(),
            ));
        }
        if r.expiration_days == Some(0) {
            return Err(invalid(
                "'Days' for Expiration action must be a positive integer",
            ));
        }
        if r.noncurrent_days == Some(0) {
            return Err(invalid(
                "'NoncurrentDays' for NoncurrentVersionExpiration action must be a positive integer",
            ));
        }
        if r.newer_noncurrent.is_some() && r.noncurrent_days.is_none() {
            return Err(invalid(
                "NewerNoncurrentVersions needs NoncurrentDays in a NoncurrentVersionExpiration",
            ));
        }
        if r.newer_noncurrent
            .is_some_and(|n| !(1..=MAX_NEWER_NONCURRENT).contains(&n))
        {
            return Err(invalid(&format!(
                "'NewerNoncurrentVersions' must be from 1 to {MAX_NEWER_NONCURRENT}"
            )));
        }
        if r.expired_object_delete_marker
            && (r.expiration_days.is_some() || r.expiration_date.is_some())
        {
            return Err(GatewayError::MalformedXml(
                "ExpiredObjectDeleteMarker cannot be specified with Days or Date in a Lifecycle Expiration Policy"
                    .into(),
            ));
        }
        if r.abort_incomplete_days == Some(0) {
            return Err(invalid(
                "'DaysAfterInitiation' for AbortIncompleteMultipartUpload action must be a positive integer",
            ));
        }
        if r.expiration_date.is_some_and(|d| d.rem_euclid(86_400) != 0) {
            return Err(invalid("'Date' must be at midnight GMT"));
        }
        if r.abort_incomplete_days.is_some() && !r.tags.is_empty() {
            return Err(GatewayError::InvalidRequest(
                "AbortIncompleteMultipartUpload cannot be specified with Tags.".into(),
            ));
        }
        let sized = r.size_greater_than.is_some() || r.size_less_than.is_some();
        if r.abort_incomplete_days.is_some() && sized {
            return Err(GatewayError::InvalidRequest(
                "AbortIncompleteMultipartUpload cannot be specified with an object size filter."
                    .into(),
            ));
        }
        if let (Some(min), Some(max)) = (r.size_greater_than, r.size_less_than)
            && min >= max
        {
            return Err(invalid(
                "ObjectSizeGreaterThan must be less than ObjectSizeLessThan",
            ));
        }
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str) -> LifecycleRule {
        LifecycleRule {
            id: id.into(),
            enabled: true,
            expiration_days: Some(1),
            ..LifecycleRule::default()
        }
    }

    #[test]
    fn configurations_are_checked_as_s3_checks_them() {
        assert!(check_lifecycle(vec![rule("a"), rule("b")]).is_ok());
        let with = |f: &dyn Fn(&mut LifecycleRule)| {
            let mut r = rule("a");
            f(&mut r);
            check_lifecycle(vec![r])
        };
        assert!(matches!(
            check_lifecycle(vec![]),
            Err(GatewayError::MalformedXml(_))
        ));
        assert!(matches!(
            check_lifecycle(vec![rule("a"), rule("a")]),
            Err(GatewayError::InvalidArgument(_))
        ));
        let many: Vec<_> = (0..1001).map(|i| rule(&i.to_string())).collect();
        assert!(check_lifecycle(many).is_err());
        assert!(with(&|r| r.id = "x".repeat(255)).is_ok());
        assert!(with(&|r| r.id = "x".repeat(256)).is_err());
        assert!(matches!(
            with(&|r| r.expiration_days = Some(0)),
            Err(GatewayError::InvalidArgument(_))
        ));
        assert!(matches!(
            with(&|r| r.expiration_date = Some(86_400)),
            Err(GatewayError::MalformedXml(_))
        ));
        assert!(
            with(&|r| {
                r.expiration_days = None;
                r.expiration_date = Some(86_400 * 20_000);
            })
            .is_ok()
        );
        assert!(matches!(
            with(&|r| {
                r.expiration_days = None;
                r.expiration_date = Some(86_400 * 20_000 + 3600);
            }),
            Err(GatewayError::InvalidArgument(_))
        ));
        assert!(matches!(
            with(&|r| r.expiration_days = None),
            Err(GatewayError::InvalidRequest(_))
        ));
        // versions' actions: each is an action of its own
        let versions_only = |f: &dyn Fn(&mut LifecycleRule)| {
            with(&|r| {
                r.expiration_days = None;
                f(r);
            })
        };
        assert!(versions_only(&|r| r.noncurrent_days = Some(3)).is_ok());
        assert!(versions_only(&|r| r.expired_object_delete_marker = true).is_ok());
        assert!(
            versions_only(&|r| {
                r.noncurrent_days = Some(3);
                r.newer_noncurrent = Some(100);
            })
            .is_ok()
        );
        for bad in [
            &(|r: &mut LifecycleRule| r.noncurrent_days = Some(0)) as &dyn Fn(&mut LifecycleRule),
            &|r| {
                r.expiration_days = Some(1);
                r.newer_noncurrent = Some(2);
            },
            &|r| {
                r.noncurrent_days = Some(3);
                r.newer_noncurrent = Some(101);
            },
        ] {
            assert!(matches!(
                versions_only(bad),
                Err(GatewayError::InvalidArgument(_))
            ));
        }
        // ExpiredObjectDeleteMarker goes in an Expiration without Days
        assert!(matches!(
            with(&|r| r.expired_object_delete_marker = true),
            Err(GatewayError::MalformedXml(_))
        ));
        assert!(
            with(&|r| {
                r.expiration_days = None;
                r.abort_incomplete_days = Some(2);
            })
            .is_ok()
        );
        assert!(matches!(
            with(&|r| {
                r.abort_incomplete_days = Some(2);
                r.tags.insert("k".into(), "v".into());
            }),
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            with(&|r| {
                r.abort_incomplete_days = Some(2);
                r.size_less_than = Some(10);
            }),
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(with(&|r| r.size_greater_than = Some(0)).is_ok());
        assert!(
            with(&|r| {
                r.size_greater_than = Some(9);
                r.size_less_than = Some(10);
            })
            .is_ok()
        );
        for (min, max) in [(10, 10), (11, 10)] {
            assert!(matches!(
                with(&|r| {
                    r.size_greater_than = Some(min);
                    r.size_less_than = Some(max);
                }),
                Err(GatewayError::InvalidArgument(_))
            ));
        }
    }

    #[test]
    fn rules_match_prefix_and_every_tag() {
        let mut r = rule("a");
        r.prefix = "logs/".into();
        r.tags.insert("a".into(), "1".into());
        r.tags.insert("b".into(), "2".into());
        let tags = |t: &[(&str, &str)]| -> BTreeMap<String, String> {
            t.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
        };
        assert!(r.matches("logs/x", 5, &tags(&[("a", "1"), ("b", "2"), ("c", "3")])));
        assert!(!r.matches("logs/x", 5, &tags(&[("a", "1")])));
        assert!(!r.matches("logs/x", 5, &tags(&[("a", "1"), ("b", "3")])));
        assert!(!r.matches("other/x", 5, &tags(&[("a", "1"), ("b", "2")])));
        // size bounds are exclusive, as S3's
        r.tags.clear();
        r.size_greater_than = Some(10);
        r.size_less_than = Some(20);
        for (size, yes) in [(10, false), (11, true), (19, true), (20, false), (0, false)] {
            assert_eq!(r.matches("logs/x", size, &tags(&[])), yes, "{size}");
        }
    }

    #[test]
    fn noncurrent_versions_expire_after_their_successor_and_past_the_newest_kept() {
        let r = LifecycleRule {
            noncurrent_days: Some(2),
            newer_noncurrent: Some(1),
            ..rule("a")
        };
        // debug days of 10 s: due 20 s after the next version was made
        assert!(!r.noncurrent_expired(100.0, 1, 119.0, 10));
        assert!(r.noncurrent_expired(100.0, 1, 120.0, 10));
        // the newest noncurrent version is kept
        assert!(!r.noncurrent_expired(100.0, 0, 500.0, 10));
        // a rule without NoncurrentVersionExpiration expires none
        assert!(!rule("a").noncurrent_expired(0.0, 5, 1e9, 10));
    }

    #[test]
    fn expiry_counts_days_as_radosgw_does() {
        let day = 86_400.0;
        let mut r = rule("a");
        r.expiration_days = Some(2);
        // real days: from the start of today; modified at noon of day 10
        let mtime = 10.0 * day + day / 2.0;
        assert!(!r.expired(mtime, 12.0 * day + day / 4.0, 86_400));
        assert!(r.expired(mtime, 13.0 * day, 86_400));
        // debug days of 5 s: from now
        assert!(!r.expired(1000.0, 1009.0, 5));
        assert!(r.expired(1000.0, 1010.0, 5));
        r.expiration_days = None;
        r.expiration_date = Some(20 * 86_400);
        assert!(!r.expired(0.0, 20.0 * day - 1.0, 86_400));
        assert!(r.expired(0.0, 20.0 * day, 86_400));
    }
}
