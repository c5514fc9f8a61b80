//! Compound writes: guards and actions applied in one SQLite transaction.

use std::time::SystemTime;

use rsgw_store::{
    Fullness, Guard, ObjectId, StoreError, StoreResult, WriteAction, WriteOp, WriteOutcome,
    validate_object_name,
};
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use crate::db::{Inner, db_err, obj_row_name};
use crate::files::{self, NewFile};

/// An object's data while an operation changes it.
enum Data {
    /// Held in the database row.
    Inline(Vec<u8>),
    /// A committed file, left untouched.
    Committed { rel: String, len: u64 },
    /// A file written by this operation.
    Fresh(NewFile),
}

impl Data {
    fn len(&self) -> u64 {
        match self {
            Data::Inline(v) => v.len() as u64,
            Data::Committed { len, .. } => *len,
            Data::Fresh(f) => f.len,
        }
    }
}

struct Row {
    id: i64,
    size: u64,
    file: Option<String>,
}

/// The object as the transaction sees it.
struct ObjectTx<'a> {
    inner: &'a Inner,
    tx: &'a Transaction<'a>,
    pool: i64,
    obj: &'a ObjectId,
    id: Option<i64>,
    /// The file the committed row referenced when the op began.
    original_file: Option<String>,
    original_size: u64,
    /// Loaded on the first data action.
    data: Option<Data>,
    header: Option<Vec<u8>>,
    /// Committed files to delete once the transaction commits.
    superseded: Vec<String>,
}

impl<'a> ObjectTx<'a> {
    fn exists(&self) -> bool {
        self.id.is_some()
    }

    fn require(&self) -> StoreResult<i64> {
        self.id.ok_or(StoreError::NotFound)
    }

    fn ensure(&mut self) -> StoreResult<i64> {
        if let Some(id) = self.id {
            return Ok(id);
        }
        self.tx
            .prepare_cached(
                "INSERT INTO objects (pool, ns, name, size, mtime_ns, version, data)
                 VALUES (?1, ?2, ?3, 0, 0, 0, x'')",
            )
            .and_then(|mut s| {
                s.execute(params![
                    self.pool,
                    self.obj.namespace.as_bytes(),
                    obj_row_name(self.obj)
                ])
            })
            .map_err(db_err)?;
        let id = self.tx.last_insert_rowid();
        self.id = Some(id);
        self.original_size = 0;
        self.data = Some(Data::Inline(Vec::new()));
        Ok(id)
    }

    fn data(&mut self) -> StoreResult<&mut Data> {
        if self.data.is_none() {
            let id = self.ensure()?;
            let data = match &self.original_file {
                Some(rel) => Data::Committed {
                    rel: rel.clone(),
                    len: self.original_size,
                },
                None => Data::Inline(
                    self.tx
                        .query_row("SELECT data FROM objects WHERE id = ?1", [id], |r| {
                            r.get::<_, Option<Vec<u8>>>(0)
                        })
                        .map_err(db_err)?
                        .unwrap_or_default(),
                ),
            };
            self.data = Some(data);
        }
        Ok(self.data.as_mut().expect("data loaded above"))
    }

    fn check_size(&self, size: u64) -> StoreResult<()> {
        let limit = self.inner.opts.max_object_size;
        if size > limit {
            return Err(StoreError::TooLarge { limit });
        }
        Ok(())
    }

    /// Makes the data a file of this operation, copying what was there.
    fn fresh_file(&mut self) -> StoreResult<&mut NewFile> {
        let inner = self.inner;
        let data = self.data()?;
        let fresh = match data {
            Data::Fresh(_) => None,
            Data::Inline(v) => Some(NewFile::with_data(inner, v)?),
            Data::Committed { rel, len } => Some(NewFile::copy_of(inner, rel, *len)?),
        };
        if let Some(f) = fresh {
            *data = Data::Fresh(f);
        }
        match data {
            Data::Fresh(f) => Ok(f),
            _ => unreachable!("data was just made fresh"),
        }
    }

    fn write_at(&mut self, offset: u64, bytes: &[u8]) -> StoreResult<()> {
        let end = offset + bytes.len() as u64;
        let new_len = self.data()?.len().max(end);
        self.check_size(new_len)?;
        let inline_max = self.inner.opts.inline_max as u64;
        if let Data::Inline(v) = self.data()?
            && new_len <= inline_max
        {
            v.resize(new_len as usize, 0);
            v[offset as usize..end as usize].copy_from_slice(bytes);
            return Ok(());
        }
        self.fresh_file()?.write_at(offset, bytes)
    }

    fn truncate(&mut self, size: u64) -> StoreResult<()> {
        self.check_size(size)?;
        let inline_max = self.inner.opts.inline_max as u64;
        let inner = self.inner;
        let data = self.data()?;
        if size <= inline_max {
            let mut prefix = match data {
                Data::Inline(v) => std::mem::take(v),
                Data::Fresh(f) => f.read_prefix(size.min(f.len))?,
                Data::Committed { rel, len } => files::read_range(inner, rel, *len, 0, size)?
                    .ok_or_else(|| StoreError::Io(format!("data file {rel} is missing")))?,
            };
            prefix.resize(size as usize, 0);
            *data = Data::Inline(prefix);
            return Ok(());
        }
        self.fresh_file()?.set_len(size)
    }

    fn remove(&mut self) -> StoreResult<()> {
        let id = self.require()?;
        for sql in [
            "DELETE FROM xattrs WHERE obj = ?1",
            "DELETE FROM omap WHERE obj = ?1",
            "DELETE FROM objects WHERE id = ?1",
        ] {
            self.tx
                .prepare_cached(sql)
                .and_then(|mut s| s.execute([id]))
                .map_err(db_err)?;
        }
        self.id = None;
        self.data = None;
        self.header = None;
        if let Some(rel) = self.original_file.take() {
            self.superseded.push(rel);
        }
        self.original_size = 0;
        Ok(())
    }

    fn xattr(&self, id: i64, name: &str) -> StoreResult<Vec<u8>> {
        Ok(self
            .tx
            .prepare_cached("SELECT value FROM xattrs WHERE obj = ?1 AND name = ?2")
            .and_then(|mut s| {
                s.query_row(params![id, name.as_bytes()], |r| r.get::<_, Vec<u8>>(0))
                    .optional()
            })
            .map_err(db_err)?
            .unwrap_or_default())
    }

    fn exec(&self, sql: &str, p: impl rusqlite::Params) -> StoreResult<()> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| s.execute(p))
            .map_err(db_err)
            .map(|_| ())
    }

    fn apply(&mut self, action: WriteAction, staged: Option<NewFile>) -> StoreResult<()> {
        match action {
            WriteAction::Create => {
                self.ensure()?;
            }
            WriteAction::WriteFull(bytes) => {
                self.check_size(bytes.len() as u64)?;
                self.ensure()?;
                self.data = Some(match staged {
                    Some(f) => Data::Fresh(f),
                    None => Data::Inline(bytes.to_vec()),
                });
            }
            WriteAction::Write { offset, data } => self.write_at(offset, &data)?,
            WriteAction::Append(bytes) => {
                let end = self.data()?.len();
                self.write_at(end, &bytes)?;
            }
            WriteAction::Truncate(size) => self.truncate(size)?,
            WriteAction::SetXattr(name, value) => {
                let id = self.ensure()?;
                self.exec(
                    "INSERT OR REPLACE INTO xattrs (obj, name, value) VALUES (?1, ?2, ?3)",
                    params![id, name.as_bytes(), &value[..]],
                )?;
            }
            WriteAction::RmXattr(name) => {
                let id = self.require()?;
                self.exec(
                    "DELETE FROM xattrs WHERE obj = ?1 AND name = ?2",
                    params![id, name.as_bytes()],
                )?;
            }
            WriteAction::OmapSet(entries) => {
                let id = self.ensure()?;
                for (k, v) in entries {
                    self.exec(
                        "INSERT OR REPLACE INTO omap (obj, key, value) VALUES (?1, ?2, ?3)",
                        params![id, k.as_bytes(), &v[..]],
                    )?;
                }
            }
            WriteAction::OmapRm(keys) => {
                let id = self.require()?;
                for k in keys {
                    self.exec(
                        "DELETE FROM omap WHERE obj = ?1 AND key = ?2",
                        params![id, k.as_bytes()],
                    )?;
                }
            }
            WriteAction::OmapClear => {
                let id = self.require()?;
                self.exec("DELETE FROM omap WHERE obj = ?1", [id])?;
            }
            WriteAction::OmapSetHeader(h) => {
                self.ensure()?;
                self.header = Some(h.to_vec());
            }
            WriteAction::Remove => self.remove()?,
            WriteAction::Exec { .. } => return Err(no_classes()),
        }
        Ok(())
    }

    /// Writes the row's final state and returns the new version plus the
    /// fresh file to keep, if any.
    fn finish(&mut self) -> StoreResult<(u64, Option<NewFile>)> {
        let version: u64 = self
            .tx
            .query_row(
                "UPDATE counters SET value = value + 1 WHERE name = 'version' RETURNING value",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_err(db_err)? as u64;
        let Some(id) = self.id else {
            return Ok((version, None));
        };
        let mtime = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i64);
        let mut keep = None;
        match self.data.take() {
            None => self.exec(
                "UPDATE objects SET mtime_ns = ?2, version = ?3 WHERE id = ?1",
                params![id, mtime, version as i64],
            )?,
            Some(data) => {
                let size = data.len() as i64;
                let (inline, file) = match data {
                    Data::Inline(v) => (Some(v), None),
                    Data::Committed { rel, .. } => (None, Some(rel)),
                    Data::Fresh(f) => {
                        if self.inner.opts.fsync {
                            f.sync()?;
                        }
                        let rel = f.rel.clone();
                        keep = Some(f);
                        (None, Some(rel))
                    }
                };
                if self.original_file.is_some() && self.original_file != file {
                    self.superseded.extend(self.original_file.take());
                }
                self.exec(
                    "UPDATE objects SET size = ?2, mtime_ns = ?3, version = ?4, data = ?5, file = ?6
                     WHERE id = ?1",
                    params![id, size, mtime, version as i64, inline, file],
                )?;
            }
        }
        if let Some(h) = self.header.take() {
            self.exec(
                "UPDATE objects SET omap_header = ?2 WHERE id = ?1",
                params![id, h],
            )?;
        }
        Ok((version, keep))
    }
}

/// Whether `op` adds data (what a full store refuses, as an OSD does:
/// metadata changes and removals still pass).
fn adds_data(op: &WriteOp) -> bool {
    op.actions.iter().any(|a| match a {
        WriteAction::WriteFull(b) | WriteAction::Append(b) | WriteAction::Write { data: b, .. } => {
            !b.is_empty()
        }
        _ => false,
    })
}

/// `Full` if the data directory's filesystem has less room than the reserve.
fn check_room(inner: &Inner) -> StoreResult<()> {
    let reserve = inner.opts.min_free_bytes;
    if reserve == 0 {
        return Ok(());
    }
    let fs = nix::sys::statvfs::statvfs(&inner.data_dir)
        .map_err(|e| StoreError::Io(format!("statvfs of the data directory: {e}")))?;
    let free = fs.blocks_available().saturating_mul(fs.fragment_size());
    if free < reserve {
        return Err(StoreError::Full(Fullness::NoSpace));
    }
    Ok(())
}

/// The refusal of an object class call: only RADOS has object classes.
fn no_classes() -> StoreError {
    StoreError::InvalidArgument(
        "object class calls need RADOS: the embedded backend has no object classes".into(),
    )
}

/// Applies `op` to `obj` atomically.
pub(crate) fn write(inner: &Inner, obj: &ObjectId, op: WriteOp) -> StoreResult<WriteOutcome> {
    validate_object_name(obj)?;
    op.validate()?;
    if op.calls_a_class() {
        return Err(no_classes());
    }
    if adds_data(&op) {
        check_room(inner)?;
    }
    // Large whole-object payloads go to disk before the lock is taken.
    let mut staged: Vec<Option<NewFile>> = Vec::with_capacity(op.actions.len());
    for a in &op.actions {
        staged.push(match a {
            WriteAction::WriteFull(b) if b.len() > inner.opts.inline_max => {
                if b.len() as u64 > inner.opts.max_object_size {
                    return Err(StoreError::TooLarge {
                        limit: inner.opts.max_object_size,
                    });
                }
                Some(NewFile::with_data(inner, b)?)
            }
            _ => None,
        });
    }
    let mut conn = inner.writer();
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(db_err)?;
    let pool = inner.pool_id(&tx, &obj.pool)?;
    let row: Option<Row> = tx
        .prepare_cached(
            "SELECT id, size, file FROM objects WHERE pool = ?1 AND ns = ?2 AND name = ?3",
        )
        .and_then(|mut s| {
            s.query_row(
                params![pool, obj.namespace.as_bytes(), obj_row_name(obj)],
                |r| {
                    Ok(Row {
                        id: r.get(0)?,
                        size: r.get::<_, i64>(1)? as u64,
                        file: r.get(2)?,
                    })
                },
            )
            .optional()
        })
        .map_err(db_err)?;
    let mut otx = ObjectTx {
        inner,
        tx: &tx,
        pool,
        obj,
        id: row.as_ref().map(|r| r.id),
        original_size: row.as_ref().map_or(0, |r| r.size),
        original_file: row.and_then(|r| r.file),
        data: None,
        header: None,
        superseded: Vec::new(),
    };
    for g in &op.guards {
        match g {
            Guard::Exists => {
                otx.require()?;
            }
            Guard::NotExists => {
                if otx.exists() {
                    return Err(StoreError::Exists);
                }
                otx.ensure()?;
            }
            Guard::Xattr { name, op, value } => {
                let id = otx.require()?;
                let stored = otx.xattr(id, name)?;
                if !op.holds(&stored, value) {
                    return Err(StoreError::GuardFailed(format!("xattr '{name}' {op:?}")));
                }
            }
        }
    }
    for (action, staged) in op.actions.into_iter().zip(staged) {
        otx.apply(action, staged)?;
    }
    let (version, keep) = otx.finish()?;
    let superseded = std::mem::take(&mut otx.superseded);
    tx.commit().map_err(db_err)?;
    drop(conn);
    if let Some(f) = keep {
        f.keep();
    }
    for rel in superseded {
        files::remove_committed(inner, &rel);
    }
    Ok(WriteOutcome {
        version,
        pool: None,
    })
}
