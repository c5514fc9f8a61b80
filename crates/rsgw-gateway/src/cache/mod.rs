//! The caches of this instance, kept coherent across instances: bucket
//! records, access keys, users' quotas and the rate limits (`meta`), small
//! objects (`objects`), the watch and the announcements that keep them
//! coherent (`coherence`), the rate limiter's token buckets
//! (`limiter`), and the usage log's counts not yet written (`usage`). They take the store and the timeouts they need as
//! arguments; nothing here knows the gateway.

pub(crate) mod coherence;
pub(crate) mod limiter;
pub(crate) mod meta;
pub(crate) mod objects;
pub(crate) mod usage;
