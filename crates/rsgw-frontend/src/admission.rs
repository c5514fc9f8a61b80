//! Admission: at most `max_concurrent_requests` requests run at once
//! (radosgw's `rgw_max_concurrent_requests`). The next one is answered
//! `503 SlowDown` at once, before authentication, or, with
//! `admission = "queue"`, waits in a bounded queue for a bounded time.
//! The limit can change while requests run ([`Admission::set_limit`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How requests beyond the limit are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Rejected at once.
    Reject,
    /// Wait for a slot, with at most `max_waiting` waiters, each up to `timeout`.
    Queue {
        /// Most requests waiting at once; more are rejected.
        max_waiting: usize,
        /// Longest wait.
        timeout: Duration,
    },
}

/// Why a request was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    /// Every slot was taken (and the queue, if any, full).
    #[error("max_concurrent_requests reached")]
    Full,
    /// The request waited in the queue for the whole timeout.
    #[error("timed out waiting for admission")]
    TimedOut,
}

/// The number of requests waiting for a slot. Only a [`QueuePlace`] changes
/// it, and it gives its place back when dropped, so a waiter that is
/// cancelled (its client went away) or times out can never leave a count
/// behind. Metrics read it; they never own it.
#[derive(Debug, Default)]
pub struct Waiting(AtomicUsize);

impl Waiting {
    /// Requests waiting now.
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }

    /// Takes a place in the queue unless `max` requests already wait.
    fn enter(self: &Arc<Self>, max: usize) -> Option<QueuePlace> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| QueuePlace(self.clone()))
    }
}

/// A request's place in the admission queue; released on drop.
struct QueuePlace(Arc<Waiting>);

impl Drop for QueuePlace {
    fn drop(&mut self) {
        self.0.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Why [`Admission::set_limit`] refused a new limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LimitChange {
    /// From or to 0 (no limit): the gate is made, or left out, at start.
    #[error("max_concurrent_requests to or from 0 (unlimited) takes a restart")]
    Unlimited,
}

/// The admission gate shared by every connection of an instance.
pub struct Admission {
    slots: Option<Arc<Semaphore>>,
    /// The limit now (0: unlimited); the semaphore follows it.
    limit: std::sync::Mutex<usize>,
    policy: Policy,
    waiting: Arc<Waiting>,
}

/// A running request's slot; freed on drop.
pub struct Admitted {
    _permit: Option<OwnedSemaphorePermit>,
}

impl Admission {
    /// A gate letting `limit` requests in at once (0: unlimited).
    pub fn new(limit: usize, policy: Policy) -> Self {
        Admission {
            slots: (limit > 0).then(|| Arc::new(Semaphore::new(limit))),
            limit: std::sync::Mutex::new(limit),
            policy,
            waiting: Arc::default(),
        }
    }

    /// The limit now (0: unlimited).
    pub fn limit(&self) -> usize {
        *self
            .limit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Changes the limit while requests run. A raise admits more at once;
    /// a cut takes effect as running requests finish: the slots it removes
    /// are claimed ahead of new requests (which get `503 SlowDown`, or
    /// wait in the queue) and retired. Must be called inside the runtime
    /// (a cut waits in a task of its own).
    pub fn set_limit(&self, limit: usize) -> Result<(), LimitChange> {
        let mut now = self
            .limit
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(slots) = &self.slots else {
            return if limit == 0 {
                Ok(())
            } else {
                Err(LimitChange::Unlimited)
            };
        };
        if limit == 0 {
            return Err(LimitChange::Unlimited);
        }
        if limit > *now {
            slots.add_permits(limit - *now);
        } else if limit < *now {
            // at most Semaphore::MAX_PERMITS, as the limit itself
            let cut = u32::try_from(*now - limit).unwrap_or(u32::MAX);
            let slots = slots.clone();
            tokio::spawn(async move {
                // tokio's semaphore hands freed permits to its waiters in
                // order, so this claim is served before later requests
                if let Ok(p) = slots.acquire_many_owned(cut).await {
                    p.forget();
                }
            });
        }
        *now = limit;
        Ok(())
    }

    /// The queue's length, for metrics to observe.
    pub fn waiting(&self) -> Arc<Waiting> {
        self.waiting.clone()
    }

    /// Admits a request now, or (queue policy) once a slot frees up.
    /// Dropping the returned future gives up its place in the queue.
    pub async fn admit(&self) -> Result<Admitted, Rejected> {
        let Some(slots) = &self.slots else {
            return Ok(Admitted { _permit: None });
        };
        if let Ok(p) = slots.clone().try_acquire_owned() {
            return Ok(Admitted { _permit: Some(p) });
        }
        let Policy::Queue {
            max_waiting,
            timeout,
        } = self.policy
        else {
            return Err(Rejected::Full);
        };
        let Some(_place) = self.waiting.enter(max_waiting) else {
            return Err(Rejected::Full);
        };
        match tokio::time::timeout(timeout, slots.clone().acquire_owned()).await {
            Ok(Ok(p)) => Ok(Admitted { _permit: Some(p) }),
            Ok(Err(_)) => Err(Rejected::Full),
            Err(_) => Err(Rejected::TimedOut),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queue(limit: usize, max_waiting: usize, secs: u64) -> Arc<Admission> {
        Arc::new(Admission::new(
            limit,
            Policy::Queue {
                max_waiting,
                timeout: Duration::from_secs(secs),
            },
        ))
    }

    #[tokio::test]
    async fn reject_beyond_the_limit_and_free_on_drop() {
        let a = Admission::new(2, Policy::Reject);
        let one = a.admit().await.expect("first");
        let _two = a.admit().await.expect("second");
        assert_eq!(a.admit().await.err(), Some(Rejected::Full));
        assert_eq!(a.waiting().get(), 0, "reject mode never queues");
        drop(one);
        assert!(a.admit().await.is_ok());
    }

    #[tokio::test]
    async fn the_limit_changes_while_requests_run() {
        let a = Admission::new(2, Policy::Reject);
        let first = a.admit().await.expect("1 of 2");
        let second = a.admit().await.expect("2 of 2");
        assert_eq!(a.admit().await.err(), Some(Rejected::Full));
        a.set_limit(3).expect("raise");
        assert_eq!(a.limit(), 3);
        let third = a.admit().await.expect("3 of 3");
        // cut to 1 with three running: no one gets in until two finish
        a.set_limit(1).expect("cut");
        tokio::task::yield_now().await;
        drop(first);
        tokio::task::yield_now().await;
        assert_eq!(a.admit().await.err(), Some(Rejected::Full), "one retired");
        drop(second);
        tokio::task::yield_now().await;
        assert_eq!(a.admit().await.err(), Some(Rejected::Full), "two retired");
        drop(third);
        let only = a.admit().await.expect("1 of 1");
        assert_eq!(a.admit().await.err(), Some(Rejected::Full));
        drop(only);
        // raised again before a cut is fully paid: the sum holds
        let held: Vec<_> = [a.admit().await.expect("1 of 1")].into();
        a.set_limit(4).expect("raise");
        a.set_limit(2).expect("cut");
        tokio::task::yield_now().await;
        let more = a.admit().await.expect("2 of 2");
        assert_eq!(a.admit().await.err(), Some(Rejected::Full));
        drop((held, more));
        tokio::task::yield_now().await;
        let two = (a.admit().await.expect("1"), a.admit().await.expect("2"));
        assert_eq!(a.admit().await.err(), Some(Rejected::Full));
        drop(two);
        assert_eq!(a.set_limit(0), Err(LimitChange::Unlimited));
        let unlimited = Admission::new(0, Policy::Reject);
        assert_eq!(unlimited.set_limit(5), Err(LimitChange::Unlimited));
        assert_eq!(unlimited.set_limit(0), Ok(()));
    }

    #[tokio::test]
    async fn unlimited_admits_everything() {
        let a = Admission::new(0, Policy::Reject);
        let held: Vec<_> = futures::future::join_all((0..10_000).map(|_| a.admit())).await;
        assert!(held.iter().all(Result::is_ok));
    }

    #[tokio::test(start_paused = true)]
    async fn queue_waits_then_times_out_and_caps_waiters() {
        let a = queue(1, 1, 2);
        let held = a.admit().await.expect("first");
        let waiter = tokio::spawn({
            let a = a.clone();
            async move { a.admit().await.map(|_| ()) }
        });
        tokio::task::yield_now().await;
        assert_eq!(a.waiting().get(), 1);
        assert_eq!(a.admit().await.err(), Some(Rejected::Full), "queue full");
        drop(held);
        assert_eq!(waiter.await.expect("join"), Ok(()));
        let _held = a.admit().await.expect("again");
        assert_eq!(a.admit().await.err(), Some(Rejected::TimedOut));
        assert_eq!(a.waiting().get(), 0);
    }

    /// Waiters whose clients went away (their futures dropped while
    /// queued, as hyper drops a request's future when its connection
    /// closes) give their places back: the queue keeps queueing.
    #[tokio::test(start_paused = true)]
    async fn cancelled_waiters_leave_no_count_behind() {
        let a = queue(1, 8, 60);
        let held = a.admit().await.expect("slot");
        let waiters: Vec<_> = (0..8)
            .map(|_| {
                let a = a.clone();
                tokio::spawn(async move { a.admit().await.map(|_| ()) })
            })
            .collect();
        tokio::task::yield_now().await;
        assert_eq!(a.waiting().get(), 8);
        assert_eq!(a.admit().await.err(), Some(Rejected::Full), "queue full");
        for w in &waiters {
            w.abort();
        }
        for w in waiters {
            assert!(w.await.expect_err("aborted").is_cancelled());
        }
        assert_eq!(a.waiting().get(), 0, "every cancelled waiter left");
        // queue mode still queues: a new waiter is admitted once the slot frees
        let next = tokio::spawn({
            let a = a.clone();
            async move { a.admit().await.map(|_| ()) }
        });
        tokio::task::yield_now().await;
        assert_eq!(a.waiting().get(), 1);
        drop(held);
        assert_eq!(next.await.expect("join"), Ok(()));
        assert_eq!(a.waiting().get(), 0);
    }

    /// A waiter cancelled by a timeout of its own (a `select!` or
    /// `timeout` around `admit`) is the same as one whose client left.
    #[tokio::test(start_paused = true)]
    async fn waiter_dropped_by_an_outer_timeout_leaves() {
        let a = queue(1, 1, 60);
        let _held = a.admit().await.expect("slot");
        for _ in 0..100 {
            let r = tokio::time::timeout(Duration::from_millis(10), a.admit()).await;
            assert!(r.is_err(), "still waiting when the outer timer fired");
            assert_eq!(a.waiting().get(), 0);
        }
    }

    /// Many waiters racing for the last places never push the count past
    /// the cap; the refused ones are answered at once, the queued ones get
    /// their slots in turn, and the count returns to zero.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn racing_waiters_respect_the_cap() {
        let a = queue(1, 3, 600);
        let held = a.admit().await.expect("slot");
        let tasks: Vec<_> = (0..64)
            .map(|_| {
                let a = a.clone();
                tokio::spawn(async move { a.admit().await.map(|_| ()) })
            })
            .collect();
        while tasks.iter().filter(|t| t.is_finished()).count() < 61 {
            assert!(a.waiting().get() <= 3);
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        assert_eq!(a.waiting().get(), 3);
        drop(held);
        let mut results = Vec::new();
        for t in tasks {
            results.push(t.await.expect("join"));
        }
        let full = results
            .iter()
            .filter(|r| **r == Err(Rejected::Full))
            .count();
        let admitted = results.iter().filter(|r| r.is_ok()).count();
        assert_eq!((full, admitted), (61, 3));
        assert_eq!(a.waiting().get(), 0);
    }
}
