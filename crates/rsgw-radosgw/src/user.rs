//! radosgw's users in `<zone>.rgw.meta`:
//! - namespace `users.uid`, object `[tenant$]uid`: the user's record, an
//!   `RGWUID` (the user id as a string) then an `RGWUserInfo` ([`UserRecord`]);
//! - namespaces `users.keys` (object: an access key), `users.email` (an
//!   e-mail address) and `users.swift` (a Swift user): a link, the `RGWUID`
//!   of the user it names ([`decode_link`]).
//!
//! The structs follow radosgw's (`rgw_common.h`, `rgw_basic_types.h`,
//! `rgw_quota_types.h` in ceph/ceph) field for field, versions 9 to 22 of
//! `RGWUserInfo` (radosgw 16.2 writes 22); [`UserInfo::to_json`] is
//! `radosgw-admin user info`'s output for the same record.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::encoding::{Decoder, Header, Result};

/// `RGW_DEFAULT_MAX_BUCKETS`: a record older than version 10 has no limit
/// of its own.
pub const DEFAULT_MAX_BUCKETS: i32 = 1000;

/// `RGW_OP_TYPE_ALL`: read, write and delete.
pub const OP_TYPE_ALL: u32 = OP_READ | OP_WRITE | OP_DELETE;
const OP_READ: u32 = 0x01;
const OP_WRITE: u32 = 0x02;
const OP_DELETE: u32 = 0x04;

/// A user's id: `[tenant$]id`, and a namespace (`user_id.ns`, version 22).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserId {
    /// The tenant, empty for most users.
    pub tenant: String,
    /// The id within the tenant.
    pub id: String,
    /// The namespace (OIDC users), empty for S3 users.
    pub ns: String,
}

impl UserId {
    /// `tenant$id`, `tenant$ns$id`, `$ns$id` or `id` (radosgw's
    /// `rgw_user::to_str`).
    pub fn to_str(&self) -> String {
        match (self.tenant.is_empty(), self.ns.is_empty()) {
            (true, true) => self.id.clone(),
            (false, true) => format!("{}${}", self.tenant, self.id),
            (tenantless, false) => {
                let tenant = if tenantless { "" } else { &self.tenant };
                format!("{tenant}${}${}", self.ns, self.id)
            }
        }
    }

    /// The reverse of [`UserId::to_str`] (`rgw_user::from_str`).
    pub fn parse(s: &str) -> UserId {
        match s.split_once('$') {
            None => UserId {
                id: s.to_owned(),
                ..UserId::default()
            },
            Some((tenant, rest)) => match rest.split_once('$') {
                Some((ns, id)) => UserId {
                    tenant: tenant.to_owned(),
                    id: id.to_owned(),
                    ns: ns.to_owned(),
                },
                None => UserId {
                    tenant: tenant.to_owned(),
                    id: rest.to_owned(),
                    ns: String::new(),
                },
            },
        }
    }
}

/// Decodes an `rgw_user` block: tenant, id, and (version 2) namespace.
pub fn decode_user_id(d: &mut Decoder<'_>) -> Result<UserId> {
    d.block("rgw_user", Header::Start { known: 2 }, |d, v| {
        Ok(UserId {
            tenant: d.string("rgw_user.tenant")?,
            id: d.string("rgw_user.id")?,
            ns: if v >= 2 {
                d.string("rgw_user.ns")?
            } else {
                String::new()
            },
        })
    })
}

/// An S3 or Swift key (`RGWAccessKey`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessKey {
    /// The access key (S3) or `user:subuser` (Swift).
    pub id: String,
    /// The secret.
    pub key: String,
    /// The subuser the key belongs to, empty for the user's own.
    pub subuser: String,
    /// Whether the key may sign requests (version 3; true before).
    pub active: Option<bool>,
    /// When it was made (version 4).
    pub create_date: Option<SystemTime>,
}

/// A subuser (`RGWSubUser`): its name and permission mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubUser {
    /// The name after `user:`.
    pub name: String,
    /// `RGW_PERM_*` bits.
    pub perm_mask: u32,
}

/// A quota (`RGWQuotaInfo`); -1 is "no limit".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaInfo {
    /// Bytes.
    pub max_size: i64,
    /// Objects.
    pub max_objects: i64,
    /// Whether it is enforced.
    pub enabled: bool,
    /// Whether sizes are counted unrounded (version 3).
    pub check_on_raw: bool,
}

impl Default for QuotaInfo {
    fn default() -> Self {
        QuotaInfo {
            max_size: -1,
            max_objects: -1,
            enabled: false,
            check_on_raw: false,
        }
    }
}

/// A placement rule: a placement target and a storage class, encoded as
/// one string `target[/class]` (the class left out when it is STANDARD).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlacementRule {
    /// The placement target, empty for the zone group's default.
    pub name: String,
    /// The storage class, empty for STANDARD.
    pub storage_class: String,
}

impl PlacementRule {
    /// `target`, or `target/class` for a class other than STANDARD
    /// (`rgw_placement_rule::to_str`).
    pub fn to_str(&self) -> String {
        if self.storage_class.is_empty() || self.storage_class == "STANDARD" {
            self.name.clone()
        } else {
            format!("{}/{}", self.name, self.storage_class)
        }
    }
}

/// A user's record (`RGWUserInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    /// The record's version (`struct_v`).
    pub version: u8,
    /// Who the user is.
    pub user_id: UserId,
    /// The display name.
    pub display_name: String,
    /// The e-mail address.
    pub email: String,
    /// S3 keys, in access key order.
    pub access_keys: Vec<AccessKey>,
    /// Swift keys, in id order.
    pub swift_keys: Vec<AccessKey>,
    /// Subusers, in name order.
    pub subusers: Vec<SubUser>,
    /// Whether the user is suspended.
    pub suspended: bool,
    /// How many buckets the user may own (0: no limit, negative: none).
    pub max_buckets: i32,
    /// Admin capabilities: type and `RGW_CAP_*` bits, in type order.
    pub caps: Vec<(String, u32)>,
    /// The operations the user may do (`RGW_OP_TYPE_*` bits).
    pub op_mask: u32,
    /// A system user (multisite).
    pub system: bool,
    /// An admin user.
    pub admin: bool,
    /// Where the user's new buckets go by default.
    pub default_placement: PlacementRule,
    /// The placement tags the user may use.
    pub placement_tags: Vec<String>,
    /// The default quota of each of the user's buckets.
    pub bucket_quota: QuotaInfo,
    /// Swift temp URL keys, by index.
    pub temp_url_keys: Vec<(i32, String)>,
    /// The quota over all the user's buckets.
    pub user_quota: QuotaInfo,
    /// Where the user comes from (`RGWIdentityType`: 1 rgw, 2 keystone, 3 ldap).
    pub kind: u32,
    /// Multi-factor authentication devices.
    pub mfa_ids: Vec<String>,
}

/// What a `users.uid` object holds: the `RGWUID` written before the record
/// (the same user id, as a string), and the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserRecord {
    /// The `RGWUID`'s user id.
    pub uid: String,
    /// The record.
    pub info: UserInfo,
}

/// Decodes a `users.uid` object's data; every byte must belong to it.
pub fn decode_user_record(bytes: &[u8]) -> Result<UserRecord> {
    Decoder::whole(bytes, |d| {
        let uid = d.string("RGWUID")?;
        let info = decode_user_info(d)?;
        Ok(UserRecord { uid, info })
    })
}

/// Decodes a link object's data (`users.keys`, `users.email`,
/// `users.swift`): the user id it points to.
pub fn decode_link(bytes: &[u8]) -> Result<String> {
    Decoder::whole(bytes, |d| d.string("RGWUID"))
}

/// One of a user's buckets: an omap value of the user's
/// `<uid>.buckets` object in `users.uid` (`cls_user_bucket_entry`, with
/// its `cls_user_bucket`), keyed by the bucket's name; ListBuckets answers
/// from these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserBucket {
    /// The bucket's name.
    pub name: String,
    /// Its marker.
    pub marker: String,
    /// Its instance id when the entry was written.
    pub bucket_id: String,
    /// Its placement target (empty for the zone's default).
    pub placement_id: String,
    /// Bytes, as last synced from the bucket's stats.
    pub size: u64,
    /// Bytes rounded up to 4 KiB per object.
    pub size_rounded: u64,
    /// Objects.
    pub count: u64,
    /// When the bucket was made.
    pub creation_time: SystemTime,
}

/// Decodes a `<uid>.buckets` omap value; every byte must belong to it.
pub fn decode_user_bucket(bytes: &[u8]) -> Result<UserBucket> {
    Decoder::whole(bytes, |d| {
        d.block("cls_user_bucket_entry", Header::legacy(9, 5, 5), |d, v| {
            d.string("cls_user_bucket_entry.name")?;
            let size = d.u64("cls_user_bucket_entry.size")?;
            let mt = d.u32("cls_user_bucket_entry.creation_time")?;
            let count = if v >= 2 {
                d.u64("cls_user_bucket_entry.count")?
            } else {
                0
            };
            let mut entry = UserBucket {
                name: String::new(),
                marker: String::new(),
                bucket_id: String::new(),
                placement_id: String::new(),
                size,
                size_rounded: size,
                count,
                creation_time: SystemTime::UNIX_EPOCH
                    + std::time::Duration::from_secs(u64::from(mt)),
            };
            if v >= 3 {
                decode_cls_bucket(d, &mut entry)?;
            }
            if v >= 4 {
                entry.size_rounded = d.u64("cls_user_bucket_entry.size_rounded")?;
            }
            if v >= 6 {
                d.bool("cls_user_bucket_entry.user_stats_sync")?;
            }
            if v >= 7 {
                entry.creation_time = d.time("cls_user_bucket_entry.creation_time")?;
            }
            if v == 8 {
                d.string("cls_user_bucket_entry.placement_rule")?;
            }
            Ok(entry)
        })
    })
}

/// A `cls_user_bucket` block (the pools of its older forms are skipped:
/// a bucket placed by explicit pools is refused when it is read).
fn decode_cls_bucket(d: &mut Decoder<'_>, entry: &mut UserBucket) -> Result<()> {
    d.block("cls_user_bucket", Header::legacy(9, 3, 3), |d, v| {
        entry.name = d.string("cls_user_bucket.name")?;
        if v < 8 {
            d.string("cls_user_bucket.data_pool")?;
        }
        if v >= 2 {
            entry.marker = d.string("cls_user_bucket.marker")?;
            entry.bucket_id = if v <= 3 {
                d.u64("cls_user_bucket.bucket_id")?.to_string()
            } else {
                d.string("cls_user_bucket.bucket_id")?
            };
        }
        if v < 8 {
            if v >= 5 {
                d.string("cls_user_bucket.index_pool")?;
            }
            if v >= 7 {
                d.string("cls_user_bucket.data_extra_pool")?;
            }
        } else {
            entry.placement_id = d.string("cls_user_bucket.placement_id")?;
            if v == 8 && entry.placement_id.is_empty() {
                for what in [
                    "cls_user_bucket.data_pool",
                    "cls_user_bucket.index_pool",
                    "cls_user_bucket.data_extra_pool",
                ] {
                    d.string(what)?;
                }
            }
        }
        Ok(())
    })
}

/// Decodes an `RGWUserInfo`.
pub fn decode_user_info(d: &mut Decoder<'_>) -> Result<UserInfo> {
    d.block("RGWUserInfo", Header::legacy_32(22, 9, 9), |d, v| {
        if v >= 2 {
            d.u64("RGWUserInfo.auid")?;
        }
        let access_key = d.string("RGWUserInfo.access_key")?;
        let secret_key = d.string("RGWUserInfo.secret_key")?;
        let mut info = UserInfo {
            version: v,
            user_id: UserId::default(),
            display_name: d.string("RGWUserInfo.display_name")?,
            email: d.string("RGWUserInfo.user_email")?,
            access_keys: Vec::new(),
            swift_keys: Vec::new(),
            subusers: Vec::new(),
            suspended: false,
            max_buckets: DEFAULT_MAX_BUCKETS,
            caps: Vec::new(),
            op_mask: OP_TYPE_ALL,
            system: false,
            admin: false,
            default_placement: PlacementRule::default(),
            placement_tags: Vec::new(),
            bucket_quota: QuotaInfo::default(),
            temp_url_keys: Vec::new(),
            user_quota: QuotaInfo::default(),
            kind: 0,
            mfa_ids: Vec::new(),
        };
        if v < 6 {
            info.access_keys.push(AccessKey {
                id: access_key.clone(),
                key: secret_key,
                subuser: String::new(),
                active: None,
                create_date: None,
            });
        }
        // the first Swift key, repeated in swift_keys from version 8
        if v >= 3 {
            d.string("RGWUserInfo.swift_name")?;
        }
        if v >= 4 {
            d.string("RGWUserInfo.swift_key")?;
        }
        info.user_id.id = if v >= 5 {
            d.string("RGWUserInfo.user_id")?
        } else {
            access_key
        };
        if v >= 6 {
            info.access_keys = keyed(d, "RGWUserInfo.access_keys", decode_access_key)?;
            info.subusers = keyed(d, "RGWUserInfo.subusers", decode_subuser)?;
        }
        if v >= 7 {
            info.suspended = d.u8("RGWUserInfo.suspended")? != 0;
        }
        if v >= 8 {
            info.swift_keys = keyed(d, "RGWUserInfo.swift_keys", decode_access_key)?;
        }
        if v >= 10 {
            info.max_buckets = d.i32("RGWUserInfo.max_buckets")?;
        }
        if v >= 11 {
            info.caps = decode_caps(d)?;
        }
        if v >= 12 {
            info.op_mask = d.u32("RGWUserInfo.op_mask")?;
        }
        if v >= 13 {
            info.system = d.u8("RGWUserInfo.system")? != 0;
            info.default_placement = decode_placement_rule(d, "RGWUserInfo.default_placement")?;
            info.placement_tags = d.seq("RGWUserInfo.placement_tags", 4, |d| {
                d.string("RGWUserInfo.placement_tags")
            })?;
        }
        if v >= 14 {
            info.bucket_quota = decode_quota(d)?;
        }
        if v >= 15 {
            info.temp_url_keys = d.seq("RGWUserInfo.temp_url_keys", 8, |d| {
                Ok((
                    d.i32("RGWUserInfo.temp_url_keys")?,
                    d.string("RGWUserInfo.temp_url_keys")?,
                ))
            })?;
        }
        if v >= 16 {
            info.user_quota = decode_quota(d)?;
        }
        if v >= 17 {
            info.user_id.tenant = d.string("RGWUserInfo.tenant")?;
        }
        if v >= 18 {
            info.admin = d.u8("RGWUserInfo.admin")? != 0;
        }
        if v >= 19 {
            info.kind = d.u32("RGWUserInfo.type")?;
        }
        if v >= 20 {
            info.mfa_ids = d.seq("RGWUserInfo.mfa_ids", 4, |d| {
                d.string("RGWUserInfo.mfa_ids")
            })?;
        }
        if v >= 21 {
            d.string("RGWUserInfo.assumed_role_arn")?;
        }
        if v >= 22 {
            info.user_id.ns = d.string("RGWUserInfo.ns")?;
        }
        Ok(info)
    })
}

/// A `std::map<std::string, T>`'s values, in key order (the map's own).
fn keyed<T>(
    d: &mut Decoder<'_>,
    what: &'static str,
    value: fn(&mut Decoder<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    d.seq(what, 4, |d| {
        d.string(what)?;
        value(d)
    })
}

pub(crate) fn decode_access_key(d: &mut Decoder<'_>) -> Result<AccessKey> {
    d.block("RGWAccessKey", Header::legacy_32(4, 2, 2), |d, v| {
        Ok(AccessKey {
            id: d.string("RGWAccessKey.id")?,
            key: d.string("RGWAccessKey.key")?,
            subuser: d.string("RGWAccessKey.subuser")?,
            active: if v >= 3 {
                Some(d.bool("RGWAccessKey.active")?)
            } else {
                None
            },
            create_date: if v >= 4 {
                Some(d.time("RGWAccessKey.create_date")?)
            } else {
                None
            },
        })
    })
}

fn decode_subuser(d: &mut Decoder<'_>) -> Result<SubUser> {
    d.block("RGWSubUser", Header::legacy_32(2, 2, 2), |d, _| {
        Ok(SubUser {
            name: d.string("RGWSubUser.name")?,
            perm_mask: d.u32("RGWSubUser.perm_mask")?,
        })
    })
}

fn decode_caps(d: &mut Decoder<'_>) -> Result<Vec<(String, u32)>> {
    d.block("RGWUserCaps", Header::Start { known: 1 }, |d, _| {
        d.seq("RGWUserCaps.caps", 8, |d| {
            Ok((d.string("RGWUserCaps.caps")?, d.u32("RGWUserCaps.caps")?))
        })
    })
}

pub(crate) fn decode_quota(d: &mut Decoder<'_>) -> Result<QuotaInfo> {
    d.block("RGWQuotaInfo", Header::legacy(3, 1, 1), |d, v| {
        let max_size_kb = d.i64("RGWQuotaInfo.max_size_kb")?;
        let max_objects = d.i64("RGWQuotaInfo.max_objects")?;
        let enabled = d.bool("RGWQuotaInfo.enabled")?;
        let max_size = if v < 2 {
            max_size_kb.saturating_mul(1024)
        } else {
            d.i64("RGWQuotaInfo.max_size")?
        };
        let check_on_raw = if v >= 3 {
            d.bool("RGWQuotaInfo.check_on_raw")?
        } else {
            false
        };
        Ok(QuotaInfo {
            max_size,
            max_objects,
            enabled,
            check_on_raw,
        })
    })
}

/// `rgw_placement_rule`: one string, `target` or `target/class` (no
/// versioned block: radosgw kept the old string encoding).
pub(crate) fn decode_placement_rule(
    d: &mut Decoder<'_>,
    what: &'static str,
) -> Result<PlacementRule> {
    let s = d.string(what)?;
    Ok(match s.split_once('/') {
        Some((name, class)) => PlacementRule {
            name: name.to_owned(),
            storage_class: class.to_owned(),
        },
        None => PlacementRule {
            name: s,
            storage_class: String::new(),
        },
    })
}

impl UserInfo {
    /// `radosgw-admin user info`'s JSON for this record (`RGWUserInfo::dump`).
    pub fn to_json(&self) -> Value {
        let uid = self.user_id.to_str();
        let qualified = |subuser: &str| {
            if subuser.is_empty() {
                uid.clone()
            } else {
                format!("{uid}:{subuser}")
            }
        };
        let key = |k: &AccessKey, swift: bool| {
            let mut o = serde_json::Map::new();
            o.insert("user".into(), json!(qualified(&k.subuser)));
            if !swift {
                o.insert("access_key".into(), json!(k.id));
            }
            o.insert("secret_key".into(), json!(k.key));
            if let Some(active) = k.active {
                o.insert("active".into(), json!(active));
            }
            if let Some(t) = k.create_date {
                let mut s = Vec::new();
                rsgw_time::write_rfc3339_millis(t, &mut s);
                o.insert("create_date".into(), json!(String::from_utf8_lossy(&s)));
            }
            Value::Object(o)
        };
        let mut o = serde_json::Map::new();
        o.insert("user_id".into(), json!(uid));
        o.insert("display_name".into(), json!(self.display_name));
        o.insert("email".into(), json!(self.email));
        o.insert("suspended".into(), json!(u8::from(self.suspended)));
        o.insert("max_buckets".into(), json!(self.max_buckets));
        o.insert(
            "subusers".into(),
            Value::Array(
                self.subusers
                    .iter()
                    .map(|s| json!({"id": qualified(&s.name), "permissions": perm_to_str(s.perm_mask)}))
                    .collect(),
            ),
        );
        o.insert(
            "keys".into(),
            Value::Array(self.access_keys.iter().map(|k| key(k, false)).collect()),
        );
        o.insert(
            "swift_keys".into(),
            Value::Array(self.swift_keys.iter().map(|k| key(k, true)).collect()),
        );
        o.insert(
            "caps".into(),
            Value::Array(
                self.caps
                    .iter()
                    .map(|(kind, perm)| json!({"type": kind, "perm": cap_perm_to_str(*perm)}))
                    .collect(),
            ),
        );
        o.insert("op_mask".into(), json!(op_mask_to_str(self.op_mask)));
        // shown only when set, and as the string "true": radosgw-admin
        // dumps these two with encode_json of a bool, which its JSON
        // formatter quotes
        if self.system {
            o.insert("system".into(), json!("true"));
        }
        if self.admin {
            o.insert("admin".into(), json!("true"));
        }
        o.insert(
            "default_placement".into(),
            json!(self.default_placement.name),
        );
        o.insert(
            "default_storage_class".into(),
            json!(self.default_placement.storage_class),
        );
        o.insert("placement_tags".into(), json!(self.placement_tags));
        o.insert("bucket_quota".into(), quota_json(&self.bucket_quota));
        o.insert("user_quota".into(), quota_json(&self.user_quota));
        o.insert(
            "temp_url_keys".into(),
            Value::Array(
                self.temp_url_keys
                    .iter()
                    .map(|(k, v)| json!({"key": k, "val": v}))
                    .collect(),
            ),
        );
        let kind = match self.kind {
            1 => "rgw",
            2 => "keystone",
            3 => "ldap",
            _ => "none",
        };
        o.insert("type".into(), json!(kind));
        o.insert("mfa_ids".into(), json!(self.mfa_ids));
        Value::Object(o)
    }
}

pub(crate) fn quota_json(q: &QuotaInfo) -> Value {
    json!({
        "enabled": q.enabled,
        "check_on_raw": q.check_on_raw,
        "max_size": q.max_size,
        "max_size_kb": crate::dump::rounded_kb(q.max_size),
        "max_objects": q.max_objects,
    })
}

/// `op_type_to_str`: the operations joined by ", ", `<none>` for none.
fn op_mask_to_str(mask: u32) -> String {
    let names: Vec<&str> = [
        (OP_READ, "read"),
        (OP_WRITE, "write"),
        (OP_DELETE, "delete"),
    ]
    .iter()
    .filter(|(bit, _)| mask & bit != 0)
    .map(|(_, name)| *name)
    .collect();
    if names.is_empty() {
        "<none>".to_owned()
    } else {
        names.join(", ")
    }
}

/// `rgw_perm_to_str` for subusers: the widest name the mask covers.
fn perm_to_str(mask: u32) -> &'static str {
    const READ: u32 = 0x01;
    const WRITE: u32 = 0x02;
    const READ_ACP: u32 = 0x04;
    const WRITE_ACP: u32 = 0x08;
    const FULL: u32 = READ | WRITE | READ_ACP | WRITE_ACP;
    if mask & FULL == FULL {
        "full-control"
    } else if mask & (READ | WRITE) == READ | WRITE {
        "read-write"
    } else if mask & WRITE != 0 {
        "write"
    } else if mask & READ != 0 {
        "read"
    } else {
        "<none>"
    }
}

/// An admin capability's permission (`RGW_CAP_READ` 1, `RGW_CAP_WRITE` 2).
fn cap_perm_to_str(perm: u32) -> &'static str {
    match perm & 3 {
        3 => "*",
        2 => "write",
        1 => "read",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DecodeError;

    /// The entry radosgw 16.2 wrote in `probe.buckets` for bucket `probe`
    /// (two 1-byte objects and an open upload's 100-byte part).
    const USER_BUCKET: &[u8] = include_bytes!("../tests/data/user-bucket-probe.bin");

    #[test]
    fn a_users_bucket_entry_decodes() {
        let b = decode_user_bucket(USER_BUCKET).expect("decode");
        assert_eq!(b.name, "probe");
        assert_eq!(b.marker, "439c262e-c61a-4f95-b120-badc466a0231.4160.1");
        assert_eq!(b.bucket_id, b.marker);
        assert_eq!((b.size, b.size_rounded, b.count), (102, 12288, 3));
        assert_eq!(b.placement_id, "");
        let t = b
            .creation_time
            .duration_since(SystemTime::UNIX_EPOCH)
            .expect("after the epoch");
        assert_eq!((t.as_secs(), t.subsec_nanos()), (0x6b16_a134, 0x2957_1e84));
        for cut in 0..USER_BUCKET.len() {
            assert!(decode_user_bucket(&USER_BUCKET[..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn a_record_cut_anywhere_is_an_error_not_a_panic() {
        // a version-9 record: the oldest with a compat byte and a length
        let mut body = Vec::new();
        body.extend_from_slice(&0u64.to_le_bytes());
        for s in ["AK", "SK", "Name", "n@example.com", "", "", "uid"] {
            body.extend_from_slice(&(s.len() as u32).to_le_bytes());
            body.extend_from_slice(s.as_bytes());
        }
        for _ in 0..2 {
            body.extend_from_slice(&0u32.to_le_bytes()); // access keys, subusers
        }
        body.push(1); // suspended
        body.extend_from_slice(&0u32.to_le_bytes()); // swift keys
        let mut rec = vec![3, 0, 0, 0, b'u', b'i', b'd', 9, 9];
        rec.extend_from_slice(&(body.len() as u32).to_le_bytes());
        rec.extend_from_slice(&body);
        let r = decode_user_record(&rec).unwrap();
        assert_eq!(r.uid, "uid");
        assert_eq!(r.info.user_id.to_str(), "uid");
        assert_eq!(
            (r.info.display_name.as_str(), r.info.email.as_str()),
            ("Name", "n@example.com")
        );
        assert!(r.info.suspended && r.info.access_keys.is_empty());
        assert_eq!(
            (r.info.max_buckets, r.info.op_mask),
            (DEFAULT_MAX_BUCKETS, OP_TYPE_ALL)
        );
        for cut in 0..rec.len() {
            assert!(decode_user_record(&rec[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = rec.clone();
        longer.push(0);
        assert_eq!(decode_user_record(&longer), Err(DecodeError::Trailing(1)));
    }

    #[test]
    fn names_as_radosgw_admin_prints_them() {
        assert_eq!(op_mask_to_str(OP_TYPE_ALL), "read, write, delete");
        assert_eq!(op_mask_to_str(OP_READ), "read");
        assert_eq!(op_mask_to_str(0), "<none>");
        assert_eq!(perm_to_str(0x0f), "full-control");
        assert_eq!(perm_to_str(0x03), "read-write");
        assert_eq!(cap_perm_to_str(3), "*");
        let q = QuotaInfo {
            max_size: 1025,
            ..QuotaInfo::default()
        };
        assert_eq!(quota_json(&q)["max_size_kb"], 2);
        assert_eq!(quota_json(&QuotaInfo::default())["max_size_kb"], 0);
    }
}
