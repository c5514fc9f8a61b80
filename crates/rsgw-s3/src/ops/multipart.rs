//! Multipart uploads: CreateMultipartUpload, UploadPart, UploadPartCopy,
//! CompleteMultipartUpload, AbortMultipartUpload, ListParts and
//! ListMultipartUploads.

use rsgw_gateway::{CompleteChecks, GetParams, MAX_PART_NUMBER};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use super::copy::{copy_source, copy_source_range, source_conditions};
use super::list::{Encoder, echoed};
use super::put::{
    checked_body, checker, content_md5, object_params, with_checksums, write_if_match,
    write_if_none_match_any,
};
use crate::checksums;
use crate::crypt::{CUSTOMER, customer_key, echo, echo_customer, with_echo};
use crate::dto::{etag, ts};
use crate::error::to_s3;
use crate::limits::page_size;

pub(super) async fn create_multipart_upload(
    s3: &RsgwS3,
    req: S3Request<CreateMultipartUploadInput>,
) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let algorithm = i
        .checksum_algorithm
        .as_ref()
        .map(|a| a.as_str().to_ascii_lowercase());
    let params = rsgw_gateway::PutParams {
        checksum_algorithm: algorithm,
        ..object_params!(i, req.headers)
    };
    let up = s3
        .gw
        .create_multipart(&rq, &i.bucket, &i.key, params)
        .await
        .map_err(to_s3)?;
    let out = CreateMultipartUploadOutput {
        bucket: Some(i.bucket),
        key: Some(i.key),
        upload_id: Some(up.upload_id),
        checksum_algorithm: up.checksum_algorithm.as_deref().map(checksum_algorithm),
        ..Default::default()
    };
    Ok(S3Response::new(with_echo!(out, echo(up.sse.as_ref()))))
}

pub(super) async fn upload_part(
    s3: &RsgwS3,
    req: S3Request<UploadPartInput>,
) -> S3Result<S3Response<UploadPartOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let checker = checker!(i, req)?;
    let (body, check) = checked_body(checker, i.body);
    let number = part_number(i.part_number)?;
    let sse_key = customer_key(&req.headers, CUSTOMER)?;
    let part = s3
        .gw
        .upload_part(
            &rq,
            &i.bucket,
            &i.key,
            &i.upload_id,
            number,
            i.content_length.map(|l| l.max(0) as u64),
            content_md5(i.content_md5.as_ref(), &req.headers)?,
            check,
            sse_key.as_ref(),
            body,
        )
        .await
        .map_err(to_s3)?;
    let out = with_checksums!(
        UploadPartOutput {
            e_tag: Some(etag(&part.etag)),
        },
        checksums::from_map(&part.checksums)
    );
    Ok(S3Response::new(with_echo!(
        out,
        echo_customer(sse_key.as_ref())
    )))
}

pub(super) async fn upload_part_copy(
    s3: &RsgwS3,
    req: S3Request<UploadPartCopyInput>,
) -> S3Result<S3Response<UploadPartCopyOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let (src_bucket, src_key, src_version) = copy_source(&i.copy_source)?;
    let number = part_number(i.part_number)?;
    let range = i
        .copy_source_range
        .as_deref()
        .map(copy_source_range)
        .transpose()?;
    let conditions = GetParams {
        version_id: src_version.map(str::to_string),
        ..source_conditions!(i, req.headers)
    };
    let sse_key = customer_key(&req.headers, CUSTOMER)?;
    let part = s3
        .gw
        .upload_part_copy(
            &rq,
            &i.bucket,
            &i.key,
            &i.upload_id,
            number,
            src_bucket,
            src_key,
            range,
            conditions,
            sse_key.as_ref(),
        )
        .await
        .map_err(to_s3)?;
    let out = UploadPartCopyOutput {
        copy_part_result: Some(with_checksums!(
            CopyPartResult {
                e_tag: Some(etag(&part.etag)),
                last_modified: Some(ts(part.mtime)),
            },
            checksums::from_map(&part.checksums)
        )),
        ..Default::default()
    };
    Ok(S3Response::new(with_echo!(
        out,
        echo_customer(sse_key.as_ref())
    )))
}

/// The URL of the object a request names, as AWS gives it in
/// CompleteMultipartUpload's Location: the request's own scheme, host and
/// (encoded) path, which names the object path-style and virtual-hosted
/// alike; the path alone when the request names no host.
fn object_url(uri: &http::Uri, headers: &http::HeaderMap, secure: bool) -> String {
    let scheme = if secure { "https" } else { "http" };
    match headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
    {
        Some(host) => format!("{scheme}://{host}{}", uri.path()),
        None => uri.path().to_string(),
    }
}

pub(super) async fn complete_multipart_upload(
    s3: &RsgwS3,
    req: S3Request<CompleteMultipartUploadInput>,
) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
    let rq = s3.requester(&req).await?;
    let location = object_url(&req.uri, &req.headers, rq.secure);
    let i = req.input;
    let parts = i
        .multipart_upload
        .and_then(|m| m.parts)
        .unwrap_or_default()
        .into_iter()
        .map(|p| {
            let n = p.part_number.and_then(|n| u32::try_from(n).ok());
            let e = p.e_tag.map(|e| match e {
                ETag::Strong(s) | ETag::Weak(s) => s,
            });
            n.zip(e)
                .ok_or_else(|| s3_error!(MalformedXML, "each part needs a PartNumber and an ETag"))
        })
        .collect::<S3Result<Vec<_>>>()?;
    let checks = CompleteChecks {
        if_match: write_if_match(i.if_match),
        if_none_match_any: write_if_none_match_any(i.if_none_match)?,
        object_size: i.mpu_object_size.map(|s| s.max(0) as u64),
        sse_key: customer_key(&req.headers, CUSTOMER)?,
    };
    let res = s3
        .gw
        .complete_multipart_checked(&rq, &i.bucket, &i.key, &i.upload_id, &parts, &checks)
        .await
        .map_err(to_s3)?;
    let out = with_checksums!(
        CompleteMultipartUploadOutput {
            location: Some(location),
            bucket: Some(i.bucket),
            key: Some(i.key),
            e_tag: Some(etag(&res.meta.etag)),
            version_id: res.meta.version_id.clone(),
        },
        checksums::stored(&res.meta)
    );
    // S3's answer names no customer key here: only the other modes
    let e = echo(res.meta.sse.as_ref());
    Ok(S3Response::new(CompleteMultipartUploadOutput {
        server_side_encryption: e.server_side_encryption,
        ssekms_key_id: e.ssekms_key_id,
        ..out
    }))
}

/// S3's name of a stored (lowercase) checksum algorithm.
fn checksum_algorithm(alg: &str) -> ChecksumAlgorithm {
    ChecksumAlgorithm::from(alg.to_ascii_uppercase())
}

pub(super) async fn abort_multipart_upload(
    s3: &RsgwS3,
    req: S3Request<AbortMultipartUploadInput>,
) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    s3.gw
        .abort_multipart(&rq, &i.bucket, &i.key, &i.upload_id)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(AbortMultipartUploadOutput::default()))
}

pub(super) async fn list_parts(
    s3: &RsgwS3,
    req: S3Request<ListPartsInput>,
) -> S3Result<S3Response<ListPartsOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let max = page_size(i.max_parts);
    let marker = i.part_number_marker.unwrap_or(0).max(0) as u32;
    let (up, parts, truncated) = s3
        .gw
        .list_parts(&rq, &i.bucket, &i.key, &i.upload_id, marker, max as usize)
        .await
        .map_err(to_s3)?;
    let owner = s3.owner(&up.owner).await;
    Ok(S3Response::new(ListPartsOutput {
        bucket: Some(i.bucket),
        key: Some(i.key),
        upload_id: Some(i.upload_id),
        part_number_marker: Some(marker as i32),
        next_part_number_marker: parts.last().map(|p| p.number as i32),
        max_parts: Some(max),
        is_truncated: Some(truncated),
        initiator: Some(Initiator {
            id: owner.id.clone(),
            display_name: owner.display_name.clone(),
        }),
        owner: Some(owner),
        storage_class: Some(StorageClass::from_static(StorageClass::STANDARD)),
        checksum_algorithm: up.checksum_algorithm.as_deref().map(checksum_algorithm),
        parts: Some(
            parts
                .iter()
                .map(|p| {
                    with_checksums!(
                        Part {
                            part_number: Some(p.number as i32),
                            e_tag: Some(etag(&p.etag)),
                            size: Some(p.size as i64),
                            last_modified: Some(ts(p.mtime)),
                        },
                        checksums::from_map(&p.checksums)
                    )
                })
                .collect(),
        ),
        ..Default::default()
    }))
}

pub(super) async fn list_multipart_uploads(
    s3: &RsgwS3,
    req: S3Request<ListMultipartUploadsInput>,
) -> S3Result<S3Response<ListMultipartUploadsOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let max = page_size(i.max_uploads);
    let enc = Encoder::new(&i.encoding_type)?;
    let delimiter = echoed(i.delimiter);
    let list = s3
        .gw
        .list_multipart_uploads(
            &rq,
            &i.bucket,
            (
                i.prefix.as_deref().unwrap_or(""),
                delimiter.as_deref().unwrap_or(""),
            ),
            (
                i.key_marker.as_deref().unwrap_or(""),
                i.upload_id_marker.as_deref().unwrap_or(""),
            ),
            max as usize,
        )
        .await
        .map_err(to_s3)?;
    let mut uploads = Vec::with_capacity(list.uploads.len());
    for u in &list.uploads {
        let owner = s3.owner(&u.owner).await;
        uploads.push(MultipartUpload {
            key: Some(enc.s(u.key.clone())),
            upload_id: Some(u.upload_id.clone()),
            initiated: Some(ts(u.initiated)),
            initiator: Some(Initiator {
                id: owner.id.clone(),
                display_name: owner.display_name.clone(),
            }),
            owner: Some(owner),
            storage_class: Some(StorageClass::from_static(StorageClass::STANDARD)),
            ..Default::default()
        });
    }
    let (next_key, next_upload) = list.next_marker.unzip();
    Ok(S3Response::new(ListMultipartUploadsOutput {
        bucket: Some(i.bucket),
        prefix: enc.opt(i.prefix),
        delimiter: enc.opt(delimiter),
        key_marker: enc.opt(i.key_marker),
        upload_id_marker: i.upload_id_marker,
        max_uploads: Some(max),
        is_truncated: Some(list.is_truncated),
        next_key_marker: enc.opt(next_key),
        next_upload_id_marker: next_upload.filter(|u| !u.is_empty()),
        uploads: Some(uploads),
        common_prefixes: Some(
            list.common_prefixes
                .into_iter()
                .map(|p| CommonPrefix {
                    prefix: Some(enc.s(p)),
                })
                .collect(),
        ),
        encoding_type: i.encoding_type,
        ..Default::default()
    }))
}

/// A part number as the gateway takes it (which refuses those above
/// [`MAX_PART_NUMBER`]).
fn part_number(n: i32) -> S3Result<u32> {
    u32::try_from(n).map_err(|_| {
        s3_error!(
            InvalidArgument,
            "Part number must be an integer between 1 and {MAX_PART_NUMBER}"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_is_the_objects_url() {
        let uri: http::Uri = "/b/a%20key?uploadId=u".parse().expect("uri");
        let mut h = http::HeaderMap::new();
        assert_eq!(object_url(&uri, &h, false), "/b/a%20key");
        h.insert(
            http::header::HOST,
            http::HeaderValue::from_static("127.0.0.1:7480"),
        );
        assert_eq!(
            object_url(&uri, &h, false),
            "http://127.0.0.1:7480/b/a%20key"
        );
        let vhost: http::Uri = "/a%20key?uploadId=u".parse().expect("uri");
        h.insert(
            http::header::HOST,
            http::HeaderValue::from_static("b.s3.test"),
        );
        assert_eq!(object_url(&vhost, &h, true), "https://b.s3.test/a%20key");
    }
}
