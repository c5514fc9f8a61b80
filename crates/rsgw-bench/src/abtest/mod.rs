//! `rsgw bench ab-test`: two gateway configurations, A and B, under one
//! workload, in interleaved trials (A B B A ...), each side's gateways
//! started the way the sweep starts them; per metric the medians, the ratio
//! B/A with a bootstrap interval (95% by default) and a verdict, with the host's noise
//! measured beside them.

mod chart;
mod report;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use clap::Args;
use serde::{Deserialize, Serialize};

use crate::ab;
use crate::cosbench::{Stage, WorkKind, Workload};
use crate::s3::{self, Client, S3Args};
use crate::sign::Credentials;
use crate::sweep::gateway::{self, Gateway, Launcher, Running, Spec};
use crate::sweep::{Layout, Measured, measure_ab, parse_size, size_name};
use crate::tls::TlsArgs;

pub use report::{MetricResult, Noise, Results, Trial};

/// `rsgw bench ab-test` flags.
#[derive(Args, Debug, Clone)]
#[command(after_help = "\
Two targets, A and B, are started by the test itself, as the sweep starts its \
gateways: rsgw with `rsgw serve --config FILE --set ...`, radosgw with \
`taskset radosgw --conf CEPH_CONF --name NAME --KEY=VALUE ...`. A side is the \
shared flags (--gateway, --rsgw-config or --ceph-conf, --radosgw-name, --set, \
--layout) with that side's --a-* or --b-* flags over them. The workload runs \
in 2N trials in ABBA order (A B B A A B B A ...), which cancels a steady drift \
of the host; before each trial the side's gateways are started afresh (unless \
--keep-running) and loaded for --warmup seconds unmeasured, then for \
--duration seconds measured. Each side works in buckets of its own, created \
before its first trial and removed after its last.

For each metric (ops/s, p50 and p99 latency, the gateways' CPU time per \
operation) the report gives both sides' medians, the ratio B/A with a \
percentile-bootstrap interval (--confidence, 95% by default; --resamples \
draws, seeded by --seed), and a \
verdict: B better or B worse when the interval excludes 1, otherwise no \
difference detectable at this noise, with the smallest difference the run \
could have detected (80% power). Host noise (busy and steal time from \
/proc/stat, and the CPU used by processes other than the gateways, this \
load generator and the host's Ceph daemons, whose CPU is reported apart: \
they are the store under test) is measured during every trial and \
reported; a metric whose \
smallest detectable difference exceeds --min-effect is called too noisy for \
that question.

Output in --out: report.md, trials.csv, summary.csv, results.json and \
abtest.svg/.png (both sides' trial values per metric, and each ratio with its \
interval); the last line on stdout is a one-line summary (--json prints \
results.json instead).

Examples:
  rsgw in blocking mode, 8 against 256 handler threads, the store slowed down:
    rsgw bench ab-test --rsgw-config rsgw.toml --access-key AK --secret-key SK \\
      --set pool.mode=blocking --set store.inject_latency_ms=20 \\
      --a-set pool.thread_pool_size=8 --b-set pool.thread_pool_size=256 --keepalive
  radosgw with 512 against 128 threads:
    rsgw bench ab-test --gateway radosgw --ceph-conf ceph.conf --radosgw-name client.rgw.gw \\
      --a-set rgw_thread_pool_size=512 --b-set rgw_thread_pool_size=128 --access-key AK --secret-key SK
  rsgw async against radosgw, an S3 read/write mix:
    rsgw bench ab-test --a-gateway rsgw --b-gateway radosgw --rsgw-config rados.toml \\
      --ceph-conf ceph.conf --workload mix --mix read=80,write=20 --access-key AK --secret-key SK")]
pub struct AbTestArgs {
    /// The gateway of both sides: rsgw or radosgw.
    #[arg(long, value_enum, default_value = "rsgw")]
    pub gateway: Gateway,
    /// Side A's gateway (default --gateway).
    #[arg(long, value_enum)]
    pub a_gateway: Option<Gateway>,
    /// Side B's gateway (default --gateway).
    #[arg(long, value_enum)]
    pub b_gateway: Option<Gateway>,
    /// rsgw's config file for rsgw sides; its store section picks the
    /// backend (none: rsgw's defaults, the embedded store in ./rsgw-data).
    /// The test sets the listeners and the CPU pinning over it.
    #[arg(long, value_name = "FILE")]
    pub rsgw_config: Option<PathBuf>,
    /// ceph.conf radosgw sides run with.
    #[arg(long, value_name = "FILE")]
    pub ceph_conf: Option<PathBuf>,
    /// Side A's config file: rsgw's TOML, or radosgw's ceph.conf (default
    /// --rsgw-config or --ceph-conf).
    #[arg(long, value_name = "FILE")]
    pub a_config: Option<PathBuf>,
    /// Side B's config file, as --a-config.
    #[arg(long, value_name = "FILE")]
    pub b_config: Option<PathBuf>,
    /// radosgw's instance name: its ceph.conf section and key.
    #[arg(long, default_value = "client.rgw.gw")]
    pub radosgw_name: String,
    /// Side A's radosgw instance name (ceph.conf section; default
    /// --radosgw-name).
    #[arg(long, value_name = "NAME")]
    pub a_name: Option<String>,
    /// Side B's radosgw instance name, as --a-name.
    #[arg(long, value_name = "NAME")]
    pub b_name: Option<String>,
    /// A setting of both sides, KEY=VALUE, repeatable: rsgw's `--set
    /// section.key=value` (pool.mode=blocking), radosgw's `--key=value`
    /// (rgw_thread_pool_size=512).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// A setting of side A only, after the --set ones (repeatable).
    #[arg(long = "a-set", value_name = "KEY=VALUE")]
    pub a_set: Vec<String>,
    /// A setting of side B only, after the --set ones (repeatable).
    #[arg(long = "b-set", value_name = "KEY=VALUE")]
    pub b_set: Vec<String>,
    /// Layout of both sides, CORESxINSTANCES, each instance pinned to its
    /// own CPUs (default: one instance on every CPU this process may use).
    #[arg(long)]
    pub layout: Option<String>,
    /// Side A's layout (default --layout).
    #[arg(long)]
    pub a_layout: Option<String>,
    /// Side B's layout (default --layout).
    #[arg(long)]
    pub b_layout: Option<String>,
    /// Side A's name in reports.
    #[arg(long, default_value = "A")]
    pub a_label: String,
    /// Side B's name in reports.
    #[arg(long, default_value = "B")]
    pub b_label: String,
    /// The workload: `ab` (anonymous GETs of one public-read object, as ab
    /// sends them), `read` (100% signed GET of --objects objects), `write`
    /// (100% PUT), `mix` (the --mix of operations), or a COSBench workload
    /// file (its init and prepare works run before a side's first trial,
    /// its normal works are the trial, cleanup and dispose run after the
    /// last; timed works run for --duration).
    #[arg(long, default_value = "ab", value_name = "ab|read|write|mix|FILE.xml")]
    pub workload: String,
    /// Object size of the generated workloads (B, KiB, MiB).
    #[arg(long, default_value = "4KiB")]
    pub size: String,
    /// `mix`: operations and their percentages.
    #[arg(
        long,
        default_value = "read=80,write=20",
        value_name = "OP=PERCENT,..."
    )]
    pub mix: String,
    /// `ab`: concurrent connections.
    #[arg(long, default_value_t = 100)]
    pub concurrency: usize,
    /// `ab`: keep-alive (ab -k); without it every request opens a
    /// connection.
    #[arg(long)]
    pub keepalive: bool,
    /// `read`, `write`, `mix`: S3 workers, each on one keep-alive connection.
    #[arg(long, default_value_t = 32)]
    pub workers: usize,
    /// `read`, `write`, `mix`: objects written before the first trial and
    /// picked from at random.
    #[arg(long, default_value_t = 64)]
    pub objects: u64,
    /// A COSBench file: run each work with at most this many workers.
    #[arg(long, value_name = "N")]
    pub max_workers: Option<usize>,
    /// Measured trials per side (at least 3; under 5 the interval covers
    /// less than its confidence says).
    #[arg(long, default_value_t = 8)]
    pub trials: usize,
    /// Measured seconds per trial.
    #[arg(long, default_value_t = 5)]
    pub duration: u64,
    /// Unmeasured seconds of load before each trial's measurement.
    #[arg(long, default_value_t = 2)]
    pub warmup: u64,
    /// Start each side's gateways once and keep them running, alternating
    /// the load between them, instead of a fresh start per trial; each side
    /// first runs one discarded trial (--warmup plus --duration seconds of
    /// load). Faster, but what differs between two starts of one
    /// configuration is then not sampled, and an A/A test may find a
    /// difference.
    #[arg(long)]
    pub keep_running: bool,
    /// The smallest difference that matters, in percent: a metric with no
    /// detectable difference whose smallest detectable one exceeds this is
    /// reported as too noisy for the question (default 10; with
    /// --report-only, the run's own unless given).
    #[arg(long, value_name = "PERCENT")]
    pub min_effect: Option<f64>,
    /// Confidence level of the intervals and verdicts, in percent (default
    /// 95; with --report-only, the run's own unless given). A verdict at
    /// 95% calls a difference between equal configurations in about one
    /// metric in 20-30; 99.9% in about one in 300 or fewer, with 8 trials
    /// a side.
    #[arg(long, value_name = "PERCENT")]
    pub confidence: Option<f64>,
    /// Bootstrap resamples per interval.
    #[arg(long, default_value_t = 10_000)]
    pub resamples: usize,
    /// Seed of the bootstrap: the same trials and seed give the same
    /// intervals.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Access key of a user that exists on every gateway tested.
    #[arg(long, required_unless_present = "report_only")]
    pub access_key: Option<String>,
    /// Its secret key.
    #[arg(long, required_unless_present = "report_only")]
    pub secret_key: Option<String>,
    /// The rsgw binary (default: this one).
    #[arg(long, value_name = "PATH")]
    pub rsgw: Option<PathBuf>,
    /// Side A's rsgw binary (default --rsgw): two builds compared, the cost
    /// of a change measured.
    #[arg(long, value_name = "PATH")]
    pub a_rsgw: Option<PathBuf>,
    /// Side B's rsgw binary (default --rsgw).
    #[arg(long, value_name = "PATH")]
    pub b_rsgw: Option<PathBuf>,
    /// The radosgw binary.
    #[arg(long, default_value = "radosgw", value_name = "PATH")]
    pub radosgw: String,
    /// Beast options after the endpoint (radosgw sides).
    #[arg(long, default_value = "tcp_nodelay=1")]
    pub beast_options: String,
    /// First port: side A's instance i listens on PORT+2i, side B's after
    /// A's (rsgw's admin listener on the port after each).
    #[arg(long, default_value_t = 18580)]
    pub port: u16,
    /// Output directory (created).
    #[arg(long, default_value = "abtest")]
    pub out: PathBuf,
    /// A TTF font for the chart (default: DejaVu Sans or Liberation Sans
    /// where installed).
    #[arg(long, value_name = "FILE")]
    pub font: Option<PathBuf>,
    /// Print results.json on stdout instead of the one-line summary.
    #[arg(long)]
    pub json: bool,
    /// Recompute the statistics and rewrite the report, CSV and chart from
    /// OUT/results.json without measuring.
    #[arg(long)]
    pub report_only: bool,
}

/// One side as the flags resolve it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SideInfo {
    /// `A` or `B`.
    pub side: String,
    /// Its name in reports (`--a-label`).
    pub label: String,
    /// Which gateway.
    pub gateway: Gateway,
    /// rsgw's config file or radosgw's ceph.conf.
    pub config: Option<PathBuf>,
    /// radosgw's instance name.
    pub radosgw_name: Option<String>,
    /// Settings over the config, in order.
    pub sets: Vec<String>,
    /// `CORESxINSTANCES`.
    pub layout: String,
    /// Each instance's CPU list.
    pub cpusets: Vec<String>,
    /// Port of its first instance.
    pub port: u16,
    /// Its own rsgw binary (`--a-rsgw`, `--b-rsgw`), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rsgw: Option<PathBuf>,
}

impl SideInfo {
    /// One line saying what the side runs.
    pub fn describe(&self) -> String {
        let mut d = match self.gateway {
            Gateway::Rsgw => "rsgw".to_string(),
            Gateway::Radosgw => format!(
                "radosgw {}",
                self.radosgw_name.as_deref().unwrap_or_default()
            ),
        };
        if let Some(b) = &self.rsgw {
            d.push_str(&format!(", binary {}", b.display()));
        }
        if let Some(c) = &self.config {
            d.push_str(&format!(", config {}", c.display()));
        }
        if !self.sets.is_empty() {
            d.push_str(&format!(", {}", self.sets.join(" ")));
        }
        d.push_str(&format!(
            ", layout {} (CPUs {})",
            self.layout,
            self.cpusets.join(" | ")
        ));
        d
    }

    /// What sets this side apart from `other`, briefly: its label if one
    /// was given, else its own settings, gateway, config or layout.
    pub fn short(&self, other: &SideInfo) -> String {
        if self.label != self.side {
            return self.label.clone();
        }
        let mut parts: Vec<String> = Vec::new();
        if self.gateway != other.gateway {
            parts.push(
                match self.gateway {
                    Gateway::Rsgw => "rsgw",
                    Gateway::Radosgw => "radosgw",
                }
                .into(),
            );
        }
        if self.radosgw_name != other.radosgw_name
            && let Some(n) = &self.radosgw_name
        {
            parts.push(n.clone());
        }
        if self.rsgw != other.rsgw
            && let Some(b) = &self.rsgw
        {
            parts.push(format!("binary {}", b.display()));
        }
        if self.config != other.config
            && let Some(c) = &self.config
        {
            parts.push(c.file_name().map_or_else(
                || c.display().to_string(),
                |f| f.to_string_lossy().into_owned(),
            ));
        }
        parts.extend(
            self.sets
                .iter()
                .filter(|s| !other.sets.contains(s))
                .cloned(),
        );
        if self.layout != other.layout {
            parts.push(format!("layout {}", self.layout));
        }
        if parts.is_empty() {
            "the same configuration".into()
        } else {
            parts.join(" ")
        }
    }

    fn spec(&self) -> Spec {
        Spec {
            gateway: self.gateway,
            config: self.config.clone(),
            radosgw_name: self.radosgw_name.clone().unwrap_or_default(),
            sets: self.sets.clone(),
        }
    }
}

/// Resolves one side from the shared and the side's own flags.
#[allow(clippy::too_many_arguments)]
fn side(
    args: &AbTestArgs,
    side: &str,
    label: &str,
    gateway: Option<Gateway>,
    config: Option<&PathBuf>,
    name: Option<&String>,
    sets: &[String],
    layout: Option<&String>,
    port: u16,
) -> Result<SideInfo, String> {
    let gateway = gateway.unwrap_or(args.gateway);
    let cpus = gateway::allowed_cpus();
    let layout = match layout.or(args.layout.as_ref()) {
        Some(l) => Layout::parse(l)?,
        None => Layout {
            cores: cpus.len(),
            instances: 1,
        },
    };
    if layout.cores * layout.instances > cpus.len() {
        return Err(format!(
            "side {side}: layout {layout} needs {} CPUs; this process may use {} ({})",
            layout.cores * layout.instances,
            cpus.len(),
            gateway::cpu_list(&cpus)
        ));
    }
    let config = match gateway {
        Gateway::Rsgw => config.or(args.rsgw_config.as_ref()).cloned(),
        Gateway::Radosgw => Some(
            config
                .or(args.ceph_conf.as_ref())
                .cloned()
                .ok_or_else(|| format!("side {side} is radosgw: give --ceph-conf"))?,
        ),
    };
    let all_sets: Vec<String> = args.set.iter().chain(sets).cloned().collect();
    let info = SideInfo {
        side: side.into(),
        label: label.into(),
        gateway,
        config,
        radosgw_name: (gateway == Gateway::Radosgw)
            .then(|| name.unwrap_or(&args.radosgw_name).clone()),
        sets: all_sets,
        layout: layout.to_string(),
        cpusets: layout.cpusets(&cpus),
        port,
        rsgw: None,
    };
    // a malformed setting is an error now, not at the first start
    info.spec().set_args()?;
    Ok(info)
}

/// The name of the public object of the `ab` workload.
const AB_OBJECT: &str = "public";

/// The workload as one side runs it, in buckets of its own.
enum Work {
    /// Anonymous GETs of `/bucket/public`.
    Ab {
        bucket: String,
        size: u64,
        concurrency: usize,
        keepalive: bool,
    },
    /// Signed S3 works: `setup` before the side's first trial, `main` as
    /// each trial, `teardown` after its last.
    S3 {
        setup: Vec<Stage>,
        main: Vec<Stage>,
        teardown: Vec<Stage>,
    },
}

/// What running a workload needs besides the gateways.
struct Context {
    creds: Arc<Credentials>,
    max_workers: Option<usize>,
}

impl Context {
    fn s3_args(&self, endpoints: &[String]) -> S3Args {
        S3Args {
            workload: None,
            mix: None,
            sizes: String::new(),
            objects: 0,
            workers: 0,
            ops: None,
            cprefix: String::new(),
            pick: s3::Pick::Uniform,
            verify: false,
            endpoint: Some(endpoints.join(",")),
            access_key: Some(self.creds.access_key.clone()),
            secret_key: Some(self.creds.secret_key.clone()),
            region: self.creds.region.clone(),
            runtime: None,
            max_workers: self.max_workers,
            quiet: true,
            json: false,
            tls: TlsArgs::default(),
            sse: None,
            versioning: false,
            keep: false,
        }
    }

    fn run_stages(
        &self,
        endpoints: &[String],
        stages: Vec<Stage>,
    ) -> Result<Vec<s3::WorkReport>, String> {
        let workload = Workload {
            name: "ab-test".into(),
            storage: Vec::new(),
            stages,
        };
        s3::run_workload(&workload, &self.s3_args(endpoints)).map_err(|e| e.to_string())
    }

    /// A signed request to the first endpoint; fails on a status outside 2xx.
    fn request(
        &self,
        endpoint: &str,
        method: &str,
        path: &str,
        amz: &[(&str, &str)],
        body: &[u8],
    ) -> Result<(), String> {
        let mut client = Client::new(endpoint, self.creds.clone())?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let (status, _) = rt.block_on(client.request_with(method, path, &[], amz, body, None))?;
        if !(200..300).contains(&status) {
            return Err(format!("{method} {path} answered HTTP {status}"));
        }
        Ok(())
    }
}

fn first(running: &Running) -> Result<&str, String> {
    running
        .endpoints
        .first()
        .map(String::as_str)
        .ok_or_else(|| "no instance runs".to_string())
}

impl Work {
    /// The workload of the flags, for side `key` (`a` or `b`).
    fn new(args: &AbTestArgs, key: &str) -> Result<Self, String> {
        let size = parse_size(&args.size)?;
        if size == 0 {
            return Err("--size must be above 0".into());
        }
        let bucket = format!("rsgw-abtest-{key}");
        let workload = match args.workload.as_str() {
            "ab" => {
                if args.concurrency == 0 || args.concurrency > ab::MAX_CONCURRENCY {
                    return Err(format!(
                        "--concurrency must be between 1 and {}",
                        ab::MAX_CONCURRENCY
                    ));
                }
                return Ok(Work::Ab {
                    bucket,
                    size,
                    concurrency: args.concurrency,
                    keepalive: args.keepalive,
                });
            }
            w @ ("read" | "write" | "mix") => {
                let mix = match w {
                    "read" => "read=100",
                    "write" => "write=100",
                    _ => args.mix.as_str(),
                };
                s3::mix_workload(
                    &S3Args {
                        workload: None,
                        mix: Some(mix.into()),
                        sizes: format!("c({size})B"),
                        objects: args.objects,
                        workers: args.workers,
                        ops: None,
                        cprefix: bucket.clone(),
                        pick: s3::Pick::Uniform,
                        verify: false,
                        endpoint: None,
                        access_key: None,
                        secret_key: None,
                        region: "us-east-1".into(),
                        runtime: Some(args.duration),
                        max_workers: None,
                        quiet: true,
                        json: false,
                        tls: TlsArgs::default(),
                        sse: None,
                        versioning: false,
                        keep: false,
                    },
                    mix,
                )?
            }
            path => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("--workload {path}: not ab, read, write or mix, and not a readable COSBench file: {e}"))?;
                let mut w = Workload::parse(&text).map_err(|e| format!("{path}: {e}"))?;
                // each side in containers of its own
                for work in w.stages.iter_mut().flat_map(|s| s.works.iter_mut()) {
                    match &mut work.kind {
                        WorkKind::Init(t)
                        | WorkKind::Prepare(t)
                        | WorkKind::Cleanup(t)
                        | WorkKind::Dispose(t) => t.cprefix.push_str(key),
                        WorkKind::Normal(ops) => {
                            ops.iter_mut().for_each(|o| o.target.cprefix.push_str(key));
                        }
                    }
                }
                w
            }
        };
        Self::split(workload)
    }

    /// Splits a workload's stages: before its normal works, the normal
    /// works, after them.
    fn split(workload: Workload) -> Result<Self, String> {
        let normal = |s: &Stage| {
            s.works
                .iter()
                .any(|w| matches!(w.kind, WorkKind::Normal(_)))
        };
        let all_normal = |s: &Stage| {
            s.works
                .iter()
                .all(|w| matches!(w.kind, WorkKind::Normal(_)))
        };
        let first = workload
            .stages
            .iter()
            .position(normal)
            .ok_or("the workload has no normal work to measure")?;
        let last = workload.stages.iter().rposition(normal).unwrap_or(first);
        if !workload.stages[first..=last].iter().all(all_normal) {
            return Err(
                "the workload's normal works must be consecutive stages, after init and prepare and before cleanup and dispose"
                    .into(),
            );
        }
        let mut stages = workload.stages;
        let teardown = stages.split_off(last + 1);
        let main = stages.split_off(first);
        Ok(Work::S3 {
            setup: stages,
            main,
            teardown,
        })
    }

    /// What the trials run, in words.
    fn describe(&self) -> String {
        match self {
            Work::Ab {
                size,
                concurrency,
                keepalive,
                ..
            } => format!(
                "ab: anonymous GET of one {} public-read object, {concurrency} connections, {}",
                size_name(*size),
                if *keepalive {
                    "keep-alive"
                } else {
                    "a connection per request"
                }
            ),
            Work::S3 { main, .. } => {
                let works: Vec<String> = main
                    .iter()
                    .flat_map(|s| &s.works)
                    .map(|w| {
                        let ops = match &w.kind {
                            WorkKind::Normal(ops) => ops
                                .iter()
                                .map(|o| format!("{}={}", o.kind.name(), o.ratio))
                                .collect::<Vec<_>>()
                                .join(","),
                            _ => String::new(),
                        };
                        let size = match &w.kind {
                            WorkKind::Normal(ops) => ops
                                .iter()
                                .find_map(|o| o.target.sizes)
                                .map(|s| {
                                    let (lo, hi) = s.selector.bounds();
                                    if lo == hi {
                                        format!(", {}", size_name(lo * s.unit))
                                    } else {
                                        format!(
                                            ", {}-{}",
                                            size_name(lo * s.unit),
                                            size_name(hi * s.unit)
                                        )
                                    }
                                })
                                .unwrap_or_default(),
                            _ => String::new(),
                        };
                        format!("{} ({ops}{size}, {} workers)", w.name, w.workers)
                    })
                    .collect();
                format!("S3: {}", works.join(", then "))
            }
        }
    }

    fn setup(&self, cx: &Context, running: &Running) -> Result<(), String> {
        match self {
            Work::Ab { bucket, size, .. } => {
                let e = first(running)?;
                cx.request(e, "PUT", &format!("/{bucket}"), &[], &[])?;
                cx.request(
                    e,
                    "PUT",
                    &format!("/{bucket}/{AB_OBJECT}"),
                    &[("x-amz-acl", "public-read")],
                    &vec![b'x'; *size as usize],
                )
            }
            Work::S3 { setup, .. } => {
                let reports = cx.run_stages(&running.endpoints, setup.clone())?;
                let errors: u64 = reports.iter().flat_map(|w| &w.ops).map(|o| o.errors).sum();
                if errors > 0 {
                    return Err(format!("{errors} errors creating the buckets and objects"));
                }
                Ok(())
            }
        }
    }

    fn teardown(&self, cx: &Context, running: &Running) -> Result<(), String> {
        match self {
            Work::Ab { bucket, .. } => {
                let e = first(running)?;
                cx.request(e, "DELETE", &format!("/{bucket}/{AB_OBJECT}"), &[], &[])?;
                cx.request(e, "DELETE", &format!("/{bucket}"), &[], &[])
            }
            Work::S3 { teardown, .. } => {
                let reports = cx.run_stages(&running.endpoints, teardown.clone())?;
                let errors: u64 = reports.iter().flat_map(|w| &w.ops).map(|o| o.errors).sum();
                if errors > 0 {
                    return Err(format!("{errors} errors removing the objects and buckets"));
                }
                Ok(())
            }
        }
    }

    /// Runs the load for `seconds` (works by count run their count).
    fn run(&self, cx: &Context, running: &Running, seconds: u64) -> Result<Measured, String> {
        match self {
            Work::Ab {
                bucket,
                concurrency,
                keepalive,
                ..
            } => {
                let urls: Vec<String> = running
                    .endpoints
                    .iter()
                    .map(|e| format!("{e}/{bucket}/{AB_OBJECT}"))
                    .collect();
                measure_ab(&urls, *concurrency, *keepalive, seconds)
            }
            Work::S3 { main, .. } => {
                let mut stages = main.clone();
                for w in stages.iter_mut().flat_map(|s| s.works.iter_mut()) {
                    if w.total_ops.is_none() {
                        w.runtime = Some(seconds);
                    }
                }
                let reports = cx.run_stages(&running.endpoints, stages)?;
                let seconds: f64 = reports.iter().map(|w| w.seconds).sum();
                let ops: u64 = reports.iter().flat_map(|w| &w.ops).map(|o| o.ops).sum();
                let errors = reports.iter().flat_map(|w| &w.ops).map(|o| o.errors).sum();
                let mb: f64 = reports
                    .iter()
                    .flat_map(|w| w.ops.iter().map(move |o| o.mb_per_s * w.seconds))
                    .sum();
                let mut latency: Option<hdrhistogram::Histogram<u64>> = None;
                for h in reports.iter().filter_map(|w| w.latency.as_ref()) {
                    match &mut latency {
                        Some(all) => {
                            let _ = all.add(h);
                        }
                        None => latency = Some(h.clone()),
                    }
                }
                let q = |p: f64| {
                    latency
                        .as_ref()
                        .map_or(0.0, |h| h.value_at_quantile(p) as f64 / 1000.0)
                };
                Ok(Measured {
                    seconds,
                    ops,
                    errors,
                    mb_per_s: mb / seconds.max(1e-9),
                    p50_ms: q(0.5),
                    p99_ms: q(0.99),
                })
            }
        }
    }
}

/// The order of the trials: A B B A, repeated; an odd count per side ends
/// with A B. `false` is A.
pub fn abba(per_side: usize) -> Vec<bool> {
    (0..2 * per_side).map(|i| matches!(i % 4, 1 | 2)).collect()
}

/// The CPU counters read around a measurement.
struct Snapshot {
    gateway_s: f64,
    own_s: f64,
    ceph_s: f64,
    host: Option<gateway::HostCpu>,
    at: Instant,
}

fn snapshot(running: &Running) -> Snapshot {
    Snapshot {
        gateway_s: running.cpu_seconds(),
        own_s: gateway::own_cpu_seconds(),
        ceph_s: gateway::ceph_daemons_cpu_seconds(),
        host: gateway::host_cpu(),
        at: Instant::now(),
    }
}

/// One trial: start (unless kept running), set up before the side's first
/// trial, warm up, measure, tear down after its last, stop.
fn trial(
    cx: &Context,
    work: &Work,
    running: &mut Running,
    warmup: u64,
    duration: u64,
    setup: bool,
    teardown: bool,
) -> Result<(Measured, Snapshot, Snapshot), String> {
    if setup {
        work.setup(cx, running)?;
    }
    if warmup > 0 {
        work.run(cx, running, warmup)?;
    }
    let before = snapshot(running);
    let m = work.run(cx, running, duration)?;
    let after = snapshot(running);
    if !running.alive() {
        return Err("a gateway instance exited during the trial".into());
    }
    if teardown && let Err(e) = work.teardown(cx, running) {
        eprintln!("  cleaning up: {e}");
    }
    Ok((m, before, after))
}

/// Runs the test, or redraws its report with `--report-only`.
pub fn run(args: &AbTestArgs) -> Result<(), Box<dyn std::error::Error>> {
    if let Some(c) = args.confidence
        && !(50.0..100.0).contains(&c)
    {
        return Err("--confidence must be at least 50 and below 100 (percent)".into());
    }
    let results = if args.report_only {
        let mut r = report::read_json(&args.out.join("results.json"))?;
        if let Some(c) = args.confidence {
            r.confidence_pct = c;
        }
        if let Some(m) = args.min_effect {
            r.min_effect_pct = m;
        }
        report::analyze(&mut r);
        r
    } else {
        measure(args)?
    };
    let charts = chart::draw(&args.out, &results, args.font.as_deref())?;
    report::write_all(&args.out, &results, &charts)?;
    eprintln!(
        "ab-test: {}/report.md, trials.csv, summary.csv, results.json and {}",
        args.out.display(),
        charts.join(", ")
    );
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        println!("{}", results.summary);
    }
    Ok(())
}

/// Measures every trial and analyzes them.
fn measure(args: &AbTestArgs) -> Result<Results, Box<dyn std::error::Error>> {
    if args.trials < 3 {
        return Err("--trials must be at least 3 per side (5 or more for a 95% interval)".into());
    }
    if args.duration == 0 {
        return Err("--duration must be above 0".into());
    }
    let a_layout_instances = match args.a_layout.as_ref().or(args.layout.as_ref()) {
        Some(l) => Layout::parse(l)?.instances,
        None => 1,
    };
    let mut sides = [
        side(
            args,
            "A",
            &args.a_label,
            args.a_gateway,
            args.a_config.as_ref(),
            args.a_name.as_ref(),
            &args.a_set,
            args.a_layout.as_ref(),
            args.port,
        )?,
        side(
            args,
            "B",
            &args.b_label,
            args.b_gateway,
            args.b_config.as_ref(),
            args.b_name.as_ref(),
            &args.b_set,
            args.b_layout.as_ref(),
            args.port + 2 * a_layout_instances as u16,
        )?,
    ];
    for (s, binary) in sides.iter_mut().zip([&args.a_rsgw, &args.b_rsgw]) {
        if s.gateway == Gateway::Rsgw {
            s.rsgw.clone_from(binary);
        }
    }
    let works = [Work::new(args, "a")?, Work::new(args, "b")?];
    let cx = Context {
        creds: Arc::new(Credentials {
            access_key: args.access_key.clone().ok_or("--access-key is needed")?,
            secret_key: args.secret_key.clone().ok_or("--secret-key is needed")?,
            region: "us-east-1".into(),
        }),
        max_workers: args.max_workers,
    };
    let order = abba(args.trials);
    let restart = !args.keep_running;
    let per_trial = args.warmup + args.duration + u64::from(restart);
    eprintln!(
        "ab-test: {} trials ({} per side, ABBA order), {}{} s warm-up + {} s measured each: at least {} min",
        order.len(),
        args.trials,
        if restart {
            "fresh gateways per trial, "
        } else {
            "gateways kept running, "
        },
        args.warmup,
        args.duration,
        (order.len() as u64 * per_trial).div_ceil(60)
    );
    for s in &sides {
        eprintln!("  {} ({}): {}", s.side, s.label, s.describe());
    }
    let workload = works[0].describe();
    eprintln!("  workload: {workload}");
    std::fs::create_dir_all(args.out.join("logs"))?;
    let default_rsgw = match &args.rsgw {
        Some(p) => p.clone(),
        None => std::env::current_exe()?,
    };
    let launchers = sides.each_ref().map(|s| Launcher {
        rsgw: s.rsgw.clone().unwrap_or_else(|| default_rsgw.clone()),
        radosgw: args.radosgw.clone(),
        beast_options: args.beast_options.clone(),
        dir: args.out.join("logs"),
        ready_timeout: Duration::from_secs(60),
    });
    let start = |i: usize, tag: &str| -> Result<Running, String> {
        launchers[i].start(&sides[i].spec(), sides[i].port, &sides[i].cpusets, tag)
    };
    let mut kept: [Option<Running>; 2] = [None, None];
    if !restart {
        for i in 0..2 {
            let r = start(i, &format!("{}-kept", sides[i].side.to_lowercase()))?;
            works[i].setup(&cx, &r)?;
            kept[i] = Some(r);
        }
        // every later trial meets a gateway that has run before: so does
        // the first, after one discarded trial
        for (i, r) in kept.iter().enumerate() {
            if let Some(r) = r {
                eprintln!(
                    "[warm-up] {}: {} s of load, discarded",
                    sides[i].side,
                    args.warmup + args.duration
                );
                works[i].run(&cx, r, args.warmup + args.duration)?;
            }
        }
    }
    let last = [
        order.iter().rposition(|&b| !b).unwrap_or(0),
        order.iter().rposition(|&b| b).unwrap_or(0),
    ];
    let started = Instant::now();
    let started_unix = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut trials: Vec<Trial> = Vec::new();
    let mut count = [0usize; 2];
    let clock = gateway::clock_ticks();
    for (i, &is_b) in order.iter().enumerate() {
        let s = usize::from(is_b);
        count[s] += 1;
        let side = &sides[s];
        let tag = format!("{}-{}", side.side.to_lowercase(), count[s]);
        let (m, before, after) = match kept[s].as_mut() {
            Some(r) => trial(&cx, &works[s], r, args.warmup, args.duration, false, false)?,
            None => {
                let mut r = start(s, &tag)?;
                let t = trial(
                    &cx,
                    &works[s],
                    &mut r,
                    args.warmup,
                    args.duration,
                    count[s] == 1,
                    i == last[s],
                );
                r.stop();
                t?
            }
        };
        let wall = (after.at - before.at).as_secs_f64().max(1e-9);
        let gw = after.gateway_s - before.gateway_s;
        let own = after.own_s - before.own_s;
        // a daemon that stopped during the trial takes its time with it
        let ceph = (after.ceph_s - before.ceph_s).max(0.0);
        let (busy_pct, steal_pct, others) = match (before.host, after.host) {
            (Some(h0), Some(h1)) if h1.total > h0.total => {
                let total = (h1.total - h0.total) as f64;
                let busy = h1.busy.saturating_sub(h0.busy) as f64;
                let steal = h1.steal.saturating_sub(h0.steal) as f64;
                (
                    100.0 * busy / total,
                    100.0 * steal / total,
                    ((busy / clock - gw - own - ceph) / wall).max(0.0),
                )
            }
            _ => (0.0, 0.0, 0.0),
        };
        let t = Trial {
            order: i + 1,
            side: side.side.clone(),
            trial: count[s],
            seconds: m.seconds,
            ops: m.ops,
            errors: m.errors,
            ops_per_s: m.ops as f64 / m.seconds.max(1e-9),
            mb_per_s: m.mb_per_s,
            p50_ms: m.p50_ms,
            p99_ms: m.p99_ms,
            gateway_cpu_s: gw,
            cpu_us_per_op: if m.ops > 0 {
                gw * 1e6 / m.ops as f64
            } else {
                0.0
            },
            client_cpu_s: own,
            host_busy_pct: busy_pct,
            steal_pct,
            ceph_cores: ceph / wall,
            others_cores: others,
            loadavg: gateway::loadavg().unwrap_or(0.0),
        };
        let elapsed = started.elapsed().as_secs_f64();
        eprintln!(
            "[{}/{}] {} trial {}: {:.0} ops/s  p50 {:.2} ms  p99 {:.2} ms  {:.0} us CPU/op  errors {}  ceph {:.2} cores  others {:.2} cores  steal {:.1}%  ({:.0} s, ~{:.0} s left)",
            i + 1,
            order.len(),
            side.side,
            count[s],
            t.ops_per_s,
            t.p50_ms,
            t.p99_ms,
            t.cpu_us_per_op,
            t.errors,
            t.ceph_cores,
            t.others_cores,
            t.steal_pct,
            elapsed,
            elapsed / (i + 1) as f64 * (order.len() - i - 1) as f64
        );
        trials.push(t);
        report::write_trials_csv(&args.out, &trials)?;
    }
    for (i, r) in kept.iter_mut().enumerate() {
        if let Some(r) = r {
            if let Err(e) = works[i].teardown(&cx, r) {
                eprintln!("  cleaning up side {}: {e}", sides[i].side);
            }
            r.stop();
        }
    }
    let [a, b] = sides;
    let mut results = Results {
        command: std::env::args().collect::<Vec<_>>().join(" "),
        started_unix,
        host_cpus: gateway::allowed_cpus().len(),
        a,
        b,
        workload,
        trials_per_side: args.trials,
        duration_s: args.duration,
        warmup_s: args.warmup,
        restart_each_trial: restart,
        seed: args.seed,
        resamples: args.resamples,
        confidence_pct: args.confidence.unwrap_or(95.0),
        min_effect_pct: args.min_effect.unwrap_or(10.0),
        trials,
        metrics: Vec::new(),
        noise: Noise::default(),
        summary: String::new(),
    };
    report::analyze(&mut results);
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cosbench::{Operation, Selector, Sizes, Target, Work as CWork};

    #[test]
    fn abba_balances_the_sides() {
        let show = |n| {
            abba(n)
                .iter()
                .map(|&b| if b { 'B' } else { 'A' })
                .collect::<String>()
        };
        assert_eq!(show(2), "ABBA");
        assert_eq!(show(3), "ABBAAB");
        assert_eq!(show(4), "ABBAABBA");
        for n in 1..12 {
            let o = abba(n);
            assert_eq!(o.iter().filter(|&&b| b).count(), n);
        }
    }

    fn stage(name: &str, kind: WorkKind) -> Stage {
        Stage {
            name: name.into(),
            works: vec![CWork {
                name: name.into(),
                workers: 1,
                runtime: None,
                total_ops: None,
                kind,
            }],
        }
    }

    #[test]
    fn workloads_split_around_their_normal_works() {
        let t = Target {
            cprefix: "c".into(),
            oprefix: "o".into(),
            containers: Some(Selector::Constant(1)),
            objects: Some(Selector::Range(1, 4)),
            sizes: Some(Sizes {
                selector: Selector::Constant(4),
                unit: 1024,
            }),
        };
        let normal = || {
            WorkKind::Normal(vec![Operation {
                kind: crate::cosbench::OpKind::Read,
                ratio: 100,
                target: t.clone(),
            }])
        };
        let w = Workload {
            name: "w".into(),
            storage: Vec::new(),
            stages: vec![
                stage("init", WorkKind::Init(t.clone())),
                stage("prepare", WorkKind::Prepare(t.clone())),
                stage("main", normal()),
                stage("again", normal()),
                stage("cleanup", WorkKind::Cleanup(t.clone())),
                stage("dispose", WorkKind::Dispose(t.clone())),
            ],
        };
        match Work::split(w.clone()).expect("split") {
            Work::S3 {
                setup,
                main,
                teardown,
            } => {
                let names = |s: &[Stage]| s.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
                assert_eq!(names(&setup), ["init", "prepare"]);
                assert_eq!(names(&main), ["main", "again"]);
                assert_eq!(names(&teardown), ["cleanup", "dispose"]);
            }
            Work::Ab { .. } => panic!("not an S3 workload"),
        }
        let mut gap = w.clone();
        gap.stages
            .insert(3, stage("prepare2", WorkKind::Prepare(t.clone())));
        assert!(Work::split(gap).is_err());
        let mut none = w;
        none.stages
            .retain(|s| !s.name.starts_with("main") && s.name != "again");
        assert!(Work::split(none).is_err());
    }

    fn args(extra: &[&str]) -> AbTestArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            args: AbTestArgs,
        }
        let mut argv = vec!["ab-test", "--access-key", "AK", "--secret-key", "SK"];
        argv.extend_from_slice(extra);
        Cli::try_parse_from(argv).expect("flags").args
    }

    #[test]
    fn sides_take_the_shared_flags_and_their_own() {
        let a = args(&[
            "--rsgw-config",
            "r.toml",
            "--set",
            "pool.mode=blocking",
            "--a-set",
            "pool.thread_pool_size=8",
            "--b-set",
            "pool.thread_pool_size=256",
            "--layout",
            "1x1",
        ]);
        let sa = side(
            &a,
            "A",
            "A",
            a.a_gateway,
            a.a_config.as_ref(),
            a.a_name.as_ref(),
            &a.a_set,
            a.a_layout.as_ref(),
            100,
        )
        .expect("side A");
        assert_eq!(sa.sets, ["pool.mode=blocking", "pool.thread_pool_size=8"]);
        assert_eq!(sa.config, Some(PathBuf::from("r.toml")));
        assert_eq!(sa.layout, "1x1");
        assert_eq!(sa.radosgw_name, None);
        let mut sb = sa.clone();
        sb.side = "B".into();
        sb.label = "B".into();
        assert_eq!(sa.short(&sb), "the same configuration");
        sb.sets[1] = "pool.thread_pool_size=256".into();
        assert_eq!(sb.short(&sa), "pool.thread_pool_size=256");
        sb.rsgw = Some(PathBuf::from("new/rsgw"));
        assert_eq!(sb.short(&sa), "binary new/rsgw pool.thread_pool_size=256");
        assert!(
            sb.describe()
                .starts_with("rsgw, binary new/rsgw, config r.toml")
        );
        sb.label = "big pool".into();
        assert_eq!(sb.short(&sa), "big pool");
        assert!(sa.describe().starts_with(
            "rsgw, config r.toml, pool.mode=blocking pool.thread_pool_size=8, layout 1x1"
        ));
        let r = args(&["--gateway", "radosgw", "--b-name", "client.rgw.b"]);
        let err = side(&r, "B", "B", None, None, r.b_name.as_ref(), &[], None, 1);
        assert!(err.is_err_and(|e| e.contains("--ceph-conf")));
        let r = args(&[
            "--gateway",
            "radosgw",
            "--ceph-conf",
            "c.conf",
            "--b-set",
            "rgw_thread_pool_size=128",
        ]);
        let sb = side(
            &r,
            "B",
            "B",
            None,
            None,
            Some(&"client.rgw.b".to_string()),
            &r.b_set,
            None,
            1,
        )
        .expect("side B");
        assert_eq!(sb.radosgw_name.as_deref(), Some("client.rgw.b"));
        assert_eq!(sb.config, Some(PathBuf::from("c.conf")));
        let bad = args(&["--a-set", "novalue"]);
        assert!(side(&bad, "A", "A", None, None, None, &bad.a_set, None, 1).is_err());
        let big = args(&["--layout", "1024x2"]);
        assert!(
            side(
                &big,
                "A",
                "A",
                None,
                None,
                None,
                &[],
                big.layout.as_ref(),
                1
            )
            .is_err()
        );
    }

    #[test]
    fn generated_workloads_use_a_bucket_per_side() {
        let a = args(&[
            "--workload",
            "mix",
            "--mix",
            "read=70,write=30",
            "--objects",
            "10",
        ]);
        let w = Work::new(&a, "b").expect("work");
        assert!(
            w.describe()
                .starts_with("S3: main (read=70,write=30, 4KiB, 32 workers)"),
            "{}",
            w.describe()
        );
        match w {
            Work::S3 { setup, main, .. } => {
                assert_eq!(setup.len(), 2);
                match &main[0].works[0].kind {
                    WorkKind::Normal(ops) => {
                        assert_eq!(ops[0].target.container(1), "rsgw-abtest-b1");
                    }
                    _ => panic!("not normal"),
                }
            }
            Work::Ab { .. } => panic!("not S3"),
        }
        let ab = Work::new(&args(&["--keepalive"]), "a").expect("work");
        assert_eq!(
            ab.describe(),
            "ab: anonymous GET of one 4KiB public-read object, 100 connections, keep-alive"
        );
        assert!(Work::new(&args(&["--workload", "/no/such.xml"]), "a").is_err());
        assert!(Work::new(&args(&["--concurrency", "0"]), "a").is_err());
    }
}
