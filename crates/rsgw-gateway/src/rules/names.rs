//! What names S3 and rsgw accept: object keys, bucket names, user ids and
//! the key pairs an admin gives.

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::limits::{MAX_EMAIL_BYTES, MAX_KEY_BYTES, MAX_KEY_PAIR_CHARS, MAX_UID_BYTES};
use crate::model::versioning::VERSIONS;

/// Object keys: non-empty, at most [`MAX_KEY_BYTES`] bytes, no NUL.
#[inline]
pub(crate) fn validate_key(key: &str) -> GatewayResult<()> {
    if key.is_empty() {
        return Err(GatewayError::InvalidKey("empty key".into()));
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(GatewayError::KeyTooLong);
    }
    if key.contains('\0') {
        return Err(GatewayError::InvalidKey("contains NUL".into()));
    }
    // the bucket index's version entries begin so (model::versioning)
    if key.starts_with(VERSIONS) {
        return Err(GatewayError::InvalidKey("begins with U+0001".into()));
    }
    Ok(())
}

/// Name prefixes AWS reserves for its own buckets.
const RESERVED_PREFIXES: [&str; 3] = ["xn--", "sthree-", "amzn-s3-demo-"];

/// Name suffixes AWS reserves (access point aliases, multi-region access
/// points, directory and table buckets).
const RESERVED_SUFFIXES: [&str; 5] = ["-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"];

/// S3's bucket naming rules, checked when a bucket is made: 3-63 characters
/// of lowercase letters, digits, '.' and '-', starting and ending with a
/// letter or digit, no "..", ".-" or "-." (a label may not begin or end
/// with a dash), not shaped like an IPv4 address, and none of the prefixes
/// and suffixes AWS reserves.
pub(crate) fn validate_bucket_name(name: &str) -> GatewayResult<()> {
    let bad = |why: &str| Err(GatewayError::InvalidBucketName(format!("'{name}': {why}")));
    if !(3..=63).contains(&name.len()) {
        return bad("must be 3 to 63 characters long");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
    {
        return bad("may hold only lowercase letters, digits, '.' and '-'");
    }
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if !alnum(name.as_bytes()[0]) || !alnum(name.as_bytes()[name.len() - 1]) {
        return bad("must begin and end with a letter or digit");
    }
    if name.contains("..") {
        return bad("may not contain two adjacent periods");
    }
    if name.contains(".-") || name.contains("-.") {
        return bad("may not contain a dash next to a period");
    }
    if name.parse::<std::net::Ipv4Addr>().is_ok() {
        return bad("may not be formatted as an IP address");
    }
    if let Some(p) = RESERVED_PREFIXES.iter().find(|p| name.starts_with(*p)) {
        return bad(&format!("the prefix '{p}' is reserved"));
    }
    if let Some(s) = RESERVED_SUFFIXES.iter().find(|s| name.ends_with(*s)) {
        return bad(&format!("the suffix '{s}' is reserved"));
    }
    Ok(())
}

/// User ids: 1 to [`MAX_UID_BYTES`] bytes, no `/` nor control characters.
pub(crate) fn validate_uid(uid: &str) -> GatewayResult<()> {
    if uid.is_empty()
        || uid.len() > MAX_UID_BYTES
        || uid.chars().any(|c| c.is_control() || c == '/')
    {
        return Err(GatewayError::InvalidArgument(format!(
            "user id must be 1-{MAX_UID_BYTES} characters, without '/' or control characters"
        )));
    }
    Ok(())
}

/// A user's e-mail address as it is kept and looked up: lowercase (as
/// radosgw keeps them), 3 to [`MAX_EMAIL_BYTES`] bytes with an `@` between
/// a local part and a domain, no spaces, control characters or `/`.
pub(crate) fn validate_email(email: &str) -> GatewayResult<String> {
    let ok = email.len() <= MAX_EMAIL_BYTES
        && email
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && !domain.is_empty())
        && !email
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '/');
    if !ok {
        return Err(GatewayError::InvalidArgument(format!(
            "'{email}' is not an e-mail address (local@domain, at most {MAX_EMAIL_BYTES} bytes)"
        )));
    }
    Ok(email.to_lowercase())
}

/// Access and secret keys an admin gives: 1 to [`MAX_KEY_PAIR_CHARS`]
/// printable ASCII characters.
pub(crate) fn validate_key_pair(access: &str, secret: &str) -> GatewayResult<()> {
    let ok = |s: &str| {
        !s.is_empty() && s.len() <= MAX_KEY_PAIR_CHARS && s.chars().all(|c| c.is_ascii_graphic())
    };
    if !ok(access) || !ok(secret) {
        return Err(GatewayError::InvalidArgument(format!(
            "access and secret keys must be 1-{MAX_KEY_PAIR_CHARS} printable ASCII characters"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Object keys: 1 to 1024 bytes of UTF-8 (bytes, not characters), no NUL.
    #[test]
    fn key_validation() {
        let ok = [
            "a".to_string(),
            "a/b/c".into(),
            "/leading/slash".into(),
            "trailing/".into(),
            "../../etc/passwd".into(),
            " ".into(),
            "with\nnewline".into(),
            "ключ/キー/🔑".into(),
            "\u{10FFFF}".into(),
            "a".repeat(1024),
            "é".repeat(512),
        ];
        for k in &ok {
            assert!(validate_key(k).is_ok(), "{k:?} ({} bytes)", k.len());
        }
        let bad = [
            String::new(),
            "a".repeat(1025),
            // 513 characters, 1026 bytes
            "é".repeat(513),
            "a\0b".into(),
            "\0".into(),
            "\u{1}".into(),
            "\u{1}key".into(),
        ];
        for k in &bad {
            assert!(
                // the variant may be split (InvalidKey, KeyTooLong, ...):
                // any refusal that is not the store's
                matches!(validate_key(k), Err(e) if !matches!(e, GatewayError::Store(_))),
                "{:?} ({} bytes)",
                k.get(..20),
                k.len()
            );
        }
    }

    /// S3's bucket naming rules (the ones radosgw enforces too).
    #[test]
    fn bucket_names() {
        let ok = [
            "abc".to_string(),
            "a1b".into(),
            "123".into(),
            "my-bucket.2".into(),
            "a.b".into(),
            "a-b".into(),
            "a--b".into(),
            "axn--b".into(),
            "s3alias-b".into(),
            "0.0.0".into(),
            "1.2.3.4.5".into(),
            "192.168.1.1a".into(),
            "a".repeat(63),
        ];
        for name in &ok {
            assert!(validate_bucket_name(name).is_ok(), "{name}");
        }
        let bad = [
            // length
            "".to_string(),
            "a".into(),
            "ab".into(),
            "a".repeat(64),
            // characters
            "Abc".into(),
            "abC".into(),
            "a_b".into(),
            "a b".into(),
            "a/b".into(),
            "a:b".into(),
            "abé".into(),
            "ab\0".into(),
            // first and last characters
            "-ab".into(),
            "ab-".into(),
            ".ab".into(),
            "ab.".into(),
            // adjacent periods, a dash next to a period
            "a..b".into(),
            "a.-b".into(),
            "a-.b".into(),
            "ab.-.cd".into(),
            // IPv4 addresses
            "192.168.1.1".into(),
            "1.2.3.4".into(),
            "255.255.255.255".into(),
            // what AWS reserves
            "xn--abc".into(),
            "sthree-abc".into(),
            "amzn-s3-demo-abc".into(),
            "abc-s3alias".into(),
            "abc--ol-s3".into(),
            "abc.mrap".into(),
            "abc--x-s3".into(),
            "abc--table-s3".into(),
        ];
        for name in &bad {
            assert!(
                matches!(
                    validate_bucket_name(name),
                    Err(GatewayError::InvalidBucketName(..))
                ),
                "{name:?}"
            );
        }
    }

    /// Creating, re-creating and deleting buckets, as S3 answers them.

    #[test]
    fn user_ids() {
        let long = "u".repeat(255);
        for ok in ["a", "alice", "Alice Smith", "tenant$user", "ü", &long] {
            assert!(validate_uid(ok).is_ok(), "{ok:?}");
        }
        let too_long = "u".repeat(256);
        for bad in ["", "a/b", "/", "a\nb", "a\0b", "\t", &too_long] {
            assert!(validate_uid(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn given_key_pairs() {
        let max = "K".repeat(128);
        let over = "K".repeat(129);
        // (access key, secret key, accepted)
        let cases: &[(&str, &str, bool)] = &[
            ("AKIA0", "secret", true),
            ("a!#$%&'()*+,-./:;<=>?@[]^_`{|}~", "s", true),
            (&max, &max, true),
            ("", "secret", false),
            ("AKIA0", "", false),
            (&over, "secret", false),
            ("AKIA0", &over, false),
            ("AK IA", "secret", false),
            ("AKIA0", "sec ret", false),
            ("AKIÄ", "secret", false),
            ("AKIA0", "secret\n", false),
        ];
        for &(access, secret, ok) in cases {
            assert_eq!(
                validate_key_pair(access, secret).is_ok(),
                ok,
                "{access:?} {secret:?}"
            );
        }
    }
}
