//! Admission: at most `max_concurrent_requests` requests run at once
//! (radosgw's `rgw_max_concurrent_requests`). The next one is answered
//! `503 SlowDown` at once, before authentication, or, with
//! `admission = "queue"`, waits in a bounded queue for a bounded time.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::metrics::Metrics;

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

/// The admission gate shared by every connection of an instance.
pub struct Admission {
    slots: Option<Arc<Semaphore>>,
    policy: Policy,
    metrics: Arc<Metrics>,
}

/// A running request's slot; freed on drop.
pub struct Admitted {
    _permit: Option<OwnedSemaphorePermit>,
}

impl Admission {
    /// A gate letting `limit` requests in at once (0: unlimited).
    pub fn new(limit: usize, policy: Policy, metrics: Arc<Metrics>) -> Self {
        Admission {
            slots: (limit > 0).then(|| Arc::new(Semaphore::new(limit))),
            policy,
            metrics,
        }
    }

    /// Admits a request now, or (queue policy) once a slot frees up.
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
        let waiting = &self.metrics.admission_queued;
        if waiting.get() >= max_waiting as i64 {
            return Err(Rejected::Full);
        }
        waiting.inc();
        let r = tokio::time::timeout(timeout, slots.clone().acquire_owned()).await;
        waiting.dec();
        match r {
            Ok(Ok(p)) => Ok(Admitted { _permit: Some(p) }),
            Ok(Err(_)) => Err(Rejected::Full),
            Err(_) => Err(Rejected::TimedOut),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Arc<Metrics> {
        Arc::new(Metrics::new(&["Other"]))
    }

    #[tokio::test]
    async fn reject_beyond_the_limit_and_free_on_drop() {
        let a = Admission::new(2, Policy::Reject, metrics());
        let one = a.admit().await.expect("first");
        let _two = a.admit().await.expect("second");
        assert_eq!(a.admit().await.err(), Some(Rejected::Full));
        drop(one);
        assert!(a.admit().await.is_ok());
    }

    #[tokio::test]
    async fn unlimited_admits_everything() {
        let a = Admission::new(0, Policy::Reject, metrics());
        let held: Vec<_> = futures::future::join_all((0..10_000).map(|_| a.admit())).await;
        assert!(held.iter().all(Result::is_ok));
    }

    #[tokio::test(start_paused = true)]
    async fn queue_waits_then_times_out_and_caps_waiters() {
        let m = metrics();
        let a = Arc::new(Admission::new(
            1,
            Policy::Queue {
                max_waiting: 1,
                timeout: Duration::from_secs(2),
            },
            m.clone(),
        ));
        let held = a.admit().await.expect("first");
        let waiter = tokio::spawn({
            let a = a.clone();
            async move { a.admit().await.map(|_| ()) }
        });
        tokio::task::yield_now().await;
        assert_eq!(m.admission_queued.get(), 1);
        assert_eq!(a.admit().await.err(), Some(Rejected::Full), "queue full");
        drop(held);
        assert_eq!(waiter.await.expect("join"), Ok(()));
        let _held = a.admit().await.expect("again");
        assert_eq!(a.admit().await.err(), Some(Rejected::TimedOut));
        assert_eq!(m.admission_queued.get(), 0);
    }
}
