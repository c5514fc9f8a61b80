//! Index updates committed in batches, one shard at a time.
//!
//! An update of a shard's entries must change its counters in the same
//! write, guarded on the counters read (`engine::usage`): a read and a
//! write per update, and concurrent writers of one shard would each fail
//! the other's guard. So this process's writers of a shard queue their
//! updates; one of them, the leader, reads the shard once for every key
//! queued, applies them all in queue order to the counters, and commits
//! them in one guarded write. Writers that arrived meanwhile wait for the
//! next batch, led by the first of them. Under load a batch holds every
//! update that queued during the previous one's two round trips; alone, a
//! writer pays one read and one write. Writers in other processes meet at
//! the guard: the batch is read and tried again.
//!
//! A leader whose request is dropped mid-commit hands the lead on as it
//! goes (a guard's `Drop`): no shard is left without a leader while
//! updates wait.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};
use tokio::sync::oneshot;

use crate::engine::Engine;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::{Counters, counted_size};
use crate::model::layout::STATS_XATTR;
use crate::model::limits::MAX_ROUNDS;

/// What a queued writer hears.
enum Word {
    /// Its update was committed by another's batch, with this outcome.
    Done(Result<(), StoreError>),
    /// It leads the next batch (its update is in it).
    Lead,
}

/// One queued update: entries set (`Some`) or removed (`None`), all in
/// the same write.
struct Pending {
    id: u64,
    updates: Vec<(String, Option<Bytes>)>,
    /// Taken when the writer is told something.
    tx: Option<oneshot::Sender<Word>>,
}

#[derive(Default)]
struct Queue {
    pending: Vec<Pending>,
    leading: bool,
}

/// Every shard's queue, by shard name (a queue goes once empty and led by
/// no one).
#[derive(Default)]
pub(crate) struct IndexQueues {
    queues: Mutex<HashMap<String, Queue>>,
    next_id: std::sync::atomic::AtomicU64,
}

impl IndexQueues {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Queue>> {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues an update; `Some(rx)` to wait on, `None` when the caller
    /// leads (no batch runs).
    fn enqueue(
        &self,
        shard: &str,
        updates: Vec<(String, Option<Bytes>)>,
    ) -> (u64, Option<oneshot::Receiver<Word>>) {
        let id = self
            .next_id
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let mut queues = self.lock();
        let q = queues.entry(shard.to_string()).or_default();
        let lead = !q.leading;
        q.leading = true;
        q.pending.push(Pending {
            id,
            updates,
            tx: (!lead).then_some(tx),
        });
        (id, (!lead).then_some(rx))
    }

    /// The leader's batch: every update queued.
    fn take(&self, shard: &str) -> Vec<Pending> {
        self.lock()
            .get_mut(shard)
            .map(|q| std::mem::take(&mut q.pending))
            .unwrap_or_default()
    }

    /// Ends a lead: the first queued writer still waiting leads next; with
    /// none, the shard has no leader (updates of writers gone stay for the
    /// next one). Answers whether updates stay queued with no one to lead
    /// them (the caller, if it can, commits them itself).
    fn hand_on(&self, shard: &str) -> bool {
        let mut queues = self.lock();
        let Some(q) = queues.get_mut(shard) else {
            return false;
        };
        for p in &mut q.pending {
            if let Some(tx) = p.tx.take()
                && tx.send(Word::Lead).is_ok()
            {
                return false;
            }
        }
        if q.pending.is_empty() {
            queues.remove(shard);
            return false;
        }
        true
    }
}

/// Hands the lead on when dropped before its leader did (a panic).
struct Lead<'a> {
    queues: &'a IndexQueues,
    shard: &'a str,
    handed_on: bool,
}

impl Drop for Lead<'_> {
    fn drop(&mut self) {
        if !self.handed_on && self.queues.hand_on(self.shard) {
            // updates of writers gone, no one to lead them: left for the
            // shard's next writer, who leads and takes them all
            let mut queues = self.queues.lock();
            if let Some(q) = queues.get_mut(self.shard) {
                q.leading = false;
            }
        }
    }
}

impl Engine {
    /// Sets (`Some`) or removes (`None`) entries of `shard`, with the
    /// shard's counters, in one atomic write (batched with this process's
    /// other updates of the shard). Fails with the store's `NotFound` when
    /// the shard is gone (the bucket deleted).
    pub(crate) async fn commit_index(
        &self,
        shard: &ObjectId,
        updates: Vec<(String, Option<Bytes>)>,
    ) -> GatewayResult<()> {
        let (id, rx) = self.index_queues.enqueue(&shard.name, updates);
        if let Some(rx) = rx {
            match rx.await {
                Ok(Word::Done(r)) => return r.map_err(GatewayError::Store),
                Ok(Word::Lead) => {}
                Err(_) => {
                    return Err(GatewayError::Store(StoreError::Io(
                        "the index batch's leader went away".into(),
                    )));
                }
            }
        }
        let lead = self.clone().lead(shard.clone(), id);
        let mine = match tokio::runtime::Handle::try_current() {
            // on a task of its own: a request dropped mid-commit (its
            // client gone) leaves the batch, and the writers waiting on it,
            // to finish
            Ok(rt) if rt.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => rt
                .spawn(lead)
                .await
                .unwrap_or_else(|e| Err(StoreError::Io(format!("index batch: {e}")))),
            _ => lead.await,
        };
        mine.map_err(GatewayError::Store)
    }

    /// Commits batches of the shard's queue, the first holding update
    /// `id`, until a waiting writer takes the lead or none is queued.
    async fn lead(self, shard: ObjectId, id: u64) -> Result<(), StoreError> {
        let queues = &*self.index_queues;
        let mut lead = Lead {
            queues,
            shard: &shard.name,
            handed_on: false,
        };
        let mut mine = Ok(());
        loop {
            let batch = queues.take(&shard.name);
            let outcome = self.commit_batch(&shard, &batch).await;
            for mut p in batch {
                if p.id == id {
                    mine.clone_from(&outcome);
                } else if let Some(tx) = p.tx.take() {
                    let _ = tx.send(Word::Done(outcome.clone()));
                }
            }
            // the shard unreachable or gone: the updates queued meanwhile
            // fail with the batch instead of each waiting for a batch of
            // their own to fail in turn
            if let Err(
                e @ (StoreError::Timeout | StoreError::Unavailable(_) | StoreError::NotFound),
            ) = &outcome
            {
                for mut p in queues.take(&shard.name) {
                    if let Some(tx) = p.tx.take() {
                        let _ = tx.send(Word::Done(Err(e.clone())));
                    }
                }
            }
            // updates of writers gone and no one to lead them: commit them
            if !queues.hand_on(&shard.name) {
                break;
            }
        }
        lead.handed_on = true;
        mine
    }

    /// Reads the shard's counters and the batch's keys, applies the
    /// updates in order, and writes entries and counters in one write
    /// guarded on the counters read.
    async fn commit_batch(&self, shard: &ObjectId, batch: &[Pending]) -> Result<(), StoreError> {
        if batch.is_empty() {
            return Ok(());
        }
        let keys: Vec<&str> = batch
            .iter()
            .flat_map(|p| p.updates.iter().map(|(k, _)| k.as_str()))
            .collect();
        for _ in 0..MAX_ROUNDS {
            let r = self
                .store
                .read(
                    shard,
                    ReadOp::new().xattrs().omap_keys(keys.iter().copied()),
                )
                .await?;
            let raw = r.xattrs.unwrap_or_default().remove(STATS_XATTR);
            let mut sizes: BTreeMap<&str, Option<u64>> = BTreeMap::new();
            let stored = r.omap_keys.unwrap_or_default();
            for k in &keys {
                let size = stored.get(*k).map(counted_size).transpose()?.flatten();
                sizes.insert(k, size);
            }
            let mut counters =
                Counters::decode(raw.as_ref()).map_err(|e| StoreError::Io(e.to_string()))?;
            let mut last: BTreeMap<&str, &Option<Bytes>> = BTreeMap::new();
            let mut changed = false;
            for (key, entry) in batch.iter().flat_map(|p| &p.updates) {
                let new = entry.as_ref().map(counted_size).transpose()?.flatten();
                let old = sizes.insert(key.as_str(), new).flatten();
                changed |= entry.is_some() || stored.contains_key(key.as_str());
                if let Some(c) = counters.as_mut() {
                    *c = c.after(old, new);
                }
                last.insert(key.as_str(), entry);
            }
            if !changed {
                // only removals of entries not there
                return Ok(());
            }
            let mut op = WriteOp::new().cmp_xattr(STATS_XATTR, CmpOp::Eq, raw.unwrap_or_default());
            let sets: Vec<(&str, Bytes)> = last
                .iter()
                .filter_map(|(k, e)| e.as_ref().map(|e| (*k, e.clone())))
                .collect();
            let removals: Vec<&str> = last
                .iter()
                .filter(|(_, e)| e.is_none())
                .map(|(k, _)| *k)
                .collect();
            if !sets.is_empty() {
                op = op.omap_set(sets);
            }
            if !removals.is_empty() {
                op = op.omap_rm(removals);
            }
            if let Some(c) = counters {
                op = op.set_xattr(STATS_XATTR, c.encode());
            }
            match self.store.write(shard, op).await {
                Ok(_) => return Ok(()),
                // another process changed the shard: read it again
                Err(StoreError::GuardFailed(_)) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(StoreError::Timeout)
    }
}
