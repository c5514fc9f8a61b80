//! CORS: which of a bucket's rules, if any, lets a browser on another
//! origin through, and the checks S3 makes of a configuration put. The S3
//! layer answers preflight `OPTIONS` and adds the `Access-Control-*`
//! headers from the rule found here.

use crate::model::bucket::BucketInfo;
use crate::model::cors::CorsRule;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::limits::MAX_CORS_RULES;

/// The methods a CORS rule may allow.
const METHODS: &[&str] = &["GET", "PUT", "POST", "DELETE", "HEAD"];

impl CorsRule {
    /// Checks a rule as S3 does when the configuration is put.
    fn check(&self) -> GatewayResult<()> {
        let invalid = |m: String| Err(GatewayError::InvalidRequest(m));
        if self.allowed_origins.is_empty() || self.allowed_methods.is_empty() {
            return Err(GatewayError::MalformedXml(
                "a CORSRule needs at least one AllowedOrigin and one AllowedMethod".into(),
            ));
        }
        for m in &self.allowed_methods {
            if !METHODS.contains(&m.as_str()) {
                return invalid(format!(
                    "Found unsupported HTTP method in CORS config. Unsupported method is {m}"
                ));
            }
        }
        for o in &self.allowed_origins {
            if o.matches('*').count() > 1 {
                return invalid(format!(
                    "AllowedOrigin \"{o}\" can not have more than one wildcard."
                ));
            }
        }
        for h in &self.allowed_headers {
            if h.matches('*').count() > 1 {
                return invalid(format!(
                    "AllowedHeader \"{h}\" can not have more than one wildcard."
                ));
            }
        }
        if self.max_age_seconds.is_some_and(|s| s < 0) {
            return invalid("MaxAgeSeconds must not be negative".into());
        }
        Ok(())
    }

    /// Whether the rule lets `origin` use `method` and send `headers`
    /// (lowercase names).
    fn allows(&self, origin: &str, method: &str, headers: &[String]) -> bool {
        self.allowed_origins.iter().any(|o| wildcard(o, origin))
            && self.allowed_methods.iter().any(|m| m == method)
            && headers.iter().all(|h| {
                self.allowed_headers
                    .iter()
                    .any(|a| wildcard(&a.to_ascii_lowercase(), h))
            })
    }

    /// Whether the rule allows every origin (`*`): its answers name no one
    /// origin and allow no credentials.
    pub fn any_origin(&self) -> bool {
        self.allowed_origins.iter().any(|o| o == "*")
    }
}

/// Checks a configuration as S3 does when it is put: 1 to
/// [`MAX_CORS_RULES`] rules, each well formed.
pub(crate) fn check_cors(rules: &[CorsRule]) -> GatewayResult<()> {
    if rules.is_empty() || rules.len() > MAX_CORS_RULES {
        return Err(GatewayError::MalformedXml(format!(
            "a CORS configuration holds 1 to {MAX_CORS_RULES} rules"
        )));
    }
    for r in rules {
        r.check()?;
    }
    Ok(())
}

/// A pattern with at most one `*`.
fn wildcard(pattern: &str, s: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == s,
        Some((pre, post)) => {
            s.len() >= pre.len() + post.len() && s.starts_with(pre) && s.ends_with(post)
        }
    }
}

/// The first rule of a bucket's CORS configuration that lets `origin` use
/// `method` with request `headers` (lowercase names), as S3 picks it.
pub fn matching_rule<'a>(
    bucket: &'a BucketInfo,
    origin: &str,
    method: &str,
    headers: &[String],
) -> Option<&'a CorsRule> {
    bucket
        .cors
        .as_ref()?
        .iter()
        .find(|r| r.allows(origin, method, headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(origins: &[&str], methods: &[&str], headers: &[&str]) -> CorsRule {
        CorsRule {
            allowed_origins: origins.iter().map(|s| (*s).to_string()).collect(),
            allowed_methods: methods.iter().map(|s| (*s).to_string()).collect(),
            allowed_headers: headers.iter().map(|s| (*s).to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn rules_match_origin_method_and_headers() {
        let r = rule(
            &["https://*.example.com", "http://localhost:8080"],
            &["GET", "PUT"],
            &["Content-Type", "x-amz-meta-*"],
        );
        let h = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        let cases = [
            ("https://www.example.com", "GET", h(&[]), true),
            ("https://a.b.example.com", "PUT", h(&["content-type"]), true),
            ("https://example.com", "GET", h(&[]), false),
            ("http://www.example.com", "GET", h(&[]), false),
            (
                "http://localhost:8080",
                "GET",
                h(&["x-amz-meta-owner"]),
                true,
            ),
            ("http://localhost:8081", "GET", h(&[]), false),
            ("https://www.example.com", "DELETE", h(&[]), false),
            (
                "https://www.example.com",
                "PUT",
                h(&["authorization"]),
                false,
            ),
            (
                "https://www.example.com",
                "PUT",
                h(&["content-type", "x-other"]),
                false,
            ),
        ];
        for (origin, method, headers, want) in cases {
            assert_eq!(
                r.allows(origin, method, &headers),
                want,
                "{origin} {method} {headers:?}"
            );
        }
        assert!(rule(&["*"], &["GET"], &["*"]).allows("null", "GET", &h(&["anything"])));
    }

    #[test]
    fn bad_rules_are_refused() {
        for (r, code) in [
            (rule(&["*"], &["PATCH"], &[]), "unsupported HTTP method"),
            (
                rule(&["https://*.*.com"], &["GET"], &[]),
                "more than one wildcard",
            ),
            (rule(&["*"], &["GET"], &["x-*-*"]), "more than one wildcard"),
            (rule(&[], &["GET"], &[]), "at least one"),
            (rule(&["*"], &[], &[]), "at least one"),
        ] {
            let e = r.check().expect_err(code);
            assert!(e.to_string().contains(code), "{e}");
        }
    }
}
