//! The one walk over an object's omap (a user's buckets, an upload's
//! parts, a bucket's uploads, the GC log, an index shard counted): pages
//! of [`OMAP_PAGE`] entries, each read after the last key of the one
//! before.

use bytes::Bytes;
use rsgw_store::{ObjectId, ReadOp, Store, StoreError};

use crate::engine::Engine;
use crate::model::error::GatewayResult;
use crate::model::limits::OMAP_PAGE;

/// The entries of an object's omap under a prefix, in key order, read a
/// page at a time as they are asked for.
pub(crate) struct OmapWalk<'a> {
    store: &'a dyn Store,
    obj: &'a ObjectId,
    prefix: &'a str,
    /// The last key read: the next page starts after it.
    after: String,
    /// The page read and not yet taken.
    page: std::vec::IntoIter<(String, Bytes)>,
    /// Whether entries follow the last page read.
    more: bool,
}

impl<'a> OmapWalk<'a> {
    /// A walk over the entries of `obj` after the key `after` ("" from the
    /// first) whose keys start with `prefix`.
    pub(crate) fn new(
        store: &'a dyn Store,
        obj: &'a ObjectId,
        after: impl Into<String>,
        prefix: &'a str,
    ) -> Self {
        OmapWalk {
            store,
            obj,
            prefix,
            after: after.into(),
            page: Vec::new().into_iter(),
            more: true,
        }
    }

    /// The next entry, `None` after the last; an absent object is the
    /// store's `NotFound` (whichever page finds it gone).
    pub(crate) async fn next(&mut self) -> Result<Option<(String, Bytes)>, StoreError> {
        loop {
            if let Some(entry) = self.page.next() {
                return Ok(Some(entry));
            }
            if !self.more {
                return Ok(None);
            }
            let op = ReadOp::new().omap(self.after.as_str(), self.prefix, OMAP_PAGE);
            let page = self
                .store
                .read(self.obj, op)
                .await?
                .omap
                .unwrap_or_default();
            let Some((last, _)) = page.entries.last() else {
                self.more = false;
                return Ok(None);
            };
            self.after.clone_from(last);
            self.more = page.more;
            self.page = page.entries.into_iter();
        }
    }
}

impl Engine {
    /// Every omap key of `obj`, in order (none for an absent object).
    pub(crate) async fn omap_keys(&self, obj: &ObjectId) -> GatewayResult<Vec<String>> {
        let mut walk = OmapWalk::new(&*self.store, obj, "", "");
        let mut keys = Vec::new();
        loop {
            match walk.next().await {
                Ok(Some((key, _))) => keys.push(key),
                Ok(None) | Err(StoreError::NotFound) => return Ok(keys),
                Err(e) => return Err(e.into()),
            }
        }
    }
}
