//! Get/PutBucketVersioning. MFA delete is refused: rsgw has no MFA
//! devices to check a token against.

use rsgw_gateway::Versioning;
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;

pub(super) async fn get_bucket_versioning(
    s3: &RsgwS3,
    req: S3Request<GetBucketVersioningInput>,
) -> S3Result<S3Response<GetBucketVersioningOutput>> {
    let rq = s3.requester(&req).await?;
    let state = s3
        .gw
        .get_bucket_versioning(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(GetBucketVersioningOutput {
        status: state.map(|s| BucketVersioningStatus::from(s.as_str().to_string())),
        mfa_delete: None,
    }))
}

pub(super) async fn put_bucket_versioning(
    s3: &RsgwS3,
    req: S3Request<PutBucketVersioningInput>,
) -> S3Result<S3Response<PutBucketVersioningOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let conf = i.versioning_configuration;
    if conf
        .mfa_delete
        .as_ref()
        .is_some_and(|m| m.as_str() == MFADelete::ENABLED)
    {
        return Err(s3_error!(
            NotImplemented,
            "MFA delete is not supported: rsgw has no MFA devices"
        ));
    }
    let state = match conf.status.as_ref().map(BucketVersioningStatus::as_str) {
        Some(BucketVersioningStatus::ENABLED) => Some(Versioning::Enabled),
        Some(BucketVersioningStatus::SUSPENDED) => Some(Versioning::Suspended),
        _ => None,
    };
    s3.gw
        .put_bucket_versioning(&rq, &i.bucket, state)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketVersioningOutput::default()))
}
