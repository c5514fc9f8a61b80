//! GetObjectAcl and PutObjectAcl.

use crate::model::acl::Acl;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::params::ObjectAcl;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester};

impl Gateway {
    /// An object's owner and ACL (GetObjectAcl).
    pub async fn get_object_acl(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> GatewayResult<ObjectAcl> {
        if let Some(zone) = self.zone() {
            return Self::zone_get_object_acl(zone, rq, bucket, key, version).await;
        }
        let (info, meta) = self
            .object_meta_for(rq, Access::GetObjectAcl, (bucket, key, version))
            .await?;
        Ok(ObjectAcl {
            owner: meta.owner_in(&info).to_string(),
            acl: meta.acl,
            bucket_owner: info.owner,
        })
    }

    /// Sets an object's ACL, its grantees resolved
    /// ([`Gateway::resolve_acl`]). `named_owner` is the owner an ACL
    /// document names: another than the object's is `AccessDenied`, as
    /// radosgw answers (a document cannot give an object away).
    pub async fn set_object_acl(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
        acl: impl Into<Acl>,
        named_owner: Option<&str>,
    ) -> GatewayResult<()> {
        let acl = acl.into();
        if let Some(zone) = self.zone() {
            return self
                .zone_set_object_acl(zone, rq, (bucket, key, version), acl, named_owner)
                .await;
        }
        if matches!(acl, Acl::Grants(_)) {
            // grantees are resolved once the request may set the ACL: who
            // may not learns nothing of which users exist
            self.object_meta_for(rq, Access::PutObjectAcl, (bucket, key, version))
                .await?;
        }
        let acl = self.resolve_acl(acl).await?;
        self.update_meta(
            rq,
            (Access::PutObjectAcl, None),
            (bucket, key, version),
            |info, meta| {
                if named_owner.is_some_and(|o| o != meta.owner_in(info)) {
                    return Err(GatewayError::AccessDenied);
                }
                meta.acl = acl.clone();
                Ok(())
            },
        )
        .await
    }
}
