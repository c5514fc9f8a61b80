//! Records read whole, and through the caches: buckets' records (every
//! request on a bucket reads one) and the names of a user's buckets.

use rsgw_store::{ObjectId, ReadOp, ReadResult, StoreError};

use crate::cache::meta::Change;
use crate::engine::Engine;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::limits::{MAX_ROUNDS, RECORD_FIRST_READ};

impl Engine {
    /// `op` with the whole of `id`'s data, however long: a first read of
    /// [`RECORD_FIRST_READ`] bytes with a stat and, while the object holds
    /// more (it may grow in between), a read of its whole size. A record is
    /// never decoded from a truncated read, so one longer than any limit
    /// (written by an earlier release) is still read, repaired and deleted.
    pub(crate) async fn read_whole(&self, id: &ObjectId, op: ReadOp) -> GatewayResult<ReadResult> {
        let mut len = RECORD_FIRST_READ;
        for _ in 0..MAX_ROUNDS {
            let r = self.store.read(id, op.clone().read(0, len).stat()).await?;
            let size = r.stat.as_ref().map_or(0, |s| s.size);
            if r.data.as_ref().map_or(0, |d| d.len() as u64) >= size {
                return Ok(r);
            }
            len = size;
        }
        Err(StoreError::Io(format!("{id:?} kept growing while it was read")).into())
    }

    /// A bucket's record (cached; see `cache::meta`).
    pub(crate) async fn bucket_info(&self, name: &str) -> GatewayResult<BucketInfo> {
        if let Some(info) = self.cache.bucket(name) {
            return Ok(info);
        }
        let ticket = self.cache.ticket();
        let r = match self.read_whole(&layout::bucket(name), ReadOp::new()).await {
            Err(GatewayError::Store(StoreError::NotFound | StoreError::InvalidArgument(_))) => {
                return Err(GatewayError::NoSuchBucket);
            }
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
