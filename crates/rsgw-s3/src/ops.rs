//! The S3 operations rsgw implements, as an `s3s::S3` implementation that
//! maps each typed request onto the gateway. Operations not listed here get
//! s3s' default answer, `501 NotImplemented`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;

use base64::Engine;
use futures::StreamExt;
use rsgw_gateway::{
    CannedAcl, CompleteChecks, CopyMetadata, Gateway, GetParams, ListParams, Principal, PutParams,
    RangeSpec, Requester,
};
use s3s::dto::*;
use s3s::{S3, S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};

use crate::checksums::{self, Checker};
use crate::error::to_s3;

/// rsgw's S3 operations.
#[derive(Clone)]
pub struct RsgwS3 {
    pub(crate) gw: Gateway,
    /// What GetBucketLocation names (`s3.zonegroup`).
    pub(crate) zonegroup: String,
}

/// Who makes a request, with what of it a policy's conditions test: the
/// client's address and transport (from the frontend), `Referer`,
/// `User-Agent`, and the expected bucket owners.
pub(crate) fn requester(
    principal: Principal,
    headers: &http::HeaderMap,
    extensions: &http::Extensions,
) -> Requester {
    let client = extensions.get::<rsgw_frontend::Client>();
    let header = |name: http::header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    Requester {
        principal,
        source_ip: client.map(|c| c.addr),
        secure: client.is_some_and(|c| c.secure),
        referer: header(http::header::REFERER),
        user_agent: header(http::header::USER_AGENT),
        expected_bucket_owner: header(http::HeaderName::from_static("x-amz-expected-bucket-owner")),
        expected_source_owner: header(http::HeaderName::from_static(
            "x-amz-source-expected-bucket-owner",
        )),
    }
}

/// A `Tagging` document's tags, in order, as sent.
fn tag_pairs(t: Tagging) -> Vec<(String, String)> {
    t.tag_set
        .into_iter()
        .map(|t| (t.key.unwrap_or_default(), t.value.unwrap_or_default()))
        .collect()
}

/// Stored tags as a `TagSet`.
fn tag_set(tags: BTreeMap<String, String>) -> Vec<Tag> {
    tags.into_iter()
        .map(|(k, v)| Tag {
            key: Some(k),
            value: Some(v),
        })
        .collect()
}

fn ts(secs: f64) -> Timestamp {
    Timestamp::from(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs_f64(secs.max(0.0)))
}

fn to_system_time(t: Timestamp) -> SystemTime {
    time::OffsetDateTime::from(t).into()
}

fn etag(hex: &str) -> ETag {
    ETag::Strong(hex.to_string())
}

/// `encoding-type=url`: percent-encodes everything but unreserved
/// characters and '/', as S3 does for keys and prefixes in listings.
fn url_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The delimiter a listing echoes: an empty one delimits nothing and is
/// not echoed (radosgw leaves it out too).
fn echoed(delimiter: Option<String>) -> Option<String> {
    delimiter.filter(|d| !d.is_empty())
}

/// Applies `encoding-type=url` to the strings of a listing.
struct Encoder(bool);

impl Encoder {
    fn new(encoding_type: &Option<EncodingType>) -> S3Result<Self> {
        match encoding_type.as_ref().map(EncodingType::as_str) {
            None => Ok(Encoder(false)),
            Some("url") => Ok(Encoder(true)),
            Some(other) => Err(S3Error::with_message(
                S3ErrorCode::InvalidArgument,
                format!("Invalid Encoding Method specified in Request: {other}"),
            )),
        }
    }

    fn s(&self, s: String) -> String {
        if self.0 { url_encode(&s) } else { s }
    }

    fn opt(&self, s: Option<String>) -> Option<String> {
        s.map(|s| self.s(s))
    }

    fn listing(&self, objects: &mut [Object], prefixes: &mut [CommonPrefix]) {
        for o in objects {
            o.key = self.opt(o.key.take());
        }
        for p in prefixes {
            p.prefix = self.opt(p.prefix.take());
        }
    }
}

/// GetBucketLocation's answer: the zonegroup, as radosgw names its own;
/// none (an empty LocationConstraint) where it is empty.
fn location(zonegroup: &str) -> GetBucketLocationOutput {
    GetBucketLocationOutput {
        location_constraint: Some(zonegroup)
            .filter(|z| !z.is_empty())
            .map(|z| BucketLocationConstraint::from(z.to_string())),
    }
}

/// `x-amz-checksum-mode: ENABLED` asks GET and HEAD for stored checksums.
fn wants_checksums(mode: Option<&ChecksumMode>) -> bool {
    mode.is_some_and(|m| m.as_str().eq_ignore_ascii_case("ENABLED"))
}

/// What GetObject and HeadObject ask for: the range and the conditions
/// (If-Match, If-None-Match; If-Modified-Since, If-Unmodified-Since).
pub(crate) fn get_params(
    range: Option<Range>,
    [if_match, if_none_match]: [Option<ETagCondition>; 2],
    [modified_since, unmodified_since]: [Option<Timestamp>; 2],
    head_only: bool,
) -> GetParams {
    GetParams {
        range: range.map(|r| match r {
            Range::Int { first, last } => RangeSpec::Int { first, last },
            Range::Suffix { length } => RangeSpec::Suffix { length },
        }),
        if_match: etag_list(if_match),
        if_none_match: etag_list(if_none_match),
        if_modified_since: modified_since.map(to_system_time),
        if_unmodified_since: unmodified_since.map(to_system_time),
        head_only,
    }
}

/// A write's (PutObject's, CompleteMultipartUpload's) If-Match: the ETag
/// to write over, `*` for any object.
fn write_if_match(c: Option<ETagCondition>) -> Option<String> {
    match c {
        Some(ETagCondition::Any) => Some("*".into()),
        Some(ETagCondition::ETag(ETag::Strong(s) | ETag::Weak(s))) => Some(s),
        None => None,
    }
}

/// A write's If-None-Match: whether to write only where no object is.
/// S3 takes `*` only; an ETag is refused rather than ignored, since
/// ignoring it overwrites the object the client meant to keep.
fn write_if_none_match_any(c: Option<ETagCondition>) -> S3Result<bool> {
    match c {
        None => Ok(false),
        Some(ETagCondition::Any) => Ok(true),
        Some(ETagCondition::ETag(_)) => Err(s3_error!(
            NotImplemented,
            "If-None-Match on a write takes * only (write if no object exists)"
        )),
    }
}

/// `response-expires` as the Expires header it sets.
fn response_expires(t: Option<Timestamp>) -> Option<String> {
    let mut buf = Vec::new();
    t?.format(TimestampFormat::HttpDate, &mut buf).ok()?;
    String::from_utf8(buf).ok()
}

/// `partNumber` of GetObject and HeadObject: that part (1 to 10000),
/// never with a Range.
fn with_part(mut params: GetParams, part_number: Option<i32>) -> S3Result<GetParams> {
    let Some(n) = part_number else {
        return Ok(params);
    };
    if params.range.is_some() {
        return Err(s3_error!(
            InvalidRequest,
            "Cannot specify both Range header and partNumber query parameter"
        ));
    }
    let n = u32::try_from(n)
        .ok()
        .filter(|n| (1..=10_000).contains(n))
        .ok_or_else(|| {
            s3_error!(
                InvalidArgument,
                "Part number must be an integer between 1 and 10000, inclusive"
            )
        })?;
    params.range = Some(RangeSpec::Part(n));
    Ok(params)
}

/// A `versionId` (request parameter or copy source's): objects of
/// unversioned buckets have one version, `null`; any other does not
/// exist, and must never be taken for the current one.
fn only_null_version(version: Option<&str>) -> S3Result<()> {
    match version {
        None | Some("null") => Ok(()),
        Some(_) => Err(s3_error!(
            NoSuchVersion,
            "The specified version does not exist."
        )),
    }
}

/// AWS serves `response-*` overrides to signed requests only.
fn no_anonymous_overrides(rq: &Requester, any_override: bool) -> S3Result<()> {
    if any_override && rq.uid().is_none() {
        return Err(s3_error!(
            InvalidRequest,
            "Request specific response headers cannot be used for anonymous GET requests."
        ));
    }
    Ok(())
}

/// `x-amz-tagging`: tags as a URL query string (`k1=v1&k2=v2`, each part
/// percent-encoded), checked against S3's rules.
fn tagging_header(v: Option<&str>) -> S3Result<BTreeMap<String, String>> {
    let Some(v) = v.filter(|v| !v.is_empty()) else {
        return Ok(BTreeMap::new());
    };
    let mut tags = Vec::new();
    for pair in v.split('&') {
        let (k, val) = pair.split_once('=').unwrap_or((pair, ""));
        let decode = |s: &str| {
            url_decode(s).ok_or_else(|| {
                s3_error!(
                    InvalidArgument,
                    "The x-amz-tagging header is not a valid URL-encoded query string"
                )
            })
        };
        tags.push((decode(k)?, decode(val)?));
    }
    rsgw_gateway::check_tags(tags).map_err(to_s3)
}

/// Decodes `%XX` escapes (and `+` as a space, as in query strings);
/// `None` for a bad escape or bytes that are not UTF-8.
fn url_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// `x-amz-copy-source-range`: `bytes=first-last`, both given, first at most
/// last (S3 takes no other form).
fn copy_source_range(v: &str) -> S3Result<(u64, u64)> {
    let bad = || {
        s3_error!(
            InvalidArgument,
            "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy"
        )
    };
    let (first, last) = v
        .strip_prefix("bytes=")
        .and_then(|r| r.split_once('-'))
        .ok_or_else(bad)?;
    let num = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
            .ok_or_else(bad)
    };
    let (first, last) = (num(first)?, num(last)?);
    if first > last {
        return Err(bad());
    }
    Ok((first, last))
}

fn max_keys(requested: Option<i32>) -> i32 {
    requested.unwrap_or(1000).clamp(0, 1000)
}

fn etag_list(c: Option<ETagCondition>) -> Option<Vec<String>> {
    c.map(|c| match c {
        ETagCondition::Any => vec!["*".to_string()],
        ETagCondition::ETag(ETag::Strong(s) | ETag::Weak(s)) => vec![s],
    })
}

fn canned(acl: Option<&str>) -> S3Result<CannedAcl> {
    match acl {
        None => Ok(CannedAcl::Private),
        Some(s) => CannedAcl::parse(s).ok_or_else(|| {
            S3Error::with_message(
                S3ErrorCode::InvalidArgument,
                format!("unsupported canned ACL '{s}'"),
            )
        }),
    }
}

/// Reads an ACL document (what `s3cmd setacl` and the SDKs' AccessControlPolicy
/// send) as the canned ACL it expresses: the owner's FULL_CONTROL plus READ
/// (and WRITE) for AllUsers, or READ for AuthenticatedUsers. Other grants
/// are not supported.
fn canned_from_policy(policy: &AccessControlPolicy) -> S3Result<CannedAcl> {
    const ALL: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
    const AUTH: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
    let mut all = BTreeSet::new();
    let mut auth = BTreeSet::new();
    // a user grant is the owner's when it names the document's Owner (or
    // the document names none)
    let owner = policy.owner.as_ref().and_then(|o| o.id.as_deref());
    let owners = |g: Option<&Grantee>| owner.is_none() || g.and_then(|g| g.id.as_deref()) == owner;
    for g in policy.grants.iter().flatten() {
        let perm = g
            .permission
            .as_ref()
            .map(|p| p.as_str().to_string())
            .unwrap_or_default();
        let grantee = g.grantee.as_ref();
        match grantee.and_then(|g| g.uri.as_deref()) {
            Some(ALL) => {
                all.insert(perm);
            }
            Some(AUTH) => {
                auth.insert(perm);
            }
            Some(_) => {
                return Err(s3_error!(
                    NotImplemented,
                    "only canned-ACL grants are supported"
                ));
            }
            // the owner's full control, which every canned ACL has; another
            // user's grant (a bucket owner's) is no document rsgw takes
            None if perm == Permission::FULL_CONTROL && owners(grantee) => {}
            None => {
                return Err(s3_error!(
                    NotImplemented,
                    "only canned-ACL grants are supported"
                ));
            }
        }
    }
    let set = |v: &[&str]| v.iter().map(ToString::to_string).collect::<BTreeSet<_>>();
    match (all.is_empty(), auth.is_empty()) {
        (true, true) => Ok(CannedAcl::Private),
        (false, true) if all == set(&[Permission::READ]) => Ok(CannedAcl::PublicRead),
        (false, true) if all == set(&[Permission::READ, Permission::WRITE]) => {
            Ok(CannedAcl::PublicReadWrite)
        }
        (true, false) if auth == set(&[Permission::READ]) => Ok(CannedAcl::AuthenticatedRead),
        _ => Err(s3_error!(
            NotImplemented,
            "only canned-ACL grants are supported"
        )),
    }
}

/// The ACL a Put*Acl request sets: its `x-amz-acl`, or its ACL document.
fn requested_acl(
    canned_header: Option<&str>,
    policy: Option<&AccessControlPolicy>,
) -> S3Result<CannedAcl> {
    match (canned_header, policy) {
        (Some(h), _) => canned(Some(h)),
        (None, Some(p)) => canned_from_policy(p),
        (None, None) => Err(s3_error!(MalformedACLError, "no ACL given")),
    }
}

/// A user as ACL documents name them: (ID, DisplayName).
type Named<'a> = (&'a str, &'a str);

/// The ACL document of a canned ACL, its grants in radosgw's order.
/// radosgw keeps grants in a map keyed by the grantee's user id, a group's
/// key being empty: group grants come first, in the order the canned ACL
/// adds them, then users' by id (the owner's FULL_CONTROL, and the bucket
/// owner's for the bucket-owner ACLs unless that is the owner). User
/// grantees carry ID and DisplayName, groups their URI.
fn acl_grants(owner: Named, bucket_owner: Named, acl: CannedAcl) -> (Owner, Vec<Grant>) {
    const ALL: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
    const AUTH: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
    let user = |(id, name): Named, perm: &'static str| {
        let grant = Grant {
            grantee: Some(Grantee {
                id: Some(id.to_string()),
                display_name: Some(name.to_string()),
                type_: Type::from_static(Type::CANONICAL_USER),
                email_address: None,
                uri: None,
            }),
            permission: Some(Permission::from_static(perm)),
        };
        (id.to_string(), grant)
    };
    let group = |uri: &str, perm: &'static str| {
        let grant = Grant {
            grantee: Some(Grantee {
                id: None,
                display_name: None,
                type_: Type::from_static(Type::GROUP),
                email_address: None,
                uri: Some(uri.to_string()),
            }),
            permission: Some(Permission::from_static(perm)),
        };
        (String::new(), grant)
    };
    let mut grants = vec![user(owner, Permission::FULL_CONTROL)];
    let other_bucket_owner = bucket_owner.0 != owner.0;
    match acl {
        CannedAcl::Private => {}
        CannedAcl::PublicRead => grants.push(group(ALL, Permission::READ)),
        CannedAcl::PublicReadWrite => {
            grants.push(group(ALL, Permission::READ));
            grants.push(group(ALL, Permission::WRITE));
        }
        CannedAcl::AuthenticatedRead => grants.push(group(AUTH, Permission::READ)),
        CannedAcl::BucketOwnerRead if other_bucket_owner => {
            grants.push(user(bucket_owner, Permission::READ));
        }
        CannedAcl::BucketOwnerFullControl if other_bucket_owner => {
            grants.push(user(bucket_owner, Permission::FULL_CONTROL));
        }
        CannedAcl::BucketOwnerRead | CannedAcl::BucketOwnerFullControl => {}
    }
    // stable: equal keys keep the order they were added in
    grants.sort_by(|a, b| a.0.cmp(&b.0));
    let owner = Owner {
        id: Some(owner.0.to_string()),
        display_name: Some(owner.1.to_string()),
    };
    (owner, grants.into_iter().map(|(_, g)| g).collect())
}

impl RsgwS3 {
    /// Who sends the request, with what of it a bucket policy's
    /// conditions may test: the client's address and transport (the
    /// frontend's view, trusted proxies honoured), Referer and User-Agent.
    async fn requester<T>(&self, req: &S3Request<T>) -> S3Result<Requester> {
        let principal = match &req.credentials {
            None => Principal::Anonymous,
            Some(c) => {
                let (uid, _) = self.gw.lookup_key(&c.access_key).await.map_err(to_s3)?;
                Principal::User(uid)
            }
        };
        Ok(requester(principal, &req.headers, &req.extensions))
    }

    async fn owner(&self, uid: &str) -> Owner {
        Owner {
            id: Some(uid.to_string()),
            display_name: Some(self.gw.display_name(uid).await),
        }
    }

    fn require_user(rq: &Requester) -> S3Result<&str> {
        rq.uid()
            .ok_or_else(|| s3_error!(AccessDenied, "Anonymous users cannot do this"))
    }

    #[allow(clippy::type_complexity)]
    async fn list(
        &self,
        rq: &Requester,
        bucket: &str,
        params: ListParams,
        fetch_owner: bool,
        versions: bool,
    ) -> S3Result<(rsgw_gateway::ListResult, Vec<Object>, Vec<CommonPrefix>)> {
        let res = self
            .gw
            .list_objects(rq, bucket, &params, versions)
            .await
            .map_err(to_s3)?;
        let mut objects = Vec::with_capacity(res.entries.len());
        for e in &res.entries {
            objects.push(Object {
                key: Some(e.key.clone()),
                size: Some(e.size as i64),
                e_tag: Some(etag(&e.etag)),
                last_modified: Some(ts(e.mtime)),
                storage_class: Some(ObjectStorageClass::from_static(
                    ObjectStorageClass::STANDARD,
                )),
                owner: if fetch_owner {
                    Some(self.owner(&e.owner).await)
                } else {
                    None
                },
                ..Default::default()
            });
        }
        let prefixes = res
            .common_prefixes
            .iter()
            .map(|p| CommonPrefix {
                prefix: Some(p.clone()),
            })
            .collect();
        Ok((res, objects, prefixes))
    }
}

/// What a GetObject or HeadObject (inputs with the same fields) asks of the
/// read: first the refusals (a version that does not exist, overrides
/// from an anonymous requester), then its range or part and conditions.
macro_rules! read_params {
    ($rq:ident, $i:ident, $head_only:expr) => {{
        only_null_version($i.version_id.as_deref())?;
        no_anonymous_overrides(
            &$rq,
            $i.response_content_type.is_some()
                || $i.response_content_encoding.is_some()
                || $i.response_content_disposition.is_some()
                || $i.response_content_language.is_some()
                || $i.response_cache_control.is_some()
                || $i.response_expires.is_some(),
        )?;
        with_part(
            get_params(
                $i.range,
                [$i.if_match, $i.if_none_match],
                [$i.if_modified_since, $i.if_unmodified_since],
                $head_only,
            ),
            $i.part_number,
        )?
    }};
}

/// The headers S3 stores with an object, from the typed fields every
/// object-writing input shares (PutObject, CreateMultipartUpload, CopyObject).
macro_rules! stored_headers {
    ($input:expr, $headers:expr) => {
        stored_headers(
            [
                ("content-type", $input.content_type.clone()),
                ("content-encoding", $input.content_encoding.clone()),
                ("content-disposition", $input.content_disposition.clone()),
                ("content-language", $input.content_language.clone()),
                ("cache-control", $input.cache_control.clone()),
            ],
            &$headers,
        )
    };
}

/// The headers S3 stores with an object, from a request's typed fields.
fn stored_headers(
    fields: [(&str, Option<String>); 5],
    headers: &http::HeaderMap,
) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = fields
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_string(), v?)))
        .collect();
    if let Some(ce) = out.remove("content-encoding").and_then(stored_encoding) {
        out.insert("content-encoding".into(), ce);
    }
    if let Some(exp) = headers
        .get(http::header::EXPIRES)
        .and_then(|v| v.to_str().ok())
    {
        out.insert("expires".into(), exp.to_string());
    }
    out
}

/// The Content-Encoding an object keeps: the request's without
/// `aws-chunked`, which names the upload's framing and not the object's
/// encoding (AWS drops it: `gzip, aws-chunked` is stored as `gzip`;
/// radosgw 16.2 stores it as sent). `None` when nothing else is left.
fn stored_encoding(sent: String) -> Option<String> {
    let framing = |t: &str| t.trim().eq_ignore_ascii_case("aws-chunked");
    if !sent.split(',').any(framing) {
        return Some(sent);
    }
    let rest: Vec<&str> = sent
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty() && !framing(t))
        .collect();
    (!rest.is_empty()).then(|| rest.join(", "))
}

fn decode_md5(b64: Option<&String>) -> S3Result<Option<Vec<u8>>> {
    b64.map(|b64| {
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .ok()
            .filter(|d| d.len() == 16)
            .ok_or_else(|| s3_error!(InvalidDigest, "The Content-MD5 you specified is not valid"))
    })
    .transpose()
}

/// The request's Content-MD5: the parsed field, or, where s3s dropped an
/// empty header, the header itself, so that an empty Content-MD5 is
/// `InvalidDigest` as on radosgw and AWS rather than no digest at all.
fn content_md5(field: Option<&String>, headers: &http::HeaderMap) -> S3Result<Option<Vec<u8>>> {
    match (field, headers.get("content-md5")) {
        (None, Some(raw)) => decode_md5(Some(&raw.to_str().unwrap_or_default().to_string())),
        (field, _) => decode_md5(field),
    }
}

fn body_stream(body: Option<StreamingBlob>) -> rsgw_gateway::BodyStream {
    match body {
        Some(b) => Box::pin(b.map(|r| r.map_err(|e| crate::error::body_error(e.as_ref())))),
        None => Box::pin(futures::stream::empty()),
    }
}

#[async_trait::async_trait]
impl S3 for RsgwS3 {
    async fn list_buckets(
        &self,
        req: S3Request<ListBucketsInput>,
    ) -> S3Result<S3Response<ListBucketsOutput>> {
        let rq = self.requester(&req).await?;
        let uid = Self::require_user(&rq)?;
        let buckets = self.gw.list_buckets(uid).await.map_err(to_s3)?;
        Ok(S3Response::new(ListBucketsOutput {
            buckets: Some(
                buckets
                    .into_iter()
                    .map(|b| Bucket {
                        name: Some(b.name),
                        creation_date: Some(ts(b.created)),
                        bucket_region: None,
                    })
                    .collect(),
            ),
            owner: Some(self.owner(uid).await),
            ..Default::default()
        }))
    }

    async fn create_bucket(
        &self,
        req: S3Request<CreateBucketInput>,
    ) -> S3Result<S3Response<CreateBucketOutput>> {
        let rq = self.requester(&req).await?;
        let uid = Self::require_user(&rq)?;
        let acl = canned(req.input.acl.as_ref().map(BucketCannedACL::as_str))?;
        self.gw
            .create_bucket(uid, &req.input.bucket, acl)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(CreateBucketOutput {
            location: Some(format!("/{}", req.input.bucket)),
        }))
    }

    async fn head_bucket(
        &self,
        req: S3Request<HeadBucketInput>,
    ) -> S3Result<S3Response<HeadBucketOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .head_bucket(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(HeadBucketOutput::default()))
    }

    async fn delete_bucket(
        &self,
        req: S3Request<DeleteBucketInput>,
    ) -> S3Result<S3Response<DeleteBucketOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_bucket(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteBucketOutput::default()))
    }

    async fn get_bucket_location(
        &self,
        req: S3Request<GetBucketLocationInput>,
    ) -> S3Result<S3Response<GetBucketLocationOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .bucket_location(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(location(&self.zonegroup)))
    }

    async fn get_bucket_acl(
        &self,
        req: S3Request<GetBucketAclInput>,
    ) -> S3Result<S3Response<GetBucketAclOutput>> {
        let rq = self.requester(&req).await?;
        let info = self
            .gw
            .get_bucket_acl(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        let name = self.gw.display_name(&info.owner).await;
        let owner = (info.owner.as_str(), name.as_str());
        let (owner, grants) = acl_grants(owner, owner, info.acl);
        Ok(S3Response::new(GetBucketAclOutput {
            owner: Some(owner),
            grants: Some(grants),
        }))
    }

    async fn put_bucket_acl(
        &self,
        req: S3Request<PutBucketAclInput>,
    ) -> S3Result<S3Response<PutBucketAclOutput>> {
        let rq = self.requester(&req).await?;
        let acl = requested_acl(
            req.input.acl.as_ref().map(BucketCannedACL::as_str),
            req.input.access_control_policy.as_ref(),
        )?;
        self.gw
            .set_bucket_acl(&rq, &req.input.bucket, acl)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutBucketAclOutput::default()))
    }

    async fn get_bucket_policy(
        &self,
        req: S3Request<GetBucketPolicyInput>,
    ) -> S3Result<S3Response<GetBucketPolicyOutput>> {
        let rq = self.requester(&req).await?;
        let policy = self
            .gw
            .get_bucket_policy(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(GetBucketPolicyOutput {
            policy: Some(policy),
        }))
    }

    async fn get_bucket_cors(
        &self,
        req: S3Request<GetBucketCorsInput>,
    ) -> S3Result<S3Response<GetBucketCorsOutput>> {
        let rq = self.requester(&req).await?;
        let rules = self
            .gw
            .get_bucket_cors(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        let opt = |v: Vec<String>| (!v.is_empty()).then_some(v);
        Ok(S3Response::new(GetBucketCorsOutput {
            cors_rules: Some(
                rules
                    .into_iter()
                    .map(|r| CORSRule {
                        id: r.id,
                        allowed_origins: r.allowed_origins,
                        allowed_methods: r.allowed_methods,
                        allowed_headers: opt(r.allowed_headers),
                        expose_headers: opt(r.expose_headers),
                        max_age_seconds: r.max_age_seconds,
                    })
                    .collect(),
            ),
        }))
    }

    async fn put_bucket_cors(
        &self,
        req: S3Request<PutBucketCorsInput>,
    ) -> S3Result<S3Response<PutBucketCorsOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let rules = i
            .cors_configuration
            .cors_rules
            .into_iter()
            .map(|r| rsgw_gateway::CorsRule {
                id: r.id,
                allowed_origins: r.allowed_origins,
                allowed_methods: r.allowed_methods,
                allowed_headers: r.allowed_headers.unwrap_or_default(),
                expose_headers: r.expose_headers.unwrap_or_default(),
                max_age_seconds: r.max_age_seconds,
            })
            .collect();
        self.gw
            .put_bucket_cors(&rq, &i.bucket, rules)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutBucketCorsOutput::default()))
    }

    async fn delete_bucket_cors(
        &self,
        req: S3Request<DeleteBucketCorsInput>,
    ) -> S3Result<S3Response<DeleteBucketCorsOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_bucket_cors(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteBucketCorsOutput::default()))
    }

    async fn get_bucket_website(
        &self,
        req: S3Request<GetBucketWebsiteInput>,
    ) -> S3Result<S3Response<GetBucketWebsiteOutput>> {
        let rq = self.requester(&req).await?;
        let cfg = self
            .gw
            .get_bucket_website(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(crate::website::to_s3_output(cfg)))
    }

    async fn put_bucket_website(
        &self,
        req: S3Request<PutBucketWebsiteInput>,
    ) -> S3Result<S3Response<PutBucketWebsiteOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let cfg = crate::website::from_s3(i.website_configuration)?;
        self.gw
            .put_bucket_website(&rq, &i.bucket, cfg)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutBucketWebsiteOutput::default()))
    }

    async fn delete_bucket_website(
        &self,
        req: S3Request<DeleteBucketWebsiteInput>,
    ) -> S3Result<S3Response<DeleteBucketWebsiteOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_bucket_website(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteBucketWebsiteOutput::default()))
    }

    async fn get_bucket_tagging(
        &self,
        req: S3Request<GetBucketTaggingInput>,
    ) -> S3Result<S3Response<GetBucketTaggingOutput>> {
        let rq = self.requester(&req).await?;
        let tags = self
            .gw
            .get_bucket_tagging(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(GetBucketTaggingOutput {
            tag_set: tag_set(tags),
        }))
    }

    async fn put_bucket_tagging(
        &self,
        req: S3Request<PutBucketTaggingInput>,
    ) -> S3Result<S3Response<PutBucketTaggingOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        self.gw
            .put_bucket_tagging(&rq, &i.bucket, tag_pairs(i.tagging))
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutBucketTaggingOutput::default()))
    }

    async fn delete_bucket_tagging(
        &self,
        req: S3Request<DeleteBucketTaggingInput>,
    ) -> S3Result<S3Response<DeleteBucketTaggingOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_bucket_tagging(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteBucketTaggingOutput::default()))
    }

    async fn get_bucket_lifecycle_configuration(
        &self,
        req: S3Request<GetBucketLifecycleConfigurationInput>,
    ) -> S3Result<S3Response<GetBucketLifecycleConfigurationOutput>> {
        let rq = self.requester(&req).await?;
        let rules = self
            .gw
            .get_bucket_lifecycle(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(crate::lifecycle::to_s3(rules)))
    }

    async fn put_bucket_lifecycle_configuration(
        &self,
        req: S3Request<PutBucketLifecycleConfigurationInput>,
    ) -> S3Result<S3Response<PutBucketLifecycleConfigurationOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let Some(cfg) = i.lifecycle_configuration else {
            return Err(s3_error!(
                MalformedXML,
                "no LifecycleConfiguration in the body"
            ));
        };
        let rules = crate::lifecycle::from_s3(cfg)?;
        self.gw
            .put_bucket_lifecycle(&rq, &i.bucket, rules)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(
            PutBucketLifecycleConfigurationOutput::default(),
        ))
    }

    async fn delete_bucket_lifecycle(
        &self,
        req: S3Request<DeleteBucketLifecycleInput>,
    ) -> S3Result<S3Response<DeleteBucketLifecycleOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_bucket_lifecycle(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteBucketLifecycleOutput::default()))
    }

    async fn put_bucket_policy(
        &self,
        req: S3Request<PutBucketPolicyInput>,
    ) -> S3Result<S3Response<PutBucketPolicyOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .put_bucket_policy(&rq, &req.input.bucket, &req.input.policy)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutBucketPolicyOutput::default()))
    }

    async fn delete_bucket_policy(
        &self,
        req: S3Request<DeleteBucketPolicyInput>,
    ) -> S3Result<S3Response<DeleteBucketPolicyOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_bucket_policy(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteBucketPolicyOutput::default()))
    }

    async fn get_bucket_policy_status(
        &self,
        req: S3Request<GetBucketPolicyStatusInput>,
    ) -> S3Result<S3Response<GetBucketPolicyStatusOutput>> {
        let rq = self.requester(&req).await?;
        let public = self
            .gw
            .bucket_policy_status(&rq, &req.input.bucket)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(GetBucketPolicyStatusOutput {
            policy_status: Some(PolicyStatus {
                is_public: Some(public),
            }),
        }))
    }

    async fn list_objects(
        &self,
        req: S3Request<ListObjectsInput>,
    ) -> S3Result<S3Response<ListObjectsOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let max = max_keys(i.max_keys);
        let delimiter = echoed(i.delimiter);
        let params = ListParams {
            prefix: i.prefix.clone().unwrap_or_default(),
            delimiter: delimiter.clone(),
            start_after: i.marker.clone().unwrap_or_default(),
            max_keys: max as usize,
        };
        let enc = Encoder::new(&i.encoding_type)?;
        let (res, mut contents, mut prefixes) =
            self.list(&rq, &i.bucket, params, true, false).await?;
        enc.listing(&mut contents, &mut prefixes);
        Ok(S3Response::new(ListObjectsOutput {
            name: Some(i.bucket),
            // ListObjects (v1) echoes its prefix as given, encoding-type=url
            // or not: radosgw does, and botocore, which asks for url
            // encoding on every listing, decodes v1's Delimiter and Marker
            // but not its Prefix
            prefix: Some(i.prefix.unwrap_or_default()),
            marker: Some(enc.s(i.marker.unwrap_or_default())),
            max_keys: Some(max),
            is_truncated: Some(res.is_truncated),
            next_marker: if delimiter.is_some() {
                enc.opt(res.next_marker.clone())
            } else {
                None
            },
            contents: Some(contents),
            common_prefixes: Some(prefixes),
            delimiter: enc.opt(delimiter),
            encoding_type: i.encoding_type,
            ..Default::default()
        }))
    }

    async fn list_objects_v2(
        &self,
        req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let after = match &i.continuation_token {
            Some(t) => String::from_utf8(
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(t)
                    .map_err(|_| {
                        s3_error!(
                            InvalidArgument,
                            "The continuation token provided is incorrect"
                        )
                    })?,
            )
            .map_err(|_| {
                s3_error!(
                    InvalidArgument,
                    "The continuation token provided is incorrect"
                )
            })?,
            None => i.start_after.clone().unwrap_or_default(),
        };
        let max = max_keys(i.max_keys);
        let params = ListParams {
            prefix: i.prefix.clone().unwrap_or_default(),
            delimiter: i.delimiter.clone(),
            start_after: after,
            max_keys: max as usize,
        };
        let enc = Encoder::new(&i.encoding_type)?;
        let (res, mut contents, mut prefixes) = self
            .list(
                &rq,
                &i.bucket,
                params,
                i.fetch_owner.unwrap_or(false),
                false,
            )
            .await?;
        enc.listing(&mut contents, &mut prefixes);
        let count = (contents.len() + prefixes.len()) as i32;
        Ok(S3Response::new(ListObjectsV2Output {
            name: Some(i.bucket),
            prefix: Some(enc.s(i.prefix.unwrap_or_default())),
            max_keys: Some(max),
            key_count: Some(count),
            continuation_token: i.continuation_token,
            next_continuation_token: res
                .next_marker
                .as_ref()
                .map(|m| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(m)),
            is_truncated: Some(res.is_truncated),
            contents: Some(contents),
            common_prefixes: Some(prefixes),
            delimiter: enc.opt(echoed(i.delimiter)),
            encoding_type: i.encoding_type,
            start_after: enc.opt(i.start_after),
            ..Default::default()
        }))
    }

    async fn put_object(
        &self,
        req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let headers = stored_headers!(i, req.headers);
        let params = PutParams {
            headers,
            user_meta: i.metadata.unwrap_or_default().into_iter().collect(),
            tags: tagging_header(i.tagging.as_deref())?,
            acl: canned(i.acl.as_ref().map(ObjectCannedACL::as_str))?,
            content_md5: content_md5(i.content_md5.as_ref(), &req.headers)?,
            content_length: i.content_length.map(|l| l.max(0) as u64),
            if_match: write_if_match(i.if_match),
            if_none_match_any: write_if_none_match_any(i.if_none_match)?,
            check: None,
        };
        let checker = Checker::new(
            Checksum {
                checksum_crc32: i.checksum_crc32.clone(),
                checksum_crc32c: i.checksum_crc32c.clone(),
                checksum_sha1: i.checksum_sha1.clone(),
                checksum_sha256: i.checksum_sha256.clone(),
                checksum_crc64nvme: i.checksum_crc64nvme.clone(),
                ..Default::default()
            },
            i.checksum_algorithm.as_ref(),
            &req.headers,
            req.trailing_headers.clone(),
        )?;
        let mut params = params;
        let body = match checker {
            Some(c) => {
                let (body, check) = c.wrap(body_stream(i.body));
                params.check = Some(check);
                body
            }
            None => body_stream(i.body),
        };
        let res = self
            .gw
            .put_object(&rq, &i.bucket, &i.key, params, body)
            .await
            .map_err(to_s3)?;
        let sums = checksums::stored(&res.meta);
        Ok(S3Response::new(PutObjectOutput {
            e_tag: Some(etag(&res.meta.etag)),
            checksum_crc32: sums.checksum_crc32,
            checksum_crc32c: sums.checksum_crc32c,
            checksum_sha1: sums.checksum_sha1,
            checksum_sha256: sums.checksum_sha256,
            checksum_crc64nvme: sums.checksum_crc64nvme,
            ..Default::default()
        }))
    }

    async fn post_object(
        &self,
        req: S3Request<PostObjectInput>,
    ) -> S3Result<S3Response<PostObjectOutput>> {
        crate::post_object::post_object(self, req).await
    }

    async fn get_object(
        &self,
        req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let params = read_params!(rq, i, false);
        let res = self
            .gw
            .get_object(&rq, &i.bucket, &i.key, params)
            .await
            .map_err(to_s3)?;
        let m = &res.meta;
        let (len, content_range) = match res.range {
            Some((s, e)) => (e - s, Some(format!("bytes {}-{}/{}", s, e - 1, m.size))),
            None => (m.size, None),
        };
        let h = |name: &str| m.headers.get(name).cloned();
        let body = res
            .body
            .map(|b| StreamingBlob::wrap(sync_wrapper::SyncStream::new(b)));
        let mut out = GetObjectOutput {
            body,
            content_length: Some(len as i64),
            content_range,
            accept_ranges: Some("bytes".into()),
            e_tag: Some(etag(&m.etag)),
            last_modified: Some(ts(m.mtime)),
            metadata: Some(m.user_meta.clone().into_iter().collect()),
            // what was stored without a type is served as S3 serves it
            content_type: h("content-type").or_else(|| Some("binary/octet-stream".into())),
            content_encoding: h("content-encoding"),
            content_disposition: h("content-disposition"),
            content_language: h("content-language"),
            cache_control: h("cache-control"),
            tag_count: (!m.tags.is_empty()).then_some(m.tags.len() as i32),
            parts_count: res.parts_count.map(|n| n as i32),
            ..Default::default()
        };
        if wants_checksums(i.checksum_mode.as_ref()) && res.range.is_none() {
            let c = checksums::stored(m);
            out.checksum_crc32 = c.checksum_crc32;
            out.checksum_crc32c = c.checksum_crc32c;
            out.checksum_sha1 = c.checksum_sha1;
            out.checksum_sha256 = c.checksum_sha256;
            out.checksum_crc64nvme = c.checksum_crc64nvme;
        }
        // response-* query parameters override the stored headers
        if let Some(v) = i.response_content_type {
            out.content_type = Some(v);
        }
        if let Some(v) = i.response_content_encoding {
            out.content_encoding = Some(v);
        }
        if let Some(v) = i.response_content_disposition {
            out.content_disposition = Some(v);
        }
        if let Some(v) = i.response_content_language {
            out.content_language = Some(v);
        }
        if let Some(v) = i.response_cache_control {
            out.cache_control = Some(v);
        }
        let mut resp = S3Response::new(out);
        let expires = response_expires(i.response_expires).or_else(|| h("expires"));
        if let Some(v) = expires.and_then(|e| http::HeaderValue::from_str(&e).ok()) {
            resp.headers.insert(http::header::EXPIRES, v);
        }
        if res.range.is_some() {
            resp.status = Some(http::StatusCode::PARTIAL_CONTENT);
        }
        Ok(resp)
    }

    async fn head_object(
        &self,
        req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let params = read_params!(rq, i, true);
        let res = self
            .gw
            .get_object(&rq, &i.bucket, &i.key, params)
            .await
            .map_err(to_s3)?;
        let m = &res.meta;
        let h = |name: &str| m.headers.get(name).cloned();
        let mut resp = S3Response::new(HeadObjectOutput {
            content_length: Some(res.range.map_or(m.size, |(s, e)| e - s) as i64),
            content_range: res
                .range
                .map(|(s, e)| format!("bytes {}-{}/{}", s, e - 1, m.size)),
            accept_ranges: Some("bytes".into()),
            e_tag: Some(etag(&m.etag)),
            last_modified: Some(ts(m.mtime)),
            metadata: Some(m.user_meta.clone().into_iter().collect()),
            // what was stored without a type is served as S3 serves it
            content_type: h("content-type").or_else(|| Some("binary/octet-stream".into())),
            content_encoding: h("content-encoding"),
            content_disposition: h("content-disposition"),
            content_language: h("content-language"),
            cache_control: h("cache-control"),
            parts_count: res.parts_count.map(|n| n as i32),
            ..Default::default()
        });
        // response-* query parameters override the stored headers, as on GET
        let out = &mut resp.output;
        for (field, v) in [
            (&mut out.content_type, i.response_content_type),
            (&mut out.content_encoding, i.response_content_encoding),
            (&mut out.content_disposition, i.response_content_disposition),
            (&mut out.content_language, i.response_content_language),
            (&mut out.cache_control, i.response_cache_control),
        ] {
            if v.is_some() {
                *field = v;
            }
        }
        if wants_checksums(i.checksum_mode.as_ref()) && res.range.is_none() {
            let c = checksums::stored(m);
            let out = &mut resp.output;
            out.checksum_crc32 = c.checksum_crc32;
            out.checksum_crc32c = c.checksum_crc32c;
            out.checksum_sha1 = c.checksum_sha1;
            out.checksum_sha256 = c.checksum_sha256;
            out.checksum_crc64nvme = c.checksum_crc64nvme;
        }
        if let Some(exp) = response_expires(i.response_expires).or_else(|| h("expires"))
            && let Ok(v) = http::HeaderValue::from_str(&exp)
        {
            resp.headers.insert(http::header::EXPIRES, v);
        }
        if res.range.is_some() {
            resp.status = Some(http::StatusCode::PARTIAL_CONTENT);
        }
        Ok(resp)
    }

    async fn delete_object(
        &self,
        req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        let rq = self.requester(&req).await?;
        if only_null_version(req.input.version_id.as_deref()).is_err() {
            // a version that does not exist: nothing to delete (AWS's
            // answer for a versioned bucket, radosgw's here); never the
            // current object
            self.gw
                .bucket_info(&req.input.bucket)
                .await
                .map_err(to_s3)?;
            return Ok(S3Response::new(DeleteObjectOutput::default()));
        }
        self.gw
            .delete_object(&rq, &req.input.bucket, &req.input.key)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteObjectOutput::default()))
    }

    async fn delete_objects(
        &self,
        req: S3Request<DeleteObjectsInput>,
    ) -> S3Result<S3Response<DeleteObjectsOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        if i.delete.objects.len() > 1000 {
            return Err(s3_error!(MalformedXML, "at most 1000 keys per request"));
        }
        self.gw.bucket_info(&i.bucket).await.map_err(to_s3)?;
        let quiet = i.delete.quiet.unwrap_or(false);
        let (mut deleted, mut errors) = (Vec::new(), Vec::new());
        // a version that does not exist has nothing to delete (see
        // delete_object)
        let (keys, versions): (Vec<_>, Vec<_>) = i
            .delete
            .objects
            .into_iter()
            .partition(|o| only_null_version(o.version_id.as_deref()).is_ok());
        if !quiet {
            deleted.extend(versions.into_iter().map(|o| DeletedObject {
                key: Some(o.key),
                version_id: o.version_id,
                ..Default::default()
            }));
        }
        let keys = keys.into_iter().map(|o| o.key).collect();
        for (key, r) in self.gw.delete_objects(&rq, &i.bucket, keys).await {
            match r {
                Ok(()) => {
                    if !quiet {
                        deleted.push(DeletedObject {
                            key: Some(key),
                            ..Default::default()
                        });
                    }
                }
                Err(e) => {
                    let s3e = to_s3(e);
                    errors.push(Error {
                        key: Some(key),
                        code: Some(s3e.code().as_str().to_string()),
                        message: s3e.message().map(str::to_string),
                        version_id: None,
                    });
                }
            }
        }
        Ok(S3Response::new(DeleteObjectsOutput {
            deleted: Some(deleted),
            errors: Some(errors),
            ..Default::default()
        }))
    }

    async fn get_object_acl(
        &self,
        req: S3Request<GetObjectAclInput>,
    ) -> S3Result<S3Response<GetObjectAclOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let res = self
            .gw
            .get_object_acl(&rq, &i.bucket, &i.key)
            .await
            .map_err(to_s3)?;
        let name = self.gw.display_name(&res.owner).await;
        let bucket_owner_name = self.gw.display_name(&res.bucket_owner).await;
        let (owner, grants) = acl_grants(
            (&res.owner, &name),
            (&res.bucket_owner, &bucket_owner_name),
            res.acl,
        );
        Ok(S3Response::new(GetObjectAclOutput {
            owner: Some(owner),
            grants: Some(grants),
            ..Default::default()
        }))
    }

    async fn put_object_acl(
        &self,
        req: S3Request<PutObjectAclInput>,
    ) -> S3Result<S3Response<PutObjectAclOutput>> {
        let rq = self.requester(&req).await?;
        let acl = requested_acl(
            req.input.acl.as_ref().map(ObjectCannedACL::as_str),
            req.input.access_control_policy.as_ref(),
        )?;
        self.gw
            .set_object_acl(&rq, &req.input.bucket, &req.input.key, acl)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutObjectAclOutput::default()))
    }

    async fn create_multipart_upload(
        &self,
        req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let headers = stored_headers!(i, req.headers);
        let params = PutParams {
            headers,
            user_meta: i.metadata.unwrap_or_default().into_iter().collect(),
            tags: tagging_header(i.tagging.as_deref())?,
            acl: canned(i.acl.as_ref().map(ObjectCannedACL::as_str))?,
            ..Default::default()
        };
        let upload_id = self
            .gw
            .create_multipart(&rq, &i.bucket, &i.key, params)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(CreateMultipartUploadOutput {
            bucket: Some(i.bucket),
            key: Some(i.key),
            upload_id: Some(upload_id),
            ..Default::default()
        }))
    }

    async fn upload_part(
        &self,
        req: S3Request<UploadPartInput>,
    ) -> S3Result<S3Response<UploadPartOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let checker = Checker::new(
            Checksum {
                checksum_crc32: i.checksum_crc32.clone(),
                checksum_crc32c: i.checksum_crc32c.clone(),
                checksum_sha1: i.checksum_sha1.clone(),
                checksum_sha256: i.checksum_sha256.clone(),
                checksum_crc64nvme: i.checksum_crc64nvme.clone(),
                ..Default::default()
            },
            i.checksum_algorithm.as_ref(),
            &req.headers,
            req.trailing_headers.clone(),
        )?;
        let (body, check) = match checker {
            Some(c) => {
                let (b, k) = c.wrap(body_stream(i.body));
                (b, Some(k))
            }
            None => (body_stream(i.body), None),
        };
        let number = u32::try_from(i.part_number).map_err(|_| {
            s3_error!(
                InvalidArgument,
                "Part number must be an integer between 1 and 10000"
            )
        })?;
        let part = self
            .gw
            .upload_part(
                &rq,
                &i.bucket,
                &i.key,
                &i.upload_id,
                number,
                i.content_length.map(|l| l.max(0) as u64),
                content_md5(i.content_md5.as_ref(), &req.headers)?,
                check,
                body,
            )
            .await
            .map_err(to_s3)?;
        let sums = checksums::from_map(&part.checksums);
        Ok(S3Response::new(UploadPartOutput {
            e_tag: Some(etag(&part.etag)),
            checksum_crc32: sums.checksum_crc32,
            checksum_crc32c: sums.checksum_crc32c,
            checksum_sha1: sums.checksum_sha1,
            checksum_sha256: sums.checksum_sha256,
            checksum_crc64nvme: sums.checksum_crc64nvme,
            ..Default::default()
        }))
    }

    async fn complete_multipart_upload(
        &self,
        req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let parts = i
            .multipart_upload
            .and_then(|m| m.parts)
            .unwrap_or_default()
            .into_iter()
            .map(|p| {
                let n = p.part_number.and_then(|n| u32::try_from(n).ok());
                let e = p.e_tag.map(|e| match e {
                    ETag::Strong(s) | ETag::Weak(s) => s,
                });
                n.zip(e).ok_or_else(|| {
                    s3_error!(MalformedXML, "each part needs a PartNumber and an ETag")
                })
            })
            .collect::<S3Result<Vec<_>>>()?;
        let checks = CompleteChecks {
            if_match: write_if_match(i.if_match),
            if_none_match_any: write_if_none_match_any(i.if_none_match)?,
            object_size: i.mpu_object_size.map(|s| s.max(0) as u64),
        };
        let res = self
            .gw
            .complete_multipart_checked(&rq, &i.bucket, &i.key, &i.upload_id, &parts, &checks)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(CompleteMultipartUploadOutput {
            location: Some(format!("/{}/{}", i.bucket, i.key)),
            bucket: Some(i.bucket),
            key: Some(i.key),
            e_tag: Some(etag(&res.meta.etag)),
            ..Default::default()
        }))
    }

    async fn abort_multipart_upload(
        &self,
        req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        self.gw
            .abort_multipart(&rq, &i.bucket, &i.key, &i.upload_id)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(AbortMultipartUploadOutput::default()))
    }

    async fn list_parts(
        &self,
        req: S3Request<ListPartsInput>,
    ) -> S3Result<S3Response<ListPartsOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let max = i.max_parts.unwrap_or(1000).clamp(0, 1000);
        let marker = i.part_number_marker.unwrap_or(0).max(0) as u32;
        let (up, parts, truncated) = self
            .gw
            .list_parts(&rq, &i.bucket, &i.key, &i.upload_id, marker, max as usize)
            .await
            .map_err(to_s3)?;
        let owner = self.owner(&up.owner).await;
        Ok(S3Response::new(ListPartsOutput {
            bucket: Some(i.bucket),
            key: Some(i.key),
            upload_id: Some(i.upload_id),
            part_number_marker: Some(marker as i32),
            next_part_number_marker: parts.last().map(|p| p.number as i32),
            max_parts: Some(max),
            is_truncated: Some(truncated),
            initiator: Some(Initiator {
                id: owner.id.clone(),
                display_name: owner.display_name.clone(),
            }),
            owner: Some(owner),
            storage_class: Some(StorageClass::from_static(StorageClass::STANDARD)),
            parts: Some(
                parts
                    .iter()
                    .map(|p| Part {
                        part_number: Some(p.number as i32),
                        e_tag: Some(etag(&p.etag)),
                        size: Some(p.size as i64),
                        last_modified: Some(ts(p.mtime)),
                        ..Default::default()
                    })
                    .collect(),
            ),
            ..Default::default()
        }))
    }

    async fn list_multipart_uploads(
        &self,
        req: S3Request<ListMultipartUploadsInput>,
    ) -> S3Result<S3Response<ListMultipartUploadsOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let max = i.max_uploads.unwrap_or(1000).clamp(0, 1000);
        let list = self
            .gw
            .list_multipart_uploads(
                &rq,
                &i.bucket,
                i.prefix.as_deref().unwrap_or(""),
                (
                    i.key_marker.as_deref().unwrap_or(""),
                    i.upload_id_marker.as_deref().unwrap_or(""),
                ),
                max as usize,
            )
            .await
            .map_err(to_s3)?;
        let mut uploads = Vec::with_capacity(list.uploads.len());
        for u in &list.uploads {
            let owner = self.owner(&u.owner).await;
            uploads.push(MultipartUpload {
                key: Some(u.key.clone()),
                upload_id: Some(u.upload_id.clone()),
                initiated: Some(ts(u.initiated)),
                initiator: Some(Initiator {
                    id: owner.id.clone(),
                    display_name: owner.display_name.clone(),
                }),
                owner: Some(owner),
                storage_class: Some(StorageClass::from_static(StorageClass::STANDARD)),
                ..Default::default()
            });
        }
        Ok(S3Response::new(ListMultipartUploadsOutput {
            bucket: Some(i.bucket),
            prefix: i.prefix,
            key_marker: i.key_marker,
            upload_id_marker: i.upload_id_marker,
            max_uploads: Some(max),
            is_truncated: Some(list.is_truncated),
            next_key_marker: list.uploads.last().map(|u| u.key.clone()),
            next_upload_id_marker: list.uploads.last().map(|u| u.upload_id.clone()),
            uploads: Some(uploads),
            ..Default::default()
        }))
    }

    async fn copy_object(
        &self,
        req: S3Request<CopyObjectInput>,
    ) -> S3Result<S3Response<CopyObjectOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let CopySource::Bucket {
            bucket: src_bucket,
            key: src_key,
            version_id: src_version,
        } = &i.copy_source
        else {
            return Err(s3_error!(
                NotImplemented,
                "copy sources other than bucket/key are not supported"
            ));
        };
        only_null_version(src_version.as_deref())?;
        let metadata = match i.metadata_directive.as_ref().map(MetadataDirective::as_str) {
            None | Some("COPY") => CopyMetadata::Copy,
            Some("REPLACE") => CopyMetadata::Replace {
                headers: stored_headers!(i, req.headers),
                user_meta: i.metadata.clone().unwrap_or_default().into_iter().collect(),
            },
            Some(other) => {
                return Err(S3Error::with_message(
                    S3ErrorCode::InvalidArgument,
                    format!("Unknown metadata directive '{other}'"),
                ));
            }
        };
        let tags = match i.tagging_directive.as_ref().map(TaggingDirective::as_str) {
            None | Some("COPY") => None,
            Some("REPLACE") => Some(tagging_header(i.tagging.as_deref())?),
            Some(other) => {
                return Err(S3Error::with_message(
                    S3ErrorCode::InvalidArgument,
                    format!("Unknown tagging directive '{other}'"),
                ));
            }
        };
        let conditions = GetParams {
            if_match: etag_list(i.copy_source_if_match),
            if_none_match: etag_list(i.copy_source_if_none_match),
            if_modified_since: i.copy_source_if_modified_since.map(to_system_time),
            if_unmodified_since: i.copy_source_if_unmodified_since.map(to_system_time),
            ..Default::default()
        };
        let res = self
            .gw
            .copy_object(
                &rq,
                src_bucket,
                src_key,
                &i.bucket,
                &i.key,
                metadata,
                canned(i.acl.as_ref().map(ObjectCannedACL::as_str))?,
                tags,
                conditions,
            )
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(CopyObjectOutput {
            copy_object_result: Some(CopyObjectResult {
                e_tag: Some(etag(&res.meta.etag)),
                last_modified: Some(ts(res.meta.mtime)),
                ..Default::default()
            }),
            ..Default::default()
        }))
    }

    async fn get_object_tagging(
        &self,
        req: S3Request<GetObjectTaggingInput>,
    ) -> S3Result<S3Response<GetObjectTaggingOutput>> {
        let rq = self.requester(&req).await?;
        let tags = self
            .gw
            .get_object_tagging(&rq, &req.input.bucket, &req.input.key)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(GetObjectTaggingOutput {
            tag_set: tag_set(tags),
            version_id: None,
        }))
    }

    async fn put_object_tagging(
        &self,
        req: S3Request<PutObjectTaggingInput>,
    ) -> S3Result<S3Response<PutObjectTaggingOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let tags = rsgw_gateway::check_tags(tag_pairs(i.tagging)).map_err(to_s3)?;
        self.gw
            .put_object_tagging(&rq, &i.bucket, &i.key, tags)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(PutObjectTaggingOutput::default()))
    }

    async fn delete_object_tagging(
        &self,
        req: S3Request<DeleteObjectTaggingInput>,
    ) -> S3Result<S3Response<DeleteObjectTaggingOutput>> {
        let rq = self.requester(&req).await?;
        self.gw
            .delete_object_tagging(&rq, &req.input.bucket, &req.input.key)
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(DeleteObjectTaggingOutput::default()))
    }

    async fn upload_part_copy(
        &self,
        req: S3Request<UploadPartCopyInput>,
    ) -> S3Result<S3Response<UploadPartCopyOutput>> {
        let rq = self.requester(&req).await?;
        let i = req.input;
        let CopySource::Bucket {
            bucket: src_bucket,
            key: src_key,
            version_id: src_version,
        } = &i.copy_source
        else {
            return Err(s3_error!(
                NotImplemented,
                "copy sources other than bucket/key are not supported"
            ));
        };
        only_null_version(src_version.as_deref())?;
        let number = u32::try_from(i.part_number).map_err(|_| {
            s3_error!(
                InvalidArgument,
                "Part number must be an integer between 1 and 10000"
            )
        })?;
        let range = i
            .copy_source_range
            .as_deref()
            .map(copy_source_range)
            .transpose()?;
        let conditions = GetParams {
            if_match: etag_list(i.copy_source_if_match),
            if_none_match: etag_list(i.copy_source_if_none_match),
            if_modified_since: i.copy_source_if_modified_since.map(to_system_time),
            if_unmodified_since: i.copy_source_if_unmodified_since.map(to_system_time),
            ..Default::default()
        };
        let part = self
            .gw
            .upload_part_copy(
                &rq,
                &i.bucket,
                &i.key,
                &i.upload_id,
                number,
                src_bucket,
                src_key,
                range,
                conditions,
            )
            .await
            .map_err(to_s3)?;
        Ok(S3Response::new(UploadPartCopyOutput {
            copy_part_result: Some(CopyPartResult {
                e_tag: Some(etag(&part.etag)),
                last_modified: Some(ts(part.mtime)),
                ..Default::default()
            }),
            ..Default::default()
        }))
    }

    async fn list_object_versions(
        &self,
        req: S3Request<ListObjectVersionsInput>,
    ) -> S3Result<S3Response<ListObjectVersionsOutput>> {
        // Buckets are unversioned: every object is its own only ("null") version.
        let rq = self.requester(&req).await?;
        let i = req.input;
        let max = max_keys(i.max_keys);
        let params = ListParams {
            prefix: i.prefix.clone().unwrap_or_default(),
            delimiter: i.delimiter.clone(),
            start_after: i.key_marker.clone().unwrap_or_default(),
            max_keys: max as usize,
        };
        let enc = Encoder::new(&i.encoding_type)?;
        let (res, objects, mut prefixes) = self.list(&rq, &i.bucket, params, true, true).await?;
        enc.listing(&mut [], &mut prefixes);
        let versions = objects
            .into_iter()
            .map(|o| ObjectVersion {
                key: enc.opt(o.key),
                e_tag: o.e_tag,
                size: o.size,
                last_modified: o.last_modified,
                owner: o.owner,
                is_latest: Some(true),
                version_id: Some("null".into()),
                storage_class: Some(ObjectVersionStorageClass::from_static(
                    ObjectVersionStorageClass::STANDARD,
                )),
                ..Default::default()
            })
            .collect();
        Ok(S3Response::new(ListObjectVersionsOutput {
            name: Some(i.bucket),
            prefix: Some(enc.s(i.prefix.unwrap_or_default())),
            key_marker: Some(enc.s(i.key_marker.unwrap_or_default())),
            max_keys: Some(max),
            is_truncated: Some(res.is_truncated),
            next_key_marker: enc.opt(res.next_marker.clone()),
            next_version_id_marker: res.next_marker.as_ref().map(|_| "null".to_string()),
            versions: Some(versions),
            common_prefixes: Some(prefixes),
            delimiter: enc.opt(echoed(i.delimiter)),
            encoding_type: i.encoding_type,
            ..Default::default()
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const ALL: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
    const AUTH: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";
    const LOGS: &str = "http://acs.amazonaws.com/groups/s3/LogDelivery";

    /// An S3 error as the client sees it: code and status.
    fn seen(e: &S3Error) -> (&str, u16) {
        (e.code().as_str(), e.status_code().map_or(0, |s| s.as_u16()))
    }

    /// A value, or the code and status of the S3 error instead.
    type Outcome<T> = Result<T, (&'static str, u16)>;

    /// Asserts an outcome: the value, or the error's code and status.
    fn check<T: PartialEq + std::fmt::Debug>(got: S3Result<T>, want: Outcome<T>, why: &str) {
        match (got, want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w, "{why}"),
            (Err(e), Err(w)) => assert_eq!(seen(&e), w, "{why}"),
            (g, w) => panic!("{why}: got {g:?}, want {w:?}"),
        }
    }

    #[test]
    fn listing_strings_are_url_encoded_like_s3() {
        let table = [
            ("", ""),
            ("photos/2026/a.jpg", "photos/2026/a.jpg"),
            ("AZaz09-_.~", "AZaz09-_.~"),
            ("a b", "a%20b"),
            ("a+b", "a%2Bb"),
            ("100%", "100%25"),
            ("a&b=c?d#e", "a%26b%3Dc%3Fd%23e"),
            ("*'()!", "%2A%27%28%29%21"),
            ("\u{1}\n", "%01%0A"),
            ("\u{e9}t\u{e9}", "%C3%A9t%C3%A9"),
            ("\u{1f600}", "%F0%9F%98%80"),
        ];
        for (raw, want) in table {
            assert_eq!(url_encode(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn encoding_type_is_url_or_refused() {
        let off = Encoder::new(&None).expect("no encoding");
        assert_eq!(off.s("a b".into()), "a b");
        let on = Encoder::new(&Some(EncodingType::from_static(EncodingType::URL))).expect("url");
        assert_eq!(on.s("a b".into()), "a%20b");
        assert_eq!(on.opt(None), None);
        assert_eq!(on.opt(Some("x/y z".into())).as_deref(), Some("x/y%20z"));
        let mut objects = [Object {
            key: Some("k y".into()),
            ..Default::default()
        }];
        let mut prefixes = [CommonPrefix {
            prefix: Some("p q/".into()),
        }];
        on.listing(&mut objects, &mut prefixes);
        assert_eq!(objects[0].key.as_deref(), Some("k%20y"));
        assert_eq!(prefixes[0].prefix.as_deref(), Some("p%20q/"));
        for other in ["base64", ""] {
            let err = Encoder::new(&Some(EncodingType::from(other.to_string())))
                .err()
                .expect("refused");
            assert_eq!(seen(&err), ("InvalidArgument", 400), "{other:?}");
        }
    }

    #[test]
    fn only_a_delimiter_that_delimits_is_echoed() {
        let table = [
            (None, None),
            (Some(""), None),
            (Some("/"), Some("/")),
            (Some(" "), Some(" ")),
            (Some("\u{1}"), Some("\u{1}")),
        ];
        for (asked, want) in table {
            assert_eq!(
                echoed(asked.map(String::from)).as_deref(),
                want,
                "{asked:?}"
            );
        }
    }

    #[test]
    fn bucket_location_names_the_zonegroup() {
        let named = |z: &str| {
            location(z)
                .location_constraint
                .map(|l| l.as_str().to_string())
        };
        assert_eq!(named("default").as_deref(), Some("default"));
        assert_eq!(named("eu").as_deref(), Some("eu"));
        assert_eq!(named(""), None);
    }

    #[test]
    fn checksum_mode_enabled_asks_for_checksums() {
        let table = [
            (None, false),
            (Some("ENABLED"), true),
            (Some("DISABLED"), false),
            (Some(""), false),
        ];
        for (mode, want) in table {
            let mode = mode.map(|m| ChecksumMode::from(m.to_string()));
            assert_eq!(wants_checksums(mode.as_ref()), want, "{mode:?}");
        }
    }

    #[test]
    fn tagging_headers_are_query_strings() {
        let t = tagging_header(Some("team=web&note=a%20b+c&empty=&flag")).expect("valid");
        let want: Vec<(&str, &str)> = vec![
            ("empty", ""),
            ("flag", ""),
            ("note", "a b c"),
            ("team", "web"),
        ];
        let got: Vec<(&str, &str)> = t.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
        assert!(tagging_header(None).expect("none").is_empty());
        assert!(tagging_header(Some("")).expect("empty").is_empty());
        assert_eq!(
            *tagging_header(Some("k=%zz")).expect_err("escape").code(),
            S3ErrorCode::InvalidArgument
        );
        assert_eq!(
            *tagging_header(Some("k=1&k=2")).expect_err("twice").code(),
            S3ErrorCode::InvalidTag
        );
        let eleven: Vec<String> = (0..11).map(|i| format!("k{i}=v")).collect();
        assert_eq!(
            *tagging_header(Some(&eleven.join("&")))
                .expect_err("11")
                .code(),
            S3ErrorCode::InvalidTag
        );
    }

    #[test]
    fn copy_source_ranges_take_one_form() {
        assert_eq!(copy_source_range("bytes=0-9").expect("ok"), (0, 9));
        assert_eq!(copy_source_range("bytes=5-5").expect("ok"), (5, 5));
        for bad in [
            "bytes=9-0",
            "bytes=-5",
            "bytes=5-",
            "0-9",
            "bytes=a-b",
            "bytes=0-9,10-11",
            "bytes= 0-9",
            "bytes=0-99999999999999999999999",
        ] {
            let e = copy_source_range(bad).expect_err(bad);
            assert_eq!(*e.code(), S3ErrorCode::InvalidArgument, "{bad}");
        }
    }

    #[test]
    fn max_keys_defaults_to_and_is_capped_at_1000() {
        let table = [
            (None, 1000),
            (Some(0), 0),
            (Some(1), 1),
            (Some(999), 999),
            (Some(1000), 1000),
            (Some(1001), 1000),
            (Some(i32::MAX), 1000),
        ];
        for (asked, want) in table {
            assert_eq!(max_keys(asked), want, "{asked:?}");
        }
    }

    #[test]
    fn etag_conditions_become_lists() {
        let table = [
            (None, None),
            (Some(ETagCondition::Any), Some(vec!["*"])),
            (
                Some(ETagCondition::ETag(ETag::Strong("abc".into()))),
                Some(vec!["abc"]),
            ),
            // a weak ETag compares by its value, as S3's If-Match does
            (
                Some(ETagCondition::ETag(ETag::Weak("abc".into()))),
                Some(vec!["abc"]),
            ),
        ];
        for (cond, want) in table {
            let why = format!("{cond:?}");
            let want = want.map(|v| v.into_iter().map(String::from).collect::<Vec<_>>());
            assert_eq!(etag_list(cond), want, "{why}");
        }
    }

    #[test]
    fn get_params_carry_range_and_conditions() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let p = get_params(
            Some(Range::Int {
                first: 10,
                last: Some(19),
            }),
            [
                Some(ETagCondition::ETag(ETag::Strong("a".into()))),
                Some(ETagCondition::Any),
            ],
            [Some(Timestamp::from(t)), None],
            true,
        );
        assert_eq!(
            p.range,
            Some(RangeSpec::Int {
                first: 10,
                last: Some(19)
            })
        );
        assert_eq!(p.if_match, Some(vec!["a".to_string()]));
        assert_eq!(p.if_none_match, Some(vec!["*".to_string()]));
        assert_eq!(p.if_modified_since, Some(t));
        assert_eq!(p.if_unmodified_since, None);
        assert!(p.head_only);
        let p = get_params(
            Some(Range::Suffix { length: 5 }),
            [None, None],
            [None, Some(Timestamp::from(t))],
            false,
        );
        assert_eq!(p.range, Some(RangeSpec::Suffix { length: 5 }));
        assert_eq!((p.if_match, p.if_none_match), (None, None));
        assert_eq!(p.if_unmodified_since, Some(t));
        assert!(!p.head_only);
        let p = get_params(
            Some(Range::Int {
                first: 7,
                last: None,
            }),
            [None, None],
            [None, None],
            false,
        );
        assert_eq!(
            p.range,
            Some(RangeSpec::Int {
                first: 7,
                last: None
            })
        );
    }

    #[test]
    fn timestamps_come_from_seconds_and_never_precede_the_epoch() {
        let table = [
            (0.0, Duration::ZERO),
            (1.5, Duration::from_millis(1500)),
            (1_700_000_000.0, Duration::from_secs(1_700_000_000)),
            (-5.0, Duration::ZERO),
        ];
        for (secs, want) in table {
            assert_eq!(
                to_system_time(ts(secs)),
                SystemTime::UNIX_EPOCH + want,
                "{secs}"
            );
        }
    }

    #[test]
    fn canned_acl_headers_parse_or_are_refused() {
        let table = [
            (None, Ok(CannedAcl::Private)),
            (Some("private"), Ok(CannedAcl::Private)),
            (Some("public-read"), Ok(CannedAcl::PublicRead)),
            (Some("public-read-write"), Ok(CannedAcl::PublicReadWrite)),
            (Some("authenticated-read"), Ok(CannedAcl::AuthenticatedRead)),
            (Some("bucket-owner-read"), Ok(CannedAcl::BucketOwnerRead)),
            (
                Some("bucket-owner-full-control"),
                Ok(CannedAcl::BucketOwnerFullControl),
            ),
            (Some("log-delivery-write"), Err(("InvalidArgument", 400))),
            (Some("bogus"), Err(("InvalidArgument", 400))),
            (Some(""), Err(("InvalidArgument", 400))),
            (Some("public-read "), Err(("InvalidArgument", 400))),
        ];
        for (header, want) in table {
            check(canned(header), want, &format!("{header:?}"));
        }
    }

    fn user(id: &str, perm: &'static str) -> Grant {
        Grant {
            grantee: Some(Grantee {
                id: Some(id.into()),
                display_name: None,
                type_: Type::from_static(Type::CANONICAL_USER),
                email_address: None,
                uri: None,
            }),
            permission: Some(Permission::from_static(perm)),
        }
    }

    fn group(uri: &str, perm: Option<&'static str>) -> Grant {
        Grant {
            grantee: Some(Grantee {
                id: None,
                display_name: None,
                type_: Type::from_static(Type::GROUP),
                email_address: None,
                uri: Some(uri.into()),
            }),
            permission: perm.map(Permission::from_static),
        }
    }

    fn policy(grants: Vec<Grant>) -> AccessControlPolicy {
        AccessControlPolicy {
            grants: Some(grants),
            owner: Some(Owner {
                id: Some("alice".into()),
                display_name: Some("Alice".into()),
            }),
        }
    }

    #[test]
    fn acl_documents_map_to_the_canned_acl_they_express() {
        use Permission as P;
        const UNSUPPORTED: Outcome<CannedAcl> = Err(("NotImplemented", 501));
        let owner = || user("alice", P::FULL_CONTROL);
        let table: Vec<(&str, AccessControlPolicy, Outcome<CannedAcl>)> = vec![
            (
                "no grants",
                AccessControlPolicy::default(),
                Ok(CannedAcl::Private),
            ),
            ("an empty list", policy(vec![]), Ok(CannedAcl::Private)),
            (
                "the owner alone",
                policy(vec![owner()]),
                Ok(CannedAcl::Private),
            ),
            (
                "AllUsers READ",
                policy(vec![owner(), group(ALL, Some(P::READ))]),
                Ok(CannedAcl::PublicRead),
            ),
            (
                "AllUsers READ twice",
                policy(vec![group(ALL, Some(P::READ)), group(ALL, Some(P::READ))]),
                Ok(CannedAcl::PublicRead),
            ),
            (
                "AllUsers READ and WRITE, in either order",
                policy(vec![
                    group(ALL, Some(P::WRITE)),
                    owner(),
                    group(ALL, Some(P::READ)),
                ]),
                Ok(CannedAcl::PublicReadWrite),
            ),
            (
                "AuthenticatedUsers READ",
                policy(vec![owner(), group(AUTH, Some(P::READ))]),
                Ok(CannedAcl::AuthenticatedRead),
            ),
            (
                "AllUsers WRITE alone",
                policy(vec![owner(), group(ALL, Some(P::WRITE))]),
                UNSUPPORTED,
            ),
            (
                "AllUsers FULL_CONTROL",
                policy(vec![group(ALL, Some(P::FULL_CONTROL))]),
                UNSUPPORTED,
            ),
            (
                "AllUsers READ_ACP",
                policy(vec![group(ALL, Some(P::READ_ACP))]),
                UNSUPPORTED,
            ),
            (
                "AllUsers and AuthenticatedUsers READ",
                policy(vec![group(ALL, Some(P::READ)), group(AUTH, Some(P::READ))]),
                UNSUPPORTED,
            ),
            (
                "AuthenticatedUsers WRITE",
                policy(vec![
                    group(AUTH, Some(P::READ)),
                    group(AUTH, Some(P::WRITE)),
                ]),
                UNSUPPORTED,
            ),
            (
                "LogDelivery WRITE",
                policy(vec![owner(), group(LOGS, Some(P::WRITE))]),
                UNSUPPORTED,
            ),
            (
                "another user READ",
                policy(vec![owner(), user("bob", P::READ)]),
                UNSUPPORTED,
            ),
            (
                "another user FULL_CONTROL",
                policy(vec![user("bob", P::FULL_CONTROL), owner()]),
                UNSUPPORTED,
            ),
            (
                "a user's FULL_CONTROL, no Owner named",
                AccessControlPolicy {
                    grants: Some(vec![user("bob", P::FULL_CONTROL)]),
                    owner: None,
                },
                Ok(CannedAcl::Private),
            ),
            (
                "a group grant without a permission",
                policy(vec![group(ALL, None)]),
                UNSUPPORTED,
            ),
        ];
        for (why, p, want) in table {
            check(canned_from_policy(&p), want, why);
        }
    }

    #[test]
    fn put_acl_takes_the_header_or_the_document() {
        let public = policy(vec![group(ALL, Some(Permission::READ))]);
        let table = [
            (Some("public-read"), None, Ok(CannedAcl::PublicRead)),
            (None, Some(&public), Ok(CannedAcl::PublicRead)),
            (Some("nope"), None, Err(("InvalidArgument", 400))),
            (None, None, Err(("MalformedACLError", 400))),
        ];
        for (header, doc, want) in table {
            let why = format!("{header:?} {doc:?}");
            check(requested_acl(header, doc), want, &why);
        }
    }

    /// A grant as (grantee type, id or URI, permission).
    fn flat(g: &Grant) -> (String, String, String) {
        let e = g.grantee.as_ref().expect("grantee");
        (
            e.type_.as_str().to_string(),
            e.id.clone().or_else(|| e.uri.clone()).expect("id or uri"),
            g.permission
                .as_ref()
                .expect("permission")
                .as_str()
                .to_string(),
        )
    }

    #[test]
    fn canned_acls_are_shown_as_radosgw_shows_them() {
        /// A grant as (grantee type, id or URI, permission).
        type Shown = (&'static str, &'static str, &'static str);
        let owner = ("CanonicalUser", "uid-1", "FULL_CONTROL");
        let (own, other) = (("uid-1", "User One"), ("uid-0", "User Zero"));
        let later = ("uid-2", "User Two");
        // (ACL, bucket owner, grants as radosgw 16.2 lists them: groups
        // first, then users by id; what PUT ?acl makes of the document)
        use CannedAcl as C;
        let round_trip = |acl: C| Ok(acl);
        let table: Vec<(C, Named, Vec<Shown>, Outcome<C>)> = vec![
            (C::Private, own, vec![owner], round_trip(C::Private)),
            (
                C::PublicRead,
                own,
                vec![("Group", ALL, "READ"), owner],
                round_trip(C::PublicRead),
            ),
            (
                C::PublicReadWrite,
                own,
                vec![("Group", ALL, "READ"), ("Group", ALL, "WRITE"), owner],
                round_trip(C::PublicReadWrite),
            ),
            (
                C::AuthenticatedRead,
                own,
                vec![("Group", AUTH, "READ"), owner],
                round_trip(C::AuthenticatedRead),
            ),
            (
                C::BucketOwnerRead,
                other,
                vec![("CanonicalUser", "uid-0", "READ"), owner],
                Err(("NotImplemented", 501)),
            ),
            (
                C::BucketOwnerFullControl,
                other,
                vec![("CanonicalUser", "uid-0", "FULL_CONTROL"), owner],
                Err(("NotImplemented", 501)),
            ),
            (
                C::BucketOwnerRead,
                later,
                vec![owner, ("CanonicalUser", "uid-2", "READ")],
                Err(("NotImplemented", 501)),
            ),
            // in the owner's own bucket they add nothing
            (C::BucketOwnerRead, own, vec![owner], round_trip(C::Private)),
            (
                C::BucketOwnerFullControl,
                own,
                vec![owner],
                round_trip(C::Private),
            ),
        ];
        for (acl, bucket_owner, want, back) in table {
            let (o, grants) = acl_grants(own, bucket_owner, acl);
            assert_eq!(o.id.as_deref(), Some("uid-1"), "{acl:?}");
            assert_eq!(o.display_name.as_deref(), Some("User One"), "{acl:?}");
            let got: Vec<_> = grants.iter().map(flat).collect();
            let want: Vec<_> = want
                .iter()
                .map(|(t, rq, p)| ((*t).to_string(), (*rq).to_string(), (*p).to_string()))
                .collect();
            assert_eq!(got, want, "{acl:?} in {bucket_owner:?}'s bucket");
            // users carry ID and DisplayName, groups only their URI
            for g in grants.iter().filter_map(|g| g.grantee.as_ref()) {
                let named = [own, bucket_owner]
                    .into_iter()
                    .find(|(id, _)| g.id.as_deref() == Some(*id));
                match g.type_.as_str() {
                    Type::CANONICAL_USER => {
                        assert_eq!(g.display_name.as_deref(), named.map(|n| n.1), "{g:?}");
                        assert!(g.uri.is_none(), "{g:?}");
                    }
                    _ => assert!(g.id.is_none() && g.display_name.is_none(), "{g:?}"),
                }
            }
            // what GET ?acl shows, PUT ?acl takes back unchanged where it
            // has a canned ACL's grants alone
            let got = canned_from_policy(&AccessControlPolicy {
                grants: Some(grants),
                owner: Some(o),
            });
            check(got, back, &format!("{acl:?} back"));
        }
    }

    #[test]
    fn content_md5_must_be_base64_of_16_bytes() {
        let empty_md5 = vec![
            0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04, 0xe9, 0x80, 0x09, 0x98, 0xec, 0xf8,
            0x42, 0x7e,
        ];
        let invalid = || Err(("InvalidDigest", 400));
        let table = [
            (None, Ok(None)),
            (Some("1B2M2Y8AsgTpgAmY7PhCfg=="), Ok(Some(empty_md5))),
            (Some("not base64!"), invalid()),
            // the hex digest is valid base64, of 24 bytes
            (Some("d41d8cd98f00b204e9800998ecf8427e"), invalid()),
            (Some("AAAA"), invalid()),
            (Some("AAAAAAAAAAAAAAAAAAAAAAA="), invalid()),
            (Some(""), invalid()),
        ];
        for (header, want) in table {
            let header = header.map(String::from);
            check(decode_md5(header.as_ref()), want, &format!("{header:?}"));
        }
        // an empty header, which s3s leaves out of the input, is refused too
        let mut h = http::HeaderMap::new();
        h.insert("content-md5", http::HeaderValue::from_static(""));
        check(content_md5(None, &h), invalid(), "empty header");
        check(
            content_md5(None, &http::HeaderMap::new()),
            Ok(None),
            "no header",
        );
    }

    #[test]
    fn aws_chunked_is_no_stored_content_encoding() {
        let table = [
            ("gzip", Some("gzip")),
            ("gzip,br", Some("gzip,br")),
            ("", Some("")),
            ("aws-chunked", None),
            ("AWS-Chunked", None),
            ("gzip, aws-chunked", Some("gzip")),
            ("gzip,aws-chunked", Some("gzip")),
            ("aws-chunked, gzip", Some("gzip")),
            ("gzip, aws-chunked, br", Some("gzip, br")),
            (" aws-chunked , ", None),
            ("aws-chunkedx", Some("aws-chunkedx")),
        ];
        for (sent, want) in table {
            assert_eq!(
                stored_encoding(sent.to_string()).as_deref(),
                want,
                "{sent:?}"
            );
        }
        let got = stored_headers(
            [
                ("content-type", None),
                ("content-encoding", Some("gzip, aws-chunked".into())),
                ("content-disposition", None),
                ("content-language", None),
                ("cache-control", None),
            ],
            &http::HeaderMap::new(),
        );
        assert_eq!(
            got.get("content-encoding").map(String::as_str),
            Some("gzip")
        );
        let got = stored_headers(
            [
                ("content-type", None),
                ("content-encoding", Some("aws-chunked".into())),
                ("content-disposition", None),
                ("content-language", None),
                ("cache-control", None),
            ],
            &http::HeaderMap::new(),
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn stored_headers_are_the_set_fields_and_expires() {
        let mut h = http::HeaderMap::new();
        h.insert(
            http::header::EXPIRES,
            "Thu, 01 Dec 2026 16:00:00 GMT".parse().expect("value"),
        );
        h.insert(
            http::header::CACHE_CONTROL,
            "ignored".parse().expect("value"),
        );
        let got = stored_headers(
            [
                ("content-type", Some("text/plain".into())),
                ("content-encoding", None),
                ("content-disposition", Some("attachment".into())),
                ("content-language", None),
                ("cache-control", Some("no-cache".into())),
            ],
            &h,
        );
        let want: BTreeMap<String, String> = [
            ("cache-control", "no-cache"),
            ("content-disposition", "attachment"),
            ("content-type", "text/plain"),
            ("expires", "Thu, 01 Dec 2026 16:00:00 GMT"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(got, want);
        let none = stored_headers(
            [
                ("content-type", None),
                ("content-encoding", None),
                ("content-disposition", None),
                ("content-language", None),
                ("cache-control", None),
            ],
            &http::HeaderMap::new(),
        );
        assert!(none.is_empty());
    }
}
