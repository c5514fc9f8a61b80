//! The bucket index's records: an entry per object (omap value of its
//! index shard, key = the object key), in a versioned bucket one per
//! version too (named as `model::versioning` says), and each shard's usage
//! counters (xattr `rsgw.stats`; docs/layout.md#usage-counters).

use bytes::Bytes;
use rsgw_store::StoreError;
use serde::{Deserialize, Serialize};

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::object::ObjectMeta;

/// A bucket index entry: what a listing shows of an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexEntry {
    pub(crate) size: u64,
    pub(crate) etag: String,
    pub(crate) mtime: f64,
    pub(crate) owner: String,
    /// The version's id (`None`: the null version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) version_id: Option<String>,
    /// A delete marker's version entry: not counted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) marker: bool,
    /// A key's own entry whose version has a version entry of its own
    /// (written in a versioned bucket): listed by ListObjects, not counted
    /// (its version entry is) nor listed among versions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) versioned: bool,
}

impl IndexEntry {
    /// The entry of a key whose current version is `m`, written in a
    /// bucket that is `versioned` or not.
    pub(crate) fn from_meta(m: &ObjectMeta, versioned: bool) -> Self {
        IndexEntry {
            size: m.size,
            etag: m.etag.clone(),
            mtime: m.mtime,
            owner: m.owner.clone(),
            version_id: m.version_id.clone(),
            marker: false,
            versioned,
        }
    }

    /// The version entry of version `m`.
    pub(crate) fn of_version(m: &ObjectMeta) -> Self {
        IndexEntry {
            marker: m.delete_marker,
            ..IndexEntry::from_meta(m, false)
        }
    }

    /// Whether the usage counters count it: every version that holds
    /// data, once.
    fn counted(&self) -> bool {
        !self.marker && !self.versioned
    }
}

/// Objects and bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Objects listed.
    pub objects: u64,
    /// Their bytes (object sizes, not rounded).
    pub bytes: u64,
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.objects += o.objects;
        self.bytes += o.bytes;
    }
}

/// A shard's counters as stored: the usage and the generation that grows
/// with each write of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) generation: u64,
    pub(crate) usage: Usage,
}

impl Counters {
    /// The counters of a new, empty shard.
    pub(crate) const NEW: Counters = Counters {
        generation: 0,
        usage: Usage {
            objects: 0,
            bytes: 0,
        },
    };

    /// The xattr's value: `<generation> <objects> <bytes>`.
    pub(crate) fn encode(self) -> Bytes {
        Bytes::from(format!(
            "{} {} {}",
            self.generation, self.usage.objects, self.usage.bytes
        ))
    }

    /// The counters in `raw`; `None` for an untracked shard (no xattr).
    pub(crate) fn decode(raw: Option<&Bytes>) -> GatewayResult<Option<Counters>> {
        let Some(raw) = raw.filter(|r| !r.is_empty()) else {
            return Ok(None);
        };
        let bad = || GatewayError::Corrupt(format!("index counters {raw:?}"));
        let text = std::str::from_utf8(raw).map_err(|_| bad())?;
        let mut n = text.split(' ').map(str::parse::<u64>);
        match (n.next(), n.next(), n.next(), n.next()) {
            (Some(Ok(generation)), Some(Ok(objects)), Some(Ok(bytes)), None) => {
                Ok(Some(Counters {
                    generation,
                    usage: Usage { objects, bytes },
                }))
            }
            _ => Err(bad()),
        }
    }

    /// The counters after `old` (the entry's size before, if listed) is
    /// replaced by `new` (after, if listed).
    pub(crate) fn after(self, old: Option<u64>, new: Option<u64>) -> Counters {
        let mut u = self.usage;
        if let Some(size) = old {
            u.objects = u.objects.saturating_sub(1);
            u.bytes = u.bytes.saturating_sub(size);
        }
        if let Some(size) = new {
            u.objects += 1;
            u.bytes += size;
        }
        Counters {
            generation: self.generation + 1,
            usage: u,
        }
    }
}

/// One shard's counters against a count of its entries.
#[derive(Debug, Clone, Serialize)]
pub struct ShardCheck {
    /// The shard's number.
    pub shard: u32,
    /// What its counters say (`None`: untracked).
    pub stored: Option<Usage>,
    /// What its entries add up to.
    pub counted: Usage,
    /// Whether the counters were rewritten to the count.
    pub fixed: bool,
}

/// The object size an index entry adds to the usage counters (`None`:
/// it is not counted, see [`IndexEntry::counted`]).
pub(crate) fn counted_size(value: &Bytes) -> Result<Option<u64>, StoreError> {
    serde_json::from_slice::<IndexEntry>(value)
        .map(|e| e.counted().then_some(e.size))
        .map_err(|e| StoreError::Io(format!("unreadable index entry: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_round_trip_and_refuse_garbage() {
        let c = Counters {
            generation: 7,
            usage: Usage {
                objects: 3,
                bytes: 1 << 40,
            },
        };
        assert_eq!(Counters::decode(Some(&c.encode())).expect("ok"), Some(c));
        assert_eq!(Counters::decode(None).expect("ok"), None);
        assert_eq!(Counters::decode(Some(&Bytes::new())).expect("ok"), None);
        for bad in ["1 2", "1 2 3 4", "a b c", "1 -2 3", " 1 2 3"] {
            assert!(
                Counters::decode(Some(&Bytes::from(bad))).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn counters_follow_entries() {
        let c = Counters::NEW.after(None, Some(10));
        assert_eq!(
            c.usage,
            Usage {
                objects: 1,
                bytes: 10
            }
        );
        let c = c.after(Some(10), Some(4));
        assert_eq!(
            c.usage,
            Usage {
                objects: 1,
                bytes: 4
            }
        );
        let c = c.after(Some(4), None);
        assert_eq!(c.usage, Usage::default());
        assert_eq!(c.generation, 3);
    }
}
