//! The workers: garbage collection and lifecycle passes.

pub(crate) mod gc;
pub(crate) mod lc;
