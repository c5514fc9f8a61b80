//! What rsgw's fuzz targets share: the real S3 service (s3s routing, SigV4
//! and SigV2, XML, aws-chunked, rsgw's gateway) on the embedded backend in a
//! temporary directory, one per fuzzing process, with a user `alice` and a
//! bucket `fuzz` holding a private object `private`, a public-read object
//! `public` and an object `known` of [`KNOWN`]'s bytes.
//!
//! Requests run in-process through [`Harness::call`], which also checks what
//! every response must satisfy (see [`check_response`]): the targets add
//! their own properties.

#![forbid(unsafe_code)]

use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_body_util::BodyExt;
use rsgw_bench::sign::{self, Credentials};
use rsgw_frontend::admission::{Admission, Policy};
use rsgw_frontend::client::TrustedProxies;
use rsgw_frontend::metrics::Metrics;
use rsgw_frontend::pool::Pool;
use rsgw_frontend::service::FrontendService;
use rsgw_gateway::{Gateway, GatewayOptions};
use rsgw_s3::S3HttpService;
use rsgw_store_local::{LocalOptions, LocalStore};

/// Alice's access key.
pub const ACCESS_KEY: &str = "FUZZACCESSKEY0000001";
/// Alice's secret key.
pub const SECRET_KEY: &str = "fuzzsecretkey000000000000000000000000001";
/// The Host header every request carries.
pub const HOST: &str = "127.0.0.1:7480";
/// Content of `fuzz/known` (1000 bytes, no two equal 4-byte runs).
pub static KNOWN: OnceLock<Vec<u8>> = OnceLock::new();

/// The content of `fuzz/known`.
pub fn known() -> &'static [u8] {
    KNOWN.get_or_init(|| {
        (0u32..250)
            .flat_map(|i| i.wrapping_mul(2_654_435_761).to_be_bytes())
            .collect()
    })
}

/// A response, its body read.
#[derive(Debug)]
pub struct Reply {
    /// Status code.
    pub status: u16,
    /// Response headers.
    pub headers: http::HeaderMap,
    /// The whole body.
    pub body: Bytes,
}

impl Reply {
    /// A response header as text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `<Code>` of an XML error body.
    pub fn code(&self) -> Option<&str> {
        let text = std::str::from_utf8(&self.body).ok()?;
        let start = text.find("<Code>")? + 6;
        let end = text[start..].find("</Code>")? + start;
        Some(&text[start..end])
    }
}

/// The service, its runtime and its data directory.
pub struct Harness {
    rt: tokio::runtime::Runtime,
    svc: S3HttpService,
    frontend: FrontendService<S3HttpService>,
    /// The upload id of `fuzz/mp`, a multipart upload with part 1 uploaded.
    pub upload_id: String,
    _dir: tempfile::TempDir,
}

/// The process's harness, set up on first use.
pub fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(Harness::new)
}

impl Harness {
    fn new() -> Harness {
        let dir = tempfile::Builder::new()
            .prefix("rsgw-fuzz-")
            .tempdir_in(std::env::var_os("RSGW_FUZZ_TMP").unwrap_or_else(|| "/dev/shm".into()))
            .expect("temporary directory");
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let store = LocalStore::open(LocalOptions::new(dir.path())).expect("local store");
        let gw = Gateway::new(Arc::new(store), GatewayOptions::default());
        rt.block_on(async {
            gw.init().await.expect("pools");
            gw.create_user(
                "alice",
                "Alice",
                Some((ACCESS_KEY.into(), SECRET_KEY.into())),
            )
            .await
            .expect("user");
        });
        let svc = rsgw_s3::service(
            gw,
            (&["s3.test".into()], &["web.test".into()]),
            "default",
            "admin",
            16 << 10,
            rsgw_config::S3Config::default().post_form_fields_max as usize,
        )
        .expect("service");
        // the layers rsgw serve puts in front, with their defaults
        let metrics = Arc::new(Metrics::new::<rsgw_s3::S3Op>());
        let frontend = FrontendService::new(
            svc.clone(),
            Some(Duration::from_secs(65)),
            Arc::new(Admission::new(1024, Policy::Reject)),
            Pool::Async,
            metrics,
            TrustedProxies::default(),
            None,
        );
        let mut h = Harness {
            rt,
            svc,
            frontend,
            upload_id: String::new(),
            _dir: dir,
        };
        let setup: [(&str, &str, &[(&str, &str)], Vec<u8>); 4] = [
            ("PUT", "/fuzz", &[], vec![]),
            ("PUT", "/fuzz/private", &[], b"private bytes".to_vec()),
            (
                "PUT",
                "/fuzz/public",
                &[("x-amz-acl", "public-read")],
                b"public bytes".to_vec(),
            ),
            ("PUT", "/fuzz/known", &[], known().to_vec()),
        ];
        for (method, path, amz, body) in setup {
            let r = h.signed(method, path, "", amz, &[], body);
            assert_eq!(r.status, 200, "set-up {method} {path}: {r:?}");
        }
        let r = h.signed("POST", "/fuzz/mp", "uploads=", &[], &[], vec![]);
        let text = String::from_utf8_lossy(&r.body).into_owned();
        let id = text
            .split("<UploadId>")
            .nth(1)
            .and_then(|s| s.split("</UploadId>").next())
            .expect("upload id");
        h.upload_id = id.to_string();
        let q = format!("partNumber=1&uploadId={}", sign::encode_path(id));
        let r = h.signed("PUT", "/fuzz/mp", &q, &[], &[], b"part one".to_vec());
        assert_eq!(r.status, 200, "set-up part: {r:?}");
        h
    }

    /// Serves `req` and reads the whole response; panics where a response
    /// breaks [`check_response`] or takes more than 10 s.
    pub fn call(&self, req: http::Request<s3s::Body>) -> Reply {
        let method = req.method().clone();
        self.rt.block_on(async {
            let fut = async {
                let resp = self.svc.call(req).await;
                let (parts, body) = resp.into_parts();
                let body = body
                    .collect()
                    .await
                    .map(|c| c.to_bytes())
                    .unwrap_or_default();
                Reply {
                    status: parts.status.as_u16(),
                    headers: parts.headers,
                    body,
                }
            };
            let reply = tokio::time::timeout(Duration::from_secs(10), fut)
                .await
                .expect("a request hung for 10 s");
            check_response(&method, &reply);
            reply
        })
    }

    /// Runs a future on the harness' runtime.
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// The S3 service behind the frontend's layers (request body timer,
    /// admission, pool), as `rsgw serve` runs it: what a connection serves.
    pub fn frontend(&self) -> &FrontendService<S3HttpService> {
        &self.frontend
    }

    /// A request signed for alice with SigV4 (unsigned payload): `path`
    /// and `query` must be encoded already (`query` canonical), `amz` are
    /// the x-amz-* headers to sign, `extra` further unsigned headers.
    pub fn signed(
        &self,
        method: &str,
        path: &str,
        query: &str,
        amz: &[(&str, &str)],
        extra: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Reply {
        self.signed_for_payload(method, path, query, amz, extra, "UNSIGNED-PAYLOAD", body)
    }

    /// [`Harness::signed`] with another `x-amz-content-sha256`.
    #[allow(clippy::too_many_arguments)]
    pub fn signed_for_payload(
        &self,
        method: &str,
        path: &str,
        query: &str,
        amz: &[(&str, &str)],
        extra: &[(&str, &str)],
        payload: &str,
        body: Vec<u8>,
    ) -> Reply {
        let req = signed_request(method, path, query, amz, extra, payload, body)
            .expect("the harness' own requests are valid");
        self.call(req)
    }
}

/// Alice's credentials.
pub fn credentials() -> Credentials {
    Credentials {
        access_key: ACCESS_KEY.into(),
        secret_key: SECRET_KEY.into(),
        region: "us-east-1".into(),
    }
}

/// Builds a SigV4-signed request (see [`Harness::signed`]); `None` where
/// the parts make no valid HTTP request (a bad method or header).
pub fn signed_request(
    method: &str,
    path: &str,
    query: &str,
    amz: &[(&str, &str)],
    extra: &[(&str, &str)],
    payload: &str,
    body: Vec<u8>,
) -> Option<http::Request<s3s::Body>> {
    let signed = sign::headers_for_payload(
        &credentials(),
        method,
        HOST,
        path,
        query,
        amz,
        payload,
        SystemTime::now(),
    );
    let uri = if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{query}")
    };
    let mut b = http::Request::builder()
        .method(method)
        .uri(uri)
        .header("host", HOST);
    for (k, v) in &signed {
        b = b.header(k.as_str(), v.as_str());
    }
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    if !body.is_empty() || method == "PUT" || method == "POST" {
        b = b.header("content-length", body.len());
    }
    b.body(s3s::Body::from(body)).ok()
}

/// What every response satisfies, whatever the request: a status that is
/// no server fault (the embedded backend never fails), an
/// `x-amz-request-id`, and for errors (but on HEAD) an XML body with the
/// error's `<Code>` and the same `<RequestId>`. 503 is allowed: it is the
/// answer to overload.
pub fn check_response(method: &http::Method, r: &Reply) {
    assert!(
        r.status < 500 || r.status == 501 || r.status == 503,
        "server error {}: {}",
        r.status,
        String::from_utf8_lossy(&r.body)
    );
    let id = r.header("x-amz-request-id").expect("x-amz-request-id");
    if r.status >= 400 && method != http::Method::HEAD {
        let text = String::from_utf8_lossy(&r.body);
        assert!(
            r.code().is_some_and(|c| !c.is_empty()),
            "error {} without a code: {text}",
            r.status
        );
        assert!(
            text.contains(&format!("<RequestId>{id}</RequestId>")),
            "error body without the request id {id}: {text}"
        );
    }
}

/// Splits fuzz input into at most `n` fields at `\n`; the last keeps the rest.
pub fn fields(data: &[u8], n: usize) -> Vec<&[u8]> {
    data.splitn(n, |b| *b == b'\n').collect()
}
