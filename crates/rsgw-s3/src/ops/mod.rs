//! The S3 operations rsgw implements, as an `s3s::S3` implementation:
//! `impl S3 for RsgwS3` hands each operation to the function of the same
//! name in its family's module, which maps the typed request onto the
//! [`Gateway`] and the gateway's answer back. Operations not listed here
//! get s3s' default answer, `501 NotImplemented`. `crate::operation` is
//! the table of the operations, their families and how each is
//! authorized.
//!
//! A family's module holds its operations and what only they use; what
//! several families share lives with the family it belongs to
//! (`acl::canned`, `tagging::tagging_header`, `put::object_params!` and
//! the body's `put::checker!`, `copy::copy_source`), and what every family
//! shares here (who asks, the owner as S3 names one, the `null` version).

mod acl;
mod buckets;
mod copy;
mod cors;
mod delete;
mod encryption;
mod get;
mod lifecycle;
mod list;
mod lock;
mod multipart;
mod policy;
mod post;
mod put;
mod tagging;
#[cfg(test)]
mod testutil;
mod versioning;
mod website;

use std::future::Future;
use std::pin::Pin;

use rsgw_gateway::{Gateway, Principal, Requester};
use s3s::dto::*;
use s3s::{S3, S3Request, S3Response, S3Result, s3_error};

use crate::error::to_s3;
use crate::requester::requester;

/// rsgw's S3 operations.
#[derive(Clone)]
pub struct RsgwS3 {
    pub(crate) gw: Gateway,
    /// What GetBucketLocation names (`s3.zonegroup`).
    pub(crate) zonegroup: String,
}

impl RsgwS3 {
    /// Who sends the request, with what of it a bucket policy's
    /// conditions may test: the client's address and transport (the
    /// frontend's view, trusted proxies honoured), Referer and User-Agent.
    async fn requester<T>(&self, req: &S3Request<T>) -> S3Result<Requester> {
        let principal = match &req.credentials {
            None => Principal::Anonymous,
            Some(c) => {
                let (uid, _) = self.gw.lookup_key(&c.access_key).await.map_err(to_s3)?;
                Principal::User(uid)
            }
        };
        Ok(requester(principal, &req.headers, &req.extensions))
    }

    /// A user as S3 documents name one: ID and DisplayName.
    async fn owner(&self, uid: &str) -> Owner {
        Owner {
            id: Some(uid.to_string()),
            display_name: Some(self.gw.display_name(uid).await),
        }
    }

    /// The requester's user id; anonymous requests are refused.
    fn require_user(rq: &Requester) -> S3Result<&str> {
        rq.uid()
            .ok_or_else(|| s3_error!(AccessDenied, "Anonymous users cannot do this"))
    }
}

/// `impl S3 for RsgwS3`, one operation a line: `family::operation(its
/// input) -> its output` hands the request to `family::operation`.
macro_rules! delegate {
    ($($family:ident::$op:ident($input:ident) -> $output:ident;)*) => {
        // the signatures `#[async_trait]` gives the trait's methods, each
        // boxing the family's future itself: an `async fn` here would wrap
        // it in a second future that copies the request into it once more
        // (about 400 instructions of memcpy per small GET, callgrind)
        impl S3 for RsgwS3 {
            $(
                fn $op<'life0, 'async_trait>(
                    &'life0 self,
                    req: S3Request<$input>,
                ) -> Pin<Box<dyn Future<Output = S3Result<S3Response<$output>>> + Send + 'async_trait>>
                where
                    'life0: 'async_trait,
                    Self: 'async_trait,
                {
                    Box::pin($family::$op(self, req))
                }
            )*
        }
    };
}

delegate! {
    buckets::list_buckets(ListBucketsInput) -> ListBucketsOutput;
    buckets::create_bucket(CreateBucketInput) -> CreateBucketOutput;
    buckets::head_bucket(HeadBucketInput) -> HeadBucketOutput;
    buckets::delete_bucket(DeleteBucketInput) -> DeleteBucketOutput;
    buckets::get_bucket_location(GetBucketLocationInput) -> GetBucketLocationOutput;

    acl::get_bucket_acl(GetBucketAclInput) -> GetBucketAclOutput;
    acl::put_bucket_acl(PutBucketAclInput) -> PutBucketAclOutput;
    acl::get_object_acl(GetObjectAclInput) -> GetObjectAclOutput;
    acl::put_object_acl(PutObjectAclInput) -> PutObjectAclOutput;

    policy::get_bucket_policy(GetBucketPolicyInput) -> GetBucketPolicyOutput;
    policy::put_bucket_policy(PutBucketPolicyInput) -> PutBucketPolicyOutput;
    policy::delete_bucket_policy(DeleteBucketPolicyInput) -> DeleteBucketPolicyOutput;
    policy::get_bucket_policy_status(GetBucketPolicyStatusInput) -> GetBucketPolicyStatusOutput;

    cors::get_bucket_cors(GetBucketCorsInput) -> GetBucketCorsOutput;
    cors::put_bucket_cors(PutBucketCorsInput) -> PutBucketCorsOutput;
    cors::delete_bucket_cors(DeleteBucketCorsInput) -> DeleteBucketCorsOutput;

    encryption::get_bucket_encryption(GetBucketEncryptionInput) -> GetBucketEncryptionOutput;
    encryption::put_bucket_encryption(PutBucketEncryptionInput) -> PutBucketEncryptionOutput;
    encryption::delete_bucket_encryption(DeleteBucketEncryptionInput) -> DeleteBucketEncryptionOutput;

    website::get_bucket_website(GetBucketWebsiteInput) -> GetBucketWebsiteOutput;
    website::put_bucket_website(PutBucketWebsiteInput) -> PutBucketWebsiteOutput;
    website::delete_bucket_website(DeleteBucketWebsiteInput) -> DeleteBucketWebsiteOutput;

    tagging::get_bucket_tagging(GetBucketTaggingInput) -> GetBucketTaggingOutput;
    tagging::put_bucket_tagging(PutBucketTaggingInput) -> PutBucketTaggingOutput;
    tagging::delete_bucket_tagging(DeleteBucketTaggingInput) -> DeleteBucketTaggingOutput;
    tagging::get_object_tagging(GetObjectTaggingInput) -> GetObjectTaggingOutput;
    tagging::put_object_tagging(PutObjectTaggingInput) -> PutObjectTaggingOutput;
    tagging::delete_object_tagging(DeleteObjectTaggingInput) -> DeleteObjectTaggingOutput;

    versioning::get_bucket_versioning(GetBucketVersioningInput) -> GetBucketVersioningOutput;
    lock::get_object_lock_configuration(GetObjectLockConfigurationInput) -> GetObjectLockConfigurationOutput;
    lock::put_object_lock_configuration(PutObjectLockConfigurationInput) -> PutObjectLockConfigurationOutput;
    lock::get_object_retention(GetObjectRetentionInput) -> GetObjectRetentionOutput;
    lock::put_object_retention(PutObjectRetentionInput) -> PutObjectRetentionOutput;
    lock::get_object_legal_hold(GetObjectLegalHoldInput) -> GetObjectLegalHoldOutput;
    lock::put_object_legal_hold(PutObjectLegalHoldInput) -> PutObjectLegalHoldOutput;
    versioning::put_bucket_versioning(PutBucketVersioningInput) -> PutBucketVersioningOutput;
    lifecycle::get_bucket_lifecycle_configuration(GetBucketLifecycleConfigurationInput) -> GetBucketLifecycleConfigurationOutput;
    lifecycle::put_bucket_lifecycle_configuration(PutBucketLifecycleConfigurationInput) -> PutBucketLifecycleConfigurationOutput;
    lifecycle::delete_bucket_lifecycle(DeleteBucketLifecycleInput) -> DeleteBucketLifecycleOutput;

    list::list_objects(ListObjectsInput) -> ListObjectsOutput;
    list::list_objects_v2(ListObjectsV2Input) -> ListObjectsV2Output;
    list::list_object_versions(ListObjectVersionsInput) -> ListObjectVersionsOutput;

    put::put_object(PutObjectInput) -> PutObjectOutput;

    post::post_object(PostObjectInput) -> PostObjectOutput;

    get::get_object(GetObjectInput) -> GetObjectOutput;
    get::head_object(HeadObjectInput) -> HeadObjectOutput;

    delete::delete_object(DeleteObjectInput) -> DeleteObjectOutput;
    delete::delete_objects(DeleteObjectsInput) -> DeleteObjectsOutput;

    copy::copy_object(CopyObjectInput) -> CopyObjectOutput;

    multipart::create_multipart_upload(CreateMultipartUploadInput) -> CreateMultipartUploadOutput;
    multipart::upload_part(UploadPartInput) -> UploadPartOutput;
    multipart::upload_part_copy(UploadPartCopyInput) -> UploadPartCopyOutput;
    multipart::complete_multipart_upload(CompleteMultipartUploadInput) -> CompleteMultipartUploadOutput;
    multipart::abort_multipart_upload(AbortMultipartUploadInput) -> AbortMultipartUploadOutput;
    multipart::list_parts(ListPartsInput) -> ListPartsOutput;
    multipart::list_multipart_uploads(ListMultipartUploadsInput) -> ListMultipartUploadsOutput;
}
