//! `rsgw serve`: the HTTP/1.1 S3 endpoint on the configured store.

use std::net::SocketAddr;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rsgw_config::Config;
use rsgw_gateway::Gateway;
use rsgw_s3::S3HttpService;
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::watch;

/// hyper's read buffer limit: the largest `frontend.max_header_size` plus room.
const HYPER_MAX_BUF: usize = (1 << 20) + 64 * 1024;

/// Accept errors (out of descriptors, say) are retried after this pause,
/// doubling up to the maximum, as radosgw does (1 ms to 5 s there).
const ACCEPT_BACKOFF_START: Duration = Duration::from_millis(1);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// How long in-flight requests may finish after SIGTERM.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Binds an endpoint with the configured backlog.
fn listen(addr: SocketAddr, backlog: u32) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(backlog)
}

/// Raises the open-files soft limit to the hard limit (each connection is a
/// descriptor) and logs both.
fn raise_nofile_limit() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        tracing::warn!(error = %std::io::Error::last_os_error(), "cannot read RLIMIT_NOFILE");
        return;
    }
    let before = lim.rlim_cur;
    lim.rlim_cur = lim.rlim_max;
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
        tracing::warn!(error = %std::io::Error::last_os_error(), soft = before, hard = lim.rlim_max,
            "cannot raise RLIMIT_NOFILE");
        return;
    }
    tracing::info!(
        soft_was = before,
        soft = lim.rlim_cur,
        hard = lim.rlim_max,
        "open files limit"
    );
}

/// Per-connection HTTP settings from `[frontend]`.
#[derive(Clone, Copy)]
struct ConnSettings {
    request_timeout: Option<Duration>,
}

async fn accept_loop(
    listener: TcpListener,
    service: S3HttpService,
    graceful: std::sync::Arc<GracefulShutdown>,
    settings: ConnSettings,
    mut stop: watch::Receiver<bool>,
) {
    let mut backoff = ACCEPT_BACKOFF_START;
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => {
                    backoff = ACCEPT_BACKOFF_START;
                    s
                }
                Err(e) => {
                    // EMFILE/ENFILE/ENOBUFS/ENOMEM: wait, doubling, and try
                    // again; the pending connections wait in the backlog
                    if backoff == ACCEPT_BACKOFF_START {
                        tracing::warn!(error = %e, "accept failed; backing off until it works again");
                    }
                    tokio::select! {
                        _ = tokio::time::sleep(backoff) => {}
                        _ = stop.changed() => return,
                    }
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                    continue;
                }
            },
            _ = stop.changed() => return,
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
        }
        // hyper's own limit sits above max_header_size, so oversized headers
        // reach the service and get an S3 error; beyond it hyper answers 431
        let mut builder = http1::Builder::new();
        builder.max_buf_size(HYPER_MAX_BUF);
        if let Some(t) = settings.request_timeout {
            builder.timer(TokioTimer::new()).header_read_timeout(t);
        }
        let conn = builder.serve_connection(TokioIo::new(stream), service.clone());
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
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

/// Runs the gateway until SIGINT or SIGTERM, then drains in-flight requests.
pub fn run(cfg: Config) -> Result<(), Box<dyn std::error::Error>> {
    raise_nofile_limit();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let gw = crate::store::open_gateway(&cfg).await?;
        let service =
            rsgw_s3::service(gw.clone(), &cfg.s3.dns_names, cfg.frontend.max_header_size)?;
        let graceful = std::sync::Arc::new(GracefulShutdown::new());
        let (stop_tx, stop_rx) = watch::channel(false);
        let settings = ConnSettings {
            request_timeout: (cfg.frontend.request_timeout_ms > 0)
                .then(|| Duration::from_millis(cfg.frontend.request_timeout_ms)),
        };
        let mut loops = Vec::new();
        for ep in &cfg.frontend.endpoints {
            let addr: SocketAddr = ep.parse()?;
            let listener = listen(addr, cfg.frontend.backlog)
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            tracing::info!(
                endpoint = %listener.local_addr()?,
                backend = gw.store().backend(),
                "rsgw listening"
            );
            loops.push(tokio::spawn(accept_loop(
                listener,
                service.clone(),
                graceful.clone(),
                settings,
                stop_rx.clone(),
            )));
        }
        tokio::spawn(gc_loop(
            gw.clone(),
            Duration::from_secs(cfg.s3.gc_interval_s),
        ));
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        tracing::info!("rsgw stopping: no new connections, draining requests in flight");
        let _ = stop_tx.send(true);
        for l in loops {
            let _ = l.await;
        }
        let graceful =
            std::sync::Arc::try_unwrap(graceful).map_err(|_| "listeners still running")?;
        if tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown())
            .await
            .is_err()
        {
            tracing::warn!("requests still in flight after {DRAIN_TIMEOUT:?}; exiting anyway");
        }
        Ok(())
    })
}
