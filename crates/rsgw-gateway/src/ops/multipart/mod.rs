//! Multipart uploads: create, upload parts, list them, complete, abort.
//!
//! An upload is a record in `meta/uploads/<upload id>` (the object's future
//! headers as data, one omap entry per part) plus an entry in the bucket's
//! upload index `meta/uploads/bucket.<bucket id>` (key, then upload id, for
//! ListMultipartUploads). Each part is written as stripes of its own tag;
//! completing turns the chosen parts into the tails of the object's head,
//! with the same guarded head swap as a plain PUT. A part and a completion
//! commit as a PUT does (`engine::commit`). The records are
//! `model::upload`'s.

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::StreamExt;
use md5::{Digest, Md5};
use rsgw_store::{ReadOp, StoreError, WriteOp};

use crate::engine::commit::Swap;
use crate::engine::omap::OmapWalk;
use crate::engine::write::{Declared, WriteTarget};
use crate::model::bucket::BucketInfo;
use crate::model::crypt::{CustomerKey, Sse};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::{now_secs, unique_id};
use crate::model::layout;
use crate::model::limits::MAX_PART_NUMBER;
use crate::model::object::{ObjectMeta, Tail};
use crate::model::params::{
    BodyCheck, BodyStream, CompleteChecks, GetParams, PutParams, PutResult, UploadList,
};
use crate::model::upload::{PartInfo, SEP, UploadInfo, upload_index_key};
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize, writer};
use crate::rules::checksum::{self, check_algorithm, composite};
use crate::rules::crypt::{ChunkCipher, object_key};
use crate::rules::lock::{check_lock_request, lock_new_version};
use crate::rules::names::validate_key;

/// The part list of a completion, one entry per part number, quotes
/// taken off the ETags. A part named more than once in a row (uploaded
/// twice, the client naming each upload's ETag in the order the responses
/// came) is its last entry, as radosgw reads the list; a number lower than
/// the one before it is `InvalidPartOrder`.
pub(crate) fn distinct_parts(wanted: &[(u32, String)]) -> GatewayResult<Vec<(u32, &str)>> {
    let mut out: Vec<(u32, &str)> = Vec::with_capacity(wanted.len());
    for (number, etag) in wanted {
        let etag = etag.trim_matches('"');
        match out.last_mut() {
            Some(last) if last.0 == *number => last.1 = etag,
            Some(last) if last.0 > *number => return Err(GatewayError::InvalidPartOrder),
            _ => out.push((*number, etag)),
        }
    }
    Ok(out)
}

/// The parts a completion names (`wanted`, from [`distinct_parts`]), in
/// its order, taken out of `stored` (which keeps the parts left out):
/// each must be stored with the ETag named (`InvalidPart`), each but the
/// last of `min_part_size` bytes or more (`EntityTooSmall`). `etag_size`
/// tells a part's ETag and size.
pub(crate) fn choose_parts<P>(
    wanted: &[(u32, &str)],
    stored: &mut BTreeMap<u32, P>,
    etag_size: impl Fn(&P) -> (&str, u64),
    min_part_size: u64,
) -> GatewayResult<Vec<P>> {
    let mut chosen = Vec::with_capacity(wanted.len());
    for (i, &(number, etag)) in wanted.iter().enumerate() {
        let part = stored
            .remove(&number)
            .filter(|p| etag_size(p).0 == etag)
            .ok_or(GatewayError::InvalidPart(number))?;
        if i + 1 < wanted.len() && etag_size(&part).1 < min_part_size {
            return Err(GatewayError::EntityTooSmall);
        }
        chosen.push(part);
    }
    Ok(chosen)
}

/// S3's ETag of a multipart object: the MD5 of the parts' binary MD5s,
/// a dash and the number of parts.
pub(crate) fn multipart_etag<'a>(
    etags: impl ExactSizeIterator<Item = &'a str>,
) -> Result<String, hex::FromHexError> {
    let n = etags.len();
    let mut md5 = Md5::new();
    for e in etags {
        md5.update(hex::decode(e)?);
    }
    Ok(format!("{}-{n}", hex::encode(md5.finalize())))
}

impl Gateway {
    /// Starts a multipart upload; returns its record (its id, the
    /// encryption its parts get).
    pub async fn create_multipart(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        params: PutParams,
    ) -> GatewayResult<UploadInfo> {
        if let Some(zone) = self.zone() {
            return self
                .zone_create_multipart(zone, rq, bucket, key, params)
                .await;
        }
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        authorize(
            rq,
            Access::PutObject,
            &Target::key(&info, key).requesting(&params.tags),
        )?;
        check_lock_request(&info, &params.lock, now_secs())?;
        if let Some(alg) = &params.checksum_algorithm {
            check_algorithm(alg)?;
        }
        let acl = self.resolve_acl(params.acl).await?;
        let sse = self.new_sse(&info, params.sse.as_ref(), rq.secure).await?;
        // the time first: a key's uploads list in the order they began, as
        // S3 lists them, and upload-id-marker resumes in that order
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let upload_id = format!("2~{nanos:016x}{}", unique_id());
        let up = UploadInfo {
            upload_id,
            bucket: bucket.into(),
            bucket_id: info.id.clone(),
            key: key.into(),
            owner: writer(rq, &info).to_string(),
            initiated: now_secs(),
            headers: params.headers,
            user_meta: params.user_meta,
            acl,
            tags: params.tags,
            sse: sse.map(|(s, _)| s),
            lock: params.lock,
            checksum_algorithm: params.checksum_algorithm,
        };
        let data = Bytes::from(serde_json::to_vec(&up)?);
        self.store
            .write(
                &layout::upload(&up.upload_id),
                WriteOp::new().create_exclusive().write_full(data),
            )
            .await?;
        self.store
            .write(
                &layout::upload_index(&info.id),
                WriteOp::new().omap_set([(upload_index_key(key, &up.upload_id), Bytes::new())]),
            )
            .await?;
        Ok(up)
    }

    /// An upload in progress, for an `access` to it.
    async fn upload(
        &self,
        rq: &Requester,
        access: Access,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> GatewayResult<(BucketInfo, UploadInfo)> {
        let info = self.bucket_info_fresh(bucket).await?;
        let r = match self
            .read_whole(&layout::upload(upload_id), ReadOp::new())
            .await
        {
            Err(GatewayError::Store(StoreError::NotFound | StoreError::InvalidArgument(_))) => {
                return Err(GatewayError::NoSuchUpload);
            }
            r => r?,
        };
        let up: UploadInfo = serde_json::from_slice(&r.data.unwrap_or_default())?;
        if up.bucket_id != info.id || up.key != key {
            return Err(GatewayError::NoSuchUpload);
        }
        authorize(rq, access, &Target::object(&info, key, &up.owner, &up.acl))?;
        Ok((info, up))
    }

    /// Stores one part; `sse_key` is the customer key of an SSE-C upload
    /// (the one it was created with); `check` the client's checksums of
    /// the body, which must include the upload's checksum algorithm.
    #[allow(clippy::too_many_arguments)]
    pub async fn upload_part(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        content_length: Option<u64>,
        content_md5: Option<Vec<u8>>,
        check: Option<BodyCheck>,
        sse_key: Option<&CustomerKey>,
        body: BodyStream,
    ) -> GatewayResult<PartInfo> {
        let sums = PartSums::Client(check);
        self.store_part(
            rq,
            (bucket, key, upload_id, number),
            content_length,
            content_md5,
            sums,
            sse_key,
            body,
        )
        .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn store_part(
        &self,
        rq: &Requester,
        (bucket, key, upload_id, number): (&str, &str, &str, u32),
        content_length: Option<u64>,
        content_md5: Option<Vec<u8>>,
        sums: PartSums,
        sse_key: Option<&CustomerKey>,
        body: BodyStream,
    ) -> GatewayResult<PartInfo> {
        if let Some(zone) = self.zone() {
            let (body, check) = sums.for_upload(None, body)?;
            return self
                .zone_store_part(
                    zone,
                    rq,
                    (bucket, key, upload_id, number),
                    (content_length, content_md5, check),
                    sse_key,
                    body,
                )
                .await;
        }
        if !(1..=MAX_PART_NUMBER).contains(&number) {
            return Err(GatewayError::InvalidArgument(format!(
                "part number must be an integer between 1 and {MAX_PART_NUMBER}"
            )));
        }
        let (info, up) = self
            .upload(rq, Access::WritePart, bucket, key, upload_id)
            .await?;
        let (body, check) = sums.for_upload(up.checksum_algorithm.as_deref(), body)?;
        let master = self.sse_master(up.sse.as_ref()).await?;
        let cipher = object_key(
            up.sse.as_ref(),
            sse_key,
            &self.opts.crypt,
            rq.secure,
            master.as_ref(),
        )?
        .map(|k| ChunkCipher::new(&k));
        let w = self
            .write_body(
                WriteTarget {
                    info: &info,
                    key,
                    head_len: 0,
                    part_of: Some((upload_id.into(), number)),
                    version: None,
                    cipher,
                },
                Declared {
                    content_length,
                    content_md5,
                    check,
                },
                body,
            )
            .await?;
        let part = PartInfo {
            number,
            checksums: w.checksums,
            etag: w.md5,
            size: w.size,
            mtime: now_secs(),
            tail: Tail {
                tag: w.stripes.tag.clone(),
                size: w.size,
                stripe_size: self.opts.stripe_size,
            },
        };
        let swap = Swap::Part {
            upload_id,
            part: &part,
        };
        self.commit(&info, key, Some(&w.stripes), swap)
            .await?
            .finish(&[])
            .await?;
        Ok(part)
    }

    /// All parts of an upload, in part-number order.
    async fn all_parts(&self, upload_id: &str) -> GatewayResult<Vec<PartInfo>> {
        let upload = layout::upload(upload_id);
        let mut entries = OmapWalk::new(&*self.store, &upload, "", "");
        let mut parts = Vec::new();
        loop {
            match entries.next().await {
                Ok(Some((_, v))) => parts.push(serde_json::from_slice::<PartInfo>(&v)?),
                Ok(None) => return Ok(parts),
                Err(StoreError::NotFound) => return Err(GatewayError::NoSuchUpload),
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Copies an object, or the bytes `first..=last` of it, into a part
    /// (UploadPartCopy). The source is read as GetObject reads it (its
    /// authorization, and `conditions`: the `x-amz-copy-source-if-*`
    /// checks) and streamed into the part as UploadPart stores one. A range
    /// must lie within the object (`InvalidRange`), as S3 requires of
    /// `x-amz-copy-source-range`. The source's customer key, if any, is
    /// in `conditions`; `sse_key` is the upload's.
    #[allow(clippy::too_many_arguments)]
    pub async fn upload_part_copy(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        src_bucket: &str,
        src_key: &str,
        range: Option<(u64, u64)>,
        conditions: GetParams,
        sse_key: Option<&CustomerKey>,
    ) -> GatewayResult<PartInfo> {
        let src = self
            .read_copy_source(rq, src_bucket, src_key, range, conditions)
            .await?;
        if range.is_some_and(|(_, last)| last >= src.meta.size) {
            return Err(GatewayError::InvalidRange);
        }
        let len = src.range.map_or(src.meta.size, |(start, end)| end - start);
        let body = src
            .body
            .unwrap_or_else(|| Box::pin(futures::stream::empty()));
        self.store_part(
            rq,
            (bucket, key, upload_id, number),
            Some(len),
            None,
            PartSums::Copied,
            sse_key,
            body,
        )
        .await
    }

    /// Parts of an upload after `marker`, at most `max`.
    pub async fn list_parts(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
        marker: u32,
        max: usize,
    ) -> GatewayResult<(UploadInfo, Vec<PartInfo>, bool)> {
        if let Some(zone) = self.zone() {
            return self
                .zone_list_parts(zone, rq, (bucket, key, upload_id), marker, max)
                .await;
        }
        let (_, up) = self
            .upload(rq, Access::ListParts, bucket, key, upload_id)
            .await?;
        let mut parts: Vec<PartInfo> = self
            .all_parts(upload_id)
            .await?
            .into_iter()
            .filter(|p| p.number > marker)
            .collect();
        let truncated = parts.len() > max;
        parts.truncate(max);
        Ok((up, parts, truncated))
    }

    /// Assembles the object from the listed parts (number, ETag).
    pub async fn complete_multipart(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
        wanted: &[(u32, String)],
    ) -> GatewayResult<PutResult> {
        self.complete_multipart_checked(
            rq,
            bucket,
            key,
            upload_id,
            wanted,
            &CompleteChecks::default(),
        )
        .await
    }

    /// As [`Gateway::complete_multipart`], refusing to complete unless
    /// `checks` hold: `PreconditionFailed` for a condition on the key's
    /// current object (checked as the object is committed, as a PUT's),
    /// `InvalidRequest` for another size. The upload stays, for a retry.
    pub async fn complete_multipart_checked(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
        wanted: &[(u32, String)],
        checks: &CompleteChecks,
    ) -> GatewayResult<PutResult> {
        if let Some(zone) = self.zone() {
            return self
                .zone_complete_multipart(zone, rq, (bucket, key, upload_id), wanted, checks)
                .await;
        }
        if wanted.is_empty() {
            return Err(GatewayError::MalformedXml(
                "you must specify at least one part".into(),
            ));
        }
        let wanted = distinct_parts(wanted)?;
        let (info, up) = match self
            .upload(rq, Access::WritePart, bucket, key, upload_id)
            .await
        {
            Err(GatewayError::NoSuchUpload) => {
                return self
                    .completed_before(rq, bucket, key, upload_id, &wanted)
                    .await;
            }
            r => r?,
        };
        if checks.sse_key.is_some() {
            // a customer key is checked against an SSE-C upload, refused
            // for any other: no master key is needed for either
            object_key(
                up.sse.as_ref(),
                checks.sse_key.as_ref(),
                &self.opts.crypt,
                rq.secure,
                None,
            )?;
        }
        let mut stored: BTreeMap<u32, PartInfo> = self
            .all_parts(upload_id)
            .await?
            .into_iter()
            .map(|p| (p.number, p))
            .collect();
        let chosen = choose_parts(
            &wanted,
            &mut stored,
            |p| (p.etag.as_str(), p.size),
            self.opts.min_part_size,
        )?;
        let etag = multipart_etag(chosen.iter().map(|p| p.etag.as_str()))
            .map_err(|e| GatewayError::Corrupt(e.to_string()))?;
        let mut checksums = BTreeMap::new();
        if let Some(alg) = &up.checksum_algorithm {
            let sums = chosen
                .iter()
                .map(|p| p.checksums.get(alg).map(String::as_str))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    GatewayError::Corrupt(format!("a part of a {alg} upload without its checksum"))
                })?;
            checksums.insert(alg.clone(), composite(alg, sums.into_iter())?);
        }
        let mtime = now_secs();
        let mut meta = ObjectMeta {
            size: chosen.iter().map(|p| p.size).sum(),
            etag,
            mtime,
            owner: up.owner.clone(),
            acl: up.acl.clone(),
            headers: up.headers.clone(),
            user_meta: up.user_meta.clone(),
            tags: up.tags.clone(),
            tag: unique_id(),
            head_len: 0,
            tails: chosen.iter().map(|p| p.tail.clone()).collect(),
            checksums,
            upload_id: upload_id.into(),
            sse: up.sse.clone().map(|sse| Sse {
                parts: chosen.iter().map(|p| p.size).collect(),
                ..sse
            }),
            version_id: info.new_version(mtime)?,
            ..ObjectMeta::default()
        };
        lock_new_version(&info, &up.lock, &mut meta);
        if let Some(size) = checks.object_size
            && size != meta.size
        {
            return Err(GatewayError::InvalidRequest(format!(
                "x-amz-mp-object-size is {size}, the parts make {} bytes",
                meta.size
            )));
        }
        let conditions = PutParams {
            if_match: checks.if_match.clone(),
            if_none_match_any: checks.if_none_match_any,
            ..PutParams::default()
        };
        let swap = Swap::Head {
            data: Bytes::new(),
            meta: &meta,
            conditions: &conditions,
        };
        let committed = self.commit(&info, key, None, swap).await?;
        self.drop_upload(&info, &up).await?;
        // parts uploaded but left out of the object
        let unused: Vec<Tail> = stored.into_values().map(|p| p.tail).collect();
        committed.finish(&unused).await?;
        Ok(PutResult { meta })
    }

    /// A completion retried after the first one succeeded (its response
    /// lost): the upload record is gone, but the key's current version
    /// names the upload that made it. The same part list (so the same
    /// ETag) answers the first completion's result; anything else finds
    /// no such upload.
    async fn completed_before(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
        wanted: &[(u32, &str)],
    ) -> GatewayResult<PutResult> {
        let info = self.bucket_info_fresh(bucket).await?;
        let Some(meta) = self.head_meta(&layout::head(&info.id, key)).await? else {
            return Err(GatewayError::NoSuchUpload);
        };
        let etag = multipart_etag(wanted.iter().map(|&(_, e)| e)).ok();
        if meta.upload_id != upload_id || etag.as_deref() != Some(meta.etag.as_str()) {
            return Err(GatewayError::NoSuchUpload);
        }
        authorize(rq, Access::WritePart, &Target::stored(&info, key, &meta))?;
        Ok(PutResult { meta })
    }

    async fn drop_upload(&self, info: &BucketInfo, up: &UploadInfo) -> GatewayResult<()> {
        match self
            .store
            .write(&layout::upload(&up.upload_id), WriteOp::new().remove())
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => {}
            Err(e) => return Err(e.into()),
        }
        match self
            .store
            .write(
                &layout::upload_index(&info.id),
                WriteOp::new().omap_rm([upload_index_key(&up.key, &up.upload_id)]),
            )
            .await
        {
            Ok(_) | Err(StoreError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Abandons an upload and deletes its parts.
    pub async fn abort_multipart(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> GatewayResult<()> {
        if let Some(zone) = self.zone() {
            return self
                .zone_abort_multipart(zone, rq, (bucket, key, upload_id))
                .await;
        }
        let (info, up) = self
            .upload(rq, Access::AbortUpload, bucket, key, upload_id)
            .await?;
        let parts = self.all_parts(upload_id).await?;
        self.drop_upload(&info, &up).await?;
        let tails: Vec<Tail> = parts.into_iter().map(|p| p.tail).collect();
        self.retire(&info.id, key, &tails).await
    }

    /// Uploads in progress in a bucket, in (key, upload id) order, at most
    /// `max` uploads and common prefixes: those of keys under `prefix`,
    /// after the markers. With a `delimiter` (non-empty), keys holding it
    /// after the prefix are rolled up into common prefixes, as listings
    /// roll them up (a key marker that is such a prefix resumes after all
    /// of it).
    pub async fn list_multipart_uploads(
        &self,
        rq: &Requester,
        bucket: &str,
        (prefix, delimiter): (&str, &str),
        (key_marker, upload_id_marker): (&str, &str),
        max: usize,
    ) -> GatewayResult<UploadList> {
        if let Some(zone) = self.zone() {
            return self
                .zone_list_uploads(
                    zone,
                    rq,
                    bucket,
                    (prefix, delimiter),
                    (key_marker, upload_id_marker),
                    max,
                )
                .await;
        }
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::ListUploads, &Target::bucket(&info))?;
        let mut page = UploadPage::new((prefix, delimiter), key_marker, max);
        // after the key marker's uploads, or those up to the upload marker
        // (which counts only with a key marker)
        let after = match (key_marker, upload_id_marker) {
            ("", _) => String::new(),
            (k, "") => format!("{k}{SEP}\u{10FFFF}"),
            (k, u) => format!("{k}{SEP}{u}"),
        };
        let index = layout::upload_index(&info.id);
        let mut entries = OmapWalk::new(&*self.store, &index, after, prefix);
        loop {
            let k = match entries.next().await {
                Ok(Some((k, _))) => k,
                Ok(None) | Err(StoreError::NotFound) => return Ok(page.out),
                Err(e) => return Err(e.into()),
            };
            // the last separator: a key may hold U+0001, an upload id not
            let Some((key, upload_id)) = k.rsplit_once(SEP) else {
                continue;
            };
            match page.offer(key) {
                Offer::Skip => continue,
                Offer::Full => return Ok(page.out),
                Offer::Take => {}
            }
            if let Ok(r) = self
                .read_whole(&layout::upload(upload_id), ReadOp::new())
                .await
            {
                page.take(serde_json::from_slice(&r.data.unwrap_or_default())?);
            }
        }
    }
}

/// A page of ListMultipartUploads as S3 makes it, the uploads offered in
/// (key, upload id) order: keys under the prefix holding the delimiter
/// after it rolled up into common prefixes (a key marker that is such a
/// prefix resumes after all of it), at most `max` uploads and prefixes.
pub(crate) struct UploadPage<'a> {
    prefix: &'a str,
    delimiter: &'a str,
    max: usize,
    /// The common prefix being skipped.
    rolled: Option<String>,
    /// The page so far.
    pub(crate) out: UploadList,
}

/// What to do with an upload offered to an [`UploadPage`].
pub(crate) enum Offer {
    /// Go on to the next: rolled up, or after a marker.
    Skip,
    /// The page is full (and truncated): stop.
    Full,
    /// Add it ([`UploadPage::take`]).
    Take,
}

impl<'a> UploadPage<'a> {
    pub(crate) fn new(
        (prefix, delimiter): (&'a str, &'a str),
        key_marker: &str,
        max: usize,
    ) -> Self {
        let rolled = (!delimiter.is_empty()
            && key_marker.starts_with(prefix)
            && key_marker.len() > prefix.len()
            && key_marker.ends_with(delimiter))
        .then(|| key_marker.to_string());
        UploadPage {
            prefix,
            delimiter,
            max,
            rolled,
            out: UploadList::default(),
        }
    }

    /// Whether an upload of `key` (under the prefix) goes on the page.
    pub(crate) fn offer(&mut self, key: &str) -> Offer {
        if self.rolled.as_deref().is_some_and(|r| key.starts_with(r)) {
            return Offer::Skip;
        }
        if self.out.uploads.len() + self.out.common_prefixes.len() == self.max {
            self.out.is_truncated = true;
            return Offer::Full;
        }
        let (prefix, delimiter) = (self.prefix, self.delimiter);
        let common = (!delimiter.is_empty())
            .then(|| key[prefix.len()..].find(delimiter))
            .flatten()
            .map(|at| key[..prefix.len() + at + delimiter.len()].to_string());
        if let Some(common) = common {
            self.out.next_marker = Some((common.clone(), String::new()));
            self.out.common_prefixes.push(common.clone());
            self.rolled = Some(common);
            return Offer::Skip;
        }
        Offer::Take
    }

    /// Adds an upload [`UploadPage::offer`] took.
    pub(crate) fn take(&mut self, up: UploadInfo) {
        self.out.next_marker = Some((up.key.clone(), up.upload_id.clone()));
        self.out.uploads.push(up);
    }
}

/// Where a part's checksums come from.
enum PartSums {
    /// The client's, checked as the body is read (UploadPart).
    Client(Option<BodyCheck>),
    /// None sent: the gateway computes the upload's own (UploadPartCopy).
    Copied,
}

impl PartSums {
    /// The body to store and its check, for an upload whose parts carry
    /// `alg` checksums (if any): a client's part must send one, a copied
    /// part gets one computed as it streams.
    fn for_upload(
        self,
        alg: Option<&str>,
        body: BodyStream,
    ) -> GatewayResult<(BodyStream, Option<BodyCheck>)> {
        let Some(alg) = alg.map(str::to_string) else {
            return Ok(match self {
                PartSums::Client(check) => (body, check),
                PartSums::Copied => (body, None),
            });
        };
        let missing = move |alg: &str| {
            GatewayError::InvalidRequest(format!(
                "the upload was created with a {} checksum: each part must send x-amz-checksum-{alg}",
                alg.to_ascii_uppercase()
            ))
        };
        match self {
            PartSums::Client(None) => Err(missing(&alg)),
            PartSums::Client(Some(check)) => {
                let check: BodyCheck = Box::new(move || {
                    let sums = check()?;
                    if sums.contains_key(&alg) {
                        Ok(sums)
                    } else {
                        Err(missing(&alg))
                    }
                });
                Ok((body, Some(check)))
            }
            PartSums::Copied => {
                let digest = checksum::Digest::new(&alg).ok_or_else(|| {
                    GatewayError::Corrupt(format!("an upload's checksum algorithm {alg}"))
                })?;
                let digest = Arc::new(Mutex::new(Some(digest)));
                let fed = digest.clone();
                let body: BodyStream = Box::pin(body.inspect(move |r| {
                    if let (Ok(b), Ok(mut d)) = (r, fed.lock())
                        && let Some(d) = d.as_mut()
                    {
                        d.update(b);
                    }
                }));
                let check: BodyCheck = Box::new(move || {
                    let d = digest
                        .lock()
                        .ok()
                        .and_then(|mut d| d.take())
                        .ok_or_else(|| {
                            GatewayError::Corrupt("a part's checksum taken twice".into())
                        })?;
                    Ok(BTreeMap::from([(alg, d.finish())]))
                });
                Ok((body, Some(check)))
            }
        }
    }
}
