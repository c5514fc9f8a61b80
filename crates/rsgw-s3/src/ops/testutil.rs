//! What the families' unit tests share: S3 errors as a client sees them.

use s3s::{S3Error, S3Result};

/// An S3 error as the client sees it: code and status.
pub(super) fn seen(e: &S3Error) -> (&str, u16) {
    (e.code().as_str(), e.status_code().map_or(0, |s| s.as_u16()))
}

/// A value, or the code and status of the S3 error instead.
pub(super) type Outcome<T> = Result<T, (&'static str, u16)>;

/// Asserts an outcome: the value, or the error's code and status.
pub(super) fn check<T: PartialEq + std::fmt::Debug>(got: S3Result<T>, want: Outcome<T>, why: &str) {
    match (got, want) {
        (Ok(g), Ok(w)) => assert_eq!(g, w, "{why}"),
        (Err(e), Err(w)) => assert_eq!(seen(&e), w, "{why}"),
        (g, w) => panic!("{why}: got {g:?}, want {w:?}"),
    }
}
