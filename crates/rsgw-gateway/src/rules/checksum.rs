//! The checksums of multipart uploads (`x-amz-checksum-algorithm` on
//! CreateMultipartUpload): each part carries one of the upload's
//! algorithm, and the object gets their composite, AWS's
//! `base64(hash(part digests, concatenated))-<parts>`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as B64;
use sha1::Digest as _;

use crate::model::error::{GatewayError, GatewayResult};

/// The algorithms an upload may name, as stored (S3's names, lowercase).
/// CRC64NVME is left out: S3 keeps a full-object checksum for it, not a
/// composite.
pub(crate) const COMPOSITE_ALGORITHMS: [&str; 4] = ["crc32", "crc32c", "sha1", "sha256"];

/// A running digest of one of [`COMPOSITE_ALGORITHMS`].
pub(crate) enum Digest {
    Crc(crc_fast::Digest),
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
}

impl Digest {
    /// A digest of `alg`; `None` for an algorithm not in the list.
    pub(crate) fn new(alg: &str) -> Option<Digest> {
        Some(match alg {
            "crc32" => Digest::Crc(crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32IsoHdlc)),
            "crc32c" => Digest::Crc(crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Iscsi)),
            "sha1" => Digest::Sha1(sha1::Sha1::new()),
            "sha256" => Digest::Sha256(sha2::Sha256::new()),
            _ => return None,
        })
    }

    /// Feeds `data`.
    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Digest::Crc(d) => d.update(data),
            Digest::Sha1(d) => d.update(data),
            Digest::Sha256(d) => d.update(data),
        }
    }

    /// Base64 of the digest, as S3 writes checksums.
    pub(crate) fn finish(self) -> String {
        match self {
            // a 32-bit CRC, big-endian
            Digest::Crc(d) => B64.encode((d.finalize() as u32).to_be_bytes()),
            Digest::Sha1(d) => B64.encode(d.finalize()),
            Digest::Sha256(d) => B64.encode(d.finalize()),
        }
    }
}

/// Checks that an upload may name `alg` (a lowercase S3 name).
pub(crate) fn check_algorithm(alg: &str) -> GatewayResult<()> {
    if COMPOSITE_ALGORITHMS.contains(&alg) {
        Ok(())
    } else {
        Err(GatewayError::InvalidRequest(format!(
            "x-amz-checksum-algorithm {} is not kept for multipart uploads (CRC32, CRC32C, SHA1, SHA256)",
            alg.to_ascii_uppercase()
        )))
    }
}

/// The composite checksum of an object made of parts whose `alg`
/// checksums (base64) are `parts`, in the object's order.
pub(crate) fn composite<'a>(
    alg: &str,
    parts: impl ExactSizeIterator<Item = &'a str>,
) -> GatewayResult<String> {
    let n = parts.len();
    let mut d = Digest::new(alg)
        .ok_or_else(|| GatewayError::Corrupt(format!("an upload's checksum algorithm {alg}")))?;
    for p in parts {
        let raw = B64
            .decode(p)
            .map_err(|_| GatewayError::Corrupt(format!("a part's {alg} checksum")))?;
        d.update(&raw);
    }
    Ok(format!("{}-{n}", d.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(alg: &str, data: &[u8]) -> String {
        let mut d = Digest::new(alg).expect("known");
        d.update(data);
        d.finish()
    }

    /// Values from Python's zlib.crc32, hashlib and the crc32c test vector
    /// ("123456789" -> 0xE3069283).
    #[test]
    fn digests_are_s3s() {
        assert_eq!(
            of("crc32", b"summed"),
            B64.encode(0xd650_fc7du32.to_be_bytes())
        );
        assert_eq!(
            of("crc32c", b"123456789"),
            B64.encode(0xe306_9283u32.to_be_bytes())
        );
        assert_eq!(of("sha1", b"abc"), "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
        assert_eq!(
            of("sha256", b"abc"),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
        assert!(Digest::new("crc64nvme").is_none());
        assert!(check_algorithm("crc64nvme").is_err());
        assert!(check_algorithm("sha256").is_ok());
    }

    /// AWS's composite: the digest of the parts' digests, and their count.
    #[test]
    fn composite_of_parts() {
        let a = of("crc32", b"first part");
        let b = of("crc32", b"second");
        let mut raw = B64.decode(&a).expect("b64");
        raw.extend(B64.decode(&b).expect("b64"));
        assert_eq!(
            composite("crc32", [a.as_str(), b.as_str()].into_iter()).expect("composite"),
            format!("{}-2", of("crc32", &raw))
        );
        assert!(composite("crc32", ["not base64!"].into_iter()).is_err());
    }
}
