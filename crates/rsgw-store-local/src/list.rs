//! Object iteration in (namespace, name) order, by key-set pagination.

use std::sync::Arc;

use async_trait::async_trait;
use rsgw_store::{NamespaceFilter, ObjectEntry, ObjectLister, StoreError, StoreResult};
use rusqlite::params;

use crate::db::{Inner, db_err, row_name, split_row_name};

/// Pages through a pool's objects; each page is its own query, so a long
/// iteration holds no lock or snapshot between pages.
pub(crate) struct LocalLister {
    inner: Arc<Inner>,
    pool: i64,
    namespace: Option<String>,
    /// The last (namespace, `name` column) returned.
    after: (Vec<u8>, Vec<u8>),
    done: bool,
}

impl LocalLister {
    pub(crate) fn new(
        inner: Arc<Inner>,
        pool: &str,
        namespace: NamespaceFilter,
    ) -> StoreResult<Self> {
        let pool = inner.with_reader(|conn| inner.pool_id(conn, pool))?;
        Ok(LocalLister {
            inner,
            pool,
            namespace: match namespace {
                NamespaceFilter::Only(ns) => Some(ns),
                NamespaceFilter::All => None,
            },
            after: (Vec::new(), Vec::new()),
            done: false,
        })
    }

    fn fetch(
        inner: &Inner,
        pool: i64,
        namespace: Option<&str>,
        after: &(Vec<u8>, Vec<u8>),
        max: usize,
    ) -> StoreResult<Vec<ObjectEntry>> {
        inner.with_reader(|conn| {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT ns, name FROM objects
                     WHERE pool = ?1 AND (?2 IS NULL OR ns = ?2) AND (ns, name) > (?3, ?4)
                     ORDER BY ns, name LIMIT ?5",
                )
                .map_err(db_err)?;
            let rows = stmt
                .query_map(
                    params![
                        pool,
                        namespace.map(str::as_bytes),
                        after.0,
                        after.1,
                        max as i64
                    ],
                    |r| Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, Vec<u8>>(1)?)),
                )
                .map_err(db_err)?;
            let mut out = Vec::new();
            for row in rows {
                let (ns, column) = row.map_err(db_err)?;
                let (name, locator) = split_row_name(column);
                let utf8 = |v: Vec<u8>| {
                    String::from_utf8(v)
                        .map_err(|e| StoreError::Io(format!("stored name is not UTF-8: {e}")))
                };
                out.push(ObjectEntry {
                    namespace: utf8(ns)?,
                    name: utf8(name)?,
                    locator: utf8(locator)?,
                });
            }
            Ok(out)
        })
    }

    fn advance(&mut self, page: &[ObjectEntry], max: usize) {
        match page.last() {
            Some(last) => {
                self.after = (
                    last.namespace.as_bytes().to_vec(),
                    row_name(&last.name, &last.locator),
                );
            }
            None => self.done = true,
        }
        if page.len() < max {
            self.done = true;
        }
    }
}

#[async_trait]
impl ObjectLister for LocalLister {
    async fn next_page(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>> {
        if self.done || max == 0 {
            return Ok(Vec::new());
        }
        let inner = self.inner.clone();
        let (pool, ns, after) = (self.pool, self.namespace.clone(), self.after.clone());
        let page = tokio::task::spawn_blocking(move || {
            Self::fetch(&inner, pool, ns.as_deref(), &after, max)
        })
        .await
        .map_err(|e| StoreError::Io(format!("store task failed: {e}")))??;
        self.advance(&page, max);
        Ok(page)
    }

    fn next_page_blocking(&mut self, max: usize) -> StoreResult<Vec<ObjectEntry>> {
        if self.done || max == 0 {
            return Ok(Vec::new());
        }
        let page = Self::fetch(
            &self.inner,
            self.pool,
            self.namespace.as_deref(),
            &self.after,
            max,
        )?;
        self.advance(&page, max);
        Ok(page)
    }
}
