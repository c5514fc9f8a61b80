//! Object lock: Get/PutObjectLockConfiguration (the bucket's default
//! retention, in its record: `BucketInfo::object_lock`) and Get/Put of a
//! version's retention and legal hold (in the version's record). What
//! they forbid is `rules::lock`'s; deletes check it
//! (`ops::objects::delete`).

use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::lock::{DefaultRetention, ObjectLock, Retention};
use crate::model::object::ObjectMeta;
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, allowed, authorize};
use crate::rules::lock::{check_future, check_removal, check_retention_change};

impl Gateway {
    /// A bucket's object lock; `NoObjectLockConfiguration` in a bucket
    /// made without (GetObjectLockConfiguration).
    pub async fn get_object_lock(&self, rq: &Requester, bucket: &str) -> GatewayResult<ObjectLock> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetObjectLock, &Target::bucket(&info))?;
        info.object_lock
            .ok_or(GatewayError::NoObjectLockConfiguration)
    }

    /// Sets a bucket's default retention, `None` for none
    /// (PutObjectLockConfiguration; the document's error, if it had one,
    /// once the requester is known to be allowed). Only a bucket made with
    /// object lock takes it (`InvalidBucketState`, as radosgw answers).
    pub async fn put_object_lock(
        &self,
        rq: &Requester,
        bucket: &str,
        default: GatewayResult<Option<DefaultRetention>>,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutObjectLock, &Target::bucket(&info))?;
        let default = default?;
        let Some(lock) = info.object_lock.as_mut() else {
            return Err(GatewayError::InvalidBucketState(
                "object lock configuration can't be set if bucket object lock not enabled".into(),
            ));
        };
        if lock.default == default {
            return Ok(());
        }
        lock.default = default;
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// A version's retention (GetObjectRetention): of the key's current
    /// version, or of `version`; `NoSuchObjectLockConfiguration` if it
    /// has none, `InvalidRequest` in a bucket without object lock.
    pub async fn get_object_retention(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> GatewayResult<Retention> {
        self.locked_version(rq, Access::GetObjectRetention, (bucket, key, version))
            .await?
            .retention
            .ok_or(GatewayError::NoSuchObjectLockConfiguration)
    }

    /// Sets a version's retention (PutObjectRetention): one in force may
    /// be extended; shortened, or its mode changed, only as
    /// `rules::lock::check_retention_change` allows, `bypass` being the
    /// request's `x-amz-bypass-governance-retention`.
    pub async fn put_object_retention(
        &self,
        rq: &Requester,
        (bucket, key, version): (&str, &str, Option<&str>),
        retention: Retention,
        bypass: bool,
    ) -> GatewayResult<()> {
        check_future(Some(&retention), now_secs())?;
        self.update_meta(
            rq,
            (Access::PutObjectRetention, None),
            (bucket, key, version),
            |info, meta| {
                locked_bucket(info, "object retention")?;
                let bypass = bypass && may_bypass(rq, info, key, meta);
                check_retention_change(meta.retention.as_ref(), &retention, now_secs(), bypass)?;
                meta.retention = Some(retention);
                Ok(())
            },
        )
        .await
    }

    /// A version's legal hold (GetObjectLegalHold);
    /// `NoSuchObjectLockConfiguration` if it was never set,
    /// `InvalidRequest` in a bucket without object lock.
    pub async fn get_object_legal_hold(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> GatewayResult<bool> {
        self.locked_version(rq, Access::GetObjectLegalHold, (bucket, key, version))
            .await?
            .legal_hold
            .ok_or(GatewayError::NoSuchObjectLockConfiguration)
    }

    /// Puts a version under a legal hold, or lifts it (PutObjectLegalHold).
    pub async fn put_object_legal_hold(
        &self,
        rq: &Requester,
        (bucket, key, version): (&str, &str, Option<&str>),
        on: bool,
    ) -> GatewayResult<()> {
        self.update_meta(
            rq,
            (Access::PutObjectLegalHold, None),
            (bucket, key, version),
            |info, meta| {
                locked_bucket(info, "object legal hold")?;
                meta.legal_hold = Some(on);
                Ok(())
            },
        )
        .await
    }

    /// The record of a version whose lock `rq` reads (`access`): only in a
    /// bucket with object lock.
    async fn locked_version(
        &self,
        rq: &Requester,
        access: Access,
        target: (&str, &str, Option<&str>),
    ) -> GatewayResult<ObjectMeta> {
        let (info, meta) = self.object_meta_for(rq, access, target).await?;
        locked_bucket(&info, "object lock")?;
        Ok(meta)
    }

    /// Whether version `meta` of `key` may be removed by `rq` now
    /// (`bypass`: the request's `x-amz-bypass-governance-retention`).
    pub(crate) fn check_removal_by(
        &self,
        rq: &Requester,
        (info, key): (&BucketInfo, &str),
        meta: &ObjectMeta,
        bypass: bool,
    ) -> GatewayResult<()> {
        if info.object_lock.is_none() {
            return Ok(());
        }
        let bypass = bypass && may_bypass(rq, info, key, meta);
        check_removal(meta, now_secs(), bypass)
    }
}

/// Whether `rq` may bypass a GOVERNANCE retention of version `meta`.
fn may_bypass(rq: &Requester, info: &BucketInfo, key: &str, meta: &ObjectMeta) -> bool {
    allowed(
        rq,
        Access::BypassGovernance,
        &Target::stored(info, key, meta),
    )
}

/// A version's retention or legal hold is read or set only in a bucket
/// with object lock (`InvalidRequest`, as radosgw answers).
fn locked_bucket(info: &BucketInfo, what: &str) -> GatewayResult<()> {
    if info.object_lock.is_none() {
        return Err(GatewayError::InvalidRequest(format!(
            "{what}: bucket object lock not configured"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lock::{LockMode, LockRequest, Period};
    use crate::model::params::PutParams;
    use crate::model::versioning::Versioning;
    use crate::testutil::{Fixture, body, owner, small_opts};
    use crate::{CannedAcl, Deleted};

    const DAY: f64 = 86_400.0;

    fn governance(days: f64) -> Retention {
        Retention {
            mode: LockMode::Governance,
            until: now_secs() + days * DAY,
        }
    }

    async fn put(f: &Fixture, key: &str, lock: LockRequest) -> (String, ObjectMeta) {
        let meta =
            f.gw.put_object(
                &owner(),
                "locked",
                key,
                PutParams {
                    content_length: Some(4),
                    lock,
                    ..Default::default()
                },
                body(b"data", 4),
            )
            .await
            .expect("put")
            .meta;
        (meta.version_id.clone().expect("a version id"), meta)
    }

    async fn delete(
        f: &Fixture,
        rq: &Requester,
        key: &str,
        v: &str,
        bypass: bool,
    ) -> GatewayResult<Deleted> {
        f.gw.delete_object_version(rq, ("locked", key, v), bypass)
            .await
    }

    fn locked(r: GatewayResult<impl std::fmt::Debug>) -> bool {
        matches!(r, Err(GatewayError::ObjectLocked(_)))
    }

    /// A bucket made with object lock: versioned for good, its default
    /// retention given to new versions, and deletes of a version refused
    /// while a retention or a legal hold holds it (a GOVERNANCE one
    /// yields to its owner's bypass, a COMPLIANCE one to no one), while a
    /// plain DELETE still makes a delete marker.
    #[tokio::test]
    async fn locked_versions_are_kept_until_released() {
        let f = Fixture::new(small_opts()).await;
        f.gw.create_locked_bucket(crate::testutil::OWNER, "locked", CannedAcl::Private)
            .await
            .expect("create");
        assert_eq!(
            f.gw.get_bucket_versioning(&owner(), "locked")
                .await
                .expect("versioning"),
            Some(Versioning::Enabled)
        );
        assert!(matches!(
            f.gw.put_bucket_versioning(&owner(), "locked", Some(Versioning::Suspended))
                .await,
            Err(GatewayError::InvalidBucketState(_))
        ));
        assert_eq!(
            f.gw.get_object_lock(&owner(), "locked")
                .await
                .expect("lock"),
            ObjectLock::default()
        );

        // no retention by default: a version is deleted at will
        let (v, meta) = put(&f, "free", LockRequest::default()).await;
        assert_eq!((meta.retention, meta.legal_hold), (None, None));
        assert!(matches!(
            f.gw.get_object_retention(&owner(), "locked", "free", None)
                .await,
            Err(GatewayError::NoSuchObjectLockConfiguration)
        ));
        delete(&f, &owner(), "free", &v, false)
            .await
            .expect("delete unlocked");

        // a default retention of one day, GOVERNANCE
        let default = DefaultRetention {
            mode: LockMode::Governance,
            period: Period::Days(1),
        };
        f.gw.put_object_lock(&owner(), "locked", Ok(Some(default)))
            .await
            .expect("default retention");
        let (v, meta) = put(&f, "gov", LockRequest::default()).await;
        let r = meta.retention.expect("the default retention");
        assert_eq!(r.mode, LockMode::Governance);
        assert!(
            (r.until - meta.mtime - DAY).abs() < 1e-6,
            "{r:?} of {}",
            meta.mtime
        );
        assert!(locked(delete(&f, &owner(), "gov", &v, false).await));
        // a plain delete makes a marker; the version stays
        let marker =
            f.gw.delete_object(&owner(), "locked", "gov")
                .await
                .expect("marker");
        assert!(marker.delete_marker);
        assert!(
            f.gw.get_object_retention(&owner(), "locked", "gov", Some(&v))
                .await
                .is_ok()
        );
        // the owner may bypass GOVERNANCE
        delete(&f, &owner(), "gov", &v, true)
            .await
            .expect("bypassed");

        // COMPLIANCE asked for: no one removes it, nor shortens it
        let compliance = Retention {
            mode: LockMode::Compliance,
            until: now_secs() + DAY,
        };
        let (v, _) = put(
            &f,
            "comp",
            LockRequest {
                retention: Some(compliance),
                legal_hold: None,
            },
        )
        .await;
        assert!(locked(delete(&f, &owner(), "comp", &v, true).await));
        assert!(locked(
            f.gw.put_object_retention(
                &owner(),
                ("locked", "comp", Some(&v)),
                governance(2.0),
                true
            )
            .await
        ));
        // extending it is allowed
        let longer = Retention {
            until: compliance.until + DAY,
            ..compliance
        };
        f.gw.put_object_retention(&owner(), ("locked", "comp", Some(&v)), longer, false)
            .await
            .expect("extend");
        assert_eq!(
            f.gw.get_object_retention(&owner(), "locked", "comp", Some(&v))
                .await
                .expect("get"),
            longer
        );
    }

    /// A legal hold keeps a version until it is lifted, whoever asks and
    /// whatever the retention; a retention of the current version is set
    /// and read without a version id.
    #[tokio::test]
    async fn legal_holds_and_retentions_of_the_current_version() {
        let f = Fixture::new(small_opts()).await;
        f.gw.create_locked_bucket(crate::testutil::OWNER, "locked", CannedAcl::Private)
            .await
            .expect("create");
        let (v, _) = put(&f, "k", LockRequest::default()).await;
        assert!(matches!(
            f.gw.get_object_legal_hold(&owner(), "locked", "k", None)
                .await,
            Err(GatewayError::NoSuchObjectLockConfiguration)
        ));
        f.gw.put_object_legal_hold(&owner(), ("locked", "k", None), true)
            .await
            .expect("hold");
        assert!(
            f.gw.get_object_legal_hold(&owner(), "locked", "k", Some(&v))
                .await
                .expect("held")
        );
        assert!(locked(delete(&f, &owner(), "k", &v, true).await));
        f.gw.put_object_legal_hold(&owner(), ("locked", "k", Some(&v)), false)
            .await
            .expect("lift");
        assert!(
            !f.gw
                .get_object_legal_hold(&owner(), "locked", "k", None)
                .await
                .expect("lifted")
        );

        // a GOVERNANCE retention set on the current version, then
        // shortened: only with a bypass
        let r = governance(2.0);
        f.gw.put_object_retention(&owner(), ("locked", "k", None), r, false)
            .await
            .expect("retain");
        let shorter = governance(1.0);
        assert!(locked(
            f.gw.put_object_retention(&owner(), ("locked", "k", None), shorter, false)
                .await
        ));
        f.gw.put_object_retention(&owner(), ("locked", "k", None), shorter, true)
            .await
            .expect("shortened with a bypass");
        // a new version leaves the old one's retention where it was
        let (v2, meta2) = put(&f, "k", LockRequest::default()).await;
        assert_eq!(meta2.retention, None);
        assert_eq!(
            f.gw.get_object_retention(&owner(), "locked", "k", Some(&v))
                .await
                .expect("old"),
            shorter
        );
        delete(&f, &owner(), "k", &v2, false)
            .await
            .expect("the new one is free");
        // a retention in the past is refused
        assert!(matches!(
            f.gw.put_object_retention(&owner(), ("locked", "k", None), governance(-1.0), false)
                .await,
            Err(GatewayError::InvalidArgument(_))
        ));
    }

    /// Buckets without object lock have no lock configuration and take
    /// none, nor does any version of theirs, as radosgw answers.
    #[tokio::test]
    async fn unlocked_buckets_refuse_locks() {
        let (f, _) = Fixture::with_bucket(small_opts(), "locked").await;
        assert!(matches!(
            f.gw.get_object_lock(&owner(), "locked").await,
            Err(GatewayError::NoObjectLockConfiguration)
        ));
        assert!(matches!(
            f.gw.put_object_lock(&owner(), "locked", Ok(None)).await,
            Err(GatewayError::InvalidBucketState(_))
        ));
        f.gw.put_object(
            &owner(),
            "locked",
            "k",
            PutParams {
                content_length: Some(1),
                ..Default::default()
            },
            body(b"x", 1),
        )
        .await
        .expect("put");
        assert!(matches!(
            f.gw.put_object_legal_hold(&owner(), ("locked", "k", None), true)
                .await,
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            f.gw.put_object_retention(&owner(), ("locked", "k", None), governance(1.0), false)
                .await,
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            f.gw.get_object_retention(&owner(), "locked", "k", None)
                .await,
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            f.gw.get_object_legal_hold(&owner(), "locked", "k", None)
                .await,
            Err(GatewayError::InvalidRequest(_))
        ));
    }
}
