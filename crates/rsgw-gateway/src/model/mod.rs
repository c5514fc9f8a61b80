//! The model: every record with its encoding, the names of the objects
//! that hold them, ids and errors.

pub(crate) mod error;
pub(crate) mod ids;
pub(crate) mod layout;
pub(crate) mod policy;
