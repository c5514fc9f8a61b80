//! What gateway operations can fail with, each mapped to one S3 error code.

use rsgw_radosgw::zone::ZoneError;
use rsgw_store::StoreError;

/// Result of a gateway operation.
pub type GatewayResult<T> = Result<T, GatewayError>;

/// A gateway failure. The S3 layer maps each variant to its S3 error code
/// and HTTP status.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The bucket does not exist.
    #[error("the specified bucket does not exist")]
    NoSuchBucket,
    /// The object does not exist.
    #[error("the specified key does not exist")]
    NoSuchKey,
    /// The object has no such version.
    #[error("the specified version does not exist")]
    NoSuchVersion,
    /// The version read is a delete marker: the key reads as deleted
    /// (`NoSuchKey`), or, read by its version id, a marker has no data
    /// (`MethodNotAllowed`). Either answer names the marker.
    #[error("{}", if *by_version { "the specified method is not allowed against this resource" } else { "the specified key does not exist" })]
    DeleteMarker {
        /// The marker's version id (`null` too).
        version_id: String,
        /// When it was made, seconds since the epoch.
        mtime: f64,
        /// Whether the request named the marker by its version id.
        by_version: bool,
    },
    /// Another user owns a bucket of that name.
    #[error("the requested bucket name is not available")]
    BucketAlreadyExists,
    /// The caller already owns the bucket.
    #[error("you already own this bucket")]
    BucketAlreadyOwnedByYou,
    /// The bucket still holds objects.
    #[error("the bucket you tried to delete is not empty")]
    BucketNotEmpty,
    /// The bucket name breaks S3's naming rules.
    #[error("invalid bucket name: {0}")]
    InvalidBucketName(String),
    /// The object key is not acceptable.
    #[error("invalid object key: {0}")]
    InvalidKey(String),
    /// The object key is longer than S3's 1024 bytes.
    #[error(
        "your key is too long (at most {} bytes)",
        crate::model::limits::MAX_KEY_BYTES
    )]
    KeyTooLong,
    /// A change would make a bucket's record longer than it may be.
    #[error(
        "the bucket's configuration would take {size} bytes; its policy, lifecycle, CORS, website, tags and ACL may take {max} bytes together"
    )]
    BucketRecordTooLarge {
        /// The record's length with the change, in bytes.
        size: usize,
        /// The most it may take (`s3.max_bucket_record_bytes`).
        max: usize,
    },
    /// The caller may not do this.
    #[error("access denied")]
    AccessDenied,
    /// Content-MD5 (or another digest) does not match the body.
    #[error("the Content-MD5 you specified did not match what we received")]
    BadDigest,
    /// An `x-amz-checksum-*` value does not match the body.
    #[error("{0}")]
    BadChecksum(String),
    /// The body is larger than allowed.
    #[error("your proposed upload exceeds the maximum allowed size")]
    EntityTooLarge,
    /// The write would pass a user's or bucket's quota.
    #[error("the quota of the bucket or of its owner would be exceeded")]
    QuotaExceeded,
    /// The body ended before its declared length.
    #[error("you did not provide the number of bytes specified by the Content-Length header")]
    IncompleteBody,
    /// A precondition (If-Match and friends) failed.
    #[error("at least one of the preconditions you specified did not hold")]
    PreconditionFailed,
    /// If-None-Match / If-Modified-Since: the client's copy is current. The
    /// 304 names the current version (ETag, Last-Modified), as AWS's does.
    #[error("not modified")]
    NotModified {
        /// The object's ETag, unquoted.
        etag: String,
        /// Its last modification, seconds since the epoch.
        mtime: f64,
    },
    /// The range cannot be satisfied.
    #[error("the requested range is not satisfiable")]
    InvalidRange,
    /// The object has no such part (`partNumber`).
    #[error("the requested partnumber is not satisfiable")]
    InvalidPartNumber,
    /// A request argument is invalid.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The multipart upload does not exist (or belongs to another key).
    #[error("the specified upload does not exist")]
    NoSuchUpload,
    /// A listed part is missing or its ETag differs.
    #[error("part {0} could not be found or its ETag does not match")]
    InvalidPart(u32),
    /// Parts were not listed in ascending order.
    #[error("the list of parts was not in ascending order")]
    InvalidPartOrder,
    /// A part other than the last is below the minimum part size.
    #[error("your proposed upload is smaller than the minimum allowed size")]
    EntityTooSmall,
    /// The request is not allowed as made.
    #[error("{0}")]
    InvalidRequest(String),
    /// A bucket policy document is not valid; the text says why.
    #[error("{0}")]
    MalformedPolicy(String),
    /// A tag set breaks S3's rules; the text says which.
    #[error("{0}")]
    InvalidTag(String),
    /// The bucket has no CORS configuration.
    #[error("the CORS configuration does not exist")]
    NoSuchCorsConfiguration,
    /// The bucket has no policy.
    #[error("the bucket policy does not exist")]
    NoSuchBucketPolicy,
    /// The bucket has no website configuration.
    #[error("the specified bucket does not have a website configuration")]
    NoSuchWebsiteConfiguration,
    /// The bucket has no lifecycle configuration.
    #[error("the lifecycle configuration does not exist")]
    NoSuchLifecycleConfiguration,
    /// The bucket has no tags.
    #[error("the TagSet does not exist")]
    NoSuchTagSet,
    /// A request body's XML is not what the operation takes.
    #[error("malformed XML: {0}")]
    MalformedXml(String),
    /// No such user (admin operations).
    #[error("user '{0}' does not exist")]
    NoSuchUser(String),
    /// The user id is taken (admin operations).
    #[error("user '{0}' already exists")]
    UserExists(String),
    /// The access key is taken (admin operations).
    #[error("access key '{0}' is already in use")]
    KeyExists(String),
    /// Another user has this e-mail address (admin operations).
    #[error("{0} is the email address of an existing user")]
    EmailExists(String),
    /// An ACL grant names an e-mail address no user has.
    #[error("the e-mail address you provided does not match any account on record")]
    UnresolvableEmail(String),
    /// An ACL holds more grants than one may.
    #[error(
        "the request is rejected, because the acl grants number you requested is larger than the maximum {} grants allowed in an acl",
        crate::model::limits::MAX_ACL_GRANTS
    )]
    TooManyGrants,
    /// The user still owns buckets (admin operations).
    #[error("user '{0}' still owns buckets")]
    UserHasBuckets(String),
    /// A user cap radosgw would not know (admin operations).
    #[error("invalid capability {0}")]
    InvalidCap(String),
    /// The user owns as many buckets as their `max_buckets` allows.
    #[error("you have attempted to create more buckets than allowed")]
    TooManyBuckets,
    /// The user is suspended: no request of theirs is served.
    #[error("the user is suspended")]
    UserSuspended,
    /// A chunk signature of a signed streaming body did not verify.
    #[error("the request signature we calculated does not match the signature you provided")]
    BodySignatureMismatch,
    /// The body does not hash to its declared `x-amz-content-sha256`.
    #[error("the provided 'x-amz-content-sha256' header does not match what was computed")]
    ContentSha256Mismatch,
    /// Reading the request body failed.
    #[error("reading the request body failed: {0}")]
    Body(String),
    /// The client stopped sending the request body for longer than the
    /// frontend waits (`request_timeout_ms`).
    #[error(
        "your socket connection to the server was not read from or written to within the timeout period"
    )]
    RequestTimeout,
    /// A customer key (SSE-C) other than the one the object or upload was
    /// encrypted with.
    #[error("the SSE-C key you provided does not match the key the object was encrypted with")]
    SseKeyMismatch,
    /// The bucket's state forbids the request (suspending versioning, or
    /// configuring object lock, in a bucket made without object lock).
    #[error("{0}")]
    InvalidBucketState(String),
    /// The bucket has no object lock (GetObjectLockConfiguration).
    #[error("object lock configuration does not exist for this bucket")]
    NoObjectLockConfiguration,
    /// The version has no retention, or no legal hold
    /// (GetObjectRetention, GetObjectLegalHold).
    #[error("the specified object does not have an ObjectLock configuration")]
    NoSuchObjectLockConfiguration,
    /// A default retention of no days or years
    /// (PutObjectLockConfiguration).
    #[error("{0}")]
    InvalidRetentionPeriod(String),
    /// A retention or legal hold forbids the request; the text says which.
    #[error("{0}")]
    ObjectLocked(String),
    /// The bucket has no default encryption.
    #[error("the server side encryption configuration was not found")]
    NoSuchEncryptionConfiguration,
    /// The operator has not configured what the request needs (a key
    /// backend, a master key).
    #[error("{0}")]
    NotConfigured(String),
    /// The key server (KMIP) holding an SSE-KMS key could not be reached
    /// or failed; the detail is in the gateway's log, not the answer.
    #[error("the key management service is unavailable; please try again")]
    KeyServiceUnavailable,
    /// The store's layout format is newer than this rsgw reads.
    #[error(
        "the store holds layout format {stored} (written by {written_by}); this rsgw reads formats up to {known}: run a release that knows format {stored} (docs/layout.md#format)"
    )]
    NewerFormat {
        /// The store's format.
        stored: u32,
        /// Who recorded it.
        written_by: String,
        /// The newest format this rsgw reads.
        known: u32,
    },
    /// Stored metadata could not be decoded.
    #[error("corrupt metadata: {0}")]
    Corrupt(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the radosgw zone reader answered, as S3 says it: an unknown
/// access key is refused as rsgw's own are, what the reader does not
/// serve is named in a `NotConfigured`, a record that does not decode is
/// corrupt metadata.
impl From<ZoneError> for GatewayError {
    fn from(e: ZoneError) -> Self {
        match e {
            ZoneError::NoSuchKey(_) => GatewayError::AccessDenied,
            ZoneError::NoSuchUser(u) => GatewayError::NoSuchUser(u),
            ZoneError::NoSuchBucket(_) => GatewayError::NoSuchBucket,
            ZoneError::NoSuchObject(_) => GatewayError::NoSuchKey,
            ZoneError::NoSuchUpload(_) => GatewayError::NoSuchUpload,
            ZoneError::PreconditionFailed(_) => GatewayError::PreconditionFailed,
            ZoneError::NoSuchZone(_) | ZoneError::Unsupported(_) | ZoneError::Watch { .. } => {
                GatewayError::NotConfigured(e.to_string())
            }
            ZoneError::Decode { .. } => GatewayError::Corrupt(e.to_string()),
            ZoneError::Store(s) => GatewayError::Store(s),
        }
    }
}

impl From<serde_json::Error> for GatewayError {
    fn from(e: serde_json::Error) -> Self {
        GatewayError::Corrupt(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readers_errors_keep_their_meaning() {
        assert!(matches!(
            GatewayError::from(ZoneError::NoSuchKey("AK".into())),
            GatewayError::AccessDenied
        ));
        assert!(matches!(
            GatewayError::from(ZoneError::NoSuchBucket("b".into())),
            GatewayError::NoSuchBucket
        ));
        match GatewayError::from(ZoneError::Unsupported(
            "bucket b is versioned (Enabled)".into(),
        )) {
            GatewayError::NotConfigured(m) => assert!(m.contains("versioned"), "{m}"),
            e => panic!("{e:?}"),
        }
    }
}
