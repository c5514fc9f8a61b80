//! The storage abstraction every part of rsgw stands on.
//!
//! The [`Store`] trait is shaped like RADOS on purpose: pools and namespaces,
//! objects with byte data, xattrs and an omap (a sorted key/value map), and
//! compound operations ([`WriteOp`], [`ReadOp`]) that apply atomically in one
//! round trip. The `rados` backend is then a thin mapping onto librados, and the
//! embedded `local` backend reproduces the same semantics on a local directory.
//!
//! Every operation exists in two forms: an `async` one that never waits on a
//! tokio worker (for I/O, a lock or the network), and a `_blocking` one for
//! callers that own a whole OS thread per request (the gateway's blocking
//! pool mode, through [`adapters::BlockingCalls`]).

#![forbid(unsafe_code)]

pub mod adapters;
mod error;
mod object;
mod op;
mod watch;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use error::{Fullness, StoreError, StoreResult};
pub use object::{NamespaceFilter, ObjectEntry, ObjectId, ObjectStat, validate_object_name};
pub use op::{
    CmpOp, Guard, OMAP_MAX_PAGE, OmapPage, OmapQuery, ReadOp, ReadResult, WriteAction, WriteOp,
    WriteOutcome,
};
pub use watch::{NotifyOutcome, WatchHandle, Watcher};

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

/// Name of the xattr reserved for an object's omap header.
///
/// librados' C API has no call for the omap header, so the `rados` backend keeps
/// the header in this xattr, written in the same atomic operation as everything
/// else. Both backends hide it from xattr listings and refuse it as a user xattr.
pub const OMAP_HEADER_XATTR: &str = "rsgw.omap_header";

/// A RADOS-shaped object store.
///
/// Pool names given to the trait are short names ("meta", "data"); a backend
/// places them under its configured prefix (`rsgw.meta`). Operating on a pool
/// that was never created fails with [`StoreError::NoSuchPool`].
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Short name of the backend ("local", "rados"), for logs and reports.
    fn backend(&self) -> &'static str;

    /// Announces this process to the store's cluster as a serving gateway,
    /// with `metadata` (frontend, version...): `rados` registers it in the
    /// cluster's service map as a daemon of `service` ("rgw"), as radosgw
    /// does, and returns the daemon's name; a store without a cluster has
    /// no one to tell (`None`). Blocking; called once by `rsgw serve`.
    fn announce(&self, service: &str, metadata: &[(String, String)])
    -> StoreResult<Option<String>>;

    /// The current values of the cluster client's configuration `options`
    /// (`rgw_thread_pool_size`...), as the client holds them: `rados` gives
    /// what its ceph.conf sets over the monitors' central config, which the
    /// monitors push to it while it runs; a store without a cluster has no
    /// such settings (`None`). A memory read, no round trip.
    fn settings(&self, options: &[&str]) -> StoreResult<Option<Vec<(String, String)>>>;

    /// Creates a pool if it does not exist yet; succeeds if it already does.
    async fn create_pool(&self, pool: &str) -> StoreResult<()>;
    /// Blocking form of [`Store::create_pool`].
    fn create_pool_blocking(&self, pool: &str) -> StoreResult<()>;

    /// Applies a compound write atomically: either every guard holds and every
    /// action takes effect, or nothing changes.
    async fn write(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome>;
    /// Blocking form of [`Store::write`].
    fn write_blocking(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome>;

    /// Runs a compound read in one round trip against one consistent state of
    /// the object. Fails with [`StoreError::NotFound`] if the object is absent.
    async fn read(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult>;
    /// Blocking form of [`Store::read`].
    fn read_blocking(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult>;

    /// Starts an iteration over the objects of a pool. The order is the
    /// backend's (hash order on RADOS, name order on `local`).
    async fn list_objects(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>>;
    /// Blocking form of [`Store::list_objects`].
    fn list_objects_blocking(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>>;

    /// Watches `obj` (created if absent): every [`Store::notify`] of it, by
    /// any client of the store, reaches `watcher` until the handle is
    /// dropped. Blocking; meant for start-up and for re-establishing a
    /// broken watch, not for request paths.
    fn watch(&self, obj: &ObjectId, watcher: Arc<dyn Watcher>)
    -> StoreResult<Box<dyn WatchHandle>>;

    /// Sends `payload` to every watch of `obj` and waits until each has
    /// acknowledged it or `timeout` has passed. Watches that did not answer
    /// are counted, not an error.
    async fn notify(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome>;
    /// Blocking form of [`Store::notify`].
    fn notify_blocking(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome>;
}

/// An iteration over a pool's objects, one page at a time.
#[async_trait]
pub trait ObjectLister: Send {
    /// Returns up to `max` further objects; an empty page means the end.
    async fn next_page(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>>;
    /// Blocking form of [`ObjectLister::next_page`].
    fn next_page_blocking(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>>;
}
