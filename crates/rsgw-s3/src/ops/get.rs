//! GetObject and HeadObject: an object's data and headers, a range or a
//! part of it, under the request's conditions.

use rsgw_gateway::{GetParams, MAX_PART_NUMBER, RangeSpec, Requester};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::checksums;
use crate::crypt::{CUSTOMER, customer_key, echo, with_echo};
use crate::dto::{etag, get_params, ts};
use crate::error::to_s3;

/// What a GetObject or HeadObject (inputs with the same fields) asks of the
/// read: first the refusals (overrides from an anonymous requester), then
/// its range or part, conditions, the SSE-C key sent and the version.
macro_rules! read_params {
    ($rq:ident, $i:ident, $headers:expr, $head_only:expr) => {{
        no_anonymous_overrides(
            &$rq,
            $i.response_content_type.is_some()
                || $i.response_content_encoding.is_some()
                || $i.response_content_disposition.is_some()
                || $i.response_content_language.is_some()
                || $i.response_cache_control.is_some()
                || $i.response_expires.is_some(),
        )?;
        let mut params = with_part(
            get_params(
                $i.range,
                [$i.if_match, $i.if_none_match],
                [$i.if_modified_since, $i.if_unmodified_since],
                $head_only,
            ),
            $i.part_number,
        )?;
        params.sse_key = customer_key(&$headers, CUSTOMER)?;
        params.version_id = $i.version_id.clone();
        params
    }};
}

/// The answer to a GetObject or HeadObject (`$output`, outputs with the
/// same fields besides `$extra`) that read `$res`: the object's headers as
/// stored, overridden by the request's `response-*` parameters, its
/// lock, its checksums when asked for (of the whole object only), and
/// `206` for a range or a part.
macro_rules! read_response {
    ($output:ident { $($extra:tt)* }, $i:ident, $res:ident) => {{
        let m = &$res.meta;
        let h = |name: &str| m.headers.get(name).cloned();
        let (lock_mode, lock_until, legal_hold) = super::lock::lock_headers(m);
        let mut out = $output {
            $($extra)*
            object_lock_mode: lock_mode,
            object_lock_retain_until_date: lock_until,
            object_lock_legal_hold_status: legal_hold,
            content_length: Some($res.range.map_or(m.size, |(s, e)| e - s) as i64),
            content_range: $res
                .range
                .map(|(s, e)| format!("bytes {}-{}/{}", s, e - 1, m.size)),
            accept_ranges: Some("bytes".into()),
            e_tag: Some(etag(&m.etag)),
            last_modified: Some(ts(m.mtime)),
            metadata: Some(m.user_meta.clone().into_iter().collect()),
            // what was stored without a type is served as S3 serves it
            content_type: h("content-type").or_else(|| Some("binary/octet-stream".into())),
            content_encoding: h("content-encoding"),
            content_disposition: h("content-disposition"),
            content_language: h("content-language"),
            cache_control: h("cache-control"),
            parts_count: $res.parts_count.map(|n| n as i32),
            version_id: $res.version_id.clone(),
            ..Default::default()
        };
        for (field, v) in [
            (&mut out.content_type, $i.response_content_type),
            (&mut out.content_encoding, $i.response_content_encoding),
            (&mut out.content_disposition, $i.response_content_disposition),
            (&mut out.content_language, $i.response_content_language),
            (&mut out.cache_control, $i.response_cache_control),
        ] {
            if v.is_some() {
                *field = v;
            }
        }
        if wants_checksums($i.checksum_mode.as_ref()) && $res.range.is_none() {
            let c = checksums::stored(m);
            out.checksum_crc32 = c.checksum_crc32;
            out.checksum_crc32c = c.checksum_crc32c;
            out.checksum_sha1 = c.checksum_sha1;
            out.checksum_sha256 = c.checksum_sha256;
            out.checksum_crc64nvme = c.checksum_crc64nvme;
        }
        let mut resp = S3Response::new(with_echo!(out, echo(m.sse.as_ref())));
        if let Some(exp) = response_expires($i.response_expires).or_else(|| h("expires"))
            && let Ok(v) = http::HeaderValue::from_str(&exp)
        {
            resp.headers.insert(http::header::EXPIRES, v);
        }
        if $res.range.is_some() {
            resp.status = Some(http::StatusCode::PARTIAL_CONTENT);
        }
        resp
    }};
}

pub(super) async fn get_object(
    s3: &RsgwS3,
    req: S3Request<GetObjectInput>,
) -> S3Result<S3Response<GetObjectOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let params = read_params!(rq, i, req.headers, false);
    let res = s3
        .gw
        .get_object(&rq, &i.bucket, &i.key, params)
        .await
        .map_err(to_s3)?;
    Ok(read_response!(
        GetObjectOutput {
            body: res
                .body
                .map(|b| StreamingBlob::wrap(sync_wrapper::SyncStream::new(b))),
            tag_count: (!res.meta.tags.is_empty()).then_some(res.meta.tags.len() as i32),
        },
        i,
        res
    ))
}

pub(super) async fn head_object(
    s3: &RsgwS3,
    req: S3Request<HeadObjectInput>,
) -> S3Result<S3Response<HeadObjectOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let params = read_params!(rq, i, req.headers, true);
    let res = s3
        .gw
        .get_object(&rq, &i.bucket, &i.key, params)
        .await
        .map_err(to_s3)?;
    Ok(read_response!(HeadObjectOutput {}, i, res))
}

/// `x-amz-checksum-mode: ENABLED` asks GET and HEAD for stored checksums.
fn wants_checksums(mode: Option<&ChecksumMode>) -> bool {
    mode.is_some_and(|m| m.as_str().eq_ignore_ascii_case("ENABLED"))
}

/// `response-expires` as the Expires header it sets.
fn response_expires(t: Option<Timestamp>) -> Option<String> {
    let mut buf = Vec::new();
    t?.format(TimestampFormat::HttpDate, &mut buf).ok()?;
    String::from_utf8(buf).ok()
}

/// `partNumber` of GetObject and HeadObject: that part (1 to
/// [`MAX_PART_NUMBER`]),
/// never with a Range.
fn with_part(mut params: GetParams, part_number: Option<i32>) -> S3Result<GetParams> {
    let Some(n) = part_number else {
        return Ok(params);
    };
    if params.range.is_some() {
        return Err(s3_error!(
            InvalidRequest,
            "Cannot specify both Range header and partNumber query parameter"
        ));
    }
    let n = u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_PART_NUMBER).contains(n))
        .ok_or_else(|| {
            s3_error!(
                InvalidArgument,
                "Part number must be an integer between 1 and {MAX_PART_NUMBER}, inclusive"
            )
        })?;
    params.range = Some(RangeSpec::Part(n));
    Ok(params)
}

/// AWS serves `response-*` overrides to signed requests only.
fn no_anonymous_overrides(rq: &Requester, any_override: bool) -> S3Result<()> {
    if any_override && rq.uid().is_none() {
        return Err(s3_error!(
            InvalidRequest,
            "Request specific response headers cannot be used for anonymous GET requests."
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_mode_enabled_asks_for_checksums() {
        let table = [
            (None, false),
            (Some("ENABLED"), true),
            (Some("DISABLED"), false),
            (Some(""), false),
        ];
        for (mode, want) in table {
            let mode = mode.map(|m| ChecksumMode::from(m.to_string()));
            assert_eq!(wants_checksums(mode.as_ref()), want, "{mode:?}");
        }
    }
}
