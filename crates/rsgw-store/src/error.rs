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
    /// Any other failure, with the backend's own description.
    #[error("store I/O error: {0}")]
    Io(String),
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(e.to_string())
    }
}
