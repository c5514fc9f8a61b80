//! CORS on the wire: preflight `OPTIONS` requests answered from the
//! bucket's rules (s3s routes no `OPTIONS`), and the `Access-Control-*`
//! headers added to every response to a request that names an `Origin`,
//! errors included. The rules and their matching are the gateway's
//! (`rsgw_gateway::matching_rule`).

use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use rsgw_gateway::{BucketInfo, CorsRule, Gateway, GatewayError, matching_rule};
use s3s::Body;
use s3s::host::S3Host;

use crate::host::DnsNames;

/// Finds the bucket a request is for and its CORS rules.
#[derive(Clone)]
pub(crate) struct Cors {
    gw: Gateway,
    hosts: Option<std::sync::Arc<DnsNames>>,
}

/// A preflight's answer before the request id is added: status, S3 error
/// code and message, or the headers of a `200`.
pub(crate) enum Preflight {
    Allowed(HeaderMap),
    Refused(http::StatusCode, &'static str, String),
}

/// What of a request the response's CORS headers depend on.
pub(crate) struct Asked {
    origin: String,
    method: String,
    bucket: String,
}

fn text(h: &HeaderMap, name: HeaderName) -> Option<&str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

impl Cors {
    pub(crate) fn new(gw: Gateway, hosts: Option<std::sync::Arc<DnsNames>>) -> Self {
        Cors { gw, hosts }
    }

    /// The bucket a request addresses: the virtual host's, or the path's
    /// first segment.
    fn bucket_of<B>(&self, req: &http::Request<B>) -> Option<String> {
        if let (Some(hosts), Some(host)) = (&self.hosts, text(req.headers(), header::HOST))
            && let Ok(v) = hosts.parse_host_header(host)
            && let Some(b) = v.bucket()
        {
            return Some(b.to_string());
        }
        let name = req.uri().path().trim_start_matches('/').split('/').next()?;
        (!name.is_empty()).then(|| name.to_string())
    }

    /// What a non-preflight request's response needs, if it names an origin.
    pub(crate) fn asked<B>(&self, req: &http::Request<B>) -> Option<Asked> {
        let origin = text(req.headers(), header::ORIGIN)?.to_string();
        Some(Asked {
            origin,
            method: req.method().as_str().to_string(),
            bucket: self.bucket_of(req)?,
        })
    }

    /// Answers a preflight `OPTIONS`.
    pub(crate) async fn preflight<B>(&self, req: &http::Request<B>) -> Preflight {
        let bad = |m: &str| {
            Preflight::Refused(http::StatusCode::BAD_REQUEST, "BadRequest", m.to_string())
        };
        let Some(origin) = text(req.headers(), header::ORIGIN) else {
            return bad("Insufficient information. Origin request header needed.");
        };
        let Some(method) = text(req.headers(), header::ACCESS_CONTROL_REQUEST_METHOD) else {
            return bad("Insufficient information. Access-Control-Request-Method header needed.");
        };
        let Some(bucket) = self.bucket_of(req) else {
            return bad("CORS preflight requests need a bucket.");
        };
        let headers: Vec<String> = text(req.headers(), header::ACCESS_CONTROL_REQUEST_HEADERS)
            .unwrap_or_default()
            .split(',')
            .map(|h| h.trim().to_ascii_lowercase())
            .filter(|h| !h.is_empty())
            .collect();
        let info = match self.gw.bucket_info(&bucket).await {
            Ok(info) => info,
            Err(GatewayError::NoSuchBucket) => {
                return Preflight::Refused(
                    http::StatusCode::NOT_FOUND,
                    "NoSuchBucket",
                    "The specified bucket does not exist".into(),
                );
            }
            Err(e) => {
                return Preflight::Refused(
                    http::StatusCode::SERVICE_UNAVAILABLE,
                    "ServiceUnavailable",
                    e.to_string(),
                );
            }
        };
        let forbidden = |m: &str| {
            Preflight::Refused(
                http::StatusCode::FORBIDDEN,
                "AccessForbidden",
                m.to_string(),
            )
        };
        if info.cors.is_none() {
            return forbidden("CORSResponse: CORS is not enabled for this bucket.");
        }
        match matching_rule(&info, origin, method, &headers) {
            None => forbidden(
                "CORSResponse: This CORS request is not allowed. This is usually because the \
                 evaluation of Origin, request method / Access-Control-Request-Method or \
                 Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
            ),
            Some(rule) => {
                let mut h = HeaderMap::new();
                allow(&mut h, rule, origin);
                if !headers.is_empty()
                    && let Ok(v) = HeaderValue::from_str(&headers.join(", "))
                {
                    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, v);
                }
                Preflight::Allowed(h)
            }
        }
    }

    /// Adds the CORS headers to a response to a request that named an
    /// origin, when the bucket's rules allow it (any status).
    pub(crate) async fn decorate(&self, asked: &Asked, resp: &mut http::Response<Body>) {
        let Ok(info) = self.gw.bucket_info(&asked.bucket).await else {
            return;
        };
        decorate_with(&info, asked, resp.headers_mut());
    }
}

fn decorate_with(info: &BucketInfo, asked: &Asked, h: &mut HeaderMap) {
    if info.cors.is_none() {
        return;
    }
    if let Some(rule) = matching_rule(info, &asked.origin, &asked.method, &[]) {
        allow(h, rule, &asked.origin);
    } else {
        vary(h);
    }
}

/// The headers of an allowed request.
fn allow(h: &mut HeaderMap, rule: &CorsRule, origin: &str) {
    let any = rule.any_origin();
    let origin = if any { "*" } else { origin };
    if let Ok(v) = HeaderValue::from_str(origin) {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
    }
    if let Ok(v) = HeaderValue::from_str(&rule.allowed_methods.join(", ")) {
        h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, v);
    }
    if !rule.expose_headers.is_empty()
        && let Ok(v) = HeaderValue::from_str(&rule.expose_headers.join(", "))
    {
        h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, v);
    }
    if let Some(age) = rule.max_age_seconds {
        h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from(age));
    }
    if !any {
        h.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
    }
    vary(h);
}

/// Responses differ by origin: caches in between must key on it.
fn vary(h: &mut HeaderMap) {
    h.insert(
        header::VARY,
        HeaderValue::from_static(
            "Origin, Access-Control-Request-Headers, Access-Control-Request-Method",
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(rules: Option<Vec<CorsRule>>) -> BucketInfo {
        BucketInfo {
            name: "b".into(),
            id: "id".into(),
            owner: "o".into(),
            created: 0.0,
            acl: rsgw_gateway::CannedAcl::Private.into(),
            index_shards: 1,
            policy: None,
            cors: rules,
            website: None,
            tags: Default::default(),
            quota: Default::default(),
            lifecycle: None,
            encryption: None,
            versioning: None,
            object_lock: None,
        }
    }

    fn asked(origin: &str, method: &str) -> Asked {
        Asked {
            origin: origin.into(),
            method: method.into(),
            bucket: "b".into(),
        }
    }

    #[test]
    fn actual_responses_carry_what_the_rule_allows() {
        let rules = vec![
            CorsRule {
                allowed_origins: vec!["https://app.example".into()],
                allowed_methods: vec!["GET".into(), "PUT".into()],
                expose_headers: vec!["ETag".into(), "x-amz-request-id".into()],
                max_age_seconds: Some(600),
                ..Default::default()
            },
            CorsRule {
                allowed_origins: vec!["*".into()],
                allowed_methods: vec!["GET".into()],
                ..Default::default()
            },
        ];
        let b = bucket(Some(rules));
        let mut h = HeaderMap::new();
        decorate_with(&b, &asked("https://app.example", "PUT"), &mut h);
        assert_eq!(h["access-control-allow-origin"], "https://app.example");
        assert_eq!(h["access-control-allow-methods"], "GET, PUT");
        assert_eq!(h["access-control-expose-headers"], "ETag, x-amz-request-id");
        assert_eq!(h["access-control-max-age"], "600");
        assert_eq!(h["access-control-allow-credentials"], "true");
        assert!(h["vary"].to_str().expect("ascii").starts_with("Origin"));
        let mut h = HeaderMap::new();
        decorate_with(&b, &asked("https://other.example", "GET"), &mut h);
        assert_eq!(h["access-control-allow-origin"], "*");
        assert!(!h.contains_key("access-control-allow-credentials"));
        let mut h = HeaderMap::new();
        decorate_with(&b, &asked("https://other.example", "DELETE"), &mut h);
        assert!(!h.contains_key("access-control-allow-origin"));
        assert!(
            h.contains_key("vary"),
            "the answer still depends on the origin"
        );
        let mut h = HeaderMap::new();
        decorate_with(&bucket(None), &asked("https://app.example", "GET"), &mut h);
        assert!(h.is_empty(), "no CORS configuration, no CORS headers");
    }
}
