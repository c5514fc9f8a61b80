//! The dispatcher: every S3 request's way through rsgw, from the
//! frontend's call to the response. It gives the request its id and a
//! place for notes (`noted::OpSlot`), then sends it through these stages,
//! in this order; the first that answers wins:
//!
//! 1. [`Dispatcher::website`]: a request to the website endpoint
//!    (`bucket.<website name>`), answered as a website (`crate::website`);
//! 2. [`Dispatcher::preflight`]: `OPTIONS`, a browser's CORS preflight,
//!    answered from the bucket's rules (`crate::cors`);
//! 3. [`Dispatcher::refused`]: what s3s must not be given: a SigV2 date
//!    out of the window or a SigV4 date of the wrong shape
//!    (`crate::dates`), a signature S3 would not read (`crate::signature`),
//!    a header section over `max_header_size`;
//! 4. [`fast_get::serve`]: an anonymous GET or HEAD of an object the
//!    object cache holds, answered without s3s ([`cached`]);
//! 5. [`Dispatcher::s3s`]: everything else goes to s3s, a document sent
//!    with a digest checked as s3s reads it (`crate::documents`); s3s
//!    checks the signature, routes, asks the access check (`crate::access`), parses
//!    and calls the operation (`crate::ops`); a POST form's body is tapped
//!    on its way in, and what s3s answers a form replaced by S3's answer
//!    (`crate::form`).
//!
//! Every answer is then finished, in this order: a 304 loses its body, a
//! HEAD of a range is a 206, control characters in the gateway's XML are
//! escaped as radosgw escapes them (`crate::xml_text`), a request s3s
//! could not route is a 405 (or 412 for a POST to a bucket that is no
//! form), error bodies get their `RequestId` and every response its
//! `x-amz-request-id`, CORS headers are added for a request that names an
//! `Origin`, the operation is noted for metrics, a read's bytes are charged
//! to its rate limits (or a refusal gets its `Retry-After`), the usage
//! log counts it (when kept), the ops log gets its fields, and an error to
//! a request with a body closes the connection. An Admin Ops API request's
//! error is radosgw's JSON document, not S3's XML.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use futures::future::BoxFuture;
use hyper::body::Incoming;
use rsgw_frontend::{LogFields, Logged};
use rsgw_gateway::{Gateway, UsageCounters};
use s3s::Body;
use s3s::service::S3Service;

use crate::admin_api::{self, AdminEntry};
use crate::cors::{Asked, Cors, Preflight};
use crate::form::{FormTap, PostReply};
use crate::host::DnsNames;
use crate::noted::{Named, OpSlot};
use crate::operation::{Family, S3Op};
use crate::website::Website;
use crate::{dates, documents, fast_get, metrics, ratelimit, signature, xml_text};

/// What a header line adds to its name and value: `: ` and CRLF.
const HEADER_LINE_EXTRA: usize = 4;

/// Request ids unique within a process and across its restarts:
/// `tx<16 hex counter>-<8 hex start time>`, like radosgw's.
struct RequestIds {
    epoch: u64,
    next: AtomicU64,
}

impl RequestIds {
    fn new() -> Self {
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
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

/// The S3 service: the dispatcher.
pub type S3HttpService = Dispatcher;

/// The S3 service: sends each request through the stages before s3s and
/// s3s (see the module documentation), and finishes every answer.
#[derive(Clone)]
pub struct Dispatcher {
    gw: Gateway,
    inner: S3Service,
    ids: Arc<RequestIds>,
    max_header_size: usize,
    post_form_fields_max: usize,
    cors: Cors,
    website: Option<Website>,
    /// The names of virtual-hosted-style requests, if configured.
    hosts: Option<Arc<DnsNames>>,
    /// Where the Admin Ops API answers.
    admin: AdminEntry,
}

/// What finishing a response needs to know of its request, which the
/// stages may consume.
struct Seen {
    method: http::Method,
    /// Whether the ops log wants the request.
    logged: bool,
    /// Whether the request announces a body.
    has_body: bool,
    /// Whether it is a POST to a bucket (path-style): a browser upload.
    bucket_post: bool,
    /// What CORS headers the response may need, for a request that names
    /// an `Origin` (none for the website endpoint and preflights).
    cors: Option<Asked>,
    /// Whether it is an Admin Ops API request: its errors are JSON.
    admin: bool,
    /// The body bytes it announces (`Content-Length`), for the usage log.
    received: u64,
}

impl Seen {
    fn of(req: &http::Request<Body>, cors: Option<&Cors>, admin: &AdminEntry) -> Self {
        Seen {
            admin: admin.resource(req.uri(), req.headers()).is_some(),
            received: content_length(req.headers()),
            method: req.method().clone(),
            logged: req.extensions().get::<Logged>().is_some(),
            has_body: request_has_body(req.headers()),
            // S3 answers a POST to a bucket that is no form 412, not 405
            bucket_post: req.method() == http::Method::POST && req.uri().query().is_none() && {
                let path = req.uri().path().trim_matches('/');
                !path.is_empty() && !path.contains('/')
            },
            cors: cors.and_then(|c| c.asked(req)),
        }
    }
}

fn error_response(
    status: http::StatusCode,
    code: &str,
    message: &str,
    id: &str,
) -> http::Response<Body> {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code>\
         <Message>{message}</Message><RequestId>{id}</RequestId></Error>"
    );
    let mut resp = http::Response::new(Body::from(body));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/xml"),
    );
    resp
}

/// S3's answer where s3s refused a POST form in its own words
/// ([`crate::form::refusal`]), read from s3s's error document.
fn form_refusal(
    resp: &http::Response<Body>,
    tap: &FormTap,
) -> Option<(http::StatusCode, &'static str, String)> {
    if !resp.status().is_client_error() {
        return None;
    }
    let body = resp.body().bytes()?;
    let text = std::str::from_utf8(&body).ok()?;
    let element = |name: &str| {
        let (_, rest) = text.split_once(&format!("<{name}>"))?;
        rest.split_once(&format!("</{name}>")).map(|(v, _)| v)
    };
    crate::form::refusal(
        tap,
        element("Code")?,
        element("Message").unwrap_or_default(),
    )
}

/// s3s answers a method and resource that map to no S3 operation at all
/// (POST on an object without `?uploads`, say) with 501 NotImplemented
/// before its access check; S3 answers 405 MethodNotAllowed. Operations S3
/// has and rsgw lacks pass the access check (their operation is noted) and
/// keep 501.
fn is_unroutable(resp: &http::Response<Body>, routed: Option<S3Op>) -> bool {
    resp.status() == http::StatusCode::NOT_IMPLEMENTED && routed.is_none()
}

/// S3's answer to a request that names no operation: 412 to a POST to a
/// bucket (a browser upload that is no form), else 405.
fn unroutable(bucket_post: bool, id: &str) -> http::Response<Body> {
    if bucket_post {
        error_response(
            http::StatusCode::PRECONDITION_FAILED,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold: \
             Bucket POST must be of the enclosure-type multipart/form-data",
            id,
        )
    } else {
        error_response(
            http::StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "The specified method is not allowed against this resource.",
            id,
        )
    }
}

/// Completes a buffered XML error body: its `<RequestId>` where it has
/// none, and for `NoSuchBucket` the `<BucketName>` the request named, as
/// AWS and radosgw name it. `None`: nothing to add.
fn completed_error(body: &Bytes, id: &str, bucket: Option<&str>) -> Option<Bytes> {
    let text = std::str::from_utf8(body).ok()?;
    let end = text.rfind("</Error>")?;
    let mut added = String::new();
    if let Some(b) = bucket
        .filter(|_| text.contains("<Code>NoSuchBucket</Code>") && !text.contains("<BucketName>"))
    {
        added = format!("<BucketName>{}</BucketName>", xml_text::escape(b));
    }
    if !text.contains("<RequestId>") {
        added.push_str(&format!("<RequestId>{id}</RequestId>"));
    }
    (!added.is_empty()).then(|| Bytes::from(format!("{}{added}{}", &text[..end], &text[end..])))
}

/// Whether a response is an XML document.
fn is_xml(h: &http::HeaderMap) -> bool {
    h.get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/xml"))
}

/// A message's `Content-Length`, 0 without one.
fn content_length(h: &http::HeaderMap) -> u64 {
    h.get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.trim().parse().ok())
        .unwrap_or(0)
}

/// Whether a request announces a body.
fn request_has_body(h: &http::HeaderMap) -> bool {
    h.contains_key(http::header::TRANSFER_ENCODING)
        || h.contains_key(http::header::EXPECT)
        || h.get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0")
}

/// Stage 4's answer, from the object cache (`fast_get::serve`): the
/// object, or the rate limits' refusal.
fn cached(answer: Result<http::Response<Body>, s3s::S3Error>, id: &str) -> http::Response<Body> {
    answer.unwrap_or_else(|e| {
        error_response(
            e.status_code()
                .unwrap_or(http::StatusCode::SERVICE_UNAVAILABLE),
            e.code().as_str(),
            e.message().unwrap_or_default(),
            id,
        )
    })
}

/// Replaces a response's body with `body`, and its length.
fn set_body(resp: &mut http::Response<Body>, body: Bytes) {
    let len = body.len();
    *resp.body_mut() = Body::from(body);
    resp.headers_mut()
        .insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
}

/// s3s renders NotModified as an error document; a 304 carries no body
/// (hyper would drop it on the wire, leaving its length behind).
fn not_modified_without_body(resp: &mut http::Response<Body>) {
    if resp.status() == http::StatusCode::NOT_MODIFIED {
        *resp.body_mut() = Body::empty();
        resp.headers_mut().remove(http::header::CONTENT_TYPE);
        resp.headers_mut().remove(http::header::CONTENT_LENGTH);
    }
}

/// s3s answers every HeadObject 200; a range or part of the object is
/// 206, as GET's (and S3's HEAD) is.
fn partial_head(resp: &mut http::Response<Body>, routed: Option<S3Op>) {
    if routed == Some(S3Op::HeadObject)
        && resp.status() == http::StatusCode::OK
        && resp.headers().contains_key(http::header::CONTENT_RANGE)
    {
        *resp.status_mut() = http::StatusCode::PARTIAL_CONTENT;
    }
}

/// Escapes control characters in the gateway's own XML documents; an
/// object's data is never touched (it streams, and its type is the
/// uploader's).
fn escape_xml_controls(resp: &mut http::Response<Body>, routed: Option<S3Op>) {
    if routed != Some(S3Op::GetObject)
        && is_xml(resp.headers())
        && let Some(b) = resp.body().bytes()
        && let Some(escaped) = crate::xml_text::escape_controls(&b)
    {
        set_body(resp, escaped);
    }
}

/// Puts the request id into an error body that lacks it (and the bucket
/// into a `NoSuchBucket`'s, [`completed_error`]), and into the
/// `x-amz-request-id` header.
fn add_request_id(resp: &mut http::Response<Body>, id: &str, bucket: Option<&str>) {
    if resp.status().as_u16() >= 400
        && let Some(b) = resp.body().bytes()
        && let Some(patched) = completed_error(&b, id, bucket)
    {
        set_body(resp, patched);
    }
    if let Ok(v) = http::HeaderValue::from_str(id) {
        resp.headers_mut().insert("x-amz-request-id", v);
    }
}

/// An Admin Ops API error as radosgw writes it: JSON, not S3's XML
/// (`admin_api::json_error`), whoever refused the request (s3s' signature
/// check too).
fn json_errors(resp: &mut http::Response<Body>, id: &str) {
    if resp.status().as_u16() >= 400
        && let Some(b) = resp.body().bytes()
        && let Some(doc) = admin_api::json_error(&b, id)
    {
        set_body(resp, Bytes::from(doc));
        resp.headers_mut().insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
    }
}

/// An error may be answered before the body was read, and a client that
/// sent `Expect: 100-continue` then never sends it: the rest of the
/// connection would be out of step. Closing it keeps both sides sane.
fn close_after_error(resp: &mut http::Response<Body>, has_body: bool) {
    if has_body && resp.status().as_u16() >= 400 {
        resp.headers_mut().insert(
            http::header::CONNECTION,
            http::HeaderValue::from_static("close"),
        );
    }
}

impl Dispatcher {
    pub(crate) fn new(
        gw: Gateway,
        inner: S3Service,
        (max_header_size, post_form_fields_max): (usize, usize),
        cors: Cors,
        website: Option<Website>,
        hosts: Option<Arc<DnsNames>>,
        admin: AdminEntry,
    ) -> Self {
        Dispatcher {
            gw,
            inner,
            ids: Arc::new(RequestIds::new()),
            max_header_size,
            post_form_fields_max,
            cors,
            website,
            hosts,
            admin,
        }
    }

    /// The gateway's own metrics, in Prometheus text (`crate::metrics`).
    pub fn write_metrics(&self, out: &mut String) {
        metrics::write(&self.gw, out);
    }

    /// Writes the usage log's counts not yet flushed (the instance is about
    /// to exit).
    pub fn drained(&self) -> impl std::future::Future<Output = ()> + Send + use<> {
        let gw = self.gw.clone();
        async move {
            if gw.usage_log_enabled()
                && let Err(error) = gw.flush_usage().await
            {
                tracing::warn!(%error, "usage log: the last counts are lost");
            }
        }
    }

    /// An S3 error response (XML body) with a fresh request id, for layers
    /// in front of this service (admission's `503 SlowDown`, say).
    pub fn error(
        &self,
        status: http::StatusCode,
        code: &str,
        message: &str,
    ) -> http::Response<Body> {
        let id = self.ids.next();
        let mut resp = error_response(status, code, message, &id);
        if let Ok(v) = http::HeaderValue::from_str(&id) {
            resp.headers_mut().insert("x-amz-request-id", v);
        }
        resp.extensions_mut().insert(S3Op::Other);
        resp.extensions_mut().insert(LogFields {
            request_id: id,
            ..LogFields::default()
        });
        resp
    }

    /// Serves one request: the stages in order, then the finishing steps
    /// (see the module documentation).
    pub async fn call(&self, mut req: http::Request<Body>) -> http::Response<Body> {
        let id = self.ids.next();
        let slot = OpSlot::default();
        req.extensions_mut().insert(slot.clone());
        let site = self
            .website
            .as_ref()
            .and_then(|w| Some((w, w.bucket_of(req.headers())?)));
        let preflight = site.is_none() && req.method() == http::Method::OPTIONS;
        let seen = Seen::of(
            &req,
            (site.is_none() && !preflight).then_some(&self.cors),
            &self.admin,
        );
        // the large futures are boxed: the small answers (the cache's) then
        // do not carry and move their state
        let mut resp = if let Some((website, bucket)) = site {
            Box::pin(Self::website(website, bucket, &req, &slot, &id)).await
        } else if preflight {
            Box::pin(self.preflight(&req, &slot, &id)).await
        } else if let Some(refusal) = self.refused(&req, &id) {
            refusal
        } else if let Some(answer) = if seen.admin {
            // the Admin Ops API is s3s' route, never an object
            None
        } else {
            fast_get::serve(&self.gw, self.hosts.as_deref(), &req, &slot, seen.logged).await
        } {
            cached(answer, &id)
        } else {
            Box::pin(self.s3s(req, &id)).await
        };
        // then every answer is finished, step by step
        let routed = slot.routed();
        not_modified_without_body(&mut resp);
        partial_head(&mut resp, routed);
        escape_xml_controls(&mut resp, routed);
        if is_unroutable(&resp, routed) {
            resp = unroutable(seen.bucket_post, &id);
        }
        if seen.admin {
            json_errors(&mut resp, &id);
        }
        add_request_id(
            &mut resp,
            &id,
            slot.named().and_then(|n| n.bucket.as_deref()),
        );
        if let Some(asked) = &seen.cors {
            self.cors.decorate(asked, &mut resp).await;
        }
        resp.extensions_mut().insert(routed.unwrap_or(S3Op::Other));
        self.account_rate(&mut resp, &slot, &seen.method);
        if self.gw.usage_log_enabled() {
            self.count_usage(&resp, &slot, seen.received);
        }
        if seen.logged {
            resp.extensions_mut().insert(slot.log_fields(&id));
        }
        close_after_error(&mut resp, seen.has_body);
        resp
    }

    /// Stage 1: a request to `bucket`'s website.
    async fn website(
        website: &Website,
        bucket: String,
        req: &http::Request<Body>,
        slot: &OpSlot,
        id: &str,
    ) -> http::Response<Body> {
        slot.set(S3Op::WebsiteGet);
        slot.name(Named {
            bucket: Some(bucket.clone()),
            object: Some(req.uri().path().trim_start_matches('/').to_string())
                .filter(|k| !k.is_empty()),
            ..Named::default()
        });
        website.serve(req, &bucket, id).await
    }

    /// Stage 2: a CORS preflight.
    async fn preflight(
        &self,
        req: &http::Request<Body>,
        slot: &OpSlot,
        id: &str,
    ) -> http::Response<Body> {
        slot.set(S3Op::PreflightCors);
        match self.cors.preflight(req).await {
            Preflight::Allowed(h) => {
                let mut r = http::Response::new(Body::empty());
                *r.headers_mut() = h;
                r
            }
            Preflight::Refused(status, code, message) => error_response(status, code, &message, id),
        }
    }

    /// Stage 3: the refusal of a request s3s must not be given, if it is
    /// one: its dates, its signature's shape, then the size of its header
    /// section.
    fn refused(&self, req: &http::Request<Body>, id: &str) -> Option<http::Response<Body>> {
        let dates = dates::check_sigv2(req.headers(), std::time::SystemTime::now())
            .and_then(|()| dates::check_sigv4_shape(req.headers(), req.uri().query()));
        if let Err(e) = dates {
            let (status, code, message) = e.s3();
            return Some(error_response(status, code, message, id));
        }
        if let Err(e) = signature::check(req.headers(), req.uri().query()) {
            let (status, code, message) = e.s3();
            return Some(error_response(status, code, message, id));
        }
        let header_bytes: usize = req
            .headers()
            .iter()
            .map(|(k, v)| k.as_str().len() + v.len() + HEADER_LINE_EXTRA)
            .sum();
        (header_bytes > self.max_header_size).then(|| {
            error_response(
                http::StatusCode::BAD_REQUEST,
                "RequestHeaderSectionTooLarge",
                &format!(
                    "Your request header section exceeds the maximum allowed size ({} bytes).",
                    self.max_header_size
                ),
                id,
            )
        })
    }

    /// Stage 5: s3s, with a POST form tapped on its way in and S3's answers
    /// to forms in place of s3s's.
    async fn s3s(&self, mut req: http::Request<Body>, id: &str) -> http::Response<Body> {
        let verdict = match documents::check_as_read(&mut req) {
            Ok(v) => v,
            Err((status, code, message)) => return error_response(status, code, &message, id),
        };
        let req = FormTap::wrap(req, self.post_form_fields_max);
        let tap = req.extensions().get::<FormTap>().cloned();
        let resp = self.inner.call(req).await;
        if let Some((status, code, message)) = verdict.and_then(|v| v.refusal()) {
            return error_response(status, code, &message, id);
        }
        match resp {
            Ok(mut r) => match r.extensions_mut().remove::<PostReply>() {
                Some(reply) => reply.response(),
                None => match tap.and_then(|tap| form_refusal(&r, &tap)) {
                    Some((status, code, message)) => error_response(status, code, &message, id),
                    None => r,
                },
            },
            Err(e) => {
                tracing::error!(request_id = %id, error = ?e, "request failed inside s3s");
                error_response(
                    http::StatusCode::INTERNAL_SERVER_ERROR,
                    "InternalError",
                    "We encountered an internal error. Please try again.",
                    id,
                )
            }
        }
    }

    /// The usage log's count of an answered request, as radosgw counts
    /// it: for the bucket's owner when it names one, else for its signer;
    /// under bucket `-` when it answered 404; a request of no operation or
    /// of no one counts nothing. The owner comes from the bucket cache the
    /// operation filled, never from a store read: a request answered while
    /// the store is away is not held up a second time here (it then counts
    /// for its signer, when the cache cannot be trusted).
    fn count_usage(&self, resp: &http::Response<Body>, slot: &OpSlot, received: u64) {
        let Some(row) = slot.routed().and_then(S3Op::row) else {
            return;
        };
        let named = slot.named();
        let signer = named.and_then(|n| n.user.clone());
        let bucket = named
            .and_then(|n| n.bucket.as_deref())
            .filter(|_| row.family != Family::Admin);
        let (user, mut bucket) = match bucket {
            Some(b) => (self.gw.cached_bucket_owner(b).or(signer), b.to_string()),
            None => (signer, String::new()),
        };
        let Some(user) = user else {
            return;
        };
        if resp.status() == http::StatusCode::NOT_FOUND && !bucket.is_empty() {
            bucket = "-".into();
        }
        let counts = UsageCounters {
            bytes_sent: content_length(resp.headers()),
            bytes_received: received,
            ops: 1,
            successful_ops: u64::from(resp.status().as_u16() < 400),
        };
        self.gw.record_usage(&user, &bucket, row.usage, counts);
    }

    /// The rate limits' part of a response: a refusal's `Retry-After`, or
    /// the bytes of a successful read charged to the limits it was admitted
    /// under.
    fn account_rate(&self, resp: &mut http::Response<Body>, slot: &OpSlot, method: &http::Method) {
        let Some(a) = slot.admission() else {
            return;
        };
        match &a.refused {
            Some(r) => {
                resp.headers_mut().insert(
                    http::header::RETRY_AFTER,
                    http::HeaderValue::from(ratelimit::retry_after(r)),
                );
            }
            None if ratelimit::is_read(method) && resp.status().is_success() => {
                let len = resp
                    .headers()
                    .get(http::header::CONTENT_LENGTH)
                    .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
                    .unwrap_or(0);
                let named = slot.named();
                self.gw.limiter().charge_read(
                    &a.limits,
                    named.and_then(|n| n.user.as_deref()),
                    named.and_then(|n| n.bucket.as_deref()),
                    len,
                );
            }
            None => {}
        }
    }
}

impl hyper::service::Service<http::Request<Incoming>> for Dispatcher {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn call(&self, req: http::Request<Incoming>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.call(req.map(Body::from)).await) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_id_is_added_once() {
        let body = Bytes::from_static(b"<Error><Code>NoSuchKey</Code></Error>");
        let patched = completed_error(&body, "tx1", None).expect("patched");
        assert_eq!(
            &patched[..],
            b"<Error><Code>NoSuchKey</Code><RequestId>tx1</RequestId></Error>"
        );
        assert!(completed_error(&patched, "tx2", None).is_none());
    }

    #[test]
    fn request_ids_are_added_to_error_bodies_that_lack_one() {
        let table: &[(&str, &[u8], Option<&str>)] = &[
            (
                "s3s' error document",
                b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>m</Message></Error>",
                Some(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code><Message>m</Message><RequestId>tx9</RequestId></Error>",
                ),
            ),
            (
                "before the last </Error>, with what follows kept",
                b"<Error><Code>X</Code></Error>\n",
                Some("<Error><Code>X</Code><RequestId>tx9</RequestId></Error>\n"),
            ),
            (
                "one already there",
                b"<Error><Code>X</Code><RequestId>tx1</RequestId></Error>",
                None,
            ),
            ("no error document", b"<ListBucketResult/>", None),
            ("an empty body", b"", None),
            ("not UTF-8", b"<Error>\xff</Error>", None),
        ];
        for (why, body, want) in table {
            let got = completed_error(&Bytes::copy_from_slice(body), "tx9", None);
            assert_eq!(got.as_deref(), want.map(str::as_bytes), "{why}");
        }
    }

    #[test]
    fn no_such_bucket_names_the_bucket() {
        let body =
            Bytes::from_static(b"<Error><Code>NoSuchBucket</Code><Message>m</Message></Error>");
        let got = completed_error(&body, "tx1", Some("a&b")).expect("patched");
        assert_eq!(
            &got[..],
            &b"<Error><Code>NoSuchBucket</Code><Message>m</Message><BucketName>a&amp;b</BucketName>\
               <RequestId>tx1</RequestId></Error>"[..]
        );
        // once, and only for NoSuchBucket
        assert!(completed_error(&got, "tx1", Some("a&b")).is_none());
        let other =
            Bytes::from_static(b"<Error><Code>NoSuchKey</Code><RequestId>tx1</RequestId></Error>");
        assert!(completed_error(&other, "tx1", Some("b")).is_none());
    }

    #[test]
    fn requests_announce_a_body_by_length_encoding_or_expect() {
        let table: &[(&[(&str, &str)], bool)] = &[
            (&[], false),
            (&[("content-length", "0")], false),
            (&[("content-length", " 0 ")], false),
            (&[("content-length", "1")], true),
            (&[("content-length", "1048576")], true),
            (&[("transfer-encoding", "chunked")], true),
            (&[("expect", "100-continue")], true),
            (&[("content-length", "0"), ("expect", "100-continue")], true),
            (&[("content-type", "application/xml")], false),
        ];
        for (pairs, want) in table {
            let mut h = http::HeaderMap::new();
            for (k, v) in *pairs {
                h.insert(*k, v.parse().expect("header value"));
            }
            assert_eq!(request_has_body(&h), *want, "{pairs:?}");
        }
    }

    #[test]
    fn xml_bodies_are_told_by_their_content_type() {
        let table = [
            (Some("application/xml"), true),
            (Some("application/xml; charset=utf-8"), true),
            (Some("text/plain"), false),
            (Some("binary/octet-stream"), false),
            (None, false),
        ];
        for (ct, want) in table {
            let mut h = http::HeaderMap::new();
            if let Some(ct) = ct {
                h.insert(http::header::CONTENT_TYPE, ct.parse().expect("value"));
            }
            assert_eq!(is_xml(&h), want, "{ct:?}");
        }
    }

    #[test]
    fn only_a_501_for_an_unrouted_request_is_unroutable() {
        let table = [
            (501, None, true),
            (501, Some(S3Op::Other), false),
            (501, Some(S3Op::PutObject), false),
            (405, None, false),
            (404, None, false),
            (403, None, false),
            (200, None, false),
        ];
        for (status, routed, want) in table {
            let mut resp = http::Response::new(Body::empty());
            *resp.status_mut() = http::StatusCode::from_u16(status).expect("status");
            assert_eq!(is_unroutable(&resp, routed), want, "{status} {routed:?}");
        }
    }

    #[test]
    fn error_responses_are_s3_error_documents() {
        let resp = error_response(
            http::StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            "The specified method is not allowed against this resource.",
            "tx00000000000000ff-00000001",
        );
        assert_eq!(resp.status(), http::StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(
            resp.headers().get(http::header::CONTENT_TYPE),
            Some(&http::HeaderValue::from_static("application/xml"))
        );
        let body = resp.body().bytes().expect("buffered");
        assert_eq!(
            std::str::from_utf8(&body).expect("text"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>MethodNotAllowed</Code>\
             <Message>The specified method is not allowed against this resource.</Message>\
             <RequestId>tx00000000000000ff-00000001</RequestId></Error>"
        );
    }

    #[test]
    fn request_ids_count_up_under_the_start_time() {
        let ids = RequestIds {
            epoch: 0x6a00_0000,
            next: AtomicU64::new(1),
        };
        assert_eq!(ids.next(), "tx0000000000000001-6a000000");
        assert_eq!(ids.next(), "tx0000000000000002-6a000000");
        let ids = RequestIds {
            epoch: 1,
            next: AtomicU64::new(u64::MAX),
        };
        assert_eq!(ids.next(), "txffffffffffffffff-00000001");
        // a fresh counter starts at 1 under the current time
        let fresh = RequestIds::new().next();
        assert!(fresh.starts_with("tx0000000000000001-"), "{fresh}");
        assert_eq!(fresh.len(), 2 + 16 + 1 + 8, "{fresh}");
    }
}
