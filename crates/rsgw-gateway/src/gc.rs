//! The garbage collector: finishes what interrupted writes and deletes left
//! in the GC log (`meta/gc/log` omap, one entry per write tag).

use rsgw_store::{ReadOp, StoreError};

use crate::ids::now_secs;
use crate::objects::GcEntry;
use crate::{Gateway, GatewayResult, layout};

/// What one collection pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Log entries looked at.
    pub entries: u64,
    /// Entries finished and removed.
    pub collected: u64,
    /// Stripe objects deleted.
    pub stripes_deleted: u64,
    /// Uploads young enough to be still running, left alone.
    pub in_progress: u64,
}

impl Gateway {
    /// One pass over the GC log. Stripes of replaced or deleted versions are
    /// removed at once; stripes of an upload only once it is older than
    /// `min_age` (younger ones may still be streaming) and no head
    /// references its tag.
    pub async fn collect_garbage(&self, min_age: std::time::Duration) -> GatewayResult<GcReport> {
        let mut report = GcReport::default();
        let mut after = String::new();
        loop {
            let page = match self
                .store
                .read(
                    &layout::gc_log(),
                    ReadOp::new().omap(after.clone(), "", 1000),
                )
                .await
            {
                Err(StoreError::NotFound) => return Ok(report),
                r => r?.omap.unwrap_or_default(),
            };
            for (tag, value) in &page.entries {
                after = tag.clone();
                report.entries += 1;
                let entry: GcEntry = serde_json::from_slice(value)?;
                if entry.kind == "replacing" {
                    let head = layout::head(&entry.bucket_id, &entry.key);
                    let current = match self.store.read(&head, ReadOp::new().xattrs()).await {
                        Ok(r) => r.xattrs.unwrap_or_default().get(layout::TAG_XATTR).cloned(),
                        Err(StoreError::NotFound) => None,
                        Err(e) => return Err(e.into()),
                    };
                    if current.is_some()
                        && current.as_deref() == entry.while_head.as_deref().map(str::as_bytes)
                    {
                        // the replacing write never committed: still live
                        self.gc_forget(tag).await?;
                        report.collected += 1;
                        continue;
                    }
                }
                if entry.kind == "upload" {
                    if now_secs() - entry.time < min_age.as_secs_f64() {
                        report.in_progress += 1;
                        continue;
                    }
                    if let Some((upload_id, number)) = &entry.part_of {
                        if self.part_committed(upload_id, *number, tag).await? {
                            self.gc_forget(tag).await?;
                            report.collected += 1;
                            continue;
                        }
                    } else {
                        let head = layout::head(&entry.bucket_id, &entry.key);
                        let current = match self.store.read(&head, ReadOp::new().xattrs()).await {
                            Ok(r) => r.xattrs.unwrap_or_default().get(layout::TAG_XATTR).cloned(),
                            Err(StoreError::NotFound) => None,
                            Err(e) => return Err(e.into()),
                        };
                        if current.as_deref() == Some(tag.as_bytes()) {
                            // the write committed; only its log entry was left
                            self.gc_forget(tag).await?;
                            report.collected += 1;
                            continue;
                        }
                    }
                }
                report.stripes_deleted += self
                    .delete_stripes(&entry.bucket_id, tag, entry.stripes)
                    .await?;
                self.gc_forget(tag).await?;
                report.collected += 1;
            }
            if !page.more {
                return Ok(report);
            }
        }
    }
}
