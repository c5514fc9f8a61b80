//! `rsgw admin store-bench`: the store's own speed, without HTTP or S3 on top.
//!
//! Each measurement runs N concurrent tasks for a fixed time against the
//! async form of the store API, each task recording every operation's latency
//! in an HDR histogram. Operations:
//! - `write_full`: replace a whole object of `--size` bytes;
//! - `read`: read a whole object of `--size` bytes (prepared beforehand);
//! - `omap_set`: set one 100-byte omap entry on one of 64 objects;
//! - `omap_list`: read a page of 100 entries from a 10,000-key omap.
//!
//! Everything lives in namespace `store-bench` of pool `bench`, removed at the end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use clap::{Args, ValueEnum};
use hdrhistogram::Histogram;
use rsgw_store::{NamespaceFilter, ObjectId, ReadOp, Store, WriteOp};
use serde::Serialize;

const POOL: &str = "bench";
const NAMESPACE: &str = "store-bench";
const OMAP_OBJECTS: u64 = 64;
const INDEX_KEYS: u64 = 10_000;

/// One kind of store operation to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BenchOp {
    /// Replace whole objects.
    WriteFull,
    /// Read whole objects.
    Read,
    /// Set one omap entry.
    OmapSet,
    /// List 100 omap entries.
    OmapList,
}

/// Options of `rsgw admin store-bench`.
#[derive(Debug, Args)]
pub struct StoreBenchArgs {
    /// Concurrent operations to measure at (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "1,64")]
    concurrency: Vec<usize>,
    /// Seconds each measurement runs.
    #[arg(long, short, default_value_t = 5.0)]
    seconds: f64,
    /// Object size in bytes for write_full and read.
    #[arg(long, default_value_t = 4096)]
    size: usize,
    /// Number of distinct objects written and read.
    #[arg(long, default_value_t = 1024)]
    objects: u64,
    /// Operations to measure (comma-separated), in this order.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "write-full,read,omap-set,omap-list"
    )]
    ops: Vec<BenchOp>,
    /// Print the results as JSON instead of a table.
    #[arg(long)]
    json: bool,
}

impl BenchOp {
    /// The name used in reports (as in `--ops`, with `_`).
    fn name(self) -> &'static str {
        match self {
            BenchOp::WriteFull => "write_full",
            BenchOp::Read => "read",
            BenchOp::OmapSet => "omap_set",
            BenchOp::OmapList => "omap_list",
        }
    }
}

/// One measurement's outcome.
#[derive(Debug, Serialize)]
struct BenchResult {
    backend: &'static str,
    op: BenchOp,
    concurrency: usize,
    ops: u64,
    errors: u64,
    seconds: f64,
    ops_per_sec: f64,
    p50_us: u64,
    p99_us: u64,
}

fn obj(name: String) -> ObjectId {
    ObjectId::in_namespace(POOL, NAMESPACE, name)
}

/// A small per-task pseudo-random sequence (xorshift), enough to spread keys.
struct Rng(u64);

impl Rng {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below.max(1)
    }
}

async fn one_op(
    store: &dyn Store,
    op: BenchOp,
    args: &StoreBenchArgs,
    data: &Bytes,
    rng: &mut Rng,
) -> bool {
    let result = match op {
        BenchOp::WriteFull => store
            .write(
                &obj(format!("obj-{}", rng.next(args.objects))),
                WriteOp::new().write_full(data.clone()),
            )
            .await
            .map(drop),
        BenchOp::Read => store
            .read(
                &obj(format!("obj-{}", rng.next(args.objects))),
                ReadOp::new().read(0, args.size as u64),
            )
            .await
            .map(drop),
        BenchOp::OmapSet => store
            .write(
                &obj(format!("omap-{}", rng.next(OMAP_OBJECTS))),
                WriteOp::new().omap_set([(
                    format!("k{:08}", rng.next(1 << 20)),
                    data.slice(..100.min(data.len())),
                )]),
            )
            .await
            .map(drop),
        BenchOp::OmapList => store
            .read(
                &obj("index".into()),
                ReadOp::new().omap(format!("k{:05}", rng.next(INDEX_KEYS - 100)), "", 100),
            )
            .await
            .map(drop),
    };
    result.is_ok()
}

/// Latencies from 1 µs to 60 s at 3 significant digits; slower ones are
/// recorded as 60 s.
fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

async fn measure(
    store: Arc<dyn Store>,
    op: BenchOp,
    concurrency: usize,
    args: Arc<StoreBenchArgs>,
) -> BenchResult {
    let data = Bytes::from(vec![0x5a; args.size]);
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(args.seconds);
    let mut tasks = Vec::new();
    for t in 0..concurrency {
        let (store, args, data) = (store.clone(), args.clone(), data.clone());
        tasks.push(tokio::spawn(async move {
            let mut hist = histogram();
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((t as u64 + 1) * 0x2545_f491));
            let mut errors = 0;
            while Instant::now() < deadline {
                let t0 = Instant::now();
                if !one_op(store.as_ref(), op, &args, &data, &mut rng).await {
                    errors += 1;
                }
                hist.saturating_record(t0.elapsed().as_micros() as u64);
            }
            (hist, errors)
        }));
    }
    let mut hist = histogram();
    let mut errors = 0;
    for t in tasks {
        if let Ok((h, e)) = t.await {
            hist.add(&h).expect("histograms of one shape");
            errors += e;
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    BenchResult {
        backend: store.backend(),
        op,
        concurrency,
        ops: hist.len(),
        errors,
        seconds,
        ops_per_sec: hist.len() as f64 / seconds,
        p50_us: hist.value_at_quantile(0.5),
        p99_us: hist.value_at_quantile(0.99),
    }
}

async fn prepare(
    store: &Arc<dyn Store>,
    args: &StoreBenchArgs,
) -> Result<(), Box<dyn std::error::Error>> {
    store.create_pool(POOL).await?;
    let data = Bytes::from(vec![0x5a; args.size]);
    if args.ops.contains(&BenchOp::Read) {
        eprintln!("preparing {} objects of {} bytes", args.objects, args.size);
        let mut set = tokio::task::JoinSet::new();
        for i in 0..args.objects {
            let (store, data) = (store.clone(), data.clone());
            set.spawn(async move {
                store
                    .write(&obj(format!("obj-{i}")), WriteOp::new().write_full(data))
                    .await
            });
            if set.len() >= 64 {
                set.join_next().await.expect("non-empty")??;
            }
        }
        while let Some(r) = set.join_next().await {
            r??;
        }
    }
    if args.ops.contains(&BenchOp::OmapList) {
        eprintln!("preparing an omap of {INDEX_KEYS} keys");
        for batch in 0..INDEX_KEYS / 1000 {
            let entries: Vec<(String, Bytes)> = (batch * 1000..(batch + 1) * 1000)
                .map(|i| (format!("k{i:05}"), data.slice(..100.min(data.len()))))
                .collect();
            store
                .write(&obj("index".into()), WriteOp::new().omap_set(entries))
                .await?;
        }
    }
    Ok(())
}

async fn cleanup(store: &Arc<dyn Store>) -> Result<u64, Box<dyn std::error::Error>> {
    let mut lister = store
        .list_objects(POOL, NamespaceFilter::Only(NAMESPACE.into()))
        .await?;
    let mut removed = 0;
    loop {
        let page = lister.next_page(1000).await?;
        if page.is_empty() {
            return Ok(removed);
        }
        for e in page {
            store.write(&obj(e.name), WriteOp::new().remove()).await?;
            removed += 1;
        }
    }
}

/// Runs the benchmark and prints the results.
pub fn run(store: Arc<dyn Store>, args: StoreBenchArgs) -> Result<(), Box<dyn std::error::Error>> {
    if args.concurrency.contains(&0) || args.seconds <= 0.0 || args.objects == 0 {
        return Err("concurrency, seconds and objects must be above 0".into());
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let args = Arc::new(args);
    rt.block_on(async {
        prepare(&store, &args).await?;
        let mut results = Vec::new();
        for &c in &args.concurrency {
            for &op in &args.ops {
                let r = measure(store.clone(), op, c, args.clone()).await;
                eprintln!(
                    "{:<6} {:<10} c={:<4} {:>10.1} ops/s  p50 {:>6} us  p99 {:>6} us  errors {}",
                    r.backend,
                    r.op.name(),
                    r.concurrency,
                    r.ops_per_sec,
                    r.p50_us,
                    r.p99_us,
                    r.errors
                );
                results.push(r);
            }
        }
        let removed = cleanup(&store).await?;
        eprintln!("removed {removed} benchmark objects");
        if args.json {
            println!("{}", serde_json::to_string_pretty(&results)?);
        } else {
            println!(
                "| backend | op | concurrency | ops/s | p50 (µs) | p99 (µs) | errors |\n|---|---|---:|---:|---:|---:|---:|"
            );
            for r in &results {
                println!(
                    "| {} | {} | {} | {:.0} | {} | {} | {} |",
                    r.backend,
                    r.op.name(),
                    r.concurrency, r.ops_per_sec, r.p50_us, r.p99_us, r.errors
                );
            }
        }
        Ok(())
    })
}
