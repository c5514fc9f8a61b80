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

fn cstring(what: &str, s: &str) -> StoreResult<CString> {
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

/// An owned `rados_write_op_t`, released when the operation is over.
struct WriteState(ffi::rados_write_op_t);

// The op handle is only touched by one thread at a time.
unsafe impl Send for WriteState {}

impl Drop for WriteState {
    fn drop(&mut self) {
        unsafe { ffi::rados_release_write_op(self.0) }
    }
}

impl OpState for WriteState {
    type Output = WriteOutcome;

    fn finish(&mut self, ret: c_int, version: u64, max: u64) -> StoreResult<WriteOutcome> {
        if ret < 0 {
            return Err(op_error(ret, max));
        }
        Ok(WriteOutcome { version })
    }
}

impl WriteState {
    /// Adds every guard and action; librados copies the data it is given.
    fn build(op: &WriteOp, max_object_size: u64) -> StoreResult<Self> {
        let state = WriteState(unsafe { ffi::rados_create_write_op() });
        let h = state.0;
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
                Guard::Exists => unsafe { ffi::rados_write_op_assert_exists(h) },
                Guard::NotExists => unsafe {
                    ffi::rados_write_op_create(h, ffi::LIBRADOS_CREATE_EXCLUSIVE, std::ptr::null())
                },
                Guard::Xattr { name, op, value } => {
                    let name = cstring("xattr name", name)?;
                    unsafe {
                        ffi::rados_write_op_cmpxattr(
                            h,
                            name.as_ptr(),
                            cmp_code(*op),
                            value.as_ptr().cast(),
                            value.len(),
                        )
                    }
                }
            }
        }
        for a in &op.actions {
            match a {
                WriteAction::Create => unsafe {
                    ffi::rados_write_op_create(h, ffi::LIBRADOS_CREATE_IDEMPOTENT, std::ptr::null())
                },
                WriteAction::WriteFull(data) => {
                    too_large(data.len() as u64)?;
                    unsafe { ffi::rados_write_op_write_full(h, data.as_ptr().cast(), data.len()) }
                }
                WriteAction::Write { offset, data } => {
                    too_large(offset.saturating_add(data.len() as u64))?;
                    unsafe {
                        ffi::rados_write_op_write(h, data.as_ptr().cast(), data.len(), *offset)
                    }
                }
                WriteAction::Append(data) => unsafe {
                    ffi::rados_write_op_append(h, data.as_ptr().cast(), data.len())
                },
                WriteAction::Truncate(size) => {
                    too_large(*size)?;
                    unsafe { ffi::rados_write_op_truncate(h, *size) }
                }
                WriteAction::SetXattr(name, value) => set_xattr(h, name, value)?,
                WriteAction::RmXattr(name) => {
                    let name = cstring("xattr name", name)?;
                    unsafe { ffi::rados_write_op_rmxattr(h, name.as_ptr()) }
                }
                WriteAction::OmapSet(entries) => {
                    let keys = KeyArrays::new(entries.iter().map(|(k, _)| k.as_bytes()));
                    let vals = KeyArrays::new(entries.iter().map(|(_, v)| &v[..]));
                    unsafe {
                        ffi::rados_write_op_omap_set2(
                            h,
                            keys.ptrs.as_ptr(),
                            vals.ptrs.as_ptr(),
                            keys.lens.as_ptr(),
                            vals.lens.as_ptr(),
                            entries.len(),
                        )
                    }
                }
                WriteAction::OmapRm(keys) => {
                    let arr = KeyArrays::new(keys.iter().map(|k| k.as_bytes()));
                    unsafe {
                        ffi::rados_write_op_omap_rm_keys2(
                            h,
                            arr.ptrs.as_ptr(),
                            arr.lens.as_ptr(),
                            keys.len(),
                        )
                    }
                }
                WriteAction::OmapClear => unsafe { ffi::rados_write_op_omap_clear(h) },
                WriteAction::OmapSetHeader(header) => set_xattr(h, OMAP_HEADER_XATTR, header)?,
                WriteAction::Remove => unsafe { ffi::rados_write_op_remove(h) },
            }
        }
        Ok(state)
    }
}

fn set_xattr(h: ffi::rados_write_op_t, name: &str, value: &Bytes) -> StoreResult<()> {
    let name = cstring("xattr name", name)?;
    unsafe { ffi::rados_write_op_setxattr(h, name.as_ptr(), value.as_ptr().cast(), value.len()) };
    Ok(())
}

/// Submits a compound write; `reply` picks how the caller will wait.
pub(crate) fn submit_write<W>(
    io: Arc<IoCtx>,
    obj: &ObjectId,
    op: &WriteOp,
    reply: fn() -> (Reply<WriteOutcome>, W),
) -> StoreResult<W> {
    validate_object_name(obj)?;
    op.validate()?;
    let oid = cstring("object name", &obj.name)?;
    let state = WriteState::build(op, io.max_object_size)?;
    let (handle, io_raw) = (state.0, io.raw);
    let (tx, waiter) = reply();
    launch(
        Box::new(Pending {
            state,
            io,
            reply: tx,
        }),
        |c| unsafe {
            ffi::rados_aio_write_op_operate(
                handle,
                io_raw,
                c,
                oid.as_ptr(),
                std::ptr::null_mut(),
                ffi::LIBRADOS_OPERATION_NOFLAG,
            )
        },
    )?;
    Ok(waiter)
}

/// A read op and the outputs librados fills in at completion. It is boxed
/// before the op is built, so the addresses handed to librados stay valid.
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
}

// Raw handles and output slots are only used by one thread at a time.
unsafe impl Send for ReadState {}

impl Drop for ReadState {
    fn drop(&mut self) {
        unsafe {
            ffi::rados_release_read_op(self.op);
            if !self.xattrs.is_null() {
                ffi::rados_getxattrs_end(self.xattrs);
            }
            if !self.omap.is_null() {
                ffi::rados_omap_get_end(self.omap);
            }
            if !self.keys.is_null() {
                ffi::rados_omap_get_end(self.keys);
            }
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
/// `iter` must be a live iterator of a successfully completed op.
unsafe fn omap_entries(iter: ffi::rados_omap_iter_t) -> StoreResult<Vec<(String, Bytes)>> {
    let mut out = Vec::new();
    loop {
        let (mut k, mut v): (*mut c_char, *mut c_char) =
            (std::ptr::null_mut(), std::ptr::null_mut());
        let (mut kl, mut vl) = (0usize, 0usize);
        let ret = unsafe { ffi::rados_omap_get_next2(iter, &mut k, &mut v, &mut kl, &mut vl) };
        if ret < 0 {
            return Err(op_error(ret, 0));
        }
        if k.is_null() {
            return Ok(out);
        }
        let key = unsafe { std::slice::from_raw_parts(k.cast::<u8>(), kl) };
        let val = if vl == 0 {
            Bytes::new()
        } else {
            Bytes::copy_from_slice(unsafe { std::slice::from_raw_parts(v.cast::<u8>(), vl) })
        };
        out.push((utf8("omap key", key)?, val));
    }
}

impl ReadState {
    fn new(want: &ReadOp, at_version: Option<u64>) -> Self {
        ReadState {
            op: unsafe { ffi::rados_create_read_op() },
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
        }
    }

    /// Adds the parts asked for. Must run after `self` reached its final
    /// (boxed) address: librados keeps pointers to the output fields.
    fn build(&mut self, max_object_size: u64) -> StoreResult<()> {
        let h = self.op;
        let want = &self.want;
        unsafe { ffi::rados_read_op_assert_exists(h) };
        if let Some(v) = self.at_version {
            unsafe { ffi::rados_read_op_assert_version(h, v) };
        }
        if want.stat {
            unsafe {
                ffi::rados_read_op_stat(h, &mut self.size, &mut self.mtime, &mut self.stat_rval)
            };
        }
        if let Some((offset, len)) = want.read {
            let len = len.min(max_object_size) as usize;
            if len > 0 {
                self.buf = Vec::with_capacity(len);
                unsafe {
                    ffi::rados_read_op_read(
                        h,
                        offset,
                        len,
                        self.buf.as_mut_ptr().cast(),
                        &mut self.bytes_read,
                        &mut self.read_rval,
                    )
                };
            }
        }
        if want.xattrs || want.omap_header {
            unsafe { ffi::rados_read_op_getxattrs(h, &mut self.xattrs, &mut self.xattrs_rval) };
        }
        if let Some(q) = &want.omap {
            let start = cstring("omap start_after", &q.start_after)?;
            let prefix = cstring("omap prefix", &q.prefix)?;
            unsafe {
                ffi::rados_read_op_omap_get_vals2(
                    h,
                    start.as_ptr(),
                    prefix.as_ptr(),
                    q.max,
                    &mut self.omap,
                    &mut self.omap_more,
                    &mut self.omap_rval,
                )
            };
        }
        if let Some(keys) = &want.omap_keys {
            let arr = KeyArrays::new(keys.iter().map(|k| k.as_bytes()));
            unsafe {
                ffi::rados_read_op_omap_get_vals_by_keys2(
                    h,
                    arr.ptrs.as_ptr(),
                    keys.len(),
                    arr.lens.as_ptr(),
                    &mut self.keys,
                    &mut self.keys_rval,
                )
            };
        }
        Ok(())
    }
}

impl OpState for ReadState {
    type Output = ReadResult;

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
            // SAFETY: librados wrote `bytes_read` (at most the capacity) bytes.
            unsafe { buf.set_len(self.bytes_read.min(buf.capacity())) };
            out.data = Some(Bytes::from(buf));
        }
        if !self.xattrs.is_null() {
            let mut all = BTreeMap::new();
            loop {
                let (mut name, mut val): (*const c_char, *const c_char) =
                    (std::ptr::null(), std::ptr::null());
                let mut len = 0usize;
                let ret = unsafe {
                    ffi::rados_getxattrs_next(self.xattrs, &mut name, &mut val, &mut len)
                };
                if ret < 0 {
                    return Err(op_error(ret, max));
                }
                if name.is_null() {
                    break;
                }
                let name = unsafe { CStr::from_ptr(name) };
                let value = if len == 0 {
                    Bytes::new()
                } else {
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
            out.omap = Some(OmapPage {
                entries: unsafe { omap_entries(self.omap)? },
                more: self.omap_more != 0,
            });
        }
        if !self.keys.is_null() {
            out.omap_keys = Some(unsafe { omap_entries(self.keys)? }.into_iter().collect());
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
    let mut pending = Box::new(Pending {
        state: ReadState::new(op, at_version),
        io,
        reply: tx,
    });
    pending.state.build(pending.io.max_object_size)?;
    let (handle, io_raw) = (pending.state.op, pending.io.raw);
    launch(pending, |c| unsafe {
        ffi::rados_aio_read_op_operate(
            handle,
            io_raw,
            c,
            oid.as_ptr(),
            ffi::LIBRADOS_OPERATION_NOFLAG,
        )
    })?;
    Ok(waiter)
}
