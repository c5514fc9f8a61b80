//! PostObject: a browser upload (an HTML form, `multipart/form-data`)
//! written as PutObject writes it, with the form's fields that s3s drops
//! read from its tapped start (`crate::form`): `acl` (S3's name for the
//! canned ACL field), `${filename}` in `key` (the file's name, as S3
//! substitutes it), the encryption fields (as their headers), and the
//! fields rsgw refuses as headers (object lock, grants, storage classes,
//! website redirects; see `unhonoured`) or as a whole (`tagging`, an XML
//! document).

use s3s::dto::{ObjectCannedACL, PostObjectInput, PostObjectOutput, PutObjectInput};
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::form::{FormTap, PostReply};
use crate::operation::S3Op;
use crate::unhonoured;
use crate::uri::encode;

/// Writes a POST form's object as PutObject does.
pub(super) async fn post_object(
    s3: &RsgwS3,
    req: S3Request<PostObjectInput>,
) -> S3Result<S3Response<PostObjectOutput>> {
    let tap = req
        .extensions
        .get::<FormTap>()
        .ok_or_else(|| s3_error!(InternalError, "a POST form was not tapped"))?;
    let (fields, filename) = tap.fields()?;
    // the fields rsgw refuses as headers are refused as fields too
    let mut as_headers = http::HeaderMap::new();
    for (k, v) in &fields {
        if let (Ok(k), Ok(v)) = (
            http::HeaderName::from_bytes(k.as_bytes()),
            http::HeaderValue::from_str(v),
        ) {
            as_headers.append(k, v);
        }
    }
    unhonoured::refuse(S3Op::PutObject, None, &as_headers)?;
    // encryption fields ask what the headers ask
    let mut req = req;
    for (k, v) in &as_headers {
        if k.as_str().starts_with(crate::crypt::SSE) {
            req.headers.insert(k.clone(), v.clone());
        }
    }
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v);
    if field("tagging").is_some() {
        return Err(s3_error!(
            NotImplemented,
            "The tagging form field is not implemented by rsgw: use x-amz-tagging (key=value&...) instead"
        ));
    }
    let acl = field("acl").map(|a| ObjectCannedACL::from(a.clone()));
    // kept as sent, as PutObject keeps its Expires header
    if let Some(v) = field("expires").and_then(|v| http::HeaderValue::from_str(v).ok()) {
        req.headers.insert(http::header::EXPIRES, v);
    }
    let key = req.input.key.replace("${filename}", &filename);
    let bucket = req.input.bucket.clone();
    let client = req.extensions.get::<rsgw_frontend::Client>();
    let scheme = if client.is_some_and(|c| c.secure) {
        "https"
    } else {
        "http"
    };
    let host = req
        .headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    // path-style (POST /bucket) or virtual-hosted (POST / on bucket.<name>)
    let object_url = if req.uri.path().trim_end_matches('/').is_empty() {
        format!("{scheme}://{host}/{}", encode(&key, true))
    } else {
        format!("{scheme}://{host}/{bucket}/{}", encode(&key, true))
    };
    let redirect = field("success_action_redirect")
        .or_else(|| field("redirect"))
        .cloned();
    let status = field("success_action_status").cloned();
    let put_key = key.clone();
    let put = req.map_input(|i| PutObjectInput {
        acl: acl.or(i.acl),
        key: put_key,
        body: i.body,
        bucket: i.bucket,
        cache_control: i.cache_control,
        checksum_algorithm: i.checksum_algorithm,
        checksum_crc32: i.checksum_crc32,
        checksum_crc32c: i.checksum_crc32c,
        checksum_crc64nvme: i.checksum_crc64nvme,
        checksum_sha1: i.checksum_sha1,
        checksum_sha256: i.checksum_sha256,
        content_disposition: i.content_disposition,
        content_encoding: i.content_encoding,
        content_language: i.content_language,
        content_length: i.content_length,
        content_md5: i.content_md5,
        content_type: i.content_type,
        expected_bucket_owner: i.expected_bucket_owner,
        expires: i.expires,
        if_match: i.if_match,
        if_none_match: i.if_none_match,
        metadata: i.metadata,
        tagging: i.tagging,
        ..Default::default()
    });
    let mut out = super::put::put_object(s3, put).await?;
    let etag = out
        .output
        .e_tag
        .as_ref()
        .map(|e| format!("\"{}\"", e.value()))
        .unwrap_or_default();
    out.extensions.insert(PostReply::new(
        redirect.as_deref(),
        status.as_deref(),
        object_url,
        &bucket,
        &key,
        etag,
    ));
    Ok(out.map_output(|o| PostObjectOutput {
        e_tag: o.e_tag,
        ..Default::default()
    }))
}
