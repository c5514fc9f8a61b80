//! Get/Put/DeleteBucketPolicy and GetBucketPolicyStatus: the bucket
//! policy's document, as the gateway parses and evaluates it.

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result};

use super::RsgwS3;
use crate::error::to_s3;

pub(super) async fn get_bucket_policy(
    s3: &RsgwS3,
    req: S3Request<GetBucketPolicyInput>,
) -> S3Result<S3Response<GetBucketPolicyOutput>> {
    let rq = s3.requester(&req).await?;
    let policy = s3
        .gw
        .get_bucket_policy(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetBucketPolicyOutput {
        policy: Some(policy),
    }))
}

pub(super) async fn put_bucket_policy(
    s3: &RsgwS3,
    req: S3Request<PutBucketPolicyInput>,
) -> S3Result<S3Response<PutBucketPolicyOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .put_bucket_policy(&rq, &req.input.bucket, &req.input.policy)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketPolicyOutput::default()))
}

pub(super) async fn delete_bucket_policy(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketPolicyInput>,
) -> S3Result<S3Response<DeleteBucketPolicyOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket_policy(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketPolicyOutput::default()))
}

pub(super) async fn get_bucket_policy_status(
    s3: &RsgwS3,
    req: S3Request<GetBucketPolicyStatusInput>,
) -> S3Result<S3Response<GetBucketPolicyStatusOutput>> {
    let rq = s3.requester(&req).await?;
    let public = s3
        .gw
        .bucket_policy_status(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetBucketPolicyStatusOutput {
        policy_status: Some(PolicyStatus {
            is_public: Some(public),
        }),
    }))
}
