//! The shape of a request's signature, checked before s3s verifies it, so
//! that a signature S3 would not even read gets S3's answer rather than
//! s3s' (which verifies any algorithm name as SigV4, and answers a broken
//! header `400 InvalidRequest` or, for a scope naming another service,
//! `405`):
//!
//! - an `Authorization` header of an algorithm S3 does not know
//!   (`AWS4-HMAC-SHA512`, `Bearer`): `400 InvalidArgument`, as AWS and
//!   radosgw answer;
//! - a SigV4 header without `Credential`, `SignedHeaders` or `Signature`,
//!   or whose credential is not `key/day/region/s3/aws4_request`: `400
//!   AuthorizationHeaderMalformed` (AWS; radosgw answers `400
//!   InvalidArgument` and takes another service than `s3`);
//! - a SigV4 header request with neither `x-amz-date` nor `Date`: `403
//!   AccessDenied` (AWS and radosgw);
//! - a presigned URL (`X-Amz-Algorithm` in its query) of another algorithm,
//!   or without `X-Amz-Credential`, `-Date`, `-SignedHeaders`,
//!   `-Signature` or `-Expires`, or with a malformed credential: `400
//!   AuthorizationQueryParametersError` (AWS; radosgw: `403 AccessDenied`).
//!
//! The dates inside a signature are `crate::dates`' to check.

use crate::dates::percent_decode;

/// The one SigV4 algorithm S3 signs with.
const SIGV4: &str = "AWS4-HMAC-SHA256";

/// Why a request's signature is refused unread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShapeError {
    /// An `Authorization` header of an algorithm S3 does not know.
    UnknownAlgorithm,
    /// A SigV4 `Authorization` header missing a field, or whose credential
    /// scope is not S3's.
    MalformedHeader,
    /// A SigV4 header request that carries no date.
    Undated,
    /// A presigned URL of another algorithm, missing a field, or whose
    /// credential scope is not S3's.
    MalformedQuery,
}

impl ShapeError {
    /// The S3 error: status, code and message.
    pub(crate) fn s3(self) -> (http::StatusCode, &'static str, &'static str) {
        match self {
            ShapeError::UnknownAlgorithm => (
                http::StatusCode::BAD_REQUEST,
                "InvalidArgument",
                "Unsupported Authorization Type",
            ),
            ShapeError::MalformedHeader => (
                http::StatusCode::BAD_REQUEST,
                "AuthorizationHeaderMalformed",
                "The authorization header is malformed; it must be AWS4-HMAC-SHA256 \
                 Credential=<key>/<yyyymmdd>/<region>/s3/aws4_request, SignedHeaders=..., \
                 Signature=...",
            ),
            ShapeError::Undated => (
                http::StatusCode::FORBIDDEN,
                "AccessDenied",
                "AWS authentication requires a valid Date or x-amz-date header",
            ),
            ShapeError::MalformedQuery => (
                http::StatusCode::BAD_REQUEST,
                "AuthorizationQueryParametersError",
                "Query-string authentication version 4 requires the X-Amz-Algorithm \
                 (AWS4-HMAC-SHA256), X-Amz-Credential (<key>/<yyyymmdd>/<region>/s3/aws4_request), \
                 X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.",
            ),
        }
    }
}

/// Checks the shape of a request's `Authorization` header and of a
/// presigned URL's query; requests with neither pass, as do SigV2 ones
/// (`AWS key:signature`, and its query form).
pub(crate) fn check(headers: &http::HeaderMap, query: Option<&str>) -> Result<(), ShapeError> {
    if let Some(auth) = headers.get(http::header::AUTHORIZATION) {
        check_header(auth.as_bytes())?;
        let dated = headers.contains_key("x-amz-date") || headers.contains_key(http::header::DATE);
        if !dated && !is_sigv2(auth.as_bytes()) {
            return Err(ShapeError::Undated);
        }
    }
    match query {
        Some(q) => check_query(q),
        None => Ok(()),
    }
}

/// Whether an `Authorization` header is SigV2's (`AWS key:signature`).
fn is_sigv2(auth: &[u8]) -> bool {
    auth.starts_with(b"AWS ")
}

/// An `Authorization` header: SigV2, or SigV4 with its three fields and
/// S3's credential scope.
fn check_header(auth: &[u8]) -> Result<(), ShapeError> {
    if is_sigv2(auth) {
        return Ok(());
    }
    let text = std::str::from_utf8(auth).map_err(|_| ShapeError::MalformedHeader)?;
    let (algorithm, fields) = text.split_once(' ').unwrap_or((text, ""));
    if algorithm != SIGV4 {
        return Err(ShapeError::UnknownAlgorithm);
    }
    let (mut credential, mut signed, mut signature) = (None, false, false);
    for field in fields.split(',') {
        match field.trim().split_once('=') {
            Some(("Credential", v)) => credential = Some(v),
            Some(("SignedHeaders", v)) => signed = !v.is_empty(),
            Some(("Signature", v)) => signature = !v.is_empty(),
            _ => return Err(ShapeError::MalformedHeader),
        }
    }
    match credential {
        Some(c) if signed && signature && is_s3_scope(c.as_bytes()) => Ok(()),
        _ => Err(ShapeError::MalformedHeader),
    }
}

/// A presigned URL's query: SigV4's (`X-Amz-Algorithm` named) must have
/// its algorithm, every field and S3's credential scope; any other query
/// passes.
fn check_query(query: &str) -> Result<(), ShapeError> {
    let mut algorithm = None;
    let mut credential = None;
    let mut present = 0u8;
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value);
        let field = match percent_decode(name).as_slice() {
            b"X-Amz-Algorithm" => {
                algorithm = Some(value);
                continue;
            }
            b"X-Amz-Credential" => {
                credential = Some(value);
                continue;
            }
            b"X-Amz-Date" => 1,
            b"X-Amz-SignedHeaders" => 2,
            b"X-Amz-Signature" => 4,
            b"X-Amz-Expires" => 8,
            _ => continue,
        };
        if !value.is_empty() {
            present |= field;
        }
    }
    let Some(algorithm) = algorithm else {
        return Ok(());
    };
    let scoped = credential.is_some_and(|c| is_s3_scope(&c));
    if algorithm == SIGV4.as_bytes() && scoped && present == 0b1111 {
        Ok(())
    } else {
        Err(ShapeError::MalformedQuery)
    }
}

/// Whether a credential is `key/day/region/s3/aws4_request` (the day's
/// digits are `crate::dates`' to check).
fn is_s3_scope(credential: &[u8]) -> bool {
    let parts: Vec<&[u8]> = credential.split(|b| *b == b'/').collect();
    matches!(
        parts.as_slice(),
        [key, day, _region, b"s3", b"aws4_request"] if !key.is_empty() && !day.is_empty()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "AWS4-HMAC-SHA256 Credential=AKID/20261203/us-east-1/s3/aws4_request, \
                        SignedHeaders=host;x-amz-date, Signature=abcdef";

    fn headers(pairs: &[(&'static str, &str)]) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, http::HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    fn dated(auth: &str) -> Result<(), ShapeError> {
        check(
            &headers(&[("authorization", auth), ("x-amz-date", "20261203T120000Z")]),
            None,
        )
    }

    #[test]
    fn sigv4_headers_must_have_s3s_shape() {
        assert_eq!(dated(GOOD), Ok(()));
        // any region, and no blank after the commas
        assert_eq!(
            dated(
                "AWS4-HMAC-SHA256 Credential=K/20261203/default/s3/aws4_request,SignedHeaders=host,Signature=ab"
            ),
            Ok(())
        );
        assert_eq!(dated("AWS AKID:c2lnbmF0dXJl"), Ok(()));
        for unknown in [
            GOOD.replace("SHA256", "SHA512"),
            "Bearer token".into(),
            "AWS4-HMAC-SHA256".replace("AWS4", "aws4"),
        ] {
            assert_eq!(
                dated(&unknown),
                Err(ShapeError::UnknownAlgorithm),
                "{unknown}"
            );
        }
        for malformed in [
            "AWS4-HMAC-SHA256 nonsense".to_string(),
            "AWS4-HMAC-SHA256 ".into(),
            GOOD.replace("/s3/", "/ec2/"),
            GOOD.replace("/aws4_request", "/aws5_request"),
            GOOD.replace("AKID/", ""),
            GOOD.replace(", Signature=abcdef", ""),
            GOOD.replace("SignedHeaders=host;x-amz-date, ", ""),
            GOOD.replace("Signature=abcdef", "Signature="),
            GOOD.replace("Credential=", "Credentials="),
        ] {
            assert_eq!(
                dated(&malformed),
                Err(ShapeError::MalformedHeader),
                "{malformed}"
            );
        }
    }

    #[test]
    fn sigv4_headers_need_a_date() {
        assert_eq!(
            check(&headers(&[("authorization", GOOD)]), None),
            Err(ShapeError::Undated)
        );
        let with_date = headers(&[
            ("authorization", GOOD),
            ("date", "Thu, 03 Dec 2026 12:00:00 GMT"),
        ]);
        assert_eq!(check(&with_date, None), Ok(()));
        // SigV2's date is crate::dates' to check; no header, no signature
        assert_eq!(
            check(&headers(&[("authorization", "AWS AKID:c2ln")]), None),
            Ok(())
        );
        assert_eq!(check(&http::HeaderMap::new(), None), Ok(()));
    }

    const PRESIGNED: &str = "X-Amz-Algorithm=AWS4-HMAC-SHA256\
        &X-Amz-Credential=AKID%2F20261203%2Fus-east-1%2Fs3%2Faws4_request\
        &X-Amz-Date=20261203T120000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host\
        &X-Amz-Signature=abcdef";

    fn query(q: &str) -> Result<(), ShapeError> {
        check(&http::HeaderMap::new(), Some(q))
    }

    #[test]
    fn presigned_queries_must_have_every_field() {
        assert_eq!(query(PRESIGNED), Ok(()));
        assert_eq!(query("list-type=2&prefix=a"), Ok(()));
        // SigV2's query form
        assert_eq!(
            query("AWSAccessKeyId=AKID&Expires=1800000000&Signature=abc"),
            Ok(())
        );
        let dropped = |field: &str| {
            PRESIGNED
                .split('&')
                .filter(|p| !p.starts_with(field))
                .collect::<Vec<_>>()
                .join("&")
        };
        for field in [
            "X-Amz-Credential",
            "X-Amz-Date",
            "X-Amz-Expires",
            "X-Amz-SignedHeaders",
            "X-Amz-Signature",
        ] {
            assert_eq!(
                query(&dropped(field)),
                Err(ShapeError::MalformedQuery),
                "{field}"
            );
        }
        for bad in [
            PRESIGNED.replace("SHA256", "SHA512"),
            PRESIGNED.replace("%2Fs3%2F", "%2Fec2%2F"),
            PRESIGNED.replace("X-Amz-Signature=abcdef", "X-Amz-Signature="),
        ] {
            assert_eq!(query(&bad), Err(ShapeError::MalformedQuery), "{bad}");
        }
        // names are percent-decoded, as s3s decodes them
        assert_eq!(
            query(&PRESIGNED.replace("X-Amz-Algorithm", "X-Amz%2DAlgorithm")),
            Ok(())
        );
    }

    #[test]
    fn refusals_are_the_s3_errors_clients_expect() {
        let status = |e: ShapeError| e.s3().0.as_u16();
        let code = |e: ShapeError| e.s3().1;
        assert_eq!(
            (
                status(ShapeError::UnknownAlgorithm),
                code(ShapeError::UnknownAlgorithm)
            ),
            (400, "InvalidArgument")
        );
        assert_eq!(
            (
                status(ShapeError::MalformedHeader),
                code(ShapeError::MalformedHeader)
            ),
            (400, "AuthorizationHeaderMalformed")
        );
        assert_eq!(
            (status(ShapeError::Undated), code(ShapeError::Undated)),
            (403, "AccessDenied")
        );
        assert_eq!(
            (
                status(ShapeError::MalformedQuery),
                code(ShapeError::MalformedQuery)
            ),
            (400, "AuthorizationQueryParametersError")
        );
    }
}
