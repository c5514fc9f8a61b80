//! rsgw's S3 protocol layer.
//!
//! Routing, SigV4 (headers, presigned URLs, aws-chunked bodies with trailers),
//! SigV2, typed requests and XML come from `s3s` (see
//! `docs/decisions/0003-s3-protocol-library.md`); this crate maps them onto
//! the [`Gateway`], resolves access keys through it, and gives every response
//! an `x-amz-request-id` (also in the `RequestId` of error bodies).

mod checksums;
mod error;
mod ops;
mod request_id;

use rsgw_gateway::Gateway;
use s3s::auth::{S3Auth, SecretKey};
use s3s::host::MultiDomain;
use s3s::service::S3ServiceBuilder;
use s3s::{S3Result, s3_error};

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
    async fn check(&self, _cx: &mut s3s::access::S3AccessContext<'_>) -> S3Result<()> {
        Ok(())
    }
}

/// Builds the S3 HTTP service on a gateway. `dns_names` enables
/// virtual-hosted-style addressing (`bucket.<name>`), like `rgw_dns_name`.
pub fn service(gw: Gateway, dns_names: &[String]) -> Result<S3HttpService, String> {
    let mut b = S3ServiceBuilder::new(RsgwS3 { gw: gw.clone() });
    b.set_auth(GatewayAuth(gw));
    b.set_access(AclDecidesLater);
    if !dns_names.is_empty() {
        let names: Vec<&str> = dns_names.iter().map(String::as_str).collect();
        b.set_host(MultiDomain::new(&names).map_err(|e| format!("invalid DNS name: {e}"))?);
    }
    Ok(RequestIdService::new(b.build()))
}
