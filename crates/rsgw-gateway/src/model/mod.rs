//! The model: every record rsgw stores, with its encoding (JSON documents,
//! xattr values, omap keys), the names of the RADOS objects that hold them
//! (`layout`), what the operations take and answer (`params`), the
//! options, ids, errors and the numbers with a meaning (`limits`). Bucket
//! policies are records too: `policy` is the IAM policy language, parsed
//! when a policy is put and evaluated per request. Nothing here reads the
//! store.

pub(crate) mod acl;
pub(crate) mod bucket;
pub(crate) mod caps;
pub(crate) mod cors;
pub(crate) mod crypt;
pub(crate) mod error;
pub(crate) mod format;
pub(crate) mod gc;
pub(crate) mod ids;
pub(crate) mod index;
pub(crate) mod layout;
pub(crate) mod lifecycle;
pub(crate) mod limits;
pub(crate) mod lock;
pub(crate) mod object;
pub(crate) mod options;
pub(crate) mod params;
pub(crate) mod policy;
pub(crate) mod quota;
pub(crate) mod ratelimit;
pub(crate) mod upload;
pub(crate) mod usage_log;
pub(crate) mod user;
pub(crate) mod versioning;
pub(crate) mod website;
