//! Get/Put/DeleteBucketLifecycle(Configuration): the
//! `LifecycleConfiguration` document to and from the gateway's rules.
//! What rsgw does not apply (transitions: it has one storage class) is
//! refused with `501 NotImplemented`, never stored and ignored.

use std::collections::BTreeMap;
use std::time::SystemTime;

use rsgw_gateway::{FilterForm, LifecycleRule as GwRule};
use s3s::dto::{
    AbortIncompleteMultipartUpload, BucketLifecycleConfiguration, ExpirationStatus,
    GetBucketLifecycleConfigurationOutput, LifecycleExpiration, LifecycleRule,
    LifecycleRuleAndOperator, LifecycleRuleFilter, NoncurrentVersionExpiration, Tag, Timestamp,
};
use s3s::dto::{
    DeleteBucketLifecycleInput, DeleteBucketLifecycleOutput, GetBucketLifecycleConfigurationInput,
    PutBucketLifecycleConfigurationInput, PutBucketLifecycleConfigurationOutput,
};
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;

pub(super) async fn get_bucket_lifecycle_configuration(
    s3: &RsgwS3,
    req: S3Request<GetBucketLifecycleConfigurationInput>,
) -> S3Result<S3Response<GetBucketLifecycleConfigurationOutput>> {
    let rq = s3.requester(&req).await?;
    let rules = s3
        .gw
        .get_bucket_lifecycle(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(rules_to_s3(rules)))
}

pub(super) async fn put_bucket_lifecycle_configuration(
    s3: &RsgwS3,
    req: S3Request<PutBucketLifecycleConfigurationInput>,
) -> S3Result<S3Response<PutBucketLifecycleConfigurationOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let Some(cfg) = i.lifecycle_configuration else {
        return Err(s3_error!(
            MalformedXML,
            "no LifecycleConfiguration in the body"
        ));
    };
    let rules = rules_from_s3(cfg)?;
    s3.gw
        .put_bucket_lifecycle(&rq, &i.bucket, rules)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(
        PutBucketLifecycleConfigurationOutput::default(),
    ))
}

pub(super) async fn delete_bucket_lifecycle(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketLifecycleInput>,
) -> S3Result<S3Response<DeleteBucketLifecycleOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket_lifecycle(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketLifecycleOutput::default()))
}

fn days(field: &str, v: Option<i32>) -> S3Result<Option<u32>> {
    v.map(|d| {
        u32::try_from(d)
            .map_err(|_| s3_error!(InvalidArgument, "'{field}' must be a positive integer"))
    })
    .transpose()
}

fn tags(set: Vec<Tag>) -> BTreeMap<String, String> {
    set.into_iter()
        .map(|t| (t.key.unwrap_or_default(), t.value.unwrap_or_default()))
        .collect()
}

fn tag_set(tags: &BTreeMap<String, String>) -> Vec<Tag> {
    tags.iter()
        .map(|(k, v)| Tag {
            key: Some(k.clone()),
            value: Some(v.clone()),
        })
        .collect()
}

/// What a rule's filter selects, and how it was written.
struct Filtered {
    form: FilterForm,
    prefix: String,
    tags: BTreeMap<String, String>,
    size_greater_than: Option<u64>,
    size_less_than: Option<u64>,
}

impl Filtered {
    fn prefix(form: FilterForm, prefix: String) -> Self {
        Filtered {
            form,
            prefix,
            tags: BTreeMap::new(),
            size_greater_than: None,
            size_less_than: None,
        }
    }
}

/// An object size bound (bytes): not negative.
fn size(name: &str, v: Option<i64>) -> S3Result<Option<u64>> {
    v.map(|n| {
        u64::try_from(n).map_err(|_| s3_error!(InvalidArgument, "{name} must not be negative"))
    })
    .transpose()
}

/// The rule's filter: a rule `Prefix`, or a `Filter` of one `Prefix`,
/// `Tag`, `ObjectSizeGreaterThan`, `ObjectSizeLessThan` or `And`.
fn filter(r: &mut LifecycleRule) -> S3Result<Filtered> {
    match (r.prefix.take(), r.filter.take()) {
        (Some(_), Some(_)) => Err(s3_error!(
            MalformedXML,
            "a rule gives a Prefix or a Filter, not both"
        )),
        (Some(p), None) => Ok(Filtered::prefix(FilterForm::RulePrefix, p)),
        (None, None) => Ok(Filtered::prefix(FilterForm::Prefix, String::new())),
        (None, Some(f)) => {
            let gt = size("ObjectSizeGreaterThan", f.object_size_greater_than)?;
            let lt = size("ObjectSizeLessThan", f.object_size_less_than)?;
            match (f.prefix, f.tag, f.and, gt, lt) {
                (p, None, None, None, None) => {
                    Ok(Filtered::prefix(FilterForm::Prefix, p.unwrap_or_default()))
                }
                (None, Some(t), None, None, None) => Ok(Filtered {
                    tags: tags(vec![t]),
                    ..Filtered::prefix(FilterForm::Tag, String::new())
                }),
                (None, None, Some(a), None, None) => and(a),
                (None, None, None, gt, lt) if gt.is_some() != lt.is_some() => Ok(Filtered {
                    size_greater_than: gt,
                    size_less_than: lt,
                    ..Filtered::prefix(FilterForm::Size, String::new())
                }),
                _ => Err(s3_error!(
                    MalformedXML,
                    "a Filter holds one of Prefix, Tag, ObjectSizeGreaterThan, ObjectSizeLessThan and And"
                )),
            }
        }
    }
}

fn and(a: LifecycleRuleAndOperator) -> S3Result<Filtered> {
    Ok(Filtered {
        form: FilterForm::And,
        prefix: a.prefix.unwrap_or_default(),
        tags: tags(a.tags.unwrap_or_default()),
        size_greater_than: size("ObjectSizeGreaterThan", a.object_size_greater_than)?,
        size_less_than: size("ObjectSizeLessThan", a.object_size_less_than)?,
    })
}

/// The gateway's rules from S3's document (checked further by the
/// gateway).
fn rules_from_s3(c: BucketLifecycleConfiguration) -> S3Result<Vec<GwRule>> {
    let mut out = Vec::with_capacity(c.rules.len());
    for mut r in c.rules {
        if r.transitions.as_ref().is_some_and(|t| !t.is_empty())
            || r.noncurrent_version_transitions
                .as_ref()
                .is_some_and(|t| !t.is_empty())
        {
            return Err(s3_error!(
                NotImplemented,
                "lifecycle transitions are not supported (rsgw has one storage class)"
            ));
        }
        let (noncurrent_days, newer_noncurrent) = match r.noncurrent_version_expiration.take() {
            Some(n) => (
                days("NoncurrentDays", n.noncurrent_days)?,
                days("NewerNoncurrentVersions", n.newer_noncurrent_versions)?,
            ),
            None => (None, None),
        };
        let enabled = match r.status.as_str() {
            ExpirationStatus::ENABLED => true,
            ExpirationStatus::DISABLED => false,
            other => {
                return Err(s3_error!(
                    MalformedXML,
                    "Status is Enabled or Disabled, not {other:?}"
                ));
            }
        };
        let f = filter(&mut r)?;
        let (mut expiration_days, mut expiration_date) = (None, None);
        let mut expired_object_delete_marker = false;
        if let Some(e) = r.expiration {
            expired_object_delete_marker = e.expired_object_delete_marker == Some(true);
            expiration_days = days("Days", e.days)?;
            expiration_date = e.date.map(|d| {
                let t = SystemTime::from(time::OffsetDateTime::from(d));
                match t.duration_since(SystemTime::UNIX_EPOCH) {
                    Ok(d) => d.as_secs() as i64,
                    Err(e) => -(e.duration().as_secs() as i64),
                }
            });
        }
        let abort_incomplete_days = match r.abort_incomplete_multipart_upload {
            Some(a) => days("DaysAfterInitiation", a.days_after_initiation)?,
            None => None,
        };
        out.push(GwRule {
            id: r.id.unwrap_or_default(),
            enabled,
            form: f.form,
            prefix: f.prefix,
            tags: f.tags,
            size_greater_than: f.size_greater_than,
            size_less_than: f.size_less_than,
            expiration_days,
            expiration_date,
            abort_incomplete_days,
            noncurrent_days,
            newer_noncurrent,
            expired_object_delete_marker,
        });
    }
    Ok(out)
}

fn size_out(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn days_out(d: u32) -> i32 {
    i32::try_from(d).unwrap_or(i32::MAX)
}

/// S3's document of the gateway's rules.
fn rules_to_s3(rules: Vec<GwRule>) -> GetBucketLifecycleConfigurationOutput {
    let rules = rules
        .into_iter()
        .map(|r| {
            let (prefix, filter) = match r.form {
                FilterForm::RulePrefix => (Some(r.prefix.clone()), None),
                FilterForm::Prefix => (
                    None,
                    Some(LifecycleRuleFilter {
                        prefix: Some(r.prefix.clone()),
                        ..Default::default()
                    }),
                ),
                FilterForm::Tag => (
                    None,
                    Some(LifecycleRuleFilter {
                        tag: tag_set(&r.tags).into_iter().next(),
                        ..Default::default()
                    }),
                ),
                FilterForm::And => (
                    None,
                    Some(LifecycleRuleFilter {
                        and: Some(LifecycleRuleAndOperator {
                            prefix: Some(r.prefix.clone()),
                            tags: Some(tag_set(&r.tags)),
                            object_size_greater_than: r.size_greater_than.map(size_out),
                            object_size_less_than: r.size_less_than.map(size_out),
                        }),
                        ..Default::default()
                    }),
                ),
                FilterForm::Size => (
                    None,
                    Some(LifecycleRuleFilter {
                        object_size_greater_than: r.size_greater_than.map(size_out),
                        object_size_less_than: r.size_less_than.map(size_out),
                        ..Default::default()
                    }),
                ),
            };
            let expiration = (r.expiration_days.is_some()
                || r.expiration_date.is_some()
                || r.expired_object_delete_marker)
                .then(|| LifecycleExpiration {
                    days: r.expiration_days.map(days_out),
                    date: r.expiration_date.map(|s| {
                        Timestamp::from(
                            SystemTime::UNIX_EPOCH
                                + std::time::Duration::from_secs(s.max(0).unsigned_abs()),
                        )
                    }),
                    expired_object_delete_marker: r.expired_object_delete_marker.then_some(true),
                });
            LifecycleRule {
                abort_incomplete_multipart_upload: r.abort_incomplete_days.map(|d| {
                    AbortIncompleteMultipartUpload {
                        days_after_initiation: Some(days_out(d)),
                    }
                }),
                expiration,
                filter,
                id: Some(r.id),
                noncurrent_version_expiration: r.noncurrent_days.map(|d| {
                    NoncurrentVersionExpiration {
                        noncurrent_days: Some(days_out(d)),
                        newer_noncurrent_versions: r.newer_noncurrent.map(days_out),
                    }
                }),
                noncurrent_version_transitions: None,
                prefix,
                status: ExpirationStatus::from_static(if r.enabled {
                    ExpirationStatus::ENABLED
                } else {
                    ExpirationStatus::DISABLED
                }),
                transitions: None,
            }
        })
        .collect();
    GetBucketLifecycleConfigurationOutput {
        rules: Some(rules),
        ..Default::default()
    }
}
