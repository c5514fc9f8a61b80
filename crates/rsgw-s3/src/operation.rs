//! The S3 operations rsgw tells apart, as one typed enum: metrics label
//! requests with it, and the access check notes it on each request.

/// Declares [`S3Op`] from the names of the operations rsgw implements,
/// each spelt as s3s (and the S3 API) names it.
macro_rules! operations {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// An S3 operation rsgw serves, or [`S3Op::Other`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum S3Op {
            $($(#[$doc])* $name,)*
            /// Anything else: operations rsgw does not implement, and
            /// requests refused before their operation was known (a bad
            /// signature, admission's `503 SlowDown`, an unroutable method).
            Other,
        }

        impl S3Op {
            /// Every operation, [`S3Op::Other`] last.
            pub const ALL: &'static [S3Op] = &[$(S3Op::$name,)* S3Op::Other];

            /// The operation's name, as S3 and s3s spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $(S3Op::$name => stringify!($name),)*
                    S3Op::Other => "Other",
                }
            }

            /// The operation s3s routed a request to, by s3s' name for it;
            /// one rsgw does not implement is [`S3Op::Other`].
            pub fn from_s3s(name: &str) -> S3Op {
                match name {
                    $(stringify!($name) => S3Op::$name,)*
                    _ => S3Op::Other,
                }
            }
        }
    };
}

operations! {
    /// GET / (the caller's buckets).
    ListBuckets,
    /// PUT /bucket.
    CreateBucket,
    /// HEAD /bucket.
    HeadBucket,
    /// DELETE /bucket.
    DeleteBucket,
    /// GET /bucket?location.
    GetBucketLocation,
    /// GET /bucket?acl.
    GetBucketAcl,
    /// PUT /bucket?acl.
    PutBucketAcl,
    /// GET /bucket?policy.
    GetBucketPolicy,
    /// PUT /bucket?policy.
    PutBucketPolicy,
    /// DELETE /bucket?policy.
    DeleteBucketPolicy,
    /// GET /bucket?policyStatus.
    GetBucketPolicyStatus,
    /// GET /bucket?cors.
    GetBucketCors,
    /// PUT /bucket?cors.
    PutBucketCors,
    /// DELETE /bucket?cors.
    DeleteBucketCors,
    /// OPTIONS /bucket[/key]: a browser's CORS preflight, answered before
    /// s3s (which routes no OPTIONS).
    PreflightCors,
    /// GET /bucket?website.
    GetBucketWebsite,
    /// PUT /bucket?website.
    PutBucketWebsite,
    /// DELETE /bucket?website.
    DeleteBucketWebsite,
    /// Any request to the website endpoint (`bucket.<website name>`),
    /// answered before s3s.
    WebsiteGet,
    /// GET /bucket?tagging.
    GetBucketTagging,
    /// PUT /bucket?tagging.
    PutBucketTagging,
    /// DELETE /bucket?tagging.
    DeleteBucketTagging,
    /// GET /bucket?lifecycle.
    GetBucketLifecycleConfiguration,
    /// PUT /bucket?lifecycle.
    PutBucketLifecycleConfiguration,
    /// DELETE /bucket?lifecycle.
    DeleteBucketLifecycle,
    /// GET /bucket.
    ListObjects,
    /// GET /bucket?list-type=2.
    ListObjectsV2,
    /// GET /bucket?versions.
    ListObjectVersions,
    /// PUT /bucket/key.
    PutObject,
    /// POST /bucket with an HTML form (a browser upload).
    PostObject,
    /// GET /bucket/key.
    GetObject,
    /// HEAD /bucket/key.
    HeadObject,
    /// DELETE /bucket/key.
    DeleteObject,
    /// POST /bucket?delete.
    DeleteObjects,
    /// PUT /bucket/key with x-amz-copy-source.
    CopyObject,
    /// GET /bucket/key?acl.
    GetObjectAcl,
    /// PUT /bucket/key?acl.
    PutObjectAcl,
    /// GET /bucket/key?tagging.
    GetObjectTagging,
    /// PUT /bucket/key?tagging.
    PutObjectTagging,
    /// DELETE /bucket/key?tagging.
    DeleteObjectTagging,
    /// POST /bucket/key?uploads.
    CreateMultipartUpload,
    /// PUT /bucket/key?partNumber&uploadId.
    UploadPart,
    /// PUT /bucket/key?partNumber&uploadId with x-amz-copy-source.
    UploadPartCopy,
    /// POST /bucket/key?uploadId.
    CompleteMultipartUpload,
    /// DELETE /bucket/key?uploadId.
    AbortMultipartUpload,
    /// GET /bucket/key?uploadId.
    ListParts,
    /// GET /bucket?uploads.
    ListMultipartUploads,
}

impl rsgw_frontend::Operation for S3Op {
    fn all() -> &'static [Self] {
        S3Op::ALL
    }

    fn index(self) -> usize {
        self as usize
    }

    fn name(self) -> &'static str {
        S3Op::name(self)
    }

    fn unrouted() -> Self {
        S3Op::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsgw_frontend::Operation as _;

    #[test]
    fn names_round_trip_and_index_the_table() {
        for (i, op) in S3Op::ALL.iter().enumerate() {
            assert_eq!(op.index(), i, "{op:?}");
            if *op != S3Op::Other {
                assert_eq!(S3Op::from_s3s(op.name()), *op);
            }
        }
        assert_eq!(S3Op::from_s3s("PutBucketReplication"), S3Op::Other);
        assert_eq!(S3Op::from_s3s("Other"), S3Op::Other);
    }

    /// Every operation `RsgwS3` implements has a variant of its own, so a
    /// new one cannot fall into `Other` unnoticed: its method's name in
    /// `impl S3 for RsgwS3` (snake case) must name a variant.
    #[test]
    fn every_implemented_operation_is_named() {
        let src = include_str!("ops.rs");
        let body = src
            .split_once("impl S3 for RsgwS3 {")
            .map(|(_, b)| b)
            .expect("impl S3 for RsgwS3 in ops.rs");
        let mut seen = 0;
        for line in body.lines().take_while(|l| *l != "}") {
            let Some(rest) = line.trim_start().strip_prefix("async fn ") else {
                continue;
            };
            let snake: String = rest.chars().take_while(|c| *c != '(').collect();
            let camel: String = snake
                .split('_')
                .map(|w| {
                    let mut c = w.chars();
                    c.next()
                        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                        .unwrap_or_default()
                })
                .collect();
            assert_ne!(
                S3Op::from_s3s(&camel),
                S3Op::Other,
                "RsgwS3::{snake} has no S3Op variant ({camel})"
            );
            seen += 1;
        }
        // Other, and the preflight and website requests answered in front of s3s
        assert_eq!(seen, S3Op::ALL.len() - 3, "every variant is implemented");
    }
}
