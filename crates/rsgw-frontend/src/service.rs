//! The per-request path every connection calls: admission, then the pool,
//! then the handler, with the response body tracked until its last byte so
//! that admission slots, metrics and latency cover the whole response.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use bytes::Bytes;
use futures::future::BoxFuture;
use http::{HeaderValue, Request, Response};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;

use crate::admission::{Admission, Admitted};
use crate::body_timeout::{BodyFailure, BodyState, RequestBody};
use crate::client::{Client, TrustedProxies};
use crate::handler::{BoxError, Handler, Operation, Rejection};
use crate::metrics::Metrics;
use crate::ops_log::{Entry, LogFields, Logged, OpsLog};
use crate::pool::{Pool, PoolBody, PoolError};

/// Status recorded for a request whose client left before the response
/// (nginx's convention).
pub const CLIENT_CLOSED: u16 = 499;

struct Shared<H: Handler> {
    handler: H,
    body_timeout: Option<Duration>,
    admission: Arc<Admission>,
    pool: Pool<H>,
    metrics: Arc<Metrics>,
    trusted: TrustedProxies,
    ops_log: Option<Arc<OpsLog>>,
}

/// The connection a service serves: its peer, and whether it is TLS.
#[derive(Debug, Clone, Copy)]
struct Conn {
    peer: SocketAddr,
    tls: bool,
}

/// The hyper service of the connections of an instance: shared by all,
/// with each connection's peer ([`FrontendService::for_connection`]).
pub struct FrontendService<H: Handler>(Arc<Shared<H>>, Option<Conn>);

impl<H: Handler> Clone for FrontendService<H> {
    fn clone(&self) -> Self {
        FrontendService(self.0.clone(), self.1)
    }
}

impl<H: Handler> FrontendService<H> {
    /// Ties the layers together; `body_timeout` bounds each wait for
    /// request body bytes (`request_timeout_ms`; `None`: no bound);
    /// `trusted` are the proxies whose forwarding headers name the client;
    /// with an `ops_log`, every request is written to it.
    pub fn new(
        handler: H,
        body_timeout: Option<Duration>,
        admission: Arc<Admission>,
        pool: Pool<H>,
        metrics: Arc<Metrics>,
        trusted: TrustedProxies,
        ops_log: Option<Arc<OpsLog>>,
    ) -> Self {
        FrontendService(
            Arc::new(Shared {
                handler,
                body_timeout,
                admission,
                pool,
                metrics,
                trusted,
                ops_log,
            }),
            None,
        )
    }

    /// The service of one connection from `peer`, over TLS if `tls`: its
    /// requests carry a [`crate::Client`] extension.
    pub fn for_connection(&self, peer: SocketAddr, tls: bool) -> Self {
        FrontendService(self.0.clone(), Some(Conn { peer, tls }))
    }

    /// Serves one request through admission, the pool and the handler.
    pub async fn serve(
        &self,
        mut req: Request<Incoming>,
    ) -> Response<TrackedBody<H::Body, H::Operation>> {
        let s = &self.0;
        let start = Instant::now();
        let log = s.ops_log.as_ref().map(|l| Pending::of(l, &req));
        if log.is_some() {
            req.extensions_mut().insert(Logged);
        }
        let admitted = match s.admission.admit().await {
            Ok(a) => a,
            Err(why) => {
                s.metrics.admission_rejected.inc();
                let mut resp = s.handler.reject(Rejection::Overloaded);
                resp.headers_mut()
                    .insert(http::header::RETRY_AFTER, HeaderValue::from_static("1"));
                tracing::debug!(reason = %why, "request not admitted");
                let op = H::operation(resp.extensions());
                let elapsed = start.elapsed();
                s.metrics.record(op, resp.status().as_u16(), elapsed);
                if let Some(mut log) = log {
                    log.entry.fields = resp.extensions_mut().remove::<LogFields>();
                    log.entry.bytes_sent = resp.body().size_hint().exact().unwrap_or(0);
                    log.submit(op.name(), resp.status().as_u16(), elapsed);
                }
                return resp.map(|b| TrackedBody {
                    inner: PoolBody::Direct(b),
                    guard: None,
                });
            }
        };
        s.metrics.outstanding.inc();
        let mut guard = InFlight {
            metrics: s.metrics.clone(),
            start,
            op: H::Operation::unrouted(),
            status: CLIENT_CLOSED,
            _admitted: admitted,
            span: tracing::Span::current(),
            log,
        };
        let (parts, body) = req.into_parts();
        // a body the client announced (a length, chunks), and whether it
        // waits for `100 Continue` before sending it
        let announced = !body.is_end_stream();
        let expects_continue = parts
            .headers
            .get(http::header::EXPECT)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
        let body = RequestBody::new(body, s.body_timeout);
        let body_state = body.state();
        if let Some(log) = guard.log.as_mut() {
            log.body = Some(body_state.clone());
        }
        let req = Request::from_parts(parts, body);
        let resp = match s.pool.run(&s.handler, req).await {
            Ok(r) => r,
            Err(PoolError::ShuttingDown) => s
                .handler
                .reject(Rejection::ShuttingDown)
                .map(PoolBody::Direct),
            Err(PoolError::HandlerFailed) => s
                .handler
                .reject(Rejection::HandlerFailed)
                .map(PoolBody::Direct),
        };
        // a handler that gave up on a failed body inside a library answers
        // with whatever error that library made of it (s3s: a 500 for an XML
        // body, a 400 IncompleteBody for a body behind its payload-hash or
        // aws-chunked decoders, which hide the cause): the body's own state
        // says what happened, and the handler's protocol names it
        let resp = match body_state.failure() {
            Some(why) if resp.status().is_client_error() || resp.status().is_server_error() => {
                let mut r = s.handler.reject(match why {
                    BodyFailure::TimedOut => Rejection::BodyTimedOut,
                    BodyFailure::Broken => Rejection::BodyIncomplete,
                });
                r.headers_mut()
                    .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
                r.map(PoolBody::Direct)
            }
            _ => resp,
        };
        // A body the handler did not read to its end (after `Expect:
        // 100-continue`, one the client then never sends: hyper sends the
        // 100 only when the body is read) would put the connection out of
        // step with the client, and so would a final answer to an `Expect`
        // with an empty body, which never gets a 100: botocore then parses
        // the next response on that connection as if it had read its status
        // line already (and waits out its read timeout). Close such
        // connections after the response.
        let mut resp = resp;
        if (announced && !body_state.ended()) || (expects_continue && !announced) {
            resp.headers_mut()
                .insert(http::header::CONNECTION, HeaderValue::from_static("close"));
        }
        guard.op = H::operation(resp.extensions());
        guard.status = resp.status().as_u16();
        if let Some(log) = guard.log.as_mut() {
            log.entry.fields = resp.extensions_mut().remove::<LogFields>();
        }
        resp.map(|inner| TrackedBody {
            inner,
            guard: Some(guard),
        })
    }
}

impl<H: Handler> hyper::service::Service<Request<Incoming>> for FrontendService<H> {
    type Response = Response<TrackedBody<H::Body, H::Operation>>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn call(&self, mut req: Request<Incoming>) -> Self::Future {
        use tracing::Instrument;
        let this = self.clone();
        let client = self
            .1
            .map(|c| self.0.trusted.client(c.peer, c.tls, req.headers()));
        // a span per request; with logging at its default (info) this is a
        // single disabled-callsite check
        let span = tracing::debug_span!(
            "request",
            method = %req.method(),
            path = %req.uri().path(),
            client = client.map(|c| tracing::field::display(c.addr)),
            secure = client.map(|c| c.secure),
        );
        if let Some(c) = client {
            req.extensions_mut().insert(c);
        }
        Box::pin(async move { Ok(this.serve(req).await) }.instrument(span))
    }
}

/// An admitted request until its response is finished: holds the admission
/// slot, counts as outstanding, and records status and latency when dropped.
struct InFlight<O: Operation> {
    metrics: Arc<Metrics>,
    start: Instant,
    op: O,
    status: u16,
    _admitted: Admitted,
    /// The request's span: the response body often ends outside it.
    span: tracing::Span,
    /// The request's ops log line, with an ops log.
    log: Option<Pending>,
}

/// An ops log line in the making: the request's side is filled when it
/// arrives, the response's as it goes.
struct Pending {
    ops_log: Arc<OpsLog>,
    entry: Box<Entry>,
    body: Option<BodyState>,
}

impl Pending {
    fn of<B>(ops_log: &Arc<OpsLog>, req: &Request<B>) -> Self {
        let h = req.headers();
        Pending {
            ops_log: ops_log.clone(),
            entry: Box::new(Entry {
                started: SystemTime::now(),
                method: req.method().clone(),
                uri: req.uri().clone(),
                client: req.extensions().get::<Client>().map(|c| c.addr),
                user_agent: h.get(http::header::USER_AGENT).cloned(),
                referer: h.get(http::header::REFERER).cloned(),
                fields: None,
                operation: "",
                status: 0,
                bytes_received: 0,
                bytes_sent: 0,
                total_time: Duration::ZERO,
            }),
            body: None,
        }
    }

    fn submit(self, operation: &'static str, status: u16, total_time: Duration) {
        let Pending {
            ops_log,
            mut entry,
            body,
        } = self;
        entry.operation = operation;
        entry.status = status;
        entry.total_time = total_time;
        entry.bytes_received = body.map_or(0, |b| b.bytes());
        ops_log.submit(entry);
    }
}

impl<O: Operation> Drop for InFlight<O> {
    fn drop(&mut self) {
        let elapsed = self.start.elapsed();
        let _in_request = self.span.enter();
        self.metrics.outstanding.dec();
        self.metrics.record(self.op, self.status, elapsed);
        if let Some(log) = self.log.take() {
            log.submit(self.op.name(), self.status, elapsed);
        }
        tracing::debug!(
            op = self.op.name(),
            status = self.status,
            micros = elapsed.as_micros() as u64,
            "request finished"
        );
    }
}

/// A response body that finishes its request when it ends or is dropped.
pub struct TrackedBody<B, O: Operation> {
    inner: PoolBody<B>,
    guard: Option<InFlight<O>>,
}

impl<B, O: Operation> Body for TrackedBody<B, O>
where
    B: Body<Data = Bytes, Error: Into<BoxError>> + Unpin,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_frame(cx);
        match &r {
            Poll::Ready(None) => this.guard = None,
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(log) = this.guard.as_mut().and_then(|g| g.log.as_mut())
                    && let Some(data) = frame.data_ref()
                {
                    log.entry.bytes_sent += data.len() as u64;
                }
            }
            _ => {}
        }
        r
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
