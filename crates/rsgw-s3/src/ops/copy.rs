//! CopyObject, and what UploadPartCopy shares with it: the copy source,
//! its conditions and its range.

use rsgw_gateway::{CopyMetadata, GetParams};
use s3s::dto::*;
use s3s::{S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use super::acl::{grant_headers, header_acl};
use super::lock::lock_request;
use super::put::stored_headers;
use super::tagging::tagging_header;
use crate::crypt::{echo, sse_request, with_echo};
use crate::dto::{etag, ts};
use crate::error::to_s3;

pub(super) async fn copy_object(
    s3: &RsgwS3,
    req: S3Request<CopyObjectInput>,
) -> S3Result<S3Response<CopyObjectOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let (src_bucket, src_key, src_version) = copy_source(&i.copy_source)?;
    let metadata = match i.metadata_directive.as_ref().map(MetadataDirective::as_str) {
        None | Some("COPY") => CopyMetadata::Copy,
        Some("REPLACE") => CopyMetadata::Replace {
            headers: stored_headers!(i, req.headers),
            user_meta: i.metadata.clone().unwrap_or_default().into_iter().collect(),
        },
        Some(other) => {
            return Err(S3Error::with_message(
                S3ErrorCode::InvalidArgument,
                format!("Unknown metadata directive '{other}'"),
            ));
        }
    };
    let tags = match i.tagging_directive.as_ref().map(TaggingDirective::as_str) {
        None | Some("COPY") => None,
        Some("REPLACE") => Some(tagging_header(i.tagging.as_deref())?),
        Some(other) => {
            return Err(S3Error::with_message(
                S3ErrorCode::InvalidArgument,
                format!("Unknown tagging directive '{other}'"),
            ));
        }
    };
    let conditions = GetParams {
        version_id: src_version.map(str::to_string),
        ..source_conditions!(i, req.headers)
    };
    let res = s3
        .gw
        .copy_object(
            &rq,
            src_bucket,
            src_key,
            &i.bucket,
            &i.key,
            metadata,
            header_acl(
                i.acl.as_ref().map(ObjectCannedACL::as_str),
                grant_headers!(i),
            )?,
            tags,
            sse_request(&req.headers)?,
            lock_request(
                i.object_lock_mode.as_ref(),
                i.object_lock_retain_until_date.as_ref(),
                i.object_lock_legal_hold_status.as_ref(),
            )?,
            conditions,
        )
        .await
        .map_err(to_s3)?;
    let out = CopyObjectOutput {
        copy_object_result: Some(CopyObjectResult {
            e_tag: Some(etag(&res.meta.etag)),
            last_modified: Some(ts(res.meta.mtime)),
            ..Default::default()
        }),
        version_id: res.meta.version_id.clone(),
        copy_source_version_id: src_version.map(str::to_string),
        ..Default::default()
    };
    Ok(S3Response::new(with_echo!(
        out,
        echo(res.meta.sse.as_ref())
    )))
}

/// A copy's source, as bucket, key and the version named (`versionId`);
/// an access point's is refused, never taken for another.
pub(super) fn copy_source(s: &CopySource) -> S3Result<(&str, &str, Option<&str>)> {
    let CopySource::Bucket {
        bucket,
        key,
        version_id,
    } = s
    else {
        return Err(s3_error!(
            NotImplemented,
            "copy sources other than bucket/key are not supported"
        ));
    };
    Ok((bucket, key, version_id.as_deref()))
}

/// The conditions on a copy's source (`x-amz-copy-source-if-*`), from the
/// typed fields every copying input shares (CopyObject, UploadPartCopy),
/// and the source's SSE-C key (`x-amz-copy-source-server-side-encryption-customer-*`).
macro_rules! source_conditions {
    ($input:expr, $headers:expr) => {
        rsgw_gateway::GetParams {
            sse_key: crate::crypt::customer_key(&$headers, crate::crypt::COPY_SOURCE_CUSTOMER)?,
            if_match: crate::dto::etag_list($input.copy_source_if_match),
            if_none_match: crate::dto::etag_list($input.copy_source_if_none_match),
            if_modified_since: $input
                .copy_source_if_modified_since
                .map(crate::dto::to_system_time),
            if_unmodified_since: $input
                .copy_source_if_unmodified_since
                .map(crate::dto::to_system_time),
            ..Default::default()
        }
    };
}
pub(super) use source_conditions;

/// `x-amz-copy-source-range`: `bytes=first-last`, both given, first at most
/// last (S3 takes no other form).
pub(super) fn copy_source_range(v: &str) -> S3Result<(u64, u64)> {
    let bad = || {
        s3_error!(
            InvalidArgument,
            "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy"
        )
    };
    let (first, last) = v
        .strip_prefix("bytes=")
        .and_then(|r| r.split_once('-'))
        .ok_or_else(bad)?;
    let num = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
            .ok_or_else(bad)
    };
    let (first, last) = (num(first)?, num(last)?);
    if first > last {
        return Err(bad());
    }
    Ok((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_source_ranges_take_one_form() {
        assert_eq!(copy_source_range("bytes=0-9").expect("ok"), (0, 9));
        assert_eq!(copy_source_range("bytes=5-5").expect("ok"), (5, 5));
        for bad in [
            "bytes=9-0",
            "bytes=-5",
            "bytes=5-",
            "0-9",
            "bytes=a-b",
            "bytes=0-9,10-11",
            "bytes= 0-9",
            "bytes=0-99999999999999999999999",
        ] {
            let e = copy_source_range(bad).expect_err(bad);
            assert_eq!(*e.code(), S3ErrorCode::InvalidArgument, "{bad}");
        }
    }
}
