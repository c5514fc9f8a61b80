//! The lifecycle worker: a pass applies every bucket's enabled lifecycle
//! rules (`rules::lifecycle`), expiring objects and aborting
//! incomplete multipart uploads.
//!
//! - **One instance at a time** across the cluster: a pass holds a lease,
//!   the xattr `rsgw.lease` (`<holder> <expiry>`) of `meta/lc/state`,
//!   taken and renewed by writes guarded on the value read (the same on
//!   both backends, between processes too). A pass that finds the lease
//!   held and unexpired does nothing; one whose renewal fails (another
//!   took the lease after it expired) stops. Why a lease and not a RADOS
//!   lock: docs/decisions/0009-lifecycle-worker.md.
//! - **Which buckets**: those PutBucketLifecycleConfiguration listed in
//!   `meta/lc/buckets` (omap keys, before it saves the rules), as radosgw
//!   lists them in its lc shards: a pass reads no other bucket. A bucket
//!   stays listed when its rules are deleted (skipped) and is taken off
//!   once deleted.
//! - **Resumable**: each renewal saves how far the pass got (`rsgw.marker`:
//!   bucket and key, buckets in name order, keys in index order); a pass
//!   that finds a marker left by one that died starts there.
//! - **Rate-limited**: at most `lc_max_ops_per_s` deletions and aborts a
//!   second.
//! - An object is expired by a delete guarded on the version judged
//!   expired (one written meanwhile is judged again); in a versioned
//!   bucket that makes a delete marker. The worker acts as the bucket's
//!   owner: a bucket policy denying the owner DeleteObject stops it there
//!   (counted as errors).
//! - **Versions**: in a versioned bucket a second walk, of the versions,
//!   deletes noncurrent versions (delete markers too) due under a rule's
//!   NoncurrentVersionExpiration, counting a version noncurrent from when
//!   the next newer one was made (as radosgw does) and keeping the newest
//!   NewerNoncurrentVersions of a key, and delete markers left as their
//!   key's only version (ExpiredObjectDeleteMarker). A version is deleted
//!   by id, as DeleteObject with a version id deletes it: never one a
//!   retention or legal hold keeps (counted, not an error), nor one that
//!   became current meanwhile (the head is read first; one promoted in
//!   the moment between that read and the delete is deleted as it was
//!   judged).
//!
//! The last pass's report is the object's data (`rsgw admin lc status`).

use std::time::{Duration, Instant};

use bytes::Bytes;
use rsgw_store::{CmpOp, ReadOp, StoreError, WriteOp};

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::layout::{self, LEASE_XATTR, MARKER_XATTR};
use crate::model::lifecycle::{
    LcPass, LcReport, LcStatus, LifecycleRule, lease_value, marker_value, parse_lease, parse_marker,
};
use crate::model::limits::MAX_KEYS;
use crate::model::object::ObjectMeta;
use crate::model::params::ListParams;
use crate::ops::gateway::Gateway;
use crate::rules::authz::Requester;
use crate::rules::lifecycle::age_reached;

mod versions;
use versions::VersionWalk;

/// Attempts at taking the lease when others take or release it meanwhile.
const LEASE_ATTEMPTS: usize = 8;

/// A marker key after every key: the bucket is done.
const BUCKET_DONE: &str = "\u{10FFFF}";

/// A lease taken: the value written, for the guard of the next write.
struct Lease {
    value: Bytes,
    renewed: Instant,
}

/// Spaces operations `1 / rate` apart (no limit for rate 0).
struct Pacer {
    every: Option<Duration>,
    next: Instant,
}

impl Pacer {
    fn new(rate: u32) -> Self {
        Pacer {
            every: (rate > 0).then(|| Duration::from_secs_f64(1.0 / f64::from(rate))),
            next: Instant::now(),
        }
    }

    async fn wait(&mut self) {
        let Some(every) = self.every else { return };
        let now = Instant::now();
        if self.next > now {
            tokio::time::sleep(self.next - now).await;
        }
        self.next = self.next.max(now) + every;
    }
}

impl Gateway {
    /// The lease, the marker and the last report, as stored (`None`s when
    /// no pass ever ran).
    async fn lc_state(&self) -> GatewayResult<Option<(Option<Bytes>, Option<Bytes>, Bytes)>> {
        match self
            .read_whole(&layout::lc_state(), ReadOp::new().xattrs())
            .await
        {
            Ok(r) => {
                let mut x = r.xattrs.unwrap_or_default();
                let lease = x.remove(LEASE_XATTR).filter(|v| !v.is_empty());
                let marker = x.remove(MARKER_XATTR).filter(|v| !v.is_empty());
                Ok(Some((lease, marker, r.data.unwrap_or_default())))
            }
            Err(GatewayError::Store(StoreError::NotFound)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The worker's state (`rsgw admin lc status`).
    pub async fn lifecycle_status(&self) -> GatewayResult<LcStatus> {
        let Some((lease, marker, data)) = self.lc_state().await? else {
            return Ok(LcStatus::default());
        };
        Ok(LcStatus {
            lease: lease.as_deref().and_then(parse_lease),
            marker: marker
                .as_deref()
                .and_then(parse_marker)
                .map(|(b, k)| format!("{b}/{k}")),
            last: (!data.is_empty())
                .then(|| serde_json::from_slice(&data))
                .transpose()?,
        })
    }

    /// Takes the lease for `holder`, with the marker a dead pass left; or
    /// the holder and expiry of the lease that another holds.
    async fn take_lease(
        &self,
        holder: &str,
    ) -> GatewayResult<Result<(Lease, Option<(String, String)>), (String, f64)>> {
        for _ in 0..LEASE_ATTEMPTS {
            let state = self.lc_state().await?;
            let (raw, marker) = match &state {
                Some((lease, marker, _)) => (lease.clone(), marker.clone()),
                None => (None, None),
            };
            let now = now_secs();
            if let Some((h, expires)) = raw.as_deref().and_then(parse_lease)
                && expires > now
                && h != holder
            {
                return Ok(Err((h, expires)));
            }
            let value = self.new_lease(holder);
            let op = match &state {
                None => WriteOp::new().create_exclusive(),
                Some(_) => {
                    WriteOp::new().cmp_xattr(LEASE_XATTR, CmpOp::Eq, raw.unwrap_or_default())
                }
            }
            .set_xattr(LEASE_XATTR, value.clone());
            match self.store.write(&layout::lc_state(), op).await {
                Ok(_) => {
                    let lease = Lease {
                        value,
                        renewed: Instant::now(),
                    };
                    return Ok(Ok((lease, marker.as_deref().and_then(parse_marker))));
                }
                // another took it (or released it) meanwhile: look again
                Err(StoreError::GuardFailed(_) | StoreError::Exists) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Err(GatewayError::Store(StoreError::Timeout))
    }

    /// The lease's value for `holder`, from now on.
    fn new_lease(&self, holder: &str) -> Bytes {
        lease_value(holder, now_secs() + self.opts.lc_lease.as_secs_f64())
    }

    /// Renews the lease with the pass's progress, once a third of it has
    /// run out; `false` when it was lost (another holder took it).
    async fn renew(
        &self,
        lease: &mut Lease,
        holder: &str,
        marker: (&str, &str),
        force: bool,
    ) -> GatewayResult<bool> {
        if !force && lease.renewed.elapsed() < self.opts.lc_lease / 3 {
            return Ok(true);
        }
        let value = self.new_lease(holder);
        let op = WriteOp::new()
            .cmp_xattr(LEASE_XATTR, CmpOp::Eq, lease.value.clone())
            .set_xattr(LEASE_XATTR, value.clone())
            .set_xattr(MARKER_XATTR, marker_value(marker.0, marker.1));
        match self.store.write(&layout::lc_state(), op).await {
            Ok(_) => {
                lease.value = value;
                lease.renewed = Instant::now();
                Ok(true)
            }
            Err(StoreError::GuardFailed(_) | StoreError::NotFound) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Runs one lifecycle pass as `holder` (an instance's or admin's name),
    /// unless another holds the lease.
    pub async fn lifecycle_pass(&self, holder: &str) -> GatewayResult<LcPass> {
        let (mut lease, resume) = match self.take_lease(holder).await? {
            Ok(taken) => taken,
            Err((holder, expires)) => return Ok(LcPass::Held { holder, expires }),
        };
        let mut report = LcReport {
            holder: holder.into(),
            started: now_secs(),
            resumed_from: resume.as_ref().map(|(b, k)| format!("{b}/{k}")),
            ..LcReport::default()
        };
        let mut pacer = Pacer::new(self.opts.lc_max_ops_per_s);
        for name in self.lifecycle_buckets().await? {
            let start_after = match &resume {
                Some((b, _)) if name < *b => continue,
                Some((b, k)) if name == *b => k.clone(),
                _ => String::new(),
            };
            let info = match self.bucket_info_fresh(&name).await {
                Ok(info) => info,
                Err(GatewayError::NoSuchBucket) => {
                    self.unlist_lifecycle(&name).await?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            // rules deleted since (or a listing whose rules never got saved)
            let Some(rules) = &info.lifecycle else {
                continue;
            };
            let rules: Vec<LifecycleRule> = rules.iter().filter(|r| r.enabled).cloned().collect();
            if rules.is_empty() {
                continue;
            }
            report.buckets += 1;
            let rq = Requester::user(&info.owner);
            let versioned = info.versioning.is_some()
                && rules
                    .iter()
                    .any(|r| r.noncurrent_days.is_some() || r.expired_object_delete_marker);
            let expired = if start_after == BUCKET_DONE {
                Ok(true)
            } else {
                match self
                    .expire_objects(
                        &rq,
                        &name,
                        &rules,
                        start_after.clone(),
                        &mut lease,
                        holder,
                        &mut pacer,
                        &mut report,
                    )
                    .await
                {
                    Ok(true) if versioned => {
                        let mut walk = VersionWalk {
                            rq: &rq,
                            info: &info,
                            rules: &rules,
                            key: None,
                        };
                        walk.run(
                            self,
                            start_after,
                            (&mut lease, holder),
                            &mut pacer,
                            &mut report,
                        )
                        .await
                    }
                    r => r,
                }
            };
            // a bucket that fails (its listing refused, a store error) is
            // counted and left for the next pass; the others go on
            let done = match expired {
                Ok(false) => return self.lost_lease(report),
                Ok(true) => {
                    self.abort_uploads(&rq, &name, &rules, &mut pacer, &mut report)
                        .await
                }
                Err(e) => Err(e),
            };
            if let Err(error) = done {
                report.errors += 1;
                tracing::warn!(bucket = %name, %error, "lifecycle pass: bucket skipped");
            }
            if !self
                .renew(&mut lease, holder, (&name, BUCKET_DONE), true)
                .await?
            {
                return self.lost_lease(report);
            }
        }
        report.complete = true;
        report.finished = now_secs();
        let data = Bytes::from(serde_json::to_vec_pretty(&report)?);
        let op = WriteOp::new()
            .cmp_xattr(LEASE_XATTR, CmpOp::Eq, lease.value)
            .rm_xattr(LEASE_XATTR)
            .rm_xattr(MARKER_XATTR)
            .write_full(data);
        match self.store.write(&layout::lc_state(), op).await {
            Ok(_) => Ok(LcPass::Ran(report)),
            Err(StoreError::GuardFailed(_) | StoreError::NotFound) => self.lost_lease(report),
            Err(e) => Err(e.into()),
        }
    }

    fn lost_lease(&self, mut report: LcReport) -> GatewayResult<LcPass> {
        tracing::warn!(
            holder = %report.holder,
            "lifecycle pass stopped: its lease was taken over"
        );
        report.finished = now_secs();
        Ok(LcPass::Ran(report))
    }

    /// Expires the objects of a bucket after `start_after` that a rule
    /// expires; `false` when the lease was lost on the way.
    #[allow(clippy::too_many_arguments)]
    async fn expire_objects(
        &self,
        rq: &Requester,
        bucket: &str,
        rules: &[LifecycleRule],
        mut start_after: String,
        lease: &mut Lease,
        holder: &str,
        pacer: &mut Pacer,
        report: &mut LcReport,
    ) -> GatewayResult<bool> {
        let day_s = self.opts.lc_day_s;
        loop {
            let params = ListParams {
                start_after: start_after.clone(),
                max_keys: MAX_KEYS,
                ..ListParams::default()
            };
            let page = self.list_objects(rq, bucket, &params).await?;
            for e in &page.entries {
                report.examined += 1;
                start_after.clone_from(&e.key);
                let now = now_secs();
                // the index entry first: tags need the object's head
                let due = rules.iter().any(|r| {
                    (r.expiration_days.is_some() || r.expiration_date.is_some())
                        && e.key.starts_with(&r.prefix)
                        && r.expired(e.mtime, now, day_s)
                });
                if due {
                    pacer.wait().await;
                    let expired = |m: &ObjectMeta| {
                        rules.iter().any(|r| {
                            r.matches(&e.key, m.size, &m.tags) && r.expired(m.mtime, now, day_s)
                        })
                    };
                    match self.delete_object_if(rq, bucket, &e.key, expired).await {
                        Ok(true) => report.expired += 1,
                        Ok(false) => {}
                        Err(err) => {
                            report.errors += 1;
                            tracing::warn!(bucket, key = %e.key, error = %err, "lifecycle expiration failed");
                        }
                    }
                }
                if !self
                    .renew(lease, holder, (bucket, &start_after), false)
                    .await?
                {
                    return Ok(false);
                }
            }
            if !page.is_truncated {
                return Ok(true);
            }
        }
    }

    /// Aborts a bucket's multipart uploads that a rule says are left
    /// incomplete too long.
    async fn abort_uploads(
        &self,
        rq: &Requester,
        bucket: &str,
        rules: &[LifecycleRule],
        pacer: &mut Pacer,
        report: &mut LcReport,
    ) -> GatewayResult<()> {
        if rules.iter().all(|r| r.abort_incomplete_days.is_none()) {
            return Ok(());
        }
        let day_s = self.opts.lc_day_s;
        let (mut key, mut upload) = (String::new(), String::new());
        loop {
            let list = self
                .list_multipart_uploads(rq, bucket, ("", ""), (&key, &upload), MAX_KEYS)
                .await?;
            let now = now_secs();
            for up in &list.uploads {
                key.clone_from(&up.key);
                upload.clone_from(&up.upload_id);
                let abandoned = rules.iter().any(|r| {
                    up.key.starts_with(&r.prefix)
                        && r.abort_incomplete_days
                            .is_some_and(|d| age_reached(up.initiated, now, d, day_s))
                });
                if !abandoned {
                    continue;
                }
                pacer.wait().await;
                match self
                    .abort_multipart(rq, bucket, &up.key, &up.upload_id)
                    .await
                {
                    Ok(()) => report.uploads_aborted += 1,
                    Err(GatewayError::NoSuchUpload) => {}
                    Err(err) => {
                        report.errors += 1;
                        tracing::warn!(bucket, key = %up.key, error = %err, "lifecycle abort failed");
                    }
                }
            }
            if !list.is_truncated {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lifecycle::FilterForm;
    use crate::model::options::GatewayOptions;
    use crate::model::params::{PutParams, VersionListParams};
    use crate::testutil::{Fixture, body, listed, owner, small_opts};

    fn rule(id: &str, prefix: &str, tags: &[(&str, &str)]) -> LifecycleRule {
        LifecycleRule {
            id: id.into(),
            enabled: true,
            form: FilterForm::And,
            prefix: prefix.into(),
            tags: tags
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            expiration_days: Some(1),
            ..LifecycleRule::default()
        }
    }

    async fn put(gw: &Gateway, bucket: &str, key: &str, tags: &[(&str, &str)]) {
        let params = PutParams {
            tags: tags
                .iter()
                .map(|(k, v)| ((*k).into(), (*v).into()))
                .collect(),
            ..PutParams::default()
        };
        gw.put_object(&owner(), bucket, key, params, body(b"data", 2))
            .await
            .expect("put");
    }

    async fn keys(gw: &Gateway, bucket: &str) -> Vec<String> {
        listed(gw, bucket)
            .await
            .into_iter()
            .map(|e| e.key)
            .collect()
    }

    fn ran(p: LcPass) -> LcReport {
        match p {
            LcPass::Ran(r) => r,
            LcPass::Held { holder, .. } => panic!("held by {holder}"),
        }
    }

    /// With one-second days: nothing expires before its day, then exactly
    /// the objects a rule names (prefix, every tag), and the uploads left
    /// incomplete; disabled rules and other buckets are left alone.
    #[tokio::test]
    async fn a_pass_expires_what_the_rules_name_once_due() {
        let opts = GatewayOptions {
            lc_day_s: 1,
            ..small_opts()
        };
        let (f, _) = Fixture::with_bucket(opts, "lcb").await;
        let gw = &f.gw;
        gw.create_bucket(crate::testutil::OWNER, "other", crate::CannedAcl::Private)
            .await
            .expect("bucket");
        for k in ["logs/a", "logs/b", "keep/c", "logx"] {
            put(gw, "lcb", k, &[]).await;
        }
        put(gw, "lcb", "t/both", &[("x", "1"), ("y", "2")]).await;
        put(gw, "lcb", "t/one", &[("x", "1")]).await;
        put(gw, "lcb", "off/d", &[]).await;
        put(gw, "other", "logs/a", &[]).await;
        let upload = gw
            .create_multipart(&owner(), "lcb", "big", PutParams::default())
            .await
            .expect("upload")
            .upload_id;
        let mut disabled = rule("off", "off/", &[]);
        disabled.enabled = false;
        let mut abort = rule("abort", "", &[]);
        abort.expiration_days = None;
        abort.abort_incomplete_days = Some(2);
        gw.put_bucket_lifecycle(
            &owner(),
            "lcb",
            vec![
                rule("logs", "logs/", &[]),
                rule("tags", "t/", &[("x", "1"), ("y", "2")]),
                disabled,
                abort,
            ],
        )
        .await
        .expect("rules");
        let early = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!(
            (early.expired, early.uploads_aborted, early.buckets),
            (0, 0, 1)
        );
        assert!(early.complete);
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let r = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!((r.expired, r.uploads_aborted, r.errors), (3, 0, 0), "{r:?}");
        assert_eq!(keys(gw, "lcb").await, ["keep/c", "logx", "off/d", "t/one"]);
        assert_eq!(keys(gw, "other").await, ["logs/a"]);
        // the upload's two days
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let r = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!(r.uploads_aborted, 1, "{r:?}");
        assert!(matches!(
            gw.abort_multipart(&owner(), "lcb", "big", &upload).await,
            Err(GatewayError::NoSuchUpload)
        ));
        let status = gw.lifecycle_status().await.expect("status");
        assert_eq!(status.lease, None);
        assert_eq!(status.last.map(|l| l.uploads_aborted), Some(1));
        // the counters followed the deletions
        assert_eq!(gw.bucket_usage("lcb").await.expect("usage").objects, 4);
    }

    /// Versions of `key` in `bucket`, newest first: (version id, marker).
    async fn versions_of(gw: &Gateway, bucket: &str, key: &str) -> Vec<(String, bool)> {
        let p = VersionListParams {
            prefix: key.into(),
            max_keys: 1000,
            ..Default::default()
        };
        gw.list_object_versions(&owner(), bucket, &p)
            .await
            .expect("versions")
            .versions
            .into_iter()
            .filter(|v| v.key == key)
            .map(|v| (v.version_id.unwrap_or_default(), v.delete_marker))
            .collect()
    }

    /// In a versioned bucket, with one-second days: a noncurrent version
    /// goes a day after the next one was made, the newest
    /// NewerNoncurrentVersions of a key kept; a delete marker left as its
    /// key's only version goes (a pass later); a version a retention
    /// keeps stays, counted.
    #[tokio::test]
    async fn a_pass_expires_noncurrent_versions_and_lone_markers() {
        let opts = GatewayOptions {
            lc_day_s: 1,
            ..small_opts()
        };
        let (f, _) = Fixture::with_bucket(opts, "lcb").await;
        let gw = &f.gw;
        gw.put_bucket_versioning(&owner(), "lcb", Some(crate::Versioning::Enabled))
            .await
            .expect("versioning");
        for _ in 0..3 {
            put(gw, "lcb", "k/a", &[]).await;
        }
        put(gw, "lcb", "gone/b", &[]).await;
        gw.delete_object(&owner(), "lcb", "gone/b")
            .await
            .expect("marker");
        let keep_one = LifecycleRule {
            expiration_days: None,
            noncurrent_days: Some(1),
            newer_noncurrent: Some(1),
            ..rule("k", "k/", &[])
        };
        let markers = LifecycleRule {
            expiration_days: None,
            noncurrent_days: Some(1),
            expired_object_delete_marker: true,
            ..rule("gone", "gone/", &[])
        };
        gw.put_bucket_lifecycle(&owner(), "lcb", vec![keep_one, markers])
            .await
            .expect("rules");
        let before = versions_of(gw, "lcb", "k/a").await;
        assert_eq!(before.len(), 3);
        let early = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!((early.noncurrent_expired, early.markers_expired), (0, 0));
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let r = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!(
            (r.noncurrent_expired, r.markers_expired, r.errors),
            (2, 0, 0),
            "{r:?}"
        );
        // the current version and the newest noncurrent one are kept
        assert_eq!(versions_of(gw, "lcb", "k/a").await, before[..2]);
        // the marker is alone now: the next pass takes it
        assert_eq!(versions_of(gw, "lcb", "gone/b").await.len(), 1);
        let r = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!((r.noncurrent_expired, r.markers_expired), (0, 1), "{r:?}");
        assert!(versions_of(gw, "lcb", "gone/b").await.is_empty());
        assert_eq!(gw.bucket_usage("lcb").await.expect("usage").objects, 2);

        // a locked version is kept, and counted
        gw.create_locked_bucket(crate::testutil::OWNER, "locked", crate::CannedAcl::Private)
            .await
            .expect("locked bucket");
        let retention = crate::Retention {
            mode: crate::LockMode::Governance,
            until: now_secs() + 3600.0,
        };
        let params = PutParams {
            lock: crate::LockRequest {
                retention: Some(retention),
                legal_hold: None,
            },
            ..PutParams::default()
        };
        gw.put_object(&owner(), "locked", "k/a", params, body(b"kept", 2))
            .await
            .expect("locked put");
        put(gw, "locked", "k/a", &[]).await;
        let rules = vec![LifecycleRule {
            expiration_days: None,
            noncurrent_days: Some(1),
            ..rule("k", "", &[])
        }];
        gw.put_bucket_lifecycle(&owner(), "locked", rules)
            .await
            .expect("rules");
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let r = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!(
            (r.noncurrent_expired, r.locked, r.errors),
            (0, 1, 0),
            "{r:?}"
        );
        assert_eq!(versions_of(gw, "locked", "k/a").await.len(), 2);
    }

    /// A lease held by a live pass keeps others out; one that expired is
    /// taken over, and the new pass resumes where the dead one got to.
    #[tokio::test]
    async fn one_pass_at_a_time_and_a_dead_one_is_resumed() {
        let opts = GatewayOptions {
            lc_day_s: 1,
            lc_lease: Duration::from_secs(3),
            ..small_opts()
        };
        let (f, _) = Fixture::with_bucket(opts, "lcb").await;
        let gw = &f.gw;
        for k in ["a", "b", "c", "d"] {
            put(gw, "lcb", k, &[]).await;
        }
        gw.put_bucket_lifecycle(&owner(), "lcb", vec![rule("all", "", &[])])
            .await
            .expect("rules");
        tokio::time::sleep(Duration::from_millis(1100)).await;
        // a pass of another process died after "b", its lease still valid
        let (lease, _) = gw.take_lease("dead").await.expect("lease").expect("free");
        let marker = WriteOp::new()
            .cmp_xattr(LEASE_XATTR, CmpOp::Eq, lease.value.clone())
            .set_xattr(MARKER_XATTR, "lcb\nb");
        gw.store()
            .write(&layout::lc_state(), marker)
            .await
            .expect("marker");
        match gw.lifecycle_pass("live").await.expect("pass") {
            LcPass::Held { holder, expires } => {
                assert_eq!(holder, "dead");
                assert!(expires > now_secs());
            }
            LcPass::Ran(r) => panic!("ran under another's lease: {r:?}"),
        }
        assert_eq!(
            gw.lifecycle_status()
                .await
                .expect("status")
                .marker
                .as_deref(),
            Some("lcb/b")
        );
        tokio::time::sleep(Duration::from_millis(3100)).await;
        let r = ran(gw.lifecycle_pass("live").await.expect("pass"));
        assert_eq!(r.resumed_from.as_deref(), Some("lcb/b"));
        assert_eq!((r.examined, r.expired), (2, 2), "{r:?}");
        assert_eq!(keys(gw, "lcb").await, ["a", "b"]);
        // the next pass starts from the beginning again
        let r = ran(gw.lifecycle_pass("live").await.expect("pass"));
        assert_eq!((r.resumed_from, r.expired), (None, 2));
    }

    /// A bucket the worker may not list (a policy denies its owner) is
    /// counted as an error; the pass goes on with the next bucket.
    #[tokio::test]
    async fn a_failing_bucket_does_not_stop_the_pass() {
        let (f, _) = Fixture::with_bucket(small_opts(), "bad").await;
        let gw = &f.gw;
        gw.create_bucket(crate::testutil::OWNER, "good", crate::CannedAcl::Private)
            .await
            .expect("bucket");
        for b in ["bad", "good"] {
            put(gw, b, "k", &[]).await;
            gw.put_bucket_lifecycle(&owner(), b, vec![rule("all", "", &[])])
                .await
                .expect("rules");
        }
        let deny = r#"{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Principal":"*",
            "Action":"s3:ListBucket","Resource":"arn:aws:s3:::bad"}]}"#;
        gw.put_bucket_policy(&owner(), "bad", deny)
            .await
            .expect("policy");
        tokio::time::sleep(Duration::from_millis(1100)).await;
        let r = ran(gw.lifecycle_pass("test").await.expect("pass"));
        assert_eq!((r.buckets, r.errors, r.expired), (2, 1, 1), "{r:?}");
        assert!(r.complete);
        assert_eq!(keys(gw, "good").await, Vec::<String>::new());
    }
}
