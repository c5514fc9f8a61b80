//! Large reads in two steps. librados writes a read's data into a buffer
//! the caller allocates at the size asked for, and a GET asks for a whole
//! head (4 MiB) before it knows the object's size: allocating, and freeing,
//! 4 MiB for a 260-byte object cost more CPU than anything else rsgw does
//! for a small GET. So a read of more than [`FIRST_READ`] bytes first asks
//! for that much, with a stat and everything else the op wants; only when
//! the object holds more does a second op read the exact remainder of the
//! range, at the same object version. If the object changed in between,
//! both run again, [`RETRIES`] times at most; then the whole op runs in one
//! step, which no writer can starve (RADOS answers a compound read from one
//! object version), so a busy object is read, never refused.

use bytes::Bytes;
use rsgw_store::{ReadOp, ReadResult, StoreError, StoreResult};

/// Bytes a split read asks for first.
pub(crate) const FIRST_READ: u64 = 64 * 1024;

/// Times a split read starts over when the object changed between its
/// steps, before it falls back to one step.
pub(crate) const RETRIES: usize = 4;

/// The first step of `op`, or `None` when `op` is read in one step.
pub(crate) fn first_step(op: &ReadOp) -> Option<ReadOp> {
    match op.read {
        Some((off, len)) if len > FIRST_READ => {
            let mut first = op.clone();
            first.read = Some((off, FIRST_READ));
            first.stat = true;
            Some(first)
        }
        _ => None,
    }
}

/// What the second step must read (a plain read of the whole range, now of
/// known length) and the object version it must find; `None` when the first
/// step got everything.
pub(crate) fn second_step(op: &ReadOp, first: &ReadResult) -> StoreResult<Option<(ReadOp, u64)>> {
    let (Some((off, len)), Some(stat), Some(data)) = (op.read, &first.stat, &first.data) else {
        return Err(StoreError::Io(
            "split read: first step lacks stat or data".into(),
        ));
    };
    if (data.len() as u64) < FIRST_READ || stat.size <= off.saturating_add(FIRST_READ) {
        return Ok(None);
    }
    let exact = len.min(stat.size - off);
    Ok(Some((ReadOp::new().read(off, exact), stat.version)))
}

/// The answer to `op` from its first step and, if any, the second's data.
pub(crate) fn merge(op: &ReadOp, mut first: ReadResult, rest: Option<Bytes>) -> ReadResult {
    if let Some(data) = rest {
        first.data = Some(data);
    }
    if !op.stat {
        first.stat = None;
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsgw_store::ObjectStat;

    fn answer(size: u64, got: usize) -> ReadResult {
        ReadResult {
            stat: Some(ObjectStat {
                size,
                mtime: std::time::SystemTime::UNIX_EPOCH,
                version: 7,
            }),
            data: Some(Bytes::from(vec![0; got])),
            ..Default::default()
        }
    }

    #[test]
    fn small_reads_are_not_split() {
        assert!(first_step(&ReadOp::new().xattrs().read(0, 4096)).is_none());
        assert!(first_step(&ReadOp::new().xattrs()).is_none());
    }

    #[test]
    fn large_reads_take_the_exact_rest_at_the_same_version() {
        let op = ReadOp::new().xattrs().read(0, 4 << 20);
        let first = first_step(&op).expect("split");
        assert_eq!(first.read, Some((0, FIRST_READ)));
        assert!(first.stat && first.xattrs);
        assert!(second_step(&op, &answer(260, 260)).expect("plan").is_none());
        let (rest, version) = second_step(&op, &answer(100_000, FIRST_READ as usize))
            .expect("plan")
            .expect("second step");
        assert_eq!(rest.read, Some((0, 100_000)));
        assert_eq!(version, 7);
        let merged = merge(
            &op,
            answer(100_000, FIRST_READ as usize),
            Some(Bytes::from(vec![1; 100_000])),
        );
        assert_eq!(merged.data.map(|d| d.len()), Some(100_000));
        assert!(merged.stat.is_none(), "the caller did not ask for a stat");
    }
}
