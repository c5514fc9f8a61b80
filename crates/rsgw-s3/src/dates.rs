//! Request dates, checked before s3s sees them.
//!
//! - The request-time window of SigV2 header authentication. SigV4 carries
//!   its own check in s3s; SigV2 signs the `Date` (or `x-amz-date`) header
//!   but s3s does not compare it with the clock, so a captured SigV2
//!   request would replay for ever. S3 and radosgw refuse one more than 15
//!   minutes off, as here.
//! - The shape of SigV4 dates (`x-amz-date`, `X-Amz-Date`, the credential
//!   scope's day): s3s 0.14 turns each byte into a digit before checking it
//!   is one, which overflows on a byte below `'0'` (a panic where overflow
//!   checks are on; found by the `forged_auth` fuzz target). A date that is
//!   not all digits where digits belong is refused here with S3's error.
//! - A presigned URL's `X-Amz-Expires`: S3 allows at most 7 days
//!   (604800 s). s3s takes any `u32` and refuses a negative number as a
//!   missing field (`400 InvalidRequest`); radosgw answers both `403
//!   AccessDenied`, and so does rsgw. (AWS: `400
//!   AuthorizationQueryParametersError`; clients treat either as final.)

use std::time::{Duration, SystemTime};

use rsgw_time::{is_amz_date, is_amz_day as is_day};

/// How far a request's time may be from the gateway's clock.
pub(crate) const MAX_SKEW: Duration = Duration::from_secs(15 * 60);

/// Why a request is refused for its dates.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SkewError {
    /// No `Date` or `x-amz-date` that parses as a date.
    NoDate,
    /// The request's time is too far from now.
    TooSkewed,
    /// A SigV4 credential scope whose day is no `YYYYMMDD`: in the
    /// Authorization header, or in a presigned URL's query.
    MalformedScope {
        /// In the query string (a presigned URL), not the header.
        query: bool,
    },
    /// A presigned URL's `X-Amz-Expires` that is not a whole number of
    /// seconds from 0 to [`MAX_PRESIGNED_EXPIRY`].
    ExpiresOutOfRange,
}

/// The longest a SigV4 presigned URL may be valid: 7 days, in seconds.
pub(crate) const MAX_PRESIGNED_EXPIRY: u64 = 7 * 24 * 3600;

impl SkewError {
    /// The S3 error: status, code and message.
    pub(crate) fn s3(&self) -> (http::StatusCode, &'static str, &'static str) {
        match self {
            SkewError::TooSkewed => (
                http::StatusCode::FORBIDDEN,
                "RequestTimeTooSkewed",
                "The difference between the request time and the current time is too large.",
            ),
            SkewError::NoDate => (
                http::StatusCode::FORBIDDEN,
                "AccessDenied",
                "AWS authentication requires a valid Date or x-amz-date header.",
            ),
            SkewError::MalformedScope { query: false } => (
                http::StatusCode::BAD_REQUEST,
                "AuthorizationHeaderMalformed",
                "The authorization header is malformed; the credential date must be YYYYMMDD.",
            ),
            SkewError::MalformedScope { query: true } => (
                http::StatusCode::BAD_REQUEST,
                "AuthorizationQueryParametersError",
                "X-Amz-Date must be YYYYMMDD'T'HHMMSS'Z' and X-Amz-Credential's date YYYYMMDD.",
            ),
            // radosgw's answer (AWS: 400 AuthorizationQueryParametersError)
            SkewError::ExpiresOutOfRange => (
                http::StatusCode::FORBIDDEN,
                "AccessDenied",
                "X-Amz-Expires must be a number of seconds from 0 to 604800.",
            ),
        }
    }
}

/// The day of a credential `KEY/YYYYMMDD/region/s3/aws4_request`, if it has one.
fn scope_day(credential: &[u8]) -> Option<&[u8]> {
    let mut parts = credential.split(|b| *b == b'/');
    parts.next()?;
    parts.next()
}

/// What follows `Credential=` in an Authorization header read as s3s reads
/// SigV4 ones: the algorithm word, blanks, then `Credential=`.
fn sigv4_credential(auth: &[u8]) -> Option<&[u8]> {
    let word = auth.iter().position(u8::is_ascii_whitespace)?;
    let rest = &auth[word..];
    let blanks = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
    rest[blanks..].strip_prefix(b"Credential=")
}

/// Checks the dates a SigV4 request carries: the `x-amz-date` header and
/// the Authorization header's credential day, or a presigned URL's
/// `X-Amz-Date` and `X-Amz-Credential` day. Requests without SigV4 pass.
pub(crate) fn check_sigv4_shape(
    headers: &http::HeaderMap,
    query: Option<&str>,
) -> Result<(), SkewError> {
    let auth = headers
        .get(http::header::AUTHORIZATION)
        .map(http::HeaderValue::as_bytes);
    // s3s reads any Authorization that is not SigV2 as SigV4, whatever its
    // algorithm name: a word, blanks, then `Credential=`; the key runs up to
    // the first '/', commas included, and the day is the next field
    if let Some(credential) = auth.and_then(sigv4_credential) {
        if scope_day(credential).is_some_and(|d| !is_day(d)) {
            return Err(SkewError::MalformedScope { query: false });
        }
        if headers
            .get_all("x-amz-date")
            .iter()
            .any(|d| !is_amz_date(d.as_bytes()))
        {
            return Err(SkewError::NoDate);
        }
    }
    for pair in query.unwrap_or_default().split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        // s3s decodes names as well as values (`X%2DAmz%2DDate` is `X-Amz-Date`)
        let value = percent_decode(value);
        let bad = match percent_decode(name).as_slice() {
            b"X-Amz-Date" => !is_amz_date(&value),
            b"X-Amz-Credential" => scope_day(&value).is_some_and(|d| !is_day(d)),
            b"X-Amz-Expires" if !is_expiry(&value) => return Err(SkewError::ExpiresOutOfRange),
            _ => false,
        };
        if bad {
            return Err(SkewError::MalformedScope { query: true });
        }
    }
    Ok(())
}

/// Whether a presigned URL's `X-Amz-Expires` is decimal seconds within
/// S3's limit (radosgw and AWS take no sign, blanks or other bases).
fn is_expiry(value: &[u8]) -> bool {
    !value.is_empty()
        && value.iter().all(u8::is_ascii_digit)
        && std::str::from_utf8(value)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|secs| secs <= MAX_PRESIGNED_EXPIRY)
}

/// `%XX` decoding of a query value (`+` stays: S3 signs it as sent).
pub(crate) fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|c| hex(*c)),
                b.get(i + 2).and_then(|c| hex(*c)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Checks the time of a request signed with SigV2 in its `Authorization`
/// header (`AWS key:signature`); other requests pass. `x-amz-date` wins
/// over `Date`, as in SigV2's string to sign.
pub(crate) fn check_sigv2(headers: &http::HeaderMap, now: SystemTime) -> Result<(), SkewError> {
    let sigv2 = headers
        .get(http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("AWS "));
    if !sigv2 {
        return Ok(());
    }
    let date = headers
        .get("x-amz-date")
        .or_else(|| headers.get(http::header::DATE))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v.trim()).ok())
        .ok_or(SkewError::NoDate)?;
    let skew = match now.duration_since(date) {
        Ok(behind) => behind,
        Err(ahead) => ahead.duration(),
    };
    if skew > MAX_SKEW {
        return Err(SkewError::TooSkewed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn sigv2_dates_must_be_near() {
        let now = httpdate::parse_http_date("Mon, 30 Nov 2026 12:00:00 GMT").expect("date");
        let v2 = ("authorization", "AWS AKID:c2ln");
        let ok = headers(&[v2, ("date", "Mon, 30 Nov 2026 12:14:00 GMT")]);
        assert_eq!(check_sigv2(&ok, now), Ok(()));
        let old = headers(&[v2, ("date", "Mon, 30 Nov 2026 11:44:00 GMT")]);
        assert_eq!(check_sigv2(&old, now), Err(SkewError::TooSkewed));
        let ahead = headers(&[v2, ("date", "Mon, 30 Nov 2026 12:16:00 GMT")]);
        assert_eq!(check_sigv2(&ahead, now), Err(SkewError::TooSkewed));
        // x-amz-date wins over Date
        let both = headers(&[
            v2,
            ("date", "Mon, 30 Nov 2026 12:00:00 GMT"),
            ("x-amz-date", "Sun, 01 Nov 2026 12:00:00 GMT"),
        ]);
        assert_eq!(check_sigv2(&both, now), Err(SkewError::TooSkewed));
        let none = headers(&[v2, ("date", "yesterday")]);
        assert_eq!(check_sigv2(&none, now), Err(SkewError::NoDate));
        // SigV4 and anonymous requests are not this check's
        let v4 = headers(&[("authorization", "AWS4-HMAC-SHA256 Credential=x")]);
        assert_eq!(check_sigv2(&v4, now), Ok(()));
        assert_eq!(check_sigv2(&headers(&[]), now), Ok(()));
    }

    #[test]
    fn sigv4_dates_must_be_digits() {
        let auth = |day: &str| {
            format!(
                "AWS4-HMAC-SHA256 Credential=AKID/{day}/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"
            )
        };
        let good = auth("20261130");
        let ok = headers(&[("authorization", &good), ("x-amz-date", "20261130T120000Z")]);
        assert_eq!(check_sigv4_shape(&ok, None), Ok(()));
        // the fuzzer's find: a dot in the scope's day
        let dotted = auth("202.1130");
        let bad = headers(&[
            ("authorization", &dotted),
            ("x-amz-date", "20261130T120000Z"),
        ]);
        assert_eq!(
            check_sigv4_shape(&bad, None),
            Err(SkewError::MalformedScope { query: false })
        );
        let bad_date = headers(&[("authorization", &good), ("x-amz-date", "2026113.T120000Z")]);
        assert_eq!(check_sigv4_shape(&bad_date, None), Err(SkewError::NoDate));
        // its third: the key runs up to the first '/', past a comma
        let comma = "AWAC-SHA256 Credential=FaZZAus-east-turee1,0/+-east-1/e=0000";
        let bad = headers(&[("authorization", comma)]);
        assert_eq!(
            check_sigv4_shape(&bad, None),
            Err(SkewError::MalformedScope { query: false })
        );
        // its second find: another algorithm name, a space in the day
        let odd = "AWS4M-AHC-SHA256 Credential=AKID/2 261130/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0";
        let bad = headers(&[("authorization", odd)]);
        assert_eq!(
            check_sigv4_shape(&bad, None),
            Err(SkewError::MalformedScope { query: false })
        );
        // SigV2 keeps its RFC 1123 x-amz-date
        let v2 = headers(&[
            ("authorization", "AWS AKID:c2ln"),
            ("x-amz-date", "Mon, 30 Nov 2026 12:00:00 GMT"),
        ]);
        assert_eq!(check_sigv4_shape(&v2, None), Ok(()));
        let q = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261130%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261130T120000Z";
        assert_eq!(check_sigv4_shape(&headers(&[]), Some(q)), Ok(()));
        let q = "X-Amz-Credential=AKID%2F2026%2C130%2Fus-east-1%2Fs3%2Faws4_request";
        assert_eq!(
            check_sigv4_shape(&headers(&[]), Some(q)),
            Err(SkewError::MalformedScope { query: true })
        );
        assert_eq!(
            check_sigv4_shape(&headers(&[]), Some("X-Amz-Date=2026-11-30")),
            Err(SkewError::MalformedScope { query: true })
        );
    }

    #[test]
    fn presigned_expiry_is_at_most_seven_days() {
        let query = |expires: &str| {
            format!(
                "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261130%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261130T120000Z&X-Amz-Expires={expires}&X-Amz-SignedHeaders=host&X-Amz-Signature=00"
            )
        };
        let out = || Err(SkewError::ExpiresOutOfRange);
        let table = [
            ("0", Ok(())),
            ("1", Ok(())),
            ("3600", Ok(())),
            ("604800", Ok(())),
            ("00604800", Ok(())),
            ("604801", out()),
            ("-1", out()),
            ("%2D1", out()),
            ("10000000000", out()),
            ("99999999999999999999999", out()),
            ("+60", out()),
            ("%2060", out()),
            ("6e2", out()),
            ("", out()),
        ];
        for (expires, want) in table {
            let q = query(expires);
            assert_eq!(
                check_sigv4_shape(&headers(&[]), Some(&q)),
                want,
                "{expires:?}"
            );
        }
        // the name decoded as s3s decodes it
        assert_eq!(
            check_sigv4_shape(&headers(&[]), Some("X%2DAmz%2DExpires=604801")),
            out()
        );
        // a query without presigning keeps its own parameters
        assert_eq!(
            check_sigv4_shape(&headers(&[]), Some("list-type=2&max-keys=604801")),
            Ok(())
        );
    }

    /// Each refusal as the client sees it: S3's status and code.
    #[test]
    fn refusals_are_the_s3_errors_clients_expect() {
        let table = [
            (SkewError::TooSkewed, 403, "RequestTimeTooSkewed"),
            (SkewError::NoDate, 403, "AccessDenied"),
            (
                SkewError::MalformedScope { query: false },
                400,
                "AuthorizationHeaderMalformed",
            ),
            (
                SkewError::MalformedScope { query: true },
                400,
                "AuthorizationQueryParametersError",
            ),
            (SkewError::ExpiresOutOfRange, 403, "AccessDenied"),
        ];
        for (e, status, code) in table {
            let (s, c, m) = e.s3();
            assert_eq!((s.as_u16(), c), (status, code), "{e:?}");
            assert!(m.ends_with('.'), "{e:?}: a sentence");
        }
    }

    /// The status and code a request gets for its dates (`None`: let through).
    type Verdict = Option<(u16, &'static str)>;

    /// The status and code a SigV2 request's dates get (`None`: let through).
    fn sigv2_verdict(h: &http::HeaderMap, now: SystemTime) -> Verdict {
        check_sigv2(h, now)
            .err()
            .map(|e| e.s3())
            .map(|(s, c, _)| (s.as_u16(), c))
    }

    #[test]
    fn sigv2_request_time_window_is_15_minutes_either_way() {
        let now = httpdate::parse_http_date("Mon, 30 Nov 2026 12:00:00 GMT").expect("date");
        let v2 = ("authorization", "AWS AKID:c2lnbmF0dXJl");
        const SKEWED: Verdict = Some((403, "RequestTimeTooSkewed"));
        type Headers<'a> = &'a [(&'static str, &'a str)];
        let table: &[(&str, Headers, Verdict)] = &[
            (
                "now",
                &[v2, ("date", "Mon, 30 Nov 2026 12:00:00 GMT")],
                None,
            ),
            (
                "15 minutes behind",
                &[v2, ("date", "Mon, 30 Nov 2026 11:45:00 GMT")],
                None,
            ),
            (
                "15 minutes and a second behind",
                &[v2, ("date", "Mon, 30 Nov 2026 11:44:59 GMT")],
                SKEWED,
            ),
            (
                "15 minutes ahead",
                &[v2, ("date", "Mon, 30 Nov 2026 12:15:00 GMT")],
                None,
            ),
            (
                "15 minutes and a second ahead",
                &[v2, ("date", "Mon, 30 Nov 2026 12:15:01 GMT")],
                SKEWED,
            ),
            (
                "a day behind (a replayed request)",
                &[v2, ("date", "Sun, 29 Nov 2026 12:00:00 GMT")],
                SKEWED,
            ),
            (
                "the epoch",
                &[v2, ("date", "Thu, 01 Jan 1970 00:00:00 GMT")],
                SKEWED,
            ),
            (
                "the last second of year 9999",
                &[v2, ("date", "Fri, 31 Dec 9999 23:59:59 GMT")],
                SKEWED,
            ),
            (
                "RFC 850's form",
                &[v2, ("date", "Monday, 30-Nov-26 12:10:00 GMT")],
                None,
            ),
            (
                "asctime's form",
                &[v2, ("date", "Mon Nov 30 12:10:00 2026")],
                None,
            ),
            (
                "blanks around the date",
                &[v2, ("date", "  Mon, 30 Nov 2026 12:00:00 GMT  ")],
                None,
            ),
            (
                "x-amz-date near, Date stale: x-amz-date counts",
                &[
                    v2,
                    ("date", "Sun, 01 Nov 2026 12:00:00 GMT"),
                    ("x-amz-date", "Mon, 30 Nov 2026 12:05:00 GMT"),
                ],
                None,
            ),
            (
                "x-amz-date stale, Date near: x-amz-date counts",
                &[
                    v2,
                    ("date", "Mon, 30 Nov 2026 12:00:00 GMT"),
                    ("x-amz-date", "Mon, 30 Nov 2026 11:00:00 GMT"),
                ],
                SKEWED,
            ),
            (
                "x-amz-date garbage, Date near: x-amz-date counts",
                &[
                    v2,
                    ("date", "Mon, 30 Nov 2026 12:00:00 GMT"),
                    ("x-amz-date", "soon"),
                ],
                NO_DATE,
            ),
            ("no date at all", &[v2], NO_DATE),
            ("an empty Date", &[v2, ("date", "")], NO_DATE),
            ("a word", &[v2, ("date", "yesterday")], NO_DATE),
            (
                "an impossible day",
                &[v2, ("date", "Mon, 31 Nov 2026 12:00:00 GMT")],
                NO_DATE,
            ),
            // not SigV2 header authentication: not this check's
            (
                "SigV4, stale Date",
                &[
                    (
                        "authorization",
                        "AWS4-HMAC-SHA256 Credential=AKID/20261101/us-east-1/s3/aws4_request",
                    ),
                    ("date", "Sun, 01 Nov 2026 12:00:00 GMT"),
                ],
                None,
            ),
            (
                "anonymous, stale Date",
                &[("date", "Sun, 01 Nov 2026 12:00:00 GMT")],
                None,
            ),
            (
                "`aws ` in lower case is no SigV2 to s3s either",
                &[("authorization", "aws AKID:c2ln")],
                None,
            ),
        ];
        for (why, pairs, want) in table {
            assert_eq!(sigv2_verdict(&headers(pairs), now), *want, "{why}");
        }
        // a Date that is not even text
        let mut h = headers(&[v2]);
        h.insert(
            "date",
            http::HeaderValue::from_bytes(b"Mon, 30 Nov 2026 12:00:00 GMT\xff").expect("obs-text"),
        );
        assert_eq!(sigv2_verdict(&h, now), NO_DATE, "a Date that is not UTF-8");
    }

    /// The status and code a request's SigV4 dates get (`None`: let through).
    fn sigv4_verdict(h: &http::HeaderMap, query: Option<&str>) -> Verdict {
        check_sigv4_shape(h, query)
            .err()
            .map(|e| e.s3())
            .map(|(s, c, _)| (s.as_u16(), c))
    }

    const HEADER_MALFORMED: Verdict = Some((400, "AuthorizationHeaderMalformed"));
    const QUERY_MALFORMED: Verdict = Some((400, "AuthorizationQueryParametersError"));
    const NO_DATE: Verdict = Some((403, "AccessDenied"));

    #[test]
    fn sigv4_header_dates_must_have_their_shape() {
        let auth = |day: &str| {
            format!(
                "AWS4-HMAC-SHA256 Credential=AKID/{day}/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=00"
            )
        };
        let good = auth("20261130");
        let table: Vec<(&str, String, Option<&str>, Verdict)> = vec![
            ("well formed", good.clone(), Some("20261130T120000Z"), None),
            // s3s answers the missing header itself
            ("no x-amz-date", good.clone(), None, None),
            // s3s compares the two days (and answers 403 SignatureDoesNotMatch)
            (
                "scope day and x-amz-date's day differ",
                auth("20261129"),
                Some("20261130T120000Z"),
                None,
            ),
            (
                "a 7-digit day",
                auth("2026113"),
                Some("20261130T120000Z"),
                HEADER_MALFORMED,
            ),
            (
                "a 9-digit day",
                auth("202611300"),
                Some("20261130T120000Z"),
                HEADER_MALFORMED,
            ),
            (
                "an ISO day with dashes",
                auth("2026-11-30"),
                Some("20261130T120000Z"),
                HEADER_MALFORMED,
            ),
            (
                "a letter O for a zero",
                auth("2026113O"),
                Some("20261130T120000Z"),
                HEADER_MALFORMED,
            ),
            (
                "a byte below '0' (the fuzzer's overflow)",
                auth("2026 130"),
                Some("20261130T120000Z"),
                HEADER_MALFORMED,
            ),
            (
                "an empty day",
                auth(""),
                Some("20261130T120000Z"),
                HEADER_MALFORMED,
            ),
            (
                "a tab before Credential, which s3s also takes",
                good.replacen(' ', "\t", 1).replace("20261130", "2026.130"),
                None,
                HEADER_MALFORMED,
            ),
            (
                "several blanks before Credential",
                good.replacen(' ', "   ", 1).replace("20261130", "2026.130"),
                None,
                HEADER_MALFORMED,
            ),
            (
                "no day at all (s3s refuses the header itself)",
                "AWS4-HMAC-SHA256 Credential=AKID, SignedHeaders=host, Signature=00".into(),
                None,
                None,
            ),
            (
                "no Credential (s3s refuses the header itself)",
                "AWS4-HMAC-SHA256 SignedHeaders=host".into(),
                Some("garbage"),
                None,
            ),
            (
                "x-amz-date without its Z",
                good.clone(),
                Some("20261130T120000"),
                NO_DATE,
            ),
            (
                "x-amz-date with a lower-case t",
                good.clone(),
                Some("20261130t120000Z"),
                NO_DATE,
            ),
            (
                "x-amz-date with a colon in the time",
                good.clone(),
                Some("20261130T12:000Z"),
                NO_DATE,
            ),
            (
                "x-amz-date as an HTTP date",
                good.clone(),
                Some("Mon, 30 Nov 2026 12:00:00 GMT"),
                NO_DATE,
            ),
            ("an empty x-amz-date", good.clone(), Some(""), NO_DATE),
            (
                "SigV2 keeps its HTTP-date x-amz-date",
                "AWS AKID:c2ln".into(),
                Some("Mon, 30 Nov 2026 12:00:00 GMT"),
                None,
            ),
        ];
        for (why, authorization, date, want) in table {
            let mut h = headers(&[("authorization", &authorization)]);
            if let Some(d) = date {
                h.insert("x-amz-date", d.parse().expect("header value"));
            }
            assert_eq!(sigv4_verdict(&h, None), want, "{why}");
        }
        // every x-amz-date must be well formed, not just the first
        let mut h = headers(&[("authorization", &good), ("x-amz-date", "20261130T120000Z")]);
        h.append("x-amz-date", "2026113.T120000Z".parse().expect("value"));
        assert_eq!(sigv4_verdict(&h, None), NO_DATE, "a second, bad x-amz-date");
    }

    #[test]
    fn presigned_query_dates_must_have_their_shape() {
        let table: &[(&str, &str, Verdict)] = &[
            (
                "well formed",
                "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20261130%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261130T120000Z&X-Amz-Expires=60",
                None,
            ),
            (
                "lower-case escapes",
                "X-Amz-Credential=AKID%2f20261130%2fus-east-1%2fs3%2faws4_request",
                None,
            ),
            (
                "slashes sent unescaped",
                "X-Amz-Credential=AKID/20261130/us-east-1/s3/aws4_request",
                None,
            ),
            ("an escaped Z", "X-Amz-Date=20261130T120000%5A", None),
            (
                "a comma in the escaped day",
                "X-Amz-Credential=AKID%2F2026%2C130%2Fus-east-1%2Fs3%2Faws4_request",
                QUERY_MALFORMED,
            ),
            (
                "a plus in the day (a space to s3s)",
                "X-Amz-Credential=AKID%2F2026+130%2Fus-east-1%2Fs3%2Faws4_request",
                QUERY_MALFORMED,
            ),
            (
                "a 7-digit day",
                "X-Amz-Credential=AKID%2F2026113%2Fus-east-1%2Fs3%2Faws4_request",
                QUERY_MALFORMED,
            ),
            ("an ISO date", "X-Amz-Date=2026-11-30", QUERY_MALFORMED),
            (
                "an escaped dot in the date",
                "X-Amz-Date=2026%2E130T120000Z",
                QUERY_MALFORMED,
            ),
            ("an empty date", "X-Amz-Date=", QUERY_MALFORMED),
            ("a date without a value", "X-Amz-Date", QUERY_MALFORMED),
            (
                "a bad date after good parameters",
                "prefix=a&X-Amz-Date=20261130T120000Z&X-Amz-Date=20261130T1200000",
                QUERY_MALFORMED,
            ),
            // s3s decodes names too: an escaped name is the same parameter
            (
                "an escaped name",
                "X%2DAmz%2DDate=2026.130T120000Z",
                QUERY_MALFORMED,
            ),
            (
                "an escaped credential name",
                "X-Amz-Cr%65dential=AKID%2F2026.130%2Fus-east-1%2Fs3%2Faws4_request",
                QUERY_MALFORMED,
            ),
            // s3s looks names up exactly: another case is another parameter
            ("a lower-case name", "x-amz-date=soon", None),
            (
                "other parameters are not looked at",
                "prefix=%ZZ&max-keys=2&X-Amz-Dates=soon",
                None,
            ),
            ("an empty query", "", None),
        ];
        for (why, query, want) in table {
            assert_eq!(sigv4_verdict(&headers(&[]), Some(query)), *want, "{why}");
        }
        // the query is checked even when the header is fine
        let h = headers(&[
            (
                "authorization",
                "AWS4-HMAC-SHA256 Credential=AKID/20261130/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00",
            ),
            ("x-amz-date", "20261130T120000Z"),
        ]);
        assert_eq!(
            sigv4_verdict(&h, Some("X-Amz-Date=soon")),
            QUERY_MALFORMED,
            "header fine, query not"
        );
    }

    #[test]
    fn query_values_are_percent_decoded_as_s3s_does() {
        let table: &[(&str, &[u8])] = &[
            ("", b""),
            ("abc", b"abc"),
            ("%2F", b"/"),
            ("%2f", b"/"),
            ("a%20b", b"a b"),
            ("a+b", b"a+b"),
            ("%C3%A9", "\u{e9}".as_bytes()),
            ("%", b"%"),
            ("%2", b"%2"),
            ("%zz", b"%zz"),
            ("%%41", b"%A"),
            ("100%", b"100%"),
        ];
        for (raw, want) in table {
            assert_eq!(percent_decode(raw), *want, "{raw:?}");
        }
    }
}
