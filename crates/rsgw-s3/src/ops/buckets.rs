//! ListBuckets, CreateBucket, HeadBucket, DeleteBucket and
//! GetBucketLocation: the buckets themselves.

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result};

use super::RsgwS3;
use super::acl::{grant_headers, header_acl};
use crate::dto::ts;
use crate::error::to_s3;

pub(super) async fn list_buckets(
    s3: &RsgwS3,
    req: S3Request<ListBucketsInput>,
) -> S3Result<S3Response<ListBucketsOutput>> {
    let rq = s3.requester(&req).await?;
    let uid = RsgwS3::require_user(&rq)?;
    let buckets = s3.gw.list_buckets(uid).await.map_err(to_s3)?;
    Ok(S3Response::new(ListBucketsOutput {
        buckets: Some(
            buckets
                .into_iter()
                .map(|b| Bucket {
                    name: Some(b.name),
                    creation_date: Some(ts(b.created)),
                    bucket_region: None,
                })
                .collect(),
        ),
        owner: Some(s3.owner(uid).await),
        ..Default::default()
    }))
}

pub(super) async fn create_bucket(
    s3: &RsgwS3,
    req: S3Request<CreateBucketInput>,
) -> S3Result<S3Response<CreateBucketOutput>> {
    let rq = s3.requester(&req).await?;
    let uid = RsgwS3::require_user(&rq)?;
    let acl = header_acl(
        req.input.acl.as_ref().map(BucketCannedACL::as_str),
        grant_headers!(req.input, write),
    )?;
    s3.gw
        .create_bucket(uid, &req.input.bucket, acl)
        .await
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
    s3.gw
        .head_bucket(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(HeadBucketOutput::default()))
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
}
