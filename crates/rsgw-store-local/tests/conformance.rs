//! The shared backend conformance suite, run against the embedded backend.

use std::sync::Arc;

use rsgw_store::Store;
use rsgw_store::conformance::{Fixture, unique_namespace};
use rsgw_store_local::{LocalOptions, LocalStore};

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut opts = LocalOptions::new(dir.path());
    // small enough that the suite exercises both inline and file-backed data
    opts.inline_max = 4096;
    let store = LocalStore::open(opts).expect("open");
    store.create_pool_blocking("conformance").expect("pool");
    Fixture {
        store: Arc::new(store),
        pool: "conformance".into(),
        namespace: unique_namespace("local"),
        keep: Box::new(dir),
    }
}

rsgw_store::conformance_tests!(fixture());
