//! Heads read and written under their guards: an object's head carries
//! its record (`rsgw.obj`), the tag of the write that made it
//! (`rsgw.tag`, which guards the next write) and, once an instance wanted
//! it in its object cache, the mark `rsgw.cached`, which makes every later
//! write of it announce itself (docs/layout.md#the-object-cache).

use std::collections::BTreeMap;

use bytes::Bytes;
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};

use crate::cache::meta::Change;
use crate::engine::Engine;
use crate::model::error::GatewayResult;
use crate::model::layout;
use crate::model::object::{ObjectMeta, parse_meta};

/// Whether a head carries the object cache's mark
/// ([`layout::CACHED_XATTR`]): some instance may hold it in memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marked(pub(crate) bool);

impl Marked {
    /// Whether the head whose xattrs these are is marked.
    pub(crate) fn of(xattrs: &BTreeMap<String, Bytes>) -> Self {
        Marked(xattrs.contains_key(layout::CACHED_XATTR))
    }

    /// A write of the head as it was read: guarded on the version's `tag`
    /// (a concurrent overwrite fails it) and, if the head was read
    /// unmarked, on the mark's absence (a mark set since fails it too, and
    /// the retry reads it marked and announces itself).
    pub(crate) fn unchanged(self, tag: &str) -> WriteOp {
        let op = WriteOp::new().cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, tag.to_string());
        if self.0 {
            op
        } else {
            op.cmp_xattr(layout::CACHED_XATTR, CmpOp::Eq, Bytes::new())
        }
    }
}

/// A write over a head as it was read: guarded by its version's tag and
/// mark ([`Marked::unchanged`]), or an exclusive create where there was
/// none.
pub(crate) fn over(current: Option<(&str, Marked)>) -> WriteOp {
    match current {
        Some((tag, marked)) => marked.unchanged(tag),
        None => WriteOp::new().create_exclusive(),
    }
}

/// `op` laying a version out as a head (or as a version's own object):
/// its head data, its record (`rsgw.obj`) and its write tag.
pub(crate) fn laid_out(op: WriteOp, data: Bytes, record: Bytes, tag: &str) -> WriteOp {
    op.write_full(data)
        .set_xattr(layout::META_XATTR, record)
        .set_xattr(layout::TAG_XATTR, tag.to_string())
}

/// A head's (or a version's object's) record, as read.
pub(crate) struct Record {
    /// Its record.
    pub(crate) meta: ObjectMeta,
    /// The record as stored (`rsgw.obj`): a write that changes it is
    /// guarded on it.
    pub(crate) raw: Bytes,
    /// Whether the object carries the object cache's mark.
    pub(crate) marked: Marked,
}

impl Engine {
    /// The record of `obj` (`None`: no such object).
    pub(crate) async fn read_record(&self, obj: &ObjectId) -> GatewayResult<Option<Record>> {
        match self.store.read(obj, ReadOp::new().xattrs()).await {
            Ok(r) => {
                let xattrs = r.xattrs.unwrap_or_default();
                Ok(Some(Record {
                    meta: parse_meta(&xattrs)?,
                    raw: xattrs.get(layout::META_XATTR).cloned().unwrap_or_default(),
                    marked: Marked::of(&xattrs),
                }))
            }
            Err(StoreError::NotFound) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The head's metadata (`None`: no such object).
    pub(crate) async fn head_meta(&self, head: &ObjectId) -> GatewayResult<Option<ObjectMeta>> {
        Ok(self.head_state(head).await?.map(|(meta, _)| meta))
    }

    /// The head's metadata, and whether it carries the object cache's
    /// mark (a write of it must then be announced).
    pub(crate) async fn head_state(
        &self,
        head: &ObjectId,
    ) -> GatewayResult<Option<(ObjectMeta, Marked)>> {
        Ok(self.read_record(head).await?.map(|r| (r.meta, r.marked)))
    }

    /// Announces a write of `head` if it was marked as cached; its write
    /// was guarded on the mark's absence otherwise (see [`Marked::unchanged`]).
    pub(crate) async fn announce_write(
        &self,
        head: &ObjectId,
        marked: Marked,
    ) -> GatewayResult<()> {
        if marked.0 {
            self.announce(Change::Object(head.name.clone())).await?;
        }
        Ok(())
    }
}
