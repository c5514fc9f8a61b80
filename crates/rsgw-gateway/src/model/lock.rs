//! Object lock: a bucket's lock configuration (enabled at its creation,
//! with an optional default retention) and each version's retention and
//! legal hold, kept in the version's record. What they forbid is
//! `rules::lock`'s.

use serde::{Deserialize, Serialize};

/// Seconds in S3's retention day.
const DAY_S: f64 = 86_400.0;

/// A retention's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LockMode {
    /// Users with `s3:BypassGovernanceRetention` may shorten or remove
    /// it, and delete the version, by asking to
    /// (`x-amz-bypass-governance-retention`).
    Governance,
    /// No one may shorten it or delete the version until it ends.
    Compliance,
}

impl LockMode {
    /// S3's name of the mode.
    pub fn as_str(self) -> &'static str {
        match self {
            LockMode::Governance => "GOVERNANCE",
            LockMode::Compliance => "COMPLIANCE",
        }
    }

    /// The mode S3 names so (exactly, as radosgw reads it).
    pub fn parse(s: &str) -> Option<LockMode> {
        match s {
            "GOVERNANCE" => Some(LockMode::Governance),
            "COMPLIANCE" => Some(LockMode::Compliance),
            _ => None,
        }
    }
}

/// A version's retention: it may not be deleted before `until`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Retention {
    /// Its mode.
    pub mode: LockMode,
    /// When it ends, in seconds since the epoch.
    pub until: f64,
}

impl Retention {
    /// Whether it still holds at `now` (seconds since the epoch).
    pub fn active(&self, now: f64) -> bool {
        self.until > now
    }
}

/// How long a bucket's default retention lasts: S3 takes days or years.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Period {
    /// So many days.
    Days(u32),
    /// So many years.
    Years(u32),
}

/// The retention a bucket gives each new version that asks for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefaultRetention {
    /// Its mode.
    pub mode: LockMode,
    /// How long from the version's creation.
    pub period: Period,
}

impl DefaultRetention {
    /// The retention of a version made at `mtime` (seconds); a year is
    /// 365 days, as radosgw counts it (`RGWObjectLock::get_lock_until_date`).
    pub fn of_version(&self, mtime: f64) -> Retention {
        let days = match self.period {
            Period::Days(d) => f64::from(d),
            Period::Years(y) => f64::from(y) * 365.0,
        };
        Retention {
            mode: self.mode,
            until: mtime + days * DAY_S,
        }
    }
}

/// A bucket's object lock (`BucketInfo::object_lock`; only a bucket made
/// with it has one, and it is never removed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectLock {
    /// The default retention of new versions, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<DefaultRetention>,
}

/// What a write asks of the new version's lock: a retention
/// (`x-amz-object-lock-mode` with `-retain-until-date`) and a legal hold
/// (`x-amz-object-lock-legal-hold`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct LockRequest {
    /// The retention asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retention: Option<Retention>,
    /// The legal hold asked for (`Some(false)`: OFF, said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_hold: Option<bool>,
}

impl LockRequest {
    /// Whether the request says anything of locks.
    pub fn is_empty(&self) -> bool {
        self.retention.is_none() && self.legal_hold.is_none()
    }
}
