//! `rsgw bench`: load generation against any S3 gateway or web server,
//! rsgw or not. This crate speaks HTTP to its target and depends on none of
//! the server's crates.

#![forbid(unsafe_code)]

pub mod ab;
pub mod abtest;
pub mod cosbench;
pub mod http;
pub mod lad;
pub mod s3;
pub mod sign;
pub mod sse;
pub mod stats;
pub mod sweep;
pub mod tls;

use clap::Subcommand;

/// `rsgw bench` subcommands.
#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// ApacheBench-compatible load: ab's flags (-n -c -t -k -H -i -l -s) and
    /// ab's report, on several threads, up to 20000 connections, resets
    /// counted instead of ending the run; --json for machines.
    Ab(ab::AbArgs),
    /// Signed S3 workloads from COSBench workload files (init, prepare,
    /// read/write/delete mixes, cleanup, dispose), with per-operation ops/s,
    /// MB/s, latency percentiles and errors.
    S3(s3::S3Args),
    /// The mass-delete listing test: N objects from each of two runs in one
    /// bucket, one run deleted, full listings timed against a fresh bucket
    /// holding only the survivors; optionally a raw index listing command.
    ListAfterDelete(lad::LadArgs),
    /// The sizing lab: starts rsgw and radosgw itself over layouts (cores x
    /// instances, pinned), thread pool sizes and execution models, runs
    /// write, read and ab-style loads at each object size, and writes CSV,
    /// JSON, a Markdown report and SVG/PNG charts.
    Sweep(Box<sweep::SweepArgs>),
    /// An A/B test with a verdict: starts two configurations (rsgw --set
    /// overrides or configs, radosgw ceph.conf sections or options) in
    /// interleaved ABBA trials under one workload, and gives per metric the
    /// medians, the ratio B/A with a bootstrap interval, a verdict and
    /// the host's noise, as Markdown, CSV, JSON, a chart and one summary line.
    AbTest(Box<abtest::AbTestArgs>),
}

/// Runs a bench subcommand.
pub fn run(cmd: &BenchCommand) -> Result<(), Box<dyn std::error::Error>> {
    match cmd {
        BenchCommand::Ab(args) => ab::run(args),
        BenchCommand::S3(args) => s3::run(args),
        BenchCommand::ListAfterDelete(args) => lad::run(args),
        BenchCommand::Sweep(args) => sweep::run(args),
        BenchCommand::AbTest(args) => abtest::run(args),
    }
}
