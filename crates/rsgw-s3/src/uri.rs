//! Percent-encoding for the URLs rsgw writes (`Location` headers, a POST
//! form's redirect) and decoding for the paths it reads outside s3s.

/// Percent-encodes `s` as RFC 3986's unreserved characters allow, and `/`
/// too when `keep_slash` (a key in a path; not in a query value).
pub(crate) fn encode(s: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (keep_slash && b == b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes a path's percent-escapes; `None` if they are broken or the
/// result is not UTF-8.
pub(crate) fn decode_path(path: &str) -> Option<String> {
    decode(path, false)
}

/// Decodes a query string's part: percent-escapes, and `+` as a space;
/// `None` if an escape is broken or the result is not UTF-8.
pub(crate) fn decode_query(part: &str) -> Option<String> {
    decode(part, true)
}

/// Decodes `%XX` escapes, and `+` as a space when `plus_is_space`.
fn decode(s: &str, plus_is_space: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_encoded_and_paths_decoded() {
        assert_eq!(encode("docs/a b+c.html", true), "docs/a%20b%2Bc.html");
        assert_eq!(encode("docs/a b", false), "docs%2Fa%20b");
        assert_eq!(encode("\"e1\"", false), "%22e1%22");
        assert_eq!(encode("é", true), "%C3%A9");
        assert_eq!(
            decode_path("docs/a%20b%2Bc.html").as_deref(),
            Some("docs/a b+c.html")
        );
        assert_eq!(decode_path("%C3%A9").as_deref(), Some("é"));
        assert_eq!(decode_path("a%2"), None);
        assert_eq!(decode_path("a%zz"), None);
        assert_eq!(decode_path("%ff"), None);
        // a path keeps its '+'; a query string's is a space
        assert_eq!(decode_path("a+b").as_deref(), Some("a+b"));
        assert_eq!(decode_query("a+b%2B").as_deref(), Some("a b+"));
        assert_eq!(decode_query("a%2"), None);
    }
}
