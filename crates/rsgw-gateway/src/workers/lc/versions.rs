//! The lifecycle pass's walk of a versioned bucket's versions (the
//! module above says what it deletes and why).

use super::{Lease, Pacer};
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::layout;
use crate::model::lifecycle::{LcReport, LifecycleRule};
use crate::model::limits::MAX_KEYS;
use crate::model::params::{VersionEntry, VersionListParams};
use crate::model::versioning::NULL_VERSION;
use crate::ops::gateway::Gateway;
use crate::rules::authz::Requester;

/// A walk of a versioned bucket's versions, key by key, newest first.
pub(super) struct VersionWalk<'a> {
    pub(super) rq: &'a Requester,
    pub(super) info: &'a BucketInfo,
    pub(super) rules: &'a [LifecycleRule],
    /// The key being walked: its name, its first (current) entry, when
    /// the version last seen of it was made, how many of its noncurrent
    /// versions were seen.
    pub(super) key: Option<KeyWalk>,
}

/// Where a [`VersionWalk`] is in one key's versions.
pub(super) struct KeyWalk {
    current: VersionEntry,
    newer_mtime: f64,
    noncurrent: u32,
}

impl VersionWalk<'_> {
    /// Deletes version `id` of `key` as the lifecycle judged it: not if it
    /// is current now, nor if a lock keeps it; counts what it did in
    /// `report` (`marker`: a lone delete marker's deletion).
    async fn expire_version(
        &self,
        gw: &Gateway,
        (key, id): (&str, Option<&str>),
        marker: bool,
        report: &mut LcReport,
    ) -> GatewayResult<()> {
        let head = gw.head_meta(&layout::head(&self.info.id, key)).await?;
        if !marker && head.is_some_and(|h| h.is_version(id)) {
            return Ok(());
        }
        let version = (&*self.info.name, key, id.unwrap_or(NULL_VERSION));
        match gw.delete_object_version(self.rq, version, false).await {
            Ok(_) if marker => report.markers_expired += 1,
            Ok(_) => report.noncurrent_expired += 1,
            Err(GatewayError::ObjectLocked(_)) => report.locked += 1,
            Err(err) => {
                report.errors += 1;
                tracing::warn!(bucket = %self.info.name, key, error = %err, "lifecycle expiration of a version failed");
            }
        }
        Ok(())
    }

    /// Walks the versions of keys after `start_after`; `false` when the
    /// lease was lost on the way.
    pub(super) async fn run(
        &mut self,
        gw: &Gateway,
        start_after: String,
        (lease, holder): (&mut Lease, &str),
        pacer: &mut Pacer,
        report: &mut LcReport,
    ) -> GatewayResult<bool> {
        let mut params = VersionListParams {
            key_marker: start_after,
            max_keys: MAX_KEYS,
            ..VersionListParams::default()
        };
        loop {
            let page = gw
                .list_object_versions(self.rq, &self.info.name, &params)
                .await?;
            for e in page.versions {
                if self.key.as_ref().is_some_and(|k| k.current.key == e.key) {
                    self.noncurrent(gw, e, pacer, report).await?;
                    continue;
                }
                self.end_key(gw, pacer, report).await?;
                report.examined += 1;
                if !gw
                    .renew(lease, holder, (&self.info.name, &e.key), false)
                    .await?
                {
                    return Ok(false);
                }
                self.key = Some(KeyWalk {
                    newer_mtime: e.mtime,
                    current: e,
                    noncurrent: 0,
                });
            }
            match page.next {
                Some((key, version)) if page.is_truncated => {
                    params.key_marker = key;
                    params.version_marker = version;
                }
                _ => {
                    self.end_key(gw, pacer, report).await?;
                    return Ok(true);
                }
            }
        }
    }

    /// Judges noncurrent version `e` of the key being walked.
    async fn noncurrent(
        &mut self,
        gw: &Gateway,
        e: VersionEntry,
        pacer: &mut Pacer,
        report: &mut LcReport,
    ) -> GatewayResult<()> {
        let Some(k) = self.key.as_mut() else {
            return Ok(());
        };
        report.examined += 1;
        let (since, newer) = (k.newer_mtime, k.noncurrent);
        k.newer_mtime = e.mtime;
        k.noncurrent += 1;
        let now = now_secs();
        let day_s = gw.opts.lc_day_s;
        let due: Vec<&LifecycleRule> = self
            .rules
            .iter()
            .filter(|r| {
                r.matches_untagged(&e.key, e.size) && r.noncurrent_expired(since, newer, now, day_s)
            })
            .collect();
        if due.is_empty() {
            return Ok(());
        }
        // a rule that names tags needs the version's own
        if due.iter().all(|r| !r.tags.is_empty()) {
            let stored = gw
                .read_version(&self.info.id, &e.key, e.version_id.as_deref())
                .await?;
            let Some(v) = stored else { return Ok(()) };
            if !due.iter().any(|r| r.matches(&e.key, e.size, &v.meta.tags)) {
                return Ok(());
            }
        }
        pacer.wait().await;
        self.expire_version(gw, (&e.key, e.version_id.as_deref()), false, report)
            .await
    }

    /// Ends the walk of a key: a delete marker that is its only version
    /// goes if a rule says so.
    async fn end_key(
        &mut self,
        gw: &Gateway,
        pacer: &mut Pacer,
        report: &mut LcReport,
    ) -> GatewayResult<()> {
        let Some(k) = self.key.take() else {
            return Ok(());
        };
        let lone = k.current.delete_marker && k.noncurrent == 0;
        let no_tags = Default::default();
        if lone
            && self
                .rules
                .iter()
                .any(|r| r.expired_object_delete_marker && r.matches(&k.current.key, 0, &no_tags))
        {
            pacer.wait().await;
            let id = k.current.version_id.as_deref();
            self.expire_version(gw, (&k.current.key, id), true, report)
                .await?;
        }
        Ok(())
    }
}
