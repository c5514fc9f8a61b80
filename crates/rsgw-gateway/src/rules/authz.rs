//! Who may do what: the one authorization decision of every request.
//!
//! Each gateway operation names its [`Access`] (the table below gives its
//! IAM action and the ACL rule that applies without a policy) and asks
//! [`authorize`] once it holds what the decision needs (the bucket's
//! record, and for object ACLs the object's). The decision follows
//! AWS's order: the bucket policy's explicit `Deny` refuses, its `Allow`
//! allows, and when it says nothing (or there is none) the owners and
//! canned ACLs decide.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::model::acl::{Acl, Permission};
use crate::model::bucket::BucketInfo;
use crate::model::caps::Perm;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::object::ObjectMeta;
use crate::model::params::ListParams;
use crate::model::policy::Effect;
use crate::model::policy::action::Action;
use crate::model::policy::conditions::Lookup;
use crate::model::user::User;
use crate::rules::acl::Principal;

/// Who makes a request, and what of the request a policy's conditions may
/// test.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requester {
    /// The user, or anonymous.
    pub principal: Principal,
    /// The client's address (`aws:SourceIp`): the peer's, or the one a
    /// trusted proxy names; `None` for requests from inside (admin).
    pub source_ip: Option<IpAddr>,
    /// Whether the request came over TLS (`aws:SecureTransport`).
    pub secure: bool,
    /// The `Referer` header (`aws:Referer`).
    pub referer: Option<String>,
    /// The `User-Agent` header (`aws:UserAgent`).
    pub user_agent: Option<String>,
    /// `x-amz-expected-bucket-owner`: the request is refused unless the
    /// bucket's owner is this user (a client's guard against a bucket that
    /// changed hands).
    pub expected_bucket_owner: Option<String>,
    /// `x-amz-source-expected-bucket-owner`: the same for a copy's source.
    pub expected_source_owner: Option<String>,
}

impl Requester {
    /// An authenticated user, with no request context.
    pub fn user(uid: &str) -> Self {
        Requester {
            principal: Principal::User(uid.to_string()),
            ..Default::default()
        }
    }

    /// An anonymous requester, with no request context.
    pub fn anonymous() -> Self {
        Requester::default()
    }

    /// The requester of a copy's source read: the same, expecting the
    /// source bucket's owner instead.
    pub(crate) fn for_copy_source(&self) -> Requester {
        Requester {
            expected_bucket_owner: self.expected_source_owner.clone(),
            expected_source_owner: None,
            ..self.clone()
        }
    }

    /// Whether the requester is the user `uid`.
    pub fn is(&self, uid: &str) -> bool {
        self.principal.is(uid)
    }

    /// The user id, if authenticated.
    pub fn uid(&self) -> Option<&str> {
        match &self.principal {
            Principal::User(u) => Some(u),
            Principal::Anonymous => None,
        }
    }
}

/// What a gateway operation asks to do: the authorization table, one row
/// per kind of access, giving the IAM action a policy sees and the rule
/// the owners and ACLs follow when no policy decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// ListObjects (v1, v2), HeadBucket.
    ListBucket,
    /// ListObjectVersions.
    ListBucketVersions,
    /// ListMultipartUploads.
    ListUploads,
    /// DeleteBucket.
    DeleteBucket,
    /// GetBucketLocation.
    GetBucketLocation,
    /// GetBucketAcl.
    GetBucketAcl,
    /// PutBucketAcl.
    PutBucketAcl,
    /// GetBucketPolicy.
    GetBucketPolicy,
    /// PutBucketPolicy.
    PutBucketPolicy,
    /// DeleteBucketPolicy.
    DeleteBucketPolicy,
    /// GetBucketPolicyStatus.
    GetBucketPolicyStatus,
    /// GetBucketCors.
    GetBucketCors,
    /// PutBucketCors, DeleteBucketCors.
    PutBucketCors,
    /// GetBucketEncryption.
    GetBucketEncryption,
    /// PutBucketEncryption, DeleteBucketEncryption.
    PutBucketEncryption,
    /// GetBucketWebsite.
    GetBucketWebsite,
    /// PutBucketWebsite.
    PutBucketWebsite,
    /// DeleteBucketWebsite.
    DeleteBucketWebsite,
    /// GetBucketTagging.
    GetBucketTagging,
    /// PutBucketTagging, DeleteBucketTagging (one IAM action, as AWS has).
    PutBucketTagging,
    /// GetBucketLifecycleConfiguration.
    GetLifecycle,
    /// PutBucketLifecycleConfiguration, DeleteBucketLifecycle (one IAM
    /// action, as AWS has).
    PutLifecycle,
    /// GetObject, HeadObject, a copy's source.
    GetObject,
    /// GetObject, HeadObject or a copy's source naming a version.
    GetObjectVersion,
    /// PutObject, a copy's destination, CreateMultipartUpload.
    PutObject,
    /// UploadPart, CompleteMultipartUpload.
    WritePart,
    /// DeleteObject, each key of DeleteObjects.
    DeleteObject,
    /// DeleteObject or a key of DeleteObjects naming a version.
    DeleteObjectVersion,
    /// GetBucketVersioning.
    GetBucketVersioning,
    /// PutBucketVersioning.
    PutBucketVersioning,
    /// GetObjectAcl.
    GetObjectAcl,
    /// PutObjectAcl.
    PutObjectAcl,
    /// GetObjectTagging.
    GetObjectTagging,
    /// PutObjectTagging.
    PutObjectTagging,
    /// DeleteObjectTagging.
    DeleteObjectTagging,
    /// GetObjectLockConfiguration.
    GetObjectLock,
    /// PutObjectLockConfiguration.
    PutObjectLock,
    /// GetObjectRetention.
    GetObjectRetention,
    /// PutObjectRetention.
    PutObjectRetention,
    /// GetObjectLegalHold.
    GetObjectLegalHold,
    /// PutObjectLegalHold.
    PutObjectLegalHold,
    /// A request's `x-amz-bypass-governance-retention`: deleting a version
    /// under a GOVERNANCE retention, shortening or lifting one.
    BypassGovernance,
    /// AbortMultipartUpload.
    AbortUpload,
    /// ListParts.
    ListParts,
}

/// Who may, when no policy decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AclRule {
    /// The bucket's owner only.
    BucketOwner,
    /// Whom the bucket's ACL gives this permission (READ lists, WRITE
    /// writes and deletes, READ_ACP and WRITE_ACP read and set the
    /// bucket's ACL): its owner always under a canned ACL, and for the
    /// ACL itself (`Acl::permits`).
    Bucket(Permission),
    /// As `Bucket(Write)`, or the object's owner.
    BucketWriteOrObjectOwner,
    /// Whom the object's ACL gives this permission (READ, READ_ACP,
    /// WRITE_ACP), as for the bucket with the object's owner. The bucket's
    /// owner has no right of its own to another user's object (radosgw,
    /// and AWS with ACLs enabled), only through the bucket-owner ACLs or a
    /// grant.
    Object(Permission),
    /// The upload's initiator, or the bucket's owner.
    UploadOwner,
}

impl Access {
    /// The table.
    fn row(self) -> (Action, AclRule) {
        use AclRule::*;
        use Permission::{Read, ReadAcp, Write, WriteAcp};
        match self {
            Access::ListBucket => (Action::ListBucket, Bucket(Read)),
            Access::ListBucketVersions => (Action::ListBucketVersions, Bucket(Read)),
            Access::ListUploads => (Action::ListBucketMultipartUploads, Bucket(Write)),
            Access::DeleteBucket => (Action::DeleteBucket, BucketOwner),
            Access::GetBucketLocation => (Action::GetBucketLocation, BucketOwner),
            Access::GetBucketAcl => (Action::GetBucketAcl, Bucket(ReadAcp)),
            Access::PutBucketAcl => (Action::PutBucketAcl, Bucket(WriteAcp)),
            Access::GetBucketPolicy => (Action::GetBucketPolicy, BucketOwner),
            Access::PutBucketPolicy => (Action::PutBucketPolicy, BucketOwner),
            Access::DeleteBucketPolicy => (Action::DeleteBucketPolicy, BucketOwner),
            Access::GetBucketPolicyStatus => (Action::GetBucketPolicyStatus, BucketOwner),
            Access::GetBucketCors => (Action::GetBucketCors, BucketOwner),
            Access::PutBucketCors => (Action::PutBucketCors, BucketOwner),
            Access::GetBucketEncryption => (Action::GetEncryptionConfiguration, BucketOwner),
            Access::PutBucketEncryption => (Action::PutEncryptionConfiguration, BucketOwner),
            Access::GetBucketWebsite => (Action::GetBucketWebsite, BucketOwner),
            Access::PutBucketWebsite => (Action::PutBucketWebsite, BucketOwner),
            Access::DeleteBucketWebsite => (Action::DeleteBucketWebsite, BucketOwner),
            Access::GetBucketTagging => (Action::GetBucketTagging, BucketOwner),
            Access::PutBucketTagging => (Action::PutBucketTagging, BucketOwner),
            Access::GetLifecycle => (Action::GetLifecycleConfiguration, BucketOwner),
            Access::PutLifecycle => (Action::PutLifecycleConfiguration, BucketOwner),
            Access::GetObject => (Action::GetObject, Object(Read)),
            Access::GetObjectVersion => (Action::GetObjectVersion, Object(Read)),
            Access::PutObject => (Action::PutObject, Bucket(Write)),
            Access::WritePart => (Action::PutObject, UploadOwner),
            Access::DeleteObject => (Action::DeleteObject, BucketWriteOrObjectOwner),
            Access::DeleteObjectVersion => (Action::DeleteObjectVersion, BucketWriteOrObjectOwner),
            Access::GetBucketVersioning => (Action::GetBucketVersioning, BucketOwner),
            Access::PutBucketVersioning => (Action::PutBucketVersioning, BucketOwner),
            Access::GetObjectAcl => (Action::GetObjectAcl, Object(ReadAcp)),
            Access::PutObjectAcl => (Action::PutObjectAcl, Object(WriteAcp)),
            Access::GetObjectTagging => (Action::GetObjectTagging, Object(Read)),
            Access::PutObjectTagging => (Action::PutObjectTagging, BucketWriteOrObjectOwner),
            Access::DeleteObjectTagging => (Action::DeleteObjectTagging, BucketWriteOrObjectOwner),
            Access::GetObjectLock => (Action::GetBucketObjectLockConfiguration, BucketOwner),
            Access::PutObjectLock => (Action::PutBucketObjectLockConfiguration, BucketOwner),
            Access::GetObjectRetention => (Action::GetObjectRetention, Object(Read)),
            Access::PutObjectRetention => (Action::PutObjectRetention, BucketWriteOrObjectOwner),
            Access::GetObjectLegalHold => (Action::GetObjectLegalHold, Object(Read)),
            Access::PutObjectLegalHold => (Action::PutObjectLegalHold, BucketWriteOrObjectOwner),
            Access::BypassGovernance => (Action::BypassGovernanceRetention, BucketOwner),
            Access::AbortUpload => (Action::AbortMultipartUpload, UploadOwner),
            Access::ListParts => (Action::ListMultipartUploadParts, UploadOwner),
        }
    }

    /// Whether the bucket's owner may do this whatever the policy says:
    /// managing the policy itself (AWS lets the owning account's root do
    /// so, so that a policy can never lock its owner out).
    fn owner_always(self) -> bool {
        matches!(
            self,
            Access::GetBucketPolicy | Access::PutBucketPolicy | Access::DeleteBucketPolicy
        )
    }
}

/// What an access is on: the bucket, a key in it, and (for object ACLs and
/// uploads) its owner and ACL.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    bucket: &'a BucketInfo,
    key: Option<&'a str>,
    /// The object's (or upload's) owner and ACL, when it exists.
    object: Option<(&'a str, &'a Acl)>,
    /// The existing object's tags (`s3:ExistingObjectTag/<key>`).
    tags: Option<&'a Tags>,
    /// The tags the request gives the object (`s3:RequestObjectTag/<key>`).
    request_tags: Option<&'a Tags>,
    /// A listing's parameters (`s3:prefix`, `s3:delimiter`, `s3:max-keys`).
    listing: Option<&'a ListParams>,
}

/// An object's tags, by key.
type Tags = BTreeMap<String, String>;

impl<'a> Target<'a> {
    /// The bucket itself.
    pub(crate) fn bucket(bucket: &'a BucketInfo) -> Self {
        Target {
            bucket,
            key: None,
            object: None,
            tags: None,
            request_tags: None,
            listing: None,
        }
    }

    /// A listing of the bucket.
    pub(crate) fn listing(bucket: &'a BucketInfo, p: &'a ListParams) -> Self {
        Target {
            listing: Some(p),
            ..Target::bucket(bucket)
        }
    }

    /// A key, existing or not.
    pub(crate) fn key(bucket: &'a BucketInfo, key: &'a str) -> Self {
        Target {
            key: Some(key),
            ..Target::bucket(bucket)
        }
    }

    /// An existing object (or an upload), with its owner and ACL.
    pub(crate) fn object(
        bucket: &'a BucketInfo,
        key: &'a str,
        owner: &'a str,
        acl: &'a Acl,
    ) -> Self {
        Target {
            object: Some((owner, acl)),
            ..Target::key(bucket, key)
        }
    }

    /// A stored object: its owner, ACL and tags.
    pub(crate) fn stored(bucket: &'a BucketInfo, key: &'a str, meta: &'a ObjectMeta) -> Self {
        Target {
            tags: Some(&meta.tags),
            ..Target::object(bucket, key, meta.owner_in(bucket), &meta.acl)
        }
    }

    /// The access gives the object these tags (PutObject's, CopyObject's,
    /// PutObjectTagging's).
    pub(crate) fn requesting(self, tags: &'a Tags) -> Self {
        Target {
            request_tags: Some(tags),
            ..self
        }
    }
}

/// The condition keys of one request.
struct Context<'a, 'b> {
    rq: &'a Requester,
    t: &'a Target<'b>,
}

impl Lookup for Context<'_, '_> {
    fn ip(&self, key: &str) -> Option<IpAddr> {
        match key {
            "aws:sourceip" => self.rq.source_ip,
            _ => None,
        }
    }

    fn value(&self, key: &str) -> Option<String> {
        let rq = self.rq;
        match key {
            "aws:sourceip" => rq.source_ip.map(|ip| ip.to_string()),
            "aws:securetransport" => Some(rq.secure.to_string()),
            "aws:referer" => rq.referer.clone(),
            "aws:useragent" => rq.user_agent.clone(),
            "aws:username" | "aws:userid" => rq.uid().map(str::to_string),
            "aws:principaltype" => Some(
                if rq.uid().is_some() {
                    "User"
                } else {
                    "Anonymous"
                }
                .into(),
            ),
            "aws:epochtime" | "aws:currenttime" => Some(
                SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or_default()
                    .to_string(),
            ),
            "s3:prefix" => self.t.listing.map(|p| p.prefix.clone()),
            "s3:delimiter" => self
                .t
                .listing
                .map(|p| p.delimiter.clone().unwrap_or_default()),
            "s3:max-keys" => self.t.listing.map(|p| p.max_keys.to_string()),
            _ => {
                let (name, tag) = key.split_once('/')?;
                let tags = match name {
                    "s3:existingobjecttag" => self.t.tags,
                    "s3:requestobjecttag" => self.t.request_tags,
                    _ => None,
                };
                tags?.get(tag).cloned()
            }
        }
    }
}

/// The ACL's answer, when no policy decides.
fn acl_allows(rule: AclRule, rq: &Requester, t: &Target<'_>) -> bool {
    let b = t.bucket;
    let who = &rq.principal;
    let bucket = |perm| b.acl.permits(who, perm, &b.owner, &b.owner);
    match rule {
        AclRule::BucketOwner => rq.is(&b.owner),
        AclRule::Bucket(perm) => bucket(perm),
        AclRule::BucketWriteOrObjectOwner => {
            bucket(Permission::Write) || t.object.is_some_and(|(owner, _)| rq.is(owner))
        }
        AclRule::Object(perm) => t
            .object
            .is_some_and(|(owner, acl)| acl.permits(who, perm, owner, &b.owner)),
        AclRule::UploadOwner => rq.is(&b.owner) || t.object.is_some_and(|(owner, _)| rq.is(owner)),
    }
}

/// The decision: may `rq` do `access` on `t`?
pub(crate) fn allowed(rq: &Requester, access: Access, t: &Target<'_>) -> bool {
    let (action, rule) = access.row();
    if rq
        .expected_bucket_owner
        .as_deref()
        .is_some_and(|o| o != t.bucket.owner)
    {
        return false;
    }
    if access.owner_always() && rq.is(&t.bucket.owner) {
        return true;
    }
    if let Some(policy) = &t.bucket.policy {
        let resource = match t.key {
            Some(key) if action.on_object() => format!("arn:aws:s3:::{}/{key}", t.bucket.name),
            _ => format!("arn:aws:s3:::{}", t.bucket.name),
        };
        let cx = Context { rq, t };
        match policy.evaluate(rq.uid(), action, &resource, &cx) {
            Some(Effect::Deny) => return false,
            Some(Effect::Allow) => return true,
            None => {}
        }
    }
    acl_allows(rule, rq, t)
}

/// Refuses with `AccessDenied` unless `rq` may do `access` on `t`.
pub(crate) fn authorize(rq: &Requester, access: Access, t: &Target<'_>) -> GatewayResult<()> {
    if allowed(rq, access, t) {
        Ok(())
    } else {
        tracing::debug!(
            action = access.row().0.name(),
            bucket = %t.bucket.name,
            "access denied"
        );
        Err(GatewayError::AccessDenied)
    }
}

/// The Admin Ops API's decision: refuses with `AccessDenied` unless the
/// user's caps allow `need` on the API's part `part` (`users`, `buckets`,
/// `usage`, `metadata`, `ratelimit`), as radosgw's `check_caps` does.
/// No bucket policy or ACL takes part: the caps alone decide.
pub(crate) fn authorize_caps(user: &User, part: &str, need: Perm) -> GatewayResult<()> {
    if user.caps.allows(part, need) {
        Ok(())
    } else {
        tracing::debug!(user = %user.user_id, part, perm = need.name(), "admin access denied");
        Err(GatewayError::AccessDenied)
    }
}

/// The error for a key that does not exist: `NoSuchKey` to whom may
/// list the bucket, `AccessDenied` to others (who must not learn which
/// keys exist), as AWS answers.
pub(crate) fn missing_key(rq: &Requester, bucket: &BucketInfo) -> GatewayError {
    if allowed(rq, Access::ListBucket, &Target::bucket(bucket)) {
        GatewayError::NoSuchKey
    } else {
        GatewayError::AccessDenied
    }
}

/// Who owns what `rq` writes into `bucket`: the writer, or the bucket's
/// owner for an anonymous writer (as in radosgw).
pub(crate) fn writer<'a>(rq: &'a Requester, bucket: &'a BucketInfo) -> &'a str {
    rq.uid().unwrap_or(&bucket.owner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::acl::CannedAcl;
    use crate::model::policy::BucketPolicy;
    use crate::testutil::bucket_record;

    fn bucket(acl: CannedAcl, policy: Option<&str>) -> BucketInfo {
        BucketInfo {
            acl: acl.into(),
            policy: policy.map(|p| BucketPolicy::parse(p, "pub").expect("valid")),
            ..bucket_record("pub", "id", "carol")
        }
    }

    /// `x-amz-expected-bucket-owner` refuses whatever the ACL or policy
    /// would allow when the bucket belongs to someone else; a copy's source
    /// answers to `x-amz-source-expected-bucket-owner` instead.
    #[test]
    fn an_expected_owner_who_is_not_the_owner_is_refused() {
        let b = bucket(CannedAcl::PublicRead, None);
        let expecting = |o: Option<&str>, s: Option<&str>| Requester {
            expected_bucket_owner: o.map(str::to_string),
            expected_source_owner: s.map(str::to_string),
            ..Requester::user("carol")
        };
        let get = |rq: &Requester| {
            allowed(
                rq,
                Access::GetObject,
                &Target::object(&b, "k", "carol", &Acl::from(CannedAcl::Private)),
            )
        };
        assert!(get(&expecting(None, None)));
        assert!(get(&expecting(Some("carol"), None)));
        assert!(!get(&expecting(Some("dave"), None)));
        assert!(get(
            &expecting(Some("dave"), Some("carol")).for_copy_source()
        ));
        assert!(!get(
            &expecting(Some("carol"), Some("dave")).for_copy_source()
        ));
    }

    /// `s3:ExistingObjectTag/<key>` reads the stored object's tags,
    /// `s3:RequestObjectTag/<key>` those the request gives it; tag keys
    /// keep their case, condition names do not.
    #[test]
    fn tag_conditions_read_the_objects_and_the_requests_tags() {
        let policy = r#"{"Statement":[
            {"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*",
             "Condition":{"StringEquals":{"S3:ExistingObjectTag/Class":"public"}}},
            {"Effect":"Deny","Principal":"*","Action":"s3:PutObject","Resource":"arn:aws:s3:::pub/*",
             "Condition":{"StringNotEqualsIfExists":{"s3:RequestObjectTag/Class":["public","internal"]}}}]}"#;
        let b = bucket(CannedAcl::PublicReadWrite, Some(policy));
        let tagged = |pairs: &[(&str, &str)]| -> ObjectMeta {
            ObjectMeta {
                owner: "carol".into(),
                tags: pairs
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                    .collect(),
                ..ObjectMeta::default()
            }
        };
        let anon = Requester::anonymous();
        let get = |m: &ObjectMeta| allowed(&anon, Access::GetObject, &Target::stored(&b, "k", m));
        assert!(get(&tagged(&[("Class", "public")])));
        assert!(!get(&tagged(&[("Class", "secret")])));
        assert!(
            !get(&tagged(&[("class", "public")])),
            "tag keys keep their case"
        );
        assert!(!get(&tagged(&[])));
        let put = |pairs: &[(&str, &str)]| {
            let tags = tagged(pairs).tags;
            allowed(
                &anon,
                Access::PutObject,
                &Target::key(&b, "k").requesting(&tags),
            )
        };
        assert!(put(&[("Class", "internal")]));
        assert!(!put(&[("Class", "secret")]));
        // a missing key makes ...IfExists hold (AWS): denied, as without
        // request tags at all
        assert!(!put(&[("Other", "public")]));
        assert!(!allowed(&anon, Access::PutObject, &Target::key(&b, "k")));
    }

    #[test]
    fn every_action_has_its_lowercase_name_and_bit() {
        assert!(
            Action::KNOWN_ACTIONS.len() <= 64,
            "a statement's action set is a u64"
        );
        for (i, a) in Action::KNOWN_ACTIONS.iter().enumerate() {
            assert_eq!(a.bit(), 1 << i);
            assert_eq!(a.lower_name(), a.name().to_ascii_lowercase());
            assert!(Action::KNOWN.contains(&a.name()), "{a:?} is an S3 action");
        }
    }

    /// Policies and ACLs together: a Deny beats the owner and any ACL, an
    /// Allow opens what the ACL does not, silence leaves it to the ACL.
    #[test]
    fn policy_then_acl() {
        let anon = Requester::anonymous();
        let carol = Requester::user("carol");
        let bob = Requester::user("bob");
        let public = r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}}"#;
        let deny_all = r#"{"Statement":{"Effect":"Deny","Principal":"*","Action":"s3:*","Resource":["arn:aws:s3:::pub","arn:aws:s3:::pub/*"]}}"#;
        let private = bucket(CannedAcl::Private, None);
        let by_policy = bucket(CannedAcl::Private, Some(public));
        let denied = bucket(CannedAcl::PublicReadWrite, Some(deny_all));
        let private_acl = Acl::from(CannedAcl::Private);
        let public_acl = Acl::from(CannedAcl::PublicRead);
        let obj = |b| Target::object(b, "k", "carol", &private_acl);
        let public_obj = |b| Target::object(b, "k", "carol", &public_acl);
        let cases: &[(&Requester, Access, Target<'_>, bool)] = &[
            (&anon, Access::GetObject, obj(&private), false),
            (&anon, Access::GetObject, public_obj(&private), true),
            (&carol, Access::GetObject, obj(&private), true),
            (&bob, Access::GetObject, obj(&private), false),
            (&anon, Access::GetObject, obj(&by_policy), true),
            (&bob, Access::GetObject, obj(&by_policy), true),
            // a missing object: the policy still grants the GET (NoSuchKey
            // then depends on ListBucket)
            (&anon, Access::GetObject, Target::key(&by_policy, "k"), true),
            (&anon, Access::GetObject, Target::key(&private, "k"), false),
            (&anon, Access::ListBucket, Target::bucket(&by_policy), false),
            (
                &anon,
                Access::PutObject,
                Target::key(&by_policy, "k"),
                false,
            ),
            (&anon, Access::GetObjectAcl, obj(&by_policy), false),
            // explicit deny beats the owner and a public-read-write ACL
            (&carol, Access::GetObject, obj(&denied), false),
            (&carol, Access::PutObject, Target::key(&denied, "k"), false),
            (&anon, Access::ListBucket, Target::bucket(&denied), false),
            // ... but never locks the owner out of the policy itself
            (
                &carol,
                Access::PutBucketPolicy,
                Target::bucket(&denied),
                true,
            ),
            (
                &carol,
                Access::DeleteBucketPolicy,
                Target::bucket(&denied),
                true,
            ),
            (
                &carol,
                Access::GetBucketPolicy,
                Target::bucket(&denied),
                true,
            ),
            (
                &carol,
                Access::GetBucketPolicyStatus,
                Target::bucket(&denied),
                false,
            ),
            (
                &bob,
                Access::PutBucketPolicy,
                Target::bucket(&private),
                false,
            ),
            // upload rules
            (
                &bob,
                Access::WritePart,
                Target::object(&private, "k", "bob", &private_acl),
                true,
            ),
            (
                &carol,
                Access::AbortUpload,
                Target::object(&private, "k", "bob", &private_acl),
                true,
            ),
            (
                &anon,
                Access::ListParts,
                Target::object(&private, "k", "bob", &private_acl),
                false,
            ),
            // delete: bucket write, or the object's owner
            (
                &bob,
                Access::DeleteObject,
                Target::object(&private, "k", "bob", &private_acl),
                true,
            ),
            (&bob, Access::DeleteObject, obj(&private), false),
        ];
        for (i, (rq, access, t, want)) in cases.iter().enumerate() {
            assert_eq!(
                allowed(rq, *access, t),
                *want,
                "case {i}: {rq:?} {access:?}"
            );
        }
    }

    #[test]
    fn listing_conditions_see_the_listing() {
        let doc = r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::pub",
            "Condition":{"StringLike":{"s3:prefix":"public/*"},"StringEquals":{"s3:delimiter":"/"}}}}"#;
        let b = bucket(CannedAcl::Private, Some(doc));
        let p = |prefix: &str, delimiter: Option<&str>| ListParams {
            prefix: prefix.into(),
            delimiter: delimiter.map(str::to_string),
            start_after: String::new(),
            max_keys: 1000,
        };
        let anon = Requester::anonymous();
        let ok = p("public/a", Some("/"));
        let other = p("private/", Some("/"));
        let flat = p("public/a", None);
        assert!(allowed(
            &anon,
            Access::ListBucket,
            &Target::listing(&b, &ok)
        ));
        assert!(!allowed(
            &anon,
            Access::ListBucket,
            &Target::listing(&b, &other)
        ));
        assert!(!allowed(
            &anon,
            Access::ListBucket,
            &Target::listing(&b, &flat)
        ));
        // HeadBucket has no listing: the prefix is absent, StringLike fails
        assert!(!allowed(&anon, Access::ListBucket, &Target::bucket(&b)));
    }
}
