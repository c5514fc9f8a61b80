//! Listings' tests: the sharded listing against the one-index listing
//! it replaced (kept here as the oracle), and what each costs.

use bytes::Bytes;
use rsgw_store::WriteOp;

use super::*;
use crate::model::layout;
use crate::testutil::{Fixture, OWNER, owner, small_opts};

/// Shard counts every listing test runs over: one (the index of
/// buckets made before shards), a few, and the default.
const SHARD_COUNTS: [u32; 3] = [1, 2, 11];

fn with_shards(shards: u32) -> crate::GatewayOptions {
    crate::GatewayOptions {
        bucket_index_shards: shards,
        ..small_opts()
    }
}

/// A bucket "list" of `shards` index shards listing `keys` (written
/// straight into the index: listings read nothing else). Entry sizes
/// are the keys' positions.
async fn bucket_listing(shards: u32, keys: &[&str]) -> Fixture {
    let (f, _) = Fixture::with_bucket(with_shards(shards), "list").await;
    write_index(
        &f,
        "list",
        keys.iter().map(std::string::ToString::to_string),
    )
    .await;
    f
}

/// Writes index entries for `keys` into the shards of `bucket`.
async fn write_index(f: &Fixture, bucket: &str, keys: impl Iterator<Item = String>) {
    let info = f.gw.bucket_info(bucket).await.expect("bucket");
    let mut shards: std::collections::BTreeMap<ObjectId, Vec<(String, Bytes)>> =
        std::collections::BTreeMap::new();
    for (i, k) in keys.enumerate() {
        let e = IndexEntry {
            size: i as u64,
            etag: format!("etag{i}"),
            mtime: 1000.0 + i as f64,
            owner: "alice".into(),
            version_id: None,
            marker: false,
            versioned: false,
        };
        let v = Bytes::from(serde_json::to_vec(&e).expect("json"));
        shards.entry(info.index_of(&k)).or_default().push((k, v));
    }
    for (id, entries) in shards {
        for chunk in entries.chunks(1000) {
            f.gw.store()
                .write(&id, WriteOp::new().omap_set(chunk.to_vec()))
                .await
                .expect("index");
        }
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

fn case(p: ListParams, keys: &'static [&'static str], prefixes: &'static [&'static str]) -> Case {
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
    for shards in SHARD_COUNTS {
        listing_table_on(shards).await;
    }
}

async fn listing_table_on(shards: u32) {
    let f = bucket_listing(shards, KEYS).await;
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
        let what = format!("{:?} over {shards} shards", c.p);
        assert_eq!(keys(&r), c.keys, "keys of {what}");
        assert_eq!(r.common_prefixes, c.prefixes, "prefixes of {what}");
        assert_eq!(r.is_truncated, c.truncated, "truncation of {what}");
        assert_eq!(r.next_marker.as_deref(), c.next, "next marker of {what}");
    }
}

/// Entries carry what the index holds for them.
#[tokio::test]
async fn entries_carry_index_values() {
    let f = bucket_listing(11, &["x", "y"]).await;
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
    for shards in SHARD_COUNTS {
        pages_add_up_on(shards).await;
    }
}

async fn pages_add_up_on(shards: u32) {
    let f = bucket_listing(shards, KEYS).await;
    for prefix in ["", "a", "a/", "c/", "e/f/"] {
        for delimiter in [None, Some("/"), Some("/1")] {
            let whole = list(&f, &params(prefix, delimiter, "", 1000)).await;
            assert!(!whole.is_truncated);
            for max in 1..=12 {
                let what = format!(
                    "prefix {prefix:?}, delimiter {delimiter:?}, pages of {max}, \
                     {shards} shards"
                );
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
                let want_keys: Vec<String> = whole.entries.iter().map(|e| e.key.clone()).collect();
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
    for shards in SHARD_COUNTS {
        listings_span_omap_pages_on(shards).await;
    }
}

async fn listings_span_omap_pages_on(shards: u32) {
    let (f, _) = Fixture::with_bucket(with_shards(shards), "list").await;
    // 2100 plain keys, and 1200 directories of two keys each
    let plain = (0..2100).map(|i| format!("k{i:05}"));
    let dirs = (0..1200).flat_map(|i| [format!("d{i:05}/x"), format!("d{i:05}/y")]);
    write_index(&f, "list", plain.chain(dirs)).await;

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
    for shards in SHARD_COUNTS {
        highest_code_point_on(shards).await;
    }
}

async fn highest_code_point_on(shards: u32) {
    let names = ["a/b", "a/\u{10FFFF}", "a/\u{10FFFF}x", "a/\u{10FFFF}y", "b"];
    let f = bucket_listing(shards, &names).await;
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

/// A bucket check counts every index entry of every shard, past one
/// omap page; fixed, the counters say the same.
#[tokio::test]
async fn check_counts_the_whole_index() {
    for shards in SHARD_COUNTS {
        let (f, _) = Fixture::with_bucket(with_shards(shards), "list").await;
        // written past the counters, which still say empty
        write_index(&f, "list", (0..1500).map(|i| format!("k{i:05}"))).await;
        let usage = |u: crate::Usage| (u.objects, u.bytes);
        let sum = |checks: &[crate::ShardCheck]| {
            checks.iter().fold((0, 0), |(o, b), c| {
                (o + c.counted.objects, b + c.counted.bytes)
            })
        };
        let checks = f.gw.check_bucket("list", false).await.expect("check");
        assert_eq!(checks.len(), shards as usize);
        // sizes are 0..1500
        assert_eq!(sum(&checks), (1500, 1499 * 1500 / 2), "{shards} shards");
        assert!(
            checks
                .iter()
                .all(|c| !c.fixed && c.stored.is_some_and(|s| s.objects == 0))
        );
        assert_eq!(
            usage(f.gw.bucket_usage("list").await.expect("usage")),
            (0, 0)
        );
        let fixed = f.gw.check_bucket("list", true).await.expect("fix");
        assert!(fixed.iter().all(|c| c.fixed));
        assert_eq!(
            usage(f.gw.bucket_usage("list").await.expect("usage")),
            (1500, 1499 * 1500 / 2),
            "{shards} shards"
        );
        let again = f.gw.check_bucket("list", true).await.expect("check");
        assert!(
            again
                .iter()
                .all(|c| !c.fixed && c.stored == Some(c.counted))
        );
    }
}

thread_local! {
    /// Index shard reads made by listings on this thread, and the
    /// entries they returned: the tests' measure of a listing's cost.
    static SHARD_READS: std::cell::Cell<(u64, u64)> =
        const { std::cell::Cell::new((0, 0)) };
}

pub(super) fn count_read(entries: usize) {
    SHARD_READS.with(|c| {
        let (reads, n) = c.get();
        c.set((reads + 1, n + entries as u64));
    });
}

/// The shard reads and entries read by `list` (on this thread).
async fn cost_of(f: &Fixture, bucket: &str, p: &ListParams) -> (ListResult, u64, u64) {
    SHARD_READS.with(|c| c.set((0, 0)));
    let r =
        f.gw.list_objects(&owner(), bucket, p)
            .await
            .unwrap_or_else(|e| panic!("list {p:?}: {e}"));
    let (reads, entries) = SHARD_READS.with(std::cell::Cell::get);
    (r, reads, entries)
}

/// The listing as it was before index shards, kept verbatim as the
/// oracle: pages of 1000 omap entries of one index object, one more
/// read after each common prefix.
async fn single_index_listing(
    store: &dyn Store,
    index: &ObjectId,
    p: &ListParams,
) -> GatewayResult<ListResult> {
    let mut out = ListResult::default();
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
        let page = store
            .read(
                index,
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
                after = past(&cp).max(key.clone());
                if cp.as_str() > p.start_after.as_str() && out.common_prefixes.last() != Some(&cp) {
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

/// SplitMix64: the property tests' random numbers, reproducible from
/// the seed their failures print.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[self.below(from.len())]
    }
}

/// `RSGW_TEST_SEED` if set (to replay a failure), else the clock.
fn seed() -> u64 {
    std::env::var("RSGW_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64)
        })
}

/// Random keys over a small alphabet, so that prefixes, delimiters and
/// markers meet often: separators, a two-byte and a four-byte
/// character, and U+10FFFF (the listing's "past a prefix" bound).
fn random_key(rng: &mut Rng) -> String {
    const PIECES: [&str; 9] = ["a", "b", "c", "/", "/", "-", "é", "\u{10FFFF}", "1"];
    let len = 1 + rng.below(6);
    (0..len).map(|_| *rng.pick(&PIECES)).collect()
}

/// A prefix, marker or delimiter drawn from the keys (a piece of one)
/// or made up.
fn random_bound(rng: &mut Rng, keys: &[String]) -> String {
    match (rng.below(5), keys.is_empty()) {
        (0, _) | (_, true) => String::new(),
        (1, false) => rng.pick(keys).clone(),
        (2, false) => {
            let k = rng.pick(keys);
            let cut = rng.below(k.len() + 1);
            let cut = (0..=cut)
                .rev()
                .find(|&i| k.is_char_boundary(i))
                .unwrap_or(0);
            k[..cut].to_string()
        }
        (3, false) => format!("{}\u{10FFFF}", rng.pick(keys)),
        _ => random_key(rng),
    }
}

fn random_params(rng: &mut Rng, keys: &[String]) -> ListParams {
    const DELIMITERS: [Option<&str>; 7] = [
        None,
        None,
        Some("/"),
        Some("/"),
        Some("a"),
        Some("/1"),
        Some(""),
    ];
    const MAX_KEYS: [usize; 10] = [0, 1, 2, 3, 5, 8, 13, 50, 100, 1000];
    let prefix = if rng.below(2) == 0 {
        String::new()
    } else {
        random_bound(rng, keys)
    };
    ListParams {
        prefix,
        delimiter: rng.pick(&DELIMITERS).map(String::from),
        start_after: random_bound(rng, keys),
        max_keys: *rng.pick(&MAX_KEYS),
    }
}

/// Property: a bucket of 2, 3, 11 or 16 index shards lists exactly
/// what the same keys in one index object list, and what the listing
/// listed before shards existed (the oracle above), for random keys
/// and random prefix, delimiter, marker and max-keys; and paging
/// through with each page's next marker gives the same pages.
#[tokio::test]
async fn sharded_listings_are_the_single_index_listing() {
    let seed = seed();
    let mut rng = Rng(seed);
    for round in 0..6 {
        let f = Fixture::new(small_opts()).await;
        let mut names: Vec<String> = (0..rng.below(600)).map(|_| random_key(&mut rng)).collect();
        names.sort();
        names.dedup();
        let counts = [1u32, 2, 3, 11, 16];
        for shards in counts {
            let gw = Gateway::new(f.gw.store().clone(), with_shards(shards));
            gw.create_bucket(OWNER, &format!("shards{shards}"), crate::CannedAcl::Private)
                .await
                .expect("bucket");
            write_index(&f, &format!("shards{shards}"), names.iter().cloned()).await;
        }
        let single =
            f.gw.bucket_info("shards1")
                .await
                .expect("bucket")
                .index_shards();
        assert_eq!(single.len(), 1);
        for _ in 0..80 {
            let mut p = random_params(&mut rng, &names);
            for pages in 0..4 {
                let what = format!("seed {seed} round {round}, {} keys, {p:?}", names.len());
                let want = single_index_listing(&**f.gw.store(), &single[0], &p)
                    .await
                    .expect("oracle");
                for shards in counts {
                    let got =
                        f.gw.list_objects(&owner(), &format!("shards{shards}"), &p)
                            .await
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(got, want, "{shards} shards, page {pages} of {what}");
                }
                let Some(next) = want.next_marker.clone() else {
                    break;
                };
                p.start_after = next;
            }
        }
    }
}

/// A bucket made before index shards existed: its record has no shard
/// count and its index is the object named by its id. It reads as one
/// shard, and every index user keeps working on that object.
#[tokio::test]
async fn buckets_from_before_shards_keep_their_index() {
    let f = Fixture::new(small_opts()).await;
    let id = "00000000000000000000000000000abc";
    let record = serde_json::json!({
        "name": "old", "id": id, "owner": OWNER, "created": 1.0, "acl": "private",
    });
    let store = f.gw.store();
    store
        .write(
            &layout::index_shard(id, 1, 0),
            WriteOp::new().create_exclusive(),
        )
        .await
        .expect("index");
    store
        .write(
            &layout::bucket("old"),
            WriteOp::new()
                .create_exclusive()
                .write_full(Bytes::from(record.to_string())),
        )
        .await
        .expect("record");
    store
        .write(
            &layout::user(OWNER),
            WriteOp::new().omap_set([("old", Bytes::new())]),
        )
        .await
        .expect("user");
    let info = f.gw.bucket_info("old").await.expect("bucket");
    assert_eq!(info.index_shards, 1);
    assert_eq!(info.index_shards(), [ObjectId::new(layout::INDEX, id)]);
    for k in ["a", "b/c", "d"] {
        f.gw.put_object(
            &owner(),
            "old",
            k,
            Default::default(),
            crate::testutil::body(b"xy", 1),
        )
        .await
        .expect("put");
    }
    f.gw.delete_object(&owner(), "old", "d")
        .await
        .expect("delete");
    let r =
        f.gw.list_objects(&owner(), "old", &params("", Some("/"), "", 1000))
            .await
            .expect("list");
    assert_eq!(keys(&r), ["a"]);
    assert_eq!(r.common_prefixes, ["b/"]);
    // the entries are in the old index object, nowhere else
    let page = store
        .read(
            &ObjectId::new(layout::INDEX, id),
            ReadOp::new().omap("", "", 10),
        )
        .await
        .expect("index")
        .omap
        .unwrap_or_default();
    let listed: Vec<&str> = page.entries.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(listed, ["a", "b/c"]);
    assert_eq!(
        f.gw.bucket_usage("old")
            .await
            .map(|u| (u.objects, u.bytes))
            .expect("usage"),
        (2, 4)
    );
    assert!(matches!(
        f.gw.delete_bucket(&owner(), "old").await,
        Err(GatewayError::BucketNotEmpty)
    ));
    for k in ["a", "b/c"] {
        f.gw.delete_object(&owner(), "old", k)
            .await
            .expect("delete");
    }
    f.gw.delete_bucket(&owner(), "old")
        .await
        .expect("delete bucket");
    assert!(!f.exists(&ObjectId::new(layout::INDEX, id)).await);
}

/// What a listing costs in index reads, one shard against the default
/// 11: a page of 1000 keys asks each shard for about its share, not
/// for the whole page (11,011 entries), and each shard is read once a
/// page. Prints one CSV row per case and shard count
/// (`case,shards,pages,reads,entries_read,listed`): the data of
/// docs/perf/shards/list-cost.csv (benches/shards.sh).
#[tokio::test]
async fn listing_cost() {
    let numbered: Vec<String> = (0..5000).map(|i| format!("obj-{i:08}")).collect();
    let mut rng = Rng(7);
    let mut random: Vec<String> = (0..5000).map(|_| format!("{:016x}", rng.next())).collect();
    random.sort();
    let big_dirs: Vec<String> = (0..300)
        .flat_map(|d| (0..20).map(move |i| format!("dir{d:04}/obj{i:02}")))
        .collect();
    let small_dirs: Vec<String> = (0..2000)
        .flat_map(|d| [format!("d{d:05}/x"), format!("d{d:05}/y")])
        .collect();
    // name, keys, first page, whether to page to the end, and the most
    // entries 11 shards may read against one (none: not bounded)
    type Case<'a> = (&'a str, &'a [String], ListParams, bool, Option<f64>);
    let slash = Some("/");
    let cases: [Case; 7] = [
        (
            "first page of 1000, numbered keys",
            &numbered,
            params("", None, "", 1000),
            false,
            Some(1.3),
        ),
        (
            "all by 1000, numbered keys",
            &numbered,
            params("", None, "", 1000),
            true,
            Some(1.3),
        ),
        (
            "all by 1000, random keys",
            &random,
            params("", None, "", 1000),
            true,
            Some(1.3),
        ),
        (
            "all by 100, random keys",
            &random,
            params("", None, "", 100),
            true,
            Some(2.5),
        ),
        (
            "page of 1, numbered keys",
            &numbered,
            params("", None, "obj-00001000", 1),
            false,
            None,
        ),
        (
            "all by 1000, delimiter, 300 dirs of 20 keys",
            &big_dirs,
            params("", slash, "", 1000),
            true,
            Some(1.1),
        ),
        (
            "all by 1000, delimiter, 2000 dirs of 2 keys",
            &small_dirs,
            params("", slash, "", 1000),
            true,
            Some(1.1),
        ),
    ];
    println!("case,shards,pages,reads,entries_read,listed");
    let mut one_shard = Vec::new();
    for shards in [1, 11] {
        for (i, (name, names, p, whole, bound)) in cases.iter().enumerate() {
            let (f, _) = Fixture::with_bucket(with_shards(shards), "list").await;
            write_index(&f, "list", names.iter().cloned()).await;
            let (mut pages, mut reads, mut read, mut listed) = (0u64, 0, 0, 0);
            let mut p = p.clone();
            loop {
                let (r, n, e) = cost_of(&f, "list", &p).await;
                pages += 1;
                reads += n;
                read += e;
                listed += (r.entries.len() + r.common_prefixes.len()) as u64;
                match r.next_marker {
                    Some(next) if *whole => p.start_after = next,
                    _ => break,
                }
            }
            println!("\"{name}\",{shards},{pages},{reads},{read},{listed}");
            if shards == 1 {
                one_shard.push((read, listed));
                continue;
            }
            let (read1, listed1) = one_shard[i];
            assert_eq!(listed, listed1, "{name}");
            if let Some(bound) = bound {
                assert!(
                    read as f64 <= read1 as f64 * bound,
                    "{name}: {read} entries read against {read1}"
                );
            }
            // a flat listing reads each shard once a page, seldom twice
            if p.delimiter.is_none() {
                assert!(reads <= pages * 11 + 4, "{name}: {reads} reads");
            }
        }
    }
}
