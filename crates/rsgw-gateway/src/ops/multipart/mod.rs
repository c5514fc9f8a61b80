//! Multipart uploads: create, upload parts, list them, complete, abort.
//!
//! An upload is a record in `meta/uploads/<upload id>` (the object's future
//! headers as data, one omap entry per part) plus an entry in the bucket's
//! upload index `meta/uploads/bucket.<bucket id>` (key, then upload id, for
//! ListMultipartUploads). Each part is written as stripes of its own tag;
//! completing turns the chosen parts into the tails of the object's head,
//! with the same guarded head swap as a plain PUT.

use std::collections::BTreeMap;

use bytes::Bytes;
use md5::{Digest, Md5};
use rsgw_store::{ReadOp, StoreError, WriteOp};
use serde::{Deserialize, Serialize};

use crate::acl::CannedAcl;
use crate::authz::{Access, Requester, Target};
use crate::buckets::BucketInfo;
use crate::ids::{now_secs, unique_id};
use crate::objects::{
    BodyCheck, BodyStream, GetParams, ObjectMeta, PutParams, PutResult, Tail, validate_key,
};
use crate::usage::Usage;
use crate::write::{Declared, WriteTarget};
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
    /// Tags of the future object.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
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

pub(crate) fn part_key(n: u32) -> String {
    format!("{n:05}")
}

fn upload_index_key(key: &str, upload_id: &str) -> String {
    format!("{key}{SEP}{upload_id}")
}

/// The part list of a completion, one entry per part number, quotes
/// taken off the ETags. A part named more than once in a row (uploaded
/// twice, the client naming each upload's ETag in the order the responses
/// came) is its last entry, as radosgw reads the list; a number lower than
/// the one before it is `InvalidPartOrder`.
fn distinct_parts(wanted: &[(u32, String)]) -> GatewayResult<Vec<(u32, &str)>> {
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

/// S3's ETag of a multipart object: the MD5 of the parts' binary MD5s,
/// a dash and the number of parts.
fn multipart_etag<'a>(
    etags: impl ExactSizeIterator<Item = &'a str>,
) -> Result<String, hex::FromHexError> {
    let n = etags.len();
    let mut md5 = Md5::new();
    for e in etags {
        md5.update(hex::decode(e)?);
    }
    Ok(format!("{}-{n}", hex::encode(md5.finalize())))
}

/// What CompleteMultipartUpload may ask of the object it makes.
#[derive(Debug, Clone, Default)]
pub struct CompleteChecks {
    /// `If-Match`: complete only over this ETag (`*`: over any object).
    pub if_match: Option<String>,
    /// `If-None-Match: *`: complete only where the key holds no object.
    pub if_none_match_any: bool,
    /// `x-amz-mp-object-size`: the size the parts must make.
    pub object_size: Option<u64>,
}

impl Gateway {
    /// Starts a multipart upload; returns its id.
    pub async fn create_multipart(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        params: PutParams,
    ) -> GatewayResult<String> {
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutObject, &Target::key(&info, key))?;
        // the time first: a key's uploads list in the order they began, as
        // S3 lists them, and upload-id-marker resumes in that order
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let upload_id = format!("2~{nanos:016x}{}", unique_id());
        let up = UploadInfo {
            upload_id: upload_id.clone(),
            bucket: bucket.into(),
            bucket_id: info.id.clone(),
            key: key.into(),
            owner: Self::writer(rq, &info).to_string(),
            initiated: now_secs(),
            headers: params.headers,
            user_meta: params.user_meta,
            acl: params.acl,
            tags: params.tags,
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
        self.authorize(rq, access, &Target::object(&info, key, &up.owner, up.acl))?;
        Ok((info, up))
    }

    /// Stores one part.
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
        body: BodyStream,
    ) -> GatewayResult<PartInfo> {
        if !(1..=MAX_PART_NUMBER).contains(&number) {
            return Err(GatewayError::InvalidArgument(format!(
                "part number must be an integer between 1 and {MAX_PART_NUMBER}"
            )));
        }
        let (info, _) = self
            .upload(rq, Access::WritePart, bucket, key, upload_id)
            .await?;
        let w = self
            .write_body(
                WriteTarget {
                    info: &info,
                    key,
                    head_len: 0,
                    part_of: Some((upload_id.into(), number)),
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
                tag: w.tag.clone(),
                size: w.size,
                stripe_size: self.opts.stripe_size,
            },
        };
        let add = Usage {
            objects: 0,
            bytes: w.size,
        };
        if let Err(e) = self.quota_pass(&info, add, false).await {
            self.abort_upload(&info.id, &w.tag, w.stripes).await?;
            return Err(e);
        }
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
                self.abort_upload(&info.id, &w.tag, w.stripes).await?;
                return Err(GatewayError::NoSuchUpload);
            }
            Err(e) => return Err(e.into()),
        }
        if w.stripes > 0 {
            self.gc_forget(&w.tag).await?;
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
                after.clone_from(k);
            }
            if !page.more {
                return Ok(parts);
            }
        }
    }

    /// Copies an object, or the bytes `first..=last` of it, into a part
    /// (UploadPartCopy). The source is read as GetObject reads it (its
    /// authorization, and `conditions`: the `x-amz-copy-source-if-*`
    /// checks) and streamed into the part as UploadPart stores one. A range
    /// must lie within the object (`InvalidRange`), as S3 requires of
    /// `x-amz-copy-source-range`.
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
        self.upload_part(
            rq,
            bucket,
            key,
            upload_id,
            number,
            Some(len),
            None,
            None,
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
        let mut stored: BTreeMap<u32, PartInfo> = self
            .all_parts(upload_id)
            .await?
            .into_iter()
            .map(|p| (p.number, p))
            .collect();
        let mut chosen = Vec::with_capacity(wanted.len());
        for (i, &(number, etag)) in wanted.iter().enumerate() {
            let part = stored
                .remove(&number)
                .filter(|p| p.etag == etag)
                .ok_or(GatewayError::InvalidPart(number))?;
            if i + 1 < wanted.len() && part.size < self.opts.min_part_size {
                return Err(GatewayError::EntityTooSmall);
            }
            chosen.push(part);
        }
        let etag = multipart_etag(chosen.iter().map(|p| p.etag.as_str()))
            .map_err(|e| GatewayError::Corrupt(e.to_string()))?;
        let meta = ObjectMeta {
            size: chosen.iter().map(|p| p.size).sum(),
            etag,
            mtime: now_secs(),
            owner: up.owner.clone(),
            acl: up.acl,
            headers: up.headers.clone(),
            user_meta: up.user_meta.clone(),
            tags: up.tags.clone(),
            tag: unique_id(),
            head_len: 0,
            tails: chosen.iter().map(|p| p.tail.clone()).collect(),
            checksums: BTreeMap::new(),
            upload_id: upload_id.into(),
        };
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
        let add = Usage {
            objects: 1,
            bytes: meta.size,
        };
        let _pass = self.quota_pass(&info, add, true).await?;
        let replaced = self
            .commit_head(&info.id, key, &conditions, Bytes::new(), &meta)
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
        self.authorize(
            rq,
            Access::WritePart,
            &Target::object(&info, key, meta.owner_in(&info), meta.acl),
        )?;
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
        let (info, up) = self
            .upload(rq, Access::AbortUpload, bucket, key, upload_id)
            .await?;
        let parts = self.all_parts(upload_id).await?;
        self.drop_upload(&info, &up).await?;
        let tails: Vec<Tail> = parts.into_iter().map(|p| p.tail).collect();
        self.retire(&info.id, key, &tails).await
    }

    /// Uploads in progress in a bucket, in (key, upload id) order.
    pub async fn list_multipart_uploads(
        &self,
        rq: &Requester,
        bucket: &str,
        prefix: &str,
        (key_marker, upload_id_marker): (&str, &str),
        max: usize,
    ) -> GatewayResult<UploadList> {
        let info = self.bucket_info(bucket).await?;
        self.authorize(rq, Access::ListUploads, &Target::bucket(&info))?;
        let mut out = UploadList::default();
        // after the key marker's uploads, or those up to the upload marker
        // (which counts only with a key marker)
        let mut after = match (key_marker, upload_id_marker) {
            ("", _) => String::new(),
            (k, "") => format!("{k}{SEP}\u{10FFFF}"),
            (k, u) => format!("{k}{SEP}{u}"),
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
                after.clone_from(k);
                // the last separator: a key may hold U+0001, an upload id not
                let Some((_, upload_id)) = k.rsplit_once(SEP) else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GetParams;
    use crate::testutil::{Fixture, body, collect, owner, pattern, small_opts};

    const P1: &[u8] = b"abcdef";
    const P2: &[u8] = b"ghijkl";
    const P3: &[u8] = b"mn";
    const MD5_P1: &str = "e80b5017098950fc58aad83c8c14978e";
    const MD5_P2: &str = "26e162d0b5706141bdb954900aebe804";
    const MD5_P3: &str = "412566367c67448b599d1b7666f8ccfc";

    async fn start(f: &Fixture, key: &str) -> String {
        f.gw.create_multipart(&owner(), "mpu", key, PutParams::default())
            .await
            .expect("create upload")
    }

    async fn part(
        f: &Fixture,
        key: &str,
        up: &str,
        n: u32,
        data: &[u8],
    ) -> GatewayResult<PartInfo> {
        f.gw.upload_part(
            &owner(),
            "mpu",
            key,
            up,
            n,
            Some(data.len() as u64),
            None,
            None,
            body(data, 5),
        )
        .await
    }

    /// An upload of parts 1 (6 bytes), 2 (6 bytes) and 3 (2 bytes).
    async fn three_parts(f: &Fixture, key: &str) -> String {
        let up = start(f, key).await;
        for (n, data) in [(1, P1), (2, P2), (3, P3)] {
            part(f, key, &up, n, data).await.expect("part");
        }
        up
    }

    fn wanted(parts: &[(u32, &str)]) -> Vec<(u32, String)> {
        parts.iter().map(|&(n, e)| (n, e.to_string())).collect()
    }

    #[test]
    fn index_keys_sort_as_s3_lists() {
        // part keys sort numerically
        let mut keys: Vec<String> = [10_000, 1, 10, 9, 100, 2].map(part_key).to_vec();
        keys.sort();
        assert_eq!(keys, ["00001", "00002", "00009", "00010", "00100", "10000"]);
        // upload index keys sort by key first, then upload id; a key never
        // sorts among another key's uploads, even one it is a prefix of
        let mut keys = [
            upload_index_key("a/b", "2~1"),
            upload_index_key("a", "2~2"),
            upload_index_key("a", "2~1"),
            upload_index_key("a!", "2~0"),
            upload_index_key("a b", "2~0"),
        ];
        keys.sort();
        let split: Vec<(&str, &str)> = keys
            .iter()
            .map(|k| k.rsplit_once(SEP).expect("separator"))
            .collect();
        assert_eq!(
            split,
            [
                ("a", "2~1"),
                ("a", "2~2"),
                ("a b", "2~0"),
                ("a!", "2~0"),
                ("a/b", "2~1")
            ]
        );
    }

    /// Part numbers are 1 to 10000.
    #[tokio::test]
    async fn part_numbers() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = start(&f, "k").await;
        for (n, ok) in [
            (0, false),
            (1, true),
            (2, true),
            (9_999, true),
            (10_000, true),
            (10_001, false),
            (u32::MAX, false),
        ] {
            let r = part(&f, "k", &up, n, P1).await;
            if ok {
                assert_eq!(r.expect("part").number, n);
            } else {
                assert!(
                    matches!(r, Err(GatewayError::InvalidArgument(..))),
                    "part {n}"
                );
            }
        }
        let (_, parts, truncated) =
            f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
                .await
                .expect("list parts");
        let numbers: Vec<u32> = parts.iter().map(|p| p.number).collect();
        assert_eq!(numbers, [1, 2, 9_999, 10_000]);
        assert!(!truncated);
    }

    /// UploadPartCopy: whole objects and ranges become parts, read as
    /// GetObject reads them.
    #[tokio::test]
    async fn parts_copied_from_objects() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let src = b"abcdefghijklmnopqrst";
        f.gw.put_object(
            &owner(),
            "mpu",
            "src",
            PutParams {
                content_length: Some(src.len() as u64),
                ..Default::default()
            },
            body(src, 3),
        )
        .await
        .expect("source");
        let up = start(&f, "copy").await;
        let me = owner();
        let copy = |n, range| {
            f.gw.upload_part_copy(
                &me,
                "mpu",
                "copy",
                &up,
                n,
                "mpu",
                "src",
                range,
                GetParams::default(),
            )
        };
        let p1 = copy(1, Some((0, 9))).await.expect("range");
        let p2 = copy(2, None).await.expect("whole");
        let p3 = copy(3, Some((19, 19))).await.expect("last byte");
        assert_eq!((p1.size, p2.size, p3.size), (10, 20, 1));
        assert!(matches!(
            copy(4, Some((5, 20))).await,
            Err(GatewayError::InvalidRange)
        ));
        assert!(matches!(
            copy(4, Some((20, 20))).await,
            Err(GatewayError::InvalidRange)
        ));
        // the source is read as its reader may: bob may not
        assert!(matches!(
            f.gw.upload_part_copy(
                &Requester::user("bob"),
                "mpu",
                "copy",
                &up,
                4,
                "mpu",
                "src",
                None,
                GetParams::default(),
            )
            .await,
            Err(GatewayError::AccessDenied)
        ));
        let parts = [(1, p1.etag), (2, p2.etag), (3, p3.etag)];
        f.gw.complete_multipart(&owner(), "mpu", "copy", &up, &parts)
            .await
            .expect("complete");
        let got =
            f.gw.get_object(&owner(), "mpu", "copy", GetParams::default())
                .await
                .expect("get");
        let data = collect(got.body.expect("body")).await.expect("read");
        assert_eq!(data, b"abcdefghijabcdefghijklmnopqrstt");
    }

    /// What CompleteMultipartUpload refuses, before anything changes.
    #[tokio::test]
    async fn completion_is_validated() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        type Check = fn(&GatewayError) -> bool;
        type Case<'a> = (&'a str, &'a [(u32, &'a str)], Check);
        let cases: &[Case] = &[
            ("no parts", &[], |e| {
                matches!(e, GatewayError::MalformedXml(..))
            }),
            ("descending", &[(2, MD5_P2), (1, MD5_P1)], |e| {
                matches!(e, GatewayError::InvalidPartOrder)
            }),
            // a part named twice is its last entry (s3-tests'
            // test_multipart_resend_first_finishing_last)
            (
                "repeated, the last naming a stale ETag",
                &[(1, MD5_P1), (1, MD5_P2)],
                |e| matches!(e, GatewayError::InvalidPart(1)),
            ),
            (
                "repeated after a higher number",
                &[(1, MD5_P1), (2, MD5_P2), (1, MD5_P1)],
                |e| matches!(e, GatewayError::InvalidPartOrder),
            ),
            ("order checked before parts", &[(9, "x"), (4, "y")], |e| {
                matches!(e, GatewayError::InvalidPartOrder)
            }),
            ("never uploaded", &[(1, MD5_P1), (4, MD5_P1)], |e| {
                matches!(e, GatewayError::InvalidPart(4))
            }),
            ("another part's ETag", &[(1, MD5_P2), (2, MD5_P2)], |e| {
                matches!(e, GatewayError::InvalidPart(1))
            }),
            ("ETag of nothing", &[(1, "")], |e| {
                matches!(e, GatewayError::InvalidPart(1))
            }),
        ];
        let up = three_parts(&f, "k").await;
        for (what, parts, want) in cases {
            match f
                .gw
                .complete_multipart(&owner(), "mpu", "k", &up, &wanted(parts))
                .await
            {
                Ok(_) => panic!("{what}: completed"),
                Err(e) => assert!(want(&e), "{what}: {e}"),
            }
        }
        // every part but the last must reach the minimum (5 bytes here)
        part(&f, "k", &up, 4, P1).await.expect("part 4");
        assert!(matches!(
            f.gw.complete_multipart(
                &owner(),
                "mpu",
                "k",
                &up,
                &wanted(&[(3, MD5_P3), (4, MD5_P1)])
            )
            .await,
            Err(GatewayError::EntityTooSmall)
        ));
        // nothing happened: the upload still has its parts, no object exists
        let (_, parts, _) =
            f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
                .await
                .expect("list parts");
        assert_eq!(parts.len(), 4);
        assert!(matches!(
            f.gw.get_object(&owner(), "mpu", "k", GetParams::default())
                .await,
            Err(GatewayError::NoSuchKey)
        ));
    }

    /// The completed object: the chosen parts in order, ETag = MD5 of the
    /// parts' binary MD5s, "-", the number of parts; parts left out are
    /// deleted; the upload is gone.
    #[tokio::test]
    async fn completed_objects() {
        let (f, id) = Fixture::with_bucket(small_opts(), "mpu").await;
        // (chosen parts, ETag, data)
        type Case<'a> = (&'a [(u32, &'a str)], &'a str, &'a [&'a [u8]]);
        let cases: &[Case] = &[
            (
                &[(1, MD5_P1), (3, MD5_P3)],
                "06fbd9b0326197c7814631406b3a49b8-2",
                &[P1, P3],
            ),
            (
                &[(1, MD5_P1), (2, MD5_P2), (3, MD5_P3)],
                "87bb35e40b2ca331fa7d8817fea3506d-3",
                &[P1, P2, P3],
            ),
            // one part, however small, is the last
            (&[(3, MD5_P3)], "faff146ee04f707fef36edc5333a6a54-1", &[P3]),
            // ETags as clients send them, quoted
            (
                &[
                    (1, "\"e80b5017098950fc58aad83c8c14978e\""),
                    (3, "\"412566367c67448b599d1b7666f8ccfc\""),
                ],
                "06fbd9b0326197c7814631406b3a49b8-2",
                &[P1, P3],
            ),
        ];
        for (i, &(chosen, etag, pieces)) in cases.iter().enumerate() {
            let key = format!("obj{i}");
            let up = three_parts(&f, &key).await;
            let (_, parts, _) =
                f.gw.list_parts(&owner(), "mpu", &key, &up, 0, 1000)
                    .await
                    .expect("list parts");
            let etags: Vec<&str> = parts.iter().map(|p| p.etag.as_str()).collect();
            assert_eq!(etags, [MD5_P1, MD5_P2, MD5_P3]);
            let meta =
                f.gw.complete_multipart(&owner(), "mpu", &key, &up, &wanted(chosen))
                    .await
                    .expect("complete")
                    .meta;
            let data = pieces.concat();
            assert_eq!(meta.etag, etag, "{chosen:?}");
            assert_eq!(meta.size, data.len() as u64, "{chosen:?}");
            assert_eq!(meta.head_len, 0, "{chosen:?}");
            let want_tails: Vec<Tail> = chosen
                .iter()
                .map(|(n, _)| parts[*n as usize - 1].tail.clone())
                .collect();
            assert_eq!(meta.tails, want_tails, "{chosen:?}");
            let got =
                f.gw.get_object(&owner(), "mpu", &key, GetParams::default())
                    .await
                    .expect("get");
            assert_eq!(got.meta.etag, etag);
            assert_eq!(collect(got.body.expect("body")).await.expect("read"), data);
            // parts left out lose their stripes, chosen ones keep them
            for p in &parts {
                let kept = chosen.iter().any(|(n, _)| *n == p.number);
                let first = layout::stripe(&id, &p.tail.tag, 0);
                assert_eq!(
                    f.exists(&first).await,
                    kept,
                    "{chosen:?}: part {}",
                    p.number
                );
            }
            assert!(matches!(
                f.gw.list_parts(&owner(), "mpu", &key, &up, 0, 1000).await,
                Err(GatewayError::NoSuchUpload)
            ));
            assert!(matches!(
                part(&f, &key, &up, 1, P1).await,
                Err(GatewayError::NoSuchUpload)
            ));
        }
        assert!(
            f.gw.list_multipart_uploads(&owner(), "mpu", "", ("", ""), 1000)
                .await
                .expect("uploads")
                .uploads
                .is_empty()
        );
        assert!(f.gc_tags().await.is_empty());
    }

    /// Ranged reads of a multipart object cross part and stripe boundaries.
    #[tokio::test]
    async fn ranged_reads_of_multipart_objects() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = start(&f, "k").await;
        // parts of 6, 9 and 3 bytes, in stripes of 4: 0..4 4..6 | 6..10 10..14 14..15 | 15..18
        let data = pattern(18);
        let mut chosen = Vec::new();
        for (n, range) in [(1, 0..6), (2, 6..15), (3, 15..18)] {
            let p = part(&f, "k", &up, n, &data[range]).await.expect("part");
            chosen.push((n, p.etag));
        }
        f.gw.complete_multipart(&owner(), "mpu", "k", &up, &chosen)
            .await
            .expect("complete");
        for (first, last) in [
            (0, 17),
            (0, 0),
            (5, 6),
            (3, 16),
            (6, 14),
            (13, 15),
            (14, 14),
            (15, 17),
            (17, 17),
        ] {
            let got =
                f.gw.get_object(
                    &owner(),
                    "mpu",
                    "k",
                    GetParams {
                        range: Some(crate::RangeSpec::Int {
                            first,
                            last: Some(last),
                        }),
                        ..Default::default()
                    },
                )
                .await
                .expect("get");
            assert_eq!(got.range, Some((first, last + 1)));
            let read = collect(got.body.expect("body")).await.expect("read");
            assert_eq!(
                read,
                &data[first as usize..=last as usize],
                "{first}-{last}"
            );
        }
    }

    /// CompleteMultipartUpload's If-None-Match, If-Match and object size:
    /// a completion they refuse leaves the key's object and the upload as
    /// they were, and the same upload completes once they hold.
    #[tokio::test]
    async fn completion_checks_refuse_and_keep_the_upload() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let old =
            f.gw.put_object(&owner(), "mpu", "k", PutParams::default(), body(b"old", 2))
                .await
                .expect("put")
                .meta;
        let up = three_parts(&f, "k").await;
        let all = wanted(&[(1, MD5_P1), (2, MD5_P2), (3, MD5_P3)]);
        let complete = |checks: CompleteChecks| {
            let (gw, up, all) = (f.gw.clone(), up.clone(), all.clone());
            async move {
                gw.complete_multipart_checked(&owner(), "mpu", "k", &up, &all, &checks)
                    .await
            }
        };
        let refusals = [
            (
                CompleteChecks {
                    if_none_match_any: true,
                    ..Default::default()
                },
                "PreconditionFailed",
            ),
            (
                CompleteChecks {
                    if_match: Some("0123".into()),
                    ..Default::default()
                },
                "PreconditionFailed",
            ),
            (
                CompleteChecks {
                    object_size: Some(13),
                    ..Default::default()
                },
                "InvalidRequest",
            ),
        ];
        for (checks, want) in refusals {
            let e = complete(checks.clone()).await.expect_err("refused");
            assert!(format!("{e:?}").starts_with(want), "{checks:?}: {e:?}");
        }
        let head = GetParams {
            head_only: true,
            ..Default::default()
        };
        let got =
            f.gw.get_object(&owner(), "mpu", "k", head)
                .await
                .expect("the old object");
        assert_eq!(got.meta.etag, old.etag);
        let done = complete(CompleteChecks {
            if_match: Some(format!("\"{}\"", old.etag)),
            object_size: Some(14),
            ..Default::default()
        })
        .await
        .expect("completes once the checks hold");
        assert_eq!(done.meta.size, 14);
    }

    /// Uploading a part number again replaces the part: the old data goes,
    /// the old ETag no longer completes.
    #[tokio::test]
    async fn part_uploaded_again_replaces_the_first() {
        let (f, id) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = start(&f, "k").await;
        let first = part(&f, "k", &up, 1, P1).await.expect("part");
        let second = part(&f, "k", &up, 1, P2).await.expect("part again");
        assert_eq!(second.etag, MD5_P2);
        assert!(!f.exists(&layout::stripe(&id, &first.tail.tag, 0)).await);
        assert!(f.exists(&layout::stripe(&id, &second.tail.tag, 0)).await);
        let (_, parts, _) =
            f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
                .await
                .expect("list parts");
        // (mtime went through JSON, equal only to the microsecond)
        let seen: Vec<_> = parts
            .iter()
            .map(|p| (p.number, &p.etag, p.size, &p.tail))
            .collect();
        assert_eq!(seen, [(1, &second.etag, 6, &second.tail)]);
        assert!(matches!(
            f.gw.complete_multipart(&owner(), "mpu", "k", &up, &wanted(&[(1, MD5_P1)]))
                .await,
            Err(GatewayError::InvalidPart(1))
        ));
        // the client names both uploads of part 1, the current one last
        let done =
            f.gw.complete_multipart(
                &owner(),
                "mpu",
                "k",
                &up,
                &wanted(&[(1, MD5_P1), (1, MD5_P2)]),
            )
            .await
            .expect("complete");
        assert_eq!(done.meta.tails, [second.tail]);
    }

    /// A failed part upload stores nothing and keeps the part it would
    /// have replaced.
    #[tokio::test]
    async fn failed_parts_store_nothing() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = start(&f, "k").await;
        part(&f, "k", &up, 1, P1).await.expect("part");
        let before = f.data_objects().await;
        let short =
            f.gw.upload_part(
                &owner(),
                "mpu",
                "k",
                &up,
                1,
                Some(7),
                None,
                None,
                body(P2, 2),
            )
            .await;
        assert!(matches!(short, Err(GatewayError::IncompleteBody)));
        let bad_md5 =
            f.gw.upload_part(
                &owner(),
                "mpu",
                "k",
                &up,
                1,
                None,
                Some(vec![0; 16]),
                None,
                body(P2, 2),
            )
            .await;
        assert!(matches!(bad_md5, Err(GatewayError::BadDigest)));
        assert_eq!(f.data_objects().await, before);
        assert!(f.gc_tags().await.is_empty());
        let (_, parts, _) =
            f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
                .await
                .expect("list parts");
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].etag, MD5_P1);
    }

    /// ListParts: ascending part numbers whatever the upload order, after
    /// the marker, at most max, truncated only if more follow.
    #[tokio::test]
    async fn list_parts_pages() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = start(&f, "k").await;
        for n in [5, 1, 3, 2, 12] {
            part(&f, "k", &up, n, P1).await.expect("part");
        }
        // (marker, max, numbers, truncated)
        let cases: &[(u32, usize, &[u32], bool)] = &[
            (0, 1000, &[1, 2, 3, 5, 12], false),
            (0, 5, &[1, 2, 3, 5, 12], false),
            (0, 2, &[1, 2], true),
            (2, 2, &[3, 5], true),
            (5, 2, &[12], false),
            (4, 1000, &[5, 12], false),
            (12, 1000, &[], false),
        ];
        for &(marker, max, numbers, truncated) in cases {
            let (info, parts, more) =
                f.gw.list_parts(&owner(), "mpu", "k", &up, marker, max)
                    .await
                    .expect("list parts");
            assert_eq!(info.upload_id, up);
            let got: Vec<u32> = parts.iter().map(|p| p.number).collect();
            assert_eq!(got, numbers, "marker {marker}, max {max}");
            assert_eq!(more, truncated, "marker {marker}, max {max}");
        }
    }

    /// ListMultipartUploads: (key, upload id) order, a key's uploads in
    /// the order they began, prefix, key marker (strictly after that key),
    /// upload id marker (after that upload of the key marker), max.
    #[tokio::test]
    async fn list_uploads_pages() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let mut ids = BTreeMap::new();
        for key in ["b", "a/2", "a", "c", "a/1", "a"] {
            ids.entry(key)
                .or_insert_with(Vec::new)
                .push(start(&f, key).await);
        }
        let mut sorted = ids["a"].clone();
        sorted.sort();
        assert_eq!(sorted, ids["a"], "upload ids sort as the uploads began");
        // (prefix, key marker, max, keys, truncated)
        let cases: &[(&str, &str, usize, &[&str], bool)] = &[
            ("", "", 1000, &["a", "a", "a/1", "a/2", "b", "c"], false),
            ("a", "", 1000, &["a", "a", "a/1", "a/2"], false),
            ("a/", "", 1000, &["a/1", "a/2"], false),
            ("z", "", 1000, &[], false),
            ("", "a", 1000, &["a/1", "a/2", "b", "c"], false),
            ("", "a/1", 1000, &["a/2", "b", "c"], false),
            ("", "a0", 1000, &["b", "c"], false),
            ("", "c", 1000, &[], false),
            ("a", "a/1", 1000, &["a/2"], false),
            ("", "", 2, &["a", "a"], true),
            ("", "", 6, &["a", "a", "a/1", "a/2", "b", "c"], false),
            ("", "a/2", 1, &["b"], true),
            ("", "b", 1, &["c"], false),
        ];
        for &(prefix, marker, max, keys, truncated) in cases {
            let got =
                f.gw.list_multipart_uploads(&owner(), "mpu", prefix, (marker, ""), max)
                    .await
                    .expect("uploads");
            let got_keys: Vec<&str> = got.uploads.iter().map(|u| u.key.as_str()).collect();
            assert_eq!(
                got_keys, keys,
                "prefix {prefix:?}, marker {marker:?}, max {max}"
            );
            assert_eq!(
                got.is_truncated, truncated,
                "prefix {prefix:?}, marker {marker:?}, max {max}"
            );
            for u in &got.uploads {
                assert_eq!(u.bucket, "mpu");
                assert_eq!(u.owner, "alice");
            }
        }
        // a key's uploads come in upload id order
        let all =
            f.gw.list_multipart_uploads(&owner(), "mpu", "a", ("", ""), 2)
                .await
                .expect("uploads");
        let got: Vec<&String> = all.uploads.iter().map(|u| &u.upload_id).collect();
        let want: Vec<&String> = ids["a"].iter().collect();
        assert_eq!(got, want);
        // resuming after a's first upload: its second, then the next keys
        let rest =
            f.gw.list_multipart_uploads(&owner(), "mpu", "", ("a", &ids["a"][0]), 2)
                .await
                .expect("uploads");
        let got: Vec<(&str, &str)> = rest
            .uploads
            .iter()
            .map(|u| (u.key.as_str(), u.upload_id.as_str()))
            .collect();
        assert_eq!(
            got,
            [("a", ids["a"][1].as_str()), ("a/1", ids["a/1"][0].as_str())]
        );
        assert!(rest.is_truncated);
    }

    /// A key may hold the upload index's separator (U+0001): its uploads
    /// are listed as any other's.
    #[tokio::test]
    async fn uploads_of_keys_holding_the_separator() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let mut want = Vec::new();
        for key in ["a\u{1}b", "a", "\u{1}"] {
            want.push((key.to_string(), start(&f, key).await));
        }
        want.sort();
        let got =
            f.gw.list_multipart_uploads(&owner(), "mpu", "", ("", ""), 1000)
                .await
                .expect("uploads");
        let mut got: Vec<(String, String)> = got
            .uploads
            .into_iter()
            .map(|u| (u.key, u.upload_id))
            .collect();
        got.sort();
        assert_eq!(got, want);
    }

    /// Abort deletes every part; the upload is gone for all operations.
    #[tokio::test]
    async fn abort_removes_everything() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = three_parts(&f, "k").await;
        assert!(!f.data_objects().await.is_empty());
        f.gw.abort_multipart(&owner(), "mpu", "k", &up)
            .await
            .expect("abort");
        assert_eq!(f.data_objects().await, Vec::<String>::new());
        assert!(f.gc_tags().await.is_empty());
        assert!(
            f.gw.list_multipart_uploads(&owner(), "mpu", "", ("", ""), 1000)
                .await
                .expect("uploads")
                .uploads
                .is_empty()
        );
        assert!(matches!(
            part(&f, "k", &up, 1, P1).await,
            Err(GatewayError::NoSuchUpload)
        ));
        assert!(matches!(
            f.gw.complete_multipart(&owner(), "mpu", "k", &up, &wanted(&[(1, MD5_P1)]))
                .await,
            Err(GatewayError::NoSuchUpload)
        ));
        assert!(matches!(
            f.gw.abort_multipart(&owner(), "mpu", "k", &up).await,
            Err(GatewayError::NoSuchUpload)
        ));
    }

    /// An upload id only works with its own bucket and key, and for its
    /// initiator or the bucket's owner.
    #[tokio::test]
    async fn uploads_belong_to_their_key() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        f.gw.create_bucket("alice", "other", CannedAcl::PublicReadWrite)
            .await
            .expect("bucket");
        let up = start(&f, "k").await;
        let cases: &[(&str, &str, &str, &str)] = &[
            ("another key", "mpu", "k2", &up),
            ("another bucket", "other", "k", &up),
            ("an id never issued", "mpu", "k", "2~0000"),
            ("an id no object may be named after", "mpu", "k", ""),
        ];
        for (what, bucket, key, id) in cases {
            let r =
                f.gw.upload_part(&owner(), bucket, key, id, 1, None, None, None, body(P1, 6))
                    .await;
            assert!(
                matches!(r, Err(GatewayError::NoSuchUpload)),
                "{what}: {:?}",
                r.err()
            );
        }
        let bob = Requester::user("bob");
        assert!(matches!(
            f.gw.upload_part(&bob, "mpu", "k", &up, 1, None, None, None, body(P1, 6))
                .await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.create_multipart(&bob, "mpu", "k", PutParams::default())
                .await,
            Err(GatewayError::AccessDenied)
        ));
        // in a public-read-write bucket anyone may start one; its
        // initiator and the bucket owner may use it, nobody else
        let theirs =
            f.gw.create_multipart(&bob, "other", "k", PutParams::default())
                .await
                .expect("create");
        for (who, ok) in [
            (&bob, true),
            (&owner(), true),
            (&Requester::user("carol"), false),
        ] {
            let r = f.gw.list_parts(who, "other", "k", &theirs, 0, 1000).await;
            assert_eq!(r.is_ok(), ok, "{who:?}");
        }
    }

    /// Completing over an existing object replaces it and deletes its
    /// stripes.
    #[tokio::test]
    async fn completion_replaces_an_object() {
        let (f, id) = Fixture::with_bucket(small_opts(), "mpu").await;
        let old =
            f.gw.put_object(
                &owner(),
                "mpu",
                "k",
                PutParams::default(),
                body(&pattern(21), 4),
            )
            .await
            .expect("put")
            .meta;
        let up = three_parts(&f, "k").await;
        f.gw.complete_multipart(
            &owner(),
            "mpu",
            "k",
            &up,
            &wanted(&[(1, MD5_P1), (2, MD5_P2)]),
        )
        .await
        .expect("complete");
        assert!(!f.exists(&layout::stripe(&id, &old.tag, 0)).await);
        let got =
            f.gw.get_object(&owner(), "mpu", "k", GetParams::default())
                .await
                .expect("get");
        assert_eq!(
            collect(got.body.expect("body")).await.expect("read"),
            [P1, P2].concat()
        );
        assert!(f.gc_tags().await.is_empty());
        // only the new object's head and stripes remain
        let objects = f.data_objects().await;
        assert_eq!(objects.len(), 1 + 2 + 2, "{objects:?}");
    }

    /// A completion retried with the same part list answers the first
    /// one's result while the object it made is the key's current version;
    /// another part list, another key, or a later version: NoSuchUpload.
    #[tokio::test]
    async fn retried_completion_answers_the_first_result() {
        let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
        let up = three_parts(&f, "k").await;
        let list = wanted(&[(1, MD5_P1), (2, MD5_P2)]);
        let first =
            f.gw.complete_multipart(&owner(), "mpu", "k", &up, &list)
                .await
                .expect("complete")
                .meta;
        assert_eq!(first.upload_id, up);
        let quoted = wanted(&[(1, "\"e80b5017098950fc58aad83c8c14978e\""), (2, MD5_P2)]);
        for retry in [&list, &quoted] {
            let again =
                f.gw.complete_multipart(&owner(), "mpu", "k", &up, retry)
                    .await
                    .expect("retried completion");
            // (mtime went through JSON, equal only to the microsecond)
            assert_eq!(
                (
                    &again.meta.etag,
                    again.meta.size,
                    &again.meta.tails,
                    &again.meta.tag
                ),
                (&first.etag, first.size, &first.tails, &first.tag)
            );
        }
        let no_such = |r: GatewayResult<PutResult>, what: &str| {
            assert!(
                matches!(r, Err(GatewayError::NoSuchUpload)),
                "{what}: {r:?}"
            );
        };
        for (what, key, parts) in [
            ("fewer parts", "k", wanted(&[(1, MD5_P1)])),
            ("another ETag", "k", wanted(&[(1, MD5_P1), (2, MD5_P3)])),
            ("another key", "other", list.clone()),
        ] {
            no_such(
                f.gw.complete_multipart(&owner(), "mpu", key, &up, &parts)
                    .await,
                what,
            );
        }
        f.gw.put_object(&owner(), "mpu", "k", PutParams::default(), body(P3, 4))
            .await
            .expect("overwrite");
        no_such(
            f.gw.complete_multipart(&owner(), "mpu", "k", &up, &list)
                .await,
            "after an overwrite",
        );
    }
}
