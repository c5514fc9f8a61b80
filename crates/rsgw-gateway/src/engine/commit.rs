//! The commit protocol: the one way a write makes data visible, shared by
//! PutObject (and CopyObject, POST object), UploadPart (and
//! UploadPartCopy) and CompleteMultipartUpload. Its steps, in order:
//!
//! 1. **The quota pass**: the write is admitted under the bucket's and its
//!    owner's quotas; a write that lists an object holds this instance's
//!    turn under them until it is listed and cleaned up (`engine::quota`).
//! 2. **The swap**: one guarded write makes the new data visible
//!    ([`Swap`]): the head replaced, guarded by the tag of the version it
//!    replaces (whose tails are logged as `replacing` first), or a part
//!    recorded in its upload. If the pass or the swap fails, the stripes
//!    the write streamed are removed (the abort) and the error returned:
//!    nothing else was touched.
//! 3. **The index**: a new version is listed in its index shard (which
//!    takes it back if the bucket is gone meanwhile).
//! 4. **The clean-up** ([`Committed::finish`]), once the operation's own
//!    steps are done (a completion drops its upload record): the write's
//!    GC log entry is taken off (its stripes are referenced now), then what
//!    the write left unreferenced is retired (the parts a completion left
//!    out, then what the new data replaced: the old version's tails, or a
//!    part uploaded before under the same number).
//!
//! Invariant: an object listed in the index can be read; a crash between
//! two steps leaves entries in the GC log, never stripes that nothing
//! names (docs/layout.md#writing-without-ever-exposing-a-partial-object).

use bytes::Bytes;
use rsgw_store::{CmpOp, ReadOp, StoreError, WriteOp};

use crate::cache::meta::Change;
use crate::engine::Engine;
use crate::engine::heads::{Marked, laid_out, over};
use crate::engine::quota::QuotaPass;
use crate::engine::versions::Placed;
use crate::engine::write::Stripes;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::{IndexEntry, Usage};
use crate::model::layout;
use crate::model::limits::MAX_ROUNDS;
use crate::model::object::{ObjectMeta, Tail};
use crate::model::params::PutParams;
use crate::model::upload::{PartInfo, part_key};
use crate::rules::preconditions::check_put_conditions;

/// The write that makes a commit's data visible.
pub(crate) enum Swap<'a> {
    /// A new version of the key: its head replaced by `data` and `meta`,
    /// if the key's current version passes `conditions` (If-Match,
    /// If-None-Match) as the head is swapped.
    Head {
        /// The head's data (the body's first chunk; none for a multipart
        /// object).
        data: Bytes,
        /// The new version's record.
        meta: &'a ObjectMeta,
        /// The conditions on the version replaced.
        conditions: &'a PutParams,
    },
    /// A part recorded in its upload (replacing one of the same number).
    Part {
        /// The upload.
        upload_id: &'a str,
        /// The part.
        part: &'a PartInfo,
    },
}

impl Swap<'_> {
    /// What the write adds under the quotas: an object and its bytes, or a
    /// part's bytes.
    fn usage(&self) -> Usage {
        match self {
            // a delete marker holds nothing: deletes pass any quota
            Swap::Head { meta, .. } if meta.delete_marker => Usage::default(),
            Swap::Head { meta, .. } => Usage {
                objects: 1,
                bytes: meta.size,
            },
            Swap::Part { part, .. } => Usage {
                objects: 0,
                bytes: part.size,
            },
        }
    }

    /// Whether a failed swap is aborted: a head swap whatever its failure;
    /// a part's record only when its upload is gone. After another failure
    /// of the record's write it may hold the part, and the collector, which
    /// reads the record, removes the stripes only if not.
    fn aborts(&self, e: &GatewayError) -> bool {
        match self {
            Swap::Head { .. } => true,
            Swap::Part { .. } => matches!(e, GatewayError::NoSuchUpload),
        }
    }
}

/// A commit made visible and listed: the clean-up is left
/// ([`Committed::finish`]). Holds the write's quota turn until then.
#[must_use = "a commit is cleaned up by `finish`; else the collector does it, later"]
pub(crate) struct Committed<'a> {
    engine: &'a Engine,
    bucket_id: &'a str,
    key: &'a str,
    written: Option<&'a Stripes>,
    /// What the new data replaced: to retire.
    replaced: Vec<Tail>,
    /// A noncurrent `null` version the new one replaced, no longer listed:
    /// its object and tails to remove.
    replaced_null: Option<ObjectMeta>,
    _pass: QuotaPass<'a>,
}

/// What a swap replaced.
enum Swapped {
    /// The tails of the version or part it replaced.
    Tails(Vec<Tail>),
    /// Where the new version went, in a versioned bucket.
    Version(Box<Placed>),
}

impl Committed<'_> {
    /// The clean-up: the write's GC log entry taken off, then `left_out`
    /// (stripes the write leaves unreferenced besides what it replaced:
    /// the parts a completion did not take) and what the new data
    /// replaced retired.
    pub(crate) async fn finish(self, left_out: &[Tail]) -> GatewayResult<()> {
        let engine = self.engine;
        if let Some(w) = self.written.filter(|w| w.count > 0) {
            engine.gc_forget(&w.tag).await?;
        }
        engine.retire(self.bucket_id, self.key, left_out).await?;
        if let Some(null) = &self.replaced_null {
            engine
                .drop_noncurrent(self.bucket_id, self.key, (null, None))
                .await?;
        }
        engine
            .retire(self.bucket_id, self.key, &self.replaced)
            .await
    }
}

impl Engine {
    /// Steps 1 to 3 of the protocol (see the module documentation) for a
    /// write to `key` in `info`'s bucket whose body streamed `written`
    /// (`None`: a completion, whose parts are committed already).
    pub(crate) async fn commit<'a>(
        &'a self,
        info: &'a BucketInfo,
        key: &'a str,
        written: Option<&'a Stripes>,
        swap: Swap<'_>,
    ) -> GatewayResult<Committed<'a>> {
        let lists = matches!(swap, Swap::Head { .. });
        let swapped = match self.quota_pass(info, swap.usage(), lists).await {
            Ok(pass) => match self.swap(info, key, &swap).await {
                Ok(replaced) => Ok((pass, replaced)),
                Err(e) => Err((swap.aborts(&e), e)),
            },
            Err(e) => Err((true, e)),
        };
        let (pass, swapped) = match swapped {
            Ok(done) => done,
            Err((abort, e)) => {
                if let Some(w) = written.filter(|_| abort) {
                    self.abort_write(&info.id, &w.tag, w.count).await?;
                }
                return Err(e);
            }
        };
        let (replaced, replaced_null) = match (&swap, swapped) {
            (Swap::Head { meta, .. }, Swapped::Tails(replaced)) => {
                self.index_committed(info, key, meta, &replaced).await?;
                (replaced, None)
            }
            (Swap::Head { meta, .. }, Swapped::Version(placed)) => {
                self.index_version(info, key, meta, &placed).await?;
                match placed.replaced_null {
                    Some((null, true)) => (Vec::new(), Some(null)),
                    Some((null, false)) => (null.tails, None),
                    None => (Vec::new(), None),
                }
            }
            (Swap::Part { .. }, Swapped::Tails(replaced)) => (replaced, None),
            (Swap::Part { .. }, Swapped::Version(_)) => {
                return Err(GatewayError::Corrupt("a part placed as a version".into()));
            }
        };
        Ok(Committed {
            engine: self,
            bucket_id: &info.id,
            key,
            written,
            replaced,
            replaced_null,
            _pass: pass,
        })
    }

    /// Step 2: the swap; answers what it replaced.
    async fn swap(&self, info: &BucketInfo, key: &str, swap: &Swap<'_>) -> GatewayResult<Swapped> {
        match swap {
            Swap::Head {
                data,
                meta,
                conditions,
            } if info.versioning.is_some() => self
                .place_version(&info.id, key, conditions, data.clone(), meta)
                .await
                .map(|p| Swapped::Version(Box::new(p))),
            Swap::Head {
                data,
                meta,
                conditions,
            } => {
                let replaced = self
                    .commit_head(&info.id, key, conditions, data.clone(), meta)
                    .await?;
                Ok(Swapped::Tails(
                    replaced.map_or_else(Vec::new, |old| old.tails),
                ))
            }
            Swap::Part { upload_id, part } => {
                self.record_part(upload_id, part).await.map(Swapped::Tails)
            }
        }
    }

    /// Records `part` in its upload's record (the upload must exist:
    /// `NoSuchUpload` otherwise); answers the tail of the part it replaced.
    async fn record_part(&self, upload_id: &str, part: &PartInfo) -> GatewayResult<Vec<Tail>> {
        let upload_obj = layout::upload(upload_id);
        let previous = self
            .store
            .read(
                &upload_obj,
                ReadOp::new().omap_keys([part_key(part.number)]),
            )
            .await
            .ok()
            .and_then(|r| r.omap_keys?.remove(&part_key(part.number)))
            .and_then(|v| serde_json::from_slice::<PartInfo>(&v).ok());
        let recorded = self
            .store
            .write(
                &upload_obj,
                WriteOp::new().assert_exists().omap_set([(
                    part_key(part.number),
                    Bytes::from(serde_json::to_vec(part)?),
                )]),
            )
            .await;
        match recorded {
            Ok(_) => Ok(previous.map_or_else(Vec::new, |old| vec![old.tail])),
            Err(StoreError::NotFound) => Err(GatewayError::NoSuchUpload),
            Err(e) => Err(e.into()),
        }
    }

    /// Step 3: lists a committed version in the bucket's index, `replaced`
    /// the tails of the version it replaced. The index must
    /// still exist: if the bucket was deleted while the object was being
    /// written, the version is taken back (head and stripes, and those of
    /// the version it replaced) and the write fails with `NoSuchBucket`,
    /// instead of leaving an object no bucket holds.
    pub(crate) async fn index_committed(
        &self,
        info: &BucketInfo,
        key: &str,
        meta: &ObjectMeta,
        replaced: &[Tail],
    ) -> GatewayResult<()> {
        let entry = Bytes::from(serde_json::to_vec(&IndexEntry::from_meta(meta, false))?);
        match self.index_update(info, key, Some(entry)).await {
            Ok(()) => Ok(()),
            Err(GatewayError::Store(StoreError::NotFound)) => {
                match self
                    .store
                    .write(
                        &layout::head(&info.id, key),
                        WriteOp::new()
                            .cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, meta.tag.clone())
                            .remove(),
                    )
                    .await
                {
                    Ok(_) => {
                        // another instance may have cached the version
                        // taken back (rare: no need to know whether)
                        self.announce(Change::Object(layout::head(&info.id, key).name))
                            .await?;
                    }
                    Err(StoreError::NotFound | StoreError::GuardFailed(_)) => {}
                    Err(e) => return Err(e.into()),
                }
                self.retire(&info.id, key, &meta.tails).await?;
                self.retire(&info.id, key, replaced).await?;
                self.cache
                    .invalidate(Some(&Change::Bucket(info.name.clone())));
                Err(GatewayError::NoSuchBucket)
            }
            Err(e) => Err(e),
        }
    }

    /// Replaces the head atomically, guarded by the tag of the version it
    /// replaces (`params`' conditions checked on that version); returns
    /// that version's metadata.
    async fn commit_head(
        &self,
        bucket_id: &str,
        key: &str,
        params: &PutParams,
        data: Bytes,
        meta: &ObjectMeta,
    ) -> GatewayResult<Option<ObjectMeta>> {
        let head_id = &layout::head(bucket_id, key);
        let json = Bytes::from(serde_json::to_vec(meta)?);
        for _ in 0..MAX_ROUNDS {
            let state = self.head_state(head_id).await?;
            let marked = state.as_ref().map_or(Marked(false), |s| s.1);
            let cur = state.map(|(meta, _)| meta);
            check_put_conditions(params, cur.as_ref())?;
            if let Some(old) = &cur {
                // the stripes this commit will orphan, logged before it
                self.log_replacing(bucket_id, key, old).await?;
            }
            let op = laid_out(
                over(cur.as_ref().map(|m| (m.tag.as_str(), marked))),
                data.clone(),
                json.clone(),
                &meta.tag,
            );
            match self.store.write(head_id, op).await {
                Ok(_) => {
                    self.announce_write(head_id, marked).await?;
                    return Ok(cur);
                }
                Err(StoreError::GuardFailed(_) | StoreError::Exists | StoreError::NotFound) => {
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }
}
