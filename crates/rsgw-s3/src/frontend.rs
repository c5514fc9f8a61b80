//! The S3 service as the frontend's [`Handler`]: requests in, S3 responses
//! out, and the frontend's own refusals rendered as S3 errors.

use std::future::Future;

use http::{Request, Response, StatusCode};
use rsgw_frontend::{Handler, Rejection, RequestBody};
use s3s::Body;

use crate::dispatcher::Dispatcher;
use crate::operation::S3Op;

/// The S3 error (status, code, message) a frontend refusal is answered with.
fn s3_error_of(why: Rejection) -> (StatusCode, &'static str, &'static str) {
    match why {
        Rejection::Overloaded => (
            StatusCode::SERVICE_UNAVAILABLE,
            "SlowDown",
            "Please reduce your request rate.",
        ),
        Rejection::ShuttingDown => (
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            "The gateway is shutting down.",
        ),
        Rejection::HandlerFailed => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            "We encountered an internal error. Please try again.",
        ),
        Rejection::BodyTimedOut => (
            StatusCode::BAD_REQUEST,
            "RequestTimeout",
            "Your socket connection to the server was not read from or written to within the timeout period.",
        ),
        Rejection::BodyIncomplete => (
            StatusCode::BAD_REQUEST,
            "IncompleteBody",
            "You did not provide the number of bytes specified by the Content-Length HTTP header.",
        ),
    }
}

impl Handler for Dispatcher {
    type Body = Body;
    type Operation = S3Op;

    fn call(&self, req: Request<RequestBody>) -> impl Future<Output = Response<Self::Body>> + Send {
        Dispatcher::call(self, req.map(Body::http_body_unsync))
    }

    fn reject(&self, why: Rejection) -> Response<Self::Body> {
        let (status, code, message) = s3_error_of(why);
        self.error(status, code, message)
    }

    fn operation(ext: &http::Extensions) -> S3Op {
        ext.get::<S3Op>().copied().unwrap_or(S3Op::Other)
    }

    fn write_metrics(&self, out: &mut String) {
        Dispatcher::write_metrics(self, out);
    }

    fn drained(&self) -> impl Future<Output = ()> + Send {
        Dispatcher::drained(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_are_the_s3_errors_clients_expect() {
        let table = [
            (Rejection::Overloaded, 503, "SlowDown"),
            (Rejection::ShuttingDown, 503, "ServiceUnavailable"),
            (Rejection::HandlerFailed, 500, "InternalError"),
            (Rejection::BodyTimedOut, 400, "RequestTimeout"),
            (Rejection::BodyIncomplete, 400, "IncompleteBody"),
        ];
        for (why, status, code) in table {
            let (s, c, m) = s3_error_of(why);
            assert_eq!((s.as_u16(), c), (status, code), "{why:?}");
            assert!(m.ends_with('.'), "{why:?}: a sentence");
        }
    }
}
