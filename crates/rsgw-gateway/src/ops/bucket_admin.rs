//! What an operator does to buckets beyond S3 (the Admin Ops API's
//! `/admin/bucket`, radosgw-admin's `bucket link|unlink|rm`): give a
//! bucket to another user, take it off a user's list, remove it with every
//! object in it, remove one object whatever its ACL.

use bytes::Bytes;
use rsgw_store::{StoreError, WriteOp};

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::params::VersionListParams;
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::Requester;

/// How many versions or uploads one pass of a purge lists.
const PURGE_PAGE: usize = 1000;

impl Gateway {
    /// Links `bucket` to `uid` (radosgw's `bucket link`): the user owns it
    /// from now on, and lists it; the former owner no longer does.
    pub async fn link_bucket(&self, bucket: &str, uid: &str) -> GatewayResult<()> {
        self.user_info(uid).await?;
        let mut info = self.bucket_info_fresh(bucket).await?;
        let former = std::mem::replace(&mut info.owner, uid.to_string());
        if former != uid {
            match self
                .store
                .write(&layout::user(&former), WriteOp::new().omap_rm([bucket]))
                .await
            {
                // the former owner may be gone
                Ok(_) | Err(StoreError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        self.store
            .write(
                &layout::user(uid),
                WriteOp::new().omap_set([(bucket, Bytes::new())]),
            )
            .await?;
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// Unlinks `bucket` from `uid` (radosgw's `bucket unlink`): the user no
    /// longer lists it; the bucket and its owner stay as they are, until
    /// it is linked again.
    pub async fn unlink_bucket(&self, bucket: &str, uid: &str) -> GatewayResult<()> {
        self.user_info(uid).await?;
        self.bucket_info_fresh(bucket).await?;
        self.store
            .write(&layout::user(uid), WriteOp::new().omap_rm([bucket]))
            .await?;
        Ok(())
    }

    /// Removes `bucket` with every version, delete marker and unfinished
    /// upload in it (radosgw's `bucket rm --purge-objects`), as its owner
    /// with governance retention bypassed; a version under compliance
    /// retention or a legal hold stops it (`ObjectLocked`).
    pub async fn purge_bucket(&self, bucket: &str) -> GatewayResult<()> {
        let info = self.bucket_info_fresh(bucket).await?;
        let owner = Requester::user(&info.owner);
        loop {
            let page = self
                .list_object_versions(
                    &owner,
                    bucket,
                    &VersionListParams {
                        max_keys: PURGE_PAGE,
                        ..VersionListParams::default()
                    },
                )
                .await?;
            if page.versions.is_empty() {
                break;
            }
            for v in &page.versions {
                let id = v.version_id.as_deref().unwrap_or(crate::NULL_VERSION);
                self.delete_object_version(&owner, (bucket, &v.key, id), true)
                    .await?;
            }
        }
        loop {
            let page = self
                .list_multipart_uploads(&owner, bucket, ("", ""), ("", ""), PURGE_PAGE)
                .await?;
            if page.uploads.is_empty() {
                break;
            }
            for u in &page.uploads {
                self.abort_multipart(&owner, bucket, &u.key, &u.upload_id)
                    .await?;
            }
        }
        self.delete_bucket(&owner, bucket).await
    }

    /// Removes one object of `bucket` (its current version, as a DELETE
    /// without a version id would), as the bucket's owner.
    pub async fn admin_remove_object(&self, bucket: &str, key: &str) -> GatewayResult<()> {
        let info = self.bucket_info_fresh(bucket).await?;
        self.delete_object(&Requester::user(&info.owner), bucket, key)
            .await
            .map(drop)
    }

    /// Refuses a new bucket for a user past their `max_buckets` (0: no
    /// limit; negative: none at all), as radosgw does; a user id with no
    /// record (buckets made by the embedded tools) has no limit.
    pub(crate) async fn check_max_buckets(&self, uid: &str) -> GatewayResult<()> {
        let max = match self.user_info(uid).await {
            Ok(u) => u.max_buckets,
            Err(GatewayError::NoSuchUser(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        if max < 0 {
            return Err(GatewayError::AccessDenied);
        }
        if max > 0 && self.user_buckets(uid).await?.len() as i64 >= max {
            return Err(GatewayError::TooManyBuckets);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CannedAcl;
    use crate::model::user::NewUser;
    use crate::testutil::{Fixture, body, small_opts};

    async fn user(f: &Fixture, uid: &str, max_buckets: Option<i64>) {
        f.gw.create_user_as(NewUser {
            uid: uid.into(),
            display_name: uid.into(),
            max_buckets,
            ..NewUser::default()
        })
        .await
        .expect("user");
    }

    /// Link moves a bucket between users' lists and its owner with it;
    /// unlink takes it off a list only.
    #[tokio::test]
    async fn buckets_are_linked_and_unlinked() {
        let f = Fixture::new(small_opts()).await;
        user(&f, "ann", None).await;
        user(&f, "ben", None).await;
        f.gw.create_bucket("ann", "bkt-1", CannedAcl::Private)
            .await
            .expect("bucket");
        f.gw.link_bucket("bkt-1", "ben").await.expect("link");
        assert_eq!(f.gw.bucket_info("bkt-1").await.expect("info").owner, "ben");
        assert_eq!(f.gw.user_buckets("ben").await.expect("list"), ["bkt-1"]);
        assert!(f.gw.user_buckets("ann").await.expect("list").is_empty());
        f.gw.unlink_bucket("bkt-1", "ben").await.expect("unlink");
        assert!(f.gw.user_buckets("ben").await.expect("list").is_empty());
        assert_eq!(f.gw.bucket_info("bkt-1").await.expect("info").owner, "ben");
        assert!(matches!(
            f.gw.link_bucket("bkt-1", "nobody").await,
            Err(GatewayError::NoSuchUser(_))
        ));
        assert!(matches!(
            f.gw.link_bucket("no-such", "ann").await,
            Err(GatewayError::NoSuchBucket)
        ));
    }

    /// A purge removes every version, marker and upload, then the bucket.
    #[tokio::test]
    async fn a_purge_leaves_nothing() {
        let f = Fixture::new(small_opts()).await;
        user(&f, "ann", None).await;
        let ann = Requester::user("ann");
        f.gw.create_bucket("ann", "purged", CannedAcl::Private)
            .await
            .expect("bucket");
        f.gw.put_bucket_versioning(&ann, "purged", Some(crate::Versioning::Enabled))
            .await
            .expect("versioning");
        for _ in 0..3 {
            f.gw.put_object(&ann, "purged", "k", Default::default(), body(b"x", 1))
                .await
                .expect("put");
        }
        f.gw.delete_object(&ann, "purged", "k")
            .await
            .expect("marker");
        f.gw.create_multipart(&ann, "purged", "u", Default::default())
            .await
            .expect("upload");
        assert!(matches!(
            f.gw.delete_bucket(&ann, "purged").await,
            Err(GatewayError::BucketNotEmpty)
        ));
        f.gw.purge_bucket("purged").await.expect("purge");
        assert!(matches!(
            f.gw.bucket_info("purged").await,
            Err(GatewayError::NoSuchBucket)
        ));
        assert!(f.gw.user_buckets("ann").await.expect("list").is_empty());
    }

    /// `max_buckets`: a limit, 0 none, negative no bucket at all.
    #[tokio::test]
    async fn max_buckets_is_radosgws() {
        let f = Fixture::new(small_opts()).await;
        user(&f, "one", Some(1)).await;
        user(&f, "any", Some(0)).await;
        user(&f, "no-such", Some(-1)).await;
        f.gw.create_bucket("one", "one-1", CannedAcl::Private)
            .await
            .expect("first");
        assert!(matches!(
            f.gw.create_bucket("one", "one-2", CannedAcl::Private).await,
            Err(GatewayError::TooManyBuckets)
        ));
        for n in 0..3 {
            f.gw.create_bucket("any", &format!("any-{n}"), CannedAcl::Private)
                .await
                .expect("unlimited");
        }
        assert!(matches!(
            f.gw.create_bucket("no-such", "none-1", CannedAcl::Private)
                .await,
            Err(GatewayError::AccessDenied)
        ));
    }
}
