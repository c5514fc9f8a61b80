//! The `rgw` object class's calls rsgw makes as radosgw makes them
//! (`cls/rgw/cls_rgw_ops.h`, `cls_rgw_client.cc` in ceph/ceph): the
//! methods and their inputs, Ceph-encoded. A write of an object's head
//! is bracketed by two calls on its index shard, `bucket_prepare_op`
//! (the entry gets a pending change under a tag) and `bucket_complete_op`
//! (the change is applied, the shard's stats with it, or cancelled), so
//! that writers through radosgw and rsgw keep the index and its stats
//! consistent; the head's own write calls `obj_remove` (an overwrite
//! drops the old head's xattrs) and `obj_store_pg_ver`; a replaced
//! object's tails are released through the `refcount` class, since a copy
//! radosgw made may share them. No I/O.

use crate::encoding::{Decoder, Encoder, Header, Result};
use crate::index::{DirHeader, EntryMeta, decode_dir_header};

/// The object class radosgw's calls belong to.
pub const CLASS: &str = "rgw";
/// Begins a change to an index entry.
pub const PREPARE_METHOD: &str = "bucket_prepare_op";
/// Ends it.
pub const COMPLETE_METHOD: &str = "bucket_complete_op";
/// Fails the operation while the bucket's index is being resharded.
pub const GUARD_RESHARDING_METHOD: &str = "guard_bucket_resharding";
/// Removes a head, keeping the xattrs of some prefixes.
pub const OBJ_REMOVE_METHOD: &str = "obj_remove";
/// Stores the head's placement group version in an xattr.
pub const STORE_PG_VER_METHOD: &str = "obj_store_pg_ver";
/// Lists a shard's entries, with its header (a reading method).
pub const LIST_METHOD: &str = "bucket_list";

/// The object class counting the heads that share a tail (a copy made by
/// radosgw shares its source's tails, `cls/refcount` in ceph/ceph).
pub const REFCOUNT_CLASS: &str = "refcount";
/// Drops one head's reference to a tail, removing the tail with the last.
pub const REFCOUNT_PUT_METHOD: &str = "put";

/// The object class keeping a metadata record's version
/// (`ceph.objclass.version`), which radosgw's writes of the record check.
pub const VERSION_CLASS: &str = "version";
/// Raises the version by one.
pub const VERSION_INC_METHOD: &str = "inc";
/// Fails the operation (`ECANCELED`) unless the version meets conditions.
pub const VERSION_CHECK_METHOD: &str = "check_conds";

/// radosgw's `ERR_BUSY_RESHARDING`: what the resharding guard fails
/// with (negated), so that radosgw waits for the reshard and retries.
pub const ERR_BUSY_RESHARDING: i32 = 2300;

/// The input of `guard_bucket_resharding`
/// (`cls_rgw_guard_bucket_resharding_op`): the error to fail with.
pub fn encode_guard_resharding() -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.i32(-ERR_BUSY_RESHARDING);
    });
    e.into_bytes()
}

/// The input of `version.inc` (`cls_version_inc_op`): no version given
/// (the record's own is raised) and no conditions.
pub fn encode_version_inc() -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.block(1, 1, |e| {
            e.u64(0).string("");
        });
        e.u32(0);
    });
    e.into_bytes()
}

/// The input of `rgw.bucket_list` asking for no entries
/// (`rgw_cls_list_op`, version 6): the shard's header alone, as radosgw's
/// `cls_rgw_get_dir_header` reads it.
pub fn encode_list_header_only() -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(6, 4, |e| {
        e.u32(0).string("");
        encode_key(e, "", "");
        e.bool(false).string("");
    });
    e.into_bytes()
}

/// The shard's header in `rgw.bucket_list`'s answer (`rgw_cls_list_ret`:
/// `rgw_bucket_dir` then flags); the entries and flags are skipped.
pub fn decode_list_header(bytes: &[u8]) -> Result<DirHeader> {
    Decoder::whole(bytes, |d| {
        d.block("rgw_cls_list_ret", Header::Start { known: 3 }, |d, _| {
            d.block("rgw_bucket_dir", Header::Start { known: 2 }, |d, _| {
                decode_dir_header(d.raw_block("rgw_bucket_dir.header")?)
            })
        })
    })
}

/// The input of `version.check_conds` (`cls_version_check_op`): the
/// version must be `ver` with an empty tag (`VER_COND_EQ`, as radosgw's
/// `cls_version_check` asks it).
pub fn encode_version_check_eq(ver: u64) -> Vec<u8> {
    let mut e = Encoder::new();
    let version = |e: &mut Encoder| {
        e.block(1, 1, |e| {
            e.u64(ver).string("");
        });
    };
    e.block(1, 1, |e| {
        version(e);
        e.u32(1);
        e.block(1, 1, |e| {
            version(e);
            e.u32(VER_COND_EQ);
        });
    });
    e.into_bytes()
}

/// `VER_COND_EQ`: the version and its tag equal the condition's.
const VER_COND_EQ: u32 = 1;

/// The input of `refcount.put` (`cls_refcount_put_op`, version 1 in
/// radosgw 16.2): the reference dropped, `tag` (the head's
/// `user.rgw.tail_tag` as stored, its NUL included), and an implicit
/// reference assumed for a tail never shared, as radosgw's garbage
/// collector drops them.
pub fn encode_refcount_put(tag: &[u8]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.buffer(tag).bool(true);
    });
    e.into_bytes()
}

/// The input of `obj_remove` (`rgw_cls_obj_remove_op`): the xattr
/// prefixes kept. radosgw keeps a versioned key's OLH xattrs.
pub fn encode_obj_remove() -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.seq(["user.rgw.olh."].into_iter(), |e, p| {
            e.string(p);
        });
    });
    e.into_bytes()
}

/// The input of `obj_store_pg_ver` (`rgw_cls_obj_store_pg_ver_op`): the
/// xattr to store it in.
pub fn encode_store_pg_ver() -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.string("user.rgw.pg_ver");
    });
    e.into_bytes()
}

/// A change to an index entry (`RGWModifyOp`): what radosgw's prepare
/// and complete steps name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModifyOp {
    /// An object written (`CLS_RGW_OP_ADD`).
    Add,
    /// An object removed (`CLS_RGW_OP_DEL`).
    Del,
    /// A prepared change given up (`CLS_RGW_OP_CANCEL`).
    Cancel,
}

impl ModifyOp {
    fn number(self) -> u8 {
        match self {
            ModifyOp::Add => 0,
            ModifyOp::Del => 1,
            ModifyOp::Cancel => 2,
        }
    }
}

/// A `cls_rgw_obj_key`: an index entry's name and instance.
fn encode_key(e: &mut Encoder, name: &str, instance: &str) {
    e.block(1, 1, |e| {
        e.string(name).string(instance);
    });
}

/// The input of `rgw.bucket_prepare_op` (`rgw_cls_obj_prepare_op`,
/// version 7), as radosgw sends it before it writes or removes an
/// object's head: the entry `key` gets a pending change under `tag`. No
/// bucket index log (a single zone logs none) and no zone trace.
pub fn encode_prepare(op: ModifyOp, key: &str, tag: &str, locator: &str) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(7, 5, |e| {
        e.u8(op.number()).string(tag).string(locator).bool(false);
        encode_key(e, key, "");
        e.u16(0).u32(0);
    });
    e.into_bytes()
}

/// What `rgw.bucket_complete_op` is told (`rgw_cls_obj_complete_op`).
#[derive(Debug, Clone)]
pub struct Complete<'a> {
    /// The change made.
    pub op: ModifyOp,
    /// The entry's name (the index key).
    pub key: &'a str,
    /// The head's locator, empty for most.
    pub locator: &'a str,
    /// The tag the change was prepared under.
    pub tag: &'a str,
    /// The id of the pool holding the head.
    pub pool: i64,
    /// The head's RADOS version after the change: the entry's `ver.epoch`,
    /// which orders changes that complete out of order.
    pub epoch: u64,
    /// The entry's metadata (for `Add`).
    pub meta: &'a EntryMeta,
    /// Entries of the same shard removed with the change, their stats
    /// taken off the shard's (a completed multipart upload's parts and
    /// meta object).
    pub remove: &'a [String],
}

/// The input of `rgw.bucket_complete_op` (`rgw_cls_obj_complete_op`,
/// version 9), as radosgw sends it once the head is written or removed:
/// the pending change under `tag` is resolved, the entry and the shard's
/// stats set.
pub fn encode_complete(c: &Complete<'_>) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(9, 7, |e| {
        e.u8(c.op.number()).u64(c.epoch);
        c.meta.encode(e);
        e.string(c.tag).string(c.locator);
        e.seq(c.remove.iter(), |e, k| encode_key(e, k, ""));
        // rgw_bucket_entry_ver: packed values
        e.block(1, 1, |e| {
            e.packed(c.pool as u64).packed(c.epoch);
        });
        e.bool(false);
        encode_key(e, c.key, "");
        e.u16(0).u32(0);
    });
    e.into_bytes()
}
