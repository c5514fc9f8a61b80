//! Put/Get/DeleteBucketCors. The rules live in the bucket's record, so
//! the coherent record cache carries them to every instance; which rule
//! lets a request through is the rules layer's (`rules::cors`).

use crate::model::cors::CorsRule;
use crate::model::error::{GatewayError, GatewayResult};
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};
use crate::rules::cors::check_cors;

impl Gateway {
    /// Sets a bucket's CORS rules.
    pub async fn put_bucket_cors(
        &self,
        rq: &Requester,
        bucket: &str,
        rules: Vec<CorsRule>,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_set_bucket_cors(zone, rq, bucket, Some(rules))
                .await;
        }
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketCors, &Target::bucket(&info))?;
        check_cors(&rules)?;
        info.cors = Some(rules);
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// A bucket's CORS rules; `NoSuchCORSConfiguration` without any.
    pub async fn get_bucket_cors(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<Vec<CorsRule>> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketCors, &Target::bucket(&info))?;
        info.cors.ok_or(GatewayError::NoSuchCorsConfiguration)
    }

    /// Removes a bucket's CORS rules (none set is fine).
    pub async fn delete_bucket_cors(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self.zone_set_bucket_cors(zone, rq, bucket, None).await;
        }
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketCors, &Target::bucket(&info))?;
        if info.cors.take().is_some() {
            self.save_bucket(&info, RecordChange::Shrinks).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::cors::matching_rule;
    use crate::testutil::{Fixture, OWNER, small_opts};

    fn rule(origins: &[&str], methods: &[&str]) -> CorsRule {
        CorsRule {
            allowed_origins: origins.iter().map(|s| (*s).to_string()).collect(),
            allowed_methods: methods.iter().map(|s| (*s).to_string()).collect(),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn put_get_delete() {
        let (f, _) = Fixture::with_bucket(small_opts(), "cors").await;
        let owner = Requester::user(OWNER);
        assert!(matches!(
            f.gw.get_bucket_cors(&owner, "cors").await,
            Err(GatewayError::NoSuchCorsConfiguration)
        ));
        let rules = vec![rule(&["*"], &["GET"])];
        assert!(matches!(
            f.gw.put_bucket_cors(&Requester::user("bob"), "cors", rules.clone())
                .await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.put_bucket_cors(&owner, "cors", vec![]).await,
            Err(GatewayError::MalformedXml(_))
        ));
        f.gw.put_bucket_cors(&owner, "cors", rules.clone())
            .await
            .expect("put");
        assert_eq!(
            f.gw.get_bucket_cors(&owner, "cors").await.expect("get"),
            rules
        );
        let info = f.gw.bucket_info_fresh("cors").await.expect("record");
        assert!(matching_rule(&info, "https://x", "GET", &[]).is_some());
        assert!(matching_rule(&info, "https://x", "PUT", &[]).is_none());
        f.gw.delete_bucket_cors(&owner, "cors")
            .await
            .expect("delete");
        f.gw.delete_bucket_cors(&owner, "cors")
            .await
            .expect("again");
        let info = f.gw.bucket_info_fresh("cors").await.expect("record");
        assert!(matching_rule(&info, "https://x", "GET", &[]).is_none());
    }
}
