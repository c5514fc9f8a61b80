//! Bucket listings from the index: prefix, delimiter, start-after, max-keys.

use rsgw_store::{ReadOp, StoreError};
use serde::{Deserialize, Serialize};

use crate::acl::Principal;
use crate::buckets::BucketInfo;
use crate::objects::ObjectMeta;
use crate::{Gateway, GatewayError, GatewayResult, layout};

/// A bucket index entry: what a listing shows of an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexEntry {
    pub(crate) size: u64,
    pub(crate) etag: String,
    pub(crate) mtime: f64,
    pub(crate) owner: String,
}

impl IndexEntry {
    pub(crate) fn from_meta(m: &ObjectMeta) -> Self {
        IndexEntry {
            size: m.size,
            etag: m.etag.clone(),
            mtime: m.mtime,
            owner: m.owner.clone(),
        }
    }
}

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct ListParams {
    /// Only keys starting with this.
    pub prefix: String,
    /// Roll keys up to common prefixes at the first delimiter after the prefix.
    pub delimiter: Option<String>,
    /// Only keys (and prefixes) after this one (marker / start-after / token).
    pub start_after: String,
    /// At most this many keys plus common prefixes (S3 caps it at 1000).
    pub max_keys: usize,
}

/// One listed object.
#[derive(Debug, Clone, PartialEq)]
pub struct ListEntry {
    /// The key.
    pub key: String,
    /// Data length.
    pub size: u64,
    /// Hex MD5 ETag.
    pub etag: String,
    /// Last modification, seconds since the epoch.
    pub mtime: f64,
    /// Owning user id.
    pub owner: String,
}

/// A page of a listing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListResult {
    /// Objects, in key order.
    pub entries: Vec<ListEntry>,
    /// Common prefixes, in order.
    pub common_prefixes: Vec<String>,
    /// Whether more keys follow.
    pub is_truncated: bool,
    /// The last key or prefix returned (where the next page starts after).
    pub next_marker: Option<String>,
}

/// The smallest string greater than every string starting with `prefix`
/// that the listing could meet: `prefix` followed by the highest code point.
fn past(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

impl Gateway {
    /// Lists a bucket `who` may read.
    pub async fn list_objects(
        &self,
        who: &Principal,
        bucket: &str,
        p: &ListParams,
    ) -> GatewayResult<ListResult> {
        let info = self.bucket_for_read(who, bucket).await?;
        match self.list_index(&info, p).await {
            // the index is gone: the bucket was deleted, perhaps re-created
            // by another instance while this one had it cached
            Err(GatewayError::Store(StoreError::NotFound)) => {
                match self.bucket_replaced(&info).await? {
                    Some(now) => {
                        self.bucket_for_read(who, bucket).await?;
                        self.list_index(&now, p).await
                    }
                    None => Err(GatewayError::NoSuchBucket),
                }
            }
            r => r,
        }
    }

    /// Lists the index of the bucket `info` describes.
    async fn list_index(&self, info: &BucketInfo, p: &ListParams) -> GatewayResult<ListResult> {
        let index = layout::index(&info.id);
        let mut out = ListResult::default();
        let mut after = if p.start_after.as_str() < p.prefix.as_str() {
            String::new()
        } else {
            p.start_after.clone()
        };
        let delim = p.delimiter.as_deref().filter(|d| !d.is_empty());
        let full = |out: &ListResult| out.entries.len() + out.common_prefixes.len() >= p.max_keys;
        'pages: loop {
            let page = self
                .store
                .read(
                    &index,
                    ReadOp::new().omap(after.clone(), p.prefix.clone(), 1000),
                )
                .await?
                .omap
                .unwrap_or_default();
            for (key, value) in &page.entries {
                if full(&out) {
                    out.is_truncated = true;
                    break 'pages;
                }
                if let Some(d) = delim
                    && let Some(pos) = key[p.prefix.len()..].find(d)
                {
                    let cp = key[..p.prefix.len() + pos + d.len()].to_string();
                    after = past(&cp);
                    // a prefix at or before the marker was returned by an
                    // earlier page (the marker may be the prefix itself)
                    if cp.as_str() > p.start_after.as_str() {
                        out.next_marker = Some(cp.clone());
                        out.common_prefixes.push(cp);
                    }
                    continue 'pages;
                }
                let e: IndexEntry = serde_json::from_slice(value)?;
                out.next_marker = Some(key.clone());
                out.entries.push(ListEntry {
                    key: key.clone(),
                    size: e.size,
                    etag: e.etag,
                    mtime: e.mtime,
                    owner: e.owner,
                });
                after = key.clone();
            }
            if !page.more {
                break;
            }
        }
        if !out.is_truncated {
            out.next_marker = None;
        }
        Ok(out)
    }

    /// Number of objects and bytes in a bucket (reads the whole index).
    pub async fn bucket_usage(&self, bucket: &str) -> GatewayResult<(u64, u64)> {
        let info = self.bucket_info(bucket).await?;
        let (mut objects, mut bytes) = (0, 0);
        let mut after = String::new();
        loop {
            let page = self
                .store
                .read(
                    &layout::index(&info.id),
                    ReadOp::new().omap(after.clone(), "", 1000),
                )
                .await?
                .omap
                .unwrap_or_default();
            for (key, value) in &page.entries {
                let e: IndexEntry = serde_json::from_slice(value)?;
                objects += 1;
                bytes += e.size;
                after = key.clone();
            }
            if !page.more {
                return Ok((objects, bytes));
            }
        }
    }
}
