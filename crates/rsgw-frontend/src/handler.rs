//! What the frontend serves: a [`Handler`] turns a request into a response.
//! The S3 service is the one rsgw runs; tests plug in small ones.

use std::future::Future;

use bytes::Bytes;
use http::{Request, Response, StatusCode};

use crate::body_timeout::RequestBody;

/// Errors a response body may fail with.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A request handler the frontend can run in either pool mode.
pub trait Handler: Clone + Send + Sync + 'static {
    /// The response body.
    type Body: http_body::Body<Data = Bytes, Error: Into<BoxError>> + Send + Unpin + 'static;

    /// Handles one request. In blocking mode this runs on a handler thread
    /// that does nothing else until the response body has been produced.
    /// Reading the body fails with an `std::io::Error` of kind `TimedOut`
    /// when the client stalls (see [`RequestBody`]).
    fn call(&self, req: Request<RequestBody>) -> impl Future<Output = Response<Self::Body>> + Send;

    /// An error response of the handler's own protocol (an S3 XML error).
    fn error(&self, status: StatusCode, code: &str, message: &str) -> Response<Self::Body>;

    /// Names of the operations the handler tells apart, for metrics.
    fn operations() -> &'static [&'static str];

    /// Which of [`Handler::operations`] a response answered, from its
    /// extensions.
    fn operation(ext: &http::Extensions) -> usize;
}

impl Handler for rsgw_s3::S3HttpService {
    type Body = s3s::Body;

    fn call(&self, req: Request<RequestBody>) -> impl Future<Output = Response<Self::Body>> + Send {
        rsgw_s3::RequestIdService::call(self, req.map(s3s::Body::http_body_unsync))
    }

    fn error(&self, status: StatusCode, code: &str, message: &str) -> Response<Self::Body> {
        rsgw_s3::RequestIdService::error(self, status, code, message)
    }

    fn operations() -> &'static [&'static str] {
        rsgw_s3::OPERATIONS
    }

    fn operation(ext: &http::Extensions) -> usize {
        ext.get::<rsgw_s3::Operation>()
            .map_or(rsgw_s3::OPERATIONS.len() - 1, |o| o.0)
    }
}
