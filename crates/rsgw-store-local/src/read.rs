//! Compound reads from one snapshot of the database.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use rsgw_store::{
    OMAP_MAX_PAGE, ObjectId, ObjectStat, OmapPage, ReadOp, ReadResult, StoreError, StoreResult,
    validate_object_name,
};
use rusqlite::{OptionalExtension, params};

use crate::db::{Inner, db_err, obj_row_name};
use crate::files;

/// How often a read retries when a concurrent write replaced the data file
/// between the snapshot and the file's opening.
const FILE_RACE_RETRIES: usize = 8;

fn blob_to_string(v: Vec<u8>) -> StoreResult<String> {
    String::from_utf8(v).map_err(|e| StoreError::Io(format!("stored key is not UTF-8: {e}")))
}

/// Whether a read may wait: for the database lock, or for a data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// On a thread that may block: anything goes.
    Allowed,
    /// On an async worker: only what the database holds, and only if no
    /// lock is in the way; otherwise the read answers `None`.
    Never,
}

/// What one attempt found.
enum Attempt {
    Done(Box<ReadResult>),
    /// The data file vanished under the snapshot (a write replaced it).
    FileRaced,
    /// The read would have to wait (a data file to read, a lock).
    WouldWait,
}

/// Runs `op` on `obj`; `None` only with [`Wait::Never`], when the read
/// needs a thread that may block.
pub(crate) fn read(
    inner: &Inner,
    obj: &ObjectId,
    op: &ReadOp,
    wait: Wait,
) -> StoreResult<Option<ReadResult>> {
    validate_object_name(obj)?;
    if op.exec.is_some() {
        return Err(StoreError::InvalidArgument(
            "object class calls need RADOS: the embedded backend has no object classes".into(),
        ));
    }
    for _ in 0..FILE_RACE_RETRIES {
        let attempt = inner.with_snapshot(wait == Wait::Allowed, |conn| {
            read_once(inner, conn, obj, op, wait)
        });
        match attempt {
            Ok(Attempt::Done(r)) => return Ok(Some(*r)),
            Ok(Attempt::FileRaced) => continue,
            Ok(Attempt::WouldWait) | Err(StoreError::Timeout) if wait == Wait::Never => {
                return Ok(None);
            }
            Ok(Attempt::WouldWait) => {
                return Err(StoreError::Io("a blocking read refused to wait".into()));
            }
            Err(e) => return Err(e),
        }
    }
    Err(StoreError::Io(format!(
        "data of {} kept changing under the read",
        obj.name
    )))
}

/// One attempt, in one snapshot.
fn read_once(
    inner: &Inner,
    tx: &rusqlite::Connection,
    obj: &ObjectId,
    op: &ReadOp,
    wait: Wait,
) -> StoreResult<Attempt> {
    let pool = inner.pool_id(tx, &obj.pool)?;
    let (off, len) = op.read.unwrap_or((0, 0));
    let row = tx
        .prepare_cached(
            "SELECT id, size, mtime_ns, version, file, omap_header,
                    CASE WHEN ?4 THEN substr(data, ?5, ?6) END
             FROM objects WHERE pool = ?1 AND ns = ?2 AND name = ?3",
        )
        .and_then(|mut s| {
            s.query_row(
                params![
                    pool,
                    obj.namespace.as_bytes(),
                    obj_row_name(obj),
                    op.read.is_some(),
                    (off as i64).saturating_add(1),
                    len.min(i64::MAX as u64) as i64
                ],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)? as u64,
                        r.get::<_, i64>(2)?,
                        r.get::<_, i64>(3)? as u64,
                        r.get::<_, Option<String>>(4)?,
                        r.get::<_, Option<Vec<u8>>>(5)?,
                        r.get::<_, Option<Vec<u8>>>(6)?,
                    ))
                },
            )
            .optional()
        })
        .map_err(db_err)?;
    let Some((id, size, mtime_ns, version, file, header, inline)) = row else {
        return Err(StoreError::NotFound);
    };
    if wait == Wait::Never && op.read.is_some() && file.is_some() {
        return Ok(Attempt::WouldWait);
    }
    let mut out = ReadResult::default();
    if op.stat {
        out.stat = Some(ObjectStat {
            size,
            mtime: SystemTime::UNIX_EPOCH + Duration::from_nanos(mtime_ns.max(0) as u64),
            version,
        });
    }
    if op.read.is_some() {
        let data = match &file {
            Some(rel) => match files::read_range(inner, rel, size, off, len)? {
                Some(d) => d,
                None => return Ok(Attempt::FileRaced),
            },
            None => inline.unwrap_or_default(),
        };
        out.data = Some(Bytes::from(data));
    }
    if op.xattrs {
        let mut stmt = tx
            .prepare_cached("SELECT name, value FROM xattrs WHERE obj = ?1 ORDER BY name")
            .map_err(db_err)?;
        let rows = stmt
            .query_map([id], |r| {
                Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Vec<u8>>(1)?))
            })
            .map_err(db_err)?;
        let mut map = BTreeMap::new();
        for row in rows {
            let (k, v) = row.map_err(db_err)?;
            map.insert(blob_to_string(k)?, Bytes::from(v));
        }
        out.xattrs = Some(map);
    }
    if let Some(q) = &op.omap {
        let start = q.start_after.as_bytes().max(q.prefix.as_bytes());
        let inclusive = q.start_after.as_bytes() < q.prefix.as_bytes();
        let sql = if inclusive {
            "SELECT key, value FROM omap WHERE obj = ?1 AND key >= ?2 ORDER BY key LIMIT ?3"
        } else {
            "SELECT key, value FROM omap WHERE obj = ?1 AND key > ?2 ORDER BY key LIMIT ?3"
        };
        let mut stmt = tx.prepare_cached(sql).map_err(db_err)?;
        let max = q.max.min(OMAP_MAX_PAGE);
        let limit = (max + 1) as i64;
        let rows = stmt
            .query_map(params![id, start, limit], |r| {
                Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Vec<u8>>(1)?))
            })
            .map_err(db_err)?;
        let mut page = OmapPage::default();
        for row in rows {
            let (k, v) = row.map_err(db_err)?;
            if !k.starts_with(q.prefix.as_bytes()) {
                break;
            }
            if page.entries.len() as u64 == max {
                page.more = true;
                break;
            }
            page.entries.push((blob_to_string(k)?, Bytes::from(v)));
        }
        out.omap = Some(page);
    }
    if let Some(keys) = &op.omap_keys {
        let mut stmt = tx
            .prepare_cached("SELECT value FROM omap WHERE obj = ?1 AND key = ?2")
            .map_err(db_err)?;
        let mut map = BTreeMap::new();
        for k in keys {
            if let Some(v) = stmt
                .query_row(params![id, k.as_bytes()], |r| r.get::<_, Vec<u8>>(0))
                .optional()
                .map_err(db_err)?
            {
                map.insert(k.clone(), Bytes::from(v));
            }
        }
        out.omap_keys = Some(map);
    }
    if op.omap_header {
        out.omap_header = Some(Bytes::from(header.unwrap_or_default()));
    }
    Ok(Attempt::Done(Box::new(out)))
}
