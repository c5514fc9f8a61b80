//! The rules: S3's semantics as pure functions over the model. Who may do
//! what (the authorization decision, canned ACLs, what a bucket policy
//! says), what a request's conditions and ranges select, and the checks S3
//! makes of names, tags, CORS, website and lifecycle configurations and
//! quotas. Nothing here reads the store or knows the gateway.

pub(crate) mod acl;
pub(crate) mod authz;
pub(crate) mod checksum;
pub(crate) mod cors;
pub(crate) mod crypt;
pub(crate) mod lifecycle;
pub(crate) mod lock;
pub(crate) mod names;
pub(crate) mod policy;
pub(crate) mod preconditions;
pub(crate) mod quota;
pub(crate) mod tagging;
pub(crate) mod website;
