//! A bucket's record (`meta/buckets/<name>`): what every request on the
//! bucket reads, cached and kept coherent across instances.

use std::collections::BTreeMap;

use rsgw_store::ObjectId;
use serde::{Deserialize, Serialize};

use crate::model::acl::Acl;
use crate::model::cors::CorsRule;
use crate::model::crypt::BucketEncryption;
use crate::model::error::GatewayResult;
use crate::model::layout;
use crate::model::lifecycle::LifecycleRule;
use crate::model::lock::ObjectLock;
use crate::model::policy::BucketPolicy;
use crate::model::quota::Quota;
use crate::model::versioning::{Versioning, new_version_id};
use crate::model::website::WebsiteConfig;

/// A bucket's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BucketInfo {
    /// The bucket's name.
    pub name: String,
    /// Its marker: names the index object and prefixes its data objects, so a
    /// re-created bucket never sees an old one's leftovers.
    pub id: String,
    /// Owning user id.
    pub owner: String,
    /// Creation time, seconds since the epoch.
    pub created: f64,
    /// The bucket's ACL.
    pub acl: Acl,
    /// Its index shards, fixed at creation (`s3.bucket_index_shards` then).
    /// A record written before shards existed has none: one shard, the
    /// index object named by the id alone.
    #[serde(default = "one_shard")]
    pub index_shards: u32,
    /// Its bucket policy, if one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<BucketPolicy>,
    /// Its CORS rules, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cors: Option<Vec<CorsRule>>,
    /// Its website configuration, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<WebsiteConfig>,
    /// Its tags (Put/GetBucketTagging).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Its own quota (applies instead of its owner's bucket quota when
    /// enabled).
    #[serde(default, skip_serializing_if = "Quota::is_default")]
    pub quota: Quota,
    /// Its lifecycle rules, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<Vec<LifecycleRule>>,
    /// Its default encryption (PutBucketEncryption), if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encryption: Option<BucketEncryption>,
    /// Its versioning, once set (PutBucketVersioning); never unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versioning: Option<Versioning>,
    /// Its object lock: only a bucket made with it has one
    /// (`x-amz-bucket-object-lock-enabled`), and keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_lock: Option<ObjectLock>,
}

fn one_shard() -> u32 {
    1
}

impl BucketInfo {
    /// A bucket record with nothing configured (no policy, CORS rules,
    /// website, tags, quota, lifecycle, encryption, versioning or lock).
    pub(crate) fn plain(
        name: &str,
        id: String,
        owner: String,
        created: f64,
        acl: Acl,
        index_shards: u32,
    ) -> Self {
        BucketInfo {
            name: name.to_string(),
            id,
            owner,
            created,
            acl,
            index_shards,
            policy: None,
            cors: None,
            website: None,
            tags: BTreeMap::new(),
            quota: Quota::default(),
            lifecycle: None,
            encryption: None,
            versioning: None,
            object_lock: None,
        }
    }

    /// Every index shard object of the bucket, in shard order.
    pub(crate) fn index_shards(&self) -> Vec<ObjectId> {
        layout::index_shards(&self.id, self.index_shards)
    }

    /// The id a version written now gets: a new one while versioning is
    /// enabled, `None` (the null version) otherwise.
    pub(crate) fn new_version(&self, mtime: f64) -> GatewayResult<Option<String>> {
        match self.versioning {
            Some(Versioning::Enabled) => new_version_id(mtime).map(Some),
            _ => Ok(None),
        }
    }

    /// The index shard object that holds `key`.
    pub(crate) fn index_of(&self, key: &str) -> ObjectId {
        layout::index_of(&self.id, self.index_shards, key)
    }
}
