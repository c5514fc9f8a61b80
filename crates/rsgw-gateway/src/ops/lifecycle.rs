//! Put/Get/DeleteBucketLifecycleConfiguration: the rules live in the
//! bucket's record, checked as S3 checks them (`rules::lifecycle`), and
//! the bucket is listed for the worker that applies them (`workers::lc`).

use bytes::Bytes;
use rsgw_store::{StoreError, WriteOp};

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::lifecycle::LifecycleRule;
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};
use crate::rules::lifecycle::check_lifecycle;

impl Gateway {
    /// A bucket's lifecycle rules (GetBucketLifecycleConfiguration).
    pub async fn get_bucket_lifecycle(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<Vec<LifecycleRule>> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetLifecycle, &Target::bucket(&info))?;
        info.lifecycle
            .ok_or(GatewayError::NoSuchLifecycleConfiguration)
    }

    /// Replaces a bucket's lifecycle rules, checked
    /// (PutBucketLifecycleConfiguration).
    pub async fn put_bucket_lifecycle(
        &self,
        rq: &Requester,
        bucket: &str,
        rules: Vec<LifecycleRule>,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutLifecycle, &Target::bucket(&info))?;
        info.lifecycle = Some(check_lifecycle(rules)?);
        // listed for the worker first: a crash in between leaves a bucket
        // listed without rules (skipped), never rules the worker misses
        self.store
            .write(
                &layout::lc_buckets(),
                WriteOp::new().create().omap_set([(bucket, Bytes::new())]),
            )
            .await?;
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// The buckets listed as having lifecycle rules, in name order.
    pub(crate) async fn lifecycle_buckets(&self) -> GatewayResult<Vec<String>> {
        self.omap_keys(&layout::lc_buckets()).await
    }

    /// Takes a deleted bucket off the worker's list.
    pub(crate) async fn unlist_lifecycle(&self, bucket: &str) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::lc_buckets(), WriteOp::new().omap_rm([bucket]))
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes a bucket's lifecycle rules (DeleteBucketLifecycle; none is
    /// fine).
    pub async fn delete_bucket_lifecycle(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutLifecycle, &Target::bucket(&info))?;
        // the bucket stays on the worker's list (skipped while it has no
        // rules): taking it off here could undo a concurrent Put's listing
        if info.lifecycle.take().is_some() {
            self.save_bucket(&info, RecordChange::Shrinks).await?;
        }
        Ok(())
    }
}
