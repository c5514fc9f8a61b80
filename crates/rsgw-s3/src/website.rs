//! The website endpoint, the dispatcher's first stage: it answers GET and
//! HEAD to `bucket.<website name>` (`s3.website_dns_names`, like radosgw's
//! `rgw_dns_s3website_name`) from the gateway's decision
//! (`Gateway::website_get`): objects, redirects, and errors as HTML pages
//! (or the bucket's error document), never as XML.

use rsgw_gateway::{Gateway, GetResult, Principal, WebsiteRedirect, WebsiteReply};
use s3s::Body;
use s3s::S3Error;
use s3s::dto::{ETagCondition, Range, StreamingBlob, Timestamp, TimestampFormat};
use s3s::host::S3Host;

use crate::dto::get_params;
use crate::error::to_s3;
use crate::host::DnsNames;
use crate::requester::requester;
use crate::uri::{decode_path, encode};

/// The website endpoint: which requests are for it, and their answers.
#[derive(Clone)]
pub(crate) struct Website {
    gw: Gateway,
    names: std::sync::Arc<DnsNames>,
}

/// An error as the website endpoint shows it: an HTML page, as S3's;
/// `about` names what the request was for (`BucketName`, `Key`).
fn html_error(
    status: http::StatusCode,
    code: &str,
    message: &str,
    about: &[(&str, &str)],
    id: &str,
    head: bool,
) -> http::Response<Body> {
    let title = format!(
        "{} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or("Error")
    );
    let about: String = about
        .iter()
        .map(|(name, v)| format!("<li>{name}: {}</li>\n", crate::xml_text::escape(v)))
        .collect();
    let page = format!(
        "<html>\n<head><title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n<ul>\n\
         <li>Code: {}</li>\n<li>Message: {}</li>\n{about}<li>RequestId: {id}</li>\n</ul>\n<hr/>\n\
         </body>\n</html>\n",
        crate::xml_text::escape(code),
        crate::xml_text::escape(message),
    );
    let len = page.len();
    let mut resp = http::Response::new(if head {
        Body::empty()
    } else {
        Body::from(page)
    });
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    h.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
    resp
}

/// An S3 error as the website endpoint shows it; a 304 stays bodiless.
fn error_page(e: &S3Error, about: &[(&str, &str)], id: &str, head: bool) -> http::Response<Body> {
    let status = e
        .status_code()
        .unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    if status == http::StatusCode::NOT_MODIFIED {
        let mut resp = http::Response::new(Body::empty());
        *resp.status_mut() = status;
        if let Some(h) = e.headers() {
            resp.headers_mut().extend(h.clone());
        }
        return resp;
    }
    html_error(
        status,
        e.code().as_str(),
        e.message().unwrap_or(""),
        about,
        id,
        head,
    )
}

/// An object as the website serves it, with `status` (200, 206, or an
/// error's for the error document).
fn object_response(o: GetResult, status: http::StatusCode) -> http::Response<Body> {
    let m = &o.meta;
    let len = o.range.map_or(m.size, |(s, e)| e - s);
    let mut resp = http::Response::new(match o.body {
        Some(b) => Body::from(StreamingBlob::wrap(sync_wrapper::SyncStream::new(b))),
        None => Body::empty(),
    });
    *resp.status_mut() = match (o.range, status) {
        (Some(_), http::StatusCode::OK) => http::StatusCode::PARTIAL_CONTENT,
        _ => status,
    };
    let h = resp.headers_mut();
    let mut set = |name: &str, v: &str| {
        if let (Ok(n), Ok(v)) = (
            http::HeaderName::from_bytes(name.as_bytes()),
            http::HeaderValue::from_str(v),
        ) {
            h.insert(n, v);
        }
    };
    set("content-length", &len.to_string());
    set("etag", &format!("\"{}\"", m.etag));
    let modified = std::time::UNIX_EPOCH + std::time::Duration::from_secs(m.mtime.max(0.0) as u64);
    set("last-modified", &httpdate::fmt_http_date(modified));
    set("accept-ranges", "bytes");
    if let Some((s, e)) = o.range {
        set(
            "content-range",
            &format!("bytes {}-{}/{}", s, e - 1, m.size),
        );
    }
    set(
        "content-type",
        m.headers
            .get("content-type")
            .map_or("binary/octet-stream", String::as_str),
    );
    for name in [
        "content-encoding",
        "content-disposition",
        "content-language",
        "cache-control",
        "expires",
    ] {
        if let Some(v) = m.headers.get(name) {
            set(name, v);
        }
    }
    for (k, v) in &m.user_meta {
        set(&format!("x-amz-meta-{k}"), v);
    }
    resp
}

/// A header's text.
fn header(h: &http::HeaderMap, name: http::header::HeaderName) -> Option<&str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

impl Website {
    /// The endpoint for `names`; `None` when there are none.
    pub(crate) fn new(gw: Gateway, names: &[String]) -> Option<Self> {
        (!names.is_empty()).then(|| Website {
            gw,
            names: std::sync::Arc::new(DnsNames(names.to_vec())),
        })
    }

    /// The bucket a request's `Host` names on the website endpoint.
    pub(crate) fn bucket_of(&self, h: &http::HeaderMap) -> Option<String> {
        let host = header(h, http::header::HOST)?;
        let v = self.names.parse_host_header(host).ok()?;
        v.bucket().map(str::to_string)
    }

    /// Answers one request to `bucket`'s website.
    pub(crate) async fn serve(
        &self,
        req: &http::Request<Body>,
        bucket: &str,
        id: &str,
    ) -> http::Response<Body> {
        let head = req.method() == http::Method::HEAD;
        if !head && req.method() != http::Method::GET {
            let mut resp = html_error(
                http::StatusCode::METHOD_NOT_ALLOWED,
                "MethodNotAllowed",
                "The specified method is not allowed against this resource.",
                &[],
                id,
                false,
            );
            resp.headers_mut().insert(
                http::header::ALLOW,
                http::HeaderValue::from_static("GET, HEAD"),
            );
            return resp;
        }
        let raw = req.uri().path().strip_prefix('/').unwrap_or("");
        let Some(path) = decode_path(raw) else {
            return html_error(
                http::StatusCode::BAD_REQUEST,
                "InvalidURI",
                "Couldn't parse the specified URI.",
                &[("BucketName", bucket)],
                id,
                head,
            );
        };
        let h = req.headers();
        let rq = requester(Principal::Anonymous, h, req.extensions());
        let etags = |name| {
            header(h, name).and_then(|v| ETagCondition::parse_http_header(v.as_bytes()).ok())
        };
        let date = |name| {
            header(h, name).and_then(|v| Timestamp::parse(TimestampFormat::HttpDate, v).ok())
        };
        // an unparsable Range is ignored, as HTTP says
        let range = header(h, http::header::RANGE).and_then(|v| Range::parse(v).ok());
        let params = get_params(
            range,
            [
                etags(http::header::IF_MATCH),
                etags(http::header::IF_NONE_MATCH),
            ],
            [
                date(http::header::IF_MODIFIED_SINCE),
                date(http::header::IF_UNMODIFIED_SINCE),
            ],
            head,
        );
        let reply = self.gw.website_get(&rq, bucket, &path, params).await;
        match reply {
            Ok(WebsiteReply::Object(o)) => object_response(o, http::StatusCode::OK),
            Ok(WebsiteReply::Redirect(r)) => self.redirect(req, &rq, r),
            Ok(WebsiteReply::Error {
                status,
                document: Some(doc),
                ..
            }) => object_response(
                doc,
                http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::NOT_FOUND),
            ),
            Ok(WebsiteReply::Error {
                error,
                document: None,
                ..
            }) => error_page(
                &to_s3(error),
                &[("BucketName", bucket), ("Key", &path)],
                id,
                head,
            ),
            Err(e) => error_page(&to_s3(e), &[("BucketName", bucket)], id, head),
        }
    }

    /// A redirect's response: `Location` is absolute, the request's
    /// protocol and host filling what the rule leaves out.
    fn redirect(
        &self,
        req: &http::Request<Body>,
        rq: &rsgw_gateway::Requester,
        r: WebsiteRedirect,
    ) -> http::Response<Body> {
        let protocol = r
            .protocol
            .unwrap_or_else(|| if rq.secure { "https" } else { "http" }.into());
        let host = r
            .host
            .or_else(|| header(req.headers(), http::header::HOST).map(str::to_string))
            .unwrap_or_default();
        let location = format!("{protocol}://{host}/{}", encode(&r.key, true));
        let mut resp = http::Response::new(Body::empty());
        *resp.status_mut() =
            http::StatusCode::from_u16(r.status).unwrap_or(http::StatusCode::MOVED_PERMANENTLY);
        if let Ok(v) = http::HeaderValue::from_str(&location) {
            resp.headers_mut().insert(http::header::LOCATION, v);
        }
        resp.headers_mut()
            .insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(0));
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_errors_are_escaped_pages() {
        let resp = html_error(
            http::StatusCode::NOT_FOUND,
            "NoSuchKey",
            "The specified key does not exist.",
            &[("BucketName", "b"), ("Key", "<script>")],
            "tx1",
            false,
        );
        assert_eq!(resp.status(), 404);
        assert_eq!(
            resp.headers()[http::header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let body = resp.body().bytes().expect("buffered");
        let page = std::str::from_utf8(&body).expect("utf-8");
        assert!(page.contains("<title>404 Not Found</title>"), "{page}");
        assert!(page.contains("<li>Code: NoSuchKey</li>"), "{page}");
        assert!(
            page.contains("<li>BucketName: b</li>\n<li>Key: &lt;script&gt;</li>"),
            "{page}"
        );
        let head = html_error(
            http::StatusCode::NOT_FOUND,
            "NoSuchKey",
            "m",
            &[],
            "tx1",
            true,
        );
        assert!(head.body().bytes().expect("buffered").is_empty());
    }
}
