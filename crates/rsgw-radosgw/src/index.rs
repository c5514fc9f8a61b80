//! radosgw's bucket index in `<zone>.rgw.buckets.index`: one object per
//! shard, `.dir.<bucket_id>.<shard>` (`.dir.<bucket_id>` unsharded; the
//! instance's id, not the marker: radosgw 16.2's reshard makes a new
//! instance with new index objects, and the objects keep the marker),
//! whose omap holds an entry per key ([`DirEntry`], `rgw_bucket_dir_entry`;
//! the omap key is the object's name for a plain entry, and begins with
//! the byte 0x80 for versioned objects' instance and OLH entries) and whose
//! omap header holds the shard's counters ([`DirHeader`],
//! `rgw_bucket_dir_header`). radosgw changes both through the `rgw` object
//! class (`cls_rgw`), on the OSD.
//!
//! The structs follow `cls/rgw/cls_rgw_types.h` in ceph/ceph; `to_json` is
//! the `entry` of `radosgw-admin bi list`, and the header's dump
//! (`rgw_bucket_dir_header::dump`), which `radosgw-admin bucket stats`
//! sums over the shards.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::dump::{bool_str, rounded_kb, utime};
use crate::encoding::{DecodeError, Decoder, Encoder, Header, Result};

/// `RGW_SHARDS_PRIME_0` and `_1`: the shard hash is taken modulo one of
/// these before the shard count (the first up to its own size).
const SHARDS_PRIME: (u32, u32) = (7877, 65521);

/// `ceph_str_hash_linux`: the Linux dcache hash Ceph names its string
/// hashes after.
fn str_hash_linux(key: &[u8]) -> u32 {
    key.iter().fold(0u32, |hash, &c| {
        let c = u32::from(c);
        hash.wrapping_add(c << 4)
            .wrapping_add(c >> 4)
            .wrapping_mul(11)
    })
}

/// The index shard holding `key`'s entries among `num_shards`
/// (`rgw_bucket_shard_index`), or `None` for an unsharded index (0
/// shards: one object, `.dir.<bucket_id>`). A versioned key's every entry
/// is in its name's shard.
pub fn shard_of(key: &str, num_shards: u32) -> Option<u32> {
    if num_shards == 0 {
        return None;
    }
    let sid = str_hash_linux(key.as_bytes());
    let sid = sid ^ ((sid & 0xff) << 24);
    let prime = if num_shards <= SHARDS_PRIME.0 {
        SHARDS_PRIME.0
    } else {
        SHARDS_PRIME.1
    };
    Some(sid % prime % num_shards)
}

/// The RADOS name of an index shard: `.dir.<bucket_id>[.<gen>][.<shard>]`
/// (`gen` only above 0, in releases after 16.2; no shard for an
/// unsharded index).
pub fn shard_object(bucket_id: &str, generation: u64, shard: Option<u32>) -> String {
    let mut oid = format!(".dir.{bucket_id}");
    if generation > 0 {
        oid.push_str(&format!(".{generation}"));
    }
    if let Some(shard) = shard {
        oid.push_str(&format!(".{shard}"));
    }
    oid
}

/// `rgw_bucket_dir_entry::FLAG_VER`: a version of a versioned object.
pub const FLAG_VER: u16 = 0x1;
/// `FLAG_CURRENT`: the current version.
pub const FLAG_CURRENT: u16 = 0x2;
/// `FLAG_DELETE_MARKER`: a delete marker.
pub const FLAG_DELETE_MARKER: u16 = 0x4;
/// `FLAG_VER_MARKER`: the plain entry of a versioned key, a placeholder.
pub const FLAG_VER_MARKER: u16 = 0x8;

/// `RGWObjCategory`: what an entry counts as in the bucket's stats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    /// Delete markers (0).
    None,
    /// Objects (1, `rgw.main`).
    Main,
    /// Unused by radosgw 16.2 (2, `rgw.shadow`).
    Shadow,
    /// Multipart uploads' parts and metadata (3, `rgw.multimeta`).
    MultiMeta,
}

impl Category {
    fn decode(d: &mut Decoder<'_>, what: &'static str) -> Result<Category> {
        let at = d.position();
        Ok(match d.u8(what)? {
            0 => Category::None,
            1 => Category::Main,
            2 => Category::Shadow,
            3 => Category::MultiMeta,
            v => {
                return Err(DecodeError::Value {
                    what,
                    value: u64::from(v),
                    at,
                });
            }
        })
    }

    /// The number radosgw encodes.
    pub fn number(self) -> u8 {
        match self {
            Category::None => 0,
            Category::Main => 1,
            Category::Shadow => 2,
            Category::MultiMeta => 3,
        }
    }

    /// The name `radosgw-admin bucket stats` gives its usage.
    pub fn usage_name(self) -> &'static str {
        match self {
            Category::None => "rgw.none",
            Category::Main => "rgw.main",
            Category::Shadow => "rgw.shadow",
            Category::MultiMeta => "rgw.multimeta",
        }
    }
}

/// An index entry's object metadata (`rgw_bucket_dir_entry_meta`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryMeta {
    /// What it counts as.
    pub category: Category,
    /// Bytes stored (after compression or encryption).
    pub size: u64,
    /// The object's modification time.
    pub mtime: SystemTime,
    /// Its ETag, unquoted.
    pub etag: String,
    /// Its owner's id.
    pub owner: String,
    /// Its owner's display name.
    pub owner_display_name: String,
    /// Its `Content-Type`.
    pub content_type: String,
    /// The size the client sees (version 4; `size` before).
    pub accounted_size: u64,
    /// Swift's user data (version 5).
    pub user_data: String,
    /// The storage class, empty for STANDARD (version 6).
    pub storage_class: String,
    /// An appendable object (version 7).
    pub appendable: bool,
}

/// A pending change to an entry (`rgw_bucket_pending_info`): radosgw's
/// prepare step, removed by its complete step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The operation's tag (the omap multimap's key).
    pub tag: String,
    /// `RGWPendingState`: 0 pending, 1 complete.
    pub state: u8,
    /// When it was prepared.
    pub timestamp: SystemTime,
    /// `RGWModifyOp`: 0 add, 1 delete, 2 cancel.
    pub op: u8,
}

/// An index entry (`rgw_bucket_dir_entry`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The object's name.
    pub name: String,
    /// Its version instance, empty for a plain entry (version 6).
    pub instance: String,
    /// The pool id and the pool's version when the head was written.
    pub ver_pool: i64,
    /// The epoch (see `ver_pool`).
    pub ver_epoch: u64,
    /// The head's locator, usually empty (version 2).
    pub locator: String,
    /// Whether the object exists (false while only pending).
    pub exists: bool,
    /// The object's metadata.
    pub meta: EntryMeta,
    /// Changes prepared and not completed.
    pub pending: Vec<Pending>,
    /// The index's version at the last change (version 5).
    pub index_ver: u64,
    /// The tag of the write that made the entry (version 5).
    pub tag: String,
    /// `FLAG_*` bits (version 7).
    pub flags: u16,
    /// The version's epoch among the key's versions (version 8).
    pub versioned_epoch: u64,
}

impl DirEntry {
    /// Listed as the key's current object: not an older version, not a
    /// delete marker, not a versioned key's placeholder.
    pub fn is_visible(&self) -> bool {
        let current = self.flags & FLAG_VER == 0 || self.flags & FLAG_CURRENT != 0;
        current && self.flags & (FLAG_DELETE_MARKER | FLAG_VER_MARKER) == 0
    }
}

/// Decodes an index entry (an omap value of a `.dir.` object); every
/// byte must belong to it.
pub fn decode_dir_entry(bytes: &[u8]) -> Result<DirEntry> {
    Decoder::whole(bytes, |d| {
        d.block("rgw_bucket_dir_entry", Header::legacy(8, 3, 3), |d, v| {
            let name = d.string("rgw_bucket_dir_entry.name")?;
            let epoch = d.u64("rgw_bucket_dir_entry.ver.epoch")?;
            let exists = d.bool("rgw_bucket_dir_entry.exists")?;
            let meta = decode_entry_meta(d)?;
            let pending = d.seq("rgw_bucket_dir_entry.pending_map", 5, decode_pending)?;
            let mut e = DirEntry {
                name,
                instance: String::new(),
                ver_pool: -1,
                ver_epoch: epoch,
                locator: String::new(),
                exists,
                meta,
                pending,
                index_ver: 0,
                tag: String::new(),
                flags: 0,
                versioned_epoch: 0,
            };
            if v >= 2 {
                e.locator = d.string("rgw_bucket_dir_entry.locator")?;
            }
            if v >= 4 {
                (e.ver_pool, e.ver_epoch) = d.block(
                    "rgw_bucket_entry_ver",
                    Header::Start { known: 1 },
                    |d, _| {
                        // the pool is an int64_t written through the packed
                        // form's uint64_t: -1 comes back as its bits
                        let pool = d.packed("rgw_bucket_entry_ver.pool")? as i64;
                        Ok((pool, d.packed("rgw_bucket_entry_ver.epoch")?))
                    },
                )?;
            }
            if v >= 5 {
                e.index_ver = d.packed("rgw_bucket_dir_entry.index_ver")?;
                e.tag = d.string("rgw_bucket_dir_entry.tag")?;
            }
            if v >= 6 {
                e.instance = d.string("rgw_bucket_dir_entry.instance")?;
            }
            if v >= 7 {
                e.flags = d.u16("rgw_bucket_dir_entry.flags")?;
            }
            if v >= 8 {
                e.versioned_epoch = d.u64("rgw_bucket_dir_entry.versioned_epoch")?;
            }
            Ok(e)
        })
    })
}

fn decode_entry_meta(d: &mut Decoder<'_>) -> Result<EntryMeta> {
    d.block(
        "rgw_bucket_dir_entry_meta",
        Header::legacy(7, 3, 3),
        |d, v| {
            let category = Category::decode(d, "rgw_bucket_dir_entry_meta.category")?;
            let size = d.u64("rgw_bucket_dir_entry_meta.size")?;
            let mut m = EntryMeta {
                category,
                size,
                mtime: d.time("rgw_bucket_dir_entry_meta.mtime")?,
                etag: d.string("rgw_bucket_dir_entry_meta.etag")?,
                owner: d.string("rgw_bucket_dir_entry_meta.owner")?,
                owner_display_name: d.string("rgw_bucket_dir_entry_meta.owner_display_name")?,
                content_type: String::new(),
                accounted_size: size,
                user_data: String::new(),
                storage_class: String::new(),
                appendable: false,
            };
            if v >= 2 {
                m.content_type = d.string("rgw_bucket_dir_entry_meta.content_type")?;
            }
            if v >= 4 {
                m.accounted_size = d.u64("rgw_bucket_dir_entry_meta.accounted_size")?;
            }
            if v >= 5 {
                m.user_data = d.string("rgw_bucket_dir_entry_meta.user_data")?;
            }
            if v >= 6 {
                m.storage_class = d.string("rgw_bucket_dir_entry_meta.storage_class")?;
            }
            if v >= 7 {
                m.appendable = d.bool("rgw_bucket_dir_entry_meta.appendable")?;
            }
            Ok(m)
        },
    )
}

impl EntryMeta {
    /// The metadata of no object: what radosgw sends with a removal or a
    /// cancelled change (category `None`, every field empty).
    pub fn empty() -> Self {
        EntryMeta {
            category: Category::None,
            size: 0,
            mtime: SystemTime::UNIX_EPOCH,
            etag: String::new(),
            owner: String::new(),
            owner_display_name: String::new(),
            content_type: String::new(),
            accounted_size: 0,
            user_data: String::new(),
            storage_class: String::new(),
            appendable: false,
        }
    }

    /// Writes the block as radosgw 16.2 does (version 7).
    pub fn encode(&self, e: &mut Encoder) {
        e.block(7, 3, |e| {
            e.u8(self.category.number())
                .u64(self.size)
                .time(self.mtime)
                .string(&self.etag)
                .string(&self.owner)
                .string(&self.owner_display_name)
                .string(&self.content_type)
                .u64(self.accounted_size)
                .string(&self.user_data)
                .string(&self.storage_class)
                .bool(self.appendable);
        });
    }
}

fn decode_pending(d: &mut Decoder<'_>) -> Result<Pending> {
    let tag = d.string("rgw_bucket_dir_entry.pending_map")?;
    d.block(
        "rgw_bucket_pending_info",
        Header::legacy(2, 2, 2),
        |d, _| {
            Ok(Pending {
                tag,
                state: d.u8("rgw_bucket_pending_info.state")?,
                timestamp: d.time("rgw_bucket_pending_info.timestamp")?,
                op: d.u8("rgw_bucket_pending_info.op")?,
            })
        },
    )
}

impl DirEntry {
    /// `rgw_bucket_dir_entry::dump`: the `entry` of `radosgw-admin bi list`.
    pub fn to_json(&self) -> Value {
        let m = &self.meta;
        json!({
            "name": self.name,
            "instance": self.instance,
            "ver": { "pool": self.ver_pool, "epoch": self.ver_epoch },
            "locator": self.locator,
            "exists": bool_str(self.exists),
            "meta": {
                "category": m.category.number(),
                "size": m.size,
                "mtime": utime(m.mtime),
                "etag": m.etag,
                "storage_class": m.storage_class,
                "owner": m.owner,
                "owner_display_name": m.owner_display_name,
                "content_type": m.content_type,
                "accounted_size": m.accounted_size,
                "user_data": m.user_data,
                "appendable": bool_str(m.appendable),
            },
            "tag": self.tag,
            "flags": self.flags,
            "pending_map": self.pending.iter().map(|p| json!({
                "key": p.tag,
                "val": { "state": p.state, "timestamp": utime(p.timestamp), "op": p.op },
            })).collect::<Vec<_>>(),
            "versioned_epoch": self.versioned_epoch,
        })
    }
}

/// One category's counters in a shard (`rgw_bucket_category_stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CategoryStats {
    /// Bytes as listed (`accounted_size`s).
    pub total_size: u64,
    /// Bytes rounded up to 4 KiB each.
    pub total_size_rounded: u64,
    /// Entries.
    pub num_entries: u64,
    /// Bytes stored (version 3; `total_size` before).
    pub actual_size: u64,
}

/// A shard's header (`rgw_bucket_dir_header`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirHeader {
    /// Counters per category, in category order.
    pub stats: Vec<(Category, CategoryStats)>,
    /// How long a pending change may wait before it is dropped (version 3).
    pub tag_timeout: u64,
    /// The shard's version, raised by every change (version 4).
    pub ver: u64,
    /// The master zone's version (version 4).
    pub master_ver: u64,
    /// The bucket index log's last marker (version 5).
    pub max_marker: String,
    /// A reshard's state, `cls_rgw_reshard_status` (version 6).
    pub reshard_status: u8,
    /// Multisite sync stopped (version 7).
    pub syncstopped: bool,
}

/// Decodes a shard's omap header; every byte must belong to it. An empty
/// header is a shard never written to: all counters 0.
pub fn decode_dir_header(bytes: &[u8]) -> Result<DirHeader> {
    if bytes.is_empty() {
        return Ok(DirHeader::default());
    }
    Decoder::whole(bytes, |d| {
        d.block("rgw_bucket_dir_header", Header::legacy(7, 2, 2), |d, v| {
            let stats = d.seq("rgw_bucket_dir_header.stats", 7, |d| {
                let c = Category::decode(d, "rgw_bucket_dir_header.stats")?;
                Ok((c, decode_category_stats(d)?))
            })?;
            let mut h = DirHeader {
                stats,
                ..DirHeader::default()
            };
            if v > 2 {
                h.tag_timeout = d.u64("rgw_bucket_dir_header.tag_timeout")?;
            }
            if v >= 4 {
                h.ver = d.u64("rgw_bucket_dir_header.ver")?;
                h.master_ver = d.u64("rgw_bucket_dir_header.master_ver")?;
            }
            if v >= 5 {
                h.max_marker = d.string("rgw_bucket_dir_header.max_marker")?;
            }
            if v >= 6 {
                h.reshard_status = d.block(
                    "cls_rgw_bucket_instance_entry",
                    Header::Start { known: 3 },
                    |d, _| d.u8("cls_rgw_bucket_instance_entry.reshard_status"),
                )?;
            }
            if v >= 7 {
                h.syncstopped = d.bool("rgw_bucket_dir_header.syncstopped")?;
            }
            Ok(h)
        })
    })
}

fn decode_category_stats(d: &mut Decoder<'_>) -> Result<CategoryStats> {
    d.block(
        "rgw_bucket_category_stats",
        Header::legacy(3, 2, 2),
        |d, v| {
            let total_size = d.u64("rgw_bucket_category_stats.total_size")?;
            Ok(CategoryStats {
                total_size,
                total_size_rounded: d.u64("rgw_bucket_category_stats.total_size_rounded")?,
                num_entries: d.u64("rgw_bucket_category_stats.num_entries")?,
                actual_size: if v >= 3 {
                    d.u64("rgw_bucket_category_stats.actual_size")?
                } else {
                    total_size
                },
            })
        },
    )
}

impl DirHeader {
    /// The header as JSON, its fields named as radosgw's struct names them
    /// (no radosgw-admin command prints one shard's header; `usage_json`
    /// is what `bucket stats` makes of them all).
    pub fn to_json(&self) -> Value {
        json!({
            "ver": self.ver,
            "master_ver": self.master_ver,
            "stats": self.stats.iter().map(|(c, s)| json!({
                "category": c.number(),
                "category_stats": {
                    "total_size": s.total_size,
                    "total_size_rounded": s.total_size_rounded,
                    "num_entries": s.num_entries,
                    "actual_size": s.actual_size,
                },
            })).collect::<Vec<_>>(),
            "max_marker": self.max_marker,
            "reshard_status": self.reshard_status,
            "syncstopped": bool_str(self.syncstopped),
        })
    }
}

/// What `radosgw-admin bucket stats` makes of a bucket's shard headers,
/// given in shard order: `ver`, `master_ver` and `max_marker` as
/// `shard#value` lists, and `usage`, the counters summed per category,
/// each as `rgw.<category>` with sizes in bytes and KiB.
pub fn stats_json(headers: &[DirHeader]) -> Value {
    let per_shard = |f: &dyn Fn(&DirHeader) -> String| {
        headers
            .iter()
            .enumerate()
            .map(|(i, h)| format!("{i}#{}", f(h)))
            .collect::<Vec<_>>()
            .join(",")
    };
    json!({
        "ver": per_shard(&|h| h.ver.to_string()),
        "master_ver": per_shard(&|h| h.master_ver.to_string()),
        "max_marker": per_shard(&|h| h.max_marker.clone()),
        "usage": usage_json(headers),
    })
}

fn usage_json(headers: &[DirHeader]) -> Value {
    let mut sums: Vec<(Category, CategoryStats)> = Vec::new();
    for h in headers {
        for (c, s) in &h.stats {
            let i = match sums.iter().position(|(k, _)| k == c) {
                Some(i) => i,
                None => {
                    sums.push((*c, CategoryStats::default()));
                    sums.len() - 1
                }
            };
            // uint64_t sums, as radosgw's: they wrap (found overflowing by
            // the radosgw_records fuzz target, a category given twice)
            let t = &mut sums[i].1;
            t.total_size = t.total_size.wrapping_add(s.total_size);
            t.total_size_rounded = t.total_size_rounded.wrapping_add(s.total_size_rounded);
            t.num_entries = t.num_entries.wrapping_add(s.num_entries);
            t.actual_size = t.actual_size.wrapping_add(s.actual_size);
        }
    }
    sums.sort_by_key(|(c, _)| *c);
    let kb = |b: u64| rounded_kb(i64::try_from(b).unwrap_or(i64::MAX));
    let mut o = serde_json::Map::new();
    for (c, s) in sums {
        o.insert(
            c.usage_name().into(),
            json!({
                "size": s.total_size,
                "size_actual": s.total_size_rounded,
                "size_utilized": s.actual_size,
                "size_kb": kb(s.total_size),
                "size_kb_actual": kb(s.total_size_rounded),
                "size_kb_utilized": kb(s.actual_size),
                "num_objects": s.num_entries,
            }),
        );
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_hash_to_the_shards_radosgw_put_them_in() {
        // `rados listomapkeys` of a bucket of 11 shards radosgw 16.2 wrote
        for (key, shard) in [
            ("one-k", 0),
            ("dir/ünïcode ✓", 3),
            ("big", 5),
            ("multi", 7),
            ("zero", 9),
        ] {
            assert_eq!(shard_of(key, 11), Some(shard), "{key}");
        }
        assert_eq!(shard_of("any", 0), None);
        assert!(shard_of("any", 65_521).is_some_and(|s| s < 65_521));
        assert_eq!(shard_object("id.1", 0, Some(7)), ".dir.id.1.7");
        assert_eq!(shard_object("id.1", 0, None), ".dir.id.1");
        assert_eq!(shard_object("id.1", 2, Some(0)), ".dir.id.1.2.0");
    }

    #[test]
    fn usage_sums_wrap_as_radosgws_uint64_sums_do() {
        let full = CategoryStats {
            total_size: u64::MAX,
            total_size_rounded: u64::MAX,
            num_entries: u64::MAX,
            actual_size: u64::MAX,
        };
        let header = DirHeader {
            stats: vec![(Category::Main, full), (Category::Main, full)],
            ..DirHeader::default()
        };
        let stats = stats_json(&[header]);
        assert_eq!(stats["usage"]["rgw.main"]["num_objects"], u64::MAX - 1);
        assert_eq!(stats["ver"], "0#0");
    }
}
