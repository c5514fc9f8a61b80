//! Building librados compound ops from rsgw's [`WriteOp`] and [`ReadOp`].

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use libc::{c_char, c_int, size_t, time_t};
use rsgw_store::{
    CmpOp, Guard, OMAP_HEADER_XATTR, ObjectId, ObjectStat, OmapPage, ReadOp, ReadResult,
    StoreError, StoreResult, WriteAction, WriteOp, WriteOutcome, validate_object_name,
};

use crate::aio::{OpState, Pending, Reply, launch};
use crate::cluster::IoCtx;
use crate::errno::op_error;
use crate::ffi;

pub(crate) fn cstring(what: &str, s: &str) -> StoreResult<CString> {
    CString::new(s).map_err(|_| StoreError::InvalidArgument(format!("{what} contains NUL")))
}

/// RADOS evaluates `operand <op> stored` (the OSD's `do_xattr_cmp_str`), the
/// trait means `stored <op> operand`: orderings are mirrored.
fn cmp_code(op: CmpOp) -> u8 {
    match op {
        CmpOp::Eq => ffi::LIBRADOS_CMPXATTR_OP_EQ,
        CmpOp::Ne => ffi::LIBRADOS_CMPXATTR_OP_NE,
        CmpOp::Gt => ffi::LIBRADOS_CMPXATTR_OP_LT,
        CmpOp::Gte => ffi::LIBRADOS_CMPXATTR_OP_LTE,
        CmpOp::Lt => ffi::LIBRADOS_CMPXATTR_OP_GT,
        CmpOp::Lte => ffi::LIBRADOS_CMPXATTR_OP_GTE,
    }
}

/// Pointer and length arrays for the `*2` omap calls, which take binary-safe keys.
struct KeyArrays<'a> {
    ptrs: Vec<*const c_char>,
    lens: Vec<size_t>,
    _owner: std::marker::PhantomData<&'a str>,
}

impl<'a> KeyArrays<'a> {
    fn new(items: impl Iterator<Item = &'a [u8]>) -> Self {
        let (ptrs, lens) = items
            .map(|b| (b.as_ptr().cast::<c_char>(), b.len()))
            .unzip();
        KeyArrays {
            ptrs,
            lens,
            _owner: std::marker::PhantomData,
        }
    }
}

/// An owned, non-null `rados_write_op_t`, released when the operation is over.
struct WriteState(ffi::rados_write_op_t, i64);

// SAFETY: a write op handle is plain heap data, not tied to a thread; it moves
// to librados' completion thread only to be released there, and is only ever
// touched by one thread at a time.
unsafe impl Send for WriteState {}

impl Drop for WriteState {
    fn drop(&mut self) {
        // SAFETY: `self.0` came from `rados_create_write_op` (non-null) and is
        // released once, here, after the op completed or if it was never submitted.
        unsafe { ffi::rados_release_write_op(self.0) }
    }
}

impl OpState for WriteState {
    type Output = WriteOutcome;

    fn finish(&mut self, ret: c_int, version: u64, max: u64) -> StoreResult<WriteOutcome> {
        if ret < 0 {
            return Err(op_error(ret, max));
        }
        Ok(WriteOutcome {
            version,
            pool: Some(self.1),
        })
    }
}

impl WriteState {
    /// Adds every guard and action; librados copies the data it is given
    /// (into its own buffers) during each call, so no pointer outlives it.
    fn build(op: &WriteOp, max_object_size: u64, pool: i64) -> StoreResult<Self> {
        // SAFETY: takes no arguments; the handle is checked before any use.
        let h = unsafe { ffi::rados_create_write_op() };
        if h.is_null() {
            return Err(StoreError::Io("librados cannot allocate a write op".into()));
        }
        let state = WriteState(h, pool);
        let too_large = |end: u64| {
            if end > max_object_size {
                Err(StoreError::TooLarge {
                    limit: max_object_size,
                })
            } else {
                Ok(())
            }
        };
        for g in &op.guards {
            match g {
                // SAFETY: `h` is a live write op owned by `state`, not yet submitted.
                Guard::Exists => unsafe { ffi::rados_write_op_assert_exists(h) },
                // SAFETY: `h` is live and unsubmitted; the (deprecated) category may be null.
                Guard::NotExists => unsafe {
                    ffi::rados_write_op_create(h, ffi::LIBRADOS_CREATE_EXCLUSIVE, std::ptr::null());
                },
                Guard::Xattr { name, op, value } => {
                    let name = cstring("xattr name", name)?;
                    // SAFETY: `h` is live and unsubmitted; `name` is a nul-terminated
                    // CString and `value` has `value.len()` bytes, both copied in the call.
                    unsafe {
                        ffi::rados_write_op_cmpxattr(
                            h,
                            name.as_ptr(),
                            cmp_code(*op),
                            value.as_ptr().cast(),
                            value.len(),
                        );
                    }
                }
            }
        }
        for a in &op.actions {
            match a {
                // SAFETY: `h` is live and unsubmitted; the (deprecated) category may be null.
                WriteAction::Create => unsafe {
                    ffi::rados_write_op_create(
                        h,
                        ffi::LIBRADOS_CREATE_IDEMPOTENT,
                        std::ptr::null(),
                    );
                },
                WriteAction::WriteFull(data) => {
                    too_large(data.len() as u64)?;
                    // SAFETY: `h` is live and unsubmitted; `data` has `data.len()`
                    // bytes, copied by librados during the call.
                    unsafe { ffi::rados_write_op_write_full(h, data.as_ptr().cast(), data.len()) }
                }
                WriteAction::Write { offset, data } => {
                    too_large(offset.saturating_add(data.len() as u64))?;
                    // SAFETY: `h` is live and unsubmitted; `data` has `data.len()`
                    // bytes, copied by librados during the call.
                    unsafe {
                        ffi::rados_write_op_write(h, data.as_ptr().cast(), data.len(), *offset);
                    }
                }
                // SAFETY: `h` is live and unsubmitted; `data` has `data.len()` bytes,
                // copied by librados during the call.
                WriteAction::Append(data) => unsafe {
                    ffi::rados_write_op_append(h, data.as_ptr().cast(), data.len());
                },
                WriteAction::Truncate(size) => {
                    too_large(*size)?;
                    // SAFETY: `h` is a live write op owned by `state`, not yet submitted.
                    unsafe { ffi::rados_write_op_truncate(h, *size) }
                }
                WriteAction::SetXattr(name, value) => set_xattr(&state, name, value)?,
                WriteAction::RmXattr(name) => {
                    let name = cstring("xattr name", name)?;
                    // SAFETY: `h` is live and unsubmitted; `name` is a nul-terminated
                    // CString that outlives the call (librados copies it).
                    unsafe { ffi::rados_write_op_rmxattr(h, name.as_ptr()) }
                }
                WriteAction::OmapSet(entries) => {
                    let keys = KeyArrays::new(entries.iter().map(|(k, _)| k.as_bytes()));
                    let vals = KeyArrays::new(entries.iter().map(|(_, v)| &v[..]));
                    // SAFETY: `h` is live and unsubmitted; the four arrays each hold
                    // `entries.len()` items, pointers and lengths of bytes borrowed
                    // from `entries`, which librados copies during the call.
                    unsafe {
                        ffi::rados_write_op_omap_set2(
                            h,
                            keys.ptrs.as_ptr(),
                            vals.ptrs.as_ptr(),
                            keys.lens.as_ptr(),
                            vals.lens.as_ptr(),
                            entries.len(),
                        );
                    }
                }
                WriteAction::OmapRm(keys) => {
                    let arr = KeyArrays::new(keys.iter().map(std::string::String::as_bytes));
                    // SAFETY: `h` is live and unsubmitted; both arrays hold `keys.len()`
                    // pointers/lengths of bytes borrowed from `keys`, copied in the call.
                    unsafe {
                        ffi::rados_write_op_omap_rm_keys2(
                            h,
                            arr.ptrs.as_ptr(),
                            arr.lens.as_ptr(),
                            keys.len(),
                        );
                    }
                }
                // SAFETY: `h` is a live write op owned by `state`, not yet submitted.
                WriteAction::OmapClear => unsafe { ffi::rados_write_op_omap_clear(h) },
                WriteAction::OmapSetHeader(header) => set_xattr(&state, OMAP_HEADER_XATTR, header)?,
                // SAFETY: `h` is a live write op owned by `state`, not yet submitted.
                WriteAction::Remove => unsafe { ffi::rados_write_op_remove(h) },
                WriteAction::Exec {
                    class,
                    method,
                    input,
                } => {
                    let class = cstring("object class", class)?;
                    let method = cstring("object class method", method)?;
                    // SAFETY: `h` is live and unsubmitted; `class` and `method` are
                    // nul-terminated CStrings and `input` has `input.len()` bytes, all
                    // copied by librados during the call; a null return-value slot is
                    // allowed (the method's error fails the whole operation).
                    unsafe {
                        ffi::rados_write_op_exec(
                            h,
                            class.as_ptr(),
                            method.as_ptr(),
                            input.as_ptr().cast(),
                            input.len(),
                            std::ptr::null_mut(),
                        );
                    }
                }
            }
        }
        Ok(state)
    }
}

fn set_xattr(op: &WriteState, name: &str, value: &Bytes) -> StoreResult<()> {
    let name = cstring("xattr name", name)?;
    // SAFETY: `op.0` is a live write op (being built, not submitted); `name` is
    // a nul-terminated CString and `value` has `value.len()` bytes, both copied.
    unsafe {
        ffi::rados_write_op_setxattr(op.0, name.as_ptr(), value.as_ptr().cast(), value.len());
    };
    Ok(())
}

/// Submits a compound write; `reply` picks how the caller will wait.
///
/// Writes go with `FULL_TRY`: to a pool that is full (its quota reached, or
/// an OSD it maps to past the full ratio) librados would otherwise hold the
/// op until space is freed, so a PUT or a DELETE hangs until the client gives
/// up (radosgw's behaviour). With it, the OSD runs what frees space (removes)
/// and answers what would add data with `EDQUOT` or `ENOSPC`, which the
/// client gets at once as `507 InsufficientStorage`.
pub(crate) fn submit_write<W>(
    io: Arc<IoCtx>,
    obj: &ObjectId,
    op: &WriteOp,
    reply: fn() -> (Reply<WriteOutcome>, W),
) -> StoreResult<W> {
    validate_object_name(obj)?;
    op.validate()?;
    let oid = cstring("object name", &obj.name)?;
    let state = WriteState::build(op, io.max_object_size, io.pool_id)?;
    let (handle, io_raw) = (state.0, io.raw);
    let (tx, waiter) = reply();
    launch(
        Box::new(Pending {
            state,
            io,
            reply: tx,
        }),
        |c| {
            // SAFETY: the op handle and the ioctx are kept alive by the boxed
            // `Pending` until the callback, and librados is done with the handle
            // once queued; `oid` is nul-terminated and copied; a null mtime
            // means now; `c` is the fresh completion; errors mean not queued.
            unsafe {
                ffi::rados_aio_write_op_operate(
                    handle,
                    io_raw,
                    c,
                    oid.as_ptr(),
                    std::ptr::null_mut(),
                    ffi::LIBRADOS_OPERATION_FULL_TRY,
                )
            }
        },
    )?;
    Ok(waiter)
}

/// A read op and the outputs librados fills in at completion. The op is
/// built in `prepare`, once the state sits in its leaked box (see `launch`),
/// so the addresses handed to librados stay valid until the callback.
struct ReadState {
    op: ffi::rados_read_op_t,
    want: ReadOp,
    /// Only run against this object version.
    at_version: Option<u64>,
    size: u64,
    mtime: time_t,
    stat_rval: c_int,
    buf: Vec<u8>,
    bytes_read: size_t,
    read_rval: c_int,
    xattrs: ffi::rados_xattrs_iter_t,
    xattrs_rval: c_int,
    omap: ffi::rados_omap_iter_t,
    omap_more: u8,
    omap_rval: c_int,
    keys: ffi::rados_omap_iter_t,
    keys_rval: c_int,
    /// An object class call's output, allocated by librados when the op
    /// completes (freed in `Drop`), its length and result.
    exec_out: *mut c_char,
    exec_len: usize,
    exec_rval: c_int,
}

// SAFETY: the op handle and iterators are plain heap data, not tied to a
// thread. librados writes the output slots only before the completion
// callback, on whose thread the state is then finished and dropped; one
// thread at a time touches it.
unsafe impl Send for ReadState {}

impl Drop for ReadState {
    fn drop(&mut self) {
        // SAFETY: `op` came from `rados_create_read_op` (non-null) and is
        // released once, here, after the op completed or if it was never submitted.
        unsafe { ffi::rados_release_read_op(self.op) };
        if !self.xattrs.is_null() {
            // SAFETY: a non-null `xattrs` was allocated by `rados_read_op_getxattrs`,
            // is ended once, and the op that fills it is over (or never ran).
            unsafe { ffi::rados_getxattrs_end(self.xattrs) };
        }
        if !self.omap.is_null() {
            // SAFETY: allocated by `rados_read_op_omap_get_vals2`, ended once,
            // and the op that fills it is over (or never ran).
            unsafe { ffi::rados_omap_get_end(self.omap) };
        }
        if !self.keys.is_null() {
            // SAFETY: allocated by `rados_read_op_omap_get_vals_by_keys2`, ended
            // once, and the op that fills it is over (or never ran).
            unsafe { ffi::rados_omap_get_end(self.keys) };
        }
        if !self.exec_out.is_null() {
            // SAFETY: a non-null `exec_out` was allocated by librados for the
            // completed op's `rados_read_op_exec` output, and is freed once.
            unsafe { ffi::rados_buffer_free(self.exec_out) };
        }
    }
}

fn utf8(what: &str, bytes: &[u8]) -> StoreResult<String> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| StoreError::Io(format!("{what} stored in RADOS is not UTF-8")))
}

/// Drains an omap iterator.
///
/// # Safety
/// `iter` must be a live (not yet ended) iterator of a successfully completed
/// op, used by no other thread meanwhile.
unsafe fn omap_entries(iter: ffi::rados_omap_iter_t) -> StoreResult<Vec<(String, Bytes)>> {
    let mut out = Vec::new();
    loop {
        let (mut k, mut v): (*mut c_char, *mut c_char) =
            (std::ptr::null_mut(), std::ptr::null_mut());
        let (mut kl, mut vl) = (0usize, 0usize);
        // SAFETY: the caller guarantees `iter` is live and filled in; the four
        // out-pointers are valid locals.
        let ret = unsafe { ffi::rados_omap_get_next2(iter, &mut k, &mut v, &mut kl, &mut vl) };
        if ret < 0 {
            return Err(op_error(ret, 0));
        }
        if k.is_null() {
            return Ok(out);
        }
        // SAFETY: `k` (non-null) points to the key's `kl` bytes, which live
        // until `rados_omap_get_end` (in `ReadState::drop`); copied below.
        let key = unsafe { std::slice::from_raw_parts(k.cast::<u8>(), kl) };
        let val = if vl == 0 {
            Bytes::new()
        } else {
            // SAFETY: with `vl > 0`, `v` points to the value's `vl` bytes, live
            // until `rados_omap_get_end`; copied at once.
            Bytes::copy_from_slice(unsafe { std::slice::from_raw_parts(v.cast::<u8>(), vl) })
        };
        out.push((utf8("omap key", key)?, val));
    }
}

impl ReadState {
    fn new(want: &ReadOp, at_version: Option<u64>) -> StoreResult<Self> {
        // SAFETY: takes no arguments; the handle is checked before any use.
        let op = unsafe { ffi::rados_create_read_op() };
        if op.is_null() {
            return Err(StoreError::Io("librados cannot allocate a read op".into()));
        }
        Ok(ReadState {
            op,
            want: want.clone(),
            at_version,
            size: 0,
            mtime: 0,
            stat_rval: 0,
            buf: Vec::new(),
            bytes_read: 0,
            read_rval: 0,
            xattrs: std::ptr::null_mut(),
            xattrs_rval: 0,
            omap: std::ptr::null_mut(),
            omap_more: 0,
            omap_rval: 0,
            keys: std::ptr::null_mut(),
            keys_rval: 0,
            exec_out: std::ptr::null_mut(),
            exec_len: 0,
            exec_rval: 0,
        })
    }

    /// Adds the parts asked for; run by `prepare` only, once `self` is at its
    /// final (leaked box) address: librados keeps pointers to the output fields.
    fn build(&mut self, max_object_size: u64) -> StoreResult<()> {
        let h = self.op;
        let want = &self.want;
        // SAFETY: `h` is a live read op owned by `self`, not yet submitted.
        unsafe { ffi::rados_read_op_assert_exists(h) };
        if let Some(v) = self.at_version {
            // SAFETY: `h` is a live read op owned by `self`, not yet submitted.
            unsafe { ffi::rados_read_op_assert_version(h, v) };
        }
        if want.stat {
            // SAFETY: `h` is live and unsubmitted; the three out-pointers are
            // fields of `self`, which stays at this address until the callback.
            unsafe {
                ffi::rados_read_op_stat(h, &mut self.size, &mut self.mtime, &mut self.stat_rval);
            };
        }
        if let Some((offset, len)) = want.read {
            let len = len.min(max_object_size) as usize;
            if len > 0 {
                self.buf = Vec::with_capacity(len);
                // SAFETY: `h` is live and unsubmitted; `buf` has room for `len`
                // bytes and is not touched (nor reallocated) until `finish`; the
                // count and rval slots are fields of `self`, pinned until the callback.
                unsafe {
                    ffi::rados_read_op_read(
                        h,
                        offset,
                        len,
                        self.buf.as_mut_ptr().cast(),
                        &mut self.bytes_read,
                        &mut self.read_rval,
                    );
                };
            }
        }
        if want.xattrs || want.omap_header {
            // SAFETY: `h` is live and unsubmitted; the iterator and rval slots are
            // fields of `self`, pinned until the callback.
            unsafe { ffi::rados_read_op_getxattrs(h, &mut self.xattrs, &mut self.xattrs_rval) };
        }
        if let Some(q) = &want.omap {
            let start = cstring("omap start_after", &q.start_after)?;
            let prefix = cstring("omap prefix", &q.prefix)?;
            // SAFETY: `h` is live and unsubmitted; `start` and `prefix` are
            // nul-terminated and copied in the call; the iterator, `more` and rval
            // slots are fields of `self`, pinned until the callback.
            unsafe {
                ffi::rados_read_op_omap_get_vals2(
                    h,
                    start.as_ptr(),
                    prefix.as_ptr(),
                    q.max,
                    &mut self.omap,
                    &mut self.omap_more,
                    &mut self.omap_rval,
                );
            };
        }
        if let Some((class, method, input)) = &want.exec {
            let class = cstring("object class", class)?;
            let method = cstring("object class method", method)?;
            // SAFETY: `h` is live and unsubmitted; `class`, `method` (nul-
            // terminated) and `input` (`input.len()` bytes) are copied in the
            // call; the out-buffer, length and rval slots are fields of `self`,
            // pinned until the callback; librados allocates the out-buffer,
            // freed once in `Drop`.
            unsafe {
                ffi::rados_read_op_exec(
                    h,
                    class.as_ptr(),
                    method.as_ptr(),
                    input.as_ptr().cast(),
                    input.len(),
                    &mut self.exec_out,
                    &mut self.exec_len,
                    &mut self.exec_rval,
                );
            };
        }
        if let Some(keys) = &want.omap_keys {
            let arr = KeyArrays::new(keys.iter().map(std::string::String::as_bytes));
            // SAFETY: `h` is live and unsubmitted; both arrays hold `keys.len()`
            // pointers/lengths of bytes borrowed from `keys`, copied in the call;
            // the iterator and rval slots are fields of `self`, pinned until the callback.
            unsafe {
                ffi::rados_read_op_omap_get_vals_by_keys2(
                    h,
                    arr.ptrs.as_ptr(),
                    keys.len(),
                    arr.lens.as_ptr(),
                    &mut self.keys,
                    &mut self.keys_rval,
                );
            };
        }
        Ok(())
    }
}

impl OpState for ReadState {
    type Output = ReadResult;

    fn prepare(&mut self, max_object_size: u64) -> StoreResult<()> {
        self.build(max_object_size)
    }

    fn finish(&mut self, ret: c_int, version: u64, max: u64) -> StoreResult<ReadResult> {
        if self.at_version.is_some() && (ret == -libc::ERANGE || ret == -libc::EOVERFLOW) {
            return Err(StoreError::GuardFailed("object version changed".into()));
        }
        for rval in [
            ret,
            self.stat_rval,
            self.read_rval,
            self.xattrs_rval,
            self.omap_rval,
            self.keys_rval,
            self.exec_rval,
        ] {
            if rval < 0 {
                return Err(op_error(rval, max));
            }
        }
        let mut out = ReadResult::default();
        if self.want.stat {
            out.stat = Some(ObjectStat {
                size: self.size,
                mtime: SystemTime::UNIX_EPOCH + Duration::from_secs(self.mtime.max(0) as u64),
                version,
            });
        }
        if self.want.read.is_some() {
            let mut buf = std::mem::take(&mut self.buf);
            // SAFETY: if a read was added it succeeded (rvals checked above), so
            // librados wrote the first `bytes_read` (<= the `len` it was given)
            // bytes of `buf`'s capacity; else both are 0. Clamped to capacity too.
            unsafe { buf.set_len(self.bytes_read.min(buf.capacity())) };
            out.data = Some(Bytes::from(buf));
        }
        if !self.xattrs.is_null() {
            let mut all = BTreeMap::new();
            loop {
                let (mut name, mut val): (*const c_char, *const c_char) =
                    (std::ptr::null(), std::ptr::null());
                let mut len = 0usize;
                // SAFETY: the op succeeded, so `xattrs` is a live, filled-in
                // iterator (ended only in `Drop`); the out-pointers are valid locals.
                let ret = unsafe {
                    ffi::rados_getxattrs_next(self.xattrs, &mut name, &mut val, &mut len)
                };
                if ret < 0 {
                    return Err(op_error(ret, max));
                }
                if name.is_null() {
                    break;
                }
                // SAFETY: `name` (non-null) is the xattr's nul-terminated name,
                // valid until `rados_getxattrs_end`; copied below.
                let name = unsafe { CStr::from_ptr(name) };
                let value = if len == 0 {
                    Bytes::new()
                } else {
                    // SAFETY: with `len > 0`, `val` points to `len` bytes valid until
                    // the next `rados_getxattrs_next`; copied at once.
                    Bytes::copy_from_slice(unsafe {
                        std::slice::from_raw_parts(val.cast::<u8>(), len)
                    })
                };
                all.insert(utf8("xattr name", name.to_bytes())?, value);
            }
            let header = all.remove(OMAP_HEADER_XATTR);
            if self.want.omap_header {
                out.omap_header = Some(header.unwrap_or_default());
            }
            if self.want.xattrs {
                out.xattrs = Some(all);
            }
        }
        if !self.omap.is_null() {
            // SAFETY: the op succeeded (all rvals checked), so `omap` is live and
            // filled in; it is ended only in `Drop`, and we have `&mut self`.
            let entries = unsafe { omap_entries(self.omap)? };
            out.omap = Some(OmapPage {
                entries,
                more: self.omap_more != 0,
            });
        }
        if !self.keys.is_null() {
            // SAFETY: the op succeeded, so `keys` is live and filled in; it is
            // ended only in `Drop`, and we have `&mut self`.
            out.omap_keys = Some(unsafe { omap_entries(self.keys)? }.into_iter().collect());
        }
        if self.want.exec.is_some() {
            out.exec = Some(if self.exec_out.is_null() || self.exec_len == 0 {
                Bytes::new()
            } else {
                // SAFETY: the op succeeded, so librados set `exec_out` to a
                // buffer of `exec_len` bytes, freed only in `Drop`; copied at once.
                Bytes::copy_from_slice(unsafe {
                    std::slice::from_raw_parts(self.exec_out.cast::<u8>(), self.exec_len)
                })
            });
        }
        Ok(out)
    }
}

/// Submits a compound read; `reply` picks how the caller will wait.
pub(crate) fn submit_read<W>(
    io: Arc<IoCtx>,
    obj: &ObjectId,
    op: &ReadOp,
    at_version: Option<u64>,
    reply: fn() -> (Reply<ReadResult>, W),
) -> StoreResult<W> {
    validate_object_name(obj)?;
    let oid = cstring("object name", &obj.name)?;
    let (tx, waiter) = reply();
    let pending = Box::new(Pending {
        state: ReadState::new(op, at_version)?,
        io,
        reply: tx,
    });
    // `launch` builds the op (`OpState::prepare`) before it calls `start`.
    let (handle, io_raw) = (pending.state.op, pending.io.raw);
    launch(pending, |c| {
        // SAFETY: the op handle (built by now), its output slots and the ioctx
        // are kept alive by the boxed `Pending` until the callback; `oid` is
        // nul-terminated and copied; `c` is the fresh completion; errors mean not queued.
        unsafe {
            ffi::rados_aio_read_op_operate(
                handle,
                io_raw,
                c,
                oid.as_ptr(),
                ffi::LIBRADOS_OPERATION_NOFLAG,
            )
        }
    })?;
    Ok(waiter)
}
