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
        // AWS's answer to another SSE-C key than the object's
        G::AccessDenied | G::SseKeyMismatch | G::ObjectLocked(_) => S3ErrorCode::AccessDenied,
        G::InvalidBucketState(_) => S3ErrorCode::InvalidBucketState,
        G::NoObjectLockConfiguration => S3ErrorCode::ObjectLockConfigurationNotFoundError,
        G::NoSuchObjectLockConfiguration => S3ErrorCode::NoSuchObjectLockConfiguration,
        G::NotConfigured(_) => S3ErrorCode::NotImplemented,
        G::InvalidRetentionPeriod(_) => {
            return unlisted("InvalidRetentionPeriod", http::StatusCode::BAD_REQUEST, &e);
        }
        G::NoSuchEncryptionConfiguration => {
            return unlisted(
                "ServerSideEncryptionConfigurationNotFoundError",
                http::StatusCode::NOT_FOUND,
                &e,
            );
        }
        G::BadDigest | G::BadChecksum(_) => S3ErrorCode::BadDigest,
        G::EntityTooLarge => S3ErrorCode::EntityTooLarge,
        // AWS's code for a request body larger than it takes
        G::BucketRecordTooLarge { .. } => S3ErrorCode::MaxMessageLengthExceeded,
        G::IncompleteBody | G::Body(_) => S3ErrorCode::IncompleteBody,
        G::RequestTimeout => S3ErrorCode::RequestTimeout,
        G::BodySignatureMismatch => S3ErrorCode::SignatureDoesNotMatch,
        G::ContentSha256Mismatch => {
            return unlisted(
                "XAmzContentSHA256Mismatch",
                http::StatusCode::BAD_REQUEST,
                &e,
            );
        }
        G::PreconditionFailed => S3ErrorCode::PreconditionFailed,
        // radosgw's answer (S3 has no quotas)
        G::QuotaExceeded => {
            return unlisted("QuotaExceeded", http::StatusCode::FORBIDDEN, &e);
        }
        G::NotModified { etag, mtime } => {
            // AWS names the current version in a 304 (radosgw 16.2 does not)
            let mut err = S3Error::with_message(S3ErrorCode::NotModified, e.to_string());
            let mut h = http::HeaderMap::new();
            if let Ok(v) = http::HeaderValue::from_str(&format!("\"{etag}\"")) {
                h.insert(http::header::ETAG, v);
            }
            insert_last_modified(&mut h, *mtime);
            err.set_headers(h);
            return err;
        }
        G::NoSuchVersion => S3ErrorCode::NoSuchVersion,
        G::DeleteMarker {
            version_id,
            mtime,
            by_version,
        } => {
            let code = if *by_version {
                S3ErrorCode::MethodNotAllowed
            } else {
                S3ErrorCode::NoSuchKey
            };
            let mut err = S3Error::with_message(code, e.to_string());
            let mut h = http::HeaderMap::new();
            h.insert(
                "x-amz-delete-marker",
                http::HeaderValue::from_static("true"),
            );
            if let Ok(v) = http::HeaderValue::from_str(version_id) {
                h.insert("x-amz-version-id", v);
            }
            if *by_version {
                insert_last_modified(&mut h, *mtime);
            }
            err.set_headers(h);
            return err;
        }
        G::InvalidRange => S3ErrorCode::InvalidRange,
        G::InvalidPartNumber => {
            return unlisted(
                "InvalidPartNumber",
                http::StatusCode::RANGE_NOT_SATISFIABLE,
                &e,
            );
        }
        G::Store(StoreError::Timeout) => S3ErrorCode::SlowDown,
        G::Store(StoreError::Unavailable(_)) | G::KeyServiceUnavailable => {
            S3ErrorCode::ServiceUnavailable
        }
        G::Store(StoreError::TooLarge { .. }) => S3ErrorCode::EntityTooLarge,
        // S3 names no code for a full store; WebDAV's status (MinIO's too),
        // which SDKs do not retry: the write fails at once, not after retries
        G::Store(StoreError::Full(_)) => {
            return unlisted(
                "InsufficientStorage",
                http::StatusCode::INSUFFICIENT_STORAGE,
                &e,
            );
        }
        G::NoSuchUpload => S3ErrorCode::NoSuchUpload,
        G::InvalidPart(_) => S3ErrorCode::InvalidPart,
        G::InvalidPartOrder => S3ErrorCode::InvalidPartOrder,
        G::EntityTooSmall => S3ErrorCode::EntityTooSmall,
        G::MalformedXml(_) => S3ErrorCode::MalformedXML,
        G::MalformedPolicy(_) => S3ErrorCode::MalformedPolicy,
        G::NoSuchBucketPolicy => S3ErrorCode::NoSuchBucketPolicy,
        G::NoSuchCorsConfiguration => S3ErrorCode::NoSuchCORSConfiguration,
        G::NoSuchWebsiteConfiguration => S3ErrorCode::NoSuchWebsiteConfiguration,
        G::NoSuchTagSet => S3ErrorCode::NoSuchTagSet,
        G::NoSuchLifecycleConfiguration => S3ErrorCode::NoSuchLifecycleConfiguration,
        G::InvalidTag(_) => S3ErrorCode::InvalidTag,
        G::InvalidRequest(_) => S3ErrorCode::InvalidRequest,
        G::NoSuchUser(_)
        | G::UserExists(_)
        | G::KeyExists(_)
        | G::EmailExists(_)
        | G::UserHasBuckets(_) => S3ErrorCode::InvalidArgument,
        G::UnresolvableEmail(_) => {
            return unlisted(
                "UnresolvableGrantByEmailAddress",
                http::StatusCode::BAD_REQUEST,
                &e,
            );
        }
        G::InvalidCap(_) => {
            return unlisted("InvalidCapability", http::StatusCode::BAD_REQUEST, &e);
        }
        // radosgw's codes: S3 names neither
        G::TooManyBuckets => {
            return unlisted("TooManyBuckets", http::StatusCode::BAD_REQUEST, &e);
        }
        G::UserSuspended => {
            return unlisted("UserSuspended", http::StatusCode::FORBIDDEN, &e);
        }
        // radosgw's code (S3 names no limit on grants)
        G::TooManyGrants => {
            return unlisted("LimitExceeded", http::StatusCode::BAD_REQUEST, &e);
        }
        G::Corrupt(_) | G::NewerFormat { .. } | G::Store(_) => S3ErrorCode::InternalError,
    };
    if code == S3ErrorCode::InternalError {
        tracing::error!(error = %e, "internal error");
        return S3Error::with_message(code, "We encountered an internal error. Please try again.");
    }
    S3Error::with_message(code, e.to_string())
}

/// `Last-Modified` for a time in seconds since the epoch, as an error's
/// header (a 304's, a delete marker's).
fn insert_last_modified(h: &mut http::HeaderMap, mtime: f64) {
    let modified = std::time::UNIX_EPOCH + std::time::Duration::from_secs(mtime.max(0.0) as u64);
    if let Ok(v) = http::HeaderValue::from_str(&httpdate::fmt_http_date(modified)) {
        h.insert(http::header::LAST_MODIFIED, v);
    }
}

/// An error whose S3 code s3s does not list, with the status AWS gives it.
fn unlisted(code: &'static str, status: http::StatusCode, e: &GatewayError) -> S3Error {
    let mut err = S3Error::with_message(S3ErrorCode::Custom(code.into()), e.to_string());
    err.set_status_code(status);
    err
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::error::Error;
    use std::fmt;

    use super::*;

    const INTERNAL: &str = "We encountered an internal error. Please try again.";

    /// The variant's name. The match has no wildcard, so a new
    /// `GatewayError` (or `StoreError`) variant stops this module from
    /// compiling until it is named here; `VARIANTS` then counts it, and
    /// the mapping test fails until the table has a row for it.
    fn variant(e: &GatewayError) -> &'static str {
        use GatewayError as G;
        match e {
            G::NoSuchBucket => "NoSuchBucket",
            G::NoSuchKey => "NoSuchKey",
            G::NoSuchVersion => "NoSuchVersion",
            G::DeleteMarker { by_version, .. } => {
                if *by_version {
                    "DeleteMarker(by version)"
                } else {
                    "DeleteMarker"
                }
            }
            G::BucketAlreadyExists => "BucketAlreadyExists",
            G::BucketAlreadyOwnedByYou => "BucketAlreadyOwnedByYou",
            G::BucketNotEmpty => "BucketNotEmpty",
            G::InvalidBucketName(_) => "InvalidBucketName",
            G::InvalidKey(_) => "InvalidKey",
            G::KeyTooLong => "KeyTooLong",
            G::AccessDenied => "AccessDenied",
            G::SseKeyMismatch => "SseKeyMismatch",
            G::ObjectLocked(_) => "ObjectLocked",
            G::InvalidBucketState(_) => "InvalidBucketState",
            G::NoObjectLockConfiguration => "NoObjectLockConfiguration",
            G::NoSuchObjectLockConfiguration => "NoSuchObjectLockConfiguration",
            G::InvalidRetentionPeriod(_) => "InvalidRetentionPeriod",
            G::NotConfigured(_) => "NotConfigured",
            G::KeyServiceUnavailable => "KeyServiceUnavailable",
            G::NoSuchEncryptionConfiguration => "NoSuchEncryptionConfiguration",
            G::BadDigest => "BadDigest",
            G::BadChecksum(_) => "BadChecksum",
            G::EntityTooLarge => "EntityTooLarge",
            G::BucketRecordTooLarge { .. } => "BucketRecordTooLarge",
            G::IncompleteBody => "IncompleteBody",
            G::PreconditionFailed => "PreconditionFailed",
            G::QuotaExceeded => "QuotaExceeded",
            G::NotModified { .. } => "NotModified",
            G::InvalidRange => "InvalidRange",
            G::InvalidPartNumber => "InvalidPartNumber",
            G::InvalidArgument(_) => "InvalidArgument",
            G::NoSuchUpload => "NoSuchUpload",
            G::InvalidPart(_) => "InvalidPart",
            G::InvalidPartOrder => "InvalidPartOrder",
            G::EntityTooSmall => "EntityTooSmall",
            G::InvalidRequest(_) => "InvalidRequest",
            G::MalformedXml(_) => "MalformedXml",
            G::MalformedPolicy(_) => "MalformedPolicy",
            G::NoSuchBucketPolicy => "NoSuchBucketPolicy",
            G::NoSuchCorsConfiguration => "NoSuchCorsConfiguration",
            G::NoSuchWebsiteConfiguration => "NoSuchWebsiteConfiguration",
            G::NoSuchTagSet => "NoSuchTagSet",
            G::NoSuchLifecycleConfiguration => "NoSuchLifecycleConfiguration",
            G::InvalidTag(_) => "InvalidTag",
            G::NoSuchUser(_) => "NoSuchUser",
            G::UserExists(_) => "UserExists",
            G::KeyExists(_) => "KeyExists",
            G::UserHasBuckets(_) => "UserHasBuckets",
            G::EmailExists(_) => "EmailExists",
            G::InvalidCap(_) => "InvalidCap",
            G::TooManyBuckets => "TooManyBuckets",
            G::UserSuspended => "UserSuspended",
            G::UnresolvableEmail(_) => "UnresolvableEmail",
            G::TooManyGrants => "TooManyGrants",
            G::BodySignatureMismatch => "BodySignatureMismatch",
            G::ContentSha256Mismatch => "ContentSha256Mismatch",
            G::Body(_) => "Body",
            G::RequestTimeout => "RequestTimeout",
            G::Corrupt(_) => "Corrupt",
            G::NewerFormat { .. } => "NewerFormat",
            G::Store(s) => match s {
                StoreError::NoSuchPool(_) => "Store(NoSuchPool)",
                StoreError::NotFound => "Store(NotFound)",
                StoreError::Exists => "Store(Exists)",
                StoreError::GuardFailed(_) => "Store(GuardFailed)",
                StoreError::Timeout => "Store(Timeout)",
                StoreError::TooLarge { .. } => "Store(TooLarge)",
                StoreError::InvalidArgument(_) => "Store(InvalidArgument)",
                StoreError::Unavailable(_) => "Store(Unavailable)",
                StoreError::Full(_) => "Store(Full)",
                StoreError::Io(_) => "Store(Io)",
            },
        }
    }

    /// How many names `variant` knows: the gateway's variants besides
    /// `Store`, and the 10 store variants under it.
    const VARIANTS: usize = 70;

    /// Every gateway failure, the S3 code and HTTP status AWS documents
    /// for it (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html),
    /// and whether it is an internal error whose detail must stay in the log.
    fn table() -> Vec<(GatewayError, &'static str, u16, bool)> {
        use GatewayError as G;
        let secret = "/var/lib/rsgw/pool/.rgw.meta: EIO at offset 4096";
        vec![
            (G::NoSuchBucket, "NoSuchBucket", 404, false),
            (G::NoSuchKey, "NoSuchKey", 404, false),
            (G::NoSuchVersion, "NoSuchVersion", 404, false),
            (
                G::DeleteMarker {
                    version_id: "null".into(),
                    mtime: 1.0,
                    by_version: false,
                },
                "NoSuchKey",
                404,
                false,
            ),
            (
                G::DeleteMarker {
                    version_id: "null".into(),
                    mtime: 1.0,
                    by_version: true,
                },
                "MethodNotAllowed",
                405,
                false,
            ),
            (G::BucketAlreadyExists, "BucketAlreadyExists", 409, false),
            (
                G::BucketAlreadyOwnedByYou,
                "BucketAlreadyOwnedByYou",
                409,
                false,
            ),
            (G::BucketNotEmpty, "BucketNotEmpty", 409, false),
            (
                G::InvalidBucketName("Bad_Name".into()),
                "InvalidBucketName",
                400,
                false,
            ),
            (
                G::InvalidKey("empty key".into()),
                "InvalidArgument",
                400,
                false,
            ),
            (G::KeyTooLong, "KeyTooLongError", 400, false),
            (G::AccessDenied, "AccessDenied", 403, false),
            (G::SseKeyMismatch, "AccessDenied", 403, false),
            (
                G::ObjectLocked("under a COMPLIANCE retention".into()),
                "AccessDenied",
                403,
                false,
            ),
            (
                G::InvalidBucketState("object lock is enabled".into()),
                "InvalidBucketState",
                409,
                false,
            ),
            (
                G::NoObjectLockConfiguration,
                "ObjectLockConfigurationNotFoundError",
                404,
                false,
            ),
            (
                G::NoSuchObjectLockConfiguration,
                "NoSuchObjectLockConfiguration",
                404,
                false,
            ),
            (
                G::NotConfigured("no crypt.sse_s3_key".into()),
                "NotImplemented",
                501,
                false,
            ),
            (
                G::InvalidRetentionPeriod("no days".into()),
                "InvalidRetentionPeriod",
                400,
                false,
            ),
            (
                G::NoSuchEncryptionConfiguration,
                "ServerSideEncryptionConfigurationNotFoundError",
                404,
                false,
            ),
            (G::BadDigest, "BadDigest", 400, false),
            // AWS answers a wrong x-amz-checksum-* with BadDigest too
            (
                G::BadChecksum("the crc32 checksum you specified did not match".into()),
                "BadDigest",
                400,
                false,
            ),
            (G::EntityTooLarge, "EntityTooLarge", 400, false),
            (
                G::BucketRecordTooLarge {
                    size: 5 << 20,
                    max: 4 << 20,
                },
                "MaxMessageLengthExceeded",
                400,
                false,
            ),
            (G::IncompleteBody, "IncompleteBody", 400, false),
            (G::PreconditionFailed, "PreconditionFailed", 412, false),
            (
                G::NotModified {
                    etag: "abc".into(),
                    mtime: 1.0,
                },
                "NotModified",
                304,
                false,
            ),
            (G::InvalidRange, "InvalidRange", 416, false),
            (G::InvalidPartNumber, "InvalidPartNumber", 416, false),
            (
                G::InvalidArgument("max-parts".into()),
                "InvalidArgument",
                400,
                false,
            ),
            (G::NoSuchUpload, "NoSuchUpload", 404, false),
            (G::InvalidPart(3), "InvalidPart", 400, false),
            (G::InvalidPartOrder, "InvalidPartOrder", 400, false),
            (G::EntityTooSmall, "EntityTooSmall", 400, false),
            (
                G::InvalidRequest("no such thing".into()),
                "InvalidRequest",
                400,
                false,
            ),
            (
                G::MalformedXml("unexpected <Foo>".into()),
                "MalformedXML",
                400,
                false,
            ),
            (
                G::MalformedPolicy("Policy has invalid action".into()),
                "MalformedPolicy",
                400,
                false,
            ),
            (G::NoSuchBucketPolicy, "NoSuchBucketPolicy", 404, false),
            (G::InvalidTag("same key".into()), "InvalidTag", 400, false),
            (
                G::NoSuchCorsConfiguration,
                "NoSuchCORSConfiguration",
                404,
                false,
            ),
            (
                G::NoSuchWebsiteConfiguration,
                "NoSuchWebsiteConfiguration",
                404,
                false,
            ),
            (G::NoSuchTagSet, "NoSuchTagSet", 404, false),
            (
                G::NoSuchLifecycleConfiguration,
                "NoSuchLifecycleConfiguration",
                404,
                false,
            ),
            // admin failures never reach S3 clients but still map to a 4xx
            (G::NoSuchUser("bob".into()), "InvalidArgument", 400, false),
            (G::UserExists("bob".into()), "InvalidArgument", 400, false),
            (
                G::EmailExists("bob@example.com".into()),
                "InvalidArgument",
                400,
                false,
            ),
            (
                G::UnresolvableEmail("nobody@example.com".into()),
                "UnresolvableGrantByEmailAddress",
                400,
                false,
            ),
            (G::TooManyGrants, "LimitExceeded", 400, false),
            (G::InvalidCap("x".into()), "InvalidCapability", 400, false),
            (G::TooManyBuckets, "TooManyBuckets", 400, false),
            (G::UserSuspended, "UserSuspended", 403, false),
            (G::KeyExists("AKID".into()), "InvalidArgument", 400, false),
            (
                G::UserHasBuckets("bob".into()),
                "InvalidArgument",
                400,
                false,
            ),
            (
                G::BodySignatureMismatch,
                "SignatureDoesNotMatch",
                403,
                false,
            ),
            (
                G::ContentSha256Mismatch,
                "XAmzContentSHA256Mismatch",
                400,
                false,
            ),
            (G::QuotaExceeded, "QuotaExceeded", 403, false),
            (
                G::Body("connection reset".into()),
                "IncompleteBody",
                400,
                false,
            ),
            (G::RequestTimeout, "RequestTimeout", 400, false),
            (G::Corrupt(secret.into()), "InternalError", 500, true),
            (G::Store(StoreError::Timeout), "SlowDown", 503, false),
            (G::KeyServiceUnavailable, "ServiceUnavailable", 503, false),
            (
                G::Store(StoreError::Unavailable(secret.into())),
                "ServiceUnavailable",
                503,
                false,
            ),
            (
                G::Store(StoreError::TooLarge { limit: 1 << 30 }),
                "EntityTooLarge",
                400,
                false,
            ),
            (
                G::Store(StoreError::Full(rsgw_store::Fullness::Quota)),
                "InsufficientStorage",
                507,
                false,
            ),
            (
                G::Store(StoreError::NoSuchPool(secret.into())),
                "InternalError",
                500,
                true,
            ),
            (G::Store(StoreError::NotFound), "InternalError", 500, true),
            (G::Store(StoreError::Exists), "InternalError", 500, true),
            (
                G::Store(StoreError::GuardFailed(secret.into())),
                "InternalError",
                500,
                true,
            ),
            (
                G::Store(StoreError::InvalidArgument(secret.into())),
                "InternalError",
                500,
                true,
            ),
            (
                G::Store(StoreError::Io(secret.into())),
                "InternalError",
                500,
                true,
            ),
        ]
    }

    /// A 304 names the current version, as AWS's does.
    #[test]
    fn not_modified_carries_etag_and_last_modified() {
        let e = to_s3(GatewayError::NotModified {
            etag: "abc".into(),
            mtime: 784_111_777.9,
        });
        let h = e.headers().expect("headers");
        assert_eq!(h.get(http::header::ETAG).expect("etag"), "\"abc\"");
        assert_eq!(
            h.get(http::header::LAST_MODIFIED).expect("last-modified"),
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
    }

    #[test]
    fn every_gateway_error_has_the_s3_code_and_status_aws_documents() {
        let table = table();
        let names: BTreeSet<&str> = table.iter().map(|(e, ..)| variant(e)).collect();
        assert_eq!(names.len(), table.len(), "a variant has two rows");
        assert_eq!(names.len(), VARIANTS, "a variant has no row");
        for (e, code, status, _) in table {
            let name = variant(&e);
            let s3 = to_s3(e);
            assert_eq!(s3.code().as_str(), code, "{name}");
            assert_eq!(s3.status_code().map(|s| s.as_u16()), Some(status), "{name}");
            // and s3s renders it with that status
            let resp = s3.to_http_response().expect("renders");
            assert_eq!(resp.status().as_u16(), status, "{name}: rendered");
        }
    }

    #[test]
    fn messages_explain_client_errors_and_hide_internal_ones() {
        for (e, _, _, internal) in table() {
            let name = variant(&e);
            let text = e.to_string();
            let s3 = to_s3(e);
            let message = s3.message().expect("every error has a message");
            if internal {
                assert_eq!(message, INTERNAL, "{name}");
                assert!(!message.contains("/var/lib"), "{name} leaks its detail");
            } else {
                assert_eq!(message, text, "{name}");
            }
        }
        // the detail a client needs is in its message
        let s3 = to_s3(GatewayError::InvalidPart(7));
        assert_eq!(
            s3.message(),
            Some("part 7 could not be found or its ETag does not match")
        );
    }

    /// An error with a given text and an optional cause, standing in for
    /// the decoders and layers that wrap a body error.
    #[derive(Debug)]
    struct Wrapped(&'static str, Option<Box<dyn Error + Send + Sync>>);

    impl fmt::Display for Wrapped {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl Error for Wrapped {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            self.1.as_deref().map(|e| e as &(dyn Error + 'static))
        }
    }

    fn wrap(text: &'static str, cause: impl Error + Send + Sync + 'static) -> Wrapped {
        Wrapped(text, Some(Box::new(cause)))
    }

    fn io(kind: std::io::ErrorKind, text: &'static str) -> std::io::Error {
        std::io::Error::new(kind, text)
    }

    #[test]
    fn body_errors_are_classified_along_their_causes() {
        use std::io::ErrorKind::{ConnectionReset, Other, TimedOut, UnexpectedEof};
        const CHUNK_SIG: &str = "AwsChunkedStreamError: SignatureMismatch";
        const SHA256: &str = "UploadStreamError: Sha256Mismatch";
        type Row = (
            &'static str,
            Box<dyn Error + Send + Sync>,
            &'static str,
            &'static str,
        );
        let table: Vec<Row> = vec![
            (
                "the frontend's idle timeout",
                Box::new(io(TimedOut, "no body bytes for 1000 ms")),
                "RequestTimeout",
                "RequestTimeout",
            ),
            (
                "the timeout under a wrapper",
                Box::new(wrap("decoder failed", io(TimedOut, "idle"))),
                "RequestTimeout",
                "RequestTimeout",
            ),
            (
                "the timeout two wrappers down",
                Box::new(wrap("hyper", wrap("decoder", io(TimedOut, "idle")))),
                "RequestTimeout",
                "RequestTimeout",
            ),
            (
                "a reset connection",
                Box::new(io(ConnectionReset, "connection reset by peer")),
                "Body(\"connection reset by peer\")",
                "IncompleteBody",
            ),
            (
                "an early end",
                Box::new(io(UnexpectedEof, "eof")),
                "Body(\"eof\")",
                "IncompleteBody",
            ),
            (
                "a wrapped io error of another kind",
                Box::new(wrap("read failed", io(Other, "broken pipe"))),
                "Body(\"read failed\")",
                "IncompleteBody",
            ),
            (
                "a bad chunk signature",
                Box::new(Wrapped(CHUNK_SIG, None)),
                "BodySignatureMismatch",
                "SignatureDoesNotMatch",
            ),
            (
                "a body that does not hash to x-amz-content-sha256",
                Box::new(Wrapped(SHA256, None)),
                "ContentSha256Mismatch",
                "XAmzContentSHA256Mismatch",
            ),
            (
                "a decoder failure under a wrapper",
                Box::new(wrap("stream failed", Wrapped(SHA256, None))),
                "ContentSha256Mismatch",
                "XAmzContentSHA256Mismatch",
            ),
            (
                "other decoder failures",
                Box::new(Wrapped("UploadStreamError: Incomplete", None)),
                "Body(\"UploadStreamError: Incomplete\")",
                "IncompleteBody",
            ),
            (
                "a chunk format error",
                Box::new(Wrapped("AwsChunkedStreamError: FormatError", None)),
                "Body(\"AwsChunkedStreamError: FormatError\")",
                "IncompleteBody",
            ),
            (
                "the decoder texts compare whole, not as prefixes",
                Box::new(Wrapped("AwsChunkedStreamError: SignatureMismatch!", None)),
                "Body(\"AwsChunkedStreamError: SignatureMismatch!\")",
                "IncompleteBody",
            ),
        ];
        for (why, e, classified, code) in table {
            let g = body_error(e.as_ref());
            assert_eq!(format!("{g:?}"), classified, "{why}");
            let s3 = to_s3(g);
            assert_eq!(s3.code().as_str(), code, "{why}");
            assert_eq!(
                s3.status_code().map(|s| s.as_u16()),
                Some(if code == "SignatureDoesNotMatch" {
                    403
                } else {
                    400
                }),
                "{why}"
            );
        }
    }

    #[test]
    fn decoder_failures_are_told_by_their_whole_text() {
        let table = [
            (
                "AwsChunkedStreamError: SignatureMismatch",
                Some(DecoderFailure::ChunkSignature),
            ),
            (
                "UploadStreamError: Sha256Mismatch",
                Some(DecoderFailure::PayloadHash),
            ),
            ("AwsChunkedStreamError: Incomplete", None),
            ("UploadStreamError: LengthMismatch", None),
            ("SignatureMismatch", None),
            ("", None),
        ];
        for (text, want) in table {
            assert_eq!(decoder_failure(&Wrapped(text, None)), want, "{text:?}");
        }
    }
}
