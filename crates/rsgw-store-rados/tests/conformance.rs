//! The shared backend conformance suite, run against a real Ceph cluster.
//!
//! Needs `RSGW_TEST_CEPH_CONF` (the test command sets it after starting the
//! throwaway cluster with `scripts/ceph-micro start`). Without it every test
//! fails: a rados build is never reported green without having seen RADOS.

use std::sync::{Arc, OnceLock};

use rsgw_store::Store;
use rsgw_store::conformance::{Fixture, unique_namespace};
use rsgw_store_rados::{RadosOptions, RadosStore};

fn store() -> RadosStore {
    static STORE: OnceLock<RadosStore> = OnceLock::new();
    STORE
        .get_or_init(|| {
            let conf = std::env::var("RSGW_TEST_CEPH_CONF").expect(
                "RSGW_TEST_CEPH_CONF is not set: start a cluster with `scripts/ceph-micro start` \
                 and point it at its ceph.conf (the test command does both)",
            );
            let mut opts = RadosOptions::new(conf);
            opts.pool_prefix = "rsgwtest".into();
            opts.op_timeout = std::time::Duration::from_secs(20);
            let store = RadosStore::connect(opts).expect("connect to the test cluster");
            store
                .create_pool_blocking("conformance")
                .expect("create pool");
            store
        })
        .clone()
}

fn fixture() -> Fixture {
    Fixture {
        store: Arc::new(store()),
        pool: "conformance".into(),
        namespace: unique_namespace("rados"),
        keep: Box::new(()),
    }
}

rsgw_store::conformance_tests!(fixture());
