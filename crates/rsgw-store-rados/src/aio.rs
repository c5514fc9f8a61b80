//! From librados completions to futures and blocking waits.
//!
//! An operation's whole state (the op handle, its output buffers and the I/O
//! context) is boxed and handed to librados as the completion's argument. The
//! completion callback takes the box back, turns the outputs into a result and
//! sends it, so nothing an in-flight op points to can be freed early, even if
//! the caller stops waiting (a dropped future simply finds no receiver).

use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use libc::{c_int, c_void};
use rsgw_store::{StoreError, StoreResult};
use tokio::sync::oneshot;

use crate::cluster::IoCtx;
use crate::errno::op_error;
use crate::ffi;

/// The part of an operation that lives until its completion.
pub(crate) trait OpState: Send + 'static {
    /// What the operation yields.
    type Output: Send + 'static;
    /// Adds the parts of the op that give librados pointers into `self`
    /// (output slots). `launch` calls it once `self` sits in its leaked box,
    /// through the pointer the completion later reclaims, so those pointers
    /// stay valid (and are not invalidated by a move of the box) until then.
    fn prepare(&mut self, _max_object_size: u64) -> StoreResult<()> {
        Ok(())
    }
    /// Turns the completed op's outputs into its result; runs on librados'
    /// completion thread, so it must be quick and must not block.
    fn finish(
        &mut self,
        ret: c_int,
        version: u64,
        max_object_size: u64,
    ) -> StoreResult<Self::Output>;
}

/// A result travels with the I/O context it kept alive, so the context is
/// released on the waiter's thread, never inside librados' callback (where
/// dropping the last reference would shut the cluster down from its own thread).
type Message<T> = (StoreResult<T>, Arc<IoCtx>);

/// Where a completion sends its result.
pub(crate) enum Reply<T> {
    Future(oneshot::Sender<Message<T>>),
    Blocking(mpsc::SyncSender<Message<T>>),
}

/// What an async caller awaits.
pub(crate) struct AsyncWait<T>(oneshot::Receiver<Message<T>>);

/// What a blocking caller waits on.
pub(crate) struct BlockingWait<T>(mpsc::Receiver<Message<T>>);

fn abandoned() -> StoreError {
    StoreError::Io("librados dropped an operation without completing it".into())
}

/// A reply channel for async callers.
pub(crate) fn async_reply<T>() -> (Reply<T>, AsyncWait<T>) {
    let (tx, rx) = oneshot::channel();
    (Reply::Future(tx), AsyncWait(rx))
}

/// A reply channel for callers that block their thread.
pub(crate) fn blocking_reply<T>() -> (Reply<T>, BlockingWait<T>) {
    let (tx, rx) = mpsc::sync_channel(1);
    (Reply::Blocking(tx), BlockingWait(rx))
}

/// How long past the operation timeout a caller still waits for librados.
/// librados enforces `rados_osd_op_timeout` itself; this is the backstop that
/// makes the bound the gateway's own, whatever librados does with an op
/// (resends to a new OSD map, an op that never completes). Past it the caller
/// gives up; the op completes (or not) into a dropped receiver, which is
/// safe (see above).
const GRACE: Duration = Duration::from_secs(1);

impl<T> AsyncWait<T> {
    /// Waits without blocking the thread, `limit` (the store's operation
    /// timeout) plus a grace at most.
    pub(crate) async fn wait(self, limit: Duration) -> StoreResult<T> {
        match tokio::time::timeout(limit + GRACE, self.0).await {
            Ok(reply) => reply.map_or_else(|_| Err(abandoned()), |(r, _io)| r),
            Err(_) => Err(StoreError::Timeout),
        }
    }
}

impl<T> BlockingWait<T> {
    /// Blocks the calling thread until the result arrives, `limit` plus a
    /// grace at most.
    pub(crate) fn wait(self, limit: Duration) -> StoreResult<T> {
        match self.0.recv_timeout(limit + GRACE) {
            Ok((r, _io)) => r,
            Err(mpsc::RecvTimeoutError::Timeout) => Err(StoreError::Timeout),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(abandoned()),
        }
    }
}

impl<T> Reply<T> {
    fn send(self, msg: Message<T>) {
        let unsent = match self {
            Reply::Future(tx) => tx.send(msg).err(),
            Reply::Blocking(tx) => tx.send(msg).err().map(|e| e.0),
        };
        if let Some((_, io)) = unsent {
            release_later(io);
        }
    }
}

/// Drops I/O contexts of abandoned operations on a thread of our own.
fn release_later(io: Arc<IoCtx>) {
    static REAPER: OnceLock<Mutex<mpsc::Sender<Arc<IoCtx>>>> = OnceLock::new();
    let tx = REAPER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Arc<IoCtx>>();
        let spawned = std::thread::Builder::new()
            .name("rsgw-rados-reaper".into())
            .spawn(move || rx.into_iter().for_each(drop));
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start the rados reaper thread");
        }
        Mutex::new(tx)
    });
    let tx = tx.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Err(mpsc::SendError(io)) = tx.send(io) {
        // No reaper thread: keeping the context forever beats shutting the
        // cluster down from inside librados.
        std::mem::forget(io);
    }
}

/// An operation between submission and completion.
pub(crate) struct Pending<S: OpState> {
    pub(crate) state: S,
    pub(crate) io: Arc<IoCtx>,
    pub(crate) reply: Reply<S::Output>,
}

/// The completion callback `launch` registers.
///
/// # Safety
/// Only librados may call it, once, for a completion `launch` created with
/// `arg` pointing to a leaked `Box<Pending<S>>` of the same `S`.
unsafe extern "C" fn on_complete<S: OpState>(c: ffi::rados_completion_t, arg: *mut c_void) {
    // SAFETY: `arg` is the box leaked by `launch` for this `S`; librados calls
    // this once, after the op is done with every pointer into it.
    let pending = unsafe { Box::from_raw(arg.cast::<Pending<S>>()) };
    // SAFETY: `c` is the completion being completed; we hold its reference
    // until the release below, and it is complete, so its results are set.
    let (ret, version) = unsafe {
        (
            ffi::rados_aio_get_return_value(c),
            ffi::rados_aio_get_version(c),
        )
    };
    // SAFETY: releases our one reference to `c`, unused after this; librados
    // holds its own reference while the callback runs, so this is allowed.
    unsafe { ffi::rados_aio_release(c) };
    let Pending {
        mut state,
        io,
        reply,
    } = *pending;
    let result = state.finish(ret, version, io.max_object_size);
    drop(state);
    reply.send((result, io));
}

/// Hands `pending` to librados: prepares its state (`OpState::prepare`),
/// then `start` submits the op with the completion it is given and must touch
/// nothing inside `pending` (which may already be freed by the callback when
/// librados returns). `start` must return a negative errno only when the op
/// was not queued: librados then never calls back, and `pending` is freed here.
pub(crate) fn launch<S: OpState>(
    pending: Box<Pending<S>>,
    start: impl FnOnce(ffi::rados_completion_t) -> c_int,
) -> StoreResult<()> {
    let max = pending.io.max_object_size;
    let raw = Box::into_raw(pending);
    // SAFETY: `raw` is the sole pointer to the box just leaked and nothing is
    // submitted yet; the pointers `prepare` hands librados derive from `raw`,
    // as does the callback's, and the box stays put until the callback frees it.
    if let Err(e) = unsafe { (*raw).state.prepare(max) } {
        // SAFETY: nothing was submitted: `raw` is still the only pointer, reclaimed once.
        drop(unsafe { Box::from_raw(raw) });
        return Err(e);
    }
    let mut c: ffi::rados_completion_t = std::ptr::null_mut();
    // SAFETY: `raw` stays valid until `on_complete::<S>` (matching its type)
    // reclaims it; `c` is a valid out-pointer.
    let ret =
        unsafe { ffi::rados_aio_create_completion2(raw.cast(), Some(on_complete::<S>), &mut c) };
    if ret < 0 {
        // SAFETY: no completion exists, so the callback cannot run: `raw` is
        // still the only pointer, reclaimed once.
        drop(unsafe { Box::from_raw(raw) });
        return Err(op_error(ret, max));
    }
    let ret = start(c);
    if ret < 0 {
        // Submission failed synchronously: librados will not call back.
        // SAFETY: `c` was created above, never queued, and is released once.
        unsafe { ffi::rados_aio_release(c) };
        // SAFETY: the callback will never run, so `raw` is reclaimed once, here.
        drop(unsafe { Box::from_raw(raw) });
        return Err(op_error(ret, max));
    }
    Ok(())
}
