//! ListBuckets, CreateBucket, HeadBucket, DeleteBucket and
//! GetBucketLocation: the buckets themselves.

use rsgw_gateway::{BucketHead, BucketsPage};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use super::acl::{grant_headers, header_acl};
use super::list::{marker_token, token_marker};
use crate::dto::ts;
use crate::error::to_s3;

pub(super) async fn list_buckets(
    s3: &RsgwS3,
    req: S3Request<ListBucketsInput>,
) -> S3Result<S3Response<ListBucketsOutput>> {
    let rq = s3.requester(&req).await?;
    let uid = RsgwS3::require_user(&rq)?;
    let i = &req.input;
    let page = BucketsPage {
        prefix: i.prefix.clone().unwrap_or_default(),
        after: i
            .continuation_token
            .as_deref()
            .map(token_marker)
            .transpose()?
            .unwrap_or_default(),
        max: buckets_page_size(i)?,
    };
    let listed = s3.gw.list_buckets(uid, &page).await.map_err(to_s3)?;
    Ok(S3Response::new(ListBucketsOutput {
        buckets: Some(
            listed
                .buckets
                .into_iter()
                .map(|b| Bucket {
                    name: Some(b.name),
                    creation_date: Some(ts(b.created)),
                    bucket_region: None,
                })
                .collect(),
        ),
        owner: Some(s3.owner(uid).await),
        continuation_token: listed.next_after.as_deref().map(marker_token),
        prefix: req.input.prefix,
    }))
}

/// The most buckets ListBuckets answers a page: `max-buckets` (1 to
/// 10000, else `400 InvalidArgument`), or, as AWS pages, 10000 when
/// `prefix` or `continuation-token` asks for a page without it; none
/// (every bucket) for a plain ListBuckets, which older clients page
/// never.
fn buckets_page_size(i: &ListBucketsInput) -> S3Result<Option<usize>> {
    match i.max_buckets {
        Some(n @ 1..=MAX_BUCKETS_PAGE) => Ok(Some(n as usize)),
        Some(_) => Err(s3_error!(
            InvalidArgument,
            "max-buckets must be between 1 and {MAX_BUCKETS_PAGE}"
        )),
        None if i.prefix.is_some() || i.continuation_token.is_some() => {
            Ok(Some(MAX_BUCKETS_PAGE as usize))
        }
        None => Ok(None),
    }
}

/// AWS's largest ListBuckets page.
const MAX_BUCKETS_PAGE: i32 = 10_000;

pub(super) async fn create_bucket(
    s3: &RsgwS3,
    req: S3Request<CreateBucketInput>,
) -> S3Result<S3Response<CreateBucketOutput>> {
    let rq = s3.requester(&req).await?;
    let uid = RsgwS3::require_user(&rq)?;
    let constraint = req
        .input
        .create_bucket_configuration
        .as_ref()
        .and_then(|c| c.location_constraint.as_ref());
    check_location(
        constraint.map(BucketLocationConstraint::as_str),
        &s3.zonegroup,
    )?;
    let acl = header_acl(
        req.input.acl.as_ref().map(BucketCannedACL::as_str),
        grant_headers!(req.input, write),
    )?;
    if req.input.object_lock_enabled_for_bucket == Some(true) {
        s3.gw
            .create_locked_bucket(uid, &req.input.bucket, acl)
            .await
    } else {
        s3.gw.create_bucket(uid, &req.input.bucket, acl).await
    }
    .map_err(to_s3)?;
    Ok(S3Response::new(CreateBucketOutput {
        location: Some(format!("/{}", req.input.bucket)),
    }))
}

pub(super) async fn head_bucket(
    s3: &RsgwS3,
    req: S3Request<HeadBucketInput>,
) -> S3Result<S3Response<HeadBucketOutput>> {
    let rq = s3.requester(&req).await?;
    let head = s3
        .gw
        .head_bucket(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    let mut resp = S3Response::new(HeadBucketOutput::default());
    resp.headers = stats_headers(&head);
    Ok(resp)
}

/// radosgw's HeadBucket headers: what the bucket holds, and its owner's
/// quotas for the owner (-1: none). radosgw's `X-RGW-Quota-Max-Buckets`
/// is left out: rsgw limits no user's number of buckets.
fn stats_headers(head: &BucketHead) -> http::HeaderMap {
    let mut h = http::HeaderMap::new();
    let mut put = |name: &'static str, v: i64| {
        h.insert(name, http::HeaderValue::from(v));
    };
    put("x-rgw-object-count", head.usage.objects as i64);
    put("x-rgw-bytes-used", head.usage.bytes as i64);
    if let Some((user, bucket)) = head.quotas {
        put("x-rgw-quota-user-size", user.max_size);
        put("x-rgw-quota-user-objects", user.max_objects);
        put("x-rgw-quota-bucket-size", bucket.max_size);
        put("x-rgw-quota-bucket-objects", bucket.max_objects);
    }
    h
}

pub(super) async fn delete_bucket(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketInput>,
) -> S3Result<S3Response<DeleteBucketOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketOutput::default()))
}

pub(super) async fn get_bucket_location(
    s3: &RsgwS3,
    req: S3Request<GetBucketLocationInput>,
) -> S3Result<S3Response<GetBucketLocationOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .bucket_location(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(location(&s3.zonegroup)))
}

/// A CreateBucket LocationConstraint names where the bucket is made:
/// empty or this zonegroup, as radosgw takes; any other (an AWS region,
/// `us-east-1` included) is `400 InvalidLocationConstraint`, as radosgw
/// and AWS answer.
fn check_location(constraint: Option<&str>, zonegroup: &str) -> S3Result<()> {
    match constraint {
        None | Some("") => Ok(()),
        Some(c) if c == zonegroup => Ok(()),
        Some(c) => Err(s3_error!(
            InvalidLocationConstraint,
            "The specified location-constraint '{c}' is not valid: buckets are made in '{zonegroup}'"
        )),
    }
}

/// GetBucketLocation's answer: the zonegroup, as radosgw names its own;
/// none (an empty LocationConstraint) where it is empty.
fn location(zonegroup: &str) -> GetBucketLocationOutput {
    GetBucketLocationOutput {
        location_constraint: Some(zonegroup)
            .filter(|z| !z.is_empty())
            .map(|z| BucketLocationConstraint::from(z.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_location_names_the_zonegroup() {
        let named = |z: &str| {
            location(z)
                .location_constraint
                .map(|l| l.as_str().to_string())
        };
        assert_eq!(named("default").as_deref(), Some("default"));
        assert_eq!(named("eu").as_deref(), Some("eu"));
        assert_eq!(named(""), None);
    }

    #[test]
    fn location_constraints_name_the_zonegroup() {
        for ok in [None, Some(""), Some("default")] {
            assert!(check_location(ok, "default").is_ok(), "{ok:?}");
        }
        for bad in ["us-east-1", "eu-west-1", "Default"] {
            let e = check_location(Some(bad), "default").expect_err(bad);
            assert_eq!(e.code(), &s3s::S3ErrorCode::InvalidLocationConstraint);
        }
    }
}
