//! The engine: how data and records reach the store and become visible.
//! The streaming write (`write`), the one commit protocol every write that
//! makes data visible follows (`commit`), heads read and written under
//! their guards (`heads`), the bucket index's batched commits and usage
//! counters (`index_commit`, `usage`), quota passes (`quota`), the GC log
//! (`gc_log`), records read through the caches (`records`) and the one
//! walk over an omap (`omap`); in a versioned bucket, versions placed,
//! listed and promoted (`versions`); encryption keys, from the config or a
//! KMIP server (`crypt`, `kmip`). It knows the store, the options and the
//! caches ([`Engine`]), not the operations nor the gateway.

pub(crate) mod commit;
pub(crate) mod crypt;
pub(crate) mod gc_log;
pub(crate) mod heads;
pub(crate) mod index_commit;
pub(crate) mod kmip;
pub(crate) mod omap;
pub(crate) mod quota;
pub(crate) mod records;
pub(crate) mod usage;
pub(crate) mod versions;
pub(crate) mod write;

use std::sync::Arc;

use rsgw_radosgw::zone::Zone;
use rsgw_store::Store;
use rsgw_store::adapters::BlockingCalls;

use crate::cache::coherence::Caches;
use crate::cache::limiter::Limiter;
use crate::cache::meta::{Change, MetaCache};
use crate::cache::objects::ObjectCache;
use crate::cache::usage::UsagePending;
use crate::model::error::GatewayResult;
use crate::model::options::GatewayOptions;

/// What the engine works with: the store, the options and this instance's
/// caches and queues. Cheap to clone (shared parts only). Crate-private in
/// all but name: the gateway derefs to it, so that its operations reach
/// these as their own.
#[derive(Clone)]
pub struct Engine {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) opts: Arc<GatewayOptions>,
    pub(crate) cache: Arc<MetaCache>,
    pub(crate) objects: Arc<ObjectCache>,
    pub(crate) limiter: Arc<Limiter>,
    /// This process's index updates waiting for their shard's batch.
    pub(crate) index_queues: Arc<index_commit::IndexQueues>,
    /// Turns of this process's writes under one quota.
    pub(crate) quota_turns: Arc<quota::Turns>,
    /// This process's usage-log counts not yet written.
    pub(crate) usage: Arc<UsagePending>,
    /// SSE-KMS keys from a KMIP server (`crypt.kms_backend = "kmip"`).
    pub(crate) kmip: Option<Arc<kmip::KmipKeys>>,
    /// The radosgw zone served instead of rsgw's own layout, read-only
    /// (`ops::radosgw`); `None` serves rsgw's layout.
    pub(crate) zone: Option<Zone>,
}

impl Engine {
    /// An engine on `store`, its caches empty.
    pub(crate) fn new(store: Arc<dyn Store>, opts: GatewayOptions) -> Self {
        let ttl = opts.metadata_cache_ttl;
        let objects = ObjectCache::new(
            opts.object_cache_bytes,
            opts.object_cache_max_object.min(opts.chunk_size),
        );
        let kmip = opts
            .crypt
            .kmip
            .clone()
            .map(|k| Arc::new(kmip::KmipKeys::new(k)));
        Engine {
            store,
            kmip,
            zone: None,
            opts: Arc::new(opts),
            cache: Arc::new(MetaCache::new(ttl)),
            objects: Arc::new(objects),
            limiter: Arc::default(),
            index_queues: Arc::default(),
            quota_turns: Arc::default(),
            usage: Arc::new(UsagePending::new(crate::model::ids::unique_id())),
        }
    }

    /// The same engine (options, caches, queues) whose store calls, its
    /// own and its zone's, block their thread ([`BlockingCalls`]).
    pub(crate) fn with_blocking_calls(&self) -> Self {
        Engine {
            zone: self
                .zone
                .as_ref()
                .map(|z| z.with_store(Arc::new(BlockingCalls(z.store().clone())))),
            store: Arc::new(BlockingCalls(self.store.clone())),
            ..self.clone()
        }
    }

    /// The caches a watch keeps coherent.
    pub(crate) fn caches(&self) -> Caches {
        Caches {
            meta: self.cache.clone(),
            objects: self.objects.clone(),
        }
    }

    /// Applies `change` to this instance's caches and announces it to
    /// every watching instance, returning once they acknowledged (see
    /// `cache::coherence`).
    pub(crate) async fn announce(&self, change: Change) -> GatewayResult<()> {
        self.caches()
            .announce(&*self.store, self.opts.metadata_notify_timeout, change)
            .await
    }
}
