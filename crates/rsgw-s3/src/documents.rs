//! The documents a request sends whole (DeleteObjects' list of keys, the
//! XML of tagging, ACLs, CORS, lifecycle, websites, CompleteMultipartUpload,
//! a policy's JSON) and the digests that come with them: s3s parses the
//! document but checks no `Content-MD5` or `x-amz-checksum-*` of it, so a
//! document sent with one is read here first and refused, before anything
//! acts on it, when a digest is not its own (`400 BadDigest`, as AWS
//! answers).

use s3s::Body;

use crate::checksums;

/// The query subresources whose PUT or POST carries an XML (or, for
/// `policy`, JSON) document that s3s parses whole.
const DOCUMENT_SUBRESOURCES: [&str; 13] = [
    "acl",
    "cors",
    "delete",
    "encryption",
    "legal-hold",
    "lifecycle",
    "object-lock",
    "policy",
    "retention",
    "tagging",
    "uploadId",
    "versioning",
    "website",
];

/// The most bytes of a document buffered for its digests: s3s' own limit
/// on the XML bodies it parses.
const MAX_DOCUMENT_BYTES: usize = 20 << 20;

/// Whether a request sends a document s3s parses whole (DeleteObjects,
/// PutBucketTagging, CompleteMultipartUpload...) with a digest of it
/// (`Content-MD5`, `x-amz-checksum-*`): s3s checks none, so the document
/// is read here and checked first ([`checksums::check_buffered`]).
pub(crate) fn sends_digested_document(req: &http::Request<Body>) -> bool {
    let method = req.method();
    if method != http::Method::PUT && method != http::Method::POST {
        return false;
    }
    let keys: Vec<&str> = req
        .uri()
        .query()
        .unwrap_or_default()
        .split('&')
        .map(|p| p.split_once('=').map_or(p, |(k, _)| k))
        .collect();
    // UploadPart and UploadPartCopy stream their data, checked as it goes;
    // so does an aws-chunked body, whose bytes are not the document's
    let streamed = req
        .headers()
        .get("x-amz-content-sha256")
        .is_some_and(|v| v.as_bytes().starts_with(b"STREAMING-"));
    let document = !streamed
        && !keys.contains(&"partNumber")
        && keys.iter().any(|k| DOCUMENT_SUBRESOURCES.contains(k));
    document
        && req.headers().keys().any(|k| {
            k == "content-md5"
                || k.as_str().starts_with("x-amz-checksum-") && k != "x-amz-checksum-algorithm"
        })
}

/// Reads and checks the document of a request that sends one with a
/// digest (`sends_digested_document`), leaving it buffered for s3s: its
/// S3 error if a digest is not its own.
pub(crate) async fn check_document_digests(
    req: &mut http::Request<Body>,
) -> Result<(), (http::StatusCode, &'static str, String)> {
    if !sends_digested_document(req) {
        return Ok(());
    }
    let body = req
        .body_mut()
        .store_all_limited(MAX_DOCUMENT_BYTES)
        .await
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                (
                    http::StatusCode::BAD_REQUEST,
                    "MaxMessageLengthExceeded",
                    format!("Your request was too big: documents are at most {MAX_DOCUMENT_BYTES} bytes."),
                )
            } else {
                (
                    http::StatusCode::BAD_REQUEST,
                    "IncompleteBody",
                    "The request body ended before the document did.".to_string(),
                )
            }
        })?;
    checksums::check_buffered(req.headers(), &body).map_err(|e| e.s3())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_with_a_digest_are_checked_before_s3s() {
        let req = |method: &str, uri: &str, header: Option<&str>| {
            let mut b = http::Request::builder().method(method).uri(uri);
            if let Some(h) = header {
                b = b.header(h, "x");
            }
            b.body(Body::empty()).expect("request")
        };
        for (method, uri) in [
            ("POST", "/b?delete"),
            ("POST", "/b?delete="),
            ("PUT", "/b?tagging"),
            ("PUT", "/b/k?acl"),
            ("POST", "/b/k?uploadId=u"),
            ("PUT", "/b?lifecycle"),
        ] {
            for header in [
                "content-md5",
                "x-amz-checksum-crc32",
                "x-amz-checksum-sha256",
            ] {
                assert!(
                    sends_digested_document(&req(method, uri, Some(header))),
                    "{method} {uri} {header}"
                );
            }
            assert!(
                !sends_digested_document(&req(method, uri, None)),
                "{method} {uri}"
            );
            assert!(!sends_digested_document(&req(
                method,
                uri,
                Some("x-amz-checksum-algorithm")
            )));
        }
        let mut chunked = req("POST", "/b?delete", Some("content-md5"));
        chunked.headers_mut().insert(
            "x-amz-content-sha256",
            http::HeaderValue::from_static("STREAMING-UNSIGNED-PAYLOAD-TRAILER"),
        );
        assert!(!sends_digested_document(&chunked));
        // object data streams and is checked as it goes; GETs send nothing
        for (method, uri) in [
            ("PUT", "/b/k"),
            ("PUT", "/b/k?x-id=PutObject"),
            ("PUT", "/b/k?partNumber=1&uploadId=u"),
            ("POST", "/b"),
            ("GET", "/b?tagging"),
            ("DELETE", "/b?tagging"),
        ] {
            assert!(
                !sends_digested_document(&req(method, uri, Some("content-md5"))),
                "{method} {uri}"
            );
        }
    }
}
