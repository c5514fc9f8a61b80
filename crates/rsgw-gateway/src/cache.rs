//! A short-lived cache of bucket infos and access keys, so that an object
//! GET costs one store round trip. Entries expire after the TTL; this
//! process's own changes invalidate them at once, other processes' changes
//! (`rsgw admin`, other instances) are seen within the TTL.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::buckets::BucketInfo;
use crate::users::KeyRecord;

struct Timed<T> {
    at: Instant,
    value: T,
}

/// The cache.
pub(crate) struct MetaCache {
    ttl: Duration,
    buckets: Mutex<HashMap<String, Timed<BucketInfo>>>,
    keys: Mutex<HashMap<String, Timed<KeyRecord>>>,
}

fn get<T: Clone>(map: &Mutex<HashMap<String, Timed<T>>>, ttl: Duration, k: &str) -> Option<T> {
    let map = map.lock().unwrap_or_else(PoisonError::into_inner);
    map.get(k)
        .filter(|t| t.at.elapsed() < ttl)
        .map(|t| t.value.clone())
}

fn put<T>(map: &Mutex<HashMap<String, Timed<T>>>, k: &str, value: T) {
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    if map.len() > 100_000 {
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
    pub(crate) fn new(ttl: Duration) -> Self {
        MetaCache {
            ttl,
            buckets: Mutex::new(HashMap::new()),
            keys: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn bucket(&self, name: &str) -> Option<BucketInfo> {
        get(&self.buckets, self.ttl, name)
    }

    pub(crate) fn put_bucket(&self, info: &BucketInfo) {
        put(&self.buckets, &info.name, info.clone());
    }

    pub(crate) fn forget_bucket(&self, name: &str) {
        self.buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name);
    }

    pub(crate) fn key(&self, access_key: &str) -> Option<KeyRecord> {
        get(&self.keys, self.ttl, access_key)
    }

    pub(crate) fn put_key(&self, access_key: &str, rec: &KeyRecord) {
        put(&self.keys, access_key, rec.clone());
    }

    pub(crate) fn forget_key(&self, access_key: &str) {
        self.keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(access_key);
    }
}
