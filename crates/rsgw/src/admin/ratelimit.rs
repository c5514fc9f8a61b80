//! `rsgw admin ratelimit`: radosgw-admin's `ratelimit` and `global
//! ratelimit`, on the gateway layer. A change is announced to every running
//! instance and applies to its next request.

use clap::{Args, Subcommand, ValueEnum};
use rsgw_config::Config;
use rsgw_gateway::{Limit, LimitTarget};
use serde_json::json;

use super::users::with_gateway;

/// `rsgw admin ratelimit ...`
#[derive(Subcommand)]
pub enum RateLimitCommand {
    /// Set the limits given (others are kept); does not enable them.
    Set {
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        values: Values,
    },
    /// Show a limit (a user or bucket without limits of its own shows its
    /// scope's default).
    Get {
        #[command(flatten)]
        target: Target,
    },
    /// Enforce the limit.
    Enable {
        #[command(flatten)]
        target: Target,
    },
    /// Stop enforcing the limit (its values are kept).
    Disable {
        #[command(flatten)]
        target: Target,
    },
}

/// Whose limit.
#[derive(Args)]
#[group(required = true, multiple = false)]
pub struct Target {
    /// A user's own limit.
    #[arg(long)]
    uid: Option<String>,
    /// A bucket's own limit (by name; it need not exist yet).
    #[arg(long)]
    bucket: Option<String>,
    /// A scope's default: every user or bucket without limits of its own,
    /// or every unsigned request.
    #[arg(long, value_name = "SCOPE")]
    global: Option<GlobalScope>,
}

/// The scopes of `--global`.
#[derive(Clone, Copy, ValueEnum)]
pub enum GlobalScope {
    /// Users without limits of their own.
    User,
    /// Buckets without limits of their own.
    Bucket,
    /// Requests without a signature.
    Anonymous,
}

/// Per second, on each instance; 0 is unlimited.
#[derive(Args)]
pub struct Values {
    /// GET and HEAD requests per second.
    #[arg(long)]
    max_read_ops: Option<u64>,
    /// Requests of other methods per second.
    #[arg(long)]
    max_write_ops: Option<u64>,
    /// Response bytes of reads per second.
    #[arg(long)]
    max_read_bytes: Option<u64>,
    /// Request bytes of writes per second.
    #[arg(long)]
    max_write_bytes: Option<u64>,
}

impl Target {
    fn resolve(self) -> LimitTarget {
        match (self.uid, self.bucket, self.global) {
            (Some(u), _, _) => LimitTarget::User(u),
            (_, Some(b), _) => LimitTarget::Bucket(b),
            (_, _, Some(GlobalScope::User)) => LimitTarget::GlobalUser,
            (_, _, Some(GlobalScope::Bucket)) => LimitTarget::GlobalBucket,
            // clap requires one of the three
            (_, _, _) => LimitTarget::Anonymous,
        }
    }
}

fn show(target: &LimitTarget, l: &Limit) -> serde_json::Value {
    let (scope, name) = match target {
        LimitTarget::GlobalUser => ("user", None),
        LimitTarget::GlobalBucket => ("bucket", None),
        LimitTarget::Anonymous => ("anonymous", None),
        LimitTarget::User(u) => ("user", Some(u.as_str())),
        LimitTarget::Bucket(b) => ("bucket", Some(b.as_str())),
    };
    json!({
        "scope": scope,
        "name": name,
        "enabled": l.enabled,
        "max_read_ops": l.max_read_ops,
        "max_write_ops": l.max_write_ops,
        "max_read_bytes": l.max_read_bytes,
        "max_write_bytes": l.max_write_bytes,
    })
}

/// Runs `rsgw admin ratelimit ...`.
pub fn run(cfg: &Config, c: RateLimitCommand) -> Result<(), Box<dyn std::error::Error>> {
    with_gateway(cfg, |gw| async move {
        let (target, limit) = match c {
            RateLimitCommand::Get { target } => {
                let t = target.resolve();
                let l = gw.ratelimit(&t).await?;
                (t, l)
            }
            RateLimitCommand::Set { target, values } => {
                let t = target.resolve();
                let l = gw
                    .update_ratelimit(&t, |l| {
                        let v = &values;
                        for (slot, value) in [
                            (&mut l.max_read_ops, v.max_read_ops),
                            (&mut l.max_write_ops, v.max_write_ops),
                            (&mut l.max_read_bytes, v.max_read_bytes),
                            (&mut l.max_write_bytes, v.max_write_bytes),
                        ] {
                            if let Some(value) = value {
                                *slot = value;
                            }
                        }
                    })
                    .await?;
                (t, l)
            }
            RateLimitCommand::Enable { target } => {
                let t = target.resolve();
                let l = gw.update_ratelimit(&t, |l| l.enabled = true).await?;
                (t, l)
            }
            RateLimitCommand::Disable { target } => {
                let t = target.resolve();
                let l = gw.update_ratelimit(&t, |l| l.enabled = false).await?;
                (t, l)
            }
        };
        Ok(show(&target, &limit))
    })
}
