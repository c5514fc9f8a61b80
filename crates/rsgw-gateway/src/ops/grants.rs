//! ACL grants as a request names them, resolved to what buckets and
//! objects keep: e-mail grantees become the users they name, user
//! grantees must exist. Put*Acl, CreateBucket, PutObject, CopyObject and
//! CreateMultipartUpload resolve their ACL here before they store it.

use crate::model::acl::{Acl, Grantee};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::limits::MAX_ACL_GRANTS;
use crate::ops::gateway::Gateway;
use crate::rules::names::validate_email;

impl Gateway {
    /// `acl` as it is stored: at most [`MAX_ACL_GRANTS`] grants
    /// (`TooManyGrants`), each e-mail grantee the user with that address
    /// (`UnresolvableEmail` when none has it), each user grantee an
    /// existing user (`InvalidArgument` otherwise, as radosgw and AWS
    /// answer an unknown canonical id).
    pub async fn resolve_acl(&self, acl: Acl) -> GatewayResult<Acl> {
        let Acl::Grants(mut grants) = acl else {
            return Ok(acl);
        };
        if grants.len() > MAX_ACL_GRANTS {
            return Err(GatewayError::TooManyGrants);
        }
        for g in &mut grants {
            match &g.grantee {
                Grantee::Email(address) => {
                    let found = match validate_email(address) {
                        Ok(lower) => self.email_user(&lower).await?,
                        Err(_) => None,
                    };
                    let uid =
                        found.ok_or_else(|| GatewayError::UnresolvableEmail(address.clone()))?;
                    g.grantee = Grantee::User(uid);
                }
                Grantee::User(uid) => match self.user_info(uid).await {
                    Ok(_) => {}
                    Err(GatewayError::NoSuchUser(_)) => {
                        return Err(GatewayError::InvalidArgument(format!("Invalid id: {uid}")));
                    }
                    Err(e) => return Err(e),
                },
                Grantee::AllUsers | Grantee::AuthenticatedUsers => {}
            }
        }
        Ok(Acl::Grants(grants))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::acl::{Grant, Permission};
    use crate::testutil::{Fixture, small_opts};

    fn grant(grantee: Grantee) -> Grant {
        Grant {
            grantee,
            permission: Permission::Read,
        }
    }

    /// Who may not set an ACL is refused before any grantee is looked up,
    /// so unknown and known users answer alike.
    #[tokio::test]
    async fn grantees_are_resolved_only_for_who_may_set_the_acl() {
        use crate::testutil::{OWNER, body, owner};
        let (f, _) = Fixture::with_bucket(small_opts(), "shared").await;
        f.gw.put_object(&owner(), "shared", "k", Default::default(), body(b"x", 1))
            .await
            .expect("put");
        let unknown = || Acl::Grants(vec![grant(Grantee::User("nobody".into()))]);
        for who in [crate::Requester::user("bob"), crate::Requester::anonymous()] {
            assert!(matches!(
                f.gw.set_bucket_acl(&who, "shared", unknown(), None).await,
                Err(GatewayError::AccessDenied)
            ));
            assert!(matches!(
                f.gw.set_object_acl(&who, "shared", "k", None, unknown(), None)
                    .await,
                Err(GatewayError::AccessDenied)
            ));
        }
        assert!(matches!(
            f.gw.set_bucket_acl(&owner(), "shared", unknown(), Some(OWNER))
                .await,
            Err(GatewayError::InvalidArgument(_))
        ));
        assert!(matches!(
            f.gw.set_object_acl(&owner(), "shared", "k", None, unknown(), Some(OWNER))
                .await,
            Err(GatewayError::InvalidArgument(_))
        ));
    }

    #[tokio::test]
    async fn grantees_resolve_to_users() {
        let f = Fixture::new(small_opts()).await;
        f.gw.create_user("bob", "Bob", None).await.expect("bob");
        f.gw.create_user("carol", "Carol", None)
            .await
            .expect("carol");
        f.gw.set_email("bob", Some("Bob@Example.com"))
            .await
            .expect("email");
        assert!(matches!(
            f.gw.set_email("carol", Some("bob@example.COM")).await,
            Err(GatewayError::EmailExists(_))
        ));
        for bad in ["no-at-sign", "@example.com", "bob@", "b ob@example.com"] {
            assert!(
                matches!(
                    f.gw.set_email("carol", Some(bad)).await,
                    Err(GatewayError::InvalidArgument(_))
                ),
                "{bad}"
            );
        }
        let acl = Acl::Grants(vec![
            grant(Grantee::Email("BOB@example.com".into())),
            grant(Grantee::User("carol".into())),
            grant(Grantee::AllUsers),
        ]);
        assert_eq!(
            f.gw.resolve_acl(acl).await.expect("resolved"),
            Acl::Grants(vec![
                grant(Grantee::User("bob".into())),
                grant(Grantee::User("carol".into())),
                grant(Grantee::AllUsers),
            ])
        );
        let one = |g| f.gw.resolve_acl(Acl::Grants(vec![grant(g)]));
        assert!(matches!(
            one(Grantee::Email("nobody@example.com".into())).await,
            Err(GatewayError::UnresolvableEmail(_))
        ));
        assert!(matches!(
            one(Grantee::Email("not an address".into())).await,
            Err(GatewayError::UnresolvableEmail(_))
        ));
        // ids no user can have, the store's refused names among them
        for id in ["nobody", "a\0lice", "", "a/b"] {
            assert!(
                matches!(
                    one(Grantee::User(id.into())).await,
                    Err(GatewayError::InvalidArgument(_))
                ),
                "{id:?}"
            );
        }
        let many = Acl::Grants(vec![grant(Grantee::AllUsers); MAX_ACL_GRANTS + 1]);
        assert!(matches!(
            f.gw.resolve_acl(many).await,
            Err(GatewayError::TooManyGrants)
        ));
        // the address moves with the user: a new one frees the old
        f.gw.set_email("bob", Some("robert@example.com"))
            .await
            .expect("new address");
        f.gw.set_email("carol", Some("bob@example.com"))
            .await
            .expect("the freed address");
        f.gw.remove_user("carol").await.expect("remove");
        assert!(matches!(
            one(Grantee::Email("bob@example.com".into())).await,
            Err(GatewayError::UnresolvableEmail(_))
        ));
    }
}
