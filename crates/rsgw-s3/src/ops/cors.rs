//! Get/Put/DeleteBucketCors: the bucket's CORS rules (the preflight and
//! the headers they give responses are `crate::cors`'s, before s3s).

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result};

use super::RsgwS3;
use crate::error::to_s3;

pub(super) async fn get_bucket_cors(
    s3: &RsgwS3,
    req: S3Request<GetBucketCorsInput>,
) -> S3Result<S3Response<GetBucketCorsOutput>> {
    let rq = s3.requester(&req).await?;
    let rules = s3
        .gw
        .get_bucket_cors(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    let opt = |v: Vec<String>| (!v.is_empty()).then_some(v);
    Ok(S3Response::new(GetBucketCorsOutput {
        cors_rules: Some(
            rules
                .into_iter()
                .map(|r| CORSRule {
                    id: r.id,
                    allowed_origins: r.allowed_origins,
                    allowed_methods: r.allowed_methods,
                    allowed_headers: opt(r.allowed_headers),
                    expose_headers: opt(r.expose_headers),
                    max_age_seconds: r.max_age_seconds,
                })
                .collect(),
        ),
    }))
}

pub(super) async fn put_bucket_cors(
    s3: &RsgwS3,
    req: S3Request<PutBucketCorsInput>,
) -> S3Result<S3Response<PutBucketCorsOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let rules = i
        .cors_configuration
        .cors_rules
        .into_iter()
        .map(|r| rsgw_gateway::CorsRule {
            id: r.id,
            allowed_origins: r.allowed_origins,
            allowed_methods: r.allowed_methods,
            allowed_headers: r.allowed_headers.unwrap_or_default(),
            expose_headers: r.expose_headers.unwrap_or_default(),
            max_age_seconds: r.max_age_seconds,
        })
        .collect();
    s3.gw
        .put_bucket_cors(&rq, &i.bucket, rules)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketCorsOutput::default()))
}

pub(super) async fn delete_bucket_cors(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketCorsInput>,
) -> S3Result<S3Response<DeleteBucketCorsOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket_cors(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketCorsOutput::default()))
}
