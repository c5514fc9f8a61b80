//! `rsgw admin`: commands that work on the store directly, while a gateway
//! may be running on the same store (as `radosgw-admin` does).

mod lc;
mod quota;
mod radosgw;
mod ratelimit;
mod store_bench;
mod users;

use std::path::Path;

use clap::Subcommand;
use rsgw_config::Config;

/// The `rsgw admin` subcommands.
#[derive(Subcommand)]
pub enum AdminCommand {
    /// Manage S3 users (prints JSON like radosgw-admin).
    #[command(subcommand)]
    User(users::UserCommand),
    /// Manage a user's S3 keys.
    #[command(subcommand)]
    Key(users::KeyCommand),
    /// A user's admin caps (radosgw-admin's caps): which parts of the
    /// Admin Ops API (`/admin/user`, `/admin/bucket`...) they may read or
    /// change.
    #[command(subcommand)]
    Caps(users::CapsCommand),
    /// Inspect buckets.
    #[command(subcommand)]
    Bucket(users::BucketCommand),
    /// List the raw store objects of one of rsgw's pools (meta, index, data),
    /// as `<namespace>/<name>` (the default namespace prints as `/<name>`).
    Objects {
        /// Pool short name: meta, index or data.
        #[arg(long)]
        pool: String,
    },
    /// Rate limits per user, per bucket and for anonymous requests (as
    /// radosgw-admin's ratelimit and global ratelimit): read and write
    /// operations and bytes per second, on each instance; every running
    /// instance applies a change to its next request.
    #[command(subcommand)]
    Ratelimit(ratelimit::RateLimitCommand),
    /// User and bucket quotas (as radosgw-admin's quota): objects and
    /// bytes at most; writes past one answer `403 QuotaExceeded`. Every
    /// running instance applies a change to its next write.
    #[command(subcommand)]
    Quota(quota::QuotaCommand),
    /// Lifecycle passes (radosgw-admin's lc process, lc list): run one
    /// now, or see the worker's state and last report.
    #[command(subcommand)]
    Lc(lc::LcCommand),
    /// Garbage collection of what interrupted or replaced writes left behind.
    #[command(subcommand)]
    Gc(users::GcCommand),
    /// Read a radosgw zone's users, buckets and objects as rsgw reads
    /// radosgw's records (the rados backend's cluster; read only): the
    /// user of an access key, a bucket's listing, an object's head and
    /// bytes.
    Radosgw(radosgw::RadosgwArgs),
    /// Measure the store itself: ops/s and latency of 4 KiB reads and
    /// writes, omap sets and omap listings, at several concurrencies.
    StoreBench(store_bench::StoreBenchArgs),
}

/// Runs an admin command against the configured store.
pub fn run(config: Option<&Path>, command: AdminCommand) -> Result<(), Box<dyn std::error::Error>> {
    let cfg = Config::load_with(config, &rsgw_config::Override::from_env(std::env::vars()))?;
    match command {
        AdminCommand::StoreBench(args) => store_bench::run(crate::store::open(&cfg)?, args),
        AdminCommand::User(c) => users::run_user(&cfg, c),
        AdminCommand::Key(c) => users::run_key(&cfg, c),
        AdminCommand::Caps(c) => users::run_caps(&cfg, c),
        AdminCommand::Bucket(c) => users::run_bucket(&cfg, c),
        AdminCommand::Gc(c) => users::run_gc(&cfg, c),
        AdminCommand::Ratelimit(c) => ratelimit::run(&cfg, c),
        AdminCommand::Quota(c) => quota::run(&cfg, c),
        AdminCommand::Lc(c) => lc::run(&cfg, c),
        AdminCommand::Objects { pool } => list_objects(&cfg, &pool),
        AdminCommand::Radosgw(args) => radosgw::run(&cfg, args),
    }
}

/// A name for a lifecycle worker of this process: `<role>@<host>:<pid>`.
pub(crate) fn worker_name(role: &str) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{role}@{}:{}", host.trim(), std::process::id())
}

fn list_objects(cfg: &Config, pool: &str) -> Result<(), Box<dyn std::error::Error>> {
    let store = crate::store::open(cfg)?;
    let mut lister = store.list_objects_blocking(pool, rsgw_store::NamespaceFilter::All)?;
    let mut names = Vec::new();
    loop {
        let page = lister.next_page_blocking(1000)?;
        if page.is_empty() {
            break;
        }
        names.extend(
            page.into_iter()
                .map(|e| format!("{}/{}", e.namespace, e.name)),
        );
    }
    names.sort();
    println!("{}", serde_json::to_string_pretty(&names)?);
    Ok(())
}
