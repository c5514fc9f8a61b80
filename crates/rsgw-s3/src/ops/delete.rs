//! DeleteObject and DeleteObjects: of the current object (in a versioned
//! bucket, a delete marker made), or of the version a `versionId` names.

use rsgw_gateway::Deleted;
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;
use crate::limits::MAX_DELETE_KEYS;

pub(super) async fn delete_object(
    s3: &RsgwS3,
    req: S3Request<DeleteObjectInput>,
) -> S3Result<S3Response<DeleteObjectOutput>> {
    let rq = s3.requester(&req).await?;
    let i = &req.input;
    let done = match i.version_id.as_deref() {
        Some(v) => {
            let bypass = i.bypass_governance_retention.unwrap_or(false);
            s3.gw
                .delete_object_version(&rq, (&i.bucket, &i.key, v), bypass)
                .await
        }
        None => s3.gw.delete_object(&rq, &i.bucket, &i.key).await,
    }
    .map_err(to_s3)?;
    Ok(S3Response::new(DeleteObjectOutput {
        delete_marker: done.delete_marker.then_some(true),
        version_id: done.version_id,
        ..Default::default()
    }))
}

pub(super) async fn delete_objects(
    s3: &RsgwS3,
    req: S3Request<DeleteObjectsInput>,
) -> S3Result<S3Response<DeleteObjectsOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    if i.delete.objects.len() > MAX_DELETE_KEYS {
        return Err(s3_error!(
            MalformedXML,
            "at most {MAX_DELETE_KEYS} keys per request"
        ));
    }
    s3.gw.bucket_info(&i.bucket).await.map_err(to_s3)?;
    let quiet = i.delete.quiet.unwrap_or(false);
    let (mut deleted, mut errors) = (Vec::new(), Vec::new());
    let keys = i
        .delete
        .objects
        .into_iter()
        .map(|o| (o.key, o.version_id))
        .collect();
    let bypass = i.bypass_governance_retention.unwrap_or(false);
    for (key, version, r) in s3.gw.delete_objects(&rq, &i.bucket, keys, bypass).await {
        match r {
            Ok(done) => {
                if !quiet {
                    deleted.push(deleted_object(key, version, done));
                }
            }
            Err(e) => {
                let s3e = to_s3(e);
                errors.push(Error {
                    key: Some(key),
                    code: Some(s3e.code().as_str().to_string()),
                    message: s3e.message().map(str::to_string),
                    version_id: version,
                });
            }
        }
    }
    Ok(S3Response::new(DeleteObjectsOutput {
        deleted: Some(deleted),
        errors: Some(errors),
        ..Default::default()
    }))
}

/// A key's `Deleted` entry: the version named, or the delete marker made
/// (`DeleteMarkerVersionId`), as S3 answers.
fn deleted_object(key: String, version: Option<String>, done: Deleted) -> DeletedObject {
    let marker = done.delete_marker.then_some(true);
    match version {
        Some(v) => DeletedObject {
            key: Some(key),
            version_id: Some(v),
            delete_marker: marker,
            ..Default::default()
        },
        None => DeletedObject {
            key: Some(key),
            delete_marker: marker,
            delete_marker_version_id: done.version_id.filter(|_| done.delete_marker),
            ..Default::default()
        },
    }
}
