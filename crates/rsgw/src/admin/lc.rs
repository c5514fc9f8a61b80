//! `rsgw admin lc`: radosgw-admin's `lc process` and `lc list`, as `run`
//! and `status`.

use clap::Subcommand;
use rsgw_config::Config;
use rsgw_gateway::{LcPass, LcReport};
use serde_json::json;

use super::users::with_gateway;

/// `rsgw admin lc ...`
#[derive(Subcommand)]
pub enum LcCommand {
    /// Run a lifecycle pass now (resuming one that died), unless a gateway's
    /// pass runs: then exit 1 naming it.
    Run,
    /// The worker's lease (who runs a pass, until when), how far an
    /// unfinished pass got, and the last finished pass's report.
    Status,
}

fn report(r: &LcReport) -> serde_json::Value {
    serde_json::to_value(r).unwrap_or_default()
}

/// Runs `rsgw admin lc ...`.
pub fn run(cfg: &Config, c: LcCommand) -> Result<(), Box<dyn std::error::Error>> {
    with_gateway(cfg, |gw| async move {
        match c {
            LcCommand::Run => match gw.lifecycle_pass(&super::worker_name("admin")).await? {
                LcPass::Ran(r) => Ok(report(&r)),
                LcPass::Held { holder, expires } => Err(format!(
                    "a lifecycle pass of {holder} runs (its lease expires in {:.0} s)",
                    (expires - now()).max(0.0)
                )
                .into()),
            },
            LcCommand::Status => {
                let s = gw.lifecycle_status().await?;
                Ok(json!({
                    "lease": s.lease.map(|(holder, expires)| json!({
                        "holder": holder,
                        "expires_in_s": ((expires - now()) * 10.0).round() / 10.0,
                    })),
                    "marker": s.marker,
                    "last": s.last.as_ref().map(report),
                }))
            }
        }
    })
}

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
