//! `x-amz-checksum-*`: computing the checksums a client asks for while the
//! body streams, and checking them against the values sent in headers or in
//! aws-chunked trailers before the object becomes visible.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures::StreamExt;
use rsgw_gateway::{BodyCheck, BodyStream, GatewayError, ObjectMeta};
use s3s::checksum::ChecksumHasher;
use s3s::dto::{Checksum, ChecksumAlgorithm};
use s3s::{S3Result, TrailingHeaders, s3_error};

/// Algorithm names as stored, with their header names.
const ALGORITHMS: [(&str, &str); 5] = [
    ("crc32", "x-amz-checksum-crc32"),
    ("crc32c", "x-amz-checksum-crc32c"),
    ("sha1", "x-amz-checksum-sha1"),
    ("sha256", "x-amz-checksum-sha256"),
    ("crc64nvme", "x-amz-checksum-crc64nvme"),
];

fn get(c: &Checksum, alg: &str) -> Option<String> {
    match alg {
        "crc32" => c.checksum_crc32.clone(),
        "crc32c" => c.checksum_crc32c.clone(),
        "sha1" => c.checksum_sha1.clone(),
        "sha256" => c.checksum_sha256.clone(),
        "crc64nvme" => c.checksum_crc64nvme.clone(),
        _ => None,
    }
}

/// Has `hasher` compute the algorithm named `alg` (one of [`ALGORITHMS`]).
fn enable(hasher: &mut ChecksumHasher, alg: &str) {
    match alg {
        "crc32" => hasher.crc32 = Some(Default::default()),
        "crc32c" => hasher.crc32c = Some(Default::default()),
        "sha1" => hasher.sha1 = Some(Default::default()),
        "sha256" => hasher.sha256 = Some(Default::default()),
        _ => hasher.crc64nvme = Some(Default::default()),
    }
}

/// Bytes of an MD5 digest.
const MD5_LEN: usize = 16;

/// A `Content-MD5` header's digest: base64 of 16 bytes, else `None`.
pub(crate) fn decode_content_md5(b64: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .ok()
        .filter(|d| d.len() == MD5_LEN)
}

/// An object's stored checksums as the DTO's fields.
pub(crate) fn stored(meta: &ObjectMeta) -> Checksum {
    from_map(&meta.checksums)
}

/// Checksums by algorithm name as the DTO's fields.
pub(crate) fn from_map(sums: &BTreeMap<String, String>) -> Checksum {
    let g = |alg: &str| sums.get(alg).cloned();
    Checksum {
        checksum_crc32: g("crc32"),
        checksum_crc32c: g("crc32c"),
        checksum_sha1: g("sha1"),
        checksum_sha256: g("sha256"),
        checksum_crc64nvme: g("crc64nvme"),
        ..Default::default()
    }
}

/// What an upload asked to be checked.
pub(crate) struct Checker {
    hasher: Arc<Mutex<ChecksumHasher>>,
    expected: Checksum,
    trailers: Option<TrailingHeaders>,
}

impl Checker {
    /// The checksums to compute for an upload: those given as headers, the
    /// one named by `x-amz-sdk-checksum-algorithm`, and those announced as
    /// trailers (`x-amz-trailer`). None if there are none.
    pub(crate) fn new(
        expected: Checksum,
        algorithm: Option<&ChecksumAlgorithm>,
        headers: &http::HeaderMap,
        trailers: Option<TrailingHeaders>,
    ) -> S3Result<Option<Self>> {
        let announced: Vec<String> = headers
            .get_all("x-amz-trailer")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|v| v.trim().to_ascii_lowercase())
            .collect();
        let mut hasher = ChecksumHasher::default();
        let mut any = false;
        let wanted_alg = algorithm.map(|a| a.as_str().to_ascii_lowercase());
        for (alg, header) in ALGORITHMS {
            let on = get(&expected, alg).is_some()
                || wanted_alg.as_deref() == Some(alg)
                || announced.iter().any(|h| h == header);
            if !on {
                continue;
            }
            any = true;
            enable(&mut hasher, alg);
        }
        if let Some(a) = &wanted_alg
            && !ALGORITHMS.iter().any(|(n, _)| n == a)
        {
            return Err(s3_error!(InvalidRequest, "Unsupported checksum algorithm"));
        }
        Ok(any.then(|| Checker {
            hasher: Arc::new(Mutex::new(hasher)),
            expected,
            trailers,
        }))
    }

    /// Feeds the body through the hashers and returns the check to run
    /// once it has been read.
    pub(crate) fn wrap(self, body: BodyStream) -> (BodyStream, BodyCheck) {
        let hasher = self.hasher.clone();
        let body = Box::pin(body.inspect(move |r| {
            if let Ok(b) = r {
                hasher
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .update(b);
            }
        }));
        (body, Box::new(move || self.finish()))
    }

    fn finish(self) -> Result<BTreeMap<String, String>, GatewayError> {
        let hasher =
            std::mem::take(&mut *self.hasher.lock().unwrap_or_else(PoisonError::into_inner));
        let computed = hasher.finalize();
        let trailer = self.trailers.as_ref().and_then(TrailingHeaders::take);
        let mut out = BTreeMap::new();
        for (alg, header) in ALGORITHMS {
            let Some(value) = get(&computed, alg) else {
                continue;
            };
            let sent = get(&self.expected, alg).or_else(|| {
                trailer
                    .as_ref()
                    .and_then(|t| t.get(header))
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            });
            if let Some(sent) = sent
                && sent != value
            {
                return Err(GatewayError::BadChecksum(format!(
                    "the {alg} checksum you specified did not match what we received"
                )));
            }
            out.insert(alg.to_string(), value);
        }
        Ok(out)
    }
}

/// Why a document fails the digests its request names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DigestError {
    /// A `Content-MD5` that is not base64 of 16 bytes.
    #[error("the Content-MD5 is not base64 of an MD5 digest")]
    InvalidMd5,
    /// A digest that is not the body's: the header named.
    #[error("the {0} does not match the body")]
    Mismatch(&'static str),
}

impl DigestError {
    /// The S3 error: status, code and message.
    pub(crate) fn s3(&self) -> (http::StatusCode, &'static str, String) {
        match self {
            DigestError::InvalidMd5 => (
                http::StatusCode::BAD_REQUEST,
                "InvalidDigest",
                "The Content-MD5 you specified is not valid.".into(),
            ),
            DigestError::Mismatch(header) => (
                http::StatusCode::BAD_REQUEST,
                "BadDigest",
                format!("The {header} you specified did not match what we received."),
            ),
        }
    }
}

/// The digests a request names of its whole body (an XML document):
/// `Content-MD5` and `x-amz-checksum-*`, computed as the body is read and
/// compared at its end. S3 refuses a document whose digest is not its own
/// before acting on any of it.
pub(crate) struct DocumentDigests {
    md5: Option<(md5::Md5, Vec<u8>)>,
    hasher: ChecksumHasher,
    expected: Checksum,
}

impl DocumentDigests {
    /// The digests `headers` name; a `Content-MD5` that is not base64 of
    /// 16 bytes is `InvalidMd5` at once.
    pub(crate) fn new(headers: &http::HeaderMap) -> Result<Self, DigestError> {
        let md5 = match headers.get("content-md5") {
            Some(v) => {
                let sent = decode_content_md5(v.as_bytes()).ok_or(DigestError::InvalidMd5)?;
                Some((md5::Md5::default(), sent))
            }
            None => None,
        };
        let mut hasher = ChecksumHasher::default();
        let mut sent = BTreeMap::new();
        for (alg, header) in ALGORITHMS {
            if let Some(v) = headers.get(header).and_then(|v| v.to_str().ok()) {
                enable(&mut hasher, alg);
                sent.insert(alg.to_string(), v.to_string());
            }
        }
        Ok(DocumentDigests {
            md5,
            hasher,
            expected: from_map(&sent),
        })
    }

    /// Feeds the next bytes of the body.
    pub(crate) fn update(&mut self, data: &[u8]) {
        use md5::Digest;
        if let Some((h, _)) = &mut self.md5 {
            h.update(data);
        }
        self.hasher.update(data);
    }

    /// The verdict once the whole body was fed: a digest that is not its
    /// own is `Mismatch`, naming its header.
    pub(crate) fn finish(self) -> Result<(), DigestError> {
        use md5::Digest;
        if let Some((h, sent)) = self.md5
            && h.finalize().as_slice() != sent.as_slice()
        {
            return Err(DigestError::Mismatch("Content-MD5"));
        }
        let computed = self.hasher.finalize();
        for (alg, header) in ALGORITHMS {
            if let Some(sent) = get(&self.expected, alg)
                && get(&computed, alg).as_deref() != Some(sent.as_str())
            {
                return Err(DigestError::Mismatch(header));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use rsgw_gateway::GatewayResult;

    use super::*;

    /// "hello world" under each algorithm, base64 of the big-endian digest
    /// as the `x-amz-checksum-*` headers carry it (CRC-32, CRC-32C,
    /// CRC-64/NVME, SHA-1, SHA-256).
    const HELLO: [(&str, &str); 5] = [
        ("crc32", "DUoRhQ=="),
        ("crc32c", "yZRlqg=="),
        ("sha1", "Kq5sNclPz7QV2+lfQIuc6R7oRu0="),
        ("sha256", "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="),
        ("crc64nvme", "jSnVw/bqjr4="),
    ];

    fn sent(pairs: &[(&str, &str)]) -> Checksum {
        let map = pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        from_map(&map)
    }

    /// Streams `chunks` through a checker and runs its check.
    fn run(checker: Checker, chunks: &[&'static [u8]]) -> GatewayResult<BTreeMap<String, String>> {
        let body: BodyStream = Box::pin(futures::stream::iter(
            chunks
                .iter()
                .map(|c| Ok(Bytes::from_static(c)))
                .collect::<Vec<_>>(),
        ));
        let (body, check) = checker.wrap(body);
        let read: Vec<_> = futures::executor::block_on(body.collect::<Vec<_>>());
        assert_eq!(read.len(), chunks.len(), "the body passes through whole");
        check()
    }

    /// A whole body through [`DocumentDigests`], fed in two pieces.
    fn check_buffered(headers: &http::HeaderMap, body: &[u8]) -> Result<(), DigestError> {
        let mut d = DocumentDigests::new(headers)?;
        let (a, b) = body.split_at(body.len() / 2);
        d.update(a);
        d.update(b);
        d.finish()
    }

    #[test]
    fn documents_are_checked_against_every_digest_sent() {
        let headers = |pairs: &[(&'static str, &str)]| {
            let mut h = http::HeaderMap::new();
            for (k, v) in pairs {
                h.insert(*k, http::HeaderValue::from_str(v).expect("value"));
            }
            h
        };
        let body = b"hello world";
        // MD5 of "hello world"
        let md5 = "XrY7u+Ae7tCTyyK7j1rNww==";
        assert_eq!(check_buffered(&headers(&[]), body), Ok(()));
        assert_eq!(
            check_buffered(&headers(&[("content-md5", md5)]), body),
            Ok(())
        );
        for (alg, value) in HELLO {
            let header = ALGORITHMS.iter().find(|(a, _)| *a == alg).expect("alg").1;
            let h = headers(&[(header, value), ("content-md5", md5)]);
            assert_eq!(check_buffered(&h, body), Ok(()), "{alg}");
            assert_eq!(
                check_buffered(&h, b"hello world!"),
                Err(DigestError::Mismatch("Content-MD5")),
                "{alg}"
            );
            let h = headers(&[(header, value)]);
            assert_eq!(
                check_buffered(&h, b"hello world!"),
                Err(DigestError::Mismatch(header)),
                "{alg}"
            );
        }
        for bad in ["", "abc", "AAAA"] {
            assert_eq!(
                check_buffered(&headers(&[("content-md5", bad)]), body),
                Err(DigestError::InvalidMd5),
                "{bad:?}"
            );
        }
        let (status, code, _) = DigestError::Mismatch("Content-MD5").s3();
        assert_eq!((status.as_u16(), code), (400, "BadDigest"));
        assert_eq!(DigestError::InvalidMd5.s3().1, "InvalidDigest");
    }

    #[test]
    fn stored_checksums_fill_the_dto_fields() {
        let c = sent(&HELLO);
        for (alg, value) in HELLO {
            assert_eq!(get(&c, alg).as_deref(), Some(value), "{alg}");
        }
        assert_eq!(get(&c, "md5"), None);
        let only = sent(&[("sha1", "x")]);
        assert_eq!(only.checksum_sha1.as_deref(), Some("x"));
        assert_eq!(
            (
                only.checksum_crc32,
                only.checksum_crc32c,
                only.checksum_sha256
            ),
            (None, None, None)
        );
        assert_eq!(sent(&[("unknown", "x")]), Checksum::default());
    }

    #[test]
    fn checksums_sent_are_verified_against_the_body() {
        let h = http::HeaderMap::new();
        for (alg, value) in HELLO {
            // right value, whole or in pieces
            let c = Checker::new(sent(&[(alg, value)]), None, &h, None)
                .expect("accepted")
                .expect("something to check");
            let got = run(c, &[b"hello", b" ", b"world"]).expect("matches");
            let want = BTreeMap::from([(alg.to_string(), value.to_string())]);
            assert_eq!(got, want, "{alg}");
            // another body: BadDigest, naming the algorithm
            let c = Checker::new(sent(&[(alg, value)]), None, &h, None)
                .expect("accepted")
                .expect("something to check");
            let err = run(c, &[b"hello world!"]).expect_err("mismatch");
            assert_eq!(
                err.to_string(),
                format!("the {alg} checksum you specified did not match what we received")
            );
            let s3 = crate::error::to_s3(err);
            assert_eq!(s3.code().as_str(), "BadDigest", "{alg}");
            assert_eq!(s3.status_code(), Some(http::StatusCode::BAD_REQUEST));
        }
    }

    #[test]
    fn every_checksum_sent_must_match() {
        let h = http::HeaderMap::new();
        let both = sent(&[("crc32", HELLO[0].1), ("sha256", "AAAA")]);
        let c = Checker::new(both, None, &h, None)
            .expect("accepted")
            .expect("something to check");
        let err = run(c, &[b"hello world"]).expect_err("sha256 differs");
        assert!(err.to_string().contains("sha256"), "{err}");
    }

    #[test]
    fn an_empty_body_has_checksums_too() {
        let sha256_of_nothing = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=";
        let h = http::HeaderMap::new();
        let c = Checker::new(sent(&[("sha256", sha256_of_nothing)]), None, &h, None)
            .expect("accepted")
            .expect("something to check");
        assert_eq!(
            run(c, &[]).expect("matches"),
            BTreeMap::from([("sha256".to_string(), sha256_of_nothing.to_string())])
        );
    }

    #[test]
    fn what_is_computed_follows_headers_algorithm_and_trailer() {
        type Row = (
            &'static str,
            Checksum,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static [&'static str]>,
        );
        let table: Vec<Row> = vec![
            ("nothing asked", Checksum::default(), None, None, None),
            (
                "a trailer that is no checksum",
                Checksum::default(),
                None,
                Some("x-amz-meta-foo"),
                None,
            ),
            (
                "a value sent",
                sent(&[("crc32c", HELLO[1].1)]),
                None,
                None,
                Some(&["crc32c"]),
            ),
            (
                "a value sent and its algorithm named",
                sent(&[("crc32", HELLO[0].1)]),
                Some("CRC32"),
                None,
                Some(&["crc32"]),
            ),
            (
                "a trailer announced, in any case",
                Checksum::default(),
                None,
                Some("X-Amz-Checksum-CRC64NVME"),
                Some(&["crc64nvme"]),
            ),
            (
                "two trailers in one header",
                Checksum::default(),
                None,
                Some("x-amz-checksum-crc32, x-amz-checksum-sha256"),
                Some(&["crc32", "sha256"]),
            ),
        ];
        for (why, expected, algorithm, trailer, want) in table {
            let mut h = http::HeaderMap::new();
            if let Some(t) = trailer {
                h.insert("x-amz-trailer", t.parse().expect("value"));
            }
            let algorithm = algorithm.map(|a| ChecksumAlgorithm::from(a.to_string()));
            let c = Checker::new(expected, algorithm.as_ref(), &h, None).expect("accepted");
            // nothing sent to compare with: each computed value is stored
            let got = c.map(|c| {
                run(c, &[b"hello world"])
                    .expect("nothing to mismatch")
                    .into_keys()
                    .collect::<Vec<_>>()
            });
            let want = want.map(|w| w.iter().map(|a| (*a).to_string()).collect::<Vec<_>>());
            assert_eq!(got, want, "{why}");
        }
    }

    #[test]
    fn computed_values_are_the_ones_stored() {
        let mut h = http::HeaderMap::new();
        h.insert(
            "x-amz-trailer",
            "x-amz-checksum-crc32,x-amz-checksum-crc32c,x-amz-checksum-sha1,x-amz-checksum-sha256,x-amz-checksum-crc64nvme"
                .parse()
                .expect("value"),
        );
        let c = Checker::new(Checksum::default(), None, &h, None)
            .expect("accepted")
            .expect("something to check");
        let got = run(c, &[b"hello world"]).expect("nothing to mismatch");
        let want: BTreeMap<String, String> = HELLO
            .iter()
            .map(|(a, v)| ((*a).to_string(), (*v).to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_unknown_algorithm_is_an_invalid_request() {
        let h = http::HeaderMap::new();
        for alg in ["MD5", "crc16", ""] {
            let algorithm = ChecksumAlgorithm::from(alg.to_string());
            let err = Checker::new(Checksum::default(), Some(&algorithm), &h, None)
                .err()
                .expect("refused");
            assert_eq!(err.code().as_str(), "InvalidRequest", "{alg:?}");
            assert_eq!(
                err.status_code(),
                Some(http::StatusCode::BAD_REQUEST),
                "{alg:?}"
            );
        }
    }
}
