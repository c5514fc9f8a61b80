//! Coherent metadata caches across instances, radosgw's way: every serving
//! instance watches one control object; whoever changes a cached record
//! (any instance, `rsgw admin`) notifies it and returns only once every
//! watching instance acknowledged, having dropped the stale entry.
//!
//! A watch can break (an OSD or the network away, the watch expired on the
//! OSD). A supervisor thread checks it every tenth of the notify timeout:
//! when the watch reports an error, or was last confirmed more than
//! [`STALE_FRACTION`] of the notify timeout ago, the cache falls back to its
//! short TTL and the watch is registered again. The notifier waits the whole
//! notify timeout for an instance that does not answer, so by the time it
//! gives up, such an instance has stopped trusting its cache (the argument
//! in full is in docs/layout.md).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use rsgw_store::{StoreError, Watcher};

use crate::cache::{Change, MetaCache};
use crate::{Gateway, GatewayResult, layout};

/// The share of the notify timeout after which an unconfirmed watch is
/// distrusted (3/5: at 5 s, 3 s, well above the 1 s between pings and well
/// below the notify timeout, with the supervisor's checks in between).
const STALE_FRACTION: (u32, u32) = (3, 5);

/// Notify attempts that fail outright (not watchers timing out) before the
/// change reports the failure.
const NOTIFY_ATTEMPTS: usize = 3;

/// Turns notifications into invalidations.
struct CacheWatcher(Arc<MetaCache>);

impl Watcher for CacheWatcher {
    fn notified(&self, payload: &[u8]) {
        self.0.invalidate(Change::decode(payload).as_ref());
    }

    fn failed(&self, error: &StoreError) {
        if self.0.watched() {
            tracing::warn!(%error, "metadata watch broken; caching with the short TTL until it is back");
        }
        self.0.set_watched(false);
    }
}

/// The running watch of an instance; dropping it stops watching (and the
/// cache falls back to its TTL).
pub struct MetadataWatch {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for MetadataWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            if t.join().is_err() {
                tracing::error!("the metadata watch supervisor panicked");
            }
        }
    }
}

impl Gateway {
    /// Watches the control object, so that changes made by other instances
    /// and `rsgw admin` reach this instance's caches before their calls
    /// return. Registers the watch before returning (an error if the store
    /// refuses), then keeps it up from a thread of its own.
    pub fn watch_metadata(&self) -> GatewayResult<MetadataWatch> {
        let watcher: Arc<dyn Watcher> = Arc::new(CacheWatcher(self.cache.clone()));
        let first = self.store.watch(&layout::control(), watcher.clone())?;
        self.cache.set_watched(true);
        let stop = Arc::new(AtomicBool::new(false));
        let gw = self.clone();
        let thread_stop = stop.clone();
        let thread = std::thread::Builder::new()
            .name("rsgw-meta-watch".into())
            .spawn(move || gw.supervise(first, &watcher, &thread_stop))
            .map_err(StoreError::from)?;
        Ok(MetadataWatch {
            stop,
            thread: Some(thread),
        })
    }

    fn supervise(
        &self,
        first: Box<dyn rsgw_store::WatchHandle>,
        watcher: &Arc<dyn Watcher>,
        stop: &AtomicBool,
    ) {
        let timeout = self.opts.metadata_notify_timeout;
        let stale_after = timeout * STALE_FRACTION.0 / STALE_FRACTION.1;
        let every = timeout / 10;
        let mut handle = Some(first);
        while !stop.load(Ordering::Acquire) {
            std::thread::park_timeout(every);
            match handle.as_ref().map(|h| h.check()) {
                Some(Ok(age)) if age <= stale_after => {}
                Some(bad) => {
                    let reason = match bad {
                        Ok(age) => format!("last confirmed {} ms ago", age.as_millis()),
                        Err(e) => e.to_string(),
                    };
                    if self.cache.watched() {
                        tracing::warn!(%reason, "metadata watch lost; caching with the short TTL until it is back");
                    }
                    self.cache.set_watched(false);
                    handle = None;
                }
                None => match self.store.watch(&layout::control(), watcher.clone()) {
                    Ok(h) => {
                        self.cache.set_watched(true);
                        tracing::info!("metadata watch re-established");
                        handle = Some(h);
                    }
                    Err(e) => tracing::debug!(error = %e, "re-establishing the metadata watch"),
                },
            }
        }
        self.cache.set_watched(false);
    }

    /// Applies `change` to this instance's cache and announces it to every
    /// watching instance, returning once they acknowledged (or the notify
    /// timeout passed for those that did not answer: see the module docs).
    pub(crate) async fn announce(&self, change: Change) -> GatewayResult<()> {
        self.cache.invalidate(Some(&change));
        let payload = change.encode();
        let mut last = None;
        for _ in 0..NOTIFY_ATTEMPTS {
            match self
                .store
                .notify(
                    &layout::control(),
                    &payload,
                    self.opts.metadata_notify_timeout,
                )
                .await
            {
                Ok(out) => {
                    if out.timed_out > 0 {
                        tracing::warn!(
                            ?change,
                            acked = out.acked,
                            timed_out = out.timed_out,
                            "instances did not acknowledge a metadata change in time"
                        );
                    }
                    return Ok(());
                }
                // the control object is created by the first watch; with
                // nobody watching there is nobody to tell
                Err(StoreError::NotFound) => return Ok(()),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or(StoreError::Timeout).into())
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{Fixture, OWNER, owner, small_opts};
    use crate::{CannedAcl, GatewayError, Requester};

    /// What another process changes applies here on the very next call,
    /// though this gateway had it cached (its TTL is 5 s).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn changes_by_another_process_apply_on_the_next_call() {
        let (f, _) = Fixture::with_bucket(small_opts(), "coh").await;
        let _watch = f.gw.watch_metadata().expect("watch");
        let other = f.other_process();
        let user = f.gw.create_user("bob", "Bob", None).await.expect("user");
        let mut key = user.keys[0].access_key.clone();
        for round in 0..20 {
            // cached here, then changed there
            f.gw.lookup_key(&key).await.expect("key");
            let acl = f.gw.bucket_info("coh").await.expect("bucket").acl;
            assert_eq!(acl, CannedAcl::Private);
            other
                .set_bucket_acl(&owner(), "coh", CannedAcl::PublicRead)
                .await
                .expect("acl");
            let acl = f.gw.bucket_info("coh").await.expect("bucket").acl;
            assert_eq!(acl, CannedAcl::PublicRead, "round {round}: the ACL change");
            other
                .set_bucket_acl(&owner(), "coh", CannedAcl::Private)
                .await
                .expect("acl back");
            let next = other.create_key("bob", None).await.expect("new key");
            other.remove_key(&key).await.expect("remove key");
            assert!(
                matches!(f.gw.lookup_key(&key).await, Err(GatewayError::AccessDenied)),
                "round {round}: the removed key"
            );
            key = next.keys.last().expect("a key").access_key.clone();
        }
        f.gw.bucket_info("coh").await.expect("cached");
        other
            .delete_bucket(&Requester::user(OWNER), "coh")
            .await
            .expect("delete");
        assert!(matches!(
            f.gw.bucket_info("coh").await,
            Err(GatewayError::NoSuchBucket)
        ));
    }
}
