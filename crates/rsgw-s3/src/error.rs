//! Gateway errors as S3 errors (code, message and HTTP status).

use rsgw_gateway::GatewayError;
use rsgw_store::StoreError;
use s3s::{S3Error, S3ErrorCode};

/// Maps a gateway failure to the S3 error a client expects.
pub(crate) fn to_s3(e: GatewayError) -> S3Error {
    use GatewayError as G;
    let code = match &e {
        G::NoSuchBucket => S3ErrorCode::NoSuchBucket,
        G::NoSuchKey => S3ErrorCode::NoSuchKey,
        G::BucketAlreadyExists => S3ErrorCode::BucketAlreadyExists,
        G::BucketAlreadyOwnedByYou => S3ErrorCode::BucketAlreadyOwnedByYou,
        G::BucketNotEmpty => S3ErrorCode::BucketNotEmpty,
        G::InvalidBucketName(_) => S3ErrorCode::InvalidBucketName,
        G::InvalidKey(why) if why.contains("1024") => S3ErrorCode::KeyTooLongError,
        G::InvalidKey(_) | G::InvalidArgument(_) => S3ErrorCode::InvalidArgument,
        G::AccessDenied => S3ErrorCode::AccessDenied,
        G::BadDigest | G::BadChecksum(_) => S3ErrorCode::BadDigest,
        G::EntityTooLarge => S3ErrorCode::EntityTooLarge,
        G::IncompleteBody | G::Body(_) => S3ErrorCode::IncompleteBody,
        G::RequestTimeout => S3ErrorCode::RequestTimeout,
        G::BodySignatureMismatch => S3ErrorCode::SignatureDoesNotMatch,
        G::ContentSha256Mismatch => {
            let mut err = S3Error::with_message(
                S3ErrorCode::Custom("XAmzContentSHA256Mismatch".into()),
                e.to_string(),
            );
            err.set_status_code(http::StatusCode::BAD_REQUEST);
            return err;
        }
        G::PreconditionFailed => S3ErrorCode::PreconditionFailed,
        G::NotModified => S3ErrorCode::NotModified,
        G::InvalidRange => S3ErrorCode::InvalidRange,
        G::Store(StoreError::Timeout) => S3ErrorCode::SlowDown,
        G::Store(StoreError::Unavailable(_)) => S3ErrorCode::ServiceUnavailable,
        G::Store(StoreError::TooLarge { .. }) => S3ErrorCode::EntityTooLarge,
        G::NoSuchUpload => S3ErrorCode::NoSuchUpload,
        G::InvalidPart(_) => S3ErrorCode::InvalidPart,
        G::InvalidPartOrder => S3ErrorCode::InvalidPartOrder,
        G::EntityTooSmall => S3ErrorCode::EntityTooSmall,
        G::MalformedXml(_) => S3ErrorCode::MalformedXML,
        G::InvalidRequest(_) => S3ErrorCode::InvalidRequest,
        G::NoSuchUser(_) | G::UserExists(_) | G::KeyExists(_) | G::UserHasBuckets(_) => {
            S3ErrorCode::InvalidArgument
        }
        G::Corrupt(_) | G::Store(_) => S3ErrorCode::InternalError,
    };
    if code == S3ErrorCode::InternalError {
        tracing::error!(error = %e, "internal error");
        return S3Error::with_message(code, "We encountered an internal error. Please try again.");
    }
    S3Error::with_message(code, e.to_string())
}

/// Classifies an error from s3s' body decoders (aws-chunked signatures,
/// single-chunk payload hashes) or from the body itself (the frontend's idle
/// timeout, an `std::io::Error` of kind `TimedOut`, possibly wrapped by a
/// decoder) so the client gets the S3 code it expects.
pub(crate) fn body_error(e: &(dyn std::error::Error + Send + Sync + 'static)) -> GatewayError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return GatewayError::RequestTimeout;
        }
        cause = c.source();
    }
    let text = e.to_string();
    if text.contains("SignatureMismatch") {
        GatewayError::BodySignatureMismatch
    } else if text.contains("Sha256Mismatch") {
        GatewayError::ContentSha256Mismatch
    } else {
        GatewayError::Body(text)
    }
}
