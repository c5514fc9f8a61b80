//! One gateway instance from start to exit: CPU pinning, limits, the
//! runtime sized by `pool.mode`, listeners, admin listener, and the drain on
//! SIGTERM.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hyper_util::server::graceful::GracefulShutdown;
use rsgw_config::{Admission as AdmissionMode, Config, CpuSet, PoolMode};
use tokio::sync::{Semaphore, watch};

use crate::admin::{AdminState, BusySeconds, HandlerMetrics};
use crate::admission::{Admission, LimitChange, Policy};
use crate::client::TrustedProxies;
use crate::handler::{BoxError, Handler};
use crate::listener::{ConnSettings, accept_loop, bind};
use crate::metrics::Metrics;
use crate::ops_log::OpsLog;
use crate::pool::{BlockingPool, Pool};
use crate::service::FrontendService;
use crate::tls::Tls;
use crate::{FrontendError, cpu, limits};

/// Threads an instance runs besides its pool: the main thread and the
/// admin listener's.
pub const FIXED_THREADS: usize = 2;

/// How many threads of each kind an instance runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadPlan {
    /// Handler threads: tokio workers (async) or blocking handler threads.
    pub handlers: usize,
    /// blocking mode: network threads (accept, HTTP, writes); 0 in async mode,
    /// where the handler threads do that too.
    pub io: usize,
    /// Most helper threads for store calls without an async form (tokio's
    /// blocking pool), started on demand.
    pub store_helpers: usize,
}

impl ThreadPlan {
    /// The plan for `cfg` on an instance allowed `cpus` CPUs.
    pub fn new(cfg: &Config, cpus: usize) -> Self {
        let p = &cfg.pool;
        match p.mode {
            PoolMode::Async => ThreadPlan {
                handlers: p.thread_pool_size,
                io: 0,
                store_helpers: p.store_threads,
            },
            PoolMode::Blocking => ThreadPlan {
                handlers: p.thread_pool_size,
                io: if p.io_threads > 0 {
                    p.io_threads
                } else {
                    cpus.max(1)
                },
                store_helpers: p.store_threads,
            },
        }
    }

    /// Most threads the instance runs (librados' own not counted).
    pub fn max_threads(&self) -> usize {
        self.handlers + self.io + self.store_helpers + FIXED_THREADS
    }
}

/// What may change while an instance serves: given to the handler's
/// builder, so that settings from outside the configuration file (the
/// monitors' central config) reach the layers that take them live. Cheap
/// to clone.
#[derive(Clone)]
pub struct Controls {
    admission: Arc<Admission>,
}

impl Controls {
    /// Sets `max_concurrent_requests` ([`Admission::set_limit`]).
    pub fn set_max_concurrent_requests(&self, limit: usize) -> Result<(), LimitChange> {
        self.admission.set_limit(limit)
    }
}

/// Runs one instance until SIGTERM or SIGINT, then drains and returns.
///
/// `make` builds the handler inside the runtime (it may spawn background
/// tasks there); it is told the pool mode, since blocking mode needs a
/// handler whose store calls block, and given the instance's [`Controls`].
pub fn run<H, F, Fut>(cfg: &Config, make: F) -> Result<(), FrontendError>
where
    H: Handler,
    F: FnOnce(PoolMode, Controls) -> Fut,
    Fut: Future<Output = Result<H, BoxError>>,
{
    // pin before any thread exists, so every later one inherits it
    let cpuset = CpuSet::parse(&cfg.cpu.cpuset).map_err(FrontendError::Cpu)?;
    let cpus = if cpuset.is_empty() {
        cpu::allowed().map_err(|e| FrontendError::Cpu(e.to_string()))?
    } else {
        cpu::pin_process(&cpuset)?;
        cpuset
    };
    limits::raise_nofile_limit(cfg.frontend.max_connections);
    let plan = ThreadPlan::new(cfg, cpus.len());
    let mode = cfg.pool.mode;
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    rt.enable_all()
        .max_blocking_threads(plan.store_helpers.max(1));
    match mode {
        PoolMode::Async => rt.worker_threads(plan.handlers).thread_name("rsgw-worker"),
        PoolMode::Blocking => rt.worker_threads(plan.io).thread_name("rsgw-io"),
    };
    let rt = rt
        .build()
        .map_err(|e| FrontendError::io("cannot start the runtime", e))?;
    tracing::info!(
        mode = ?mode,
        handler_threads = plan.handlers,
        io_threads = plan.io,
        store_helper_threads = plan.store_helpers,
        cpus = %cpus,
        pinned = !cfg.cpu.cpuset.is_empty(),
        "rsgw starting"
    );
    let result = rt.block_on(serve(cfg, plan, make));
    rt.shutdown_timeout(Duration::from_secs(1));
    result
}

async fn serve<H, F, Fut>(cfg: &Config, plan: ThreadPlan, make: F) -> Result<(), FrontendError>
where
    H: Handler,
    F: FnOnce(PoolMode, Controls) -> Fut,
    Fut: Future<Output = Result<H, BoxError>>,
{
    let fe = &cfg.frontend;
    let policy = match cfg.pool.admission {
        AdmissionMode::Reject => Policy::Reject,
        AdmissionMode::Queue => Policy::Queue {
            max_waiting: cfg.pool.queue_size,
            timeout: Duration::from_millis(cfg.pool.queue_timeout_ms),
        },
    };
    let admission = Arc::new(Admission::new(cfg.pool.max_concurrent_requests, policy));
    let controls = Controls {
        admission: admission.clone(),
    };
    let handler = make(cfg.pool.mode, controls)
        .await
        .map_err(FrontendError::Handler)?;
    let metrics = Arc::new(Metrics::new::<H::Operation>());
    let (pool, busy): (Pool<H>, BusySeconds) = match cfg.pool.mode {
        PoolMode::Async => {
            let rt = tokio::runtime::Handle::current().metrics();
            let busy = Arc::new(move || {
                (0..rt.num_workers())
                    .map(|w| rt.worker_total_busy_duration(w).as_secs_f64())
                    .sum()
            });
            (Pool::Async, busy)
        }
        PoolMode::Blocking => {
            let p = BlockingPool::start(plan.handlers, handler.clone(), metrics.clone())
                .map_err(|e| FrontendError::io("cannot start the handler threads", e))?;
            let m = metrics.clone();
            (
                Pool::Blocking(p),
                Arc::new(move || m.pool_busy_nanos.get() as f64 / 1e9),
            )
        }
    };
    let blocking = match &pool {
        Pool::Blocking(p) => Some(p.clone()),
        Pool::Async => None,
    };
    let body_timeout =
        (fe.request_timeout_ms > 0).then(|| Duration::from_millis(fe.request_timeout_ms));
    let trusted = TrustedProxies::parse(&fe.trusted_proxies)
        .map_err(|e| FrontendError::Config(format!("frontend.trusted_proxies: {e}")))?;
    let proxy_protocol = fe.proxy_protocol.then(|| Arc::new(trusted.clone()));
    let ops_log = OpsLog::start(&cfg.ops_log, metrics.clone())?.map(Arc::new);
    if ops_log.is_some() {
        tracing::info!(path = %cfg.ops_log.path, "ops log: one line per request");
    }
    let last_words = handler.clone();
    let handler_metrics: HandlerMetrics = {
        let h = handler.clone();
        Arc::new(move |out: &mut String| h.write_metrics(out))
    };
    let service = FrontendService::new(
        handler,
        body_timeout,
        admission.clone(),
        pool,
        metrics.clone(),
        trusted,
        ops_log.clone(),
    );

    // watched before anything listens, so that a SIGTERM sent as soon as
    // a port answers (an orchestrator's stop right after a start) drains
    // the instance instead of killing it; and only after the store opened,
    // so that a start stuck on the store still stops at once
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| FrontendError::io("cannot watch SIGTERM", e))?;
    let admin = Arc::new(AdminState {
        metrics: metrics.clone(),
        mode: match cfg.pool.mode {
            PoolMode::Async => "async",
            PoolMode::Blocking => "blocking",
        },
        threads: plan.handlers,
        busy_seconds: busy,
        admission,
        handler_metrics,
        draining: Default::default(),
    });
    if !fe.admin_endpoint.is_empty() {
        let addr: SocketAddr = fe
            .admin_endpoint
            .parse()
            .map_err(|_| FrontendError::Address(fe.admin_endpoint.clone()))?;
        let bound = crate::admin::start(addr, admin.clone())
            .map_err(|e| FrontendError::io(format!("cannot listen on admin endpoint {addr}"), e))?;
        tracing::info!(endpoint = %bound, "admin listener (/metrics, /health)");
    }

    let graceful = Arc::new(GracefulShutdown::new());
    let (stop_tx, stop_rx) = watch::channel(false);
    let settings = ConnSettings {
        request_timeout: (fe.request_timeout_ms > 0)
            .then(|| Duration::from_millis(fe.request_timeout_ms)),
        tcp_nodelay: fe.tcp_nodelay,
        max_connections: (fe.max_connections > 0)
            .then(|| Arc::new(Semaphore::new(fe.max_connections))),
        read_buffer: crate::listener::read_buffer_limit(fe.max_header_size),
        proxy_protocol,
    };
    let tls = if fe.ssl_endpoints.is_empty() {
        None
    } else {
        let tls = Arc::new(Tls::load(&fe.ssl_certificate, &fe.ssl_private_key)?);
        tokio::spawn(reload_on_sighup(tls.clone(), metrics.clone()));
        Some(tls)
    };
    let mut loops = Vec::new();
    let plain = fe.endpoints.iter().map(|ep| (ep, None));
    let secure = fe.ssl_endpoints.iter().map(|ep| (ep, tls.clone()));
    for (ep, tls) in plain.chain(secure) {
        let addr: SocketAddr = ep.parse().map_err(|_| FrontendError::Address(ep.clone()))?;
        let listener = bind(addr, fe.backlog, fe.reuse_port)
            .map_err(|e| FrontendError::io(format!("cannot listen on {addr}"), e))?;
        let local = listener
            .local_addr()
            .map_err(|e| FrontendError::io("cannot read the bound address", e))?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        tracing::info!(endpoint = %local, scheme, reuse_port = fe.reuse_port, "rsgw listening");
        loops.push(tokio::spawn(accept_loop(
            listener,
            tls,
            service.clone(),
            graceful.clone(),
            settings.clone(),
            metrics.clone(),
            stop_rx.clone(),
        )));
    }

    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    admin.draining.store(true, Ordering::Relaxed);
    if fe.drain_notice_ms > 0 {
        let notice = Duration::from_millis(fe.drain_notice_ms);
        tracing::info!(
            notice = ?notice,
            "rsgw stopping: /health answers 503, still serving while load balancers notice"
        );
        tokio::select! {
            () = tokio::time::sleep(notice) => {}
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    let drain = Duration::from_millis(fe.drain_timeout_ms);
    tracing::info!(
        timeout = ?drain,
        outstanding = metrics.outstanding.get(),
        "rsgw stopping: no new connections, draining requests in flight"
    );
    let _ = stop_tx.send(true);
    for l in loops {
        let _ = l.await;
    }
    drop(service);
    let graceful = Arc::try_unwrap(graceful).map_err(|_| FrontendError::Listeners)?;
    let drained = tokio::time::timeout(drain, graceful.shutdown())
        .await
        .is_ok();
    // what the handler still holds (the usage log's counts) is written
    if tokio::time::timeout(Duration::from_secs(5), last_words.drained())
        .await
        .is_err()
    {
        tracing::warn!("the handler's last writes took over 5 s; exiting without them");
    }
    if let Some(log) = ops_log {
        // the lines of the requests answered are in the file before exit
        let _ = tokio::task::spawn_blocking(move || log.sync(Duration::from_secs(2))).await;
    }
    if !drained {
        tracing::warn!(
            outstanding = metrics.outstanding.get(),
            "requests still in flight after {drain:?}; exiting anyway"
        );
        return Ok(());
    }
    if let Some(p) = blocking {
        // every connection is closed: the handler threads have nothing left
        tokio::task::spawn_blocking(move || p.shutdown())
            .await
            .map_err(|e| FrontendError::Handler(e.into()))?;
    }
    tracing::info!("rsgw stopped");
    Ok(())
}

/// Reloads the certificate and key on every SIGHUP (connections accepted
/// afterwards use the new ones; a failed reload keeps the old).
async fn reload_on_sighup(tls: Arc<Tls>, metrics: Arc<Metrics>) {
    let mut hup = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "cannot watch SIGHUP: the certificate is never reloaded");
            return;
        }
    };
    while hup.recv().await.is_some() {
        match tls.reload() {
            Ok(()) => {
                metrics.tls_reloads[0].inc();
                tracing::info!("certificate reloaded");
            }
            Err(e) => {
                metrics.tls_reloads[1].inc();
                tracing::error!(error = %e, "certificate reload failed; keeping the current one");
            }
        }
    }
}
