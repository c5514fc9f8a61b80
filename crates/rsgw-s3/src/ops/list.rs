//! ListObjects, ListObjectsV2 and ListObjectVersions: one page of the
//! bucket index, its keys encoded as `encoding-type` asks.

use base64::Engine;
use rsgw_gateway::{ListParams, ListResult, NULL_VERSION, Requester, VersionListParams};
use s3s::dto::*;
use s3s::{S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::dto::{etag, ts};
use crate::error::to_s3;
use crate::limits::page_size;
use crate::uri::encode;

pub(super) async fn list_objects(
    s3: &RsgwS3,
    req: S3Request<ListObjectsInput>,
) -> S3Result<S3Response<ListObjectsOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let max = page_size(i.max_keys);
    let delimiter = echoed(i.delimiter);
    let params = ListParams {
        prefix: i.prefix.clone().unwrap_or_default(),
        delimiter: delimiter.clone(),
        start_after: i.marker.clone().unwrap_or_default(),
        max_keys: max as usize,
    };
    let enc = Encoder::new(&i.encoding_type)?;
    let (res, mut contents, mut prefixes) = page(s3, &rq, &i.bucket, params, true).await?;
    enc.listing(&mut contents, &mut prefixes);
    Ok(S3Response::new(ListObjectsOutput {
        name: Some(i.bucket),
        // ListObjects (v1) echoes its prefix as given, encoding-type=url
        // or not: radosgw does, and botocore, which asks for url
        // encoding on every listing, decodes v1's Delimiter and Marker
        // but not its Prefix
        prefix: Some(i.prefix.unwrap_or_default()),
        marker: Some(enc.s(i.marker.unwrap_or_default())),
        max_keys: Some(max),
        is_truncated: Some(res.is_truncated),
        next_marker: if delimiter.is_some() {
            enc.opt(res.next_marker.clone())
        } else {
            None
        },
        contents: Some(contents),
        common_prefixes: Some(prefixes),
        delimiter: enc.opt(delimiter),
        encoding_type: i.encoding_type,
        ..Default::default()
    }))
}

/// A continuation token for a listing that goes on after `marker`:
/// opaque to clients, as S3's are (ListObjectsV2, ListBuckets).
pub(super) fn marker_token(marker: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(marker)
}

/// The marker a continuation token of [`marker_token`] stands for; one
/// rsgw did not give out is `400 InvalidArgument`.
pub(super) fn token_marker(token: &str) -> S3Result<String> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| {
            s3_error!(
                InvalidArgument,
                "The continuation token provided is incorrect"
            )
        })
}

pub(super) async fn list_objects_v2(
    s3: &RsgwS3,
    req: S3Request<ListObjectsV2Input>,
) -> S3Result<S3Response<ListObjectsV2Output>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let after = match &i.continuation_token {
        Some(t) => token_marker(t)?,
        None => i.start_after.clone().unwrap_or_default(),
    };
    let max = page_size(i.max_keys);
    let params = ListParams {
        prefix: i.prefix.clone().unwrap_or_default(),
        delimiter: i.delimiter.clone(),
        start_after: after,
        max_keys: max as usize,
    };
    let enc = Encoder::new(&i.encoding_type)?;
    let fetch_owner = i.fetch_owner.unwrap_or(false);
    let (res, mut contents, mut prefixes) = page(s3, &rq, &i.bucket, params, fetch_owner).await?;
    enc.listing(&mut contents, &mut prefixes);
    let count = (contents.len() + prefixes.len()) as i32;
    Ok(S3Response::new(ListObjectsV2Output {
        name: Some(i.bucket),
        prefix: Some(enc.s(i.prefix.unwrap_or_default())),
        max_keys: Some(max),
        key_count: Some(count),
        continuation_token: i.continuation_token,
        next_continuation_token: res.next_marker.as_deref().map(marker_token),
        is_truncated: Some(res.is_truncated),
        contents: Some(contents),
        common_prefixes: Some(prefixes),
        delimiter: enc.opt(echoed(i.delimiter)),
        encoding_type: i.encoding_type,
        start_after: enc.opt(i.start_after),
        ..Default::default()
    }))
}

pub(super) async fn list_object_versions(
    s3: &RsgwS3,
    req: S3Request<ListObjectVersionsInput>,
) -> S3Result<S3Response<ListObjectVersionsOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let max = page_size(i.max_keys);
    let params = VersionListParams {
        prefix: i.prefix.clone().unwrap_or_default(),
        delimiter: i.delimiter.clone(),
        key_marker: i.key_marker.clone().unwrap_or_default(),
        version_marker: i.version_id_marker.clone().filter(|v| !v.is_empty()),
        max_keys: max as usize,
    };
    let enc = Encoder::new(&i.encoding_type)?;
    let res = s3
        .gw
        .list_object_versions(&rq, &i.bucket, &params)
        .await
        .map_err(to_s3)?;
    let (mut versions, mut markers) = (Vec::new(), Vec::new());
    for v in res.versions {
        let version_id = Some(v.version_id.unwrap_or_else(|| NULL_VERSION.to_string()));
        let owner = Some(s3.owner(&v.owner).await);
        if v.delete_marker {
            markers.push(DeleteMarkerEntry {
                key: enc.opt(Some(v.key)),
                version_id,
                is_latest: Some(v.latest),
                last_modified: Some(ts(v.mtime)),
                owner,
            });
        } else {
            versions.push(ObjectVersion {
                key: enc.opt(Some(v.key)),
                e_tag: Some(etag(&v.etag)),
                size: Some(v.size as i64),
                last_modified: Some(ts(v.mtime)),
                owner,
                is_latest: Some(v.latest),
                version_id,
                storage_class: Some(ObjectVersionStorageClass::from_static(
                    ObjectVersionStorageClass::STANDARD,
                )),
                ..Default::default()
            });
        }
    }
    let mut prefixes: Vec<CommonPrefix> = res
        .common_prefixes
        .into_iter()
        .map(|p| CommonPrefix { prefix: Some(p) })
        .collect();
    enc.listing(&mut [], &mut prefixes);
    let (next_key, next_version) = res.next.map_or((None, None), |(k, v)| (Some(k), v));
    Ok(S3Response::new(ListObjectVersionsOutput {
        name: Some(i.bucket),
        prefix: Some(enc.s(i.prefix.unwrap_or_default())),
        key_marker: Some(enc.s(i.key_marker.unwrap_or_default())),
        // echoed as asked, as AWS and radosgw do
        version_id_marker: Some(i.version_id_marker.unwrap_or_default()),
        max_keys: Some(max),
        is_truncated: Some(res.is_truncated),
        next_key_marker: enc.opt(next_key),
        next_version_id_marker: next_version,
        versions: Some(versions),
        delete_markers: Some(markers),
        common_prefixes: Some(prefixes),
        delimiter: enc.opt(echoed(i.delimiter)),
        encoding_type: i.encoding_type,
        ..Default::default()
    }))
}

/// One page of a listing, as the gateway gives it and as S3's `Contents`
/// and `CommonPrefixes`.
type Page = (ListResult, Vec<Object>, Vec<CommonPrefix>);

/// Lists one page of `bucket`, with each key's owner when `fetch_owner`.
async fn page(
    s3: &RsgwS3,
    rq: &Requester,
    bucket: &str,
    params: ListParams,
    fetch_owner: bool,
) -> S3Result<Page> {
    let res = s3
        .gw
        .list_objects(rq, bucket, &params)
        .await
        .map_err(to_s3)?;
    let mut objects = Vec::with_capacity(res.entries.len());
    for e in &res.entries {
        objects.push(Object {
            key: Some(e.key.clone()),
            size: Some(e.size as i64),
            e_tag: Some(etag(&e.etag)),
            last_modified: Some(ts(e.mtime)),
            storage_class: Some(ObjectStorageClass::from_static(
                ObjectStorageClass::STANDARD,
            )),
            owner: if fetch_owner {
                Some(s3.owner(&e.owner).await)
            } else {
                None
            },
            ..Default::default()
        });
    }
    let prefixes = res
        .common_prefixes
        .iter()
        .map(|p| CommonPrefix {
            prefix: Some(p.clone()),
        })
        .collect();
    Ok((res, objects, prefixes))
}

/// The delimiter a listing echoes: an empty one delimits nothing and is
/// not echoed (radosgw leaves it out too).
pub(super) fn echoed(delimiter: Option<String>) -> Option<String> {
    delimiter.filter(|d| !d.is_empty())
}

/// Applies `encoding-type=url` to the strings of a listing: percent-encodes
/// everything but unreserved characters and '/', as S3 does for keys and
/// prefixes in listings.
pub(super) struct Encoder(bool);

impl Encoder {
    /// The encoder `encoding-type` asks for: `url`, or none; any other is
    /// `400 InvalidArgument`.
    pub(super) fn new(encoding_type: &Option<EncodingType>) -> S3Result<Self> {
        match encoding_type.as_ref().map(EncodingType::as_str) {
            None => Ok(Encoder(false)),
            Some("url") => Ok(Encoder(true)),
            Some(other) => Err(S3Error::with_message(
                S3ErrorCode::InvalidArgument,
                format!("Invalid Encoding Method specified in Request: {other}"),
            )),
        }
    }

    /// `s`, encoded if asked.
    pub(super) fn s(&self, s: String) -> String {
        if self.0 { encode(&s, true) } else { s }
    }

    /// `s`, encoded if asked.
    pub(super) fn opt(&self, s: Option<String>) -> Option<String> {
        s.map(|s| self.s(s))
    }

    fn listing(&self, objects: &mut [Object], prefixes: &mut [CommonPrefix]) {
        for o in objects {
            o.key = self.opt(o.key.take());
        }
        for p in prefixes {
            p.prefix = self.opt(p.prefix.take());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::seen;

    #[test]
    fn listing_strings_are_url_encoded_like_s3() {
        let table = [
            ("", ""),
            ("photos/2026/a.jpg", "photos/2026/a.jpg"),
            ("AZaz09-_.~", "AZaz09-_.~"),
            ("a b", "a%20b"),
            ("a+b", "a%2Bb"),
            ("100%", "100%25"),
            ("a&b=c?d#e", "a%26b%3Dc%3Fd%23e"),
            ("*'()!", "%2A%27%28%29%21"),
            ("\u{1}\n", "%01%0A"),
            ("\u{e9}t\u{e9}", "%C3%A9t%C3%A9"),
            ("\u{1f600}", "%F0%9F%98%80"),
        ];
        for (raw, want) in table {
            assert_eq!(Encoder(true).s(raw.into()), want, "{raw:?}");
        }
    }

    #[test]
    fn encoding_type_is_url_or_refused() {
        let off = Encoder::new(&None).expect("no encoding");
        assert_eq!(off.s("a b".into()), "a b");
        let on = Encoder::new(&Some(EncodingType::from_static(EncodingType::URL))).expect("url");
        assert_eq!(on.s("a b".into()), "a%20b");
        assert_eq!(on.opt(None), None);
        assert_eq!(on.opt(Some("x/y z".into())).as_deref(), Some("x/y%20z"));
        let mut objects = [Object {
            key: Some("k y".into()),
            ..Default::default()
        }];
        let mut prefixes = [CommonPrefix {
            prefix: Some("p q/".into()),
        }];
        on.listing(&mut objects, &mut prefixes);
        assert_eq!(objects[0].key.as_deref(), Some("k%20y"));
        assert_eq!(prefixes[0].prefix.as_deref(), Some("p%20q/"));
        for other in ["base64", ""] {
            let err = Encoder::new(&Some(EncodingType::from(other.to_string())))
                .err()
                .expect("refused");
            assert_eq!(seen(&err), ("InvalidArgument", 400), "{other:?}");
        }
    }

    #[test]
    fn only_a_delimiter_that_delimits_is_echoed() {
        let table = [
            (None, None),
            (Some(""), None),
            (Some("/"), Some("/")),
            (Some(" "), Some(" ")),
            (Some("\u{1}"), Some("\u{1}")),
        ];
        for (asked, want) in table {
            assert_eq!(
                echoed(asked.map(String::from)).as_deref(),
                want,
                "{asked:?}"
            );
        }
    }
}
