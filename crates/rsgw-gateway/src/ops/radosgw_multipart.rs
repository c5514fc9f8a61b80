//! Multipart uploads on radosgw's layout, taken through the zone
//! (`rsgw_radosgw::uploads`) as radosgw takes them, so that an upload
//! begun through either gateway can be continued, listed, completed or
//! aborted through the other. The S3 rules are the gateway's own
//! (`ops::multipart`): part numbers, the part list of a completion, the
//! minimum part size, the multipart ETag, one authorization decision.
//!
//! What radosgw's layout would keep otherwise than rsgw's is refused with
//! `501 NotImplemented`, as for a PUT: encryption, object lock,
//! conditional completions. A checksum algorithm is accepted as radosgw
//! 16.2 accepts it: each part's checksums are checked as sent, and the
//! object keeps none (radosgw 16.2 keeps no checksums), so the upload
//! answers without the algorithm and the object without a composite.

use rsgw_radosgw::upload::PartRecord;
use rsgw_radosgw::uploads::{Upload, uploads_after};
use rsgw_radosgw::writes::{NewObject, STRIPE};
use rsgw_radosgw::zone::{Zone, ZoneBucket, ZoneError};

use crate::engine::write::Declared;
use crate::model::bucket::BucketInfo;
use crate::model::crypt::CustomerKey;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::limits::MAX_PART_NUMBER;
use crate::model::object::{ObjectMeta, Tail};
use crate::model::params::{
    BodyCheck, BodyStream, CompleteChecks, PutParams, PutResult, UploadList,
};
use crate::model::upload::{PartInfo, UploadInfo};
use crate::ops::gateway::Gateway;
use crate::ops::multipart::{Offer, UploadPage, choose_parts, distinct_parts, multipart_etag};
use crate::ops::radosgw::{acl_of, bucket_info_of, meta_of, secs, zone_bucket_for};
use crate::ops::radosgw_write::{policy_of, refuse_unkept};
use crate::rules::authz::{Access, Requester, Target, authorize, writer};
use crate::rules::names::validate_key;

/// Refuses what a part or a completion on radosgw's layout cannot keep.
fn refused(what: &str) -> GatewayError {
    GatewayError::NotConfigured(format!(
        "{what} on radosgw's layout: not written by this gateway (send it to radosgw)"
    ))
}

/// An upload as the gateway's record of it.
fn upload_info_of(bucket: &str, zb: &ZoneBucket, up: &Upload, head: &ObjectMeta) -> UploadInfo {
    UploadInfo {
        upload_id: up.upload_id.clone(),
        bucket: bucket.to_string(),
        bucket_id: zb.info.bucket.marker.clone(),
        key: up.key.clone(),
        owner: up.acl.owner.to_str(),
        initiated: secs(up.initiated),
        headers: head.headers.clone(),
        user_meta: head.user_meta.clone(),
        acl: acl_of(&up.acl),
        tags: up.tags.clone(),
        sse: None,
        lock: Default::default(),
        checksum_algorithm: None,
    }
}

/// A part's record as the gateway's: its stripes are named by its
/// manifest's prefix.
fn part_info_of(p: &PartRecord) -> PartInfo {
    PartInfo {
        number: p.num,
        etag: p.etag.clone(),
        size: p.size,
        mtime: secs(p.modified),
        tail: Tail {
            tag: p.manifest.prefix.clone(),
            size: p.size,
            stripe_size: STRIPE,
        },
        checksums: Default::default(),
    }
}

/// The headers and metadata an upload's meta object keeps for its
/// object, read as a head's are.
fn stored_of(up: &Upload) -> ObjectMeta {
    let (headers, user_meta) = rsgw_radosgw::zone::stored_headers(&up.xattrs);
    ObjectMeta {
        headers,
        user_meta,
        tags: up.tags.clone(),
        ..ObjectMeta::default()
    }
}

impl Gateway {
    /// [`Gateway::create_multipart`] on radosgw's layout.
    pub(crate) async fn zone_create_multipart(
        &self,
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        key: &str,
        mut params: PutParams,
    ) -> GatewayResult<UploadInfo> {
        validate_key(key)?;
        let zb = zone.bucket(bucket).await.map_err(GatewayError::from)?;
        let info = bucket_info_of(bucket, &zb)?;
        authorize(
            rq,
            Access::PutObject,
            &Target::key(&info, key).requesting(&params.tags),
        )?;
        refuse_unkept(&params)?;
        let acl = self.resolve_acl(std::mem::take(&mut params.acl)).await?;
        let owner = writer(rq, &info).to_string();
        let policy = policy_of(zone, &acl, &owner, &info.owner).await;
        let obj = NewObject {
            etag: String::new(),
            headers: params.headers.clone(),
            meta: params.user_meta.clone(),
            tags: params.tags.clone(),
            acl: policy,
        };
        let upload_id = zone
            .create_upload(&zb, key, &obj)
            .await
            .map_err(GatewayError::from)?;
        Ok(UploadInfo {
            upload_id,
            bucket: bucket.to_string(),
            bucket_id: zb.info.bucket.marker.clone(),
            key: key.to_string(),
            owner,
            initiated: now_secs(),
            headers: params.headers,
            user_meta: params.user_meta,
            acl,
            tags: params.tags,
            sse: None,
            lock: Default::default(),
            checksum_algorithm: None,
        })
    }

    /// An upload in progress on radosgw's layout, for an `access` to it.
    async fn zone_upload(
        zone: &Zone,
        rq: &Requester,
        access: Access,
        (bucket, key, upload_id): (&str, &str, &str),
    ) -> GatewayResult<(ZoneBucket, BucketInfo, Upload)> {
        let zb = zone.bucket(bucket).await.map_err(GatewayError::from)?;
        let info = bucket_info_of(bucket, &zb)?;
        let up = zone
            .upload(&zb, key, upload_id)
            .await
            .map_err(GatewayError::from)?;
        let acl = acl_of(&up.acl);
        authorize(
            rq,
            access,
            &Target::object(&info, key, &up.acl.owner.to_str(), &acl),
        )?;
        Ok((zb, info, up))
    }

    /// Stores one part on radosgw's layout (UploadPart, and UploadPartCopy
    /// once its source is read): streamed into the part's stripes, checked
    /// as declared, then recorded in the upload.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn zone_store_part(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key, upload_id, number): (&str, &str, &str, u32),
        (content_length, content_md5, check): (Option<u64>, Option<Vec<u8>>, Option<BodyCheck>),
        sse_key: Option<&CustomerKey>,
        body: BodyStream,
    ) -> GatewayResult<PartInfo> {
        if !(1..=MAX_PART_NUMBER).contains(&number) {
            return Err(GatewayError::InvalidArgument(format!(
                "part number must be an integer between 1 and {MAX_PART_NUMBER}"
            )));
        }
        let (zb, _, up) =
            Self::zone_upload(zone, rq, Access::WritePart, (bucket, key, upload_id)).await?;
        if sse_key.is_some() {
            return Err(refused("server-side encryption"));
        }
        let mut w = zone
            .begin_part(&zb, &up, number)
            .await
            .map_err(GatewayError::from)?;
        let (head, size, md5) = match self.stream_stripes(zone, &mut w, body).await {
            Ok(done) => done,
            Err(e) => {
                zone.abort_put(w).await;
                return Err(e);
            }
        };
        let declared = Declared {
            content_length,
            content_md5,
            check,
        };
        let checksums = match declared.check(size, &md5) {
            Ok(sums) => sums,
            Err(e) => {
                zone.abort_put(w).await;
                return Err(e);
            }
        };
        let record = zone
            .finish_part(w, (head, size), &hex::encode(md5), &up)
            .await
            .map_err(GatewayError::from)?;
        Ok(PartInfo {
            checksums,
            ..part_info_of(&record)
        })
    }

    /// [`Gateway::list_parts`] on radosgw's layout.
    pub(crate) async fn zone_list_parts(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key, upload_id): (&str, &str, &str),
        marker: u32,
        max: usize,
    ) -> GatewayResult<(UploadInfo, Vec<PartInfo>, bool)> {
        let (zb, _, up) =
            Self::zone_upload(zone, rq, Access::ListParts, (bucket, key, upload_id)).await?;
        let mut parts: Vec<PartInfo> = zone
            .upload_parts(&zb, &up)
            .await
            .map_err(GatewayError::from)?
            .iter()
            .filter(|p| p.num > marker)
            .map(part_info_of)
            .collect();
        let truncated = parts.len() > max;
        parts.truncate(max);
        Ok((
            upload_info_of(bucket, &zb, &up, &stored_of(&up)),
            parts,
            truncated,
        ))
    }

    /// [`Gateway::complete_multipart_checked`] on radosgw's layout.
    pub(crate) async fn zone_complete_multipart(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key, upload_id): (&str, &str, &str),
        wanted: &[(u32, String)],
        checks: &CompleteChecks,
    ) -> GatewayResult<PutResult> {
        if wanted.is_empty() {
            return Err(GatewayError::MalformedXml(
                "you must specify at least one part".into(),
            ));
        }
        if checks.if_match.is_some() || checks.if_none_match_any {
            return Err(refused("a conditional completion"));
        }
        if checks.sse_key.is_some() {
            return Err(refused("server-side encryption"));
        }
        let wanted = distinct_parts(wanted)?;
        let (zb, _, up) =
            match Self::zone_upload(zone, rq, Access::WritePart, (bucket, key, upload_id)).await {
                Err(GatewayError::NoSuchUpload) => {
                    return self
                        .zone_completed_before(zone, rq, (bucket, key), &wanted)
                        .await;
                }
                r => r?,
            };
        let mut stored: std::collections::BTreeMap<u32, PartRecord> = zone
            .upload_parts(&zb, &up)
            .await
            .map_err(GatewayError::from)?
            .into_iter()
            .map(|p| (p.num, p))
            .collect();
        let chosen = choose_parts(
            &wanted,
            &mut stored,
            |p| (p.etag.as_str(), p.size),
            self.opts.min_part_size,
        )?;
        if chosen.iter().any(|p| p.compression != "none") {
            return Err(refused("a part radosgw compressed"));
        }
        let etag = multipart_etag(chosen.iter().map(|p| p.etag.as_str()))
            .map_err(|e| GatewayError::Corrupt(e.to_string()))?;
        let size: u64 = chosen.iter().map(|p| p.size).sum();
        if let Some(want) = checks.object_size
            && want != size
        {
            return Err(GatewayError::InvalidRequest(format!(
                "x-amz-mp-object-size is {want}, the parts make {size} bytes"
            )));
        }
        let unused: Vec<PartRecord> = stored.into_values().collect();
        zone.complete_upload(&zb, &up, chosen, &unused, &etag)
            .await
            .map_err(GatewayError::from)?;
        let stored = stored_of(&up);
        Ok(PutResult {
            meta: ObjectMeta {
                size,
                etag,
                mtime: now_secs(),
                owner: up.acl.owner.to_str(),
                acl: acl_of(&up.acl),
                upload_id: upload_id.to_string(),
                ..stored
            },
        })
    }

    /// A completion retried after the first succeeded: the key's object
    /// has the ETag these parts make (radosgw keeps no upload id on the
    /// head), else there is no such upload.
    async fn zone_completed_before(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key): (&str, &str),
        wanted: &[(u32, &str)],
    ) -> GatewayResult<PutResult> {
        let zb = zone.bucket(bucket).await.map_err(GatewayError::from)?;
        let info = bucket_info_of(bucket, &zb)?;
        let head = match zone.head_meta(&zb, key).await {
            Ok(h) => h,
            Err(ZoneError::NoSuchObject(_)) => return Err(GatewayError::NoSuchUpload),
            Err(e) => return Err(e.into()),
        };
        let etag = multipart_etag(wanted.iter().map(|&(_, e)| e)).ok();
        if etag.as_deref() != Some(head.etag.as_str()) {
            return Err(GatewayError::NoSuchUpload);
        }
        let meta = meta_of(&head);
        authorize(rq, Access::WritePart, &Target::stored(&info, key, &meta))?;
        Ok(PutResult { meta })
    }

    /// [`Gateway::abort_multipart`] on radosgw's layout.
    pub(crate) async fn zone_abort_multipart(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key, upload_id): (&str, &str, &str),
    ) -> GatewayResult<()> {
        let (zb, _, up) =
            Self::zone_upload(zone, rq, Access::AbortUpload, (bucket, key, upload_id)).await?;
        zone.abort_upload(&zb, &up)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::list_multipart_uploads`] on radosgw's layout, in the
    /// index's order (`<key>.<upload id>`): a key's uploads together.
    pub(crate) async fn zone_list_uploads(
        &self,
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        (prefix, delimiter): (&str, &str),
        (key_marker, upload_id_marker): (&str, &str),
        max: usize,
    ) -> GatewayResult<UploadList> {
        let (zb, _) = zone_bucket_for(zone, rq, bucket, Access::ListUploads).await?;
        let mut page = UploadPage::new((prefix, delimiter), key_marker, max);
        let mut after = match (key_marker, upload_id_marker) {
            ("", _) => String::new(),
            (k, "") => uploads_after(k, None),
            (k, u) => uploads_after(k, Some(u)),
        };
        loop {
            let (listed, more) = zone
                .list_uploads(&zb, prefix, &after, max + 1)
                .await
                .map_err(GatewayError::from)?;
            for l in listed {
                after = uploads_after(&l.key, Some(&l.upload_id));
                match page.offer(&l.key) {
                    Offer::Skip => continue,
                    Offer::Full => return Ok(page.out),
                    Offer::Take => {}
                }
                page.take(UploadInfo {
                    bucket: bucket.to_string(),
                    bucket_id: zb.info.bucket.marker.clone(),
                    owner: l.entry.meta.owner.clone(),
                    initiated: secs(l.entry.meta.mtime),
                    key: l.key,
                    upload_id: l.upload_id,
                    headers: Default::default(),
                    user_meta: Default::default(),
                    acl: Default::default(),
                    tags: Default::default(),
                    sse: None,
                    lock: Default::default(),
                    checksum_algorithm: None,
                });
            }
            if !more {
                return Ok(page.out);
            }
        }
    }
}
