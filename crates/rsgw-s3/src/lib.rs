//! rsgw's S3 protocol layer.
//!
//! Routing, SigV4 (headers, presigned URLs, aws-chunked bodies with trailers),
//! SigV2, typed requests and XML come from `s3s` (see
//! `docs/decisions/0003-s3-protocol-library.md`); this crate maps them onto
//! the [`Gateway`], resolves access keys through it, and gives every response
//! an `x-amz-request-id` (also in the `RequestId` of error bodies).
//!
//! Its modules come in layers, each using only its own and earlier ones
//! (`layers.toml`): the wire (S3's formats and limits), the table of
//! operations ([`S3Op`]), what is noted and refused of a request before an
//! operation runs, the operations (`ops`, one module per family), the
//! stages the dispatcher runs before s3s (and s3s' own hooks), the
//! dispatcher ([`Dispatcher`]), and the frontend's handler.

#![forbid(unsafe_code)]

mod access;
mod admin_api;
mod checksums;
mod cors;
mod crypt;
mod dates;
mod dispatcher;
mod documents;
mod dto;
mod error;
mod fast_get;
mod form;
mod frontend;
mod host;
mod limits;
mod metrics;
mod noted;
mod operation;
mod ops;
#[cfg(test)]
mod probes;
mod ratelimit;
mod requester;
mod signature;
mod unhonoured;
mod uri;
mod website;
mod xml_text;

use rsgw_gateway::Gateway;
use s3s::service::S3ServiceBuilder;

use crate::access::{AclDecidesLater, GatewayAuth};
use crate::host::DnsNames;

pub use dispatcher::{Dispatcher, S3HttpService};
pub use operation::{Authz, Family, Row, S3Op, Served};
pub use ops::RsgwS3;

/// Builds the S3 HTTP service on a gateway. `dns_names` enables
/// virtual-hosted-style addressing (`bucket.<name>`), like `rgw_dns_name`.
/// `zonegroup` is what GetBucketLocation names (`rgw_zonegroup`).
/// `max_header_size` bounds the request header section (Beast's option);
/// `post_form_fields_max` the fields of a POST form before its file.
/// `website_names` are the website endpoint's host names
/// (`rgw_dns_s3website_name`), none for no website endpoint.
/// `admin_entry` is the first path segment of radosgw's Admin Ops API
/// (`rgw_admin_entry`, `admin`); empty: no Admin Ops API.
pub fn service(
    gw: Gateway,
    (dns_names, website_names): (&[String], &[String]),
    zonegroup: &str,
    admin_entry: &str,
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
    if !admin_entry
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
    {
        return Err(format!(
            "invalid s3.admin_entry '{admin_entry}': letters, digits, '-', '_' and '.' only"
        ));
    }
    let admin = admin_api::AdminEntry::new(admin_entry, hosts.clone());
    b.set_route(admin_api::AdminApi::new(
        gw.clone(),
        admin.clone(),
        zonegroup,
    ));
    let cors = cors::Cors::new(gw.clone(), hosts.clone());
    let website = website::Website::new(gw.clone(), website_names);
    Ok(Dispatcher::new(
        gw,
        b.build(),
        (max_header_size, post_form_fields_max),
        cors,
        website,
        hosts,
        admin,
    ))
}
