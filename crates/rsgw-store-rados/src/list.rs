//! Object iteration with librados' `nobjects_list` (hash order).

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use rsgw_store::{NamespaceFilter, ObjectEntry, ObjectLister, StoreError, StoreResult};

use crate::cluster::{Inner, IoCtx};
use crate::errno::op_error;
use crate::ffi;

/// A listing handle and the I/O context it reads through (its own, since the
/// namespace filter is a property of the context).
struct ListState {
    ctx: ffi::rados_list_ctx_t,
    io: IoCtx,
    done: bool,
}

// SAFETY: a listing handle is not tied to the thread that opened it; it is
// only ever used by one thread at a time (behind the lister's mutex), and its
// `IoCtx` is `Send` itself.
unsafe impl Send for ListState {}

impl Drop for ListState {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from a successful `rados_nobjects_list_open` and is
        // closed once, here; the handle goes before its I/O context (`io` is
        // dropped after this body).
        unsafe { ffi::rados_nobjects_list_close(self.ctx) }
    }
}

impl ListState {
    fn page(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>> {
        let mut out = Vec::new();
        while !self.done && out.len() < max {
            let (mut entry, mut key, mut ns) =
                (std::ptr::null(), std::ptr::null(), std::ptr::null());
            let (mut entry_len, mut key_len, mut ns_len) = (0usize, 0usize, 0usize);
            // SAFETY: `ctx` is open (closed only in `Drop`) and `&mut self` gives
            // this thread sole use of it; all six out-pointers are valid locals.
            let ret = unsafe {
                ffi::rados_nobjects_list_next2(
                    self.ctx,
                    &mut entry,
                    &mut key,
                    &mut ns,
                    &mut entry_len,
                    &mut key_len,
                    &mut ns_len,
                )
            };
            if ret == -libc::ENOENT {
                self.done = true;
                break;
            }
            if ret < 0 {
                return Err(op_error(ret, self.io.max_object_size));
            }
            let text = |p: *const libc::c_char, len: usize| -> StoreResult<String> {
                if p.is_null() || len == 0 {
                    return Ok(String::new());
                }
                // SAFETY: librados set `p` (non-null, checked) to `len` bytes that
                // stay valid until the next `rados_nobjects_list_*` call; copied here.
                let b = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), len) };
                String::from_utf8(b.to_vec())
                    .map_err(|_| StoreError::Io("object name in RADOS is not UTF-8".into()))
            };
            out.push(ObjectEntry {
                namespace: text(ns, ns_len)?,
                name: text(entry, entry_len)?,
                locator: text(key, key_len)?,
            });
        }
        Ok(out)
    }
}

/// Pages through a pool with librados' object listing.
pub(crate) struct RadosLister(Arc<Mutex<ListState>>);

impl RadosLister {
    pub(crate) fn open(inner: &Inner, pool: &str, filter: NamespaceFilter) -> StoreResult<Self> {
        let ns = match &filter {
            NamespaceFilter::All => ffi::LIBRADOS_ALL_NSPACES.to_owned(),
            NamespaceFilter::Only(ns) => std::ffi::CString::new(ns.as_str())
                .map_err(|_| StoreError::InvalidArgument("namespace contains NUL".into()))?,
        };
        let io = inner.new_ioctx(pool, &ns)?;
        let mut ctx: ffi::rados_list_ctx_t = std::ptr::null_mut();
        // SAFETY: `io.raw` is a live ioctx owned by `io`, which the returned
        // state keeps until after the handle is closed; `ctx` is a valid out-pointer.
        let ret = unsafe { ffi::rados_nobjects_list_open(io.raw, &mut ctx) };
        if ret < 0 {
            return Err(op_error(ret, io.max_object_size));
        }
        Ok(RadosLister(Arc::new(Mutex::new(ListState {
            ctx,
            io,
            done: false,
        }))))
    }
}

fn page(state: &Mutex<ListState>, max: usize) -> StoreResult<Vec<ObjectEntry>> {
    state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .page(max)
}

#[async_trait]
impl ObjectLister for RadosLister {
    async fn next_page(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>> {
        let state = self.0.clone();
        tokio::task::spawn_blocking(move || page(&state, max))
            .await
            .map_err(|e| StoreError::Io(format!("store task failed: {e}")))?
    }

    fn next_page_blocking(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>> {
        page(&self.0, max)
    }
}
