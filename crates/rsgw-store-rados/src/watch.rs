//! Watch and notify on librados (`rados_watch3`, `rados_notify2`).
//!
//! A watch's context (the watcher, the I/O context, the object name) is boxed
//! and handed to librados as the callbacks' argument; the box lives in the
//! [`RadosWatch`] handle, which unregisters the watch and flushes pending
//! callbacks before freeing it.

use std::ffi::{CString, c_void};
use std::sync::Arc;
use std::time::Duration;

use libc::{c_char, c_int, size_t};
use rsgw_store::{NotifyOutcome, StoreError, StoreResult, WatchHandle, Watcher};

use crate::cluster::IoCtx;
use crate::errno::op_error;
use crate::ffi;

/// What the callbacks reach through their argument.
struct WatchCtx {
    watcher: Arc<dyn Watcher>,
    io: Arc<IoCtx>,
    oid: CString,
}

/// A registered watch; unregistered on drop.
pub(crate) struct RadosWatch {
    ctx: Box<WatchCtx>,
    cookie: u64,
}

/// The notification callback.
///
/// # Safety
/// Only librados may call it, for a watch `watch` registered with `arg`
/// pointing to the `WatchCtx` its handle still owns.
unsafe extern "C" fn on_notify(
    arg: *mut c_void,
    notify_id: u64,
    cookie: u64,
    _notifier_id: u64,
    data: *mut c_void,
    data_len: size_t,
) {
    // SAFETY: `arg` is the handle's boxed context, alive until the handle's
    // drop has unregistered the watch and flushed every callback.
    let ctx = unsafe { &*arg.cast::<WatchCtx>() };
    let payload: &[u8] = if data.is_null() || data_len == 0 {
        &[]
    } else {
        // SAFETY: librados passes `data_len` readable bytes at `data`, valid
        // for the duration of the callback.
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), data_len) }
    };
    ctx.watcher.notified(payload);
    // SAFETY: the ioctx and object name are the watch's own, alive; an empty
    // reply (null, 0) is allowed.
    let ret = unsafe {
        ffi::rados_notify_ack(
            ctx.io.raw,
            ctx.oid.as_ptr(),
            notify_id,
            cookie,
            std::ptr::null(),
            0,
        )
    };
    if ret < 0 {
        tracing::warn!(error = %op_error(ret, 0), "acknowledging a notification failed");
    }
}

/// The watch error callback.
///
/// # Safety
/// As [`on_notify`].
unsafe extern "C" fn on_error(arg: *mut c_void, _cookie: u64, err: c_int) {
    // SAFETY: as in `on_notify`.
    let ctx = unsafe { &*arg.cast::<WatchCtx>() };
    ctx.watcher.failed(&op_error(err, 0));
}

/// Registers a watch of `oid` (which must exist); `timeout` is how long the
/// OSD keeps the watch of a client that stopped answering its pings.
pub(crate) fn watch(
    io: Arc<IoCtx>,
    oid: CString,
    watcher: Arc<dyn Watcher>,
    timeout: Duration,
) -> StoreResult<Box<dyn WatchHandle>> {
    let ctx = Box::new(WatchCtx { watcher, io, oid });
    let arg = std::ptr::from_ref::<WatchCtx>(&ctx)
        .cast_mut()
        .cast::<c_void>();
    let secs = u32::try_from(timeout.as_secs().max(1)).unwrap_or(u32::MAX);
    let mut cookie = 0u64;
    // SAFETY: the ioctx and name are alive for the call (and, in `ctx`, for
    // the watch's life); `arg` points into the box, whose heap address stays
    // put while the handle owns it, until drop unregisters and flushes.
    let ret = unsafe {
        ffi::rados_watch3(
            ctx.io.raw,
            ctx.oid.as_ptr(),
            &mut cookie,
            Some(on_notify),
            Some(on_error),
            secs,
            arg,
        )
    };
    if ret < 0 {
        return Err(op_error(ret, 0));
    }
    Ok(Box::new(RadosWatch { ctx, cookie }))
}

impl WatchHandle for RadosWatch {
    fn check(&self) -> Result<Duration, StoreError> {
        // SAFETY: the cookie names this handle's registered watch on its ioctx.
        let ret = unsafe { ffi::rados_watch_check(self.ctx.io.raw, self.cookie) };
        if ret < 0 {
            return Err(op_error(ret, 0));
        }
        Ok(Duration::from_millis(u64::try_from(ret).unwrap_or(0)))
    }
}

impl Drop for RadosWatch {
    fn drop(&mut self) {
        // SAFETY: unregisters this handle's watch, once.
        let ret = unsafe { ffi::rados_unwatch2(self.ctx.io.raw, self.cookie) };
        if ret < 0 {
            tracing::debug!(error = %op_error(ret, 0), "unregistering a watch");
        }
        // SAFETY: the cluster is alive (the ioctx holds it); this waits until
        // callbacks already queued have run, so none touches `ctx` after the
        // box is freed below. Never called from a callback (handles are not
        // dropped there).
        unsafe { ffi::rados_watch_flush(self.ctx.io.cluster.0) };
    }
}

/// Sends `payload` to every watch of `oid` and waits (blocking) for their
/// acknowledgements, `timeout` at most.
pub(crate) fn notify(
    io: &IoCtx,
    oid: &CString,
    payload: &[u8],
    timeout: Duration,
) -> StoreResult<NotifyOutcome> {
    let len = c_int::try_from(payload.len())
        .map_err(|_| StoreError::InvalidArgument("notification payload too large".into()))?;
    let ms = u64::try_from(timeout.as_millis())
        .unwrap_or(u64::MAX)
        .max(1);
    let mut reply: *mut c_char = std::ptr::null_mut();
    let mut reply_len: size_t = 0;
    // SAFETY: the ioctx, name and payload outlive the call; `reply` and
    // `reply_len` are valid out-pointers; the reply buffer librados allocates
    // is freed below with `rados_buffer_free`.
    let ret = unsafe {
        ffi::rados_notify2(
            io.raw,
            oid.as_ptr(),
            payload.as_ptr().cast(),
            len,
            ms,
            &mut reply,
            &mut reply_len,
        )
    };
    let decoded = if reply.is_null() {
        None
    } else {
        // SAFETY: librados allocated `reply_len` bytes at `reply`.
        let bytes = unsafe { std::slice::from_raw_parts(reply.cast::<u8>(), reply_len) };
        let d = decode_reply(bytes);
        // SAFETY: `reply` came from librados and is freed once.
        unsafe { ffi::rados_buffer_free(reply) };
        d
    };
    match (ret, decoded) {
        (0, Some(out)) => Ok(out),
        (0, None) => Ok(NotifyOutcome::default()),
        // some watchers did not answer: the reply still says who did
        (r, Some(out)) if r == -libc::ETIMEDOUT => Ok(out),
        (r, _) => Err(op_error(r, 0)),
    }
}

/// Decodes a notify reply (Ceph encoding, little-endian): a map from
/// (notifier gid, cookie) to an acknowledgement payload, then the set of
/// (gid, cookie) that timed out. Only the counts matter here.
fn decode_reply(b: &[u8]) -> Option<NotifyOutcome> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = b.get(at..at.checked_add(n)?)?;
        at += n;
        Some(s)
    };
    let u32_at = |s: &[u8]| s.try_into().ok().map(u32::from_le_bytes);
    let acked = u32_at(take(4)?)?;
    for _ in 0..acked {
        take(16)?;
        let len = u32_at(take(4)?)?;
        take(usize::try_from(len).ok()?)?;
    }
    let timed_out = u32_at(take(4)?)?;
    Some(NotifyOutcome {
        acked: usize::try_from(acked).ok()?,
        timed_out: usize::try_from(timed_out).ok()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_acks_and_timeouts() {
        let mut b = Vec::new();
        b.extend(2u32.to_le_bytes());
        for payload in [&b""[..], b"ok"] {
            b.extend(7u64.to_le_bytes());
            b.extend(9u64.to_le_bytes());
            b.extend(u32::try_from(payload.len()).expect("len").to_le_bytes());
            b.extend(payload);
        }
        b.extend(1u32.to_le_bytes());
        b.extend([0u8; 16]);
        let out = decode_reply(&b).expect("decodes");
        assert_eq!(
            out,
            NotifyOutcome {
                acked: 2,
                timed_out: 1
            }
        );
        assert_eq!(decode_reply(&b[..10]), None, "a cut reply is refused");
    }
}
