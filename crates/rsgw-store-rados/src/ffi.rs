//! The part of librados' C API (`rados/librados.h`, Pacific and later) that
//! rsgw uses. Declared by hand: the published binding crates lack compound
//! ops, omap with binary-safe keys and `more`, and asynchronous completions
//! (see docs/decisions/0002-rados-bindings.md).

#![allow(non_camel_case_types)]

use libc::{c_char, c_int, c_uchar, c_void, size_t, time_t};

pub type rados_t = *mut c_void;
pub type rados_ioctx_t = *mut c_void;
pub type rados_completion_t = *mut c_void;
pub type rados_write_op_t = *mut c_void;
pub type rados_read_op_t = *mut c_void;
pub type rados_xattrs_iter_t = *mut c_void;
pub type rados_omap_iter_t = *mut c_void;
pub type rados_list_ctx_t = *mut c_void;
pub type rados_callback_t = Option<unsafe extern "C" fn(cb: rados_completion_t, arg: *mut c_void)>;
pub type rados_watchcb2_t = Option<
    unsafe extern "C" fn(
        arg: *mut c_void,
        notify_id: u64,
        handle: u64,
        notifier_id: u64,
        data: *mut c_void,
        data_len: size_t,
    ),
>;
pub type rados_watcherrcb_t =
    Option<unsafe extern "C" fn(pre: *mut c_void, cookie: u64, err: c_int)>;

pub const LIBRADOS_CREATE_EXCLUSIVE: c_int = 1;
pub const LIBRADOS_CREATE_IDEMPOTENT: c_int = 0;
pub const LIBRADOS_OPERATION_NOFLAG: c_int = 0;
pub const LIBRADOS_OPERATION_FULL_TRY: c_int = 64;
pub const LIBRADOS_CMPXATTR_OP_EQ: u8 = 1;
pub const LIBRADOS_CMPXATTR_OP_NE: u8 = 2;
pub const LIBRADOS_CMPXATTR_OP_GT: u8 = 3;
pub const LIBRADOS_CMPXATTR_OP_GTE: u8 = 4;
pub const LIBRADOS_CMPXATTR_OP_LT: u8 = 5;
pub const LIBRADOS_CMPXATTR_OP_LTE: u8 = 6;
/// `LIBRADOS_ALL_NSPACES`: lists every namespace.
pub const LIBRADOS_ALL_NSPACES: &std::ffi::CStr = c"\x01";

// SAFETY: each declaration matches its prototype in rados/librados.h (and
// rados_types.h for LIBRADOS_ALL_NSPACES), checked against the installed header;
// every call site documents its own pointer and lifetime obligations.
unsafe extern "C" {
    pub fn rados_create2(
        cluster: *mut rados_t,
        clustername: *const c_char,
        name: *const c_char,
        flags: u64,
    ) -> c_int;
    pub fn rados_conf_read_file(cluster: rados_t, path: *const c_char) -> c_int;
    pub fn rados_conf_set(cluster: rados_t, option: *const c_char, value: *const c_char) -> c_int;
    pub fn rados_conf_get(
        cluster: rados_t,
        option: *const c_char,
        buf: *mut c_char,
        len: usize,
    ) -> c_int;
    pub fn rados_connect(cluster: rados_t) -> c_int;
    pub fn rados_get_instance_id(cluster: rados_t) -> u64;
    pub fn rados_service_register(
        cluster: rados_t,
        service: *const c_char,
        daemon: *const c_char,
        metadata_dict: *const c_char,
    ) -> c_int;
    pub fn rados_shutdown(cluster: rados_t);

    pub fn rados_pool_create(cluster: rados_t, pool_name: *const c_char) -> c_int;
    pub fn rados_mon_command(
        cluster: rados_t,
        cmd: *mut *const c_char,
        cmdlen: size_t,
        inbuf: *const c_char,
        inbuflen: size_t,
        outbuf: *mut *mut c_char,
        outbuflen: *mut size_t,
        outs: *mut *mut c_char,
        outslen: *mut size_t,
    ) -> c_int;
    pub fn rados_buffer_free(buf: *mut c_char);

    pub fn rados_ioctx_create(
        cluster: rados_t,
        pool: *const c_char,
        io: *mut rados_ioctx_t,
    ) -> c_int;
    pub fn rados_ioctx_destroy(io: rados_ioctx_t);
    pub fn rados_ioctx_get_id(io: rados_ioctx_t) -> i64;
    pub fn rados_ioctx_set_namespace(io: rados_ioctx_t, nspace: *const c_char);
    pub fn rados_ioctx_locator_set_key(io: rados_ioctx_t, key: *const c_char);

    pub fn rados_aio_create_completion2(
        cb_arg: *mut c_void,
        cb_complete: rados_callback_t,
        pc: *mut rados_completion_t,
    ) -> c_int;
    pub fn rados_aio_get_return_value(c: rados_completion_t) -> c_int;
    pub fn rados_aio_get_version(c: rados_completion_t) -> u64;
    pub fn rados_aio_release(c: rados_completion_t);

    pub fn rados_create_write_op() -> rados_write_op_t;
    pub fn rados_release_write_op(op: rados_write_op_t);
    pub fn rados_write_op_assert_exists(op: rados_write_op_t);
    pub fn rados_write_op_cmpxattr(
        op: rados_write_op_t,
        name: *const c_char,
        comparison_operator: u8,
        value: *const c_char,
        value_len: size_t,
    );
    pub fn rados_write_op_create(op: rados_write_op_t, exclusive: c_int, category: *const c_char);
    pub fn rados_write_op_write(
        op: rados_write_op_t,
        buffer: *const c_char,
        len: size_t,
        offset: u64,
    );
    pub fn rados_write_op_write_full(op: rados_write_op_t, buffer: *const c_char, len: size_t);
    pub fn rados_write_op_append(op: rados_write_op_t, buffer: *const c_char, len: size_t);
    pub fn rados_write_op_truncate(op: rados_write_op_t, offset: u64);
    pub fn rados_write_op_remove(op: rados_write_op_t);
    pub fn rados_write_op_setxattr(
        op: rados_write_op_t,
        name: *const c_char,
        value: *const c_char,
        value_len: size_t,
    );
    pub fn rados_write_op_rmxattr(op: rados_write_op_t, name: *const c_char);
    pub fn rados_write_op_omap_set2(
        op: rados_write_op_t,
        keys: *const *const c_char,
        vals: *const *const c_char,
        key_lens: *const size_t,
        val_lens: *const size_t,
        num: size_t,
    );
    pub fn rados_write_op_omap_rm_keys2(
        op: rados_write_op_t,
        keys: *const *const c_char,
        key_lens: *const size_t,
        keys_len: size_t,
    );
    pub fn rados_write_op_omap_clear(op: rados_write_op_t);
    pub fn rados_write_op_exec(
        op: rados_write_op_t,
        cls: *const c_char,
        method: *const c_char,
        in_buf: *const c_char,
        in_len: size_t,
        prval: *mut c_int,
    );
    pub fn rados_aio_write_op_operate(
        op: rados_write_op_t,
        io: rados_ioctx_t,
        completion: rados_completion_t,
        oid: *const c_char,
        mtime: *mut time_t,
        flags: c_int,
    ) -> c_int;

    pub fn rados_create_read_op() -> rados_read_op_t;
    pub fn rados_release_read_op(op: rados_read_op_t);
    pub fn rados_read_op_assert_exists(op: rados_read_op_t);
    pub fn rados_read_op_assert_version(op: rados_read_op_t, ver: u64);
    pub fn rados_read_op_stat(
        op: rados_read_op_t,
        psize: *mut u64,
        pmtime: *mut time_t,
        prval: *mut c_int,
    );
    pub fn rados_read_op_read(
        op: rados_read_op_t,
        offset: u64,
        len: size_t,
        buffer: *mut c_char,
        bytes_read: *mut size_t,
        prval: *mut c_int,
    );
    pub fn rados_read_op_getxattrs(
        op: rados_read_op_t,
        iter: *mut rados_xattrs_iter_t,
        prval: *mut c_int,
    );
    pub fn rados_read_op_omap_get_vals2(
        op: rados_read_op_t,
        start_after: *const c_char,
        filter_prefix: *const c_char,
        max_return: u64,
        iter: *mut rados_omap_iter_t,
        pmore: *mut c_uchar,
        prval: *mut c_int,
    );
    pub fn rados_read_op_omap_get_vals_by_keys2(
        op: rados_read_op_t,
        keys: *const *const c_char,
        num_keys: size_t,
        key_lens: *const size_t,
        iter: *mut rados_omap_iter_t,
        prval: *mut c_int,
    );
    pub fn rados_read_op_exec(
        op: rados_read_op_t,
        cls: *const c_char,
        method: *const c_char,
        in_buf: *const c_char,
        in_len: size_t,
        out_buf: *mut *mut c_char,
        out_len: *mut size_t,
        prval: *mut c_int,
    );
    pub fn rados_aio_read_op_operate(
        op: rados_read_op_t,
        io: rados_ioctx_t,
        completion: rados_completion_t,
        oid: *const c_char,
        flags: c_int,
    ) -> c_int;

    pub fn rados_getxattrs_next(
        iter: rados_xattrs_iter_t,
        name: *mut *const c_char,
        val: *mut *const c_char,
        len: *mut size_t,
    ) -> c_int;
    pub fn rados_getxattrs_end(iter: rados_xattrs_iter_t);
    pub fn rados_omap_get_next2(
        iter: rados_omap_iter_t,
        key: *mut *mut c_char,
        val: *mut *mut c_char,
        key_len: *mut size_t,
        val_len: *mut size_t,
    ) -> c_int;
    pub fn rados_omap_get_end(iter: rados_omap_iter_t);

    pub fn rados_nobjects_list_open(io: rados_ioctx_t, ctx: *mut rados_list_ctx_t) -> c_int;
    pub fn rados_nobjects_list_next2(
        ctx: rados_list_ctx_t,
        entry: *mut *const c_char,
        key: *mut *const c_char,
        nspace: *mut *const c_char,
        entry_size: *mut size_t,
        key_size: *mut size_t,
        nspace_size: *mut size_t,
    ) -> c_int;
    pub fn rados_nobjects_list_close(ctx: rados_list_ctx_t);

    pub fn rados_watch3(
        io: rados_ioctx_t,
        o: *const c_char,
        cookie: *mut u64,
        watchcb: rados_watchcb2_t,
        watcherrcb: rados_watcherrcb_t,
        timeout: u32,
        arg: *mut c_void,
    ) -> c_int;
    pub fn rados_watch_check(io: rados_ioctx_t, cookie: u64) -> c_int;
    pub fn rados_unwatch2(io: rados_ioctx_t, cookie: u64) -> c_int;
    pub fn rados_watch_flush(cluster: rados_t) -> c_int;
    pub fn rados_notify2(
        io: rados_ioctx_t,
        o: *const c_char,
        buf: *const c_char,
        buf_len: c_int,
        timeout_ms: u64,
        reply_buffer: *mut *mut c_char,
        reply_buffer_len: *mut size_t,
    ) -> c_int;
    pub fn rados_notify_ack(
        io: rados_ioctx_t,
        o: *const c_char,
        notify_id: u64,
        cookie: u64,
        buf: *const c_char,
        buf_len: c_int,
    ) -> c_int;
}
