//! rsgw's S3 semantics on the [`Store`]: users and their keys, buckets,
//! objects striped over RADOS objects, listings, canned ACLs and the garbage
//! collector that removes what interrupted or replaced writes leave behind;
//! bucket policies, CORS rules, website configurations, and the one authorization decision of each request
//! (`authz`).
//!
//! Nothing here knows HTTP or S3's wire format; `rsgw-s3` maps S3 requests
//! onto [`Gateway`]. The layout on the store is described in `docs/layout.md`.

#![forbid(unsafe_code)]

mod cache;
mod engine;
mod model;
mod ops;
mod rules;
#[cfg(test)]
mod testutil;
mod workers;

use cache::coherence;
use cache::limiter as ratelimit;
use cache::objects as object_cache;
use engine::{index_commit, usage, write};
use model::{error, ids, layout};
use ops::{buckets, list, multipart, objects, quota, tagging, users, website};
use rules::{acl, authz, cors, lifecycle};
use workers::{gc, lc};

use std::sync::Arc;
use std::time::Duration;

use rsgw_store::Store;

pub use acl::{CannedAcl, Principal};
pub use authz::{Action, BucketPolicy, MAX_POLICY_BYTES, Requester};
pub use buckets::BucketInfo;
pub use coherence::MetadataWatch;
pub use cors::{CorsRule, MAX_CORS_RULES, matching_rule};
pub use error::{GatewayError, GatewayResult};
pub use gc::GcReport;
pub use lc::{LcPass, LcReport, LcStatus};
pub use lifecycle::{FilterForm, LifecycleRule, MAX_LIFECYCLE_RULES, MAX_RULE_ID, check_lifecycle};
pub use list::{ListEntry, ListParams, ListResult};
pub use multipart::{CompleteChecks, MAX_PART_NUMBER, PartInfo, UploadInfo, UploadList};
pub use object_cache::ObjectCacheStats;
pub use objects::{
    BodyCheck, BodyStream, CachedObject, CopyMetadata, GetParams, GetResult, ObjectAcl, ObjectMeta,
    PutParams, PutResult, RangeSpec, Tail,
};
pub use quota::{Quota, QuotaTarget};
pub use ratelimit::{Kind, Limit, LimitTarget, Limiter, RateLimits, Refusal, Scope};
pub use tagging::{MAX_BUCKET_TAGS, MAX_OBJECT_TAGS, MAX_TAG_KEY, MAX_TAG_VALUE, check_tags};
pub use usage::{ShardCheck, Usage};
pub use users::{AccessKey, User};
pub use website::{
    MAX_ROUTING_RULES, Redirect, RedirectAll, RoutingRule, WebsiteConfig, WebsiteRedirect,
    WebsiteReply,
};

/// Sizes and limits of the gateway layer.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// Bytes kept in an object's head RADOS object (`rgw_max_chunk_size`).
    pub chunk_size: u64,
    /// Size of each further RADOS object of a large object (`rgw_obj_stripe_size`).
    pub stripe_size: u64,
    /// Largest single PUT (`rgw_max_put_size`).
    pub max_put_size: u64,
    /// Smallest part of a multipart upload, but the last
    /// (`rgw_multipart_min_part_size`).
    pub min_part_size: u64,
    /// How long bucket and key lookups stay cached while the instance does
    /// not watch for changes ([`Gateway::watch_metadata`] not called, or its
    /// watch broken); watched entries live until a change invalidates them.
    pub metadata_cache_ttl: Duration,
    /// How long an announced metadata change waits for every watching
    /// instance to acknowledge it; see the `coherence` module.
    pub metadata_notify_timeout: Duration,
    /// How old an unfinished write's leftovers must be before the garbage
    /// collector removes them.
    pub gc_min_age: Duration,
    /// Index shards of a bucket created from now on (at least 1).
    pub bucket_index_shards: u32,
    /// Keys of one [`Gateway::delete_objects`] call deleted at once (at least 1).
    pub multi_delete_concurrency: usize,
    /// Bytes of small objects kept in memory (0: no object cache); see the
    /// `object_cache` module.
    pub object_cache_bytes: u64,
    /// Largest object the object cache holds (at most `chunk_size`: the
    /// cache holds objects whose data lies in their head).
    pub object_cache_max_object: u64,
    /// Seconds in a lifecycle "day" (86400; fewer only to watch rules act
    /// in tests, as radosgw's `rgw_lc_debug_interval`).
    pub lc_day_s: u64,
    /// Deletions and aborts a lifecycle pass makes per second at most (0:
    /// no limit).
    pub lc_max_ops_per_s: u32,
    /// How long a lifecycle pass's lease lasts unless renewed (a pass that
    /// died holds it this long).
    pub lc_lease: Duration,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            chunk_size: 4 << 20,
            stripe_size: 4 << 20,
            max_put_size: 5 << 30,
            min_part_size: 5 << 20,
            metadata_cache_ttl: Duration::from_secs(1),
            metadata_notify_timeout: Duration::from_secs(5),
            gc_min_age: Duration::from_secs(3600),
            bucket_index_shards: 11,
            multi_delete_concurrency: 16,
            object_cache_bytes: 64 << 20,
            object_cache_max_object: 256 << 10,
            lc_day_s: 86_400,
            lc_max_ops_per_s: 100,
            lc_lease: Duration::from_secs(60),
        }
    }
}

/// The gateway: S3 semantics over a store. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    store: Arc<dyn Store>,
    opts: Arc<GatewayOptions>,
    cache: Arc<cache::MetaCache>,
    objects: Arc<object_cache::ObjectCache>,
    limiter: Arc<ratelimit::Limiter>,
    /// This process's index updates waiting for their shard's batch.
    index_queues: Arc<index_commit::IndexQueues>,
    /// Turns of this process's writes under one quota.
    quota_turns: Arc<quota::Turns>,
}

impl Gateway {
    /// Whether the metadata caches are kept coherent by a watch now (else
    /// their entries expire after `metadata_cache_ttl`).
    pub fn metadata_watched(&self) -> bool {
        self.cache.watched()
    }

    /// The object cache's counters and size.
    pub fn object_cache_stats(&self) -> ObjectCacheStats {
        self.objects.stats()
    }

    pub(crate) fn caches(&self) -> coherence::Caches {
        coherence::Caches {
            meta: self.cache.clone(),
            objects: self.objects.clone(),
        }
    }

    /// A gateway on `store`; call [`Gateway::init`] before serving.
    pub fn new(store: Arc<dyn Store>, opts: GatewayOptions) -> Self {
        let ttl = opts.metadata_cache_ttl;
        let objects = object_cache::ObjectCache::new(
            opts.object_cache_bytes,
            opts.object_cache_max_object.min(opts.chunk_size),
        );
        Gateway {
            store,
            opts: Arc::new(opts),
            cache: Arc::new(cache::MetaCache::new(ttl)),
            objects: Arc::new(objects),
            limiter: Arc::default(),
            index_queues: Arc::default(),
            quota_turns: Arc::default(),
        }
    }

    /// The same gateway (options, caches) reaching the store through
    /// `store`: the blocking pool mode's view, whose store calls block.
    pub fn with_store(&self, store: Arc<dyn Store>) -> Self {
        Gateway {
            store,
            opts: self.opts.clone(),
            cache: self.cache.clone(),
            objects: self.objects.clone(),
            limiter: self.limiter.clone(),
            index_queues: self.index_queues.clone(),
            quota_turns: self.quota_turns.clone(),
        }
    }

    /// Creates the pools the layout uses (idempotent).
    pub async fn init(&self) -> GatewayResult<()> {
        for pool in layout::POOLS {
            self.store.create_pool(pool).await?;
        }
        Ok(())
    }

    /// The store underneath.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The gateway's options.
    pub fn options(&self) -> &GatewayOptions {
        &self.opts
    }
}
