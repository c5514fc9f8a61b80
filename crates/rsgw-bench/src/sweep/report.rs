//! The sweep's results: one [`Row`] per measurement, written as CSV and
//! JSON, and the Markdown report that pivots them per workload.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::chart::ChartRef;
use super::size_name;

/// One measurement: a workload at one object size against one gateway
/// variant, layout and thread count.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Row {
    /// `rsgw` or `radosgw`.
    pub gateway: String,
    /// `async`, `blocking` or `beast`.
    pub mode: String,
    /// `rsgw async`, `rsgw blocking`, `radosgw`.
    pub variant: String,
    /// CPUs per instance.
    pub cores: usize,
    /// Instances.
    pub instances: usize,
    /// Handler threads per instance.
    pub threads: usize,
    /// `write`, `read` or `ab`.
    pub workload: String,
    /// Bytes per object.
    pub object_size: u64,
    /// Workers or connections driving the load.
    pub concurrency: usize,
    /// Measured seconds.
    pub seconds: f64,
    /// Successful operations.
    pub ops: u64,
    /// Failed operations (transport errors and non-2xx).
    pub errors: u64,
    /// Successful operations per second.
    pub ops_per_s: f64,
    /// Payload MB (10^6) per second.
    pub mb_per_s: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 99th percentile latency, ms.
    pub p99_ms: f64,
    /// CPU seconds (user + system) the gateway instances used.
    pub gateway_cpu_s: f64,
    /// Gateway CPU microseconds per successful operation.
    pub cpu_us_per_op: f64,
    /// CPU seconds the load generator used.
    pub client_cpu_s: f64,
    /// How busy the whole host was, percent.
    pub host_busy_pct: f64,
}

const CSV_HEADER: &str = "gateway,mode,cores,instances,threads,workload,object_size,concurrency,seconds,ops,errors,ops_per_s,mb_per_s,p50_ms,p99_ms,gateway_cpu_s,cpu_us_per_op,client_cpu_s,host_busy_pct";

/// Rows as CSV, header first.
pub fn csv(rows: &[Row]) -> String {
    let mut o = String::from(CSV_HEADER);
    o.push('\n');
    for r in rows {
        let _ = writeln!(
            o,
            "{},{},{},{},{},{},{},{},{:.3},{},{},{:.1},{:.2},{:.3},{:.3},{:.3},{:.1},{:.3},{:.1}",
            r.gateway,
            r.mode,
            r.cores,
            r.instances,
            r.threads,
            r.workload,
            r.object_size,
            r.concurrency,
            r.seconds,
            r.ops,
            r.errors,
            r.ops_per_s,
            r.mb_per_s,
            r.p50_ms,
            r.p99_ms,
            r.gateway_cpu_s,
            r.cpu_us_per_op,
            r.client_cpu_s,
            r.host_busy_pct
        );
    }
    o
}

/// Writes `results.csv` and `results.json` into `out`.
pub fn write_data(out: &Path, rows: &[Row]) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("results.csv"), csv(rows))?;
    let json = serde_json::to_string_pretty(rows).map_err(std::io::Error::other)?;
    std::fs::write(out.join("results.json"), json)
}

/// Reads a `results.json` back.
pub fn read_json(path: &Path) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether a workload at this size is judged by MB/s rather than ops/s.
pub fn by_bandwidth(object_size: u64) -> bool {
    object_size >= 1 << 20
}

/// The (workload, size) pairs in `rows`, in the order measured.
pub fn groups(rows: &[Row]) -> Vec<(String, u64)> {
    let mut seen = Vec::new();
    for r in rows {
        let g = (r.workload.clone(), r.object_size);
        if !seen.contains(&g) {
            seen.push(g);
        }
    }
    seen
}

/// The Markdown report: per workload and size, a table with one line per
/// layout and thread count and one column pair per gateway variant, then
/// its charts.
pub fn markdown(rows: &[Row], charts: &[ChartRef], summary: &str) -> String {
    let mut o = String::from("# rsgw bench sweep\n\n");
    let cpus = super::gateway::allowed_cpus();
    let _ = writeln!(
        o,
        "Host: {} CPUs ({}). {summary}.\n",
        cpus.len(),
        super::gateway::cpu_list(&cpus)
    );
    o.push_str(
        "Layouts are CORESxINSTANCES, each instance pinned to its own CPUs. \
         CPU/op is the gateways' own user+system CPU per successful operation; \
         the load generator shares the host, so compare CPU/op where throughput \
         is bound by the host. Errors are failed and non-2xx operations.\n\n",
    );
    let variants: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for r in rows {
            if !v.contains(&r.variant) {
                v.push(r.variant.clone());
            }
        }
        v
    };
    for (workload, size) in groups(rows) {
        let g: Vec<&Row> = rows
            .iter()
            .filter(|r| r.workload == workload && r.object_size == size)
            .collect();
        let bw = by_bandwidth(size);
        let unit = if bw { "MB/s" } else { "ops/s" };
        let conc = g.first().map_or(0, |r| r.concurrency);
        let _ = writeln!(
            o,
            "## {workload} {} ({} {conc})\n",
            size_name(size),
            if workload == "ab" {
                "connections"
            } else {
                "workers"
            }
        );
        let cells: BTreeSet<(usize, usize, usize)> = g
            .iter()
            .map(|r| (r.instances, r.cores, r.threads))
            .collect();
        let _ = write!(o, "| layout | threads |");
        for v in &variants {
            let _ = write!(o, " {v} {unit} | CPU us/op | p99 ms |");
        }
        let ratio =
            variants.iter().any(|v| v == "radosgw") && variants.iter().any(|v| v == "rsgw async");
        if ratio {
            o.push_str(" rsgw async / radosgw |");
        }
        o.push('\n');
        let _ = write!(o, "|---|---:|");
        for _ in &variants {
            o.push_str("---:|---:|---:|");
        }
        if ratio {
            o.push_str("---:|");
        }
        o.push('\n');
        for (instances, cores, threads) in cells {
            let _ = write!(o, "| {cores}x{instances} | {threads} |");
            let find = |v: &str| {
                g.iter().find(|r| {
                    r.variant == v
                        && r.instances == instances
                        && r.cores == cores
                        && r.threads == threads
                })
            };
            let value = |r: &Row| if bw { r.mb_per_s } else { r.ops_per_s };
            for v in &variants {
                match find(v) {
                    Some(r) => {
                        let errs = if r.errors > 0 {
                            format!(" ({} err)", r.errors)
                        } else {
                            String::new()
                        };
                        let _ = write!(
                            o,
                            " {:.0}{errs} | {:.0} | {:.1} |",
                            value(r),
                            r.cpu_us_per_op,
                            r.p99_ms
                        );
                    }
                    None => o.push_str(" - | - | - |"),
                }
            }
            if ratio {
                match (find("rsgw async"), find("radosgw")) {
                    (Some(a), Some(b)) if value(b) > 0.0 => {
                        let _ = write!(o, " {:.2}x |", value(a) / value(b));
                    }
                    _ => o.push_str(" - |"),
                }
            }
            o.push('\n');
        }
        o.push('\n');
        for c in charts
            .iter()
            .filter(|c| c.workload == workload && c.object_size == size)
        {
            let _ = writeln!(o, "![{}](charts/{}.svg)\n", c.title, c.stem);
        }
    }
    o
}

/// A made-up row for tests of the report and the charts.
#[cfg(test)]
pub(crate) fn sample_row(
    variant: &str,
    cores: usize,
    instances: usize,
    threads: usize,
    ops: f64,
) -> Row {
    let (gateway, mode) = variant.split_once(' ').unwrap_or((variant, "beast"));
    Row {
        gateway: gateway.into(),
        mode: mode.into(),
        variant: variant.into(),
        cores,
        instances,
        threads,
        workload: "read".into(),
        object_size: 4096,
        concurrency: 32,
        seconds: 2.0,
        ops: (ops * 2.0) as u64,
        errors: 0,
        ops_per_s: ops,
        mb_per_s: ops * 4096.0 / 1e6,
        p50_ms: 1.0,
        p99_ms: 3.0,
        gateway_cpu_s: 1.0,
        cpu_us_per_op: 1e6 / (ops * 2.0),
        client_cpu_s: 0.5,
        host_busy_pct: 90.0,
    }
}

#[cfg(test)]
mod tests {
    use super::sample_row as row;
    use super::*;

    #[test]
    fn csv_has_one_line_per_row_and_json_round_trips() {
        let rows = vec![
            row("rsgw async", 2, 1, 512, 1000.0),
            row("radosgw", 2, 1, 512, 250.0),
        ];
        let c = csv(&rows);
        assert_eq!(c.lines().count(), 3);
        assert_eq!(c.lines().next().map(|l| l.split(',').count()), Some(19));
        assert!(
            c.lines()
                .nth(2)
                .is_some_and(|l| l.starts_with("radosgw,beast,2,1,512,read,4096,"))
        );
        let dir = std::env::temp_dir().join(format!("rsgw-sweep-report-{}", std::process::id()));
        write_data(&dir, &rows).expect("write");
        assert_eq!(read_json(&dir.join("results.json")).expect("read"), rows);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn markdown_pivots_variants_and_gives_the_ratio() {
        let rows = vec![
            row("rsgw async", 2, 1, 512, 1000.0),
            row("radosgw", 2, 1, 512, 250.0),
            row("rsgw async", 1, 2, 512, 900.0),
        ];
        let md = markdown(&rows, &[], "test");
        assert!(md.contains("## read 4KiB (workers 32)"), "{md}");
        assert!(
            md.contains("| 2x1 | 512 | 1000 | 500 | 3.0 | 250 | 2000 | 3.0 | 4.00x |"),
            "{md}"
        );
        assert!(
            md.contains("| 1x2 | 512 | 900 | 556 | 3.0 | - | - | - | - |"),
            "{md}"
        );
    }
}
