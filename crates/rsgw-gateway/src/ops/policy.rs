//! Bucket policies: Put/Get/DeleteBucketPolicy and GetBucketPolicyStatus.
//! The policy lives in the bucket's record, so every instance's record
//! cache (kept coherent by `cache::coherence`) carries it; the language is
//! `model::policy`, the decision it takes part in `rules::authz`.

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::policy::BucketPolicy;
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};

impl Gateway {
    /// Sets a bucket's policy after checking the document
    /// (`MalformedPolicy` says what is wrong).
    pub async fn put_bucket_policy(
        &self,
        rq: &Requester,
        bucket: &str,
        document: &str,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_set_bucket_policy(zone, rq, bucket, Some(document))
                .await;
        }
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketPolicy, &Target::bucket(&info))?;
        let policy =
            BucketPolicy::parse(document, &info.name).map_err(GatewayError::MalformedPolicy)?;
        info.policy = Some(policy);
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// A bucket's policy document, as it was put.
    pub async fn get_bucket_policy(&self, rq: &Requester, bucket: &str) -> GatewayResult<String> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketPolicy, &Target::bucket(&info))?;
        info.policy
            .map(|p| p.text().to_string())
            .ok_or(GatewayError::NoSuchBucketPolicy)
    }

    /// Removes a bucket's policy (none set is fine).
    pub async fn delete_bucket_policy(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self.zone_set_bucket_policy(zone, rq, bucket, None).await;
        }
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::DeleteBucketPolicy, &Target::bucket(&info))?;
        if info.policy.take().is_some() {
            self.save_bucket(&info, RecordChange::Shrinks).await?;
        }
        Ok(())
    }

    /// Whether the bucket's policy makes it public (GetBucketPolicyStatus);
    /// `NoSuchBucketPolicy` without one, as AWS answers.
    pub async fn bucket_policy_status(&self, rq: &Requester, bucket: &str) -> GatewayResult<bool> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketPolicyStatus, &Target::bucket(&info))?;
        info.policy
            .map(|p| p.is_public())
            .ok_or(GatewayError::NoSuchBucketPolicy)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::acl::CannedAcl;
    use crate::model::error::GatewayError;
    use crate::rules::authz::Requester;
    use crate::testutil::{Fixture, OWNER, small_opts};

    const PUBLIC: &str = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pol/*"}]}"#;

    #[tokio::test]
    async fn put_get_delete_and_status() {
        let (f, _) = Fixture::with_bucket(small_opts(), "pol").await;
        let owner = Requester::user(OWNER);
        let bob = Requester::user("bob");
        assert!(matches!(
            f.gw.get_bucket_policy(&owner, "pol").await,
            Err(GatewayError::NoSuchBucketPolicy)
        ));
        assert!(matches!(
            f.gw.put_bucket_policy(&owner, "pol", "{").await,
            Err(GatewayError::MalformedPolicy(_))
        ));
        assert!(matches!(
            f.gw.put_bucket_policy(&bob, "pol", PUBLIC).await,
            Err(GatewayError::AccessDenied)
        ));
        f.gw.put_bucket_policy(&owner, "pol", PUBLIC)
            .await
            .expect("put");
        assert_eq!(
            f.gw.get_bucket_policy(&owner, "pol").await.expect("get"),
            PUBLIC
        );
        assert!(
            f.gw.bucket_policy_status(&owner, "pol")
                .await
                .expect("status")
        );
        assert!(matches!(
            f.gw.get_bucket_policy(&bob, "pol").await,
            Err(GatewayError::AccessDenied)
        ));
        // the record keeps its ACL; a fresh read (another instance) sees it
        let info = f.gw.bucket_info_fresh("pol").await.expect("record");
        assert_eq!(info.acl, CannedAcl::Private.into());
        assert!(info.policy.is_some());
        f.gw.delete_bucket_policy(&owner, "pol")
            .await
            .expect("delete");
        f.gw.delete_bucket_policy(&owner, "pol")
            .await
            .expect("again");
        assert!(matches!(
            f.gw.bucket_policy_status(&owner, "pol").await,
            Err(GatewayError::NoSuchBucketPolicy)
        ));
    }
}
