//! Objects: striped writes that never expose a partial object, reads that
//! cost one store round trip for objects of one chunk, conditional requests,
//! deletion.
//!
//! A PUT streams the body: the first `chunk_size` bytes are kept for the head
//! object, the rest is written as tail stripes tagged with a fresh write tag
//! (announced in the GC log first, so an interrupted upload's stripes are
//! found). Then one atomic write replaces the head (data, metadata and tag),
//! guarded by the tag it replaces, so the replaced version's stripes are
//! known exactly; then the bucket index is updated; then the replaced stripes
//! are deleted. Invariant: an object listed in the index can be read.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures::{Stream, StreamExt};
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::acl::CannedAcl;
use crate::authz::{Access, Requester, Target};
use crate::buckets::BucketInfo;
use crate::cache::Change;
use crate::ids::now_secs;
use crate::list::IndexEntry;
use crate::object_cache::{Cached, Lookup, Ticket};
use crate::usage::Usage;
use crate::write::{Declared, WriteTarget};
use crate::{Gateway, GatewayError, GatewayResult, layout};

/// A stream of body bytes, in or out.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, GatewayError>> + Send>>;

/// Everything stored about an object besides its data (xattr `rsgw.obj` of
/// its head).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObjectMeta {
    /// Data length.
    pub size: u64,
    /// Hex MD5 of the data (the ETag, without quotes).
    pub etag: String,
    /// Last modification, seconds since the epoch.
    pub mtime: f64,
    /// Owning user id: the writer's, or the bucket owner's for an
    /// anonymous writer (as in radosgw); "" where an anonymous writer's
    /// object was stored before rsgw recorded that (see
    /// [`ObjectMeta::owner_in`]).
    pub owner: String,
    /// The object's canned ACL.
    pub acl: CannedAcl,
    /// Stored headers: content-type, content-encoding, content-disposition,
    /// content-language, cache-control, expires.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` metadata, names without the prefix.
    pub user_meta: BTreeMap<String, String>,
    /// The object's tags (`x-amz-tagging`, PutObjectTagging).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Tag of the write that made this version; the next overwrite is
    /// guarded by it.
    pub tag: String,
    /// Bytes held by the head object.
    pub head_len: u64,
    /// The data after the head, in order: one tail for a plain PUT larger
    /// than a chunk, one per part for a multipart upload.
    pub tails: Vec<Tail>,
    /// Verified whole-object checksums sent with the upload
    /// (`x-amz-checksum-*`), by algorithm name ("crc32", "sha256", ...),
    /// base64 as S3 shows them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checksums: BTreeMap<String, String>,
    /// The multipart upload that made this version ("" for a PUT or a
    /// copy): a retried CompleteMultipartUpload of it answers success for
    /// as long as this version is the key's current one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub upload_id: String,
}

/// A run of data stored as stripes `<bucket id>.<tag>.<n>`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tail {
    /// Names the stripes.
    pub tag: String,
    /// Bytes in this run.
    pub size: u64,
    /// Bytes per stripe (the last may hold fewer).
    pub stripe_size: u64,
}

impl Tail {
    /// Number of stripe objects.
    pub fn stripes(&self) -> u64 {
        self.size.div_ceil(self.stripe_size.max(1))
    }
}

impl ObjectMeta {
    /// The object's owner in `bucket`: its recorded owner, or the bucket's
    /// for an object an anonymous user wrote (recorded as "" by earlier
    /// versions).
    pub fn owner_in<'a>(&'a self, bucket: &'a BucketInfo) -> &'a str {
        if self.owner.is_empty() {
            &bucket.owner
        } else {
            &self.owner
        }
    }

    /// Last modification as a time.
    pub fn modified(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs_f64(self.mtime.max(0.0))
    }
}

/// An object's ACL as GetObjectAcl shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectAcl {
    /// The object's owner (user id).
    pub owner: String,
    /// Its canned ACL.
    pub acl: CannedAcl,
    /// The bucket's owner, whom the bucket-owner ACLs name.
    pub bucket_owner: String,
}

/// Runs once the whole body has been read and before anything becomes
/// visible: checks the protocol's own digests of the body (checksum headers
/// and trailers) and returns those to store with the object.
pub type BodyCheck = Box<dyn FnOnce() -> GatewayResult<BTreeMap<String, String>> + Send + Sync>;

/// How to store an object.
#[derive(Default)]
pub struct PutParams {
    /// Stored headers (lowercase names).
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` metadata.
    pub user_meta: BTreeMap<String, String>,
    /// Tags to store (checked: `check_tags`).
    pub tags: BTreeMap<String, String>,
    /// The object's ACL.
    pub acl: CannedAcl,
    /// Content-MD5, decoded.
    pub content_md5: Option<Vec<u8>>,
    /// Declared length, if any.
    pub content_length: Option<u64>,
    /// If-Match: write only over this ETag ("*" any existing object).
    pub if_match: Option<String>,
    /// If-None-Match: *: write only if the object does not exist.
    pub if_none_match_any: bool,
    /// Extra verification of the body before the commit.
    pub check: Option<BodyCheck>,
}

/// What a PUT produced.
#[derive(Debug, Clone)]
pub struct PutResult {
    /// The new version's metadata.
    pub meta: ObjectMeta,
}

/// A byte range as S3 requests it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeSpec {
    /// `bytes=first-` or `bytes=first-last`.
    Int {
        /// First byte.
        first: u64,
        /// Last byte, inclusive.
        last: Option<u64>,
    },
    /// `bytes=-length`: the last `length` bytes.
    Suffix {
        /// How many bytes.
        length: u64,
    },
    /// `partNumber`: the bytes one part of a multipart upload made; part 1
    /// of any other object is all of it.
    Part(u32),
}

/// How to read an object.
#[derive(Debug, Clone, Default)]
pub struct GetParams {
    /// Only this range.
    pub range: Option<RangeSpec>,
    /// If-Match ETags ("*" matches any).
    pub if_match: Option<Vec<String>>,
    /// If-None-Match ETags ("*" matches any).
    pub if_none_match: Option<Vec<String>>,
    /// If-Modified-Since.
    pub if_modified_since: Option<SystemTime>,
    /// If-Unmodified-Since.
    pub if_unmodified_since: Option<SystemTime>,
    /// HEAD: metadata only.
    pub head_only: bool,
}

/// What a GET or HEAD found.
pub struct GetResult {
    /// The object's metadata.
    pub meta: ObjectMeta,
    /// The byte range served, `start..end`, if a range or a part of a
    /// multipart object was asked for.
    pub range: Option<(u64, u64)>,
    /// How many parts made the object, if a part was asked for and a
    /// multipart upload made it (`x-amz-mp-parts-count`).
    pub parts_count: Option<u32>,
    /// The data (None for HEAD).
    pub body: Option<BodyStream>,
}

fn etag_matches(list: &[String], etag: &str) -> bool {
    list.iter().any(|e| {
        e == "*"
            || e.trim_matches('"') == etag
            || e.trim_start_matches("W/").trim_matches('"') == etag
    })
}

/// RFC 7232's order: If-Match, else If-Unmodified-Since (412); then
/// If-None-Match, else If-Modified-Since (304).
fn check_conditions(p: &GetParams, meta: &ObjectMeta) -> GatewayResult<()> {
    let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(meta.mtime as u64);
    if let Some(list) = &p.if_match {
        if !etag_matches(list, &meta.etag) {
            return Err(GatewayError::PreconditionFailed);
        }
    } else if let Some(t) = p.if_unmodified_since
        && modified > t
    {
        return Err(GatewayError::PreconditionFailed);
    }
    if let Some(list) = &p.if_none_match {
        if etag_matches(list, &meta.etag) {
            return Err(GatewayError::NotModified {
                etag: meta.etag.clone(),
                mtime: meta.mtime,
            });
        }
    } else if let Some(t) = p.if_modified_since
        && modified <= t
    {
        return Err(GatewayError::NotModified {
            etag: meta.etag.clone(),
            mtime: meta.mtime,
        });
    }
    Ok(())
}

/// The bytes `spec` names in `meta`'s object; `None`: all of them.
fn resolve_range(spec: RangeSpec, meta: &ObjectMeta) -> GatewayResult<Option<(u64, u64)>> {
    let size = meta.size;
    if let RangeSpec::Part(n) = spec {
        let n = n as usize;
        if meta.upload_id.is_empty() {
            // what no multipart upload made is its own part 1
            return if n == 1 {
                Ok(None)
            } else {
                Err(GatewayError::InvalidPartNumber)
            };
        }
        let Some(part) = n.checked_sub(1).and_then(|i| meta.tails.get(i)) else {
            return Err(GatewayError::InvalidPartNumber);
        };
        let start = meta.head_len + meta.tails[..n - 1].iter().map(|t| t.size).sum::<u64>();
        return Ok(Some((start, start + part.size)));
    }
    byte_range(spec, size).map(Some)
}

fn byte_range(spec: RangeSpec, size: u64) -> GatewayResult<(u64, u64)> {
    match spec {
        RangeSpec::Int { first, last } => {
            if first >= size {
                return Err(GatewayError::InvalidRange);
            }
            let end = last.map_or(size, |l| l.saturating_add(1).min(size));
            if end <= first {
                return Err(GatewayError::InvalidRange);
            }
            Ok((first, end))
        }
        RangeSpec::Suffix { length } => {
            if length == 0 || size == 0 {
                return Err(GatewayError::InvalidRange);
            }
            Ok((size.saturating_sub(length), size))
        }
        RangeSpec::Part(_) => Err(GatewayError::InvalidPartNumber),
    }
}

/// Object keys: non-empty, at most 1024 bytes, no NUL.
pub(crate) fn validate_key(key: &str) -> GatewayResult<()> {
    if key.is_empty() {
        return Err(GatewayError::InvalidKey("empty key".into()));
    }
    if key.len() > 1024 {
        return Err(GatewayError::KeyTooLong);
    }
    if key.contains('\0') {
        return Err(GatewayError::InvalidKey("contains NUL".into()));
    }
    Ok(())
}

fn parse_meta(xattrs: &BTreeMap<String, Bytes>) -> GatewayResult<ObjectMeta> {
    let raw = xattrs
        .get(layout::META_XATTR)
        .ok_or_else(|| GatewayError::Corrupt("head object without metadata".into()))?;
    Ok(serde_json::from_slice(raw)?)
}

/// The GC log entry of a write tag.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GcEntry {
    /// "upload": stripes of a write in progress; "replaced": stripes of a
    /// version that no head references any more; "replacing": stripes of a
    /// version a write is about to replace, garbage once the head no longer
    /// carries `while_head` (logged before the head changes, so a crash
    /// between the commit and the retirement leaks nothing).
    pub(crate) kind: String,
    pub(crate) bucket_id: String,
    pub(crate) key: String,
    /// Known number of stripes (None: count until one is missing).
    pub(crate) stripes: Option<u64>,
    pub(crate) time: f64,
    /// For a multipart part: its upload and part number (the part is
    /// committed once the upload records it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) part_of: Option<(String, u32)>,
    /// For "replacing": the head tag of the version the stripes belong to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) while_head: Option<String>,
}

impl Gateway {
    /// Who owns what `rq` writes into `bucket`: the writer, or the
    /// bucket's owner for an anonymous writer (as in radosgw).
    pub(crate) fn writer<'a>(rq: &'a Requester, bucket: &'a BucketInfo) -> &'a str {
        rq.uid().unwrap_or(&bucket.owner)
    }

    pub(crate) async fn gc_note(&self, tag: &str, entry: &GcEntry) -> GatewayResult<()> {
        let v = Bytes::from(serde_json::to_vec(entry)?);
        self.store
            .write(&layout::gc_log(), WriteOp::new().omap_set([(tag, v)]))
            .await?;
        Ok(())
    }

    pub(crate) async fn gc_forget(&self, tag: &str) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::gc_log(), WriteOp::new().omap_rm([tag]))
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Deletes stripes `0..count` (or until one is missing) of a tag.
    pub(crate) async fn delete_stripes(
        &self,
        bucket_id: &str,
        tag: &str,
        count: Option<u64>,
    ) -> GatewayResult<u64> {
        let mut n = 0;
        loop {
            if count.is_some_and(|c| n >= c) {
                return Ok(n);
            }
            match self
                .store
                .write(&layout::stripe(bucket_id, tag, n), WriteOp::new().remove())
                .await
            {
                Ok(_) => n += 1,
                Err(StoreError::NotFound) if count.is_none() => return Ok(n),
                Err(StoreError::NotFound) => n += 1,
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Retires the stripes of a replaced or deleted version (or of parts no
    /// object took): logged first, so a crash halfway leaves work for the
    /// collector, not leaked objects.
    pub(crate) async fn retire(
        &self,
        bucket_id: &str,
        key: &str,
        tails: &[Tail],
    ) -> GatewayResult<()> {
        for tail in tails.iter().filter(|t| t.size > 0) {
            self.gc_note(
                &tail.tag,
                &GcEntry {
                    kind: "replaced".into(),
                    bucket_id: bucket_id.into(),
                    key: key.into(),
                    stripes: Some(tail.stripes()),
                    time: now_secs(),
                    part_of: None,
                    while_head: None,
                },
            )
            .await?;
            self.delete_stripes(bucket_id, &tail.tag, Some(tail.stripes()))
                .await?;
            self.gc_forget(&tail.tag).await?;
        }
        Ok(())
    }

    pub(crate) async fn head_meta(&self, head: &ObjectId) -> GatewayResult<Option<ObjectMeta>> {
        Ok(self.head_state(head).await?.map(|(meta, _)| meta))
    }

    /// The head's metadata, and whether it carries the object cache's
    /// mark (a write of it must then be announced).
    pub(crate) async fn head_state(
        &self,
        head: &ObjectId,
    ) -> GatewayResult<Option<(ObjectMeta, Marked)>> {
        match self.store.read(head, ReadOp::new().xattrs()).await {
            Ok(r) => {
                let xattrs = r.xattrs.unwrap_or_default();
                Ok(Some((parse_meta(&xattrs)?, Marked::of(&xattrs))))
            }
            Err(StoreError::NotFound) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Announces a write of `head` if it was marked as cached; its write
    /// was guarded on the mark's absence otherwise (see [`Marked::unchanged`]).
    pub(crate) async fn announce_write(
        &self,
        head: &ObjectId,
        marked: Marked,
    ) -> GatewayResult<()> {
        if marked.0 {
            self.announce(Change::Object(head.name.clone())).await?;
        }
        Ok(())
    }

    /// Stores an object from a body stream.
    pub async fn put_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        mut params: PutParams,
        body: BodyStream,
    ) -> GatewayResult<PutResult> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutObject, &Target::key(&info, key))?;
        if params
            .content_length
            .is_some_and(|l| l > self.opts.max_put_size)
        {
            return Err(GatewayError::EntityTooLarge);
        }
        let head_id = layout::head(&info.id, key);
        if params.if_match.is_some() || params.if_none_match_any {
            let cur = self.head_meta(&head_id).await?;
            check_put_conditions(&params, cur.as_ref())?;
        }
        let w = self
            .write_body(
                WriteTarget {
                    info: &info,
                    key,
                    head_len: self.opts.chunk_size as usize,
                    part_of: None,
                },
                Declared {
                    content_length: params.content_length,
                    content_md5: params.content_md5.take(),
                    check: params.check.take(),
                },
                body,
            )
            .await?;
        let meta = ObjectMeta {
            size: w.size,
            etag: w.md5,
            mtime: now_secs(),
            owner: Self::writer(rq, &info).to_string(),
            acl: params.acl,
            headers: params.headers.clone(),
            user_meta: params.user_meta.clone(),
            tags: params.tags.clone(),
            tag: w.tag.clone(),
            head_len: w.head.len() as u64,
            tails: if w.stripes > 0 {
                vec![Tail {
                    tag: w.tag.clone(),
                    size: w.size - w.head.len() as u64,
                    stripe_size: self.opts.stripe_size,
                }]
            } else {
                Vec::new()
            },
            checksums: w.checksums,
            upload_id: String::new(),
        };
        let add = Usage {
            objects: 1,
            bytes: meta.size,
        };
        let committed = match self.quota_pass(&info, add, true).await {
            Ok(pass) => self
                .commit_head(&info.id, key, &params, w.head, &meta)
                .await
                .map(|replaced| (pass, replaced)),
            Err(e) => Err(e),
        };
        let (_pass, replaced) = match committed {
            Ok(r) => r,
            Err(e) => {
                self.abort_upload(&info.id, &w.tag, w.stripes).await?;
                return Err(e);
            }
        };
        self.index_committed(&info, key, &meta, replaced.as_ref())
            .await?;
        if w.stripes > 0 {
            self.gc_forget(&w.tag).await?;
        }
        if let Some(old) = replaced {
            self.retire(&info.id, key, &old.tails).await?;
        }
        Ok(PutResult { meta })
    }

    /// Lists a committed version in the bucket's index. The index must
    /// still exist: if the bucket was deleted while the object was being
    /// written, the version is taken back (head and stripes, and those of
    /// the version it replaced) and the write fails with `NoSuchBucket`,
    /// instead of leaving an object no bucket holds.
    pub(crate) async fn index_committed(
        &self,
        info: &BucketInfo,
        key: &str,
        meta: &ObjectMeta,
        replaced: Option<&ObjectMeta>,
    ) -> GatewayResult<()> {
        let entry = Bytes::from(serde_json::to_vec(&IndexEntry::from_meta(meta))?);
        match self.index_update(info, key, Some(entry)).await {
            Ok(()) => Ok(()),
            Err(GatewayError::Store(StoreError::NotFound)) => {
                match self
                    .store
                    .write(
                        &layout::head(&info.id, key),
                        WriteOp::new()
                            .cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, meta.tag.clone())
                            .remove(),
                    )
                    .await
                {
                    Ok(_) => {
                        // another instance may have cached the version
                        // taken back (rare: no need to know whether)
                        self.announce(Change::Object(layout::head(&info.id, key).name))
                            .await?;
                    }
                    Err(StoreError::NotFound | StoreError::GuardFailed(_)) => {}
                    Err(e) => return Err(e.into()),
                }
                self.retire(&info.id, key, &meta.tails).await?;
                if let Some(old) = replaced {
                    self.retire(&info.id, key, &old.tails).await?;
                }
                self.cache
                    .invalidate(Some(&Change::Bucket(info.name.clone())));
                Err(GatewayError::NoSuchBucket)
            }
            Err(e) => Err(e),
        }
    }

    /// Replaces the head atomically, guarded by the tag of the version it
    /// replaces; returns that version's metadata.
    pub(crate) async fn commit_head(
        &self,
        bucket_id: &str,
        key: &str,
        params: &PutParams,
        data: Bytes,
        meta: &ObjectMeta,
    ) -> GatewayResult<Option<ObjectMeta>> {
        let head_id = &layout::head(bucket_id, key);
        let json = Bytes::from(serde_json::to_vec(meta)?);
        for _ in 0..64 {
            let state = self.head_state(head_id).await?;
            let marked = state.as_ref().map_or(Marked(false), |s| s.1);
            let cur = state.map(|(meta, _)| meta);
            check_put_conditions(params, cur.as_ref())?;
            if let Some(old) = &cur {
                // the stripes this commit will orphan, logged before it
                for tail in old.tails.iter().filter(|t| t.size > 0) {
                    self.gc_note(
                        &tail.tag,
                        &GcEntry {
                            kind: "replacing".into(),
                            bucket_id: bucket_id.into(),
                            key: key.into(),
                            stripes: Some(tail.stripes()),
                            time: now_secs(),
                            part_of: None,
                            while_head: Some(old.tag.clone()),
                        },
                    )
                    .await?;
                }
            }
            let op = match &cur {
                Some(m) => marked.unchanged(&m.tag),
                None => WriteOp::new().create_exclusive(),
            }
            .write_full(data.clone())
            .set_xattr(layout::META_XATTR, json.clone())
            .set_xattr(layout::TAG_XATTR, meta.tag.clone());
            match self.store.write(head_id, op).await {
                Ok(_) => {
                    self.announce_write(head_id, marked).await?;
                    return Ok(cur);
                }
                Err(StoreError::GuardFailed(_) | StoreError::Exists | StoreError::NotFound) => {
                    continue;
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Reads an object (or only its metadata, for HEAD).
    pub async fn get_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        params: GetParams,
    ) -> GatewayResult<GetResult> {
        validate_key(key)?;
        let mut info = self.bucket_info(bucket).await?;
        let mut head = layout::head(&info.id, key);
        let mut ticket = match self.objects.lookup(&head.name) {
            Lookup::Hit(c) => {
                self.authorize_get(rq, &info, key, &c.meta)?;
                return self.answer_get(&info, params, c.meta.clone(), c.data.clone());
            }
            Lookup::Miss(t) => Some(t),
            Lookup::Off => None,
        };
        let op = || {
            if params.head_only {
                ReadOp::new().xattrs()
            } else {
                ReadOp::new().xattrs().read(0, self.opts.chunk_size)
            }
        };
        let mut checked = false;
        let r = loop {
            match self.store.read(&head, op()).await {
                Ok(r) => break r,
                Err(StoreError::NotFound) => {
                    // a cached record may name a bucket that another
                    // instance has since deleted and re-created
                    if !checked {
                        checked = true;
                        if let Some(now) = self.bucket_replaced(&info).await? {
                            info = now;
                            head = layout::head(&info.id, key);
                            ticket = None;
                            continue;
                        }
                    }
                    return Err(self.missing_key(rq, &info));
                }
                Err(e) => return Err(e.into()),
            }
        };
        let xattrs = r.xattrs.unwrap_or_default();
        let meta = parse_meta(&xattrs)?;
        let data = r.data.unwrap_or_default();
        self.authorize_get(rq, &info, key, &meta)?;
        if let Some(t) = ticket
            && !params.head_only
            && meta.tails.is_empty()
            && data.len() as u64 == meta.size
            && self.objects.fits(meta.size)
            && self.objects.wanted(&head.name)
            && let Some(record) = xattrs.get(layout::META_XATTR)
        {
            let marked = Marked::of(&xattrs);
            let fill = self.clone().cache_object(
                t,
                head,
                record.clone(),
                marked,
                meta.clone(),
                data.clone(),
            );
            match tokio::runtime::Handle::try_current() {
                // marking is a store write: off the request's path, where
                // a runtime runs tasks beside it (not a blocking pool's)
                Ok(rt)
                    if !marked.0
                        && rt.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread =>
                {
                    rt.spawn(fill);
                }
                _ => fill.await,
            }
        }
        self.answer_get(&info, params, meta, data)
    }

    /// A GET or HEAD of a whole object answered from memory alone: the
    /// bucket's record and the object cached, and `rq` allowed to read it.
    /// `None` whenever anything else holds (not cached, refused, an
    /// invalid key): the caller then asks [`Gateway::get_object`], which
    /// reads the store and answers errors.
    pub fn get_cached(&self, rq: &Requester, bucket: &str, key: &str) -> Option<CachedObject> {
        if !self.cache.watched() || validate_key(key).is_err() {
            return None;
        }
        let info = self.cache.bucket(bucket)?;
        let c = self.objects.lookup_hit(&layout::head(&info.id, key).name)?;
        self.authorize_get(rq, &info, key, &c.meta).ok()?;
        Some(CachedObject(c))
    }

    fn authorize_get(
        &self,
        rq: &Requester,
        info: &BucketInfo,
        key: &str,
        meta: &ObjectMeta,
    ) -> GatewayResult<()> {
        self.authorize(
            rq,
            Access::GetObject,
            &Target::object(info, key, meta.owner_in(info), meta.acl),
        )
    }

    /// Puts an object just read into the object cache, first marking its
    /// head (guarded on the metadata record read, `record`, so that a write
    /// since fails the mark) unless it is `marked` already. A failure only
    /// means not caching; the ticket refuses a fill that a change raced.
    async fn cache_object(
        self,
        ticket: Ticket,
        head: ObjectId,
        record: Bytes,
        marked: Marked,
        meta: ObjectMeta,
        data: Bytes,
    ) {
        if !marked.0 {
            let mark = WriteOp::new()
                .cmp_xattr(layout::META_XATTR, CmpOp::Eq, record.clone())
                .set_xattr(layout::CACHED_XATTR, Bytes::from_static(b"1"));
            match self.store.write(&head, mark).await {
                Ok(_) => {}
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => return,
                Err(error) => {
                    tracing::debug!(%error, object = %head.name, "marking an object as cached");
                    return;
                }
            }
        }
        let entry = Cached::new(&head.name, meta, data, record.len());
        self.objects.fill(ticket, &head.name, entry);
    }

    /// A GET's or HEAD's answer from an authorized object's metadata and
    /// head data: conditions, range, and the body.
    fn answer_get(
        &self,
        info: &BucketInfo,
        params: GetParams,
        meta: ObjectMeta,
        head_data: Bytes,
    ) -> GatewayResult<GetResult> {
        check_conditions(&params, &meta)?;
        let range = match params.range {
            Some(spec) => resolve_range(spec, &meta)?,
            None => None,
        };
        let parts_count = match params.range {
            Some(RangeSpec::Part(_)) if !meta.upload_id.is_empty() => Some(meta.tails.len() as u32),
            _ => None,
        };
        if params.head_only {
            return Ok(GetResult {
                meta,
                range,
                parts_count,
                body: None,
            });
        }
        let (start, end) = range.unwrap_or((0, meta.size));
        let head_part = if start < head_data.len() as u64 {
            head_data.slice(start as usize..end.min(head_data.len() as u64) as usize)
        } else {
            Bytes::new()
        };
        let body = self.stripe_stream(&info.id, &meta, head_part, start, end);
        Ok(GetResult {
            meta,
            range,
            parts_count,
            body: Some(body),
        })
    }

    /// The head's part, then the overlapping part of each stripe of each
    /// tail, each stripe read only when the consumer gets to it.
    pub(crate) fn stripe_stream(
        &self,
        bucket_id: &str,
        meta: &ObjectMeta,
        head_part: Bytes,
        start: u64,
        end: u64,
    ) -> BodyStream {
        let first = futures::stream::once(async move { Ok(head_part) }).filter(|r| {
            let keep = !matches!(r, Ok(b) if b.is_empty());
            async move { keep }
        });
        // (stripe object, offset in it, length) for every stripe overlapping start..end
        let mut reads = Vec::new();
        let mut tail_start = meta.head_len;
        for tail in &meta.tails {
            let tail_end = tail_start + tail.size;
            let (from, to) = (start.max(tail_start), end.min(tail_end));
            if from < to {
                let (from, to) = (from - tail_start, to - tail_start);
                let ss = tail.stripe_size.max(1);
                for n in from / ss..=(to - 1) / ss {
                    let s_start = n * ss;
                    let off = from.max(s_start) - s_start;
                    let len = to.min(s_start + ss) - s_start - off;
                    reads.push((layout::stripe(bucket_id, &tail.tag, n), off, len));
                }
            }
            tail_start = tail_end;
        }
        if reads.is_empty() {
            return Box::pin(first);
        }
        let store = self.store.clone();
        let rest = futures::stream::iter(reads).then(move |(id, off, len)| {
            let store = store.clone();
            async move {
                let r = store.read(&id, ReadOp::new().read(off, len)).await?;
                let data = r.data.unwrap_or_default();
                if (data.len() as u64) < len {
                    return Err(GatewayError::Corrupt(format!(
                        "stripe {} is short",
                        id.name
                    )));
                }
                Ok(data)
            }
        });
        Box::pin(first.chain(rest))
    }

    /// Deletes an object (succeeds if it is already gone).
    pub async fn delete_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<()> {
        self.delete_object_if(rq, bucket, key, |_| true)
            .await
            .map(drop)
    }

    /// Deletes an object if `cond` holds of its current version (an absent
    /// object is only unlisted); answers whether it deleted one. The head's
    /// removal is guarded on the version `cond` approved: a version written
    /// meanwhile is judged again, and one `cond` spares stays listed.
    pub(crate) async fn delete_object_if(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        cond: impl Fn(&ObjectMeta) -> bool,
    ) -> GatewayResult<bool> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        let mut unlisted = false;
        for _ in 0..64 {
            let Some((meta, marked)) = self.head_state(&head_id).await? else {
                self.authorize(rq, Access::DeleteObject, &Target::key(&info, key))?;
                self.unindex(&info, key).await?;
                return Ok(false);
            };
            self.authorize(
                rq,
                Access::DeleteObject,
                &Target::object(&info, key, &meta.owner, meta.acl),
            )?;
            if !cond(&meta) {
                if unlisted {
                    // the version that replaced the one unlisted below
                    self.index_committed(&info, key, &meta, None).await?;
                }
                return Ok(false);
            }
            // index first: an object listed is always readable
            self.unindex(&info, key).await?;
            unlisted = true;
            match self
                .store
                .write(&head_id, marked.unchanged(&meta.tag).remove())
                .await
            {
                Ok(_) => {
                    self.announce_write(&head_id, marked).await?;
                    self.retire(&info.id, key, &meta.tails).await?;
                    return Ok(true);
                }
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// Deletes each key as [`Gateway::delete_object`] does,
    /// [`GatewayOptions::multi_delete_concurrency`] at a time (DeleteObjects:
    /// one after the other, each key's index update, head removal and tail
    /// retirement are round trips to the cluster). The results come in the
    /// keys' order; a key named twice is deleted twice, the second time
    /// finding it gone.
    pub async fn delete_objects(
        &self,
        rq: &Requester,
        bucket: &str,
        keys: Vec<String>,
    ) -> Vec<(String, GatewayResult<()>)> {
        futures::stream::iter(keys)
            .map(|key| async move {
                let r = self.delete_object(rq, bucket, &key).await;
                (key, r)
            })
            .buffered(self.opts.multi_delete_concurrency.max(1))
            .collect()
            .await
    }

    async fn unindex(&self, info: &BucketInfo, key: &str) -> GatewayResult<()> {
        match self.index_update(info, key, None).await {
            Ok(()) | Err(GatewayError::Store(StoreError::NotFound)) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// An existing object's bucket record and metadata, for a request that
    /// reads only the metadata (GetObjectAcl, GetObjectTagging) and may do
    /// `access` on it; a missing key as `missing_key` answers.
    pub(crate) async fn object_meta_for(
        &self,
        rq: &Requester,
        access: Access,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<(BucketInfo, ObjectMeta)> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let Some(meta) = self.head_meta(&layout::head(&info.id, key)).await? else {
            return Err(self.missing_key(rq, &info));
        };
        self.authorize(
            rq,
            access,
            &Target::object(&info, key, meta.owner_in(&info), meta.acl),
        )?;
        Ok((info, meta))
    }

    /// An object's owner and ACL (GetObjectAcl).
    pub async fn get_object_acl(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<ObjectAcl> {
        let (info, meta) = self
            .object_meta_for(rq, Access::GetObjectAcl, bucket, key)
            .await?;
        Ok(ObjectAcl {
            owner: meta.owner_in(&info).to_string(),
            acl: meta.acl,
            bucket_owner: info.owner,
        })
    }

    /// Sets an object's canned ACL.
    pub async fn set_object_acl(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        acl: CannedAcl,
    ) -> GatewayResult<()> {
        self.update_meta(rq, Access::PutObjectAcl, bucket, key, |meta| {
            meta.acl = acl;
        })
        .await
    }

    /// Changes an existing object's metadata in place (its ACL, its tags),
    /// guarded by the write tag so that a concurrent overwrite is never
    /// undone: a lost race reads the new version and changes that.
    pub(crate) async fn update_meta(
        &self,
        rq: &Requester,
        access: Access,
        bucket: &str,
        key: &str,
        change: impl Fn(&mut ObjectMeta),
    ) -> GatewayResult<()> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        for _ in 0..64 {
            let Some((mut meta, marked)) = self.head_state(&head_id).await? else {
                return Err(GatewayError::NoSuchKey);
            };
            self.authorize(
                rq,
                access,
                &Target::object(&info, key, meta.owner_in(&info), meta.acl),
            )?;
            change(&mut meta);
            let json = Bytes::from(serde_json::to_vec(&meta)?);
            match self
                .store
                .write(
                    &head_id,
                    marked
                        .unchanged(&meta.tag)
                        .set_xattr(layout::META_XATTR, json),
                )
                .await
            {
                Ok(_) => return self.announce_write(&head_id, marked).await,
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }
}

/// An object served from memory ([`Gateway::get_cached`]).
pub struct CachedObject(Arc<Cached>);

impl CachedObject {
    /// Its metadata.
    pub fn meta(&self) -> &ObjectMeta {
        &self.0.meta
    }

    /// All its data.
    pub fn data(&self) -> &Bytes {
        &self.0.data
    }
}

/// Whether a head carries the object cache's mark
/// ([`layout::CACHED_XATTR`]): some instance may hold it in memory.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Marked(bool);

impl Marked {
    fn of(xattrs: &BTreeMap<String, Bytes>) -> Self {
        Marked(xattrs.contains_key(layout::CACHED_XATTR))
    }

    /// A write of the head as it was read: guarded on the version's `tag`
    /// (a concurrent overwrite fails it) and, if the head was read
    /// unmarked, on the mark's absence (a mark set since fails it too, and
    /// the retry reads it marked and announces itself).
    pub(crate) fn unchanged(self, tag: &str) -> WriteOp {
        let op = WriteOp::new().cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, tag.to_string());
        if self.0 {
            op
        } else {
            op.cmp_xattr(layout::CACHED_XATTR, CmpOp::Eq, Bytes::new())
        }
    }
}

fn check_put_conditions(p: &PutParams, cur: Option<&ObjectMeta>) -> GatewayResult<()> {
    if p.if_none_match_any && cur.is_some() {
        return Err(GatewayError::PreconditionFailed);
    }
    if let Some(want) = &p.if_match {
        match cur {
            None => return Err(GatewayError::PreconditionFailed),
            Some(m) if want != "*" && want.trim_matches('"') != m.etag => {
                return Err(GatewayError::PreconditionFailed);
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// How CopyObject treats the destination's metadata.
#[derive(Debug, Clone)]
pub enum CopyMetadata {
    /// Keep the source's headers and `x-amz-meta-*` (COPY).
    Copy,
    /// Use these instead (REPLACE).
    Replace {
        /// Stored headers.
        headers: BTreeMap<String, String>,
        /// `x-amz-meta-*`.
        user_meta: BTreeMap<String, String>,
    },
}

impl Gateway {
    /// Reads a copy's source (CopyObject, UploadPartCopy) as GetObject
    /// reads it, `range` (first and last byte) or all of it: its
    /// authorization, and `conditions`, the `x-amz-copy-source-if-*`
    /// checks, whose "not modified" is a failed precondition for a copy.
    pub(crate) async fn read_copy_source(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
        conditions: GetParams,
    ) -> GatewayResult<GetResult> {
        self.get_object(
            &rq.for_copy_source(),
            bucket,
            key,
            GetParams {
                range: range.map(|(first, last)| RangeSpec::Int {
                    first,
                    last: Some(last),
                }),
                head_only: false,
                ..conditions
            },
        )
        .await
        .map_err(|e| match e {
            GatewayError::NotModified { .. } => GatewayError::PreconditionFailed,
            e => e,
        })
    }

    /// Copies an object (within or across buckets), streaming its data
    /// through the gateway. `conditions` are the `x-amz-copy-source-if-*`
    /// checks on the source; `tags` replace the source's tags
    /// (`x-amz-tagging-directive: REPLACE`), `None` copies them.
    #[allow(clippy::too_many_arguments)]
    pub async fn copy_object(
        &self,
        rq: &Requester,
        src_bucket: &str,
        src_key: &str,
        dst_bucket: &str,
        dst_key: &str,
        metadata: CopyMetadata,
        acl: CannedAcl,
        tags: Option<BTreeMap<String, String>>,
        conditions: GetParams,
    ) -> GatewayResult<PutResult> {
        if src_bucket == dst_bucket && src_key == dst_key && matches!(metadata, CopyMetadata::Copy)
        {
            return Err(GatewayError::InvalidRequest(
                "This copy request is illegal because it is trying to copy an object to itself \
                 without changing the object's metadata, storage class, website redirect \
                 location or encryption attributes."
                    .into(),
            ));
        }
        let src = self
            .read_copy_source(rq, src_bucket, src_key, None, conditions)
            .await?;
        let (headers, user_meta) = match metadata {
            CopyMetadata::Copy => (src.meta.headers.clone(), src.meta.user_meta.clone()),
            CopyMetadata::Replace { headers, user_meta } => (headers, user_meta),
        };
        let params = PutParams {
            headers,
            user_meta,
            tags: tags.unwrap_or_else(|| src.meta.tags.clone()),
            acl,
            content_length: Some(src.meta.size),
            ..Default::default()
        };
        let body = src
            .body
            .unwrap_or_else(|| Box::pin(futures::stream::empty()));
        self.put_object(rq, dst_bucket, dst_key, params, body).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, OWNER, body, collect, owner, pattern, small_opts};
    use md5::{Digest, Md5};

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn ranges_resolve_as_rfc7233_says() {
        use RangeSpec::{Int, Suffix};
        let int = |first, last| Int { first, last };
        // (size, range, served bytes start..end or None for 416)
        type Case = (u64, RangeSpec, Option<(u64, u64)>);
        let cases: &[Case] = &[
            (100, int(0, Some(0)), Some((0, 1))),
            (100, int(0, Some(9)), Some((0, 10))),
            (100, int(0, None), Some((0, 100))),
            (100, int(99, Some(99)), Some((99, 100))),
            (100, int(90, None), Some((90, 100))),
            // a last byte past the end is cut to the end
            (100, int(90, Some(500)), Some((90, 100))),
            (100, int(0, Some(u64::MAX)), Some((0, 100))),
            // a first byte at or past the end cannot be satisfied
            (100, int(100, None), None),
            (100, int(100, Some(200)), None),
            (100, int(u64::MAX, Some(u64::MAX)), None),
            (100, Suffix { length: 1 }, Some((99, 100))),
            (100, Suffix { length: 10 }, Some((90, 100))),
            (100, Suffix { length: 100 }, Some((0, 100))),
            // a suffix longer than the object is the whole object
            (100, Suffix { length: 500 }, Some((0, 100))),
            (100, Suffix { length: u64::MAX }, Some((0, 100))),
            (100, Suffix { length: 0 }, None),
            (1, int(0, Some(0)), Some((0, 1))),
            (1, int(0, None), Some((0, 1))),
            (1, int(1, None), None),
            (1, Suffix { length: 1 }, Some((0, 1))),
            // nothing of an empty object can be addressed by position
            (0, int(0, None), None),
            (0, int(0, Some(0)), None),
        ];
        for &(size, spec, want) in cases {
            match (byte_range(spec, size), want) {
                (Ok(got), Some(want)) => assert_eq!(got, want, "{spec:?} of {size}"),
                (Err(e), None) => {
                    assert!(
                        matches!(e, GatewayError::InvalidRange),
                        "{spec:?} of {size}: {e}"
                    );
                }
                (got, want) => panic!("{spec:?} of {size}: got {got:?}, want {want:?}"),
            }
        }
    }

    /// `partNumber`: a part of what a multipart upload made, part 1 of
    /// anything else; no other part.
    #[test]
    fn parts_are_ranges_of_multipart_objects() {
        let tail = |size| Tail {
            tag: "t".into(),
            size,
            stripe_size: 4,
        };
        let mut meta = ObjectMeta {
            size: 12,
            tails: vec![tail(5), tail(5), tail(2)],
            upload_id: "u".into(),
            ..Default::default()
        };
        let part = |n, m: &ObjectMeta| resolve_range(RangeSpec::Part(n), m);
        assert_eq!(part(1, &meta).ok(), Some(Some((0, 5))));
        assert_eq!(part(2, &meta).ok(), Some(Some((5, 10))));
        assert_eq!(part(3, &meta).ok(), Some(Some((10, 12))));
        for n in [0, 4] {
            assert!(
                matches!(part(n, &meta), Err(GatewayError::InvalidPartNumber)),
                "{n}"
            );
        }
        meta.upload_id.clear();
        assert_eq!(
            part(1, &meta).ok(),
            Some(None),
            "a plain object is its part 1"
        );
        assert!(matches!(
            part(2, &meta),
            Err(GatewayError::InvalidPartNumber)
        ));
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Want {
        Serve,
        /// 412 Precondition Failed.
        Failed,
        /// 304 Not Modified.
        NotModified,
    }

    fn outcome(r: GatewayResult<()>) -> Want {
        match r {
            Ok(()) => Want::Serve,
            Err(GatewayError::PreconditionFailed) => Want::Failed,
            Err(GatewayError::NotModified { .. }) => Want::NotModified,
            Err(e) => panic!("unexpected error {e}"),
        }
    }

    /// GET/HEAD conditions: RFC 7232 section 6's order, which is also what
    /// S3 documents for the combinations (If-Match true beats a false
    /// If-Unmodified-Since; If-None-Match beats If-Modified-Since).
    #[test]
    fn get_conditions_follow_rfc7232_order() {
        use Want::*;
        let meta = ObjectMeta {
            etag: "abc".into(),
            // Last-Modified shows whole seconds: 1000
            mtime: 1000.5,
            ..Default::default()
        };
        type Case<'a> = (
            &'a str,
            Option<&'a [&'a str]>,
            Option<&'a [&'a str]>,
            Option<u64>,
            Option<u64>,
            Want,
        );
        // (what, If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, outcome)
        let cases: &[Case] = &[
            ("no condition", None, None, None, None, Serve),
            ("If-Match bare", Some(&["abc"]), None, None, None, Serve),
            (
                "If-Match quoted",
                Some(&["\"abc\""]),
                None,
                None,
                None,
                Serve,
            ),
            ("If-Match *", Some(&["*"]), None, None, None, Serve),
            ("If-Match other", Some(&["abd"]), None, None, None, Failed),
            ("If-Match prefix", Some(&["ab"]), None, None, None, Failed),
            (
                "If-Match list",
                Some(&["x", "\"abc\""]),
                None,
                None,
                None,
                Serve,
            ),
            (
                "If-Match list, none",
                Some(&["x", "y"]),
                None,
                None,
                None,
                Failed,
            ),
            (
                "If-Unmodified-Since before",
                None,
                None,
                None,
                Some(999),
                Failed,
            ),
            (
                "If-Unmodified-Since same second",
                None,
                None,
                None,
                Some(1000),
                Serve,
            ),
            (
                "If-Unmodified-Since after",
                None,
                None,
                None,
                Some(2000),
                Serve,
            ),
            (
                "If-Match true overrides If-Unmodified-Since false",
                Some(&["abc"]),
                None,
                None,
                Some(10),
                Serve,
            ),
            (
                "If-Match false, If-Unmodified-Since true",
                Some(&["x"]),
                None,
                None,
                Some(2000),
                Failed,
            ),
            (
                "If-None-Match bare",
                None,
                Some(&["abc"]),
                None,
                None,
                NotModified,
            ),
            (
                "If-None-Match quoted",
                None,
                Some(&["\"abc\""]),
                None,
                None,
                NotModified,
            ),
            (
                "If-None-Match weak",
                None,
                Some(&["W/\"abc\""]),
                None,
                None,
                NotModified,
            ),
            (
                "If-None-Match *",
                None,
                Some(&["*"]),
                None,
                None,
                NotModified,
            ),
            ("If-None-Match other", None, Some(&["x"]), None, None, Serve),
            (
                "If-Modified-Since after",
                None,
                None,
                Some(2000),
                None,
                NotModified,
            ),
            (
                "If-Modified-Since same second",
                None,
                None,
                Some(1000),
                None,
                NotModified,
            ),
            (
                "If-Modified-Since before",
                None,
                None,
                Some(999),
                None,
                Serve,
            ),
            (
                "If-None-Match false makes If-Modified-Since ignored",
                None,
                Some(&["x"]),
                Some(2000),
                None,
                Serve,
            ),
            (
                "If-None-Match true, If-Modified-Since true",
                None,
                Some(&["abc"]),
                Some(10),
                None,
                NotModified,
            ),
            (
                "If-Match true, If-None-Match true",
                Some(&["abc"]),
                Some(&["abc"]),
                None,
                None,
                NotModified,
            ),
            (
                "412 before 304",
                Some(&["x"]),
                Some(&["abc"]),
                None,
                None,
                Failed,
            ),
            (
                "If-Unmodified-Since false before If-Modified-Since",
                None,
                None,
                Some(2000),
                Some(10),
                Failed,
            ),
            (
                "If-Match true, If-Modified-Since false",
                Some(&["abc"]),
                None,
                Some(2000),
                None,
                NotModified,
            ),
        ];
        let list = |l: Option<&[&str]>| {
            l.map(|l| l.iter().map(std::string::ToString::to_string).collect())
        };
        for &(what, im, inm, ims, ius, want) in cases {
            let p = GetParams {
                if_match: list(im),
                if_none_match: list(inm),
                if_modified_since: ims.map(at),
                if_unmodified_since: ius.map(at),
                ..Default::default()
            };
            assert_eq!(outcome(check_conditions(&p, &meta)), want, "{what}");
        }
        // a multipart ETag is compared whole
        let mp = ObjectMeta {
            etag: "0123abcd-2".into(),
            ..meta.clone()
        };
        let p = |e: &str| GetParams {
            if_match: Some(vec![e.into()]),
            ..Default::default()
        };
        assert_eq!(outcome(check_conditions(&p("\"0123abcd-2\""), &mp)), Serve);
        assert_eq!(outcome(check_conditions(&p("0123abcd"), &mp)), Failed);
    }

    /// PUT conditions (S3 conditional writes): If-None-Match: * creates
    /// only; If-Match overwrites only that ETag.
    #[test]
    fn put_conditions() {
        use Want::*;
        let cur = ObjectMeta {
            etag: "abc".into(),
            ..Default::default()
        };
        // (what, If-Match, If-None-Match: *, object exists, outcome)
        let cases: &[(&str, Option<&str>, bool, bool, Want)] = &[
            ("none, new", None, false, false, Serve),
            ("none, existing", None, false, true, Serve),
            ("If-None-Match *, new", None, true, false, Serve),
            ("If-None-Match *, existing", None, true, true, Failed),
            ("If-Match same", Some("abc"), false, true, Serve),
            ("If-Match same quoted", Some("\"abc\""), false, true, Serve),
            ("If-Match *, existing", Some("*"), false, true, Serve),
            ("If-Match other", Some("abd"), false, true, Failed),
            // radosgw answers 412 here, as RFC 7232 says; AWS answers 404
            ("If-Match, new", Some("abc"), false, false, Failed),
            ("If-Match *, new", Some("*"), false, false, Failed),
            ("both, existing", Some("abc"), true, true, Failed),
        ];
        for &(what, im, inm, exists, want) in cases {
            let p = PutParams {
                if_match: im.map(String::from),
                if_none_match_any: inm,
                ..Default::default()
            };
            let got = check_put_conditions(&p, exists.then_some(&cur));
            assert_eq!(outcome(got), want, "{what}");
        }
    }

    /// Object keys: 1 to 1024 bytes of UTF-8 (bytes, not characters), no NUL.
    #[test]
    fn key_validation() {
        let ok = [
            "a".to_string(),
            "a/b/c".into(),
            "/leading/slash".into(),
            "trailing/".into(),
            "../../etc/passwd".into(),
            " ".into(),
            "with\nnewline".into(),
            "ключ/キー/🔑".into(),
            "\u{10FFFF}".into(),
            "a".repeat(1024),
            "é".repeat(512),
        ];
        for k in &ok {
            assert!(validate_key(k).is_ok(), "{k:?} ({} bytes)", k.len());
        }
        let bad = [
            String::new(),
            "a".repeat(1025),
            // 513 characters, 1026 bytes
            "é".repeat(513),
            "a\0b".into(),
            "\0".into(),
        ];
        for k in &bad {
            assert!(
                // the variant may be split (InvalidKey, KeyTooLong, ...):
                // any refusal that is not the store's
                matches!(validate_key(k), Err(e) if !matches!(e, GatewayError::Store(_))),
                "{:?} ({} bytes)",
                k.get(..20),
                k.len()
            );
        }
    }

    #[test]
    fn tail_stripe_counts() {
        // (size, stripe size, stripes)
        let cases = [
            (0, 4, 0),
            (1, 4, 1),
            (3, 4, 1),
            (4, 4, 1),
            (5, 4, 2),
            (8, 4, 2),
            (9, 4, 3),
            (4 << 20, 4 << 20, 1),
            ((4 << 20) + 1, 4 << 20, 2),
            // a zero stripe size is read as 1 (no division by zero)
            (5, 0, 5),
        ];
        for (size, stripe_size, want) in cases {
            let t = Tail {
                tag: "t".into(),
                size,
                stripe_size,
            };
            assert_eq!(
                t.stripes(),
                want,
                "{size} bytes in stripes of {stripe_size}"
            );
        }
    }

    #[test]
    fn modified_is_mtime_as_a_time() {
        let m = |mtime| ObjectMeta {
            mtime,
            ..Default::default()
        };
        assert_eq!(m(1000.0).modified(), at(1000));
        assert_eq!(m(1000.5).modified(), at(1000) + Duration::from_millis(500));
        assert_eq!(m(-5.0).modified(), SystemTime::UNIX_EPOCH);
    }

    fn md5_hex(data: &[u8]) -> String {
        hex::encode(Md5::digest(data))
    }

    /// A PUT keeps its first `chunk_size` bytes in the head and the rest in
    /// `stripe_size` stripes of one tail named by the write's tag, however
    /// the body arrives; the object reads back whole.
    #[tokio::test]
    async fn put_splits_into_head_and_stripes() {
        // chunk 8, stripe 4
        let (f, id) = Fixture::with_bucket(small_opts(), "split").await;
        // (size, head bytes, stripes)
        let cases: [(usize, u64, u64); 10] = [
            (0, 0, 0),
            (1, 1, 0),
            (7, 7, 0),
            (8, 8, 0),
            (9, 8, 1),
            (12, 8, 1),
            (13, 8, 2),
            (16, 8, 2),
            (17, 8, 3),
            (21, 8, 4),
        ];
        for (size, head_len, stripes) in cases {
            for piece in [1, 3, 5, 8, 64] {
                let what = format!("{size} bytes in pieces of {piece}");
                let key = format!("k{size}-{piece}");
                let data = pattern(size);
                let meta =
                    f.gw.put_object(
                        &owner(),
                        "split",
                        &key,
                        PutParams::default(),
                        body(&data, piece),
                    )
                    .await
                    .expect("put")
                    .meta;
                assert_eq!(meta.size, size as u64, "{what}");
                assert_eq!(meta.etag, md5_hex(&data), "{what}");
                assert_eq!(meta.head_len, head_len, "{what}");
                let want_tails = if stripes == 0 {
                    vec![]
                } else {
                    vec![Tail {
                        tag: meta.tag.clone(),
                        size: size as u64 - head_len,
                        stripe_size: 4,
                    }]
                };
                assert_eq!(meta.tails, want_tails, "{what}");
                let head = f.data(&layout::head(&id, &key)).await;
                assert_eq!(&head[..], &data[..head_len as usize], "{what}: head");
                for n in 0..stripes {
                    let from = 8 + 4 * n as usize;
                    let to = (from + 4).min(size);
                    let got = f.data(&layout::stripe(&id, &meta.tag, n)).await;
                    assert_eq!(&got[..], &data[from..to], "{what}: stripe {n}");
                }
                assert!(
                    !f.exists(&layout::stripe(&id, &meta.tag, stripes)).await,
                    "{what}: one stripe too many"
                );
                let got =
                    f.gw.get_object(&owner(), "split", &key, GetParams::default())
                        .await
                        .expect("get");
                // the stored mtime went through JSON: equal to the microsecond
                assert!((got.meta.mtime - meta.mtime).abs() < 1e-6, "{what}");
                let stored = ObjectMeta {
                    mtime: meta.mtime,
                    ..got.meta
                };
                assert_eq!(stored, meta, "{what}");
                assert_eq!(got.range, None, "{what}");
                let read = collect(got.body.expect("body")).await.expect("read");
                assert_eq!(read, data, "{what}");
            }
        }
        // the writes' GC log entries are all gone
        assert_eq!(f.gc_tags().await, Vec::<String>::new());
    }

    /// Ranged GETs read the head's part and only the stripes they overlap.
    #[tokio::test]
    async fn ranged_reads_cross_head_and_stripe_boundaries() {
        use RangeSpec::{Int, Suffix};
        let (f, _) = Fixture::with_bucket(small_opts(), "ranges").await;
        // head 0..8, stripes 8..12, 12..16, 16..20, 20..21
        let data = pattern(21);
        f.gw.put_object(
            &owner(),
            "ranges",
            "k",
            PutParams::default(),
            body(&data, 7),
        )
        .await
        .expect("put");
        let int = |first, last| Int { first, last };
        let cases: &[(RangeSpec, Option<(u64, u64)>)] = &[
            (int(0, Some(0)), Some((0, 1))),
            (int(0, Some(7)), Some((0, 8))),
            (int(7, Some(8)), Some((7, 9))),
            (int(8, Some(11)), Some((8, 12))),
            (int(9, Some(9)), Some((9, 10))),
            (int(11, Some(12)), Some((11, 13))),
            (int(10, Some(17)), Some((10, 18))),
            (int(3, Some(19)), Some((3, 20))),
            (int(20, None), Some((20, 21))),
            (int(5, Some(1000)), Some((5, 21))),
            (Suffix { length: 1 }, Some((20, 21))),
            (Suffix { length: 13 }, Some((8, 21))),
            (Suffix { length: 100 }, Some((0, 21))),
            (int(21, None), None),
            (Suffix { length: 0 }, None),
        ];
        for &(spec, want) in cases {
            for head_only in [false, true] {
                let got =
                    f.gw.get_object(
                        &owner(),
                        "ranges",
                        "k",
                        GetParams {
                            range: Some(spec),
                            head_only,
                            ..Default::default()
                        },
                    )
                    .await;
                match (got, want) {
                    (Ok(got), Some((start, end))) => {
                        assert_eq!(got.range, Some((start, end)), "{spec:?}");
                        if head_only {
                            assert!(got.body.is_none(), "HEAD {spec:?}");
                        } else {
                            let read = collect(got.body.expect("body")).await.expect("read");
                            assert_eq!(read, &data[start as usize..end as usize], "{spec:?}");
                        }
                    }
                    (Err(e), None) => {
                        assert!(matches!(e, GatewayError::InvalidRange), "{spec:?}: {e}");
                    }
                    (Ok(got), None) => panic!("{spec:?}: served {:?}", got.range),
                    (Err(e), Some(_)) => panic!("{spec:?}: {e}"),
                }
            }
        }
    }

    /// DeleteObjects' keys, several at a time: results in the keys' order,
    /// a key named twice reported twice, a missing key deleted, everything
    /// gone with its stripes; a requester who may not delete is refused
    /// key by key.
    #[tokio::test]
    async fn delete_objects_answers_each_key_in_order() {
        let (f, id) = Fixture::with_bucket(small_opts(), "many").await;
        let keys: Vec<String> = (0..20).map(|i| format!("k{i:02}")).collect();
        for k in &keys {
            f.gw.put_object(
                &owner(),
                "many",
                k,
                PutParams::default(),
                body(&pattern(13), 4),
            )
            .await
            .expect("put");
        }
        let got =
            f.gw.delete_objects(
                &Requester::anonymous(),
                "many",
                vec!["k00".into(), "k01".into()],
            )
            .await;
        assert!(
            got.iter()
                .all(|(_, r)| matches!(r, Err(GatewayError::AccessDenied))),
            "anonymous: {got:?}"
        );
        let mut asked = keys.clone();
        asked.insert(5, "k03".into());
        asked.push("missing".into());
        asked.push("k19".into());
        let got = f.gw.delete_objects(&owner(), "many", asked.clone()).await;
        assert_eq!(
            got.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
            asked
        );
        assert!(got.iter().all(|(_, r)| r.is_ok()), "{got:?}");
        assert_eq!(
            f.data_objects().await,
            Vec::<String>::new(),
            "bucket {id} emptied"
        );
    }

    /// What an overwrite or a delete replaces is removed at once: no stripe
    /// and no GC log entry stays behind.
    #[tokio::test]
    async fn overwrite_and_delete_leave_nothing_behind() {
        let (f, id) = Fixture::with_bucket(small_opts(), "over").await;
        let put = |data: Vec<u8>| {
            let gw = f.gw.clone();
            async move {
                gw.put_object(&owner(), "over", "k", PutParams::default(), body(&data, 4))
                    .await
                    .expect("put")
                    .meta
            }
        };
        let head = format!("{id}/k");
        let first = put(pattern(21)).await;
        let stripes = |tag: &str, n: u64| -> Vec<String> {
            (0..n).map(|i| format!("{id}.{tag}.{i}")).collect()
        };
        let mut want = vec![head.clone()];
        want.extend(stripes(&first.tag, 4));
        want.sort();
        assert_eq!(f.data_objects().await, want);

        // larger, smaller, same size: only the new version's objects remain
        for size in [30, 3, 3, 13] {
            let data = pattern(size);
            let meta = put(data.clone()).await;
            let mut want = vec![head.clone()];
            want.extend(stripes(
                &meta.tag,
                meta.tails.first().map_or(0, Tail::stripes),
            ));
            want.sort();
            assert_eq!(
                f.data_objects().await,
                want,
                "after a {size}-byte overwrite"
            );
            assert_eq!(f.gc_tags().await, Vec::<String>::new(), "{size}");
            let got =
                f.gw.get_object(&owner(), "over", "k", GetParams::default())
                    .await
                    .expect("get");
            assert_eq!(collect(got.body.expect("body")).await.expect("read"), data);
        }

        f.gw.delete_object(&owner(), "over", "k")
            .await
            .expect("delete");
        assert_eq!(f.data_objects().await, Vec::<String>::new());
        assert_eq!(f.gc_tags().await, Vec::<String>::new());
        assert!(matches!(
            f.gw.get_object(&owner(), "over", "k", GetParams::default())
                .await,
            Err(GatewayError::NoSuchKey)
        ));
        assert!(crate::testutil::listed(&f.gw, "over").await.is_empty());
        // deleting what is gone succeeds (S3 answers 204 either way)
        f.gw.delete_object(&owner(), "over", "k")
            .await
            .expect("delete again");
    }

    /// A PUT that fails leaves the previous version whole and nothing of
    /// its own: no stripe, no GC log entry.
    #[tokio::test]
    async fn failed_puts_leave_the_old_version_and_nothing_else() {
        let opts = crate::GatewayOptions {
            max_put_size: 24,
            ..small_opts()
        };
        let (f, _) = Fixture::with_bucket(opts, "fail").await;
        let old = pattern(13);
        f.gw.put_object(&owner(), "fail", "k", PutParams::default(), body(&old, 5))
            .await
            .expect("put");
        let before = f.data_objects().await;
        assert_eq!(before.len(), 3, "head and two stripes: {before:?}");

        let data = pattern(21);
        let broken = || -> BodyStream {
            let pieces: Vec<GatewayResult<Bytes>> = vec![
                Ok(Bytes::copy_from_slice(&data[..13])),
                Ok(Bytes::copy_from_slice(&data[13..17])),
                Err(GatewayError::Body("connection reset".into())),
            ];
            Box::pin(futures::stream::iter(pieces))
        };
        type Case = (
            &'static str,
            PutParams,
            BodyStream,
            fn(&GatewayError) -> bool,
        );
        let cases: Vec<Case> = vec![
            ("body fails midway", PutParams::default(), broken(), |e| {
                matches!(e, GatewayError::Body(_))
            }),
            (
                "wrong Content-MD5",
                PutParams {
                    content_md5: Some(Md5::digest(b"something else").to_vec()),
                    ..Default::default()
                },
                body(&data, 4),
                |e| matches!(e, GatewayError::BadDigest),
            ),
            (
                "body shorter than Content-Length",
                PutParams {
                    content_length: Some(22),
                    ..Default::default()
                },
                body(&data, 4),
                |e| matches!(e, GatewayError::IncompleteBody),
            ),
            (
                "body longer than Content-Length",
                PutParams {
                    content_length: Some(20),
                    ..Default::default()
                },
                body(&data, 4),
                |e| matches!(e, GatewayError::IncompleteBody),
            ),
            (
                "Content-Length over max_put_size",
                PutParams {
                    content_length: Some(25),
                    ..Default::default()
                },
                body(&pattern(25), 4),
                |e| matches!(e, GatewayError::EntityTooLarge),
            ),
            (
                "body over max_put_size without a length",
                PutParams::default(),
                body(&pattern(25), 4),
                |e| matches!(e, GatewayError::EntityTooLarge),
            ),
            (
                "checksum check fails",
                PutParams {
                    check: Some(Box::new(|| {
                        Err(GatewayError::BadChecksum("crc32 differs".into()))
                    })),
                    ..Default::default()
                },
                body(&data, 4),
                |e| matches!(e, GatewayError::BadChecksum(_)),
            ),
            (
                "If-None-Match: * over an object",
                PutParams {
                    if_none_match_any: true,
                    ..Default::default()
                },
                body(&data, 4),
                |e| matches!(e, GatewayError::PreconditionFailed),
            ),
            (
                "If-Match another ETag",
                PutParams {
                    if_match: Some(md5_hex(&data)),
                    ..Default::default()
                },
                body(&data, 4),
                |e| matches!(e, GatewayError::PreconditionFailed),
            ),
        ];
        for (what, params, b, want) in cases {
            match f.gw.put_object(&owner(), "fail", "k", params, b).await {
                Ok(_) => panic!("{what}: stored"),
                Err(e) => assert!(want(&e), "{what}: {e}"),
            }
            assert_eq!(f.data_objects().await, before, "{what}");
            assert_eq!(f.gc_tags().await, Vec::<String>::new(), "{what}");
            let got =
                f.gw.get_object(&owner(), "fail", "k", GetParams::default())
                    .await
                    .expect("get");
            assert_eq!(
                collect(got.body.expect("body")).await.expect("read"),
                old,
                "{what}"
            );
        }
        // the conditions that hold do store
        let ok = PutParams {
            if_match: Some(format!("\"{}\"", md5_hex(&old))),
            ..Default::default()
        };
        f.gw.put_object(&owner(), "fail", "k", ok, body(&data, 4))
            .await
            .expect("If-Match the current ETag");
        let ok = PutParams {
            if_none_match_any: true,
            ..Default::default()
        };
        f.gw.put_object(&owner(), "fail", "new", ok, body(&data, 4))
            .await
            .expect("If-None-Match: * on a new key");
    }

    /// Who sees what of a private bucket: S3 hides whether a key exists from
    /// those who may not list the bucket.
    #[tokio::test]
    async fn reads_of_private_objects() {
        let (f, _) = Fixture::with_bucket(small_opts(), "priv").await;
        f.gw.put_object(&owner(), "priv", "k", PutParams::default(), body(b"x", 1))
            .await
            .expect("put");
        let bob = Requester::user("bob");
        type Case<'a> = (
            &'a str,
            &'a Requester,
            &'a str,
            fn(&GatewayResult<GetResult>) -> bool,
        );
        let cases: &[Case] = &[
            ("owner reads", &owner(), "k", |r| r.is_ok()),
            ("owner, missing key", &owner(), "nokey", |r| {
                matches!(r, Err(GatewayError::NoSuchKey))
            }),
            ("other user", &bob, "k", |r| {
                matches!(r, Err(GatewayError::AccessDenied))
            }),
            ("other user, missing key", &bob, "nokey", |r| {
                matches!(r, Err(GatewayError::AccessDenied))
            }),
            ("anonymous", &Requester::anonymous(), "k", |r| {
                matches!(r, Err(GatewayError::AccessDenied))
            }),
            (
                "anonymous, missing key",
                &Requester::anonymous(),
                "nokey",
                |r| matches!(r, Err(GatewayError::AccessDenied)),
            ),
        ];
        for (what, who, key, want) in cases {
            let r =
                f.gw.get_object(who, "priv", key, GetParams::default())
                    .await;
            assert!(want(&r), "{what}: {:?}", r.as_ref().err());
        }
        // a public-read object is readable by anyone, but only its owner
        // may change its ACL
        f.gw.set_object_acl(&owner(), "priv", "k", CannedAcl::PublicRead)
            .await
            .expect("set acl");
        for who in [&bob, &Requester::anonymous()] {
            assert!(
                f.gw.get_object(who, "priv", "k", GetParams::default())
                    .await
                    .is_ok()
            );
            assert!(matches!(
                f.gw.set_object_acl(who, "priv", "k", CannedAcl::Private)
                    .await,
                Err(GatewayError::AccessDenied)
            ));
        }
    }

    /// Objects other users write into a bucket (public-read-write): the
    /// bucket's owner reads them, and reads and sets their ACL, only as
    /// their ACL grants it, as in radosgw; an anonymous writer's objects
    /// are the bucket owner's.
    #[tokio::test]
    async fn other_writers_objects() {
        let (f, _) = Fixture::with_bucket(small_opts(), "shared").await;
        f.gw.set_bucket_acl(&owner(), "shared", CannedAcl::PublicReadWrite)
            .await
            .expect("bucket acl");
        let bob = Requester::user("bob");
        let anon = Requester::anonymous();
        // (writer, its ACL, whether alice (the bucket's owner) may read
        // it, and read and set its ACL)
        let cases = [
            (&bob, CannedAcl::Private, false, false),
            (&bob, CannedAcl::PublicRead, true, false),
            (&bob, CannedAcl::BucketOwnerRead, true, false),
            (&bob, CannedAcl::BucketOwnerFullControl, true, true),
            (&anon, CannedAcl::Private, true, true),
        ];
        for (i, (writer, acl, reads, acp)) in cases.into_iter().enumerate() {
            let key = format!("k{i}");
            let params = PutParams {
                acl,
                ..Default::default()
            };
            let why = format!("{writer:?} {acl:?}");
            f.gw.put_object(writer, "shared", &key, params, body(b"data", 2))
                .await
                .expect("put");
            let got =
                f.gw.get_object(&owner(), "shared", &key, GetParams::default())
                    .await;
            assert_eq!(got.is_ok(), reads, "{why}: read");
            let shown = f.gw.get_object_acl(&owner(), "shared", &key).await;
            match (shown, acp) {
                (Ok(a), true) => {
                    let want_owner = if *writer == anon { OWNER } else { "bob" };
                    assert_eq!((a.owner.as_str(), a.acl), (want_owner, acl), "{why}");
                    assert_eq!(a.bucket_owner, OWNER, "{why}");
                }
                (Err(GatewayError::AccessDenied), false) => {}
                (r, _) => panic!("{why}: get acl {r:?}"),
            }
            let set =
                f.gw.set_object_acl(&owner(), "shared", &key, CannedAcl::Private)
                    .await;
            assert_eq!(set.is_ok(), acp, "{why}: set acl {set:?}");
            // the writer keeps every right to its own object
            if writer.uid().is_some() {
                let a =
                    f.gw.get_object_acl(writer, "shared", &key)
                        .await
                        .expect("own acl");
                assert_eq!(a.owner, "bob", "{why}");
            }
            // the bucket's owner may always delete (it may write the bucket)
            f.gw.delete_object(&owner(), "shared", &key)
                .await
                .expect("delete");
        }
        // a missing key: NoSuchKey to whoever may list the bucket
        assert!(matches!(
            f.gw.get_object_acl(&bob, "shared", "none").await,
            Err(GatewayError::NoSuchKey)
        ));
        f.gw.set_bucket_acl(&owner(), "shared", CannedAcl::Private)
            .await
            .expect("bucket acl");
        assert!(matches!(
            f.gw.get_object_acl(&bob, "shared", "none").await,
            Err(GatewayError::AccessDenied)
        ));
    }

    /// An object stored by an anonymous writer before rsgw recorded the
    /// bucket's owner as its owner (owner "") is the bucket owner's.
    #[test]
    fn an_unrecorded_owner_is_the_bucket_owners() {
        let bucket = BucketInfo {
            name: "b".into(),
            id: "id".into(),
            owner: "alice".into(),
            created: 0.0,
            acl: CannedAcl::PublicReadWrite,
            index_shards: 1,
            policy: None,
            cors: None,
            website: None,
            tags: Default::default(),
            quota: Default::default(),
            lifecycle: None,
        };
        let mut meta = ObjectMeta::default();
        assert_eq!(meta.owner_in(&bucket), "alice");
        meta.owner = "bob".into();
        assert_eq!(meta.owner_in(&bucket), "bob");
    }

    /// CopyObject: the copy is independent of its source; copying an
    /// object onto itself needs new metadata; failed source conditions
    /// are 412, never 304.
    #[tokio::test]
    async fn copies() {
        let (f, _) = Fixture::with_bucket(small_opts(), "copy").await;
        let data = pattern(21);
        let mut params = PutParams::default();
        params
            .headers
            .insert("content-type".into(), "text/plain".into());
        params.user_meta.insert("color".into(), "red".into());
        let src =
            f.gw.put_object(&owner(), "copy", "src", params, body(&data, 6))
                .await
                .expect("put")
                .meta;
        let copy = |dst: &'static str, md: CopyMetadata, cond: GetParams| {
            let gw = f.gw.clone();
            async move {
                gw.copy_object(
                    &owner(),
                    "copy",
                    "src",
                    "copy",
                    dst,
                    md,
                    CannedAcl::Private,
                    None,
                    cond,
                )
                .await
            }
        };
        assert!(matches!(
            copy("src", CopyMetadata::Copy, GetParams::default()).await,
            Err(GatewayError::InvalidRequest(..))
        ));
        let inm = GetParams {
            if_none_match: Some(vec![src.etag.clone()]),
            ..Default::default()
        };
        assert!(matches!(
            copy("dst", CopyMetadata::Copy, inm).await,
            Err(GatewayError::PreconditionFailed)
        ));
        let im = GetParams {
            if_match: Some(vec!["other".into()]),
            ..Default::default()
        };
        assert!(matches!(
            copy("dst", CopyMetadata::Copy, im).await,
            Err(GatewayError::PreconditionFailed)
        ));

        let dst = copy("dst", CopyMetadata::Copy, GetParams::default())
            .await
            .expect("copy")
            .meta;
        assert_eq!(dst.etag, src.etag);
        assert_eq!(dst.size, 21);
        assert_eq!(dst.headers, src.headers);
        assert_eq!(dst.user_meta, src.user_meta);
        assert_ne!(dst.tag, src.tag, "the copy has stripes of its own");

        let mut user_meta = BTreeMap::new();
        user_meta.insert("color".into(), "blue".into());
        let replaced = copy(
            "src",
            CopyMetadata::Replace {
                headers: BTreeMap::new(),
                user_meta: user_meta.clone(),
            },
            GetParams::default(),
        )
        .await
        .expect("copy onto itself with new metadata")
        .meta;
        assert_eq!(replaced.user_meta, user_meta);
        assert!(replaced.headers.is_empty());
        assert_eq!(replaced.etag, src.etag);

        f.gw.delete_object(&owner(), "copy", "src")
            .await
            .expect("delete source");
        let got =
            f.gw.get_object(&owner(), "copy", "dst", GetParams::default())
                .await
                .expect("get copy");
        assert_eq!(collect(got.body.expect("body")).await.expect("read"), data);
    }
}
