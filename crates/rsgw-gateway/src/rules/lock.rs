//! Object lock's rules: what a write may ask of a new version's lock, what
//! lock a new version gets, and what a retention or a legal hold forbids
//! (deleting the version, shortening or lifting a retention), as S3 and
//! radosgw decide them.

use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::lock::{LockMode, LockRequest, Retention};
use crate::model::object::ObjectMeta;

/// Checks what a write (PUT, copy, multipart upload) asks of the new
/// version's lock: only a bucket with object lock takes it, and a
/// retention must end in the future.
pub(crate) fn check_lock_request(
    info: &BucketInfo,
    lock: &LockRequest,
    now: f64,
) -> GatewayResult<()> {
    if lock.is_empty() {
        return Ok(());
    }
    if info.object_lock.is_none() {
        return Err(GatewayError::InvalidRequest(
            "Bucket is missing Object Lock Configuration".into(),
        ));
    }
    check_future(lock.retention.as_ref(), now)
}

/// A retention asked for must end after `now`.
pub(crate) fn check_future(r: Option<&Retention>, now: f64) -> GatewayResult<()> {
    match r {
        Some(r) if !r.active(now) => Err(GatewayError::InvalidArgument(
            "The retain until date must be in the future".into(),
        )),
        _ => Ok(()),
    }
}

/// Gives a new version made at `meta.mtime` its lock: the retention and
/// legal hold the write asked for, else the bucket's default retention.
pub(crate) fn lock_new_version(info: &BucketInfo, lock: &LockRequest, meta: &mut ObjectMeta) {
    let Some(conf) = &info.object_lock else {
        return;
    };
    meta.retention = lock
        .retention
        .or_else(|| conf.default.map(|d| d.of_version(meta.mtime)));
    meta.legal_hold = lock.legal_hold;
}

/// Whether version `meta` may be deleted at `now`: not under a legal hold,
/// nor under a retention that has not ended, unless it is GOVERNANCE and
/// the requester asked to bypass it and may (`bypass`).
pub(crate) fn check_removal(meta: &ObjectMeta, now: f64, bypass: bool) -> GatewayResult<()> {
    if meta.legal_hold == Some(true) {
        return Err(GatewayError::ObjectLocked(
            "The version is under a legal hold".into(),
        ));
    }
    match &meta.retention {
        Some(r) if r.active(now) => match r.mode {
            LockMode::Governance if bypass => Ok(()),
            LockMode::Governance => Err(GatewayError::ObjectLocked(
                "The version is under a GOVERNANCE retention: deleting it needs x-amz-bypass-governance-retention and s3:BypassGovernanceRetention".into(),
            )),
            LockMode::Compliance => Err(GatewayError::ObjectLocked(
                "The version is under a COMPLIANCE retention".into(),
            )),
        },
        _ => Ok(()),
    }
}

/// Whether a version's retention may change from `old` to `new` at `now`:
/// a retention that has ended may be replaced at will; one in force may
/// be extended, and shortened or turned from GOVERNANCE to COMPLIANCE only
/// by a bypass (`bypass`) of a GOVERNANCE one; COMPLIANCE never becomes
/// GOVERNANCE.
pub(crate) fn check_retention_change(
    old: Option<&Retention>,
    new: &Retention,
    now: f64,
    bypass: bool,
) -> GatewayResult<()> {
    let Some(old) = old.filter(|o| o.active(now)) else {
        return Ok(());
    };
    let locked = |m: &str| Err(GatewayError::ObjectLocked(m.into()));
    if new.until < old.until {
        if old.mode == LockMode::Governance && bypass {
            return Ok(());
        }
        return locked(
            "proposed retain-until date shortens an existing retention period and governance bypass check failed",
        );
    }
    match (old.mode, new.mode) {
        (a, b) if a == b => Ok(()),
        (LockMode::Compliance, _) => {
            locked("can't change retention mode from COMPLIANCE to GOVERNANCE")
        }
        _ if bypass => Ok(()),
        _ => locked("can't change retention mode from GOVERNANCE without governance bypass"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::lock::{DefaultRetention, ObjectLock, Period};
    use crate::testutil::bucket_record;

    const NOW: f64 = 1_000_000.0;

    fn ret(mode: LockMode, until: f64) -> Retention {
        Retention { mode, until }
    }

    fn bucket(lock: Option<ObjectLock>) -> BucketInfo {
        BucketInfo {
            object_lock: lock,
            ..bucket_record("b", "id", "alice")
        }
    }

    #[test]
    fn writes_ask_for_locks_only_of_locked_buckets_and_in_the_future() {
        let asked = LockRequest {
            retention: Some(ret(LockMode::Governance, NOW + 10.0)),
            legal_hold: None,
        };
        assert!(check_lock_request(&bucket(None), &LockRequest::default(), NOW).is_ok());
        assert!(matches!(
            check_lock_request(&bucket(None), &asked, NOW),
            Err(GatewayError::InvalidRequest(_))
        ));
        let hold = LockRequest {
            legal_hold: Some(false),
            ..LockRequest::default()
        };
        assert!(matches!(
            check_lock_request(&bucket(None), &hold, NOW),
            Err(GatewayError::InvalidRequest(_))
        ));
        let locked = bucket(Some(ObjectLock::default()));
        assert!(check_lock_request(&locked, &asked, NOW).is_ok());
        assert!(matches!(
            check_lock_request(&locked, &asked, NOW + 10.0),
            Err(GatewayError::InvalidArgument(_))
        ));
    }

    #[test]
    fn new_versions_get_the_default_unless_they_ask() {
        let default = DefaultRetention {
            mode: LockMode::Compliance,
            period: Period::Days(2),
        };
        let info = bucket(Some(ObjectLock {
            default: Some(default),
        }));
        let mut meta = ObjectMeta {
            mtime: NOW,
            ..ObjectMeta::default()
        };
        lock_new_version(&info, &LockRequest::default(), &mut meta);
        assert_eq!(
            meta.retention,
            Some(ret(LockMode::Compliance, NOW + 2.0 * 86_400.0))
        );
        assert_eq!(meta.legal_hold, None);
        let asked = LockRequest {
            retention: Some(ret(LockMode::Governance, NOW + 5.0)),
            legal_hold: Some(true),
        };
        lock_new_version(&info, &asked, &mut meta);
        assert_eq!(meta.retention, asked.retention);
        assert_eq!(meta.legal_hold, Some(true));
        // a year is 365 days, as radosgw counts it
        let years = DefaultRetention {
            mode: LockMode::Governance,
            period: Period::Years(1),
        };
        assert_eq!(years.of_version(0.0).until, 31_536_000.0);
        // no lock in a bucket without one
        let mut plain = ObjectMeta::default();
        lock_new_version(&bucket(None), &asked, &mut plain);
        assert_eq!(plain.retention, None);
        assert_eq!(plain.legal_hold, None);
    }

    #[test]
    fn removal_is_refused_while_locked() {
        let with = |r: Option<Retention>, hold: bool| ObjectMeta {
            retention: r,
            legal_hold: Some(hold),
            ..ObjectMeta::default()
        };
        let gov = Some(ret(LockMode::Governance, NOW + 1.0));
        let comp = Some(ret(LockMode::Compliance, NOW + 1.0));
        let ended = Some(ret(LockMode::Compliance, NOW));
        assert!(check_removal(&with(None, false), NOW, false).is_ok());
        assert!(check_removal(&with(ended, false), NOW, false).is_ok());
        assert!(check_removal(&with(gov, false), NOW, false).is_err());
        assert!(check_removal(&with(gov, false), NOW, true).is_ok());
        assert!(check_removal(&with(comp, false), NOW, true).is_err());
        assert!(check_removal(&with(None, true), NOW, true).is_err());
        assert!(check_removal(&with(ended, true), NOW, true).is_err());
    }

    #[test]
    fn retentions_in_force_only_grow_unless_bypassed() {
        use LockMode::{Compliance as C, Governance as G};
        let later = NOW + 100.0;
        let sooner = NOW + 10.0;
        let cases = [
            // (old, new, bypass, allowed)
            (None, ret(C, sooner), false, true),
            (Some(ret(C, NOW - 1.0)), ret(G, sooner), false, true),
            (Some(ret(G, sooner)), ret(G, later), false, true),
            (Some(ret(C, sooner)), ret(C, later), false, true),
            (Some(ret(G, later)), ret(G, sooner), false, false),
            (Some(ret(G, later)), ret(G, sooner), true, true),
            (Some(ret(C, later)), ret(C, sooner), true, false),
            (Some(ret(C, sooner)), ret(G, later), true, false),
            (Some(ret(G, sooner)), ret(C, later), false, false),
            (Some(ret(G, sooner)), ret(C, later), true, true),
        ];
        for (old, new, bypass, allowed) in cases {
            let got = check_retention_change(old.as_ref(), &new, NOW, bypass);
            assert_eq!(got.is_ok(), allowed, "{old:?} -> {new:?} bypass {bypass}");
            if let Err(e) = got {
                assert!(matches!(e, GatewayError::ObjectLocked(_)), "{e}");
            }
        }
    }
}
