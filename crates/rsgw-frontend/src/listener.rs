//! Listening sockets and the accept loop: backlog, `SO_REUSEPORT`, the
//! connection cap, `TCP_NODELAY`, accept-error backoff, the TLS handshake
//! of HTTPS listeners (under the header timeout: a slow handshake is a
//! slowloris too), and the HTTP/1.1 connection with its header timeout.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio_rustls::TlsAcceptor;

use crate::client::TrustedProxies;
use crate::handler::Handler;
use crate::metrics::Metrics;
use crate::service::FrontendService;
use crate::tls::Tls;

/// How far hyper's read buffer may grow beyond `frontend.max_header_size`:
/// room for the request line and the last read. The sum bounds what a
/// connection holds while its headers arrive, and is the largest piece a
/// body is read in (32 KiB at the default 16 KiB headers). Measured
/// (docs/reliability.md), a flood of 1 MiB headers from 64 clients at a time
/// left this much in the allocator's per-thread caches of 512 workers: 1 MiB
/// buffers about 500 MiB, 64 KiB ones 160 MiB, 32 KiB ones 20-30 MiB; 4 MiB
/// PUTs cost about 3% more CPU in 32 KiB pieces than in 1 MiB ones.
const HYPER_BUF_ROOM: usize = 16 * 1024;

/// hyper's read buffer limit for a `max_header_size`.
pub fn read_buffer_limit(max_header_size: usize) -> usize {
    max_header_size + HYPER_BUF_ROOM
}

/// Accept errors (out of descriptors, say) are retried after this pause,
/// doubling up to the maximum, as radosgw does (1 ms to 5 s there).
const ACCEPT_BACKOFF_START: Duration = Duration::from_millis(1);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Binds an endpoint with the configured backlog, optionally sharing the
/// port with other processes (`SO_REUSEPORT`).
pub fn bind(addr: SocketAddr, backlog: u32, reuse_port: bool) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    if reuse_port {
        socket.set_reuseport(true)?;
    }
    socket.bind(addr)?;
    socket.listen(backlog)
}

/// Per-connection settings from `[frontend]`.
#[derive(Clone)]
pub struct ConnSettings {
    /// Time allowed for a request's headers, and between keep-alive requests.
    pub request_timeout: Option<Duration>,
    /// Set `TCP_NODELAY`.
    pub tcp_nodelay: bool,
    /// Open connections at most (`None`: unlimited).
    pub max_connections: Option<Arc<Semaphore>>,
    /// hyper's read buffer limit ([`read_buffer_limit`]).
    pub read_buffer: usize,
    /// With `frontend.proxy_protocol`: the proxies whose connections begin
    /// with a PROXY protocol v2 header.
    pub proxy_protocol: Option<Arc<TrustedProxies>>,
}

/// Accepts connections until `stop` turns true, serving each with `service`;
/// with `tls`, each connection first completes a TLS handshake.
pub async fn accept_loop<H: Handler>(
    listener: TcpListener,
    tls: Option<Arc<Tls>>,
    service: FrontendService<H>,
    graceful: Arc<GracefulShutdown>,
    settings: ConnSettings,
    metrics: Arc<Metrics>,
    mut stop: watch::Receiver<bool>,
) {
    let mut backoff = ACCEPT_BACKOFF_START;
    loop {
        // at the cap, stop accepting: newcomers wait in the backlog
        let slot = match &settings.max_connections {
            None => None,
            Some(cap) => match cap.clone().try_acquire_owned() {
                Ok(p) => Some(p),
                Err(_) => {
                    metrics.connection_cap_waits.inc();
                    tokio::select! {
                        p = cap.clone().acquire_owned() => p.ok(),
                        _ = stop.changed() => return,
                    }
                }
            },
        };
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(s) => {
                    backoff = ACCEPT_BACKOFF_START;
                    s
                }
                Err(e) => {
                    // EMFILE/ENFILE/ENOBUFS/ENOMEM: wait, doubling, and try
                    // again; the pending connections wait in the backlog
                    metrics.accept_errors.inc();
                    if backoff == ACCEPT_BACKOFF_START {
                        tracing::warn!(error = %e, "accept failed; backing off until it works again");
                    }
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        _ = stop.changed() => return,
                    }
                    backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                    continue;
                }
            },
            _ = stop.changed() => return,
        };
        if settings.tcp_nodelay
            && let Err(e) = stream.set_nodelay(true)
        {
            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
        }
        metrics.connections_accepted.inc();
        metrics.connections_open.inc();
        // a watcher, not the shutdown itself: the drain waits for the
        // connection, and the connection does not keep the shutdown alive
        let (service, watcher, settings) = (service.clone(), graceful.watcher(), settings.clone());
        let metrics = metrics.clone();
        let acceptor = tls.as_ref().map(|t| t.acceptor());
        tokio::spawn(async move {
            connection(
                stream, peer, acceptor, service, watcher, &settings, &metrics,
            )
            .await;
            metrics.connections_open.dec();
            drop(slot);
        });
    }
}

/// `step` within the request timeout (the time a request's headers may
/// take), so that a peer that stalls before its request is cut like one
/// that stalls within it.
async fn within<T, E: From<std::io::Error>>(
    settings: &ConnSettings,
    step: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    match settings.request_timeout {
        Some(t) => tokio::time::timeout(t, step)
            .await
            .unwrap_or_else(|_| Err(std::io::Error::from(std::io::ErrorKind::TimedOut).into())),
        None => step.await,
    }
}

/// One accepted connection: its PROXY header when it comes from a proxy
/// that sends one, its TLS handshake on an HTTPS listener, then HTTP.
async fn connection<H: Handler>(
    mut stream: TcpStream,
    peer: SocketAddr,
    acceptor: Option<TlsAcceptor>,
    service: FrontendService<H>,
    watcher: Watcher,
    settings: &ConnSettings,
    metrics: &Metrics,
) {
    let peer = match &settings.proxy_protocol {
        Some(proxies) if proxies.contains(peer.ip()) => {
            match within(settings, crate::proxy_protocol::read_header(&mut stream)).await {
                Ok(client) => client.unwrap_or(peer),
                Err(e) => {
                    metrics.proxy_header_failures.inc();
                    tracing::warn!(%peer, error = %e, "connection from a trusted proxy closed");
                    return;
                }
            }
        }
        _ => peer,
    };
    let Some(acceptor) = acceptor else {
        let service = service.for_connection(peer, false);
        serve(stream, service, watcher, settings, peer).await;
        return;
    };
    match within(settings, acceptor.accept(stream)).await {
        Ok(stream) => {
            let service = service.for_connection(peer, true);
            serve(stream, service, watcher, settings, peer).await;
        }
        Err(e) => {
            metrics.tls_handshake_failures.inc();
            tracing::debug!(%peer, error = %e, "TLS handshake failed");
        }
    }
}

/// Serves HTTP/1.1 on one connection (plain or TLS) until it ends.
async fn serve<H, S>(
    stream: S,
    service: FrontendService<H>,
    watcher: Watcher,
    settings: &ConnSettings,
    peer: SocketAddr,
) where
    H: Handler,
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // hyper's own limit sits above max_header_size, so oversized headers
    // reach the service and get an S3 error; beyond it hyper answers 431
    let mut builder = http1::Builder::new();
    builder.max_buf_size(settings.read_buffer);
    if let Some(t) = settings.request_timeout {
        builder.timer(TokioTimer::new()).header_read_timeout(t);
    }
    let conn = watcher.watch(builder.serve_connection(TokioIo::new(stream), service));
    if let Err(e) = conn.await {
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
}
