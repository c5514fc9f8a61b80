//! Static websites in S3's terms: the `WebsiteConfiguration` document of
//! Put/Get/DeleteBucketWebsite, and the website endpoint, which answers
//! GET and HEAD to `bucket.<website name>` (`s3.website_dns_names`, like
//! radosgw's `rgw_dns_s3website_name`) from the gateway's decision
//! (`Gateway::website_get`): objects, redirects, and errors as HTML pages
//! (or the bucket's error document), never as XML.

use rsgw_gateway::{
    Gateway, GetResult, Principal, Redirect as GwRedirect, RedirectAll, RoutingRule as GwRule,
    WebsiteConfig, WebsiteRedirect, WebsiteReply,
};
use s3s::Body;
use s3s::dto::{
    Condition, ETagCondition, ErrorDocument, GetBucketWebsiteOutput, IndexDocument, Protocol,
    Range, Redirect, RedirectAllRequestsTo, RoutingRule, StreamingBlob, Timestamp, TimestampFormat,
    WebsiteConfiguration,
};
use s3s::host::S3Host;
use s3s::{S3Error, S3Result, s3_error};

use crate::DnsNames;
use crate::error::to_s3;
use crate::ops::{get_params, requester};
use crate::uri::{decode_path, encode};

/// A status code element (`HttpRedirectCode`, `HttpErrorCodeReturnedEquals`)
/// as a number.
fn code(field: &str, v: Option<String>) -> S3Result<Option<u16>> {
    v.map(|v| {
        v.trim()
            .parse::<u16>()
            .map_err(|_| s3_error!(InvalidArgument, "{field} is not an HTTP status code: {v}"))
    })
    .transpose()
}

/// The gateway's configuration from S3's document.
pub(crate) fn from_s3(c: WebsiteConfiguration) -> S3Result<WebsiteConfig> {
    let mut rules = Vec::new();
    for r in c.routing_rules.unwrap_or_default() {
        let cond = r.condition.unwrap_or_default();
        let d = r.redirect;
        rules.push(GwRule {
            key_prefix: cond.key_prefix_equals,
            error_code: code(
                "HttpErrorCodeReturnedEquals",
                cond.http_error_code_returned_equals,
            )?,
            redirect: GwRedirect {
                host: d.host_name,
                protocol: d.protocol.map(|p| p.as_str().to_string()),
                replace_key_prefix: d.replace_key_prefix_with,
                replace_key: d.replace_key_with,
                code: code("HttpRedirectCode", d.http_redirect_code)?,
            },
        });
    }
    Ok(WebsiteConfig {
        index_suffix: c.index_document.map(|i| i.suffix),
        error_key: c.error_document.map(|e| e.key),
        redirect_all: c.redirect_all_requests_to.map(|r| RedirectAll {
            host: r.host_name,
            protocol: r.protocol.map(|p| p.as_str().to_string()),
        }),
        routing_rules: rules,
    })
}

/// S3's document of the gateway's configuration.
pub(crate) fn to_s3_output(c: WebsiteConfig) -> GetBucketWebsiteOutput {
    let rules = c
        .routing_rules
        .into_iter()
        .map(|r| RoutingRule {
            condition: (r.key_prefix.is_some() || r.error_code.is_some()).then(|| Condition {
                key_prefix_equals: r.key_prefix,
                http_error_code_returned_equals: r.error_code.map(|c| c.to_string()),
            }),
            redirect: Redirect {
                host_name: r.redirect.host,
                protocol: r.redirect.protocol.map(Protocol::from),
                replace_key_prefix_with: r.redirect.replace_key_prefix,
                replace_key_with: r.redirect.replace_key,
                http_redirect_code: r.redirect.code.map(|c| c.to_string()),
            },
        })
        .collect::<Vec<_>>();
    GetBucketWebsiteOutput {
        index_document: c.index_suffix.map(|suffix| IndexDocument { suffix }),
        error_document: c.error_key.map(|key| ErrorDocument { key }),
        redirect_all_requests_to: c.redirect_all.map(|r| RedirectAllRequestsTo {
            host_name: r.host,
            protocol: r.protocol.map(Protocol::from),
        }),
        routing_rules: (!rules.is_empty()).then_some(rules),
    }
}

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

    #[test]
    fn configurations_round_trip_through_s3s_documents() {
        let doc = WebsiteConfiguration {
            index_document: Some(IndexDocument {
                suffix: "index.html".into(),
            }),
            error_document: Some(ErrorDocument {
                key: "err.html".into(),
            }),
            redirect_all_requests_to: None,
            routing_rules: Some(vec![RoutingRule {
                condition: Some(Condition {
                    key_prefix_equals: Some("docs/".into()),
                    http_error_code_returned_equals: Some("404".into()),
                }),
                redirect: Redirect {
                    host_name: Some("example.com".into()),
                    http_redirect_code: Some("302".into()),
                    protocol: Some(Protocol::from("https".to_string())),
                    replace_key_prefix_with: Some("d/".into()),
                    replace_key_with: None,
                },
            }]),
        };
        let cfg = from_s3(doc.clone()).expect("valid");
        assert_eq!(cfg.routing_rules[0].error_code, Some(404));
        assert_eq!(cfg.routing_rules[0].redirect.code, Some(302));
        let out = to_s3_output(cfg);
        assert_eq!(out.index_document, doc.index_document);
        assert_eq!(out.error_document, doc.error_document);
        assert_eq!(out.routing_rules, doc.routing_rules);
        let bad = WebsiteConfiguration {
            routing_rules: Some(vec![RoutingRule {
                condition: None,
                redirect: Redirect {
                    http_redirect_code: Some("soon".into()),
                    ..Default::default()
                },
            }]),
            ..doc
        };
        assert!(from_s3(bad).is_err());
    }
}
