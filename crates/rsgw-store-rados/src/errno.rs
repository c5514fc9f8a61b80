//! librados' negative errno results as store errors.

use rsgw_store::{Fullness, StoreError};

/// The message libc has for an errno.
pub(crate) fn strerror(code: i32) -> String {
    std::io::Error::from_raw_os_error(code.abs()).to_string()
}

/// Maps a negative librados return code of an object operation;
/// `max_object_size` is what EFBIG reports as the limit.
pub(crate) fn op_error(ret: i32, max_object_size: u64) -> StoreError {
    match -ret {
        libc::ENOENT => StoreError::NotFound,
        libc::EEXIST => StoreError::Exists,
        libc::ECANCELED => StoreError::GuardFailed("xattr comparison".into()),
        libc::ETIMEDOUT => StoreError::Timeout,
        libc::EFBIG => StoreError::TooLarge {
            limit: max_object_size,
        },
        // a write op sent with FULL_TRY to a full pool (see `ops::submit_write`)
        libc::EDQUOT => StoreError::Full(Fullness::Quota),
        libc::ENOSPC => StoreError::Full(Fullness::NoSpace),
        libc::EINVAL => StoreError::InvalidArgument(strerror(ret)),
        libc::ENOTCONN | libc::ESHUTDOWN | libc::EPERM | libc::EACCES => {
            StoreError::Unavailable(strerror(ret))
        }
        _ => StoreError::Io(format!("librados: {} ({ret})", strerror(ret))),
    }
}
