//! The GC log as writers keep it (`model::gc`): a write logs its stripes
//! before it makes them or orphans them, and takes the entry off once
//! they are referenced or deleted; what a crash leaves there, the
//! collector (`workers::gc`) finishes.

use bytes::Bytes;
use rsgw_store::{StoreError, WriteOp};

use crate::engine::Engine;
use crate::model::error::GatewayResult;
use crate::model::gc::{GcEntry, GcKind};
use crate::model::ids::now_secs;
use crate::model::layout;
use crate::model::object::Tail;

impl Engine {
    /// Logs `entry` under the write tag `tag` (replacing what was logged
    /// under it).
    pub(crate) async fn gc_note(&self, tag: &str, entry: &GcEntry) -> GatewayResult<()> {
        let v = Bytes::from(serde_json::to_vec(entry)?);
        self.store
            .write(&layout::gc_log(), WriteOp::new().omap_set([(tag, v)]))
            .await?;
        Ok(())
    }

    /// Takes the entry of `tag` off the log (none is fine).
    pub(crate) async fn gc_forget(&self, tag: &str) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::gc_log(), WriteOp::new().omap_rm([tag]))
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes stripes `0..count` (or until one is missing) of a tag.
    pub(crate) async fn delete_stripes(
        &self,
        bucket_id: &str,
        tag: &str,
        count: Option<u64>,
    ) -> GatewayResult<u64> {
        let mut n = 0;
        loop {
            if count.is_some_and(|c| n >= c) {
                return Ok(n);
            }
            match self
                .store
                .write(&layout::stripe(bucket_id, tag, n), WriteOp::new().remove())
                .await
            {
                Ok(_) => n += 1,
                Err(StoreError::NotFound) if count.is_none() => return Ok(n),
                Err(StoreError::NotFound) => n += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Retires the stripes of a replaced or deleted version (or of parts no
    /// object took): logged first, so a crash halfway leaves work for the
    /// collector, not leaked objects.
    pub(crate) async fn retire(
        &self,
        bucket_id: &str,
        key: &str,
        tails: &[Tail],
    ) -> GatewayResult<()> {
        for tail in tails.iter().filter(|t| t.size > 0) {
            self.gc_note(
                &tail.tag,
                &GcEntry {
                    kind: GcKind::Replaced,
                    bucket_id: bucket_id.into(),
                    key: key.into(),
                    stripes: Some(tail.stripes()),
                    time: now_secs(),
                },
            )
            .await?;
            self.delete_stripes(bucket_id, &tail.tag, Some(tail.stripes()))
                .await?;
            self.gc_forget(&tail.tag).await?;
        }
        Ok(())
    }
}
