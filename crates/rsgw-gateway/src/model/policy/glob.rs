//! The IAM policy language's wildcards: `*` matches any run of characters
//! (`/` included), `?` any one character.

/// Whether `text` matches `pattern` (case-sensitive; lowercase both for
/// names that are not).
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    if pattern.is_ascii() && text.is_ascii() {
        // the common case (ARNs, action names), evaluated per request:
        // no allocation
        return matches(pattern.as_bytes(), text.as_bytes());
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    matches(&p, &t)
}

/// Iterative matching with one backtrack point: linear in practice.
fn matches<C: Copy + PartialEq + From<u8>>(p: &[C], t: &[C]) -> bool {
    let (star, any) = (C::from(b'*'), C::from(b'?'));
    let (mut pi, mut ti) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == any || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == star {
            backtrack = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = backtrack {
            pi = sp + 1;
            ti = st + 1;
            backtrack = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == star)
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn wildcards() {
        let cases = [
            ("*", "", true),
            ("*", "anything/at/all", true),
            ("s3:get*", "s3:getobject", true),
            ("s3:get*", "s3:putobject", false),
            ("s3:*object", "s3:getobject", true),
            ("s3:*object", "s3:getobjectacl", false),
            ("arn:aws:s3:::b/*", "arn:aws:s3:::b/x/y", true),
            ("arn:aws:s3:::b/*", "arn:aws:s3:::b", false),
            ("arn:aws:s3:::b/*", "arn:aws:s3:::bb/x", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*.jpg", "x/y.jpg", true),
            ("**", "x", true),
            ("é*", "éa", true),
            ("abc", "abc", true),
            ("abc", "abcd", false),
        ];
        for (p, t, want) in cases {
            assert_eq!(glob(p, t), want, "{p} ~ {t}");
        }
    }
}
