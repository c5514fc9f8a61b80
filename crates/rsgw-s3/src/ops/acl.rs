//! Get/PutBucketAcl and Get/PutObjectAcl: canned ACLs, as headers and as
//! the ACL documents that express them.

use std::collections::BTreeSet;

use rsgw_gateway::CannedAcl;
use s3s::dto::*;
use s3s::{S3Error, S3ErrorCode, S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;

/// The group of everyone, signed or not.
const ALL_USERS: &str = "http://acs.amazonaws.com/groups/global/AllUsers";
/// The group of every signed request.
const AUTH_USERS: &str = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers";

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
    let (owner, grants) = acl_grants(owner, owner, info.acl);
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
    let acl = requested_acl(
        req.input.acl.as_ref().map(BucketCannedACL::as_str),
        req.input.access_control_policy.as_ref(),
    )?;
    s3.gw
        .set_bucket_acl(&rq, &req.input.bucket, acl)
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
        .get_object_acl(&rq, &i.bucket, &i.key)
        .await
        .map_err(to_s3)?;
    let name = s3.gw.display_name(&res.owner).await;
    let bucket_owner_name = s3.gw.display_name(&res.bucket_owner).await;
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

pub(super) async fn put_object_acl(
    s3: &RsgwS3,
    req: S3Request<PutObjectAclInput>,
) -> S3Result<S3Response<PutObjectAclOutput>> {
    let rq = s3.requester(&req).await?;
    let acl = requested_acl(
        req.input.acl.as_ref().map(ObjectCannedACL::as_str),
        req.input.access_control_policy.as_ref(),
    )?;
    s3.gw
        .set_object_acl(&rq, &req.input.bucket, &req.input.key, acl)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutObjectAclOutput::default()))
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

/// Reads an ACL document (what `s3cmd setacl` and the SDKs' AccessControlPolicy
/// send) as the canned ACL it expresses: the owner's FULL_CONTROL plus READ
/// (and WRITE) for AllUsers, or READ for AuthenticatedUsers. Other grants
/// are not supported.
fn canned_from_policy(policy: &AccessControlPolicy) -> S3Result<CannedAcl> {
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
            Some(ALL_USERS) => {
                all.insert(perm);
            }
            Some(AUTH_USERS) => {
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
}
