//! The operations, one module per family, each adding its methods to the
//! [`crate::Gateway`] (`gateway`): buckets, objects (put, get, delete, copy,
//! ACLs), ACL grantees (`grants`), multipart uploads, listings, tagging, policies, CORS, websites,
//! lifecycle configurations, users and keys, quotas, rate limits, usage
//! (stored bytes, `usage`; requests, radosgw's usage log, `usage_log`),
//! and what operators do to buckets beyond S3 (`bucket_admin`).
//! An operation reads what it needs (the bucket's record, the object's),
//! asks `rules` whether the request may go on, and writes through the
//! `engine`.

pub(crate) mod bucket_admin;
pub(crate) mod buckets;
pub(crate) mod cors;
pub(crate) mod encryption;
pub(crate) mod gateway;
pub(crate) mod grants;
pub(crate) mod lifecycle;
pub(crate) mod list;
pub(crate) mod lock;
pub(crate) mod multipart;
pub(crate) mod objects;
pub(crate) mod policy;
pub(crate) mod quota;
pub(crate) mod radosgw;
pub(crate) mod radosgw_multipart;
pub(crate) mod radosgw_write;
pub(crate) mod ratelimit;
pub(crate) mod tagging;
pub(crate) mod usage;
pub(crate) mod usage_log;
pub(crate) mod users;
pub(crate) mod versioning;
pub(crate) mod website;
