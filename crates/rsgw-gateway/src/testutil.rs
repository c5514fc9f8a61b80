//! What the unit tests share: a gateway on the embedded backend in a
//! temporary directory (no server), bodies, store probes, and a few
//! records.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use rsgw_store::{NamespaceFilter, ObjectId, ReadOp, StoreError};
use rsgw_store_local::{LocalOptions, LocalStore};

use crate::model::acl::CannedAcl;
use crate::model::bucket::BucketInfo;
use crate::model::crypt::{CryptOptions, KEY_LEN, Key};
use crate::model::layout;
use crate::model::website::WebsiteConfig;
use crate::{BodyStream, Gateway, GatewayOptions, GatewayResult, Requester};

/// The user that owns the fixture's bucket.
pub(crate) const OWNER: &str = "alice";

/// A gateway on a fresh embedded store; the directory lives as long as it.
pub(crate) struct Fixture {
    pub(crate) gw: Gateway,
    _dir: tempfile::TempDir,
}

/// Small sizes, so that a few bytes already make heads, tails and stripes:
/// 8-byte heads, 4-byte stripes, 5-byte minimum parts; buckets get the
/// default 11 index shards; objects of up to 8 bytes may be cached.
pub(crate) fn small_opts() -> GatewayOptions {
    GatewayOptions {
        chunk_size: 8,
        stripe_size: 4,
        max_put_size: 1 << 20,
        min_part_size: 5,
        metadata_cache_ttl: Duration::from_secs(5),
        metadata_notify_timeout: Duration::from_secs(5),
        gc_min_age: Duration::from_secs(3600),
        bucket_index_shards: 11,
        multi_delete_concurrency: 4,
        max_bucket_record_bytes: 4 << 20,
        object_cache_bytes: 1 << 20,
        object_cache_max_object: 8,
        lc_day_s: 1,
        lc_max_ops_per_s: 0,
        lc_lease: Duration::from_secs(60),
        crypt: crypt_opts(),
        usage_log: false,
    }
}

/// The keys of the tests' gateways: an SSE-S3 master key, and the SSE-KMS
/// keys `k1` (the default) and `k2`; plain HTTP allowed.
pub(crate) fn crypt_opts() -> CryptOptions {
    CryptOptions {
        require_ssl: false,
        kms_keys: [("k1", 1u8), ("k2", 2)]
            .into_iter()
            .map(|(id, b)| (id.to_string(), Key([b; KEY_LEN])))
            .collect(),
        kms_default_key: "k1".into(),
        kmip: None,
        sse_s3_key: Some(Key([3; KEY_LEN])),
    }
}

impl Fixture {
    /// A gateway with `opts` on an empty store, its pools created.
    pub(crate) async fn new(opts: GatewayOptions) -> Fixture {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = LocalStore::open(LocalOptions::new(dir.path())).expect("embedded store");
        let gw = Gateway::new(Arc::new(store), opts);
        gw.init().await.expect("pools");
        Fixture { gw, _dir: dir }
    }

    /// As [`Fixture::new`], with bucket `bucket` owned by [`OWNER`]; returns
    /// the bucket's id too.
    pub(crate) async fn with_bucket(opts: GatewayOptions, bucket: &str) -> (Fixture, String) {
        let f = Fixture::new(opts).await;
        let info =
            f.gw.create_bucket(OWNER, bucket, crate::CannedAcl::Private)
                .await
                .expect("create bucket");
        (f, info.id)
    }

    /// A second gateway on the same directory through a store of its own,
    /// as another process would open it: it shares nothing in memory.
    pub(crate) fn other_process(&self) -> Gateway {
        let store = LocalStore::open(LocalOptions::new(self._dir.path())).expect("embedded store");
        Gateway::new(Arc::new(store), small_opts())
    }

    /// Whether the object exists on the store.
    pub(crate) async fn exists(&self, id: &ObjectId) -> bool {
        match self.gw.store.read(id, ReadOp::new().stat()).await {
            Ok(_) => true,
            Err(StoreError::NotFound) => false,
            Err(e) => panic!("stat {id:?}: {e}"),
        }
    }

    /// The data of an object on the store, whole.
    pub(crate) async fn data(&self, id: &ObjectId) -> Bytes {
        self.gw
            .read_whole(id, ReadOp::new())
            .await
            .unwrap_or_else(|e| panic!("read {id:?}: {e}"))
            .data
            .unwrap_or_default()
    }

    /// Names of every object in the data pool, sorted.
    pub(crate) async fn data_objects(&self) -> Vec<String> {
        self.pool_objects(layout::DATA).await
    }

    /// Names of every object in `pool`, sorted.
    pub(crate) async fn pool_objects(&self, pool: &str) -> Vec<String> {
        let mut lister = self
            .gw
            .store
            .list_objects(pool, NamespaceFilter::All)
            .await
            .expect("list pool");
        let mut names = Vec::new();
        loop {
            let page = lister.next_page(1000).await.expect("list page");
            if page.is_empty() {
                names.sort();
                return names;
            }
            names.extend(page.into_iter().map(|e| e.name));
        }
    }

    /// The tags the GC log holds, in order.
    pub(crate) async fn gc_tags(&self) -> Vec<String> {
        match self
            .gw
            .store
            .read(&layout::gc_log(), ReadOp::new().omap("", "", 1000))
            .await
        {
            Ok(r) => r
                .omap
                .unwrap_or_default()
                .entries
                .into_iter()
                .map(|(k, _)| k)
                .collect(),
            Err(StoreError::NotFound) => Vec::new(),
            Err(e) => panic!("read GC log: {e}"),
        }
    }
}

/// The owner as a principal.
pub(crate) fn owner() -> Requester {
    Requester::user(OWNER)
}

/// `data` as a body arriving in pieces of `piece` bytes.
pub(crate) fn body(data: &[u8], piece: usize) -> BodyStream {
    let pieces: Vec<GatewayResult<Bytes>> = data
        .chunks(piece.max(1))
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    Box::pin(futures::stream::iter(pieces))
}

/// The first 1000 entries of a bucket's listing, as the owner lists it.
pub(crate) async fn listed(gw: &Gateway, bucket: &str) -> Vec<crate::ListEntry> {
    let p = crate::ListParams {
        max_keys: 1000,
        ..Default::default()
    };
    gw.list_objects(&owner(), bucket, &p)
        .await
        .expect("list")
        .entries
}

/// Everything a body yields.
pub(crate) async fn collect(mut body: BodyStream) -> GatewayResult<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(piece) = body.next().await {
        out.extend_from_slice(&piece?);
    }
    Ok(out)
}

/// `n` bytes that differ from one position to the next (a misplaced slice
/// shows).
pub(crate) fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| b'a' + (i % 26) as u8).collect()
}

/// Tags (or any pairs) as S3 requests carry them, in order.
pub(crate) fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
        .collect()
}

/// A website configuration serving `index.html` and, on errors,
/// `404.html`.
pub(crate) fn website() -> WebsiteConfig {
    WebsiteConfig {
        index_suffix: Some("index.html".into()),
        error_key: Some("404.html".into()),
        ..Default::default()
    }
}

/// The record of a bucket of one shard, private, nothing else set.
pub(crate) fn bucket_record(name: &str, id: &str, owner: &str) -> BucketInfo {
    BucketInfo {
        name: name.into(),
        id: id.into(),
        owner: owner.into(),
        created: 0.0,
        acl: CannedAcl::Private.into(),
        index_shards: 1,
        policy: None,
        cors: None,
        website: None,
        tags: Default::default(),
        quota: Default::default(),
        lifecycle: None,
        encryption: None,
        versioning: None,
        object_lock: None,
    }
}
