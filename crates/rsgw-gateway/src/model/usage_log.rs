//! The usage log, as radosgw keeps it (`rgw_enable_usage_log`): per user,
//! per bucket, per hour and per category (radosgw's operation names,
//! `put_obj`, `get_obj`...), the requests, those that succeeded, and the
//! bytes received and sent. A request to a bucket counts for the bucket's
//! owner, others for their signer, as radosgw counts them.
//!
//! Each user's log is the omap of `meta/usage/<uid>`, one entry per hour,
//! bucket, category and instance: `<hour>/<bucket>/<category>/<instance>`
//! → [`UsageCounters`] as JSON. An instance adds to its own entries only
//! (read, add, write, by its one flusher), so instances never race on an
//! entry; a read sums the instances' entries.

use serde::{Deserialize, Serialize};

/// Seconds in an hour: the log's granularity.
pub const USAGE_HOUR_S: u64 = 3600;

/// What one entry counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UsageCounters {
    /// Response bytes.
    pub bytes_sent: u64,
    /// Request body bytes.
    pub bytes_received: u64,
    /// Requests.
    pub ops: u64,
    /// Requests answered without an error.
    pub successful_ops: u64,
}

impl std::ops::AddAssign for UsageCounters {
    fn add_assign(&mut self, o: UsageCounters) {
        self.bytes_sent += o.bytes_sent;
        self.bytes_received += o.bytes_received;
        self.ops += o.ops;
        self.successful_ops += o.successful_ops;
    }
}

/// Where a count goes: the hour (its first second), the bucket (`-` for
/// none that exists, `""` for requests on no bucket), the category.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UsageSlot {
    /// The hour's first second since the epoch.
    pub hour: u64,
    /// The bucket.
    pub bucket: String,
    /// radosgw's name of the operation.
    pub category: String,
}

impl UsageSlot {
    /// The slot of a request at `now` (seconds since the epoch).
    pub fn at(now: u64, bucket: &str, category: &str) -> Self {
        UsageSlot {
            hour: now - now % USAGE_HOUR_S,
            bucket: bucket.to_string(),
            category: category.to_string(),
        }
    }

    /// Its omap key for instance `instance`: the hour first (ten digits,
    /// so that keys sort by time).
    pub(crate) fn key(&self, instance: &str) -> String {
        format!(
            "{:010}/{}/{}/{instance}",
            self.hour, self.bucket, self.category
        )
    }

    /// The slot an omap key names, `None` for no key of the log. Bucket
    /// names hold no `/`, categories neither.
    pub(crate) fn of_key(key: &str) -> Option<UsageSlot> {
        let mut parts = key.splitn(4, '/');
        let hour = parts.next()?.parse().ok()?;
        let bucket = parts.next()?.to_string();
        let category = parts.next()?.to_string();
        parts.next()?;
        Some(UsageSlot {
            hour,
            bucket,
            category,
        })
    }
}

/// One user's usage in one slot, the instances summed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageRecord {
    /// The user.
    pub user: String,
    /// Hour, bucket, category.
    pub slot: UsageSlot,
    /// The counts.
    pub counters: UsageCounters,
}

/// Which part of the log a read or trim covers: a user (or all), hours
/// from `start` (inclusive) to `end` (exclusive), seconds since the epoch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageRange {
    /// One user, or every user.
    pub user: Option<String>,
    /// From this second on.
    pub start: Option<u64>,
    /// Before this second.
    pub end: Option<u64>,
}

impl UsageRange {
    /// Whether the hour starting at `hour` lies in the range.
    pub(crate) fn holds(&self, hour: u64) -> bool {
        self.start.is_none_or(|s| hour >= s - s % USAGE_HOUR_S) && self.end.is_none_or(|e| hour < e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_sort_by_hour_and_read_back() {
        let a = UsageSlot::at(7205, "photos", "put_obj");
        assert_eq!(a.hour, 7200);
        let k = a.key("i1");
        assert_eq!(k, "0000007200/photos/put_obj/i1");
        assert_eq!(UsageSlot::of_key(&k), Some(a.clone()));
        assert!(UsageSlot::at(3599, "z", "x").key("i") < k);
        let none = UsageSlot::at(10, "", "list_buckets");
        assert_eq!(UsageSlot::of_key(&none.key("i")), Some(none));
        for bad in ["", "x/b/c/i", "0000007200/b/c", "7200"] {
            assert_eq!(UsageSlot::of_key(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn ranges_hold_whole_hours() {
        let r = UsageRange {
            user: None,
            start: Some(7300),
            end: Some(10_800),
        };
        assert!(r.holds(7200) && !r.holds(3600) && !r.holds(10_800));
        assert!(UsageRange::default().holds(0));
    }
}
