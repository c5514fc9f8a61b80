//! `rsgw bench`: load generation against any S3 gateway or web server,
//! rsgw or not. This crate speaks HTTP to its target and depends on none of
//! the server's crates.

pub mod ab;
pub mod http;

use clap::Subcommand;

/// `rsgw bench` subcommands.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// ApacheBench-compatible load: ab's flags (-n -c -t -k -H -i -l -s) and
    /// ab's report, on several threads, up to 20000 connections, resets
    /// counted instead of ending the run; --json for machines.
    Ab(ab::AbArgs),
}

/// Runs a bench subcommand.
pub fn run(cmd: &BenchCommand) -> Result<(), Box<dyn std::error::Error>> {
    match cmd {
        BenchCommand::Ab(args) => ab::run(args),
    }
}
