//! The embedded backend: RADOS semantics on a local directory.
//!
//! Metadata (objects, xattrs, omap, pools) lives in one SQLite database in WAL
//! mode, so compound operations are single transactions and several processes
//! (the server and `rsgw admin`) can use one directory at once. Object data up
//! to `inline_max` bytes is stored inline in the database; larger data lives in
//! immutable files under `data/`, written before the transaction that makes
//! them visible and deleted after the transaction that replaces them. A write
//! is therefore either fully visible or absent after `kill -9`. The choice is
//! recorded in `docs/decisions/0001-local-metadata-store.md`.

#![forbid(unsafe_code)]

mod db;
mod files;
mod list;
mod read;
mod watch;
mod write;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rsgw_store::{
    NamespaceFilter, NotifyOutcome, ObjectId, ObjectLister, ReadOp, ReadResult, Store, StoreError,
    StoreResult, WatchHandle, Watcher, WriteOp, WriteOutcome,
};

pub use files::SweepReport;

/// Settings of the embedded backend.
#[derive(Debug, Clone)]
pub struct LocalOptions {
    /// Directory holding `meta.db` and `data/`; created if missing.
    pub path: PathBuf,
    /// Prefix put before every pool name (`<prefix>.<pool>`); empty:
    /// pool names are whole (a radosgw zone's, read as they are).
    pub pool_prefix: String,
    /// Objects with at most this many bytes keep their data in the database.
    pub inline_max: usize,
    /// Largest object accepted, like RADOS `osd_max_object_size`.
    pub max_object_size: u64,
    /// Flush data files and the database to disk before acknowledging a write.
    /// Off by default (as in Garage): a crash of the process loses nothing,
    /// a crash of the machine may lose the last acknowledged writes.
    pub fsync: bool,
    /// How long a write waits for another process holding the database.
    pub busy_timeout: Duration,
    /// Writes that add data are refused (`StoreError::Full`) once the
    /// filesystem of `path` has fewer free bytes than this, so that what
    /// frees space (deletes, the collector) and the metadata of writes
    /// already made still find room, as Ceph's full ratio keeps for OSDs.
    /// 0: no reserve (a full disk still answers `Full`, later).
    pub min_free_bytes: u64,
}

impl LocalOptions {
    /// The defaults for a directory.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        LocalOptions {
            path: path.into(),
            pool_prefix: "rsgw".into(),
            inline_max: 64 * 1024,
            max_object_size: 128 << 20,
            fsync: false,
            busy_timeout: Duration::from_secs(30),
            min_free_bytes: 64 << 20,
        }
    }
}

/// The embedded store. Cheap to clone; clones share one database connection set.
#[derive(Clone)]
pub struct LocalStore {
    inner: Arc<db::Inner>,
}

/// How old an unreferenced data file must be before the sweep at start-up
/// removes it: younger ones may belong to a write still running in another process.
pub const ORPHAN_MIN_AGE: Duration = Duration::from_secs(600);

impl LocalStore {
    /// Opens (creating if needed) the store in `opts.path`, and starts a
    /// background sweep of data files orphaned by crashed writers.
    pub fn open(opts: LocalOptions) -> StoreResult<Self> {
        let store = LocalStore {
            inner: Arc::new(db::Inner::open(opts)?),
        };
        let bg = store.clone();
        std::thread::Builder::new()
            .name("rsgw-local-sweep".into())
            .spawn(move || match bg.sweep_orphans(ORPHAN_MIN_AGE) {
                Ok(r) if r.removed > 0 => {
                    tracing::info!(removed = r.removed, "removed orphaned data files");
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "orphan sweep failed"),
            })
            .map_err(StoreError::from)?;
        Ok(store)
    }

    /// Removes data files that no object references and that are older than
    /// `min_age` (files of writes cut short by a crash).
    pub fn sweep_orphans(&self, min_age: Duration) -> StoreResult<SweepReport> {
        files::sweep(&self.inner, min_age)
    }

    /// The directory this store lives in.
    pub fn path(&self) -> &std::path::Path {
        &self.inner.opts.path
    }
}

/// A read allowed to wait always answers; `None` would be a bug.
fn blocking_answer(r: Option<ReadResult>) -> StoreResult<ReadResult> {
    r.ok_or_else(|| StoreError::Io("a read allowed to wait gave no answer".into()))
}

async fn off_thread<T: Send + 'static>(
    f: impl FnOnce() -> StoreResult<T> + Send + 'static,
) -> StoreResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Io(format!("store task failed: {e}")))?
}

#[async_trait]
impl Store for LocalStore {
    fn backend(&self) -> &'static str {
        "local"
    }

    fn announce(&self, _: &str, _: &[(String, String)]) -> StoreResult<Option<String>> {
        Ok(None)
    }

    fn settings(&self, _: &[&str]) -> StoreResult<Option<Vec<(String, String)>>> {
        Ok(None)
    }

    async fn create_pool(&self, pool: &str) -> StoreResult<()> {
        let inner = self.inner.clone();
        let pool = pool.to_string();
        off_thread(move || inner.create_pool(&pool)).await
    }

    fn create_pool_blocking(&self, pool: &str) -> StoreResult<()> {
        self.inner.create_pool(pool)
    }

    async fn write(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        let inner = self.inner.clone();
        let obj = obj.clone();
        off_thread(move || write::write(&inner, &obj, op)).await
    }

    fn write_blocking(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        write::write(&self.inner, obj, op)
    }

    async fn read(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        // What the database holds (metadata, small objects' data) comes
        // from SQLite's page cache in microseconds, less than a hand-off to
        // the blocking pool costs; data files, and a database lock held by
        // a writer, are waited for on the blocking pool.
        if let Some(r) = read::read(&self.inner, obj, &op, read::Wait::Never)? {
            return Ok(r);
        }
        let inner = self.inner.clone();
        let obj = obj.clone();
        off_thread(move || {
            read::read(&inner, &obj, &op, read::Wait::Allowed).and_then(blocking_answer)
        })
        .await
    }

    fn read_blocking(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        read::read(&self.inner, obj, &op, read::Wait::Allowed).and_then(blocking_answer)
    }

    async fn list_objects(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        let inner = self.inner.clone();
        let pool = pool.to_string();
        off_thread(move || list::LocalLister::new(inner, &pool, namespace))
            .await
            .map(|l| Box::new(l) as Box<dyn ObjectLister>)
    }

    fn list_objects_blocking(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        list::LocalLister::new(self.inner.clone(), pool, namespace)
            .map(|l| Box::new(l) as Box<dyn ObjectLister>)
    }

    fn watch(
        &self,
        obj: &ObjectId,
        watcher: Arc<dyn Watcher>,
    ) -> StoreResult<Box<dyn WatchHandle>> {
        write::write(&self.inner, obj, WriteOp::new().create())?;
        watch::watch(&self.inner.opts.path, obj, watcher)
    }

    async fn notify(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        let inner = self.inner.clone();
        let obj = obj.clone();
        let payload = payload.to_vec();
        off_thread(move || watch::notify(&inner.opts.path, &obj, &payload, timeout)).await
    }

    fn notify_blocking(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        watch::notify(&self.inner.opts.path, obj, payload, timeout)
    }
}
