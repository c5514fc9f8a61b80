//! The usage log (`model::usage_log`): requests counted as they are
//! answered, the counts written by a flusher, read and trimmed by the
//! Admin Ops API's `/admin/usage`.

use std::collections::{BTreeMap, HashMap};

use bytes::Bytes;
use rsgw_store::{ReadOp, StoreError, WriteOp};

use crate::engine::omap::OmapWalk;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::layout;
use crate::model::usage_log::{UsageCounters, UsageRange, UsageRecord, UsageSlot};
use crate::ops::gateway::Gateway;

/// Omap keys removed by one write of a trim.
const TRIM_BATCH: usize = 1000;

impl Gateway {
    /// Whether the usage log is kept.
    pub fn usage_log_enabled(&self) -> bool {
        self.opts.usage_log
    }

    /// The owner of `bucket` if the bucket cache holds it (the request's
    /// operation read it moments before), without a store read: `None`
    /// when the instance cannot trust its cache or never read the bucket.
    pub fn cached_bucket_owner(&self, bucket: &str) -> Option<String> {
        self.cache.bucket(bucket).map(|b| b.owner)
    }

    /// Counts one answered request for `user` on `bucket` (`""`: none,
    /// `-`: one that does not exist) under `category`; nothing while the
    /// log is off, nor for no user. Written by the next
    /// [`Gateway::flush_usage`].
    pub fn record_usage(&self, user: &str, bucket: &str, category: &str, c: UsageCounters) {
        if self.opts.usage_log && !user.is_empty() {
            let slot = UsageSlot::at(now_secs() as u64, bucket, category);
            self.usage.add(user, slot, c);
        }
    }

    /// Adds the counts recorded since the last flush to this instance's
    /// entries on the store; answers how many entries it wrote. What a
    /// failed write could not add stays for the next flush.
    pub async fn flush_usage(&self) -> GatewayResult<usize> {
        let mut by_user: BTreeMap<String, Vec<(UsageSlot, UsageCounters)>> = BTreeMap::new();
        for ((user, slot), c) in self.usage.take() {
            by_user.entry(user).or_default().push((slot, c));
        }
        let mut failed = HashMap::new();
        let (mut written, mut error) = (0, None);
        for (user, items) in by_user {
            match self.flush_user_usage(&user, &items).await {
                Ok(()) => written += items.len(),
                Err(e) => {
                    failed.extend(items.into_iter().map(|(s, c)| ((user.clone(), s), c)));
                    error = Some(e);
                }
            }
        }
        self.usage.restore(failed);
        error.map_or(Ok(written), Err)
    }

    async fn flush_user_usage(
        &self,
        user: &str,
        items: &[(UsageSlot, UsageCounters)],
    ) -> GatewayResult<()> {
        let obj = layout::usage(user);
        let keys: Vec<String> = items
            .iter()
            .map(|(s, _)| s.key(&self.usage.instance))
            .collect();
        let have = match self
            .store
            .read(&obj, ReadOp::new().omap_keys(keys.clone()))
            .await
        {
            Ok(r) => r.omap_keys.unwrap_or_default(),
            Err(StoreError::NotFound) => BTreeMap::new(),
            Err(e) => return Err(e.into()),
        };
        let mut set = Vec::with_capacity(items.len());
        for ((_, c), key) in items.iter().zip(keys) {
            let mut total = match have.get(&key) {
                Some(v) => serde_json::from_slice::<UsageCounters>(v)?,
                None => UsageCounters::default(),
            };
            total += *c;
            set.push((key, Bytes::from(serde_json::to_vec(&total)?)));
        }
        self.store.write(&obj, WriteOp::new().omap_set(set)).await?;
        Ok(())
    }

    /// The users whose logs `range` covers.
    async fn usage_users(&self, range: &UsageRange) -> GatewayResult<Vec<String>> {
        match &range.user {
            Some(u) => Ok(vec![u.clone()]),
            None => self.meta_names("usage").await,
        }
    }

    /// The log's records in `range`, by user, then hour, bucket and
    /// category, the instances' counts summed. Counts not yet flushed are
    /// not in it.
    pub async fn usage_records(&self, range: &UsageRange) -> GatewayResult<Vec<UsageRecord>> {
        let mut out = Vec::new();
        for user in self.usage_users(range).await? {
            let obj = layout::usage(&user);
            let mut walk = OmapWalk::new(&*self.store, &obj, "", "");
            let mut sums: BTreeMap<UsageSlot, UsageCounters> = BTreeMap::new();
            loop {
                match walk.next().await {
                    Ok(Some((key, value))) => {
                        if let Some(slot) = UsageSlot::of_key(&key).filter(|s| range.holds(s.hour))
                        {
                            *sums.entry(slot).or_default() += serde_json::from_slice(&value)?;
                        }
                    }
                    Ok(None) | Err(StoreError::NotFound) => break,
                    Err(e) => return Err(e.into()),
                }
            }
            out.extend(sums.into_iter().map(|(slot, counters)| UsageRecord {
                user: user.clone(),
                slot,
                counters,
            }));
        }
        Ok(out)
    }

    /// Removes the log's entries in `range`, every instance's.
    pub async fn trim_usage(&self, range: &UsageRange) -> GatewayResult<()> {
        for user in self.usage_users(range).await? {
            let obj = layout::usage(&user);
            let mut walk = OmapWalk::new(&*self.store, &obj, "", "");
            let mut doomed = Vec::new();
            loop {
                match walk.next().await {
                    Ok(Some((key, _))) => {
                        if UsageSlot::of_key(&key).is_some_and(|s| range.holds(s.hour)) {
                            doomed.push(key);
                        }
                    }
                    Ok(None) | Err(StoreError::NotFound) => break,
                    Err(e) => return Err(e.into()),
                }
            }
            for batch in doomed.chunks(TRIM_BATCH) {
                match self
                    .store
                    .write(&obj, WriteOp::new().omap_rm(batch.iter().cloned()))
                    .await
                {
                    Ok(_) | Err(StoreError::NotFound) => {}
                    Err(e) => return Err(GatewayError::from(e)),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, small_opts};

    fn one(sent: u64, received: u64, ok: bool) -> UsageCounters {
        UsageCounters {
            bytes_sent: sent,
            bytes_received: received,
            ops: 1,
            successful_ops: u64::from(ok),
        }
    }

    /// Counts add up across flushes and instances, read back summed, and
    /// trim away; nothing is counted while the log is off.
    #[tokio::test]
    async fn the_log_counts_flushes_reads_and_trims() {
        let f = Fixture::new(crate::GatewayOptions {
            usage_log: true,
            ..small_opts()
        })
        .await;
        let other = f.other_process();
        f.gw.record_usage("ann", "pics", "put_obj", one(0, 100, true));
        f.gw.record_usage("ann", "pics", "put_obj", one(0, 50, true));
        f.gw.record_usage("ann", "-", "get_obj", one(200, 0, false));
        f.gw.record_usage("", "pics", "get_obj", one(1, 0, true));
        assert_eq!(f.gw.flush_usage().await.expect("flush"), 2);
        f.gw.record_usage("ann", "pics", "put_obj", one(0, 25, true));
        assert_eq!(f.gw.flush_usage().await.expect("flush"), 1);
        assert_eq!(f.gw.flush_usage().await.expect("nothing"), 0);
        // another instance: off, so nothing of it counts
        other.record_usage("ann", "pics", "put_obj", one(0, 1, true));
        assert_eq!(other.flush_usage().await.expect("flush"), 0);
        let all =
            f.gw.usage_records(&UsageRange::default())
                .await
                .expect("read");
        let got: Vec<_> = all
            .iter()
            .map(|r| {
                (
                    r.user.as_str(),
                    r.slot.bucket.as_str(),
                    r.slot.category.as_str(),
                    r.counters,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("ann", "-", "get_obj", one(200, 0, false)),
                (
                    "ann",
                    "pics",
                    "put_obj",
                    UsageCounters {
                        bytes_sent: 0,
                        bytes_received: 175,
                        ops: 3,
                        successful_ops: 3
                    }
                ),
            ]
        );
        let later = UsageRange {
            user: Some("ann".into()),
            start: Some(all[0].slot.hour + 3600),
            end: None,
        };
        assert!(f.gw.usage_records(&later).await.expect("read").is_empty());
        f.gw.trim_usage(&UsageRange {
            user: Some("ann".into()),
            ..UsageRange::default()
        })
        .await
        .expect("trim");
        assert!(
            f.gw.usage_records(&UsageRange::default())
                .await
                .expect("read")
                .is_empty()
        );
        // a trim of a user without a log is nothing to do
        f.gw.trim_usage(&UsageRange {
            user: Some("nobody".into()),
            ..UsageRange::default()
        })
        .await
        .expect("trim");
    }
}
