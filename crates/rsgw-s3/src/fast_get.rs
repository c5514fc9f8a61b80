//! The small public GET without s3s: an anonymous GET or HEAD of a whole
//! object that the object cache holds is answered here, before s3s routes,
//! parses and serializes it (about a third of such a request's CPU with
//! keep-alive, docs/perf/object-cache.md). The answer is the one
//! `RsgwS3::get_object` and `head_object` give, header for header
//! (tests/gateway/test_object_cache.py compares them).
//!
//! Only the plainest requests qualify: no query, no signature, and only
//! headers that do not change an S3 GET (see [`passive`]); a key without
//! percent-escapes; the bucket's record and the object cached and the
//! anonymous reader allowed. Anything else, errors included, goes the
//! usual way. What surrounds the dispatch (request id, CORS, rate-limit
//! charging, metrics, the ops log) is the dispatcher's, as for every
//! request; the rate-limit admission is made here as s3s' access
//! check makes it.

use std::time::{Duration, SystemTime};

use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Response, StatusCode};
use rsgw_gateway::{CachedObject, Gateway, Principal};
use s3s::Body;
use s3s::host::S3Host;

use crate::host::DnsNames;
use crate::noted::{Named, OpSlot};
use crate::operation::S3Op;
use crate::ratelimit;
use crate::requester::requester;

/// Whether a request header leaves an S3 GET as it is: what browsers and
/// proxies send on every request. Any other header (a range, a condition,
/// a signature, any `x-amz-*`) sends the request through s3s.
fn passive(name: &HeaderName) -> bool {
    let n = name.as_str();
    matches!(
        n,
        "host"
            | "user-agent"
            | "accept"
            | "accept-encoding"
            | "accept-language"
            | "accept-charset"
            | "connection"
            | "keep-alive"
            | "referer"
            | "origin"
            | "cache-control"
            | "pragma"
            | "dnt"
            | "priority"
            | "upgrade-insecure-requests"
            | "cookie"
            | "via"
            | "forwarded"
            | "x-forwarded-for"
            | "x-forwarded-proto"
            | "x-forwarded-host"
            | "x-real-ip"
    ) || n.starts_with("sec-fetch-")
        || n.starts_with("sec-ch-")
}

/// The bucket and key a plain request names: path-style, or
/// virtual-hosted-style under `hosts`.
fn bucket_and_key<'a>(
    hosts: Option<&DnsNames>,
    headers: &'a HeaderMap,
    path: &'a str,
) -> Option<(String, &'a str)> {
    let path = path.strip_prefix('/')?;
    if path.contains('%') {
        return None;
    }
    if let Some(hosts) = hosts {
        let host = headers.get(http::header::HOST)?.to_str().ok()?;
        if let Some(bucket) = hosts.parse_host_header(host).ok()?.bucket() {
            return (!path.is_empty()).then(|| (bucket.to_string(), path));
        }
    }
    let (bucket, key) = path.split_once('/')?;
    (!bucket.is_empty() && !key.is_empty()).then(|| (bucket.to_string(), key))
}

/// Room for the headers of a cached object's response besides its
/// `x-amz-meta-*` (it has 12 at most), reserved at once.
const HEADERS: usize = 13;

/// The response `RsgwS3::get_object` (or `head_object`) gives for `o`;
/// `None` for metadata s3s would encode (RFC 2047) or refuse, and for a
/// locked version.
fn response(o: &CachedObject, head: bool) -> Option<Response<Body>> {
    let m = o.meta();
    if m.retention.is_some() || m.legal_hold.is_some() {
        // its lock's headers: s3s writes them
        return None;
    }
    let mut h = HeaderMap::with_capacity(HEADERS + m.user_meta.len());
    let stored = |name: &str| m.headers.get(name).map(String::as_str);
    let value = |v: &str| HeaderValue::from_str(v).ok();
    h.insert(
        http::header::ACCEPT_RANGES,
        HeaderValue::from_static("bytes"),
    );
    for (name, key) in [
        (http::header::CACHE_CONTROL, "cache-control"),
        (http::header::CONTENT_DISPOSITION, "content-disposition"),
        (http::header::CONTENT_ENCODING, "content-encoding"),
        (http::header::CONTENT_LANGUAGE, "content-language"),
    ] {
        if let Some(v) = stored(key) {
            h.insert(name, value(v)?);
        }
    }
    h.insert(http::header::CONTENT_LENGTH, HeaderValue::from(m.size));
    h.insert(
        http::header::CONTENT_TYPE,
        value(stored("content-type").unwrap_or("binary/octet-stream"))?,
    );
    h.insert(http::header::ETAG, value(&format!("\"{}\"", m.etag))?);
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs_f64(m.mtime.max(0.0));
    h.insert(
        http::header::LAST_MODIFIED,
        value(&httpdate::fmt_http_date(modified))?,
    );
    for (k, v) in &m.user_meta {
        // s3s encodes other values (RFC 2047); leave those to it
        if !v.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            return None;
        }
        let name = HeaderName::from_bytes(format!("x-amz-meta-{k}").as_bytes()).ok()?;
        h.insert(name, value(v)?);
    }
    if !head && !m.tags.is_empty() {
        h.insert("x-amz-tagging-count", HeaderValue::from(m.tags.len()));
    }
    if let Some(v) = stored("expires") {
        h.insert(http::header::EXPIRES, value(v)?);
    }
    if let Some(v) = &m.version_id {
        h.insert("x-amz-version-id", value(v)?);
    }
    let mut resp = Response::new(if head {
        Body::empty()
    } else {
        Body::from(o.data().clone())
    });
    *resp.status_mut() = StatusCode::OK;
    *resp.headers_mut() = h;
    Some(resp)
}

/// Answers `req` from the object cache if it qualifies (see the module
/// documentation); `None` sends it through s3s. An error is the rate
/// limit's refusal.
pub(crate) async fn serve(
    gw: &Gateway,
    hosts: Option<&DnsNames>,
    req: &Request<Body>,
    slot: &OpSlot,
    logged: bool,
) -> Option<Result<Response<Body>, s3s::S3Error>> {
    let head = match *req.method() {
        Method::GET => false,
        Method::HEAD => true,
        _ => return None,
    };
    if req.uri().query().is_some() || !req.headers().keys().all(passive) {
        return None;
    }
    let (bucket, key) = bucket_and_key(hosts, req.headers(), req.uri().path())?;
    let rq = requester(Principal::Anonymous, req.headers(), req.extensions());
    let object = gw.get_cached(&rq, &bucket, key)?;
    let resp = response(&object, head)?;
    slot.set(if head {
        S3Op::HeadObject
    } else {
        S3Op::GetObject
    });
    slot.name(Named {
        bucket: Some(bucket.clone()),
        object: logged.then(|| key.to_string()),
        ..Named::default()
    });
    let (admitted, verdict) =
        ratelimit::admit(gw, req.method(), req.headers(), None, Some(&bucket)).await;
    if let Some(a) = admitted {
        slot.admitted(a);
    }
    Some(verdict.map(|()| resp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_headers_are_passive() {
        for n in [
            "host",
            "user-agent",
            "sec-fetch-mode",
            "x-forwarded-for",
            "origin",
        ] {
            assert!(passive(&HeaderName::from_static(n)), "{n}");
        }
        for n in [
            "authorization",
            "range",
            "if-none-match",
            "x-amz-content-sha256",
            "x-amz-expected-bucket-owner",
            "content-length",
        ] {
            assert!(!passive(&HeaderName::from_static(n)), "{n}");
        }
    }

    #[test]
    fn path_and_virtual_host_styles() {
        let mut h = HeaderMap::new();
        h.insert(
            http::header::HOST,
            HeaderValue::from_static("127.0.0.1:7480"),
        );
        let bk = |hosts: Option<&DnsNames>, h: &HeaderMap, p: &str| {
            bucket_and_key(hosts, h, p).map(|(b, k)| (b, k.to_string()))
        };
        assert_eq!(
            bk(None, &h, "/b/a/k.js"),
            Some(("b".into(), "a/k.js".into()))
        );
        for p in ["/b", "/b/", "//k", "/b/%41", "b/k"] {
            assert_eq!(bk(None, &h, p), None, "{p}");
        }
        let hosts = DnsNames(vec!["s3.test".into()]);
        assert_eq!(
            bk(Some(&hosts), &h, "/b/k"),
            Some(("b".into(), "k".into())),
            "an IP is path-style"
        );
        h.insert(http::header::HOST, HeaderValue::from_static("site.s3.test"));
        assert_eq!(
            bk(Some(&hosts), &h, "/b/k"),
            Some(("site".into(), "b/k".into()))
        );
        assert_eq!(bk(Some(&hosts), &h, "/"), None);
    }
}
