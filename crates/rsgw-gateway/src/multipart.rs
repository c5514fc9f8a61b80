//! Multipart uploads: create, upload parts, list them, complete, abort.
//!
//! An upload is a record in `meta/uploads/<upload id>` (the object's future
//! headers as data, one omap entry per part) plus an entry in the bucket's
//! upload index `meta/uploads/bucket.<bucket id>` (key, then upload id, for
//! ListMultipartUploads). Each part is written as stripes of its own tag;
//! completing turns the chosen parts into the tails of the object's head,
//! with the same guarded head swap as a plain PUT.

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use md5::{Digest, Md5};
use rsgw_store::{ReadOp, StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::acl::{CannedAcl, Principal};
use crate::buckets::BucketInfo;
use crate::ids::{now_secs, unique_id};
use crate::objects::{
    BodyCheck, BodyStream, GcEntry, ObjectMeta, PutParams, PutResult, Tail, validate_key,
};
use crate::{Gateway, GatewayError, GatewayResult, layout};

/// S3's limit on part numbers.
pub const MAX_PART_NUMBER: u32 = 10_000;

/// An upload in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadInfo {
    /// The upload id.
    pub upload_id: String,
    /// Bucket name.
    pub bucket: String,
    /// Bucket marker.
    pub bucket_id: String,
    /// The object key.
    pub key: String,
    /// Who started it ("" for anonymous).
    pub owner: String,
    /// When it started, seconds since the epoch.
    pub initiated: f64,
    /// Stored headers of the future object.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` of the future object.
    pub user_meta: BTreeMap<String, String>,
    /// ACL of the future object.
    pub acl: CannedAcl,
}

/// One uploaded part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartInfo {
    /// Part number, 1 to 10000.
    pub number: u32,
    /// Hex MD5 of the part.
    pub etag: String,
    /// Bytes.
    pub size: u64,
    /// Upload time, seconds since the epoch.
    pub mtime: f64,
    /// Where its data is.
    pub tail: Tail,
    /// Verified checksums sent with the part.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checksums: BTreeMap<String, String>,
}

/// A page of ListMultipartUploads.
#[derive(Debug, Clone, Default)]
pub struct UploadList {
    /// Uploads in (key, upload id) order.
    pub uploads: Vec<UploadInfo>,
    /// Whether more follow.
    pub is_truncated: bool,
}

const SEP: char = '\u{1}';

fn part_key(n: u32) -> String {
    format!("{n:05}")
}

fn upload_index_key(key: &str, upload_id: &str) -> String {
    format!("{key}{SEP}{upload_id}")
}

fn owner_of(who: &Principal) -> String {
    match who {
        Principal::User(u) => u.clone(),
        Principal::Anonymous => String::new(),
    }
}

impl Gateway {
    /// Starts a multipart upload; returns its id.
    pub async fn create_multipart(
        &self,
        who: &Principal,
        bucket: &str,
        key: &str,
        params: PutParams,
    ) -> GatewayResult<String> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        if !Self::may_write(who, &info) {
            return Err(GatewayError::AccessDenied);
        }
        let upload_id = format!("2~{}{}", unique_id(), unique_id());
        let up = UploadInfo {
            upload_id: upload_id.clone(),
            bucket: bucket.into(),
            bucket_id: info.id.clone(),
            key: key.into(),
            owner: owner_of(who),
            initiated: now_secs(),
            headers: params.headers,
            user_meta: params.user_meta,
            acl: params.acl,
        };
        let data = Bytes::from(serde_json::to_vec(&up)?);
        self.store
            .write(
                &layout::upload(&upload_id),
                WriteOp::new().create_exclusive().write_full(data),
            )
            .await?;
        self.store
            .write(
                &layout::upload_index(&info.id),
                WriteOp::new().omap_set([(upload_index_key(key, &upload_id), Bytes::new())]),
            )
            .await?;
        Ok(upload_id)
    }

    async fn upload(
        &self,
        who: &Principal,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> GatewayResult<(BucketInfo, UploadInfo)> {
        let info = self.bucket_info_fresh(bucket).await?;
        let r = match self
            .store
            .read(&layout::upload(upload_id), ReadOp::new().read(0, 1 << 20))
            .await
        {
            Err(StoreError::NotFound | StoreError::InvalidArgument(_)) => {
                return Err(GatewayError::NoSuchUpload);
            }
            r => r?,
        };
        let up: UploadInfo = serde_json::from_slice(&r.data.unwrap_or_default())?;
        if up.bucket_id != info.id || up.key != key {
            return Err(GatewayError::NoSuchUpload);
        }
        if !(who.is(&up.owner) || who.is(&info.owner)) {
            return Err(GatewayError::AccessDenied);
        }
        Ok((info, up))
    }

    /// Stores one part.
    #[allow(clippy::too_many_arguments)]
    pub async fn upload_part(
        &self,
        who: &Principal,
        bucket: &str,
        key: &str,
        upload_id: &str,
        number: u32,
        content_length: Option<u64>,
        content_md5: Option<Vec<u8>>,
        check: Option<BodyCheck>,
        mut body: BodyStream,
    ) -> GatewayResult<PartInfo> {
        if !(1..=MAX_PART_NUMBER).contains(&number) {
            return Err(GatewayError::InvalidArgument(format!(
                "part number must be an integer between 1 and {MAX_PART_NUMBER}"
            )));
        }
        let (info, _) = self.upload(who, bucket, key, upload_id).await?;
        let tag = unique_id();
        let stripe_size = self.opts.stripe_size as usize;
        let mut md5 = Md5::new();
        let mut pending = BytesMut::new();
        let (mut stripes, mut total) = (0u64, 0u64);
        let written = async {
            loop {
                let piece = body.next().await.transpose()?;
                if let Some(piece) = &piece {
                    total += piece.len() as u64;
                    if total > self.opts.max_put_size {
                        return Err(GatewayError::EntityTooLarge);
                    }
                    md5.update(piece);
                    pending.extend_from_slice(piece);
                }
                let last = piece.is_none();
                while pending.len() >= stripe_size || (last && !pending.is_empty()) {
                    let n = pending.len().min(stripe_size);
                    let data = pending.split_to(n).freeze();
                    if stripes == 0 {
                        self.gc_note(
                            &tag,
                            &GcEntry {
                                kind: "upload".into(),
                                bucket_id: info.id.clone(),
                                key: key.into(),
                                stripes: None,
                                time: now_secs(),
                                part_of: Some((upload_id.into(), number)),
                                while_head: None,
                            },
                        )
                        .await?;
                    }
                    self.store
                        .write(
                            &layout::stripe(&info.id, &tag, stripes),
                            WriteOp::new().write_full(data),
                        )
                        .await?;
                    stripes += 1;
                }
                if last {
                    return Ok(());
                }
            }
        }
        .await;
        if let Err(e) = written {
            self.abort_upload(&info.id, &tag, stripes).await?;
            return Err(e);
        }
        let digest = md5.finalize();
        if content_length.is_some_and(|l| l != total) {
            self.abort_upload(&info.id, &tag, stripes).await?;
            return Err(GatewayError::IncompleteBody);
        }
        if content_md5.is_some_and(|m| m[..] != digest[..]) {
            self.abort_upload(&info.id, &tag, stripes).await?;
            return Err(GatewayError::BadDigest);
        }
        let checksums = match check.map_or(Ok(BTreeMap::new()), |c| c()) {
            Ok(c) => c,
            Err(e) => {
                self.abort_upload(&info.id, &tag, stripes).await?;
                return Err(e);
            }
        };
        let part = PartInfo {
            number,
            checksums,
            etag: hex::encode(digest),
            size: total,
            mtime: now_secs(),
            tail: Tail {
                tag: tag.clone(),
                size: total,
                stripe_size: stripe_size as u64,
            },
        };
        let upload_obj = layout::upload(upload_id);
        let previous = self
            .store
            .read(&upload_obj, ReadOp::new().omap_keys([part_key(number)]))
            .await
            .ok()
            .and_then(|r| r.omap_keys?.remove(&part_key(number)))
            .and_then(|v| serde_json::from_slice::<PartInfo>(&v).ok());
        let recorded = self
            .store
            .write(
                &upload_obj,
                WriteOp::new()
                    .assert_exists()
                    .omap_set([(part_key(number), Bytes::from(serde_json::to_vec(&part)?))]),
            )
            .await;
        match recorded {
            Ok(_) => {}
            Err(StoreError::NotFound) => {
                self.abort_upload(&info.id, &tag, stripes).await?;
                return Err(GatewayError::NoSuchUpload);
            }
            Err(e) => return Err(e.into()),
        }
        if stripes > 0 {
            self.gc_forget(&tag).await?;
        }
        if let Some(old) = previous {
            self.retire(&info.id, key, &[old.tail]).await?;
        }
        Ok(part)
    }

    /// All parts of an upload, in part-number order.
    async fn all_parts(&self, upload_id: &str) -> GatewayResult<Vec<PartInfo>> {
        let mut parts = Vec::new();
        let mut after = String::new();
        loop {
            let page = match self
                .store
                .read(
                    &layout::upload(upload_id),
                    ReadOp::new().omap(after.clone(), "", 1000),
                )
                .await
            {
                Err(StoreError::NotFound) => return Err(GatewayError::NoSuchUpload),
                r => r?.omap.unwrap_or_default(),
            };
            for (k, v) in &page.entries {
                parts.push(serde_json::from_slice::<PartInfo>(v)?);
                after = k.clone();
            }
            if !page.more {
                return Ok(parts);
            }
        }
    }

    /// Parts of an upload after `marker`, at most `max`.
    pub async fn list_parts(
        &self,
        who: &Principal,
        bucket: &str,
        key: &str,
        upload_id: &str,
        marker: u32,
        max: usize,
    ) -> GatewayResult<(UploadInfo, Vec<PartInfo>, bool)> {
        let (_, up) = self.upload(who, bucket, key, upload_id).await?;
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
        who: &Principal,
        bucket: &str,
        key: &str,
        upload_id: &str,
        wanted: &[(u32, String)],
    ) -> GatewayResult<PutResult> {
        let (info, up) = self.upload(who, bucket, key, upload_id).await?;
        if wanted.is_empty() {
            return Err(GatewayError::MalformedXml(
                "you must specify at least one part".into(),
            ));
        }
        if wanted.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(GatewayError::InvalidPartOrder);
        }
        let mut stored: BTreeMap<u32, PartInfo> = self
            .all_parts(upload_id)
            .await?
            .into_iter()
            .map(|p| (p.number, p))
            .collect();
        let mut chosen = Vec::with_capacity(wanted.len());
        for (i, (number, etag)) in wanted.iter().enumerate() {
            let part = stored
                .remove(number)
                .filter(|p| p.etag == etag.trim_matches('"'))
                .ok_or(GatewayError::InvalidPart(*number))?;
            if i + 1 < wanted.len() && part.size < self.opts.min_part_size {
                return Err(GatewayError::EntityTooSmall);
            }
            chosen.push(part);
        }
        let mut md5 = Md5::new();
        for p in &chosen {
            md5.update(hex::decode(&p.etag).map_err(|e| GatewayError::Corrupt(e.to_string()))?);
        }
        let meta = ObjectMeta {
            size: chosen.iter().map(|p| p.size).sum(),
            etag: format!("{}-{}", hex::encode(md5.finalize()), chosen.len()),
            mtime: now_secs(),
            owner: up.owner.clone(),
            acl: up.acl,
            headers: up.headers.clone(),
            user_meta: up.user_meta.clone(),
            tag: unique_id(),
            head_len: 0,
            tails: chosen.iter().map(|p| p.tail.clone()).collect(),
            checksums: BTreeMap::new(),
        };
        let replaced = self
            .commit_head(&info.id, key, &PutParams::default(), Bytes::new(), &meta)
            .await?;
        self.index_committed(&info, key, &meta, replaced.as_ref())
            .await?;
        self.drop_upload(&info, &up).await?;
        // parts uploaded but left out of the object
        let unused: Vec<Tail> = stored.into_values().map(|p| p.tail).collect();
        self.retire(&info.id, key, &unused).await?;
        if let Some(old) = replaced {
            self.retire(&info.id, key, &old.tails).await?;
        }
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
        who: &Principal,
        bucket: &str,
        key: &str,
        upload_id: &str,
    ) -> GatewayResult<()> {
        let (info, up) = self.upload(who, bucket, key, upload_id).await?;
        let parts = self.all_parts(upload_id).await?;
        self.drop_upload(&info, &up).await?;
        let tails: Vec<Tail> = parts.into_iter().map(|p| p.tail).collect();
        self.retire(&info.id, key, &tails).await
    }

    /// Uploads in progress in a bucket, in (key, upload id) order.
    pub async fn list_multipart_uploads(
        &self,
        who: &Principal,
        bucket: &str,
        prefix: &str,
        key_marker: &str,
        max: usize,
    ) -> GatewayResult<UploadList> {
        let info = self.bucket_info(bucket).await?;
        if !Self::may_write(who, &info) {
            return Err(GatewayError::AccessDenied);
        }
        let mut out = UploadList::default();
        let mut after = if key_marker.is_empty() {
            String::new()
        } else {
            format!("{key_marker}{SEP}\u{10FFFF}")
        };
        loop {
            let page = match self
                .store
                .read(
                    &layout::upload_index(&info.id),
                    ReadOp::new().omap(after.clone(), prefix, 1000),
                )
                .await
            {
                Err(StoreError::NotFound) => return Ok(out),
                r => r?.omap.unwrap_or_default(),
            };
            for (k, _) in &page.entries {
                after = k.clone();
                let Some((_, upload_id)) = k.split_once(SEP) else {
                    continue;
                };
                if out.uploads.len() == max {
                    out.is_truncated = true;
                    return Ok(out);
                }
                if let Ok(r) = self
                    .store
                    .read(&layout::upload(upload_id), ReadOp::new().read(0, 1 << 20))
                    .await
                {
                    out.uploads
                        .push(serde_json::from_slice(&r.data.unwrap_or_default())?);
                }
            }
            if !page.more {
                return Ok(out);
            }
        }
    }

    /// Whether a part recorded in an upload carries `tag` (the collector's
    /// test for a part whose GC log entry outlived its commit).
    pub(crate) async fn part_committed(
        &self,
        upload_id: &str,
        number: u32,
        tag: &str,
    ) -> GatewayResult<bool> {
        match self
            .store
            .read(
                &layout::upload(upload_id),
                ReadOp::new().omap_keys([part_key(number)]),
            )
            .await
        {
            Ok(r) => Ok(r
                .omap_keys
                .unwrap_or_default()
                .get(&part_key(number))
                .and_then(|v| serde_json::from_slice::<PartInfo>(v).ok())
                .is_some_and(|p| p.tail.tag == tag)),
            Err(StoreError::NotFound) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}
