//! radosgw's buckets in `<zone>.rgw.meta`, namespace `root`:
//! - object `[tenant/]bucket`: the bucket's entry point
//!   ([`EntryPoint`], `RGWBucketEntryPoint`): which instance is the
//!   bucket's now, and its owner;
//! - object `.bucket.meta.[tenant:]bucket:<instance id>`: the instance
//!   ([`BucketInfo`], `RGWBucketInfo`): placement, flags (versioning,
//!   object lock), quota, website, index layout (shards, generation);
//!   its xattrs hold the ACL (`user.rgw.acl`), policy, CORS and the
//!   other bucket attributes.
//!
//! The structs follow radosgw's (`rgw_common.h`, `rgw_basic_types.h`,
//! `rgw_website.h`, `rgw_object_lock.h`, `rgw_bucket_layout.h` in
//! ceph/ceph) field for field; radosgw 16.2 writes entry points of version
//! 10 and instances of version 23. `to_json` is the `data` of
//! `radosgw-admin metadata get bucket:B` and the `bucket_info` of
//! `metadata get bucket.instance:B:ID`.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::dump::{bool_str, utime};
use crate::encoding::{DecodeError, Decoder, Encoder, Header, Result};
use crate::user::{
    PlacementRule, QuotaInfo, UserId, decode_placement_rule, decode_quota, decode_user_id,
    quota_json,
};

/// `BUCKET_SUSPENDED`: the bucket's owner is suspended.
pub const FLAG_SUSPENDED: u32 = 0x1;
/// `BUCKET_VERSIONED`: versioning was enabled.
pub const FLAG_VERSIONED: u32 = 0x2;
/// `BUCKET_VERSIONS_SUSPENDED`: versioning is suspended.
pub const FLAG_VERSIONS_SUSPENDED: u32 = 0x4;
/// `BUCKET_OBJ_LOCK_ENABLED`: object lock was enabled at creation.
pub const FLAG_OBJ_LOCK_ENABLED: u32 = 0x20;

/// A RADOS pool and namespace (`rgw_pool`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pool {
    /// The pool's name.
    pub name: String,
    /// The namespace, empty for the default.
    pub ns: String,
}

impl Pool {
    /// `name`, or `name:ns` with `\` and `:` escaped by `\`
    /// (`rgw_pool::to_str`).
    pub fn to_str(&self) -> String {
        let esc = |s: &str| s.replace('\\', "\\\\").replace(':', "\\:");
        if self.ns.is_empty() {
            esc(&self.name)
        } else {
            format!("{}:{}", esc(&self.name), esc(&self.ns))
        }
    }

    /// The pool a [`Pool::to_str`] string names (`rgw_pool::from_str`):
    /// the first `:` not escaped by `\` parts the name from the namespace.
    pub fn parse(s: &str) -> Pool {
        let mut parts = [String::new(), String::new()];
        let mut part = 0;
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        parts[part].push(next);
                    }
                }
                ':' if part == 0 => part = 1,
                c => parts[part].push(c),
            }
        }
        let [name, ns] = parts;
        Pool { name, ns }
    }
}

/// A bucket's name and instance (`rgw_bucket`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bucket {
    /// The tenant, empty for most buckets.
    pub tenant: String,
    /// The bucket's name.
    pub name: String,
    /// The prefix of its objects' RADOS names: the id of the instance
    /// that made it (reshards keep it).
    pub marker: String,
    /// The instance's id, which names its index objects.
    pub bucket_id: String,
    /// Pools named by the bucket itself (buckets made before placement
    /// targets), all empty otherwise.
    pub explicit_placement: ExplicitPlacement,
}

/// Pools an old bucket names itself (`rgw_data_placement_target`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExplicitPlacement {
    /// Where object data goes.
    pub data_pool: Pool,
    /// Where multipart uploads' metadata goes.
    pub data_extra_pool: Pool,
    /// Where the index goes.
    pub index_pool: Pool,
}

/// Decodes an `rgw_bucket` block (versions 1 to 10; radosgw writes 10).
pub fn decode_bucket(d: &mut Decoder<'_>) -> Result<Bucket> {
    d.block("rgw_bucket", Header::legacy(10, 3, 3), |d, v| {
        let mut b = Bucket {
            name: d.string("rgw_bucket.name")?,
            ..Bucket::default()
        };
        let p = &mut b.explicit_placement;
        if v < 10 {
            p.data_pool.name = d.string("rgw_bucket.data_pool")?;
        }
        if v >= 2 {
            b.marker = d.string("rgw_bucket.marker")?;
            b.bucket_id = if v <= 3 {
                d.u64("rgw_bucket.bucket_id")?.to_string()
            } else {
                d.string("rgw_bucket.bucket_id")?
            };
        }
        if v < 10 {
            p.index_pool = if v >= 5 {
                Pool {
                    name: d.string("rgw_bucket.index_pool")?,
                    ns: String::new(),
                }
            } else {
                p.data_pool.clone()
            };
            if v >= 7 {
                p.data_extra_pool.name = d.string("rgw_bucket.data_extra_pool")?;
            }
        }
        if v >= 8 {
            b.tenant = d.string("rgw_bucket.tenant")?;
        }
        if v >= 10 && d.bool("rgw_bucket.explicit_placement")? {
            p.data_pool = decode_pool(d)?;
            p.data_extra_pool = decode_pool(d)?;
            p.index_pool = decode_pool(d)?;
        }
        Ok(b)
    })
}

/// Decodes an `rgw_pool` block (version 10; older ones are an old
/// `rgw_bucket`'s first field).
/// Writes an `rgw_bucket` block as radosgw 16.2 does (version 10).
pub fn encode_bucket(e: &mut Encoder, b: &Bucket) {
    e.block(10, 10, |e| {
        e.string(&b.name)
            .string(&b.marker)
            .string(&b.bucket_id)
            .string(&b.tenant);
        let p = &b.explicit_placement;
        let explicit = !p.data_pool.name.is_empty();
        e.bool(explicit);
        if explicit {
            for pool in [&p.data_pool, &p.data_extra_pool, &p.index_pool] {
                e.block(10, 10, |e| {
                    e.string(&pool.name).string(&pool.ns);
                });
            }
        }
    });
}

/// Writes an `rgw_pool` block as radosgw 16.2 does (version 10).
pub(crate) fn encode_pool(e: &mut Encoder, pool: &Pool) {
    e.block(10, 10, |e| {
        e.string(&pool.name).string(&pool.ns);
    });
}

pub(crate) fn decode_pool(d: &mut Decoder<'_>) -> Result<Pool> {
    d.block("rgw_pool", Header::legacy(10, 3, 3), |d, v| {
        Ok(Pool {
            name: d.string("rgw_pool.name")?,
            ns: if v >= 10 {
                d.string("rgw_pool.ns")?
            } else {
                String::new()
            },
        })
    })
}

impl Bucket {
    /// `rgw_bucket::dump`.
    pub fn to_json(&self) -> Value {
        let p = &self.explicit_placement;
        json!({
            "name": self.name,
            "marker": self.marker,
            "bucket_id": self.bucket_id,
            "tenant": self.tenant,
            "explicit_placement": {
                "data_pool": p.data_pool.to_str(),
                "data_extra_pool": p.data_extra_pool.to_str(),
                "index_pool": p.index_pool.to_str(),
            },
        })
    }
}

/// A bucket's entry point (`RGWBucketEntryPoint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// The bucket and its current instance.
    pub bucket: Bucket,
    /// Its owner.
    pub owner: UserId,
    /// Whether the bucket is in its owner's bucket list.
    pub linked: bool,
    /// When the bucket was made.
    pub creation_time: SystemTime,
    /// An entry point older than version 8 is the bucket's whole
    /// `RGWBucketInfo` (there was no instance object).
    pub old_info: Option<Box<BucketInfo>>,
}

/// Decodes a `root/[tenant/]bucket` object's data; every byte must belong
/// to it.
pub fn decode_entry_point(bytes: &[u8]) -> Result<EntryPoint> {
    // versions before 8 were the bucket info itself: read again from the
    // start as one (RGWBucketEntryPoint::decode)
    if bytes.first().is_some_and(|v| *v < 8) {
        let info = Decoder::whole(bytes, decode_bucket_info)?;
        return Ok(EntryPoint {
            bucket: info.bucket.clone(),
            owner: info.owner.clone(),
            linked: true,
            creation_time: info.creation_time,
            old_info: Some(Box::new(info)),
        });
    }
    Decoder::whole(bytes, |d| {
        d.block(
            "RGWBucketEntryPoint",
            Header::legacy_32(10, 4, 4),
            |d, v| {
                let bucket = decode_bucket(d)?;
                let mut owner = UserId {
                    id: d.string("RGWBucketEntryPoint.owner")?,
                    ..UserId::default()
                };
                let linked = d.bool("RGWBucketEntryPoint.linked")?;
                let at = d.position();
                let ctime = d.u64("RGWBucketEntryPoint.ctime")?;
                if v >= 9 {
                    owner = decode_user_id(d)?;
                }
                let creation_time = if v >= 10 {
                    d.time("RGWBucketEntryPoint.creation_time")?
                } else {
                    from_time_t(ctime, "RGWBucketEntryPoint.ctime", at)?
                };
                Ok(EntryPoint {
                    bucket,
                    owner,
                    linked,
                    creation_time,
                    old_info: None,
                })
            },
        )
    })
}

/// A `time_t` written as a `uint64_t`, read at byte `at`.
fn from_time_t(secs: u64, what: &'static str, at: usize) -> Result<SystemTime> {
    SystemTime::UNIX_EPOCH
        .checked_add(std::time::Duration::from_secs(secs))
        .ok_or(DecodeError::Value {
            what,
            value: secs,
            at,
        })
}

impl EntryPoint {
    /// `RGWBucketEntryPoint::dump`: the `data` of `radosgw-admin metadata
    /// get bucket:B`.
    pub fn to_json(&self) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("bucket".into(), self.bucket.to_json());
        o.insert("owner".into(), json!(self.owner.to_str()));
        o.insert("creation_time".into(), utime(self.creation_time));
        o.insert("linked".into(), bool_str(self.linked));
        o.insert("has_bucket_info".into(), bool_str(self.old_info.is_some()));
        if let Some(info) = &self.old_info {
            o.insert("old_bucket_info".into(), info.to_json());
        }
        Value::Object(o)
    }
}

/// A redirect (`RGWRedirectInfo`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirect {
    /// `http` or `https`, empty for the request's.
    pub protocol: String,
    /// The host to send clients to, empty for the request's.
    pub hostname: String,
    /// The status (0: 301).
    pub http_redirect_code: u16,
}

/// A website routing rule (`RGWBWRoutingRule`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoutingRule {
    /// The condition's key prefix.
    pub key_prefix_equals: String,
    /// The condition's error status (0: any).
    pub http_error_code_returned_equals: u16,
    /// Where to send the client.
    pub redirect: Redirect,
    /// The prefix that replaces the condition's.
    pub replace_key_prefix_with: String,
    /// The key that replaces the whole key.
    pub replace_key_with: String,
}

/// A bucket's website configuration (`RGWBucketWebsiteConf`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WebsiteConf {
    /// Every request redirected there (when its hostname is set).
    pub redirect_all: Redirect,
    /// The index document's suffix.
    pub index_doc_suffix: String,
    /// The error document.
    pub error_doc: String,
    /// The routing rules, in order.
    pub routing_rules: Vec<RoutingRule>,
    /// Swift's static website listing settings (version 2).
    pub subdir_marker: String,
    /// Swift's listing stylesheet (version 2).
    pub listing_css_doc: String,
    /// Swift's listings on (version 2).
    pub listing_enabled: bool,
}

fn decode_redirect(d: &mut Decoder<'_>) -> Result<Redirect> {
    d.block("RGWRedirectInfo", Header::Start { known: 1 }, |d, _| {
        Ok(Redirect {
            protocol: d.string("RGWRedirectInfo.protocol")?,
            hostname: d.string("RGWRedirectInfo.hostname")?,
            http_redirect_code: d.u16("RGWRedirectInfo.http_redirect_code")?,
        })
    })
}

fn decode_routing_rule(d: &mut Decoder<'_>) -> Result<RoutingRule> {
    d.block("RGWBWRoutingRule", Header::Start { known: 1 }, |d, _| {
        let (key_prefix_equals, http_error_code_returned_equals) = d.block(
            "RGWBWRoutingRuleCondition",
            Header::Start { known: 1 },
            |d, _| {
                Ok((
                    d.string("RGWBWRoutingRuleCondition.key_prefix_equals")?,
                    d.u16("RGWBWRoutingRuleCondition.http_error_code_returned_equals")?,
                ))
            },
        )?;
        d.block("RGWBWRedirectInfo", Header::Start { known: 1 }, |d, _| {
            Ok(RoutingRule {
                key_prefix_equals,
                http_error_code_returned_equals,
                redirect: decode_redirect(d)?,
                replace_key_prefix_with: d.string("RGWBWRedirectInfo.replace_key_prefix_with")?,
                replace_key_with: d.string("RGWBWRedirectInfo.replace_key_with")?,
            })
        })
    })
}

fn decode_website(d: &mut Decoder<'_>) -> Result<WebsiteConf> {
    d.block(
        "RGWBucketWebsiteConf",
        Header::Start { known: 2 },
        |d, v| {
            let mut w = WebsiteConf {
                index_doc_suffix: d.string("RGWBucketWebsiteConf.index_doc_suffix")?,
                error_doc: d.string("RGWBucketWebsiteConf.error_doc")?,
                routing_rules: d.block(
                    "RGWBWRoutingRules",
                    Header::Start { known: 1 },
                    |d, _| d.seq("RGWBWRoutingRules.rules", 6, decode_routing_rule),
                )?,
                redirect_all: decode_redirect(d)?,
                ..WebsiteConf::default()
            };
            if v >= 2 {
                w.subdir_marker = d.string("RGWBucketWebsiteConf.subdir_marker")?;
                w.listing_css_doc = d.string("RGWBucketWebsiteConf.listing_css_doc")?;
                w.listing_enabled = d.bool("RGWBucketWebsiteConf.listing_enabled")?;
            }
            Ok(w)
        },
    )
}

impl Redirect {
    fn to_json(&self) -> Value {
        json!({
            "protocol": self.protocol,
            "hostname": self.hostname,
            "http_redirect_code": self.http_redirect_code,
        })
    }
}

impl WebsiteConf {
    /// `RGWBucketWebsiteConf::dump`: the redirect alone when every request
    /// is redirected.
    pub fn to_json(&self) -> Value {
        if !self.redirect_all.hostname.is_empty() {
            return json!({ "redirect_all": self.redirect_all.to_json() });
        }
        let rules: Vec<Value> = self
            .routing_rules
            .iter()
            .map(|r| {
                json!({
                    "condition": {
                        "key_prefix_equals": r.key_prefix_equals,
                        "http_error_code_returned_equals": r.http_error_code_returned_equals,
                    },
                    "redirect_info": {
                        "redirect": r.redirect.to_json(),
                        "replace_key_prefix_with": r.replace_key_prefix_with,
                        "replace_key_with": r.replace_key_with,
                    },
                })
            })
            .collect();
        json!({
            "index_doc_suffix": self.index_doc_suffix,
            "error_doc": self.error_doc,
            "routing_rules": { "rules": rules },
        })
    }
}

/// A bucket's object lock configuration (`RGWObjectLock`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectLock {
    /// Object lock on (it cannot be turned off).
    pub enabled: bool,
    /// The default retention, when a rule is set: mode (`GOVERNANCE` or
    /// `COMPLIANCE`), days, years.
    pub default_retention: Option<(String, i32, i32)>,
}

fn decode_object_lock(d: &mut Decoder<'_>) -> Result<ObjectLock> {
    d.block("RGWObjectLock", Header::Start { known: 1 }, |d, _| {
        let enabled = d.bool("RGWObjectLock.enabled")?;
        let default_retention = if d.bool("RGWObjectLock.rule_exist")? {
            Some(
                d.block("ObjectLockRule", Header::Start { known: 1 }, |d, _| {
                    d.block("DefaultRetention", Header::Start { known: 1 }, |d, _| {
                        Ok((
                            d.string("DefaultRetention.mode")?,
                            d.i32("DefaultRetention.days")?,
                            d.i32("DefaultRetention.years")?,
                        ))
                    })
                })?,
            )
        } else {
            None
        };
        Ok(ObjectLock {
            enabled,
            default_retention,
        })
    })
}

/// Where a bucket's index is now (`bucket_index_layout_generation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexLayout {
    /// The generation: radosgw 16.2 keeps 0 (its reshard makes a new
    /// instance), whose shard objects are `.dir.<bucket_id>.<shard>`;
    /// later releases reshard in place and add `.<gen>` before the shard.
    pub generation: u64,
    /// `BucketIndexType`: 0 normal, 1 indexless.
    pub index_type: u8,
    /// Shards (0: one unsharded index object, `.dir.<marker>`).
    pub num_shards: u32,
    /// `BucketHashType`: 0, the shard is `ceph_str_hash_linux(key) %
    /// num_shards`.
    pub hash_type: u8,
}

/// A bucket instance (`RGWBucketInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketInfo {
    /// The record's version (`struct_v`).
    pub version: u8,
    /// The bucket and this instance.
    pub bucket: Bucket,
    /// The owner.
    pub owner: UserId,
    /// `BUCKET_*` flags ([`FLAG_VERSIONED`] and the others).
    pub flags: u32,
    /// The zone group the bucket lives in.
    pub zonegroup: String,
    /// When it was made.
    pub creation_time: SystemTime,
    /// Its placement target and storage class.
    pub placement_rule: PlacementRule,
    /// Whether an instance object exists (old entry points).
    pub has_instance_obj: bool,
    /// The bucket's quota.
    pub quota: QuotaInfo,
    /// Where its index is.
    pub index: IndexLayout,
    /// Requester pays.
    pub requester_pays: bool,
    /// The website configuration, if one is set.
    pub website: Option<WebsiteConf>,
    /// Swift's object versioning: the container old versions go to.
    pub swift_ver_location: Option<String>,
    /// Metadata search's configuration (Elasticsearch sync).
    pub mdsearch_config: Vec<(String, u32)>,
    /// `cls_rgw_reshard_status`: 0 none, 1 in progress, 2 done.
    pub reshard_status: u8,
    /// The instance a reshard is making.
    pub new_bucket_instance_id: String,
    /// Object lock, when [`FLAG_OBJ_LOCK_ENABLED`] is set.
    pub object_lock: Option<ObjectLock>,
    /// A multisite sync policy's encoded block, when the bucket has one
    /// (kept, not read: multisite is not served).
    pub sync_policy: Option<Vec<u8>>,
}

impl BucketInfo {
    /// Versioning as S3 names it: `None` never enabled, else `Enabled` or
    /// `Suspended`.
    pub fn versioning(&self) -> Option<&'static str> {
        if self.flags & FLAG_VERSIONS_SUSPENDED != 0 {
            Some("Suspended")
        } else if self.flags & FLAG_VERSIONED != 0 {
            Some("Enabled")
        } else {
            None
        }
    }
}

/// Decodes a `root/.bucket.meta.<bucket>:<id>` object's data; every byte
/// must belong to it.
pub fn decode_bucket_instance(bytes: &[u8]) -> Result<BucketInfo> {
    Decoder::whole(bytes, decode_bucket_info)
}

/// `RGWBucketInfo`'s versions from 22 keep the index's shape in a
/// `BucketLayout` of their own.
const NEW_LAYOUT_V: u8 = 22;

/// Decodes an `RGWBucketInfo` (versions 1 to 23).
pub fn decode_bucket_info(d: &mut Decoder<'_>) -> Result<BucketInfo> {
    d.block("RGWBucketInfo", Header::legacy_32(23, 4, 4), |d, v| {
        let mut info = BucketInfo {
            version: v,
            bucket: decode_bucket(d)?,
            owner: UserId::default(),
            flags: 0,
            zonegroup: String::new(),
            creation_time: SystemTime::UNIX_EPOCH,
            placement_rule: PlacementRule::default(),
            has_instance_obj: false,
            quota: QuotaInfo::default(),
            index: IndexLayout {
                generation: 0,
                index_type: 0,
                num_shards: 0,
                hash_type: 0,
            },
            requester_pays: false,
            website: None,
            swift_ver_location: None,
            mdsearch_config: Vec::new(),
            reshard_status: 0,
            new_bucket_instance_id: String::new(),
            object_lock: None,
            sync_policy: None,
        };
        if v >= 2 {
            info.owner = UserId::parse(&d.string("RGWBucketInfo.owner")?);
        }
        if v >= 3 {
            info.flags = d.u32("RGWBucketInfo.flags")?;
        }
        if v >= 5 {
            info.zonegroup = d.string("RGWBucketInfo.zonegroup")?;
        }
        if v >= 6 {
            let at = d.position();
            let ct = d.u64("RGWBucketInfo.ct")?;
            if v < 17 {
                info.creation_time = from_time_t(ct, "RGWBucketInfo.ct", at)?;
            }
        }
        if v >= 7 {
            info.placement_rule = decode_placement_rule(d, "RGWBucketInfo.placement_rule")?;
        }
        if v >= 8 {
            info.has_instance_obj = d.bool("RGWBucketInfo.has_instance_obj")?;
        }
        if v >= 9 {
            info.quota = decode_quota(d)?;
        }
        if (10..NEW_LAYOUT_V).contains(&v) {
            info.index.num_shards = d.u32("RGWBucketInfo.num_shards")?;
        }
        if (11..NEW_LAYOUT_V).contains(&v) {
            info.index.hash_type = d.u8("RGWBucketInfo.bucket_index_shard_hash_type")?;
        }
        if v >= 12 {
            info.requester_pays = d.bool("RGWBucketInfo.requester_pays")?;
        }
        if v >= 13 {
            info.owner.tenant = d.string("RGWBucketInfo.owner.tenant")?;
        }
        if v >= 14 && d.bool("RGWBucketInfo.has_website")? {
            info.website = Some(decode_website(d)?);
        }
        if (15..NEW_LAYOUT_V).contains(&v) {
            let index_type = d.u32("RGWBucketInfo.index_type")?;
            info.index.index_type = u8::try_from(index_type).unwrap_or(u8::MAX);
        }
        if v >= 16 && d.bool("RGWBucketInfo.swift_versioning")? {
            info.swift_ver_location = Some(d.string("RGWBucketInfo.swift_ver_location")?);
        }
        if v >= 17 {
            info.creation_time = d.time("RGWBucketInfo.creation_time")?;
        }
        if v >= 18 {
            info.mdsearch_config = d.seq("RGWBucketInfo.mdsearch_config", 8, |d| {
                Ok((
                    d.string("RGWBucketInfo.mdsearch_config")?,
                    d.u32("RGWBucketInfo.mdsearch_config")?,
                ))
            })?;
        }
        if v >= 19 {
            info.reshard_status = d.u8("RGWBucketInfo.reshard_status")?;
            info.new_bucket_instance_id = d.string("RGWBucketInfo.new_bucket_instance_id")?;
        }
        if v >= 20 && info.flags & FLAG_OBJ_LOCK_ENABLED != 0 {
            info.object_lock = Some(decode_object_lock(d)?);
        }
        if v >= 21 {
            info.sync_policy = d.optional("RGWBucketInfo.sync_policy", |d| {
                Ok(d.raw_block("rgw_sync_policy_info")?.to_vec())
            })?;
        }
        if v >= NEW_LAYOUT_V {
            info.index = decode_layout(d)?;
        }
        if v >= 23 {
            info.owner.ns = d.string("RGWBucketInfo.owner.ns")?;
        }
        Ok(info)
    })
}

/// `rgw::BucketLayout` (versions 1 and 2): the current index's layout; a
/// reshard's target and the logs' layouts are read past.
fn decode_layout(d: &mut Decoder<'_>) -> Result<IndexLayout> {
    d.block("BucketLayout", Header::Start { known: 2 }, |d, _| {
        d.u8("BucketLayout.resharding")?;
        let current = decode_index_layout_generation(d)?;
        // the target of a reshard in progress, and (version 2) the logs:
        // the fields after the current layout, skipped with the block
        Ok(current)
    })
}

fn decode_index_layout_generation(d: &mut Decoder<'_>) -> Result<IndexLayout> {
    d.block(
        "bucket_index_layout_generation",
        Header::Start { known: 1 },
        |d, _| {
            let generation = d.u64("bucket_index_layout_generation.gen")?;
            d.block("bucket_index_layout", Header::Start { known: 1 }, |d, _| {
                let index_type = d.u8("bucket_index_layout.type")?;
                let (num_shards, hash_type) = if index_type == 0 {
                    d.block(
                        "bucket_index_normal_layout",
                        Header::Start { known: 1 },
                        |d, _| {
                            Ok((
                                d.u32("bucket_index_normal_layout.num_shards")?,
                                d.u8("bucket_index_normal_layout.hash_type")?,
                            ))
                        },
                    )?
                } else {
                    (0, 0)
                };
                Ok(IndexLayout {
                    generation,
                    index_type,
                    num_shards,
                    hash_type,
                })
            })
        },
    )
}

impl BucketInfo {
    /// `RGWBucketInfo::dump`: the `bucket_info` of `radosgw-admin metadata
    /// get bucket.instance:B:ID`. A sync policy is not printed (multisite
    /// is not served).
    pub fn to_json(&self) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("bucket".into(), self.bucket.to_json());
        o.insert("creation_time".into(), utime(self.creation_time));
        o.insert("owner".into(), json!(self.owner.to_str()));
        o.insert("flags".into(), json!(self.flags));
        o.insert("zonegroup".into(), json!(self.zonegroup));
        o.insert("placement_rule".into(), json!(self.placement_rule.to_str()));
        o.insert("has_instance_obj".into(), bool_str(self.has_instance_obj));
        o.insert("quota".into(), quota_json(&self.quota));
        o.insert("num_shards".into(), json!(self.index.num_shards));
        o.insert("bi_shard_hash_type".into(), json!(self.index.hash_type));
        o.insert("requester_pays".into(), bool_str(self.requester_pays));
        o.insert("has_website".into(), bool_str(self.website.is_some()));
        if let Some(w) = &self.website {
            o.insert("website_conf".into(), w.to_json());
        }
        o.insert(
            "swift_versioning".into(),
            bool_str(self.swift_ver_location.is_some()),
        );
        o.insert(
            "swift_ver_location".into(),
            json!(self.swift_ver_location.as_deref().unwrap_or("")),
        );
        o.insert("index_type".into(), json!(self.index.index_type));
        o.insert(
            "mdsearch_config".into(),
            Value::Array(
                self.mdsearch_config
                    .iter()
                    .map(|(k, v)| json!({"key": k, "val": v}))
                    .collect(),
            ),
        );
        o.insert("reshard_status".into(), json!(self.reshard_status));
        o.insert(
            "new_bucket_instance_id".into(),
            json!(self.new_bucket_instance_id),
        );
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::DecodeError;

    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    fn block(v: u8, compat: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![v, compat];
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    /// An entry point of version 8: its creation time is the `time_t`.
    fn entry_point_v8(ctime: u64) -> Vec<u8> {
        let mut bucket = Vec::new();
        for s in ["b", "m", "id", ""] {
            string(&mut bucket, s);
        }
        bucket.push(0);
        let mut body = block(10, 10, &bucket);
        string(&mut body, "owner");
        body.push(1);
        body.extend_from_slice(&ctime.to_le_bytes());
        block(8, 4, &body)
    }

    #[test]
    fn an_old_entry_points_time_t_is_its_creation_time() {
        let ep = decode_entry_point(&entry_point_v8(1_796_621_664)).expect("decodes");
        assert_eq!(ep.owner.to_str(), "owner");
        assert_eq!(
            crate::dump::utime(ep.creation_time),
            serde_json::json!("2026-12-07T05:34:24.000000Z")
        );
        // a time no clock can hold is an error (it overflowed before; found
        // by the radosgw_records fuzz target)
        assert!(matches!(
            decode_entry_point(&entry_point_v8(u64::MAX)),
            Err(DecodeError::Value {
                value: u64::MAX,
                ..
            })
        ));
    }
}
