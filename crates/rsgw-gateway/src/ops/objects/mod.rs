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
use rsgw_store::{CmpOp, StoreError};

use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
use crate::model::object::ObjectMeta;
use crate::model::versioning::{NULL_VERSION, check_version_id};
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize, missing_key};
use crate::rules::names::validate_key;

impl Gateway {
    /// An existing version's bucket record and metadata, for a request that
    /// reads only the metadata (GetObjectAcl, GetObjectTagging,
    /// GetObjectRetention...) and may do `access` on it: the key's current
    /// version, or `version` (`null` too). A missing key or version, or a
    /// delete marker, answers as a GET would.
    pub(crate) async fn object_meta_for(
        &self,
        rq: &Requester,
        access: Access,
        (bucket, key, version): (&str, &str, Option<&str>),
    ) -> GatewayResult<(BucketInfo, ObjectMeta)> {
        validate_key(key)?;
        if let Some(v) = version {
            check_version_id(v)?;
        }
        let info = self.bucket_info_fresh(bucket).await?;
        let found = match version {
            None => self.head_meta(&layout::head(&info.id, key)).await?,
            Some(v) => self
                .read_version(&info.id, key, version_of(v))
                .await?
                .map(|s| s.meta),
        };
        let Some(meta) = found else {
            return Err(missing(rq, &info, version));
        };
        let target = Target::stored(&info, key, &meta);
        check_target(rq, access, (&info, &target), &meta, version.is_some())?;
        Ok((info, meta))
    }

    /// Changes an existing version's metadata in place (its ACL, its tags:
    /// `new_tags` when the change gives it some; its retention, its legal
    /// hold): the key's current version, or `version`, in the head or in
    /// its own object. Each write is guarded by the version's tag and by
    /// the record it changes, so that neither a concurrent overwrite nor a
    /// concurrent change of the record is undone: a lost race reads again
    /// and changes what it finds. A noncurrent version promoted into the
    /// head while it changed is changed there too.
    pub(crate) async fn update_meta(
        &self,
        rq: &Requester,
        (access, new_tags): (Access, Option<&BTreeMap<String, String>>),
        (bucket, key, version): (&str, &str, Option<&str>),
        change: impl Fn(&BucketInfo, &mut ObjectMeta) -> GatewayResult<()>,
    ) -> GatewayResult<()> {
        validate_key(key)?;
        if let Some(v) = version {
            check_version_id(v)?;
        }
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        let id = version.and_then(version_of);
        for _ in 0..MAX_ROUNDS {
            let head = self.read_record(&head_id).await?;
            let (obj, mut found) = match head {
                Some(h) if version.is_none() || h.meta.is_version(id) => (head_id.clone(), h),
                None if version.is_none() => return Err(missing(rq, &info, None)),
                _ => {
                    let own = layout::version(&info.id, id, key);
                    match self.read_record(&own).await? {
                        Some(v) => (own, v),
                        // promoted into the head meanwhile, or no such version
                        None if self.read_record(&head_id).await?.map(|h| h.meta.tag)
                            != head.map(|h| h.meta.tag) =>
                        {
                            continue;
                        }
                        None => return Err(missing(rq, &info, version)),
                    }
                }
            };
            let target = Target::stored(&info, key, &found.meta);
            let target = match new_tags {
                Some(tags) => target.requesting(tags),
                None => target,
            };
            check_target(rq, access, (&info, &target), &found.meta, version.is_some())?;
            change(&info, &mut found.meta)?;
            let json = Bytes::from(serde_json::to_vec(&found.meta)?);
            let op = found
                .marked
                .unchanged(&found.meta.tag)
                .cmp_xattr(layout::META_XATTR, CmpOp::Eq, found.raw)
                .set_xattr(layout::META_XATTR, json);
            match self.store.write(&obj, op).await {
                Ok(_) if obj == head_id => {
                    return self.announce_write(&head_id, found.marked).await;
                }
                Ok(_) => {
                    // a version's own object: promoted into the head while
                    // it changed? Then the head is changed too.
                    let promoted = self
                        .read_record(&head_id)
                        .await?
                        .is_some_and(|h| h.meta.tag == found.meta.tag);
                    if !promoted {
                        return Ok(());
                    }
                }
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }
}

/// The id a `versionId` names (`None`: the `null` version).
pub(crate) fn version_of(v: &str) -> Option<&str> {
    (v != NULL_VERSION).then_some(v)
}

/// The answer to a request for a key (`version`: a version of it) that is
/// missing: no such key (or version), or `AccessDenied` to who may not
/// list the bucket. The `null` version missing is no such key, as radosgw
/// answers.
fn missing(rq: &Requester, info: &BucketInfo, version: Option<&str>) -> GatewayError {
    match missing_key(rq, info) {
        GatewayError::NoSuchKey if version.and_then(version_of).is_some() => {
            GatewayError::NoSuchVersion
        }
        e => e,
    }
}

/// Authorizes `access` to a stored version (`target`, in bucket `info`)
/// and refuses a delete marker as a GET does: as a missing key when the
/// request named no version, as a method not allowed when it named the
/// marker.
fn check_target(
    rq: &Requester,
    access: Access,
    (info, target): (&BucketInfo, &Target<'_>),
    meta: &ObjectMeta,
    by_version: bool,
) -> GatewayResult<()> {
    if meta.delete_marker && !by_version {
        return Err(match missing_key(rq, info) {
            GatewayError::NoSuchKey => GatewayError::DeleteMarker {
                version_id: meta.version_name().to_string(),
                mtime: meta.mtime,
                by_version,
            },
            e => e,
        });
    }
    authorize(rq, access, target)?;
    if meta.delete_marker {
        return Err(GatewayError::DeleteMarker {
            version_id: meta.version_name().to_string(),
            mtime: meta.mtime,
            by_version,
        });
    }
    Ok(())
}
