//! A zone's parameters in `.rgw.root`: where its records and objects are
//! (`RGWZoneParams`, `rgw_zone.h` in ceph/ceph), found by name through
//! `zone_names.<name>` (an `RGWNameToId`) and read from
//! `zone_info.<id>`; `radosgw-admin zone get` prints the same.

use serde_json::{Map, Value, json};

use crate::bucket::{Pool, decode_pool};
use crate::encoding::{Decoder, Header, Result};
use crate::user::{AccessKey, decode_access_key};

/// The pool of zone, zone group and realm records.
pub const ROOT_POOL: &str = ".rgw.root";

/// The object naming zone `name`'s id in [`ROOT_POOL`].
pub fn names_object(name: &str) -> String {
    format!("zone_names.{name}")
}

/// The object holding zone `id`'s parameters in [`ROOT_POOL`].
pub fn info_object(id: &str) -> String {
    format!("zone_info.{id}")
}

/// Decodes a `zone_names.<name>` object (`RGWNameToId`): the zone's id.
pub fn decode_name_to_id(bytes: &[u8]) -> Result<String> {
    Decoder::whole(bytes, |d| {
        d.block("RGWNameToId", Header::Start { known: 1 }, |d, _| {
            d.string("RGWNameToId.obj_id")
        })
    })
}

/// One storage class of a placement target (`RGWZoneStorageClass`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageClass {
    /// The class's name (`STANDARD`, ...).
    pub name: String,
    /// Where its objects' data go.
    pub data_pool: Option<Pool>,
    /// How radosgw compresses them, if it does.
    pub compression_type: Option<String>,
}

/// A placement target's pools (`RGWZonePlacementInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The target's name (`default-placement`, ...).
    pub name: String,
    /// Where its buckets' indexes are.
    pub index_pool: Pool,
    /// Where multipart uploads' records are.
    pub data_extra_pool: Pool,
    /// `rgw::BucketIndexType`: 0 an index in RADOS, 1 none.
    pub index_type: u32,
    /// Its storage classes, by name.
    pub storage_classes: Vec<StorageClass>,
}

impl Placement {
    /// The data pool of storage class `class` (`""` is `STANDARD`); as
    /// radosgw's `get_data_pool`, an unknown class falls back to
    /// `STANDARD`'s.
    pub fn data_pool(&self, class: &str) -> Option<&Pool> {
        let class = if class.is_empty() { "STANDARD" } else { class };
        let find = |name: &str| {
            self.storage_classes
                .iter()
                .find(|c| c.name == name)
                .and_then(|c| c.data_pool.as_ref())
        };
        find(class).or_else(|| find("STANDARD"))
    }
}

/// A zone's parameters (`RGWZoneParams`, up to version 14, radosgw
/// 16.2's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneParams {
    /// The zone's id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The pools of its records, by `radosgw-admin zone get`'s names
    /// (`domain_root`, `user_uid_pool`, ...), in its order.
    pub pools: Vec<(&'static str, Pool)>,
    /// The system user's key.
    pub system_key: AccessKey,
    /// Its placement targets, by name.
    pub placement_pools: Vec<Placement>,
    /// The realm it belongs to (empty for none).
    pub realm_id: String,
}

impl ZoneParams {
    /// The pool named `which` (`domain_root`, `user_uid_pool`...).
    pub fn pool(&self, which: &str) -> Option<&Pool> {
        self.pools.iter().find(|(n, _)| *n == which).map(|(_, p)| p)
    }

    /// Placement target `name`.
    pub fn placement(&self, name: &str) -> Option<&Placement> {
        self.placement_pools.iter().find(|p| p.name == name)
    }

    /// `radosgw-admin zone get`'s JSON.
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), json!(self.id));
        o.insert("name".into(), json!(self.name));
        for (name, pool) in &self.pools {
            o.insert((*name).into(), json!(pool.to_str()));
        }
        o.insert(
            "system_key".into(),
            json!({"access_key": self.system_key.id, "secret_key": self.system_key.key}),
        );
        let placements: Vec<Value> = self
            .placement_pools
            .iter()
            .map(|p| {
                let classes: Map<String, Value> = p
                    .storage_classes
                    .iter()
                    .map(|c| {
                        let mut v = Map::new();
                        if let Some(pool) = &c.data_pool {
                            v.insert("data_pool".into(), json!(pool.to_str()));
                        }
                        if let Some(t) = &c.compression_type {
                            v.insert("compression_type".into(), json!(t));
                        }
                        (c.name.clone(), Value::Object(v))
                    })
                    .collect();
                json!({"key": p.name, "val": {
                    "index_pool": p.index_pool.to_str(),
                    "storage_classes": classes,
                    "data_extra_pool": p.data_extra_pool.to_str(),
                    "index_type": p.index_type,
                }})
            })
            .collect();
        o.insert("placement_pools".into(), Value::Array(placements));
        o.insert("realm_id".into(), json!(self.realm_id));
        Value::Object(o)
    }
}

/// Decodes a `zone_info.<id>` object; every byte must belong to it.
pub fn decode_zone_params(bytes: &[u8]) -> Result<ZoneParams> {
    Decoder::whole(bytes, |d| {
        d.block("RGWZoneParams", Header::Start { known: 14 }, |d, v| {
            let mut pools = Vec::new();
            for name in [
                "domain_root",
                "control_pool",
                "gc_pool",
                "log_pool",
                "intent_log_pool",
                "usage_log_pool",
                "user_keys_pool",
                "user_email_pool",
                "user_swift_pool",
                "user_uid_pool",
            ] {
                pools.push((name, decode_pool(d)?));
            }
            let (id, name) = if v >= 6 {
                d.block("RGWSystemMetaObj", Header::Start { known: 1 }, |d, _| {
                    Ok((
                        d.string("RGWSystemMetaObj.id")?,
                        d.string("RGWSystemMetaObj.name")?,
                    ))
                })?
            } else if v >= 2 {
                let name = d.string("RGWZoneParams.name")?;
                (name.clone(), name)
            } else {
                (String::new(), String::new())
            };
            let system_key = if v >= 3 {
                decode_access_key(d)?
            } else {
                AccessKey::default()
            };
            let placement_pools = if v >= 4 {
                d.seq("RGWZoneParams.placement_pools", 5, |d| {
                    let name = d.string("RGWZoneParams.placement_pools")?;
                    decode_placement(d, name)
                })?
            } else {
                Vec::new()
            };
            if v >= 5 {
                decode_pool(d)?; // metadata_heap, unused
            }
            let realm_id = if v >= 6 {
                d.string("RGWZoneParams.realm_id")?
            } else {
                String::new()
            };
            let log = pools[3].1.name.clone();
            let derived = |suffix: &str| Pool::parse(&format!("{log}:{suffix}"));
            let lc = if v >= 7 {
                decode_pool(d)?
            } else {
                derived("lc")
            };
            if v >= 8 {
                d.seq("RGWZoneParams.old_tier_config", 8, |d| {
                    d.string("RGWZoneParams.old_tier_config")?;
                    d.string("RGWZoneParams.old_tier_config")
                })?;
            }
            let roles = if v >= 9 {
                decode_pool(d)?
            } else {
                Pool::parse(&format!("{name}.rgw.meta:roles"))
            };
            let reshard = if v >= 10 {
                decode_pool(d)?
            } else {
                derived("reshard")
            };
            let otp = if v >= 11 {
                decode_pool(d)?
            } else {
                Pool::parse(&format!("{name}.rgw.otp"))
            };
            if v >= 12 {
                d.raw_block("RGWZoneParams.tier_config")?;
            }
            if v >= 13 {
                decode_pool(d)?; // oidc_pool: radosgw-admin 16.2 does not print it
            }
            let notif = if v >= 14 {
                decode_pool(d)?
            } else {
                derived("notif")
            };
            // radosgw-admin's order
            pools.insert(3, ("lc_pool", lc));
            pools.insert(7, ("roles_pool", roles));
            pools.insert(8, ("reshard_pool", reshard));
            pools.push(("otp_pool", otp));
            pools.push(("notif_pool", notif));
            Ok(ZoneParams {
                id,
                name,
                pools,
                system_key,
                placement_pools,
                realm_id,
            })
        })
    })
}

fn decode_placement(d: &mut Decoder<'_>, name: String) -> Result<Placement> {
    d.block(
        "RGWZonePlacementInfo",
        Header::Start { known: 7 },
        |d, v| {
            let index_pool = Pool::parse(&d.string("RGWZonePlacementInfo.index_pool")?);
            let standard_pool = Pool::parse(&d.string("RGWZonePlacementInfo.data_pool")?);
            let data_extra_pool = if v >= 4 {
                Pool::parse(&d.string("RGWZonePlacementInfo.data_extra_pool")?)
            } else {
                Pool::default()
            };
            let index_type = if v >= 5 {
                d.u32("RGWZonePlacementInfo.index_type")?
            } else {
                0
            };
            let compression = if v >= 6 {
                d.string("RGWZonePlacementInfo.compression_type")?
            } else {
                String::new()
            };
            let storage_classes = if v >= 7 {
                d.block(
                    "RGWZoneStorageClasses",
                    Header::Start { known: 1 },
                    |d, _| {
                        d.seq("RGWZoneStorageClasses.m", 10, |d| {
                            let name = d.string("RGWZoneStorageClasses.m")?;
                            d.block("RGWZoneStorageClass", Header::Start { known: 1 }, |d, _| {
                                Ok(StorageClass {
                                    name,
                                    data_pool: d
                                        .optional("RGWZoneStorageClass.data_pool", decode_pool)?,
                                    compression_type: d
                                        .optional("RGWZoneStorageClass.compression_type", |d| {
                                            d.string("RGWZoneStorageClass.compression_type")
                                        })?,
                                })
                            })
                        })
                    },
                )?
            } else {
                vec![StorageClass {
                    name: "STANDARD".into(),
                    data_pool: Some(standard_pool),
                    compression_type: (!compression.is_empty()).then_some(compression),
                }]
            };
            Ok(Placement {
                name,
                index_pool,
                data_extra_pool,
                index_type,
                storage_classes,
            })
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// radosgw 16.2's default zone and the object naming it.
    const ZONE: &[u8] = include_bytes!("../tests/data/zone-info-default.bin");
    const NAMES: &[u8] = include_bytes!("../tests/data/zone-names-default.bin");

    #[test]
    fn the_default_zone_decodes() {
        let id = decode_name_to_id(NAMES).expect("names");
        let zone = decode_zone_params(ZONE).expect("zone");
        assert_eq!(
            (zone.id.as_str(), zone.name.as_str()),
            (id.as_str(), "default")
        );
        let uid = zone.pool("user_uid_pool").expect("uid pool");
        assert_eq!(
            (uid.name.as_str(), uid.ns.as_str()),
            ("default.rgw.meta", "users.uid")
        );
        let p = zone.placement("default-placement").expect("placement");
        assert_eq!(p.index_pool.to_str(), "default.rgw.buckets.index");
        assert_eq!(
            p.data_pool("").map(Pool::to_str).as_deref(),
            Some("default.rgw.buckets.data")
        );
        assert_eq!(p.data_pool("COLD"), p.data_pool("STANDARD"));
        assert_eq!(zone.to_json()["notif_pool"], "default.rgw.log:notif");
        for cut in [0, 1, 10, ZONE.len() / 2, ZONE.len() - 1] {
            assert!(decode_zone_params(&ZONE[..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn pool_strings_round_trip() {
        for (name, ns) in [("a", ""), ("a.b", "c"), ("we:ird\\", "n:s")] {
            let p = Pool {
                name: name.into(),
                ns: ns.into(),
            };
            assert_eq!(Pool::parse(&p.to_str()), p);
        }
    }
}
