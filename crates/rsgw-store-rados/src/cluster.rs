//! The cluster handle, pools and the per-(pool, namespace) I/O contexts.

use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::sync::{Arc, PoisonError, RwLock};

use rsgw_store::{StoreError, StoreResult};

use crate::RadosOptions;
use crate::errno::strerror;
use crate::ffi;

/// A connected `rados_t`; shut down when the last user drops it.
pub(crate) struct Cluster(pub(crate) ffi::rados_t);

// SAFETY: a connected `rados_t` (librados' RadosClient) is thread-safe: the
// calls made through `&Cluster` (pool create, mon command, ioctx create) lock
// internally and may run from any thread at once; only `Drop` shuts it down.
unsafe impl Send for Cluster {}
// SAFETY: see `Send` above; `&Cluster` offers only those thread-safe calls.
unsafe impl Sync for Cluster {}

impl Drop for Cluster {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from a successful `rados_create2` and is shut
        // down only here, once; every `IoCtx` holds an `Arc<Cluster>`, so none
        // outlives the handle.
        unsafe { ffi::rados_shutdown(self.0) }
    }
}

/// An I/O context bound to one pool and namespace. Kept alive by every
/// operation in flight on it, since librados must not see it destroyed early.
pub(crate) struct IoCtx {
    pub(crate) raw: ffi::rados_ioctx_t,
    pub(crate) max_object_size: u64,
    /// The pool's id, told with each write (RADOS' `ioctx.get_id()`).
    pub(crate) pool_id: i64,
    pub(crate) cluster: Arc<Cluster>,
}

// SAFETY: librados.h only forbids unsynchronised changes to an ioctx's
// settings (namespace, locator, snapshot); `new_ioctx` sets the namespace and
// `ioctx_of` the locator before the context is shared, and nothing changes
// them after. Submitting ops on
// one ioctx from several threads is safe (librados locks internally).
unsafe impl Send for IoCtx {}
// SAFETY: see `Send` above; `&IoCtx` only submits ops through `raw`.
unsafe impl Sync for IoCtx {}

impl Drop for IoCtx {
    fn drop(&mut self) {
        // SAFETY: `raw` came from a successful `rados_ioctx_create` and is
        // destroyed once; no op is in flight on it (each holds an `Arc<IoCtx>`
        // until completion), and the cluster outlives it (`cluster` drops after
        // this body).
        unsafe { ffi::rados_ioctx_destroy(self.raw) }
    }
}

pub(crate) struct Inner {
    pub(crate) opts: RadosOptions,
    cluster: Arc<Cluster>,
    ioctxs: RwLock<HashMap<(String, String), Arc<IoCtx>>>,
}

fn cstring(what: &str, s: &str) -> StoreResult<CString> {
    CString::new(s).map_err(|_| StoreError::InvalidArgument(format!("{what} contains NUL")))
}

impl Cluster {
    /// A handle configured from `opts` (its ceph.conf, client name,
    /// keyring and timeouts), not connected yet.
    pub(crate) fn configured(opts: &RadosOptions) -> StoreResult<Arc<Self>> {
        let unavailable = |what: &str, ret: i32| unavailable(opts, what, ret);
        let name = cstring("client name", &opts.client_name)?;
        let mut raw: ffi::rados_t = std::ptr::null_mut();
        // SAFETY: `raw` is a valid out-pointer; the cluster and client names are
        // nul-terminated and outlive the call (librados copies them).
        let ret = unsafe { ffi::rados_create2(&mut raw, c"ceph".as_ptr(), name.as_ptr(), 0) };
        if ret < 0 {
            return Err(unavailable("cannot create a cluster handle", ret));
        }
        // From here on the handle is shut down on every path.
        let cluster = Arc::new(Cluster(raw));
        let conf = cstring("ceph.conf path", &opts.ceph_conf.to_string_lossy())?;
        // SAFETY: `raw` is a live handle (owned by `cluster`, not yet shared);
        // `conf` is a nul-terminated CString that outlives the call.
        let ret = unsafe { ffi::rados_conf_read_file(raw, conf.as_ptr()) };
        if ret < 0 {
            return Err(unavailable("cannot read ceph.conf", ret));
        }
        let secs = opts.op_timeout.as_secs_f64().ceil().max(1.0).to_string();
        let mut settings = vec![
            ("rados_osd_op_timeout", secs.clone()),
            ("rados_mon_op_timeout", secs.clone()),
            ("client_mount_timeout", secs),
            // watches are pinged, and so confirmed (`rados_watch_check`),
            // once per objecter tick: every second instead of every 5 s,
            // so that a gateway cut off from its watch knows within a
            // second or two (the cache coherence argument in docs/layout.md)
            ("objecter_tick_interval", "1".into()),
        ];
        if let Some(k) = &opts.keyring {
            settings.push(("keyring", k.to_string_lossy().into_owned()));
        }
        for (key, value) in settings {
            let (k, v) = (cstring("option", key)?, cstring(key, &value)?);
            // SAFETY: `raw` is live and not yet shared; `k` and `v` are
            // nul-terminated CStrings that outlive the call (librados copies them).
            let ret = unsafe { ffi::rados_conf_set(raw, k.as_ptr(), v.as_ptr()) };
            if ret < 0 {
                return Err(unavailable(&format!("cannot set {key}={value}"), ret));
            }
        }
        Ok(cluster)
    }

    /// Connects a handle from [`Cluster::configured`]; librados fetches the
    /// monitors' central config for the client as it does.
    pub(crate) fn connect(self: Arc<Self>, opts: &RadosOptions) -> StoreResult<Arc<Self>> {
        // SAFETY: a configured handle not shared yet (the caller owns the
        // only `Arc`), used by this thread only until it returns.
        let ret = unsafe { ffi::rados_connect(self.0) };
        if ret < 0 {
            return Err(unavailable(opts, "cannot connect to the cluster", ret));
        }
        Ok(self)
    }

    /// An option's value as the client holds it (`rados_conf_get`): its
    /// ceph.conf's over the monitors' over the default.
    pub(crate) fn conf_get(&self, option: &str) -> StoreResult<String> {
        let name = cstring("option", option)?;
        let mut len = 256;
        loop {
            let mut buf = vec![0u8; len];
            // SAFETY: the handle is alive while `self` is, and reading its
            // configuration is thread-safe (librados locks it); `name` is a
            // nul-terminated CString and `buf` a writable buffer of `len`
            // bytes, both outliving the call.
            let ret =
                unsafe { ffi::rados_conf_get(self.0, name.as_ptr(), buf.as_mut_ptr().cast(), len) };
            if ret == -libc::ENAMETOOLONG && len < 1 << 20 {
                len *= 4;
                continue;
            }
            if ret < 0 {
                return Err(StoreError::InvalidArgument(format!(
                    "configuration option {option}: {}",
                    strerror(ret)
                )));
            }
            let value = CStr::from_bytes_until_nul(&buf)
                .map_err(|_| StoreError::Io(format!("{option}: an unterminated value")))?;
            return Ok(value.to_string_lossy().into_owned());
        }
    }

    /// `(option, value)` for each of `options` ([`Cluster::conf_get`]).
    pub(crate) fn values(&self, options: &[&str]) -> StoreResult<Vec<(String, String)>> {
        options
            .iter()
            .map(|o| Ok((o.to_string(), self.conf_get(o)?)))
            .collect()
    }
}

fn unavailable(opts: &RadosOptions, what: &str, ret: i32) -> StoreError {
    StoreError::Unavailable(format!(
        "{what} (ceph.conf {}, client {}): {}",
        opts.ceph_conf.display(),
        opts.client_name,
        strerror(ret)
    ))
}

impl Inner {
    pub(crate) fn connect(opts: RadosOptions) -> StoreResult<Self> {
        let cluster = Cluster::configured(&opts)?.connect(&opts)?;
        Ok(Inner {
            opts,
            cluster,
            ioctxs: RwLock::new(HashMap::new()),
        })
    }

    /// The client's current values of `options` ([`Cluster::values`]).
    pub(crate) fn settings(&self, options: &[&str]) -> StoreResult<Vec<(String, String)>> {
        self.cluster.values(options)
    }

    /// Registers this client in the cluster's service map as daemon
    /// `<instance id>` of `service` (radosgw's naming since Octopus), with
    /// `metadata` beside what librados adds (hostname, kernel, CPU,
    /// memory...). librados' beacons keep it there while the handle lives;
    /// the manager drops it `mgr_service_beacon_grace` after they stop.
    /// Returns the daemon's name.
    pub(crate) fn register_service(
        &self,
        service: &str,
        metadata: &[(String, String)],
    ) -> StoreResult<String> {
        // "key\0value\0...key\0value\0\0": pairs, then an empty key
        let mut dict = Vec::new();
        for (k, v) in metadata {
            if k.is_empty() || k.contains('\0') || v.contains('\0') {
                return Err(StoreError::InvalidArgument(format!(
                    "service metadata {k:?}: an empty key or a NUL"
                )));
            }
            dict.extend_from_slice(k.as_bytes());
            dict.push(0);
            dict.extend_from_slice(v.as_bytes());
            dict.push(0);
        }
        dict.push(0);
        // SAFETY: the cluster handle is connected and alive while `self` is.
        let id = unsafe { ffi::rados_get_instance_id(self.cluster.0) }.to_string();
        let (svc, daemon) = (cstring("service", service)?, cstring("daemon", &id)?);
        // SAFETY: the handle is connected and thread-safe; `svc` and `daemon`
        // are nul-terminated CStrings and `dict` a buffer ending in an empty
        // key, all outliving the call (librados copies them).
        let ret = unsafe {
            ffi::rados_service_register(
                self.cluster.0,
                svc.as_ptr(),
                daemon.as_ptr(),
                dict.as_ptr().cast(),
            )
        };
        if ret < 0 {
            return Err(StoreError::Io(format!(
                "cannot register as {service}.{id} in the service map: {}",
                strerror(ret)
            )));
        }
        Ok(id)
    }

    pub(crate) fn full_pool_name(&self, pool: &str) -> String {
        if self.opts.pool_prefix.is_empty() {
            return pool.to_string();
        }
        format!("{}.{pool}", self.opts.pool_prefix)
    }

    /// Creates the pool (idempotent) and tags a new one with the `rgw`
    /// application so the cluster does not warn about an untagged pool.
    pub(crate) fn create_pool(&self, pool: &str) -> StoreResult<()> {
        let full = self.full_pool_name(pool);
        let name = cstring("pool name", &full)?;
        // SAFETY: the cluster handle is connected and alive while `self` is, and
        // thread-safe; `name` is a nul-terminated CString that outlives the call.
        let ret = unsafe { ffi::rados_pool_create(self.cluster.0, name.as_ptr()) };
        if ret == -libc::EEXIST {
            // created before (by rsgw or an operator, who tags it): a key
            // with read-only monitor caps needs nothing more here
            return Ok(());
        }
        if ret < 0 {
            return Err(StoreError::Io(format!(
                "cannot create pool {full}: {}",
                strerror(ret)
            )));
        }
        let cmd = format!(
            r#"{{"prefix": "osd pool application enable", "pool": "{full}", "app": "rgw", "yes_i_really_mean_it": true}}"#
        );
        if let Err(e) = self.mon_command(&cmd) {
            tracing::warn!(pool = %full, error = %e, "could not tag pool with application rgw");
        }
        Ok(())
    }

    fn mon_command(&self, json: &str) -> StoreResult<()> {
        let cmd = cstring("mon command", json)?;
        let mut cmds = [cmd.as_ptr()];
        let mut outbuf: *mut libc::c_char = std::ptr::null_mut();
        let mut outs: *mut libc::c_char = std::ptr::null_mut();
        let (mut outbuf_len, mut outs_len) = (0usize, 0usize);
        // SAFETY: the cluster handle is connected, alive and thread-safe; `cmds`
        // holds one pointer to the nul-terminated `cmd`, both outlive the call;
        // a null `inbuf` of length 0 is allowed; the out-pointers are valid locals.
        let ret = unsafe {
            ffi::rados_mon_command(
                self.cluster.0,
                cmds.as_mut_ptr(),
                1,
                std::ptr::null(),
                0,
                &mut outbuf,
                &mut outbuf_len,
                &mut outs,
                &mut outs_len,
            )
        };
        let status = if outs.is_null() || outs_len == 0 {
            String::new()
        } else {
            // SAFETY: librados set `outs` to a malloc'd buffer of `outs_len` bytes
            // (non-null, checked), which lives until the `rados_buffer_free` below.
            let bytes = unsafe { std::slice::from_raw_parts(outs as *const u8, outs_len) };
            String::from_utf8_lossy(bytes).into_owned()
        };
        if !outbuf.is_null() {
            // SAFETY: `outbuf` was allocated by `rados_mon_command`, is freed once,
            // and nothing reads it.
            unsafe { ffi::rados_buffer_free(outbuf) };
        }
        if !outs.is_null() {
            // SAFETY: `outs` was allocated by `rados_mon_command` and is freed
            // once; `status` above copied what it needed.
            unsafe { ffi::rados_buffer_free(outs) };
        }
        if ret < 0 {
            return Err(StoreError::Io(format!("{}: {status}", strerror(ret))));
        }
        Ok(())
    }

    /// A new I/O context for a pool, with `namespace` set.
    pub(crate) fn new_ioctx(&self, pool: &str, namespace: &CStr) -> StoreResult<IoCtx> {
        let full = self.full_pool_name(pool);
        let name = cstring("pool name", &full)?;
        let mut raw: ffi::rados_ioctx_t = std::ptr::null_mut();
        // SAFETY: the cluster handle is connected, alive and thread-safe; `name`
        // is a nul-terminated CString outliving the call; `raw` is a valid out-pointer.
        let ret = unsafe { ffi::rados_ioctx_create(self.cluster.0, name.as_ptr(), &mut raw) };
        if ret == -libc::ENOENT {
            return Err(StoreError::NoSuchPool(full));
        }
        if ret < 0 {
            return Err(StoreError::Io(format!(
                "cannot open pool {full}: {}",
                strerror(ret)
            )));
        }
        // SAFETY: `raw` was just created and is not shared yet, so changing its
        // namespace races with nothing; `namespace` is nul-terminated (copied).
        unsafe { ffi::rados_ioctx_set_namespace(raw, namespace.as_ptr()) };
        // SAFETY: `raw` is a live ioctx; reading its pool id changes nothing.
        let pool_id = unsafe { ffi::rados_ioctx_get_id(raw) };
        Ok(IoCtx {
            raw,
            max_object_size: self.opts.max_object_size,
            pool_id,
            cluster: self.cluster.clone(),
        })
    }

    /// The I/O context addressing `obj`: the shared one of its pool and
    /// namespace, or for an object placed by a locator, one of its own with
    /// the locator set (librados keeps the locator in the context; one per
    /// such object, dropped with its last operation, keeps the shared
    /// contexts unchanged and the cache bounded by pools and namespaces).
    pub(crate) fn ioctx_of(&self, obj: &rsgw_store::ObjectId) -> StoreResult<Arc<IoCtx>> {
        if obj.locator.is_empty() {
            return self.ioctx(&obj.pool, &obj.namespace);
        }
        let ns = cstring("namespace", &obj.namespace)?;
        let locator = cstring("locator", &obj.locator)?;
        let io = self.new_ioctx(&obj.pool, &ns)?;
        // SAFETY: `io.raw` was just created and is not shared yet, so setting
        // its locator races with nothing; `locator` is nul-terminated (copied).
        unsafe { ffi::rados_ioctx_locator_set_key(io.raw, locator.as_ptr()) };
        Ok(Arc::new(io))
    }

    /// The shared I/O context of (pool, namespace), created on first use.
    pub(crate) fn ioctx(&self, pool: &str, namespace: &str) -> StoreResult<Arc<IoCtx>> {
        let key = (pool.to_string(), namespace.to_string());
        if let Some(io) = self
            .ioctxs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(io.clone());
        }
        let ns = cstring("namespace", namespace)?;
        let io = Arc::new(self.new_ioctx(pool, &ns)?);
        let mut map = self.ioctxs.write().unwrap_or_else(PoisonError::into_inner);
        Ok(map.entry(key).or_insert(io).clone())
    }
}
