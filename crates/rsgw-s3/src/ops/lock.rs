//! Object lock: Get/PutObjectLockConfiguration, Get/PutObjectRetention,
//! Get/PutObjectLegalHold, and the `x-amz-object-lock-*` headers of the
//! writes that make an object (PutObject, CopyObject,
//! CreateMultipartUpload) and of the reads that answer with its lock.
//! Documents are checked as radosgw checks them: a bad mode, date or
//! status is `MalformedXML`, a default retention names days or years,
//! more than none (`InvalidRetentionPeriod`).

use rsgw_gateway::{
    DefaultRetention, GatewayError, LockMode, LockRequest, ObjectMeta, Period, Retention,
};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::dto::ts;
use crate::error::to_s3;

pub(super) async fn get_object_lock_configuration(
    s3: &RsgwS3,
    req: S3Request<GetObjectLockConfigurationInput>,
) -> S3Result<S3Response<GetObjectLockConfigurationOutput>> {
    let rq = s3.requester(&req).await?;
    let lock = s3
        .gw
        .get_object_lock(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    let rule = lock.default.map(|d| {
        let (days, years) = match d.period {
            Period::Days(n) => (Some(n as i32), None),
            Period::Years(n) => (None, Some(n as i32)),
        };
        ObjectLockRule {
            default_retention: Some(s3s::dto::DefaultRetention {
                days,
                years,
                mode: Some(ObjectLockRetentionMode::from(d.mode.as_str().to_string())),
            }),
        }
    });
    Ok(S3Response::new(GetObjectLockConfigurationOutput {
        object_lock_configuration: Some(ObjectLockConfiguration {
            object_lock_enabled: Some(ObjectLockEnabled::from_static(ObjectLockEnabled::ENABLED)),
            rule,
        }),
    }))
}

pub(super) async fn put_object_lock_configuration(
    s3: &RsgwS3,
    req: S3Request<PutObjectLockConfigurationInput>,
) -> S3Result<S3Response<PutObjectLockConfigurationOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    s3.gw
        .put_object_lock(
            &rq,
            &i.bucket,
            lock_configuration(i.object_lock_configuration),
        )
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutObjectLockConfigurationOutput::default()))
}

/// An `ObjectLockConfiguration` document's default retention (`None`: no
/// rule); the error, raised once the request is known to be allowed,
/// says what is wrong with it.
fn lock_configuration(
    c: Option<ObjectLockConfiguration>,
) -> Result<Option<DefaultRetention>, GatewayError> {
    let malformed = |m: &str| GatewayError::MalformedXml(m.into());
    let c = c.ok_or_else(|| malformed("an ObjectLockConfiguration is required"))?;
    if c.object_lock_enabled
        .as_ref()
        .map(ObjectLockEnabled::as_str)
        != Some("Enabled")
    {
        return Err(malformed("invalid ObjectLockEnabled value"));
    }
    let Some(rule) = c.rule else {
        return Ok(None);
    };
    let d = rule
        .default_retention
        .ok_or_else(|| malformed("a Rule needs a DefaultRetention"))?;
    let mode = d
        .mode
        .as_ref()
        .and_then(|m| LockMode::parse(m.as_str()))
        .ok_or_else(|| malformed("bad Mode in lock rule"))?;
    let period = match (d.days, d.years) {
        (Some(n), None) => Period::Days(positive(n)?),
        (None, Some(n)) => Period::Years(positive(n)?),
        _ => {
            return Err(malformed(
                "either Days or Years must be specified, but not both",
            ));
        }
    };
    Ok(Some(DefaultRetention { mode, period }))
}

/// A default retention's days or years: more than none.
fn positive(n: i32) -> Result<u32, GatewayError> {
    u32::try_from(n).ok().filter(|n| *n > 0).ok_or_else(|| {
        GatewayError::InvalidRetentionPeriod(
            "retention period must be a positive integer value".into(),
        )
    })
}

pub(super) async fn get_object_retention(
    s3: &RsgwS3,
    req: S3Request<GetObjectRetentionInput>,
) -> S3Result<S3Response<GetObjectRetentionOutput>> {
    let rq = s3.requester(&req).await?;
    let i = &req.input;
    let r = s3
        .gw
        .get_object_retention(&rq, &i.bucket, &i.key, i.version_id.as_deref())
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetObjectRetentionOutput {
        retention: Some(ObjectLockRetention {
            mode: Some(ObjectLockRetentionMode::from(r.mode.as_str().to_string())),
            retain_until_date: Some(ts(r.until)),
        }),
    }))
}

pub(super) async fn put_object_retention(
    s3: &RsgwS3,
    req: S3Request<PutObjectRetentionInput>,
) -> S3Result<S3Response<PutObjectRetentionOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let r = i.retention.unwrap_or_default();
    let mode = r
        .mode
        .as_ref()
        .and_then(|m| LockMode::parse(m.as_str()))
        .ok_or_else(|| s3_error!(MalformedXML, "bad Mode in retention"))?;
    let until = r
        .retain_until_date
        .ok_or_else(|| s3_error!(MalformedXML, "invalid RetainUntilDate value"))?;
    s3.gw
        .put_object_retention(
            &rq,
            (&i.bucket, &i.key, i.version_id.as_deref()),
            Retention {
                mode,
                until: secs(until),
            },
            i.bypass_governance_retention.unwrap_or(false),
        )
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutObjectRetentionOutput::default()))
}

pub(super) async fn get_object_legal_hold(
    s3: &RsgwS3,
    req: S3Request<GetObjectLegalHoldInput>,
) -> S3Result<S3Response<GetObjectLegalHoldOutput>> {
    let rq = s3.requester(&req).await?;
    let i = &req.input;
    let on = s3
        .gw
        .get_object_legal_hold(&rq, &i.bucket, &i.key, i.version_id.as_deref())
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetObjectLegalHoldOutput {
        legal_hold: Some(ObjectLockLegalHold {
            status: Some(hold_status(on)),
        }),
    }))
}

pub(super) async fn put_object_legal_hold(
    s3: &RsgwS3,
    req: S3Request<PutObjectLegalHoldInput>,
) -> S3Result<S3Response<PutObjectLegalHoldOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let on = i
        .legal_hold
        .and_then(|h| h.status)
        .and_then(|s| parse_hold(s.as_str()))
        .ok_or_else(|| s3_error!(MalformedXML, "bad status in legal hold"))?;
    s3.gw
        .put_object_legal_hold(&rq, (&i.bucket, &i.key, i.version_id.as_deref()), on)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutObjectLegalHoldOutput::default()))
}

/// What a write's `x-amz-object-lock-*` headers ask of the new object's
/// lock: the mode and the retain-until date go together.
pub(super) fn lock_request(
    mode: Option<&ObjectLockMode>,
    until: Option<&Timestamp>,
    hold: Option<&ObjectLockLegalHoldStatus>,
) -> S3Result<LockRequest> {
    let retention = match (mode, until) {
        (None, None) => None,
        (Some(m), Some(u)) => Some(Retention {
            mode: LockMode::parse(m.as_str()).ok_or_else(|| {
                s3_error!(InvalidArgument, "invalid x-amz-object-lock-mode value")
            })?,
            until: secs(u.clone()),
        }),
        _ => {
            return Err(s3_error!(
                InvalidArgument,
                "x-amz-object-lock-mode and x-amz-object-lock-retain-until-date must be given together"
            ));
        }
    };
    let legal_hold = hold
        .map(|h| {
            parse_hold(h.as_str()).ok_or_else(|| {
                s3_error!(
                    InvalidArgument,
                    "invalid x-amz-object-lock-legal-hold value"
                )
            })
        })
        .transpose()?;
    Ok(LockRequest {
        retention,
        legal_hold,
    })
}

/// What a read answers of a version's lock: its retention's mode and end,
/// and its legal hold.
pub(super) fn lock_headers(
    meta: &ObjectMeta,
) -> (
    Option<ObjectLockMode>,
    Option<Timestamp>,
    Option<ObjectLockLegalHoldStatus>,
) {
    (
        meta.retention
            .map(|r| ObjectLockMode::from(r.mode.as_str().to_string())),
        meta.retention.map(|r| ts(r.until)),
        meta.legal_hold.map(hold_status),
    )
}

fn parse_hold(s: &str) -> Option<bool> {
    match s {
        "ON" => Some(true),
        "OFF" => Some(false),
        _ => None,
    }
}

fn hold_status(on: bool) -> ObjectLockLegalHoldStatus {
    ObjectLockLegalHoldStatus::from_static(if on { "ON" } else { "OFF" })
}

/// An S3 time as seconds since the epoch, in whole microseconds (as the
/// gateway keeps times).
fn secs(t: Timestamp) -> f64 {
    let t = time::OffsetDateTime::from(t);
    (t.unix_timestamp_nanos() / 1000) as f64 / 1e6
}
