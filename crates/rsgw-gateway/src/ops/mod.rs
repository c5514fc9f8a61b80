//! The operations, one module per family.

pub(crate) mod buckets;
pub(crate) mod list;
pub(crate) mod multipart;
pub(crate) mod objects;
pub(crate) mod policy;
pub(crate) mod quota;
pub(crate) mod tagging;
pub(crate) mod users;
pub(crate) mod website;
