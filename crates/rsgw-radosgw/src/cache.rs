//! radosgw's metadata records (users, access keys, bucket entry points and
//! instances) cached as radosgw's own `RGWSI_SysObj_Cache` caches them:
//! by RADOS object, data and xattrs together, kept coherent by the same
//! notifications. radosgw (and `radosgw-admin`) announces every write of a
//! cached record on the zone's control objects ([`crate::notify`]); a
//! [`Zone`](crate::zone::Zone) given this cache drops an entry when its
//! record is announced, so the next request reads it afresh.
//!
//! While changes are watched, entries live until announced; while not (not
//! started, or a watch broke: the watcher's supervisor says so with
//! [`RecordCache::set_watched`]), entries filled more than the unwatched
//! TTL ago are not trusted, and every change of state starts the cache over.
//! Absence is never cached, and only metadata records are: radosgw
//! announces no object writes, and a bucket's list of a user's buckets
//! (an omap) is not one of its cached records either.
//!
//! A lookup that misses reads the store and fills the entry; an
//! announcement arriving between the read and the fill would be undone by
//! a stale fill, so each fill carries a [`Ticket`] taken before the read
//! and is dropped if anything was invalidated since.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use rsgw_store::{ObjectId, StoreError, Watcher};

use crate::notify::decode_cache_notice;

/// Entries beyond which the cache starts over (a bound, not an eviction
/// policy; radosgw's `rgw_cache_lru_size` is 10000 records).
const MAX_ENTRIES: usize = 100_000;

/// One record as read: its data and its xattrs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The object's data.
    pub data: Bytes,
    /// Its xattrs, by name.
    pub xattrs: BTreeMap<String, Bytes>,
}

struct Entry {
    at: Instant,
    record: Record,
}

#[derive(Default)]
struct Inner {
    records: HashMap<ObjectId, Entry>,
    /// Counts invalidations; a fill is kept only under the epoch its read
    /// started in.
    epoch: u64,
}

impl Inner {
    fn clear(&mut self) {
        self.records.clear();
        self.epoch += 1;
    }
}

/// The epoch a lookup started in; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct Ticket(u64);

/// Counts of what the cache did, for `/metrics`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Records answered from memory.
    pub hits: u64,
    /// Records read from the store.
    pub misses: u64,
    /// Announcements of radosgw's received (each drops at most one entry,
    /// or all for one that does not decode).
    pub notices: u64,
}

/// The cache; it is also the [`Watcher`] of the zone's control objects.
pub struct RecordCache {
    unwatched_ttl: Duration,
    watched: AtomicBool,
    inner: Mutex<Inner>,
    hits: AtomicU64,
    misses: AtomicU64,
    notices: AtomicU64,
}

impl RecordCache {
    /// A cache that does not watch yet, trusting entries for
    /// `unwatched_ttl`.
    pub fn new(unwatched_ttl: Duration) -> Self {
        RecordCache {
            unwatched_ttl,
            watched: AtomicBool::new(false),
            inner: Mutex::new(Inner::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            notices: AtomicU64::new(0),
        }
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The record of `obj` if cached and trusted now; counts a hit or a
    /// miss.
    pub fn get(&self, obj: &ObjectId) -> Option<Record> {
        let watched = self.watched();
        let found = self
            .inner()
            .records
            .get(obj)
            .filter(|e| watched || e.at.elapsed() < self.unwatched_ttl)
            .map(|e| e.record.clone());
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Taken before reading the store for a fill.
    pub fn ticket(&self) -> Ticket {
        Ticket(self.inner().epoch)
    }

    /// Fills the entry of `obj`, unless something was invalidated since
    /// `ticket`.
    pub fn put(&self, ticket: Ticket, obj: &ObjectId, record: &Record) {
        let mut inner = self.inner();
        if inner.epoch != ticket.0 {
            return;
        }
        if inner.records.len() >= MAX_ENTRIES {
            inner.clear();
            return;
        }
        inner.records.insert(
            obj.clone(),
            Entry {
                at: Instant::now(),
                record: record.clone(),
            },
        );
    }

    /// Drops the entry of `obj`.
    pub fn invalidate(&self, obj: &ObjectId) {
        let mut inner = self.inner();
        inner.records.remove(obj);
        inner.epoch += 1;
    }

    /// Drops every entry.
    pub fn invalidate_all(&self) {
        self.inner().clear();
    }

    /// Says whether changes are watched now. Either way the cache starts
    /// over: what was filled while unwatched may be stale, and once a
    /// watch is lost, announcements may have been missed.
    pub fn set_watched(&self, watched: bool) {
        let mut inner = self.inner();
        inner.clear();
        self.watched.store(watched, Ordering::Release);
    }

    /// Whether changes are watched now.
    pub fn watched(&self) -> bool {
        self.watched.load(Ordering::Acquire)
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            notices: self.notices.load(Ordering::Relaxed),
        }
    }
}

impl Watcher for RecordCache {
    /// An announcement of radosgw's: the record it names is dropped (an
    /// update's new contents are not taken from it: the next read takes
    /// them from RADOS); one that does not decode drops everything.
    fn notified(&self, payload: &[u8]) {
        self.notices.fetch_add(1, Ordering::Relaxed);
        match decode_cache_notice(payload) {
            Ok(n) => self.invalidate(
                &ObjectId::in_namespace(n.pool.name, n.pool.ns, n.oid).with_locator(n.loc),
            ),
            Err(_) => self.invalidate_all(),
        }
    }

    fn failed(&self, _error: &StoreError) {
        self.set_watched(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(data: &str) -> Record {
        Record {
            data: Bytes::copy_from_slice(data.as_bytes()),
            xattrs: BTreeMap::from([("user.rgw.acl".to_string(), Bytes::from_static(b"acl"))]),
        }
    }

    fn user(uid: &str) -> ObjectId {
        ObjectId::in_namespace("default.rgw.meta", "users.uid", uid)
    }

    /// What radosgw-admin 16.2 sent on `notify.7` when it removed user
    /// `tnd2987b02$bk-d2987b02` (an invalidation, as crate::notify reads it).
    const NOTICE: &[u8] = include_bytes!("../tests/data/notify-user.bin");

    fn announced() -> ObjectId {
        user("tnd2987b02$bk-d2987b02")
    }

    #[test]
    fn a_watched_entry_lives_until_its_record_is_announced() {
        let cache = RecordCache::new(Duration::ZERO);
        cache.set_watched(true);
        let (alice, bob) = (announced(), user("bob"));
        cache.put(cache.ticket(), &alice, &record("a"));
        cache.put(cache.ticket(), &bob, &record("b"));
        assert_eq!(cache.get(&alice), Some(record("a")));
        cache.notified(NOTICE);
        assert_eq!(cache.get(&alice), None);
        assert_eq!(cache.get(&bob), Some(record("b")), "only the record named");
        assert_eq!(
            cache.stats(),
            CacheStats {
                hits: 2,
                misses: 1,
                notices: 1
            }
        );
    }

    #[test]
    fn a_fill_begun_before_an_announcement_is_dropped() {
        let cache = RecordCache::new(Duration::from_secs(60));
        cache.set_watched(true);
        let alice = announced();
        let ticket = cache.ticket();
        cache.notified(NOTICE);
        cache.put(ticket, &alice, &record("old"));
        assert_eq!(cache.get(&alice), None);
    }

    #[test]
    fn an_unreadable_announcement_drops_everything() {
        let cache = RecordCache::new(Duration::from_secs(60));
        cache.set_watched(true);
        let alice = user("alice");
        cache.put(cache.ticket(), &alice, &record("a"));
        cache.notified(b"\x02\x02garbage");
        assert_eq!(cache.get(&alice), None);
    }

    #[test]
    fn unwatched_entries_expire_and_a_broken_watch_starts_over() {
        let cache = RecordCache::new(Duration::from_millis(50));
        let alice = user("alice");
        cache.put(cache.ticket(), &alice, &record("a"));
        assert_eq!(cache.get(&alice), Some(record("a")), "within the TTL");
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(cache.get(&alice), None, "past the TTL while unwatched");
        cache.set_watched(true);
        cache.put(cache.ticket(), &alice, &record("a"));
        std::thread::sleep(Duration::from_millis(80));
        assert_eq!(cache.get(&alice), Some(record("a")), "watched: no TTL");
        cache.failed(&StoreError::Timeout);
        assert!(!cache.watched());
        assert_eq!(cache.get(&alice), None, "the watch broke: started over");
    }
}
