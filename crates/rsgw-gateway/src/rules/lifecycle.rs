//! Bucket lifecycle: the configuration (Put/Get/DeleteBucketLifecycleConfiguration,
//! kept in the bucket's record) and the rules' checks, as S3 and radosgw
//! make them. Rules expire current objects a number of days after their
//! last modification or from a date, filtered by key prefix and tags, and
//! abort multipart uploads left incomplete a number of days after they
//! began. The worker that applies them is the `lc` module.

use std::collections::BTreeMap;

use bytes::Bytes;
use rsgw_store::{StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::authz::{Access, Requester, Target};
use crate::{Gateway, GatewayError, GatewayResult, layout};

/// Rules a configuration may hold (S3's limit).
pub const MAX_LIFECYCLE_RULES: usize = 1000;
/// Longest rule id (S3's limit).
pub const MAX_RULE_ID: usize = 255;

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
    /// `<Filter><And>`: a prefix and tags.
    And,
}

/// One lifecycle rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Expire objects this many days after their last modification.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_days: Option<u32>,
    /// Expire objects from this date (seconds since the epoch, a midnight UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_date: Option<i64>,
    /// Abort multipart uploads this many days after they began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abort_incomplete_days: Option<u32>,
}

impl LifecycleRule {
    /// Whether the rule applies to `key` with `tags`.
    pub(crate) fn matches(&self, key: &str, tags: &BTreeMap<String, String>) -> bool {
        key.starts_with(&self.prefix) && self.tags.iter().all(|(k, v)| tags.get(k) == Some(v))
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
        return Err(invalid(
            "a lifecycle configuration holds at most 1000 rules",
        ));
    }
    let mut ids = std::collections::BTreeSet::new();
    for r in &rules {
        if r.id.len() > MAX_RULE_ID {
            return Err(invalid("ID length should not exceed allowed limit of 255"));
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
    }
    Ok(rules)
}

impl Gateway {
    /// A bucket's lifecycle rules (GetBucketLifecycleConfiguration).
    pub async fn get_bucket_lifecycle(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<Vec<LifecycleRule>> {
        let info = self.bucket_info(bucket).await?;
        self.authorize(rq, Access::GetLifecycle, &Target::bucket(&info))?;
        info.lifecycle
            .ok_or(GatewayError::NoSuchLifecycleConfiguration)
    }

    /// Replaces a bucket's lifecycle rules, checked
    /// (PutBucketLifecycleConfiguration).
    pub async fn put_bucket_lifecycle(
        &self,
        rq: &Requester,
        bucket: &str,
        rules: Vec<LifecycleRule>,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutLifecycle, &Target::bucket(&info))?;
        info.lifecycle = Some(check_lifecycle(rules)?);
        // listed for the worker first: a crash in between leaves a bucket
        // listed without rules (skipped), never rules the worker misses
        self.store
            .write(
                &layout::lc_buckets(),
                WriteOp::new().create().omap_set([(bucket, Bytes::new())]),
            )
            .await?;
        self.save_bucket(&info).await
    }

    /// The buckets listed as having lifecycle rules, in name order.
    pub(crate) async fn lifecycle_buckets(&self) -> GatewayResult<Vec<String>> {
        self.omap_keys(&layout::lc_buckets()).await
    }

    /// Takes a deleted bucket off the worker's list.
    pub(crate) async fn unlist_lifecycle(&self, bucket: &str) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::lc_buckets(), WriteOp::new().omap_rm([bucket]))
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes a bucket's lifecycle rules (DeleteBucketLifecycle; none is
    /// fine).
    pub async fn delete_bucket_lifecycle(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutLifecycle, &Target::bucket(&info))?;
        // the bucket stays on the worker's list (skipped while it has no
        // rules): taking it off here could undo a concurrent Put's listing
        if info.lifecycle.take().is_some() {
            self.save_bucket(&info).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(id: &str) -> LifecycleRule {
        LifecycleRule {
            id: id.into(),
            enabled: true,
            form: FilterForm::Prefix,
            prefix: String::new(),
            tags: BTreeMap::new(),
            expiration_days: Some(1),
            expiration_date: None,
            abort_incomplete_days: None,
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
        assert!(r.matches("logs/x", &tags(&[("a", "1"), ("b", "2"), ("c", "3")])));
        assert!(!r.matches("logs/x", &tags(&[("a", "1")])));
        assert!(!r.matches("logs/x", &tags(&[("a", "1"), ("b", "3")])));
        assert!(!r.matches("other/x", &tags(&[("a", "1"), ("b", "2")])));
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
