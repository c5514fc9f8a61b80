//! Get/Put/DeleteBucketEncryption: a bucket's default encryption (one
//! rule: AES256, or aws:kms with an optional key id).

use rsgw_gateway::{BucketEncryption, SseMode};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;

pub(super) async fn get_bucket_encryption(
    s3: &RsgwS3,
    req: S3Request<GetBucketEncryptionInput>,
) -> S3Result<S3Response<GetBucketEncryptionOutput>> {
    let rq = s3.requester(&req).await?;
    let d = s3
        .gw
        .get_bucket_encryption(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    let algorithm = match d.mode {
        SseMode::Kms => "aws:kms",
        SseMode::S3 | SseMode::CustomerKey => "AES256",
    };
    Ok(S3Response::new(GetBucketEncryptionOutput {
        server_side_encryption_configuration: Some(ServerSideEncryptionConfiguration {
            rules: vec![ServerSideEncryptionRule {
                apply_server_side_encryption_by_default: Some(ServerSideEncryptionByDefault {
                    sse_algorithm: ServerSideEncryption::from(algorithm.to_string()),
                    kms_master_key_id: (!d.key_id.is_empty()).then_some(d.key_id),
                }),
                bucket_key_enabled: Some(false),
            }],
        }),
    }))
}

pub(super) async fn put_bucket_encryption(
    s3: &RsgwS3,
    req: S3Request<PutBucketEncryptionInput>,
) -> S3Result<S3Response<PutBucketEncryptionOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let default = bucket_default(i.server_side_encryption_configuration)?;
    s3.gw
        .put_bucket_encryption(&rq, &i.bucket, default)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketEncryptionOutput::default()))
}

pub(super) async fn delete_bucket_encryption(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketEncryptionInput>,
) -> S3Result<S3Response<DeleteBucketEncryptionOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket_encryption(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketEncryptionOutput::default()))
}

/// The one rule of a default encryption document, as the gateway keeps it:
/// AES256 (no key id), or aws:kms with a key id or none; bucket keys are
/// refused, not ignored.
fn bucket_default(c: ServerSideEncryptionConfiguration) -> S3Result<BucketEncryption> {
    let [rule] = <[ServerSideEncryptionRule; 1]>::try_from(c.rules).map_err(|_| {
        s3_error!(
            MalformedXML,
            "a default encryption configuration has exactly one rule"
        )
    })?;
    if rule.bucket_key_enabled == Some(true) {
        return Err(s3_error!(
            NotImplemented,
            "S3 Bucket Keys are not implemented by rsgw: each object's key is derived from the master key"
        ));
    }
    let by_default = rule
        .apply_server_side_encryption_by_default
        .ok_or_else(|| {
            s3_error!(
                MalformedXML,
                "the rule needs ApplyServerSideEncryptionByDefault"
            )
        })?;
    let key_id = by_default.kms_master_key_id.unwrap_or_default();
    match by_default.sse_algorithm.as_str() {
        "AES256" if key_id.is_empty() => Ok(BucketEncryption {
            mode: SseMode::S3,
            key_id,
        }),
        "AES256" => Err(s3_error!(
            InvalidArgument,
            "KMSMasterKeyID is only valid with SSEAlgorithm aws:kms"
        )),
        "aws:kms" => Ok(BucketEncryption {
            mode: SseMode::Kms,
            key_id,
        }),
        other => Err(s3_error!(
            MalformedXML,
            "SSEAlgorithm is AES256 or aws:kms, not '{other}'"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::check;

    fn config(
        alg: &str,
        key: Option<&str>,
        rules: usize,
        bucket_key: Option<bool>,
    ) -> ServerSideEncryptionConfiguration {
        let rule = ServerSideEncryptionRule {
            apply_server_side_encryption_by_default: Some(ServerSideEncryptionByDefault {
                sse_algorithm: ServerSideEncryption::from(alg.to_string()),
                kms_master_key_id: key.map(String::from),
            }),
            bucket_key_enabled: bucket_key,
        };
        ServerSideEncryptionConfiguration {
            rules: vec![rule; rules],
        }
    }

    #[test]
    fn a_default_is_one_rule_of_a_known_algorithm() {
        let ok = |mode, key_id: &str| {
            Ok(BucketEncryption {
                mode,
                key_id: key_id.into(),
            })
        };
        let table = [
            (config("AES256", None, 1, None), ok(SseMode::S3, "")),
            (config("AES256", None, 1, Some(false)), ok(SseMode::S3, "")),
            (config("aws:kms", None, 1, None), ok(SseMode::Kms, "")),
            (
                config("aws:kms", Some("k1"), 1, None),
                ok(SseMode::Kms, "k1"),
            ),
            (
                config("AES256", Some("k1"), 1, None),
                Err(("InvalidArgument", 400)),
            ),
            (
                config("aws:kms:dsse", None, 1, None),
                Err(("MalformedXML", 400)),
            ),
            (config("AES256", None, 2, None), Err(("MalformedXML", 400))),
            (config("AES256", None, 0, None), Err(("MalformedXML", 400))),
            (
                config("AES256", None, 1, Some(true)),
                Err(("NotImplemented", 501)),
            ),
        ];
        for (c, want) in table {
            let label = format!("{c:?}");
            check(bucket_default(c), want, &label);
        }
    }
}
