//! The engine: the streaming write, index commits and usage counters.

pub(crate) mod index_commit;
pub(crate) mod usage;
pub(crate) mod write;
