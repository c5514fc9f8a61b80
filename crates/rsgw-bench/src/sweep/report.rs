//! The sweep's results: one [`Row`] per measurement, written as CSV and
//! JSON, and the Markdown report that pivots them per workload.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::chart::ChartRef;
use super::size_name;
use crate::stats::{self, Interval};

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
    /// Which pass of `--repeat` measured it, from 1 (results of sweeps
    /// before `--repeat` read as 1).
    #[serde(default = "first_pass")]
    pub repeat: usize,
}

fn first_pass() -> usize {
    1
}

const CSV_HEADER: &str = "gateway,mode,cores,instances,threads,workload,object_size,concurrency,seconds,ops,errors,ops_per_s,mb_per_s,p50_ms,p99_ms,gateway_cpu_s,cpu_us_per_op,client_cpu_s,host_busy_pct,repeat";

/// Rows as CSV, header first.
pub fn csv(rows: &[Row]) -> String {
    let mut o = String::from(CSV_HEADER);
    o.push('\n');
    for r in rows {
        let _ = writeln!(
            o,
            "{},{},{},{},{},{},{},{},{:.3},{},{},{:.1},{:.2},{:.3},{:.3},{:.3},{:.1},{:.3},{:.1},{}",
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
            r.host_busy_pct,
            r.repeat
        );
    }
    o
}

/// One cell of the matrix (gateway variant, layout, threads, workload,
/// size) with its measurements, one per repeat.
pub struct Cell<'a> {
    /// Its measurements.
    pub rows: Vec<&'a Row>,
}

impl Cell<'_> {
    fn first(&self) -> &Row {
        // a cell is made from at least one row
        self.rows[0]
    }

    /// The variant (`rsgw async`, ...).
    pub fn variant(&self) -> &str {
        &self.first().variant
    }

    /// CPUs per instance.
    pub fn cores(&self) -> usize {
        self.first().cores
    }

    /// Instances.
    pub fn instances(&self) -> usize {
        self.first().instances
    }

    /// Handler threads.
    pub fn threads(&self) -> usize {
        self.first().threads
    }

    /// The repeats' geometric mean of `f` with its 95% interval.
    pub fn interval(&self, f: fn(&Row) -> f64) -> Interval {
        let v: Vec<f64> = self.rows.iter().map(|r| f(r)).collect();
        stats::repeat_interval(&v).unwrap_or(Interval {
            estimate: 0.0,
            lo: 0.0,
            hi: 0.0,
        })
    }

    /// The repeats' values of `f`.
    pub fn values(&self, f: fn(&Row) -> f64) -> Vec<f64> {
        self.rows.iter().map(|r| f(r)).collect()
    }

    /// Failed operations over every repeat.
    pub fn errors(&self) -> u64 {
        self.rows.iter().map(|r| r.errors).sum()
    }
}

/// The rows grouped into cells, in the order first measured.
pub fn cells(rows: &[Row]) -> Vec<Cell<'_>> {
    let key = |r: &Row| {
        (
            r.variant.clone(),
            r.cores,
            r.instances,
            r.threads,
            r.workload.clone(),
            r.object_size,
        )
    };
    let mut keys = Vec::new();
    let mut out: Vec<Cell<'_>> = Vec::new();
    for r in rows {
        let k = key(r);
        match keys.iter().position(|x| *x == k) {
            Some(i) => out[i].rows.push(r),
            None => {
                keys.push(k);
                out.push(Cell { rows: vec![r] });
            }
        }
    }
    out
}

/// The value a workload at this size is judged by: MB/s from 1 MiB up,
/// ops/s below.
pub fn value_of(object_size: u64) -> fn(&Row) -> f64 {
    if by_bandwidth(object_size) {
        |r| r.mb_per_s
    } else {
        |r| r.ops_per_s
    }
}

const CELLS_HEADER: &str = "gateway,mode,cores,instances,threads,workload,object_size,repeats,ops_per_s,ops_per_s_lo,ops_per_s_hi,mb_per_s,mb_per_s_lo,mb_per_s_hi,cpu_us_per_op,cpu_us_per_op_lo,cpu_us_per_op_hi,p99_ms,p99_ms_lo,p99_ms_hi,errors";

/// Cells as CSV: per metric the geometric mean of the repeats and its 95%
/// interval.
pub fn cells_csv(rows: &[Row]) -> String {
    let mut o = String::from(CELLS_HEADER);
    o.push('\n');
    for c in cells(rows) {
        let r = c.first();
        let _ = write!(
            o,
            "{},{},{},{},{},{},{},{}",
            r.gateway,
            r.mode,
            r.cores,
            r.instances,
            r.threads,
            r.workload,
            r.object_size,
            c.rows.len()
        );
        for f in [
            (|r: &Row| r.ops_per_s) as fn(&Row) -> f64,
            |r| r.mb_per_s,
            |r| r.cpu_us_per_op,
            |r| r.p99_ms,
        ] {
            let i = c.interval(f);
            let _ = write!(o, ",{:.3},{:.3},{:.3}", i.estimate, i.lo, i.hi);
        }
        let _ = writeln!(o, ",{}", c.errors());
    }
    o
}

/// Writes `results.csv`, `cells.csv` and `results.json` into `out`.
pub fn write_data(out: &Path, rows: &[Row]) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("results.csv"), csv(rows))?;
    std::fs::write(out.join("cells.csv"), cells_csv(rows))?;
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

/// A value with its interval when there are repeats: `12105 (11200-13080)`.
fn with_interval(i: Interval, n: usize, decimals: usize) -> String {
    if n >= 2 {
        format!(
            "{:.d$} ({:.d$}-{:.d$})",
            i.estimate,
            i.lo,
            i.hi,
            d = decimals
        )
    } else {
        format!("{:.d$}", i.estimate, d = decimals)
    }
}

/// How much the repeats of one cell differ, per workload and size: the
/// median and the largest coefficient of variation over its cells, for
/// throughput, CPU per operation and p99.
fn repeatability(rows: &[Row], all: &[Cell<'_>]) -> String {
    let mut o = String::from(
        "## Repeatability\n\nHow much the repeats of one cell differed: the coefficient of \
         variation (standard deviation over mean) of each cell's repeats, the median over \
         the cells of each workload and size, and the largest.\n\n\
         | workload | cells | throughput | CPU us/op | p99 ms |\n|---|---:|---:|---:|---:|\n",
    );
    for (workload, size) in groups(rows) {
        let g: Vec<&Cell<'_>> = all
            .iter()
            .filter(|c| {
                c.first().workload == workload && c.first().object_size == size && c.rows.len() >= 2
            })
            .collect();
        let spread = |f: fn(&Row) -> f64| {
            let cvs: Vec<f64> = g
                .iter()
                .filter_map(|c| stats::cv_pct(&c.values(f)))
                .collect();
            match (
                stats::median(&cvs),
                cvs.iter()
                    .copied()
                    .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x)))),
            ) {
                (Some(med), Some(max)) => format!("{med:.0}% (max {max:.0}%)"),
                _ => "-".into(),
            }
        };
        let _ = writeln!(
            o,
            "| {workload} {} | {} | {} | {} | {} |",
            size_name(size),
            g.len(),
            spread(value_of(size)),
            spread(|r| r.cpu_us_per_op),
            spread(|r| r.p99_ms)
        );
    }
    o.push('\n');
    o
}

/// The Markdown report: per workload and size, a table with one line per
/// layout and thread count and one column group per gateway variant (each
/// value with its interval when the sweep repeated), then its charts.
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
         is bound by the host. Errors are failed and non-2xx operations",
    );
    let all = cells(rows);
    let repeats = all.iter().map(|c| c.rows.len()).max().unwrap_or(0);
    if repeats >= 2 {
        let _ = write!(
            o,
            ", summed over the repeats.\n\nEach cell is the geometric mean of its {repeats} repeats \
             (passes over the whole matrix), with its 95% confidence interval in brackets \
             (Student's t on the logarithms); the ratio's interval is Welch's, also on the \
             logarithms. Two cells whose intervals overlap are not told apart by this run."
        );
    } else {
        o.push('.');
    }
    o.push_str("\n\n");
    if repeats >= 2 {
        o.push_str(&repeatability(rows, &all));
    }
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
        let g: Vec<&Cell<'_>> = all
            .iter()
            .filter(|c| c.first().workload == workload && c.first().object_size == size)
            .collect();
        let unit = if by_bandwidth(size) { "MB/s" } else { "ops/s" };
        let value = value_of(size);
        let conc = g.first().map_or(0, |c| c.first().concurrency);
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
        let keys: BTreeSet<(usize, usize, usize)> = g
            .iter()
            .map(|c| (c.instances(), c.cores(), c.threads()))
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
        for (instances, cores, threads) in keys {
            let _ = write!(o, "| {cores}x{instances} | {threads} |");
            let find = |v: &str| {
                g.iter().find(|c| {
                    c.variant() == v
                        && c.instances() == instances
                        && c.cores() == cores
                        && c.threads() == threads
                })
            };
            for v in &variants {
                match find(v) {
                    Some(c) => {
                        let n = c.rows.len();
                        let errs = match c.errors() {
                            0 => String::new(),
                            e => format!(" ({e} err)"),
                        };
                        let _ = write!(
                            o,
                            " {}{errs} | {} | {} |",
                            with_interval(c.interval(value), n, 0),
                            with_interval(c.interval(|r| r.cpu_us_per_op), n, 0),
                            with_interval(c.interval(|r| r.p99_ms), n, 1)
                        );
                    }
                    None => o.push_str(" - | - | - |"),
                }
            }
            if ratio {
                match (find("rsgw async"), find("radosgw")) {
                    (Some(a), Some(b)) => {
                        let (va, vb) = (a.values(value), b.values(value));
                        match stats::welch_log_ratio(&vb, &va) {
                            Some(i) => {
                                let _ =
                                    write!(o, " {:.2}x ({:.2}-{:.2}) |", i.estimate, i.lo, i.hi);
                            }
                            None => {
                                let (ia, ib) = (a.interval(value), b.interval(value));
                                if ib.estimate > 0.0 {
                                    let _ = write!(o, " {:.2}x |", ia.estimate / ib.estimate);
                                } else {
                                    o.push_str(" - |");
                                }
                            }
                        }
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
        repeat: 1,
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
        assert_eq!(c.lines().next().map(|l| l.split(',').count()), Some(20));
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
        assert!(!md.contains("geometric mean"), "{md}");
    }

    #[test]
    fn repeats_give_every_cell_an_interval() {
        let mut rows = Vec::new();
        for (pass, (a, b)) in [(1000.0, 250.0), (1100.0, 260.0), (950.0, 240.0)]
            .into_iter()
            .enumerate()
        {
            let mut ra = row("rsgw async", 2, 1, 512, a);
            ra.repeat = pass + 1;
            let mut rb = row("radosgw", 2, 1, 512, b);
            rb.repeat = pass + 1;
            rows.extend([ra, rb]);
        }
        let c = cells(&rows);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].rows.len(), 3);
        let i = c[0].interval(|r| r.ops_per_s);
        assert!(
            i.lo < 1000.0 && 1000.0 < i.hi && i.lo > 700.0 && i.hi < 1400.0,
            "{i:?}"
        );
        let md = markdown(&rows, &[], "test");
        assert!(md.contains("geometric mean of its 3 repeats"), "{md}");
        // 1000, 1100, 950: a coefficient of variation of 7.6%; 250, 260, 240: 4%
        assert!(md.contains("| read 4KiB | 2 | 6% (max 8%) |"), "{md}");
        // value (lo-hi) in every cell, and the ratio's interval
        let line = md
            .lines()
            .find(|l| l.starts_with("| 2x1 | 512 |"))
            .expect("row");
        assert_eq!(line.matches('(').count(), 7, "{line}");
        assert!(
            line.contains(" | 4.00x (") || line.contains("x ("),
            "{line}"
        );
        let csv = cells_csv(&rows);
        assert_eq!(csv.lines().count(), 3);
        assert!(
            csv.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("rsgw,async,2,1,512,read,4096,3,")),
            "{csv}"
        );
        // results of sweeps before --repeat read as the first pass
        let old = r#"[{"gateway":"rsgw","mode":"async","variant":"rsgw async","cores":1,"instances":1,"threads":8,"workload":"read","object_size":4096,"concurrency":1,"seconds":1.0,"ops":1,"errors":0,"ops_per_s":1.0,"mb_per_s":0.0,"p50_ms":1.0,"p99_ms":1.0,"gateway_cpu_s":0.0,"cpu_us_per_op":1.0,"client_cpu_s":0.0,"host_busy_pct":1.0}]"#;
        let back: Vec<Row> = serde_json::from_str(old).expect("old results.json");
        assert_eq!(back[0].repeat, 1);
    }
}
