//! Versions in a versioned bucket (docs/layout.md#versions): the key's head
//! holds its current version as in any bucket, so that a GET of it stays
//! one read; a version that stops being current is copied, head chunk and
//! record, to its own object (`layout::version`), its tails shared. Every
//! version has an index entry (`model::versioning`), the key's own entry
//! names the current version unless that is a delete marker.
//!
//! - **Placing** a new version ([`Engine::place_version`]): if the head
//!   holds a newer version (a concurrent writer's), the new one is written
//!   to its own object and is noncurrent at once; otherwise the head's
//!   version is copied to its object (the `null` version written over the
//!   `null` one replaces it instead) and the head is swapped, guarded by its
//!   tag as every head write. A copy left by a swap that lost its race is
//!   the same version's and is written again by the next try.
//! - **Listing** it ([`Engine::index_version`]): the new version's entry,
//!   the key's own entry, the entry of the version made noncurrent and
//!   the removal of the replaced `null` one's, in one atomic index write;
//!   then the key's own entry is settled against the head
//!   ([`Engine::settle_own_entry`]): the index writes of two writers may
//!   land in the other order than their head writes.
//! - **Promoting** ([`Engine::promote`]): when the current version is
//!   deleted, the next one is copied into the head, guarded by the
//!   deleted version's tag, and its own object removed after.

use bytes::Bytes;
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};

use crate::engine::Engine;
use crate::engine::heads::{Marked, laid_out, over};
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::gc::{GcEntry, GcKind};
use crate::model::ids::now_secs;
use crate::model::index::IndexEntry;
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
use crate::model::object::{ObjectMeta, parse_meta};
use crate::model::params::PutParams;
use crate::model::versioning::{entries_of, entry_name, parse_entry_name};
use crate::rules::preconditions::check_put_conditions;

/// A version as stored (in the head or in its own object): its record,
/// the record's bytes, its head data and the cache's mark.
pub(crate) struct StoredVersion {
    /// Its record.
    pub(crate) meta: ObjectMeta,
    /// The record as stored (`rsgw.obj`).
    pub(crate) raw: Bytes,
    /// Its head data.
    pub(crate) data: Bytes,
    /// Whether the object carries the object cache's mark.
    pub(crate) marked: Marked,
}

/// What a guarded removal of a version's object (or head) found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyRemoval {
    /// The version's object, removed.
    Removed,
    /// No object: a delete of the version removed it first.
    Absent,
    /// An object of another write of the version (a later copy), kept.
    Other,
}

/// What [`Engine::drop_noncurrent`] did with a noncurrent version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// Removed, its tails retired.
    Yes,
    /// Left: it is the key's current version now.
    Current,
    /// Left: its object holds another write of it, or another record.
    Changed,
}

/// Where a new version went.
#[derive(Debug)]
pub(crate) struct Placed {
    /// It is the key's current version (in the head).
    pub(crate) current: bool,
    /// The version it made noncurrent (copied to its own object).
    pub(crate) demoted: Option<ObjectMeta>,
    /// The `null` version it replaced, and whether that was noncurrent
    /// (in its own object, removed once the index no longer lists it).
    pub(crate) replaced_null: Option<(ObjectMeta, bool)>,
}

/// The order of versions: `a` is newer than `b`.
fn newer(a: &ObjectMeta, b: &ObjectMeta) -> bool {
    (a.rank(), a.version_name()) < (b.rank(), b.version_name())
}

/// The JSON of an index entry.
fn entry_bytes(e: &IndexEntry) -> GatewayResult<Bytes> {
    Ok(Bytes::from(serde_json::to_vec(e)?))
}

impl Engine {
    /// A version as stored in `obj` (`None`: no such object).
    pub(crate) async fn read_stored(&self, obj: &ObjectId) -> GatewayResult<Option<StoredVersion>> {
        match self
            .store
            .read(obj, ReadOp::new().xattrs().read(0, self.opts.chunk_size))
            .await
        {
            Ok(r) => {
                let xattrs = r.xattrs.unwrap_or_default();
                let meta = parse_meta(&xattrs)?;
                let raw = xattrs.get(layout::META_XATTR).cloned().unwrap_or_default();
                Ok(Some(StoredVersion {
                    meta,
                    raw,
                    data: r.data.unwrap_or_default(),
                    marked: Marked::of(&xattrs),
                }))
            }
            Err(StoreError::NotFound) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Version `id` (`None`: `null`) of `key`: the head's if it is that
    /// version, else its own object's (`None`: no such version).
    pub(crate) async fn read_version(
        &self,
        bucket_id: &str,
        key: &str,
        id: Option<&str>,
    ) -> GatewayResult<Option<StoredVersion>> {
        let head = layout::head(bucket_id, key);
        let own = layout::version(bucket_id, id, key);
        for _ in 0..MAX_ROUNDS {
            let cur = self.read_stored(&head).await?;
            if let Some(v) = cur.as_ref().filter(|v| v.meta.is_version(id)) {
                return Ok(Some(StoredVersion {
                    meta: v.meta.clone(),
                    raw: v.raw.clone(),
                    data: v.data.clone(),
                    marked: v.marked,
                }));
            }
            match self.read_stored(&own).await? {
                Some(v) => return Ok(Some(v)),
                None => {
                    // promoted into the head between the two reads?
                    let again = self.read_stored(&head).await?;
                    let same = match (&cur, &again) {
                        (Some(a), Some(b)) => a.meta.tag == b.meta.tag,
                        (None, None) => true,
                        _ => false,
                    };
                    if same {
                        return Ok(None);
                    }
                }
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Writes `v` to the object of its version (a copy: the same version
    /// whatever was there).
    async fn write_own(&self, bucket_id: &str, key: &str, v: &StoredVersion) -> GatewayResult<()> {
        let obj = layout::version(bucket_id, v.meta.version_id.as_deref(), key);
        self.store
            .write(
                &obj,
                laid_out(WriteOp::new(), v.data.clone(), v.raw.clone(), &v.meta.tag),
            )
            .await?;
        Ok(())
    }

    /// Step 2 of the commit protocol in a versioned bucket (module
    /// documentation): places the version `meta` with head data `data`,
    /// if the key's current version passes `params`' conditions.
    pub(crate) async fn place_version(
        &self,
        bucket_id: &str,
        key: &str,
        params: &PutParams,
        data: Bytes,
        meta: &ObjectMeta,
    ) -> GatewayResult<Placed> {
        let head_id = layout::head(bucket_id, key);
        let json = Bytes::from(serde_json::to_vec(meta)?);
        let new = StoredVersion {
            meta: meta.clone(),
            raw: json.clone(),
            data: data.clone(),
            marked: Marked(false),
        };
        let new_null = meta.version_id.is_none();
        for _ in 0..MAX_ROUNDS {
            let cur = self.read_stored(&head_id).await?;
            check_put_conditions(
                params,
                cur.as_ref().map(|c| &c.meta).filter(|m| !m.delete_marker),
            )?;
            let null_over_null =
                new_null && cur.as_ref().is_some_and(|c| c.meta.version_id.is_none());
            if !null_over_null && cur.as_ref().is_some_and(|c| newer(&c.meta, meta)) {
                // a newer version is current: this one goes beside it
                let replaced_null = if new_null {
                    self.read_stored(&layout::version(bucket_id, None, key))
                        .await?
                        .map(|v| (v.meta, true))
                } else {
                    None
                };
                self.write_own(bucket_id, key, &new).await?;
                return Ok(Placed {
                    current: false,
                    demoted: None,
                    replaced_null,
                });
            }
            let (mut demoted, mut replaced_null) = (None, None);
            match &cur {
                Some(c) if null_over_null => {
                    // its stripes, logged before the head changes
                    self.log_replacing(bucket_id, key, &c.meta).await?;
                    replaced_null = Some((c.meta.clone(), false));
                }
                Some(c) => {
                    self.write_own(bucket_id, key, c).await?;
                    demoted = Some(c.meta.clone());
                }
                None => {}
            }
            if new_null && replaced_null.is_none() {
                replaced_null = self
                    .read_stored(&layout::version(bucket_id, None, key))
                    .await?
                    .map(|v| (v.meta, true));
            }
            let marked = cur.as_ref().map_or(Marked(false), |c| c.marked);
            let mut guard = over(cur.as_ref().map(|c| (c.meta.tag.as_str(), marked)));
            if let Some(c) = &cur {
                // the record copied above: a change of it since (a
                // retention, tags) fails the swap, and the copy is made anew
                guard = guard.cmp_xattr(layout::META_XATTR, CmpOp::Eq, c.raw.clone());
            }
            let op = laid_out(guard, data.clone(), json.clone(), &meta.tag);
            match self.store.write(&head_id, op).await {
                Ok(_) => {
                    self.announce_write(&head_id, marked).await?;
                    return Ok(Placed {
                        current: true,
                        demoted,
                        replaced_null,
                    });
                }
                Err(StoreError::GuardFailed(_) | StoreError::Exists | StoreError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Logs the tails of `old`, about to be replaced in the head, as
    /// `replacing` (garbage once the head no longer carries its tag).
    pub(crate) async fn log_replacing(
        &self,
        bucket_id: &str,
        key: &str,
        old: &ObjectMeta,
    ) -> GatewayResult<()> {
        for tail in old.tails.iter().filter(|t| t.size > 0) {
            self.gc_note(
                &tail.tag,
                &GcEntry {
                    kind: GcKind::Replacing {
                        while_head: old.tag.clone(),
                    },
                    bucket_id: bucket_id.into(),
                    key: key.into(),
                    stripes: Some(tail.stripes()),
                    time: now_secs(),
                },
            )
            .await?;
        }
        Ok(())
    }

    /// Step 3 in a versioned bucket: lists a placed version (module
    /// documentation) in one index write, then, if it was placed current,
    /// settles the key's own entry against the head (a newer writer's
    /// index write may have landed first). If the bucket was deleted
    /// meanwhile, the version is taken back and the write fails with
    /// `NoSuchBucket`.
    pub(crate) async fn index_version(
        &self,
        info: &BucketInfo,
        key: &str,
        meta: &ObjectMeta,
        placed: &Placed,
    ) -> GatewayResult<()> {
        let name = |m: &ObjectMeta| entry_name(key, &m.rank(), m.version_id.as_deref());
        let mut updates = vec![(
            name(meta),
            Some(entry_bytes(&IndexEntry::of_version(meta))?),
        )];
        if placed.current {
            let own = (!meta.delete_marker)
                .then(|| entry_bytes(&IndexEntry::from_meta(meta, true)))
                .transpose()?;
            updates.push((key.to_string(), own));
        }
        if let Some(d) = &placed.demoted {
            updates.push((name(d), Some(entry_bytes(&IndexEntry::of_version(d))?)));
        }
        if let Some((n, _)) = &placed.replaced_null {
            updates.push((name(n), None));
        }
        match self.index_update_all(info, key, updates).await {
            Ok(()) if placed.current => {
                let wrote = (!meta.delete_marker).then(|| meta.tag.clone());
                self.settle_own_entry(info, key, wrote).await
            }
            Err(GatewayError::Store(StoreError::NotFound)) => {
                for obj in [
                    layout::head(&info.id, key),
                    layout::version(&info.id, meta.version_id.as_deref(), key),
                ] {
                    self.remove_tagged(&obj, &meta.tag, None).await?;
                }
                self.retire(&info.id, key, &meta.tails).await?;
                Err(GatewayError::NoSuchBucket)
            }
            r => r,
        }
    }

    /// Removes `obj` (a head or a version's object) if it carries the
    /// write tag `tag` and, if one is given, the record `record` (so that
    /// a change of the version's record, a legal hold say, is not lost).
    async fn remove_tagged(
        &self,
        obj: &ObjectId,
        tag: &str,
        record: Option<&Bytes>,
    ) -> GatewayResult<CopyRemoval> {
        let mut op = WriteOp::new().cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, tag.to_string());
        if let Some(raw) = record {
            op = op.cmp_xattr(layout::META_XATTR, CmpOp::Eq, raw.clone());
        }
        match self.store.write(obj, op.remove()).await {
            Ok(_) => Ok(CopyRemoval::Removed),
            Err(StoreError::NotFound) => Ok(CopyRemoval::Absent),
            Err(StoreError::GuardFailed(_)) => Ok(CopyRemoval::Other),
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the object of version `meta` if it still holds that
    /// version (its tag) and, if given, the record `record`.
    pub(crate) async fn remove_copy(
        &self,
        bucket_id: &str,
        key: &str,
        (meta, record): (&ObjectMeta, Option<&Bytes>),
    ) -> GatewayResult<CopyRemoval> {
        let obj = layout::version(bucket_id, meta.version_id.as_deref(), key);
        self.remove_tagged(&obj, &meta.tag, record).await
    }

    /// Removes the object of version `n`, just promoted into the head. If
    /// its record changed since the promotion read it (a retention, a
    /// legal hold, tags set on the version meanwhile), the head takes the
    /// changed record first, so that the change is kept.
    pub(crate) async fn remove_promoted(
        &self,
        bucket_id: &str,
        key: &str,
        n: &StoredVersion,
    ) -> GatewayResult<CopyRemoval> {
        let obj = layout::version(bucket_id, n.meta.version_id.as_deref(), key);
        let head_id = layout::head(bucket_id, key);
        let mut raw = n.raw.clone();
        for _ in 0..MAX_ROUNDS {
            let op = WriteOp::new()
                .cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, n.meta.tag.clone())
                .cmp_xattr(layout::META_XATTR, CmpOp::Eq, raw.clone())
                .remove();
            match self.store.write(&obj, op).await {
                Ok(_) => return Ok(CopyRemoval::Removed),
                Err(StoreError::NotFound) => return Ok(CopyRemoval::Absent),
                Err(StoreError::GuardFailed(_)) => {}
                Err(e) => return Err(e.into()),
            }
            let Some(own) = self.read_record(&obj).await? else {
                return Ok(CopyRemoval::Absent);
            };
            let head = self.read_record(&head_id).await?;
            let Some(head) =
                head.filter(|h| h.meta.tag == n.meta.tag && own.meta.tag == n.meta.tag)
            else {
                // another write of the version, or the version is no
                // longer current: its object stays
                return Ok(CopyRemoval::Other);
            };
            if head.raw != own.raw {
                let op = head
                    .marked
                    .unchanged(&head.meta.tag)
                    .cmp_xattr(layout::META_XATTR, CmpOp::Eq, head.raw)
                    .set_xattr(layout::META_XATTR, own.raw.clone());
                match self.store.write(&head_id, op).await {
                    Ok(_) => self.announce_write(&head_id, head.marked).await?,
                    Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                    Err(e) => return Err(e.into()),
                }
            }
            raw = own.raw;
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Removes the object of a noncurrent version whose index entry is
    /// gone, then retires its tails, unless the version became the key's
    /// current one meanwhile (promoted into the head) or, `record` given,
    /// its record is another.
    pub(crate) async fn drop_noncurrent(
        &self,
        bucket_id: &str,
        key: &str,
        (meta, record): (&ObjectMeta, Option<&Bytes>),
    ) -> GatewayResult<Dropped> {
        if self.remove_copy(bucket_id, key, (meta, record)).await? == CopyRemoval::Other {
            // another copy of the version (its tails are that one's too),
            // or its record changed
            return Ok(Dropped::Changed);
        }
        if self
            .head_meta(&layout::head(bucket_id, key))
            .await?
            .is_some_and(|h| h.tag == meta.tag)
        {
            return Ok(Dropped::Current);
        }
        self.retire(bucket_id, key, &meta.tails).await?;
        Ok(Dropped::Yes)
    }

    /// Lists the key's own entry as its head now says (the current version,
    /// none for a delete marker or no head), `wrote` being what the caller
    /// last wrote there: writers of the entry race after their head
    /// writes, so each one, after its own, reads the head again and, if it
    /// differs, writes the entry anew. The last of them to write reads the
    /// head as it stays.
    pub(crate) async fn settle_own_entry(
        &self,
        info: &BucketInfo,
        key: &str,
        mut wrote: Option<String>,
    ) -> GatewayResult<()> {
        let head_id = layout::head(&info.id, key);
        for _ in 0..MAX_ROUNDS {
            let current = self.head_meta(&head_id).await?.filter(|m| !m.delete_marker);
            let tag = current.as_ref().map(|m| m.tag.clone());
            if tag == wrote {
                return Ok(());
            }
            let entry = current
                .as_ref()
                .map(|m| entry_bytes(&IndexEntry::from_meta(m, true)))
                .transpose()?;
            match self.index_update(info, key, entry).await {
                Ok(()) => wrote = tag,
                Err(GatewayError::Store(StoreError::NotFound)) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// The newest version of `key` after version `after` (by its entry's
    /// name), as its index entry lists it: its id and whether it is a
    /// delete marker.
    pub(crate) async fn next_version(
        &self,
        info: &BucketInfo,
        key: &str,
        after: &str,
    ) -> GatewayResult<Option<(Option<String>, IndexEntry)>> {
        let page = self
            .store
            .read(
                &info.index_of(key),
                ReadOp::new().omap(after, entries_of(key), 1),
            )
            .await?
            .omap
            .unwrap_or_default();
        let Some((name, value)) = page.entries.into_iter().next() else {
            return Ok(None);
        };
        let id = parse_entry_name(&name)
            .ok_or_else(|| GatewayError::Corrupt(format!("version entry {name:?}")))?
            .2
            .map(str::to_string);
        Ok(Some((id, serde_json::from_slice(&value)?)))
    }

    /// Makes `next` (a noncurrent version, as stored) the key's current
    /// one in place of `current` (the head's, whose tag and record guard
    /// the swap: a lock set on it meanwhile is judged again);
    /// `None`: the key has no version left, and the head goes. Answers
    /// whether the head changed (a lost race: read again).
    pub(crate) async fn promote(
        &self,
        bucket_id: &str,
        key: &str,
        current: &StoredVersion,
        next: Option<&StoredVersion>,
    ) -> GatewayResult<bool> {
        let head_id = layout::head(bucket_id, key);
        let guarded = current.marked.unchanged(&current.meta.tag).cmp_xattr(
            layout::META_XATTR,
            CmpOp::Eq,
            current.raw.clone(),
        );
        let op = match next {
            Some(n) => laid_out(guarded, n.data.clone(), n.raw.clone(), &n.meta.tag),
            None => guarded.remove(),
        };
        match self.store.write(&head_id, op).await {
            Ok(_) => {
                self.announce_write(&head_id, current.marked).await?;
                Ok(true)
            }
            Err(StoreError::GuardFailed(_) | StoreError::NotFound) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}
