//! `rsgw serve`: the HTTP/1.1 S3 endpoint on the configured store.

use std::net::SocketAddr;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use rsgw_config::Config;
use rsgw_gateway::Gateway;
use rsgw_s3::S3HttpService;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// hyper's read buffer limit: the largest `frontend.max_header_size` plus room.
const HYPER_MAX_BUF: usize = (1 << 20) + 64 * 1024;

/// How long in-flight requests may finish after SIGTERM.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

async fn accept_loop(
    listener: TcpListener,
    service: S3HttpService,
    graceful: std::sync::Arc<GracefulShutdown>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => s,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(10)).await;
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
        let conn = http1::Builder::new()
            .max_buf_size(HYPER_MAX_BUF)
            .serve_connection(TokioIo::new(stream), service.clone());
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let gw = crate::store::open_gateway(&cfg).await?;
        let service =
            rsgw_s3::service(gw.clone(), &cfg.s3.dns_names, cfg.frontend.max_header_size)?;
        let graceful = std::sync::Arc::new(GracefulShutdown::new());
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut loops = Vec::new();
        for ep in &cfg.frontend.endpoints {
            let addr: SocketAddr = ep.parse()?;
            let listener = TcpListener::bind(addr)
                .await
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
