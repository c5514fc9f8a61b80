//! Data files: objects larger than `inline_max` keep their bytes in immutable
//! files under `data/`; a change writes a new file and swaps the reference.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use rsgw_store::{StoreError, StoreResult};
use rusqlite::OptionalExtension;

use crate::db::{Inner, db_err};

/// A data file written by an operation that has not committed yet. Dropping
/// it without [`NewFile::keep`] deletes it.
pub(crate) struct NewFile {
    /// Path relative to `data/`, as stored in the `file` column.
    pub(crate) rel: String,
    path: PathBuf,
    pub(crate) file: File,
    pub(crate) len: u64,
    kept: bool,
}

impl NewFile {
    pub(crate) fn create(inner: &Inner) -> StoreResult<Self> {
        let seq = inner.file_seq.fetch_add(1, Ordering::Relaxed);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = format!("{:02x}", seq % 256);
        let rel = format!("{dir}/{:x}-{nanos:x}-{seq:x}", std::process::id());
        std::fs::create_dir_all(inner.data_dir.join(&dir))?;
        let path = inner.data_dir.join(&rel);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        Ok(NewFile {
            rel,
            path,
            file,
            len: 0,
            kept: false,
        })
    }

    /// A new file holding `data`.
    pub(crate) fn with_data(inner: &Inner, data: &[u8]) -> StoreResult<Self> {
        let mut f = Self::create(inner)?;
        f.file.write_all(data)?;
        f.len = data.len() as u64;
        Ok(f)
    }

    /// A new file holding a copy of the committed file `rel` (`len` bytes).
    pub(crate) fn copy_of(inner: &Inner, rel: &str, len: u64) -> StoreResult<Self> {
        let mut f = Self::create(inner)?;
        let mut src = File::open(inner.data_dir.join(rel))?;
        let copied = std::io::copy(&mut (&mut src).take(len), &mut f.file)?;
        if copied != len {
            return Err(StoreError::Io(format!(
                "data file {rel} holds {copied} bytes, metadata says {len}"
            )));
        }
        f.len = len;
        Ok(f)
    }

    pub(crate) fn write_at(&mut self, offset: u64, data: &[u8]) -> StoreResult<()> {
        self.file.write_all_at(data, offset)?;
        self.len = self.len.max(offset + data.len() as u64);
        Ok(())
    }

    pub(crate) fn set_len(&mut self, len: u64) -> StoreResult<()> {
        self.file.set_len(len)?;
        self.len = len;
        Ok(())
    }

    /// Reads the first `len` bytes back (used to move small data inline).
    pub(crate) fn read_prefix(&self, len: u64) -> StoreResult<Vec<u8>> {
        let mut buf = vec![0; len as usize];
        self.file.read_exact_at(&mut buf, 0)?;
        Ok(buf)
    }

    pub(crate) fn sync(&self) -> StoreResult<()> {
        self.file.sync_all()?;
        if let Some(dir) = self.path.parent() {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    }

    /// Marks the file as referenced by committed metadata: it stays on drop.
    pub(crate) fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Reads up to `len` bytes at `offset` from the committed file `rel`.
/// `Ok(None)` means the file vanished (replaced by a concurrent write after
/// this reader's snapshot); the caller retries on a fresh snapshot.
pub(crate) fn read_range(
    inner: &Inner,
    rel: &str,
    size: u64,
    offset: u64,
    len: u64,
) -> StoreResult<Option<Vec<u8>>> {
    let file = match File::open(inner.data_dir.join(rel)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let n = size.saturating_sub(offset).min(len) as usize;
    let mut buf = vec![0; n];
    file.read_exact_at(&mut buf, offset)?;
    Ok(Some(buf))
}

/// Deletes a committed file that metadata no longer references.
pub(crate) fn remove_committed(inner: &Inner, rel: &str) {
    if let Err(e) = std::fs::remove_file(inner.data_dir.join(rel)) {
        tracing::warn!(file = rel, error = %e, "could not remove replaced data file");
    }
}

/// What a sweep of orphaned data files did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Data files looked at.
    pub scanned: u64,
    /// Unreferenced files removed.
    pub removed: u64,
}

pub(crate) fn sweep(inner: &Inner, min_age: Duration) -> StoreResult<SweepReport> {
    let mut report = SweepReport::default();
    let now = SystemTime::now();
    let mut candidates = Vec::new();
    for dir in std::fs::read_dir(&inner.data_dir)? {
        let dir = dir?;
        if !dir.file_type()?.is_dir() {
            continue;
        }
        let sub = dir.file_name().to_string_lossy().into_owned();
        for f in std::fs::read_dir(dir.path())? {
            let f = f?;
            report.scanned += 1;
            let age = f
                .metadata()?
                .modified()
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .unwrap_or_default();
            if age >= min_age {
                candidates.push(format!("{sub}/{}", f.file_name().to_string_lossy()));
            }
        }
    }
    let conn = inner.writer();
    for rel in candidates {
        let referenced: Option<i64> = conn
            .query_row("SELECT 1 FROM objects WHERE file = ?1", [&rel], |r| {
                r.get(0)
            })
            .optional()
            .map_err(db_err)?;
        if referenced.is_none() {
            std::fs::remove_file(inner.data_dir.join(&rel))?;
            report.removed += 1;
        }
    }
    Ok(report)
}
