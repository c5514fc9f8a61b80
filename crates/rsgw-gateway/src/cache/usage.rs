//! This instance's part of the usage log (`model::usage_log`) not yet
//! written: counts added per user and slot as requests are answered, taken
//! by the flusher, which adds them to this instance's entries on the store.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::model::usage_log::{UsageCounters, UsageSlot};

/// Counts waiting for the next flush.
#[derive(Debug)]
pub(crate) struct UsagePending {
    /// This instance's name in the log's keys.
    pub(crate) instance: String,
    counts: Mutex<HashMap<(String, UsageSlot), UsageCounters>>,
}

impl UsagePending {
    pub(crate) fn new(instance: String) -> Self {
        UsagePending {
            instance,
            counts: Mutex::default(),
        }
    }

    /// Adds one request's counts.
    pub(crate) fn add(&self, user: &str, slot: UsageSlot, c: UsageCounters) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        *counts.entry((user.to_string(), slot)).or_default() += c;
    }

    /// Everything pending, taken: the next flush writes it.
    pub(crate) fn take(&self) -> HashMap<(String, UsageSlot), UsageCounters> {
        std::mem::take(&mut *self.counts.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Puts back what a failed flush could not write, for the next one.
    pub(crate) fn restore(&self, failed: HashMap<(String, UsageSlot), UsageCounters>) {
        let mut counts = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        for (k, c) in failed {
            *counts.entry(k).or_default() += c;
        }
    }
}
