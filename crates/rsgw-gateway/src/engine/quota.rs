//! How writes meet the user and bucket quotas (`model::quota`).
//!
//! A write that adds an object (PUT, copy, CompleteMultipartUpload) asks
//! for a [`QuotaPass`] once its size is known and before its head is
//! written, and holds it until the index lists the object. Under a quota,
//! the instance's writes into the bucket (or the user's buckets) take
//! turns from the check to the index update, and each check reads the
//! usage from the index counters (`engine::usage`), so that this
//! instance never admits a write on a usage its own writes made stale.
//! Writes of other instances are seen once listed: a quota is overshot by
//! at most one object (and its bytes) per other instance writing at the
//! same moment. The price: writes under a quota commit one at a time per
//! instance, and each reads every index shard's counters (for a user
//! quota, those of each of the user's buckets).
//!
//! As radosgw does, every write counts as one object more and its whole
//! size more, even when it replaces an object; sizes are counted exactly
//! (radosgw rounds each object up to 4 KiB).

use rsgw_store::{ReadOp, StoreError};

use crate::engine::Engine;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::Usage;
use crate::model::layout;
use crate::model::quota::OwnerQuotas;
use crate::model::user::User;

/// Stripes of [`Turns`]: names (users, buckets) share a turn only when they
/// fall in the same stripe.
const TURN_STRIPES: usize = 256;

/// Turns held by a write under a quota, from its check to its index
/// update (see the module documentation); empty without a quota.
#[derive(Default)]
pub(crate) struct QuotaPass<'a> {
    _turns: Vec<tokio::sync::MutexGuard<'a, ()>>,
}

impl Engine {
    /// The quotas in `uid`'s record (cached; none for an unknown user).
    pub(crate) async fn owner_quotas(&self, uid: &str) -> GatewayResult<OwnerQuotas> {
        if let Some(q) = self.cache.owner_quotas(uid) {
            return Ok(q);
        }
        let ticket = self.cache.ticket();
        let q = match self.read_whole(&layout::user(uid), ReadOp::new()).await {
            Ok(r) => match r.data.filter(|d| !d.is_empty()) {
                Some(data) => {
                    let u: User = serde_json::from_slice(&data)?;
                    OwnerQuotas {
                        user: u.user_quota,
                        bucket: u.bucket_quota,
                    }
                }
                // the object of a bucket owner who is no user (its buckets
                // list), or none at all: no quotas
                None => OwnerQuotas::default(),
            },
            Err(GatewayError::Store(StoreError::NotFound)) => OwnerQuotas::default(),
            Err(e) => return Err(e),
        };
        self.cache.put_owner_quotas(ticket, uid, q);
        Ok(q)
    }

    /// Admits a write adding `add` to `info`'s bucket under its quotas
    /// (`QuotaExceeded` when one of them would be passed); with `turns`,
    /// the pass holds this instance's turn until dropped (a write that
    /// lists an object), else it is only a check (a part).
    pub(crate) async fn quota_pass(
        &self,
        info: &BucketInfo,
        add: Usage,
        turns: bool,
    ) -> GatewayResult<QuotaPass<'_>> {
        let owner = self.owner_quotas(&info.owner).await?;
        let bucket = if info.quota.enabled {
            info.quota
        } else {
            owner.bucket
        };
        let (by_bucket, by_user) = (bucket.active(), owner.user.active());
        let mut pass = QuotaPass::default();
        if !by_bucket && !by_user {
            return Ok(pass);
        }
        if turns {
            let mut names = Vec::new();
            if by_user {
                names.push(format!("u/{}", info.owner));
            }
            if by_bucket {
                names.push(format!("b/{}", info.id));
            }
            pass._turns = self.quota_turns.lock_all(&names).await;
        }
        if by_bucket && !bucket.admits(self.bucket_usage_of(info).await?, add) {
            return Err(GatewayError::QuotaExceeded);
        }
        if by_user && !owner.user.admits(self.user_usage(&info.owner).await?, add) {
            return Err(GatewayError::QuotaExceeded);
        }
        Ok(pass)
    }
}

/// Turns taken by this process's writes under one quota: striped locks,
/// keyed by name.
pub(crate) struct Turns(Vec<tokio::sync::Mutex<()>>);

impl Default for Turns {
    fn default() -> Self {
        Turns(
            (0..TURN_STRIPES)
                .map(|_| tokio::sync::Mutex::new(()))
                .collect(),
        )
    }
}

impl Turns {
    /// The stripe of `name`.
    pub(crate) fn stripe(&self, name: &str) -> usize {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        let h = BuildHasherDefault::<DefaultHasher>::default().hash_one(name);
        (h % self.0.len() as u64) as usize
    }

    /// The lock of a stripe.
    pub(crate) fn at(&self, stripe: usize) -> &tokio::sync::Mutex<()> {
        &self.0[stripe]
    }
}

impl Turns {
    /// Takes the turns of `names` in a fixed order (no two writers wait
    /// on each other), each stripe once.
    async fn lock_all(&self, names: &[String]) -> Vec<tokio::sync::MutexGuard<'_, ()>> {
        let mut stripes: Vec<usize> = names.iter().map(|n| self.stripe(n)).collect();
        stripes.sort_unstable();
        stripes.dedup();
        let mut held = Vec::with_capacity(stripes.len());
        for s in stripes {
            held.push(self.at(s).lock().await);
        }
        held
    }
}
