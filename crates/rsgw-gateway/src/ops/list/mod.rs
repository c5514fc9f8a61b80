//! Bucket listings from the index: prefix, delimiter, start-after, max-keys,
//! over the bucket's index shards merged in key order.

#[cfg(test)]
mod tests;
mod versions;

use std::collections::VecDeque;

use bytes::Bytes;
use rsgw_store::{OMAP_MAX_PAGE, ObjectId, OmapPage, ReadOp, Store, StoreError};

use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::IndexEntry;
use crate::model::limits::SHARD_CONCURRENCY;
use crate::model::params::{ListEntry, ListParams, ListResult};
use crate::model::versioning::{VERSIONS, past_version_entries};
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};

/// The smallest string greater than every string starting with `prefix`
/// that the listing could meet: `prefix` followed by the highest code point.
pub(crate) fn past(prefix: &str) -> String {
    format!("{prefix}\u{10FFFF}")
}

/// Where a walk of the keys' own entries under `prefix` starts, the
/// listing being after `start_after`: past the versions' entries, which
/// sort before every key.
pub(super) fn walk_start(prefix: &str, start_after: &str) -> String {
    let after = if start_after < prefix {
        ""
    } else {
        start_after
    };
    if prefix.is_empty() {
        let versions = past_version_entries();
        if after < versions.as_str() {
            return versions;
        }
    }
    after.to_string()
}

/// How many entries to ask of each of `shards` shards when the listing may
/// still take `want` entries: the shard's expected share of them, plus two
/// standard deviations of that share and 2 more, so that a shard seldom
/// runs dry before the page is full (keys spread over shards by hash, so a
/// shard's share of the next `want` keys is about binomial). One shard is
/// asked for exactly `want`. Never more than `want`, nor than one omap read
/// returns. (docs/layout.md has the costs measured with it.)
fn per_shard(want: u64, shards: usize) -> u64 {
    let want = want.max(1);
    let cap = want.min(OMAP_MAX_PAGE);
    if shards <= 1 {
        return cap;
    }
    let share = want.div_ceil(shards as u64);
    // 2 sqrt(share), rounded up, in integers
    let mut sd2 = 0;
    while sd2 * sd2 < 4 * share {
        sd2 += 1;
    }
    (share + sd2 + 2).min(cap)
}

/// One index shard in a merged listing.
struct ShardCursor {
    id: ObjectId,
    /// Entries read and not consumed yet, all after the merge's position,
    /// in key order.
    buf: VecDeque<(String, Bytes)>,
    /// Whether the shard holds nothing beyond `buf` (its last read said so).
    done: bool,
    /// Entries its last read asked for.
    asked: u64,
    /// Whether the listing consumed its whole buffer (rather than skipping
    /// past it): its keys are denser here than the others', and the next
    /// read asks for twice as many.
    ran_dry: bool,
}

impl ShardCursor {
    /// Whether the shard must be read before the merge can tell what
    /// comes next.
    fn needs_read(&self) -> bool {
        self.buf.is_empty() && !self.done
    }
}

/// The index shards of a bucket merged in key order: one sorted stream of
/// the entries under `prefix` after a position, read a page per shard at a
/// time (all shards that need a read at once), sized by [`per_shard`].
pub(super) struct MergedIndex<'a> {
    store: &'a dyn Store,
    prefix: &'a str,
    shards: Vec<ShardCursor>,
    /// Entries at or before this key are behind the listing.
    after: String,
}

impl<'a> MergedIndex<'a> {
    pub(super) fn new(
        store: &'a dyn Store,
        shards: Vec<ObjectId>,
        prefix: &'a str,
        after: String,
    ) -> Self {
        MergedIndex {
            store,
            prefix,
            shards: shards
                .into_iter()
                .map(|id| ShardCursor {
                    id,
                    buf: VecDeque::new(),
                    done: false,
                    asked: 0,
                    ran_dry: false,
                })
                .collect(),
            after,
        }
    }

    /// Moves the position forward to `after`: entries up to it are
    /// skipped (a shard whose buffer empties is read again from there).
    pub(super) fn seek(&mut self, after: String) {
        if after <= self.after {
            return;
        }
        for s in &mut self.shards {
            while s.buf.front().is_some_and(|(k, _)| *k <= after) {
                s.buf.pop_front();
            }
            s.ran_dry = false;
        }
        self.after = after;
    }

    /// Reads every shard whose next entry is unknown, all at once (up to
    /// [`SHARD_CONCURRENCY`]): `base` entries after the position, or, of a
    /// shard that ran dry, twice its last read (at least `base`, at most
    /// `cap`).
    async fn fill(&mut self, base: u64, cap: u64) -> GatewayResult<()> {
        let (store, prefix, after) = (self.store, self.prefix, self.after.as_str());
        let mut reads = Vec::new();
        for s in &mut self.shards {
            if !s.needs_read() {
                continue;
            }
            s.asked = if s.ran_dry {
                (s.asked * 2).max(base).min(cap)
            } else {
                base
            };
            reads.push(read_shard(store, s, after, prefix));
        }
        let mut reads = reads.into_iter();
        loop {
            let batch: Vec<_> = reads.by_ref().take(SHARD_CONCURRENCY).collect();
            if batch.is_empty() {
                return Ok(());
            }
            futures::future::try_join_all(batch).await?;
        }
    }

    /// The next entry in key order, the listing being able to take `want`
    /// more entries (a hint for the size of the reads); `None` at the end.
    pub(super) async fn next(&mut self, want: u64) -> GatewayResult<Option<(String, Bytes)>> {
        let base = per_shard(want, self.shards.len());
        self.fill(base, want.clamp(1, OMAP_MAX_PAGE)).await?;
        let Some(s) = self
            .shards
            .iter_mut()
            .filter(|s| !s.buf.is_empty())
            .min_by(|a, b| {
                a.buf
                    .front()
                    .map(|e| &e.0)
                    .cmp(&b.buf.front().map(|e| &e.0))
            })
        else {
            return Ok(None);
        };
        let Some(entry) = s.buf.pop_front() else {
            return Ok(None);
        };
        s.ran_dry = s.needs_read();
        self.after.clone_from(&entry.0);
        Ok(Some(entry))
    }

    /// Whether any entry follows the position (a shard with nothing
    /// buffered is asked for one entry only if no other shows one).
    async fn more(&mut self) -> GatewayResult<bool> {
        if self.shards.iter().any(|s| !s.buf.is_empty()) {
            return Ok(true);
        }
        self.fill(1, 1).await?;
        Ok(self.shards.iter().any(|s| !s.buf.is_empty()))
    }
}

/// Reads the next page of one shard (`s.asked` entries under `prefix`
/// after `after`) into its buffer.
async fn read_shard(
    store: &dyn Store,
    s: &mut ShardCursor,
    after: &str,
    prefix: &str,
) -> GatewayResult<()> {
    let page: OmapPage = store
        .read(&s.id, ReadOp::new().omap(after, prefix, s.asked))
        .await?
        .omap
        .unwrap_or_default();
    s.done = !page.more;
    #[cfg(test)]
    tests::count_read(page.entries.len());
    s.buf.extend(page.entries);
    Ok(())
}

impl Gateway {
    /// Lists a bucket (ListObjects v1 and v2), as `rq` may.
    pub async fn list_objects(
        &self,
        rq: &Requester,
        bucket: &str,
        p: &ListParams,
    ) -> GatewayResult<ListResult> {
        if let Some(zone) = self.zone() {
            return self.zone_list_objects(zone, rq, bucket, p).await;
        }
        let access = Access::ListBucket;
        let info = self.bucket_info(bucket).await?;
        authorize(rq, access, &Target::listing(&info, p))?;
        match self.list_index(&info, p).await {
            // the index is gone: the bucket was deleted, perhaps re-created
            // by another instance while this one had it cached
            Err(GatewayError::Store(StoreError::NotFound)) => {
                match self.bucket_replaced(&info).await? {
                    Some(now) => {
                        authorize(rq, access, &Target::listing(&now, p))?;
                        self.list_index(&now, p).await
                    }
                    None => Err(GatewayError::NoSuchBucket),
                }
            }
            r => r,
        }
    }

    /// Lists the index of the bucket `info` describes, its shards merged.
    async fn list_index(&self, info: &BucketInfo, p: &ListParams) -> GatewayResult<ListResult> {
        let mut out = ListResult::default();
        // max-keys 0 asks for nothing: an empty page that is not truncated
        // (as S3 answers; truncated, it would have no marker to resume at)
        if p.max_keys == 0 {
            return Ok(out);
        }
        // no key begins so: the index's names that do are versions'
        if p.prefix.starts_with(VERSIONS) {
            return Ok(out);
        }
        let after = walk_start(&p.prefix, &p.start_after);
        let mut index = MergedIndex::new(&*self.store, info.index_shards(), &p.prefix, after);
        let delim = p.delimiter.as_deref().filter(|d| !d.is_empty());
        loop {
            let taken = out.entries.len() + out.common_prefixes.len();
            if taken >= p.max_keys {
                // truncated only if something follows
                out.is_truncated = index.more().await?;
                break;
            }
            // room for the rest of the page and one more, which tells
            // whether the page is truncated
            let want = (p.max_keys - taken) as u64 + 1;
            let Some((key, value)) = index.next(want).await? else {
                break;
            };
            if let Some(d) = delim
                && let Some(pos) = key[p.prefix.len()..].find(d)
            {
                let cp = key[..p.prefix.len() + pos + d.len()].to_string();
                // skip the keys under the prefix: past(cp) is after all
                // but those going on with U+10FFFF, and then this key is
                // (reading again from past(cp) would find it forever)
                index.seek(past(&cp));
                // a prefix at or before the marker was returned by an
                // earlier page (the marker may be the prefix itself);
                // one just returned is met again after such a key
                if cp.as_str() > p.start_after.as_str() && out.common_prefixes.last() != Some(&cp) {
                    out.next_marker = Some(cp.clone());
                    out.common_prefixes.push(cp);
                }
                continue;
            }
            let e: IndexEntry = serde_json::from_slice(&value)?;
            out.next_marker = Some(key.clone());
            out.entries.push(ListEntry {
                key,
                size: e.size,
                etag: e.etag,
                mtime: e.mtime,
                owner: e.owner,
            });
        }
        if !out.is_truncated {
            out.next_marker = None;
        }
        Ok(out)
    }
}
