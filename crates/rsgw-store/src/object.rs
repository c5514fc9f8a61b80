//! Naming and describing objects.

use std::time::SystemTime;

use crate::{StoreError, StoreResult};

/// Full address of an object: pool, namespace within the pool, and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    /// Short pool name (the backend adds its prefix).
    pub pool: String,
    /// Namespace inside the pool; empty is the default namespace.
    pub namespace: String,
    /// Object name: non-empty, no NUL byte.
    pub name: String,
}

impl ObjectId {
    /// An object in the default namespace of `pool`.
    pub fn new(pool: impl Into<String>, name: impl Into<String>) -> Self {
        ObjectId {
            pool: pool.into(),
            namespace: String::new(),
            name: name.into(),
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
        }
    }
}

/// Checks an object name and namespace the way librados would accept them:
/// the name must be non-empty and neither may contain a NUL byte (the C API
/// passes them as C strings).
pub fn validate_object_name(obj: &ObjectId) -> StoreResult<()> {
    if obj.name.is_empty() {
        return Err(StoreError::InvalidArgument("empty object name".into()));
    }
    if obj.name.contains('\0') || obj.namespace.contains('\0') || obj.pool.contains('\0') {
        return Err(StoreError::InvalidArgument(
            "object, namespace and pool names may not contain NUL".into(),
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
}

/// Which namespaces an object listing covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamespaceFilter {
    /// Only the given namespace ("" is the default one).
    Only(String),
    /// Every namespace of the pool.
    All,
}
