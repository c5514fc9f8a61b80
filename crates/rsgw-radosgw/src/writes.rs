//! What rsgw writes into a zone, as radosgw 16.2 writes it: objects put
//! whole, objects removed and objects' ACLs set, in the buckets the zone
//! serves (none with versioning: `Zone::bucket` refuses those).
//!
//! A put writes the object's tail stripes first (RADOS objects
//! `<marker>__shadow_<prefix><n>` of 4 MiB, named by a prefix of its own,
//! so no reader finds them yet), then, as radosgw's atomic put does:
//! - `rgw.bucket_prepare_op` on the key's index shard: a pending change
//!   under a new tag;
//! - one atomic operation on the head: the first 4 MiB and every xattr
//!   radosgw keeps (manifest, ACL, ETag, tags, stored headers, user
//!   metadata), guarded so that a racing writer's head is not overwritten
//!   unseen (the old head's `user.rgw.idtag`, or an exclusive create when
//!   there was none), an overwrite clearing the old head's xattrs through
//!   `rgw.obj_remove`;
//! - `rgw.bucket_complete_op` on the shard with the head's new RADOS
//!   version (which orders changes completing out of order) and the
//!   entry's metadata, which sets the entry and the shard's stats; or, if
//!   the head's write failed, the same call cancelling the change.
//!
//! A removal brackets `rgw.obj_remove` of the head the same way. The
//! tails of an overwritten or removed object are then released at once,
//! each with `refcount.put` (a copy radosgw made shares its source's
//! tails, counted by that class): radosgw hands them to its garbage
//! collector, which releases them so two hours later
//! (`rgw_gc_obj_min_wait`) so that reads begun before the change can
//! finish; a read through radosgw of an object rsgw replaced in the middle
//! of that read can fail instead (decision 0016).

use std::collections::BTreeMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use bytes::Bytes;
use rsgw_store::{CmpOp, ObjectId, ReadOp, StoreError, WriteOp, WriteOutcome};

use crate::acl::Policy;
use crate::cls::{
    CLASS, COMPLETE_METHOD, Complete, GUARD_RESHARDING_METHOD, ModifyOp, OBJ_REMOVE_METHOD,
    PREPARE_METHOD, REFCOUNT_CLASS, REFCOUNT_PUT_METHOD, STORE_PG_VER_METHOD, VERSION_CHECK_METHOD,
    VERSION_CLASS, encode_complete, encode_guard_resharding, encode_obj_remove, encode_prepare,
    encode_refcount_put, encode_store_pg_ver, encode_version_check_eq,
};
use crate::gc::{ChainObj, ENQUEUE_METHOD, GC_CLASS, encode_enqueue, gc_object};
use crate::index::{Category, EntryMeta, shard_object, shard_of};
use crate::manifest::{Manifest, Obj, decode_manifest};
use crate::tags::{ATTR_TAGS, encode_tags};
use crate::zone::{
    ATTR_ACL, ATTR_ETAG, ATTR_HEADERS, ATTR_MANIFEST, ATTR_META_PREFIX, DEFAULT_PLACEMENT, Zone,
    ZoneBucket, ZoneError, ZoneResult, in_pool, index_key,
};

/// The size of a head and of each tail stripe (radosgw's
/// `rgw_max_chunk_size` and `rgw_obj_stripe_size`, both 4 MiB by default).
pub const STRIPE: u64 = 4 << 20;

/// The head's tag: which write made it (`user.rgw.idtag`), what a later
/// writer's guard compares.
const ATTR_ID_TAG: &str = "user.rgw.idtag";
/// The tag its tails were written under.
const ATTR_TAIL_TAG: &str = "user.rgw.tail_tag";
/// The zone that wrote it, by short id: 0 in a zone group of one zone.
const ATTR_SOURCE_ZONE: &str = "user.rgw.source_zone";

/// How many times a put or removal racing another writer of the same key
/// starts again before it fails.
const RACE_TRIES: usize = 3;

/// An object to put: everything radosgw keeps of it besides its bytes.
#[derive(Debug, Clone)]
pub struct NewObject {
    /// Its ETag, unquoted.
    pub etag: String,
    /// The stored headers (`content-type`, `content-encoding`,
    /// `content-disposition`, `content-language`, `cache-control`,
    /// `expires`), by lower-case name; others are not kept.
    pub headers: BTreeMap<String, String>,
    /// `x-amz-meta-*` by name (without the prefix).
    pub meta: BTreeMap<String, String>,
    /// Its tags (none: no `user.rgw.x-amz-tagging`).
    pub tags: BTreeMap<String, String>,
    /// Its ACL; its owner is the object's.
    pub acl: Policy,
}

/// An object being put ([`Zone::begin_put`]), or a part of a multipart
/// upload ([`Zone::begin_part`]): the stripes written so far.
#[derive(Debug)]
pub struct ObjectWrite {
    pub(crate) bucket: ZoneBucket,
    pub(crate) key: String,
    pub(crate) prefix: String,
    pub(crate) tails: Vec<ObjectId>,
    /// The part's number and the RADOS object of its first stripe,
    /// created empty when the part began (the name claimed).
    pub(crate) part: Option<(u32, ObjectId)>,
}

impl ObjectWrite {
    /// The manifest of the object (or part) once `size` bytes are written.
    pub(crate) fn manifest(&self, size: u64) -> Manifest {
        let head = head_obj(&self.bucket, &self.key);
        let placement = placement_of(&self.bucket);
        match &self.part {
            None => Manifest::plain(head, size, STRIPE, &self.prefix, &placement),
            Some((num, _)) => Manifest::part(head, (size, STRIPE), &self.prefix, *num, &placement),
        }
    }
}

/// The bucket's placement rule, radosgw's default when it names none.
pub(crate) fn placement_of(bucket: &ZoneBucket) -> String {
    match bucket.info.placement_rule.to_str() {
        p if p.is_empty() => DEFAULT_PLACEMENT.to_string(),
        p => p,
    }
}

pub(crate) fn head_obj(bucket: &ZoneBucket, key: &str) -> Obj {
    Obj {
        bucket: bucket.info.bucket.clone(),
        ns: String::new(),
        name: key.to_string(),
        instance: String::new(),
    }
}

/// A random `u64`: the standard library's random hasher keys, mixed with
/// a counter and the time.
fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// `n` random letters and digits (radosgw's `gen_rand_alphanumeric`).
pub(crate) fn random_alphanumeric(n: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = String::with_capacity(n);
    let mut bits = random_u64();
    for i in 0..n {
        if i % 10 == 0 {
            bits = random_u64();
        }
        out.push(char::from(ALPHABET[(bits % 62) as usize]));
        bits /= 62;
    }
    out
}

/// A string xattr as radosgw stores most: with a trailing NUL.
pub(crate) fn nul_terminated(s: &str) -> Bytes {
    let mut v = Vec::with_capacity(s.len() + 1);
    v.extend_from_slice(s.as_bytes());
    v.push(0);
    v.into()
}

/// A head to write in place of a key's current one
/// ([`Zone::replace_head`]).
pub(crate) struct NewHead {
    /// The object's first bytes.
    pub(crate) data: Bytes,
    /// Its manifest, encoded.
    pub(crate) manifest: Vec<u8>,
    /// The xattrs it keeps besides its tags, manifest and zone.
    pub(crate) xattrs: Vec<(String, Bytes)>,
    /// Its index entry (the mtime is the write's).
    pub(crate) entry: EntryMeta,
    /// Entries of its shard the change removes.
    pub(crate) remove: Vec<String>,
}

/// A change of a head's xattrs ([`Zone::change_head`]).
#[derive(Clone, Copy)]
enum HeadChange<'a> {
    /// A new ACL.
    Acl(&'a Policy),
    /// New tags; none removes them.
    Tags(&'a BTreeMap<String, String>),
}

/// How replaced tails are handed to radosgw's garbage collector: its
/// `rgw_gc_max_objs` and `rgw_gc_obj_min_wait`, which must be the zone's
/// radosgw's (a chain queued on a `gc.<n>` beyond its count is never
/// collected).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcSettings {
    /// The queue objects' count (`rgw_gc_max_objs`).
    pub max_objs: u32,
    /// Seconds a chain waits before it is released (`rgw_gc_obj_min_wait`).
    pub min_wait_secs: u32,
}

/// A condition a put's head must meet before it is replaced: told the
/// replaced head's ETag (`None`: no object), whether the put may go on.
/// Checked against the head read under the write's own guard, so that a
/// racing change is either seen or fails the guard.
pub type PutCondition<'a> = &'a (dyn Fn(Option<&str>) -> bool + Sync);

/// What a head held before a change: the guard's tag and the tails to
/// release once the change is made, with the tag of their reference.
struct OldHead {
    /// The object's ETag.
    etag: String,
    id_tag: Bytes,
    tail_tag: Bytes,
    tails: Vec<ObjectId>,
    mtime: SystemTime,
}

impl Zone {
    /// A new tag, as radosgw makes them: `<zone id>.<writer>.<random>`.
    pub(crate) fn new_tag(&self) -> String {
        format!(
            "{}.{}.{}",
            self.params().id,
            std::process::id(),
            random_u64()
        )
    }

    /// The index shard object holding `key`'s entry.
    pub(crate) fn shard_of_key(bucket: &ZoneBucket, key: &str) -> ObjectId {
        let info = &bucket.info;
        let shard = shard_of(key, info.index.num_shards);
        in_pool(
            &bucket.index_pool,
            shard_object(&info.bucket.bucket_id, info.index.generation, shard),
        )
    }

    /// The head of `key` as it is before a change, `None` when absent.
    async fn old_head(&self, bucket: &ZoneBucket, key: &str) -> ZoneResult<Option<OldHead>> {
        let id = Self::head_id(bucket, key);
        let r = match self.store().read(&id, ReadOp::new().stat().xattrs()).await {
            Ok(r) => r,
            Err(StoreError::NotFound | StoreError::NoSuchPool(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        let xattrs = r.xattrs.unwrap_or_default();
        let mut tails = Vec::new();
        if let Some(m) = xattrs.get(ATTR_MANIFEST) {
            let manifest = decode_manifest(m).map_err(|source| ZoneError::Decode {
                what: format!("manifest of {key}"),
                source,
            })?;
            let head = manifest.head.oid();
            for piece in manifest.stripes() {
                let piece = piece.map_err(|source| ZoneError::Decode {
                    what: format!("manifest of {key}"),
                    source,
                })?;
                if piece.oid != head {
                    tails.push(in_pool(&bucket.data_pool, piece.oid).with_locator(piece.locator));
                }
            }
        }
        let id_tag = xattrs.get(ATTR_ID_TAG).cloned().unwrap_or_default();
        // radosgw's `complete_atomic_modification`: the tail tag, else the
        // head's tag
        let tail_tag = match xattrs.get(ATTR_TAIL_TAG) {
            Some(t) if !t.is_empty() => t.clone(),
            _ => id_tag.clone(),
        };
        Ok(Some(OldHead {
            etag: xattrs
                .get(ATTR_ETAG)
                .map(|v| crate::zone::text(v))
                .unwrap_or_default(),
            id_tag,
            tail_tag,
            tails,
            mtime: r.stat.map_or(SystemTime::UNIX_EPOCH, |s| s.mtime),
        }))
    }

    /// A change's guard on the head: the old head is still the one read
    /// (its tag), or, with none, the head is created here.
    fn guarded(old: Option<&OldHead>) -> WriteOp {
        match old {
            Some(o) if !o.id_tag.is_empty() => {
                WriteOp::new().cmp_xattr(ATTR_ID_TAG, CmpOp::Eq, o.id_tag.clone())
            }
            Some(_) => WriteOp::new().assert_exists(),
            None => WriteOp::new().create_exclusive(),
        }
    }

    /// `rgw.bucket_prepare_op` on `entry`'s shard.
    pub(crate) async fn prepare(
        &self,
        bucket: &ZoneBucket,
        entry: &IndexEntry,
        op: ModifyOp,
        tag: &str,
    ) -> ZoneResult<()> {
        self.store()
            .write(
                &Self::shard_of_key(bucket, &entry.shard_key),
                WriteOp::new()
                    .exec(CLASS, GUARD_RESHARDING_METHOD, encode_guard_resharding())
                    .exec(
                        CLASS,
                        PREPARE_METHOD,
                        encode_prepare(op, &entry.name, tag, &entry.locator),
                    ),
            )
            .await?;
        Ok(())
    }

    /// `rgw.bucket_complete_op` on `entry`'s shard.
    pub(crate) async fn complete(
        &self,
        bucket: &ZoneBucket,
        entry: &IndexEntry,
        c: &Complete<'_>,
    ) -> ZoneResult<()> {
        self.store()
            .write(
                &Self::shard_of_key(bucket, &entry.shard_key),
                WriteOp::new()
                    .exec(CLASS, GUARD_RESHARDING_METHOD, encode_guard_resharding())
                    .exec(CLASS, COMPLETE_METHOD, encode_complete(c)),
            )
            .await?;
        Ok(())
    }

    /// Cancels the change prepared under `tag` (radosgw's
    /// `cls_obj_complete_cancel`: no pool, no version).
    pub(crate) async fn cancel(
        &self,
        bucket: &ZoneBucket,
        entry: &IndexEntry,
        tag: &str,
    ) -> ZoneResult<()> {
        let meta = EntryMeta::empty();
        self.complete(
            bucket,
            entry,
            &Complete {
                op: ModifyOp::Cancel,
                key: &entry.name,
                locator: &entry.locator,
                tag,
                pool: -1,
                epoch: 0,
                meta: &meta,
                remove: &[],
            },
        )
        .await
    }

    /// A write into the data pool `pool` of the bucket's placement (its
    /// data pool, or its extra pool for upload records), which radosgw
    /// makes with the pool's first object (`rgw_init_ioctx`): a pool not
    /// made yet is made, as radosgw makes it, and the write sent again.
    pub(crate) async fn write_data(
        &self,
        pool: &str,
        id: &ObjectId,
        op: WriteOp,
    ) -> Result<WriteOutcome, StoreError> {
        match self.store().write(id, op.clone()).await {
            Err(StoreError::NoSuchPool(_)) => {
                self.store().create_pool(pool).await?;
                self.store().write(id, op).await
            }
            r => r,
        }
    }

    /// Removes the stripes of a put that failed: no head ever named them.
    pub(crate) async fn remove_tails(&self, tails: &[ObjectId]) {
        for tail in tails {
            self.drop_tail(tail, WriteOp::new().remove()).await;
        }
    }

    /// Releases the tails of a replaced or removed object as radosgw's
    /// garbage collector does (and radosgw itself without one): the
    /// head's reference dropped through `refcount.put`, which removes a
    /// tail with its last reference, so that the tails a copy made by
    /// radosgw shares with its source stay while the other head needs them.
    async fn release_tails(&self, old: &OldHead) {
        if old.tails.is_empty() || self.queue_tails(old).await {
            return;
        }
        for tail in &old.tails {
            let put = encode_refcount_put(&old.tail_tag);
            self.drop_tail(
                tail,
                WriteOp::new().exec(REFCOUNT_CLASS, REFCOUNT_PUT_METHOD, put),
            )
            .await;
        }
    }

    /// Hands the tails of a replaced or removed object to radosgw's garbage
    /// collector as radosgw does (`RGWGC::send_chain`): one entry, the
    /// chain under the old tail tag, in the `gc.<n>` queue the tag hashes
    /// to, guarded by the queue's version (1: a queue, not radosgw's older
    /// omap log). `false` when there is no collector to hand them to (none
    /// configured, the zone names no GC pool, or the queue refused): the
    /// caller releases them at once.
    async fn queue_tails(&self, old: &OldHead) -> bool {
        let Some(gc) = self.gc() else {
            return false;
        };
        let Some(pool) = self.params().pool("gc_pool") else {
            return false;
        };
        let chain: Vec<ChainObj> = old
            .tails
            .iter()
            .map(|t| ChainObj {
                pool: match t.namespace.as_str() {
                    "" => t.pool.clone(),
                    ns => format!("{}:{ns}", t.pool),
                },
                oid: t.name.clone(),
                loc: t.locator.clone(),
            })
            .collect();
        let queue = in_pool(pool, gc_object(&old.tail_tag, gc.max_objs));
        let op = WriteOp::new()
            .exec(
                VERSION_CLASS,
                VERSION_CHECK_METHOD,
                encode_version_check_eq(1),
            )
            .exec(
                GC_CLASS,
                ENQUEUE_METHOD,
                encode_enqueue(gc.min_wait_secs, &old.tail_tag, &chain),
            );
        match self.store().write(&queue, op).await {
            Ok(_) => true,
            Err(e) => {
                tracing::warn!(queue = %queue.name, error = %e,
                    "radosgw's garbage collector did not take a replaced object's tails: released at once");
                false
            }
        }
    }

    /// One tail's removal or release. A tail already gone is fine; another
    /// failure leaves the tail behind (an orphan `radosgw-admin orphans
    /// find` reports), never fails the change.
    pub(crate) async fn drop_tail(&self, tail: &ObjectId, op: WriteOp) {
        if let Err(e) = self.store().write(tail, op).await
            && e != StoreError::NotFound
        {
            tracing::warn!(pool = %tail.pool, tail = %tail.name, error = %e,
                "a tail no head names any more was not removed");
        }
    }

    /// Begins putting `key` into `bucket`.
    pub fn begin_put(&self, bucket: &ZoneBucket, key: &str) -> ObjectWrite {
        ObjectWrite {
            bucket: bucket.clone(),
            key: key.to_string(),
            prefix: format!(".{}_", random_alphanumeric(31)),
            tails: Vec::new(),
            part: None,
        }
    }

    /// Writes the next tail stripe of `w`: bytes `STRIPE * n` on of the
    /// object, `n` from 1 (the head holds the first stripe); each but the
    /// last must be [`STRIPE`] bytes.
    pub async fn put_stripe(&self, w: &mut ObjectWrite, data: Bytes) -> ZoneResult<()> {
        let n = w.tails.len() as u64 + 1;
        let ofs = n * STRIPE;
        let piece = w
            .manifest(ofs + data.len() as u64)
            .seek(ofs)
            .map_err(|source| ZoneError::Decode {
                what: "a new object's manifest".into(),
                source,
            })?;
        let id = in_pool(&w.bucket.data_pool, piece.oid).with_locator(piece.locator);
        w.tails.push(id.clone());
        self.write_data(
            &w.bucket.data_pool.name,
            &id,
            WriteOp::new().create().write_full(data),
        )
        .await?;
        Ok(())
    }

    /// Gives up a put (or a part): removes the stripes written.
    pub async fn abort_put(&self, w: ObjectWrite) {
        self.remove_tails(&w.tails).await;
        if let Some((_, first)) = &w.part {
            self.remove_tails(std::slice::from_ref(first)).await;
        }
    }

    /// Ends a put: writes the head (`head`, the object's first bytes, up
    /// to [`STRIPE`]) of an object of `size` bytes with `obj`'s records,
    /// between the index's prepare and complete steps. The object is then
    /// radosgw's as much as one it wrote. If the head could not be
    /// written, the stripes are removed and nothing is left; once it is,
    /// the put has succeeded, as radosgw's does: a complete step that then
    /// fails is logged and leaves the entry pending, which radosgw's next
    /// listing of the shard settles against the head (`dir_suggest_changes`).
    pub async fn finish_put(
        &self,
        w: ObjectWrite,
        (head, size): (Bytes, u64),
        obj: &NewObject,
        condition: Option<PutCondition<'_>>,
    ) -> ZoneResult<()> {
        let mut xattrs = vec![
            (ATTR_ACL.to_string(), Bytes::from(obj.acl.encode())),
            (ATTR_ETAG.to_string(), Bytes::from(obj.etag.clone())),
        ];
        xattrs.extend(stored_xattrs(obj));
        let new = NewHead {
            data: head,
            manifest: w.manifest(size).encode(),
            xattrs,
            entry: EntryMeta {
                category: Category::Main,
                size,
                etag: obj.etag.clone(),
                owner: obj.acl.owner.to_str(),
                owner_display_name: obj.acl.owner_display_name.clone(),
                content_type: obj.headers.get("content-type").cloned().unwrap_or_default(),
                accounted_size: size,
                ..EntryMeta::empty()
            },
            remove: Vec::new(),
        };
        let r = self.replace_head(&w.bucket, &w.key, &new, condition).await;
        if r.is_err() {
            self.remove_tails(&w.tails).await;
        }
        r
    }

    /// The complete step of `op` once the head changed (`out`, its new
    /// version): its failure is logged, not returned (see
    /// [`Zone::finish_put`]).
    pub(crate) async fn complete_after_head(
        &self,
        (bucket, entry): (&ZoneBucket, &IndexEntry),
        (op, tag): (ModifyOp, &str),
        out: &WriteOutcome,
        (meta, remove): (&EntryMeta, &[String]),
    ) {
        let c = Complete {
            op,
            key: &entry.name,
            locator: &entry.locator,
            tag,
            pool: out.pool.unwrap_or(-1),
            epoch: out.version,
            meta,
            remove,
        };
        if let Err(e) = self.complete(bucket, entry, &c).await {
            tracing::warn!(bucket = %bucket.info.bucket.name, entry = %entry.name, tag, error = %e,
                "the index's complete step failed after the head changed: the entry stays pending until radosgw lists the shard");
        }
    }

    /// Writes `new` as `key`'s head in place of the current one (if any),
    /// between the index's prepare and complete steps, guarded against a
    /// racing writer (tried again up to [`RACE_TRIES`] times), if
    /// `condition` holds for the current one (`PreconditionFailed`
    /// otherwise); then releases the replaced head's tails.
    pub(crate) async fn replace_head(
        &self,
        bucket: &ZoneBucket,
        key: &str,
        new: &NewHead,
        condition: Option<PutCondition<'_>>,
    ) -> ZoneResult<()> {
        let entry = IndexEntry::of_key(bucket, key);
        let mut tries = 0;
        loop {
            tries += 1;
            let old = self.old_head(bucket, key).await?;
            if let Some(holds) = condition
                && !holds(old.as_ref().map(|o| o.etag.as_str()))
            {
                return Err(ZoneError::PreconditionFailed(key.to_string()));
            }
            let tag = self.new_tag();
            self.prepare(bucket, &entry, ModifyOp::Add, &tag).await?;
            let mtime = SystemTime::now();
            let mut op = Self::guarded(old.as_ref());
            if old.is_some() {
                op = op
                    .create()
                    .exec(CLASS, OBJ_REMOVE_METHOD, encode_obj_remove());
            }
            op = op.write_full(new.data.clone());
            for (name, value) in &new.xattrs {
                op = op.set_xattr(name.as_str(), value.clone());
            }
            op = op
                .set_xattr(ATTR_ID_TAG, nul_terminated(&tag))
                .set_xattr(ATTR_TAIL_TAG, nul_terminated(&tag))
                .set_xattr(ATTR_MANIFEST, Bytes::from(new.manifest.clone()))
                .set_xattr(ATTR_SOURCE_ZONE, Bytes::from_static(&[0; 4]))
                .exec(CLASS, STORE_PG_VER_METHOD, encode_store_pg_ver());
            let written = self
                .write_data(&bucket.data_pool.name, &Self::head_id(bucket, key), op)
                .await;
            let out: WriteOutcome = match written {
                Ok(out) => out,
                Err(e) => {
                    self.cancel(bucket, &entry, &tag).await?;
                    let raced = matches!(
                        e,
                        StoreError::GuardFailed(_) | StoreError::Exists | StoreError::NotFound
                    );
                    if raced && tries < RACE_TRIES {
                        continue;
                    }
                    return Err(e.into());
                }
            };
            let meta = EntryMeta {
                mtime,
                ..new.entry.clone()
            };
            self.complete_after_head(
                (bucket, &entry),
                (ModifyOp::Add, &tag),
                &out,
                (&meta, &new.remove),
            )
            .await;
            if let Some(old) = old {
                self.release_tails(&old).await;
            }
            return Ok(());
        }
    }

    /// Sets `key`'s ACL as radosgw's PutObjectAcl does
    /// (`RGWRados::set_attrs`): between the index's prepare and complete
    /// steps, one write of the head, guarded by its tag, sets
    /// `user.rgw.acl` and a new `user.rgw.idtag` (the tail tag stays: the
    /// tails are the same); the entry keeps the object's size, ETag and
    /// content type, with the new owner's name and a new mtime. An object
    /// radosgw compressed or encrypted is refused, as a read of it is.
    pub async fn set_object_acl(
        &self,
        bucket: &ZoneBucket,
        key: &str,
        acl: &Policy,
    ) -> ZoneResult<()> {
        self.change_head(bucket, key, HeadChange::Acl(acl)).await
    }

    /// Sets `key`'s tags (`user.rgw.x-amz-tagging`), or with none removes
    /// them, as radosgw's Put/DeleteObjectTagging do: as
    /// [`Zone::set_object_acl`] sets an ACL. Removing none is no change.
    pub async fn set_object_tags(
        &self,
        bucket: &ZoneBucket,
        key: &str,
        tags: &BTreeMap<String, String>,
    ) -> ZoneResult<()> {
        self.change_head(bucket, key, HeadChange::Tags(tags)).await
    }

    /// One change of a head's xattrs, as radosgw's `set_attrs` makes it.
    async fn change_head(
        &self,
        bucket: &ZoneBucket,
        key: &str,
        change: HeadChange<'_>,
    ) -> ZoneResult<()> {
        let entry = IndexEntry::of_key(bucket, key);
        let mut tries = 0;
        loop {
            tries += 1;
            let head = self.head_meta(bucket, key).await?;
            let Some(old) = self.old_head(bucket, key).await? else {
                return Err(ZoneError::NoSuchObject(key.to_string()));
            };
            let mut op = Self::guarded(Some(&old));
            let owner = match change {
                HeadChange::Acl(acl) => {
                    op = op.set_xattr(ATTR_ACL, Bytes::from(acl.encode()));
                    acl
                }
                HeadChange::Tags(tags) if tags.is_empty() => {
                    if head.tags.is_empty() {
                        return Ok(());
                    }
                    op = op.rm_xattr(ATTR_TAGS);
                    &head.acl
                }
                HeadChange::Tags(tags) => {
                    op = op.set_xattr(ATTR_TAGS, Bytes::from(encode_tags(tags)));
                    &head.acl
                }
            };
            let tag = self.new_tag();
            self.prepare(bucket, &entry, ModifyOp::Add, &tag).await?;
            let mtime = SystemTime::now();
            let op = op.set_xattr(ATTR_ID_TAG, nul_terminated(&tag));
            let out = match self.store().write(&Self::head_id(bucket, key), op).await {
                Ok(out) => out,
                Err(e) => {
                    self.cancel(bucket, &entry, &tag).await?;
                    if matches!(e, StoreError::GuardFailed(_)) && tries < RACE_TRIES {
                        continue;
                    }
                    if e == StoreError::NotFound {
                        return Err(ZoneError::NoSuchObject(key.to_string()));
                    }
                    return Err(e.into());
                }
            };
            let size = head.size();
            let meta = EntryMeta {
                category: Category::Main,
                size,
                mtime,
                etag: head.etag.clone(),
                owner: owner.owner.to_str(),
                owner_display_name: owner.owner_display_name.clone(),
                content_type: head.content_type.clone(),
                accounted_size: size,
                ..EntryMeta::empty()
            };
            self.complete_after_head((bucket, &entry), (ModifyOp::Add, &tag), &out, (&meta, &[]))
                .await;
            return Ok(());
        }
    }

    /// Removes `key` from `bucket` as radosgw does; `false` when there was
    /// no such object.
    pub async fn delete_object(&self, bucket: &ZoneBucket, key: &str) -> ZoneResult<bool> {
        let entry = IndexEntry::of_key(bucket, key);
        let mut tries = 0;
        loop {
            tries += 1;
            let Some(old) = self.old_head(bucket, key).await? else {
                return Ok(false);
            };
            let tag = self.new_tag();
            self.prepare(bucket, &entry, ModifyOp::Del, &tag).await?;
            let op = Self::guarded(Some(&old)).exec(CLASS, OBJ_REMOVE_METHOD, encode_obj_remove());
            let out = match self.store().write(&Self::head_id(bucket, key), op).await {
                Ok(out) => out,
                Err(e) => {
                    self.cancel(bucket, &entry, &tag).await?;
                    if matches!(e, StoreError::GuardFailed(_)) && tries < RACE_TRIES {
                        continue;
                    }
                    if e == StoreError::NotFound {
                        return Ok(false);
                    }
                    return Err(e.into());
                }
            };
            let meta = EntryMeta {
                mtime: old.mtime,
                ..EntryMeta::empty()
            };
            self.complete_after_head((bucket, &entry), (ModifyOp::Del, &tag), &out, (&meta, &[]))
                .await;
            self.release_tails(&old).await;
            return Ok(true);
        }
    }
}

/// The xattrs radosgw keeps of an object's stored headers and user
/// metadata, each with its trailing NUL, and of its tags.
pub(crate) fn stored_xattrs(obj: &NewObject) -> Vec<(String, Bytes)> {
    let mut out = Vec::new();
    for (attr, header) in ATTR_HEADERS {
        if let Some(v) = obj.headers.get(header) {
            out.push((attr.to_string(), nul_terminated(v)));
        }
    }
    for (name, v) in &obj.meta {
        out.push((format!("{ATTR_META_PREFIX}{name}"), nul_terminated(v)));
    }
    if !obj.tags.is_empty() {
        out.push((ATTR_TAGS.to_string(), Bytes::from(encode_tags(&obj.tags))));
    }
    out
}

/// An index entry a change names: the key whose shard holds it (an
/// upload's records are indexed by their object's key), its name in the
/// index, and its head's locator.
#[derive(Debug, Clone)]
pub(crate) struct IndexEntry {
    pub(crate) shard_key: String,
    pub(crate) name: String,
    pub(crate) locator: String,
}

impl IndexEntry {
    /// The entry of object `key`.
    pub(crate) fn of_key(bucket: &ZoneBucket, key: &str) -> Self {
        IndexEntry {
            shard_key: key.to_string(),
            name: index_key(key),
            locator: head_obj(bucket, key).locator(),
        }
    }

    /// The entry of `name` in namespace `ns`, in `key`'s shard
    /// (`_<ns>_<name>`, no locator).
    pub(crate) fn in_namespace(key: &str, ns: &str, name: &str) -> Self {
        IndexEntry {
            shard_key: key.to_string(),
            name: format!("_{ns}_{name}"),
            locator: String::new(),
        }
    }
}
