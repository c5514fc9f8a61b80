//! The backend conformance suite: one body of tests that every [`Store`]
//! implementation must pass, so that `local` and `rados` behave alike.
//!
//! A backend's test file provides a [`Fixture`] and expands
//! [`conformance_tests!`](crate::conformance_tests), which turns every check
//! below into its own `#[tokio::test]`. The expected outcomes were checked
//! against a real RADOS cluster.

use std::any::Any;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::{
    CmpOp, NamespaceFilter, NotifyOutcome, OMAP_HEADER_XATTR, OMAP_MAX_PAGE, ObjectId, ReadOp,
    Store, StoreError, Watcher, WriteOp,
};

/// A store under test, with a pool that exists and a namespace of its own.
pub struct Fixture {
    /// The store.
    pub store: Arc<dyn Store>,
    /// A pool created for the tests.
    pub pool: String,
    /// A namespace no other test uses.
    pub namespace: String,
    /// Whatever must live as long as the store (a temporary directory, say).
    pub keep: Box<dyn Any + Send>,
}

impl Fixture {
    /// An object of this fixture's pool and namespace.
    pub fn obj(&self, name: &str) -> ObjectId {
        ObjectId::in_namespace(&self.pool, &self.namespace, name)
    }
}

/// A namespace name unique to this process and call.
pub fn unique_namespace(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!(
        "{prefix}-{}-{nanos:x}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Expands every conformance check into a `#[tokio::test]`; `$make` is an
/// expression that yields a fresh [`Fixture`].
#[macro_export]
macro_rules! conformance_tests {
    ($make:expr) => {
        $crate::conformance_tests!(@each $make;
            create_pool_is_idempotent, missing_pool_fails, missing_object_fails,
            empty_and_nul_names_rejected, write_full_and_read_ranges,
            write_at_append_truncate, large_object_roundtrip, stat_and_versions,
            xattrs_roundtrip, omap_basics, omap_listing_10k, guards,
            failed_guard_changes_nothing, compound_read_is_consistent, remove_clears_everything,
            concurrent_cas_counter, concurrent_appends, concurrent_writers_one_object,
            object_listing, locator_is_identity, object_class_calls, blocking_forms, notify_reaches_every_watch, dropped_watch_is_gone,
            notify_without_watchers);
    };
    (@each $make:expr; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $name() {
                let fixture: $crate::conformance::Fixture = $make;
                $crate::conformance::$name(&fixture).await;
            }
        )*
    };
}

fn pattern(len: usize, seed: u8) -> Bytes {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect::<Vec<u8>>()
        .into()
}

async fn read_all(fx: &Fixture, obj: &ObjectId) -> Bytes {
    let r = fx
        .store
        .read(obj, ReadOp::new().read(0, 64 << 20))
        .await
        .expect("read");
    r.data.expect("data")
}

async fn stat(fx: &Fixture, obj: &ObjectId) -> Result<crate::ObjectStat, StoreError> {
    fx.store
        .read(obj, ReadOp::new().stat())
        .await
        .map(|r| r.stat.expect("stat"))
}

/// Creating a pool twice succeeds.
pub async fn create_pool_is_idempotent(fx: &Fixture) {
    fx.store.create_pool(&fx.pool).await.expect("first");
    fx.store.create_pool(&fx.pool).await.expect("second");
}

/// Every operation on a pool that was never created fails with NoSuchPool.
pub async fn missing_pool_fails(fx: &Fixture) {
    let pool = unique_namespace("nosuchpool");
    let obj = ObjectId::new(&pool, "x");
    let w = fx.store.write(&obj, WriteOp::new().write_full("a")).await;
    assert!(matches!(w, Err(StoreError::NoSuchPool(_))), "write: {w:?}");
    let r = fx.store.read(&obj, ReadOp::new().stat()).await;
    assert!(matches!(r, Err(StoreError::NoSuchPool(_))), "read: {r:?}");
    let l = fx
        .store
        .list_objects(&pool, NamespaceFilter::All)
        .await
        .map(|_| ());
    assert!(matches!(l, Err(StoreError::NoSuchPool(_))), "list: {l:?}");
}

/// Reads and the actions that need an existing object fail with NotFound.
pub async fn missing_object_fails(fx: &Fixture) {
    let obj = fx.obj("missing");
    let reads = [
        ReadOp::new(),
        ReadOp::new().stat(),
        ReadOp::new().read(0, 10),
        ReadOp::new().xattrs(),
        ReadOp::new().omap("", "", 10),
        ReadOp::new().omap_keys(["a"]),
        ReadOp::new().omap_header(),
    ];
    for op in reads {
        let r = fx.store.read(&obj, op.clone()).await;
        assert_eq!(r, Err(StoreError::NotFound), "{op:?}");
    }
    for op in [
        WriteOp::new().remove(),
        WriteOp::new().rm_xattr("a"),
        WriteOp::new().omap_rm(["a"]),
        WriteOp::new().omap_clear(),
        WriteOp::new().assert_exists().set_xattr("a", "b"),
    ] {
        let r = fx.store.write(&obj, op.clone()).await;
        assert_eq!(r, Err(StoreError::NotFound), "{op:?}");
    }
    assert_eq!(stat(fx, &obj).await, Err(StoreError::NotFound));
}

/// Names RADOS cannot carry are refused before reaching the backend.
pub async fn empty_and_nul_names_rejected(fx: &Fixture) {
    for name in ["", "a\0b"] {
        let r = fx
            .store
            .write(&fx.obj(name), WriteOp::new().write_full("x"))
            .await;
        assert!(
            matches!(r, Err(StoreError::InvalidArgument(_))),
            "{name:?}: {r:?}"
        );
    }
}

/// write_full replaces data; ranged reads return exactly what is there.
pub async fn write_full_and_read_ranges(fx: &Fixture) {
    let obj = fx.obj("ranges");
    let data = pattern(10_000, 1);
    fx.store
        .write(&obj, WriteOp::new().write_full(data.clone()))
        .await
        .expect("write");
    assert_eq!(read_all(fx, &obj).await, data);
    let read = |off, len| {
        let obj = obj.clone();
        async move {
            fx.store
                .read(&obj, ReadOp::new().read(off, len))
                .await
                .expect("read")
                .data
                .expect("data")
        }
    };
    assert_eq!(read(100, 50).await, data.slice(100..150));
    assert_eq!(read(9_990, 100).await, data.slice(9_990..));
    assert!(read(20_000, 10).await.is_empty());
    assert_eq!(stat(fx, &obj).await.expect("stat").size, 10_000);
    // a shorter write_full replaces, it does not overlay
    fx.store
        .write(&obj, WriteOp::new().write_full("short"))
        .await
        .expect("rewrite");
    assert_eq!(read_all(fx, &obj).await, Bytes::from_static(b"short"));
    // an empty object exists with size 0
    fx.store
        .write(&obj, WriteOp::new().write_full(Bytes::new()))
        .await
        .expect("empty");
    assert_eq!(stat(fx, &obj).await.expect("stat").size, 0);
    assert!(read_all(fx, &obj).await.is_empty());
}

/// Partial writes: offsets past the end zero-fill, appends and truncates.
pub async fn write_at_append_truncate(fx: &Fixture) {
    let obj = fx.obj("partial");
    fx.store
        .write(&obj, WriteOp::new().write_at(4, "abcd"))
        .await
        .expect("write_at on new object");
    assert_eq!(
        read_all(fx, &obj).await,
        Bytes::from_static(b"\0\0\0\0abcd")
    );
    fx.store
        .write(&obj, WriteOp::new().append("XY").write_at(0, "12"))
        .await
        .expect("append + write_at");
    assert_eq!(
        read_all(fx, &obj).await,
        Bytes::from_static(b"12\0\0abcdXY")
    );
    fx.store
        .write(&obj, WriteOp::new().truncate(6))
        .await
        .expect("shrink");
    assert_eq!(read_all(fx, &obj).await, Bytes::from_static(b"12\0\0ab"));
    fx.store
        .write(&obj, WriteOp::new().truncate(8))
        .await
        .expect("extend");
    assert_eq!(
        read_all(fx, &obj).await,
        Bytes::from_static(b"12\0\0ab\0\0")
    );
    let fresh = fx.obj("appended");
    fx.store
        .write(&fresh, WriteOp::new().append("one"))
        .await
        .expect("append creates");
    fx.store
        .write(&fresh, WriteOp::new().append("two"))
        .await
        .expect("append");
    assert_eq!(read_all(fx, &fresh).await, Bytes::from_static(b"onetwo"));
}

/// Multi-MiB objects survive writes, partial rewrites and ranged reads.
pub async fn large_object_roundtrip(fx: &Fixture) {
    let obj = fx.obj("large");
    let mut expect = pattern(3 << 20, 7).to_vec();
    fx.store
        .write(&obj, WriteOp::new().write_full(Bytes::from(expect.clone())))
        .await
        .expect("write");
    let patch = pattern(100_000, 9);
    fx.store
        .write(&obj, WriteOp::new().write_at(1_000_000, patch.clone()))
        .await
        .expect("patch");
    expect[1_000_000..1_100_000].copy_from_slice(&patch);
    fx.store
        .write(&obj, WriteOp::new().append(patch.clone()))
        .await
        .expect("append");
    expect.extend_from_slice(&patch);
    assert_eq!(read_all(fx, &obj).await, Bytes::from(expect.clone()));
    let mid = fx
        .store
        .read(&obj, ReadOp::new().read(2 << 20, 1 << 20))
        .await
        .expect("range")
        .data
        .expect("data");
    assert_eq!(&mid[..], &expect[2 << 20..3 << 20]);
    fx.store
        .write(&obj, WriteOp::new().truncate(5))
        .await
        .expect("truncate");
    assert_eq!(read_all(fx, &obj).await, Bytes::from(expect[..5].to_vec()));
}

/// Versions strictly increase with each write; stat reports the latest.
pub async fn stat_and_versions(fx: &Fixture) {
    let obj = fx.obj("versions");
    let before = SystemTime::now() - Duration::from_secs(5);
    let mut last = 0;
    for i in 0..5u8 {
        let op = match i % 3 {
            0 => WriteOp::new().write_full(vec![i; 10]),
            1 => WriteOp::new().set_xattr("k", vec![i]),
            _ => WriteOp::new().omap_set([("k", vec![i])]),
        };
        let out = fx.store.write(&obj, op).await.expect("write");
        assert!(out.version > last, "version {} after {last}", out.version);
        last = out.version;
        let st = stat(fx, &obj).await.expect("stat");
        assert_eq!(st.version, last);
        assert_eq!(st.size, 10);
        assert!(st.mtime >= before && st.mtime <= SystemTime::now() + Duration::from_secs(5));
    }
}

/// Xattrs are set, listed, replaced and removed; the reserved name is refused.
pub async fn xattrs_roundtrip(fx: &Fixture) {
    let obj = fx.obj("xattrs");
    fx.store
        .write(
            &obj,
            WriteOp::new()
                .set_xattr("user.a", "1")
                .set_xattr("user.b", Bytes::from_static(b"\0binary\xff"))
                .set_xattr("empty", Bytes::new()),
        )
        .await
        .expect("set");
    let x = fx
        .store
        .read(&obj, ReadOp::new().xattrs())
        .await
        .expect("get")
        .xattrs
        .expect("xattrs");
    assert_eq!(x.len(), 3);
    assert_eq!(x["user.a"], Bytes::from_static(b"1"));
    assert_eq!(x["user.b"], Bytes::from_static(b"\0binary\xff"));
    assert_eq!(x["empty"], Bytes::new());
    fx.store
        .write(
            &obj,
            WriteOp::new()
                .set_xattr("user.a", "2")
                .rm_xattr("user.b")
                .rm_xattr("never-set"),
        )
        .await
        .expect("change");
    let x = fx
        .store
        .read(&obj, ReadOp::new().xattrs())
        .await
        .expect("get")
        .xattrs
        .expect("xattrs");
    assert_eq!(
        x.keys().cloned().collect::<Vec<_>>(),
        vec!["empty", "user.a"]
    );
    assert_eq!(x["user.a"], Bytes::from_static(b"2"));
    let r = fx
        .store
        .write(&obj, WriteOp::new().set_xattr(OMAP_HEADER_XATTR, "x"))
        .await;
    assert!(matches!(r, Err(StoreError::InvalidArgument(_))), "{r:?}");
}

/// Omap set / get by keys / remove / clear, and the header.
pub async fn omap_basics(fx: &Fixture) {
    let obj = fx.obj("omap");
    fx.store
        .write(
            &obj,
            WriteOp::new().omap_set([("b", "2"), ("a", "1"), ("c\0nul", "3"), ("é", "4")]),
        )
        .await
        .expect("set");
    let r = fx
        .store
        .read(
            &obj,
            ReadOp::new()
                .omap_keys(["a", "c\0nul", "zz"])
                .omap_header()
                .xattrs()
                .stat(),
        )
        .await
        .expect("get");
    let keys = r.omap_keys.expect("keys");
    assert_eq!(keys.len(), 2);
    assert_eq!(keys["a"], Bytes::from_static(b"1"));
    assert_eq!(keys["c\0nul"], Bytes::from_static(b"3"));
    assert_eq!(r.omap_header, Some(Bytes::new()));
    assert_eq!(r.stat.expect("stat").size, 0, "omap does not count as data");
    fx.store
        .write(
            &obj,
            WriteOp::new().omap_set_header("hdr").omap_rm(["a", "zz"]),
        )
        .await
        .expect("rm");
    let r = fx
        .store
        .read(&obj, ReadOp::new().omap("", "", 100).omap_header().xattrs())
        .await
        .expect("list");
    let page = r.omap.expect("page");
    let keys: Vec<&str> = page.entries.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, vec!["b", "c\0nul", "é"]);
    assert!(!page.more);
    assert_eq!(r.omap_header, Some(Bytes::from_static(b"hdr")));
    assert!(r.xattrs.expect("xattrs").is_empty(), "header stays hidden");
    fx.store
        .write(&obj, WriteOp::new().omap_clear())
        .await
        .expect("clear");
    let r = fx
        .store
        .read(&obj, ReadOp::new().omap("", "", 100).omap_header())
        .await
        .expect("list");
    assert!(r.omap.expect("page").entries.is_empty());
    assert_eq!(
        r.omap_header,
        Some(Bytes::from_static(b"hdr")),
        "clear keeps the header"
    );
}

/// 10,000 keys list in bytewise order across pages, with prefix and start-after.
pub async fn omap_listing_10k(fx: &Fixture) {
    let obj = fx.obj("index");
    let key = |i: u32| {
        format!(
            "{}/{i:05}",
            if i.is_multiple_of(2) { "even" } else { "odd" }
        )
    };
    for batch in 0..10u32 {
        let entries: Vec<(String, Bytes)> = (batch * 1000..(batch + 1) * 1000)
            .map(|i| (key(i), Bytes::from(i.to_string())))
            .collect();
        fx.store
            .write(&obj, WriteOp::new().omap_set(entries))
            .await
            .expect("set batch");
    }
    let mut expect: Vec<String> = (0..10_000).map(key).collect();
    expect.sort();
    let mut got = Vec::new();
    let mut after = String::new();
    let mut pages = 0;
    loop {
        let page = fx
            .store
            .read(&obj, ReadOp::new().omap(after.clone(), "", 1000))
            .await
            .expect("page")
            .omap
            .expect("omap");
        pages += 1;
        assert!(page.entries.len() <= 1000);
        for (k, v) in &page.entries {
            let i: u32 = k[k.len() - 5..].parse().expect("key");
            assert_eq!(v, &Bytes::from(i.to_string()));
        }
        got.extend(page.entries.iter().map(|(k, _)| k.clone()));
        if !page.more {
            break;
        }
        after = got.last().cloned().expect("non-empty page");
    }
    assert_eq!(got, expect);
    assert_eq!(pages, 10);
    // a page never exceeds OMAP_MAX_PAGE; the prefix filter holds across pages
    let mut odd = Vec::new();
    let mut after = String::new();
    loop {
        let page = fx
            .store
            .read(&obj, ReadOp::new().omap(after.clone(), "odd/", 6000))
            .await
            .expect("odd")
            .omap
            .expect("omap");
        assert!(page.entries.len() as u64 <= OMAP_MAX_PAGE);
        assert!(page.entries.iter().all(|(k, _)| k.starts_with("odd/")));
        odd.extend(page.entries.into_iter().map(|(k, _)| k));
        if !page.more {
            break;
        }
        after = odd.last().cloned().expect("non-empty page");
    }
    assert_eq!(odd.len(), 5000);
    assert_eq!(odd[0], "odd/00001");
    let even_tail = fx
        .store
        .read(&obj, ReadOp::new().omap("even/09990", "even/", 3))
        .await
        .expect("tail")
        .omap
        .expect("omap");
    let keys: Vec<&str> = even_tail.entries.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(keys, vec!["even/09992", "even/09994", "even/09996"]);
    assert!(even_tail.more);
    let last = fx
        .store
        .read(&obj, ReadOp::new().omap("even/09996", "even/", 3))
        .await
        .expect("last")
        .omap
        .expect("omap");
    assert_eq!(last.entries.len(), 1);
    assert!(!last.more, "odd/ keys follow but do not match the prefix");
}

/// Exclusive create, assert-exists and xattr comparisons.
pub async fn guards(fx: &Fixture) {
    let obj = fx.obj("guarded");
    fx.store
        .write(&obj, WriteOp::new().create_exclusive().set_xattr("v", "1"))
        .await
        .expect("exclusive create");
    let again = fx
        .store
        .write(&obj, WriteOp::new().create_exclusive())
        .await;
    assert_eq!(again, Err(StoreError::Exists));
    fx.store
        .write(&obj, WriteOp::new().assert_exists().set_xattr("w", "x"))
        .await
        .expect("assert_exists on present object");
    for (op, operand, ok) in [
        (CmpOp::Eq, "1", true),
        (CmpOp::Eq, "2", false),
        (CmpOp::Ne, "2", true),
        (CmpOp::Gt, "0", true),
        (CmpOp::Gt, "1", false),
        (CmpOp::Gte, "1", true),
        (CmpOp::Lt, "2", true),
        (CmpOp::Lte, "0", false),
    ] {
        let r = fx
            .store
            .write(
                &obj,
                WriteOp::new()
                    .cmp_xattr("v", op, operand)
                    .omap_set([("k", "v")]),
            )
            .await;
        if ok {
            r.unwrap_or_else(|e| panic!("v {op:?} {operand} should hold: {e}"));
        } else {
            assert!(
                matches!(r, Err(StoreError::GuardFailed(_))),
                "{op:?} {operand}: {r:?}"
            );
        }
    }
    // an absent xattr compares as the empty value
    fx.store
        .write(
            &obj,
            WriteOp::new().cmp_xattr("absent", CmpOp::Eq, "").create(),
        )
        .await
        .expect("absent == empty");
    let r = fx
        .store
        .write(
            &obj,
            WriteOp::new().cmp_xattr("absent", CmpOp::Eq, "x").create(),
        )
        .await;
    assert!(matches!(r, Err(StoreError::GuardFailed(_))), "{r:?}");
    // on a missing object a comparison fails with NotFound
    let r = fx
        .store
        .write(
            &fx.obj("guarded-missing"),
            WriteOp::new().cmp_xattr("v", CmpOp::Eq, "").write_full("x"),
        )
        .await;
    assert_eq!(r, Err(StoreError::NotFound));
    assert_eq!(
        stat(fx, &fx.obj("guarded-missing")).await,
        Err(StoreError::NotFound)
    );
}

/// A write whose guard fails leaves data, xattrs and omap exactly as they were.
pub async fn failed_guard_changes_nothing(fx: &Fixture) {
    let obj = fx.obj("atomic");
    let big = pattern(200_000, 3);
    let v1 = fx
        .store
        .write(
            &obj,
            WriteOp::new()
                .write_full(big.clone())
                .set_xattr("gen", "1")
                .omap_set([("k", "1")])
                .omap_set_header("h1"),
        )
        .await
        .expect("v1");
    let failed = fx
        .store
        .write(
            &obj,
            WriteOp::new()
                .cmp_xattr("gen", CmpOp::Eq, "0")
                .write_full("replacement")
                .append("more")
                .set_xattr("gen", "2")
                .rm_xattr("gen")
                .omap_set([("k", "2"), ("new", "x")])
                .omap_set_header("h2")
                .truncate(1),
        )
        .await;
    assert!(
        matches!(failed, Err(StoreError::GuardFailed(_))),
        "{failed:?}"
    );
    let r = fx
        .store
        .read(
            &obj,
            ReadOp::new()
                .stat()
                .read(0, 1 << 20)
                .xattrs()
                .omap("", "", 10)
                .omap_header(),
        )
        .await
        .expect("read");
    assert_eq!(r.data.expect("data"), big);
    assert_eq!(r.stat.expect("stat").version, v1.version);
    assert_eq!(r.xattrs.expect("xattrs")["gen"], Bytes::from_static(b"1"));
    let page = r.omap.expect("omap");
    assert_eq!(
        page.entries,
        vec![("k".to_string(), Bytes::from_static(b"1"))]
    );
    assert_eq!(r.omap_header, Some(Bytes::from_static(b"h1")));
}

/// Readers racing a writer always see data, xattrs and omap of one write.
pub async fn compound_read_is_consistent(fx: &Fixture) {
    let obj = fx.obj("consistent");
    let write = |g: u32| {
        let size = if g.is_multiple_of(2) { 100 } else { 150_000 };
        WriteOp::new()
            .write_full(vec![(g % 251) as u8; size])
            .set_xattr("gen", g.to_string())
            .omap_set([("gen", g.to_string())])
    };
    fx.store.write(&obj, write(0)).await.expect("first");
    let writer = {
        let store = fx.store.clone();
        let obj = obj.clone();
        tokio::spawn(async move {
            for g in 1..=60u32 {
                store.write(&obj, write(g)).await.expect("write");
            }
        })
    };
    let mut checks = 0;
    while !writer.is_finished() || checks == 0 {
        let r = fx
            .store
            .read(
                &obj,
                ReadOp::new()
                    .read(0, 1 << 20)
                    .xattrs()
                    .omap_keys(["gen"])
                    .stat(),
            )
            .await
            .expect("read");
        let gen_x: u32 = std::str::from_utf8(&r.xattrs.expect("x")["gen"])
            .expect("utf8")
            .parse()
            .expect("num");
        let gen_o: u32 = std::str::from_utf8(&r.omap_keys.expect("o")["gen"])
            .expect("utf8")
            .parse()
            .expect("num");
        let data = r.data.expect("data");
        assert_eq!(gen_x, gen_o, "xattr and omap from different writes");
        assert_eq!(
            data.len(),
            if gen_x.is_multiple_of(2) {
                100
            } else {
                150_000
            }
        );
        assert!(
            data.iter().all(|&b| b == (gen_x % 251) as u8),
            "data from another write"
        );
        assert_eq!(r.stat.expect("stat").size, data.len() as u64);
        checks += 1;
    }
    writer.await.expect("writer");
}

/// Remove deletes data, xattrs and omap; a recreated object starts empty.
pub async fn remove_clears_everything(fx: &Fixture) {
    let obj = fx.obj("removed");
    fx.store
        .write(
            &obj,
            WriteOp::new()
                .write_full(pattern(100_000, 5))
                .set_xattr("a", "1")
                .omap_set([("k", "v")])
                .omap_set_header("h"),
        )
        .await
        .expect("write");
    fx.store
        .write(&obj, WriteOp::new().remove())
        .await
        .expect("remove");
    assert_eq!(stat(fx, &obj).await, Err(StoreError::NotFound));
    fx.store
        .write(&obj, WriteOp::new().create())
        .await
        .expect("recreate");
    let r = fx
        .store
        .read(
            &obj,
            ReadOp::new()
                .stat()
                .xattrs()
                .omap("", "", 10)
                .omap_header()
                .read(0, 10),
        )
        .await
        .expect("read");
    assert_eq!(r.stat.expect("stat").size, 0);
    assert!(r.xattrs.expect("x").is_empty());
    assert!(r.omap.expect("o").entries.is_empty());
    assert_eq!(r.omap_header, Some(Bytes::new()));
    assert!(r.data.expect("d").is_empty());
}

/// 16 tasks increment one counter with compare-and-swap; none is lost.
pub async fn concurrent_cas_counter(fx: &Fixture) {
    let obj = fx.obj("counter");
    fx.store
        .write(&obj, WriteOp::new().set_xattr("n", "0"))
        .await
        .expect("init");
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let store = fx.store.clone();
        let obj = obj.clone();
        tasks.push(tokio::spawn(async move {
            let mut done = 0;
            let mut conflicts = 0u32;
            while done < 25 {
                let cur = store
                    .read(&obj, ReadOp::new().xattrs())
                    .await
                    .expect("read")
                    .xattrs
                    .expect("x")["n"]
                    .clone();
                let n: u64 = std::str::from_utf8(&cur)
                    .expect("utf8")
                    .parse()
                    .expect("num");
                match store
                    .write(
                        &obj,
                        WriteOp::new()
                            .cmp_xattr("n", CmpOp::Eq, cur)
                            .set_xattr("n", (n + 1).to_string()),
                    )
                    .await
                {
                    Ok(_) => done += 1,
                    Err(StoreError::GuardFailed(_)) => conflicts += 1,
                    Err(e) => panic!("cas: {e}"),
                }
            }
            conflicts
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }
    let n = fx
        .store
        .read(&obj, ReadOp::new().xattrs())
        .await
        .expect("read")
        .xattrs
        .expect("x")["n"]
        .clone();
    assert_eq!(n, Bytes::from_static(b"400"));
}

/// 8 tasks append 50 records each to one object; every record arrives whole.
pub async fn concurrent_appends(fx: &Fixture) {
    let obj = fx.obj("log");
    let mut tasks = Vec::new();
    for t in 0..8u8 {
        let store = fx.store.clone();
        let obj = obj.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..50u8 {
                let mut rec = vec![b'a' + t; 64];
                rec[1] = i;
                store
                    .write(&obj, WriteOp::new().append(rec))
                    .await
                    .expect("append");
            }
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }
    let data = read_all(fx, &obj).await;
    assert_eq!(data.len(), 8 * 50 * 64);
    let mut seen = BTreeSet::new();
    for rec in data.chunks(64) {
        let t = rec[0];
        assert!(
            rec.iter().enumerate().all(|(i, &b)| i == 1 || b == t),
            "torn record"
        );
        assert!(seen.insert((t, rec[1])), "duplicate record");
    }
    assert_eq!(seen.len(), 400);
}

/// Concurrent whole-object writers: the survivor is one writer's, intact.
pub async fn concurrent_writers_one_object(fx: &Fixture) {
    let obj = fx.obj("contended");
    let mut tasks = Vec::new();
    for w in 0..16u8 {
        let store = fx.store.clone();
        let obj = obj.clone();
        tasks.push(tokio::spawn(async move {
            for round in 0..10u8 {
                let size = 1000 + (w as usize) * 10_000;
                store
                    .write(
                        &obj,
                        WriteOp::new()
                            .write_full(vec![w; size])
                            .set_xattr("writer", vec![w, round]),
                    )
                    .await
                    .expect("write");
            }
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }
    let r = fx
        .store
        .read(&obj, ReadOp::new().read(0, 1 << 20).xattrs())
        .await
        .expect("read");
    let w = r.xattrs.expect("x")["writer"][0];
    let data = r.data.expect("data");
    assert_eq!(data.len(), 1000 + (w as usize) * 10_000);
    assert!(data.iter().all(|&b| b == w));
}

/// Object iteration covers a namespace, or every namespace, page by page.
pub async fn object_listing(fx: &Fixture) {
    let other_ns = format!("{}-other", fx.namespace);
    for i in 0..250 {
        fx.store
            .write(
                &fx.obj(&format!("obj-{i:03}")),
                WriteOp::new().write_full("x"),
            )
            .await
            .expect("write");
    }
    for i in 0..10 {
        let obj = ObjectId::in_namespace(&fx.pool, &other_ns, format!("other-{i}"));
        fx.store
            .write(&obj, WriteOp::new().create())
            .await
            .expect("write other");
    }
    let mut lister = fx
        .store
        .list_objects(&fx.pool, NamespaceFilter::Only(fx.namespace.clone()))
        .await
        .expect("list");
    let mut names = BTreeSet::new();
    loop {
        let page = lister.next_page(100).await.expect("page");
        if page.is_empty() {
            break;
        }
        assert!(page.len() <= 100);
        for e in page {
            assert_eq!(e.namespace, fx.namespace);
            assert!(names.insert(e.name), "listed twice");
        }
    }
    let expect: BTreeSet<String> = (0..250).map(|i| format!("obj-{i:03}")).collect();
    assert_eq!(names, expect);
    let mut all = fx
        .store
        .list_objects(&fx.pool, NamespaceFilter::All)
        .await
        .expect("list all");
    let mut ours = 0;
    let mut theirs = 0;
    loop {
        let page = all.next_page(500).await.expect("page");
        if page.is_empty() {
            break;
        }
        ours += page.iter().filter(|e| e.namespace == fx.namespace).count();
        theirs += page.iter().filter(|e| e.namespace == other_ns).count();
    }
    assert_eq!((ours, theirs), (250, 10));
}

/// An object's locator is part of its identity (as in RADOS): one name
/// with and without a locator is two objects, each read, listed with its
/// locator and removed on its own; a locator with a NUL is refused.
pub async fn locator_is_identity(fx: &Fixture) {
    let plain = fx.obj("_head");
    let placed = fx.obj("_head").with_locator("marker_head");
    fx.store
        .write(
            &plain,
            WriteOp::new().write_full("by name").set_xattr("k", "1"),
        )
        .await
        .expect("write plain");
    fx.store
        .write(&placed, WriteOp::new().write_full("by locator"))
        .await
        .expect("write placed");
    assert_eq!(read_all(fx, &plain).await, Bytes::from("by name"));
    assert_eq!(read_all(fx, &placed).await, Bytes::from("by locator"));
    let xattrs = fx
        .store
        .read(&placed, ReadOp::new().xattrs())
        .await
        .expect("xattrs")
        .xattrs
        .expect("xattrs asked");
    assert!(xattrs.is_empty(), "the placed object has its own xattrs");

    let mut lister = fx
        .store
        .list_objects(&fx.pool, NamespaceFilter::Only(fx.namespace.clone()))
        .await
        .expect("list");
    let mut listed = BTreeSet::new();
    loop {
        let page = lister.next_page(1).await.expect("page");
        if page.is_empty() {
            break;
        }
        listed.extend(page.into_iter().map(|e| (e.name, e.locator)));
    }
    let expect: BTreeSet<(String, String)> = [
        ("_head".to_string(), String::new()),
        ("_head".to_string(), "marker_head".to_string()),
    ]
    .into();
    assert_eq!(listed, expect);

    fx.store
        .write(&placed, WriteOp::new().remove())
        .await
        .expect("remove placed");
    assert!(matches!(stat(fx, &placed).await, Err(StoreError::NotFound)));
    assert_eq!(read_all(fx, &plain).await, Bytes::from("by name"));

    let bad = fx.obj("x").with_locator("a\0b");
    assert!(matches!(
        fx.store.write(&bad, WriteOp::new().create()).await,
        Err(StoreError::InvalidArgument(_))
    ));
}

/// An object class call runs inside the atomic operation on a store with
/// object classes (RADOS' `hello.record_hello`, which writes "Hello, <in>!"
/// to an object that does not exist yet and fails with EEXIST on one that
/// does): its failure fails the whole operation. A read calls a reading
/// method (`hello.say_hello`) and gets its output with the read's other
/// parts; the method's failure fails the read. A store without object
/// classes (the embedded backend) refuses either call and changes nothing.
pub async fn object_class_calls(fx: &Fixture) {
    let obj = fx.obj("hello");
    let call = || WriteOp::new().exec("hello", "record_hello", "rsgw");
    if fx.store.backend() != "rados" {
        let err = fx
            .store
            .write(&obj, call().set_xattr("k", "v"))
            .await
            .expect_err("no object classes here");
        assert!(matches!(err, StoreError::InvalidArgument(_)), "{err:?}");
        assert_eq!(stat(fx, &obj).await, Err(StoreError::NotFound));
        fx.store
            .write(&obj, WriteOp::new().write_full("x"))
            .await
            .expect("write");
        let err = fx
            .store
            .read(&obj, ReadOp::new().exec("hello", "say_hello", ""))
            .await
            .expect_err("no object classes here");
        assert!(matches!(err, StoreError::InvalidArgument(_)), "{err:?}");
        return;
    }
    let out = fx.store.write(&obj, call()).await.expect("record_hello");
    assert_eq!(read_all(fx, &obj).await, Bytes::from("Hello, rsgw!"));
    // the version a call's write leaves, and the pool's id, are told
    assert_eq!(stat(fx, &obj).await.expect("stat").version, out.version);
    assert!(out.version > 0 && out.pool.is_some(), "{out:?}");
    let err = fx
        .store
        .write(
            &obj,
            WriteOp::new()
                .set_xattr("k", "v")
                .exec("hello", "record_hello", "again"),
        )
        .await
        .expect_err("the object exists");
    assert_eq!(err, StoreError::Exists);
    let r = fx
        .store
        .read(&obj, ReadOp::new().xattrs())
        .await
        .expect("read xattrs");
    assert!(!r.xattrs.unwrap_or_default().contains_key("k"));
    assert!(
        fx.store
            .write(
                &fx.obj("none"),
                WriteOp::new().exec("no-such-class", "m", "")
            )
            .await
            .is_err()
    );
    // a reading method's output comes back with the read's other parts
    let r = fx
        .store
        .read(
            &obj,
            ReadOp::new().exec("hello", "say_hello", "reader").stat(),
        )
        .await
        .expect("say_hello");
    assert_eq!(r.exec, Some(Bytes::from("Hello, reader!")));
    assert_eq!(r.stat.map(|s| s.size), Some(12));
    // its failure fails the read
    let err = fx
        .store
        .read(
            &obj,
            ReadOp::new().exec("hello", "say_hello", vec![b'x'; 200]),
        )
        .await
        .expect_err("say_hello refuses more than 100 bytes");
    assert!(matches!(err, StoreError::InvalidArgument(_)), "{err:?}");
}

/// The blocking forms do what the async ones do, from a plain thread.
pub async fn blocking_forms(fx: &Fixture) {
    let store = fx.store.clone();
    let pool = fx.pool.clone();
    let obj = fx.obj("blocking");
    let ns = fx.namespace.clone();
    tokio::task::spawn_blocking(move || {
        store.create_pool_blocking(&pool).expect("create pool");
        let v = store
            .write_blocking(&obj, WriteOp::new().write_full("hello").set_xattr("a", "b"))
            .expect("write");
        let r = store
            .read_blocking(&obj, ReadOp::new().read(0, 100).stat().xattrs())
            .expect("read");
        assert_eq!(r.data, Some(Bytes::from_static(b"hello")));
        assert_eq!(r.stat.expect("stat").version, v.version);
        assert_eq!(r.xattrs.expect("x")["a"], Bytes::from_static(b"b"));
        let mut lister = store
            .list_objects_blocking(&pool, NamespaceFilter::Only(ns))
            .expect("list");
        let page = lister.next_page_blocking(10).expect("page");
        assert_eq!(page.len(), 1);
        assert_eq!(page[0].name, "blocking");
        assert!(lister.next_page_blocking(10).expect("end").is_empty());
        assert_eq!(
            store.read_blocking(&ObjectId::new(&pool, "nope-blocking"), ReadOp::new().stat()),
            Err(StoreError::NotFound)
        );
    })
    .await
    .expect("blocking task");
}

/// A watcher that records what reaches it.
#[derive(Default)]
struct Recorder {
    payloads: std::sync::Mutex<Vec<Vec<u8>>>,
}

impl Watcher for Recorder {
    fn notified(&self, payload: &[u8]) {
        self.payloads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(payload.to_vec());
    }
    fn failed(&self, error: &StoreError) {
        panic!("watch failed: {error}");
    }
}

impl Recorder {
    fn seen(&self) -> Vec<Vec<u8>> {
        self.payloads
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

const NOTIFY_WAIT: Duration = Duration::from_secs(10);

/// A notify returns after every watch of the object ran its callback (in
/// this process or another client), and only that object's watches hear it.
pub async fn notify_reaches_every_watch(fx: &Fixture) {
    let (a, b, other) = (
        Arc::new(Recorder::default()),
        Arc::new(Recorder::default()),
        Arc::new(Recorder::default()),
    );
    let obj = fx.obj("control");
    let _wa = fx.store.watch(&obj, a.clone()).expect("watch a");
    let _wb = fx.store.watch(&obj, b.clone()).expect("watch b");
    let _wo = fx
        .store
        .watch(&fx.obj("elsewhere"), other.clone())
        .expect("watch other");
    let out = fx
        .store
        .notify(&obj, b"bucket:x", NOTIFY_WAIT)
        .await
        .expect("notify");
    assert_eq!(
        out,
        NotifyOutcome {
            acked: 2,
            timed_out: 0
        }
    );
    // acknowledged means the callbacks ran: no waiting here
    assert_eq!(a.seen(), vec![b"bucket:x".to_vec()]);
    assert_eq!(b.seen(), vec![b"bucket:x".to_vec()]);
    assert!(other.seen().is_empty());
    assert!(_wa.check().expect("healthy") < NOTIFY_WAIT);
    let store = fx.store.clone();
    let out = tokio::task::spawn_blocking(move || store.notify_blocking(&obj, b"", NOTIFY_WAIT))
        .await
        .expect("task")
        .expect("blocking notify");
    assert_eq!(out.acked, 2);
    assert_eq!(a.seen().len(), 2);
}

/// Dropping a watch handle removes the watch: later notifies skip it.
pub async fn dropped_watch_is_gone(fx: &Fixture) {
    let (kept, dropped) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    let obj = fx.obj("control-drop");
    let _keep = fx.store.watch(&obj, kept.clone()).expect("watch");
    let gone = fx.store.watch(&obj, dropped.clone()).expect("watch");
    drop(gone);
    let out = fx
        .store
        .notify(&obj, b"1", NOTIFY_WAIT)
        .await
        .expect("notify");
    assert_eq!(
        out,
        NotifyOutcome {
            acked: 1,
            timed_out: 0
        }
    );
    assert_eq!(kept.seen().len(), 1);
    assert!(dropped.seen().is_empty());
}

/// A notify of an object nobody watches returns at once, having reached nobody.
pub async fn notify_without_watchers(fx: &Fixture) {
    let obj = fx.obj("control-nobody");
    fx.store
        .write(&obj, WriteOp::new().create())
        .await
        .expect("create");
    let t = std::time::Instant::now();
    let out = fx
        .store
        .notify(&obj, b"x", NOTIFY_WAIT)
        .await
        .expect("notify");
    assert_eq!(out, NotifyOutcome::default());
    assert!(t.elapsed() < NOTIFY_WAIT / 2);
}
