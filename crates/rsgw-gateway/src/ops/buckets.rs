//! Buckets: naming rules, creation, deletion, lookup and bucket ACLs.

use std::collections::BTreeMap;

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use rsgw_store::{ObjectId, ReadOp, StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::acl::CannedAcl;
use crate::authz::{Access, BucketPolicy, Requester, Target};
use crate::cache::Change;
use crate::cors::CorsRule;
use crate::ids::{now_secs, unique_id};
use crate::lifecycle::LifecycleRule;
use crate::quota::Quota;
use crate::website::WebsiteConfig;
use crate::{Gateway, GatewayError, GatewayResult, layout, usage};

/// A bucket's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BucketInfo {
    /// The bucket's name.
    pub name: String,
    /// Its marker: names the index object and prefixes its data objects, so a
    /// re-created bucket never sees an old one's leftovers.
    pub id: String,
    /// Owning user id.
    pub owner: String,
    /// Creation time, seconds since the epoch.
    pub created: f64,
    /// The bucket's canned ACL.
    pub acl: CannedAcl,
    /// Its index shards, fixed at creation (`s3.bucket_index_shards` then).
    /// A record written before shards existed has none: one shard, the
    /// index object named by the id alone.
    #[serde(default = "one_shard")]
    pub index_shards: u32,
    /// Its bucket policy, if one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<BucketPolicy>,
    /// Its CORS rules, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cors: Option<Vec<CorsRule>>,
    /// Its website configuration, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<WebsiteConfig>,
    /// Its tags (Put/GetBucketTagging).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Its own quota (applies instead of its owner's bucket quota when
    /// enabled).
    #[serde(default, skip_serializing_if = "Quota::is_default")]
    pub quota: Quota,
    /// Its lifecycle rules, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Vec<LifecycleRule>>,
}

fn one_shard() -> u32 {
    1
}

/// Index shard objects created, removed or read at once.
pub(crate) const SHARD_CONCURRENCY: usize = 32;

impl BucketInfo {
    /// Every index shard object of the bucket, in shard order.
    pub(crate) fn index_shards(&self) -> Vec<ObjectId> {
        layout::index_shards(&self.id, self.index_shards)
    }

    /// The index shard object that holds `key`.
    pub(crate) fn index_of(&self, key: &str) -> ObjectId {
        layout::index_of(&self.id, self.index_shards, key)
    }
}

/// S3's bucket naming rules: 3-63 characters of lowercase letters, digits,
/// '.' and '-', starting and ending with a letter or digit, no "..", ".-"
/// or "-." (a label may not begin or end with a dash), and not shaped like an
/// IPv4 address.
pub(crate) fn validate_bucket_name(name: &str) -> GatewayResult<()> {
    let bad = |why: &str| Err(GatewayError::InvalidBucketName(format!("'{name}': {why}")));
    if !(3..=63).contains(&name.len()) {
        return bad("must be 3 to 63 characters long");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-')
    {
        return bad("may hold only lowercase letters, digits, '.' and '-'");
    }
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    if !alnum(name.as_bytes()[0]) || !alnum(name.as_bytes()[name.len() - 1]) {
        return bad("must begin and end with a letter or digit");
    }
    if name.contains("..") {
        return bad("may not contain two adjacent periods");
    }
    if name.contains(".-") || name.contains("-.") {
        return bad("may not contain a dash next to a period");
    }
    if name.parse::<std::net::Ipv4Addr>().is_ok() {
        return bad("may not be formatted as an IP address");
    }
    Ok(())
}

impl Gateway {
    /// A bucket's record (cached; see the `cache` module).
    pub async fn bucket_info(&self, name: &str) -> GatewayResult<BucketInfo> {
        if let Some(info) = self.cache.bucket(name) {
            return Ok(info);
        }
        let ticket = self.cache.ticket();
        let r = match self
            .store
            .read(&layout::bucket(name), ReadOp::new().read(0, 1 << 16))
            .await
        {
            Err(StoreError::NotFound) => return Err(GatewayError::NoSuchBucket),
            Err(StoreError::InvalidArgument(_)) => return Err(GatewayError::NoSuchBucket),
            r => r?,
        };
        let info: BucketInfo = serde_json::from_slice(&r.data.unwrap_or_default())?;
        self.cache.put_bucket(ticket, &info);
        Ok(info)
    }

    /// A bucket's record read from the store, past the cache: what writes
    /// use, so that an object is never stored under a bucket that another
    /// process deleted (and perhaps re-created) while this one could not
    /// watch for changes.
    pub(crate) async fn bucket_info_fresh(&self, name: &str) -> GatewayResult<BucketInfo> {
        self.cache.invalidate(Some(&Change::Bucket(name.into())));
        self.bucket_info(name).await
    }

    /// After a miss under a possibly cached record: the bucket's current
    /// record if it has been deleted and re-created since (another id),
    /// `None` if it is the same bucket, `NoSuchBucket` if it is gone.
    pub(crate) async fn bucket_replaced(
        &self,
        info: &BucketInfo,
    ) -> GatewayResult<Option<BucketInfo>> {
        let now = self.bucket_info_fresh(&info.name).await?;
        Ok((now.id != info.id).then_some(now))
    }

    pub(crate) async fn save_bucket(&self, info: &BucketInfo) -> GatewayResult<()> {
        let data = Bytes::from(serde_json::to_vec(info)?);
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
        acl: CannedAcl,
    ) -> GatewayResult<BucketInfo> {
        validate_bucket_name(name)?;
        let info = BucketInfo {
            name: name.into(),
            id: unique_id(),
            owner: owner.into(),
            created: now_secs(),
            acl: acl.for_bucket(),
            index_shards: self.opts.bucket_index_shards.max(1),
            policy: None,
            cors: None,
            website: None,
            tags: Default::default(),
            quota: Quota::default(),
            lifecycle: None,
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
                    .set_xattr(usage::STATS_XATTR, usage::Counters::NEW.encode());
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
        self.authorize(rq, Access::DeleteBucket, &Target::bucket(&info))?;
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

    /// Names of the buckets a user owns, in name order.
    pub async fn user_buckets(&self, uid: &str) -> GatewayResult<Vec<String>> {
        self.omap_keys(&layout::user(uid)).await
    }

    /// Every omap key of `obj`, in order (none for an absent object).
    pub(crate) async fn omap_keys(&self, obj: &ObjectId) -> GatewayResult<Vec<String>> {
        let mut keys = Vec::new();
        let mut after = String::new();
        loop {
            let page = match self
                .store
                .read(obj, ReadOp::new().omap(after.clone(), "", 1000))
                .await
            {
                Err(StoreError::NotFound) => return Ok(keys),
                r => r?.omap.unwrap_or_default(),
            };
            keys.extend(page.entries.into_iter().map(|(k, _)| k));
            if !page.more {
                return Ok(keys);
            }
            after = keys.last().cloned().unwrap_or_default();
        }
    }

    /// Every bucket name, in name order.
    pub async fn all_buckets(&self) -> GatewayResult<Vec<String>> {
        let mut lister = self
            .store
            .list_objects(
                layout::META,
                rsgw_store::NamespaceFilter::Only("buckets".into()),
            )
            .await?;
        let mut names = Vec::new();
        loop {
            let page = lister.next_page(1000).await?;
            if page.is_empty() {
                names.sort();
                return Ok(names);
            }
            names.extend(page.into_iter().map(|e| e.name));
        }
    }

    /// The buckets a user owns (ListBuckets).
    pub async fn list_buckets(&self, uid: &str) -> GatewayResult<Vec<BucketInfo>> {
        let mut out = Vec::new();
        for name in self.user_buckets(uid).await? {
            match self.bucket_info(&name).await {
                Ok(info) if info.owner == uid => out.push(info),
                Ok(_) | Err(GatewayError::NoSuchBucket) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// The bucket, if `rq` may list it (HeadBucket).
    pub async fn head_bucket(&self, rq: &Requester, name: &str) -> GatewayResult<BucketInfo> {
        let info = self.bucket_info(name).await?;
        self.authorize(rq, Access::ListBucket, &Target::bucket(&info))?;
        Ok(info)
    }

    /// The bucket, for GetBucketLocation.
    pub async fn bucket_location(&self, rq: &Requester, name: &str) -> GatewayResult<BucketInfo> {
        let info = self.bucket_info(name).await?;
        self.authorize(rq, Access::GetBucketLocation, &Target::bucket(&info))?;
        Ok(info)
    }

    /// The bucket, for GetBucketAcl.
    pub async fn get_bucket_acl(&self, rq: &Requester, name: &str) -> GatewayResult<BucketInfo> {
        let info = self.bucket_info(name).await?;
        self.authorize(rq, Access::GetBucketAcl, &Target::bucket(&info))?;
        Ok(info)
    }

    /// Sets a bucket's canned ACL.
    pub async fn set_bucket_acl(
        &self,
        rq: &Requester,
        name: &str,
        acl: CannedAcl,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(name).await?;
        self.authorize(rq, Access::PutBucketAcl, &Target::bucket(&info))?;
        info.acl = acl.for_bucket();
        self.save_bucket(&info).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, OWNER, body, owner, small_opts};

    /// S3's bucket naming rules (the ones radosgw enforces too).
    #[test]
    fn bucket_names() {
        let ok = [
            "abc".to_string(),
            "a1b".into(),
            "123".into(),
            "my-bucket.2".into(),
            "a.b".into(),
            "a-b".into(),
            "a--b".into(),
            "0.0.0".into(),
            "1.2.3.4.5".into(),
            "192.168.1.1a".into(),
            "a".repeat(63),
        ];
        for name in &ok {
            assert!(validate_bucket_name(name).is_ok(), "{name}");
        }
        let bad = [
            // length
            "".to_string(),
            "a".into(),
            "ab".into(),
            "a".repeat(64),
            // characters
            "Abc".into(),
            "abC".into(),
            "a_b".into(),
            "a b".into(),
            "a/b".into(),
            "a:b".into(),
            "abé".into(),
            "ab\0".into(),
            // first and last characters
            "-ab".into(),
            "ab-".into(),
            ".ab".into(),
            "ab.".into(),
            // adjacent periods, a dash next to a period
            "a..b".into(),
            "a.-b".into(),
            "a-.b".into(),
            "ab.-.cd".into(),
            // IPv4 addresses
            "192.168.1.1".into(),
            "1.2.3.4".into(),
            "255.255.255.255".into(),
        ];
        for name in &bad {
            assert!(
                matches!(
                    validate_bucket_name(name),
                    Err(GatewayError::InvalidBucketName(..))
                ),
                "{name:?}"
            );
        }
    }

    /// Creating, re-creating and deleting buckets, as S3 answers them.
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
        let same = |b: &BucketInfo| (b.name.clone(), b.id.clone(), b.owner.clone(), b.acl);
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
