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
        // max-keys 0 asks for nothing: an empty page that is not truncated
        // (as S3 answers; truncated, it would have no marker to resume at)
        if p.max_keys == 0 {
            return Ok(out);
        }
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
                    // skip the keys under the prefix: past(cp) is after all
                    // but those going on with U+10FFFF, and then this key is
                    // (reading again from past(cp) would find it forever)
                    after = past(&cp).max(key.clone());
                    // a prefix at or before the marker was returned by an
                    // earlier page (the marker may be the prefix itself);
                    // one just returned is met again after such a key
                    if cp.as_str() > p.start_after.as_str()
                        && out.common_prefixes.last() != Some(&cp)
                    {
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
                after.clone_from(key);
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
                after.clone_from(key);
            }
            if !page.more {
                return Ok((objects, bytes));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use rsgw_store::WriteOp;

    use super::*;
    use crate::testutil::{Fixture, owner, small_opts};

    /// A bucket whose index lists `keys` (written straight into the index:
    /// listings read nothing else). Entry sizes are the keys' positions.
    async fn bucket_listing(keys: &[&str]) -> Fixture {
        let (f, id) = Fixture::with_bucket(small_opts(), "list").await;
        write_index(&f, &id, keys.iter().map(std::string::ToString::to_string)).await;
        f
    }

    async fn write_index(f: &Fixture, id: &str, keys: impl Iterator<Item = String>) {
        let entries: Vec<(String, Bytes)> = keys
            .enumerate()
            .map(|(i, k)| {
                let e = IndexEntry {
                    size: i as u64,
                    etag: format!("etag{i}"),
                    mtime: 1000.0 + i as f64,
                    owner: "alice".into(),
                };
                (k, Bytes::from(serde_json::to_vec(&e).expect("json")))
            })
            .collect();
        for chunk in entries.chunks(1000) {
            f.gw.store()
                .write(&layout::index(id), WriteOp::new().omap_set(chunk.to_vec()))
                .await
                .expect("index");
        }
    }

    fn params(prefix: &str, delimiter: Option<&str>, start_after: &str, max: usize) -> ListParams {
        ListParams {
            prefix: prefix.into(),
            delimiter: delimiter.map(String::from),
            start_after: start_after.into(),
            max_keys: max,
        }
    }

    async fn list(f: &Fixture, p: &ListParams) -> ListResult {
        f.gw.list_objects(&owner(), "list", p)
            .await
            .unwrap_or_else(|e| panic!("list {p:?}: {e}"))
    }

    fn keys(r: &ListResult) -> Vec<&str> {
        r.entries.iter().map(|e| e.key.as_str()).collect()
    }

    const KEYS: &[&str] = &[
        "a", "a/1", "a/2", "a/b/1", "a/b/2", "b", "b/1", "c/1", "c/2", "d", "e/f/g",
    ];

    struct Case {
        p: ListParams,
        keys: &'static [&'static str],
        prefixes: &'static [&'static str],
        truncated: bool,
        next: Option<&'static str>,
    }

    fn case(
        p: ListParams,
        keys: &'static [&'static str],
        prefixes: &'static [&'static str],
    ) -> Case {
        Case {
            p,
            keys,
            prefixes,
            truncated: false,
            next: None,
        }
    }

    fn truncated(
        p: ListParams,
        keys: &'static [&'static str],
        prefixes: &'static [&'static str],
        next: &'static str,
    ) -> Case {
        Case {
            p,
            keys,
            prefixes,
            truncated: true,
            next: Some(next),
        }
    }

    /// ListObjects over one index: prefix, delimiter, marker (v1 Marker, v2
    /// StartAfter or the decoded continuation token), max-keys.
    #[tokio::test]
    async fn listing_table() {
        let f = bucket_listing(KEYS).await;
        let slash = Some("/");
        let cases = [
            case(params("", None, "", 1000), KEYS, &[]),
            case(
                params("a/", None, "", 1000),
                &["a/1", "a/2", "a/b/1", "a/b/2"],
                &[],
            ),
            case(
                params("a", None, "", 1000),
                &["a", "a/1", "a/2", "a/b/1", "a/b/2"],
                &[],
            ),
            case(params("x", None, "", 1000), &[], &[]),
            case(params("a/1/", None, "", 1000), &[], &[]),
            // delimiter: keys with it after the prefix roll up
            case(
                params("", slash, "", 1000),
                &["a", "b", "d"],
                &["a/", "b/", "c/", "e/"],
            ),
            case(params("a/", slash, "", 1000), &["a/1", "a/2"], &["a/b/"]),
            case(params("a", slash, "", 1000), &["a"], &["a/"]),
            case(params("e/", slash, "", 1000), &[], &["e/f/"]),
            // an empty delimiter is no delimiter
            case(params("", Some(""), "", 1000), KEYS, &[]),
            // a delimiter of several characters; a key ending in it is a prefix
            case(
                params("", Some("/1"), "", 1000),
                &["a", "a/2", "a/b/2", "b", "c/2", "d", "e/f/g"],
                &["a/1", "a/b/1", "b/1", "c/1"],
            ),
            case(
                params("", Some("b"), "", 1000),
                &["a", "a/1", "a/2", "c/1", "c/2", "d", "e/f/g"],
                &["a/b", "b"],
            ),
            // marker: strictly after it
            case(
                params("", None, "a/2", 1000),
                &["a/b/1", "a/b/2", "b", "b/1", "c/1", "c/2", "d", "e/f/g"],
                &[],
            ),
            case(
                params("", None, "a/1.5", 1000),
                &[
                    "a/2", "a/b/1", "a/b/2", "b", "b/1", "c/1", "c/2", "d", "e/f/g",
                ],
                &[],
            ),
            case(params("", None, "e/f/g", 1000), &[], &[]),
            case(params("", None, "zzz", 1000), &[], &[]),
            // a marker before the prefix starts at the prefix
            case(params("c/", None, "a", 1000), &["c/1", "c/2"], &[]),
            case(params("c/", None, "c/1", 1000), &["c/2"], &[]),
            // a marker after the prefix's keys lists nothing
            case(params("a/", None, "b", 1000), &[], &[]),
            // a marker that is a common prefix (the next marker of a page
            // ending on it) resumes after everything under it
            case(
                params("", slash, "a/", 1000),
                &["b", "d"],
                &["b/", "c/", "e/"],
            ),
            // a marker inside a common prefix skips the rest of it, as
            // radosgw does
            case(
                params("", slash, "a/1", 1000),
                &["b", "d"],
                &["b/", "c/", "e/"],
            ),
            case(params("", slash, "b", 1000), &["d"], &["b/", "c/", "e/"]),
            // max-keys counts keys and prefixes; the page is truncated only
            // if something follows, and then says where to resume
            truncated(params("", None, "", 3), &["a", "a/1", "a/2"], &[], "a/2"),
            truncated(params("", None, "", 1), &["a"], &[], "a"),
            truncated(params("", None, "", 10), &KEYS[..10], &[], "d"),
            case(params("", None, "", 11), KEYS, &[]),
            case(params("", None, "", 12), KEYS, &[]),
            truncated(params("", slash, "", 2), &["a"], &["a/"], "a/"),
            truncated(params("", slash, "", 3), &["a", "b"], &["a/"], "b"),
            truncated(params("", slash, "", 4), &["a", "b"], &["a/", "b/"], "b/"),
            case(
                params("", slash, "", 7),
                &["a", "b", "d"],
                &["a/", "b/", "c/", "e/"],
            ),
            truncated(params("a/", slash, "", 2), &["a/1", "a/2"], &[], "a/2"),
            case(params("a/", slash, "", 3), &["a/1", "a/2"], &["a/b/"]),
            truncated(params("", slash, "a/", 2), &["b"], &["b/"], "b/"),
            // max-keys 0: an empty page that is not truncated (S3 answers
            // IsTruncated false, and a truncated page without a next
            // marker would leave a v2 client no token to resume with)
            case(params("", None, "", 0), &[], &[]),
            case(params("", slash, "", 0), &[], &[]),
        ];
        for c in &cases {
            let r = list(&f, &c.p).await;
            assert_eq!(keys(&r), c.keys, "keys of {:?}", c.p);
            assert_eq!(r.common_prefixes, c.prefixes, "prefixes of {:?}", c.p);
            assert_eq!(r.is_truncated, c.truncated, "truncation of {:?}", c.p);
            assert_eq!(r.next_marker.as_deref(), c.next, "next marker of {:?}", c.p);
        }
    }

    /// Entries carry what the index holds for them.
    #[tokio::test]
    async fn entries_carry_index_values() {
        let f = bucket_listing(&["x", "y"]).await;
        let r = list(&f, &params("", None, "", 1000)).await;
        assert_eq!(
            r.entries,
            [
                ListEntry {
                    key: "x".into(),
                    size: 0,
                    etag: "etag0".into(),
                    mtime: 1000.0,
                    owner: "alice".into(),
                },
                ListEntry {
                    key: "y".into(),
                    size: 1,
                    etag: "etag1".into(),
                    mtime: 1001.0,
                    owner: "alice".into(),
                },
            ]
        );
    }

    /// Pages of any size, each resumed from the previous page's next
    /// marker, add up to the one-page listing, with nothing repeated.
    #[tokio::test]
    async fn pages_add_up_to_the_whole_listing() {
        let f = bucket_listing(KEYS).await;
        for prefix in ["", "a", "a/", "c/", "e/f/"] {
            for delimiter in [None, Some("/"), Some("/1")] {
                let whole = list(&f, &params(prefix, delimiter, "", 1000)).await;
                assert!(!whole.is_truncated);
                for max in 1..=12 {
                    let what =
                        format!("prefix {prefix:?}, delimiter {delimiter:?}, pages of {max}");
                    let (mut got_keys, mut got_prefixes) = (Vec::new(), Vec::new());
                    let mut marker = String::new();
                    for _ in 0..=KEYS.len() {
                        let page = list(&f, &params(prefix, delimiter, &marker, max)).await;
                        assert!(
                            page.entries.len() + page.common_prefixes.len() <= max,
                            "{what}"
                        );
                        got_keys.extend(page.entries.iter().map(|e| e.key.clone()));
                        got_prefixes.extend(page.common_prefixes.iter().cloned());
                        if !page.is_truncated {
                            assert_eq!(page.next_marker, None, "{what}");
                            break;
                        }
                        marker = page
                            .next_marker
                            .expect("a truncated page has a next marker");
                    }
                    let want_keys: Vec<String> =
                        whole.entries.iter().map(|e| e.key.clone()).collect();
                    assert_eq!(got_keys, want_keys, "{what}");
                    assert_eq!(got_prefixes, whole.common_prefixes, "{what}");
                }
            }
        }
    }

    /// Listings longer than one omap read (1000 entries), with and without
    /// a delimiter.
    #[tokio::test]
    async fn listings_span_omap_pages() {
        let (f, id) = Fixture::with_bucket(small_opts(), "list").await;
        // 2100 plain keys, and 1200 directories of two keys each
        let plain = (0..2100).map(|i| format!("k{i:05}"));
        let dirs = (0..1200).flat_map(|i| [format!("d{i:05}/x"), format!("d{i:05}/y")]);
        write_index(&f, &id, plain.chain(dirs)).await;

        let r = list(&f, &params("k", None, "", 1000)).await;
        assert_eq!(r.entries.len(), 1000);
        assert!(r.is_truncated);
        assert_eq!(r.next_marker.as_deref(), Some("k00999"));
        let r = list(&f, &params("k", None, "k00999", 1000)).await;
        assert_eq!(keys(&r).first(), Some(&"k01000"));
        assert_eq!(r.next_marker.as_deref(), Some("k01999"));
        let r = list(&f, &params("k", None, "k01999", 1000)).await;
        assert_eq!(r.entries.len(), 100);
        assert!(!r.is_truncated);
        assert_eq!(keys(&r).last(), Some(&"k02099"));

        let r = list(&f, &params("", Some("/"), "", 1000)).await;
        assert_eq!(r.entries.len(), 0);
        assert_eq!(r.common_prefixes.len(), 1000);
        assert_eq!(r.common_prefixes[0], "d00000/");
        assert!(r.is_truncated);
        assert_eq!(r.next_marker.as_deref(), Some("d00999/"));
        let r = list(&f, &params("", Some("/"), "d00999/", 1000)).await;
        assert_eq!(r.common_prefixes.len(), 200);
        assert_eq!(
            r.common_prefixes.last().map(String::as_str),
            Some("d01199/")
        );
        assert_eq!(r.entries.len(), 800);
        assert!(r.is_truncated);
        assert_eq!(r.next_marker.as_deref(), Some("k00799"));
    }

    /// A key may hold U+10FFFF right after a delimiter: its common prefix
    /// is listed once, and the listing ends.
    #[tokio::test]
    async fn highest_code_point_after_a_delimiter() {
        let f =
            bucket_listing(&["a/b", "a/\u{10FFFF}", "a/\u{10FFFF}x", "a/\u{10FFFF}y", "b"]).await;
        let cases = [
            case(params("", Some("/"), "", 1000), &["b"], &["a/"]),
            case(params("", Some("/"), "a/", 1000), &["b"], &[]),
            case(params("", Some("/"), "a/\u{10FFFF}", 1000), &["b"], &[]),
            truncated(params("", Some("/"), "", 1), &[], &["a/"], "a/"),
            case(
                params("a/", Some("/"), "", 1000),
                &["a/b", "a/\u{10FFFF}", "a/\u{10FFFF}x", "a/\u{10FFFF}y"],
                &[],
            ),
        ];
        for c in &cases {
            // on a thread of its own: a listing that loops never yields
            // (the embedded store answers from its cache), so only a
            // timeout outside its runtime can tell
            let (gw, p) = (f.gw.clone(), c.p.clone());
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                // the receiver is gone only if the test already failed
                let _ = tx.send(rt.block_on(gw.list_objects(&owner(), "list", &p)));
            });
            let r = rx
                .recv_timeout(std::time::Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("listing {:?} does not end", c.p))
                .expect("list");
            assert_eq!(keys(&r), c.keys, "keys of {:?}", c.p);
            assert_eq!(r.common_prefixes, c.prefixes, "prefixes of {:?}", c.p);
            assert_eq!(r.is_truncated, c.truncated, "truncation of {:?}", c.p);
            assert_eq!(r.next_marker.as_deref(), c.next, "next marker of {:?}", c.p);
        }
    }

    /// Bucket usage counts every index entry, past one omap page.
    #[tokio::test]
    async fn usage_counts_the_whole_index() {
        let (f, id) = Fixture::with_bucket(small_opts(), "list").await;
        write_index(&f, &id, (0..1500).map(|i| format!("k{i:05}"))).await;
        // sizes are 0..1500
        assert_eq!(
            f.gw.bucket_usage("list").await.expect("usage"),
            (1500, 1499 * 1500 / 2)
        );
    }
}
