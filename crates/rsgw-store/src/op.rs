//! Compound operations: what one atomic write or one consistent read holds.

use std::collections::BTreeMap;

use bytes::Bytes;

use crate::{OMAP_HEADER_XATTR, ObjectStat, StoreError, StoreResult};

/// Comparison of an xattr guard, as in RADOS `cmpxattr`. Values compare as
/// byte strings; an absent xattr compares as the empty string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// Stored value equals the operand.
    Eq,
    /// Stored value differs from the operand.
    Ne,
    /// Stored value sorts after the operand.
    Gt,
    /// Stored value sorts after or equals the operand.
    Gte,
    /// Stored value sorts before the operand.
    Lt,
    /// Stored value sorts before or equals the operand.
    Lte,
}

impl CmpOp {
    /// Whether `stored <op> operand` holds.
    pub fn holds(self, stored: &[u8], operand: &[u8]) -> bool {
        let ord = stored.cmp(operand);
        match self {
            CmpOp::Eq => ord.is_eq(),
            CmpOp::Ne => ord.is_ne(),
            CmpOp::Gt => ord.is_gt(),
            CmpOp::Gte => ord.is_ge(),
            CmpOp::Lt => ord.is_lt(),
            CmpOp::Lte => ord.is_le(),
        }
    }
}

/// A condition checked before any action of a [`WriteOp`] takes effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guard {
    /// The object must exist, else [`crate::StoreError::NotFound`].
    Exists,
    /// Exclusive create: the object must not exist, else
    /// [`crate::StoreError::Exists`]; it is created (empty) by the operation.
    NotExists,
    /// The object must exist and `xattr <op> value` must hold, else
    /// [`crate::StoreError::GuardFailed`].
    Xattr {
        /// Xattr to compare.
        name: String,
        /// Comparison.
        op: CmpOp,
        /// Operand.
        value: Bytes,
    },
}

/// One change made by a [`WriteOp`], applied in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteAction {
    /// Creates the object if absent (no-op if present).
    Create,
    /// Replaces the whole data.
    WriteFull(Bytes),
    /// Writes at an offset, extending the object (zero-filled) as needed.
    Write {
        /// Byte offset.
        offset: u64,
        /// Bytes to write.
        data: Bytes,
    },
    /// Appends to the data.
    Append(Bytes),
    /// Sets the data length, cutting or zero-extending.
    Truncate(u64),
    /// Sets an xattr.
    SetXattr(String, Bytes),
    /// Removes an xattr (absent is fine; the object must exist).
    RmXattr(String),
    /// Sets omap entries.
    OmapSet(Vec<(String, Bytes)>),
    /// Removes omap keys (absent keys are fine; the object must exist).
    OmapRm(Vec<String>),
    /// Removes every omap entry (the object must exist).
    OmapClear,
    /// Sets the omap header.
    OmapSetHeader(Bytes),
    /// Removes the object with its xattrs and omap (it must exist).
    Remove,
    /// Calls `method` of RADOS object class `class` on the object with
    /// `input` (`rados_write_op_exec`), within the same atomic operation:
    /// how radosgw changes its bucket index (`rgw.bucket_prepare_op`...).
    /// The class's error fails the whole operation. Only a store backed
    /// by RADOS has object classes: the embedded backend refuses it with
    /// [`StoreError::InvalidArgument`].
    Exec {
        /// The object class (`rgw`).
        class: String,
        /// Its method.
        method: String,
        /// The method's input, encoded as the class expects.
        input: Bytes,
    },
}

/// An atomic compound write: guards, then actions, all or nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOp {
    /// Conditions checked first.
    pub guards: Vec<Guard>,
    /// Changes applied in order.
    pub actions: Vec<WriteAction>,
}

impl WriteOp {
    /// An empty operation.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a guard.
    pub fn guard(mut self, guard: Guard) -> Self {
        self.guards.push(guard);
        self
    }
    /// Requires the object to exist.
    pub fn assert_exists(self) -> Self {
        self.guard(Guard::Exists)
    }
    /// Creates the object exclusively (fails if it exists).
    pub fn create_exclusive(self) -> Self {
        self.guard(Guard::NotExists)
    }
    /// Requires `xattr <op> value`.
    pub fn cmp_xattr(self, name: impl Into<String>, op: CmpOp, value: impl Into<Bytes>) -> Self {
        self.guard(Guard::Xattr {
            name: name.into(),
            op,
            value: value.into(),
        })
    }
    /// Adds an action.
    pub fn action(mut self, action: WriteAction) -> Self {
        self.actions.push(action);
        self
    }
    /// Creates the object if absent.
    pub fn create(self) -> Self {
        self.action(WriteAction::Create)
    }
    /// Replaces the whole data.
    pub fn write_full(self, data: impl Into<Bytes>) -> Self {
        self.action(WriteAction::WriteFull(data.into()))
    }
    /// Writes `data` at `offset`.
    pub fn write_at(self, offset: u64, data: impl Into<Bytes>) -> Self {
        self.action(WriteAction::Write {
            offset,
            data: data.into(),
        })
    }
    /// Appends `data`.
    pub fn append(self, data: impl Into<Bytes>) -> Self {
        self.action(WriteAction::Append(data.into()))
    }
    /// Sets the data length.
    pub fn truncate(self, size: u64) -> Self {
        self.action(WriteAction::Truncate(size))
    }
    /// Sets an xattr.
    pub fn set_xattr(self, name: impl Into<String>, value: impl Into<Bytes>) -> Self {
        self.action(WriteAction::SetXattr(name.into(), value.into()))
    }
    /// Removes an xattr.
    pub fn rm_xattr(self, name: impl Into<String>) -> Self {
        self.action(WriteAction::RmXattr(name.into()))
    }
    /// Sets omap entries.
    pub fn omap_set<K: Into<String>, V: Into<Bytes>>(
        self,
        entries: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        let entries = entries
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        self.action(WriteAction::OmapSet(entries))
    }
    /// Removes omap keys.
    pub fn omap_rm<K: Into<String>>(self, keys: impl IntoIterator<Item = K>) -> Self {
        self.action(WriteAction::OmapRm(
            keys.into_iter().map(Into::into).collect(),
        ))
    }
    /// Removes all omap entries.
    pub fn omap_clear(self) -> Self {
        self.action(WriteAction::OmapClear)
    }
    /// Sets the omap header.
    pub fn omap_set_header(self, header: impl Into<Bytes>) -> Self {
        self.action(WriteAction::OmapSetHeader(header.into()))
    }
    /// Removes the object.
    pub fn remove(self) -> Self {
        self.action(WriteAction::Remove)
    }
    /// Calls an object class's method ([`WriteAction::Exec`]).
    pub fn exec(
        self,
        class: impl Into<String>,
        method: impl Into<String>,
        input: impl Into<Bytes>,
    ) -> Self {
        self.action(WriteAction::Exec {
            class: class.into(),
            method: method.into(),
            input: input.into(),
        })
    }
    /// Whether the operation calls an object class.
    pub fn calls_a_class(&self) -> bool {
        self.actions
            .iter()
            .any(|a| matches!(a, WriteAction::Exec { .. }))
    }
}

impl WriteOp {
    /// Refuses what no backend may do, before anything is sent: the reserved
    /// omap-header xattr used as a user xattr.
    pub fn validate(&self) -> StoreResult<()> {
        let names = self
            .guards
            .iter()
            .filter_map(|g| match g {
                Guard::Xattr { name, .. } => Some(name),
                _ => None,
            })
            .chain(self.actions.iter().filter_map(|a| match a {
                WriteAction::SetXattr(name, _) | WriteAction::RmXattr(name) => Some(name),
                _ => None,
            }));
        for name in names {
            if name == OMAP_HEADER_XATTR {
                return Err(StoreError::InvalidArgument(format!(
                    "xattr name '{OMAP_HEADER_XATTR}' is reserved"
                )));
            }
            if name.is_empty() || name.contains('\0') {
                return Err(StoreError::InvalidArgument(
                    "xattr names must be non-empty, without NUL".into(),
                ));
            }
        }
        Ok(())
    }
}

/// What a successful write reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOutcome {
    /// The object's version after the write.
    pub version: u64,
    /// The id of the pool holding the object, where the store numbers its
    /// pools (RADOS); `None` on the embedded backend.
    pub pool: Option<i64>,
}

/// The most entries one omap read returns, whatever `max` asks for: RADOS
/// caps a page at `osd_max_omap_entries_per_request` (1024 by default) and
/// the embedded backend does the same, so callers page with `start_after`.
pub const OMAP_MAX_PAGE: u64 = 1024;

/// A window into an object's omap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OmapQuery {
    /// Only keys strictly after this one ("" starts at the beginning).
    pub start_after: String,
    /// Only keys starting with this prefix.
    pub prefix: String,
    /// At most this many entries (and never more than [`OMAP_MAX_PAGE`]).
    pub max: u64,
}

/// A page of omap entries in key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OmapPage {
    /// The entries, sorted by key (bytewise).
    pub entries: Vec<(String, Bytes)>,
    /// Whether more entries match beyond this page.
    pub more: bool,
}

/// A compound read: the parts to fetch from one consistent state of an object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOp {
    /// Fetch size, mtime and version.
    pub stat: bool,
    /// Fetch up to `len` bytes from `offset` (fewer at the end of the data).
    pub read: Option<(u64, u64)>,
    /// Fetch every xattr.
    pub xattrs: bool,
    /// Fetch a page of omap entries.
    pub omap: Option<OmapQuery>,
    /// Fetch these omap keys (absent keys are left out of the answer).
    pub omap_keys: Option<Vec<String>>,
    /// Fetch the omap header.
    pub omap_header: bool,
    /// Call a reading method of an object class and fetch its output
    /// (librados' `rados_read_op_exec`): class, method, input. Backends
    /// without object classes refuse it with `InvalidArgument`.
    pub exec: Option<(String, String, Bytes)>,
}

impl ReadOp {
    /// An empty read (still fails with NotFound on an absent object).
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a stat.
    pub fn stat(mut self) -> Self {
        self.stat = true;
        self
    }
    /// Reads up to `len` bytes at `offset`.
    pub fn read(mut self, offset: u64, len: u64) -> Self {
        self.read = Some((offset, len));
        self
    }
    /// Fetches all xattrs.
    pub fn xattrs(mut self) -> Self {
        self.xattrs = true;
        self
    }
    /// Fetches a page of omap entries.
    pub fn omap(
        mut self,
        start_after: impl Into<String>,
        prefix: impl Into<String>,
        max: u64,
    ) -> Self {
        self.omap = Some(OmapQuery {
            start_after: start_after.into(),
            prefix: prefix.into(),
            max,
        });
        self
    }
    /// Fetches the given omap keys.
    pub fn omap_keys<K: Into<String>>(mut self, keys: impl IntoIterator<Item = K>) -> Self {
        self.omap_keys = Some(keys.into_iter().map(Into::into).collect());
        self
    }
    /// Fetches the omap header.
    pub fn omap_header(mut self) -> Self {
        self.omap_header = true;
        self
    }
    /// Calls an object class's reading method ([`ReadOp::exec`]); its
    /// output is [`ReadResult::exec`].
    pub fn exec(
        mut self,
        class: impl Into<String>,
        method: impl Into<String>,
        input: impl Into<Bytes>,
    ) -> Self {
        self.exec = Some((class.into(), method.into(), input.into()));
        self
    }
}

/// What a [`ReadOp`] fetched; each field is set when it was asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadResult {
    /// Size, mtime and version.
    pub stat: Option<ObjectStat>,
    /// The bytes read.
    pub data: Option<Bytes>,
    /// Every xattr by name.
    pub xattrs: Option<BTreeMap<String, Bytes>>,
    /// The omap page.
    pub omap: Option<OmapPage>,
    /// The requested omap keys that exist.
    pub omap_keys: Option<BTreeMap<String, Bytes>>,
    /// The omap header (empty if never set).
    pub omap_header: Option<Bytes>,
    /// What the object class's method answered.
    pub exec: Option<Bytes>,
}
