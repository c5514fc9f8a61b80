//! Naming and describing objects.

use std::time::SystemTime;

use crate::{StoreError, StoreResult};

/// Full address of an object: pool, namespace within the pool, name, and
/// locator.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    /// Short pool name (the backend adds its prefix).
    pub pool: String,
    /// Namespace inside the pool; empty is the default namespace.
    pub namespace: String,
    /// Object name: non-empty, no NUL byte.
    pub name: String,
    /// The key that places the object (librados' locator): empty places it
    /// by its name. Part of the object's identity, as in RADOS: one name
    /// with two locators is two objects. radosgw places the head of a key
    /// beginning with `_` by a locator (docs/decisions/0016).
    pub locator: String,
}

impl ObjectId {
    /// An object in the default namespace of `pool`.
    pub fn new(pool: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectId {
            pool: pool.into(),
            namespace: String::new(),
            name: name.into(),
            locator: String::new(),
        }
    }

    /// An object in namespace `namespace` of `pool`.
    pub fn in_namespace(
        pool: impl Into<String>,
        namespace: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        ObjectId {
            pool: pool.into(),
            namespace: namespace.into(),
            name: name.into(),
            locator: String::new(),
        }
    }

    /// The same object name placed by `locator` instead of its name.
    pub fn with_locator(mut self, locator: impl Into<String>) -> Self {
        self.locator = locator.into();
        self
    }
}

/// Checks an object name, namespace and locator the way librados would
/// accept them: the name must be non-empty and none may contain a NUL byte
/// (the C API passes them as C strings).
pub fn validate_object_name(obj: &ObjectId) -> StoreResult<()> {
    if obj.name.is_empty() {
        return Err(StoreError::InvalidArgument("empty object name".into()));
    }
    if [&obj.name, &obj.namespace, &obj.pool, &obj.locator]
        .iter()
        .any(|s| s.contains('\0'))
    {
        return Err(StoreError::InvalidArgument(
            "object, namespace, pool and locator names may not contain NUL".into(),
        ));
    }
    Ok(())
}

/// Size, modification time and version of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectStat {
    /// Length of the object's data in bytes.
    pub size: u64,
    /// Last modification (RADOS reports whole seconds).
    pub mtime: SystemTime,
    /// Version, strictly increasing with each write to the object.
    pub version: u64,
}

/// One object found by an object listing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectEntry {
    /// The object's namespace.
    pub namespace: String,
    /// The object's name.
    pub name: String,
    /// The object's locator (empty: placed by its name).
    pub locator: String,
}

/// Which namespaces an object listing covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamespaceFilter {
    /// Only the given namespace ("" is the default one).
    Only(String),
    /// Every namespace of the pool.
    All,
}
