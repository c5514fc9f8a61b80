//! radosgw's garbage collector's queue (`cls/rgw_gc` in ceph/ceph): where
//! radosgw hands the tail stripes an overwrite or a removal left, to be
//! released (`refcount.put` under the chain's tag) once
//! `rgw_gc_obj_min_wait` has passed, so that reads begun before the change
//! can finish. The queue is spread over `gc.<n>` objects (`rgw_gc_max_objs`
//! of them) in the zone's `gc_pool`, a chain going to the one its tag
//! hashes to (XXH64, as radosgw picks it). No I/O.

use crate::encoding::Encoder;

/// The object class of the queue.
pub const GC_CLASS: &str = "rgw_gc";
/// Appends an entry to a queue object.
pub const ENQUEUE_METHOD: &str = "rgw_gc_queue_enqueue";

/// One RADOS object of a chain (`cls_rgw_obj`): its pool (`name[:ns]`),
/// name and locator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainObj {
    /// The pool, with `:<namespace>` when it has one.
    pub pool: String,
    /// The object's name.
    pub oid: String,
    /// Its locator (empty for most).
    pub loc: String,
}

/// The input of `rgw_gc.rgw_gc_queue_enqueue` (`cls_rgw_gc_set_entry_op`):
/// the chain of `objs` under `tag`, due `expiration_secs` from the OSD's
/// clock (the class sets the entry's time itself).
pub fn encode_enqueue(expiration_secs: u32, tag: &[u8], objs: &[ChainObj]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.u32(expiration_secs);
        // cls_rgw_gc_obj_info: tag, chain, time
        e.block(1, 1, |e| {
            e.buffer(tag);
            e.block(1, 1, |e| {
                e.seq(objs.iter(), |e, o| {
                    e.block(2, 1, |e| {
                        e.string(&o.pool).string(&o.oid).string(&o.loc);
                        e.block(1, 1, |e| {
                            e.string(&o.oid).string("");
                        });
                    });
                });
            });
            e.time(std::time::SystemTime::UNIX_EPOCH);
        });
    });
    e.into_bytes()
}

/// The queue object a chain under `tag` goes to among `max_objs`
/// (`RGWGC::tag_index`: XXH64 of the tag with seed -1, cut to 32 bits,
/// then `rgw_shards_mod`).
pub fn gc_object(tag: &[u8], max_objs: u32) -> String {
    let hash = xxh64(tag, u64::MAX) as u32;
    let prime = if max_objs <= 7877 { 7877 } else { 65521 };
    format!("gc.{}", hash % prime % max_objs.max(1))
}

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

fn read_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}

fn read_u32(b: &[u8]) -> u64 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[..4]);
    u64::from(u32::from_le_bytes(a))
}

fn round(acc: u64, lane: u64) -> u64 {
    acc.wrapping_add(lane.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

fn merge(acc: u64, v: u64) -> u64 {
    (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4)
}

/// XXH64 of `data` with `seed` (the xxHash library's, which radosgw
/// links).
pub fn xxh64(data: &[u8], seed: u64) -> u64 {
    let len = data.len() as u64;
    let mut rest = data;
    let mut h = if rest.len() >= 32 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        while rest.len() >= 32 {
            for (i, lane) in v.iter_mut().enumerate() {
                *lane = round(*lane, read_u64(&rest[i * 8..]));
            }
            rest = &rest[32..];
        }
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for lane in v {
            h = merge(h, lane);
        }
        h
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(len);
    while rest.len() >= 8 {
        h = (h ^ round(0, read_u64(rest)))
            .rotate_left(27)
            .wrapping_mul(P1)
            .wrapping_add(P4);
        rest = &rest[8..];
    }
    if rest.len() >= 4 {
        h = (h ^ read_u32(rest).wrapping_mul(P1))
            .rotate_left(23)
            .wrapping_mul(P2)
            .wrapping_add(P3);
        rest = &rest[4..];
    }
    for &b in rest {
        h = (h ^ u64::from(b).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of the xxHash library 0.8.1 (Debian's libxxhash0, through
    /// ctypes), with seed 0 and with radosgw's seed -1.
    #[test]
    fn xxh64_is_the_librarys() {
        let tag = b"6e7b2de6-30d7-40d2-a6f7-9e53cacf6ac1.4162.2673377460673768402\0";
        let hundred: Vec<u8> = (0..100).collect();
        let cases: [(&[u8], u64, u64); 10] = [
            (b"", 0, 0xef46db3751d8e999),
            (b"", u64::MAX, 0x298f4c84b24f5380),
            (b"a", 0, 0xd24ec4f1a98c6e5b),
            (b"a", u64::MAX, 0x60c43759873ece62),
            (b"abc", 0, 0x44bc2cf5ad770999),
            (b"abc", u64::MAX, 0x28306e589cc02176),
            (tag, 0, 0x27d3a89affc4ebf6),
            (tag, u64::MAX, 0x7f266f5e1c6f0e09),
            (&hundred, 0, 0x6ac1e58032166597),
            (&hundred, u64::MAX, 0x09a991a091c9f6d7),
        ];
        for (data, seed, want) in cases {
            assert_eq!(
                xxh64(data, seed),
                want,
                "{} bytes, seed {seed:x}",
                data.len()
            );
        }
        assert_eq!(
            gc_object(tag, 32),
            format!("gc.{}", 0x1c6f0e09u32 % 7877 % 32)
        );
    }
}
