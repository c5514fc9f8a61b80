//! Stores that wrap another store: [`BlockingCalls`] for the blocking pool
//! mode, [`AddedLatency`] to emulate a slower cluster, [`ReadOnly`] to keep
//! a gateway from writing where it only reads.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::{
    NamespaceFilter, NotifyOutcome, ObjectId, ObjectLister, ReadOp, ReadResult, Store, StoreError,
    StoreResult, WatchHandle, Watcher, WriteOp, WriteOutcome,
};

/// A store whose async calls run the wrapped store's blocking calls on the
/// calling thread, without yielding.
///
/// This is the blocking pool mode's store: a handler thread runs one request
/// at a time, and every store call holds that thread until it completes, as in
/// civetweb and early Beast. It must never be used from a tokio worker that
/// serves other tasks.
pub struct BlockingCalls(pub Arc<dyn Store>);

#[async_trait]
impl Store for BlockingCalls {
    fn backend(&self) -> &'static str {
        self.0.backend()
    }
    fn announce(
        &self,
        service: &str,
        metadata: &[(String, String)],
    ) -> StoreResult<Option<String>> {
        self.0.announce(service, metadata)
    }
    fn settings(&self, options: &[&str]) -> StoreResult<Option<Vec<(String, String)>>> {
        self.0.settings(options)
    }
    async fn create_pool(&self, pool: &str) -> StoreResult<()> {
        self.0.create_pool_blocking(pool)
    }
    fn create_pool_blocking(&self, pool: &str) -> StoreResult<()> {
        self.0.create_pool_blocking(pool)
    }
    async fn write(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        self.0.write_blocking(obj, op)
    }
    fn write_blocking(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        self.0.write_blocking(obj, op)
    }
    async fn read(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        self.0.read_blocking(obj, op)
    }
    fn read_blocking(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        self.0.read_blocking(obj, op)
    }
    async fn list_objects(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        let inner = self.0.list_objects_blocking(pool, namespace)?;
        Ok(Box::new(BlockingLister(inner)))
    }
    fn list_objects_blocking(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        self.0.list_objects_blocking(pool, namespace)
    }
    fn watch(
        &self,
        obj: &ObjectId,
        watcher: Arc<dyn Watcher>,
    ) -> StoreResult<Box<dyn WatchHandle>> {
        self.0.watch(obj, watcher)
    }
    async fn notify(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        self.0.notify_blocking(obj, payload, timeout)
    }
    fn notify_blocking(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        self.0.notify_blocking(obj, payload, timeout)
    }
}

/// [`BlockingCalls`]' lister: pages are fetched with blocking calls.
struct BlockingLister(Box<dyn ObjectLister>);

#[async_trait]
impl ObjectLister for BlockingLister {
    async fn next_page(&mut self, max: usize) -> StoreResult<Vec<crate::ObjectEntry>> {
        self.0.next_page_blocking(max)
    }
    fn next_page_blocking(&mut self, max: usize) -> StoreResult<Vec<crate::ObjectEntry>> {
        self.0.next_page_blocking(max)
    }
}

/// A store that refuses every write and pool creation, passing reads,
/// listings, watches and notifies through: the guard under a gateway that
/// serves another gateway's layout read-only (radosgw's), so that a write a
/// path was not meant to make fails loudly instead of landing in the other
/// gateway's pools. A watch may still create the watched object when it is
/// absent, as RADOS' watch does (radosgw's control objects exist whenever a
/// radosgw has run).
pub struct ReadOnly(pub Arc<dyn Store>);

impl ReadOnly {
    fn refused(what: &str, name: &str) -> StoreError {
        StoreError::InvalidArgument(format!("{what} {name} refused: this store is read-only"))
    }
}

#[async_trait]
impl Store for ReadOnly {
    fn backend(&self) -> &'static str {
        self.0.backend()
    }

    fn announce(
        &self,
        service: &str,
        metadata: &[(String, String)],
    ) -> StoreResult<Option<String>> {
        self.0.announce(service, metadata)
    }

    fn settings(&self, options: &[&str]) -> StoreResult<Option<Vec<(String, String)>>> {
        self.0.settings(options)
    }

    async fn create_pool(&self, pool: &str) -> StoreResult<()> {
        Err(Self::refused("creating pool", pool))
    }

    fn create_pool_blocking(&self, pool: &str) -> StoreResult<()> {
        Err(Self::refused("creating pool", pool))
    }

    async fn write(&self, obj: &ObjectId, _: WriteOp) -> StoreResult<WriteOutcome> {
        Err(Self::refused("a write of", &obj.name))
    }

    fn write_blocking(&self, obj: &ObjectId, _: WriteOp) -> StoreResult<WriteOutcome> {
        Err(Self::refused("a write of", &obj.name))
    }

    async fn read(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        self.0.read(obj, op).await
    }

    fn read_blocking(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        self.0.read_blocking(obj, op)
    }

    async fn list_objects(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        self.0.list_objects(pool, namespace).await
    }

    fn list_objects_blocking(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        self.0.list_objects_blocking(pool, namespace)
    }

    fn watch(
        &self,
        obj: &ObjectId,
        watcher: Arc<dyn Watcher>,
    ) -> StoreResult<Box<dyn WatchHandle>> {
        self.0.watch(obj, watcher)
    }

    async fn notify(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        self.0.notify(obj, payload, timeout).await
    }

    fn notify_blocking(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        self.0.notify_blocking(obj, payload, timeout)
    }
}

/// A store that waits a fixed time before every read, write and listing
/// call: the lab's way to emulate a remote or loaded cluster on a fast local
/// backend, and the tests' way to hold requests in flight. Async calls sleep
/// on the tokio timer; blocking calls sleep their thread.
pub struct AddedLatency {
    inner: Arc<dyn Store>,
    delay: Duration,
}

impl AddedLatency {
    /// Wraps `inner`, adding `delay` to each call.
    pub fn new(inner: Arc<dyn Store>, delay: Duration) -> Self {
        AddedLatency { inner, delay }
    }
}

#[async_trait]
impl Store for AddedLatency {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
    fn announce(
        &self,
        service: &str,
        metadata: &[(String, String)],
    ) -> StoreResult<Option<String>> {
        self.inner.announce(service, metadata)
    }
    fn settings(&self, options: &[&str]) -> StoreResult<Option<Vec<(String, String)>>> {
        self.inner.settings(options)
    }
    async fn create_pool(&self, pool: &str) -> StoreResult<()> {
        self.inner.create_pool(pool).await
    }
    fn create_pool_blocking(&self, pool: &str) -> StoreResult<()> {
        self.inner.create_pool_blocking(pool)
    }
    async fn write(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        tokio::time::sleep(self.delay).await;
        self.inner.write(obj, op).await
    }
    fn write_blocking(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        std::thread::sleep(self.delay);
        self.inner.write_blocking(obj, op)
    }
    async fn read(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        tokio::time::sleep(self.delay).await;
        self.inner.read(obj, op).await
    }
    fn read_blocking(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        std::thread::sleep(self.delay);
        self.inner.read_blocking(obj, op)
    }
    async fn list_objects(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        tokio::time::sleep(self.delay).await;
        self.inner.list_objects(pool, namespace).await
    }
    fn list_objects_blocking(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        std::thread::sleep(self.delay);
        self.inner.list_objects_blocking(pool, namespace)
    }
    fn watch(
        &self,
        obj: &ObjectId,
        watcher: Arc<dyn Watcher>,
    ) -> StoreResult<Box<dyn WatchHandle>> {
        self.inner.watch(obj, watcher)
    }
    async fn notify(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        tokio::time::sleep(self.delay).await;
        self.inner.notify(obj, payload, timeout).await
    }
    fn notify_blocking(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        std::thread::sleep(self.delay);
        self.inner.notify_blocking(obj, payload, timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Counts which form of each call it receives.
    #[derive(Default)]
    struct Forms {
        async_calls: AtomicUsize,
        blocking_calls: AtomicUsize,
    }

    #[async_trait]
    impl Store for Forms {
        fn backend(&self) -> &'static str {
            "forms"
        }
        fn announce(&self, _: &str, _: &[(String, String)]) -> StoreResult<Option<String>> {
            Ok(None)
        }
        fn settings(&self, _: &[&str]) -> StoreResult<Option<Vec<(String, String)>>> {
            Ok(None)
        }
        async fn create_pool(&self, _: &str) -> StoreResult<()> {
            self.async_calls.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
        fn create_pool_blocking(&self, _: &str) -> StoreResult<()> {
            self.blocking_calls.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }
        async fn write(&self, _: &ObjectId, _: WriteOp) -> StoreResult<WriteOutcome> {
            self.async_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        fn write_blocking(&self, _: &ObjectId, _: WriteOp) -> StoreResult<WriteOutcome> {
            self.blocking_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        async fn read(&self, _: &ObjectId, _: ReadOp) -> StoreResult<ReadResult> {
            self.async_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        fn read_blocking(&self, _: &ObjectId, _: ReadOp) -> StoreResult<ReadResult> {
            self.blocking_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        async fn list_objects(
            &self,
            _: &str,
            _: NamespaceFilter,
        ) -> StoreResult<Box<dyn ObjectLister>> {
            self.async_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        fn list_objects_blocking(
            &self,
            _: &str,
            _: NamespaceFilter,
        ) -> StoreResult<Box<dyn ObjectLister>> {
            self.blocking_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        fn watch(&self, _: &ObjectId, _: Arc<dyn Watcher>) -> StoreResult<Box<dyn WatchHandle>> {
            self.blocking_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        async fn notify(&self, _: &ObjectId, _: &[u8], _: Duration) -> StoreResult<NotifyOutcome> {
            self.async_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
        fn notify_blocking(
            &self,
            _: &ObjectId,
            _: &[u8],
            _: Duration,
        ) -> StoreResult<NotifyOutcome> {
            self.blocking_calls.fetch_add(1, Ordering::Relaxed);
            Err(StoreError::NotFound)
        }
    }

    fn obj() -> ObjectId {
        ObjectId::new("data", "o")
    }

    #[test]
    fn blocking_calls_use_only_the_blocking_forms() {
        let forms = Arc::new(Forms::default());
        let store = BlockingCalls(forms.clone());
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        rt.block_on(async {
            store.create_pool("p").await.expect("pool");
            assert!(store.write(&obj(), WriteOp::new()).await.is_err());
            assert!(store.read(&obj(), ReadOp::new()).await.is_err());
            assert!(store.list_objects("p", NamespaceFilter::All).await.is_err());
            let wait = Duration::from_secs(1);
            assert!(store.notify(&obj(), b"x", wait).await.is_err());
        });
        assert_eq!(forms.async_calls.load(Ordering::Relaxed), 0);
        assert_eq!(forms.blocking_calls.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn read_only_refuses_writes_and_passes_reads() {
        let forms = Arc::new(Forms::default());
        let store = ReadOnly(forms.clone());
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        rt.block_on(async {
            for r in [
                store.create_pool("p").await,
                store.create_pool_blocking("p"),
                store.write(&obj(), WriteOp::new()).await.map(|_| ()),
                store.write_blocking(&obj(), WriteOp::new()).map(|_| ()),
            ] {
                assert!(
                    matches!(&r, Err(StoreError::InvalidArgument(m)) if m.contains("read-only")),
                    "{r:?}"
                );
            }
            // reads reach the store beneath (whose answer is an error)
            let _ = store.read(&obj(), ReadOp::new()).await;
            let _ = store.read_blocking(&obj(), ReadOp::new());
        });
        assert_eq!(forms.async_calls.load(Ordering::Relaxed), 1);
        assert_eq!(forms.blocking_calls.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn added_latency_delays_both_forms() {
        let delay = Duration::from_millis(30);
        let store = AddedLatency::new(Arc::new(Forms::default()), delay);
        let t = std::time::Instant::now();
        assert!(store.read_blocking(&obj(), ReadOp::new()).is_err());
        assert!(t.elapsed() >= delay);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("runtime");
        let t = std::time::Instant::now();
        rt.block_on(async { assert!(store.read(&obj(), ReadOp::new()).await.is_err()) });
        assert!(t.elapsed() >= delay);
    }
}
