//! Put/Get/DeleteObjectTagging and Put/Get/DeleteBucketTagging. An
//! object's tags live in its metadata (`ObjectMeta::tags`), set with
//! `x-amz-tagging` on PUT, copy and multipart uploads too; a bucket's in
//! its record (`BucketInfo::tags`); S3's checks of them are in
//! `rules::tagging`.

use std::collections::BTreeMap;

use crate::model::error::{GatewayError, GatewayResult};
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::ops::radosgw::zone_head;
use crate::rules::authz::{Access, Requester, Target, authorize};
use crate::rules::tagging::check_bucket_tags;

impl Gateway {
    /// An object's tags (GetObjectTagging).
    pub async fn get_object_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> GatewayResult<BTreeMap<String, String>> {
        if let Some(zone) = self.zone() {
            let (_, _, _, meta) = zone_head(
                zone,
                rq,
                (bucket, key, version),
                (Access::GetObjectTagging, None),
                false,
            )
            .await?;
            return Ok(meta.tags);
        }
        let (_, meta) = self
            .object_meta_for(rq, Access::GetObjectTagging, (bucket, key, version))
            .await?;
        Ok(meta.tags)
    }

    /// Replaces an object's tags (PutObjectTagging).
    pub async fn put_object_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
        tags: BTreeMap<String, String>,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_set_object_tags(
                    zone,
                    rq,
                    (bucket, key, version),
                    Access::PutObjectTagging,
                    &tags,
                )
                .await;
        }
        self.update_meta(
            rq,
            (Access::PutObjectTagging, Some(&tags)),
            (bucket, key, version),
            |_, meta| {
                meta.tags = tags.clone();
                Ok(())
            },
        )
        .await
    }

    /// Removes an object's tags (DeleteObjectTagging).
    pub async fn delete_object_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_set_object_tags(
                    zone,
                    rq,
                    (bucket, key, version),
                    Access::DeleteObjectTagging,
                    &BTreeMap::new(),
                )
                .await;
        }
        self.update_meta(
            rq,
            (Access::DeleteObjectTagging, None),
            (bucket, key, version),
            |_, meta| {
                meta.tags.clear();
                Ok(())
            },
        )
        .await
    }

    /// A bucket's tags; `NoSuchTagSet` without any (GetBucketTagging).
    pub async fn get_bucket_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<BTreeMap<String, String>> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketTagging, &Target::bucket(&info))?;
        if info.tags.is_empty() {
            return Err(GatewayError::NoSuchTagSet);
        }
        Ok(info.tags)
    }

    /// Replaces a bucket's tags, checked against S3's rules
    /// (PutBucketTagging).
    pub async fn put_bucket_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        tags: Vec<(String, String)>,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_set_bucket_tags(zone, rq, bucket, Some(tags))
                .await;
        }
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketTagging, &Target::bucket(&info))?;
        info.tags = check_bucket_tags(tags)?;
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// Removes a bucket's tags (DeleteBucketTagging; none is fine).
    pub async fn delete_bucket_tagging(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self.zone_set_bucket_tags(zone, rq, bucket, None).await;
        }
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketTagging, &Target::bucket(&info))?;
        if !info.tags.is_empty() {
            info.tags.clear();
            self.save_bucket(&info, RecordChange::Shrinks).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::params::{GetParams, PutParams};
    use crate::rules::tagging::check_tags;
    use crate::testutil::{Fixture, body, owner, pairs, small_opts};

    #[tokio::test]
    async fn bucket_tags_put_get_delete() {
        let (f, _) = Fixture::with_bucket(small_opts(), "btags").await;
        assert!(matches!(
            f.gw.get_bucket_tagging(&owner(), "btags").await,
            Err(GatewayError::NoSuchTagSet)
        ));
        f.gw.put_bucket_tagging(&owner(), "btags", pairs(&[("team", "web")]))
            .await
            .expect("put");
        let got =
            f.gw.get_bucket_tagging(&owner(), "btags")
                .await
                .expect("get");
        assert_eq!(got.get("team").map(String::as_str), Some("web"));
        assert!(matches!(
            f.gw.put_bucket_tagging(&Requester::user("bob"), "btags", pairs(&[("a", "b")]))
                .await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.get_bucket_tagging(&Requester::anonymous(), "btags")
                .await,
            Err(GatewayError::AccessDenied)
        ));
        f.gw.delete_bucket_tagging(&owner(), "btags")
            .await
            .expect("delete");
        assert!(matches!(
            f.gw.get_bucket_tagging(&owner(), "btags").await,
            Err(GatewayError::NoSuchTagSet)
        ));
    }

    #[tokio::test]
    async fn put_get_delete_and_copy() {
        let (f, _) = Fixture::with_bucket(small_opts(), "tags").await;
        let tags = check_tags(pairs(&[("team", "web"), ("tier", "hot")])).expect("valid");
        f.gw.put_object(
            &owner(),
            "tags",
            "k",
            PutParams {
                content_length: Some(3),
                tags: tags.clone(),
                ..Default::default()
            },
            body(b"abc", 2),
        )
        .await
        .expect("put");
        assert_eq!(
            f.gw.get_object_tagging(&owner(), "tags", "k", None)
                .await
                .expect("get"),
            tags
        );
        assert!(matches!(
            f.gw.get_object_tagging(&Requester::user("bob"), "tags", "k", None)
                .await,
            Err(GatewayError::AccessDenied)
        ));
        let one = check_tags(pairs(&[("only", "1")])).expect("valid");
        f.gw.put_object_tagging(&owner(), "tags", "k", None, one.clone())
            .await
            .expect("replace");
        let got =
            f.gw.get_object(&owner(), "tags", "k", GetParams::default())
                .await
                .expect("get");
        assert_eq!(got.meta.tags, one);
        f.gw.delete_object_tagging(&owner(), "tags", "k", None)
            .await
            .expect("delete");
        assert!(
            f.gw.get_object_tagging(&owner(), "tags", "k", None)
                .await
                .expect("get")
                .is_empty()
        );
        assert!(matches!(
            f.gw.put_object_tagging(&owner(), "tags", "none", None, one)
                .await,
            Err(GatewayError::NoSuchKey)
        ));
    }
}
