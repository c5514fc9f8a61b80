//! The Ceph backend: rsgw's [`Store`] trait on librados.
//!
//! Every operation is one librados compound op submitted with an aio
//! completion; the completion callback resolves a future (async form) or wakes
//! the waiting thread (blocking form), so a tokio worker never blocks inside
//! librados. Pool names get the configured prefix; the connection uses a
//! ceph.conf, a cephx client name and optionally a keyring.

mod aio;
mod cluster;
mod errno;
mod ffi;
mod list;
mod ops;
mod split;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rsgw_store::{
    NamespaceFilter, NotifyOutcome, ObjectId, ObjectLister, ReadOp, ReadResult, Store, StoreError,
    StoreResult, WatchHandle, Watcher, WriteOp, WriteOutcome,
};

/// How to reach the cluster.
#[derive(Debug, Clone)]
pub struct RadosOptions {
    /// The cluster's ceph.conf.
    pub ceph_conf: PathBuf,
    /// cephx client name, e.g. `client.rgw.rsgw`.
    pub client_name: String,
    /// Keyring file; `None` uses what ceph.conf says.
    pub keyring: Option<PathBuf>,
    /// Prefix put before every pool name (`<prefix>.<pool>`); empty:
    /// pool names are whole (a radosgw zone's, read as they are).
    pub pool_prefix: String,
    /// Largest object written; set it to the cluster's `osd_max_object_size`
    /// (RADOS' default, 128 MiB, is the default here too).
    pub max_object_size: u64,
    /// Time limit of each operation (`rados_osd_op_timeout`, `rados_mon_op_timeout`,
    /// `client_mount_timeout`).
    pub op_timeout: Duration,
    /// How long an OSD keeps the watch of a client that stopped answering
    /// its pings (`rados_watch3`'s timeout; the cluster's own default,
    /// `osd_client_watch_timeout`, is 30 s): the longest a notify waits on a
    /// gateway that died.
    pub watch_timeout: Duration,
}

impl RadosOptions {
    /// Defaults for a ceph.conf path.
    pub fn new(ceph_conf: impl Into<PathBuf>) -> Self {
        RadosOptions {
            ceph_conf: ceph_conf.into(),
            client_name: "client.rgw.rsgw".into(),
            keyring: None,
            pool_prefix: "rsgw".into(),
            max_object_size: 128 << 20,
            op_timeout: Duration::from_secs(30),
            watch_timeout: Duration::from_secs(5),
        }
    }
}

/// A connection to a Ceph cluster. Cheap to clone.
#[derive(Clone)]
pub struct RadosStore {
    inner: Arc<cluster::Inner>,
}

impl RadosStore {
    /// Connects to the cluster (blocking; at most about `op_timeout`).
    pub fn connect(opts: RadosOptions) -> StoreResult<Self> {
        Ok(RadosStore {
            inner: Arc::new(cluster::Inner::connect(opts)?),
        })
    }
}

/// radosgw's options as a client sees them: before it connects, from its
/// ceph.conf and the defaults (`local`), and once connected, with the
/// monitors' central config under ceph.conf (`connected`, Ceph's own
/// precedence). An option whose two values differ was set in the monitors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSettings {
    /// `(option, value)` from ceph.conf and the defaults.
    pub local: Vec<(String, String)>,
    /// `(option, value)` once connected, in the same order.
    pub connected: Vec<(String, String)>,
}

/// Connects as `opts` says to read `options` before and after the
/// monitors' central config applies ([`ClientSettings`]), then disconnects:
/// `rsgw serve` reads them so before it sizes its threads (blocking; at
/// most about `op_timeout`).
pub fn client_settings(opts: &RadosOptions, options: &[&str]) -> StoreResult<ClientSettings> {
    let cluster = cluster::Cluster::configured(opts)?;
    let local = cluster.values(options)?;
    let connected = cluster.connect(opts)?.values(options)?;
    Ok(ClientSettings { local, connected })
}

async fn off_thread<T: Send + 'static>(
    f: impl FnOnce() -> StoreResult<T> + Send + 'static,
) -> StoreResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Io(format!("store task failed: {e}")))?
}

#[async_trait]
impl Store for RadosStore {
    fn backend(&self) -> &'static str {
        "rados"
    }

    fn announce(
        &self,
        service: &str,
        metadata: &[(String, String)],
    ) -> StoreResult<Option<String>> {
        self.inner.register_service(service, metadata).map(Some)
    }

    fn settings(&self, options: &[&str]) -> StoreResult<Option<Vec<(String, String)>>> {
        self.inner.settings(options).map(Some)
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
        let io = self.inner.ioctx_of(obj)?;
        ops::submit_write(io, obj, &op, aio::async_reply)?
            .wait(self.inner.opts.op_timeout)
            .await
    }

    fn write_blocking(&self, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
        let io = self.inner.ioctx_of(obj)?;
        ops::submit_write(io, obj, &op, aio::blocking_reply)?.wait(self.inner.opts.op_timeout)
    }

    async fn read(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        let io = self.inner.ioctx_of(obj)?;
        let Some(first_op) = split::first_step(&op) else {
            return ops::submit_read(io, obj, &op, None, aio::async_reply)?
                .wait(self.inner.opts.op_timeout)
                .await;
        };
        for _ in 0..split::RETRIES {
            let first = ops::submit_read(io.clone(), obj, &first_op, None, aio::async_reply)?
                .wait(self.inner.opts.op_timeout)
                .await?;
            let Some((rest_op, version)) = split::second_step(&op, &first)? else {
                return Ok(split::merge(&op, first, None));
            };
            match ops::submit_read(io.clone(), obj, &rest_op, Some(version), aio::async_reply)?
                .wait(self.inner.opts.op_timeout)
                .await
            {
                Ok(rest) => return Ok(split::merge(&op, first, rest.data)),
                Err(StoreError::GuardFailed(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        // a writer rewrote the object between the steps every time: read it
        // in one step, which RADOS answers from one version whatever the
        // writers do (at the price of a buffer of the full range)
        ops::submit_read(io, obj, &op, None, aio::async_reply)?
            .wait(self.inner.opts.op_timeout)
            .await
    }

    fn read_blocking(&self, obj: &ObjectId, op: ReadOp) -> StoreResult<ReadResult> {
        let io = self.inner.ioctx_of(obj)?;
        let Some(first_op) = split::first_step(&op) else {
            return ops::submit_read(io, obj, &op, None, aio::blocking_reply)?
                .wait(self.inner.opts.op_timeout);
        };
        for _ in 0..split::RETRIES {
            let first = ops::submit_read(io.clone(), obj, &first_op, None, aio::blocking_reply)?
                .wait(self.inner.opts.op_timeout)?;
            let Some((rest_op, version)) = split::second_step(&op, &first)? else {
                return Ok(split::merge(&op, first, None));
            };
            match ops::submit_read(
                io.clone(),
                obj,
                &rest_op,
                Some(version),
                aio::blocking_reply,
            )?
            .wait(self.inner.opts.op_timeout)
            {
                Ok(rest) => return Ok(split::merge(&op, first, rest.data)),
                Err(StoreError::GuardFailed(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        ops::submit_read(io, obj, &op, None, aio::blocking_reply)?.wait(self.inner.opts.op_timeout)
    }

    async fn list_objects(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        let inner = self.inner.clone();
        let pool = pool.to_string();
        off_thread(move || list::RadosLister::open(&inner, &pool, namespace))
            .await
            .map(|l| Box::new(l) as Box<dyn ObjectLister>)
    }

    fn list_objects_blocking(
        &self,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Box<dyn ObjectLister>> {
        list::RadosLister::open(&self.inner, pool, namespace)
            .map(|l| Box::new(l) as Box<dyn ObjectLister>)
    }

    fn watch(
        &self,
        obj: &ObjectId,
        watcher: Arc<dyn Watcher>,
    ) -> StoreResult<Box<dyn WatchHandle>> {
        self.write_blocking(obj, WriteOp::new().create())?;
        let io = self.inner.ioctx_of(obj)?;
        let oid = ops::cstring("object name", &obj.name)?;
        watch::watch(io, oid, watcher, self.inner.opts.watch_timeout)
    }

    async fn notify(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        // rare (metadata changes): a blocking-pool thread is simpler than
        // the aio form's reply buffers, at no cost that matters
        let store = self.clone();
        let obj = obj.clone();
        let payload = payload.to_vec();
        off_thread(move || store.notify_blocking(&obj, &payload, timeout)).await
    }

    fn notify_blocking(
        &self,
        obj: &ObjectId,
        payload: &[u8],
        timeout: Duration,
    ) -> StoreResult<NotifyOutcome> {
        let io = self.inner.ioctx_of(obj)?;
        watch::notify(
            &io,
            &ops::cstring("object name", &obj.name)?,
            payload,
            timeout,
        )
    }
}
