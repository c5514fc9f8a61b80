//! The request-handler pool (`pool.mode`), radosgw's `rgw_thread_pool_size`.
//!
//! - `async`: the runtime's `thread_pool_size` worker threads run handlers
//!   directly, many requests each: GET and HEAD on the connection's task,
//!   other requests on a task of their own, so that a client closing its
//!   connection never cuts a write short.
//! - `blocking`: [`BlockingPool`] owns `thread_pool_size` threads that each
//!   run one request at a time, from the request's arrival to the last byte
//!   of its response body, taking requests from a FIFO. Connections stay
//!   open on the network threads while their requests wait.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use tokio::sync::{mpsc, oneshot};

use crate::body_timeout::RequestBody;
use crate::handler::{BoxError, Handler};
use crate::metrics::Metrics;

/// Frames a blocking handler may produce ahead of the connection.
const BODY_CHANNEL_FRAMES: usize = 4;

/// A response body as the pool hands it to the connection.
pub enum PoolBody<B> {
    /// The handler's own body, polled by the connection (async mode).
    Direct(B),
    /// The whole body, produced on a handler thread: at most one frame.
    Ready(Option<Frame<Bytes>>),
    /// Frames a handler thread is still producing.
    Channel {
        /// The frames, in order.
        rx: mpsc::Receiver<Result<Frame<Bytes>, BoxError>>,
        /// The body's size hint, kept so the length goes out as Content-Length.
        hint: SizeHint,
    },
}

impl<B> Body for PoolBody<B>
where
    B: Body<Data = Bytes, Error: Into<BoxError>> + Unpin,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.get_mut() {
            PoolBody::Direct(b) => Pin::new(b).poll_frame(cx).map_err(Into::into),
            PoolBody::Ready(f) => Poll::Ready(f.take().map(Ok)),
            PoolBody::Channel { rx, .. } => rx.poll_recv(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            PoolBody::Direct(b) => b.is_end_stream(),
            PoolBody::Ready(f) => f.is_none(),
            PoolBody::Channel { .. } => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            PoolBody::Direct(b) => b.size_hint(),
            PoolBody::Ready(Some(f)) => {
                SizeHint::with_exact(f.data_ref().map_or(0, |d| d.len() as u64))
            }
            PoolBody::Ready(None) => SizeHint::with_exact(0),
            PoolBody::Channel { hint, .. } => *hint,
        }
    }
}

/// Where handlers run.
pub enum Pool<H: Handler> {
    /// On the async runtime's workers.
    Async,
    /// On a blocking pool's threads.
    Blocking(Arc<BlockingPool<H>>),
}

/// Why the pool gave no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PoolError {
    /// The pool no longer takes requests.
    #[error("the gateway is shutting down")]
    ShuttingDown,
    /// The handler lost the request (it panicked).
    #[error("the request handler failed")]
    HandlerFailed,
}

impl<H: Handler> Pool<H> {
    /// Runs a request.
    pub async fn run(
        &self,
        handler: &H,
        req: Request<RequestBody>,
    ) -> Result<Response<PoolBody<H::Body>>, PoolError> {
        match self {
            // reads run on the connection's task: a client that goes away
            // cancels them, and nothing is lost
            Pool::Async if req.method() == Method::GET || req.method() == Method::HEAD => {
                Ok(handler.call(req).await.map(PoolBody::Direct))
            }
            // the others run to their end on a task of their own: a request
            // dropped with its connection in the middle of a write (a
            // version swapped into the head, its index entry not yet
            // written) would leave it half done
            Pool::Async => {
                let handler = handler.clone();
                tokio::spawn(async move { handler.call(req).await })
                    .await
                    .map(|r| r.map(PoolBody::Direct))
                    .map_err(|_| PoolError::HandlerFailed)
            }
            Pool::Blocking(p) => p.run(req).await,
        }
    }
}

type Reply<B> = oneshot::Sender<Response<PoolBody<B>>>;

struct Job<H: Handler> {
    req: Request<RequestBody>,
    reply: Reply<H::Body>,
}

struct Queue<H: Handler> {
    jobs: Mutex<(VecDeque<Job<H>>, bool)>,
    ready: Condvar,
}

/// `thread_pool_size` threads, one request each at a time, fed in FIFO order.
pub struct BlockingPool<H: Handler> {
    queue: Arc<Queue<H>>,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
    metrics: Arc<Metrics>,
}

impl<H: Handler> BlockingPool<H> {
    /// Starts `threads` handler threads.
    pub fn start(threads: usize, handler: H, metrics: Arc<Metrics>) -> std::io::Result<Arc<Self>> {
        let queue = Arc::new(Queue {
            jobs: Mutex::new((VecDeque::new(), false)),
            ready: Condvar::new(),
        });
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let queue = queue.clone();
            let handler = handler.clone();
            let metrics = metrics.clone();
            handles.push(
                std::thread::Builder::new()
                    .name(format!("rsgw-handler-{i}"))
                    .spawn(move || handler_thread(&queue, &handler, &metrics))?,
            );
        }
        Ok(Arc::new(BlockingPool {
            queue,
            threads: Mutex::new(handles),
            metrics,
        }))
    }

    /// Queues a request and waits for its response.
    async fn run(
        &self,
        req: Request<RequestBody>,
    ) -> Result<Response<PoolBody<H::Body>>, PoolError> {
        let (reply, rx) = oneshot::channel();
        {
            let mut jobs = self
                .queue
                .jobs
                .lock()
                .map_err(|_| PoolError::HandlerFailed)?;
            if jobs.1 {
                return Err(PoolError::ShuttingDown);
            }
            jobs.0.push_back(Job { req, reply });
        }
        self.metrics.pool_queued.inc();
        self.queue.ready.notify_one();
        rx.await.map_err(|_| PoolError::HandlerFailed)
    }

    /// Lets the threads finish the queued requests, then stops and joins them.
    pub fn shutdown(&self) {
        if let Ok(mut jobs) = self.queue.jobs.lock() {
            jobs.1 = true;
        }
        self.queue.ready.notify_all();
        let handles = self
            .threads
            .lock()
            .map(|mut h| std::mem::take(&mut *h))
            .unwrap_or_default();
        for h in handles {
            let _ = h.join();
        }
    }
}

fn handler_thread<H: Handler>(queue: &Queue<H>, handler: &H, metrics: &Metrics) {
    // a runtime without I/O driver or worker threads: the handler's futures
    // run on this thread, and store calls block it
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start a handler thread's executor");
            return;
        }
    };
    loop {
        let job = {
            let Ok(mut jobs) = queue.jobs.lock() else {
                return;
            };
            loop {
                if let Some(job) = jobs.0.pop_front() {
                    break job;
                }
                if jobs.1 {
                    return;
                }
                jobs = match queue.ready.wait(jobs) {
                    Ok(j) => j,
                    Err(_) => return,
                };
            }
        };
        metrics.pool_queued.dec();
        if job.reply.is_closed() {
            // the client left while the request waited
            continue;
        }
        metrics.pool_busy_threads.inc();
        let started = Instant::now();
        // a handler that panics loses its request (the client sees the
        // connection close), not the thread: the pool keeps its size
        let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.block_on(serve_one(handler, job));
        }));
        if ran.is_err() {
            tracing::error!("a request handler panicked; its request is lost, the thread goes on");
        }
        metrics.pool_busy_threads.dec();
        metrics
            .pool_busy_nanos
            .add(started.elapsed().as_nanos().min(u128::from(u64::MAX)) as u64);
    }
}

/// Runs one request on this thread, body included.
async fn serve_one<H: Handler>(handler: &H, job: Job<H>) {
    let resp = handler.call(job.req).await;
    let (parts, mut body) = resp.into_parts();
    if body.is_end_stream() {
        let _ = job
            .reply
            .send(Response::from_parts(parts, PoolBody::Ready(None)));
        return;
    }
    let hint = body.size_hint();
    let first = match body.frame().await {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            let (tx, rx) = mpsc::channel(1);
            let _ = tx.try_send(Err(e.into()));
            let _ = job
                .reply
                .send(Response::from_parts(parts, PoolBody::Channel { rx, hint }));
            return;
        }
    };
    if first.is_none() || body.is_end_stream() {
        // small responses: the whole body in one frame, written with the headers
        let _ = job
            .reply
            .send(Response::from_parts(parts, PoolBody::Ready(first)));
        return;
    }
    let (tx, rx) = mpsc::channel(BODY_CHANNEL_FRAMES);
    if let Some(f) = first {
        let _ = tx.try_send(Ok(f));
    }
    if job
        .reply
        .send(Response::from_parts(parts, PoolBody::Channel { rx, hint }))
        .is_err()
    {
        return;
    }
    while let Some(frame) = body.frame().await {
        if tx.send(frame.map_err(Into::into)).await.is_err() {
            // the connection is gone: stop producing
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use http_body_util::Full;
    use hyper::server::conn::http1;
    use hyper_util::rt::TokioIo;
    use tokio::io::AsyncWriteExt;

    use super::*;
    use crate::admission::{Admission, Policy};
    use crate::client::TrustedProxies;
    use crate::handler::{Operation, Rejection};
    use crate::service::FrontendService;

    #[derive(Clone, Copy)]
    struct AnyOp;

    impl Operation for AnyOp {
        fn all() -> &'static [Self] {
            &[AnyOp]
        }
        fn index(self) -> usize {
            0
        }
        fn name(self) -> &'static str {
            "any"
        }
        fn unrouted() -> Self {
            AnyOp
        }
    }

    /// A handler that takes its time and counts the requests it finished,
    /// by method.
    #[derive(Clone, Default)]
    struct Slow {
        finished_puts: Arc<AtomicUsize>,
        finished_gets: Arc<AtomicUsize>,
    }

    impl Handler for Slow {
        type Body = Full<Bytes>;
        type Operation = AnyOp;

        async fn call(&self, req: Request<RequestBody>) -> Response<Full<Bytes>> {
            tokio::time::sleep(Duration::from_millis(300)).await;
            let done = if req.method() == Method::GET {
                &self.finished_gets
            } else {
                &self.finished_puts
            };
            done.fetch_add(1, Ordering::SeqCst);
            Response::new(Full::new(Bytes::new()))
        }

        fn reject(&self, _why: Rejection) -> Response<Full<Bytes>> {
            let mut r = Response::new(Full::new(Bytes::new()));
            *r.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
            r
        }

        fn operation(_ext: &http::Extensions) -> AnyOp {
            AnyOp
        }
    }

    /// Sends `head` (a whole request) on a new connection and closes it
    /// 50 ms later, before the handler's answer.
    async fn send_and_hang_up(addr: std::net::SocketAddr, head: &str) {
        let mut c = tokio::net::TcpStream::connect(addr).await.expect("connect");
        c.write_all(head.as_bytes()).await.expect("send");
        tokio::time::sleep(Duration::from_millis(50)).await;
        drop(c);
    }

    #[tokio::test]
    async fn a_write_runs_to_its_end_when_its_client_hangs_up_and_a_read_does_not() {
        let handler = Slow::default();
        let service = FrontendService::new(
            handler.clone(),
            None,
            Arc::new(Admission::new(16, Policy::Reject)),
            Pool::Async,
            Arc::new(Metrics::new::<AnyOp>()),
            TrustedProxies::default(),
            None,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("address");
        tokio::spawn(async move {
            while let Ok((stream, peer)) = listener.accept().await {
                let service = service.for_connection(peer, false);
                tokio::spawn(async move {
                    let _: Result<(), hyper::Error> = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
            Ok::<(), Infallible>(())
        });
        send_and_hang_up(
            addr,
            "PUT /b/k HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
        )
        .await;
        send_and_hang_up(addr, "GET /b/k HTTP/1.1\r\nHost: t\r\n\r\n").await;
        tokio::time::sleep(Duration::from_millis(700)).await;
        // the read is cut with its connection: what this test relies on to
        // cut the write too, were it run on the connection's task
        assert_eq!(
            handler.finished_gets.load(Ordering::SeqCst),
            0,
            "the GET was cut"
        );
        assert_eq!(
            handler.finished_puts.load(Ordering::SeqCst),
            1,
            "a PUT whose client hung up ran to its end"
        );
    }
}
