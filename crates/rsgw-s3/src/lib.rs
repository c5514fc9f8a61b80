//! rsgw's S3 protocol layer.
//!
//! Routing, SigV4 (headers, presigned URLs, aws-chunked bodies with trailers),
//! SigV2, typed requests and XML come from `s3s` (see
//! `docs/decisions/0003-s3-protocol-library.md`); this crate maps them onto
//! the [`Gateway`], resolves access keys through it, and gives every response
//! an `x-amz-request-id` (also in the `RequestId` of error bodies).

#![forbid(unsafe_code)]

mod checksums;
mod dates;
mod error;
mod frontend;
mod operation;
mod ops;
mod request_id;

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
/// the gateway decides per operation from owners and ACLs.
struct AclDecidesLater;

#[async_trait::async_trait]
impl s3s::access::S3Access for AclDecidesLater {
    async fn check(&self, cx: &mut s3s::access::S3AccessContext<'_>) -> S3Result<()> {
        // every routed request passes here: note its operation for metrics
        let op = S3Op::from_s3s(cx.s3_op().name());
        if let Some(slot) = cx.extensions_mut().get::<request_id::OpSlot>() {
            slot.set(op);
        }
        Ok(())
    }
}

/// Virtual-hosted-style addressing for the configured DNS names, like
/// radosgw's `rgw_dns_name`: `bucket.<name>[:port]` names a bucket,
/// `<name>[:port]` and any other host (an IP address, say) are path-style.
struct DnsNames(Vec<String>);

impl S3Host for DnsNames {
    fn parse_host_header<'a>(&'a self, host: &'a str) -> S3Result<VirtualHost<'a>> {
        let name = match host.rsplit_once(':') {
            Some((h, port)) if !h.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => h,
            _ => host,
        };
        for base in &self.0 {
            if name.eq_ignore_ascii_case(base) {
                return Ok(VirtualHost::new(name));
            }
            if name.len() > base.len() + 1
                && name[name.len() - base.len()..].eq_ignore_ascii_case(base)
                && name.as_bytes()[name.len() - base.len() - 1] == b'.'
            {
                let bucket = &name[..name.len() - base.len() - 1];
                return Ok(VirtualHost::new(name).with_bucket(bucket));
            }
        }
        Ok(VirtualHost::new(name))
    }
}

/// Builds the S3 HTTP service on a gateway. `dns_names` enables
/// virtual-hosted-style addressing (`bucket.<name>`), like `rgw_dns_name`.
/// `max_header_size` bounds the request header section (Beast's option).
pub fn service(
    gw: Gateway,
    dns_names: &[String],
    max_header_size: usize,
) -> Result<S3HttpService, String> {
    let mut b = S3ServiceBuilder::new(RsgwS3 { gw: gw.clone() });
    b.set_auth(GatewayAuth(gw));
    b.set_access(AclDecidesLater);
    if !dns_names.is_empty() {
        if let Some(bad) = dns_names
            .iter()
            .find(|n| n.is_empty() || n.contains([':', '/']) || n.starts_with('.'))
        {
            return Err(format!("invalid DNS name in s3.dns_names: '{bad}'"));
        }
        b.set_host(DnsNames(dns_names.to_vec()));
    }
    Ok(RequestIdService::new(b.build(), max_header_size))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_names_pick_bucket_or_path_style() {
        let h = DnsNames(vec!["s3.test".into()]);
        let bucket = |host: &str| {
            h.parse_host_header(host)
                .map(|v| v.bucket().map(str::to_string))
                .ok()
                .flatten()
        };
        assert_eq!(bucket("photos.s3.test:7480").as_deref(), Some("photos"));
        assert_eq!(bucket("a.b.s3.test").as_deref(), Some("a.b"));
        assert_eq!(bucket("s3.test:7480"), None);
        assert_eq!(bucket("127.0.0.1:7480"), None);
        assert_eq!(bucket("xs3.test"), None);
    }
}
