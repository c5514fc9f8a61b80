//! GetObject and HeadObject: one store read for an object of one chunk,
//! none for one in the object cache (which holds no encrypted object: an
//! encrypted one is decrypted as it streams, `decrypted_stream`).

use bytes::Bytes;
use futures::StreamExt;
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp};

use crate::cache::objects::{Cached, CachedObject, Lookup, Ticket};
use crate::engine::heads::Marked;
use crate::model::bucket::BucketInfo;
use crate::model::crypt::{Key, Sse};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::layout;
use crate::model::object::{ObjectMeta, parse_meta};
use crate::model::params::{BodyStream, GetParams, GetResult, RangeSpec};
use crate::model::versioning::{NULL_VERSION, check_version_id};
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize, missing_key};
use crate::rules::crypt::{ChunkCipher, Decryptor, object_key, plan};
use crate::rules::names::validate_key;
use crate::rules::preconditions::{check_conditions, resolve_range};

impl Gateway {
    /// Reads an object (or only its metadata, for HEAD).
    pub async fn get_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        params: GetParams,
    ) -> GatewayResult<GetResult> {
        validate_key(key)?;
        if let Some(zone) = self.zone() {
            return self.zone_get_object(zone, rq, bucket, key, params).await;
        }
        let mut info = self.bucket_info(bucket).await?;
        if let Some(v) = params.version_id.as_deref()
            && (v != NULL_VERSION || info.versioning.is_some())
        {
            let v = v.to_string();
            return self.get_version(rq, &info, key, &v, params).await;
        }
        let mut head = layout::head(&info.id, key);
        let mut ticket = match self.objects.lookup(&head.name) {
            Lookup::Hit(c) => {
                self.authorize_get(rq, &info, key, &c.meta)?;
                // the cache holds no encrypted object: no master key
                return self.answer_get(rq, &info, params, c.meta.clone(), c.data.clone(), None);
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
                    return Err(missing_key(rq, &info));
                }
                Err(e) => return Err(e.into()),
            }
        };
        let xattrs = r.xattrs.unwrap_or_default();
        let meta = parse_meta(&xattrs)?;
        let data = r.data.unwrap_or_default();
        if meta.delete_marker {
            return Err(match missing_key(rq, &info) {
                GatewayError::NoSuchKey => GatewayError::DeleteMarker {
                    version_id: meta.version_name().to_string(),
                    mtime: meta.mtime,
                    by_version: false,
                },
                e => e,
            });
        }
        self.authorize_get(rq, &info, key, &meta)?;
        if let Some(t) = ticket
            && !params.head_only
            && meta.tails.is_empty()
            && meta.sse.is_none()
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
        let master = self.sse_master(meta.sse.as_ref()).await?;
        self.answer_get(rq, &info, params, meta, data, master.as_ref())
    }

    /// A GET or HEAD of version `v` (`versionId`) of `key`: the head's if
    /// it is that version, else the version's own object (never the object
    /// cache, which holds current versions).
    async fn get_version(
        &self,
        rq: &Requester,
        info: &BucketInfo,
        key: &str,
        v: &str,
        params: GetParams,
    ) -> GatewayResult<GetResult> {
        check_version_id(v)?;
        let id = (v != NULL_VERSION).then_some(v);
        let Some(found) = self.read_version(&info.id, key, id).await? else {
            // the null version missing is no such key, as radosgw answers
            return Err(match missing_key(rq, info) {
                GatewayError::NoSuchKey if id.is_some() => GatewayError::NoSuchVersion,
                e => e,
            });
        };
        authorize(
            rq,
            Access::GetObjectVersion,
            &Target::stored(info, key, &found.meta),
        )?;
        if found.meta.delete_marker {
            return Err(GatewayError::DeleteMarker {
                version_id: v.to_string(),
                mtime: found.meta.mtime,
                by_version: true,
            });
        }
        let master = self.sse_master(found.meta.sse.as_ref()).await?;
        self.answer_get(rq, info, params, found.meta, found.data, master.as_ref())
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
        // the null version of a versioned bucket is answered with its id,
        // which its record does not hold
        if info.versioning.is_some() && c.meta.version_id.is_none() {
            return None;
        }
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
        authorize(rq, Access::GetObject, &Target::stored(info, key, meta))
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
    /// head data: the key of an encrypted object (from `kms_master` for
    /// SSE-KMS), conditions, range, and the body (decrypted).
    fn answer_get(
        &self,
        rq: &Requester,
        info: &BucketInfo,
        params: GetParams,
        meta: ObjectMeta,
        head_data: Bytes,
        kms_master: Option<&Key>,
    ) -> GatewayResult<GetResult> {
        let key = object_key(
            meta.sse.as_ref(),
            params.sse_key.as_ref(),
            &self.opts.crypt,
            rq.secure,
            kms_master,
        )?;
        check_conditions(&params, &meta)?;
        let range = match params.range {
            Some(spec) => resolve_range(spec, &meta)?,
            None => None,
        };
        let version_id = info
            .versioning
            .is_some()
            .then(|| meta.version_name().to_string());
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
                version_id,
            });
        }
        let (start, end) = range.unwrap_or((0, meta.size));
        let body = match (key, &meta.sse) {
            (Some(key), Some(sse)) => {
                self.decrypted_stream(&info.id, &meta, sse, &key, &head_data, start, end)
            }
            _ => self.stored_stream(&info.id, &meta, &head_data, start, end),
        };
        Ok(GetResult {
            meta,
            range,
            parts_count,
            body: Some(body),
            version_id,
        })
    }

    /// The stored bytes `start..end`: from the head data read, then the
    /// stripes'.
    fn stored_stream(
        &self,
        bucket_id: &str,
        meta: &ObjectMeta,
        head_data: &Bytes,
        start: u64,
        end: u64,
    ) -> BodyStream {
        let head_part = if start < head_data.len() as u64 {
            head_data.slice(start as usize..end.min(head_data.len() as u64) as usize)
        } else {
            Bytes::new()
        };
        self.stripe_stream(bucket_id, meta, head_part, start, end)
    }

    /// The plaintext bytes `start..end` of an object encrypted as `sse`
    /// says: for each segment (part) they touch, its whole chunks around
    /// them read and decrypted with `key` (`rules::crypt::plan`), the
    /// rest dropped.
    #[allow(clippy::too_many_arguments)]
    fn decrypted_stream(
        &self,
        bucket_id: &str,
        meta: &ObjectMeta,
        sse: &Sse,
        key: &Key,
        head_data: &Bytes,
        start: u64,
        end: u64,
    ) -> BodyStream {
        let cipher = ChunkCipher::new(key);
        let pieces = plan(&sse.segments(meta.size), start, end);
        let streams: Vec<_> = pieces
            .into_iter()
            .map(|p| {
                let stored = self.stored_stream(
                    bucket_id,
                    meta,
                    head_data,
                    p.seg_start + p.from,
                    p.seg_start + p.to,
                );
                let mut d = Decryptor::new(cipher.clone(), &p);
                let plain = stored.map(move |r| r.map(|c| d.push(c)));
                plain.filter(|r| {
                    let keep = !matches!(r, Ok(b) if b.is_empty());
                    async move { keep }
                })
            })
            .collect();
        Box::pin(futures::stream::iter(streams).flatten())
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
}
