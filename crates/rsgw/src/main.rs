//! `rsgw`: one binary for the gateway and its tools.
//!
//! `rsgw serve` runs the gateway; `rsgw admin` works on the store directly (like `radosgw-admin` and
//! `rados bench`), against the embedded directory or a Ceph cluster, and can
//! run while a gateway uses the same store.

#![forbid(unsafe_code)]

mod admin;
mod central;
mod decode;
mod health;
mod instances;
mod serve;
mod store;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc instead of glibc's malloc: with hundreds of handler threads
/// sharing glibc's few arenas, allocation was about 15% of a small GET's CPU
/// (docs/perf/frontend.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// rsgw: a native S3 gateway for Ceph, and the lab to size it.
#[derive(Parser)]
#[command(version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the gateway: an HTTP/1.1 S3 endpoint on the configured store
    /// (the embedded backend in ./rsgw-data when no config is given).
    Serve(serve::ServeArgs),
    /// Load generators and the sizing lab, against rsgw or any other server.
    Bench {
        #[command(subcommand)]
        command: rsgw_bench::BenchCommand,
    },
    /// Ask a running instance's admin listener for /health: exit status 0
    /// when it answers 200 (a container HEALTHCHECK).
    Health(health::HealthArgs),
    /// Print a record radosgw wrote in RADOS (saved with `rados get`,
    /// `getomapval` or `getomapheader`) as radosgw-admin prints it: a user
    /// or a link to one, a bucket's entry point or instance, a bucket index
    /// entry or shard header, a bucket's stats from its shard headers, an
    /// object's manifest, an ACL or a bucket's CORS rules.
    Decode(decode::DecodeArgs),
    /// Work on the store directly: benchmarks and maintenance.
    Admin {
        /// Configuration file (TOML; see docs/config.md). Without one the
        /// embedded backend in ./rsgw-data is used.
        #[arg(long, short, global = true, value_name = "FILE")]
        config: Option<PathBuf>,
        #[command(subcommand)]
        command: admin::AdminCommand,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("RSGW_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,s3s=off")),
        )
        .with_writer(std::io::stderr)
        // colours only on a terminal: log files and journald get plain text
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Bench { command } => rsgw_bench::run(&command),
        Command::Health(args) => health::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Admin { config, command } => admin::run(config.as_deref(), command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rsgw: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
