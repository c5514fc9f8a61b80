//! radosgw's Admin Ops API on the S3 port: `/admin/user`, `/admin/bucket`,
//! `/admin/usage`, `/admin/metadata/...`, `/admin/ratelimit`, with
//! radosgw's parameters, JSON documents (`json`) and error codes, for the
//! tools that manage gateways through it (the Ceph dashboard, Rook,
//! `rgwadmin`, go-ceph's `rgw/admin`).
//!
//! It is s3s' custom route: s3s checks the request's signature (SigV4 or
//! SigV2, headers or presigned) as for any S3 request, then hands it here.
//! Each request is resolved to its operation of the table
//! (`crate::operation`, family `Admin`), noted for metrics and the ops
//! log (and counted in the usage log, when kept), and authorized once, by
//! the signer's caps (the gateway's
//! `authz`), before it runs. Errors are radosgw's: the dispatcher turns
//! their XML into radosgw's JSON error document ([`json_error`]).

mod buckets;
mod json;
mod query;
mod usage;
mod users;

use std::sync::Arc;

use http::{HeaderMap, Method, Uri};
use rsgw_gateway::{Gateway, GatewayError, GatewayResult};
use s3s::host::S3Host;
use s3s::route::S3Route;
use s3s::{Body, S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};
use serde_json::Value;

use crate::error::to_s3;
use crate::host::DnsNames;
use crate::noted::{Named, OpSlot};
use crate::operation::{Authz, S3Op};
use query::Query;

/// Most bytes of a request body the API reads (a quota or rate limit as
/// JSON is well under 1 KiB).
const MAX_BODY: usize = 64 << 10;

/// Where the API answers: `/<entry>/...` on the service's own host names
/// (never on a bucket's virtual host, where the path is an object key).
#[derive(Clone)]
pub(crate) struct AdminEntry {
    /// `/<entry>`; empty: the API is off.
    prefix: String,
    hosts: Option<Arc<DnsNames>>,
}

impl AdminEntry {
    /// The entry `entry` (radosgw's `rgw_admin_entry`; empty: off).
    pub(crate) fn new(entry: &str, hosts: Option<Arc<DnsNames>>) -> Self {
        AdminEntry {
            prefix: if entry.is_empty() {
                String::new()
            } else {
                format!("/{entry}")
            },
            hosts,
        }
    }

    /// The resource a request names under the entry (`user`,
    /// `metadata/user`...), if it is one of the API's.
    pub(crate) fn resource<'a>(&self, uri: &'a Uri, headers: &HeaderMap) -> Option<&'a str> {
        if self.prefix.is_empty() {
            return None;
        }
        let rest = uri.path().strip_prefix(self.prefix.as_str())?;
        let resource = match rest {
            "" | "/" => "",
            r => r.strip_prefix('/')?,
        };
        let vhost = self.hosts.as_ref().is_some_and(|h| {
            headers
                .get(http::header::HOST)
                .and_then(|v| v.to_str().ok())
                .and_then(|host| h.parse_host_header(host).ok())
                .is_some_and(|v| v.bucket().is_some())
        });
        (!vhost).then(|| resource.trim_end_matches('/'))
    }
}

/// The API, as s3s' custom route.
pub(crate) struct AdminApi {
    gw: Gateway,
    entry: AdminEntry,
    zonegroup: String,
}

impl AdminApi {
    pub(crate) fn new(gw: Gateway, entry: AdminEntry, zonegroup: &str) -> Self {
        AdminApi {
            gw,
            entry,
            zonegroup: zonegroup.to_string(),
        }
    }
}

/// The operation a request asks for: `Err` with its refusal when the
/// resource is none of the API's (`405`, as radosgw answers) or a part of
/// it rsgw does not serve (`501`).
fn resolve(method: &Method, resource: &str, q: &Query) -> S3Result<S3Op> {
    use S3Op::*;
    let unserved = |what: &str| {
        Err(s3_error!(
            NotImplemented,
            "rsgw's Admin Ops API does not serve {what}"
        ))
    };
    let op = match (resource, method.as_str()) {
        ("user", _) if q.has("subuser") => return unserved("subusers (Swift)"),
        ("user", _) if q.get("key-type").is_some_and(|t| t != "s3") => {
            return unserved("Swift keys");
        }
        ("user", "GET") if q.has("quota") => AdminGetUserQuota,
        ("user", "GET") => AdminGetUser,
        ("user", "PUT") if q.has("key") => AdminCreateKey,
        ("user", "PUT") if q.has("caps") => AdminAddCaps,
        ("user", "PUT") if q.has("quota") => AdminSetUserQuota,
        ("user", "PUT") => AdminCreateUser,
        ("user", "POST") => AdminModifyUser,
        ("user", "DELETE") if q.has("key") => AdminRemoveKey,
        ("user", "DELETE") if q.has("caps") => AdminRemoveCaps,
        ("user", "DELETE") => AdminRemoveUser,
        ("bucket", _) if q.has("policy") => {
            return unserved("bucket policies (use S3's GetBucketPolicy)");
        }
        ("bucket", _) if q.has("index") => {
            return unserved("index checks (use rsgw admin bucket check)");
        }
        ("bucket", "GET") => AdminGetBucket,
        ("bucket", "PUT") if q.has("quota") => AdminSetBucketQuota,
        ("bucket", "PUT") => AdminLinkBucket,
        ("bucket", "POST") => AdminUnlinkBucket,
        ("bucket", "DELETE") if q.has("object") => AdminRemoveObject,
        ("bucket", "DELETE") => AdminRemoveBucket,
        ("usage", "GET") => AdminGetUsage,
        ("usage", "DELETE") => AdminTrimUsage,
        ("metadata" | "metadata/user" | "metadata/bucket" | "metadata/bucket.instance", "GET") => {
            if q.has("key") {
                return unserved("metadata entries (use /admin/user and /admin/bucket)");
            }
            AdminListMetadata
        }
        ("ratelimit", "GET") => AdminGetRatelimit,
        ("ratelimit", "POST") => AdminSetRatelimit,
        _ => return Err(s3_error!(MethodNotAllowed)),
    };
    Ok(op)
}

/// radosgw's code and status for a gateway error where the Admin Ops API's
/// differ from S3's; the rest are S3's.
fn admin_error(e: GatewayError) -> S3Error {
    let (code, status) = match &e {
        GatewayError::NoSuchUser(_) => ("NoSuchUser", 404),
        GatewayError::UserExists(_) => ("UserAlreadyExists", 409),
        GatewayError::EmailExists(_) => ("EmailExists", 409),
        GatewayError::KeyExists(_) => ("KeyExists", 409),
        // radosgw's answer to removing a user who still owns buckets
        GatewayError::UserHasBuckets(_) => ("BucketAlreadyExists", 409),
        GatewayError::BucketNotEmpty => ("BucketNotEmpty", 409),
        GatewayError::InvalidBucketName(_) | GatewayError::InvalidKey(_) => {
            ("InvalidArgument", 400)
        }
        _ => return to_s3(e),
    };
    let mut err = S3Error::with_message(S3ErrorCode::Custom(code.into()), e.to_string());
    err.set_status_code(
        http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::BAD_REQUEST),
    );
    err
}

/// What an operation answers: a JSON document, or nothing (`200` with an
/// empty body, as radosgw answers removals).
type Answer = GatewayResult<Option<Value>>;

impl AdminApi {
    /// Runs `op` on `resource`, authorized.
    async fn run(&self, (op, resource): (S3Op, &str), q: &Query, body: &[u8]) -> Answer {
        use S3Op::*;
        match op {
            AdminGetUser | AdminCreateUser | AdminModifyUser | AdminRemoveUser | AdminCreateKey
            | AdminRemoveKey | AdminAddCaps | AdminRemoveCaps | AdminGetUserQuota
            | AdminSetUserQuota => users::run(&self.gw, op, q, body).await,
            AdminGetUsage | AdminTrimUsage => usage::run(&self.gw, op, q).await,
            _ => buckets::run(&self.gw, (op, resource), q, body, &self.zonegroup).await,
        }
    }
}

#[async_trait::async_trait]
impl S3Route for AdminApi {
    fn is_match(
        &self,
        _: &Method,
        uri: &Uri,
        headers: &HeaderMap,
        _: &mut http::Extensions,
    ) -> bool {
        self.entry.resource(uri, headers).is_some()
    }

    /// Every request goes on to [`AdminApi::call`], which notes its
    /// operation first and then decides.
    async fn check_access(&self, _: &mut S3Request<Body>) -> S3Result<()> {
        Ok(())
    }

    async fn call(&self, req: S3Request<Body>) -> S3Result<S3Response<Body>> {
        let resource = self
            .entry
            .resource(&req.uri, &req.headers)
            .unwrap_or_default();
        let q = Query::parse(req.uri.query());
        let op = resolve(&req.method, resource, &q)?;
        let access_key = req.credentials.as_ref().map(|c| c.access_key.clone());
        let user = match &access_key {
            Some(ak) => Some(self.gw.lookup_key(ak).await.map_err(admin_error)?.0),
            None => None,
        };
        if let Some(slot) = req.extensions.get::<OpSlot>() {
            slot.set(op);
            slot.name(Named {
                bucket: q.get("bucket").map(str::to_string),
                object: q.get("object").map(str::to_string),
                user: user.clone(),
                access_key,
            });
        }
        // noted first, so that the answer is this 501, not "no such
        // operation"
        if self.gw.serves_radosgw() {
            return Err(s3_error!(
                NotImplemented,
                "this gateway serves radosgw's layout: use radosgw's Admin Ops API"
            ));
        }
        // the one decision: the signer's caps
        let Some(Authz::Caps(part, need)) = op.row().map(|r| r.authz) else {
            return Err(s3_error!(InternalError, "no caps for {}", op.name()));
        };
        let Some(uid) = user else {
            return Err(s3_error!(
                AccessDenied,
                "the Admin Ops API takes signed requests only"
            ));
        };
        self.gw
            .admin_user(&uid, part, need)
            .await
            .map_err(admin_error)?;
        let body = read_body(req.input).await?;
        let answer = self
            .run((op, resource), &q, &body)
            .await
            .map_err(admin_error)?;
        let mut resp = S3Response::new(match answer {
            Some(v) => Body::from(v.to_string()),
            None => Body::empty(),
        });
        resp.headers.insert(
            http::header::CONTENT_TYPE,
            http::HeaderValue::from_static("application/json"),
        );
        Ok(resp)
    }
}

/// The request's body, up to [`MAX_BODY`] bytes.
async fn read_body(body: Body) -> S3Result<bytes::Bytes> {
    use http_body_util::BodyExt;
    match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => Ok(b.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => Err(s3_error!(
            EntityTooLarge,
            "an Admin Ops request body is at most {MAX_BODY} bytes"
        )),
        Err(e) => Err(s3_error!(IncompleteBody, "{e}")),
    }
}

/// radosgw's JSON error document for an S3 error document
/// (`<Error><Code>..</Code><Message>..</Message>`): `{"Code", "Message",
/// "RequestId", "HostId"}`. `None`: the body is no error document.
pub(crate) fn json_error(xml: &[u8], request_id: &str) -> Option<String> {
    let text = std::str::from_utf8(xml).ok()?;
    let element = |name: &str| {
        let (_, rest) = text.split_once(&format!("<{name}>"))?;
        rest.split_once(&format!("</{name}>")).map(|(v, _)| v)
    };
    let code = element("Code")?;
    let message = element("Message").unwrap_or_default();
    Some(
        serde_json::json!({
            "Code": crate::xml_text::unescape(code),
            "Message": crate::xml_text::unescape(message),
            "RequestId": request_id,
            "HostId": "",
        })
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(method: &str, path_query: &str) -> Result<S3Op, String> {
        let (resource, query) = path_query.split_once('?').unwrap_or((path_query, ""));
        let q = Query::parse(Some(query));
        resolve(&method.parse().expect("method"), resource, &q)
            .map_err(|e| e.code().as_str().to_string())
    }

    #[test]
    fn requests_resolve_as_radosgw_routes_them() {
        use S3Op::*;
        let table: &[(&str, &str, Result<S3Op, &str>)] = &[
            ("GET", "user?uid=u", Ok(AdminGetUser)),
            (
                "GET",
                "user?quota&uid=u&quota-type=user",
                Ok(AdminGetUserQuota),
            ),
            ("PUT", "user?uid=u&display-name=U", Ok(AdminCreateUser)),
            ("PUT", "user?key&uid=u", Ok(AdminCreateKey)),
            ("PUT", "user?caps&uid=u&user-caps=users=*", Ok(AdminAddCaps)),
            ("PUT", "user?quota&uid=u", Ok(AdminSetUserQuota)),
            ("POST", "user?uid=u", Ok(AdminModifyUser)),
            ("DELETE", "user?key&access-key=A", Ok(AdminRemoveKey)),
            ("DELETE", "user?caps&uid=u", Ok(AdminRemoveCaps)),
            ("DELETE", "user?uid=u", Ok(AdminRemoveUser)),
            ("PUT", "user?uid=u&subuser=u:s", Err("NotImplemented")),
            (
                "PUT",
                "user?key&uid=u&key-type=swift",
                Err("NotImplemented"),
            ),
            ("PUT", "user?key&uid=u&key-type=s3", Ok(AdminCreateKey)),
            ("GET", "bucket", Ok(AdminGetBucket)),
            ("GET", "bucket?policy&bucket=b", Err("NotImplemented")),
            ("PUT", "bucket?quota&bucket=b", Ok(AdminSetBucketQuota)),
            ("PUT", "bucket?bucket=b&uid=u", Ok(AdminLinkBucket)),
            ("POST", "bucket?bucket=b&uid=u", Ok(AdminUnlinkBucket)),
            ("DELETE", "bucket?bucket=b&object=k", Ok(AdminRemoveObject)),
            ("DELETE", "bucket?bucket=b", Ok(AdminRemoveBucket)),
            ("GET", "usage", Ok(AdminGetUsage)),
            ("DELETE", "usage", Ok(AdminTrimUsage)),
            ("GET", "metadata/user", Ok(AdminListMetadata)),
            ("GET", "metadata/user?key=u", Err("NotImplemented")),
            (
                "GET",
                "ratelimit?ratelimit-scope=user&uid=u",
                Ok(AdminGetRatelimit),
            ),
            ("POST", "ratelimit?global", Ok(AdminSetRatelimit)),
            ("GET", "nothing", Err("MethodNotAllowed")),
            ("PATCH", "user?uid=u", Err("MethodNotAllowed")),
            ("GET", "", Err("MethodNotAllowed")),
        ];
        for (method, target, want) in table {
            assert_eq!(
                op(method, target),
                want.map_err(str::to_string),
                "{method} {target}"
            );
        }
    }

    #[test]
    fn the_entry_is_the_paths_first_segment_on_the_services_own_host() {
        let hosts = Some(Arc::new(DnsNames(vec!["s3.test".into()])));
        let entry = AdminEntry::new("admin", hosts);
        let h = |host: &str| {
            let mut m = HeaderMap::new();
            m.insert(http::header::HOST, host.parse().expect("host"));
            m
        };
        let at = |path: &str, host: &str| {
            let uri: Uri = path.parse().expect("uri");
            entry.resource(&uri, &h(host)).map(str::to_string)
        };
        assert_eq!(at("/admin/user?uid=u", "s3.test"), Some("user".into()));
        assert_eq!(
            at("/admin/metadata/user", "127.0.0.1:7480"),
            Some("metadata/user".into())
        );
        assert_eq!(at("/admin", "s3.test"), Some(String::new()));
        assert_eq!(at("/admin/", "s3.test"), Some(String::new()));
        // a bucket's virtual host: an object key
        assert_eq!(at("/admin/user", "bkt.s3.test"), None);
        // other buckets, and buckets whose names start alike
        assert_eq!(at("/adminx/user", "s3.test"), None);
        assert_eq!(at("/bkt/admin/user", "s3.test"), None);
        let off = AdminEntry::new("", None);
        assert!(
            off.resource(&"/admin/user".parse().expect("uri"), &h("s3.test"))
                .is_none()
        );
    }

    #[test]
    fn errors_are_radosgws_json_documents() {
        let got = json_error(
            b"<?xml version=\"1.0\"?><Error><Code>NoSuchUser</Code><Message>user &apos;x&apos;</Message></Error>",
            "tx1",
        )
        .expect("an error");
        let v: Value = serde_json::from_str(&got).expect("json");
        assert_eq!(v["Code"], "NoSuchUser");
        assert_eq!(v["Message"], "user 'x'");
        assert_eq!(v["RequestId"], "tx1");
        assert!(json_error(b"<ListBucketResult/>", "tx1").is_none());
        assert!(json_error(b"", "tx1").is_none());
    }
}
