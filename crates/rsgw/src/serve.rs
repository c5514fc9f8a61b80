//! `rsgw serve`: the S3 gateway, one instance or several supervised ones.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use clap::Args;
use rsgw_config::{Config, Layout, PoolMode};
use rsgw_gateway::{Gateway, LcPass};

use crate::central::{self, Central};
use crate::instances;

/// `rsgw serve` flags.
#[derive(Args, Clone, Debug)]
pub struct ServeArgs {
    /// Configuration file (TOML; see docs/config.md and config/rsgw.toml).
    #[arg(long, short, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Take radosgw's settings (rgw_frontends, rgw_thread_pool_size,
    /// rgw_max_concurrent_requests, rgw_dns_name, ...) from this ceph.conf,
    /// and use its cluster through the rados backend. Needs --name. Applied
    /// over --config.
    #[arg(long, value_name = "FILE", requires = "name")]
    pub ceph_conf: Option<PathBuf>,
    /// The radosgw instance whose section --ceph-conf reads (client.rgw.X);
    /// also the cephx client rsgw connects as.
    #[arg(long, value_name = "NAME", requires = "ceph_conf")]
    pub name: Option<String>,
    /// Set a config key over the file (and over RSGW_SECTION_KEY
    /// environment variables): `--set pool.thread_pool_size=64`,
    /// `--set pool.mode=blocking`. Values in TOML syntax; bare words are
    /// strings. Repeatable.
    #[arg(long = "set", value_name = "SECTION.KEY=VALUE", value_parser = rsgw_config::Override::parse_arg)]
    pub set: Vec<rsgw_config::Override>,
    /// Run N instances as processes supervised by this one: each pinned to
    /// its own slice of cpu.cpuset (or of every CPU, or to
    /// cpu.instance_cpusets), on port+i of each endpoint and of the admin
    /// endpoint, or all on the same ports with frontend.reuse_port = true.
    /// Dead instances restart with backoff; SIGTERM stops them all.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub instances: usize,
    /// Internal: which instance (0..N) this process is.
    #[arg(long, hide = true, requires = "instances")]
    pub instance: Option<usize>,
}

/// Loads the configuration `args` describe, over `base` (the monitors'
/// central config: under the file, the environment, `--set` and
/// `--ceph-conf`).
pub fn load_config(
    args: &ServeArgs,
    base: &[rsgw_config::Override],
) -> Result<Config, Box<dyn std::error::Error>> {
    let mut overrides = rsgw_config::Override::from_env(std::env::vars());
    overrides.extend(args.set.iter().cloned());
    let mut cfg = Config::load_layered(base, args.config.as_deref(), &overrides)?;
    if let (Some(conf), Some(name)) = (&args.ceph_conf, &args.name) {
        let import = rsgw_config::import_radosgw(&mut cfg, conf, name)?;
        for (k, v) in &import.taken {
            tracing::info!(option = %k, value = %v, "taken from {}", conf.display());
        }
        if !import.ignored.is_empty() {
            tracing::warn!(
                ignored = ?import.ignored,
                "radosgw settings in {} [{name}] that rsgw has no equivalent for",
                conf.display()
            );
        }
    }
    Ok(cfg)
}

/// Runs `rsgw serve`.
pub fn run(args: ServeArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.instances == 0 {
        return Err("--instances must be at least 1".into());
    }
    let cfg = load_config(&args, &[])?;
    if args.instances > 1 && args.instance.is_none() {
        // each instance reads the monitors' central config itself
        return instances::supervise(&args, &cfg);
    }
    let reload_args = args.clone();
    let reload: central::Reload =
        Box::new(move |base| load_config(&reload_args, base).map_err(|e| e.to_string()));
    let central = Central::start(&cfg, reload)?;
    let mut cfg = central.as_ref().map_or(cfg, |c| c.config().clone());
    if let (true, Some(i)) = (args.instances > 1, args.instance) {
        instances::apply(&mut cfg, i, args.instances)?;
    }
    serve(cfg, central)
}

/// Runs one instance on `cfg` until SIGTERM, following the monitors'
/// `central` config if there is one.
fn serve(cfg: Config, central: Option<Central>) -> Result<(), Box<dyn std::error::Error>> {
    let cfg = Arc::new(cfg);
    let c = cfg.clone();
    // the metadata watch lives while the instance serves and is removed
    // once it has drained, so that changes made later need not wait for it
    let watch = Arc::new(Mutex::new(None));
    let slot = watch.clone();
    rsgw_frontend::run(&cfg, move |mode, controls| async move {
        let radosgw = c.store.layout == Layout::Radosgw;
        let gw = if radosgw {
            crate::store::open_radosgw_gateway(&c).await?
        } else {
            crate::store::open_gateway(&c).await?
        };
        tracing::info!(backend = gw.store().backend(), layout = ?c.store.layout, "store open");
        if let (Some(central), 1..) = (central, c.store.central_config_poll_ms) {
            let every = Duration::from_millis(c.store.central_config_poll_ms);
            tokio::spawn(central.watch(gw.store().clone(), controls, every));
        }
        if c.store.service_map {
            match gw.store().announce("rgw", &service_metadata(&c)) {
                Ok(Some(daemon)) => {
                    tracing::info!(%daemon, "registered in the service map as rgw.{daemon}");
                }
                Ok(None) => {}
                Err(error) => tracing::warn!(%error, "not registered in the service map"),
            }
        }
        // on radosgw's layout the zone's control objects are watched for
        // radosgw's announcements; nothing of rsgw's own is collected or
        // written: radosgw keeps its records, and runs its own workers
        *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(gw.watch_metadata()?);
        if !radosgw {
            // the rate limits are read now, under the watch, so that no
            // request waits for that store read (they stay cached until a
            // change)
            if let Err(error) = gw.ratelimits().await {
                tracing::warn!(%error, "rate limits unreadable at start; read by the first request");
            }
            tokio::spawn(gc_loop(gw.clone(), Duration::from_secs(c.s3.gc_interval_s)));
            tokio::spawn(lc_loop(gw.clone(), Duration::from_secs(c.s3.lc_interval_s)));
        }
        if c.s3.usage_log && !radosgw {
            let every = Duration::from_secs(c.s3.usage_log_flush_s);
            tokio::spawn(usage_loop(gw.clone(), every));
        }
        let handler_gw = match mode {
            PoolMode::Async => gw,
            PoolMode::Blocking => gw.with_blocking_calls(),
        };
        Ok(rsgw_s3::service(
            handler_gw,
            (&c.s3.dns_names, &c.s3.website_dns_names),
            &c.s3.zonegroup,
            &c.s3.admin_entry,
            c.frontend.max_header_size,
            c.s3.post_form_fields_max as usize,
        )?)
    })?;
    drop(watch.lock().unwrap_or_else(PoisonError::into_inner).take());
    Ok(())
}

/// What `rsgw serve` tells the cluster's service map about itself, under
/// radosgw's keys where it has them (`id`, `frontend_type#0`,
/// `frontend_config#0`, `zonegroup_name`); librados adds the host's.
fn service_metadata(cfg: &Config) -> Vec<(String, String)> {
    let client = &cfg.store.client_name;
    let f = &cfg.frontend;
    let mut frontend = format!("rsgw endpoint={}", f.endpoints.join(","));
    if !f.ssl_endpoints.is_empty() {
        frontend.push_str(&format!(" ssl_endpoint={}", f.ssl_endpoints.join(",")));
    }
    [
        ("id", client.strip_prefix("client.").unwrap_or(client)),
        ("frontend_type#0", "rsgw"),
        ("frontend_config#0", &frontend),
        ("rsgw_version", env!("CARGO_PKG_VERSION")),
        ("zonegroup_name", &cfg.s3.zonegroup),
        ("pool_prefix", &cfg.store.pool_prefix),
        ("cpuset", &cfg.cpu.cpuset),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Runs a lifecycle pass every `every`, when no other instance runs one.
async fn lc_loop(gw: Gateway, every: Duration) {
    let holder = crate::admin::worker_name("serve");
    let mut tick = tokio::time::interval(every);
    tick.tick().await;
    loop {
        tick.tick().await;
        match gw.lifecycle_pass(&holder).await {
            Ok(LcPass::Ran(r))
                if r.expired
                    + r.noncurrent_expired
                    + r.markers_expired
                    + r.uploads_aborted
                    + r.errors
                    > 0
                    || !r.complete =>
            {
                tracing::info!(?r, "lifecycle pass");
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "lifecycle pass failed"),
        }
    }
}

/// Writes the usage log's counts every `every` (the last ones are written
/// when the instance has drained: `Handler::drained`).
async fn usage_loop(gw: Gateway, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.tick().await;
    loop {
        tick.tick().await;
        if let Err(e) = gw.flush_usage().await {
            tracing::warn!(error = %e, "usage log not written; kept for the next try");
        }
    }
}

async fn gc_loop(gw: Gateway, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.tick().await;
    loop {
        tick.tick().await;
        match gw.collect_garbage(gw.options().gc_min_age).await {
            Ok(r) if r.collected > 0 => tracing::info!(?r, "garbage collected"),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "garbage collection failed"),
        }
    }
}
