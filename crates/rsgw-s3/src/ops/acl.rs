//! Get/PutBucketAcl and Get/PutObjectAcl, and the ACL a write asks for:
//! canned ACLs (`x-amz-acl`), grants (`x-amz-grant-*` headers and ACL
//! documents), and the documents that show them, as radosgw shows them.

use std::collections::BTreeMap;

use rsgw_gateway::{Acl, CannedAcl, Grantee as AclGrantee, Permission as AclPermission};
use s3s::dto::*;
use s3s::{S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;

/// The group of everyone, signed or not.
const ALL_USERS: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
/// The group of every signed request.
const AUTH_USERS: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";

/// Stamps the ACL-shaping fields every input that takes `x-amz-grant-*`
/// headers shares: `grant_headers!(input)` for those without
/// `x-amz-grant-write` (objects), `grant_headers!(input, write)` for
/// those with it (buckets, Put*Acl).
macro_rules! grant_headers {
    ($input:expr) => {
        super::acl::GrantHeaders {
            read: $input.grant_read.as_deref(),
            write: None,
            read_acp: $input.grant_read_acp.as_deref(),
            write_acp: $input.grant_write_acp.as_deref(),
            full_control: $input.grant_full_control.as_deref(),
        }
    };
    ($input:expr, write) => {
        super::acl::GrantHeaders {
            write: $input.grant_write.as_deref(),
            ..super::acl::grant_headers!($input)
        }
    };
}
pub(super) use grant_headers;

/// A request's `x-amz-grant-*` headers.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct GrantHeaders<'a> {
    pub(super) read: Option<&'a str>,
    pub(super) write: Option<&'a str>,
    pub(super) read_acp: Option<&'a str>,
    pub(super) write_acp: Option<&'a str>,
    pub(super) full_control: Option<&'a str>,
}

impl GrantHeaders<'_> {
    fn is_empty(&self) -> bool {
        self.each().all(|(v, _)| v.is_none())
    }

    fn each(&self) -> impl Iterator<Item = (Option<&str>, AclPermission)> {
        [
            (self.read, AclPermission::Read),
            (self.write, AclPermission::Write),
            (self.read_acp, AclPermission::ReadAcp),
            (self.write_acp, AclPermission::WriteAcp),
            (self.full_control, AclPermission::FullControl),
        ]
        .into_iter()
    }

    /// The grants the headers name, in the order S3 lists the headers:
    /// each value a comma-separated list of `id="…"`, `emailAddress="…"`
    /// or `uri="…"` (quotes optional); anything else is `400
    /// InvalidArgument`, as radosgw answers.
    fn grants(&self) -> S3Result<Vec<rsgw_gateway::Grant>> {
        let mut out = Vec::new();
        for (value, permission) in self.each() {
            for item in value.into_iter().flat_map(|v| v.split(',')) {
                let grantee = item
                    .split_once('=')
                    .and_then(|(kind, v)| {
                        let v = v.trim().trim_matches('"');
                        (!v.is_empty()).then_some((kind.trim(), v))
                    })
                    .ok_or_else(|| {
                        S3Error::with_message(
                            S3ErrorCode::InvalidArgument,
                            format!(
                                "'{}' names no grantee (id=, emailAddress= or uri=)",
                                item.trim()
                            ),
                        )
                    })
                    .and_then(|(kind, v)| match kind.to_ascii_lowercase().as_str() {
                        "id" => Ok(AclGrantee::User(v.into())),
                        "emailaddress" => Ok(AclGrantee::Email(v.into())),
                        "uri" => group(v),
                        _ => Err(S3Error::with_message(
                            S3ErrorCode::InvalidArgument,
                            format!("unknown grantee type '{kind}' (id, emailAddress or uri)"),
                        )),
                    })?;
                out.push(rsgw_gateway::Grant {
                    grantee,
                    permission,
                });
            }
        }
        Ok(out)
    }
}

/// The grantee a group's URI names; radosgw's answer for another.
fn group(uri: &str) -> S3Result<AclGrantee> {
    match uri {
        ALL_USERS => Ok(AclGrantee::AllUsers),
        AUTH_USERS => Ok(AclGrantee::AuthenticatedUsers),
        _ => Err(S3Error::with_message(
            S3ErrorCode::InvalidArgument,
            format!("Invalid group uri {uri}"),
        )),
    }
}

/// The ACL a write that may carry one asks for (CreateBucket, PutObject,
/// CopyObject, CreateMultipartUpload): its `x-amz-acl`, or the grants of
/// its `x-amz-grant-*` headers, or `private`; both at once is `400
/// InvalidRequest`, as from AWS and radosgw.
pub(super) fn header_acl(canned_header: Option<&str>, grants: GrantHeaders) -> S3Result<Acl> {
    if grants.is_empty() {
        return Ok(Acl::Canned(canned(canned_header)?));
    }
    if canned_header.is_some() {
        return Err(s3_error!(
            InvalidRequest,
            "Specifying both Canned ACLs and Header Grants is not allowed"
        ));
    }
    Ok(Acl::Grants(grants.grants()?))
}

/// A canned ACL header (`x-amz-acl`), `private` when none is sent.
pub(super) fn canned(acl: Option<&str>) -> S3Result<CannedAcl> {
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

/// The grants of an ACL document (what `s3cmd setacl` and the SDKs'
/// AccessControlPolicy send), stored as they are given (a document
/// without the owner's own grant leaves the owner only the ACL itself,
/// as in AWS and radosgw), and the owner it names. A document without
/// an owner, a grantee without its id, address or URI, or a permission
/// S3 has not: `400 InvalidArgument`, as radosgw answers.
fn document_acl(policy: &AccessControlPolicy) -> S3Result<(Acl, String)> {
    let invalid = |msg: &str| S3Error::with_message(S3ErrorCode::InvalidArgument, msg.to_string());
    let owner = policy
        .owner
        .as_ref()
        .and_then(|o| o.id.clone())
        .ok_or_else(|| invalid("an ACL document names its Owner"))?;
    let mut grants = Vec::new();
    for g in policy.grants.iter().flatten() {
        let permission = g
            .permission
            .as_ref()
            .and_then(|p| AclPermission::parse(p.as_str()))
            .ok_or_else(|| {
                invalid("a grant's Permission is READ, WRITE, READ_ACP, WRITE_ACP or FULL_CONTROL")
            })?;
        let e = g
            .grantee
            .as_ref()
            .ok_or_else(|| invalid("a grant names its Grantee"))?;
        let grantee = match e.type_.as_str() {
            Type::CANONICAL_USER => e.id.clone().map(AclGrantee::User),
            Type::AMAZON_CUSTOMER_BY_EMAIL => e.email_address.clone().map(AclGrantee::Email),
            Type::GROUP => e.uri.as_deref().map(group).transpose()?,
            _ => None,
        }
        .ok_or_else(|| invalid("a Grantee is a CanonicalUser with an ID, an AmazonCustomerByEmail with an EmailAddress or a Group with a URI"))?;
        grants.push(rsgw_gateway::Grant {
            grantee,
            permission,
        });
    }
    Ok((Acl::Grants(grants), owner))
}

/// The ACL a Put*Acl request sets, and the owner its document names:
/// exactly one of `x-amz-acl`, the grant headers and a document.
fn requested_acl(
    canned_header: Option<&str>,
    grants: GrantHeaders,
    policy: Option<&AccessControlPolicy>,
) -> S3Result<(Acl, Option<String>)> {
    match (policy, canned_header.is_some() || !grants.is_empty()) {
        (Some(_), true) => Err(s3_error!(
            InvalidArgument,
            "an ACL document and ACL headers at once"
        )),
        (Some(p), false) => document_acl(p).map(|(acl, owner)| (acl, Some(owner))),
        (None, true) => header_acl(canned_header, grants).map(|acl| (acl, None)),
        (None, false) => Err(s3_error!(MalformedACLError, "no ACL given")),
    }
}

/// The display names of the users an ACL's grants name.
async fn grantee_names(s3: &RsgwS3, acl: &Acl) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    if let Acl::Grants(grants) = acl {
        for g in grants {
            if let AclGrantee::User(uid) = &g.grantee
                && !names.contains_key(uid)
            {
                names.insert(uid.clone(), s3.gw.display_name(uid).await);
            }
        }
    }
    names
}

pub(super) async fn get_bucket_acl(
    s3: &RsgwS3,
    req: S3Request<GetBucketAclInput>,
) -> S3Result<S3Response<GetBucketAclOutput>> {
    let rq = s3.requester(&req).await?;
    let info = s3
        .gw
        .get_bucket_acl(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    let name = s3.gw.display_name(&info.owner).await;
    let owner = (info.owner.as_str(), name.as_str());
    let names = grantee_names(s3, &info.acl).await;
    let (owner, grants) = shown(owner, owner, &info.acl, &names);
    Ok(S3Response::new(GetBucketAclOutput {
        owner: Some(owner),
        grants: Some(grants),
    }))
}

pub(super) async fn put_bucket_acl(
    s3: &RsgwS3,
    req: S3Request<PutBucketAclInput>,
) -> S3Result<S3Response<PutBucketAclOutput>> {
    let rq = s3.requester(&req).await?;
    let i = &req.input;
    let (acl, named_owner) = requested_acl(
        i.acl.as_ref().map(BucketCannedACL::as_str),
        grant_headers!(i, write),
        i.access_control_policy.as_ref(),
    )?;
    s3.gw
        .set_bucket_acl(&rq, &i.bucket, acl, named_owner.as_deref())
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketAclOutput::default()))
}

pub(super) async fn get_object_acl(
    s3: &RsgwS3,
    req: S3Request<GetObjectAclInput>,
) -> S3Result<S3Response<GetObjectAclOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let res = s3
        .gw
        .get_object_acl(&rq, &i.bucket, &i.key, i.version_id.as_deref())
        .await
        .map_err(to_s3)?;
    let name = s3.gw.display_name(&res.owner).await;
    let bucket_owner_name = s3.gw.display_name(&res.bucket_owner).await;
    let names = grantee_names(s3, &res.acl).await;
    let (owner, grants) = shown(
        (&res.owner, &name),
        (&res.bucket_owner, &bucket_owner_name),
        &res.acl,
        &names,
    );
    Ok(S3Response::new(GetObjectAclOutput {
        owner: Some(owner),
        grants: Some(grants),
        ..Default::default()
    }))
}

pub(super) async fn put_object_acl(
    s3: &RsgwS3,
    req: S3Request<PutObjectAclInput>,
) -> S3Result<S3Response<PutObjectAclOutput>> {
    let rq = s3.requester(&req).await?;
    let i = &req.input;
    let (acl, named_owner) = requested_acl(
        i.acl.as_ref().map(ObjectCannedACL::as_str),
        grant_headers!(i, write),
        i.access_control_policy.as_ref(),
    )?;
    s3.gw
        .set_object_acl(
            &rq,
            &i.bucket,
            &i.key,
            i.version_id.as_deref(),
            acl,
            named_owner.as_deref(),
        )
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutObjectAclOutput::default()))
}

/// The document of an ACL: a canned ACL's grants ([`acl_grants`]), or
/// the grants given, in radosgw's order (groups first, then users by id),
/// users with their display names.
fn shown(
    owner: Named,
    bucket_owner: Named,
    acl: &Acl,
    names: &BTreeMap<String, String>,
) -> (Owner, Vec<Grant>) {
    let grants = match acl {
        Acl::Canned(c) => return acl_grants(owner, bucket_owner, *c),
        Acl::Grants(g) => g,
    };
    let mut shown: Vec<(String, Grant)> = grants
        .iter()
        .map(|g| {
            let permission = Some(Permission::from_static(g.permission.as_str()));
            let (key, grantee) = match &g.grantee {
                AclGrantee::User(uid) | AclGrantee::Email(uid) => (
                    uid.clone(),
                    user_grantee(uid, names.get(uid).map_or(uid.as_str(), String::as_str)),
                ),
                AclGrantee::AllUsers => (String::new(), group_grantee(ALL_USERS)),
                AclGrantee::AuthenticatedUsers => (String::new(), group_grantee(AUTH_USERS)),
            };
            (
                key,
                Grant {
                    grantee: Some(grantee),
                    permission,
                },
            )
        })
        .collect();
    // stable: equal keys keep the order they were given in
    shown.sort_by(|a, b| a.0.cmp(&b.0));
    let owner = Owner {
        id: Some(owner.0.to_string()),
        display_name: Some(owner.1.to_string()),
    };
    (owner, shown.into_iter().map(|(_, g)| g).collect())
}

fn user_grantee(id: &str, name: &str) -> Grantee {
    Grantee {
        id: Some(id.to_string()),
        display_name: Some(name.to_string()),
        type_: Type::from_static(Type::CANONICAL_USER),
        email_address: None,
        uri: None,
    }
}

fn group_grantee(uri: &str) -> Grantee {
    Grantee {
        id: None,
        display_name: None,
        type_: Type::from_static(Type::GROUP),
        email_address: None,
        uri: Some(uri.to_string()),
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
    let user = |(id, name): Named, perm: &'static str| {
        let grant = Grant {
            grantee: Some(user_grantee(id, name)),
            permission: Some(Permission::from_static(perm)),
        };
        (id.to_string(), grant)
    };
    let group = |uri: &str, perm: &'static str| {
        let grant = Grant {
            grantee: Some(group_grantee(uri)),
            permission: Some(Permission::from_static(perm)),
        };
        (String::new(), grant)
    };
    let mut grants = vec![user(owner, Permission::FULL_CONTROL)];
    let other_bucket_owner = bucket_owner.0 != owner.0;
    match acl {
        CannedAcl::Private => {}
        CannedAcl::PublicRead => grants.push(group(ALL_USERS, Permission::READ)),
        CannedAcl::PublicReadWrite => {
            grants.push(group(ALL_USERS, Permission::READ));
            grants.push(group(ALL_USERS, Permission::WRITE));
        }
        CannedAcl::AuthenticatedRead => grants.push(group(AUTH_USERS, Permission::READ)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{Outcome, check};

    use super::{ALL_USERS as ALL, AUTH_USERS as AUTH};

    const LOGS: &str = "http://acs.amazonaws.com/groups/s3/LogDelivery";

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

    fn grant(grantee: AclGrantee, permission: AclPermission) -> rsgw_gateway::Grant {
        rsgw_gateway::Grant {
            grantee,
            permission,
        }
    }

    fn email(address: &str, perm: &'static str) -> Grant {
        Grant {
            grantee: Some(Grantee {
                id: None,
                display_name: None,
                type_: Type::from_static(Type::AMAZON_CUSTOMER_BY_EMAIL),
                email_address: Some(address.into()),
                uri: None,
            }),
            permission: Some(Permission::from_static(perm)),
        }
    }

    /// Documents keep their grants as given; what S3 has not is refused
    /// as radosgw refuses it.
    #[test]
    fn acl_documents_keep_their_grants() {
        use AclPermission as P;
        let bad = || Err(("InvalidArgument", 400));
        let table: Vec<(&str, AccessControlPolicy, Outcome<Vec<rsgw_gateway::Grant>>)> = vec![
            (
                "the owner and a group",
                policy(vec![
                    user("uid-1", "FULL_CONTROL"),
                    group(ALL, Some("READ")),
                ]),
                Ok(vec![
                    grant(AclGrantee::User("uid-1".into()), P::FullControl),
                    grant(AclGrantee::AllUsers, P::Read),
                ]),
            ),
            (
                "users, by id and by address",
                policy(vec![
                    user("bob", "READ"),
                    email("Bob@Example.com", "WRITE_ACP"),
                ]),
                Ok(vec![
                    grant(AclGrantee::User("bob".into()), P::Read),
                    grant(AclGrantee::Email("Bob@Example.com".into()), P::WriteAcp),
                ]),
            ),
            (
                "signed users",
                policy(vec![group(AUTH, Some("WRITE"))]),
                Ok(vec![grant(AclGrantee::AuthenticatedUsers, P::Write)]),
            ),
            ("no grant at all", policy(vec![]), Ok(vec![])),
            (
                "log delivery",
                policy(vec![group(LOGS, Some("WRITE"))]),
                bad(),
            ),
            (
                "another group",
                policy(vec![group("http://example.com/g", Some("READ"))]),
                bad(),
            ),
            ("no permission", policy(vec![group(ALL, None)]), bad()),
            (
                "a permission S3 has not",
                policy(vec![group(ALL, Some("EVERYTHING"))]),
                bad(),
            ),
            (
                "no owner",
                AccessControlPolicy {
                    owner: None,
                    ..policy(vec![])
                },
                bad(),
            ),
        ];
        for (why, p, want) in table {
            let got = document_acl(&p).map(|(acl, owner)| {
                assert_eq!(owner, "alice", "{why}");
                match acl {
                    Acl::Grants(g) => g,
                    Acl::Canned(c) => panic!("{why}: canned {c:?}"),
                }
            });
            check(got, want, why);
        }
    }

    #[test]
    fn grant_headers_name_users_by_id_or_address_and_groups_by_uri() {
        use AclPermission as P;
        let headers = GrantHeaders {
            read: Some(&format!(r#"id="bob", uri="{ALL}""#)),
            full_control: Some("emailAddress=carol@example.com"),
            ..Default::default()
        };
        check(
            headers.grants(),
            Ok(vec![
                grant(AclGrantee::User("bob".into()), P::Read),
                grant(AclGrantee::AllUsers, P::Read),
                grant(
                    AclGrantee::Email("carol@example.com".into()),
                    P::FullControl,
                ),
            ]),
            "grants",
        );
        for value in [
            "bob",
            "id=",
            "id=\"\"",
            "name=\"bob\"",
            &format!("uri={LOGS}"),
        ] {
            let h = GrantHeaders {
                write_acp: Some(value),
                ..Default::default()
            };
            check(h.grants(), Err(("InvalidArgument", 400)), value);
        }
    }

    #[test]
    fn a_request_gives_one_acl() {
        let public = policy(vec![group(ALL, Some(Permission::READ))]);
        let read = GrantHeaders {
            read: Some("id=bob"),
            ..Default::default()
        };
        let none = GrantHeaders::default();
        let bob = Acl::Grants(vec![grant(
            AclGrantee::User("bob".into()),
            AclPermission::Read,
        )]);
        /// (`x-amz-acl`, grant headers, document, the ACL and named owner)
        type Case<'a> = (
            Option<&'a str>,
            GrantHeaders<'a>,
            Option<&'a AccessControlPolicy>,
            Outcome<(Acl, Option<String>)>,
        );
        let table: Vec<Case> = vec![
            (
                Some("public-read"),
                none,
                None,
                Ok((CannedAcl::PublicRead.into(), None)),
            ),
            (None, read, None, Ok((bob, None))),
            (
                None,
                none,
                Some(&public),
                Ok((
                    Acl::Grants(vec![grant(AclGrantee::AllUsers, AclPermission::Read)]),
                    Some("alice".into()),
                )),
            ),
            (Some("nope"), none, None, Err(("InvalidArgument", 400))),
            (Some("private"), read, None, Err(("InvalidRequest", 400))),
            (
                Some("private"),
                none,
                Some(&public),
                Err(("InvalidArgument", 400)),
            ),
            (None, read, Some(&public), Err(("InvalidArgument", 400))),
            (None, none, None, Err(("MalformedACLError", 400))),
        ];
        for (header, grants, doc, want) in table {
            let why = format!("{header:?} {grants:?} {doc:?}");
            check(requested_acl(header, grants, doc), want, &why);
        }
        // a write without ACL headers is private
        check(
            header_acl(None, none),
            Ok(CannedAcl::Private.into()),
            "none",
        );
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
        // first, then users by id)
        use CannedAcl as C;
        let table: Vec<(C, Named, Vec<Shown>)> = vec![
            (C::Private, own, vec![owner]),
            (C::PublicRead, own, vec![("Group", ALL, "READ"), owner]),
            (
                C::PublicReadWrite,
                own,
                vec![("Group", ALL, "READ"), ("Group", ALL, "WRITE"), owner],
            ),
            (
                C::AuthenticatedRead,
                own,
                vec![("Group", AUTH, "READ"), owner],
            ),
            (
                C::BucketOwnerRead,
                other,
                vec![("CanonicalUser", "uid-0", "READ"), owner],
            ),
            (
                C::BucketOwnerFullControl,
                other,
                vec![("CanonicalUser", "uid-0", "FULL_CONTROL"), owner],
            ),
            (
                C::BucketOwnerRead,
                later,
                vec![owner, ("CanonicalUser", "uid-2", "READ")],
            ),
            // in the owner's own bucket they add nothing
            (C::BucketOwnerRead, own, vec![owner]),
            (C::BucketOwnerFullControl, own, vec![owner]),
        ];
        for (acl, bucket_owner, want) in table {
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
        }
    }
}
