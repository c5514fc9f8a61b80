//! `rsgw admin user|key|bucket|gc`: users, keys, buckets and garbage
//! collection, on the gateway layer.

use std::time::Duration;

use clap::{Args, Subcommand};
use rsgw_config::Config;
use rsgw_gateway::{Gateway, NewKey, NewUser, UserChange};
use serde_json::json;

/// `rsgw admin user ...`
#[derive(Subcommand)]
pub enum UserCommand {
    /// Create a user with one key pair (generated unless given).
    Create(UserCreate),
    /// Change a user: display name, e-mail address, bucket limit
    /// (radosgw-admin user modify).
    Modify(UserModify),
    /// Suspend a user: every request they sign is refused (`403
    /// UserSuspended`) until they are enabled again.
    Suspend(Uid),
    /// Enable a suspended user again.
    Enable(Uid),
    /// Show a user and its keys.
    Info(Uid),
    /// Remove a user that owns no buckets, with its keys.
    Rm(Uid),
    /// Objects and bytes of all the user's buckets (from their index
    /// counters: one read per index shard, not per object).
    Stats(Uid),
}

/// `rsgw admin key ...`
#[derive(Subcommand)]
pub enum KeyCommand {
    /// Add a key pair to a user (generated unless given).
    Create(KeyCreate),
    /// Remove an access key.
    Rm {
        /// The access key to remove.
        #[arg(long)]
        access_key: String,
    },
}

/// `rsgw admin bucket ...`
#[derive(Subcommand)]
pub enum BucketCommand {
    /// List buckets (of one user, or of every user).
    List {
        /// Only this user's buckets.
        #[arg(long)]
        uid: Option<String>,
    },
    /// Owner, creation time, object count and bytes of a bucket (from its
    /// index counters: one read per index shard, not per object).
    Stats {
        /// The bucket.
        #[arg(long)]
        bucket: String,
    },
    /// Count the entries of each index shard of a bucket and compare them
    /// with its counters (radosgw-admin's bucket check); exits 1 when they
    /// differ, unless fixed.
    Check {
        /// The bucket.
        #[arg(long)]
        bucket: String,
        /// Set the counters that differ to the count.
        #[arg(long)]
        fix: bool,
    },
}

/// `rsgw admin gc ...`
#[derive(Subcommand)]
pub enum GcCommand {
    /// Run one collection pass now.
    Run {
        /// Also collect uploads younger than `s3.gc_min_age_s` (only when no
        /// gateway is writing to this store).
        #[arg(long)]
        include_all: bool,
    },
}

/// A user id.
#[derive(Args)]
pub struct Uid {
    /// The user id.
    #[arg(long)]
    uid: String,
}

/// Options of `user create`.
#[derive(Args)]
pub struct UserCreate {
    /// The user id.
    #[arg(long)]
    uid: String,
    /// Display name.
    #[arg(long)]
    display_name: String,
    /// E-mail address, by which ACL grants may name the user
    /// (`x-amz-grant-read: emailAddress="..."`); unique across users.
    #[arg(long)]
    email: Option<String>,
    /// Access key (generated when omitted; give both or neither).
    #[arg(long, requires = "secret_key")]
    access_key: Option<String>,
    /// Secret key (generated when omitted).
    #[arg(long, requires = "access_key")]
    secret_key: Option<String>,
    /// Admin caps, as radosgw-admin's `--caps`: `users=*;buckets=read`
    /// (the Admin Ops API, `/admin/...`).
    #[arg(long)]
    caps: Option<String>,
    /// Buckets the user may own: 0 any number, negative none (default
    /// 1000, radosgw's).
    #[arg(long, allow_hyphen_values = true)]
    max_buckets: Option<i64>,
}

/// Options of `user modify`.
#[derive(Args)]
pub struct UserModify {
    /// The user id.
    #[arg(long)]
    uid: String,
    /// The new display name.
    #[arg(long)]
    display_name: Option<String>,
    /// The new e-mail address; "" takes it away.
    #[arg(long)]
    email: Option<String>,
    /// Buckets the user may own: 0 any number, negative none.
    #[arg(long, allow_hyphen_values = true)]
    max_buckets: Option<i64>,
}

/// `rsgw admin caps ...`
#[derive(Subcommand)]
pub enum CapsCommand {
    /// Add admin caps to a user (`users=*;buckets=read`).
    Add(CapsArgs),
    /// Take admin caps from a user.
    Rm(CapsArgs),
}

/// Options of `caps add|rm`.
#[derive(Args)]
pub struct CapsArgs {
    /// The user id.
    #[arg(long)]
    uid: String,
    /// The caps, as radosgw-admin's `--caps`: `type=perm;...`, the perm
    /// `read`, `write` or `*`; the types radosgw knows (`users`,
    /// `buckets`, `usage`, `metadata`, `ratelimit`...).
    #[arg(long)]
    caps: String,
}

/// Options of `key create`.
#[derive(Args)]
pub struct KeyCreate {
    /// The user id.
    #[arg(long)]
    uid: String,
    /// Access key (generated when omitted; give both or neither).
    #[arg(long, requires = "secret_key")]
    access_key: Option<String>,
    /// Secret key (generated when omitted).
    #[arg(long, requires = "access_key")]
    secret_key: Option<String>,
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Runs `f` on a gateway of the configured store and prints its answer.
pub(super) fn with_gateway<F, Fut>(cfg: &Config, f: F) -> Result<()>
where
    F: FnOnce(Gateway) -> Fut,
    Fut: std::future::Future<Output = Result<serde_json::Value>>,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let value = rt.block_on(async {
        let gw = crate::store::open_gateway(cfg)
            .await
            .map_err(|e| -> Box<dyn std::error::Error> { e })?;
        f(gw).await
    })?;
    println!("{}", serde_json::to_string_pretty(&value)?);
    Ok(())
}

fn pair(a: Option<String>, s: Option<String>) -> Option<(String, String)> {
    a.zip(s)
}

/// Runs `rsgw admin user ...`.
pub fn run_user(cfg: &Config, c: UserCommand) -> Result<()> {
    with_gateway(cfg, |gw| async move {
        Ok(match c {
            UserCommand::Create(a) => {
                // a taken or malformed address or key makes no user
                let user = gw
                    .create_user_as(NewUser {
                        uid: a.uid,
                        display_name: a.display_name,
                        email: a.email,
                        key: pair(a.access_key, a.secret_key)
                            .map_or(NewKey::Generate, |(a, s)| NewKey::Given(a, s)),
                        caps: a.caps,
                        max_buckets: a.max_buckets,
                        suspended: false,
                    })
                    .await?;
                serde_json::to_value(user)?
            }
            UserCommand::Modify(m) => {
                let change = UserChange {
                    display_name: m.display_name,
                    email: m.email,
                    max_buckets: m.max_buckets,
                    key: NewKey::None,
                    ..UserChange::default()
                };
                serde_json::to_value(gw.modify_user(&m.uid, change).await?)?
            }
            UserCommand::Suspend(u) => serde_json::to_value(gw.set_suspended(&u.uid, true).await?)?,
            UserCommand::Enable(u) => serde_json::to_value(gw.set_suspended(&u.uid, false).await?)?,
            UserCommand::Info(u) => serde_json::to_value(gw.user_info(&u.uid).await?)?,
            UserCommand::Rm(u) => {
                gw.remove_user(&u.uid).await?;
                json!({ "removed": u.uid })
            }
            UserCommand::Stats(u) => {
                let user = gw.user_info(&u.uid).await?;
                let usage = gw.user_usage(&u.uid).await?;
                json!({
                    "uid": user.user_id,
                    "num_buckets": gw.user_buckets(&u.uid).await?.len(),
                    "num_objects": usage.objects,
                    "size_bytes": usage.bytes,
                    "user_quota": user.user_quota,
                    "bucket_quota": user.bucket_quota,
                })
            }
        })
    })
}

/// Runs `rsgw admin caps ...`.
pub fn run_caps(cfg: &Config, c: CapsCommand) -> Result<()> {
    with_gateway(cfg, |gw| async move {
        let user = match c {
            CapsCommand::Add(a) => gw.add_caps(&a.uid, &a.caps).await?,
            CapsCommand::Rm(a) => gw.remove_caps(&a.uid, &a.caps).await?,
        };
        Ok(serde_json::to_value(user)?)
    })
}

/// Runs `rsgw admin key ...`.
pub fn run_key(cfg: &Config, c: KeyCommand) -> Result<()> {
    with_gateway(cfg, |gw| async move {
        Ok(match c {
            KeyCommand::Create(a) => serde_json::to_value(
                gw.create_key(&a.uid, pair(a.access_key, a.secret_key))
                    .await?,
            )?,
            KeyCommand::Rm { access_key } => {
                serde_json::to_value(gw.remove_key(&access_key).await?)?
            }
        })
    })
}

/// Runs `rsgw admin bucket ...`.
pub fn run_bucket(cfg: &Config, c: BucketCommand) -> Result<()> {
    with_gateway(cfg, |gw| async move {
        Ok(match c {
            BucketCommand::List { uid: Some(uid) } => json!(gw.user_buckets(&uid).await?),
            BucketCommand::List { uid: None } => json!(gw.all_buckets().await?),
            BucketCommand::Stats { bucket } => {
                let info = gw.bucket_info(&bucket).await?;
                let usage = gw.bucket_usage_of(&info).await?;
                let mut stats = json!({
                    "bucket": info.name,
                    "id": info.id,
                    "owner": info.owner,
                    "created": info.created,
                    "acl": info.acl,
                    "num_shards": info.index_shards,
                    "num_objects": usage.objects,
                    "size_bytes": usage.bytes,
                    "quota": info.quota,
                });
                // a versioned bucket's objects are its versions: how many
                // are current, and its delete markers, from a walk
                if let Some(state) = info.versioning {
                    stats["versioning"] = json!(state);
                    stats["versions"] = json!(gw.count_versions(&bucket).await?);
                }
                stats
            }
            BucketCommand::Check { bucket, fix } => {
                let shards = gw.check_bucket(&bucket, fix).await?;
                let drift = shards
                    .iter()
                    .filter(|s| !s.fixed && s.stored != Some(s.counted))
                    .count();
                let out = json!({
                    "bucket": bucket,
                    "shards_differing": drift,
                    "shards_fixed": shards.iter().filter(|s| s.fixed).count(),
                    "shards": shards,
                });
                if drift > 0 {
                    println!("{}", serde_json::to_string_pretty(&out)?);
                    return Err(format!("{drift} index shard(s) of '{bucket}' differ from their counters (--fix sets them)").into());
                }
                out
            }
        })
    })
}

/// Runs `rsgw admin gc ...`.
pub fn run_gc(cfg: &Config, c: GcCommand) -> Result<()> {
    with_gateway(cfg, |gw| async move {
        let GcCommand::Run { include_all } = c;
        let min_age = if include_all {
            Duration::ZERO
        } else {
            gw.options().gc_min_age
        };
        let r = gw.collect_garbage(min_age).await?;
        Ok(json!({
            "entries": r.entries,
            "collected": r.collected,
            "stripes_deleted": r.stripes_deleted,
            "in_progress": r.in_progress,
        }))
    })
}
