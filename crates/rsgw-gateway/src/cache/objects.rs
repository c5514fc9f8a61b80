//! Small objects (data and metadata) in memory, coherent across instances.
//!
//! **What is cached**: an object whose data lies wholly in its head RADOS
//! object and is at most `max_object` bytes, with its [`ObjectMeta`] (owner,
//! ACL, headers: what a GET and its authorization need; the bucket's record
//! comes from the metadata cache). Entries are keyed by the head object's
//! name, `<bucket id>/<key>`, so a deleted and re-created bucket (a new id)
//! never meets the old bucket's entries.
//!
//! **Admission and eviction** (W-TinyLFU's core, see
//! docs/decisions/0007-object-cache.md): every lookup counts the key in a
//! count-min sketch of 4-bit counters, halved every `10 x width` counts so
//! that popularity fades. A key is admitted only once it was asked for at
//! least [`ADMIT_MIN_COUNT`] times, and only if it is more popular than
//! each entry it would evict from the least recently used end. A scan of
//! cold keys counts each once: it neither gets in nor pushes hot entries out.
//!
//! **Coherence** (the argument in docs/layout.md#the-object-cache): an
//! instance caches an object only once its head carries the
//! [`crate::model::layout::CACHED_XATTR`] mark, set by a write guarded on the
//! metadata the instance read. Every write of a head (PUT, copy, multipart
//! completion, ACL, tags, DELETE) is guarded on the mark's absence; a
//! writer that finds the mark writes, then announces the change on the
//! control object like any metadata change, and returns once every
//! watching instance dropped its entry. So writes of objects nobody cached
//! pay nothing, and a fill that raced a write is refused by its [`Ticket`]
//! as in the metadata cache. The cache serves only while the instance
//! watches the control object; losing the watch empties it.
//!
//! The entries are split over shards (each with its own lock, sketch and
//! share of the byte budget) so that concurrent GETs of different keys do
//! not wait for one lock.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use hashlink::LinkedHashMap;

use crate::model::object::ObjectMeta;

/// Requests for a key before it may be admitted: an object read once is
/// never cached (nor marked on the store).
pub(crate) const ADMIT_MIN_COUNT: u8 = 2;

/// Most shards; fewer when the budget would give a shard less than four
/// of the largest objects.
const MAX_SHARDS: usize = 16;

/// Bytes an entry is charged beyond its data, name and metadata record:
/// the map's node, the `Arc`, the parsed metadata's allocations.
const ENTRY_OVERHEAD: usize = 256;

/// A cached object.
#[derive(Debug)]
pub(crate) struct Cached {
    /// Its metadata, as the head's record says.
    pub(crate) meta: ObjectMeta,
    /// All its data.
    pub(crate) data: Bytes,
    /// The bytes this entry is charged.
    weight: usize,
}

impl Cached {
    /// An entry for `meta` and `data`; `record_len` is the length of the
    /// stored metadata record, a measure of the parsed metadata's size.
    pub(crate) fn new(name: &str, meta: ObjectMeta, data: Bytes, record_len: usize) -> Self {
        let weight = data.len() + name.len() + record_len + ENTRY_OVERHEAD;
        Cached { meta, data, weight }
    }
}

/// The invalidation count of a shard when a lookup missed; a fill is
/// accepted only if no invalidation of that shard happened since.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket(u64);

/// What a lookup found.
pub(crate) enum Lookup {
    /// The object, from memory.
    Hit(Arc<Cached>),
    /// Not cached: read the store, then [`ObjectCache::fill`] with this.
    Miss(Ticket),
    /// The cache is off or not serving (no watch): read the store.
    Off,
}

/// A count-min sketch of 4-bit counters (kept in bytes), four rows.
struct Sketch {
    rows: [Vec<u8>; 4],
    mask: usize,
    /// Counts since the last halving.
    added: usize,
    /// Counts between halvings.
    period: usize,
}

impl Sketch {
    fn new(width: usize) -> Self {
        let width = width.next_power_of_two().max(64);
        Sketch {
            rows: std::array::from_fn(|_| vec![0; width]),
            mask: width - 1,
            added: 0,
            period: width * 10,
        }
    }

    /// A counter per row, each row's from its own mix of the hash: with
    /// rows derived from one another (h1 + i * h2), two keys that meet in
    /// one narrow row meet in all, and a cold key then inherits a hot one's
    /// count (seen: a scan evicting a hot entry in 3 of 20 runs).
    fn slots(&self, hash: u64) -> [usize; 4] {
        const MIX: [u64; 4] = [
            0x9E37_79B9_7F4A_7C15,
            0xC2B2_AE3D_27D4_EB4F,
            0x1656_67B1_9E37_79F9,
            0xD6E8_FEB8_6659_FD93,
        ];
        let h = hash ^ (hash >> 31);
        std::array::from_fn(|i| (h.wrapping_mul(MIX[i]) >> 32) as usize & self.mask)
    }

    fn estimate(&self, hash: u64) -> u8 {
        let slots = self.slots(hash);
        (0..4).map(|i| self.rows[i][slots[i]]).min().unwrap_or(0)
    }

    /// Counts one request for the key hashed to `hash`; returns its
    /// estimate after counting.
    fn add(&mut self, hash: u64) -> u8 {
        let slots = self.slots(hash);
        let est = self.estimate(hash);
        if est < 15 {
            // conservative update: raise only the counters at the minimum
            for (row, &slot) in self.rows.iter_mut().zip(&slots) {
                if row[slot] == est {
                    row[slot] += 1;
                }
            }
        }
        self.added += 1;
        if self.added >= self.period {
            for row in &mut self.rows {
                for c in row.iter_mut() {
                    *c /= 2;
                }
            }
            self.added = 0;
        }
        est.saturating_add(1).min(15)
    }
}

struct Shard {
    map: LinkedHashMap<Arc<str>, Arc<Cached>>,
    bytes: usize,
    capacity: usize,
    sketch: Sketch,
    /// Invalidations of this shard; see [`Ticket`].
    epoch: u64,
}

/// Counters of the cache's life, for `/metrics`.
#[derive(Default)]
struct Counts {
    hits: AtomicU64,
    misses: AtomicU64,
    admissions: AtomicU64,
    rejections: AtomicU64,
    evictions: AtomicU64,
    invalidations: AtomicU64,
}

/// A snapshot of the cache's counters and size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectCacheStats {
    /// Whether the cache serves now (on, and the control object watched).
    pub serving: bool,
    /// The byte budget (`s3.object_cache_bytes`).
    pub capacity_bytes: u64,
    /// Bytes charged to the entries now.
    pub bytes: u64,
    /// Entries now.
    pub entries: u64,
    /// GETs and HEADs answered from memory.
    pub hits: u64,
    /// Lookups that read the store while the cache served.
    pub misses: u64,
    /// Objects put in.
    pub admissions: u64,
    /// Objects refused by admission: not more popular than what they would evict.
    pub rejections: u64,
    /// Entries pushed out by more popular ones.
    pub evictions: u64,
    /// Entries dropped because their object changed, and fills refused
    /// because a change raced them.
    pub invalidations: u64,
}

/// The cache; see the module documentation.
pub(crate) struct ObjectCache {
    max_object: usize,
    capacity: usize,
    serving: AtomicBool,
    hasher: hashlink::DefaultHashBuilder,
    shards: Box<[Mutex<Shard>]>,
    counts: Counts,
}

impl ObjectCache {
    /// A cache of `capacity` bytes for objects of at most `max_object`
    /// bytes (0 and 0: off). It serves once [`ObjectCache::set_serving`].
    pub(crate) fn new(capacity: u64, max_object: u64) -> Self {
        let capacity = usize::try_from(capacity).unwrap_or(usize::MAX);
        let max_object = usize::try_from(max_object).unwrap_or(usize::MAX);
        let n = if capacity == 0 {
            0
        } else {
            (capacity / max_object.max(1) / 4).clamp(1, MAX_SHARDS)
        };
        // a sketch counter per 128 bytes of budget (4 rows: 3% of it):
        // several counters per entry of a small object
        let width = capacity / n.max(1) / 128;
        let shards = (0..n)
            .map(|_| {
                Mutex::new(Shard {
                    map: LinkedHashMap::new(),
                    bytes: 0,
                    capacity: capacity / n,
                    sketch: Sketch::new(width),
                    epoch: 0,
                })
            })
            .collect();
        ObjectCache {
            max_object,
            capacity,
            serving: AtomicBool::new(false),
            hasher: hashlink::DefaultHashBuilder::default(),
            shards,
            counts: Counts::default(),
        }
    }

    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    fn shard(&self, hash: u64) -> Option<MutexGuard<'_, Shard>> {
        let n = self.shards.len();
        if n == 0 {
            return None;
        }
        let s = &self.shards[(hash >> 58) as usize % n];
        Some(s.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Whether an object of `size` bytes is small enough to be cached.
    pub(crate) fn fits(&self, size: u64) -> bool {
        !self.shards.is_empty() && size <= self.max_object as u64
    }

    /// Looks `name` (a head object's name) up, counting the request.
    pub(crate) fn lookup(&self, name: &str) -> Lookup {
        if !self.serving.load(Ordering::Acquire) {
            return Lookup::Off;
        }
        let hash = self.hash(name);
        let Some(mut shard) = self.shard(hash) else {
            return Lookup::Off;
        };
        shard.sketch.add(hash);
        if let Some(c) = shard.map.to_back(name) {
            let c = c.clone();
            drop(shard);
            self.counts.hits.fetch_add(1, Ordering::Relaxed);
            return Lookup::Hit(c);
        }
        let ticket = Ticket(shard.epoch);
        drop(shard);
        self.counts.misses.fetch_add(1, Ordering::Relaxed);
        Lookup::Miss(ticket)
    }

    /// `name`'s entry if cached (counting the request and the hit); a miss
    /// counts nothing, for the caller then looks up the usual way.
    pub(crate) fn lookup_hit(&self, name: &str) -> Option<Arc<Cached>> {
        if !self.serving.load(Ordering::Acquire) {
            return None;
        }
        let hash = self.hash(name);
        let mut shard = self.shard(hash)?;
        let c = shard.map.to_back(name)?.clone();
        shard.sketch.add(hash);
        drop(shard);
        self.counts.hits.fetch_add(1, Ordering::Relaxed);
        Some(c)
    }

    /// Whether `name`, just missed, is popular enough to be cached (so
    /// worth marking on the store).
    pub(crate) fn wanted(&self, name: &str) -> bool {
        let hash = self.hash(name);
        self.shard(hash)
            .is_some_and(|s| s.sketch.estimate(hash) >= ADMIT_MIN_COUNT)
    }

    /// Puts `entry` in under `name`, unless the cache stopped serving or the
    /// shard saw an invalidation since `ticket`, or the entry is not more
    /// popular than what it would evict.
    pub(crate) fn fill(&self, ticket: Ticket, name: &str, entry: Cached) {
        let hash = self.hash(name);
        let Some(mut shard) = self.shard(hash) else {
            return;
        };
        if !self.serving.load(Ordering::Acquire) || shard.epoch != ticket.0 {
            self.counts.invalidations.fetch_add(1, Ordering::Relaxed);
            return;
        }
        if entry.weight > shard.capacity {
            self.counts.rejections.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let shard = &mut *shard;
        if let Some(old) = shard.map.remove(name) {
            shard.bytes -= old.weight;
        }
        let want = shard.sketch.estimate(hash);
        let mut victims = 0;
        let mut freed = 0;
        for (k, v) in shard.map.iter() {
            if shard.bytes - freed + entry.weight <= shard.capacity {
                break;
            }
            if shard.sketch.estimate(self.hash(k)) >= want {
                self.counts.rejections.fetch_add(1, Ordering::Relaxed);
                return;
            }
            victims += 1;
            freed += v.weight;
        }
        for _ in 0..victims {
            if let Some((_, v)) = shard.map.pop_front() {
                shard.bytes -= v.weight;
            }
        }
        self.counts
            .evictions
            .fetch_add(victims as u64, Ordering::Relaxed);
        shard.bytes += entry.weight;
        shard.map.insert(Arc::from(name), Arc::new(entry));
        self.counts.admissions.fetch_add(1, Ordering::Relaxed);
    }

    /// Drops `name`'s entry (its object changed), and refuses fills that
    /// started before.
    pub(crate) fn invalidate(&self, name: &str) {
        let hash = self.hash(name);
        let Some(mut shard) = self.shard(hash) else {
            return;
        };
        shard.epoch += 1;
        if let Some(old) = shard.map.remove(name) {
            shard.bytes -= old.weight;
            self.counts.invalidations.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Drops every entry and refuses fills that started before.
    pub(crate) fn invalidate_all(&self) {
        for s in self.shards.iter() {
            let mut shard = s.lock().unwrap_or_else(PoisonError::into_inner);
            shard.epoch += 1;
            let n = shard.map.len() as u64;
            shard.map.clear();
            shard.bytes = 0;
            self.counts.invalidations.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Starts or stops serving; either way the cache starts over (see
    /// [`crate::cache::meta::MetaCache::set_watched`]).
    pub(crate) fn set_serving(&self, serving: bool) {
        self.serving.store(false, Ordering::Release);
        self.invalidate_all();
        if serving && !self.shards.is_empty() {
            self.serving.store(true, Ordering::Release);
        }
    }

    /// The counters and the size now.
    pub(crate) fn stats(&self) -> ObjectCacheStats {
        let (mut bytes, mut entries) = (0, 0);
        for s in self.shards.iter() {
            let shard = s.lock().unwrap_or_else(PoisonError::into_inner);
            bytes += shard.bytes as u64;
            entries += shard.map.len() as u64;
        }
        let c = &self.counts;
        ObjectCacheStats {
            serving: self.serving.load(Ordering::Acquire),
            capacity_bytes: self.capacity as u64,
            bytes,
            entries,
            hits: c.hits.load(Ordering::Relaxed),
            misses: c.misses.load(Ordering::Relaxed),
            admissions: c.admissions.load(Ordering::Relaxed),
            rejections: c.rejections.load(Ordering::Relaxed),
            evictions: c.evictions.load(Ordering::Relaxed),
            invalidations: c.invalidations.load(Ordering::Relaxed),
        }
    }
}

/// An object served from memory ([`crate::Gateway::get_cached`]).
pub struct CachedObject(pub(crate) Arc<Cached>);

impl CachedObject {
    /// Its metadata.
    pub fn meta(&self) -> &ObjectMeta {
        &self.0.meta
    }

    /// All its data.
    pub fn data(&self) -> &Bytes {
        &self.0.data
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, size: usize) -> Cached {
        Cached::new(name, ObjectMeta::default(), Bytes::from(vec![7; size]), 0)
    }

    fn hit(c: &ObjectCache, name: &str) -> bool {
        matches!(c.lookup(name), Lookup::Hit(_))
    }

    /// Looks `name` up `times` times, filling it on each miss once wanted.
    fn ask(c: &ObjectCache, name: &str, size: usize, times: usize) {
        for _ in 0..times {
            if let Lookup::Miss(t) = c.lookup(name)
                && c.wanted(name)
            {
                c.fill(t, name, entry(name, size));
            }
        }
    }

    /// Asks for `name` as often as admission needs.
    fn bring_in(c: &ObjectCache, name: &str, size: usize) {
        ask(c, name, size, ADMIT_MIN_COUNT.into());
    }

    #[test]
    fn off_when_sized_zero_or_not_serving() {
        let c = ObjectCache::new(0, 0);
        c.set_serving(true);
        assert!(matches!(c.lookup("a"), Lookup::Off));
        assert!(!c.fits(1));
        let c = ObjectCache::new(1 << 20, 4096);
        assert!(matches!(c.lookup("a"), Lookup::Off), "not serving yet");
        c.set_serving(true);
        assert!(matches!(c.lookup("a"), Lookup::Miss(_)));
        assert!(c.fits(4096) && !c.fits(4097));
        assert!(c.lookup_hit("a").is_none());
        assert_eq!(c.stats().misses, 1, "a miss of lookup_hit is not counted");
    }

    #[test]
    fn admitted_from_the_second_request() {
        let c = ObjectCache::new(1 << 20, 4096);
        c.set_serving(true);
        let Lookup::Miss(_) = c.lookup("a") else {
            panic!("a miss")
        };
        assert!(!c.wanted("a"), "one request is not popularity");
        ask(&c, "a", 100, 1);
        assert!(hit(&c, "a"));
        assert!(c.lookup_hit("a").is_some());
        let s = c.stats();
        assert_eq!((s.entries, s.admissions, s.hits), (1, 1, 2));
        assert!(s.bytes >= 100);
    }

    #[test]
    fn a_fill_that_raced_an_invalidation_is_dropped() {
        let c = ObjectCache::new(1 << 20, 4096);
        c.set_serving(true);
        c.lookup("a");
        let Lookup::Miss(t) = c.lookup("a") else {
            panic!("a miss")
        };
        c.invalidate("a");
        c.fill(t, "a", entry("a", 10));
        assert!(
            !hit(&c, "a"),
            "a read older than the change must not be cached"
        );
        bring_in(&c, "a", 10);
        assert!(hit(&c, "a"));
        c.invalidate("a");
        assert!(!hit(&c, "a"));
        bring_in(&c, "a", 10);
        c.set_serving(false);
        c.set_serving(true);
        assert!(!hit(&c, "a"), "losing the watch starts over");
    }

    /// The byte bound holds, and a scan of cold keys ten times the budget
    /// leaves the hot ones in.
    #[test]
    fn a_scan_does_not_flush_hot_entries() {
        let c = ObjectCache::new(256 << 10, 1024);
        c.set_serving(true);
        let hot: Vec<String> = (0..20).map(|i| format!("hot{i}")).collect();
        for _ in 0..8 {
            for k in &hot {
                ask(&c, k, 1000, 1);
            }
        }
        for i in 0..2560 {
            let k = format!("cold{i}");
            // a scan reading each key twice, so each is admissible
            bring_in(&c, &k, 1000);
            assert!(c.stats().bytes <= 256 << 10, "the budget holds");
        }
        let kept = hot.iter().filter(|k| hit(&c, k)).count();
        assert_eq!(kept, hot.len(), "hot entries kept through the scan");
        assert!(c.stats().rejections > 0);
    }

    /// A key more popular than the least recently used entries pushes them
    /// out; one as popular as they are does not get in.
    #[test]
    fn popular_newcomers_evict_the_least_recently_used() {
        let c = ObjectCache::new(4 << 10, 1024);
        c.set_serving(true);
        for i in 0..3 {
            ask(&c, &format!("k{i}"), 1000, 3);
        }
        assert_eq!(c.stats().entries, 3, "full");
        ask(&c, "same", 1000, 3);
        assert!(!hit(&c, "same"), "as popular: not admitted");
        ask(&c, "more", 1000, 5);
        assert!(hit(&c, "more"), "more popular: admitted");
        let s = c.stats();
        assert_eq!((s.entries, s.evictions), (3, 1));
        assert!(s.bytes <= 4 << 10);
        assert!(!hit(&c, "k0"), "the least recently used went");
    }

    #[test]
    fn the_sketch_counts_and_forgets() {
        let mut s = Sketch::new(64);
        for _ in 0..20 {
            s.add(42);
        }
        assert_eq!(s.estimate(42), 15, "counters saturate at 15");
        assert_eq!(s.estimate(7), 0);
        for i in 0..(64 * 10) as u64 {
            s.add(i.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        }
        assert!(s.estimate(42) < 15, "halved after a period");
    }
}
