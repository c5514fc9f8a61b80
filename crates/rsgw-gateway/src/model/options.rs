//! The gateway's sizes, limits and timings.

use std::time::Duration;

use crate::model::crypt::CryptOptions;

/// Sizes and limits of the gateway layer.
#[derive(Debug, Clone)]
pub struct GatewayOptions {
    /// Bytes kept in an object's head RADOS object (`rgw_max_chunk_size`).
    pub chunk_size: u64,
    /// Size of each further RADOS object of a large object (`rgw_obj_stripe_size`).
    pub stripe_size: u64,
    /// Largest single PUT (`rgw_max_put_size`).
    pub max_put_size: u64,
    /// Smallest part of a multipart upload, but the last
    /// (`rgw_multipart_min_part_size`).
    pub min_part_size: u64,
    /// How long bucket and key lookups stay cached while the instance does
    /// not watch for changes ([`crate::Gateway::watch_metadata`] not called, or its
    /// watch broken); watched entries live until a change invalidates them.
    pub metadata_cache_ttl: Duration,
    /// How long an announced metadata change waits for every watching
    /// instance to acknowledge it; see `cache::coherence`.
    pub metadata_notify_timeout: Duration,
    /// How old an unfinished write's leftovers must be before the garbage
    /// collector removes them.
    pub gc_min_age: Duration,
    /// Index shards of a bucket created from now on (at least 1).
    pub bucket_index_shards: u32,
    /// Keys of one [`crate::Gateway::delete_objects`] call deleted at once (at least 1).
    pub multi_delete_concurrency: usize,
    /// Most bytes a bucket's record may take after a change that sets
    /// something in it (removals always go through).
    pub max_bucket_record_bytes: usize,
    /// Bytes of small objects kept in memory (0: no object cache); see
    /// `cache::objects`.
    pub object_cache_bytes: u64,
    /// Largest object the object cache holds (at most `chunk_size`: the
    /// cache holds objects whose data lies in their head).
    pub object_cache_max_object: u64,
    /// Seconds in a lifecycle "day" (86400; fewer only to watch rules act
    /// in tests, as radosgw's `rgw_lc_debug_interval`).
    pub lc_day_s: u64,
    /// Deletions and aborts a lifecycle pass makes per second at most (0:
    /// no limit).
    pub lc_max_ops_per_s: u32,
    /// How long a lifecycle pass's lease lasts unless renewed (a pass that
    /// died holds it this long).
    pub lc_lease: Duration,
    /// Server-side encryption: the keys and whether plain HTTP may carry
    /// encryption requests.
    pub crypt: CryptOptions,
    /// Whether answered requests are counted in the usage log
    /// (`model::usage_log`, radosgw's `rgw_enable_usage_log`).
    pub usage_log: bool,
}

impl Default for GatewayOptions {
    fn default() -> Self {
        GatewayOptions {
            chunk_size: 4 << 20,
            stripe_size: 4 << 20,
            max_put_size: 5 << 30,
            min_part_size: 5 << 20,
            metadata_cache_ttl: Duration::from_secs(1),
            metadata_notify_timeout: Duration::from_secs(5),
            gc_min_age: Duration::from_secs(3600),
            bucket_index_shards: 11,
            multi_delete_concurrency: 16,
            max_bucket_record_bytes: 4 << 20,
            object_cache_bytes: 64 << 20,
            object_cache_max_object: 256 << 10,
            lc_day_s: 86_400,
            lc_max_ops_per_s: 100,
            lc_lease: Duration::from_secs(60),
            crypt: CryptOptions::default(),
            usage_log: false,
        }
    }
}
