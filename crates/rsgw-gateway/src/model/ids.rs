//! Identifiers: bucket markers, write tags, generated keys.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::model::error::{GatewayError, GatewayResult};

/// A 16-hex-digit identifier, unique with overwhelming probability (random
/// per process, mixed with time and a counter). Not for secrets.
pub(crate) fn unique_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    format!("{:016x}", h.finish())
}

/// `n` bytes from the kernel's random source, for access and secret keys.
pub(crate) fn random_bytes(n: usize) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = vec![0; n];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf)
}

/// Now, in seconds since the epoch, in whole microseconds: a time read
/// back from a record's JSON may be a unit in the last place off the one
/// written (serde_json's fast float parsing), and rounded to microseconds
/// it is the same again (`model::versioning` ranks versions by it).
pub(crate) fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_micros() as f64 / 1e6)
}

/// The alphabet of generated access keys.
pub(crate) const ALNUM_UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
/// The alphabet of generated secret keys.
pub(crate) const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// `len` characters of `alphabet`, drawn from the kernel's random source.
pub(crate) fn random_string(alphabet: &[u8], len: usize) -> GatewayResult<String> {
    let bytes = random_bytes(len)
        .map_err(|e| GatewayError::InvalidArgument(format!("no randomness: {e}")))?;
    Ok(bytes
        .iter()
        .map(|b| alphabet[*b as usize % alphabet.len()] as char)
        .collect())
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Bucket ids and write tags: 16 lowercase hex digits, never repeated
    /// (a repeat would make two writes share stripes).
    #[test]
    fn unique_ids_are_16_hex_digits_and_distinct() {
        let ids: Vec<String> = (0..10_000).map(|_| unique_id()).collect();
        for id in &ids {
            assert_eq!(id.len(), 16, "{id}");
            assert!(
                id.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
                "{id}"
            );
        }
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
    }

    #[test]
    fn random_bytes_have_the_asked_length_and_vary() {
        for n in [0, 1, 20, 40] {
            assert_eq!(random_bytes(n).expect("urandom").len(), n);
        }
        assert_ne!(
            random_bytes(32).expect("urandom"),
            random_bytes(32).expect("urandom")
        );
    }

    #[test]
    fn generated_strings_keep_to_their_alphabet() {
        for (alphabet, len) in [(ALNUM_UPPER, 20), (ALNUM, 40)] {
            let s = random_string(alphabet, len).expect("random");
            assert_eq!(s.len(), len);
            assert!(s.bytes().all(|b| alphabet.contains(&b)), "{s}");
        }
    }
}
