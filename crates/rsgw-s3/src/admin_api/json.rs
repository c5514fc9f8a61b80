//! The Admin Ops API's JSON documents, in radosgw 16.2's shapes (what
//! `radosgw-admin` prints, and what the Ceph dashboard, Rook
//! and `rgwadmin` read). Fields rsgw has no notion of (subusers, Swift
//! keys, placement, MFA) are there, empty, as radosgw gives them for a user
//! without them.

use std::time::{Duration, UNIX_EPOCH};

use rsgw_gateway::{BucketInfo, Limit, Quota, Usage, User};
use serde_json::{Value, json};

/// A quota: `max_size_kb` is `max_size` in whole KiB (0 for none).
pub(crate) fn quota(q: &Quota) -> Value {
    json!({
        "enabled": q.enabled,
        "check_on_raw": false,
        "max_size": q.max_size,
        "max_size_kb": if q.max_size > 0 { q.max_size / 1024 } else { 0 },
        "max_objects": q.max_objects,
    })
}

/// Objects and bytes, as radosgw's `stats` (a user's) and `rgw.main` (a
/// bucket's) give them. rsgw counts object sizes only: the "actual"
/// (allocated) and "utilized" (compressed) sizes are the same.
pub(crate) fn usage(u: &Usage) -> Value {
    let kb = u.bytes.div_ceil(1024);
    json!({
        "size": u.bytes,
        "size_actual": u.bytes,
        "size_utilized": u.bytes,
        "size_kb": kb,
        "size_kb_actual": kb,
        "size_kb_utilized": kb,
        "num_objects": u.objects,
    })
}

/// A user (`GET /admin/user`); `stats` adds their objects and bytes.
pub(crate) fn user(u: &User, stats: Option<&Usage>) -> Value {
    let mut v = json!({
        "tenant": "",
        "user_id": u.user_id,
        "display_name": u.display_name,
        "email": u.email.as_deref().unwrap_or(""),
        "suspended": u8::from(u.suspended),
        "max_buckets": u.max_buckets,
        "subusers": [],
        "keys": keys(u),
        "swift_keys": [],
        "caps": u.caps,
        "op_mask": "read, write, delete",
        "system": "false",
        "admin": "false",
        "default_placement": "",
        "default_storage_class": "",
        "placement_tags": [],
        "bucket_quota": quota(&u.bucket_quota),
        "user_quota": quota(&u.user_quota),
        "temp_url_keys": [],
        "type": "rgw",
        "mfa_ids": [],
    });
    if let (Some(s), Some(m)) = (stats, v.as_object_mut()) {
        m.insert("stats".into(), usage(s));
    }
    v
}

/// A user's keys (`PUT /admin/user?key` answers them).
pub(crate) fn keys(u: &User) -> Value {
    let mut ks: Vec<_> = u.keys.iter().collect();
    ks.sort_by(|a, b| a.access_key.cmp(&b.access_key));
    Value::Array(
        ks.into_iter()
            .map(|k| {
                json!({
                    "user": k.user,
                    "access_key": k.access_key,
                    "secret_key": k.secret_key,
                })
            })
            .collect(),
    )
}

/// A time as radosgw prints it: `2026-12-06T19:58:22.620Z`.
pub(crate) fn time(secs: f64) -> String {
    let t = UNIX_EPOCH + Duration::from_secs_f64(secs.max(0.0));
    let mut out = Vec::new();
    rsgw_time::write_rfc3339_millis(t, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A bucket (`GET /admin/bucket?bucket=`): rsgw's bucket id is also its
/// marker; its record is changed in place, so `mtime` is its creation.
pub(crate) fn bucket(b: &BucketInfo, u: &Usage, zonegroup: &str) -> Value {
    let usage = if u.objects > 0 {
        json!({ "rgw.main": usage(u) })
    } else {
        json!({})
    };
    json!({
        "bucket": b.name,
        "num_shards": b.index_shards,
        "tenant": "",
        "zonegroup": zonegroup,
        "placement_rule": "default-placement",
        "explicit_placement": {"data_pool": "", "data_extra_pool": "", "index_pool": ""},
        "id": b.id,
        "marker": b.id,
        "index_type": "Normal",
        "owner": b.owner,
        "mtime": time(b.created),
        "creation_time": time(b.created),
        "usage": usage,
        "bucket_quota": quota(&b.quota),
    })
}

/// A rate limit (`/admin/ratelimit`).
pub(crate) fn limit(l: &Limit) -> Value {
    json!({
        "max_read_ops": l.max_read_ops,
        "max_write_ops": l.max_write_ops,
        "max_read_bytes": l.max_read_bytes,
        "max_write_bytes": l.max_write_bytes,
        "enabled": l.enabled,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_and_usage_have_radosgws_fields() {
        assert_eq!(
            quota(&Quota::default()).to_string(),
            r#"{"check_on_raw":false,"enabled":false,"max_objects":-1,"max_size":-1,"max_size_kb":0}"#
        );
        let q = Quota {
            enabled: true,
            max_size: 1 << 20,
            max_objects: 10,
        };
        assert_eq!(quota(&q)["max_size_kb"], 1024);
        let u = usage(&Usage {
            objects: 2,
            bytes: 1010,
        });
        assert_eq!(
            (u["size"].as_u64(), u["size_kb"].as_u64()),
            (Some(1010), Some(1))
        );
        assert_eq!(u["num_objects"], 2);
        assert_eq!(time(1.5), "1970-01-01T00:00:01.500Z");
    }
}
