//! `/admin/user`: users, their keys, caps and quotas.

use rsgw_gateway::{
    Gateway, GatewayError, GatewayResult, NewKey, NewUser, Quota, QuotaTarget, UserChange,
};
use serde_json::Value;

use super::json;
use super::query::Query;
use super::{Answer, S3Op};

/// The key pair a request names: `access-key` and `secret-key` together,
/// or `generate-key` (`generate` when neither is asked for and nothing
/// says otherwise).
fn key_of(q: &Query, generate: bool) -> GatewayResult<NewKey> {
    match (q.get("access-key"), q.get("secret-key")) {
        (Some(a), Some(s)) => Ok(NewKey::Given(a.into(), s.into())),
        (None, None) => Ok(if q.flag("generate-key")?.unwrap_or(generate) {
            NewKey::Generate
        } else {
            NewKey::None
        }),
        _ => Err(GatewayError::InvalidArgument(
            "access-key and secret-key are given together".into(),
        )),
    }
}

/// The quota `quota-type` names for `uid`.
fn quota_target(q: &Query, uid: &str) -> GatewayResult<QuotaTarget> {
    match q.get("quota-type") {
        Some("user") => Ok(QuotaTarget::User(uid.into())),
        Some("bucket") => Ok(QuotaTarget::UserBuckets(uid.into())),
        _ => Err(GatewayError::InvalidArgument(
            "quota-type is user or bucket".into(),
        )),
    }
}

/// A quota's new values, from the query (`max-size-kb`, `max-size`,
/// `max-objects`, `enabled`) or a JSON body (`max_size_kb`, `max_size`,
/// `max_objects`, `enabled`); what neither names stays.
pub(super) fn quota_change(q: &Query, body: &[u8]) -> GatewayResult<impl Fn(&mut Quota) + use<>> {
    let (size, objects, enabled) = if body.iter().all(u8::is_ascii_whitespace) {
        let size = match (q.int("max-size")?, q.int("max-size-kb")?) {
            (Some(b), _) => Some(b),
            (None, kb) => kb.map(|kb| kb.saturating_mul(1024)),
        };
        (size, q.int("max-objects")?, q.flag("enabled")?)
    } else {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| GatewayError::InvalidArgument(format!("quota document: {e}")))?;
        let int = |name: &str| match v.get(name) {
            None => Ok(None),
            Some(n) => n
                .as_i64()
                .map(Some)
                .ok_or_else(|| GatewayError::InvalidArgument(format!("{name} is an integer"))),
        };
        let size = match (int("max_size")?, int("max_size_kb")?) {
            (Some(b), _) => Some(b),
            (None, kb) => kb.map(|kb| kb.saturating_mul(1024)),
        };
        let enabled = match v.get("enabled") {
            None => None,
            Some(b) => Some(
                b.as_bool()
                    .ok_or_else(|| GatewayError::InvalidArgument("enabled is a boolean".into()))?,
            ),
        };
        (size, int("max_objects")?, enabled)
    };
    Ok(move |quota: &mut Quota| {
        if let Some(s) = size {
            quota.max_size = s;
        }
        if let Some(o) = objects {
            quota.max_objects = o;
        }
        if let Some(e) = enabled {
            quota.enabled = e;
        }
    })
}

/// Runs one of `/admin/user`'s operations.
pub(super) async fn run(gw: &Gateway, op: S3Op, q: &Query, body: &[u8]) -> Answer {
    use S3Op::*;
    match op {
        AdminGetUser => {
            let uid = match (q.get("uid"), q.get("access-key")) {
                (_, Some(ak)) => gw.key_owner(ak).await?,
                (Some(uid), None) => uid.to_string(),
                (None, None) => {
                    return Err(GatewayError::InvalidArgument(
                        "uid or access-key is required".into(),
                    ));
                }
            };
            let user = gw.user_info(&uid).await?;
            let stats = if q.flag("stats")?.unwrap_or(false) {
                Some(gw.user_usage(&uid).await?)
            } else {
                None
            };
            Ok(Some(json::user(&user, stats.as_ref())))
        }
        AdminCreateUser => {
            let user = gw
                .create_user_as(NewUser {
                    uid: q.need("uid")?.into(),
                    display_name: q.need("display-name")?.into(),
                    email: q.get("email").map(str::to_string),
                    key: key_of(q, true)?,
                    caps: q.get("user-caps").map(str::to_string),
                    max_buckets: q.int("max-buckets")?,
                    suspended: q.flag("suspended")?.unwrap_or(false),
                })
                .await?;
            Ok(Some(json::user(&user, None)))
        }
        AdminModifyUser => {
            let user = gw
                .modify_user(
                    q.need("uid")?,
                    UserChange {
                        display_name: q.get("display-name").map(str::to_string),
                        email: q.get("email").map(str::to_string),
                        max_buckets: q.int("max-buckets")?,
                        suspended: q.flag("suspended")?,
                        caps: q.get("user-caps").map(str::to_string),
                        key: key_of(q, false)?,
                    },
                )
                .await?;
            Ok(Some(json::user(&user, None)))
        }
        AdminRemoveUser => {
            let uid = q.need("uid")?;
            if q.flag("purge-data")?.unwrap_or(false) {
                gw.user_info(uid).await?;
                for bucket in gw.user_buckets(uid).await? {
                    gw.purge_bucket(&bucket).await?;
                }
            }
            gw.remove_user(uid).await?;
            Ok(None)
        }
        AdminCreateKey => {
            let uid = q.need("uid")?;
            let key = match key_of(q, true)? {
                NewKey::Given(a, s) => Some((a, s)),
                NewKey::Generate => None,
                NewKey::None => {
                    return Err(GatewayError::InvalidArgument(
                        "no key to create: give access-key and secret-key, or generate-key".into(),
                    ));
                }
            };
            let user = gw.create_key(uid, key).await?;
            Ok(Some(json::keys(&user)))
        }
        AdminRemoveKey => {
            let ak = q.need("access-key")?;
            if let Some(uid) = q.get("uid")
                && gw.key_owner(ak).await? != uid
            {
                return Err(GatewayError::AccessDenied);
            }
            gw.remove_key(ak).await?;
            Ok(None)
        }
        AdminAddCaps | AdminRemoveCaps => {
            let (uid, caps) = (q.need("uid")?, q.need("user-caps")?);
            let user = if op == AdminAddCaps {
                gw.add_caps(uid, caps).await?
            } else {
                gw.remove_caps(uid, caps).await?
            };
            Ok(Some(serde_json::to_value(&user.caps)?))
        }
        AdminGetUserQuota => {
            let uid = q.need("uid")?;
            let target = quota_target(q, uid)?;
            Ok(Some(json::quota(&gw.quota(&target).await?)))
        }
        AdminSetUserQuota => {
            let uid = q.need("uid")?;
            let target = quota_target(q, uid)?;
            gw.update_quota(&target, quota_change(q, body)?).await?;
            Ok(None)
        }
        _ => Err(GatewayError::Corrupt(format!(
            "{} is no operation of /admin/user",
            op.name()
        ))),
    }
}
