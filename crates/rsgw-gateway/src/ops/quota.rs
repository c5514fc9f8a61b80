//! User and bucket quotas, as radosgw's: `max_objects` and `max_size`,
//! each -1 for no limit, enforced only when enabled.
//!
//! Where they are kept (radosgw's places): a user's record holds the
//! user's quota (over all their buckets) and the quota every bucket of
//! theirs gets by default; a bucket's record holds the bucket's own,
//! which applies instead when enabled. Changes are announced to every
//! instance (the user's quotas are cached like bucket records).
//!
//! A write that adds an object (PUT, copy, CompleteMultipartUpload) asks
//! for a [`QuotaPass`] once its size is known and before its head is
//! written, and holds it until the index lists the object. Under a quota,
//! the instance's writes into the bucket (or the user's buckets) take
//! turns from the check to the index update, and each check reads the
//! usage from the index counters (the `usage` module), so that this
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
use serde::{Deserialize, Serialize};

use crate::buckets::BucketInfo;
use crate::cache::Change;
use crate::usage::Usage;
use crate::users::User;
use crate::{Gateway, GatewayError, GatewayResult, layout};

/// A quota: enforced when enabled, a negative maximum is no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Quota {
    /// Enforced only when enabled.
    pub enabled: bool,
    /// Bytes at most (-1: no limit).
    pub max_size: i64,
    /// Objects at most (-1: no limit).
    pub max_objects: i64,
}

impl Default for Quota {
    fn default() -> Self {
        Quota {
            enabled: false,
            max_size: -1,
            max_objects: -1,
        }
    }
}

impl Quota {
    /// Whether it limits anything.
    fn active(&self) -> bool {
        self.enabled && (self.max_size >= 0 || self.max_objects >= 0)
    }

    /// Whether `usage` may grow by `add`.
    fn admits(&self, usage: Usage, add: Usage) -> bool {
        let within = |max: i64, now: u64, more: u64| {
            max < 0 || now.saturating_add(more) <= u64::try_from(max).unwrap_or(0)
        };
        within(self.max_objects, usage.objects, add.objects)
            && within(self.max_size, usage.bytes, add.bytes)
    }

    /// Whether it is the default (not worth storing in a bucket record).
    pub(crate) fn is_default(&self) -> bool {
        *self == Quota::default()
    }
}

/// The quotas a user's record holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct OwnerQuotas {
    /// Over all the user's buckets.
    pub(crate) user: Quota,
    /// Each of the user's buckets without an enabled quota of its own.
    pub(crate) bucket: Quota,
}

/// Which quota an admin command sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuotaTarget {
    /// A user's quota over all their buckets.
    User(String),
    /// The quota of each of a user's buckets (without one of its own).
    UserBuckets(String),
    /// One bucket's own quota.
    Bucket(String),
}

/// Turns held by a write under a quota, from its check to its index
/// update (see the module documentation); empty without a quota.
#[derive(Default)]
pub(crate) struct QuotaPass<'a> {
    _turns: Vec<tokio::sync::MutexGuard<'a, ()>>,
}

impl Gateway {
    /// The quotas in `uid`'s record (cached; none for an unknown user).
    pub(crate) async fn owner_quotas(&self, uid: &str) -> GatewayResult<OwnerQuotas> {
        if let Some(q) = self.cache.owner_quotas(uid) {
            return Ok(q);
        }
        let ticket = self.cache.ticket();
        let q = match self
            .store
            .read(&layout::user(uid), ReadOp::new().read(0, 1 << 20))
            .await
        {
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
            Err(StoreError::NotFound) => OwnerQuotas::default(),
            Err(e) => return Err(e.into()),
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

    /// The stored quota of `target`.
    pub async fn quota(&self, target: &QuotaTarget) -> GatewayResult<Quota> {
        Ok(match target {
            QuotaTarget::User(uid) => self.user_info(uid).await?.user_quota,
            QuotaTarget::UserBuckets(uid) => self.user_info(uid).await?.bucket_quota,
            QuotaTarget::Bucket(name) => self.bucket_info_fresh(name).await?.quota,
        })
    }

    /// Changes one quota with `change` and announces it to every instance;
    /// returns the quota as stored.
    pub async fn update_quota(
        &self,
        target: &QuotaTarget,
        change: impl Fn(&mut Quota),
    ) -> GatewayResult<Quota> {
        let validate = |q: &Quota| {
            if q.max_size < -1 || q.max_objects < -1 {
                return Err(GatewayError::InvalidArgument(
                    "a quota's maximum is a number of objects or bytes, or -1 for no limit".into(),
                ));
            }
            Ok(*q)
        };
        match target {
            QuotaTarget::User(uid) | QuotaTarget::UserBuckets(uid) => {
                let mut user = self.user_info(uid).await?;
                let q = if matches!(target, QuotaTarget::User(_)) {
                    &mut user.user_quota
                } else {
                    &mut user.bucket_quota
                };
                change(q);
                let q = validate(q)?;
                self.save_user(&user).await?;
                self.announce(Change::User(uid.clone())).await?;
                Ok(q)
            }
            QuotaTarget::Bucket(name) => {
                let mut info = self.bucket_info_fresh(name).await?;
                change(&mut info.quota);
                let q = validate(&info.quota)?;
                self.save_bucket(&info).await?;
                Ok(q)
            }
        }
    }
}

/// Turns taken by this process's writes under one quota: striped locks,
/// keyed by name.
pub(crate) struct Turns(Vec<tokio::sync::Mutex<()>>);

impl Default for Turns {
    fn default() -> Self {
        Turns((0..256).map(|_| tokio::sync::Mutex::new(())).collect())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PutParams;
    use crate::testutil::{Fixture, OWNER, body, owner, small_opts};

    async fn put(gw: &Gateway, bucket: &str, key: &str, data: &[u8]) -> GatewayResult<()> {
        gw.put_object(&owner(), bucket, key, PutParams::default(), body(data, 3))
            .await
            .map(drop)
    }

    fn limit(max_objects: i64, max_size: i64) -> impl Fn(&mut Quota) {
        move |q| {
            *q = Quota {
                enabled: true,
                max_objects,
                max_size,
            }
        }
    }

    #[test]
    fn quotas_admit_up_to_their_maximum() {
        let u = |objects, bytes| Usage { objects, bytes };
        let q = |max_objects, max_size| Quota {
            enabled: true,
            max_size,
            max_objects,
        };
        // (quota, usage, added, admitted)
        let cases = [
            (q(-1, -1), u(1 << 40, 1 << 50), u(1, 1 << 30), true),
            (q(3, -1), u(2, 0), u(1, 0), true),
            (q(3, -1), u(3, 0), u(1, 0), false),
            (q(3, -1), u(3, 0), u(0, 100), true),
            (q(0, -1), u(0, 0), u(1, 0), false),
            (q(-1, 100), u(0, 60), u(1, 40), true),
            (q(-1, 100), u(0, 60), u(1, 41), false),
            (q(-1, 0), u(0, 0), u(1, 0), true),
            (q(-1, 0), u(0, 0), u(1, 1), false),
            (q(5, 100), u(4, 100), u(1, 1), false),
            (q(-1, 100), u(0, u64::MAX), u(1, 1), false),
        ];
        for (quota, usage, add, admitted) in cases {
            assert_eq!(
                quota.admits(usage, add),
                admitted,
                "{quota:?} {usage:?} + {add:?}"
            );
        }
        assert!(!Quota::default().active());
        assert!(
            !Quota {
                enabled: true,
                ..Quota::default()
            }
            .active()
        );
        assert!(
            !Quota {
                enabled: false,
                ..q(1, 1)
            }
            .active()
        );
        assert!(q(0, -1).active());
    }

    /// A bucket's own quota, its owner's bucket quota and user quota, each
    /// refusing the write that would pass it and nothing else.
    #[tokio::test]
    async fn writes_past_a_quota_are_refused() {
        let f = Fixture::new(small_opts()).await;
        let gw = &f.gw;
        gw.create_user(OWNER, "Owner", None).await.expect("user");
        for b in ["one", "two"] {
            gw.create_bucket(OWNER, b, crate::CannedAcl::Private)
                .await
                .expect("bucket");
        }
        let bucket = QuotaTarget::Bucket("one".into());
        gw.update_quota(&bucket, limit(2, -1)).await.expect("quota");
        put(gw, "one", "a", b"x").await.expect("first");
        put(gw, "one", "b", b"x").await.expect("second");
        let third = put(gw, "one", "c", b"x").await;
        assert!(
            matches!(third, Err(GatewayError::QuotaExceeded)),
            "{third:?}"
        );
        // as radosgw: an overwrite counts as one more object too
        let again = put(gw, "one", "a", b"y").await;
        assert!(
            matches!(again, Err(GatewayError::QuotaExceeded)),
            "{again:?}"
        );
        // nothing of the refused writes stays
        assert_eq!(gw.bucket_usage("one").await.expect("usage").objects, 2);
        assert!(
            gw.check_bucket("one", false)
                .await
                .expect("check")
                .iter()
                .all(|c| c.stored == Some(c.counted))
        );
        gw.delete_object(&owner(), "one", "b")
            .await
            .expect("delete");
        put(gw, "one", "c", b"x").await.expect("room again");
        // the bucket's own quota disabled: the owner's bucket quota applies
        gw.update_quota(&bucket, |q| q.enabled = false)
            .await
            .expect("quota");
        put(gw, "one", "d", b"x").await.expect("no quota");
        let each = QuotaTarget::UserBuckets(OWNER.into());
        gw.update_quota(&each, limit(-1, 4)).await.expect("quota");
        put(gw, "two", "a", b"1234").await.expect("within 4 bytes");
        let over = put(gw, "two", "b", b"1").await;
        assert!(matches!(over, Err(GatewayError::QuotaExceeded)), "{over:?}");
        // the user's quota counts every bucket: 3 objects in one, 1 in two
        gw.update_quota(&each, |q| q.enabled = false)
            .await
            .expect("quota");
        let user = QuotaTarget::User(OWNER.into());
        gw.update_quota(&user, limit(5, -1)).await.expect("quota");
        put(gw, "two", "b", b"1").await.expect("fifth");
        let sixth = put(gw, "two", "c", b"1").await;
        assert!(
            matches!(sixth, Err(GatewayError::QuotaExceeded)),
            "{sixth:?}"
        );
        assert_eq!(gw.user_usage(OWNER).await.expect("usage").objects, 5);
        assert_eq!(gw.quota(&user).await.expect("quota").max_objects, 5);
        // a bad maximum is refused and not stored
        assert!(gw.update_quota(&user, limit(-2, -1)).await.is_err());
        assert_eq!(gw.quota(&user).await.expect("quota").max_objects, 5);
    }

    /// Parts are checked against the size quota; the completion against
    /// both.
    #[tokio::test]
    async fn multipart_uploads_meet_the_quota() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let gw = &f.gw;
        let bucket = QuotaTarget::Bucket("mpu".into());
        gw.update_quota(&bucket, limit(-1, 12))
            .await
            .expect("quota");
        let up = gw
            .create_multipart(&owner(), "mpu", "k", PutParams::default())
            .await
            .expect("upload");
        let rq = owner();
        let part = |n: u32, data: &'static [u8]| {
            gw.upload_part(
                &rq,
                "mpu",
                "k",
                &up,
                n,
                Some(data.len() as u64),
                None,
                None,
                body(data, 4),
            )
        };
        let p1 = part(1, b"12345").await.expect("part 1");
        let big = part(2, b"1234567890123").await;
        assert!(matches!(big, Err(GatewayError::QuotaExceeded)), "{big:?}");
        let p2 = part(2, b"1234567").await.expect("part 2");
        put(gw, "mpu", "other", b"1").await.expect("a byte");
        // 12 bytes in parts on top of the byte stored: one too many
        let done = gw
            .complete_multipart(
                &owner(),
                "mpu",
                "k",
                &up,
                &[(1, p1.etag.clone()), (2, p2.etag.clone())],
            )
            .await;
        assert!(matches!(done, Err(GatewayError::QuotaExceeded)), "{done:?}");
        gw.delete_object(&owner(), "mpu", "other")
            .await
            .expect("delete");
        gw.complete_multipart(&owner(), "mpu", "k", &up, &[(1, p1.etag), (2, p2.etag)])
            .await
            .expect("complete");
        assert_eq!(gw.bucket_usage("mpu").await.expect("usage").bytes, 12);
    }

    /// Sixteen writers in each of two processes fill a bucket with a quota
    /// of 20 objects: it ends with at most one object more (one per other
    /// process), and the refused writes left nothing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_writers_overshoot_by_one_object_per_other_process_at_most() {
        for _ in 0..5 {
            let (f, _) = Fixture::with_bucket(small_opts(), "full").await;
            f.gw.update_quota(&QuotaTarget::Bucket("full".into()), limit(20, -1))
                .await
                .expect("quota");
            let mut tasks = Vec::new();
            for (p, gw) in [f.gw.clone(), f.other_process()].into_iter().enumerate() {
                for w in 0..16 {
                    let gw = gw.clone();
                    tasks.push(tokio::spawn(async move {
                        let mut stored = 0;
                        for i in 0..4 {
                            match put(&gw, "full", &format!("p{p}w{w}i{i}"), b"data").await {
                                Ok(()) => stored += 1,
                                Err(GatewayError::QuotaExceeded) => {}
                                Err(e) => panic!("put: {e}"),
                            }
                        }
                        stored
                    }));
                }
            }
            let mut stored = 0;
            for t in tasks {
                stored += t.await.expect("writer");
            }
            let usage = f.gw.bucket_usage("full").await.expect("usage");
            assert_eq!(usage.objects, stored);
            assert!((20..=21).contains(&stored), "{stored} objects stored");
        }
    }
}
