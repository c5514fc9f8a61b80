//! `rsgw bench sweep`: the sizing lab. It starts the gateways itself over a
//! matrix of layouts (cores per instance x instances, pinned to disjoint
//! CPUs), handler threads and execution models, measures each workload and
//! object size against them, and writes CSV, JSON, a Markdown report and
//! charts.

pub(crate) mod chart;
pub(crate) mod gateway;
mod report;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

pub use gateway::Gateway;
use gateway::{Launcher, Running, Spec, Variant};
pub use report::Row;

use crate::ab::{self, AbArgs};
use crate::cosbench::{
    OpKind, Operation, Selector, Sizes, Stage, Target, Work, WorkKind, Workload,
};
use crate::s3::{self, Client, S3Args};
use crate::sign::Credentials;
use crate::tls::TlsArgs;

/// `rsgw bench sweep` flags.
#[derive(Args, Debug, Clone)]
#[command(after_help = "\
For every layout (CORESxINSTANCES: each instance pinned to its own CORES CPUs), \
every --threads value and every gateway variant (rsgw async, rsgw blocking, \
radosgw), the sweep starts the instances, waits until they answer, and for \
each object size runs each workload: write (100% PUT), read (100% GET of \
prepared objects), ab (anonymous GET of one public object, ab-style: no \
keep-alive unless --ab-keepalive, sizes up to 1 MiB). Each runs --warmup \
seconds unmeasured, then --duration seconds measured; load is spread over the \
instances as a load balancer would. Then the instances are stopped.

Every row records ops/s, MB/s, latency, errors and the gateways' own CPU \
seconds per operation (utime+stime from /proc), which stays comparable on a \
busy host where the load generator shares the CPUs. --repeat N runs the \
matrix N times over; the report then gives each cell as the geometric mean \
of its repeats with a 95% interval (Student's t on the logarithms: with 3 \
repeats a bootstrap could not reach 95%), and the charts draw the intervals \
as error bars.

Results go to --out: results.csv, results.json, report.md and charts/*.svg \
and *.png (ops/s or MB/s against cores per instance, 1 against 2 instances on \
the same CPUs, and against thread pool size). Results are written after each \
gateway run, so an interrupted sweep keeps what it measured.

Example, rsgw on the rados backend against radosgw on the same cluster:
  rsgw bench sweep --rsgw-config rados.toml --ceph-conf ceph.conf \\
      --radosgw-name client.rgw.gw --access-key AK --secret-key SK --out sweep")]
pub struct SweepArgs {
    /// A short sweep for a check: layouts 1x1, 2x1 and 1x2 (fitted to the
    /// host), threads 64 and 512, 2 s runs after 1 s warm-ups, 64 MiB of
    /// objects per size.
    #[arg(long)]
    pub quick: bool,
    /// Gateways to start (comma-separated).
    #[arg(long, value_delimiter = ',', default_values = ["rsgw", "radosgw"])]
    pub gateways: Vec<Gateway>,
    /// rsgw execution models (pool.mode) to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_values = ["async", "blocking"])]
    pub modes: Vec<String>,
    /// Layouts as CORESxINSTANCES (comma-separated), e.g. 4x2 for two
    /// instances of four CPUs each. Default: every power-of-two CORES with
    /// 1 and 2 instances that fits the CPUs this process may use.
    #[arg(long, value_delimiter = ',')]
    pub layouts: Vec<String>,
    /// Handler threads per instance: rsgw's pool.thread_pool_size and
    /// radosgw's rgw_thread_pool_size (comma-separated; default 32,128,512,
    /// --quick 64,512).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Object sizes (comma-separated; B, KiB, MiB).
    #[arg(long, value_delimiter = ',', default_values = ["4KiB", "4MiB"])]
    pub sizes: Vec<String>,
    /// Workloads (comma-separated): write, read, ab.
    #[arg(long, value_delimiter = ',', default_values = ["write", "read", "ab"])]
    pub workloads: Vec<String>,
    /// Measured seconds per workload (default 8, --quick 2).
    #[arg(long)]
    pub duration: Option<u64>,
    /// Run the whole matrix this many times, pass after pass, so that each
    /// cell's repeats are spread over the run and over gateway starts. With
    /// 2 or more, every cell of the report is the geometric mean of its
    /// repeats with a 95% confidence interval, and the charts have error
    /// bars.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub repeat: usize,
    /// Unmeasured seconds before each measurement (default 2, --quick 1).
    #[arg(long)]
    pub warmup: Option<u64>,
    /// S3 workers (keep-alive connections) for write and read.
    #[arg(long, default_value_t = 32)]
    pub workers: usize,
    /// Objects read and overwritten per size.
    #[arg(long, default_value_t = 64)]
    pub objects: u64,
    /// Cap on the bytes prepared per size, in MiB: large objects get fewer
    /// than --objects (at least 4). Default 256, --quick 64.
    #[arg(long)]
    pub dataset_mib: Option<u64>,
    /// Concurrent connections of the ab workload.
    #[arg(long, default_value_t = 1000)]
    pub ab_concurrency: usize,
    /// Keep-alive for the ab workload (ab -k).
    #[arg(long)]
    pub ab_keepalive: bool,
    /// Access key of a user that exists on every gateway measured.
    #[arg(long, required_unless_present_any = ["report_only", "dry_run"])]
    pub access_key: Option<String>,
    /// Its secret key.
    #[arg(long, required_unless_present_any = ["report_only", "dry_run"])]
    pub secret_key: Option<String>,
    /// The rsgw binary (default: this one).
    #[arg(long, value_name = "PATH")]
    pub rsgw: Option<PathBuf>,
    /// rsgw's config file; its store section picks the backend. The sweep
    /// sets the frontend, pool and cpu keys over it.
    #[arg(long, value_name = "FILE")]
    pub rsgw_config: Option<PathBuf>,
    /// The radosgw binary.
    #[arg(long, default_value = "radosgw", value_name = "PATH")]
    pub radosgw: String,
    /// ceph.conf radosgw runs with.
    #[arg(long, value_name = "FILE")]
    pub ceph_conf: Option<PathBuf>,
    /// radosgw's instance name; its ceph.conf section and key are used.
    #[arg(long, default_value = "client.rgw.gw")]
    pub radosgw_name: String,
    /// Beast options after the endpoint. Beast's default tcp_nodelay=0
    /// stalls small keep-alive responses by ~40 ms (Nagle); operators turn
    /// it on, and so does the sweep unless told otherwise.
    #[arg(long, default_value = "tcp_nodelay=1")]
    pub beast_options: String,
    /// First port: instance i listens on PORT+2i (rsgw's admin on PORT+2i+1).
    #[arg(long, default_value_t = 18480)]
    pub port: u16,
    /// Output directory (created).
    #[arg(long, default_value = "sweep")]
    pub out: PathBuf,
    /// A TTF font for the charts' text (default: DejaVu Sans or Liberation
    /// Sans where installed).
    #[arg(long, value_name = "FILE")]
    pub font: Option<PathBuf>,
    /// Print the matrix and exit.
    #[arg(long)]
    pub dry_run: bool,
    /// Redraw report.md and the charts from OUT/results.json without
    /// measuring.
    #[arg(long)]
    pub report_only: bool,
}

/// Cores per instance and instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// CPUs each instance is pinned to.
    pub cores: usize,
    /// Instances, on disjoint CPUs.
    pub instances: usize,
}

impl Layout {
    /// Parses `CORESxINSTANCES`, e.g. `4x2`.
    pub(crate) fn parse(s: &str) -> Result<Self, String> {
        let (c, i) = s
            .trim()
            .split_once(['x', 'X'])
            .ok_or_else(|| format!("layout '{s}' is not CORESxINSTANCES, e.g. 4x2"))?;
        let cores = c
            .trim()
            .parse()
            .map_err(|_| format!("layout '{s}': bad cores"))?;
        let instances = i
            .trim()
            .parse()
            .map_err(|_| format!("layout '{s}': bad instances"))?;
        if cores == 0 || instances == 0 {
            return Err(format!("layout '{s}': cores and instances must be above 0"));
        }
        Ok(Layout { cores, instances })
    }

    /// The CPU list of each instance, from the CPUs this process may use.
    pub(crate) fn cpusets(&self, cpus: &[usize]) -> Vec<String> {
        (0..self.instances)
            .map(|i| gateway::cpu_list(&cpus[i * self.cores..(i + 1) * self.cores]))
            .collect()
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}", self.cores, self.instances)
    }
}

/// A workload the sweep runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// 100% PUT of objects of the size.
    Write,
    /// 100% GET of prepared objects of the size.
    Read,
    /// Anonymous GET of one public object, ab-style.
    Ab,
}

impl Load {
    fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "write" => Ok(Load::Write),
            "read" => Ok(Load::Read),
            "ab" => Ok(Load::Ab),
            o => Err(format!("workload '{o}' is not write, read or ab")),
        }
    }

    /// Its name in reports.
    pub fn name(&self) -> &'static str {
        match self {
            Load::Write => "write",
            Load::Read => "read",
            Load::Ab => "ab",
        }
    }
}

/// The largest object the ab workload serves.
const AB_MAX_SIZE: u64 = 1 << 20;

/// Parses `4KiB`, `4MiB`, `260B`, `4096`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n: u64 = s[..digits]
        .parse()
        .map_err(|_| format!("size '{s}' does not start with a number"))?;
    let unit = match s[digits..].trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        u => return Err(format!("size '{s}': unit '{u}' is not B, KiB, MiB or GiB")),
    };
    Ok(n * unit)
}

/// Writes a size as the sweep names it: `4KiB`, `4MiB`, `260B`.
pub fn size_name(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{}MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{}KiB", n >> 10),
        n => format!("{n}B"),
    }
}

/// The resolved matrix.
struct Plan {
    cpus: Vec<usize>,
    layouts: Vec<Layout>,
    threads: Vec<usize>,
    variants: Vec<Variant>,
    sizes: Vec<u64>,
    loads: Vec<Load>,
    duration: u64,
    warmup: u64,
    dataset_mib: u64,
}

impl Plan {
    fn from_args(args: &SweepArgs) -> Result<Self, String> {
        let cpus = gateway::allowed_cpus();
        let layouts = if args.layouts.is_empty() {
            default_layouts(cpus.len(), args.quick)
        } else {
            args.layouts
                .iter()
                .map(|l| Layout::parse(l))
                .collect::<Result<Vec<_>, _>>()?
        };
        for l in &layouts {
            if l.cores * l.instances > cpus.len() {
                return Err(format!(
                    "layout {l} needs {} CPUs; this process may use {} ({})",
                    l.cores * l.instances,
                    cpus.len(),
                    gateway::cpu_list(&cpus)
                ));
            }
        }
        let threads = match (&args.threads[..], args.quick) {
            ([], false) => vec![32, 128, 512],
            ([], true) => vec![64, 512],
            (t, _) => t.to_vec(),
        };
        if threads.contains(&0) {
            return Err("--threads values must be above 0".into());
        }
        let mut variants = Vec::new();
        for g in &args.gateways {
            match g {
                Gateway::Rsgw => {
                    for m in &args.modes {
                        let mode = match m.trim() {
                            "async" => "async",
                            "blocking" => "blocking",
                            o => return Err(format!("mode '{o}' is not async or blocking")),
                        };
                        variants.push(Variant {
                            gateway: Gateway::Rsgw,
                            mode,
                        });
                    }
                }
                Gateway::Radosgw => {
                    if args.ceph_conf.is_none() {
                        return Err("radosgw needs --ceph-conf (or --gateways rsgw)".into());
                    }
                    variants.push(Variant {
                        gateway: Gateway::Radosgw,
                        mode: "beast",
                    });
                }
            }
        }
        if variants.is_empty() {
            return Err("no gateway to measure".into());
        }
        let sizes = args
            .sizes
            .iter()
            .map(|s| parse_size(s))
            .collect::<Result<Vec<_>, _>>()?;
        if sizes.contains(&0) {
            return Err("object sizes must be above 0".into());
        }
        let loads = args
            .workloads
            .iter()
            .map(|w| Load::parse(w))
            .collect::<Result<Vec<_>, _>>()?;
        if args.workers == 0 || args.objects == 0 || args.ab_concurrency == 0 {
            return Err("--workers, --objects and --ab-concurrency must be above 0".into());
        }
        Ok(Plan {
            cpus,
            layouts,
            threads,
            variants,
            sizes,
            loads,
            duration: args
                .duration
                .unwrap_or(if args.quick { 2 } else { 8 })
                .max(1),
            warmup: args.warmup.unwrap_or(if args.quick { 1 } else { 2 }),
            dataset_mib: args
                .dataset_mib
                .unwrap_or(if args.quick { 64 } else { 256 }),
        })
    }

    /// Gateway starts and measurements the plan makes.
    fn counts(&self) -> (usize, usize) {
        let starts = self.layouts.len() * self.threads.len() * self.variants.len();
        let per_start: usize = self
            .sizes
            .iter()
            .map(|&s| {
                self.loads
                    .iter()
                    .filter(|&&l| l != Load::Ab || s <= AB_MAX_SIZE)
                    .count()
            })
            .sum();
        (starts, starts * per_start)
    }
}

/// Powers of two of cores with one instance, and with two, that fit `n`
/// CPUs; `--quick` keeps the smallest and the largest of each.
fn default_layouts(n: usize, quick: bool) -> Vec<Layout> {
    let mut out = Vec::new();
    for instances in [1, 2] {
        let mut fit: Vec<usize> = std::iter::successors(Some(1usize), |c| Some(c * 2))
            .take_while(|c| c * instances <= n)
            .collect();
        if quick && fit.len() > 2 {
            fit = vec![fit[0], fit[fit.len() - 1]];
        }
        out.extend(fit.into_iter().map(|cores| Layout { cores, instances }));
    }
    out
}

/// Runs the sweep.
pub fn run(args: &SweepArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.report_only {
        let rows = report::read_json(&args.out.join("results.json"))?;
        return finish(args, &rows, "(redrawn from results.json)");
    }
    let plan = Plan::from_args(args)?;
    if args.repeat == 0 {
        return Err("--repeat must be at least 1".into());
    }
    let (per_pass, cells) = plan.counts();
    let starts = per_pass * args.repeat;
    let per_cell = plan.duration + plan.warmup;
    eprintln!(
        "sweep: {} layouts x {} thread counts x {} gateways{} = {starts} gateway runs, {} measurements of {}+{} s (at least {} min)",
        plan.layouts.len(),
        plan.threads.len(),
        plan.variants.len(),
        if args.repeat > 1 {
            format!(" x {} repeats", args.repeat)
        } else {
            String::new()
        },
        cells * args.repeat,
        plan.warmup,
        plan.duration,
        ((cells * args.repeat) as u64 * per_cell).div_ceil(60)
    );
    eprintln!(
        "  layouts {}; threads {:?}; gateways {}; sizes {}; workloads {}",
        plan.layouts
            .iter()
            .map(Layout::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        plan.threads,
        plan.variants
            .iter()
            .map(Variant::label)
            .collect::<Vec<_>>()
            .join(", "),
        plan.sizes
            .iter()
            .map(|&s| size_name(s))
            .collect::<Vec<_>>()
            .join(" "),
        plan.loads
            .iter()
            .map(Load::name)
            .collect::<Vec<_>>()
            .join(" ")
    );
    if args.dry_run {
        return Ok(());
    }
    std::fs::create_dir_all(args.out.join("logs"))?;
    let launcher = Launcher {
        rsgw: match &args.rsgw {
            Some(p) => p.clone(),
            None => std::env::current_exe()?,
        },
        radosgw: args.radosgw.clone(),
        beast_options: args.beast_options.clone(),
        dir: args.out.join("logs"),
        ready_timeout: Duration::from_secs(60),
    };
    let creds = Arc::new(Credentials {
        access_key: args.access_key.clone().ok_or("--access-key is needed")?,
        secret_key: args.secret_key.clone().ok_or("--secret-key is needed")?,
        region: "us-east-1".into(),
    });
    let started = Instant::now();
    let mut rows: Vec<Row> = Vec::new();
    let mut failures = Vec::new();
    let mut done = 0;
    for pass in 1..=args.repeat {
        for layout in &plan.layouts {
            let cpusets = layout.cpusets(&plan.cpus);
            for &threads in &plan.threads {
                for &variant in &plan.variants {
                    done += 1;
                    let tag = format!(
                        "{}-{}-{layout}-t{threads}",
                        variant.label().replace(' ', "-"),
                        done
                    );
                    eprintln!(
                        "[{done}/{starts}]{} {} {layout} threads={threads} on CPUs {} ({:.0} s elapsed)",
                        if args.repeat > 1 {
                            format!(" pass {pass}/{}:", args.repeat)
                        } else {
                            String::new()
                        },
                        variant.label(),
                        cpusets.join(" | "),
                        started.elapsed().as_secs_f64()
                    );
                    let cell = Cell {
                        variant,
                        layout: *layout,
                        threads,
                        repeat: pass,
                    };
                    match launcher.start(&spec(args, variant, threads), args.port, &cpusets, &tag) {
                        Ok(mut running) => {
                            for &size in &plan.sizes {
                                match measure_size(args, &plan, &cell, &mut running, size, &creds) {
                                    Ok(r) => rows.extend(r),
                                    Err(e) => {
                                        eprintln!("  failed: {e}");
                                        failures.push(format!("{tag} {}: {e}", size_name(size)));
                                    }
                                }
                            }
                            running.stop();
                        }
                        Err(e) => {
                            eprintln!("  failed to start: {e}");
                            failures.push(format!("{tag}: {e}"));
                        }
                    }
                    report::write_data(&args.out, &rows)?;
                }
            }
        }
    }
    let header = format!(
        "{} gateway runs in {:.0} s; failures: {}",
        starts,
        started.elapsed().as_secs_f64(),
        if failures.is_empty() {
            "none".to_string()
        } else {
            failures.join("; ")
        }
    );
    finish(args, &rows, &header)?;
    if !failures.is_empty() {
        return Err(format!(
            "{} gateway runs or sizes failed: {}",
            failures.len(),
            failures.join("; ")
        )
        .into());
    }
    Ok(())
}

/// What a gateway run of the sweep starts: the variant's config, execution
/// model and thread count.
fn spec(args: &SweepArgs, variant: Variant, threads: usize) -> Spec {
    match variant.gateway {
        Gateway::Rsgw => Spec {
            gateway: Gateway::Rsgw,
            config: args.rsgw_config.clone(),
            radosgw_name: String::new(),
            sets: vec![
                format!("pool.mode=\"{}\"", variant.mode),
                format!("pool.thread_pool_size={threads}"),
            ],
        },
        Gateway::Radosgw => Spec {
            gateway: Gateway::Radosgw,
            config: args.ceph_conf.clone(),
            radosgw_name: args.radosgw_name.clone(),
            sets: vec![format!("rgw_thread_pool_size={threads}")],
        },
    }
}

/// Writes the data, the report and the charts.
fn finish(args: &SweepArgs, rows: &[Row], summary: &str) -> Result<(), Box<dyn std::error::Error>> {
    report::write_data(&args.out, rows)?;
    let charts = chart::draw_all(&args.out.join("charts"), rows, args.font.as_deref())?;
    let md = report::markdown(rows, &charts, summary);
    std::fs::write(args.out.join("report.md"), md)?;
    eprintln!(
        "sweep: {} rows; {}/results.csv, results.json, report.md and {} charts in charts/",
        rows.len(),
        args.out.display(),
        charts.len()
    );
    Ok(())
}

/// One gateway run: which variant, layout and thread count, in which pass.
struct Cell {
    variant: Variant,
    layout: Layout,
    threads: usize,
    repeat: usize,
}

/// The bucket the sweep works in.
const BUCKET_PREFIX: &str = "rsgw-sweep";

fn target(objects: Selector, size: u64) -> Target {
    Target {
        cprefix: BUCKET_PREFIX.into(),
        oprefix: "obj".into(),
        containers: Some(Selector::Constant(1)),
        objects: Some(objects),
        sizes: Some(Sizes {
            selector: Selector::Constant(size),
            unit: 1,
        }),
    }
}

fn stage(name: &str, workers: usize, runtime: Option<u64>, kind: WorkKind) -> Stage {
    Stage {
        name: name.into(),
        works: vec![Work {
            name: name.into(),
            workers,
            runtime,
            total_ops: None,
            kind,
        }],
    }
}

fn s3_args(args: &SweepArgs, endpoints: &[String]) -> S3Args {
    S3Args {
        workload: None,
        mix: None,
        sizes: String::new(),
        objects: args.objects,
        workers: args.workers,
        ops: None,
        cprefix: BUCKET_PREFIX.into(),
        pick: s3::Pick::Uniform,
        verify: false,
        endpoint: Some(endpoints.join(",")),
        access_key: args.access_key.clone(),
        secret_key: args.secret_key.clone(),
        region: "us-east-1".into(),
        runtime: None,
        max_workers: None,
        quiet: true,
        json: false,
        tls: TlsArgs::default(),
        sse: None,
        versioning: false,
        keep: false,
    }
}

/// Runs `stages` and fails on any error.
fn run_stages(
    args: &SweepArgs,
    endpoints: &[String],
    stages: Vec<Stage>,
) -> Result<Vec<s3::WorkReport>, String> {
    let workload = Workload {
        name: "sweep".into(),
        storage: Vec::new(),
        stages,
    };
    let reports =
        s3::run_workload(&workload, &s3_args(args, endpoints)).map_err(|e| e.to_string())?;
    Ok(reports)
}

/// Measures every workload at one object size on running instances.
fn measure_size(
    args: &SweepArgs,
    plan: &Plan,
    cell: &Cell,
    running: &mut Running,
    size: u64,
    creds: &Arc<Credentials>,
) -> Result<Vec<Row>, String> {
    let n = args.objects.min((plan.dataset_mib << 20) / size).max(4);
    let all = target(Selector::Range(1, n), size);
    let setup = run_stages(
        args,
        &running.endpoints,
        vec![
            stage("init", 1, None, WorkKind::Init(all.clone())),
            stage(
                "prepare",
                args.workers,
                None,
                WorkKind::Prepare(all.clone()),
            ),
        ],
    )?;
    let setup_errors: u64 = setup.iter().flat_map(|w| &w.ops).map(|o| o.errors).sum();
    if setup_errors > 0 {
        return Err(format!(
            "{setup_errors} errors writing the {n} objects to read"
        ));
    }
    let mut rows = Vec::new();
    for &load in &plan.loads {
        if load == Load::Ab && size > AB_MAX_SIZE {
            continue;
        }
        let row = measure_load(args, plan, cell, running, size, n, load, creds)?;
        eprintln!(
            "  {:<5} {:>6}  {:>9.0} ops/s {:>8.1} MB/s  p50 {:>7.2} ms  p99 {:>7.2} ms  {:>6.0} us CPU/op  errors {}",
            load.name(),
            size_name(size),
            row.ops_per_s,
            row.mb_per_s,
            row.p50_ms,
            row.p99_ms,
            row.cpu_us_per_op,
            row.errors
        );
        rows.push(row);
        if !running.alive() {
            return Err("a gateway instance exited during the run".into());
        }
    }
    run_stages(
        args,
        &running.endpoints,
        vec![
            stage(
                "cleanup",
                args.workers,
                None,
                WorkKind::Cleanup(all.clone()),
            ),
            stage("dispose", 1, None, WorkKind::Dispose(all)),
        ],
    )?;
    Ok(rows)
}

/// The figures of one measured run, before CPU accounting.
pub(crate) struct Measured {
    /// Measured seconds.
    pub(crate) seconds: f64,
    /// Successful operations.
    pub(crate) ops: u64,
    /// Failed operations (transport errors and non-2xx).
    pub(crate) errors: u64,
    /// Payload MB (10^6) per second.
    pub(crate) mb_per_s: f64,
    /// Median latency, ms.
    pub(crate) p50_ms: f64,
    /// 99th percentile latency, ms.
    pub(crate) p99_ms: f64,
}

/// ab's load for `seconds` on `urls` (spread over them), as the sweep and
/// the A/B tests measure it: quiet, going on after errors, a response of
/// another length than the first counted once, as non-2xx.
pub(crate) fn measure_ab(
    urls: &[String],
    concurrency: usize,
    keepalive: bool,
    seconds: u64,
) -> Result<Measured, String> {
    let (url, also) = urls.split_first().ok_or("no instance runs")?;
    let r = ab::measure(&AbArgs {
        requests: Some(100_000_000),
        concurrency,
        timelimit: Some(seconds as f64),
        keepalive,
        head: false,
        headers: Vec::new(),
        // a 503's body differs in length from the object's: with -l it
        // counts once, as non-2xx, not also as a failure
        variable_length: true,
        timeout: 30.0,
        continue_on_errors: true,
        quiet: true,
        threads: None,
        json: false,
        rate: None,
        also: also.to_vec(),
        tls: TlsArgs::default(),
        url: url.clone(),
    })
    .map_err(|e| e.to_string())?;
    let pct = |p: u32| {
        r.percentiles
            .iter()
            .find(|(q, _)| *q == p)
            .map_or(0.0, |(_, v)| *v)
    };
    let errors = r.failed_requests + r.non_2xx_responses;
    Ok(Measured {
        seconds: r.time_taken_s,
        ops: r.complete_requests.saturating_sub(errors),
        errors,
        mb_per_s: r.html_transferred as f64 / 1e6 / r.time_taken_s.max(1e-9),
        p50_ms: pct(50),
        p99_ms: pct(99),
    })
}

#[allow(clippy::too_many_arguments)]
fn measure_load(
    args: &SweepArgs,
    plan: &Plan,
    cell: &Cell,
    running: &Running,
    size: u64,
    objects: u64,
    load: Load,
    creds: &Arc<Credentials>,
) -> Result<Row, String> {
    let run = |seconds: u64| -> Result<Measured, String> {
        match load {
            Load::Write | Load::Read => {
                let kind = if load == Load::Write {
                    OpKind::Write
                } else {
                    OpKind::Read
                };
                let reports = run_stages(
                    args,
                    &running.endpoints,
                    vec![stage(
                        "main",
                        args.workers,
                        Some(seconds),
                        WorkKind::Normal(vec![Operation {
                            kind,
                            ratio: 100,
                            target: target(Selector::Uniform(1, objects), size),
                        }]),
                    )],
                )?;
                let w = reports.first().ok_or("no report")?;
                let op = w.ops.iter().find(|o| o.op == load.name());
                Ok(Measured {
                    seconds: w.seconds,
                    ops: op.map_or(0, |o| o.ops),
                    errors: w.ops.iter().map(|o| o.errors).sum(),
                    mb_per_s: op.map_or(0.0, |o| o.mb_per_s),
                    p50_ms: op.map_or(0.0, |o| o.p50_ms),
                    p99_ms: op.map_or(0.0, |o| o.p99_ms),
                })
            }
            Load::Ab => {
                let path = format!("/{BUCKET_PREFIX}1/public-{}", size_name(size));
                let urls: Vec<String> = running
                    .endpoints
                    .iter()
                    .map(|e| format!("{e}{path}"))
                    .collect();
                measure_ab(&urls, args.ab_concurrency, args.ab_keepalive, seconds)
            }
        }
    };
    if load == Load::Ab {
        public_object(&running.endpoints[0], creds, size, true)?;
    }
    if plan.warmup > 0 {
        run(plan.warmup)?;
    }
    let gw0 = running.cpu_seconds();
    let client0 = gateway::own_cpu_seconds();
    let host0 = gateway::host_jiffies();
    let m = run(plan.duration)?;
    let gw_cpu = running.cpu_seconds() - gw0;
    if load == Load::Ab {
        public_object(&running.endpoints[0], creds, size, false)?;
    }
    let client_cpu = gateway::own_cpu_seconds() - client0;
    let host_busy = match (host0, gateway::host_jiffies()) {
        (Some((b0, t0)), Some((b1, t1))) if t1 > t0 => 100.0 * (b1 - b0) as f64 / (t1 - t0) as f64,
        _ => 0.0,
    };
    Ok(Row {
        gateway: match cell.variant.gateway {
            Gateway::Rsgw => "rsgw".into(),
            Gateway::Radosgw => "radosgw".into(),
        },
        mode: cell.variant.mode.into(),
        variant: cell.variant.label(),
        cores: cell.layout.cores,
        instances: cell.layout.instances,
        threads: cell.threads,
        workload: load.name().into(),
        object_size: size,
        concurrency: if load == Load::Ab {
            args.ab_concurrency
        } else {
            args.workers
        },
        seconds: m.seconds,
        ops: m.ops,
        errors: m.errors,
        ops_per_s: m.ops as f64 / m.seconds.max(1e-9),
        mb_per_s: m.mb_per_s,
        p50_ms: m.p50_ms,
        p99_ms: m.p99_ms,
        gateway_cpu_s: gw_cpu,
        cpu_us_per_op: if m.ops > 0 {
            gw_cpu * 1e6 / m.ops as f64
        } else {
            0.0
        },
        client_cpu_s: client_cpu,
        host_busy_pct: host_busy,
        repeat: cell.repeat,
    })
}

/// Uploads (`put`) or removes the public object the ab workload fetches
/// anonymously.
fn public_object(
    endpoint: &str,
    creds: &Arc<Credentials>,
    size: u64,
    put: bool,
) -> Result<(), String> {
    let mut client = Client::new(endpoint, creds.clone())?;
    let path = format!("/{BUCKET_PREFIX}1/public-{}", size_name(size));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (status, _) = if put {
        let body = vec![b'x'; size as usize];
        rt.block_on(client.request_with(
            "PUT",
            &path,
            &[],
            &[("x-amz-acl", "public-read")],
            &body,
            None,
        ))?
    } else {
        rt.block_on(client.request("DELETE", &path, &[], &[], None))?
    };
    if !(200..300).contains(&status) {
        return Err(format!(
            "{} {path} answered HTTP {status}",
            if put {
                "PUT (x-amz-acl: public-read)"
            } else {
                "DELETE"
            }
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_layouts_parse() {
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("4MiB"), Ok(4 << 20));
        assert_eq!(parse_size("260"), Ok(260));
        assert!(parse_size("4XB").is_err());
        assert_eq!(size_name(4096), "4KiB");
        assert_eq!(size_name(4 << 20), "4MiB");
        assert_eq!(size_name(260), "260B");
        assert_eq!(
            Layout::parse("4x2"),
            Ok(Layout {
                cores: 4,
                instances: 2
            })
        );
        assert!(Layout::parse("4").is_err());
        assert!(Layout::parse("0x2").is_err());
        let l = Layout {
            cores: 2,
            instances: 2,
        };
        assert_eq!(l.cpusets(&[0, 1, 2, 3]), ["0-1", "2-3"]);
    }

    #[test]
    fn default_layouts_fit_the_host() {
        let show = |n, q| {
            default_layouts(n, q)
                .iter()
                .map(Layout::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(show(2, false), "1x1 2x1 1x2");
        assert_eq!(show(2, true), "1x1 2x1 1x2");
        assert_eq!(show(8, false), "1x1 2x1 4x1 8x1 1x2 2x2 4x2");
        assert_eq!(show(8, true), "1x1 8x1 1x2 4x2");
        assert_eq!(show(1, false), "1x1");
    }
}
