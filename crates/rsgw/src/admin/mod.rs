//! `rsgw admin`: commands that work on the store directly.

mod store_bench;

use std::path::Path;

use clap::Subcommand;
use rsgw_config::Config;

/// The `rsgw admin` subcommands.
#[derive(Subcommand)]
pub enum AdminCommand {
    /// Measure the store itself: ops/s and latency of 4 KiB reads and
    /// writes, omap sets and omap listings, at several concurrencies.
    StoreBench(store_bench::StoreBenchArgs),
}

/// Runs an admin command against the configured store.
pub fn run(config: Option<&Path>, command: AdminCommand) -> Result<(), Box<dyn std::error::Error>> {
    let cfg = Config::load_or_default(config)?;
    let store = crate::store::open(&cfg.store)?;
    match command {
        AdminCommand::StoreBench(args) => store_bench::run(store, args),
    }
}
