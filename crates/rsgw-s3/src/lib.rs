//! rsgw's S3 protocol layer.
//!
//! Routing, SigV4 (headers, presigned URLs, aws-chunked bodies with trailers),
//! SigV2, typed requests and XML come from `s3s` (see
//! `docs/decisions/0003-s3-protocol-library.md`); this crate maps them onto
//! the [`Gateway`], resolves access keys through it, and gives every response
//! an `x-amz-request-id` (also in the `RequestId` of error bodies).

#![forbid(unsafe_code)]

mod checksums;
mod cors;
mod dates;
mod error;
mod fast_get;
mod frontend;
mod lifecycle;
mod object_cache;
mod operation;
mod ops;
mod post_object;
mod ratelimit;
mod request_id;
mod unhonoured;
mod uri;
mod website;
mod xml_text;

use rsgw_gateway::Gateway;
use s3s::auth::{S3Auth, SecretKey};
use s3s::host::{S3Host, VirtualHost};
use s3s::service::S3ServiceBuilder;
use s3s::{S3Result, s3_error};

pub use operation::S3Op;
pub use ops::RsgwS3;
pub use request_id::{RequestIdService, S3HttpService};

/// Looks access keys up in the gateway's user store.
struct GatewayAuth(Gateway);

#[async_trait::async_trait]
impl S3Auth for GatewayAuth {
    async fn get_secret_key(&self, access_key: &str) -> S3Result<SecretKey> {
        match self.0.lookup_key(access_key).await {
            Ok((_, secret)) => Ok(SecretKey::from(secret)),
            Err(rsgw_gateway::GatewayError::AccessDenied) => Err(s3_error!(InvalidAccessKeyId)),
            Err(e) => Err(error::to_s3(e)),
        }
    }
}

/// Lets every request through s3s' access check, anonymous ones included:
/// the gateway decides per operation (its `authz` module). Refuses what
/// rsgw cannot honour and must not ignore (the `unhonoured` module).
/// Notes the operation, and what the request names and who signed it, for
/// metrics and the ops log.
struct AclDecidesLater(Gateway);

#[async_trait::async_trait]
impl s3s::access::S3Access for AclDecidesLater {
    async fn check(&self, cx: &mut s3s::access::S3AccessContext<'_>) -> S3Result<()> {
        // every routed request passes here: note its operation for metrics
        let op = S3Op::from_s3s(cx.s3_op().name());
        // the object and the key are noted for the ops log only
        let logged = cx.extensions_mut().get::<rsgw_frontend::Logged>().is_some();
        let (bucket, object) = match cx.s3_path() {
            s3s::path::S3Path::Root => (None, None),
            s3s::path::S3Path::Bucket { bucket } => (Some(bucket.to_string()), None),
            s3s::path::S3Path::Object { bucket, key } => {
                (Some(bucket.to_string()), logged.then(|| key.to_string()))
            }
        };
        let access_key = cx.credentials().map(|c| c.access_key.clone());
        // signed: the key was just looked up (cached) to check the signature
        let user = match &access_key {
            Some(ak) => self.0.lookup_key(ak).await.ok().map(|(uid, _)| uid),
            None => None,
        };
        let slot = cx.extensions_mut().get::<request_id::OpSlot>().cloned();
        if let Some(slot) = &slot {
            slot.set(op);
            slot.name(request_id::Named {
                bucket: bucket.clone(),
                object,
                user: user.clone(),
                access_key: access_key.filter(|_| logged),
            });
        }
        unhonoured::refuse(op, cx.uri().query(), cx.headers())?;
        // the one place every routed request's rate limits are decided
        let (admitted, verdict) = ratelimit::admit(
            &self.0,
            cx.method(),
            cx.headers(),
            user.as_deref(),
            bucket.as_deref(),
        )
        .await;
        if let Some((slot, a)) = slot.zip(admitted) {
            slot.admitted(a);
        }
        verdict
    }

    /// A browser upload's `success_action_redirect` is checked before the
    /// object is written: s3s refuses one it cannot parse only after.
    async fn post_object(
        &self,
        req: &mut s3s::S3Request<s3s::dto::PostObjectInput>,
    ) -> S3Result<()> {
        match req.input.success_action_redirect.as_deref() {
            Some(url) if !post_object::redirect_ok(url) => Err(s3_error!(
                InvalidArgument,
                "success_action_redirect must be an absolute http or https URL"
            )),
            _ => Ok(()),
        }
    }
}

/// Virtual-hosted-style addressing for the configured DNS names, like
/// radosgw's `rgw_dns_name`: `bucket.<name>[:port]` names a bucket,
/// `<name>[:port]` and any other host (an IP address, say) are path-style.
/// Where names nest (`s3.test` and `eu.s3.test`), the longest one that fits
/// wins: `eu.s3.test` is the service itself, not bucket `eu`.
pub(crate) struct DnsNames(Vec<String>);

impl S3Host for DnsNames {
    fn parse_host_header<'a>(&'a self, host: &'a str) -> S3Result<VirtualHost<'a>> {
        let name = match host.rsplit_once(':') {
            Some((h, port)) if !h.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => h,
            _ => host,
        };
        let n = name.as_bytes();
        let fits = |base: &&String| {
            let b = base.as_bytes();
            n.eq_ignore_ascii_case(b)
                || (n.len() > b.len() + 1
                    && n[n.len() - b.len()..].eq_ignore_ascii_case(b)
                    && n[n.len() - b.len() - 1] == b'.')
        };
        match self.0.iter().filter(fits).map(String::len).max() {
            // the byte before the name is an ASCII '.': a char boundary
            Some(len) if len < name.len() => {
                let bucket = &name[..name.len() - len - 1];
                Ok(VirtualHost::new(name).with_bucket(bucket))
            }
            _ => Ok(VirtualHost::new(name)),
        }
    }
}

/// Builds the S3 HTTP service on a gateway. `dns_names` enables
/// virtual-hosted-style addressing (`bucket.<name>`), like `rgw_dns_name`.
/// `zonegroup` is what GetBucketLocation names (`rgw_zonegroup`).
/// `max_header_size` bounds the request header section (Beast's option);
/// `post_form_fields_max` the fields of a POST form before its file.
/// `website_names` are the website endpoint's host names
/// (`rgw_dns_s3website_name`), none for no website endpoint.
pub fn service(
    gw: Gateway,
    dns_names: &[String],
    website_names: &[String],
    zonegroup: &str,
    max_header_size: usize,
    post_form_fields_max: usize,
) -> Result<S3HttpService, String> {
    let mut b = S3ServiceBuilder::new(RsgwS3 {
        gw: gw.clone(),
        zonegroup: zonegroup.to_string(),
    });
    b.set_auth(GatewayAuth(gw.clone()));
    b.set_access(AclDecidesLater(gw.clone()));
    for (key, names) in [
        ("dns_names", dns_names),
        ("website_dns_names", website_names),
    ] {
        if let Some(bad) = names
            .iter()
            .find(|n| n.is_empty() || n.contains([':', '/']) || n.starts_with('.'))
        {
            return Err(format!("invalid DNS name in s3.{key}: '{bad}'"));
        }
    }
    if !dns_names.is_empty() {
        b.set_host(DnsNames(dns_names.to_vec()));
    }
    let hosts = (!dns_names.is_empty()).then(|| std::sync::Arc::new(DnsNames(dns_names.to_vec())));
    let cors = cors::Cors::new(gw.clone(), hosts.clone());
    let website = website::Website::new(gw.clone(), website_names);
    Ok(RequestIdService::new(
        gw,
        b.build(),
        max_header_size,
        post_form_fields_max,
        cors,
        website,
        hosts,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucket a Host header names (`None`: path-style).
    fn bucket(names: &[&str], host: &str) -> Option<String> {
        let h = DnsNames(names.iter().map(|n| (*n).to_string()).collect());
        let v = h.parse_host_header(host).expect("never refused");
        v.bucket().map(str::to_string)
    }

    #[test]
    fn dns_names_pick_bucket_or_path_style() {
        let one = &["s3.test"][..];
        let nested = &["s3.test", "eu.s3.test"][..];
        let table: &[(&[&str], &str, Option<&str>)] = &[
            (one, "photos.s3.test:7480", Some("photos")),
            (one, "photos.s3.test", Some("photos")),
            (one, "a.b.s3.test", Some("a.b")),
            (one, "s3.test:7480", None),
            (one, "s3.test", None),
            (one, "127.0.0.1:7480", None),
            (one, "127.0.0.1", None),
            (one, "xs3.test", None),
            (one, ".s3.test", None),
            (one, "s3.test.evil", None),
            (one, "photos.s3.test.evil:7480", None),
            // host names are case-insensitive; the bucket keeps its spelling
            (one, "photos.S3.TEST:7480", Some("photos")),
            (one, "S3.Test", None),
            // ports: digits only; an empty one is no port
            (one, "photos.s3.test:", Some("photos")),
            (one, "photos.s3.test:http", None),
            (one, "photos.s3.test:80:80", None),
            // IPv6 literals are path-style, with or without a port
            (one, "[::1]:7480", None),
            (one, "[::1]", None),
            (one, "[2001:db8::1]:443", None),
            // every configured name counts
            (
                &["s3.test", "s3.example.com"],
                "logs.s3.example.com",
                Some("logs"),
            ),
            (&["s3.test", "s3.example.com"], "s3.example.com:443", None),
            // nested names: the longest that fits, in either order
            (nested, "eu.s3.test", None),
            (nested, "b.eu.s3.test", Some("b")),
            (nested, "b.s3.test", Some("b")),
            (&["eu.s3.test", "s3.test"], "eu.s3.test:7480", None),
            (&["eu.s3.test", "s3.test"], "b.eu.s3.test", Some("b")),
        ];
        for (names, host, want) in table {
            assert_eq!(
                bucket(names, host).as_deref(),
                *want,
                "{host} under {names:?}"
            );
        }
    }

    #[test]
    fn dns_names_keep_the_host_as_the_domain() {
        let h = DnsNames(vec!["s3.test".into()]);
        let v = h.parse_host_header("photos.s3.test:7480").expect("parsed");
        assert_eq!(v.domain(), "photos.s3.test");
        // no panic on hosts that are not ASCII (s3s passes only ASCII)
        let v = h.parse_host_header("\u{e9}.s3.test").expect("parsed");
        assert_eq!(v.bucket(), Some("\u{e9}"));
        assert!(
            h.parse_host_header("\u{e9}")
                .expect("parsed")
                .bucket()
                .is_none()
        );
        let v = h.parse_host_header("ab\u{e9}3.test").expect("parsed");
        assert!(v.bucket().is_none(), "the suffix starts inside a character");
    }
}
