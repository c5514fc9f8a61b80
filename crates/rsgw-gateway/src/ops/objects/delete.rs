//! DeleteObject and DeleteObjects, and the guarded delete the lifecycle
//! worker expires objects with.

use futures::StreamExt;
use rsgw_store::StoreError;

use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
use crate::model::object::ObjectMeta;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};
use crate::rules::names::validate_key;

impl Gateway {
    /// Deletes an object (succeeds if it is already gone).
    pub async fn delete_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<()> {
        self.delete_object_if(rq, bucket, key, |_| true)
            .await
            .map(drop)
    }

    /// Deletes an object if `cond` holds of its current version (an absent
    /// object is only unlisted); answers whether it deleted one. The head's
    /// removal is guarded on the version `cond` approved: a version written
    /// meanwhile is judged again, and one `cond` spares stays listed.
    pub(crate) async fn delete_object_if(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        cond: impl Fn(&ObjectMeta) -> bool,
    ) -> GatewayResult<bool> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        let mut unlisted = false;
        for _ in 0..MAX_ROUNDS {
            let Some((meta, marked)) = self.head_state(&head_id).await? else {
                authorize(rq, Access::DeleteObject, &Target::key(&info, key))?;
                self.unindex(&info, key).await?;
                return Ok(false);
            };
            authorize(rq, Access::DeleteObject, &Target::stored(&info, key, &meta))?;
            if !cond(&meta) {
                if unlisted {
                    // the version that replaced the one unlisted below
                    self.index_committed(&info, key, &meta, &[]).await?;
                }
                return Ok(false);
            }
            // index first: an object listed is always readable
            self.unindex(&info, key).await?;
            unlisted = true;
            match self
                .store
                .write(&head_id, marked.unchanged(&meta.tag).remove())
                .await
            {
                Ok(_) => {
                    self.announce_write(&head_id, marked).await?;
                    self.retire(&info.id, key, &meta.tails).await?;
                    return Ok(true);
                }
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Deletes each key as [`Gateway::delete_object`] does,
    /// [`crate::GatewayOptions::multi_delete_concurrency`] at a time (DeleteObjects:
    /// one after the other, each key's index update, head removal and tail
    /// retirement are round trips to the cluster). The results come in the
    /// keys' order; a key named twice is deleted twice, the second time
    /// finding it gone.
    pub async fn delete_objects(
        &self,
        rq: &Requester,
        bucket: &str,
        keys: Vec<String>,
    ) -> Vec<(String, GatewayResult<()>)> {
        futures::stream::iter(keys)
            .map(|key| async move {
                let r = self.delete_object(rq, bucket, &key).await;
                (key, r)
            })
            .buffered(self.opts.multi_delete_concurrency.max(1))
            .collect()
            .await
    }

    async fn unindex(&self, info: &BucketInfo, key: &str) -> GatewayResult<()> {
        match self.index_update(info, key, None).await {
            Ok(()) | Err(GatewayError::Store(StoreError::NotFound)) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
