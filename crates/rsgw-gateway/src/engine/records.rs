//! Records read through the caches: buckets' records (every request on a
//! bucket reads one) and the names of a user's buckets.

use rsgw_store::{ReadOp, StoreError};

use crate::cache::meta::Change;
use crate::engine::Engine;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;

impl Engine {
    /// A bucket's record (cached; see `cache::meta`).
    pub(crate) async fn bucket_info(&self, name: &str) -> GatewayResult<BucketInfo> {
        if let Some(info) = self.cache.bucket(name) {
            return Ok(info);
        }
        let ticket = self.cache.ticket();
        let r = match self
            .store
            .read(&layout::bucket(name), ReadOp::new().read(0, 1 << 16))
            .await
        {
            Err(StoreError::NotFound) => return Err(GatewayError::NoSuchBucket),
            Err(StoreError::InvalidArgument(_)) => return Err(GatewayError::NoSuchBucket),
            r => r?,
        };
        let info: BucketInfo = serde_json::from_slice(&r.data.unwrap_or_default())?;
        self.cache.put_bucket(ticket, &info);
        Ok(info)
    }

    /// A bucket's record read from the store, past the cache: what writes
    /// use, so that an object is never stored under a bucket that another
    /// process deleted (and perhaps re-created) while this one could not
    /// watch for changes.
    pub(crate) async fn bucket_info_fresh(&self, name: &str) -> GatewayResult<BucketInfo> {
        self.cache.invalidate(Some(&Change::Bucket(name.into())));
        self.bucket_info(name).await
    }

    /// After a miss under a possibly cached record: the bucket's current
    /// record if it has been deleted and re-created since (another id),
    /// `None` if it is the same bucket, `NoSuchBucket` if it is gone.
    pub(crate) async fn bucket_replaced(
        &self,
        info: &BucketInfo,
    ) -> GatewayResult<Option<BucketInfo>> {
        let now = self.bucket_info_fresh(&info.name).await?;
        Ok((now.id != info.id).then_some(now))
    }

    /// Names of the buckets a user owns, in name order.
    pub(crate) async fn user_buckets(&self, uid: &str) -> GatewayResult<Vec<String>> {
        self.omap_keys(&layout::user(uid)).await
    }
}
