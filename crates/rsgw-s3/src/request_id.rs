//! Request ids: every response carries `x-amz-request-id`, and every S3
//! error body its `RequestId`, whichever layer produced the error.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use futures::future::BoxFuture;
use hyper::body::Incoming;
use rsgw_frontend::{LogFields, Logged};
use rsgw_gateway::Gateway;
use s3s::Body;
use s3s::service::S3Service;

use crate::cors::{Cors, Preflight};
use crate::operation::S3Op;
use crate::post_object::{FormTap, PostReply};
use crate::ratelimit::{self, Admitted};
use crate::website::Website;

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

/// Where the access check notes the request's operation (s3s keeps its own
/// name for it to itself): set once s3s has routed the request, so a
/// request it could not route leaves it empty.
/// The access check also notes what the request named and who signed it,
/// for the ops log.
#[derive(Clone, Default)]
pub(crate) struct OpSlot(Arc<(OnceLock<S3Op>, OnceLock<Named>, OnceLock<Admitted>)>);

/// What a routed request named, and who signed it.
#[derive(Debug, Default)]
pub(crate) struct Named {
    /// The bucket, if any.
    pub bucket: Option<String>,
    /// The object key, if any.
    pub object: Option<String>,
    /// The user of the signing key; `None`: anonymous.
    pub user: Option<String>,
    /// The signing key.
    pub access_key: Option<String>,
}

impl OpSlot {
    pub(crate) fn set(&self, op: S3Op) {
        let _ = self.0.0.set(op);
    }
    /// Notes what the request named (the first note counts).
    pub(crate) fn name(&self, named: Named) {
        let _ = self.0.1.set(named);
    }
    /// Notes the rate limits' decision.
    pub(crate) fn admitted(&self, a: Admitted) {
        let _ = self.0.2.set(a);
    }
    /// The routed operation, `None` if s3s found none.
    fn routed(&self) -> Option<S3Op> {
        self.0.0.get().copied()
    }
    /// The ops log's fields of the request with id `id`.
    fn log_fields(&self, id: &str) -> LogFields {
        let named = self.0.1.get();
        LogFields {
            request_id: id.to_string(),
            bucket: named.and_then(|n| n.bucket.clone()),
            object: named.and_then(|n| n.object.clone()),
            user: named.and_then(|n| n.user.clone()),
            access_key: named.and_then(|n| n.access_key.clone()),
        }
    }
}

/// The S3 service with request ids added.
pub type S3HttpService = RequestIdService;

/// Wraps the s3s service: assigns the request id, puts it in the response
/// headers and into error bodies that lack it, and writes control
/// characters in XML bodies as radosgw does (`crate::xml_text`).
#[derive(Clone)]
pub struct RequestIdService {
    gw: Gateway,
    inner: S3Service,
    ids: Arc<RequestIds>,
    max_header_size: usize,
    post_form_fields_max: usize,
    cors: Cors,
    website: Option<Website>,
    /// The names of virtual-hosted-style requests, if configured.
    hosts: Option<Arc<crate::DnsNames>>,
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
/// ([`crate::post_object::refusal`]), read from s3s's error document.
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
    crate::post_object::refusal(
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

/// Adds `<RequestId>` to a buffered XML error body that has none.
fn with_request_id(body: &Bytes, id: &str) -> Option<Bytes> {
    let text = std::str::from_utf8(body).ok()?;
    if text.contains("<RequestId>") {
        return None;
    }
    let end = text.rfind("</Error>")?;
    Some(Bytes::from(format!(
        "{}<RequestId>{id}</RequestId>{}",
        &text[..end],
        &text[end..]
    )))
}

/// Whether a response is an XML document.
fn is_xml(h: &http::HeaderMap) -> bool {
    h.get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/xml"))
}

/// Whether a request announces a body.
fn request_has_body(h: &http::HeaderMap) -> bool {
    h.contains_key(http::header::TRANSFER_ENCODING)
        || h.contains_key(http::header::EXPECT)
        || h.get(http::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0")
}

impl RequestIdService {
    pub(crate) fn new(
        gw: Gateway,
        inner: S3Service,
        max_header_size: usize,
        post_form_fields_max: usize,
        cors: Cors,
        website: Option<Website>,
        hosts: Option<Arc<crate::DnsNames>>,
    ) -> Self {
        RequestIdService {
            gw,
            inner,
            ids: Arc::new(RequestIds::new()),
            max_header_size,
            post_form_fields_max,
            cors,
            website,
            hosts,
        }
    }

    /// The gateway's own metrics, in Prometheus text: whether the metadata
    /// caches are kept coherent by a watch now, the rate limits' refusals,
    /// the object cache's figures.
    pub fn write_metrics(&self, out: &mut String) {
        out.push_str(
            "# HELP rsgw_metadata_watch_up 1 while the instance watches the store's control object, so its metadata caches are coherent; 0 while it falls back to short TTLs (s3.metadata_cache_ttl_ms).\n\
             # TYPE rsgw_metadata_watch_up gauge\n",
        );
        out.push_str(if self.gw.metadata_watched() {
            "rsgw_metadata_watch_up 1\n"
        } else {
            "rsgw_metadata_watch_up 0\n"
        });
        ratelimit::write_metrics(&self.gw, out);
        crate::object_cache::write_metrics(&self.gw, out);
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

    /// Serves one request.
    pub async fn call(&self, mut req: http::Request<Body>) -> http::Response<Body> {
        let id = self.ids.next();
        let slot = OpSlot::default();
        req.extensions_mut().insert(slot.clone());
        let method = req.method().clone();
        let logged = req.extensions().get::<Logged>().is_some();
        let has_body = request_has_body(req.headers());
        let header_bytes: usize = req
            .headers()
            .iter()
            .map(|(k, v)| k.as_str().len() + v.len() + 4)
            .sum();
        let dates = crate::dates::check_sigv2(req.headers(), std::time::SystemTime::now())
            .and_then(|()| crate::dates::check_sigv4_shape(req.headers(), req.uri().query()));
        let site = self.website.as_ref().and_then(|w| {
            let bucket = w.bucket_of(req.headers())?;
            Some((w, bucket))
        });
        let preflight = site.is_none() && req.method() == http::Method::OPTIONS;
        // a POST to a bucket (path-style) is a browser upload: S3 answers
        // one that is no form 412, not 405
        let bucket_post = req.method() == http::Method::POST && req.uri().query().is_none() && {
            let path = req.uri().path().trim_matches('/');
            !path.is_empty() && !path.contains('/')
        };
        let cors_asked = if preflight || site.is_some() {
            None
        } else {
            self.cors.asked(&req)
        };
        let mut resp = if let Some((website, bucket)) = site {
            slot.set(S3Op::WebsiteGet);
            slot.name(Named {
                bucket: Some(bucket.clone()),
                object: Some(req.uri().path().trim_start_matches('/').to_string())
                    .filter(|k| !k.is_empty()),
                ..Named::default()
            });
            Box::pin(website.serve(&req, &bucket, &id)).await
        } else if preflight {
            slot.set(S3Op::PreflightCors);
            match Box::pin(self.cors.preflight(&req)).await {
                Preflight::Allowed(h) => {
                    let mut r = http::Response::new(Body::empty());
                    *r.headers_mut() = h;
                    r
                }
                Preflight::Refused(status, code, message) => {
                    error_response(status, code, &message, &id)
                }
            }
        } else if let Err(e) = dates {
            let (status, code, message) = e.s3();
            error_response(status, code, message, &id)
        } else if header_bytes > self.max_header_size {
            error_response(
                http::StatusCode::BAD_REQUEST,
                "RequestHeaderSectionTooLarge",
                &format!(
                    "Your request header section exceeds the maximum allowed size ({} bytes).",
                    self.max_header_size
                ),
                &id,
            )
        } else if let Some(answer) =
            crate::fast_get::serve(&self.gw, self.hosts.as_deref(), &req, &slot, logged).await
        {
            answer.unwrap_or_else(|e| {
                error_response(
                    e.status_code()
                        .unwrap_or(http::StatusCode::SERVICE_UNAVAILABLE),
                    e.code().as_str(),
                    e.message().unwrap_or_default(),
                    &id,
                )
            })
        } else {
            let req = FormTap::wrap(req, self.post_form_fields_max);
            let tap = req.extensions().get::<FormTap>().cloned();
            // boxed, as the other large futures here: the small answers
            // (the cache's) then do not carry and move their state
            match Box::pin(self.inner.call(req)).await {
                Ok(mut r) => match r.extensions_mut().remove::<PostReply>() {
                    Some(reply) => reply.response(),
                    None => match tap.and_then(|tap| form_refusal(&r, &tap)) {
                        Some((status, code, message)) => {
                            error_response(status, code, &message, &id)
                        }
                        None => r,
                    },
                },
                Err(e) => {
                    tracing::error!(request_id = %id, error = ?e, "request failed inside s3s");
                    error_response(
                        http::StatusCode::INTERNAL_SERVER_ERROR,
                        "InternalError",
                        "We encountered an internal error. Please try again.",
                        &id,
                    )
                }
            }
        };
        // s3s renders NotModified as an error document; a 304 carries no
        // body (hyper would drop it on the wire, leaving its length behind)
        if resp.status() == http::StatusCode::NOT_MODIFIED {
            *resp.body_mut() = Body::empty();
            resp.headers_mut().remove(http::header::CONTENT_TYPE);
            resp.headers_mut().remove(http::header::CONTENT_LENGTH);
        }
        let routed = slot.routed();
        // s3s answers every HeadObject 200; a range or part of the object
        // is 206, as GET's (and S3's HEAD) is
        if routed == Some(S3Op::HeadObject)
            && resp.status() == http::StatusCode::OK
            && resp.headers().contains_key(http::header::CONTENT_RANGE)
        {
            *resp.status_mut() = http::StatusCode::PARTIAL_CONTENT;
        }
        // the gateway's own XML documents; an object's data is never touched
        // (it streams, and its type is the uploader's)
        if routed != Some(S3Op::GetObject)
            && is_xml(resp.headers())
            && let Some(b) = resp.body().bytes()
            && let Some(escaped) = crate::xml_text::escape_controls(&b)
        {
            let len = escaped.len();
            *resp.body_mut() = Body::from(escaped);
            resp.headers_mut()
                .insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
        }
        if is_unroutable(&resp, routed) {
            resp = if bucket_post {
                error_response(
                    http::StatusCode::PRECONDITION_FAILED,
                    "PreconditionFailed",
                    "At least one of the pre-conditions you specified did not hold: \
                     Bucket POST must be of the enclosure-type multipart/form-data",
                    &id,
                )
            } else {
                error_response(
                    http::StatusCode::METHOD_NOT_ALLOWED,
                    "MethodNotAllowed",
                    "The specified method is not allowed against this resource.",
                    &id,
                )
            };
        }
        if resp.status().as_u16() >= 400
            && let Some(b) = resp.body().bytes()
            && let Some(patched) = with_request_id(&b, &id)
        {
            let len = patched.len();
            *resp.body_mut() = Body::from(patched);
            resp.headers_mut()
                .insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
        }
        if let Ok(v) = http::HeaderValue::from_str(&id) {
            resp.headers_mut().insert("x-amz-request-id", v);
        }
        if let Some(asked) = &cors_asked {
            self.cors.decorate(asked, &mut resp).await;
        }
        resp.extensions_mut().insert(routed.unwrap_or(S3Op::Other));
        if let Some(a) = slot.0.2.get() {
            match &a.refused {
                Some(r) => {
                    resp.headers_mut().insert(
                        http::header::RETRY_AFTER,
                        http::HeaderValue::from(ratelimit::retry_after(r)),
                    );
                }
                None if ratelimit::is_read(&method) && resp.status().is_success() => {
                    let len = resp
                        .headers()
                        .get(http::header::CONTENT_LENGTH)
                        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
                        .unwrap_or(0);
                    let named = slot.0.1.get();
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
        if logged {
            resp.extensions_mut().insert(slot.log_fields(&id));
        }
        // An error may be answered before the body was read, and a client
        // that sent `Expect: 100-continue` then never sends it: the rest of
        // the connection would be out of step. Closing it keeps both sides sane.
        if has_body && resp.status().as_u16() >= 400 {
            resp.headers_mut().insert(
                http::header::CONNECTION,
                http::HeaderValue::from_static("close"),
            );
        }
        resp
    }
}

impl hyper::service::Service<http::Request<Incoming>> for RequestIdService {
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
        let patched = with_request_id(&body, "tx1").expect("patched");
        assert_eq!(
            &patched[..],
            b"<Error><Code>NoSuchKey</Code><RequestId>tx1</RequestId></Error>"
        );
        assert!(with_request_id(&patched, "tx2").is_none());
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
            let got = with_request_id(&Bytes::copy_from_slice(body), "tx9");
            assert_eq!(got.as_deref(), want.map(str::as_bytes), "{why}");
        }
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

    #[test]
    fn the_first_operation_noted_is_the_one_kept() {
        let slot = OpSlot::default();
        assert_eq!(slot.routed(), None);
        let seen_by_s3s = slot.clone();
        seen_by_s3s.set(S3Op::GetObject);
        seen_by_s3s.set(S3Op::PutObject);
        assert_eq!(slot.routed(), Some(S3Op::GetObject));
    }
}
