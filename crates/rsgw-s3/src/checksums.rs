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
            match alg {
                "crc32" => hasher.crc32 = Some(Default::default()),
                "crc32c" => hasher.crc32c = Some(Default::default()),
                "sha1" => hasher.sha1 = Some(Default::default()),
                "sha256" => hasher.sha256 = Some(Default::default()),
                _ => hasher.crc64nvme = Some(Default::default()),
            }
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
