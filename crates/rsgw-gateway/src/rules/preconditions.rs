//! Conditional requests and ranges: what a GET's `If-*` headers and
//! `Range` (or `partNumber`) ask of an object's record, and what a
//! conditional PUT asks of the key's current version.

use std::time::{Duration, SystemTime};

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::object::ObjectMeta;
use crate::model::params::{GetParams, PutParams, RangeSpec};

fn etag_matches(list: &[String], etag: &str) -> bool {
    list.iter().any(|e| {
        e == "*"
            || e.trim_matches('"') == etag
            || e.trim_start_matches("W/").trim_matches('"') == etag
    })
}

/// RFC 7232's order: If-Match, else If-Unmodified-Since (412); then
/// If-None-Match, else If-Modified-Since (304).
pub(crate) fn check_conditions(p: &GetParams, meta: &ObjectMeta) -> GatewayResult<()> {
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(meta.mtime as u64);
    if let Some(list) = &p.if_match {
        if !etag_matches(list, &meta.etag) {
            return Err(GatewayError::PreconditionFailed);
        }
    } else if let Some(t) = p.if_unmodified_since
        && modified > t
    {
        return Err(GatewayError::PreconditionFailed);
    }
    if let Some(list) = &p.if_none_match {
        if etag_matches(list, &meta.etag) {
            return Err(GatewayError::NotModified {
                etag: meta.etag.clone(),
                mtime: meta.mtime,
            });
        }
    } else if let Some(t) = p.if_modified_since
        && modified <= t
    {
        return Err(GatewayError::NotModified {
            etag: meta.etag.clone(),
            mtime: meta.mtime,
        });
    }
    Ok(())
}

/// The bytes `spec` names in `meta`'s object; `None`: all of them.
pub(crate) fn resolve_range(
    spec: RangeSpec,
    meta: &ObjectMeta,
) -> GatewayResult<Option<(u64, u64)>> {
    let size = meta.size;
    if let RangeSpec::Part(n) = spec {
        let n = n as usize;
        if meta.upload_id.is_empty() {
            // what no multipart upload made is its own part 1
            return if n == 1 {
                Ok(None)
            } else {
                Err(GatewayError::InvalidPartNumber)
            };
        }
        let Some(part) = n.checked_sub(1).and_then(|i| meta.tails.get(i)) else {
            return Err(GatewayError::InvalidPartNumber);
        };
        let start = meta.head_len + meta.tails[..n - 1].iter().map(|t| t.size).sum::<u64>();
        return Ok(Some((start, start + part.size)));
    }
    byte_range(spec, size).map(Some)
}

fn byte_range(spec: RangeSpec, size: u64) -> GatewayResult<(u64, u64)> {
    match spec {
        RangeSpec::Int { first, last } => {
            if first >= size {
                return Err(GatewayError::InvalidRange);
            }
            let end = last.map_or(size, |l| l.saturating_add(1).min(size));
            if end <= first {
                return Err(GatewayError::InvalidRange);
            }
            Ok((first, end))
        }
        RangeSpec::Suffix { length } => {
            if length == 0 || size == 0 {
                return Err(GatewayError::InvalidRange);
            }
            Ok((size.saturating_sub(length), size))
        }
        RangeSpec::Part(_) => Err(GatewayError::InvalidPartNumber),
    }
}

/// S3's conditional writes: `If-None-Match: *` creates only, `If-Match`
/// overwrites only that ETag (`*`: any object).
pub(crate) fn check_put_conditions(p: &PutParams, cur: Option<&ObjectMeta>) -> GatewayResult<()> {
    if p.if_none_match_any && cur.is_some() {
        return Err(GatewayError::PreconditionFailed);
    }
    if let Some(want) = &p.if_match {
        match cur {
            None => return Err(GatewayError::PreconditionFailed),
            Some(m) if want != "*" && want.trim_matches('"') != m.etag => {
                return Err(GatewayError::PreconditionFailed);
            }
            Some(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::object::Tail;

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn ranges_resolve_as_rfc7233_says() {
        use RangeSpec::{Int, Suffix};
        let int = |first, last| Int { first, last };
        // (size, range, served bytes start..end or None for 416)
        type Case = (u64, RangeSpec, Option<(u64, u64)>);
        let cases: &[Case] = &[
            (100, int(0, Some(0)), Some((0, 1))),
            (100, int(0, Some(9)), Some((0, 10))),
            (100, int(0, None), Some((0, 100))),
            (100, int(99, Some(99)), Some((99, 100))),
            (100, int(90, None), Some((90, 100))),
            // a last byte past the end is cut to the end
            (100, int(90, Some(500)), Some((90, 100))),
            (100, int(0, Some(u64::MAX)), Some((0, 100))),
            // a first byte at or past the end cannot be satisfied
            (100, int(100, None), None),
            (100, int(100, Some(200)), None),
            (100, int(u64::MAX, Some(u64::MAX)), None),
            (100, Suffix { length: 1 }, Some((99, 100))),
            (100, Suffix { length: 10 }, Some((90, 100))),
            (100, Suffix { length: 100 }, Some((0, 100))),
            // a suffix longer than the object is the whole object
            (100, Suffix { length: 500 }, Some((0, 100))),
            (100, Suffix { length: u64::MAX }, Some((0, 100))),
            (100, Suffix { length: 0 }, None),
            (1, int(0, Some(0)), Some((0, 1))),
            (1, int(0, None), Some((0, 1))),
            (1, int(1, None), None),
            (1, Suffix { length: 1 }, Some((0, 1))),
            // nothing of an empty object can be addressed by position
            (0, int(0, None), None),
            (0, int(0, Some(0)), None),
        ];
        for &(size, spec, want) in cases {
            match (byte_range(spec, size), want) {
                (Ok(got), Some(want)) => assert_eq!(got, want, "{spec:?} of {size}"),
                (Err(e), None) => {
                    assert!(
                        matches!(e, GatewayError::InvalidRange),
                        "{spec:?} of {size}: {e}"
                    );
                }
                (got, want) => panic!("{spec:?} of {size}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// `partNumber`: a part of what a multipart upload made, part 1 of
    /// anything else; no other part.
    #[test]
    fn parts_are_ranges_of_multipart_objects() {
        let tail = |size| Tail {
            tag: "t".into(),
            size,
            stripe_size: 4,
        };
        let mut meta = ObjectMeta {
            size: 12,
            tails: vec![tail(5), tail(5), tail(2)],
            upload_id: "u".into(),
            ..Default::default()
        };
        let part = |n, m: &ObjectMeta| resolve_range(RangeSpec::Part(n), m);
        assert_eq!(part(1, &meta).ok(), Some(Some((0, 5))));
        assert_eq!(part(2, &meta).ok(), Some(Some((5, 10))));
        assert_eq!(part(3, &meta).ok(), Some(Some((10, 12))));
        for n in [0, 4] {
            assert!(
                matches!(part(n, &meta), Err(GatewayError::InvalidPartNumber)),
                "{n}"
            );
        }
        meta.upload_id.clear();
        assert_eq!(
            part(1, &meta).ok(),
            Some(None),
            "a plain object is its part 1"
        );
        assert!(matches!(
            part(2, &meta),
            Err(GatewayError::InvalidPartNumber)
        ));
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Want {
        Serve,
        /// 412 Precondition Failed.
        Failed,
        /// 304 Not Modified.
        NotModified,
    }

    fn outcome(r: GatewayResult<()>) -> Want {
        match r {
            Ok(()) => Want::Serve,
            Err(GatewayError::PreconditionFailed) => Want::Failed,
            Err(GatewayError::NotModified { .. }) => Want::NotModified,
            Err(e) => panic!("unexpected error {e}"),
        }
    }

    /// GET/HEAD conditions: RFC 7232 section 6's order, which is also what
    /// S3 documents for the combinations (If-Match true beats a false
    /// If-Unmodified-Since; If-None-Match beats If-Modified-Since).
    #[test]
    fn get_conditions_follow_rfc7232_order() {
        use Want::*;
        let meta = ObjectMeta {
            etag: "abc".into(),
            // Last-Modified shows whole seconds: 1000
            mtime: 1000.5,
            ..Default::default()
        };
        type Case<'a> = (
            &'a str,
            Option<&'a [&'a str]>,
            Option<&'a [&'a str]>,
            Option<u64>,
            Option<u64>,
            Want,
        );
        // (what, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, outcome)
        let cases: &[Case] = &[
            ("no condition", None, None, None, None, Serve),
            ("If-Match bare", Some(&["abc"]), None, None, None, Serve),
            (
                "If-Match quoted",
                Some(&["\"abc\""]),
                None,
                None,
                None,
                Serve,
            ),
            ("If-Match *", Some(&["*"]), None, None, None, Serve),
            ("If-Match other", Some(&["abd"]), None, None, None, Failed),
            ("If-Match prefix", Some(&["ab"]), None, None, None, Failed),
            (
                "If-Match list",
                Some(&["x", "\"abc\""]),
                None,
                None,
                None,
                Serve,
            ),
            (
                "If-Match list, none",
                Some(&["x", "y"]),
                None,
                None,
                None,
                Failed,
            ),
            (
                "If-Unmodified-Since before",
                None,
                None,
                None,
                Some(999),
                Failed,
            ),
            (
                "If-Unmodified-Since same second",
                None,
                None,
                None,
                Some(1000),
                Serve,
            ),
            (
                "If-Unmodified-Since after",
                None,
                None,
                None,
                Some(2000),
                Serve,
            ),
            (
                "If-Match true overrides If-Unmodified-Since false",
                Some(&["abc"]),
                None,
                None,
                Some(10),
                Serve,
            ),
            (
                "If-Match false, If-Unmodified-Since true",
                Some(&["x"]),
                None,
                None,
                Some(2000),
                Failed,
            ),
            (
                "If-None-Match bare",
                None,
                Some(&["abc"]),
                None,
                None,
                NotModified,
            ),
            (
                "If-None-Match quoted",
                None,
                Some(&["\"abc\""]),
                None,
                None,
                NotModified,
            ),
            (
                "If-None-Match weak",
                None,
                Some(&["W/\"abc\""]),
                None,
                None,
                NotModified,
            ),
            (
                "If-None-Match *",
                None,
                Some(&["*"]),
                None,
                None,
                NotModified,
            ),
            ("If-None-Match other", None, Some(&["x"]), None, None, Serve),
            (
                "If-Modified-Since after",
                None,
                None,
                Some(2000),
                None,
                NotModified,
            ),
            (
                "If-Modified-Since same second",
                None,
                None,
                Some(1000),
                None,
                NotModified,
            ),
            (
                "If-Modified-Since before",
                None,
                None,
                Some(999),
                None,
                Serve,
            ),
            (
                "If-None-Match false makes If-Modified-Since ignored",
                None,
                Some(&["x"]),
                Some(2000),
                None,
                Serve,
            ),
            (
                "If-None-Match true, If-Modified-Since true",
                None,
                Some(&["abc"]),
                Some(10),
                None,
                NotModified,
            ),
            (
                "If-Match true, If-None-Match true",
                Some(&["abc"]),
                Some(&["abc"]),
                None,
                None,
                NotModified,
            ),
            (
                "412 before 304",
                Some(&["x"]),
                Some(&["abc"]),
                None,
                None,
                Failed,
            ),
            (
                "If-Unmodified-Since false before If-Modified-Since",
                None,
                None,
                Some(2000),
                Some(10),
                Failed,
            ),
            (
                "If-Match true, If-Modified-Since false",
                Some(&["abc"]),
                None,
                Some(2000),
                None,
                NotModified,
            ),
        ];
        let list = |l: Option<&[&str]>| {
            l.map(|l| l.iter().map(std::string::ToString::to_string).collect())
        };
        for &(what, im, inm, ims, ius, want) in cases {
            let p = GetParams {
                if_match: list(im),
                if_none_match: list(inm),
                if_modified_since: ims.map(at),
                if_unmodified_since: ius.map(at),
                ..Default::default()
            };
            assert_eq!(outcome(check_conditions(&p, &meta)), want, "{what}");
        }
        // a multipart ETag is compared whole
        let mp = ObjectMeta {
            etag: "0123abcd-2".into(),
            ..meta.clone()
        };
        let p = |e: &str| GetParams {
            if_match: Some(vec![e.into()]),
            ..Default::default()
        };
        assert_eq!(outcome(check_conditions(&p("\"0123abcd-2\""), &mp)), Serve);
        assert_eq!(outcome(check_conditions(&p("0123abcd"), &mp)), Failed);
    }

    /// PUT conditions (S3 conditional writes): If-None-Match: * creates
    /// only; If-Match overwrites only that ETag.
    #[test]
    fn put_conditions() {
        use Want::*;
        let cur = ObjectMeta {
            etag: "abc".into(),
            ..Default::default()
        };
        // (what, If-Match, If-None-Match: *, object exists, outcome)
        let cases: &[(&str, Option<&str>, bool, bool, Want)] = &[
            ("none, new", None, false, false, Serve),
            ("none, existing", None, false, true, Serve),
            ("If-None-Match *, new", None, true, false, Serve),
            ("If-None-Match *, existing", None, true, true, Failed),
            ("If-Match same", Some("abc"), false, true, Serve),
            ("If-Match same quoted", Some("\"abc\""), false, true, Serve),
            ("If-Match *, existing", Some("*"), false, true, Serve),
            ("If-Match other", Some("abd"), false, true, Failed),
            // radosgw answers 412 here, as RFC 7232 says; AWS answers 404
            ("If-Match, new", Some("abc"), false, false, Failed),
            ("If-Match *, new", Some("*"), false, false, Failed),
            ("both, existing", Some("abc"), true, true, Failed),
        ];
        for &(what, im, inm, exists, want) in cases {
            let p = PutParams {
                if_match: im.map(String::from),
                if_none_match_any: inm,
                ..Default::default()
            };
            let got = check_put_conditions(&p, exists.then_some(&cur));
            assert_eq!(outcome(got), want, "{what}");
        }
    }
}
