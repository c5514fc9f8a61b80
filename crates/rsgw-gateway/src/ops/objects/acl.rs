//! GetObjectAcl and PutObjectAcl (canned ACLs).

use crate::model::acl::CannedAcl;
use crate::model::error::GatewayResult;
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
    ) -> GatewayResult<ObjectAcl> {
        let (info, meta) = self
            .object_meta_for(rq, Access::GetObjectAcl, bucket, key)
            .await?;
        Ok(ObjectAcl {
            owner: meta.owner_in(&info).to_string(),
            acl: meta.acl,
            bucket_owner: info.owner,
        })
    }

    /// Sets an object's canned ACL.
    pub async fn set_object_acl(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        acl: CannedAcl,
    ) -> GatewayResult<()> {
        self.update_meta(rq, Access::PutObjectAcl, bucket, key, |meta| {
            meta.acl = acl;
        })
        .await
    }
}
