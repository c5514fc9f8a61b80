//! User and bucket quotas, as radosgw's: `max_objects` and `max_size`,
//! each -1 for no limit, enforced only when enabled.
//!
//! Where they are kept (radosgw's places): a user's record holds the
//! user's quota (over all their buckets) and the quota every bucket of
//! theirs gets by default; a bucket's record holds the bucket's own,
//! which applies instead when enabled. Changes are announced to every
//! instance (the user's quotas are cached like bucket records). How
//! writes meet them: `engine::quota`.

use crate::cache::meta::Change;
use crate::model::error::GatewayResult;
use crate::model::quota::{Quota, QuotaTarget};
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;

impl Gateway {
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
        let validate = |q: &Quota| q.check().map(|()| *q);
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
                self.save_bucket(&info, RecordChange::Grows).await?;
                Ok(q)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::error::GatewayError;
    use crate::model::params::PutParams;
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
            .expect("upload")
            .upload_id;
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
