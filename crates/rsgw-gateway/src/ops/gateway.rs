//! The gateway: the engine with the operations on it. Each family of
//! operations adds its methods in a module of its own (`ops::buckets`,
//! `ops::objects`, ...); this one holds the struct and what concerns the
//! whole of it.

use std::ops::Deref;
use std::sync::Arc;

use bytes::Bytes;
use rsgw_radosgw::cache::{CacheStats, RecordCache};
use rsgw_radosgw::zone::Zone;
use rsgw_store::adapters::ReadOnly;
use rsgw_store::{ReadOp, Store, StoreError, WriteOp};

use crate::cache::coherence::{MetadataWatch, watch_zone};
use crate::cache::objects::ObjectCacheStats;
use crate::engine::Engine;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::format::{FormatRecord, LAYOUT_FORMAT};
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
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

    /// A gateway serving radosgw's layout in `zone`: the zone, opened on
    /// `store`, is the only writer into radosgw's pools (objects put and
    /// removed as radosgw writes them, `rsgw_radosgw::writes`); the store
    /// under the gateway's own paths is wrapped so that it refuses every
    /// write, a guard for paths that would write rsgw's layout (the S3
    /// layer refuses the operations this layout does not serve first, see
    /// [`Gateway::serves_radosgw`]). Needs no [`Gateway::init`], nor the
    /// workers, which keep rsgw's own layout. radosgw's metadata records
    /// are cached as radosgw caches them, coherent while
    /// [`Gateway::watch_metadata`] watches the zone's control objects.
    pub fn serving_radosgw(store: Arc<dyn Store>, zone: Zone, opts: GatewayOptions) -> Self {
        let guarded: Arc<dyn Store> = Arc::new(ReadOnly(store));
        let cache = Arc::new(RecordCache::new(opts.metadata_cache_ttl));
        let mut engine = Engine::new(guarded, opts);
        engine.zone = Some(zone.with_cache(cache));
        Gateway { engine }
    }

    /// Whether this gateway serves radosgw's layout rather than rsgw's
    /// own.
    pub fn serves_radosgw(&self) -> bool {
        self.engine.zone.is_some()
    }

    /// The same gateway (options, caches) whose store calls, its own and
    /// its zone's, block their thread: the blocking pool mode's view.
    pub fn with_blocking_calls(&self) -> Self {
        Gateway {
            engine: self.engine.with_blocking_calls(),
        }
    }

    /// Creates the pools the layout uses (idempotent) and checks the
    /// store's layout format: a store without a format record gets this
    /// rsgw's; one of a newer format than this rsgw reads is refused
    /// ([`GatewayError::NewerFormat`]), before anything else is read or
    /// written. Answers the store's format.
    pub async fn init(&self) -> GatewayResult<u32> {
        for pool in layout::POOLS {
            self.store.create_pool(pool).await?;
        }
        let id = layout::format();
        for _ in 0..MAX_ROUNDS {
            match self.store.read(&id, ReadOp::new().read(0, 64 * 1024)).await {
                Ok(r) => {
                    let rec: FormatRecord = serde_json::from_slice(&r.data.unwrap_or_default())
                        .map_err(|e| {
                            GatewayError::Corrupt(format!("the layout format record: {e}"))
                        })?;
                    if rec.format > LAYOUT_FORMAT {
                        return Err(GatewayError::NewerFormat {
                            stored: rec.format,
                            written_by: rec.written_by,
                            known: LAYOUT_FORMAT,
                        });
                    }
                    return Ok(rec.format);
                }
                Err(StoreError::NotFound) => {
                    let rec = Bytes::from(serde_json::to_vec(&FormatRecord::ours())?);
                    let op = WriteOp::new().create_exclusive().write_full(rec);
                    match self.store.write(&id, op).await {
                        Ok(_) => return Ok(LAYOUT_FORMAT),
                        // another process recorded it first: read theirs
                        Err(StoreError::Exists) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
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
    /// return; on radosgw's layout, the zone's control objects, so that
    /// what radosgw announces drops the records it changed. Registers the
    /// watch before returning (an error if the store refuses), then keeps
    /// it up from a thread of its own.
    pub fn watch_metadata(&self) -> GatewayResult<MetadataWatch> {
        let timeout = self.opts.metadata_notify_timeout;
        match self.zone.as_ref().map(|z| (z, z.cache())) {
            Some((zone, Some(cache))) => watch_zone(zone, cache, timeout),
            _ => self.caches().watch(&self.store, timeout),
        }
    }

    /// Whether the metadata caches are kept coherent by a watch now (else
    /// their entries expire after `metadata_cache_ttl`).
    pub fn metadata_watched(&self) -> bool {
        match self.zone.as_ref().and_then(Zone::cache) {
            Some(cache) => cache.watched(),
            None => self.cache.watched(),
        }
    }

    /// The counters of radosgw's metadata records cached, on radosgw's
    /// layout; `None` on rsgw's own.
    pub fn radosgw_cache_stats(&self) -> Option<CacheStats> {
        self.zone.as_ref().and_then(Zone::cache).map(|c| c.stats())
    }

    /// The object cache's counters and size.
    pub fn object_cache_stats(&self) -> ObjectCacheStats {
        self.objects.stats()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, small_opts};

    #[tokio::test]
    async fn a_store_gets_this_format_once_and_keeps_it() {
        let f = Fixture::new(small_opts()).await;
        let id = layout::format();
        let first = f.data(&id).await;
        let rec: FormatRecord = serde_json::from_slice(&first).expect("format record");
        assert_eq!(rec, FormatRecord::ours());
        // another process opening the store reads it, writes nothing
        assert_eq!(f.other_process().init().await.expect("init"), LAYOUT_FORMAT);
        assert_eq!(f.data(&id).await, first);
    }

    #[tokio::test]
    async fn a_newer_format_is_refused_with_both_numbers() {
        let f = Fixture::new(small_opts()).await;
        let newer = FormatRecord {
            format: LAYOUT_FORMAT + 1,
            written_by: "rsgw 9.0.0".into(),
        };
        let op = WriteOp::new().write_full(serde_json::to_vec(&newer).expect("json"));
        f.gw.store
            .write(&layout::format(), op)
            .await
            .expect("write");
        let e = f.other_process().init().await.expect_err("a newer format");
        assert!(
            matches!(&e, GatewayError::NewerFormat { stored, known, .. }
                if *stored == LAYOUT_FORMAT + 1 && *known == LAYOUT_FORMAT),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.contains(&format!("layout format {}", LAYOUT_FORMAT + 1))
                && text.contains("rsgw 9.0.0")
                && text.contains("docs/layout.md#format"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_garbled_format_record_is_corrupt_not_a_format() {
        let f = Fixture::new(small_opts()).await;
        let op = WriteOp::new().write_full(&b"{\"format\": "[..]);
        f.gw.store
            .write(&layout::format(), op)
            .await
            .expect("write");
        let e = f.other_process().init().await.expect_err("garbled");
        assert!(matches!(e, GatewayError::Corrupt(_)), "{e:?}");
    }
}
