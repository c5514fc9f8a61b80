//! The SQLite side: schema, connections, pools.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use rsgw_store::{Fullness, ObjectId, StoreError, StoreResult};
use rusqlite::{Connection, OpenFlags, OptionalExtension, ffi::ErrorCode};

use crate::LocalOptions;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS pools (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS objects (
    id          INTEGER PRIMARY KEY,
    pool        INTEGER NOT NULL,
    ns          BLOB NOT NULL,
    name        BLOB NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    version     INTEGER NOT NULL,
    data        BLOB,
    file        TEXT,
    omap_header BLOB,
    UNIQUE (pool, ns, name)
);
CREATE INDEX IF NOT EXISTS objects_file ON objects (file) WHERE file IS NOT NULL;
CREATE TABLE IF NOT EXISTS xattrs (
    obj   INTEGER NOT NULL,
    name  BLOB NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (obj, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS omap (
    obj   INTEGER NOT NULL,
    key   BLOB NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (obj, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
INSERT OR IGNORE INTO counters (name, value) VALUES ('version', 0);
";

/// State shared by every handle of one open store.
pub(crate) struct Inner {
    pub(crate) opts: LocalOptions,
    pub(crate) db_path: PathBuf,
    pub(crate) data_dir: PathBuf,
    /// The one connection that writes; in-process writers queue here, other
    /// processes are held off by SQLite's lock.
    pub(crate) writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
    pools: RwLock<HashMap<String, i64>>,
    pub(crate) file_seq: AtomicU64,
}

/// Maps a SQLite failure to the store's error.
/// The `name` column of an object: its name, then, when it has a locator, a
/// NUL (which no name may hold) and the locator; so one name with two
/// locators is two rows, as it is two objects in RADOS.
pub(crate) fn row_name(name: &str, locator: &str) -> Vec<u8> {
    let mut out = name.as_bytes().to_vec();
    if !locator.is_empty() {
        out.push(0);
        out.extend_from_slice(locator.as_bytes());
    }
    out
}

/// The `name` column of `obj` (see [`row_name`]).
pub(crate) fn obj_row_name(obj: &ObjectId) -> Vec<u8> {
    row_name(&obj.name, &obj.locator)
}

/// The name and locator a `name` column holds.
pub(crate) fn split_row_name(mut column: Vec<u8>) -> (Vec<u8>, Vec<u8>) {
    match column.iter().position(|&b| b == 0) {
        Some(at) => {
            let locator = column.split_off(at + 1);
            column.pop();
            (column, locator)
        }
        None => (column, Vec::new()),
    }
}

pub(crate) fn db_err(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Timeout,
        Some(ErrorCode::DiskFull) => StoreError::Full(Fullness::NoSpace),
        _ => StoreError::Io(format!("local metadata: {e}")),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inner {
    pub(crate) fn open(opts: LocalOptions) -> StoreResult<Self> {
        let data_dir = opts.path.join("data");
        std::fs::create_dir_all(&data_dir)
            .map_err(|e| StoreError::Io(format!("cannot create {}: {e}", data_dir.display())))?;
        let db_path = opts.path.join("meta.db");
        let writer = open_connection(&db_path, &opts)?;
        writer.execute_batch(SCHEMA).map_err(db_err)?;
        Ok(Inner {
            opts,
            db_path,
            data_dir,
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
            pools: RwLock::new(HashMap::new()),
            file_seq: AtomicU64::new(0),
        })
    }

    pub(crate) fn full_pool_name(&self, pool: &str) -> String {
        if self.opts.pool_prefix.is_empty() {
            return pool.to_string();
        }
        format!("{}.{pool}", self.opts.pool_prefix)
    }

    pub(crate) fn writer(&self) -> MutexGuard<'_, Connection> {
        lock(&self.writer)
    }

    /// Runs `f` on a pooled read connection, inside one read snapshot.
    /// Without `may_wait`, a lock held by another connection fails at once
    /// ([`StoreError::Timeout`]) instead of waiting up to the busy timeout.
    pub(crate) fn with_snapshot<T>(
        &self,
        may_wait: bool,
        f: impl FnOnce(&Connection) -> StoreResult<T>,
    ) -> StoreResult<T> {
        self.with_reader(|conn| {
            if !may_wait {
                conn.busy_timeout(Duration::ZERO).map_err(db_err)?;
            }
            let out = Self::snapshot(conn, f);
            if !may_wait {
                conn.busy_timeout(self.opts.busy_timeout).map_err(db_err)?;
            }
            out
        })
    }

    fn snapshot<T>(
        conn: &Connection,
        f: impl FnOnce(&Connection) -> StoreResult<T>,
    ) -> StoreResult<T> {
        // cached BEGIN and COMMIT: rusqlite's Transaction parses their text
        // on every read
        let run = |sql: &str| {
            conn.prepare_cached(sql)
                .and_then(|mut s| s.execute([]))
                .map_err(db_err)
        };
        run("BEGIN")?;
        let out = f(conn);
        let end = run(if out.is_ok() { "COMMIT" } else { "ROLLBACK" });
        let out = out?;
        end?;
        Ok(out)
    }

    /// Runs `f` on a pooled read connection.
    pub(crate) fn with_reader<T>(
        &self,
        f: impl FnOnce(&mut Connection) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let conn = lock(&self.readers).pop();
        let mut conn = match conn {
            Some(c) => c,
            None => open_connection(&self.db_path, &self.opts)?,
        };
        let out = f(&mut conn);
        if conn.is_autocommit() {
            lock(&self.readers).push(conn);
        }
        out
    }

    pub(crate) fn create_pool(&self, pool: &str) -> StoreResult<()> {
        let name = self.full_pool_name(pool);
        self.writer()
            .execute("INSERT OR IGNORE INTO pools (name) VALUES (?1)", [&name])
            .map_err(db_err)?;
        Ok(())
    }

    /// The id of an existing pool, from the cache or the database.
    pub(crate) fn pool_id(&self, conn: &Connection, pool: &str) -> StoreResult<i64> {
        let name = self.full_pool_name(pool);
        if let Some(id) = self
            .pools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&name)
        {
            return Ok(*id);
        }
        let id: Option<i64> = conn
            .query_row("SELECT id FROM pools WHERE name = ?1", [&name], |r| {
                r.get(0)
            })
            .optional()
            .map_err(db_err)?;
        let id = id.ok_or(StoreError::NoSuchPool(name.clone()))?;
        self.pools
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name, id);
        Ok(id)
    }
}

fn open_connection(path: &std::path::Path, opts: &LocalOptions) -> StoreResult<Connection> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| StoreError::Io(format!("cannot open {}: {e}", path.display())))?;
    conn.busy_timeout(opts.busy_timeout).map_err(db_err)?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(db_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Io(format!(
            "{} cannot use WAL journaling (got {mode})",
            path.display()
        )));
    }
    let sync = if opts.fsync { "FULL" } else { "NORMAL" };
    conn.pragma_update(None, "synchronous", sync)
        .map_err(db_err)?;
    // one plan per statement whatever its parameters, so cached statements
    // are never compiled again because a parameter changed
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    )
    .map_err(db_err)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}
