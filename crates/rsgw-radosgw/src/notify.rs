//! radosgw's cache notifications: what a radosgw sends on its zone's
//! control objects (`notify.<n>` in the control pool) when it changes a
//! metadata record (a user, a key, a bucket's entry point or instance), so
//! that every radosgw drops or replaces its cached copy
//! (`RGWCacheNotifyInfo`, `rgw_cache.h` in ceph/ceph). A gateway serving
//! radosgw's records watches the same objects to stay coherent with it.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::bucket::{Pool, decode_pool, encode_pool};
use crate::dump::utime;
use crate::encoding::{Decoder, Encoder, Header, Result};

/// `UPDATE_OBJ`: the record changed; the notification may carry it.
pub const OP_UPDATE: u32 = 0;
/// `INVALIDATE_OBJ`: the record changed or went away; drop it.
pub const OP_INVALIDATE: u32 = 1;

/// `CACHE_FLAG_DATA`: the notification carries the record's data.
pub const FLAG_DATA: u32 = 0x01;
/// `CACHE_FLAG_XATTRS`: it carries the record's xattrs.
pub const FLAG_XATTRS: u32 = 0x02;
/// `CACHE_FLAG_META`: it carries size and mtime.
pub const FLAG_META: u32 = 0x04;
/// `CACHE_FLAG_MODIFY_XATTRS`: it carries xattrs set and removed.
pub const FLAG_MODIFY_XATTRS: u32 = 0x08;
/// `CACHE_FLAG_OBJV`: it carries the record's version.
pub const FLAG_OBJV: u32 = 0x10;

/// One notification (`RGWCacheNotifyInfo` with its `ObjectCacheInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheNotice {
    /// [`OP_UPDATE`] or [`OP_INVALIDATE`].
    pub op: u32,
    /// The record's pool and namespace.
    pub pool: Pool,
    /// The record's object.
    pub oid: String,
    /// Its locator.
    pub loc: String,
    /// `CACHE_FLAG_*`: which of the fields below it carries.
    pub flags: u32,
    /// The record's data, when [`FLAG_DATA`].
    pub data: Vec<u8>,
    /// Xattrs set, by name (their values are records of their own).
    pub xattrs: Vec<(String, Vec<u8>)>,
    /// Xattrs removed, by name.
    pub rm_xattrs: Vec<String>,
    /// Size and modification time, when [`FLAG_META`].
    pub size: u64,
    /// See `size`.
    pub mtime: SystemTime,
    /// The record's version (`obj_version`: a counter and a tag), when
    /// [`FLAG_OBJV`].
    pub version: (u64, String),
}

impl CacheNotice {
    /// The notification as JSON: the op by name, the record
    /// (`pool[:ns]/oid`), and what it carries (xattrs by name, data by
    /// size).
    pub fn to_json(&self) -> Value {
        json!({
            "op": match self.op {
                OP_UPDATE => "update".to_string(),
                OP_INVALIDATE => "invalidate".to_string(),
                n => n.to_string(),
            },
            "pool": self.pool.to_str(),
            "oid": self.oid,
            "loc": self.loc,
            "flags": self.flags,
            "data_len": self.data.len(),
            "xattrs": self.xattrs.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            "rm_xattrs": self.rm_xattrs,
            "size": self.size,
            "mtime": utime(self.mtime),
            "version": {"ver": self.version.0, "tag": self.version.1},
        })
    }
}

/// Decodes a notification's payload; every byte must belong to it.
pub fn decode_cache_notice(bytes: &[u8]) -> Result<CacheNotice> {
    Decoder::whole(bytes, |d| {
        d.block("RGWCacheNotifyInfo", Header::legacy(2, 2, 2), |d, _| {
            let op = d.u32("RGWCacheNotifyInfo.op")?;
            let (pool, oid, loc) = d.block("rgw_raw_obj", Header::legacy(6, 6, 6), |d, _| {
                Ok((
                    decode_pool(d)?,
                    d.string("rgw_raw_obj.oid")?,
                    d.string("rgw_raw_obj.loc")?,
                ))
            })?;
            let mut notice = d.block("ObjectCacheInfo", Header::legacy(5, 3, 3), |d, v| {
                d.i32("ObjectCacheInfo.status")?;
                let flags = d.u32("ObjectCacheInfo.flags")?;
                let data = bytes_field(d, "ObjectCacheInfo.data")?;
                let xattrs = d.seq("ObjectCacheInfo.xattrs", 8, |d| {
                    Ok((
                        d.string("ObjectCacheInfo.xattrs")?,
                        bytes_field(d, "ObjectCacheInfo.xattrs")?,
                    ))
                })?;
                let (size, mtime) =
                    d.block("ObjectMetaInfo", Header::legacy(2, 2, 2), |d, _| {
                        Ok((
                            d.u64("ObjectMetaInfo.size")?,
                            d.time("ObjectMetaInfo.mtime")?,
                        ))
                    })?;
                let rm_xattrs = if v >= 2 {
                    d.seq("ObjectCacheInfo.rm_xattrs", 8, |d| {
                        let name = d.string("ObjectCacheInfo.rm_xattrs")?;
                        bytes_field(d, "ObjectCacheInfo.rm_xattrs")?;
                        Ok(name)
                    })?
                } else {
                    Vec::new()
                };
                if v >= 4 {
                    d.u64("ObjectCacheInfo.epoch")?;
                }
                let version = if v >= 5 {
                    d.block("obj_version", Header::Start { known: 1 }, |d, _| {
                        Ok((d.u64("obj_version.ver")?, d.string("obj_version.tag")?))
                    })?
                } else {
                    (0, String::new())
                };
                Ok(CacheNotice {
                    op,
                    pool: Pool::default(),
                    oid: String::new(),
                    loc: String::new(),
                    flags,
                    data,
                    xattrs,
                    rm_xattrs,
                    size,
                    mtime,
                    version,
                })
            })?;
            d.i64("RGWCacheNotifyInfo.ofs")?;
            d.string("RGWCacheNotifyInfo.ns")?;
            notice.pool = pool;
            notice.oid = oid;
            notice.loc = loc;
            Ok(notice)
        })
    })
}

/// The payload radosgw 16.2 sends to drop every gateway's cached copy of
/// RADOS object `oid` of `pool` (an `INVALIDATE_OBJ` carrying nothing, as
/// radosgw's removals send it): each radosgw reads the record again on its
/// next use, and so does rsgw.
pub fn encode_invalidation(pool: &Pool, oid: &str) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(2, 2, |e| {
        e.u32(OP_INVALIDATE);
        e.block(6, 6, |e| {
            encode_pool(e, pool);
            e.string(oid).string("");
        });
        e.block(5, 3, |e| {
            // status, flags, data, xattrs
            e.i32(0).u32(0).u32(0).u32(0);
            e.block(2, 2, |e| {
                e.u64(0).time(SystemTime::UNIX_EPOCH);
            });
            // rm_xattrs, epoch
            e.u32(0).u64(0);
            e.block(1, 1, |e| {
                e.u64(0).string("");
            });
        });
        e.i64(0).string("");
    });
    e.into_bytes()
}

fn bytes_field(d: &mut Decoder<'_>, what: &'static str) -> Result<Vec<u8>> {
    Ok(d.buffer(what)?.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What radosgw-admin 16.2 sent on `notify.7` when it removed a
    /// tenant's user (an invalidation: nothing carried, flags 0).
    const TENANT_USER: &[u8] = include_bytes!("../tests/data/notify-user.bin");

    #[test]
    fn a_user_removed_is_named() {
        let n = decode_cache_notice(TENANT_USER).expect("decode");
        assert_eq!(n.op, OP_INVALIDATE);
        assert_eq!(n.pool.to_str(), "default.rgw.meta:users.uid");
        assert_eq!(n.oid, "tnd2987b02$bk-d2987b02");
        assert_eq!((n.flags, n.data.len(), n.xattrs.len()), (0, 0, 0));
        for cut in 0..TENANT_USER.len() {
            assert!(decode_cache_notice(&TENANT_USER[..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn an_invalidation_is_the_bytes_radosgw_sends() {
        let n = decode_cache_notice(TENANT_USER).expect("decode");
        assert_eq!(encode_invalidation(&n.pool, &n.oid), TENANT_USER);
    }
}
