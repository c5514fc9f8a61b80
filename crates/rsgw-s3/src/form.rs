//! Browser uploads' forms (`multipart/form-data`, POST object) as they
//! pass: s3s parses the form, checks its signature and the policy's
//! conditions (expiry, `eq`, `starts-with`, `content-length-range`) and
//! hands over the fields it knows as a `PostObjectInput`; it drops the
//! rest of the form. So that no field is ignored silently, the form's
//! fields are also tapped on their way in ([`FormTap`], which the
//! dispatcher puts on every POST form) and read by the PostObject
//! operation (`ops::post`). Here too: S3's answers where s3s refuses a
//! form in its own words ([`refusal`]), the redirect a form may ask for
//! ([`redirect_ok`]), and the reply to a successful upload
//! ([`PostReply`]), which names the key as written.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;
use s3s::stream::{ByteStream, RemainingLength};
use s3s::{Body, S3Error, S3ErrorCode, S3Result, s3_error};

use crate::uri::encode;

/// How much more than `s3.post_form_fields_max` of a form's start is
/// kept: room for the file part's own header, so that where the file
/// begins is known.
const TAP_ROOM: usize = 4 << 10;

/// The start of a POST form's body, copied as s3s reads it, the form's
/// boundary, and the most bytes the fields before the file may take
/// (`s3.post_form_fields_max`).
#[derive(Clone)]
pub(crate) struct FormTap {
    kept: Arc<Mutex<Vec<u8>>>,
    boundary: Arc<str>,
    limit: usize,
}

/// The request body, passed through while its start is copied.
struct Tapped {
    inner: Body,
    tap: FormTap,
}

impl Stream for Tapped {
    type Item = Result<Bytes, s3s::StdError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let item = Pin::new(&mut self.inner).poll_next(cx);
        if let Poll::Ready(Some(Ok(b))) = &item {
            let cap = self.tap.limit.saturating_add(TAP_ROOM);
            let mut kept = self.tap.kept.lock().unwrap_or_else(PoisonError::into_inner);
            let room = cap.saturating_sub(kept.len());
            kept.extend_from_slice(&b[..b.len().min(room)]);
        }
        item
    }
}

impl ByteStream for Tapped {
    fn remaining_length(&self) -> RemainingLength {
        self.inner.remaining_length()
    }
}

/// The boundary of a `multipart/form-data` request, if it is one.
fn boundary(headers: &http::HeaderMap) -> Option<String> {
    let ct = headers.get(http::header::CONTENT_TYPE)?.to_str().ok()?;
    let (kind, params) = ct.split_once(';')?;
    if !kind.trim().eq_ignore_ascii_case("multipart/form-data") {
        return None;
    }
    params.split(';').find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| v.trim().trim_matches('"').to_string())
    })
}

impl FormTap {
    /// Taps a POST form's body: the tap goes into the request's
    /// extensions, where [`post_object`] and [`refusal`] find it. Other
    /// requests pass untouched. `limit` is `s3.post_form_fields_max`.
    pub(crate) fn wrap(req: http::Request<Body>, limit: usize) -> http::Request<Body> {
        let Some(boundary) = boundary(req.headers()).filter(|_| req.method() == http::Method::POST)
        else {
            return req;
        };
        let tap = FormTap {
            kept: Arc::default(),
            boundary: boundary.into(),
            limit,
        };
        let (mut parts, body) = req.into_parts();
        parts.extensions.insert(tap.clone());
        let stream: s3s::stream::DynByteStream = Box::pin(Tapped { inner: body, tap });
        http::Request::from_parts(parts, Body::from(stream))
    }

    /// What the form's start shows.
    fn read(&self) -> FormStart {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        form_start(&kept, &self.boundary, self.limit)
    }

    /// The form's fields before the file (names lowercased, as s3s keeps
    /// them) and the file part's file name; S3's error for a form whose
    /// fields are too long or come after the file.
    pub(crate) fn fields(&self) -> S3Result<(Vec<(String, String)>, String)> {
        match self.read() {
            FormStart::Fields(fields, filename) => Ok((fields, filename)),
            FormStart::TooLong => {
                let (status, code, message) = too_long(self.limit);
                let mut e = S3Error::with_message(S3ErrorCode::Custom(code.into()), message);
                e.set_status_code(status);
                Err(e)
            }
            FormStart::NoFile => Err(s3_error!(
                InvalidArgument,
                "POST form fields must come before the file"
            )),
        }
    }
}

/// What the start of a form holds.
#[derive(Debug, PartialEq)]
enum FormStart {
    /// The fields before the file (names lowercased, as s3s keeps them)
    /// and the file part's file name.
    Fields(Vec<(String, String)>, String),
    /// The fields before the file take more than `s3.post_form_fields_max`.
    TooLong,
    /// The form has no file part (or is no well-formed form).
    NoFile,
}

/// Reads the fields of a form from the start of its body, up to the file
/// part. The bytes before the file part's delimiter, part headers
/// included, may be at most `limit`.
fn form_start(body: &[u8], boundary: &str, limit: usize) -> FormStart {
    let delim = format!("--{boundary}");
    let text = String::from_utf8_lossy(body);
    let mut fields = Vec::new();
    let mut at = 0;
    for part in text.split(delim.as_str()) {
        let start = at;
        at += part.len() + delim.len();
        if start == 0 {
            continue;
        }
        if start - delim.len() > limit {
            return FormStart::TooLong;
        }
        let Some(part) = part.strip_prefix("\r\n") else {
            break;
        };
        let Some((head, value)) = part.split_once("\r\n\r\n") else {
            break;
        };
        let disposition = head.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-disposition")
                .then_some(v)
        });
        let param = |name: &str| {
            disposition?.split(';').find_map(|p| {
                let (k, v) = p.split_once('=')?;
                (k.trim() == name).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        let Some(name) = param("name").map(|n| n.to_ascii_lowercase()) else {
            break;
        };
        if name == "file" {
            return FormStart::Fields(fields, param("filename").unwrap_or_default());
        }
        fields.push((
            name,
            value.strip_suffix("\r\n").unwrap_or(value).to_string(),
        ));
    }
    if body.len() > limit {
        FormStart::TooLong
    } else {
        FormStart::NoFile
    }
}

/// S3's error for a form whose fields before the file are too large.
fn too_long(limit: usize) -> (http::StatusCode, &'static str, String) {
    (
        http::StatusCode::BAD_REQUEST,
        "MaxPostPreDataLengthExceededError",
        format!(
            "Your POST request fields preceding the upload file were too large (at most {limit} bytes)."
        ),
    )
}

/// S3's answer where s3s refuses a POST form in its own words, from the
/// code and message (as XML text) of s3s's error and the form's tapped
/// start; `None`
/// keeps s3s's answer. Fields before the file beyond
/// `s3.post_form_fields_max`: `400 MaxPostPreDataLengthExceededError`; a
/// form without `key`: `400 InvalidArgument`; a policy condition the form
/// does not meet: `403 AccessDenied` (s3s says `400 InvalidPolicyDocument`,
/// which S3 keeps for policies that are no valid document); no file:
/// `400 IncorrectNumberOfFilesInPostRequest`.
pub(crate) fn refusal(
    tap: &FormTap,
    code: &str,
    message: &str,
) -> Option<(http::StatusCode, &'static str, String)> {
    let form = tap.read();
    if form == FormStart::TooLong {
        return Some(too_long(tap.limit));
    }
    let condition_failed = code == "InvalidPolicyDocument"
        && (message.starts_with("Policy condition") || message.starts_with("Bucket in form field"));
    match form {
        FormStart::Fields(fields, _)
            if condition_failed && !fields.iter().any(|(k, _)| k == "key") =>
        {
            Some((
                http::StatusCode::BAD_REQUEST,
                "InvalidArgument",
                "Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields.".into(),
            ))
        }
        _ if condition_failed => Some((
            http::StatusCode::FORBIDDEN,
            "AccessDenied",
            format!("Invalid according to Policy: Policy Condition failed: {message}"),
        )),
        FormStart::NoFile if code == "MalformedPOSTRequest" || code == "InvalidRequest" => Some((
            http::StatusCode::BAD_REQUEST,
            "IncorrectNumberOfFilesInPostRequest",
            "POST requires exactly one file upload per request.".into(),
        )),
        _ => None,
    }
}

/// Whether a `success_action_redirect` is a URL a browser can be sent to:
/// absolute http(s), nothing a header cannot carry.
pub(crate) fn redirect_ok(url: &str) -> bool {
    (url.starts_with("http://") || url.starts_with("https://"))
        && !url.chars().any(|c| c.is_control() || c.is_whitespace())
}

/// The answer to a successful POST: s3s writes one too, but names the key
/// before `${filename}` is replaced and the object's `Location` as a bare
/// path; the S3 service answers with this one instead.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PostReply {
    status: http::StatusCode,
    location: String,
    etag: String,
    body: Option<String>,
}

impl PostReply {
    /// S3's answer: `303` to `success_action_redirect` (checked by the
    /// access hook with [`redirect_ok`]) with the bucket, key and ETag in
    /// its query; else `success_action_status` (200, 201
    /// with a `PostResponse` document, 204 by default).
    pub(crate) fn new(
        redirect: Option<&str>,
        status: Option<&str>,
        object_url: String,
        bucket: &str,
        key: &str,
        etag: String,
    ) -> Self {
        if let Some(url) = redirect {
            let sep = if url.contains('?') { '&' } else { '?' };
            return PostReply {
                status: http::StatusCode::SEE_OTHER,
                location: format!(
                    "{url}{sep}bucket={}&key={}&etag={}",
                    encode(bucket, false),
                    encode(key, false),
                    encode(&etag, false)
                ),
                etag,
                body: None,
            };
        }
        let (status, body) = match status {
            Some("200") => (http::StatusCode::OK, None),
            Some("201") => {
                let x = |t: &str| crate::xml_text::escape(t);
                let doc = format!(
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<PostResponse><Location>{}</Location>\
                     <Bucket>{}</Bucket><Key>{}</Key><ETag>{}</ETag></PostResponse>",
                    x(&object_url),
                    x(bucket),
                    x(key),
                    x(&etag)
                );
                (http::StatusCode::CREATED, Some(doc))
            }
            _ => (http::StatusCode::NO_CONTENT, None),
        };
        PostReply {
            status,
            location: object_url,
            etag,
            body,
        }
    }

    /// The response.
    pub(crate) fn response(self) -> http::Response<Body> {
        let len = self.body.as_ref().map_or(0, String::len);
        let mut resp = http::Response::new(self.body.map_or_else(Body::empty, Body::from));
        *resp.status_mut() = self.status;
        let h = resp.headers_mut();
        for (name, v) in [
            (http::header::LOCATION, &self.location),
            (http::header::ETAG, &self.etag),
        ] {
            if let Ok(v) = http::HeaderValue::from_str(v) {
                h.insert(name, v);
            }
        }
        if len > 0 {
            h.insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/xml"),
            );
        }
        h.insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(len));
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(parts: &[(&str, Option<&str>, &str)]) -> Vec<u8> {
        let mut out = String::new();
        for (name, file, value) in parts {
            out.push_str("--XyZ\r\nContent-Disposition: form-data; name=\"");
            out.push_str(name);
            out.push('"');
            if let Some(f) = file {
                out.push_str(&format!("; filename=\"{f}\"\r\nContent-Type: text/plain"));
            }
            out.push_str("\r\n\r\n");
            out.push_str(value);
            out.push_str("\r\n");
        }
        out.push_str("--XyZ--\r\n");
        out.into_bytes()
    }

    #[test]
    fn fields_and_the_file_name_are_read_from_the_form() {
        let body = form(&[
            ("key", None, "uploads/${filename}"),
            ("ACL", None, "public-read"),
            ("x-amz-meta-note", None, "two\r\nlines"),
            ("file", Some("photo.jpg"), "DATA"),
            ("after", None, "ignored"),
        ]);
        assert_eq!(
            form_start(&body, "XyZ", 1024),
            FormStart::Fields(
                vec![
                    ("key".into(), "uploads/${filename}".into()),
                    ("acl".into(), "public-read".into()),
                    ("x-amz-meta-note".into(), "two\r\nlines".into()),
                ],
                "photo.jpg".into()
            )
        );
        // no file part, or none within what was kept
        assert_eq!(
            form_start(&form(&[("key", None, "k")]), "XyZ", 1024),
            FormStart::NoFile
        );
        assert_eq!(form_start(&body[..40], "XyZ", 1024), FormStart::NoFile);
    }

    #[test]
    fn fields_before_the_file_are_bounded() {
        let pad = "p".repeat(2000);
        let body = form(&[
            ("key", None, "k"),
            ("x-ignore-pad", None, &pad),
            ("file", Some("f"), "DATA"),
        ]);
        // the file's delimiter starts after the two fields' parts
        let file_part = "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\n\
                         Content-Type: text/plain\r\n\r\nDATA\r\n--XyZ--\r\n";
        let file_at = body.len() - file_part.len();
        assert!(matches!(
            form_start(&body, "XyZ", file_at),
            FormStart::Fields(..)
        ));
        assert_eq!(form_start(&body, "XyZ", file_at - 1), FormStart::TooLong);
        // a form cut where the tap stopped, beyond the limit
        assert_eq!(form_start(&body[..1500], "XyZ", 1024), FormStart::TooLong);
    }

    #[test]
    fn refusals_are_s3_answers() {
        let tap = |body: Vec<u8>| FormTap {
            kept: Arc::new(Mutex::new(body)),
            boundary: "XyZ".into(),
            limit: 1024,
        };
        let with_key = tap(form(&[("key", None, "k"), ("file", Some("f"), "D")]));
        let without_key = tap(form(&[("acl", None, "private"), ("file", Some("f"), "D")]));
        let failed = "Policy condition 'eq' for field 'key' failed: expected 'a', got 'k'";
        let got = refusal(&with_key, "InvalidPolicyDocument", failed).expect("mapped");
        assert_eq!(
            (got.0, got.1),
            (http::StatusCode::FORBIDDEN, "AccessDenied")
        );
        assert!(got.2.ends_with(failed), "{}", got.2);
        let got = refusal(&without_key, "InvalidPolicyDocument", failed).expect("mapped");
        assert_eq!(
            (got.0, got.1),
            (http::StatusCode::BAD_REQUEST, "InvalidArgument")
        );
        // a policy that is no document stays InvalidPolicyDocument
        assert!(
            refusal(
                &with_key,
                "InvalidPolicyDocument",
                "failed to parse POST policy"
            )
            .is_none()
        );
        assert!(refusal(&with_key, "SignatureDoesNotMatch", "x").is_none());
        let got = refusal(
            &tap(form(&[("key", None, "k")])),
            "MalformedPOSTRequest",
            "",
        )
        .expect("mapped");
        assert_eq!(got.1, "IncorrectNumberOfFilesInPostRequest");
        let long = tap(form(&[
            ("key", None, &"k".repeat(2000)),
            ("file", Some("f"), "D"),
        ]));
        let got = refusal(&long, "InvalidPolicyDocument", failed).expect("mapped");
        assert_eq!(got.1, "MaxPostPreDataLengthExceededError");
    }

    #[test]
    fn replies_follow_the_redirect_or_the_status() {
        let url = "http://127.0.0.1:7480/b/up/a%20b.txt".to_string();
        let reply = |redirect: Option<&str>, status: Option<&str>| {
            PostReply::new(
                redirect,
                status,
                url.clone(),
                "b",
                "up/a b.txt",
                "\"e1\"".into(),
            )
        };
        let r = reply(Some("https://app.example/done?x=1"), Some("201"));
        assert_eq!(r.status, 303);
        assert_eq!(
            r.location,
            "https://app.example/done?x=1&bucket=b&key=up%2Fa%20b.txt&etag=%22e1%22"
        );
        assert_eq!(
            reply(Some("https://a/"), None).location,
            "https://a/?bucket=b&key=up%2Fa%20b.txt&etag=%22e1%22"
        );
        assert_eq!(reply(None, Some("200")).status, 200);
        assert!(redirect_ok("https://a.example/x?y=1"));
        for bad in ["/relative", "ftp://a/", "http://a/\r\nX: y", "http://a b/"] {
            assert!(!redirect_ok(bad), "{bad}");
        }
        let created = reply(None, Some("201"));
        assert_eq!(created.status, 201);
        assert_eq!(
            created.body.as_deref(),
            Some(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<PostResponse><Location>http://127.0.0.1:7480/b/up/a%20b.txt</Location>\
                 <Bucket>b</Bucket><Key>up/a b.txt</Key><ETag>&quot;e1&quot;</ETag></PostResponse>"
            )
        );
        assert_eq!(reply(None, None).status, 204);
        assert_eq!(reply(None, Some("418")).status, 204);
        let resp = reply(None, Some("201")).response();
        assert_eq!(resp.headers()[http::header::LOCATION], url.as_str());
        assert_eq!(resp.headers()[http::header::ETAG], "\"e1\"");
    }

    #[test]
    fn only_form_posts_have_a_boundary() {
        let table = [
            ("multipart/form-data; boundary=XyZ", Some("XyZ")),
            (
                "multipart/form-data; charset=utf-8; boundary=\"a b\"",
                Some("a b"),
            ),
            ("Multipart/Form-Data;boundary=q", Some("q")),
            ("multipart/mixed; boundary=XyZ", None),
            ("application/xml", None),
            ("multipart/form-data", None),
        ];
        for (ct, want) in table {
            let mut h = http::HeaderMap::new();
            h.insert(http::header::CONTENT_TYPE, ct.parse().expect("value"));
            assert_eq!(boundary(&h).as_deref(), want, "{ct}");
        }
    }
}
