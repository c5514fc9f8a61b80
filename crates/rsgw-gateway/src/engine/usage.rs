//! A bucket's usage (objects and bytes), kept in its index.
//!
//! Each index shard carries its own counters in the xattr `rsgw.stats`
//! (`<generation> <objects> <bytes>`), changed in the same atomic write
//! that sets or removes an entry of that shard: a shard's counters are
//! always the sum of its entries, whatever crashes or concurrent writers
//! do, and a bucket's usage is a read of each shard's xattr (O(shards),
//! not O(objects)), as radosgw keeps its stats in each index shard's
//! header.
//!
//! Such a write is a read of the shard's counters and the key's entry,
//! then a write guarded on the counters read (their generation grows with
//! every write, so a guard never passes on equal-looking counters of
//! another state). Writers of one shard in this process queue their
//! updates, committed in batches of one read and one write (the
//! `engine::index_commit`); writers in other processes meet at the guard
//! and retry.
//!
//! A shard without the xattr (an index made before the counters existed)
//! is *untracked*: writes leave it so, and its usage is counted from its
//! entries until [`crate::Gateway::check_bucket`] with `fix` gives it
//! counters. The counters' encoding is `model::index`'s.

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};

use crate::engine::Engine;
use crate::engine::omap::OmapWalk;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::{Counters, ShardCheck, Usage, counted_size};
use crate::model::layout::STATS_XATTR;
use crate::model::limits::{MAX_ROUNDS, SHARD_CONCURRENCY};

impl Engine {
    /// Sets (`Some`) or removes (`None`) `key`'s entry in its index shard,
    /// with the shard's counters, in one atomic write. Fails with the
    /// store's `NotFound` when the shard is gone (the bucket deleted).
    pub(crate) async fn index_update(
        &self,
        info: &BucketInfo,
        key: &str,
        entry: Option<Bytes>,
    ) -> GatewayResult<()> {
        self.commit_index(&info.index_of(key), vec![(key.to_string(), entry)])
            .await
    }

    /// Sets (`Some`) or removes (`None`) entries of `key`'s index shard
    /// (its own entry, its versions' entries), with the shard's counters,
    /// in one atomic write.
    pub(crate) async fn index_update_all(
        &self,
        info: &BucketInfo,
        key: &str,
        updates: Vec<(String, Option<Bytes>)>,
    ) -> GatewayResult<()> {
        self.commit_index(&info.index_of(key), updates).await
    }

    /// A bucket's usage: each shard's counters (an untracked shard's
    /// entries counted), all shards at once.
    pub(crate) async fn bucket_usage_of(&self, info: &BucketInfo) -> GatewayResult<Usage> {
        let shards: Vec<Usage> = futures::stream::iter(info.index_shards())
            .map(|shard| async move {
                match self.shard_counters(&shard).await?.1 {
                    Some(c) => Ok(c.usage),
                    None => self.count_shard(&shard).await,
                }
            })
            .buffer_unordered(SHARD_CONCURRENCY)
            .try_collect()
            .await?;
        let mut total = Usage::default();
        for u in shards {
            total += u;
        }
        Ok(total)
    }

    /// A user's usage: the sum of their buckets' (one read per shard of
    /// each bucket, not one per object).
    pub(crate) async fn user_usage(&self, uid: &str) -> GatewayResult<Usage> {
        let mut total = Usage::default();
        for name in self.user_buckets(uid).await? {
            match self.bucket_info(&name).await {
                Ok(info) => total += self.bucket_usage_of(&info).await?,
                // deleted since it was listed
                Err(GatewayError::NoSuchBucket) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(total)
    }

    /// A shard's counters: the xattr as stored (for a guard on it) and
    /// what it says (`None`: untracked).
    async fn shard_counters(
        &self,
        shard: &ObjectId,
    ) -> GatewayResult<(Option<Bytes>, Option<Counters>)> {
        let r = self.store.read(shard, ReadOp::new().xattrs()).await?;
        let raw = r.xattrs.unwrap_or_default().remove(STATS_XATTR);
        let counters = Counters::decode(raw.as_ref())?;
        Ok((raw, counters))
    }

    /// Counts a shard's entries, reading it to its end.
    async fn count_shard(&self, shard: &ObjectId) -> GatewayResult<Usage> {
        let mut u = Usage::default();
        let mut entries = OmapWalk::new(&*self.store, shard, "", "");
        while let Some((_, value)) = entries.next().await? {
            if let Some(size) = counted_size(&value)? {
                u.objects += 1;
                u.bytes += size;
            }
        }
        Ok(u)
    }

    /// Counts every shard of a bucket and compares the counts with the
    /// counters (radosgw-admin's `bucket check`). With `fix`, counters
    /// that differ (or are missing) are set to the count, guarded on the
    /// counters read before counting: a write to the shard meanwhile makes
    /// the shard counted again. An untracked shard has no counters a
    /// writer changes, so writes during its first fix may be missed; a
    /// second check finds them.
    pub(crate) async fn check_bucket(
        &self,
        bucket: &str,
        fix: bool,
    ) -> GatewayResult<Vec<ShardCheck>> {
        let info = self.bucket_info_fresh(bucket).await?;
        let mut out = Vec::new();
        for (n, shard) in info.index_shards().into_iter().enumerate() {
            out.push(self.check_shard(n as u32, &shard, fix).await?);
        }
        Ok(out)
    }

    async fn check_shard(&self, n: u32, shard: &ObjectId, fix: bool) -> GatewayResult<ShardCheck> {
        for _ in 0..MAX_ROUNDS {
            let (raw, stored) = self.shard_counters(shard).await?;
            let counted = self.count_shard(shard).await?;
            let mut check = ShardCheck {
                shard: n,
                stored: stored.map(|c| c.usage),
                counted,
                fixed: false,
            };
            if !fix || check.stored == Some(counted) {
                return Ok(check);
            }
            let set = Counters {
                generation: stored.map_or(0, |c| c.generation) + 1,
                usage: counted,
            };
            let op = WriteOp::new()
                .cmp_xattr(STATS_XATTR, CmpOp::Eq, raw.unwrap_or_default())
                .set_xattr(STATS_XATTR, set.encode());
            match self.store.write(shard, op).await {
                Ok(_) => {
                    check.fixed = true;
                    return Ok(check);
                }
                Err(StoreError::GuardFailed(_)) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::{Fixture, body, listed, owner, small_opts};
    use crate::{GatewayOptions, PutParams};

    /// Writers in two processes (each with several at once) put, overwrite
    /// and delete keys of one bucket; the counters end equal to a count of
    /// the index, for 1 shard (every write meets at one object) and 11.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn counters_match_a_count_under_concurrent_writers() {
        for shards in [1, 11] {
            let opts = GatewayOptions {
                bucket_index_shards: shards,
                ..small_opts()
            };
            let (f, _) = Fixture::with_bucket(opts, "bkt").await;
            let gateways = [f.gw.clone(), f.other_process()];
            let mut tasks = Vec::new();
            for (p, gw) in gateways.into_iter().enumerate() {
                for w in 0..8u64 {
                    let gw = gw.clone();
                    tasks.push(tokio::spawn(async move {
                        for i in 0..30u64 {
                            // 12 keys shared by everyone: overwrites and
                            // deletes race across the processes
                            let key = format!("k{}", (i * 7 + w + p as u64) % 12);
                            if (i + w) % 4 == 3 {
                                gw.delete_object(&owner(), "bkt", &key)
                                    .await
                                    .expect("delete");
                            } else {
                                let data = vec![b'x'; ((i * 5 + w) % 20) as usize];
                                gw.put_object(
                                    &owner(),
                                    "bkt",
                                    &key,
                                    PutParams::default(),
                                    body(&data, 3),
                                )
                                .await
                                .expect("put");
                            }
                        }
                    }));
                }
            }
            for t in tasks {
                t.await.expect("writer");
            }
            let checks = f.gw.check_bucket("bkt", false).await.expect("check");
            for c in &checks {
                assert_eq!(
                    c.stored,
                    Some(c.counted),
                    "{shards} shards: shard {}",
                    c.shard
                );
            }
            let listed = listed(&f.gw, "bkt").await;
            let usage = f.gw.bucket_usage("bkt").await.expect("usage");
            assert_eq!(usage.objects, listed.len() as u64);
            assert_eq!(usage.bytes, listed.iter().map(|e| e.size).sum::<u64>());
        }
    }
}
