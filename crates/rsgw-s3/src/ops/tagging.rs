//! Get/Put/DeleteBucketTagging and Get/Put/DeleteObjectTagging, and the
//! `x-amz-tagging` header of the writes that set an object's tags.

use std::collections::BTreeMap;

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;
use crate::uri::decode_query;

pub(super) async fn get_bucket_tagging(
    s3: &RsgwS3,
    req: S3Request<GetBucketTaggingInput>,
) -> S3Result<S3Response<GetBucketTaggingOutput>> {
    let rq = s3.requester(&req).await?;
    let tags = s3
        .gw
        .get_bucket_tagging(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetBucketTaggingOutput {
        tag_set: tag_set(tags),
    }))
}

pub(super) async fn put_bucket_tagging(
    s3: &RsgwS3,
    req: S3Request<PutBucketTaggingInput>,
) -> S3Result<S3Response<PutBucketTaggingOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    s3.gw
        .put_bucket_tagging(&rq, &i.bucket, tag_pairs(i.tagging))
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketTaggingOutput::default()))
}

pub(super) async fn delete_bucket_tagging(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketTaggingInput>,
) -> S3Result<S3Response<DeleteBucketTaggingOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket_tagging(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketTaggingOutput::default()))
}

pub(super) async fn get_object_tagging(
    s3: &RsgwS3,
    req: S3Request<GetObjectTaggingInput>,
) -> S3Result<S3Response<GetObjectTaggingOutput>> {
    let rq = s3.requester(&req).await?;
    let tags = s3
        .gw
        .get_object_tagging(
            &rq,
            &req.input.bucket,
            &req.input.key,
            req.input.version_id.as_deref(),
        )
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetObjectTaggingOutput {
        tag_set: tag_set(tags),
        version_id: None,
    }))
}

pub(super) async fn put_object_tagging(
    s3: &RsgwS3,
    req: S3Request<PutObjectTaggingInput>,
) -> S3Result<S3Response<PutObjectTaggingOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let tags = rsgw_gateway::check_tags(tag_pairs(i.tagging)).map_err(to_s3)?;
    s3.gw
        .put_object_tagging(&rq, &i.bucket, &i.key, i.version_id.as_deref(), tags)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutObjectTaggingOutput::default()))
}

pub(super) async fn delete_object_tagging(
    s3: &RsgwS3,
    req: S3Request<DeleteObjectTaggingInput>,
) -> S3Result<S3Response<DeleteObjectTaggingOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_object_tagging(
            &rq,
            &req.input.bucket,
            &req.input.key,
            req.input.version_id.as_deref(),
        )
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteObjectTaggingOutput::default()))
}

/// A `Tagging` document's tags, in order, as sent.
fn tag_pairs(t: Tagging) -> Vec<(String, String)> {
    t.tag_set
        .into_iter()
        .map(|t| (t.key.unwrap_or_default(), t.value.unwrap_or_default()))
        .collect()
}

/// Stored tags as a `TagSet`.
fn tag_set(tags: BTreeMap<String, String>) -> Vec<Tag> {
    tags.into_iter()
        .map(|(k, v)| Tag {
            key: Some(k),
            value: Some(v),
        })
        .collect()
}

/// `x-amz-tagging`: tags as a URL query string (`k1=v1&k2=v2`, each part
/// percent-encoded), checked against S3's rules.
pub(super) fn tagging_header(v: Option<&str>) -> S3Result<BTreeMap<String, String>> {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return Ok(BTreeMap::new());
    };
    let mut tags = Vec::new();
    for pair in v.split('&') {
        let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            decode_query(s).ok_or_else(|| {
                s3_error!(
                    InvalidArgument,
                    "The x-amz-tagging header is not a valid URL-encoded query string"
                )
            })
        };
        tags.push((decode(k)?, decode(val)?));
    }
    rsgw_gateway::check_tags(tags).map_err(to_s3)
}

#[cfg(test)]
mod tests {
    use s3s::S3ErrorCode;

    use super::*;

    #[test]
    fn tagging_headers_are_query_strings() {
        let t = tagging_header(Some("team=web&note=a%20b+c&empty=&flag")).expect("valid");
        let want: Vec<(&str, &str)> = vec![
            ("empty", ""),
            ("flag", ""),
            ("note", "a b c"),
            ("team", "web"),
        ];
        let got: Vec<(&str, &str)> = t.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
        assert!(tagging_header(None).expect("none").is_empty());
        assert!(tagging_header(Some("")).expect("empty").is_empty());
        assert_eq!(
            *tagging_header(Some("k=%zz")).expect_err("escape").code(),
            S3ErrorCode::InvalidArgument
        );
        assert_eq!(
            *tagging_header(Some("k=1&k=2")).expect_err("twice").code(),
            S3ErrorCode::InvalidTag
        );
        let eleven: Vec<String> = (0..11).map(|i| format!("k{i}=v")).collect();
        assert_eq!(
            *tagging_header(Some(&eleven.join("&")))
                .expect_err("11")
                .code(),
            S3ErrorCode::InvalidTag
        );
    }
}
