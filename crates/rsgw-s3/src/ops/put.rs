//! PutObject, and what every write of an object shares with it: the
//! headers stored with the object, Content-MD5, the write conditions
//! (If-Match, If-None-Match) and the body as the gateway streams it.

use std::collections::BTreeMap;

use futures::StreamExt;
use rsgw_gateway::{BodyCheck, BodyStream};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::checksums::{self, Checker};
use crate::crypt::{echo, with_echo};
use crate::dto::etag;
use crate::error::to_s3;

pub(super) async fn put_object(
    s3: &RsgwS3,
    req: S3Request<PutObjectInput>,
) -> S3Result<S3Response<PutObjectOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let mut params = object_params!(i, req.headers);
    params.content_md5 = content_md5(i.content_md5.as_ref(), &req.headers)?;
    params.content_length = i.content_length.map(|l| l.max(0) as u64);
    params.if_match = write_if_match(i.if_match);
    params.if_none_match_any = write_if_none_match_any(i.if_none_match)?;
    let checker = checker!(i, req)?;
    let (body, check) = checked_body(checker, i.body);
    params.check = check;
    let res = s3
        .gw
        .put_object(&rq, &i.bucket, &i.key, params, body)
        .await
        .map_err(to_s3)?;
    let out = with_checksums!(
        PutObjectOutput {
            e_tag: Some(etag(&res.meta.etag)),
            version_id: res.meta.version_id.clone(),
        },
        checksums::stored(&res.meta)
    );
    Ok(S3Response::new(with_echo!(
        out,
        echo(res.meta.sse.as_ref())
    )))
}

/// A write's answer, `$output` with `$fields`: it names the object's (or
/// part's) checksums, `$sums`.
macro_rules! with_checksums {
    ($output:ident { $($fields:tt)* }, $sums:expr) => {{
        let sums = $sums;
        // some outputs (a part, a copied part) have no other fields
        #[allow(clippy::needless_update)]
        let out = $output {
            $($fields)*
            checksum_crc32: sums.checksum_crc32,
            checksum_crc32c: sums.checksum_crc32c,
            checksum_sha1: sums.checksum_sha1,
            checksum_sha256: sums.checksum_sha256,
            checksum_crc64nvme: sums.checksum_crc64nvme,
            ..Default::default()
        };
        out
    }};
}
pub(super) use with_checksums;

/// What a write stores with its object (headers, `x-amz-meta-*`, tags,
/// ACL, the encryption and object lock its headers ask for; the rest of
/// `PutParams` as by default), from the typed fields every input that
/// makes an object shares (PutObject, CreateMultipartUpload); a malformed
/// tag, ACL, encryption or lock header returns its error.
macro_rules! object_params {
    ($input:expr, $headers:expr) => {
        rsgw_gateway::PutParams {
            headers: super::put::stored_headers!($input, $headers),
            user_meta: $input.metadata.unwrap_or_default().into_iter().collect(),
            tags: super::tagging::tagging_header($input.tagging.as_deref())?,
            acl: super::acl::header_acl(
                $input.acl.as_ref().map(ObjectCannedACL::as_str),
                super::acl::grant_headers!($input),
            )?,
            sse: crate::crypt::sse_request(&$headers)?,
            lock: super::lock::lock_request(
                $input.object_lock_mode.as_ref(),
                $input.object_lock_retain_until_date.as_ref(),
                $input.object_lock_legal_hold_status.as_ref(),
            )?,
            ..Default::default()
        }
    };
}
pub(super) use object_params;

/// A write's (PutObject's, CompleteMultipartUpload's) If-Match: the ETag
/// to write over, `*` for any object.
pub(super) fn write_if_match(c: Option<ETagCondition>) -> Option<String> {
    match c {
        Some(ETagCondition::Any) => Some("*".into()),
        Some(ETagCondition::ETag(ETag::Strong(s) | ETag::Weak(s))) => Some(s),
        None => None,
    }
}

/// A write's If-None-Match: whether to write only where no object is.
/// S3 takes `*` only; an ETag is refused rather than ignored, since
/// ignoring it overwrites the object the client meant to keep.
pub(super) fn write_if_none_match_any(c: Option<ETagCondition>) -> S3Result<bool> {
    match c {
        None => Ok(false),
        Some(ETagCondition::Any) => Ok(true),
        Some(ETagCondition::ETag(_)) => Err(s3_error!(
            NotImplemented,
            "If-None-Match on a write takes * only (write if no object exists)"
        )),
    }
}

/// The headers S3 stores with an object, from the typed fields every
/// object-writing input shares (PutObject, CreateMultipartUpload, CopyObject).
macro_rules! stored_headers {
    ($input:expr, $headers:expr) => {
        super::put::stored_headers_from(
            [
                ("content-type", $input.content_type.clone()),
                ("content-encoding", $input.content_encoding.clone()),
                ("content-disposition", $input.content_disposition.clone()),
                ("content-language", $input.content_language.clone()),
                ("cache-control", $input.cache_control.clone()),
            ],
            &$headers,
        )
    };
}
pub(super) use stored_headers;

/// The headers S3 stores with an object, from a request's typed fields.
pub(super) fn stored_headers_from(
    fields: [(&str, Option<String>); 5],
    headers: &http::HeaderMap,
) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = fields
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_string(), v?)))
        .collect();
    if let Some(ce) = out.remove("content-encoding").and_then(stored_encoding) {
        out.insert("content-encoding".into(), ce);
    }
    if let Some(exp) = headers
        .get(http::header::EXPIRES)
        .and_then(|v| v.to_str().ok())
    {
        out.insert("expires".into(), exp.to_string());
    }
    out
}

/// The Content-Encoding an object keeps: the request's without
/// `aws-chunked`, which names the upload's framing and not the object's
/// encoding (AWS drops it: `gzip, aws-chunked` is stored as `gzip`;
/// radosgw 16.2 stores it as sent). `None` when nothing else is left.
fn stored_encoding(sent: String) -> Option<String> {
    let framing = |t: &str| t.trim().eq_ignore_ascii_case("aws-chunked");
    if !sent.split(',').any(framing) {
        return Some(sent);
    }
    let rest: Vec<&str> = sent
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty() && !framing(t))
        .collect();
    (!rest.is_empty()).then(|| rest.join(", "))
}

/// A Content-MD5 header's digest: base64 of 16 bytes.
fn decode_md5(b64: Option<&String>) -> S3Result<Option<Vec<u8>>> {
    b64.map(|b64| {
        checksums::decode_content_md5(b64.as_bytes())
            .ok_or_else(|| s3_error!(InvalidDigest, "The Content-MD5 you specified is not valid"))
    })
    .transpose()
}

/// The request's Content-MD5: the parsed field, or, where s3s dropped an
/// empty header, the header itself, so that an empty Content-MD5 is
/// `InvalidDigest` as on radosgw and AWS rather than no digest at all.
pub(super) fn content_md5(
    field: Option<&String>,
    headers: &http::HeaderMap,
) -> S3Result<Option<Vec<u8>>> {
    match (field, headers.get("content-md5")) {
        (None, Some(raw)) => decode_md5(Some(&raw.to_str().unwrap_or_default().to_string())),
        (field, _) => decode_md5(field),
    }
}

/// What checks the checksums a write's request asks for (`None`: none):
/// the `x-amz-checksum-*` values sent in the typed fields every
/// body-carrying input shares (PutObject, UploadPart), or announced for
/// its trailers.
macro_rules! checker {
    ($input:expr, $req:expr) => {
        crate::checksums::Checker::new(
            s3s::dto::Checksum {
                checksum_crc32: $input.checksum_crc32.clone(),
                checksum_crc32c: $input.checksum_crc32c.clone(),
                checksum_sha1: $input.checksum_sha1.clone(),
                checksum_sha256: $input.checksum_sha256.clone(),
                checksum_crc64nvme: $input.checksum_crc64nvme.clone(),
                ..Default::default()
            },
            $input.checksum_algorithm.as_ref(),
            &$req.headers,
            $req.trailing_headers.clone(),
        )
    };
}
pub(super) use checker;

/// A request's body as the gateway streams it, through `checker` when
/// checksums are asked for (with what the gateway checks at the end).
pub(super) fn checked_body(
    checker: Option<Checker>,
    body: Option<StreamingBlob>,
) -> (BodyStream, Option<BodyCheck>) {
    let body: BodyStream = match body {
        Some(b) => Box::pin(b.map(|r| r.map_err(|e| crate::error::body_error(e.as_ref())))),
        None => Box::pin(futures::stream::empty()),
    };
    match checker {
        Some(c) => {
            let (body, check) = c.wrap(body);
            (body, Some(check))
        }
        None => (body, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::check;

    #[test]
    fn content_md5_must_be_base64_of_16_bytes() {
        let empty_md5 = vec![
            0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8,
            0x42, 0x7e,
        ];
        let invalid = || Err(("InvalidDigest", 400));
        let table = [
            (None, Ok(None)),
            (Some("1B2M2Y8AsgTpgAmY7PhCfg=="), Ok(Some(empty_md5))),
            (Some("not base64!"), invalid()),
            // the hex digest is valid base64, of 24 bytes
            (Some("d41d8cd98f00b204e9800998ecf8427e"), invalid()),
            (Some("AAAA"), invalid()),
            (Some("AAAAAAAAAAAAAAAAAAAAAAA="), invalid()),
            (Some(""), invalid()),
        ];
        for (header, want) in table {
            let header = header.map(String::from);
            check(decode_md5(header.as_ref()), want, &format!("{header:?}"));
        }
        // an empty header, which s3s leaves out of the input, is refused too
        let mut h = http::HeaderMap::new();
        h.insert("content-md5", http::HeaderValue::from_static(""));
        check(content_md5(None, &h), invalid(), "empty header");
        check(
            content_md5(None, &http::HeaderMap::new()),
            Ok(None),
            "no header",
        );
    }

    #[test]
    fn aws_chunked_is_no_stored_content_encoding() {
        let table = [
            ("gzip", Some("gzip")),
            ("gzip,br", Some("gzip,br")),
            ("", Some("")),
            ("aws-chunked", None),
            ("AWS-Chunked", None),
            ("gzip, aws-chunked", Some("gzip")),
            ("gzip,aws-chunked", Some("gzip")),
            ("aws-chunked, gzip", Some("gzip")),
            ("gzip, aws-chunked, br", Some("gzip, br")),
            (" aws-chunked , ", None),
            ("aws-chunkedx", Some("aws-chunkedx")),
        ];
        for (sent, want) in table {
            assert_eq!(
                stored_encoding(sent.to_string()).as_deref(),
                want,
                "{sent:?}"
            );
        }
        let got = stored_headers_from(
            [
                ("content-type", None),
                ("content-encoding", Some("gzip, aws-chunked".into())),
                ("content-disposition", None),
                ("content-language", None),
                ("cache-control", None),
            ],
            &http::HeaderMap::new(),
        );
        assert_eq!(
            got.get("content-encoding").map(String::as_str),
            Some("gzip")
        );
        let got = stored_headers_from(
            [
                ("content-type", None),
                ("content-encoding", Some("aws-chunked".into())),
                ("content-disposition", None),
                ("content-language", None),
                ("cache-control", None),
            ],
            &http::HeaderMap::new(),
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn stored_headers_are_the_set_fields_and_expires() {
        let mut h = http::HeaderMap::new();
        h.insert(
            http::header::EXPIRES,
            "Thu, 01 Dec 2026 16:00:00 GMT".parse().expect("value"),
        );
        h.insert(
            http::header::CACHE_CONTROL,
            "ignored".parse().expect("value"),
        );
        let got = stored_headers_from(
            [
                ("content-type", Some("text/plain".into())),
                ("content-encoding", None),
                ("content-disposition", Some("attachment".into())),
                ("content-language", None),
                ("cache-control", Some("no-cache".into())),
            ],
            &h,
        );
        let want: BTreeMap<String, String> = [
            ("cache-control", "no-cache"),
            ("content-disposition", "attachment"),
            ("content-type", "text/plain"),
            ("expires", "Thu, 01 Dec 2026 16:00:00 GMT"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(got, want);
        let none = stored_headers_from(
            [
                ("content-type", None),
                ("content-encoding", None),
                ("content-disposition", None),
                ("content-language", None),
                ("cache-control", None),
            ],
            &http::HeaderMap::new(),
        );
        assert!(none.is_empty());
    }
}
