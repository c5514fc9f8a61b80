//! The table of operations (`crate::operation`) checked against the
//! service itself, by sending requests, never by reading source text:
//!
//! - [`every_served_operation_has_a_row`] asks s3s to route a request
//!   for every method, resource and subresource S3 has, and tells from
//!   the answers which of s3s' operations `RsgwS3` implements: those and
//!   the table's s3s rows must be the same. A newly implemented operation
//!   without a row fails it, and so does a row whose operation is gone.
//! - [`each_row_is_authorized_as_it_says`] sends each row's request, as
//!   its `request` column spells it, through the whole service, and checks
//!   that it reaches that operation and that it is authorized as the
//!   `authz` column says: the policy that allows only the row's action
//!   lets it through, the one that denies only that action refuses it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

use bytes::Bytes;
use rsgw_gateway::{
    BodyStream, CannedAcl, CorsRule, Gateway, GatewayOptions, PutParams, Requester, WebsiteConfig,
};
use rsgw_store_local::{LocalOptions, LocalStore};
use s3s::auth::{S3Auth, SecretKey};
use s3s::service::{S3Service, S3ServiceBuilder};
use s3s::{Body, S3, S3Result, s3_error};

use crate::operation::{Authz, S3Op, Served};
use crate::ops::RsgwS3;

/// The operations of s3s 0.14 (its `S3` trait's methods): when a newer
/// s3s routes more, the routes below must name them too.
const S3S_OPERATIONS: usize = 99;

/// The query strings s3s' router tells operations apart by, with values
/// where it reads them: every subresource of the S3 API, and none. (With
/// an `id` first: DELETE needs one.)
const QUERIES: &[&str] = &[
    "",
    "accelerate",
    "acl",
    "analytics&id=a",
    "analytics",
    "attributes",
    "cors",
    "delete",
    "encryption",
    "intelligent-tiering&id=a",
    "intelligent-tiering",
    "inventory&id=a",
    "inventory",
    "legal-hold",
    "lifecycle",
    "list-type=2",
    "location",
    "logging",
    "metadataTable",
    "metrics&id=a",
    "metrics",
    "notification",
    "object-lock",
    "ownershipControls",
    "partNumber=1&uploadId=u",
    "policy",
    "policyStatus",
    "publicAccessBlock",
    "replication",
    "requestPayment",
    "restore",
    "retention",
    "select&select-type=2",
    "session",
    "tagging",
    "torrent",
    "uploadId=u",
    "uploads",
    "versioning",
    "versions",
    "website",
    "x-id=ListDirectoryBuckets",
];

/// The headers s3s' router reads besides the method, path and query.
const ROUTING_HEADERS: &[&[(&str, &str)]] = &[
    &[],
    &[("x-amz-copy-source", "/bkt/k")],
    &[("x-amz-request-route", "r"), ("x-amz-request-token", "t")],
];

/// The boundary of the POST forms sent here.
const BOUNDARY: &str = "probe-boundary";

/// A browser upload's form: the key, then the file.
fn form() -> String {
    format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nposted\r\n\
         --{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\n\
         Content-Type: text/plain\r\n\r\nhello\r\n--{BOUNDARY}--\r\n"
    )
}

/// A policy on bucket `bkt` and its keys.
fn policy(statements: &[(&str, &str)]) -> String {
    let statements: Vec<String> = statements
        .iter()
        .map(|(effect, action)| {
            format!(
                "{{\"Effect\":\"{effect}\",\"Principal\":\"*\",\"Action\":\"{action}\",\
                 \"Resource\":[\"arn:aws:s3:::bkt\",\"arn:aws:s3:::bkt/*\"]}}"
            )
        })
        .collect();
    format!(
        "{{\"Version\":\"2012-10-17\",\"Statement\":[{}]}}",
        statements.join(",")
    )
}

/// The document a request of s3s' operation `op` carries, where s3s
/// needs one to parse the request; `etag` is the ETag of part 1 of the
/// fixture's upload.
fn document(op: &str, etag: &str) -> Option<String> {
    let xml = match op {
        "PutBucketCors" => {
            "<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin>\
             <AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>"
        }
        "PutBucketWebsite" => {
            "<WebsiteConfiguration><IndexDocument><Suffix>index.html</Suffix>\
             </IndexDocument></WebsiteConfiguration>"
        }
        "PutBucketTagging" | "PutObjectTagging" => {
            "<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>"
        }
        "PutBucketLifecycleConfiguration" => {
            "<LifecycleConfiguration><Rule><ID>r</ID><Filter><Prefix>logs/</Prefix></Filter>\
             <Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>\
             </LifecycleConfiguration>"
        }
        "PutBucketEncryption" => {
            "<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault>\
             <SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule>\
             </ServerSideEncryptionConfiguration>"
        }
        "DeleteObjects" => "<Delete><Object><Key>k</Key></Object></Delete>",
        "PutBucketPolicy" => return Some(policy(&[("Allow", "s3:GetObject")])),
        "CompleteMultipartUpload" => {
            return Some(format!(
                "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>\
                 <ETag>\"{etag}\"</ETag></Part></CompleteMultipartUpload>"
            ));
        }
        "PostObject" => return Some(form()),
        // operations rsgw does not implement: what s3s needs to parse them
        "CreateBucketMetadataTableConfiguration" => {
            "<MetadataTableConfiguration><S3TablesDestination><TableBucketArn>a\
             </TableBucketArn><TableName>t</TableName></S3TablesDestination>\
             </MetadataTableConfiguration>"
        }
        "PutBucketAccelerateConfiguration" => "<AccelerateConfiguration/>",
        "PutBucketAnalyticsConfiguration" => {
            "<AnalyticsConfiguration><Id>a</Id><StorageClassAnalysis/></AnalyticsConfiguration>"
        }
        "PutBucketIntelligentTieringConfiguration" => {
            "<IntelligentTieringConfiguration><Id>a</Id><Status>Enabled</Status><Tiering>\
             <AccessTier>ARCHIVE_ACCESS</AccessTier><Days>90</Days></Tiering>\
             </IntelligentTieringConfiguration>"
        }
        "PutBucketInventoryConfiguration" => {
            "<InventoryConfiguration><Destination><S3BucketDestination><Bucket>a</Bucket>\
             <Format>CSV</Format></S3BucketDestination></Destination><IsEnabled>true</IsEnabled>\
             <Id>a</Id><IncludedObjectVersions>All</IncludedObjectVersions><Schedule>\
             <Frequency>Daily</Frequency></Schedule></InventoryConfiguration>"
        }
        "PutBucketLogging" => "<BucketLoggingStatus/>",
        "PutBucketMetricsConfiguration" => {
            "<MetricsConfiguration><Id>a</Id></MetricsConfiguration>"
        }
        "PutBucketNotificationConfiguration" => "<NotificationConfiguration/>",
        "PutBucketOwnershipControls" => {
            "<OwnershipControls><Rule><ObjectOwnership>BucketOwnerEnforced</ObjectOwnership>\
             </Rule></OwnershipControls>"
        }
        "PutBucketReplication" => {
            "<ReplicationConfiguration><Role>r</Role><Rule><Status>Enabled</Status>\
             <Destination><Bucket>a</Bucket></Destination></Rule></ReplicationConfiguration>"
        }
        "PutBucketRequestPayment" => {
            "<RequestPaymentConfiguration><Payer>BucketOwner</Payer></RequestPaymentConfiguration>"
        }
        "PutBucketVersioning" => "<VersioningConfiguration/>",
        "PutObjectLegalHold" => "<LegalHold><Status>ON</Status></LegalHold>",
        "PutObjectRetention" => {
            "<Retention><Mode>GOVERNANCE</Mode>\
             <RetainUntilDate>2099-01-01T00:00:00Z</RetainUntilDate></Retention>"
        }
        "PutPublicAccessBlock" => "<PublicAccessBlockConfiguration/>",
        "SelectObjectContent" => {
            "<SelectObjectContentRequest><Expression>s</Expression><ExpressionType>SQL\
             </ExpressionType><InputSerialization/><OutputSerialization/>\
             </SelectObjectContentRequest>"
        }
        _ => return None,
    };
    Some(xml.to_string())
}

/// One request.
#[derive(Debug, Clone)]
struct Probe {
    method: http::Method,
    /// Path and query.
    target: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

impl Probe {
    fn request(&self) -> http::Request<Body> {
        let mut b = http::Request::builder()
            .method(self.method.clone())
            .uri(&self.target);
        let mut host = false;
        for (k, v) in &self.headers {
            host |= k == "host";
            b = b.header(k.as_str(), v.as_str());
        }
        if !host {
            b = b.header("host", "127.0.0.1:7480");
        }
        let body = match &self.body {
            Some(text) => {
                b = b.header("content-length", text.len());
                Body::from(text.clone())
            }
            None => Body::empty(),
        };
        b.body(body).expect("a valid request")
    }

    /// The same request carrying what s3s' operation `op` needs besides
    /// its route: its document, or its ACL.
    fn with_document(&self, op: &str, etag: &str) -> Probe {
        let mut p = self.clone();
        p.body = document(op, etag);
        match op {
            "PostObject" => p.headers.push((
                "content-type".into(),
                format!("multipart/form-data; boundary={BOUNDARY}"),
            )),
            "PutBucketAcl" | "PutObjectAcl" => {
                p.headers.push(("x-amz-acl".into(), "private".into()));
            }
            "GetObjectAttributes" => {
                p.headers
                    .push(("x-amz-object-attributes".into(), "ETag".into()));
            }
            _ => {}
        }
        p
    }
}

/// An answer: status and S3 error code (empty for none).
fn answer(resp: &http::Response<Body>) -> (u16, String) {
    let code = resp
        .body()
        .bytes()
        .and_then(|b| {
            let text = String::from_utf8_lossy(&b).into_owned();
            let (_, rest) = text.split_once("<Code>")?;
            rest.split_once("</Code>").map(|(c, _)| c.to_string())
        })
        .unwrap_or_default();
    (resp.status().as_u16(), code)
}

/// Knows no access key: every request here is anonymous.
struct NoKeys;

#[async_trait::async_trait]
impl S3Auth for NoKeys {
    async fn get_secret_key(&self, _access_key: &str) -> S3Result<SecretKey> {
        Err(s3_error!(InvalidAccessKeyId))
    }
}

/// Notes the name of the operation s3s routed each request to.
#[derive(Clone, Default)]
struct Routed(Arc<Mutex<Option<String>>>);

impl Routed {
    fn take(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

#[async_trait::async_trait]
impl s3s::access::S3Access for Routed {
    async fn check(&self, cx: &mut s3s::access::S3AccessContext<'_>) -> S3Result<()> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.s3_op().name().into());
        Ok(())
    }
}

/// Implements no operation: every method is s3s' default, `501
/// NotImplemented`.
struct Nothing;

#[async_trait::async_trait]
impl S3 for Nothing {}

/// `s3` behind s3s alone, with the operation of each request noted.
fn bare(s3: impl S3, routed: &Routed) -> S3Service {
    let mut b = S3ServiceBuilder::new(s3);
    b.set_auth(NoKeys);
    b.set_access(routed.clone());
    b.build()
}

/// The fixture's owner, and the user every gateway call here makes as.
const OWNER: &str = "owner";

/// A gateway on an empty embedded store, in a directory that lives as
/// long as it.
async fn gateway() -> (Gateway, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = LocalStore::open(LocalOptions::new(dir.path())).expect("embedded store");
    let gw = Gateway::new(Arc::new(store), GatewayOptions::default());
    gw.init().await.expect("pools");
    (gw, dir)
}

fn body(b: &'static [u8]) -> BodyStream {
    Box::pin(futures::stream::iter([Ok(Bytes::from_static(b))]))
}

/// A gateway whose bucket `bkt` of [`OWNER`] has objects `k` and `src`
/// (the copies' source), an upload of
/// `k` with its part 1, CORS rules that let any origin GET, a website
/// (`index.html`), and the policy `policy`; the upload's id and the
/// part's ETag.
async fn fixture(policy: &str) -> (Gateway, tempfile::TempDir, String, String) {
    let (gw, dir) = gateway().await;
    let owner = Requester::user(OWNER);
    gw.create_bucket(OWNER, "bkt", CannedAcl::Private)
        .await
        .expect("bucket");
    for key in ["k", "src"] {
        gw.put_object(&owner, "bkt", key, PutParams::default(), body(b"data"))
            .await
            .expect("object");
    }
    let upload = gw
        .create_multipart(&owner, "bkt", "k", PutParams::default())
        .await
        .expect("upload")
        .upload_id;
    let part = gw
        .upload_part(
            &owner,
            "bkt",
            "k",
            &upload,
            1,
            None,
            None,
            None,
            None,
            body(b"part"),
        )
        .await
        .expect("part");
    let cors = CorsRule {
        id: None,
        allowed_origins: vec!["*".into()],
        allowed_methods: vec!["GET".into()],
        allowed_headers: vec![],
        expose_headers: vec![],
        max_age_seconds: None,
    };
    gw.put_bucket_cors(&owner, "bkt", vec![cors])
        .await
        .expect("cors");
    let site = WebsiteConfig {
        index_suffix: Some("index.html".into()),
        ..WebsiteConfig::default()
    };
    gw.put_bucket_website(&owner, "bkt", site)
        .await
        .expect("website");
    gw.put_bucket_policy(&owner, "bkt", policy)
        .await
        .expect("policy");
    (gw, dir, upload, part.etag)
}

#[tokio::test]
async fn every_served_operation_has_a_row() {
    let (gw, _dir) = gateway().await;
    let rsgw = RsgwS3 {
        gw,
        zonegroup: String::new(),
    };
    let routed = Routed::default();
    let (nothing, rsgw) = (bare(Nothing, &routed), bare(rsgw, &routed));
    // the plainest request that reaches each operation s3s routes
    let mut first: BTreeMap<String, Probe> = BTreeMap::new();
    let methods = [
        http::Method::GET,
        http::Method::HEAD,
        http::Method::PUT,
        http::Method::POST,
        http::Method::DELETE,
    ];
    for headers in ROUTING_HEADERS {
        for method in &methods {
            for path in ["/", "/bkt", "/bkt/k"] {
                for query in QUERIES {
                    let probe = Probe {
                        method: method.clone(),
                        target: if query.is_empty() {
                            path.to_string()
                        } else {
                            format!("{path}?{query}")
                        },
                        headers: headers
                            .iter()
                            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                            .collect(),
                        body: None,
                    };
                    let _ = nothing.call(probe.request()).await;
                    if let Some(op) = routed.take() {
                        first.entry(op).or_insert(probe);
                    }
                }
            }
        }
    }
    // a POST to a bucket is routed by its body, a form
    let form = Probe {
        method: http::Method::POST,
        target: "/bkt".into(),
        headers: vec![],
        body: None,
    };
    let _ = nothing
        .call(form.with_document("PostObject", "").request())
        .await;
    let posted = routed.take().expect("a form is routed");
    first.entry(posted).or_insert(form);
    assert_eq!(
        first.len(),
        S3S_OPERATIONS,
        "operations s3s routes: {:?}",
        first.keys()
    );
    let mut implemented = BTreeSet::new();
    let mut unreached = Vec::new();
    for (op, probe) in &first {
        let probe = probe.with_document(op, "e");
        let resp = nothing.call(probe.request()).await.expect("an answer");
        let _ = routed.take();
        if answer(&resp) != (501, "NotImplemented".to_string()) {
            // s3s refused to parse it: whether RsgwS3 implements it is unknown
            unreached.push(format!("{op}: {:?}", answer(&resp)));
            continue;
        }
        let resp = rsgw.call(probe.request()).await.expect("an answer");
        assert_eq!(routed.take().as_deref(), Some(op.as_str()), "{probe:?}");
        if answer(&resp) != (501, "NotImplemented".to_string()) {
            implemented.insert(op.as_str());
        }
    }
    assert!(
        unreached.is_empty(),
        "requests that do not reach their operation (see `document`): {unreached:#?}"
    );
    let rows: BTreeSet<&str> = S3Op::ALL
        .iter()
        .filter(|op| op.row().is_some_and(|r| r.served == Served::S3s))
        .map(|op| op.name())
        .collect();
    let unlisted: Vec<_> = implemented.difference(&rows).collect();
    let unserved: Vec<_> = rows.difference(&implemented).collect();
    assert!(
        unlisted.is_empty() && unserved.is_empty(),
        "RsgwS3 implements {unlisted:?} without a row in the table (crate::operation); \
         the rows {unserved:?} are not implemented"
    );
}

/// The request of `op`'s row, as its `request` column spells it:
/// `METHOD /path[?query][ with header | with a form]` (`/bucket` is `bkt`,
/// `/key` and `/bucket/key` are `k` in it), or the website endpoint's
/// `GET /key on bucket.<website name>`. `upload` and `etag` are the
/// fixture's upload and its part's ETag.
fn row_request(op: S3Op, upload: &str, etag: &str) -> Probe {
    let spelt = op.row().expect("a row").request;
    let (request, with) = spelt.split_once(" with ").unwrap_or((spelt, ""));
    let (request, site) = request.split_once(" on ").unwrap_or((request, ""));
    let (method, target) = request.split_once(' ').expect("METHOD /path");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let path = if path.starts_with("/admin/") {
        path.to_string()
    } else {
        path.replace("/bucket", "/bkt").replace("/key", "/k")
    };
    let query: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p {
            "partNumber" => "partNumber=1".to_string(),
            "uploadId" => format!("uploadId={upload}"),
            p => p.to_string(),
        })
        .collect();
    let mut headers = Vec::new();
    match with {
        "" | "a form" => {}
        header => headers.push((header.to_string(), "/bkt/src".to_string())),
    }
    if site == "bucket.<website name>" {
        headers.push(("host".into(), "bkt.website.test".into()));
    }
    if method == "OPTIONS" {
        headers.push(("origin".into(), "https://site.test".into()));
        headers.push(("access-control-request-method".into(), "GET".into()));
    }
    let probe = Probe {
        method: method.parse().expect("a method"),
        target: if query.is_empty() {
            path
        } else {
            format!("{path}?{}", query.join("&"))
        },
        headers,
        body: None,
    };
    probe.with_document(op.name(), etag)
}

/// An answer to a row's request: denied its access (`403`, or
/// `AccessDenied` for a key of DeleteObjects), and what it was.
struct Verdict {
    denied: bool,
    status: u16,
    body: String,
}

/// Sends `op`'s request, anonymous, through the whole service on a fresh
/// fixture with `policy`; checks that it reached `op`.
async fn answer_under(op: S3Op, policy: &str) -> Verdict {
    let (gw, _dir, upload, etag) = fixture(policy).await;
    let service = crate::service(
        gw,
        (&[], &["website.test".into()]),
        "",
        "admin",
        16 << 10,
        20 << 10,
    )
    .expect("a service");
    let probe = row_request(op, &upload, &etag);
    let resp = service.call(probe.request()).await;
    assert_eq!(
        resp.extensions().get::<S3Op>(),
        Some(&op),
        "{probe:?} answered {}",
        resp.status()
    );
    let body = resp
        .body()
        .bytes()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    Verdict {
        denied: resp.status() == http::StatusCode::FORBIDDEN || body.contains("AccessDenied"),
        status: resp.status().as_u16(),
        body,
    }
}

#[tokio::test]
async fn each_row_is_authorized_as_it_says() {
    let everything = ("Allow", "s3:*");
    for &op in S3Op::ALL.iter().filter(|op| **op != S3Op::Other) {
        let authz = op.row().expect("a row").authz;
        let (allowing, refusing) = match authz {
            // no policy lets an anonymous request through
            Authz::Signed => (None, vec![policy(&[everything])]),
            Authz::Iam(action) => {
                let name = action.name();
                (
                    Some(policy(&[("Allow", name)])),
                    vec![policy(&[everything, ("Deny", name)])],
                )
            }
            Authz::CopyTo(action) => {
                let name = action.name();
                (
                    Some(policy(&[("Allow", name), ("Allow", "s3:GetObject")])),
                    vec![
                        policy(&[everything, ("Deny", name)]),
                        policy(&[everything, ("Deny", "s3:GetObject")]),
                    ],
                )
            }
            // the bucket's rules answer, whatever the policy
            Authz::CorsRules => (Some(policy(&[("Deny", "s3:*")])), vec![]),
            // an anonymous request has no caps, whatever the policy
            Authz::Caps(..) => (None, vec![policy(&[everything])]),
        };
        if let Some(allowing) = allowing {
            let v = answer_under(op, &allowing).await;
            assert!(
                !v.denied,
                "{op:?} is not allowed by {allowing}: {} {}",
                v.status, v.body
            );
        }
        for refusing in refusing {
            let v = answer_under(op, &refusing).await;
            assert!(
                v.denied,
                "{op:?} is not denied by {refusing}: {} {}",
                v.status, v.body
            );
        }
    }
}
