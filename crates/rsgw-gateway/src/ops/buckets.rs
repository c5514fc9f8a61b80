//! Buckets: creation, deletion, lookup, listing and bucket ACLs. The
//! record is `model::bucket`'s, read through the cache by
//! `engine::records`; the naming rules are `rules::names`'.

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use rsgw_store::{ReadOp, StoreError, WriteOp};

use crate::cache::meta::Change;
use crate::model::acl::Acl;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::{now_secs, unique_id};
use crate::model::index::Counters;
use crate::model::layout;
use crate::model::limits::{POOL_LIST_PAGE, SHARD_CONCURRENCY};
use crate::model::lock::ObjectLock;
use crate::model::params::{BucketHead, BucketsListed, BucketsPage};
use crate::model::versioning::Versioning;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};
use crate::rules::names::validate_bucket_name;

/// What a change does to the length of a bucket's record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordChange {
    /// It sets something (a configuration, tags, an ACL, a quota): held to
    /// `max_bucket_record_bytes`.
    Grows,
    /// It only removes something: always written, so that a record longer
    /// than the limit (one written before the limit existed) can be made
    /// smaller again.
    Shrinks,
}

impl Gateway {
    /// A bucket's record (cached; see `cache::meta`).
    pub async fn bucket_info(&self, name: &str) -> GatewayResult<BucketInfo> {
        if let Some(zone) = self.zone() {
            return Self::zone_bucket_info(zone, name).await;
        }
        self.engine.bucket_info(name).await
    }

    /// Names of the buckets a user owns, in name order.
    pub async fn user_buckets(&self, uid: &str) -> GatewayResult<Vec<String>> {
        if let Some(zone) = self.zone() {
            return Self::zone_user_buckets(zone, uid).await;
        }
        self.engine.user_buckets(uid).await
    }

    /// Writes a bucket's changed record and announces the change to every
    /// instance. A change that can grow the record is refused when the
    /// record would pass `max_bucket_record_bytes`, the stored one kept.
    pub(crate) async fn save_bucket(
        &self,
        info: &BucketInfo,
        change: RecordChange,
    ) -> GatewayResult<()> {
        let data = Bytes::from(serde_json::to_vec(info)?);
        let max = self.opts.max_bucket_record_bytes;
        if change == RecordChange::Grows && data.len() > max {
            return Err(GatewayError::BucketRecordTooLarge {
                size: data.len(),
                max,
            });
        }
        self.store
            .write(
                &layout::bucket(&info.name),
                WriteOp::new().assert_exists().write_full(data),
            )
            .await?;
        self.announce(Change::Bucket(info.name.clone())).await
    }

    /// Creates a bucket owned by `owner`; if `owner` has it already, answers
    /// the existing one, unchanged.
    pub async fn create_bucket(
        &self,
        owner: &str,
        name: &str,
        acl: impl Into<Acl>,
    ) -> GatewayResult<BucketInfo> {
        self.create_bucket_as(owner, name, acl.into(), false).await
    }

    /// [`Gateway::create_bucket`] of a bucket with object lock
    /// (`x-amz-bucket-object-lock-enabled`), which is versioned from the
    /// start, as S3 makes it.
    pub async fn create_locked_bucket(
        &self,
        owner: &str,
        name: &str,
        acl: impl Into<Acl>,
    ) -> GatewayResult<BucketInfo> {
        self.create_bucket_as(owner, name, acl.into(), true).await
    }

    async fn create_bucket_as(
        &self,
        owner: &str,
        name: &str,
        acl: Acl,
        locked: bool,
    ) -> GatewayResult<BucketInfo> {
        validate_bucket_name(name)?;
        let acl = self.resolve_acl(acl).await?;
        self.check_max_buckets(owner).await?;
        let info = BucketInfo {
            versioning: locked.then_some(Versioning::Enabled),
            object_lock: locked.then(ObjectLock::default),
            ..BucketInfo::plain(
                name,
                unique_id(),
                owner.into(),
                now_secs(),
                acl.for_bucket(),
                self.opts.bucket_index_shards.max(1),
            )
        };
        self.create_index(&info).await?;
        let data = Bytes::from(serde_json::to_vec(&info)?);
        let created = self
            .store
            .write(
                &layout::bucket(name),
                WriteOp::new().create_exclusive().write_full(data),
            )
            .await;
        if let Err(e) = created {
            self.remove_index(&info).await?;
            return match e {
                StoreError::Exists => {
                    match self.bucket_info_fresh(name).await {
                        // radosgw and AWS us-east-1 answer success to the
                        // owner; the bucket (its objects, its ACL) is kept
                        Ok(existing) if existing.owner == owner => Ok(existing),
                        _ => Err(GatewayError::BucketAlreadyExists),
                    }
                }
                e => Err(e.into()),
            };
        }
        self.store
            .write(
                &layout::user(owner),
                WriteOp::new().omap_set([(name, Bytes::new())]),
            )
            .await?;
        Ok(info)
    }

    /// Creates every index shard of a new bucket (exclusively: the id is
    /// new); if one fails, removes those made.
    async fn create_index(&self, info: &BucketInfo) -> GatewayResult<()> {
        let created = futures::stream::iter(info.index_shards())
            .map(|id| async move {
                let op = WriteOp::new()
                    .create_exclusive()
                    .set_xattr(layout::STATS_XATTR, Counters::NEW.encode());
                self.store.write(&id, op).await
            })
            .buffer_unordered(SHARD_CONCURRENCY)
            .try_collect::<Vec<_>>()
            .await;
        if let Err(e) = created {
            self.remove_index(info).await?;
            return Err(e.into());
        }
        Ok(())
    }

    /// Removes every index shard of a bucket (absent ones are fine).
    async fn remove_index(&self, info: &BucketInfo) -> GatewayResult<()> {
        futures::stream::iter(info.index_shards())
            .map(|id| async move {
                match self.store.write(&id, WriteOp::new().remove()).await {
                    Ok(_) | Err(StoreError::NotFound) => Ok(()),
                    Err(e) => Err(GatewayError::from(e)),
                }
            })
            .buffer_unordered(SHARD_CONCURRENCY)
            .try_collect::<Vec<()>>()
            .await?;
        Ok(())
    }

    /// Whether no index shard of the bucket lists an object (one omap
    /// entry asked of each shard, all at once).
    async fn index_is_empty(&self, info: &BucketInfo) -> GatewayResult<bool> {
        let nonempty = futures::stream::iter(info.index_shards())
            .map(|id| async move {
                let page = self.store.read(&id, ReadOp::new().omap("", "", 1)).await?;
                Ok::<bool, GatewayError>(!page.omap.unwrap_or_default().entries.is_empty())
            })
            .buffer_unordered(SHARD_CONCURRENCY)
            .try_collect::<Vec<bool>>()
            .await?;
        Ok(!nonempty.contains(&true))
    }

    /// Deletes an empty bucket.
    pub async fn delete_bucket(&self, rq: &Requester, name: &str) -> GatewayResult<()> {
        let info = self.bucket_info(name).await?;
        authorize(rq, Access::DeleteBucket, &Target::bucket(&info))?;
        if !self.index_is_empty(&info).await? {
            return Err(GatewayError::BucketNotEmpty);
        }
        match self
            .store
            .write(&layout::bucket(name), WriteOp::new().remove())
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => {}
            Err(e) => return Err(e.into()),
        }
        self.announce(Change::Bucket(name.into())).await?;
        self.store
            .write(&layout::user(&info.owner), WriteOp::new().omap_rm([name]))
            .await?;
        self.remove_index(&info).await
    }

    /// Every bucket name, in name order.
    pub async fn all_buckets(&self) -> GatewayResult<Vec<String>> {
        self.meta_names("buckets").await
    }

    /// The names of every record in one namespace of the metadata pool
    /// (`buckets`, `users`), in name order.
    pub(crate) async fn meta_names(&self, namespace: &str) -> GatewayResult<Vec<String>> {
        let mut lister = self
            .store
            .list_objects(
                layout::META,
                rsgw_store::NamespaceFilter::Only(namespace.into()),
            )
            .await?;
        let mut names = Vec::new();
        loop {
            let page = lister.next_page(POOL_LIST_PAGE).await?;
            if page.is_empty() {
                names.sort();
                return Ok(names);
            }
            names.extend(page.into_iter().map(|e| e.name));
        }
    }

    /// The buckets a user owns (ListBuckets): those of `page`, in name
    /// order.
    pub async fn list_buckets(
        &self,
        uid: &str,
        page: &BucketsPage,
    ) -> GatewayResult<BucketsListed> {
        if let Some(zone) = self.zone() {
            return Self::zone_list_buckets(zone, uid, page).await;
        }
        let mut out = BucketsListed::default();
        let names = self.user_buckets(uid).await?;
        let names = names
            .iter()
            .filter(|n| n.starts_with(&page.prefix) && n.as_str() > page.after.as_str());
        for name in names {
            if page.max.is_some_and(|max| out.buckets.len() >= max) {
                out.next_after = out.buckets.last().map(|b| b.name.clone());
                break;
            }
            match self.bucket_info(name).await {
                Ok(info) if info.owner == uid => out.buckets.push(info),
                Ok(_) | Err(GatewayError::NoSuchBucket) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// The bucket and what it holds, if `rq` may list it (HeadBucket);
    /// its owner's quotas too when `rq` is the owner, as radosgw tells
    /// them only to the owner.
    pub async fn head_bucket(&self, rq: &Requester, name: &str) -> GatewayResult<BucketHead> {
        let info = self.bucket_info(name).await?;
        authorize(rq, Access::ListBucket, &Target::bucket(&info))?;
        if let Some(zone) = self.zone() {
            // radosgw's quotas are radosgw's to apply
            return Ok(BucketHead {
                info,
                usage: Self::zone_bucket_usage(zone, name).await?,
                quotas: None,
            });
        }
        let usage = self.bucket_usage_of(&info).await?;
        let quotas = if rq.is(&info.owner) {
            let q = self.engine.owner_quotas(&info.owner).await?;
            Some((q.user, q.bucket))
        } else {
            None
        };
        Ok(BucketHead {
            info,
            usage,
            quotas,
        })
    }

    /// The bucket, for GetBucketLocation.
    pub async fn bucket_location(&self, rq: &Requester, name: &str) -> GatewayResult<BucketInfo> {
        let info = self.bucket_info(name).await?;
        authorize(rq, Access::GetBucketLocation, &Target::bucket(&info))?;
        Ok(info)
    }

    /// The bucket, for GetBucketAcl.
    pub async fn get_bucket_acl(&self, rq: &Requester, name: &str) -> GatewayResult<BucketInfo> {
        let info = self.bucket_info(name).await?;
        authorize(rq, Access::GetBucketAcl, &Target::bucket(&info))?;
        Ok(info)
    }

    /// Sets a bucket's ACL, its grantees resolved
    /// ([`Gateway::resolve_acl`]). `named_owner` is the owner an ACL
    /// document names: another than the bucket's is `AccessDenied`, as
    /// radosgw answers.
    pub async fn set_bucket_acl(
        &self,
        rq: &Requester,
        name: &str,
        acl: impl Into<Acl>,
        named_owner: Option<&str>,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_set_bucket_acl(zone, rq, name, acl.into(), named_owner)
                .await;
        }
        let mut info = self.bucket_info_fresh(name).await?;
        authorize(rq, Access::PutBucketAcl, &Target::bucket(&info))?;
        if named_owner.is_some_and(|o| o != info.owner) {
            return Err(GatewayError::AccessDenied);
        }
        // resolved once the request may set the ACL: who may not learns
        // nothing of which users exist
        info.acl = self.resolve_acl(acl.into()).await?.for_bucket();
        self.save_bucket(&info, RecordChange::Grows).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::acl::CannedAcl;
    use crate::model::cors::CorsRule;
    use crate::model::lifecycle::LifecycleRule;
    use crate::testutil::{Fixture, OWNER, body, owner, small_opts};

    /// `n` lifecycle rules with ids of `id_len` and prefixes of
    /// `prefix_len` characters.
    fn lifecycle(n: usize, id_len: usize, prefix_len: usize) -> Vec<LifecycleRule> {
        (0..n)
            .map(|i| LifecycleRule {
                id: format!("{i:04}{}", "i".repeat(id_len - 4)),
                enabled: true,
                prefix: format!("{i:04}{}", "p".repeat(prefix_len - 4)),
                expiration_days: Some(1),
                ..LifecycleRule::default()
            })
            .collect()
    }

    /// One CORS rule whose origins take about `bytes` bytes.
    fn cors(bytes: usize) -> Vec<CorsRule> {
        vec![CorsRule {
            allowed_origins: (0..bytes / 40)
                .map(|i| format!("https://{i:08}.example.com/{}", "o".repeat(8)))
                .collect(),
            allowed_methods: vec!["GET".into()],
            ..Default::default()
        }]
    }

    /// Every request on the bucket still works (its record reads).
    async fn usable(gw: &Gateway, bucket: &str) {
        gw.put_object(&owner(), bucket, "k", Default::default(), body(b"x", 1))
            .await
            .expect("put");
        assert!(matches!(
            gw.get_bucket_policy(&owner(), bucket).await,
            Err(GatewayError::NoSuchBucketPolicy)
        ));
        gw.delete_object(&owner(), bucket, "k")
            .await
            .expect("delete object");
    }

    /// The reproduction: 1,000 lifecycle rules (S3's limit) with
    /// 205-character ids and 200-character prefixes, a record of about
    /// 460 KiB. It was read with a 64 KiB cap, and the bucket answered 500
    /// to every request after; now it is read whole.
    #[tokio::test]
    async fn a_record_past_64_kib_is_read_whole() {
        let (f, _) = Fixture::with_bucket(small_opts(), "big").await;
        let rules = lifecycle(1000, 205, 200);
        f.gw.put_bucket_lifecycle(&owner(), "big", rules.clone())
            .await
            .expect("1000 rules");
        let len = f.data(&layout::bucket("big")).await.len();
        assert!(len > 400 << 10, "record of {len} bytes");
        let other = f.other_process();
        assert_eq!(
            other
                .get_bucket_lifecycle(&owner(), "big")
                .await
                .expect("read back"),
            rules
        );
        usable(&other, "big").await;
        other
            .delete_bucket_lifecycle(&owner(), "big")
            .await
            .expect("delete lifecycle");
        other.delete_bucket(&owner(), "big").await.expect("delete");
    }

    /// A change that would take the record past its limit is refused and
    /// the record kept as it was; removing something always goes through.
    #[tokio::test]
    async fn a_change_past_the_limit_is_refused_and_nothing_lost() {
        let max = small_opts().max_bucket_record_bytes;
        let (f, _) = Fixture::with_bucket(small_opts(), "full").await;
        let rules = lifecycle(1000, 255, 1024);
        f.gw.put_bucket_lifecycle(&owner(), "full", rules.clone())
            .await
            .expect("the largest lifecycle");
        let before = f.data(&layout::bucket("full")).await;
        let room = max - before.len();
        let refused =
            f.gw.put_bucket_cors(&owner(), "full", cors(room + 100))
                .await;
        assert!(
            matches!(refused, Err(GatewayError::BucketRecordTooLarge { size, .. }) if size > max),
            "{refused:?}"
        );
        assert_eq!(f.data(&layout::bucket("full")).await, before);
        assert!(matches!(
            f.gw.get_bucket_cors(&owner(), "full").await,
            Err(GatewayError::NoSuchCorsConfiguration)
        ));
        f.gw.put_bucket_cors(&owner(), "full", cors(room - 4096))
            .await
            .expect("what fits");
        assert_eq!(
            f.gw.get_bucket_lifecycle(&owner(), "full")
                .await
                .expect("kept"),
            rules
        );
        usable(&f.gw, "full").await;
    }

    /// A record longer than the limit, as a release without it could
    /// write, is read, made smaller and deleted; only changes that could
    /// grow it are refused until then.
    #[tokio::test]
    async fn a_record_over_the_limit_is_read_repaired_and_deleted() {
        let max = small_opts().max_bucket_record_bytes;
        let (f, _) = Fixture::with_bucket(small_opts(), "old").await;
        let mut info = f.gw.bucket_info_fresh("old").await.expect("record");
        info.cors = Some(cors(max + (1 << 20)));
        info.lifecycle = Some(lifecycle(1000, 255, 1024));
        let data = Bytes::from(serde_json::to_vec(&info).expect("encode"));
        f.gw.store()
            .write(&layout::bucket("old"), WriteOp::new().write_full(data))
            .await
            .expect("write as an old release would");
        let gw = f.other_process();
        assert_eq!(gw.bucket_info("old").await.expect("read whole"), info);
        usable(&gw, "old").await;
        let tags = [("k".to_string(), "v".to_string())];
        assert!(matches!(
            gw.put_bucket_tagging(&owner(), "old", tags.to_vec()).await,
            Err(GatewayError::BucketRecordTooLarge { .. })
        ));
        // still over the limit without its lifecycle, and written
        gw.delete_bucket_lifecycle(&owner(), "old")
            .await
            .expect("made smaller");
        let len = f.data(&layout::bucket("old")).await.len();
        assert!(len > max, "{len} bytes left");
        gw.delete_bucket_cors(&owner(), "old")
            .await
            .expect("repaired");
        gw.put_bucket_tagging(&owner(), "old", tags.to_vec())
            .await
            .expect("tags once it is small");
        gw.delete_bucket(&owner(), "old").await.expect("deleted");
    }

    #[tokio::test]
    async fn bucket_lifecycle() {
        let f = Fixture::new(small_opts()).await;
        let first =
            f.gw.create_bucket(OWNER, "life", CannedAcl::Private)
                .await
                .expect("create");
        assert_eq!(first.owner, OWNER);
        assert_eq!(first.name, "life");
        // re-creating one's own bucket answers it, unchanged
        let again =
            f.gw.create_bucket(OWNER, "life", CannedAcl::PublicRead)
                .await
                .expect("re-create");
        // (created went through JSON, equal only to the microsecond)
        let same = |b: &BucketInfo| (b.name.clone(), b.id.clone(), b.owner.clone(), b.acl.clone());
        assert_eq!(same(&again), same(&first));
        assert!(matches!(
            f.gw.create_bucket("bob", "life", CannedAcl::Private).await,
            Err(GatewayError::BucketAlreadyExists)
        ));
        assert!(matches!(
            f.gw.create_bucket(OWNER, "Life", CannedAcl::Private).await,
            Err(GatewayError::InvalidBucketName(..))
        ));
        assert_eq!(f.gw.user_buckets(OWNER).await.expect("buckets"), ["life"]);
        assert!(f.gw.user_buckets("bob").await.expect("buckets").is_empty());

        f.gw.put_object(&owner(), "life", "k", Default::default(), body(b"x", 1))
            .await
            .expect("put");
        let bob = Requester::user("bob");
        type Check = fn(&GatewayResult<()>) -> bool;
        let cases: &[(&str, &Requester, Check)] = &[
            ("another user", &bob, |r| {
                matches!(r, Err(GatewayError::AccessDenied))
            }),
            ("anonymous", &Requester::anonymous(), |r| {
                matches!(r, Err(GatewayError::AccessDenied))
            }),
            ("owner, not empty", &owner(), |r| {
                matches!(r, Err(GatewayError::BucketNotEmpty))
            }),
        ];
        for (what, who, want) in cases {
            let r = f.gw.delete_bucket(who, "life").await;
            assert!(want(&r), "{what}: {:?}", r.err());
        }
        f.gw.delete_object(&owner(), "life", "k")
            .await
            .expect("delete object");
        f.gw.delete_bucket(&owner(), "life").await.expect("delete");
        assert!(matches!(
            f.gw.bucket_info("life").await,
            Err(GatewayError::NoSuchBucket)
        ));
        assert!(matches!(
            f.gw.delete_bucket(&owner(), "life").await,
            Err(GatewayError::NoSuchBucket)
        ));
        assert!(f.gw.user_buckets(OWNER).await.expect("buckets").is_empty());

        // a bucket made again under the same name is a new one: another
        // id, no object of the old one
        let again =
            f.gw.create_bucket("bob", "life", CannedAcl::Private)
                .await
                .expect("create again");
        assert_ne!(again.id, first.id);
        assert!(matches!(
            f.gw.get_object(&bob, "life", "k", Default::default()).await,
            Err(GatewayError::NoSuchKey)
        ));
    }

    /// A bucket's index shards are made with it (the count the gateway
    /// was configured with then), hold each key in the shard its hash
    /// names, and go with it; a failed creation leaves none behind.
    #[tokio::test]
    async fn index_shards_live_and_die_with_their_bucket() {
        let f = Fixture::new(small_opts()).await;
        let info =
            f.gw.create_bucket(OWNER, "sharded", CannedAcl::Private)
                .await
                .expect("create");
        assert_eq!(info.index_shards, 11);
        let mut want: Vec<String> = (0..11).map(|n| format!("{}.{n}", info.id)).collect();
        want.sort();
        assert_eq!(f.pool_objects(layout::INDEX).await, want);
        // the record keeps the count: a gateway configured otherwise
        // still finds every key
        let one = Gateway::new(
            f.gw.store().clone(),
            crate::GatewayOptions {
                bucket_index_shards: 1,
                ..small_opts()
            },
        );
        assert_eq!(
            one.bucket_info("sharded").await.expect("info").index_shards,
            11
        );
        // a failed creation (the name is taken) removes the shards it made
        assert!(matches!(
            one.create_bucket("bob", "sharded", CannedAcl::Private)
                .await,
            Err(GatewayError::BucketAlreadyExists)
        ));
        assert!(matches!(
            f.gw.create_bucket("bob", "sharded", CannedAcl::Private)
                .await,
            Err(GatewayError::BucketAlreadyExists)
        ));
        assert_eq!(f.pool_objects(layout::INDEX).await, want);

        let keys = ["a", "b/c", "photo.jpg", "z"];
        for k in keys {
            one.put_object(&owner(), "sharded", k, Default::default(), body(b"xyz", 2))
                .await
                .expect("put");
        }
        for k in keys {
            let shard = info.index_of(k);
            assert_eq!(
                shard.name,
                format!("{}.{}", info.id, layout::shard_of(k, 11)),
                "{k}"
            );
            let got =
                f.gw.store()
                    .read(&shard, ReadOp::new().omap_keys([k]))
                    .await
                    .expect("shard")
                    .omap_keys
                    .unwrap_or_default();
            assert!(got.contains_key(k), "{k} in {}", shard.name);
        }
        assert_eq!(
            f.gw.bucket_usage("sharded")
                .await
                .map(|u| (u.objects, u.bytes))
                .expect("usage"),
            (4, 12)
        );
        // one key in one shard keeps the bucket
        for k in &keys[1..] {
            f.gw.delete_object(&owner(), "sharded", k)
                .await
                .expect("delete");
        }
        assert!(matches!(
            f.gw.delete_bucket(&owner(), "sharded").await,
            Err(GatewayError::BucketNotEmpty)
        ));
        f.gw.delete_object(&owner(), "sharded", "a")
            .await
            .expect("delete");
        f.gw.delete_bucket(&owner(), "sharded")
            .await
            .expect("delete bucket");
        assert!(f.pool_objects(layout::INDEX).await.is_empty());

        // one shard: the index object named by the id alone, as before
        let info = one
            .create_bucket(OWNER, "single", CannedAcl::Private)
            .await
            .expect("create");
        assert_eq!(info.index_shards, 1);
        assert_eq!(
            f.pool_objects(layout::INDEX).await,
            std::slice::from_ref(&info.id)
        );
        one.delete_bucket(&owner(), "single").await.expect("delete");
        assert!(f.pool_objects(layout::INDEX).await.is_empty());
    }
}
