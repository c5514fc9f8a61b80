//! Metadata records rsgw changes in a zone, as radosgw changes them: the
//! record written with its version raised (`version.inc`, so that a
//! radosgw holding the record read before the change fails its own
//! guarded write of it and reads it again), then announced on one of the
//! zone's control objects with the invalidation radosgw sends
//! ([`crate::notify::encode_invalidation`]): every radosgw, and every
//! rsgw, watching them drops its cached copy and reads the change on its
//! next request.

use std::collections::BTreeMap;
use std::time::Duration;

use bytes::Bytes;
use rsgw_store::{ObjectId, WriteOp};

use crate::acl::Policy;
use crate::cls::{VERSION_CLASS, VERSION_INC_METHOD, encode_version_inc};
use crate::cors::{CorsRule, encode_cors};
use crate::notify::encode_invalidation;
use crate::tags::{ATTR_TAGS, encode_tags};
use crate::zone::{
    ATTR_ACL, ATTR_CORS, ATTR_POLICY, Zone, ZoneBucket, ZoneError, ZoneResult, in_pool,
};

/// How long an announcement waits for the watchers' acknowledgements
/// (radosgw's own notifications wait as long).
const ANNOUNCE_TIMEOUT: Duration = Duration::from_secs(10);

impl Zone {
    /// Sets `bucket`'s ACL as radosgw's PutBucketAcl does: the bucket
    /// instance's `user.rgw.acl` (radosgw also writes the instance's data
    /// again, unchanged by an ACL of the same owner), its version raised;
    /// then the change announced.
    pub async fn set_bucket_acl(&self, bucket: &ZoneBucket, acl: &Policy) -> ZoneResult<()> {
        self.change_bucket_instance(
            bucket,
            WriteOp::new().set_xattr(ATTR_ACL, Bytes::from(acl.encode())),
        )
        .await
    }

    /// Sets `bucket`'s policy (the document as sent, `user.rgw.iam-policy`)
    /// or, with `None`, removes it, as radosgw's Put/DeleteBucketPolicy
    /// do; removing none is no change.
    pub async fn set_bucket_policy(
        &self,
        bucket: &ZoneBucket,
        document: Option<&str>,
    ) -> ZoneResult<()> {
        let op = match document {
            Some(text) => WriteOp::new().set_xattr(ATTR_POLICY, Bytes::from(text.to_string())),
            None if bucket.policy.is_some() => WriteOp::new().rm_xattr(ATTR_POLICY),
            None => return Ok(()),
        };
        self.change_bucket_instance(bucket, op).await
    }

    /// Sets `bucket`'s CORS rules (`user.rgw.cors`) or, with none, removes
    /// them, as radosgw's Put/DeleteBucketCors do; removing none is no
    /// change.
    pub async fn set_bucket_cors(&self, bucket: &ZoneBucket, rules: &[CorsRule]) -> ZoneResult<()> {
        let op = match rules {
            [] if bucket.cors.is_empty() => return Ok(()),
            [] => WriteOp::new().rm_xattr(ATTR_CORS),
            rules => WriteOp::new().set_xattr(ATTR_CORS, Bytes::from(encode_cors(rules))),
        };
        self.change_bucket_instance(bucket, op).await
    }

    /// Sets `bucket`'s tags (`user.rgw.x-amz-tagging`, as an object's) or,
    /// with none, removes them, as radosgw's Put/DeleteBucketTagging do;
    /// removing none is no change.
    pub async fn set_bucket_tags(
        &self,
        bucket: &ZoneBucket,
        tags: &BTreeMap<String, String>,
    ) -> ZoneResult<()> {
        let op = match tags.is_empty() {
            true if bucket.tags.is_empty() => return Ok(()),
            true => WriteOp::new().rm_xattr(ATTR_TAGS),
            false => WriteOp::new().set_xattr(ATTR_TAGS, Bytes::from(encode_tags(tags))),
        };
        self.change_bucket_instance(bucket, op).await
    }

    /// Applies `op` (xattrs set or removed) to `bucket`'s instance record,
    /// its version raised, then announces the change.
    async fn change_bucket_instance(&self, bucket: &ZoneBucket, op: WriteOp) -> ZoneResult<()> {
        let instance = self.bucket_instance(&bucket.info.bucket);
        self.store()
            .write(
                &instance,
                op.assert_exists()
                    .exec(VERSION_CLASS, VERSION_INC_METHOD, encode_version_inc()),
            )
            .await?;
        self.announce(&instance).await;
        Ok(())
    }

    /// Announces a change of metadata record `obj` on the zone's first
    /// control object (every gateway watches all of them), and drops it
    /// from this zone's own cache at once. A failed announcement is
    /// logged: the change is made, and gateways that missed it read it
    /// when their cached copy expires (radosgw's `rgw_cache_expiry`).
    pub(crate) async fn announce(&self, obj: &ObjectId) {
        if let Some(cache) = self.cache() {
            cache.invalidate(obj);
        }
        let Some(control) = self.params().pool("control_pool") else {
            tracing::warn!(object = %obj.name, "the zone names no control pool: a metadata change was not announced");
            return;
        };
        let pool = crate::bucket::Pool {
            name: obj.pool.clone(),
            ns: obj.namespace.clone(),
        };
        let payload = encode_invalidation(&pool, &obj.name);
        let target = in_pool(control, "notify.0");
        match self
            .store()
            .notify(&target, &payload, ANNOUNCE_TIMEOUT)
            .await
        {
            Ok(out) if out.timed_out == 0 => {}
            Ok(out) => {
                tracing::warn!(object = %obj.name, unanswered = out.timed_out,
                    "watchers of the zone's control object did not acknowledge a metadata change: they read it when their cached copy expires");
            }
            Err(e) => {
                let e = ZoneError::from(e);
                tracing::warn!(object = %obj.name, error = %e,
                    "a metadata change was not announced: other gateways read it when their cached copy expires");
            }
        }
    }
}
