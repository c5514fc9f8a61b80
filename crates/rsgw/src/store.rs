//! Opening the configured store backend and the gateway on it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rsgw_config::{Backend, Config, CryptConfig, StoreConfig};
use rsgw_gateway::{CryptOptions, Gateway, GatewayOptions, Key, KmipOptions};
use rsgw_store::adapters::AddedLatency;
use rsgw_store::{Store, StoreResult};
use rsgw_store_local::{LocalOptions, LocalStore};

/// Opens the backend `[store]` names.
pub fn open(config: &Config) -> StoreResult<Arc<dyn Store>> {
    let cfg = &config.store;
    match cfg.backend {
        Backend::Local => {
            let mut opts = LocalOptions::new(&cfg.path);
            opts.pool_prefix.clone_from(&cfg.pool_prefix);
            opts.inline_max = cfg.inline_max;
            opts.max_object_size = cfg.max_object_size;
            opts.fsync = cfg.fsync;
            opts.min_free_bytes = cfg.min_free_bytes;
            opts.busy_timeout = Duration::from_millis(cfg.op_timeout_ms);
            Ok(Arc::new(LocalStore::open(opts)?))
        }
        Backend::Rados => open_rados(
            cfg,
            Duration::from_millis(config.s3.metadata_notify_timeout_ms),
        ),
    }
}

/// How `[store]` reaches the cluster.
#[cfg(feature = "rados")]
pub fn rados_options(cfg: &StoreConfig, watch_timeout: Duration) -> rsgw_store_rados::RadosOptions {
    let mut opts = rsgw_store_rados::RadosOptions::new(&cfg.ceph_conf);
    opts.client_name.clone_from(&cfg.client_name);
    opts.keyring = (!cfg.keyring.as_os_str().is_empty()).then(|| cfg.keyring.clone());
    opts.pool_prefix.clone_from(&cfg.pool_prefix);
    opts.max_object_size = cfg.max_object_size;
    opts.op_timeout = Duration::from_millis(cfg.op_timeout_ms);
    opts.watch_timeout = watch_timeout;
    opts
}

#[cfg(feature = "rados")]
fn open_rados(cfg: &StoreConfig, watch_timeout: Duration) -> StoreResult<Arc<dyn Store>> {
    let opts = rados_options(cfg, watch_timeout);
    Ok(Arc::new(rsgw_store_rados::RadosStore::connect(opts)?))
}

#[cfg(not(feature = "rados"))]
fn open_rados(_: &StoreConfig, _: Duration) -> StoreResult<Arc<dyn Store>> {
    Err(rsgw_store::StoreError::Unavailable(
        "this rsgw was built without the rados backend: install librados-dev and \
         rebuild with `cargo build --release --features rados`"
            .into(),
    ))
}

/// `[crypt]` as the gateway's options: its keys parsed (the config's
/// validation has checked them), the KMIP server's TLS client built from
/// its PEM files.
fn crypt_options(cfg: &CryptConfig) -> Result<CryptOptions, rsgw_config::ConfigError> {
    let kmip = if cfg.uses_kmip() {
        let tls = rsgw_gateway::kmip_tls(
            Path::new(&cfg.kmip_ca_path),
            Path::new(&cfg.kmip_client_cert),
            Path::new(&cfg.kmip_client_key),
        )
        .map_err(|message| rsgw_config::ConfigError::Value {
            key: "crypt.kmip_*",
            message,
        })?;
        Some(KmipOptions {
            addr: cfg.kmip_addr.clone(),
            tls: Arc::new(tls),
            key_template: cfg.kmip_kms_key_template.clone(),
            timeout: Duration::from_millis(cfg.kmip_timeout_ms),
            cache_ttl: Duration::from_secs(cfg.kmip_key_cache_s),
        })
    } else {
        None
    };
    Ok(CryptOptions {
        kmip,
        require_ssl: cfg.require_ssl,
        kms_keys: cfg
            .parsed_kms_keys()?
            .into_iter()
            .map(|(id, k)| (id, Key(k)))
            .collect(),
        kms_default_key: cfg.kms_default_key.clone(),
        sse_s3_key: cfg.parsed_sse_s3_key()?.map(Key),
    })
}

/// Opens the store and the gateway on it, creating the layout's pools.
/// `store.inject_latency_ms` applies here.
pub async fn open_gateway(
    cfg: &Config,
) -> Result<Gateway, Box<dyn std::error::Error + Send + Sync>> {
    let store = with_latency(cfg, open(cfg)?);
    let gw = Gateway::new(store, gateway_options(cfg)?);
    gw.init().await?;
    Ok(gw)
}

/// Opens the gateway on radosgw's layout (`store.layout = "radosgw"`):
/// the store takes the zone's pool names whole, the zone is found as
/// radosgw finds it, and nothing is created (the gateway reads only).
pub async fn open_radosgw_gateway(
    cfg: &Config,
) -> Result<Gateway, Box<dyn std::error::Error + Send + Sync>> {
    let mut whole_names = cfg.clone();
    whole_names.store.pool_prefix = String::new();
    let store = with_latency(cfg, open(&whole_names)?);
    let mut zone = rsgw_radosgw::zone::Zone::open(store.clone(), &cfg.store.zone).await?;
    if cfg.store.radosgw_gc_max_objs > 0 {
        zone = zone.with_gc(rsgw_radosgw::writes::GcSettings {
            max_objs: cfg.store.radosgw_gc_max_objs,
            min_wait_secs: cfg.store.radosgw_gc_obj_min_wait_s,
        });
    }
    let mut opts = gateway_options(cfg)?;
    // the usage log is rsgw's record, which this layout does not write
    opts.usage_log = false;
    Ok(Gateway::serving_radosgw(store, zone, opts))
}

/// `store` with `store.inject_latency_ms` added to every call.
fn with_latency(cfg: &Config, store: Arc<dyn Store>) -> Arc<dyn Store> {
    if cfg.store.inject_latency_ms == 0 {
        return store;
    }
    Arc::new(AddedLatency::new(
        store,
        Duration::from_millis(cfg.store.inject_latency_ms),
    ))
}

/// The gateway's options from `[s3]` and `[crypt]`.
fn gateway_options(
    cfg: &Config,
) -> Result<GatewayOptions, Box<dyn std::error::Error + Send + Sync>> {
    Ok(GatewayOptions {
        chunk_size: cfg.s3.chunk_size,
        stripe_size: cfg.s3.stripe_size,
        max_put_size: cfg.s3.max_put_size,
        min_part_size: cfg.s3.min_part_size,
        metadata_cache_ttl: Duration::from_millis(cfg.s3.metadata_cache_ttl_ms),
        metadata_notify_timeout: Duration::from_millis(cfg.s3.metadata_notify_timeout_ms),
        gc_min_age: Duration::from_secs(cfg.s3.gc_min_age_s),
        bucket_index_shards: cfg.s3.bucket_index_shards,
        multi_delete_concurrency: cfg.s3.multi_delete_concurrency as usize,
        max_bucket_record_bytes: cfg.s3.max_bucket_record_bytes as usize,
        object_cache_bytes: cfg.s3.object_cache_bytes,
        object_cache_max_object: cfg.s3.object_cache_max_object,
        lc_day_s: cfg.s3.lc_day_s,
        lc_max_ops_per_s: cfg.s3.lc_max_ops_per_s,
        lc_lease: Duration::from_secs(cfg.s3.lc_lease_s),
        crypt: crypt_options(&cfg.crypt)?,
        usage_log: cfg.s3.usage_log,
    })
}
