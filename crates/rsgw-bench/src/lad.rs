//! `rsgw bench list-after-delete`: the mass-delete listing test. One bucket
//! gets N objects from each of two runs, interleaved in key order, then the
//! second run is deleted; a fresh bucket gets only the survivors. Full
//! listings of both (ListObjectsV2, and optionally a raw listing of each
//! bucket's index by a command) are timed: the ratio is what the deletes
//! cost listing. This is the test that motivated deletion-triggered
//! compaction for RocksDB in Ceph.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde::Serialize;

use crate::s3::{Client, between};
use crate::sign::Credentials;

/// `rsgw bench list-after-delete` flags.
#[derive(Args, Debug, Clone)]
pub struct LadArgs {
    /// S3 endpoint, e.g. http://127.0.0.1:7480.
    #[arg(long)]
    pub endpoint: String,
    /// Access key.
    #[arg(long)]
    pub access_key: String,
    /// Secret key.
    #[arg(long)]
    pub secret_key: String,
    /// Region signed into requests.
    #[arg(long, default_value = "us-east-1")]
    pub region: String,
    /// Objects per run (the bucket holds 2N before the delete, N after).
    #[arg(short = 'n', long, default_value_t = 10_000)]
    pub objects: u64,
    /// Concurrent writers and deleters.
    #[arg(long, default_value_t = 32)]
    pub workers: usize,
    /// Timed listings of each bucket; the median counts.
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
    /// A command listing a bucket's index directly, `{bucket}` replaced by
    /// the bucket's name, e.g. 'rsgw admin -c rsgw.toml bucket stats --bucket
    /// {bucket}' or 'radosgw-admin bi list --bucket {bucket}'.
    #[arg(long, value_name = "COMMAND")]
    pub raw_list: Option<String>,
    /// A command run at the end of each phase, `{phase}` replaced by
    /// `written` (both buckets filled), `deleted` (run 2 deleted) or `listed`
    /// (every listing done); the test waits for it and stops if it fails.
    /// For reading the cluster's counters between phases, e.g. 'sample.sh
    /// {phase}'.
    #[arg(long, value_name = "COMMAND")]
    pub on_phase: Option<String>,
    /// Bucket name prefix (two buckets: PREFIX-mixed and PREFIX-fresh).
    #[arg(long, default_value = "lad")]
    pub prefix: String,
    /// Leave the buckets in place.
    #[arg(long)]
    pub keep: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The result.
#[derive(Serialize, Debug, Clone)]
pub struct LadReport {
    /// Objects per run.
    pub objects: u64,
    /// Median full ListObjectsV2 of the bucket that saw the deletes, ms.
    pub list_after_delete_ms: f64,
    /// Median full ListObjectsV2 of the fresh bucket, ms.
    pub list_fresh_ms: f64,
    /// `list_after_delete_ms / list_fresh_ms`.
    pub list_slowdown: f64,
    /// Median raw index listing after the deletes, ms (with --raw-list).
    pub raw_after_delete_ms: Option<f64>,
    /// Median raw index listing of the fresh bucket, ms.
    pub raw_fresh_ms: Option<f64>,
    /// Their ratio.
    pub raw_slowdown: Option<f64>,
    /// Seconds the writes took.
    pub write_s: f64,
    /// Seconds the deletes took.
    pub delete_s: f64,
}

fn key(i: u64, run: u32) -> String {
    format!("obj-{i:08}-run{run}")
}

/// Runs `method` on `/{bucket}/{key(i, run)}` for every i, with `workers`
/// clients like `proto`.
async fn each_object(
    args: &LadArgs,
    proto: &Client,
    method: &'static str,
    bucket: &str,
    runs: &[u32],
) -> Result<(), String> {
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..args.workers.max(1) as u64 {
        let mut client = proto.sibling();
        let (bucket, runs, n, step) = (
            bucket.to_string(),
            runs.to_vec(),
            args.objects,
            args.workers.max(1) as u64,
        );
        tasks.spawn(async move {
            let body = [b'x'; 16];
            let mut i = w;
            while i < n {
                for &run in &runs {
                    let path = format!("/{bucket}/{}", key(i, run));
                    let data: &[u8] = if method == "PUT" { &body } else { &[] };
                    let (status, _) = client.request(method, &path, &[], data, None).await?;
                    if !(200..300).contains(&status) {
                        return Err(format!("{method} {path}: HTTP {status}"));
                    }
                }
                i += step;
            }
            Ok::<(), String>(())
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.map_err(|e| e.to_string())??;
    }
    Ok(())
}

/// Lists the whole bucket with ListObjectsV2; returns the number of keys.
async fn list_all(client: &mut Client, bucket: &str) -> Result<u64, String> {
    let mut token: Option<String> = None;
    let mut keys = 0;
    let mut body = Vec::new();
    loop {
        let mut q = vec![("list-type", "2"), ("max-keys", "1000")];
        if let Some(t) = &token {
            q.push(("continuation-token", t.as_str()));
        }
        let (status, _) = client
            .request("GET", &format!("/{bucket}"), &q, &[], Some(&mut body))
            .await?;
        let text = String::from_utf8_lossy(&body);
        if status != 200 {
            return Err(format!("listing {bucket}: HTTP {status}: {text}"));
        }
        keys += text.matches("<Key>").count() as u64;
        if between(&text, "<IsTruncated>", "</IsTruncated>") != Some("true") {
            return Ok(keys);
        }
        token = Some(
            between(&text, "<NextContinuationToken>", "</NextContinuationToken>")
                .ok_or("truncated listing without NextContinuationToken")?
                .to_string(),
        );
    }
}

fn median(mut v: Vec<Duration>) -> f64 {
    v.sort();
    v.get(v.len() / 2).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn raw_list(cmd: &str, bucket: &str) -> Result<Duration, String> {
    let started = Instant::now();
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd.replace("{bucket}", bucket))
        .stdout(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run --raw-list: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "--raw-list failed for {bucket}: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(started.elapsed())
}

fn on_phase(args: &LadArgs, phase: &str) -> Result<(), String> {
    let Some(cmd) = &args.on_phase else {
        return Ok(());
    };
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(cmd.replace("{phase}", phase))
        .status()
        .map_err(|e| format!("cannot run --on-phase: {e}"))?;
    if !status.success() {
        return Err(format!("--on-phase failed after phase {phase}: {status}"));
    }
    Ok(())
}

/// Runs the test and prints the report.
pub fn run(args: &LadArgs) -> Result<(), Box<dyn std::error::Error>> {
    let creds = Arc::new(Credentials {
        access_key: args.access_key.clone(),
        secret_key: args.secret_key.clone(),
        region: args.region.clone(),
    });
    let (mixed, fresh) = (
        format!("{}-mixed", args.prefix),
        format!("{}-fresh", args.prefix),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let report = rt.block_on(async {
        let mut c = Client::new(&args.endpoint, creds)?;
        for b in [&mixed, &fresh] {
            let (status, _) = c.request("PUT", &format!("/{b}"), &[], &[], None).await?;
            if !(200..300).contains(&status) {
                return Err(format!("cannot create bucket {b}: HTTP {status}"));
            }
        }
        eprintln!(
            "writing {} objects to {mixed} and {} to {fresh}",
            2 * args.objects,
            args.objects
        );
        let t = Instant::now();
        each_object(args, &c, "PUT", &mixed, &[1, 2]).await?;
        each_object(args, &c, "PUT", &fresh, &[1]).await?;
        let write_s = t.elapsed().as_secs_f64();
        on_phase(args, "written")?;
        eprintln!("deleting run 2 ({} objects) from {mixed}", args.objects);
        let t = Instant::now();
        each_object(args, &c, "DELETE", &mixed, &[2]).await?;
        let delete_s = t.elapsed().as_secs_f64();
        on_phase(args, "deleted")?;
        let (mut lm, mut lf, mut rm, mut rf) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for round in 0..args.repeat.max(1) {
            eprintln!("listing, round {}", round + 1);
            for (bucket, times) in [(&mixed, &mut lm), (&fresh, &mut lf)] {
                let t = Instant::now();
                let keys = list_all(&mut c, bucket).await?;
                times.push(t.elapsed());
                if keys != args.objects {
                    return Err(format!(
                        "{bucket} lists {keys} keys, expected {}",
                        args.objects
                    ));
                }
            }
            if let Some(cmd) = &args.raw_list {
                rm.push(raw_list(cmd, &mixed)?);
                rf.push(raw_list(cmd, &fresh)?);
            }
        }
        on_phase(args, "listed")?;
        if !args.keep {
            eprintln!("removing the test buckets");
            each_object(args, &c, "DELETE", &mixed, &[1]).await?;
            each_object(args, &c, "DELETE", &fresh, &[1]).await?;
            for b in [&mixed, &fresh] {
                c.request("DELETE", &format!("/{b}"), &[], &[], None)
                    .await?;
            }
        }
        let (lm, lf) = (median(lm), median(lf));
        let raw = args.raw_list.as_ref().map(|_| (median(rm), median(rf)));
        Ok::<_, String>(LadReport {
            objects: args.objects,
            list_after_delete_ms: lm,
            list_fresh_ms: lf,
            list_slowdown: lm / lf.max(1e-9),
            raw_after_delete_ms: raw.map(|r| r.0),
            raw_fresh_ms: raw.map(|r| r.1),
            raw_slowdown: raw.map(|(a, b)| a / b.max(1e-9)),
            write_s,
            delete_s,
        })
    })?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("objects per run:               {}", report.objects);
        println!(
            "full listing after the delete: {:.1} ms",
            report.list_after_delete_ms
        );
        println!(
            "full listing, fresh bucket:    {:.1} ms",
            report.list_fresh_ms
        );
        println!(
            "slowdown:                      {:.2}x",
            report.list_slowdown
        );
        if let (Some(a), Some(b), Some(r)) = (
            report.raw_after_delete_ms,
            report.raw_fresh_ms,
            report.raw_slowdown,
        ) {
            println!("raw index listing after/fresh: {a:.1} ms / {b:.1} ms = {r:.2}x");
        }
    }
    Ok(())
}
