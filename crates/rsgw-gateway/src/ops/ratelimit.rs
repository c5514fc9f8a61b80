//! Rate limits: the store's record of them, cached like bucket records
//! and changed only through [`Gateway::update_ratelimit`], which announces
//! the change to every instance: once it returns, every instance enforces
//! the new limits on its next request. Each instance enforces them on its
//! own share of the traffic (`cache::limiter`).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rsgw_store::{CmpOp, ReadOp, StoreError, WriteOp};

use crate::cache::limiter::Limiter;
use crate::cache::meta::Change;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout::{self, GEN_XATTR};
use crate::model::ratelimit::{Limit, LimitTarget, RateLimits};
use crate::ops::gateway::Gateway;

/// Rounds of read and guarded write before a change of the limits gives
/// up (only concurrent changes make a round fail).
const UPDATE_ROUNDS: usize = 16;

/// How long a request waits for the rate limits when the last ones read
/// could apply instead.
const LAST_KNOWN_WAIT: Duration = Duration::from_millis(250);

impl Gateway {
    /// The store's rate limits (cached, coherent across instances). While
    /// the instance cannot watch for changes (a store outage, say), a read
    /// that fails or takes longer than `LAST_KNOWN_WAIT` answers the last
    /// ones read, for the cache's TTL: requests then fail or succeed on
    /// their own store operations instead of each waiting for the store
    /// twice.
    pub async fn ratelimits(&self) -> GatewayResult<Arc<RateLimits>> {
        if self.zone().is_some() {
            // radosgw keeps its rate limits in its users and buckets,
            // which are not read yet: none apply on its layout
            return Ok(Arc::default());
        }
        if let Some(l) = self.cache.ratelimits() {
            return Ok(l);
        }
        let ticket = self.cache.ticket();
        let last = self
            .cache
            .last_ratelimits()
            .filter(|_| !self.cache.watched());
        let read = match last {
            None => self.read_ratelimits().await,
            Some(last) => {
                match tokio::time::timeout(LAST_KNOWN_WAIT, self.read_ratelimits()).await {
                    Ok(Ok(read)) => Ok(read),
                    outcome => {
                        let error = match outcome {
                            Ok(Err(e)) => e.to_string(),
                            _ => format!("no answer in {} ms", LAST_KNOWN_WAIT.as_millis()),
                        };
                        tracing::debug!(%error, "rate limits unreadable; the last ones read apply");
                        self.cache.put_ratelimits(self.cache.ticket(), &last);
                        return Ok(last);
                    }
                }
            }
        };
        let limits = Arc::new(read?.0);
        self.cache.put_ratelimits(ticket, &limits);
        Ok(limits)
    }

    /// This instance's token buckets.
    pub fn limiter(&self) -> &Limiter {
        &self.limiter
    }

    async fn read_ratelimits(&self) -> GatewayResult<(RateLimits, Option<Bytes>)> {
        match self
            .read_whole(&layout::ratelimits(), ReadOp::new().xattrs())
            .await
        {
            Ok(r) => {
                let limits = serde_json::from_slice(&r.data.unwrap_or_default())?;
                let generation = r.xattrs.and_then(|x| x.get(GEN_XATTR).cloned());
                Ok((limits, generation))
            }
            Err(GatewayError::Store(StoreError::NotFound)) => Ok((RateLimits::default(), None)),
            Err(e) => Err(e),
        }
    }

    /// Changes one limit with `change` and announces it to every instance;
    /// returns the limit as stored. Concurrent changes (two admins) are
    /// applied one after the other, none lost.
    pub async fn update_ratelimit(
        &self,
        target: &LimitTarget,
        change: impl Fn(&mut Limit),
    ) -> GatewayResult<Limit> {
        for _ in 0..UPDATE_ROUNDS {
            let (mut limits, generation) = self.read_ratelimits().await?;
            let slot = match target {
                LimitTarget::GlobalUser => &mut limits.global_user,
                LimitTarget::GlobalBucket => &mut limits.global_bucket,
                LimitTarget::Anonymous => &mut limits.anonymous,
                LimitTarget::User(u) => limits.users.entry(u.clone()).or_default(),
                LimitTarget::Bucket(b) => limits.buckets.entry(b.clone()).or_default(),
            };
            change(slot);
            let limit = *slot;
            let next = generation
                .as_deref()
                .and_then(|g| std::str::from_utf8(g).ok()?.parse::<u64>().ok())
                .map_or(1, |g| g + 1);
            let data = Bytes::from(serde_json::to_vec_pretty(&limits)?);
            let op = match &generation {
                Some(g) => WriteOp::new().cmp_xattr(GEN_XATTR, CmpOp::Eq, g.clone()),
                None => WriteOp::new().create_exclusive(),
            };
            let op = op.write_full(data).set_xattr(GEN_XATTR, next.to_string());
            match self.store.write(&layout::ratelimits(), op).await {
                Ok(_) => {
                    self.announce(Change::RateLimits).await?;
                    return Ok(limit);
                }
                // another change came first: apply this one to it
                Err(StoreError::GuardFailed(_) | StoreError::Exists) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Corrupt(
            "rate limits: too many concurrent changes".into(),
        ))
    }

    /// The stored limit of `target` (the default of its scope when it has
    /// none of its own).
    pub async fn ratelimit(&self, target: &LimitTarget) -> GatewayResult<Limit> {
        let (limits, _) = self.read_ratelimits().await?;
        Ok(match target {
            LimitTarget::GlobalUser => limits.global_user,
            LimitTarget::GlobalBucket => limits.global_bucket,
            LimitTarget::Anonymous => limits.anonymous,
            LimitTarget::User(u) => *limits.of_user(Some(u)),
            LimitTarget::Bucket(b) => *limits.of_bucket(b),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn changes_are_stored_none_lost_and_seen_by_other_processes() {
        let f = crate::testutil::Fixture::new(crate::testutil::small_opts()).await;
        assert_eq!(
            *f.gw.ratelimits().await.expect("read"),
            RateLimits::default()
        );
        let mut tasks = Vec::new();
        for i in 0..8u64 {
            let gw = f.gw.clone();
            tasks.push(tokio::spawn(async move {
                gw.update_ratelimit(&LimitTarget::User(format!("u{i}")), |l| {
                    l.enabled = true;
                    l.max_read_ops = i + 1;
                })
                .await
            }));
        }
        for t in tasks {
            t.await.expect("join").expect("update");
        }
        f.gw.update_ratelimit(&LimitTarget::Anonymous, |l| l.max_write_bytes = 7)
            .await
            .expect("update");
        let stored = f.gw.ratelimits().await.expect("read");
        assert_eq!(stored.users.len(), 8, "concurrent changes are all kept");
        assert_eq!(stored.users["u4"].max_read_ops, 5);
        assert_eq!(stored.anonymous.max_write_bytes, 7);
        assert!(!stored.anonymous.enabled, "set does not enable");
        assert_eq!(
            *f.other_process().ratelimits().await.expect("read"),
            *stored
        );
        assert_eq!(
            f.gw.ratelimit(&LimitTarget::User("nobody".into()))
                .await
                .expect("get"),
            Limit::default(),
            "a user without limits of its own has the users' default"
        );
    }
}
