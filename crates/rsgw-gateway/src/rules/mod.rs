//! The rules: who may do what, and the checks S3 makes of what is put.

pub(crate) mod acl;
pub(crate) mod authz;
pub(crate) mod cors;
pub(crate) mod lifecycle;
