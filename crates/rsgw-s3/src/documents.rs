//! The documents a request sends whole (DeleteObjects' list of keys, the
//! XML of tagging, ACLs, CORS, lifecycle, websites, CompleteMultipartUpload,
//! a policy's JSON) and the digests that come with them: s3s parses the
//! document but checks no `Content-MD5` or `x-amz-checksum-*` of it, so a
//! document sent with one is checked as s3s reads it, after the request
//! was verified and authorized, and refused before anything acts on it
//! when a digest is not its own (`400 BadDigest`, as AWS answers).

use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::Frame;
use s3s::{Body, StdError};

use crate::checksums::{DigestError, DocumentDigests};

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

/// Whether a request sends a document s3s parses whole (DeleteObjects,
/// PutBucketTagging, CompleteMultipartUpload...) with a digest of it
/// (`Content-MD5`, `x-amz-checksum-*`): s3s checks none, so the document
/// is checked as s3s reads it ([`check_as_read`]).
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

/// What a document's digests turned out to be, once s3s has read it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Verdict(Arc<OnceLock<DigestError>>);

impl Verdict {
    /// The S3 error to answer instead of s3s' if a digest was not the
    /// document's own (s3s then failed reading it, and nothing acted on
    /// it).
    pub(crate) fn refusal(&self) -> Option<(http::StatusCode, &'static str, String)> {
        self.0.get().map(DigestError::s3)
    }
}

/// Has the document of a request that sends one with a digest
/// ([`sends_digested_document`]) checked as s3s reads it, which s3s does
/// only for a request it verified and authorized: nothing is buffered for
/// one refused before. A `Content-MD5` that is no MD5 is refused at once.
pub(crate) fn check_as_read(
    req: &mut http::Request<Body>,
) -> Result<Option<Verdict>, (http::StatusCode, &'static str, String)> {
    if !sends_digested_document(req) {
        return Ok(None);
    }
    let digests = DocumentDigests::new(req.headers()).map_err(|e| e.s3())?;
    let verdict = Verdict::default();
    let inner = std::mem::take(req.body_mut());
    *req.body_mut() = Body::http_body(Checked {
        inner,
        digests: Some(digests),
        verdict: verdict.clone(),
    });
    Ok(Some(verdict))
}

/// A document's body that feeds its digests as it is read and fails its
/// end when one is not its own.
struct Checked {
    inner: Body,
    /// Until the end is read.
    digests: Option<DocumentDigests>,
    verdict: Verdict,
}

impl http_body::Body for Checked {
    type Data = Bytes;
    type Error = StdError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, StdError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(data), Some(d)) = (frame.data_ref(), this.digests.as_mut()) {
                    d.update(data);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => match this.digests.take().map(DocumentDigests::finish) {
                Some(Err(e)) => {
                    let _ = this.verdict.0.set(e.clone());
                    Poll::Ready(Some(Err(Box::new(e))))
                }
                _ => Poll::Ready(None),
            },
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        // the end must be polled, for the verdict
        self.digests.is_none() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DeleteObjects with `header: value` and `body`, read whole as s3s
    /// reads it: what reading gave, and the verdict.
    async fn read(header: &str, value: &str, body: &'static [u8]) -> (bool, Option<&'static str>) {
        let mut req = http::Request::builder()
            .method("POST")
            .uri("/b?delete")
            .header(header, value)
            .body(Body::from(Bytes::from_static(body)))
            .expect("request");
        let verdict = check_as_read(&mut req).expect("a digest").expect("checked");
        let body = std::mem::take(req.body_mut());
        let read = http_body_util::BodyExt::collect(body).await.is_ok();
        (read, verdict.refusal().map(|(_, code, _)| code))
    }

    #[tokio::test]
    async fn documents_are_checked_as_they_are_read() {
        // MD5 and CRC-32 of "hello world"
        let (md5, crc) = ("XrY7u+Ae7tCTyyK7j1rNww==", "DUoRhQ==");
        assert_eq!(read("content-md5", md5, b"hello world").await, (true, None));
        assert_eq!(
            read("x-amz-checksum-crc32", crc, b"hello world").await,
            (true, None)
        );
        assert_eq!(
            read("content-md5", md5, b"hello world!").await,
            (false, Some("BadDigest"))
        );
        assert_eq!(
            read("x-amz-checksum-crc32", crc, b"hello").await,
            (false, Some("BadDigest"))
        );
        // a Content-MD5 that is no MD5: refused before anything is read
        let mut req = http::Request::builder()
            .method("POST")
            .uri("/b?delete")
            .header("content-md5", "AAAA")
            .body(Body::empty())
            .expect("request");
        let refused = check_as_read(&mut req).expect_err("no MD5");
        assert_eq!(refused.1, "InvalidDigest");
    }

    #[test]
    fn documents_with_a_digest_are_told_by_method_and_subresource() {
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
