//! Objects: striped writes that never expose a partial object, reads that
//! cost one store round trip for objects of one chunk, conditional requests,
//! deletion, ACLs and copies; one module per operation (`put`, `get`,
//! `delete`, `copy`, `acl`), and here what several share.
//!
//! A PUT streams the body: the first `chunk_size` bytes are kept for the head
//! object, the rest is written as tail stripes tagged with a fresh write tag
//! (announced in the GC log first, so an interrupted upload's stripes are
//! found). Then one atomic write replaces the head (data, metadata and tag),
//! guarded by the tag it replaces, so the replaced version's stripes are
//! known exactly; then the bucket index is updated; then the replaced stripes
//! are deleted (`engine::commit`). Invariant: an object listed in the index
//! can be read.

mod acl;
mod copy;
mod delete;
mod get;
mod put;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use bytes::Bytes;
use rsgw_store::StoreError;

use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
use crate::model::object::ObjectMeta;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize, missing_key};
use crate::rules::names::validate_key;

impl Gateway {
    /// An existing object's bucket record and metadata, for a request that
    /// reads only the metadata (GetObjectAcl, GetObjectTagging) and may do
    /// `access` on it; a missing key as `missing_key` answers.
    pub(crate) async fn object_meta_for(
        &self,
        rq: &Requester,
        access: Access,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<(BucketInfo, ObjectMeta)> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let Some(meta) = self.head_meta(&layout::head(&info.id, key)).await? else {
            return Err(missing_key(rq, &info));
        };
        authorize(rq, access, &Target::stored(&info, key, &meta))?;
        Ok((info, meta))
    }

    /// Changes an existing object's metadata in place (its ACL, its tags:
    /// `new_tags` when the change gives it some), guarded by the write tag
    /// so that a concurrent overwrite is never undone: a lost race reads
    /// the new version and changes that.
    pub(crate) async fn update_meta(
        &self,
        rq: &Requester,
        (access, new_tags): (Access, Option<&BTreeMap<String, String>>),
        bucket: &str,
        key: &str,
        change: impl Fn(&BucketInfo, &mut ObjectMeta) -> GatewayResult<()>,
    ) -> GatewayResult<()> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        for _ in 0..MAX_ROUNDS {
            let Some((mut meta, marked)) = self.head_state(&head_id).await? else {
                return Err(GatewayError::NoSuchKey);
            };
            let target = Target::stored(&info, key, &meta);
            let target = match new_tags {
                Some(tags) => target.requesting(tags),
                None => target,
            };
            authorize(rq, access, &target)?;
            change(&info, &mut meta)?;
            let json = Bytes::from(serde_json::to_vec(&meta)?);
            match self
                .store
                .write(
                    &head_id,
                    marked
                        .unchanged(&meta.tag)
                        .set_xattr(layout::META_XATTR, json),
                )
                .await
            {
                Ok(_) => return self.announce_write(&head_id, marked).await,
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }
}
