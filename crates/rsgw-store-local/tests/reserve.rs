//! The free-space reserve (`min_free_bytes`): below it, writes that add
//! data are refused with `StoreError::Full`, while metadata changes and
//! removals, what frees space and finishes writes under way, still pass.

use rsgw_store::{Fullness, ObjectId, ReadOp, Store, StoreError, WriteOp};
use rsgw_store_local::{LocalOptions, LocalStore};

fn store(dir: &std::path::Path, min_free_bytes: u64) -> LocalStore {
    let mut opts = LocalOptions::new(dir);
    opts.min_free_bytes = min_free_bytes;
    let store = LocalStore::open(opts).expect("open");
    store.create_pool_blocking("p").expect("pool");
    store
}

#[test]
fn below_the_reserve_only_data_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kept = ObjectId::new("p", "kept");
    let gone = ObjectId::new("p", "gone");
    {
        let s = store(dir.path(), 0);
        for o in [&kept, &gone] {
            s.write_blocking(o, WriteOp::new().write_full(vec![7u8; 100_000]))
                .expect("write with no reserve");
        }
    }
    // no filesystem has this much room: the store is below its reserve
    let s = store(dir.path(), u64::MAX);
    let full = Err(StoreError::Full(Fullness::NoSpace));
    for op in [
        WriteOp::new().write_full(vec![1u8; 10]),
        WriteOp::new().append(vec![1u8; 10]),
        WriteOp::new()
            .set_xattr("x", "y")
            .write_full(vec![1u8; 100_000]),
    ] {
        assert_eq!(s.write_blocking(&ObjectId::new("p", "new"), op), full);
    }
    assert_eq!(
        s.write_blocking(&kept, WriteOp::new().append(vec![1u8; 1])),
        full
    );
    s.write_blocking(
        &kept,
        WriteOp::new()
            .set_xattr("x", "y")
            .omap_set([("k", "v")])
            .omap_set_header("h"),
    )
    .expect("metadata below the reserve");
    s.write_blocking(&ObjectId::new("p", "empty"), WriteOp::new().create())
        .expect("an empty object below the reserve");
    s.write_blocking(&gone, WriteOp::new().remove())
        .expect("a removal below the reserve");
    let r = s
        .read_blocking(&kept, ReadOp::new().read(0, 1 << 20))
        .expect("read");
    assert_eq!(r.data.expect("data").len(), 100_000);
    assert_eq!(
        s.read_blocking(&gone, ReadOp::new().stat()).map(|_| ()),
        Err(StoreError::NotFound)
    );
}
