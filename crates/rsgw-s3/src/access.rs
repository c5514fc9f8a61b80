//! What s3s asks of rsgw before it runs an operation: the secret key of
//! an access key (to check the signature), and whether to let the request
//! through, once routed: every request passes, anonymous ones included,
//! since the gateway decides per operation (its `authz` module); what is
//! refused here is what rsgw cannot honour, and what the rate limits
//! refuse.

use rsgw_gateway::Gateway;
use s3s::auth::{S3Auth, SecretKey};
use s3s::{S3Result, s3_error};

use crate::error::to_s3;
use crate::form::redirect_ok;
use crate::noted::{Named, OpSlot};
use crate::operation::S3Op;
use crate::{ratelimit, unhonoured};

/// Looks access keys up in the gateway's user store.
pub(crate) struct GatewayAuth(pub(crate) Gateway);

#[async_trait::async_trait]
impl S3Auth for GatewayAuth {
    async fn get_secret_key(&self, access_key: &str) -> S3Result<SecretKey> {
        match self.0.lookup_key(access_key).await {
            Ok((_, secret)) => Ok(SecretKey::from(secret)),
            Err(rsgw_gateway::GatewayError::AccessDenied) => Err(s3_error!(InvalidAccessKeyId)),
            Err(e) => Err(to_s3(e)),
        }
    }
}

/// Lets every request through s3s' access check, anonymous ones included:
/// the gateway decides per operation (its `authz` module). Refuses what
/// rsgw cannot honour and must not ignore (the `unhonoured` module).
/// Notes the operation, and what the request names and who signed it, for
/// metrics and the ops log.
pub(crate) struct AclDecidesLater(pub(crate) Gateway);

#[async_trait::async_trait]
impl s3s::access::S3Access for AclDecidesLater {
    async fn check(&self, cx: &mut s3s::access::S3AccessContext<'_>) -> S3Result<()> {
        // every routed request passes here: note its operation for metrics
        let op = S3Op::from_s3s(cx.s3_op().name());
        // the object and the key are noted for the ops log only
        let logged = cx.extensions_mut().get::<rsgw_frontend::Logged>().is_some();
        let (bucket, object) = match cx.s3_path() {
            s3s::path::S3Path::Root => (None, None),
            s3s::path::S3Path::Bucket { bucket } => (Some(bucket.to_string()), None),
            s3s::path::S3Path::Object { bucket, key } => {
                (Some(bucket.to_string()), logged.then(|| key.to_string()))
            }
        };
        let access_key = cx.credentials().map(|c| c.access_key.clone());
        // signed: the key was just looked up (cached) to check the signature
        let user = match &access_key {
            Some(ak) => self.0.lookup_key(ak).await.ok().map(|(uid, _)| uid),
            None => None,
        };
        let slot = cx.extensions_mut().get::<OpSlot>().cloned();
        if let Some(slot) = &slot {
            slot.set(op);
            slot.name(Named {
                bucket: bucket.clone(),
                object,
                user: user.clone(),
                access_key: access_key.filter(|_| logged),
            });
        }
        if self.0.serves_radosgw() {
            unhonoured::refuse_on_radosgw(op)?;
        }
        unhonoured::refuse(op, cx.uri().query(), cx.headers())?;
        // the one place every routed request's rate limits are decided
        let (admitted, verdict) = ratelimit::admit(
            &self.0,
            cx.method(),
            cx.headers(),
            user.as_deref(),
            bucket.as_deref(),
        )
        .await;
        if let Some((slot, a)) = slot.zip(admitted) {
            slot.admitted(a);
        }
        verdict
    }

    /// A browser upload's `success_action_redirect` is checked before the
    /// object is written: s3s refuses one it cannot parse only after.
    async fn post_object(
        &self,
        req: &mut s3s::S3Request<s3s::dto::PostObjectInput>,
    ) -> S3Result<()> {
        match req.input.success_action_redirect.as_deref() {
            Some(url) if !redirect_ok(url) => Err(s3_error!(
                InvalidArgument,
                "success_action_redirect must be an absolute http or https URL"
            )),
            _ => Ok(()),
        }
    }
}
