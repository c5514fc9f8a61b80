//! `/admin/bucket` (buckets: stats, link, unlink, removal, an object's
//! removal, quotas), `/admin/metadata/...` (the lists of users and
//! buckets) and `/admin/ratelimit` (radosgw 17's rate limits).

use rsgw_gateway::{Gateway, GatewayError, GatewayResult, Limit, LimitTarget, QuotaTarget};
use serde_json::{Value, json};

use super::query::Query;
use super::users::quota_change;
use super::{Answer, S3Op, json};

/// A bucket with its stats.
async fn bucket_doc(gw: &Gateway, name: &str, zonegroup: &str) -> GatewayResult<Value> {
    let info = gw.bucket_info(name).await?;
    let usage = gw.bucket_usage_of(&info).await?;
    Ok(json::bucket(&info, &usage, zonegroup))
}

/// Names, or with `stats`, each one's document.
async fn buckets_doc(
    gw: &Gateway,
    names: Vec<String>,
    stats: bool,
    zonegroup: &str,
) -> GatewayResult<Value> {
    if !stats {
        return Ok(json!(names));
    }
    let mut docs = Vec::with_capacity(names.len());
    for n in &names {
        match bucket_doc(gw, n, zonegroup).await {
            Ok(d) => docs.push(d),
            // removed since it was listed
            Err(GatewayError::NoSuchBucket) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Value::Array(docs))
}

/// Whose rate limit a request names: `ratelimit-scope` (`user`, `bucket`,
/// or with `global`, `anonymous` too) and `uid` or `bucket`.
fn limit_target(q: &Query) -> GatewayResult<LimitTarget> {
    let global = q.flag("global")?.unwrap_or(q.has("global"));
    match (q.get("ratelimit-scope"), global) {
        (Some("user"), true) => Ok(LimitTarget::GlobalUser),
        (Some("bucket"), true) => Ok(LimitTarget::GlobalBucket),
        (Some("anonymous"), true) => Ok(LimitTarget::Anonymous),
        (Some("user"), false) => Ok(LimitTarget::User(q.need("uid")?.into())),
        (Some("bucket"), false) => Ok(LimitTarget::Bucket(q.need("bucket")?.into())),
        _ => Err(GatewayError::InvalidArgument(
            "ratelimit-scope is user or bucket (or anonymous, with global)".into(),
        )),
    }
}

/// A rate limit's new values from the query (`max-read-ops`,
/// `max-write-ops`, `max-read-bytes`, `max-write-bytes`, `enabled`); what
/// it does not name stays.
fn limit_change(q: &Query) -> GatewayResult<impl Fn(&mut Limit) + use<>> {
    let n = |name: &str| -> GatewayResult<Option<u64>> {
        q.int(name)?
            .map(|v| {
                u64::try_from(v)
                    .map_err(|_| GatewayError::InvalidArgument(format!("{name} is at least 0")))
            })
            .transpose()
    };
    let (ro, wo, rb, wb) = (
        n("max-read-ops")?,
        n("max-write-ops")?,
        n("max-read-bytes")?,
        n("max-write-bytes")?,
    );
    let enabled = q.flag("enabled")?;
    Ok(move |l: &mut Limit| {
        let set = |field: &mut u64, v: Option<u64>| {
            if let Some(v) = v {
                *field = v;
            }
        };
        set(&mut l.max_read_ops, ro);
        set(&mut l.max_write_ops, wo);
        set(&mut l.max_read_bytes, rb);
        set(&mut l.max_write_bytes, wb);
        if let Some(e) = enabled {
            l.enabled = e;
        }
    })
}

/// Runs one of the bucket, metadata or rate-limit operations.
pub(super) async fn run(
    gw: &Gateway,
    (op, resource): (S3Op, &str),
    q: &Query,
    body: &[u8],
    zonegroup: &str,
) -> Answer {
    use S3Op::*;
    match op {
        AdminGetBucket => {
            let stats = q.flag("stats")?.unwrap_or(false);
            if let Some(b) = q.get("bucket") {
                return Ok(Some(bucket_doc(gw, b, zonegroup).await?));
            }
            let names = match q.get("uid") {
                Some(uid) => {
                    gw.user_info(uid).await?;
                    gw.user_buckets(uid).await?
                }
                None => gw.all_buckets().await?,
            };
            Ok(Some(buckets_doc(gw, names, stats, zonegroup).await?))
        }
        AdminLinkBucket => {
            let (bucket, uid) = (q.need("bucket")?, q.need("uid")?);
            if let Some(id) = q.get("bucket-id")
                && gw.bucket_info(bucket).await?.id != id
            {
                return Err(GatewayError::InvalidArgument(format!(
                    "bucket {bucket} is not instance {id}"
                )));
            }
            if q.get("new-bucket-name").is_some() {
                return Err(GatewayError::InvalidArgument(
                    "rsgw does not rename buckets (new-bucket-name)".into(),
                ));
            }
            gw.link_bucket(bucket, uid).await?;
            Ok(None)
        }
        AdminUnlinkBucket => {
            gw.unlink_bucket(q.need("bucket")?, q.need("uid")?).await?;
            Ok(None)
        }
        AdminRemoveBucket => {
            let bucket = q.need("bucket")?;
            if q.flag("purge-objects")?.unwrap_or(false) {
                gw.purge_bucket(bucket).await?;
            } else {
                let owner = gw.bucket_info(bucket).await?.owner;
                gw.delete_bucket(&rsgw_gateway::Requester::user(&owner), bucket)
                    .await?;
            }
            Ok(None)
        }
        AdminRemoveObject => {
            gw.admin_remove_object(q.need("bucket")?, q.need("object")?)
                .await?;
            Ok(None)
        }
        AdminSetBucketQuota => {
            let target = QuotaTarget::Bucket(q.need("bucket")?.into());
            gw.update_quota(&target, quota_change(q, body)?).await?;
            Ok(None)
        }
        AdminListMetadata => Ok(Some(match resource {
            "metadata/user" => json!(gw.all_users().await?),
            "metadata/bucket" => json!(gw.all_buckets().await?),
            "metadata/bucket.instance" => {
                let mut instances = Vec::new();
                for name in gw.all_buckets().await? {
                    match gw.bucket_info(&name).await {
                        Ok(info) => instances.push(format!("{name}:{}", info.id)),
                        Err(GatewayError::NoSuchBucket) => {}
                        Err(e) => return Err(e),
                    }
                }
                json!(instances)
            }
            _ => json!(["user", "bucket", "bucket.instance"]),
        })),
        AdminGetRatelimit => {
            if q.has("global") && q.get("ratelimit-scope").is_none() {
                return Ok(Some(json!({
                    "user_ratelimit": json::limit(&gw.ratelimit(&LimitTarget::GlobalUser).await?),
                    "bucket_ratelimit": json::limit(&gw.ratelimit(&LimitTarget::GlobalBucket).await?),
                    "anonymous_ratelimit": json::limit(&gw.ratelimit(&LimitTarget::Anonymous).await?),
                })));
            }
            let target = limit_target(q)?;
            let l = json::limit(&gw.ratelimit(&target).await?);
            Ok(Some(match target {
                LimitTarget::User(_) | LimitTarget::GlobalUser => json!({"user_ratelimit": l}),
                LimitTarget::Bucket(_) | LimitTarget::GlobalBucket => {
                    json!({"bucket_ratelimit": l})
                }
                LimitTarget::Anonymous => json!({"anonymous_ratelimit": l}),
            }))
        }
        AdminSetRatelimit => {
            let target = limit_target(q)?;
            if let LimitTarget::User(uid) = &target {
                gw.user_info(uid).await?;
            }
            gw.update_ratelimit(&target, limit_change(q)?).await?;
            Ok(None)
        }
        _ => Err(GatewayError::Corrupt(format!(
            "{} is no bucket, metadata or rate-limit operation",
            op.name()
        ))),
    }
}
