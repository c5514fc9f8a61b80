//! `rsgw admin quota`: radosgw-admin's `quota set|enable|disable`, with
//! `get` to show one. A change is announced to every running instance.

use clap::{Args, Subcommand, ValueEnum};
use rsgw_config::Config;
use rsgw_gateway::{Quota, QuotaTarget};
use serde_json::json;

use super::users::with_gateway;

/// `rsgw admin quota ...`
#[derive(Subcommand)]
pub enum QuotaCommand {
    /// Set the maximums given (others are kept); does not enable the quota.
    Set {
        #[command(flatten)]
        target: Target,
        /// Objects at most (-1: no limit).
        #[arg(long, allow_hyphen_values = true)]
        max_objects: Option<i64>,
        /// Bytes at most (-1: no limit).
        #[arg(long, allow_hyphen_values = true)]
        max_size: Option<i64>,
    },
    /// Show a quota.
    Get {
        #[command(flatten)]
        target: Target,
    },
    /// Enforce the quota.
    Enable {
        #[command(flatten)]
        target: Target,
    },
    /// Stop enforcing the quota (its maximums are kept).
    Disable {
        #[command(flatten)]
        target: Target,
    },
}

/// Whose quota.
#[derive(Args)]
pub struct Target {
    /// `user`: over all the user's buckets; `bucket`: of one bucket
    /// (`--bucket`), or of each of the user's buckets without a quota of
    /// its own (`--uid`).
    #[arg(long, value_enum)]
    quota_scope: Scope,
    /// The user.
    #[arg(long, required_unless_present = "bucket", conflicts_with = "bucket")]
    uid: Option<String>,
    /// The bucket (with `--quota-scope bucket`).
    #[arg(long)]
    bucket: Option<String>,
}

/// The scopes of `--quota-scope`.
#[derive(Clone, Copy, ValueEnum)]
pub enum Scope {
    /// A user's quota.
    User,
    /// A bucket's quota.
    Bucket,
}

impl Target {
    fn resolve(self) -> Result<QuotaTarget, String> {
        match (self.quota_scope, self.uid, self.bucket) {
            (Scope::User, Some(uid), None) => Ok(QuotaTarget::User(uid)),
            (Scope::Bucket, Some(uid), None) => Ok(QuotaTarget::UserBuckets(uid)),
            (Scope::Bucket, None, Some(b)) => Ok(QuotaTarget::Bucket(b)),
            _ => Err(
                "--quota-scope user takes --uid; --quota-scope bucket takes --uid or --bucket"
                    .into(),
            ),
        }
    }
}

fn show(target: &QuotaTarget, q: &Quota) -> serde_json::Value {
    let (scope, uid, bucket) = match target {
        QuotaTarget::User(u) => ("user", Some(u.as_str()), None),
        QuotaTarget::UserBuckets(u) => ("bucket", Some(u.as_str()), None),
        QuotaTarget::Bucket(b) => ("bucket", None, Some(b.as_str())),
    };
    json!({
        "quota_scope": scope,
        "uid": uid,
        "bucket": bucket,
        "enabled": q.enabled,
        "max_size": q.max_size,
        "max_objects": q.max_objects,
    })
}

/// Runs `rsgw admin quota ...`.
pub fn run(cfg: &Config, c: QuotaCommand) -> Result<(), Box<dyn std::error::Error>> {
    with_gateway(cfg, |gw| async move {
        let (target, quota) = match c {
            QuotaCommand::Get { target } => {
                let t = target.resolve()?;
                let q = gw.quota(&t).await?;
                (t, q)
            }
            QuotaCommand::Set {
                target,
                max_objects,
                max_size,
            } => {
                let t = target.resolve()?;
                let q = gw
                    .update_quota(&t, |q| {
                        if let Some(n) = max_objects {
                            q.max_objects = n;
                        }
                        if let Some(n) = max_size {
                            q.max_size = n;
                        }
                    })
                    .await?;
                (t, q)
            }
            QuotaCommand::Enable { target } => {
                let t = target.resolve()?;
                let q = gw.update_quota(&t, |q| q.enabled = true).await?;
                (t, q)
            }
            QuotaCommand::Disable { target } => {
                let t = target.resolve()?;
                let q = gw.update_quota(&t, |q| q.enabled = false).await?;
                (t, q)
            }
        };
        Ok(show(&target, &quota))
    })
}
