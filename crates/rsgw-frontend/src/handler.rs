//! What the frontend serves: a [`Handler`] turns a request into a response.
//! The frontend knows no S3: the S3 layer implements this trait (and
//! renders the frontend's own [`Rejection`]s in its protocol); tests plug
//! in small handlers.

use std::future::Future;

use bytes::Bytes;
use http::{Request, Response};

use crate::body_timeout::RequestBody;

/// Errors a response body may fail with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why the frontend answers a request itself instead of (or after) the
/// handler. The handler turns each into an error of its protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejection {
    /// Admission refused the request (`max_concurrent_requests` reached,
    /// or the queue full or timed out): the client should slow down.
    #[error("too many requests")]
    Overloaded,
    /// The instance is draining and takes no new requests.
    #[error("shutting down")]
    ShuttingDown,
    /// The handler failed without a response (a panic in a handler thread).
    #[error("handler failed")]
    HandlerFailed,
    /// The client stopped sending the request body for longer than
    /// `request_timeout_ms`.
    #[error("request body timed out")]
    BodyTimedOut,
    /// The client's request body broke off before its declared end.
    #[error("request body incomplete")]
    BodyIncomplete,
}

/// The closed set of operations a handler tells apart, for metrics and
/// logs. Requests that the frontend or the handler refuses before knowing
/// their operation count as the handler's [`Operation::unrouted`].
pub trait Operation: Copy + Send + Sync + Unpin + 'static {
    /// Every operation, each once; metrics keep a row per entry in this
    /// order, and [`Operation::index`] is a position in it.
    fn all() -> &'static [Self];
    /// This operation's position in [`Operation::all`].
    fn index(self) -> usize;
    /// Its name, as a metrics label.
    fn name(self) -> &'static str;
    /// What a request is counted as when its operation is not known.
    fn unrouted() -> Self;
}

/// A request handler the frontend can run in either pool mode.
pub trait Handler: Clone + Send + Sync + 'static {
    /// The response body.
    type Body: http_body::Body<Data = Bytes, Error: Into<BoxError>> + Send + Unpin + 'static;

    /// The operations it tells apart.
    type Operation: Operation;

    /// Handles one request. In blocking mode this runs on a handler thread
    /// that does nothing else until the response body has been produced.
    /// Reading the body fails with an `std::io::Error` of kind `TimedOut`
    /// when the client stalls (see [`RequestBody`]).
    fn call(&self, req: Request<RequestBody>) -> impl Future<Output = Response<Self::Body>> + Send;

    /// The response, in the handler's protocol, to a request the frontend
    /// refuses or cuts short.
    fn reject(&self, why: Rejection) -> Response<Self::Body>;

    /// Which operation a response answered, from its extensions.
    fn operation(ext: &http::Extensions) -> Self::Operation;

    /// Appends the handler's own metrics, in Prometheus text, to
    /// `/metrics` (the frontend's come first). None by default.
    fn write_metrics(&self, _out: &mut String) {}

    /// Runs once the instance has drained, before it exits: what the
    /// handler holds in memory for later is written now. Nothing by
    /// default.
    fn drained(&self) -> impl Future<Output = ()> + Send {
        std::future::ready(())
    }
}
