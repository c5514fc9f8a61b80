//! Rate limits on the S3 path (the gateway's `ratelimit` module holds the
//! settings and the token buckets): every routed request is admitted or
//! refused with `503 SlowDown` and a `Retry-After` once its signer (or
//! anonymity) and bucket are known, before the operation runs; a read's
//! response bytes are charged when the response is built.

use std::sync::Arc;

use http::HeaderMap;
use rsgw_gateway::{Gateway, RateLimits, Refusal};
use s3s::{S3Error, s3_error};

/// What the access check decided, kept for the response.
pub(crate) struct Admitted {
    /// The limits the request was checked against (charged again for the
    /// bytes a read returns).
    pub limits: Arc<RateLimits>,
    /// Set when a limit refused the request.
    pub refused: Option<Refusal>,
}

/// Whether a method counts as a read (radosgw's rule: GET and HEAD).
pub(crate) fn is_read(method: &http::Method) -> bool {
    method == http::Method::GET || method == http::Method::HEAD
}

/// The bytes a write declares: the decoded length of an aws-chunked body,
/// else its Content-Length.
fn declared_bytes(headers: &HeaderMap) -> u64 {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    get("x-amz-decoded-content-length")
        .or_else(|| get("content-length"))
        .unwrap_or(0)
}

/// Admits a request of `user` (`None`: anonymous) on `bucket`, or refuses
/// it with the error S3 clients back off on. The limits cannot be read
/// (the store away): the request goes on, and meets the store's own error.
pub(crate) async fn admit(
    gw: &Gateway,
    method: &http::Method,
    headers: &HeaderMap,
    user: Option<&str>,
    bucket: Option<&str>,
) -> (Option<Admitted>, Result<(), S3Error>) {
    let limits = match gw.ratelimits().await {
        Ok(l) => l,
        Err(error) => {
            tracing::warn!(%error, "rate limits unreadable; request not limited");
            return (None, Ok(()));
        }
    };
    let write = !is_read(method);
    let bytes = if write { declared_bytes(headers) } else { 0 };
    match gw.limiter().admit(&limits, user, bucket, write, bytes) {
        Ok(()) => (
            Some(Admitted {
                limits,
                refused: None,
            }),
            Ok(()),
        ),
        Err(refusal) => {
            tracing::debug!(
                scope = refusal.scope.name(),
                limit = refusal.kind.name(),
                "rate limit reached"
            );
            (
                Some(Admitted {
                    limits,
                    refused: Some(refusal),
                }),
                Err(s3_error!(SlowDown, "Please reduce your request rate.")),
            )
        }
    }
}

/// `Retry-After` for a refusal: whole seconds, at least one.
pub(crate) fn retry_after(r: &Refusal) -> u64 {
    r.retry_after.as_secs() + u64::from(r.retry_after.subsec_nanos() > 0)
}

/// `rsgw_ratelimit_rejected_total`, in Prometheus text.
pub(crate) fn write_metrics(gw: &Gateway, out: &mut String) {
    use std::fmt::Write as _;
    out.push_str(
        "# HELP rsgw_ratelimit_rejected_total Requests refused with 503 SlowDown by a rate limit (rsgw admin ratelimit), by the limit's scope and what ran out.\n\
         # TYPE rsgw_ratelimit_rejected_total counter\n",
    );
    for (scope, kind, n) in gw.limiter().refused() {
        let _ = writeln!(
            out,
            "rsgw_ratelimit_rejected_total{{scope=\"{}\",limit=\"{}\"}} {n}",
            scope.name(),
            kind.name()
        );
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        let r = |ms| Refusal {
            scope: rsgw_gateway::Scope::Anonymous,
            kind: rsgw_gateway::Kind::ReadOps,
            retry_after: Duration::from_millis(ms),
        };
        assert_eq!(retry_after(&r(1)), 1);
        assert_eq!(retry_after(&r(1000)), 1);
        assert_eq!(retry_after(&r(2500)), 3);
    }

    #[test]
    fn writes_declare_their_decoded_length() {
        let mut h = HeaderMap::new();
        h.insert("content-length", "1200".parse().expect("value"));
        assert_eq!(declared_bytes(&h), 1200);
        h.insert(
            "x-amz-decoded-content-length",
            "1000".parse().expect("value"),
        );
        assert_eq!(declared_bytes(&h), 1000);
        assert!(is_read(&http::Method::HEAD) && !is_read(&http::Method::POST));
    }
}
