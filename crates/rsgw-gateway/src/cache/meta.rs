//! The cache of bucket records and access keys, so that an object GET costs
//! one store round trip, kept coherent across every process of the store.
//!
//! While the instance watches the store's control object (see
//! [`crate::cache::coherence`]), entries live until a change invalidates them: every
//! change of a cached record is announced to every watching instance, and its
//! call returns only once they acknowledged. While it cannot watch (not
//! started, or the watch broke), entries expire after a short TTL. Absence is
//! never cached, so creations need no announcement.
//!
//! A lookup that misses reads the store and then fills the entry; an
//! invalidation arriving between the read and the fill would be undone by a
//! stale fill, so each fill carries a [`Ticket`] taken before the read and is
//! dropped if any invalidation happened since.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use std::sync::Arc;

use crate::model::bucket::BucketInfo;
use crate::model::quota::OwnerQuotas;
use crate::model::ratelimit::RateLimits;
use crate::model::user::KeyRecord;

/// A change of cached metadata, as announced to the other instances.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// A bucket's record changed or the bucket was deleted.
    Bucket(String),
    /// An access key was removed.
    Key(String),
    /// A rate limit changed.
    RateLimits,
    /// A user's record changed (their quotas).
    User(String),
    /// An object that instances may cache changed or was deleted: its head
    /// object's name.
    Object(String),
}

impl Change {
    /// The notification payload: a tag byte, then the name.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let (tag, name) = match self {
            Change::Bucket(n) => (b'b', n.as_str()),
            Change::Key(k) => (b'k', k.as_str()),
            Change::RateLimits => (b'r', ""),
            Change::User(u) => (b'u', u.as_str()),
            Change::Object(n) => (b'o', n.as_str()),
        };
        let mut p = Vec::with_capacity(name.len() + 1);
        p.push(tag);
        p.extend_from_slice(name.as_bytes());
        p
    }

    /// The change a payload names; `None` for one this version cannot read
    /// (a newer instance's), which the receiver must treat as "anything".
    pub(crate) fn decode(payload: &[u8]) -> Option<Change> {
        let (&tag, name) = payload.split_first()?;
        let name = std::str::from_utf8(name).ok()?.to_string();
        match tag {
            b'b' => Some(Change::Bucket(name)),
            b'k' => Some(Change::Key(name)),
            b'r' => Some(Change::RateLimits),
            b'u' => Some(Change::User(name)),
            b'o' => Some(Change::Object(name)),
            _ => None,
        }
    }
}

struct Timed<T> {
    at: Instant,
    value: T,
}

/// Entries beyond which a map starts over (a bound, not an eviction policy:
/// a gateway with this many hot buckets or keys is not this cache's case).
const MAX_ENTRIES: usize = 100_000;

#[derive(Default)]
struct Maps {
    buckets: HashMap<String, Timed<BucketInfo>>,
    keys: HashMap<String, Timed<KeyRecord>>,
    /// Users' quotas, by user id.
    owner_quotas: HashMap<String, Timed<OwnerQuotas>>,
    ratelimits: Option<Timed<Arc<RateLimits>>>,
    /// The rate limits last read, kept through invalidations (see
    /// [`crate::Gateway::ratelimits`]).
    last_ratelimits: Option<Arc<RateLimits>>,
    /// Counts invalidations; a fill is accepted only under the epoch its
    /// lookup started in.
    epoch: u64,
}

impl Maps {
    fn invalidate_all(&mut self) {
        self.buckets.clear();
        self.keys.clear();
        self.owner_quotas.clear();
        self.ratelimits = None;
        self.epoch += 1;
    }
}

/// The epoch a lookup started in; see the module documentation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ticket(u64);

/// The cache.
pub(crate) struct MetaCache {
    /// How long an entry is trusted while changes are not watched.
    unwatched_ttl: Duration,
    watched: AtomicBool,
    maps: Mutex<Maps>,
}

fn get<T: Clone>(
    map: &HashMap<String, Timed<T>>,
    watched: bool,
    ttl: Duration,
    k: &str,
) -> Option<T> {
    map.get(k)
        .filter(|t| watched || t.at.elapsed() < ttl)
        .map(|t| t.value.clone())
}

fn put<T>(map: &mut HashMap<String, Timed<T>>, k: &str, value: T) {
    if map.len() >= MAX_ENTRIES {
        map.clear();
    }
    map.insert(
        k.to_string(),
        Timed {
            at: Instant::now(),
            value,
        },
    );
}

impl MetaCache {
    /// A cache that does not watch yet, trusting entries for `unwatched_ttl`.
    pub(crate) fn new(unwatched_ttl: Duration) -> Self {
        MetaCache {
            unwatched_ttl,
            watched: AtomicBool::new(false),
            maps: Mutex::new(Maps::default()),
        }
    }

    fn maps(&self) -> MutexGuard<'_, Maps> {
        self.maps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a ticket before reading the store for a fill.
    pub(crate) fn ticket(&self) -> Ticket {
        Ticket(self.maps().epoch)
    }

    pub(crate) fn bucket(&self, name: &str) -> Option<BucketInfo> {
        let watched = self.watched.load(Ordering::Acquire);
        get(&self.maps().buckets, watched, self.unwatched_ttl, name)
    }

    /// Fills a bucket's entry, unless something was invalidated since `ticket`.
    pub(crate) fn put_bucket(&self, ticket: Ticket, info: &BucketInfo) {
        let mut maps = self.maps();
        if maps.epoch == ticket.0 {
            put(&mut maps.buckets, &info.name, info.clone());
        }
    }

    pub(crate) fn key(&self, access_key: &str) -> Option<KeyRecord> {
        let watched = self.watched.load(Ordering::Acquire);
        get(&self.maps().keys, watched, self.unwatched_ttl, access_key)
    }

    /// Fills a key's entry, unless something was invalidated since `ticket`.
    pub(crate) fn put_key(&self, ticket: Ticket, access_key: &str, rec: &KeyRecord) {
        let mut maps = self.maps();
        if maps.epoch == ticket.0 {
            put(&mut maps.keys, access_key, rec.clone());
        }
    }

    pub(crate) fn owner_quotas(&self, uid: &str) -> Option<OwnerQuotas> {
        let watched = self.watched.load(Ordering::Acquire);
        get(&self.maps().owner_quotas, watched, self.unwatched_ttl, uid)
    }

    /// Fills a user's quotas, unless something was invalidated since `ticket`.
    pub(crate) fn put_owner_quotas(&self, ticket: Ticket, uid: &str, q: OwnerQuotas) {
        let mut maps = self.maps();
        if maps.epoch == ticket.0 {
            put(&mut maps.owner_quotas, uid, q);
        }
    }

    pub(crate) fn ratelimits(&self) -> Option<Arc<RateLimits>> {
        let watched = self.watched.load(Ordering::Acquire);
        self.maps()
            .ratelimits
            .as_ref()
            .filter(|t| watched || t.at.elapsed() < self.unwatched_ttl)
            .map(|t| t.value.clone())
    }

    /// Fills the rate limits, unless something was invalidated since `ticket`.
    pub(crate) fn put_ratelimits(&self, ticket: Ticket, limits: &Arc<RateLimits>) {
        let mut maps = self.maps();
        if maps.epoch == ticket.0 {
            maps.ratelimits = Some(Timed {
                at: Instant::now(),
                value: limits.clone(),
            });
            maps.last_ratelimits = Some(limits.clone());
        }
    }

    /// The rate limits last read, even if invalidated since.
    pub(crate) fn last_ratelimits(&self) -> Option<Arc<RateLimits>> {
        self.maps().last_ratelimits.clone()
    }

    /// Drops what `change` makes stale; `None` (an unreadable change) drops all.
    pub(crate) fn invalidate(&self, change: Option<&Change>) {
        let mut maps = self.maps();
        match change {
            Some(Change::Bucket(name)) => {
                maps.buckets.remove(name);
            }
            Some(Change::Key(key)) => {
                maps.keys.remove(key);
            }
            Some(Change::RateLimits) => maps.ratelimits = None,
            Some(Change::User(uid)) => {
                maps.owner_quotas.remove(uid);
            }
            // the object cache's; nothing here is stale
            Some(Change::Object(_)) => return,
            None => {
                maps.buckets.clear();
                maps.keys.clear();
                maps.owner_quotas.clear();
                maps.ratelimits = None;
            }
        }
        maps.epoch += 1;
    }

    /// Says whether changes are watched now. Either way the cache starts
    /// over: what was filled while unwatched may be stale, and once the
    /// watch is lost, notifications may have been missed.
    pub(crate) fn set_watched(&self, watched: bool) {
        let mut maps = self.maps();
        maps.invalidate_all();
        self.watched.store(watched, Ordering::Release);
    }

    /// Whether changes are watched now.
    pub(crate) fn watched(&self) -> bool {
        self.watched.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::bucket_record;

    fn info(name: &str, id: &str) -> BucketInfo {
        bucket_record(name, id, "u")
    }

    #[test]
    fn payloads_round_trip() {
        for c in [
            Change::Bucket("b.1".into()),
            Change::Key("AK".into()),
            Change::RateLimits,
            Change::User("alice".into()),
            Change::Object("id/k\u{e9}y/x".into()),
        ] {
            assert_eq!(Change::decode(&c.encode()), Some(c));
        }
        assert_eq!(Change::decode(b"zwhat"), None);
        assert_eq!(Change::decode(b""), None);
    }

    #[test]
    fn a_fill_that_raced_an_invalidation_is_dropped() {
        let c = MetaCache::new(Duration::from_secs(60));
        let before = c.ticket();
        c.invalidate(Some(&Change::Bucket("b".into())));
        c.put_bucket(before, &info("b", "old"));
        assert!(c.bucket("b").is_none(), "a stale read must not be cached");
        c.put_bucket(c.ticket(), &info("b", "new"));
        assert_eq!(c.bucket("b").map(|i| i.id), Some("new".into()));
    }

    #[test]
    fn invalidation_drops_only_what_changed() {
        let c = MetaCache::new(Duration::from_secs(60));
        let t = c.ticket();
        c.put_bucket(t, &info("a", "1"));
        c.put_bucket(t, &info("b", "2"));
        c.invalidate(Some(&Change::Bucket("a".into())));
        assert!(c.bucket("a").is_none());
        assert!(c.bucket("b").is_some());
        c.invalidate(None);
        assert!(c.bucket("b").is_none(), "an unreadable change drops all");
    }

    #[test]
    fn unwatched_entries_expire_watched_ones_do_not() {
        let c = MetaCache::new(Duration::from_millis(30));
        c.put_bucket(c.ticket(), &info("a", "1"));
        std::thread::sleep(Duration::from_millis(60));
        assert!(c.bucket("a").is_none(), "unwatched: the TTL applies");
        c.set_watched(true);
        c.put_bucket(c.ticket(), &info("a", "1"));
        std::thread::sleep(Duration::from_millis(60));
        assert!(c.bucket("a").is_some(), "watched: kept until invalidated");
        c.set_watched(false);
        assert!(c.bucket("a").is_none(), "losing the watch starts over");
    }
}
