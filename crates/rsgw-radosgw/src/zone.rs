//! A radosgw zone read through rsgw's [`Store`]: the users, buckets,
//! listings and objects radosgw wrote, found the way radosgw finds them and
//! decoded by the record modules (issue 31's read path).
//!
//! The zone's pools come from its parameters in `.rgw.root`
//! ([`crate::zone_params`]), so the store must take whole pool names (an
//! empty pool prefix). A bucket is read from its placement target's pools
//! and storage class; refused with [`ZoneError::Unsupported`], never
//! half-read: versioned buckets (issue 32 decides versions), buckets placed
//! by explicit pools or by a target the zone lacks, indexes not in RADOS,
//! and objects radosgw compressed or encrypted.
//!
//! Metadata records (users, keys, buckets) are read through a
//! [`RecordCache`] when the zone is given one ([`Zone::with_cache`]), kept
//! coherent by radosgw's own announcements; listings, users' bucket lists
//! and objects are read from RADOS on every call. A caller caching objects
//! revalidates with the head's RADOS version ([`Head::version`]), since
//! radosgw announces no object writes.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::{Bytes, BytesMut};
use rsgw_store::{
    NamespaceFilter, OMAP_MAX_PAGE, ObjectId, OmapPage, ReadOp, Store, StoreError, WatchHandle,
    Watcher,
};

use crate::DecodeError;
use crate::acl::{Policy, decode_policy};
use crate::bucket::{Bucket, BucketInfo, Pool, decode_bucket_instance, decode_entry_point};
use crate::cache::{Record, RecordCache};
use crate::cls::{CLASS, LIST_METHOD, decode_list_header, encode_list_header_only};
use crate::cors::{CorsRule, decode_cors};
use crate::index::{Category, DirEntry, DirHeader, decode_dir_entry, shard_object};
use crate::manifest::{Manifest, Obj, decode_manifest};
use crate::tags::{ATTR_TAGS, decode_tags, read_tags};
use crate::user::{UserBucket, UserRecord, decode_link, decode_user_bucket, decode_user_record};
use crate::writes::GcSettings;
use crate::zone_params::{
    Placement, ROOT_POOL, ZoneParams, decode_name_to_id, decode_zone_params, info_object,
    names_object,
};

/// The placement target of a bucket whose record names none.
pub(crate) const DEFAULT_PLACEMENT: &str = "default-placement";

/// Xattrs of a head object, as radosgw names them.
pub(crate) const ATTR_MANIFEST: &str = "user.rgw.manifest";
pub(crate) const ATTR_ACL: &str = "user.rgw.acl";
pub(crate) const ATTR_POLICY: &str = "user.rgw.iam-policy";
pub(crate) const ATTR_CORS: &str = "user.rgw.cors";
pub(crate) const ATTR_ETAG: &str = "user.rgw.etag";
pub(crate) const ATTR_CONTENT_TYPE: &str = "user.rgw.content_type";
/// Stored headers a GET answers with: radosgw's xattr, and the header.
pub(crate) const ATTR_HEADERS: [(&str, &str); 6] = [
    (ATTR_CONTENT_TYPE, "content-type"),
    ("user.rgw.content_encoding", "content-encoding"),
    ("user.rgw.content_disposition", "content-disposition"),
    ("user.rgw.content_language", "content-language"),
    ("user.rgw.cache_control", "cache-control"),
    ("user.rgw.expires", "expires"),
];
pub(crate) const ATTR_META_PREFIX: &str = "user.rgw.x-amz-meta-";
/// Xattrs whose presence makes the stored bytes other than the object's:
/// compression, server-side encryption, a versioned key's OLH.
const ATTRS_REFUSED: [(&str, &str); 3] = [
    ("user.rgw.compression", "compressed by radosgw"),
    ("user.rgw.crypt.mode", "encrypted by radosgw"),
    ("user.rgw.olh.info", "a versioned key"),
];

/// How much of a head one read fetches with its xattrs: radosgw's heads
/// hold at most 4 MiB (`rgw_max_chunk_size`).
const HEAD_READ: u64 = 4 << 20;
/// Index entries asked of each shard per listing round.
const SHARD_PAGE: u64 = 1000;

/// What reading the zone can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ZoneError {
    /// No zone of that name in `.rgw.root`.
    #[error("no zone {0} in .rgw.root")]
    NoSuchZone(String),
    /// No access key of that id.
    #[error("no access key {0}")]
    NoSuchKey(String),
    /// No user of that id.
    #[error("no user {0}")]
    NoSuchUser(String),
    /// No bucket of that name.
    #[error("no bucket {0}")]
    NoSuchBucket(String),
    /// No object of that key in the bucket.
    #[error("no object {0}")]
    NoSuchObject(String),
    /// A conditional write's condition did not hold.
    #[error("a condition of the write to {0} does not hold")]
    PreconditionFailed(String),
    /// No multipart upload of that id for the key.
    #[error("no upload {0}")]
    NoSuchUpload(String),
    /// Something radosgw wrote that this reader does not serve.
    #[error("not served from radosgw's layout: {0}")]
    Unsupported(String),
    /// A record that does not decode.
    #[error("{what}: {source}")]
    Decode {
        /// Which record, and where.
        what: String,
        /// Why.
        source: DecodeError,
    },
    /// A control object could not be watched.
    #[error(
        "watching {object}, radosgw's control object (rsgw's cephx client needs 'allow rw' on that pool): {source}"
    )]
    Watch {
        /// The object, `pool[:ns]/name`.
        object: String,
        /// Why.
        source: StoreError,
    },
    /// The store failed.
    #[error("store: {0}")]
    Store(#[from] StoreError),
}

/// What reading the zone returns.
pub type ZoneResult<T> = std::result::Result<T, ZoneError>;

/// A bucket as the reader found it: its current instance.
#[derive(Debug, Clone)]
pub struct ZoneBucket {
    /// The bucket instance record.
    pub info: BucketInfo,
    /// Its ACL (the instance's `user.rgw.acl`).
    pub acl: Policy,
    /// Its bucket policy, as the JSON text S3 was given
    /// (`user.rgw.iam-policy`).
    pub policy: Option<String>,
    /// Its CORS rules (`user.rgw.cors`), none if unset.
    pub cors: Vec<CorsRule>,
    /// Its tags (`user.rgw.x-amz-tagging`), none if unset.
    pub tags: BTreeMap<String, String>,
    /// Where its index shards are (its placement target's index pool).
    pub index_pool: Pool,
    /// Where its objects are (its storage class's data pool).
    pub data_pool: Pool,
    /// Where its multipart uploads' meta objects are (its placement
    /// target's `data_extra_pool`).
    pub data_extra_pool: Pool,
}

/// An object's head: what a HEAD answers, and where the bytes are.
#[derive(Debug, Clone)]
pub struct Head {
    /// Where its bytes are.
    pub manifest: Manifest,
    /// The ETag, without quotes.
    pub etag: String,
    /// The Content-Type radosgw stored (empty for none).
    pub content_type: String,
    /// The headers radosgw stored with it (`content-type`,
    /// `content-encoding`, `content-disposition`, `content-language`,
    /// `cache-control`, `expires`), by lower-case name.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` by name (without the prefix).
    pub meta: BTreeMap<String, String>,
    /// Its tags (`user.rgw.x-amz-tagging`).
    pub tags: BTreeMap<String, String>,
    /// The object's ACL.
    pub acl: Policy,
    /// When the head was last written (RADOS' mtime, whole seconds).
    pub mtime: SystemTime,
    /// The head's RADOS version: changes with every write of the object.
    pub version: u64,
    /// The head's bytes read with it (the object's first bytes).
    pub head_data: Bytes,
}

impl Head {
    /// The object's size.
    pub fn size(&self) -> u64 {
        self.manifest.obj_size
    }
}

/// A page of a bucket's listing.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The objects, by key.
    pub entries: Vec<ListedObject>,
    /// Whether objects after the last one match too.
    pub truncated: bool,
}

/// One object of a listing.
#[derive(Debug, Clone)]
pub struct ListedObject {
    /// The S3 key.
    pub key: String,
    /// The index entry radosgw keeps for it.
    pub entry: DirEntry,
}

/// Reads radosgw's records from a zone's pools.
#[derive(Clone)]
pub struct Zone {
    store: Arc<dyn Store>,
    params: Arc<ZoneParams>,
    users: Pool,
    keys: Pool,
    root: Pool,
    cache: Option<Arc<RecordCache>>,
    gc: Option<GcSettings>,
}

/// An object of `pool` (and its namespace).
pub(crate) fn in_pool(pool: &Pool, name: impl Into<String>) -> ObjectId {
    ObjectId::in_namespace(&pool.name, &pool.ns, name)
}

fn decode<T>(what: impl Into<String>, r: crate::encoding::Result<T>) -> ZoneResult<T> {
    r.map_err(|source| ZoneError::Decode {
        what: what.into(),
        source,
    })
}

/// The S3 key an index key names, `None` for entries of a namespace
/// (multipart parts and upload records: `_<ns>_<name>`). radosgw escapes a
/// key beginning with `_` by doubling it (`rgw_obj_key::parse_index_key`).
pub fn key_of_index(index_key: &str) -> Option<&str> {
    match index_key.strip_prefix('_') {
        None => Some(index_key),
        Some(rest) if rest.starts_with('_') => Some(rest),
        Some(_) => None,
    }
}

/// The index key of an S3 key (the inverse of [`key_of_index`]).
pub fn index_key(key: &str) -> String {
    if key.starts_with('_') {
        format!("_{key}")
    } else {
        key.to_string()
    }
}

/// The stored headers (by lower-case name) and user metadata (by name,
/// without `x-amz-meta-`) among a head's (or an upload's) xattrs.
pub fn stored_headers(
    xattrs: &BTreeMap<String, Bytes>,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let meta = xattrs
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(ATTR_META_PREFIX)?.to_string(), text(v))))
        .collect();
    let headers = ATTR_HEADERS
        .iter()
        .filter_map(|(attr, header)| Some((header.to_string(), text(xattrs.get(*attr)?))))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    (headers, meta)
}

/// A string xattr as radosgw stores it (some with a trailing NUL).
pub(crate) fn text(value: &[u8]) -> String {
    let end = value.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    String::from_utf8_lossy(&value[..end]).into_owned()
}

impl Zone {
    /// The zone named `name`, as radosgw finds it: `zone_names.<name>`
    /// in `.rgw.root`, then its parameters. `store` must take whole pool
    /// names (an empty pool prefix).
    pub async fn open(store: Arc<dyn Store>, name: &str) -> ZoneResult<Zone> {
        let read = |oid: String| {
            let store = store.clone();
            async move {
                match store
                    .read(
                        &ObjectId::new(ROOT_POOL, oid),
                        ReadOp::new().read(0, 1 << 20),
                    )
                    .await
                {
                    Ok(r) => Ok(r.data.unwrap_or_default()),
                    Err(StoreError::NotFound | StoreError::NoSuchPool(_)) => {
                        Err(ZoneError::NoSuchZone(name.to_string()))
                    }
                    Err(e) => Err(ZoneError::Store(e)),
                }
            }
        };
        let id = decode(
            format!("zone_names.{name}"),
            decode_name_to_id(&read(names_object(name)).await?),
        )?;
        let params = decode(
            format!("zone_info.{id}"),
            decode_zone_params(&read(info_object(&id)).await?),
        )?;
        Zone::with_params(store, params)
    }

    /// A reader of the zone `params` describe, in `store`.
    pub fn with_params(store: Arc<dyn Store>, params: ZoneParams) -> ZoneResult<Zone> {
        let pool = |which: &str| {
            params.pool(which).cloned().ok_or_else(|| {
                ZoneError::Unsupported(format!("zone {} names no {which}", params.name))
            })
        };
        Ok(Zone {
            users: pool("user_uid_pool")?,
            keys: pool("user_keys_pool")?,
            root: pool("domain_root")?,
            cache: None,
            gc: None,
            params: Arc::new(params),
            store,
        })
    }

    /// The same zone read through `store` (the blocking pool mode's view
    /// of the same cluster, say).
    pub fn with_store(&self, store: Arc<dyn Store>) -> Zone {
        Zone {
            store,
            ..self.clone()
        }
    }

    /// The store the zone is read and written through.
    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The same zone reading its metadata records through `cache`, which
    /// must be kept coherent by a watch of the zone's control objects
    /// ([`Zone::watch_control`] with the cache as the watcher) or trusted
    /// only for its short TTL.
    pub fn with_cache(&self, cache: Arc<RecordCache>) -> Zone {
        Zone {
            cache: Some(cache),
            ..self.clone()
        }
    }

    /// The same zone handing replaced tails to radosgw's garbage collector
    /// with `settings` (without, they are released at once).
    pub fn with_gc(&self, settings: GcSettings) -> Zone {
        Zone {
            gc: Some(settings),
            ..self.clone()
        }
    }

    /// How replaced tails are handed to radosgw's collector, if they are.
    pub fn gc(&self) -> Option<GcSettings> {
        self.gc
    }

    /// The metadata cache, if the zone has one.
    pub fn cache(&self) -> Option<&Arc<RecordCache>> {
        self.cache.as_ref()
    }

    /// The zone's parameters.
    pub fn params(&self) -> &ZoneParams {
        &self.params
    }

    /// Watches every control object of the zone (`notify.<n>` in its
    /// control pool, where radosgw announces each metadata record it
    /// changes: [`crate::notify`]); each notification reaches `watcher`
    /// until the handles are dropped. Blocking, as [`Store::watch`] is.
    pub fn watch_control(
        &self,
        watcher: Arc<dyn Watcher>,
    ) -> ZoneResult<Vec<Box<dyn WatchHandle>>> {
        let pool = self
            .params
            .pool("control_pool")
            .ok_or_else(|| ZoneError::Unsupported("the zone names no control pool".into()))?;
        let mut lister = self
            .store
            .list_objects_blocking(&pool.name, NamespaceFilter::Only(pool.ns.clone()))?;
        let mut names = Vec::new();
        loop {
            let page = lister.next_page_blocking(1000)?;
            if page.is_empty() {
                break;
            }
            names.extend(
                page.into_iter()
                    .filter(|e| e.name.starts_with("notify."))
                    .map(|e| e.name),
            );
        }
        if names.is_empty() {
            return Err(ZoneError::Unsupported(format!(
                "no control objects (notify.<n>) in {}: has a radosgw of zone {} ever run?",
                pool.to_str(),
                self.params.name
            )));
        }
        names.sort();
        names
            .iter()
            .map(|n| {
                self.store
                    .watch(&in_pool(pool, n), watcher.clone())
                    .map_err(|source| ZoneError::Watch {
                        object: format!("{}/{n}", pool.to_str()),
                        source,
                    })
            })
            .collect()
    }

    /// A metadata record (data and xattrs), through the cache if any;
    /// `None` if there is no such object.
    async fn record(&self, obj: &ObjectId) -> ZoneResult<Option<Record>> {
        if let Some(r) = self.cache.as_ref().and_then(|c| c.get(obj)) {
            return Ok(Some(r));
        }
        let ticket = self.cache.as_ref().map(|c| c.ticket());
        let r = match self
            .store
            .read(obj, ReadOp::new().read(0, 1 << 20).xattrs())
            .await
        {
            Ok(r) => Record {
                data: r.data.unwrap_or_default(),
                xattrs: r.xattrs.unwrap_or_default(),
            },
            Err(StoreError::NotFound) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if let (Some(cache), Some(ticket)) = (&self.cache, ticket) {
            cache.put(ticket, obj, &r);
        }
        Ok(Some(r))
    }

    /// The user of id `uid` (`tenant$id` for a tenant's user).
    pub async fn user(&self, uid: &str) -> ZoneResult<UserRecord> {
        let obj = in_pool(&self.users, uid);
        let bytes = self
            .record(&obj)
            .await?
            .ok_or_else(|| ZoneError::NoSuchUser(uid.into()))?
            .data;
        decode(format!("user {uid}"), decode_user_record(&bytes))
    }

    /// The user owning S3 access key `access_key`, and that key's secret.
    pub async fn user_by_key(&self, access_key: &str) -> ZoneResult<(UserRecord, String)> {
        let obj = in_pool(&self.keys, access_key);
        let link = self
            .record(&obj)
            .await?
            .ok_or_else(|| ZoneError::NoSuchKey(access_key.into()))?
            .data;
        let uid = decode(format!("access key {access_key}"), decode_link(&link))?;
        let user = self.user(&uid).await?;
        let secret = user
            .info
            .access_keys
            .iter()
            .find(|k| k.id == access_key)
            .map(|k| k.key.clone())
            .ok_or_else(|| ZoneError::NoSuchKey(access_key.into()))?;
        Ok((user, secret))
    }

    /// The buckets user `uid` owns (what ListBuckets answers), by name:
    /// the omap of its `<uid>.buckets` object.
    pub async fn user_buckets(&self, uid: &str) -> ZoneResult<Vec<UserBucket>> {
        let obj = in_pool(&self.users, format!("{uid}.buckets"));
        let mut out = Vec::new();
        let mut after = String::new();
        loop {
            let page = match self
                .store
                .read(&obj, ReadOp::new().omap(&after, "", OMAP_MAX_PAGE))
                .await
            {
                Ok(r) => r.omap.unwrap_or_default(),
                Err(StoreError::NotFound) => return Ok(out),
                Err(e) => return Err(e.into()),
            };
            for (name, value) in &page.entries {
                out.push(decode(
                    format!("bucket {name:?} of user {uid}"),
                    decode_user_bucket(value),
                )?);
            }
            match page.entries.last() {
                Some((last, _)) if page.more => after.clone_from(last),
                _ => return Ok(out),
            }
        }
    }

    /// The bucket `name` (`tenant/name` for a tenant's): its current
    /// instance and ACL. Buckets this reader cannot serve whole are
    /// refused.
    pub async fn bucket(&self, name: &str) -> ZoneResult<ZoneBucket> {
        let entry = in_pool(&self.root, name);
        let bytes = self
            .record(&entry)
            .await?
            .ok_or_else(|| ZoneError::NoSuchBucket(name.into()))?
            .data;
        let ep = decode(format!("bucket {name}"), decode_entry_point(&bytes))?;
        let instance = self.bucket_instance(&ep.bucket);
        let Record { data, xattrs } = self
            .record(&instance)
            .await?
            .ok_or_else(|| ZoneError::NoSuchBucket(name.into()))?;
        let info = decode(
            format!("bucket instance {}", instance.name),
            decode_bucket_instance(&data),
        )?;
        let acl = xattrs
            .get(ATTR_ACL)
            .ok_or_else(|| ZoneError::Unsupported(format!("bucket {name} has no ACL")))?;
        let acl = decode(format!("ACL of bucket {name}"), decode_policy(acl))?;
        let policy = xattrs.get(ATTR_POLICY).map(|v| text(v));
        let cors = match xattrs.get(ATTR_CORS) {
            Some(v) => decode(format!("CORS of bucket {name}"), decode_cors(v))?,
            None => Vec::new(),
        };
        let tags = match xattrs.get(ATTR_TAGS) {
            Some(v) => decode(format!("tags of bucket {name}"), decode_tags(v))?,
            None => BTreeMap::new(),
        };
        let placement = self.placement_of(name, &info)?;
        let data_pool = placement
            .data_pool(&info.placement_rule.storage_class)
            .cloned()
            .ok_or_else(|| {
                ZoneError::Unsupported(format!(
                    "bucket {name}'s placement {} has no data pool",
                    placement.name
                ))
            })?;
        Ok(ZoneBucket {
            index_pool: placement.index_pool.clone(),
            data_extra_pool: placement.data_extra_pool.clone(),
            data_pool,
            info,
            acl,
            policy,
            cors,
            tags,
        })
    }

    /// A bucket's instance record (`.bucket.meta.[<tenant>:]<name>:<id>` in
    /// the zone's root pool).
    pub(crate) fn bucket_instance(&self, bucket: &Bucket) -> ObjectId {
        let name = match bucket.tenant.as_str() {
            "" => format!(".bucket.meta.{}:{}", bucket.name, bucket.bucket_id),
            t => format!(".bucket.meta.{t}:{}:{}", bucket.name, bucket.bucket_id),
        };
        in_pool(&self.root, name)
    }

    /// The headers of `bucket`'s index shards, each read through
    /// `rgw.bucket_list` (the stats radosgw keeps per category); a shard
    /// not made yet counts nothing.
    pub async fn shard_headers(&self, bucket: &ZoneBucket) -> ZoneResult<Vec<DirHeader>> {
        let info = &bucket.info;
        let shards: Vec<Option<u32>> = match info.index.num_shards {
            0 => vec![None],
            n => (0..n).map(Some).collect(),
        };
        let mut out = Vec::with_capacity(shards.len());
        for shard in shards {
            let oid = shard_object(&info.bucket.bucket_id, info.index.generation, shard);
            let op = ReadOp::new().exec(CLASS, LIST_METHOD, encode_list_header_only());
            let answer = match self
                .store
                .read(&in_pool(&bucket.index_pool, &oid), op)
                .await
            {
                Ok(r) => r.exec.unwrap_or_default(),
                Err(StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            };
            out.push(decode(
                format!("header of index shard {oid}"),
                decode_list_header(&answer),
            )?);
        }
        Ok(out)
    }

    /// Up to `max` objects of `bucket` whose keys begin with `prefix` and
    /// sort after `after`, in key order, merged from every index shard.
    pub async fn list(
        &self,
        bucket: &ZoneBucket,
        prefix: &str,
        after: &str,
        max: usize,
    ) -> ZoneResult<Listing> {
        let start = if after.is_empty() {
            String::new()
        } else {
            index_key(after)
        };
        let mut out = Listing::default();
        let name = &bucket.info.bucket.name;
        self.walk_index(bucket, &index_key(prefix), &start, |index_key, value| {
            let Some(key) = key_of_index(index_key) else {
                return Ok(true);
            };
            let entry = decode(
                format!("index entry {index_key:?} of {name}"),
                decode_dir_entry(value),
            )?;
            if !entry.exists || entry.meta.category != Category::Main || !entry.is_visible() {
                return Ok(true);
            }
            if out.entries.len() == max {
                out.truncated = true;
                return Ok(false);
            }
            out.entries.push(ListedObject {
                key: key.to_string(),
                entry,
            });
            Ok(true)
        })
        .await?;
        Ok(out)
    }

    /// Walks the entries of `bucket`'s index whose keys begin with
    /// `index_prefix` and sort after `after`, merged from every shard in
    /// key order, until `visit` answers `false` or none are left.
    pub(crate) async fn walk_index(
        &self,
        bucket: &ZoneBucket,
        index_prefix: &str,
        after: &str,
        mut visit: impl FnMut(&str, &[u8]) -> ZoneResult<bool>,
    ) -> ZoneResult<()> {
        let info = &bucket.info;
        let shards: Vec<Option<u32>> = match info.index.num_shards {
            0 => vec![None],
            n => (0..n).map(Some).collect(),
        };
        let mut start = after.to_string();
        loop {
            let mut merged: Vec<(String, Bytes)> = Vec::new();
            // the least last key of the shards with more to read: beyond
            // it, a shard may hold keys not read yet
            let mut bound: Option<String> = None;
            for shard in &shards {
                let oid = shard_object(&info.bucket.bucket_id, info.index.generation, *shard);
                let page = self
                    .omap_page(&in_pool(&bucket.index_pool, oid), &start, index_prefix)
                    .await?;
                if page.more
                    && let Some((last, _)) = page.entries.last()
                    && bound.as_ref().is_none_or(|b| last < b)
                {
                    bound = Some(last.clone());
                }
                merged.extend(page.entries);
            }
            merged.sort_by(|a, b| a.0.cmp(&b.0));
            if let Some(bound) = &bound {
                merged.retain(|(k, _)| k <= bound);
            }
            for (index_key, value) in merged {
                start.clone_from(&index_key);
                if !visit(&index_key, &value)? {
                    return Ok(());
                }
            }
            if bound.is_none() {
                return Ok(());
            }
        }
    }

    async fn omap_page(&self, shard: &ObjectId, after: &str, prefix: &str) -> ZoneResult<OmapPage> {
        match self
            .store
            .read(shard, ReadOp::new().omap(after, prefix, SHARD_PAGE))
            .await
        {
            Ok(r) => Ok(r.omap.unwrap_or_default()),
            Err(StoreError::NotFound) => Ok(OmapPage::default()),
            Err(e) => Err(e.into()),
        }
    }

    pub(crate) fn head_id(bucket: &ZoneBucket, key: &str) -> ObjectId {
        let obj = Obj {
            bucket: bucket.info.bucket.clone(),
            ns: String::new(),
            name: key.to_string(),
            instance: String::new(),
        };
        in_pool(&bucket.data_pool, obj.oid()).with_locator(obj.locator())
    }

    /// The head of object `key`, with its first bytes.
    pub async fn head(&self, bucket: &ZoneBucket, key: &str) -> ZoneResult<Head> {
        self.head_reading(bucket, key, HEAD_READ).await
    }

    /// The head of object `key` without its bytes ([`Head::head_data`]
    /// empty): what an ACL or a HEAD needs.
    pub async fn head_meta(&self, bucket: &ZoneBucket, key: &str) -> ZoneResult<Head> {
        self.head_reading(bucket, key, 0).await
    }

    async fn head_reading(&self, bucket: &ZoneBucket, key: &str, bytes: u64) -> ZoneResult<Head> {
        let id = Self::head_id(bucket, key);
        let mut op = ReadOp::new().stat().xattrs();
        if bytes > 0 {
            op = op.read(0, bytes);
        }
        let r = match self.store.read(&id, op).await {
            Ok(r) => r,
            // radosgw makes a placement's data pool with its first object
            Err(StoreError::NotFound | StoreError::NoSuchPool(_)) => {
                return Err(ZoneError::NoSuchObject(key.into()));
            }
            Err(e) => return Err(e.into()),
        };
        let xattrs = r.xattrs.unwrap_or_default();
        for (attr, why) in ATTRS_REFUSED {
            if xattrs.contains_key(attr) {
                return Err(ZoneError::Unsupported(format!("object {key} is {why}")));
            }
        }
        let manifest = xattrs
            .get(ATTR_MANIFEST)
            .ok_or_else(|| ZoneError::Unsupported(format!("object {key} has no manifest")))?;
        let manifest = decode(format!("manifest of {key}"), decode_manifest(manifest))?;
        let acl = xattrs
            .get(ATTR_ACL)
            .ok_or_else(|| ZoneError::Unsupported(format!("object {key} has no ACL")))?;
        let acl = decode(format!("ACL of {key}"), decode_policy(acl))?;
        let stat = r
            .stat
            .ok_or_else(|| StoreError::Io("a stat asked for was not answered".into()))?;
        let (headers, meta) = stored_headers(&xattrs);
        let tags = match xattrs.get(ATTR_TAGS) {
            Some(v) => read_tags(v).ok_or_else(|| ZoneError::Decode {
                what: format!("tags of {key}"),
                source: DecodeError::Value {
                    what: "user.rgw.x-amz-tagging (neither RGWObjTags nor a header)",
                    value: v.len() as u64,
                    at: 0,
                },
            })?,
            None => BTreeMap::new(),
        };
        Ok(Head {
            tags,
            etag: xattrs.get(ATTR_ETAG).map(|v| text(v)).unwrap_or_default(),
            content_type: headers.get("content-type").cloned().unwrap_or_default(),
            headers,
            meta,
            acl,
            mtime: stat.mtime,
            version: stat.version,
            head_data: r.data.unwrap_or_default(),
            manifest,
        })
    }

    /// Bytes `ofs..ofs + len` of the object (cut at its end), read piece
    /// by piece through its manifest; the head's bytes come from `head`.
    pub async fn read(
        &self,
        bucket: &ZoneBucket,
        head: &Head,
        ofs: u64,
        len: u64,
    ) -> ZoneResult<Bytes> {
        let end = ofs.saturating_add(len).min(head.size());
        let mut out = BytesMut::new();
        let mut at = ofs;
        while at < end {
            let piece = decode("manifest", head.manifest.seek(at))?;
            let within = at - piece.ofs;
            let take = (piece.size - within).min(end - at);
            let from = piece.loc_ofs + within;
            let bytes = if piece.oid == head.manifest.head.oid()
                && from.saturating_add(take) <= head.head_data.len() as u64
            {
                head.head_data.slice(from as usize..(from + take) as usize)
            } else {
                let id = in_pool(&bucket.data_pool, &piece.oid).with_locator(&piece.locator);
                let r = self.store.read(&id, ReadOp::new().read(from, take)).await;
                match r {
                    Ok(r) => r.data.unwrap_or_default(),
                    Err(StoreError::NotFound) => {
                        return Err(ZoneError::Unsupported(format!(
                            "piece {} of {} is missing",
                            piece.oid, head.manifest.head.name
                        )));
                    }
                    Err(e) => return Err(e.into()),
                }
            };
            if bytes.len() as u64 != take {
                return Err(ZoneError::Unsupported(format!(
                    "piece {} of {} holds {} bytes at {from}, its manifest says {take}",
                    piece.oid,
                    head.manifest.head.name,
                    bytes.len()
                )));
            }
            out.extend_from_slice(&bytes);
            at += take;
        }
        Ok(out.freeze())
    }
}

impl Zone {
    /// The placement target of a bucket this reader can serve whole;
    /// refuses one it would serve wrong: versioned, placed by explicit
    /// pools or by a target the zone lacks, or with an index not in RADOS.
    fn placement_of(&self, name: &str, info: &BucketInfo) -> ZoneResult<&Placement> {
        if let Some(state) = info.versioning() {
            return Err(ZoneError::Unsupported(format!(
                "bucket {name} is versioned ({state})"
            )));
        }
        if !info.bucket.explicit_placement.data_pool.name.is_empty() {
            return Err(ZoneError::Unsupported(format!(
                "bucket {name} is placed by explicit pools"
            )));
        }
        let target = match info.placement_rule.name.as_str() {
            "" => DEFAULT_PLACEMENT,
            t => t,
        };
        let placement = self.params.placement(target).ok_or_else(|| {
            ZoneError::Unsupported(format!(
                "bucket {name}'s placement target {target} is not zone {}'s",
                self.params.name
            ))
        })?;
        if info.index.index_type != 0 || placement.index_type != 0 {
            return Err(ZoneError::Unsupported(format!(
                "bucket {name} has no index in RADOS (index type {})",
                info.index.index_type.max(placement.index_type as u8)
            )));
        }
        Ok(placement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_keys_escape_a_leading_underscore() {
        for key in ["plain", "_under", "__two", "a_b", "ü"] {
            assert_eq!(key_of_index(&index_key(key)), Some(key));
        }
        assert_eq!(index_key("_x"), "__x");
        assert_eq!(key_of_index("_multipart_k.2~id.meta"), None);
        assert_eq!(key_of_index("_shadow_x"), None);
    }

    #[test]
    fn text_attrs_lose_trailing_nuls() {
        assert_eq!(text(b"text/plain\0"), "text/plain");
        assert_eq!(text(b"abc"), "abc");
        assert_eq!(text(b"\0"), "");
    }
}
