//! CORS: a bucket's rules for browsers on other origins (Put/Get/Delete
//! BucketCors), and which rule, if any, lets a request through. Like the
//! bucket policy, the rules live in the bucket's record, so the coherent
//! record cache carries them to every instance; the S3 layer answers
//! preflight `OPTIONS` and adds the `Access-Control-*` headers from the
//! rule found here.

use serde::{Deserialize, Serialize};

use crate::authz::{Access, Requester, Target};
use crate::buckets::BucketInfo;
use crate::{Gateway, GatewayError, GatewayResult};

/// S3's limit on rules in one configuration.
pub const MAX_CORS_RULES: usize = 100;

/// One CORS rule, as S3's `CORSRule`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorsRule {
    /// Its `ID`, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `AllowedOrigin`: origins, each with at most one `*`.
    pub allowed_origins: Vec<String>,
    /// `AllowedMethod`: GET, PUT, POST, DELETE, HEAD.
    pub allowed_methods: Vec<String>,
    /// `AllowedHeader`: request headers a preflight may ask for, each with
    /// at most one `*`.
    #[serde(default)]
    pub allowed_headers: Vec<String>,
    /// `ExposeHeader`: response headers the browser may show the page.
    #[serde(default)]
    pub expose_headers: Vec<String>,
    /// `MaxAgeSeconds`: how long a browser may keep a preflight's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_seconds: Option<i32>,
}

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

impl Gateway {
    /// Sets a bucket's CORS rules.
    pub async fn put_bucket_cors(
        &self,
        rq: &Requester,
        bucket: &str,
        rules: Vec<CorsRule>,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutBucketCors, &Target::bucket(&info))?;
        if rules.is_empty() || rules.len() > MAX_CORS_RULES {
            return Err(GatewayError::MalformedXml(format!(
                "a CORS configuration holds 1 to {MAX_CORS_RULES} rules"
            )));
        }
        for r in &rules {
            r.check()?;
        }
        info.cors = Some(rules);
        self.save_bucket(&info).await
    }

    /// A bucket's CORS rules; `NoSuchCORSConfiguration` without any.
    pub async fn get_bucket_cors(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<Vec<CorsRule>> {
        let info = self.bucket_info(bucket).await?;
        self.authorize(rq, Access::GetBucketCors, &Target::bucket(&info))?;
        info.cors.ok_or(GatewayError::NoSuchCorsConfiguration)
    }

    /// Removes a bucket's CORS rules (none set is fine).
    pub async fn delete_bucket_cors(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutBucketCors, &Target::bucket(&info))?;
        if info.cors.take().is_some() {
            self.save_bucket(&info).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, OWNER, small_opts};

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

    #[tokio::test]
    async fn put_get_delete() {
        let (f, _) = Fixture::with_bucket(small_opts(), "cors").await;
        let owner = Requester::user(OWNER);
        assert!(matches!(
            f.gw.get_bucket_cors(&owner, "cors").await,
            Err(GatewayError::NoSuchCorsConfiguration)
        ));
        let rules = vec![rule(&["*"], &["GET"], &[])];
        assert!(matches!(
            f.gw.put_bucket_cors(&Requester::user("bob"), "cors", rules.clone())
                .await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.put_bucket_cors(&owner, "cors", vec![]).await,
            Err(GatewayError::MalformedXml(_))
        ));
        f.gw.put_bucket_cors(&owner, "cors", rules.clone())
            .await
            .expect("put");
        assert_eq!(
            f.gw.get_bucket_cors(&owner, "cors").await.expect("get"),
            rules
        );
        let info = f.gw.bucket_info_fresh("cors").await.expect("record");
        assert!(matching_rule(&info, "https://x", "GET", &[]).is_some());
        assert!(matching_rule(&info, "https://x", "PUT", &[]).is_none());
        f.gw.delete_bucket_cors(&owner, "cors")
            .await
            .expect("delete");
        f.gw.delete_bucket_cors(&owner, "cors")
            .await
            .expect("again");
        let info = f.gw.bucket_info_fresh("cors").await.expect("record");
        assert!(matching_rule(&info, "https://x", "GET", &[]).is_none());
    }
}
