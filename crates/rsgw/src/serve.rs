//! `rsgw serve`: the HTTP/1.1 listener on the configured store.
//!
//! This is the gateway's thin end-to-end path: it opens the store (so a bad
//! `[store]` section fails at start-up, not on the first request), binds every
//! endpoint and answers each request as S3 answers an operation it does not
//! implement: `501 NotImplemented` with an S3 XML error body and an
//! `x-amz-request-id`. The S3 operations themselves are built on this path.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use rsgw_config::Config;
use rsgw_store::Store;
use tokio::net::TcpListener;

/// Request ids: unique within a process and across restarts.
struct RequestIds {
    epoch: u64,
    next: AtomicU64,
}

impl RequestIds {
    fn new() -> Self {
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        RequestIds {
            epoch,
            next: AtomicU64::new(1),
        }
    }

    fn next(&self) -> String {
        format!(
            "tx{:016x}-{:08x}",
            self.next.fetch_add(1, Ordering::Relaxed),
            self.epoch
        )
    }
}

/// Escapes text for an XML element.
fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

fn not_implemented(req: &Request<Incoming>, request_id: &str) -> Response<Full<Bytes>> {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NotImplemented</Code>\
         <Message>A header or operation you provided implies functionality that is not \
         implemented</Message><Resource>{}</Resource><RequestId>{request_id}</RequestId></Error>",
        xml_escape(req.uri().path())
    );
    let mut resp = Response::new(Full::new(Bytes::from(body)));
    *resp.status_mut() = StatusCode::NOT_IMPLEMENTED;
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/xml"),
    );
    if let Ok(v) = header::HeaderValue::from_str(request_id) {
        h.insert("x-amz-request-id", v);
    }
    resp
}

async fn serve_listener(listener: TcpListener, ids: Arc<RequestIds>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(%peer, error = %e, "cannot set TCP_NODELAY");
        }
        let ids = ids.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<Incoming>| {
                let id = ids.next();
                async move { Ok::<_, Infallible>(not_implemented(&req, &id)) }
            });
            if let Err(e) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!(%peer, error = %e, "connection ended with an error");
            }
        });
    }
}

/// Runs the gateway until SIGINT or SIGTERM.
pub fn run(cfg: Config) -> Result<(), Box<dyn std::error::Error>> {
    let store: Arc<dyn Store> = crate::store::open(&cfg.store)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let ids = Arc::new(RequestIds::new());
        for ep in &cfg.frontend.endpoints {
            let addr: SocketAddr = ep.parse()?;
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            tracing::info!(
                endpoint = %listener.local_addr()?,
                backend = store.backend(),
                "rsgw listening"
            );
            tokio::spawn(serve_listener(listener, ids.clone()));
        }
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        tracing::info!("rsgw stopping");
        Ok(())
    })
}
