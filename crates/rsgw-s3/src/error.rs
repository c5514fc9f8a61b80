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
        G::KeyTooLong => S3ErrorCode::KeyTooLongError,
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

/// A failure of one of s3s' request body decoders that S3 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DecoderFailure {
    /// An aws-chunked chunk signature did not verify.
    ChunkSignature,
    /// A single-chunk body did not hash to its `x-amz-content-sha256`.
    PayloadHash,
}

/// Recognises s3s' decoder failures. s3s 0.14 keeps their error types
/// (`AwsChunkedStreamError`, `UploadStreamError`) private, so they cannot
/// be downcast: the variants are told by their whole `Display` text, which
/// their `#[error]` attributes fix, compared for equality here and nowhere
/// else. s3s is pinned (`=0.14.1`); the S3 suite's bad-chunk-signature and
/// bad-payload-hash tests fail if an upgrade changes the text.
fn decoder_failure(e: &(dyn std::error::Error + 'static)) -> Option<DecoderFailure> {
    match e.to_string().as_str() {
        "AwsChunkedStreamError: SignatureMismatch" => Some(DecoderFailure::ChunkSignature),
        "UploadStreamError: Sha256Mismatch" => Some(DecoderFailure::PayloadHash),
        _ => None,
    }
}

/// Classifies an error from the request body: the frontend's idle timeout
/// (an `std::io::Error` of kind `TimedOut`, possibly wrapped by a decoder)
/// or a decoder's failure (see [`decoder_failure`]), anywhere in the chain
/// of causes, so the client gets the S3 code it expects.
pub(crate) fn body_error(e: &(dyn std::error::Error + Send + Sync + 'static)) -> GatewayError {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
        {
            return GatewayError::RequestTimeout;
        }
        match decoder_failure(c) {
            Some(DecoderFailure::ChunkSignature) => return GatewayError::BodySignatureMismatch,
            Some(DecoderFailure::PayloadHash) => return GatewayError::ContentSha256Mismatch,
            None => {}
        }
        cause = c.source();
    }
    GatewayError::Body(e.to_string())
}
