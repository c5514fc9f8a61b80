//! Usage: what buckets and users hold (`rsgw admin bucket stats`, `user
//! stats`), and the check of the index counters against a count of the
//! index (`rsgw admin bucket check`). The counters are kept by
//! `engine::usage`.

use crate::model::bucket::BucketInfo;
use crate::model::error::GatewayResult;
use crate::model::index::{ShardCheck, Usage};
use crate::ops::gateway::Gateway;

impl Gateway {
    /// A bucket's usage: each shard's counters (an untracked shard's
    /// entries counted), all shards at once.
    pub async fn bucket_usage_of(&self, info: &BucketInfo) -> GatewayResult<Usage> {
        self.engine.bucket_usage_of(info).await
    }

    /// A bucket's usage, by name.
    pub async fn bucket_usage(&self, bucket: &str) -> GatewayResult<Usage> {
        let info = self.bucket_info(bucket).await?;
        self.bucket_usage_of(&info).await
    }

    /// A user's usage: the sum of their buckets' (one read per shard of
    /// each bucket, not one per object).
    pub async fn user_usage(&self, uid: &str) -> GatewayResult<Usage> {
        self.engine.user_usage(uid).await
    }

    /// Counts every shard of a bucket and compares the counts with the
    /// counters (radosgw-admin's `bucket check`). With `fix`, counters
    /// that differ (or are missing) are set to the count, guarded on the
    /// counters read before counting: a write to the shard meanwhile makes
    /// the shard counted again. An untracked shard has no counters a
    /// writer changes, so writes during its first fix may be missed; a
    /// second check finds them.
    pub async fn check_bucket(&self, bucket: &str, fix: bool) -> GatewayResult<Vec<ShardCheck>> {
        self.engine.check_bucket(bucket, fix).await
    }
}
