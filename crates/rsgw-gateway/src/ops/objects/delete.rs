//! DeleteObject and DeleteObjects, and the guarded delete the lifecycle
//! worker expires objects with. In a versioned bucket a delete without a
//! version id makes a delete marker; one with a version id removes that
//! version, and if it was the current one the next becomes current
//! (`engine::versions`).

use bytes::Bytes;
use futures::StreamExt;
use rsgw_store::StoreError;

use crate::engine::commit::Swap;
use crate::engine::versions::{CopyRemoval, Dropped};
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::{now_secs, unique_id};
use crate::model::index::IndexEntry;
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
use crate::model::object::ObjectMeta;
use crate::model::params::{Deleted, PutParams};
use crate::model::versioning::{NULL_VERSION, check_version_id, entry_name};
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize, writer};
use crate::rules::names::validate_key;

impl Gateway {
    /// Deletes an object (succeeds if it is already gone); in a versioned
    /// bucket, makes a delete marker its current version.
    pub async fn delete_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<Deleted> {
        validate_key(key)?;
        if let Some(zone) = self.zone() {
            self.zone_delete_object(zone, rq, bucket, key).await?;
            return Ok(Deleted::default());
        }
        let info = self.bucket_info_fresh(bucket).await?;
        if info.versioning.is_some() {
            return self.put_delete_marker(rq, &info, key, |_| true).await;
        }
        self.delete_current_if(rq, &info, key, |_| true).await?;
        Ok(Deleted::default())
    }

    /// Deletes an object if `cond` holds of its current version (an absent
    /// object is only unlisted; in a versioned bucket a delete marker is
    /// made); answers whether it deleted one.
    pub(crate) async fn delete_object_if(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        cond: impl Fn(&ObjectMeta) -> bool,
    ) -> GatewayResult<bool> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        if info.versioning.is_some() {
            return Ok(self.put_delete_marker(rq, &info, key, cond).await? != Deleted::default());
        }
        self.delete_current_if(rq, &info, key, cond).await
    }

    /// Makes a delete marker the current version of `key` if `cond` holds
    /// of the current one (a marker always passes it: a key without a
    /// current object gets one too, as S3 makes one).
    async fn put_delete_marker(
        &self,
        rq: &Requester,
        info: &BucketInfo,
        key: &str,
        cond: impl Fn(&ObjectMeta) -> bool,
    ) -> GatewayResult<Deleted> {
        let current = self
            .head_meta(&layout::head(&info.id, key))
            .await?
            .filter(|m| !m.delete_marker);
        match &current {
            Some(m) => {
                authorize(rq, Access::DeleteObject, &Target::stored(info, key, m))?;
                if !cond(m) {
                    return Ok(Deleted::default());
                }
            }
            None => authorize(rq, Access::DeleteObject, &Target::key(info, key))?,
        }
        let mtime = now_secs();
        let marker = ObjectMeta {
            mtime,
            owner: writer(rq, info).to_string(),
            tag: unique_id(),
            version_id: info.new_version(mtime)?,
            delete_marker: true,
            ..ObjectMeta::default()
        };
        let swap = Swap::Head {
            data: Bytes::new(),
            meta: &marker,
            conditions: &PutParams::default(),
        };
        self.commit(info, key, None, swap)
            .await?
            .finish(&[])
            .await?;
        Ok(Deleted {
            version_id: Some(marker.version_name().to_string()),
            delete_marker: true,
        })
    }

    /// Deletes version `v` (`versionId`; `null` too) of `key`: its entry
    /// unlisted, its object and tails removed; if it was the current
    /// version, the next one is made current first. A version that does
    /// not exist is nothing to delete; one under a retention or legal hold
    /// is refused (`bypass`: the request's
    /// `x-amz-bypass-governance-retention`).
    pub async fn delete_object_version(
        &self,
        rq: &Requester,
        (bucket, key, v): (&str, &str, &str),
        bypass: bool,
    ) -> GatewayResult<Deleted> {
        validate_key(key)?;
        check_version_id(v)?;
        if self.zone().is_some() {
            return Err(GatewayError::NotConfigured(
                "deleting a version on radosgw's layout: not written by this gateway (send it to radosgw)"
                    .into(),
            ));
        }
        let info = self.bucket_info_fresh(bucket).await?;
        let done = |marker: bool| Deleted {
            version_id: Some(v.to_string()),
            delete_marker: marker,
        };
        if info.versioning.is_none() {
            // every object of the bucket is its null version
            if v == NULL_VERSION {
                self.delete_current_if(rq, &info, key, |_| true).await?;
            } else {
                authorize(rq, Access::DeleteObjectVersion, &Target::key(&info, key))?;
            }
            return Ok(done(false));
        }
        let head_id = layout::head(&info.id, key);
        // the version to delete: the one asked for, then (see below) one
        // whose delete met this one
        let mut id = (v != NULL_VERSION).then(|| v.to_string());
        let mut answer = None;
        // whether the round before unlisted a noncurrent version it then
        // found changed
        let mut relist = false;
        for _ in 0..MAX_ROUNDS {
            let target = id.as_deref();
            let head = self.read_stored(&head_id).await?;
            if let Some(cur) = head.filter(|h| h.meta.is_version(target)) {
                if answer.is_none() {
                    authorize(
                        rq,
                        Access::DeleteObjectVersion,
                        &Target::stored(&info, key, &cur.meta),
                    )?;
                    self.check_removal_by(rq, (&info, key), &cur.meta, bypass)?;
                }
                let name = entry_name(key, &cur.meta.rank(), target);
                let next = match self.next_version(&info, key, &name).await? {
                    Some((next_id, _)) => {
                        let obj = layout::version(&info.id, next_id.as_deref(), key);
                        match self.read_stored(&obj).await? {
                            Some(n) => Some(n),
                            // deleted meanwhile: look again
                            None => continue,
                        }
                    }
                    None => None,
                };
                if !self.promote(&info.id, key, &cur, next.as_ref()).await? {
                    continue;
                }
                let own = next
                    .as_ref()
                    .filter(|n| !n.meta.delete_marker)
                    .map(|n| -> GatewayResult<Bytes> {
                        Ok(Bytes::from(serde_json::to_vec(&IndexEntry::from_meta(
                            &n.meta, true,
                        ))?))
                    })
                    .transpose()?;
                self.unlist_versions(&info, key, vec![(name, None), (key.to_string(), own)])
                    .await?;
                let wrote = next
                    .as_ref()
                    .filter(|n| !n.meta.delete_marker)
                    .map(|n| n.meta.tag.clone());
                self.settle_own_entry(&info, key, wrote).await?;
                // in the head now: its own object is a copy
                let promoted = match &next {
                    Some(n) => Some((n, self.remove_promoted(&info.id, key, n).await?)),
                    None => None,
                };
                // a copy of the deleted version a lost race left
                self.remove_copy(&info.id, key, (&cur.meta, None)).await?;
                self.retire(&info.id, key, &cur.meta.tails).await?;
                let answer = answer.get_or_insert(done(cur.meta.delete_marker));
                if let Some((n, CopyRemoval::Absent)) = promoted {
                    // a delete of the version just promoted removed its
                    // object first, and may have retired its tails before
                    // the promotion: that delete is finished here
                    id = n.meta.version_id.clone();
                    continue;
                }
                return Ok(answer.clone());
            }
            if let Some(answer) = answer {
                // the version promoted is current no more: its delete is done
                return Ok(answer);
            }
            let Some(old) = self
                .read_stored(&layout::version(&info.id, target, key))
                .await?
            else {
                authorize(rq, Access::DeleteObjectVersion, &Target::key(&info, key))?;
                return Ok(done(false));
            };
            authorize(
                rq,
                Access::DeleteObjectVersion,
                &Target::stored(&info, key, &old.meta),
            )?;
            let name = entry_name(key, &old.meta.rank(), target);
            if let Err(locked) = self.check_removal_by(rq, (&info, key), &old.meta, bypass) {
                if relist {
                    // unlisted by the round before: listed as it is
                    let entry = serde_json::to_vec(&IndexEntry::of_version(&old.meta))?;
                    self.unlist_versions(&info, key, vec![(name, Some(Bytes::from(entry)))])
                        .await?;
                }
                return Err(locked);
            }
            self.unlist_versions(&info, key, vec![(name, None)]).await?;
            match self
                .drop_noncurrent(&info.id, key, (&old.meta, Some(&old.raw)))
                .await?
            {
                Dropped::Yes => return Ok(done(old.meta.delete_marker)),
                // made current meanwhile: deleted as such next
                Dropped::Current => relist = false,
                // its record changed (a lock set on it, say): judged again
                Dropped::Changed => relist = true,
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Index updates of a delete (a bucket deleted meanwhile has nothing
    /// left to unlist).
    async fn unlist_versions(
        &self,
        info: &BucketInfo,
        key: &str,
        updates: Vec<(String, Option<Bytes>)>,
    ) -> GatewayResult<()> {
        match self.index_update_all(info, key, updates).await {
            Ok(()) | Err(GatewayError::Store(StoreError::NotFound)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Deletes the current object of an unversioned bucket if `cond`
    /// holds of it (an absent object is only unlisted); answers whether it
    /// deleted one. The head's removal is guarded on the version `cond`
    /// approved: a version written meanwhile is judged again, and one
    /// `cond` spares stays listed.
    async fn delete_current_if(
        &self,
        rq: &Requester,
        info: &BucketInfo,
        key: &str,
        cond: impl Fn(&ObjectMeta) -> bool,
    ) -> GatewayResult<bool> {
        let head_id = layout::head(&info.id, key);
        let mut unlisted = false;
        for _ in 0..MAX_ROUNDS {
            let Some((meta, marked)) = self.head_state(&head_id).await? else {
                authorize(rq, Access::DeleteObject, &Target::key(info, key))?;
                self.unindex(info, key).await?;
                return Ok(false);
            };
            authorize(rq, Access::DeleteObject, &Target::stored(info, key, &meta))?;
            if !cond(&meta) {
                if unlisted {
                    // the version that replaced the one unlisted below
                    self.index_committed(info, key, &meta, &[]).await?;
                }
                return Ok(false);
            }
            // index first: an object listed is always readable
            self.unindex(info, key).await?;
            unlisted = true;
            match self
                .store
                .write(&head_id, marked.unchanged(&meta.tag).remove())
                .await
            {
                Ok(_) => {
                    self.announce_write(&head_id, marked).await?;
                    self.retire(&info.id, key, &meta.tails).await?;
                    return Ok(true);
                }
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Deletes each key (and version, if one is named) as
    /// [`Gateway::delete_object`] and [`Gateway::delete_object_version`]
    /// do, [`crate::GatewayOptions::multi_delete_concurrency`] keys at a
    /// time (DeleteObjects: one after the other, each key's index update,
    /// head removal and tail retirement are round trips to the cluster),
    /// and one key's entries one after the other, in the order given (the
    /// versions of a key are deleted by rewriting its head). The results
    /// come in the keys' order; a key named twice is deleted twice, the
    /// second time finding it gone. `bypass`: the request's
    /// `x-amz-bypass-governance-retention`.
    pub async fn delete_objects(
        &self,
        rq: &Requester,
        bucket: &str,
        keys: Vec<(String, Option<String>)>,
        bypass: bool,
    ) -> Vec<(String, Option<String>, GatewayResult<Deleted>)> {
        let mut groups: Vec<Vec<(usize, String, Option<String>)>> = Vec::new();
        let mut group_of: std::collections::HashMap<String, usize> = Default::default();
        for (i, (key, version)) in keys.into_iter().enumerate() {
            let g = *group_of.entry(key.clone()).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push((i, key, version));
        }
        let mut done: Vec<_> = futures::stream::iter(groups)
            .map(|group| async move {
                let mut out = Vec::with_capacity(group.len());
                for (i, key, version) in group {
                    let r = match &version {
                        Some(v) => {
                            self.delete_object_version(rq, (bucket, &key, v), bypass)
                                .await
                        }
                        None => self.delete_object(rq, bucket, &key).await,
                    };
                    out.push((i, key, version, r));
                }
                out
            })
            .buffer_unordered(self.opts.multi_delete_concurrency.max(1))
            .flat_map(futures::stream::iter)
            .collect()
            .await;
        done.sort_by_key(|(i, ..)| *i);
        done.into_iter().map(|(_, k, v, r)| (k, v, r)).collect()
    }

    async fn unindex(&self, info: &BucketInfo, key: &str) -> GatewayResult<()> {
        match self.index_update(info, key, None).await {
            Ok(()) | Err(GatewayError::Store(StoreError::NotFound)) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
