//! Watch and notify: RADOS' way for many clients of one store to tell each
//! other about a change (`rados_watch2`/`rados_notify2`), which rsgw uses to
//! keep its instances' caches coherent.
//!
//! A client *watches* an object; another *notifies* it with a payload, and the
//! notify returns once every watch has acknowledged the payload or the
//! timeout has passed. A watcher acknowledges after its callback returns, so
//! when a notify returns, every acknowledging watcher has acted on it.

use std::time::Duration;

use crate::StoreError;

/// What a watch calls. Runs on a thread of the backend's: keep it quick and
/// never block in it (the notifier waits for it).
pub trait Watcher: Send + Sync + 'static {
    /// A notification arrived; it is acknowledged when this returns.
    fn notified(&self, payload: &[u8]);
    /// The watch broke (connection to its object lost, watch expired on the
    /// server): notifications sent from now on may be missed until the watch
    /// is established again. [`WatchHandle::check`] fails from now on too.
    fn failed(&self, error: &StoreError);
}

/// A registered watch; dropping it removes the watch.
pub trait WatchHandle: Send + Sync {
    /// How long ago the store last confirmed the watch (RADOS'
    /// `rados_watch_check`); an error if the watch is broken and must be
    /// registered again. A watch confirmed recently receives every
    /// notification sent meanwhile.
    fn check(&self) -> Result<Duration, StoreError>;
}

/// What a notify learned about the watches of its object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotifyOutcome {
    /// Watches that acknowledged the payload.
    pub acked: usize,
    /// Watches that did not answer within the timeout (their clients are
    /// gone, hung or cut off; RADOS drops such watches after the watch
    /// timeout).
    pub timed_out: usize,
}
