//! The caches of this instance and their coherence across instances.

pub(crate) mod coherence;
pub(crate) mod limiter;
pub(crate) mod meta;
pub(crate) mod objects;

pub(crate) use meta::{Change, MetaCache};
