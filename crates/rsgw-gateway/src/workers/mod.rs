//! The workers: the garbage collector (`gc`) and the lifecycle worker
//! (`lc`), which run passes over what the operations left (the GC log, the
//! buckets with lifecycle rules), through the operations themselves.

pub(crate) mod gc;
pub(crate) mod lc;
