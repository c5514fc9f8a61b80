//! Requests rsgw cannot honour and must not ignore, refused before any
//! operation runs (s3s' access hook calls [`refuse`]): a client that sent
//! one of these headers believes something about its data (encrypted by a
//! request that encrypts nothing, locked by a request that locks nothing,
//! granted to someone by a request that sets no ACL, in another storage
//! class) that would not be
//! true, so the answer is an error naming the header, never a silent 200.
//! And DELETE on a bucket subresource S3 has no delete for, which s3s would
//! route to DeleteBucket. And, on radosgw's layout, every operation but
//! the ones it serves ([`refuse_on_radosgw`]).

use s3s::{S3Result, s3_error};

use crate::operation::S3Op;

/// Bucket subresources without a DELETE in S3 that s3s routes, on DELETE,
/// to DeleteBucket (the ones with a DELETE have operations of their own).
const NO_DELETE: &[&str] = &[
    "acl",
    "accelerate",
    "location",
    "logging",
    "notification",
    "object-lock",
    "policyStatus",
    "requestPayment",
    "uploads",
    "versioning",
    "versions",
];

/// The operations that take `x-amz-grant-*` headers (the ACL of what they
/// make or change); on any other the headers would mean nothing.
const GRANTING: &[S3Op] = &[
    S3Op::CreateBucket,
    S3Op::PutBucketAcl,
    S3Op::PutObject,
    S3Op::PutObjectAcl,
    S3Op::CopyObject,
    S3Op::CreateMultipartUpload,
];

/// The operations that take `x-amz-server-side-encryption` and its
/// companions (KMS key id, context, bucket key): the writes that make an
/// object.
const ENCRYPTING: &[S3Op] = &[
    S3Op::PutObject,
    S3Op::CopyObject,
    S3Op::CreateMultipartUpload,
];

/// The operations that take `x-amz-object-lock-*` headers (the lock of
/// the object they make).
const LOCKING: &[S3Op] = &[
    S3Op::PutObject,
    S3Op::CopyObject,
    S3Op::CreateMultipartUpload,
];

/// The operations that take an SSE-C key
/// (`x-amz-server-side-encryption-customer-*`): the writes, and the reads
/// of what they wrote.
const CUSTOMER_KEYED: &[S3Op] = &[
    S3Op::PutObject,
    S3Op::CopyObject,
    S3Op::CreateMultipartUpload,
    S3Op::UploadPart,
    S3Op::UploadPartCopy,
    S3Op::CompleteMultipartUpload,
    S3Op::GetObject,
    S3Op::HeadObject,
];

/// The operations that take a copy source's SSE-C key
/// (`x-amz-copy-source-server-side-encryption-customer-*`).
const SOURCE_KEYED: &[S3Op] = &[S3Op::CopyObject, S3Op::UploadPartCopy];

/// Which operations take an encryption header, by its name.
fn encryption_takers(name: &str) -> Option<&'static [S3Op]> {
    if name.starts_with("x-amz-copy-source-server-side-encryption") {
        Some(SOURCE_KEYED)
    } else if name.starts_with("x-amz-server-side-encryption-customer-") {
        Some(CUSTOMER_KEYED)
    } else if name.starts_with("x-amz-server-side-encryption") {
        Some(ENCRYPTING)
    } else {
        None
    }
}

/// The operations a gateway on radosgw's layout serves: reads of buckets,
/// listings and objects from radosgw's records, objects put whole
/// (CopyObject too: a read and a put) and removed (one or many at a time)
/// as radosgw writes them, objects' tags and ACLs and buckets' ACLs,
/// policies, CORS rules and tags set, and multipart uploads as radosgw
/// takes them.
const RADOSGW_SERVED: &[S3Op] = &[
    S3Op::ListBuckets,
    S3Op::HeadBucket,
    S3Op::GetBucketLocation,
    S3Op::GetBucketAcl,
    S3Op::GetBucketPolicy,
    S3Op::GetBucketPolicyStatus,
    S3Op::GetBucketCors,
    S3Op::GetBucketWebsite,
    S3Op::PreflightCors,
    S3Op::ListObjects,
    S3Op::ListObjectsV2,
    S3Op::GetObject,
    S3Op::GetObjectAcl,
    S3Op::HeadObject,
    S3Op::PutObject,
    S3Op::CopyObject,
    S3Op::DeleteObject,
    S3Op::DeleteObjects,
    S3Op::PutObjectAcl,
    S3Op::GetObjectTagging,
    S3Op::PutObjectTagging,
    S3Op::DeleteObjectTagging,
    S3Op::PutBucketAcl,
    S3Op::PutBucketPolicy,
    S3Op::DeleteBucketPolicy,
    S3Op::PutBucketCors,
    S3Op::DeleteBucketCors,
    S3Op::GetBucketTagging,
    S3Op::PutBucketTagging,
    S3Op::DeleteBucketTagging,
    S3Op::CreateMultipartUpload,
    S3Op::UploadPart,
    S3Op::UploadPartCopy,
    S3Op::ListParts,
    S3Op::CompleteMultipartUpload,
    S3Op::AbortMultipartUpload,
    S3Op::ListMultipartUploads,
];

/// On radosgw's layout, refuses every operation but [`RADOSGW_SERVED`]
/// with `501 NotImplemented`, before anything runs: of radosgw's records
/// this gateway writes only objects (put whole, in parts, or removed).
pub(crate) fn refuse_on_radosgw(op: S3Op) -> S3Result<()> {
    if RADOSGW_SERVED.contains(&op) {
        return Ok(());
    }
    Err(s3_error!(
        NotImplemented,
        "on radosgw's layout this gateway serves reads, PutObject, CopyObject, DeleteObject(s), Put/DeleteObjectTagging, PutObjectAcl, PutBucketAcl, Put/DeleteBucketPolicy, Put/DeleteBucketCors, Put/DeleteBucketTagging and multipart uploads: {} is not served (send it to radosgw)",
        op.name()
    ))
}

/// Refuses, in this order: DELETE of a subresource that has none (405),
/// encryption headers on an operation that does not take them, object
/// lock headers on one that does not, ACL grant headers on an operation that sets no ACL, website
/// redirects, object ownership other than the writer's, and storage
/// classes other than STANDARD.
pub(crate) fn refuse(op: S3Op, query: Option<&str>, headers: &http::HeaderMap) -> S3Result<()> {
    if op == S3Op::DeleteBucket
        && let Some(sub) = query.and_then(|q| {
            q.split('&')
                .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
                .find(|k| NO_DELETE.contains(k))
        })
    {
        let mut err = s3_error!(
            MethodNotAllowed,
            "The specified method is not allowed against this resource: there is no DELETE of ?{sub}"
        );
        err.set_status_code(http::StatusCode::METHOD_NOT_ALLOWED);
        return Err(err);
    }
    let header = |prefix: &str| {
        headers
            .keys()
            .map(http::HeaderName::as_str)
            .find(|n| n.starts_with(prefix))
    };
    if let Some(name) = headers
        .keys()
        .map(http::HeaderName::as_str)
        .find(|n| encryption_takers(n).is_some_and(|takers| !takers.contains(&op)))
    {
        return Err(s3_error!(
            InvalidArgument,
            "{name} does not apply to {}: it encrypts the object a write makes, or reads one",
            op.name()
        ));
    }
    if !LOCKING.contains(&op)
        && let Some(name) = header("x-amz-object-lock-")
    {
        return Err(s3_error!(
            InvalidRequest,
            "{name} locks the object a write makes, which only PutObject, CopyObject and CreateMultipartUpload do"
        ));
    }
    let value = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if !GRANTING.contains(&op)
        && let Some(name) = header("x-amz-grant-")
    {
        return Err(s3_error!(
            InvalidRequest,
            "{name} sets an ACL, which only CreateBucket, PutObject, CopyObject, CreateMultipartUpload and Put*Acl do"
        ));
    }
    if header("x-amz-website-redirect-location").is_some() {
        return Err(s3_error!(
            NotImplemented,
            "Website redirects are not implemented by rsgw: a request with x-amz-website-redirect-location is refused"
        ));
    }
    match value("x-amz-object-ownership") {
        None | Some("ObjectWriter") => {}
        Some(v @ ("BucketOwnerPreferred" | "BucketOwnerEnforced")) => {
            return Err(s3_error!(
                NotImplemented,
                "Object ownership {v} is not implemented by rsgw: objects belong to their writer (ObjectWriter)"
            ));
        }
        Some(_) => {
            return Err(s3_error!(
                InvalidArgument,
                "x-amz-object-ownership is ObjectWriter, BucketOwnerPreferred or BucketOwnerEnforced"
            ));
        }
    }
    match value("x-amz-storage-class") {
        None | Some("STANDARD") => Ok(()),
        Some(_) => {
            let mut err = s3_error!(
                InvalidStorageClass,
                "The storage class you specified is not valid: rsgw stores every object as STANDARD"
            );
            err.set_status_code(http::StatusCode::BAD_REQUEST);
            Err(err)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> http::HeaderMap {
        pairs
            .iter()
            .map(|&(k, v)| {
                (
                    http::HeaderName::from_static(k),
                    http::HeaderValue::from_static(v),
                )
            })
            .collect()
    }

    fn code(op: S3Op, query: Option<&str>, h: &[(&'static str, &'static str)]) -> Option<String> {
        refuse(op, query, &headers(h)).err().map(|e| {
            format!(
                "{} {}",
                e.code().as_str(),
                e.status_code().map_or(0, |s| s.as_u16())
            )
        })
    }

    /// Operation, query, headers, the refusal ("Code status") if any.
    type Case = (
        S3Op,
        Option<&'static str>,
        &'static [(&'static str, &'static str)],
        Option<&'static str>,
    );

    #[test]
    fn what_rsgw_cannot_honour_is_refused() {
        use S3Op::{CreateBucket, DeleteBucket, PutObject, UploadPart};
        let cases: &[Case] = &[
            (PutObject, None, &[], None),
            (
                PutObject,
                None,
                &[("x-amz-storage-class", "STANDARD")],
                None,
            ),
            (
                PutObject,
                None,
                &[("x-amz-storage-class", "GLACIER")],
                Some("InvalidStorageClass 400"),
            ),
            (
                PutObject,
                None,
                &[("x-amz-server-side-encryption", "AES256")],
                None,
            ),
            (
                UploadPart,
                None,
                &[("x-amz-server-side-encryption", "AES256")],
                Some("InvalidArgument 400"),
            ),
            (
                PutObject,
                None,
                &[("x-amz-object-lock-mode", "GOVERNANCE")],
                None,
            ),
            (
                UploadPart,
                None,
                &[("x-amz-object-lock-mode", "GOVERNANCE")],
                Some("InvalidRequest 400"),
            ),
            (PutObject, None, &[("x-amz-grant-read", "uri=x")], None),
            (
                UploadPart,
                None,
                &[("x-amz-grant-read", "id=bob")],
                Some("InvalidRequest 400"),
            ),
            (
                PutObject,
                None,
                &[("x-amz-website-redirect-location", "/x")],
                Some("NotImplemented 501"),
            ),
            (
                CreateBucket,
                None,
                &[("x-amz-bucket-object-lock-enabled", "false")],
                None,
            ),
            (
                CreateBucket,
                None,
                &[("x-amz-bucket-object-lock-enabled", "true")],
                None,
            ),
            (
                CreateBucket,
                None,
                &[("x-amz-object-ownership", "ObjectWriter")],
                None,
            ),
            (
                CreateBucket,
                None,
                &[("x-amz-object-ownership", "BucketOwnerEnforced")],
                Some("NotImplemented 501"),
            ),
            (
                CreateBucket,
                None,
                &[("x-amz-object-ownership", "Nobody")],
                Some("InvalidArgument 400"),
            ),
            (DeleteBucket, None, &[], None),
            (DeleteBucket, Some("x-id=DeleteBucket"), &[], None),
            (
                DeleteBucket,
                Some("versioning"),
                &[],
                Some("MethodNotAllowed 405"),
            ),
            (
                DeleteBucket,
                Some("a=b&object-lock="),
                &[],
                Some("MethodNotAllowed 405"),
            ),
            (PutObject, Some("versioning"), &[], None),
        ];
        for (op, q, h, want) in cases {
            assert_eq!(code(*op, *q, h).as_deref(), *want, "{op:?} {q:?} {h:?}");
        }
    }

    /// Each encryption header on the operations that take it, and on one
    /// that does not (where it would be ignored).
    #[test]
    fn encryption_headers_go_where_they_mean_something() {
        use S3Op::*;
        let table: &[(&str, &[S3Op], S3Op)] = &[
            ("x-amz-server-side-encryption", ENCRYPTING, UploadPart),
            (
                "x-amz-server-side-encryption-aws-kms-key-id",
                ENCRYPTING,
                GetObject,
            ),
            (
                "x-amz-server-side-encryption-context",
                ENCRYPTING,
                HeadObject,
            ),
            (
                "x-amz-server-side-encryption-bucket-key-enabled",
                ENCRYPTING,
                UploadPart,
            ),
            (
                "x-amz-server-side-encryption-customer-algorithm",
                CUSTOMER_KEYED,
                PutObjectAcl,
            ),
            (
                "x-amz-server-side-encryption-customer-key",
                CUSTOMER_KEYED,
                GetObjectTagging,
            ),
            (
                "x-amz-server-side-encryption-customer-key-md5",
                CUSTOMER_KEYED,
                DeleteObject,
            ),
            (
                "x-amz-copy-source-server-side-encryption-customer-algorithm",
                SOURCE_KEYED,
                PutObject,
            ),
            (
                "x-amz-copy-source-server-side-encryption-customer-key",
                SOURCE_KEYED,
                GetObject,
            ),
        ];
        for (name, takers, other) in table {
            let mut h = http::HeaderMap::new();
            h.insert(
                http::HeaderName::from_static(name),
                http::HeaderValue::from_static("x"),
            );
            for op in *takers {
                assert!(refuse(*op, None, &h).is_ok(), "{name} on {op:?}");
            }
            let e = refuse(*other, None, &h).expect_err(name);
            assert_eq!(*e.code(), s3s::S3ErrorCode::InvalidArgument, "{name}");
            assert!(e.message().is_some_and(|m| m.contains(name)));
        }
        let mut h = http::HeaderMap::new();
        h.insert(
            "x-amz-meta-server-side-encryption",
            http::HeaderValue::from_static("x"),
        );
        assert!(
            refuse(S3Op::PutObjectAcl, None, &h).is_ok(),
            "user metadata is not a request for SSE"
        );
    }
}
