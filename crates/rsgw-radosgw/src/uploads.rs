//! Multipart uploads into a zone, as radosgw 16.2 takes them, so that
//! either gateway can go on with an upload the other began:
//! - **begin**: the upload's meta object
//!   `<marker>__multipart_<key>.<upload id>.meta` in the placement's
//!   extra pool, created exclusively with the future object's xattrs (ACL,
//!   stored headers, user metadata) and the placement as data, indexed as
//!   `_multipart_<key>.<upload id>.meta` (category `MultiMeta`) in the
//!   key's shard;
//! - **a part**: its stripes `<marker>__multipart_<prefix>.<n>` (the
//!   first, created empty when the part begins so that the name is this
//!   write's; if it exists, the part was uploaded before and this one
//!   takes a prefix of its own, `<key>.<random>`, as radosgw does) then
//!   `<marker>__shadow_<prefix>.<n>_<m>`; the first stripe written with
//!   the part's ACL and ETag between the index's prepare and complete
//!   steps for entry `_multipart_<prefix>.<n>` (category `Main`); then the
//!   part's record in the meta object's omap (`part.%08d`). A part
//!   uploaded again replaces the earlier one, whose stripes and entry are
//!   then removed (radosgw 16.2 leaves them behind);
//! - **complete**: the object's head written as a put's, with no data,
//!   the manifest of the chosen parts appended, the meta object's xattrs
//!   and the multipart ETag; its complete step removes the entries of
//!   every part and of the meta object; then the meta object and the
//!   parts left out are removed;
//! - **abort**: the meta object's entry removed with every part's, then
//!   the meta object and the parts' stripes.

use std::collections::BTreeMap;
use std::time::SystemTime;

use bytes::Bytes;
use rsgw_store::{ObjectId, ReadOp, StoreError, WriteOp};

use crate::acl::{Policy, decode_policy};
use crate::cls::{CLASS, ModifyOp, STORE_PG_VER_METHOD, encode_store_pg_ver};
use crate::index::{Category, DirEntry, EntryMeta, decode_dir_entry};
use crate::manifest::{Manifest, Obj};
use crate::tags::{ATTR_TAGS, encode_tags, read_tags};
use crate::upload::{
    NS, PartRecord, decode_part, encode_upload_info, meta_name, parse_meta_name, part_key,
};
use crate::writes::{
    IndexEntry, NewHead, NewObject, ObjectWrite, head_obj, placement_of, random_alphanumeric,
    stored_xattrs,
};
use crate::zone::{
    ATTR_ACL, ATTR_CONTENT_TYPE, ATTR_ETAG, Zone, ZoneBucket, ZoneError, ZoneResult, in_pool, text,
};

/// The xattrs of a meta object not copied onto the completed object's
/// head as they are: the upload's own, and its tags (written again as
/// radosgw's record of tags: radosgw 16.2 keeps an upload's as the header
/// came).
const UPLOAD_ONLY_XATTRS: [&str; 3] = ["user.rgw.pg_ver", "user.rgw.source_zone", ATTR_TAGS];

/// The zone's short id, as radosgw stores it beside each head.
const ATTR_SOURCE_ZONE: &str = "user.rgw.source_zone";

/// How many entries of each index shard one read of an uploads listing
/// takes.
const SHARD_PAGE: u64 = 1000;

/// An upload in progress, as its meta object holds it.
#[derive(Debug, Clone)]
pub struct Upload {
    /// The object's key.
    pub key: String,
    /// The upload's id.
    pub upload_id: String,
    /// The future object's ACL (its owner began the upload).
    pub acl: Policy,
    /// Every xattr of the meta object, by name: the future head's.
    pub xattrs: BTreeMap<String, Bytes>,
    /// The future object's tags.
    pub tags: BTreeMap<String, String>,
    /// When it began (the meta object's mtime).
    pub initiated: SystemTime,
}

/// An upload as a bucket's index lists it.
#[derive(Debug, Clone)]
pub struct ListedUpload {
    /// The object's key.
    pub key: String,
    /// The upload's id.
    pub upload_id: String,
    /// The meta object's entry: its owner, and when the upload began.
    pub entry: DirEntry,
}

/// An upload id is radosgw's `2~` and random characters: one holding a
/// `.` or `/` names no meta object of the key (and is no upload).
fn valid_upload_id(id: &str) -> bool {
    !id.is_empty() && !id.contains(['.', '/']) && !id.contains('\0')
}

impl Zone {
    /// The meta object of `key`'s upload `upload_id` (radosgw's
    /// `RGWMPObj::get_meta`, in namespace `multipart`, extra pool).
    fn meta_id(bucket: &ZoneBucket, key: &str, upload_id: &str) -> ObjectId {
        let obj = Obj {
            bucket: bucket.info.bucket.clone(),
            ns: NS.to_string(),
            name: meta_name(key, upload_id),
            instance: String::new(),
        };
        in_pool(&bucket.data_extra_pool, obj.oid())
    }

    /// The index entry of an upload's meta object.
    fn meta_entry(key: &str, upload_id: &str) -> IndexEntry {
        IndexEntry::in_namespace(key, NS, &meta_name(key, upload_id))
    }

    /// The index entry of a part's first stripe.
    fn part_entry(key: &str, part: &PartRecord) -> IndexEntry {
        IndexEntry::in_namespace(key, NS, &format!("{}.{}", part.manifest.prefix, part.num))
    }

    /// Begins a multipart upload of `key` whose object will have `obj`'s
    /// ACL, headers and metadata (its ETag is unused); returns its id.
    pub async fn create_upload(
        &self,
        bucket: &ZoneBucket,
        key: &str,
        obj: &NewObject,
    ) -> ZoneResult<String> {
        let data = Bytes::from(encode_upload_info(&placement_of(bucket)));
        let content_type = obj.headers.get("content-type").cloned().unwrap_or_default();
        loop {
            let upload_id = format!("2~{}", random_alphanumeric(32));
            let entry = Self::meta_entry(key, &upload_id);
            let tag = self.new_tag();
            self.prepare(bucket, &entry, ModifyOp::Add, &tag).await?;
            let mtime = SystemTime::now();
            let mut op = WriteOp::new()
                .create_exclusive()
                .write_full(data.clone())
                .set_xattr(ATTR_ACL, Bytes::from(obj.acl.encode()))
                .set_xattr(ATTR_SOURCE_ZONE, Bytes::from_static(&[0; 4]));
            for (name, value) in stored_xattrs(obj) {
                op = op.set_xattr(name, value);
            }
            op = op.exec(CLASS, STORE_PG_VER_METHOD, encode_store_pg_ver());
            let id = Self::meta_id(bucket, key, &upload_id);
            let out = match self.write_data(&bucket.data_extra_pool.name, &id, op).await {
                Ok(out) => out,
                Err(e) => {
                    self.cancel(bucket, &entry, &tag).await?;
                    if e == StoreError::Exists {
                        continue;
                    }
                    return Err(e.into());
                }
            };
            let meta = EntryMeta {
                category: Category::MultiMeta,
                size: data.len() as u64,
                mtime,
                owner: obj.acl.owner.to_str(),
                owner_display_name: obj.acl.owner_display_name.clone(),
                content_type,
                ..EntryMeta::empty()
            };
            self.complete_after_head((bucket, &entry), (ModifyOp::Add, &tag), &out, (&meta, &[]))
                .await;
            return Ok(upload_id);
        }
    }

    /// The upload `upload_id` of `key`: `NoSuchUpload` if there is none.
    pub async fn upload(
        &self,
        bucket: &ZoneBucket,
        key: &str,
        upload_id: &str,
    ) -> ZoneResult<Upload> {
        let missing = || ZoneError::NoSuchUpload(upload_id.to_string());
        if !valid_upload_id(upload_id) {
            return Err(missing());
        }
        let id = Self::meta_id(bucket, key, upload_id);
        let r = match self.store().read(&id, ReadOp::new().stat().xattrs()).await {
            Ok(r) => r,
            Err(StoreError::NotFound | StoreError::NoSuchPool(_)) => return Err(missing()),
            Err(e) => return Err(e.into()),
        };
        let xattrs = r.xattrs.unwrap_or_default();
        let acl = xattrs
            .get(ATTR_ACL)
            .ok_or_else(|| ZoneError::Unsupported(format!("upload {upload_id} has no ACL")))?;
        let acl = decode_policy(acl).map_err(|source| ZoneError::Decode {
            what: format!("ACL of upload {upload_id}"),
            source,
        })?;
        let tags = match xattrs.get(ATTR_TAGS) {
            Some(v) => read_tags(v).ok_or_else(|| ZoneError::Decode {
                what: format!("tags of upload {upload_id}"),
                source: crate::DecodeError::Value {
                    what: "user.rgw.x-amz-tagging (neither RGWObjTags nor a header)",
                    value: v.len() as u64,
                    at: 0,
                },
            })?,
            None => BTreeMap::new(),
        };
        Ok(Upload {
            key: key.to_string(),
            upload_id: upload_id.to_string(),
            acl,
            tags,
            xattrs,
            initiated: r.stat.map_or(SystemTime::UNIX_EPOCH, |s| s.mtime),
        })
    }

    /// The parts of `up` uploaded so far, by number.
    pub async fn upload_parts(
        &self,
        bucket: &ZoneBucket,
        up: &Upload,
    ) -> ZoneResult<Vec<PartRecord>> {
        let id = Self::meta_id(bucket, &up.key, &up.upload_id);
        let mut parts = Vec::new();
        let mut after = String::new();
        loop {
            let page = match self
                .store()
                .read(&id, ReadOp::new().omap(&after, "part.", SHARD_PAGE))
                .await
            {
                Ok(r) => r.omap.unwrap_or_default(),
                Err(StoreError::NotFound) => {
                    return Err(ZoneError::NoSuchUpload(up.upload_id.clone()));
                }
                Err(e) => return Err(e.into()),
            };
            for (k, v) in &page.entries {
                parts.push(decode_part(v).map_err(|source| ZoneError::Decode {
                    what: format!("{k} of upload {}", up.upload_id),
                    source,
                })?);
                after.clone_from(k);
            }
            if !page.more {
                return Ok(parts);
            }
        }
    }

    /// Begins part `num` of `up`: claims its first stripe's name (under
    /// the upload's prefix, or, if a part was uploaded under it before,
    /// a random one of its own).
    pub async fn begin_part(
        &self,
        bucket: &ZoneBucket,
        up: &Upload,
        num: u32,
    ) -> ZoneResult<ObjectWrite> {
        let mut prefix = format!("{}.{}", up.key, up.upload_id);
        loop {
            let placeholder = in_pool(&bucket.data_pool, String::new());
            let mut w = ObjectWrite {
                bucket: bucket.clone(),
                key: up.key.clone(),
                prefix: prefix.clone(),
                tails: Vec::new(),
                part: Some((num, placeholder)),
            };
            let first = w.manifest(1).seek(0).map_err(|source| ZoneError::Decode {
                what: "a new part's manifest".into(),
                source,
            })?;
            let id = in_pool(&bucket.data_pool, first.oid).with_locator(first.locator);
            w.part = Some((num, id.clone()));
            match self
                .write_data(
                    &bucket.data_pool.name,
                    &id,
                    WriteOp::new().create_exclusive(),
                )
                .await
            {
                Ok(_) => return Ok(w),
                Err(StoreError::Exists) => {
                    prefix = format!("{}.{}", up.key, random_alphanumeric(32));
                }
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Ends a part: its first stripe (`head`, up to 4 MiB) written
    /// with `acl` and `etag` between the index's prepare and complete
    /// steps, then its record stored in the upload. A part uploaded
    /// before under the same number is then removed. If the upload was
    /// aborted meanwhile, the part is removed and `NoSuchUpload` returned.
    pub async fn finish_part(
        &self,
        w: ObjectWrite,
        (head, size): (Bytes, u64),
        etag: &str,
        up: &Upload,
    ) -> ZoneResult<PartRecord> {
        let Some((num, first)) = w.part.clone() else {
            return Err(ZoneError::Unsupported(
                "a whole object's write as a part".into(),
            ));
        };
        let bucket = &w.bucket;
        let record = PartRecord {
            num,
            size,
            etag: etag.to_string(),
            modified: SystemTime::now(),
            manifest: w.manifest(size),
            compression: "none".into(),
            accounted_size: size,
        };
        let meta_id = Self::meta_id(bucket, &up.key, &up.upload_id);
        let key = part_key(num);
        let before = match self
            .store()
            .read(&meta_id, ReadOp::new().omap("", &key, 1))
            .await
        {
            Ok(r) => r.omap.unwrap_or_default().entries,
            Err(StoreError::NotFound) => {
                self.abort_put(w).await;
                return Err(ZoneError::NoSuchUpload(up.upload_id.clone()));
            }
            Err(e) => {
                self.abort_put(w).await;
                return Err(e.into());
            }
        };
        let entry = Self::part_entry(&up.key, &record);
        let tag = self.new_tag();
        if let Err(e) = self.prepare(bucket, &entry, ModifyOp::Add, &tag).await {
            self.abort_put(w).await;
            return Err(e);
        }
        let op = WriteOp::new()
            .assert_exists()
            .write_full(head)
            .set_xattr(ATTR_ACL, Bytes::from(up.acl.encode()))
            .set_xattr(ATTR_ETAG, Bytes::from(etag.to_string()))
            .set_xattr(ATTR_SOURCE_ZONE, Bytes::from_static(&[0; 4]))
            .exec(CLASS, STORE_PG_VER_METHOD, encode_store_pg_ver());
        let out = match self.store().write(&first, op).await {
            Ok(out) => out,
            Err(e) => {
                self.cancel(bucket, &entry, &tag).await?;
                self.abort_put(w).await;
                return Err(e.into());
            }
        };
        let meta = EntryMeta {
            category: Category::Main,
            size,
            mtime: record.modified,
            etag: etag.to_string(),
            owner: up.acl.owner.to_str(),
            owner_display_name: up.acl.owner_display_name.clone(),
            accounted_size: size,
            ..EntryMeta::empty()
        };
        self.complete_after_head((bucket, &entry), (ModifyOp::Add, &tag), &out, (&meta, &[]))
            .await;
        let stored = self
            .store()
            .write(
                &meta_id,
                WriteOp::new()
                    .assert_exists()
                    .omap_set([(key.clone(), Bytes::from(record.encode()))]),
            )
            .await;
        if let Err(e) = stored {
            self.drop_part(bucket, &up.key, &record).await;
            return Err(match e {
                StoreError::NotFound => ZoneError::NoSuchUpload(up.upload_id.clone()),
                e => e.into(),
            });
        }
        for (k, v) in before {
            if k != key {
                continue;
            }
            if let Ok(old) = decode_part(&v)
                && old.manifest.prefix != record.manifest.prefix
            {
                self.drop_part(bucket, &up.key, &old).await;
            }
        }
        Ok(record)
    }

    /// Removes a part no upload names: its index entry, then its stripes.
    /// A failure is logged and leaves the part behind.
    async fn drop_part(&self, bucket: &ZoneBucket, key: &str, part: &PartRecord) {
        let entry = Self::part_entry(key, part);
        if let Err(e) = self.remove_entries(bucket, &entry, &[]).await {
            tracing::warn!(bucket = %bucket.info.bucket.name, entry = %entry.name, error = %e,
                "a replaced part's index entry was not removed");
        }
        self.remove_stripes(bucket, &part.manifest).await;
    }

    /// Removes every RADOS object `manifest` names.
    async fn remove_stripes(&self, bucket: &ZoneBucket, manifest: &Manifest) {
        for piece in manifest.stripes() {
            match piece {
                Ok(p) => {
                    let id = in_pool(&bucket.data_pool, p.oid).with_locator(p.locator);
                    self.drop_tail(&id, WriteOp::new().remove()).await;
                }
                Err(e) => {
                    tracing::warn!(bucket = %bucket.info.bucket.name, error = %e,
                        "a part's manifest lays out no stripes to remove");
                    return;
                }
            }
        }
    }

    /// Removes `entry` from its shard (a prepared removal completed with
    /// no version), with `also` in the same step.
    async fn remove_entries(
        &self,
        bucket: &ZoneBucket,
        entry: &IndexEntry,
        also: &[String],
    ) -> ZoneResult<()> {
        let tag = self.new_tag();
        self.prepare(bucket, entry, ModifyOp::Del, &tag).await?;
        let meta = EntryMeta::empty();
        self.complete(
            bucket,
            entry,
            &crate::cls::Complete {
                op: ModifyOp::Del,
                key: &entry.name,
                locator: &entry.locator,
                tag: &tag,
                pool: -1,
                epoch: 0,
                meta: &meta,
                remove: also,
            },
        )
        .await
    }

    /// Completes `up` into its object: `chosen` parts in order, ETag
    /// `etag`; `unused`, the parts left out, are removed afterwards.
    pub async fn complete_upload(
        &self,
        bucket: &ZoneBucket,
        up: &Upload,
        chosen: Vec<PartRecord>,
        unused: &[PartRecord],
        etag: &str,
    ) -> ZoneResult<()> {
        let mut remove: Vec<String> = chosen
            .iter()
            .chain(unused)
            .map(|p| Self::part_entry(&up.key, p).name)
            .collect();
        remove.push(Self::meta_entry(&up.key, &up.upload_id).name);
        let mut manifest = Manifest::default();
        let mut size = 0;
        for part in chosen {
            size += part.size;
            let num = part.num;
            manifest
                .append(part.manifest)
                .map_err(|source| ZoneError::Decode {
                    what: format!("manifest of part {num} of upload {}", up.upload_id),
                    source,
                })?;
        }
        manifest.head = head_obj(bucket, &up.key);
        let mut xattrs: Vec<(String, Bytes)> = up
            .xattrs
            .iter()
            .filter(|(k, _)| !UPLOAD_ONLY_XATTRS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        xattrs.push((ATTR_ETAG.to_string(), Bytes::from(etag.to_string())));
        if !up.tags.is_empty() {
            xattrs.push((ATTR_TAGS.to_string(), Bytes::from(encode_tags(&up.tags))));
        }
        let content_type = up
            .xattrs
            .get(ATTR_CONTENT_TYPE)
            .map(|v| text(v))
            .unwrap_or_default();
        let new = NewHead {
            data: Bytes::new(),
            manifest: manifest.encode(),
            xattrs,
            entry: EntryMeta {
                category: Category::Main,
                size,
                etag: etag.to_string(),
                owner: up.acl.owner.to_str(),
                owner_display_name: up.acl.owner_display_name.clone(),
                content_type,
                accounted_size: size,
                ..EntryMeta::empty()
            },
            remove,
        };
        self.replace_head(bucket, &up.key, &new, None).await?;
        let meta_id = Self::meta_id(bucket, &up.key, &up.upload_id);
        self.drop_tail(&meta_id, WriteOp::new().remove()).await;
        for part in unused {
            self.remove_stripes(bucket, &part.manifest).await;
        }
        Ok(())
    }

    /// Aborts `up`: its entries removed, then its meta object and every
    /// part's stripes.
    pub async fn abort_upload(&self, bucket: &ZoneBucket, up: &Upload) -> ZoneResult<()> {
        let parts = self.upload_parts(bucket, up).await?;
        let entries: Vec<String> = parts
            .iter()
            .map(|p| Self::part_entry(&up.key, p).name)
            .collect();
        let meta_id = Self::meta_id(bucket, &up.key, &up.upload_id);
        match self.store().write(&meta_id, WriteOp::new().remove()).await {
            Ok(_) => {}
            Err(StoreError::NotFound) => {
                return Err(ZoneError::NoSuchUpload(up.upload_id.clone()));
            }
            Err(e) => return Err(e.into()),
        }
        self.remove_entries(bucket, &Self::meta_entry(&up.key, &up.upload_id), &entries)
            .await?;
        for part in &parts {
            self.remove_stripes(bucket, &part.manifest).await;
        }
        Ok(())
    }

    /// Up to `max` uploads in progress in `bucket` whose keys begin with
    /// `prefix` and whose meta entries sort after index key `after`
    /// (empty: from the first), merged from every shard in index order.
    pub async fn list_uploads(
        &self,
        bucket: &ZoneBucket,
        prefix: &str,
        after: &str,
        max: usize,
    ) -> ZoneResult<(Vec<ListedUpload>, bool)> {
        let mut out = Vec::new();
        let mut more = false;
        let name = &bucket.info.bucket.name;
        let namespace = format!("_{NS}_");
        let index_prefix = format!("{namespace}{prefix}");
        self.walk_index(bucket, &index_prefix, after, |index_key, value| {
            let Some((key, upload_id)) =
                index_key.strip_prefix(&namespace).and_then(parse_meta_name)
            else {
                return Ok(true);
            };
            let entry = decode_dir_entry(value).map_err(|source| ZoneError::Decode {
                what: format!("index entry {index_key:?} of {name}"),
                source,
            })?;
            if !entry.exists || entry.meta.category != Category::MultiMeta {
                return Ok(true);
            }
            if out.len() == max {
                more = true;
                return Ok(false);
            }
            out.push(ListedUpload {
                key: key.to_string(),
                upload_id: upload_id.to_string(),
                entry,
            });
            Ok(true)
        })
        .await?;
        Ok((out, more))
    }
}

/// The index key after which a listing of uploads resumes: after
/// `key`'s upload `upload_id`, or after all of `key`'s uploads.
pub fn uploads_after(key: &str, upload_id: Option<&str>) -> String {
    match upload_id {
        Some(u) => format!("_{NS}_{}", meta_name(key, u)),
        // past every `<key>.<id>.meta`: ids are printable ASCII
        None => format!("_{NS}_{key}.\u{7f}"),
    }
}
