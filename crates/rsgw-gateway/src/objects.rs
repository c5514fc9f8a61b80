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
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures::{Stream, StreamExt};
use md5::{Digest, Md5};
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::acl::{CannedAcl, Principal};
use crate::buckets::BucketInfo;
use crate::ids::{now_secs, unique_id};
use crate::list::IndexEntry;
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
    /// Owning user id ("" for anonymous writers).
    pub owner: String,
    /// The object's canned ACL.
    pub acl: CannedAcl,
    /// Stored headers: content-type, content-encoding, content-disposition,
    /// content-language, cache-control, expires.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` metadata, names without the prefix.
    pub user_meta: BTreeMap<String, String>,
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
    /// Last modification as a time.
    pub fn modified(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs_f64(self.mtime.max(0.0))
    }
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
    /// The byte range served, `start..end`, if a range was asked for.
    pub range: Option<(u64, u64)>,
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
            return Err(GatewayError::NotModified);
        }
    } else if let Some(t) = p.if_modified_since
        && modified <= t
    {
        return Err(GatewayError::NotModified);
    }
    Ok(())
}

fn resolve_range(spec: RangeSpec, size: u64) -> GatewayResult<(u64, u64)> {
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
    /// Whether `who` may read the object (its owner, the bucket's owner, or
    /// its ACL grants it).
    fn may_read(who: &Principal, bucket: &BucketInfo, meta: &ObjectMeta) -> bool {
        who.is(&bucket.owner) || who.is(&meta.owner) || meta.acl.grants_read(who)
    }

    pub(crate) fn may_write(who: &Principal, bucket: &BucketInfo) -> bool {
        who.is(&bucket.owner) || bucket.acl.grants_write(who)
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

    async fn head_meta(&self, head: &ObjectId) -> GatewayResult<Option<ObjectMeta>> {
        match self.store.read(head, ReadOp::new().xattrs()).await {
            Ok(r) => Ok(Some(parse_meta(&r.xattrs.unwrap_or_default())?)),
            Err(StoreError::NotFound) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Stores an object from a body stream.
    pub async fn put_object(
        &self,
        who: &Principal,
        bucket: &str,
        key: &str,
        mut params: PutParams,
        mut body: BodyStream,
    ) -> GatewayResult<PutResult> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        if !Self::may_write(who, &info) {
            return Err(GatewayError::AccessDenied);
        }
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
        let tag = unique_id();
        let chunk = self.opts.chunk_size as usize;
        let stripe_size = self.opts.stripe_size as usize;
        let mut md5 = Md5::new();
        let mut head = BytesMut::new();
        let mut pending = BytesMut::new();
        let mut stripes = 0u64;
        let mut total = 0u64;
        let upload = async {
            while let Some(piece) = body.next().await {
                let mut piece = piece?;
                total += piece.len() as u64;
                if total > self.opts.max_put_size {
                    return Err(GatewayError::EntityTooLarge);
                }
                md5.update(&piece);
                if head.len() < chunk {
                    let take = piece.len().min(chunk - head.len());
                    head.extend_from_slice(&piece.split_to(take));
                }
                pending.extend_from_slice(&piece);
                while pending.len() >= stripe_size {
                    let data = pending.split_to(stripe_size).freeze();
                    self.write_stripe(&info, key, &tag, stripes, data).await?;
                    stripes += 1;
                }
            }
            if !pending.is_empty() {
                let data = pending.split().freeze();
                self.write_stripe(&info, key, &tag, stripes, data).await?;
                stripes += 1;
            }
            Ok(())
        }
        .await;
        if let Err(e) = upload {
            self.abort_upload(&info.id, &tag, stripes).await?;
            return Err(e);
        }
        let digest = md5.finalize();
        let checked = if params.content_length.is_some_and(|l| l != total) {
            Err(GatewayError::IncompleteBody)
        } else if params
            .content_md5
            .as_ref()
            .is_some_and(|m| m[..] != digest[..])
        {
            Err(GatewayError::BadDigest)
        } else {
            params
                .check
                .take()
                .map_or(Ok(BTreeMap::new()), |check| check())
        };
        let checksums = match checked {
            Ok(c) => c,
            Err(e) => {
                self.abort_upload(&info.id, &tag, stripes).await?;
                return Err(e);
            }
        };
        let meta = ObjectMeta {
            size: total,
            etag: hex::encode(digest),
            mtime: now_secs(),
            owner: match who {
                Principal::User(u) => u.clone(),
                Principal::Anonymous => String::new(),
            },
            acl: params.acl,
            headers: params.headers.clone(),
            user_meta: params.user_meta.clone(),
            tag: tag.clone(),
            head_len: head.len() as u64,
            tails: if stripes > 0 {
                vec![Tail {
                    tag: tag.clone(),
                    size: total - head.len() as u64,
                    stripe_size: stripe_size as u64,
                }]
            } else {
                Vec::new()
            },
            checksums,
        };
        let replaced = match self
            .commit_head(&info.id, key, &params, head.freeze(), &meta)
            .await
        {
            Ok(r) => r,
            Err(e) => {
                self.abort_upload(&info.id, &tag, stripes).await?;
                return Err(e);
            }
        };
        self.index_committed(&info, key, &meta, replaced.as_ref())
            .await?;
        if stripes > 0 {
            self.gc_forget(&tag).await?;
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
        match self
            .store
            .write(
                &layout::index(&info.id),
                WriteOp::new().assert_exists().omap_set([(key, entry)]),
            )
            .await
        {
            Ok(_) => Ok(()),
            Err(StoreError::NotFound) => {
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
                    Ok(_) | Err(StoreError::NotFound | StoreError::GuardFailed(_)) => {}
                    Err(e) => return Err(e.into()),
                }
                self.retire(&info.id, key, &meta.tails).await?;
                if let Some(old) = replaced {
                    self.retire(&info.id, key, &old.tails).await?;
                }
                self.cache.forget_bucket(&info.name);
                Err(GatewayError::NoSuchBucket)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Removes the stripes of a write that will not commit.
    pub(crate) async fn abort_upload(
        &self,
        bucket_id: &str,
        tag: &str,
        stripes: u64,
    ) -> GatewayResult<()> {
        if stripes > 0 {
            self.delete_stripes(bucket_id, tag, Some(stripes)).await?;
            self.gc_forget(tag).await?;
        }
        Ok(())
    }

    async fn write_stripe(
        &self,
        info: &BucketInfo,
        key: &str,
        tag: &str,
        n: u64,
        data: Bytes,
    ) -> GatewayResult<()> {
        if n == 0 {
            self.gc_note(
                tag,
                &GcEntry {
                    kind: "upload".into(),
                    bucket_id: info.id.clone(),
                    key: key.into(),
                    stripes: None,
                    time: now_secs(),
                    part_of: None,
                    while_head: None,
                },
            )
            .await?;
        }
        self.store
            .write(
                &layout::stripe(&info.id, tag, n),
                WriteOp::new().write_full(data),
            )
            .await?;
        Ok(())
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
            let cur = self.head_meta(head_id).await?;
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
                Some(m) => WriteOp::new().cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, m.tag.clone()),
                None => WriteOp::new().create_exclusive(),
            }
            .write_full(data.clone())
            .set_xattr(layout::META_XATTR, json.clone())
            .set_xattr(layout::TAG_XATTR, meta.tag.clone());
            match self.store.write(head_id, op).await {
                Ok(_) => return Ok(cur),
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
        who: &Principal,
        bucket: &str,
        key: &str,
        params: GetParams,
    ) -> GatewayResult<GetResult> {
        validate_key(key)?;
        let mut info = self.bucket_info(bucket).await?;
        let op = || {
            if params.head_only {
                ReadOp::new().xattrs()
            } else {
                ReadOp::new().xattrs().read(0, self.opts.chunk_size)
            }
        };
        let mut checked = false;
        let r = loop {
            match self.store.read(&layout::head(&info.id, key), op()).await {
                Ok(r) => break r,
                Err(StoreError::NotFound) => {
                    // a cached record may name a bucket that another
                    // instance has since deleted and re-created
                    if !checked {
                        checked = true;
                        if let Some(now) = self.bucket_replaced(&info).await? {
                            info = now;
                            continue;
                        }
                    }
                    return Err(if who.is(&info.owner) || info.acl.grants_read(who) {
                        GatewayError::NoSuchKey
                    } else {
                        GatewayError::AccessDenied
                    });
                }
                Err(e) => return Err(e.into()),
            }
        };
        let meta = parse_meta(&r.xattrs.unwrap_or_default())?;
        if !Self::may_read(who, &info, &meta) {
            return Err(GatewayError::AccessDenied);
        }
        check_conditions(&params, &meta)?;
        let range = params
            .range
            .map(|s| resolve_range(s, meta.size))
            .transpose()?;
        if params.head_only {
            return Ok(GetResult {
                meta,
                range,
                body: None,
            });
        }
        let (start, end) = range.unwrap_or((0, meta.size));
        let head_data = r.data.unwrap_or_default();
        let head_part = if start < head_data.len() as u64 {
            head_data.slice(start as usize..end.min(head_data.len() as u64) as usize)
        } else {
            Bytes::new()
        };
        let body = self.stripe_stream(&info.id, &meta, head_part, start, end);
        Ok(GetResult {
            meta,
            range,
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
        who: &Principal,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<()> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        for _ in 0..64 {
            let Some(meta) = self.head_meta(&head_id).await? else {
                if !Self::may_write(who, &info) {
                    return Err(GatewayError::AccessDenied);
                }
                self.unindex(&info, key).await?;
                return Ok(());
            };
            if !(Self::may_write(who, &info) || who.is(&meta.owner)) {
                return Err(GatewayError::AccessDenied);
            }
            // index first: an object listed is always readable
            self.unindex(&info, key).await?;
            match self
                .store
                .write(
                    &head_id,
                    WriteOp::new()
                        .cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, meta.tag.clone())
                        .remove(),
                )
                .await
            {
                Ok(_) => return self.retire(&info.id, key, &meta.tails).await,
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    async fn unindex(&self, info: &BucketInfo, key: &str) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::index(&info.id), WriteOp::new().omap_rm([key]))
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Sets an object's canned ACL (its owner or the bucket's owner).
    pub async fn set_object_acl(
        &self,
        who: &Principal,
        bucket: &str,
        key: &str,
        acl: CannedAcl,
    ) -> GatewayResult<()> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        let head_id = layout::head(&info.id, key);
        for _ in 0..64 {
            let Some(mut meta) = self.head_meta(&head_id).await? else {
                return Err(GatewayError::NoSuchKey);
            };
            if !(who.is(&info.owner) || who.is(&meta.owner)) {
                return Err(GatewayError::AccessDenied);
            }
            meta.acl = acl;
            let json = Bytes::from(serde_json::to_vec(&meta)?);
            match self
                .store
                .write(
                    &head_id,
                    WriteOp::new()
                        .cmp_xattr(layout::TAG_XATTR, CmpOp::Eq, meta.tag.clone())
                        .set_xattr(layout::META_XATTR, json),
                )
                .await
            {
                Ok(_) => return Ok(()),
                Err(StoreError::GuardFailed(_) | StoreError::NotFound) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        let r = |first, last| resolve_range(RangeSpec::Int { first, last }, 100);
        assert_eq!(r(0, Some(9)).ok(), Some((0, 10)));
        assert_eq!(r(90, None).ok(), Some((90, 100)));
        assert_eq!(r(90, Some(500)).ok(), Some((90, 100)));
        assert!(r(100, None).is_err());
        assert_eq!(
            resolve_range(RangeSpec::Suffix { length: 10 }, 100).ok(),
            Some((90, 100))
        );
        assert_eq!(
            resolve_range(RangeSpec::Suffix { length: 500 }, 100).ok(),
            Some((0, 100))
        );
        assert!(resolve_range(RangeSpec::Suffix { length: 0 }, 100).is_err());
    }

    #[test]
    fn conditions_follow_rfc7232_order() {
        let meta = ObjectMeta {
            etag: "abc".into(),
            mtime: 1000.0,
            ..Default::default()
        };
        let t = |s| Some(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
        let p = |f: &dyn Fn(&mut GetParams)| {
            let mut p = GetParams::default();
            f(&mut p);
            check_conditions(&p, &meta)
        };
        assert!(p(&|p| p.if_match = Some(vec!["\"abc\"".into()])).is_ok());
        assert!(matches!(
            p(&|p| p.if_match = Some(vec!["x".into()])),
            Err(GatewayError::PreconditionFailed)
        ));
        // If-Match that holds overrides a failing If-Unmodified-Since
        assert!(
            p(&|p| {
                p.if_match = Some(vec!["abc".into()]);
                p.if_unmodified_since = t(10);
            })
            .is_ok()
        );
        assert!(matches!(
            p(&|p| p.if_unmodified_since = t(10)),
            Err(GatewayError::PreconditionFailed)
        ));
        assert!(matches!(
            p(&|p| p.if_none_match = Some(vec!["*".into()])),
            Err(GatewayError::NotModified)
        ));
        assert!(matches!(
            p(&|p| p.if_modified_since = t(2000)),
            Err(GatewayError::NotModified)
        ));
        assert!(p(&|p| p.if_modified_since = t(10)).is_ok());
    }
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
    /// Copies an object (within or across buckets), streaming its data
    /// through the gateway. `conditions` are the `x-amz-copy-source-if-*`
    /// checks on the source.
    #[allow(clippy::too_many_arguments)]
    pub async fn copy_object(
        &self,
        who: &Principal,
        src_bucket: &str,
        src_key: &str,
        dst_bucket: &str,
        dst_key: &str,
        metadata: CopyMetadata,
        acl: CannedAcl,
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
            .get_object(
                who,
                src_bucket,
                src_key,
                GetParams {
                    range: None,
                    head_only: false,
                    ..conditions
                },
            )
            .await
            .map_err(|e| match e {
                GatewayError::NotModified => GatewayError::PreconditionFailed,
                e => e,
            })?;
        let (headers, user_meta) = match metadata {
            CopyMetadata::Copy => (src.meta.headers.clone(), src.meta.user_meta.clone()),
            CopyMetadata::Replace { headers, user_meta } => (headers, user_meta),
        };
        let params = PutParams {
            headers,
            user_meta,
            acl,
            content_length: Some(src.meta.size),
            ..Default::default()
        };
        let body = src
            .body
            .unwrap_or_else(|| Box::pin(futures::stream::empty()));
        self.put_object(who, dst_bucket, dst_key, params, body)
            .await
    }
}
