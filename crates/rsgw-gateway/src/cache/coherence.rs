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
//!
//! On radosgw's layout the same supervisor keeps the zone's
//! [`RecordCache`] coherent with what radosgw announces on the zone's
//! control objects (`notify.<n>`): radosgw, like rsgw, answers a change
//! only once every watcher acknowledged its announcement (or its notify
//! timed out), so rsgw's next request sees it; a broken watch is
//! distrusted within the same fraction of the timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use rsgw_radosgw::cache::RecordCache;
use rsgw_radosgw::zone::Zone;
use rsgw_store::{Store, StoreError, WatchHandle, Watcher};

use crate::cache::meta::{Change, MetaCache};
use crate::cache::objects::ObjectCache;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;

/// The share of the notify timeout after which an unconfirmed watch is
/// distrusted (3/5: at 5 s, 3 s, well above the 1 s between pings and well
/// below the notify timeout, with the supervisor's checks in between).
const STALE_FRACTION: (u32, u32) = (3, 5);

/// Notify attempts that fail outright (not watchers timing out) before the
/// change reports the failure.
const NOTIFY_ATTEMPTS: usize = 3;

/// The caches a watch keeps coherent.
#[derive(Clone)]
pub(crate) struct Caches {
    pub(crate) meta: Arc<MetaCache>,
    pub(crate) objects: Arc<ObjectCache>,
}

impl Caches {
    /// Drops what `change` makes stale; `None` (a change this version
    /// cannot read) drops everything.
    pub(crate) fn invalidate(&self, change: Option<&Change>) {
        self.meta.invalidate(change);
        match change {
            Some(Change::Object(name)) => self.objects.invalidate(name),
            Some(_) => {}
            None => self.objects.invalidate_all(),
        }
    }

    /// Whether changes are watched now: the metadata cache falls back to
    /// its TTL while not, the object cache stops serving.
    pub(crate) fn set_watched(&self, watched: bool) {
        self.meta.set_watched(watched);
        self.objects.set_serving(watched);
    }

    fn watched(&self) -> bool {
        self.meta.watched()
    }
}

/// Turns notifications into invalidations.
struct CacheWatcher(Caches);

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

/// What a supervised watch keeps coherent: how its watches are
/// registered, and the trust of the cache behind them.
trait Coherent: Send + Sync + 'static {
    /// Registers the watches; each notification reaches the cache.
    fn register(&self) -> GatewayResult<Vec<Box<dyn WatchHandle>>>;
    /// Says whether the watches are up (see [`Caches::set_watched`]).
    fn set_watched(&self, watched: bool);
    /// Whether they are.
    fn watched(&self) -> bool;
}

/// rsgw's own layout: the control object, watched for [`Caches`].
struct Native {
    caches: Caches,
    store: Arc<dyn Store>,
    watcher: Arc<dyn Watcher>,
}

impl Coherent for Native {
    fn register(&self) -> GatewayResult<Vec<Box<dyn WatchHandle>>> {
        Ok(vec![
            self.store.watch(&layout::control(), self.watcher.clone())?,
        ])
    }

    fn set_watched(&self, watched: bool) {
        self.caches.set_watched(watched);
    }

    fn watched(&self) -> bool {
        self.caches.watched()
    }
}

/// radosgw's layout: every control object of the zone, watched for its
/// record cache.
struct ZoneRecords {
    zone: Zone,
    cache: Arc<RecordCache>,
}

impl Coherent for ZoneRecords {
    fn register(&self) -> GatewayResult<Vec<Box<dyn WatchHandle>>> {
        self.zone
            .watch_control(self.cache.clone())
            .map_err(GatewayError::from)
    }

    fn set_watched(&self, watched: bool) {
        self.cache.set_watched(watched);
    }

    fn watched(&self) -> bool {
        self.cache.watched()
    }
}

impl Caches {
    /// Watches the control object, so that changes made by other instances
    /// and `rsgw admin` reach this instance's caches before their calls
    /// return. Registers the watch before returning (an error if the store
    /// refuses), then keeps it up from a thread of its own.
    /// `notify_timeout` is the one of every change's announcement (see the
    /// module documentation).
    pub(crate) fn watch(
        &self,
        store: &Arc<dyn Store>,
        notify_timeout: Duration,
    ) -> GatewayResult<MetadataWatch> {
        let native = Native {
            caches: self.clone(),
            store: store.clone(),
            watcher: Arc::new(CacheWatcher(self.clone())),
        };
        MetadataWatch::start(Arc::new(native), notify_timeout)
    }
}

/// Watches the control objects of `zone`, so that what radosgw announces
/// there drops `cache`'s stale records; registered before returning (an
/// error if there are no control objects: no radosgw of the zone ever
/// ran), then kept up from a thread of its own.
pub(crate) fn watch_zone(
    zone: &Zone,
    cache: &Arc<RecordCache>,
    notify_timeout: Duration,
) -> GatewayResult<MetadataWatch> {
    let records = ZoneRecords {
        zone: zone.clone(),
        cache: cache.clone(),
    };
    MetadataWatch::start(Arc::new(records), notify_timeout)
}

impl MetadataWatch {
    fn start(target: Arc<dyn Coherent>, notify_timeout: Duration) -> GatewayResult<MetadataWatch> {
        let first = target.register()?;
        target.set_watched(true);
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        let thread = std::thread::Builder::new()
            .name("rsgw-meta-watch".into())
            .spawn(move || supervise(&*target, notify_timeout, first, &thread_stop))
            .map_err(StoreError::from)?;
        Ok(MetadataWatch {
            stop,
            thread: Some(thread),
        })
    }
}

/// Checks the watches every tenth of `timeout`, distrusts them (and so the
/// cache) when one broke or was last confirmed too long ago, and
/// registers them again.
fn supervise(
    target: &dyn Coherent,
    timeout: Duration,
    first: Vec<Box<dyn WatchHandle>>,
    stop: &AtomicBool,
) {
    let stale_after = timeout * STALE_FRACTION.0 / STALE_FRACTION.1;
    let every = timeout / 10;
    let mut handles = Some(first);
    while !stop.load(Ordering::Acquire) {
        std::thread::park_timeout(every);
        match handles.as_ref().map(|hs| oldest(hs)) {
            Some(Ok(age)) if age <= stale_after => {}
            Some(bad) => {
                let reason = match bad {
                    Ok(age) => format!("last confirmed {} ms ago", age.as_millis()),
                    Err(e) => e.to_string(),
                };
                if target.watched() {
                    tracing::warn!(%reason, "metadata watch lost; caching with the short TTL until it is back");
                }
                target.set_watched(false);
                handles = None;
            }
            None => match target.register() {
                Ok(hs) => {
                    target.set_watched(true);
                    tracing::info!("metadata watch re-established");
                    handles = Some(hs);
                }
                Err(e) => tracing::debug!(error = %e, "re-establishing the metadata watch"),
            },
        }
    }
    target.set_watched(false);
}

/// The age of the least recently confirmed watch, or the first error.
fn oldest(handles: &[Box<dyn WatchHandle>]) -> Result<Duration, StoreError> {
    handles
        .iter()
        .try_fold(Duration::ZERO, |worst, h| Ok(worst.max(h.check()?)))
}

impl Caches {
    /// Applies `change` to this instance's cache and announces it to every
    /// watching instance, returning once they acknowledged (or the notify
    /// timeout passed for those that did not answer: see the module docs).
    pub(crate) async fn announce(
        &self,
        store: &dyn Store,
        notify_timeout: Duration,
        change: Change,
    ) -> GatewayResult<()> {
        self.invalidate(Some(&change));
        let payload = change.encode();
        let mut last = None;
        for _ in 0..NOTIFY_ATTEMPTS {
            match store
                .notify(&layout::control(), &payload, notify_timeout)
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
    use rsgw_store::ReadOp;

    use crate::model::acl::CannedAcl;
    use crate::model::error::GatewayError;
    use crate::model::layout;
    use crate::model::params::{GetParams, PutParams};
    use crate::rules::authz::Requester;
    use crate::testutil::{Fixture, OWNER, body, collect, owner, small_opts};

    async fn get(
        gw: &crate::ops::gateway::Gateway,
        rq: &Requester,
        key: &str,
    ) -> Result<Vec<u8>, GatewayError> {
        let r = gw.get_object(rq, "coh", key, GetParams::default()).await?;
        collect(r.body.expect("a body")).await
    }

    /// Reads `key` until a read is served from memory (the first caching
    /// marks the object in the background), each read `want`.
    async fn cached(gw: &crate::ops::gateway::Gateway, rq: &Requester, key: &str, want: &[u8]) {
        let hits = gw.object_cache_stats().hits;
        for _ in 0..200 {
            assert_eq!(get(gw, rq, key).await.expect("get"), want);
            if gw.object_cache_stats().hits > hits {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        panic!("{key} never served from memory");
    }

    async fn put(gw: &crate::ops::gateway::Gateway, key: &str, data: &[u8], acl: CannedAcl) {
        let params = PutParams {
            acl: acl.into(),
            ..Default::default()
        };
        gw.put_object(&owner(), "coh", key, params, body(data, 3))
            .await
            .expect("put");
    }

    /// Objects this instance serves from memory change with every write
    /// another process makes: overwrite, ACL, delete, re-create.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cached_objects_change_with_the_other_process_writes() {
        let (f, id) = Fixture::with_bucket(small_opts(), "coh").await;
        let _watch = f.gw.watch_metadata().expect("watch");
        let other = f.other_process();
        let anon = Requester::anonymous();
        for round in 0..20u8 {
            let v1 = [b'a' + round % 26; 5];
            put(&other, "k", &v1, CannedAcl::PublicRead).await;
            cached(&f.gw, &anon, "k", &v1).await;
            let v2 = [b'A' + round % 26; 7];
            put(&other, "k", &v2, CannedAcl::PublicRead).await;
            assert_eq!(
                get(&f.gw, &anon, "k").await.expect("get"),
                v2,
                "round {round}: overwrite"
            );
            other
                .set_object_acl(&owner(), "coh", "k", None, CannedAcl::Private, None)
                .await
                .expect("acl");
            assert!(
                matches!(
                    get(&f.gw, &anon, "k").await,
                    Err(GatewayError::AccessDenied)
                ),
                "round {round}: made private"
            );
            assert_eq!(get(&f.gw, &owner(), "k").await.expect("get"), v2);
            other
                .delete_object(&owner(), "coh", "k")
                .await
                .expect("delete");
            assert!(
                matches!(
                    get(&f.gw, &owner(), "k").await,
                    Err(GatewayError::NoSuchKey)
                ),
                "round {round}: deleted"
            );
        }
        let s = f.gw.object_cache_stats();
        assert!(s.serving);
        assert!(s.hits >= 20, "served from memory: {s:?}");
        assert!(
            s.invalidations >= 20,
            "invalidated by the other's writes: {s:?}"
        );
        // an object read once is neither cached nor marked
        put(&other, "once", b"x", CannedAcl::Private).await;
        get(&f.gw, &owner(), "once").await.expect("get");
        let head =
            f.gw.store
                .read(&layout::head(&id, "once"), ReadOp::new().xattrs())
                .await
                .expect("head");
        assert!(
            !head
                .xattrs
                .unwrap_or_default()
                .contains_key(layout::CACHED_XATTR)
        );
        // an object larger than the largest cached one is read every time
        put(&other, "big", b"123456789", CannedAcl::Private).await;
        let before = f.gw.object_cache_stats().admissions;
        for _ in 0..3 {
            get(&f.gw, &owner(), "big").await.expect("get");
        }
        assert_eq!(f.gw.object_cache_stats().admissions, before);
    }

    /// Without its watch the instance serves nothing from memory.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_watch_no_object_cache() {
        let (f, _) = Fixture::with_bucket(small_opts(), "coh").await;
        put(&f.gw, "k", b"v", CannedAcl::Private).await;
        for _ in 0..3 {
            get(&f.gw, &owner(), "k").await.expect("get");
        }
        assert_eq!(f.gw.object_cache_stats().hits, 0, "never watched");
        let watch = f.gw.watch_metadata().expect("watch");
        cached(&f.gw, &owner(), "k", b"v").await;
        drop(watch);
        let s = f.gw.object_cache_stats();
        assert!(
            !s.serving && s.entries == 0,
            "watch gone, cache emptied: {s:?}"
        );
        get(&f.gw, &owner(), "k").await.expect("get");
        assert_eq!(f.gw.object_cache_stats().hits, s.hits);
    }

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
            assert_eq!(acl, CannedAcl::Private.into());
            other
                .set_bucket_acl(&owner(), "coh", CannedAcl::PublicRead, None)
                .await
                .expect("acl");
            let acl = f.gw.bucket_info("coh").await.expect("bucket").acl;
            assert_eq!(
                acl,
                CannedAcl::PublicRead.into(),
                "round {round}: the ACL change"
            );
            other
                .set_bucket_acl(&owner(), "coh", CannedAcl::Private, None)
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
