//! DeleteObject and DeleteObjects.

use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::{RsgwS3, only_null_version};
use crate::error::to_s3;
use crate::limits::MAX_DELETE_KEYS;

pub(super) async fn delete_object(
    s3: &RsgwS3,
    req: S3Request<DeleteObjectInput>,
) -> S3Result<S3Response<DeleteObjectOutput>> {
    let rq = s3.requester(&req).await?;
    if only_null_version(req.input.version_id.as_deref()).is_err() {
        // a version that does not exist: nothing to delete (AWS's
        // answer for a versioned bucket, radosgw's here); never the
        // current object
        s3.gw.bucket_info(&req.input.bucket).await.map_err(to_s3)?;
        return Ok(S3Response::new(DeleteObjectOutput::default()));
    }
    s3.gw
        .delete_object(&rq, &req.input.bucket, &req.input.key)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteObjectOutput::default()))
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
    // a version that does not exist has nothing to delete (see
    // delete_object)
    let (keys, versions): (Vec<_>, Vec<_>) = i
        .delete
        .objects
        .into_iter()
        .partition(|o| only_null_version(o.version_id.as_deref()).is_ok());
    if !quiet {
        deleted.extend(versions.into_iter().map(|o| DeletedObject {
            key: Some(o.key),
            version_id: o.version_id,
            ..Default::default()
        }));
    }
    let keys = keys.into_iter().map(|o| o.key).collect();
    for (key, r) in s3.gw.delete_objects(&rq, &i.bucket, keys).await {
        match r {
            Ok(()) => {
                if !quiet {
                    deleted.push(DeletedObject {
                        key: Some(key),
                        ..Default::default()
                    });
                }
            }
            Err(e) => {
                let s3e = to_s3(e);
                errors.push(Error {
                    key: Some(key),
                    code: Some(s3e.code().as_str().to_string()),
                    message: s3e.message().map(str::to_string),
                    version_id: None,
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
