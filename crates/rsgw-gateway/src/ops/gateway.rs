//! The gateway: the engine with the operations on it. Each family of
//! operations adds its methods in a module of its own (`ops::buckets`,
//! `ops::objects`, ...); this one holds the struct and what concerns the
//! whole of it.

use std::ops::Deref;
use std::sync::Arc;

use rsgw_store::Store;

use crate::cache::coherence::MetadataWatch;
use crate::cache::objects::ObjectCacheStats;
use crate::engine::Engine;
use crate::model::error::GatewayResult;
use crate::model::layout;
use crate::model::options::GatewayOptions;

/// The gateway: S3 semantics over a store. Cheap to clone.
#[derive(Clone)]
pub struct Gateway {
    pub(crate) engine: Engine,
}

/// The operations use the engine's store, options, caches and steps as
/// their own (`self.store`, `self.bucket_info_fresh(...)`): every field and
/// method of the engine is crate-private.
impl Deref for Gateway {
    type Target = Engine;

    #[inline]
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl Gateway {
    /// A gateway on `store`; call [`Gateway::init`] before serving.
    pub fn new(store: Arc<dyn Store>, opts: GatewayOptions) -> Self {
        Gateway {
            engine: Engine::new(store, opts),
        }
    }

    /// The same gateway (options, caches) reaching the store through
    /// `store`: the blocking pool mode's view, whose store calls block.
    pub fn with_store(&self, store: Arc<dyn Store>) -> Self {
        Gateway {
            engine: self.engine.with_store(store),
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

    /// Watches the control object, so that changes made by other instances
    /// and `rsgw admin` reach this instance's caches before their calls
    /// return. Registers the watch before returning (an error if the store
    /// refuses), then keeps it up from a thread of its own.
    pub fn watch_metadata(&self) -> GatewayResult<MetadataWatch> {
        self.caches()
            .watch(&self.store, self.opts.metadata_notify_timeout)
    }

    /// Whether the metadata caches are kept coherent by a watch now (else
    /// their entries expire after `metadata_cache_ttl`).
    pub fn metadata_watched(&self) -> bool {
        self.cache.watched()
    }

    /// The object cache's counters and size.
    pub fn object_cache_stats(&self) -> ObjectCacheStats {
        self.objects.stats()
    }
}
