//! The error every store operation returns.

/// Result of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// Why a store operation failed. Each variant corresponds to a RADOS outcome,
/// so callers can react the same way whatever the backend.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The pool was never created.
    #[error("pool '{0}' does not exist")]
    NoSuchPool(String),
    /// The object does not exist (RADOS `ENOENT`).
    #[error("object not found")]
    NotFound,
    /// An exclusive create found the object already there (RADOS `EEXIST`).
    #[error("object already exists")]
    Exists,
    /// An xattr comparison guard did not hold (RADOS `ECANCELED`).
    #[error("guard failed: {0}")]
    GuardFailed(String),
    /// The operation did not complete within the configured timeout.
    #[error("operation timed out")]
    Timeout,
    /// The object would exceed the largest object the backend accepts (RADOS `EFBIG`).
    #[error("object would exceed the largest object size ({limit} bytes)")]
    TooLarge {
        /// The backend's largest object, in bytes.
        limit: u64,
    },
    /// The request itself is malformed (bad name, reserved xattr, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The backend cannot be reached or refused the connection.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// No space for the write (RADOS `EDQUOT` or `ENOSPC`, a local disk's
    /// `ENOSPC` or `EDQUOT`). Writes that free space, deletes, still work.
    #[error("no space for the write: {0}")]
    Full(Fullness),
    /// Any other failure, with the backend's own description.
    #[error("store I/O error: {0}")]
    Io(String),
}

/// Which limit a write ran into, told to the client without naming pools
/// or paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fullness {
    /// The pool's quota (`ceph osd pool set-quota`), or a disk quota, is reached.
    Quota,
    /// The cluster (an OSD past its full ratio) or the local disk is full.
    NoSpace,
}

impl std::fmt::Display for Fullness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Fullness::Quota => "the storage quota is reached",
            Fullness::NoSpace => "the storage is full",
        })
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::StorageFull => StoreError::Full(Fullness::NoSpace),
            std::io::ErrorKind::QuotaExceeded => StoreError::Full(Fullness::Quota),
            _ => StoreError::Io(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux's ENOSPC and EDQUOT (the crate has no libc dependency).
    const ENOSPC: i32 = 28;
    const EDQUOT: i32 = 122;

    #[test]
    fn a_full_disk_is_full_not_io() {
        let from = |code| StoreError::from(std::io::Error::from_raw_os_error(code));
        assert_eq!(from(ENOSPC), StoreError::Full(Fullness::NoSpace));
        assert_eq!(from(EDQUOT), StoreError::Full(Fullness::Quota));
        assert!(matches!(from(5), StoreError::Io(_)), "EIO");
    }
}
