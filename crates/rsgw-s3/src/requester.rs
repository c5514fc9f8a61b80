//! Who makes a request, in the gateway's terms ([`Requester`]): the
//! principal, and what of the request a bucket policy's conditions test.

use rsgw_gateway::{Principal, Requester};

/// Who makes a request, with what of it a policy's conditions test: the
/// client's address and transport (from the frontend), `Referer`,
/// `User-Agent`, and the expected bucket owners.
pub(crate) fn requester(
    principal: Principal,
    headers: &http::HeaderMap,
    extensions: &http::Extensions,
) -> Requester {
    let client = extensions.get::<rsgw_frontend::Client>();
    let header = |name: http::header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Requester {
        principal,
        source_ip: client.map(|c| c.addr),
        secure: client.is_some_and(|c| c.secure),
        referer: header(http::header::REFERER),
        user_agent: header(http::header::USER_AGENT),
        expected_bucket_owner: header(http::HeaderName::from_static("x-amz-expected-bucket-owner")),
        expected_source_owner: header(http::HeaderName::from_static(
            "x-amz-source-expected-bucket-owner",
        )),
    }
}
