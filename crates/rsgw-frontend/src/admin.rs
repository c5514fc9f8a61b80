//! The admin listener: Prometheus `/metrics` and `/health` on a port of its
//! own, served by a thread of its own, so that neither a full handler pool
//! nor admission ever delays a health check. It serves no S3.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;

use crate::admission::Admission;
use crate::metrics::{Metrics, Observed};

/// Reads the pool's total busy time in seconds.
pub type BusySeconds = Arc<dyn Fn() -> f64 + Send + Sync>;

/// Appends the handler's own metrics ([`crate::Handler::write_metrics`]).
pub type HandlerMetrics = Arc<dyn Fn(&mut String) + Send + Sync>;

/// What `/metrics` and `/health` report.
pub struct AdminState {
    /// The instance's metrics.
    pub metrics: Arc<Metrics>,
    /// `pool.mode`, as a label.
    pub mode: &'static str,
    /// Handler threads.
    pub threads: usize,
    /// The pool's busy time.
    pub busy_seconds: BusySeconds,
    /// The admission gate: its limit and queue.
    pub admission: Arc<Admission>,
    /// The handler's metrics.
    pub handler_metrics: HandlerMetrics,
    /// Set once the instance drains: `/health` answers 503 so load
    /// balancers stop sending new requests.
    pub draining: AtomicBool,
}

/// Starts the admin listener on its own thread; returns once it is bound
/// (or failed to bind).
pub fn start(addr: SocketAddr, state: Arc<AdminState>) -> std::io::Result<SocketAddr> {
    let (bound_tx, bound_rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("rsgw-admin".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = bound_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                let listener = match tokio::net::TcpListener::bind(addr).await {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = bound_tx.send(Err(e));
                        return;
                    }
                };
                let _ = bound_tx.send(listener.local_addr());
                serve(listener, state).await;
            });
        })?;
    bound_rx
        .recv()
        .map_err(|_| std::io::Error::other("admin listener thread ended"))?
}

async fn serve(listener: tokio::net::TcpListener, state: Arc<AdminState>) {
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(respond(&state, &req)) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn respond(state: &AdminState, req: &Request<Incoming>) -> Response<Full<Bytes>> {
    let text = |status: StatusCode, body: String, ctype: &'static str| {
        let mut r = Response::new(Full::new(Bytes::from(body)));
        *r.status_mut() = status;
        r.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static(ctype),
        );
        r
    };
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "GET only\n".into(),
            "text/plain",
        );
    }
    match req.uri().path() {
        "/metrics" => {
            let mut out = state.metrics.render(&Observed {
                mode: state.mode,
                threads: state.threads,
                pool_busy_seconds: (state.busy_seconds)(),
                admission_waiting: state.admission.waiting().get(),
                admission_limit: state.admission.limit(),
            });
            (state.handler_metrics)(&mut out);
            text(StatusCode::OK, out, "text/plain; version=0.0.4")
        }
        "/health" if state.draining.load(Ordering::Relaxed) => text(
            StatusCode::SERVICE_UNAVAILABLE,
            "draining\n".into(),
            "text/plain",
        ),
        "/health" => text(StatusCode::OK, "ok\n".into(), "text/plain"),
        _ => text(
            StatusCode::NOT_FOUND,
            "the admin listener serves /metrics and /health only\n".into(),
            "text/plain",
        ),
    }
}
