//! The zone reader's listing over a sharded index, on the embedded store:
//! shards of uneven sizes, more entries than one omap page, namespaced
//! entries (multipart parts) and escaped keys. The entries' values are a
//! real index entry radosgw 16.2 wrote; only their omap keys differ.

use std::sync::Arc;

use rsgw_radosgw::acl::decode_policy;
use rsgw_radosgw::bucket::decode_bucket_instance;
use rsgw_radosgw::index::shard_object;
use rsgw_radosgw::zone::{Zone, ZoneBucket, index_key};
use rsgw_radosgw::zone_params::decode_zone_params;
use rsgw_store::{ObjectId, Store, WriteOp};
use rsgw_store_local::{LocalOptions, LocalStore};

const ENTRY: &[u8] = include_bytes!("data/entry-plain.bin");
const INSTANCE: &[u8] = include_bytes!("data/instance-plain.bin");
const ACL: &[u8] = include_bytes!("data/acl-bucket-plain.bin");
const ZONE: &[u8] = include_bytes!("data/zone-info-default.bin");

/// Keys per shard: the first holds over two omap pages, so its keys past
/// the first page must not be skipped for the others' later keys.
const SHARD_SIZES: [usize; 3] = [2500, 400, 100];

async fn sharded_bucket() -> (Zone, ZoneBucket, Vec<String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut opts = LocalOptions::new(dir.path());
    // the zone names its pools whole
    opts.pool_prefix = String::new();
    let store = LocalStore::open(opts).expect("open");
    let params = decode_zone_params(ZONE).expect("zone");
    let placement = params.placement("default-placement").expect("placement");
    let (index_pool, data_pool) = (
        placement.index_pool.clone(),
        placement.data_pool("").expect("data pool").clone(),
    );
    store.create_pool_blocking(&index_pool.name).expect("pool");
    let store: Arc<dyn Store> = Arc::new(store);
    let mut info = decode_bucket_instance(INSTANCE).expect("instance");
    info.index.num_shards = SHARD_SIZES.len() as u32;
    let bucket = ZoneBucket {
        info,
        acl: decode_policy(ACL).expect("acl"),
        policy: None,
        cors: Vec::new(),
        tags: Default::default(),
        data_extra_pool: placement.data_extra_pool.clone(),
        index_pool,
        data_pool,
    };
    let mut keys = Vec::new();
    for (shard, &n) in SHARD_SIZES.iter().enumerate() {
        // each shard's keys spread over one range, so the small shards
        // hold keys past the large one's first page
        let shard_keys: Vec<String> = (0..n)
            .map(|i| format!("k{:05}-{shard}", i * 7500 / n))
            .collect();
        let mut entries: Vec<(String, &[u8])> =
            shard_keys.iter().map(|k| (index_key(k), ENTRY)).collect();
        entries.push((format!("_multipart_k{shard}.2~upload.1"), ENTRY));
        entries.push((index_key(&format!("_under-{shard}")), ENTRY));
        keys.extend(shard_keys);
        keys.push(format!("_under-{shard}"));
        let oid = shard_object(
            &bucket.info.bucket.bucket_id,
            bucket.info.index.generation,
            Some(shard as u32),
        );
        for chunk in entries.chunks(500) {
            let op = WriteOp::new().omap_set(chunk.iter().map(|(k, v)| (k.clone(), v.to_vec())));
            let shard =
                ObjectId::in_namespace(&bucket.index_pool.name, &bucket.index_pool.ns, &oid);
            store.write(&shard, op).await.expect("omap");
        }
    }
    keys.sort();
    let zone = Zone::with_params(store, params).expect("zone");
    (zone, bucket, keys, dir)
}

#[tokio::test]
async fn a_sharded_listing_is_every_key_once_in_order() {
    let (zone, bucket, keys, _dir) = sharded_bucket().await;
    let all = zone.list(&bucket, "", "", usize::MAX).await.expect("list");
    let listed: Vec<&str> = all.entries.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(listed, keys);
    assert!(!all.truncated);

    let mut paged = Vec::new();
    let mut after = String::new();
    loop {
        let page = zone.list(&bucket, "", &after, 700).await.expect("page");
        assert!(page.entries.len() <= 700);
        paged.extend(page.entries.iter().map(|o| o.key.clone()));
        if !page.truncated {
            break;
        }
        after = paged.last().expect("a truncated page has entries").clone();
    }
    assert_eq!(paged, keys);
}

#[tokio::test]
async fn prefixes_find_escaped_keys_and_hide_namespaces() {
    let (zone, bucket, keys, _dir) = sharded_bucket().await;
    let under = zone.list(&bucket, "_", "", 100).await.expect("list");
    let listed: Vec<&str> = under.entries.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(listed, ["_under-0", "_under-1", "_under-2"]);
    let some = zone.list(&bucket, "k06", "", 1000).await.expect("list");
    let want: Vec<&String> = keys.iter().filter(|k| k.starts_with("k06")).collect();
    assert_eq!(
        some.entries.iter().map(|o| &o.key).collect::<Vec<_>>(),
        want
    );
}
