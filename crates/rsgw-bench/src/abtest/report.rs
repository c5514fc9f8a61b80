//! The A/B test's data and what it concludes: trials, the statistics per
//! metric, the host's noise, and the outputs (Markdown, CSV, JSON and the
//! one-line summary).

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::SideInfo;
use crate::stats::{self, Better, Comparison, Rng, Verdict};

/// One measured trial of one side.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Trial {
    /// Position in the run, from 1.
    pub order: usize,
    /// `A` or `B`.
    pub side: String,
    /// Its number among the side's trials, from 1.
    pub trial: usize,
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
    /// CPU seconds (user + system) the side's gateway instances used.
    pub gateway_cpu_s: f64,
    /// Gateway CPU microseconds per successful operation.
    pub cpu_us_per_op: f64,
    /// CPU seconds the load generator (this process) used.
    pub client_cpu_s: f64,
    /// How busy the host's CPUs were, percent of all their time (steal not
    /// included).
    pub host_busy_pct: f64,
    /// Steal time, percent of all CPU time.
    pub steal_pct: f64,
    /// CPUs' worth of time used by this host's Ceph daemons (ceph-osd,
    /// ceph-mon, ceph-mgr), per second: the store of gateways on RADOS, not
    /// the host's noise.
    #[serde(default)]
    pub ceph_cores: f64,
    /// CPUs' worth of time used by every other process: host busy time less
    /// the gateways', the load generator's and the Ceph daemons', per
    /// second.
    pub others_cores: f64,
    /// One-minute load average at the trial's end.
    pub loadavg: f64,
}

/// A metric the test judges.
pub struct Metric {
    /// Its key in CSV and JSON.
    pub key: &'static str,
    /// Its name in reports.
    pub name: &'static str,
    /// Unit of its values.
    pub unit: &'static str,
    /// Which way it improves.
    pub better: Better,
    /// Its value in a trial.
    pub value: fn(&Trial) -> f64,
}

/// The metrics judged, in report order.
pub const METRICS: [Metric; 4] = [
    Metric {
        key: "ops_per_s",
        name: "ops/s",
        unit: "ops/s",
        better: Better::Higher,
        value: |t| t.ops_per_s,
    },
    Metric {
        key: "p50_ms",
        name: "p50",
        unit: "ms",
        better: Better::Lower,
        value: |t| t.p50_ms,
    },
    Metric {
        key: "p99_ms",
        name: "p99",
        unit: "ms",
        better: Better::Lower,
        value: |t| t.p99_ms,
    },
    Metric {
        key: "cpu_us_per_op",
        name: "CPU/op",
        unit: "us",
        better: Better::Lower,
        value: |t| t.cpu_us_per_op,
    },
];

/// What the test concludes about one metric.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct MetricResult {
    /// Key of the metric (`ops_per_s`, `p50_ms`, `p99_ms`, `cpu_us_per_op`).
    pub metric: String,
    /// Its name in reports.
    pub name: String,
    /// Unit.
    pub unit: String,
    /// Which way it improves.
    pub better: Better,
    /// Medians, ratio, interval, verdict; `None` when a trial had no value
    /// (no successful operation).
    pub comparison: Option<Comparison>,
    /// Coefficient of variation of A's trials, percent.
    pub cv_a_pct: Option<f64>,
    /// Coefficient of variation of B's trials, percent.
    pub cv_b_pct: Option<f64>,
    /// No difference found, and the smallest detectable one exceeds the
    /// smallest that matters (`--min-effect`): the host was too noisy for
    /// the question.
    pub too_noisy: bool,
}

/// The host's noise over the trials.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct Noise {
    /// CPUs' worth of the Ceph daemons' time, mean over the trials (not
    /// noise: see [`Trial::ceph_cores`]).
    #[serde(default)]
    pub ceph_cores_mean: f64,
    /// CPUs' worth of other processes' time, mean over the trials.
    pub others_cores_mean: f64,
    /// The same, the largest trial.
    pub others_cores_max: f64,
    /// Mean over A's trials.
    pub others_cores_a: f64,
    /// Mean over B's trials.
    pub others_cores_b: f64,
    /// Steal time, percent, mean over the trials.
    pub steal_pct_mean: f64,
    /// Steal time, the largest trial.
    pub steal_pct_max: f64,
    /// Host busy percent, mean over the trials.
    pub host_busy_pct_mean: f64,
    /// Highest one-minute load average seen.
    pub loadavg_max: f64,
    /// `quiet` (others under 10% of the CPUs, steal under 2%), `noisy`
    /// (others 30% or more, or steal 10% or more) or `moderate`.
    pub level: String,
}

/// Everything a run produced: settings, trials and conclusions
/// (`results.json`).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Results {
    /// The command line.
    pub command: String,
    /// When it started, seconds since the Unix epoch.
    pub started_unix: u64,
    /// CPUs this process could use.
    pub host_cpus: usize,
    /// Side A.
    pub a: SideInfo,
    /// Side B.
    pub b: SideInfo,
    /// The workload, in words.
    pub workload: String,
    /// Measured trials per side.
    pub trials_per_side: usize,
    /// Measured seconds per trial.
    pub duration_s: u64,
    /// Warm-up seconds before each measurement.
    pub warmup_s: u64,
    /// Whether each trial started the side's gateways afresh.
    pub restart_each_trial: bool,
    /// Bootstrap seed.
    pub seed: u64,
    /// Bootstrap resamples per interval.
    pub resamples: usize,
    /// Confidence level of the intervals, percent.
    pub confidence_pct: f64,
    /// The smallest difference that matters, percent.
    pub min_effect_pct: f64,
    /// Every trial, in the order run.
    pub trials: Vec<Trial>,
    /// Per metric.
    pub metrics: Vec<MetricResult>,
    /// The host's noise.
    pub noise: Noise,
    /// The one-line summary.
    pub summary: String,
}

/// Reads a `results.json` back.
pub fn read_json(path: &Path) -> Result<Results, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0usize), |(s, n), x| (s + x, n + 1));
    if n == 0 { 0.0 } else { s / n as f64 }
}

/// Computes the metrics, the noise and the summary from the trials and the
/// settings (the same trials and seed give the same result).
pub fn analyze(r: &mut Results) {
    let mut rng = Rng::new(r.seed);
    let side = |s: &str, f: fn(&Trial) -> f64| -> Vec<f64> {
        r.trials.iter().filter(|t| t.side == s).map(f).collect()
    };
    r.metrics = METRICS
        .iter()
        .map(|m| {
            let (a, b) = (side("A", m.value), side("B", m.value));
            let comparison = stats::compare(
                &a,
                &b,
                m.better,
                r.resamples,
                r.confidence_pct / 100.0,
                &mut rng,
            );
            MetricResult {
                metric: m.key.into(),
                name: m.name.into(),
                unit: m.unit.into(),
                better: m.better,
                too_noisy: comparison.is_some_and(|c| {
                    c.verdict == Verdict::NoDifference && c.detectable_pct > r.min_effect_pct
                }),
                comparison,
                cv_a_pct: stats::cv_pct(&a),
                cv_b_pct: stats::cv_pct(&b),
            }
        })
        .collect();
    let t = &r.trials;
    let others_mean = mean(t.iter().map(|t| t.others_cores));
    let steal_max = t.iter().map(|t| t.steal_pct).fold(0.0, f64::max);
    let share = others_mean / r.host_cpus.max(1) as f64;
    r.noise = Noise {
        ceph_cores_mean: mean(t.iter().map(|t| t.ceph_cores)),
        others_cores_mean: others_mean,
        others_cores_max: t.iter().map(|t| t.others_cores).fold(0.0, f64::max),
        others_cores_a: mean(t.iter().filter(|t| t.side == "A").map(|t| t.others_cores)),
        others_cores_b: mean(t.iter().filter(|t| t.side == "B").map(|t| t.others_cores)),
        steal_pct_mean: mean(t.iter().map(|t| t.steal_pct)),
        steal_pct_max: steal_max,
        host_busy_pct_mean: mean(t.iter().map(|t| t.host_busy_pct)),
        loadavg_max: t.iter().map(|t| t.loadavg).fold(0.0, f64::max),
        level: if share >= 0.3 || steal_max >= 10.0 {
            "noisy"
        } else if share < 0.1 && steal_max < 2.0 {
            "quiet"
        } else {
            "moderate"
        }
        .into(),
    };
    r.summary = summary(r);
}

/// A ratio with three significant figures.
pub fn ratio_text(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// A value with about three significant figures.
fn value_text(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn verdict_text(m: &MetricResult, min_effect: f64) -> String {
    match &m.comparison {
        None => "not comparable (a trial had no value)".into(),
        Some(c) => match c.verdict {
            Verdict::NoDifference if m.too_noisy => format!(
                "no difference detectable (±{:.0}% detectable: too noisy for {min_effect:.0}%)",
                c.detectable_pct
            ),
            Verdict::NoDifference => format!(
                "no difference detectable (±{:.0}% detectable)",
                c.detectable_pct
            ),
            v => v.phrase().into(),
        },
    }
}

/// The one-line summary for CI logs.
fn summary(r: &Results) -> String {
    let mut parts = Vec::new();
    for m in &r.metrics {
        parts.push(match &m.comparison {
            Some(c) => format!(
                "{} {}x [{}-{}] {}",
                m.name,
                ratio_text(c.ratio.estimate),
                ratio_text(c.ratio.lo),
                ratio_text(c.ratio.hi),
                verdict_text(m, r.min_effect_pct)
            ),
            None => format!("{} {}", m.name, verdict_text(m, r.min_effect_pct)),
        });
    }
    let errors = |s: &str| -> u64 {
        r.trials
            .iter()
            .filter(|t| t.side == s)
            .map(|t| t.errors)
            .sum()
    };
    let mut line = format!(
        "ab-test {} vs {}, {}+{} trials, B/A: {}; host {} (others {:.2} cores, steal {:.1}%; Ceph daemons {:.2} cores, not noise)",
        r.b.label,
        r.a.label,
        r.trials.iter().filter(|t| t.side == "A").count(),
        r.trials.iter().filter(|t| t.side == "B").count(),
        parts.join("; "),
        r.noise.level,
        r.noise.others_cores_mean,
        r.noise.steal_pct_mean,
        r.noise.ceph_cores_mean
    );
    let (ea, eb) = (errors("A"), errors("B"));
    if ea + eb > 0 {
        let _ = write!(line, "; errors A {ea}, B {eb}");
    }
    line
}

const TRIALS_HEADER: &str = "order,side,trial,seconds,ops,errors,ops_per_s,mb_per_s,p50_ms,p99_ms,gateway_cpu_s,cpu_us_per_op,client_cpu_s,host_busy_pct,steal_pct,ceph_cores,others_cores,loadavg";

/// Trials as CSV, header first.
pub fn trials_csv(trials: &[Trial]) -> String {
    let mut o = String::from(TRIALS_HEADER);
    o.push('\n');
    for t in trials {
        let _ = writeln!(
            o,
            "{},{},{},{:.3},{},{},{:.1},{:.3},{:.3},{:.3},{:.3},{:.2},{:.3},{:.1},{:.2},{:.3},{:.3},{:.2}",
            t.order,
            t.side,
            t.trial,
            t.seconds,
            t.ops,
            t.errors,
            t.ops_per_s,
            t.mb_per_s,
            t.p50_ms,
            t.p99_ms,
            t.gateway_cpu_s,
            t.cpu_us_per_op,
            t.client_cpu_s,
            t.host_busy_pct,
            t.steal_pct,
            t.ceph_cores,
            t.others_cores,
            t.loadavg
        );
    }
    o
}

/// Writes `trials.csv` (after every trial, so an interrupted run keeps
/// what it measured).
pub fn write_trials_csv(out: &Path, trials: &[Trial]) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("trials.csv"), trials_csv(trials))
}

/// The conclusions as CSV, one line per metric.
pub fn summary_csv(r: &Results) -> String {
    let mut o = String::from(
        "metric,unit,better,median_a,median_b,ratio,ratio_lo,ratio_hi,verdict,detectable_pct,too_noisy,cv_a_pct,cv_b_pct\n",
    );
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.2}"));
    for m in &r.metrics {
        let better = match m.better {
            Better::Higher => "higher",
            Better::Lower => "lower",
        };
        match &m.comparison {
            Some(c) => {
                let verdict = match c.verdict {
                    Verdict::BBetter => "b_better",
                    Verdict::BWorse => "b_worse",
                    Verdict::NoDifference => "no_difference",
                };
                let _ = writeln!(
                    o,
                    "{},{},{better},{:.4},{:.4},{:.4},{:.4},{:.4},{verdict},{:.1},{},{},{}",
                    m.metric,
                    m.unit,
                    c.median_a,
                    c.median_b,
                    c.ratio.estimate,
                    c.ratio.lo,
                    c.ratio.hi,
                    c.detectable_pct,
                    m.too_noisy,
                    opt(m.cv_a_pct),
                    opt(m.cv_b_pct)
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "{},{},{better},,,,,,not_comparable,,false,{},{}",
                    m.metric,
                    m.unit,
                    opt(m.cv_a_pct),
                    opt(m.cv_b_pct)
                );
            }
        }
    }
    o
}

/// The Markdown report.
pub fn markdown(r: &Results, charts: &[String]) -> String {
    let mut o = String::from("# rsgw bench ab-test: B against A\n\n");
    let _ = writeln!(
        o,
        "| metric | A median | B median | B/A | {}% interval | verdict | CV of trials, A / B |",
        r.confidence_pct
    );
    o.push_str("|---|---:|---:|---:|---|---|---:|\n");
    for m in &r.metrics {
        let dir = match m.better {
            Better::Higher => "higher is better",
            Better::Lower => "lower is better",
        };
        let cv = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1}%"));
        match &m.comparison {
            Some(c) => {
                let _ = writeln!(
                    o,
                    "| {} ({}, {dir}) | {} | {} | {}x | {}-{} | {} | {} / {} |",
                    m.name,
                    m.unit,
                    value_text(c.median_a),
                    value_text(c.median_b),
                    ratio_text(c.ratio.estimate),
                    ratio_text(c.ratio.lo),
                    ratio_text(c.ratio.hi),
                    match c.verdict {
                        Verdict::NoDifference => verdict_text(m, r.min_effect_pct),
                        v => format!("**{}**", v.phrase()),
                    },
                    cv(m.cv_a_pct),
                    cv(m.cv_b_pct)
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "| {} ({}, {dir}) | - | - | - | - | {} | {} / {} |",
                    m.name,
                    m.unit,
                    verdict_text(m, r.min_effect_pct),
                    cv(m.cv_a_pct),
                    cv(m.cv_b_pct)
                );
            }
        }
    }
    let _ = writeln!(o, "\n`{}`\n", r.summary);
    for s in [&r.a, &r.b] {
        let _ = writeln!(o, "- **{}** ({}): {}", s.side, s.label, s.describe());
    }
    let _ = writeln!(o, "- **workload**: {}", r.workload);
    let _ = writeln!(
        o,
        "- **trials**: {} per side in ABBA order (A B B A A B B A ...), {}, {} s of load discarded as warm-up, then {} s measured; the interval is a {}% percentile bootstrap of the ratio of medians ({} resamples, seed {}). The smallest detectable difference is the one a run of this size and noise finds four times in five.",
        r.trials_per_side,
        if r.restart_each_trial {
            "each after a fresh start of the side's gateways"
        } else {
            "the gateways of both sides kept running"
        },
        r.warmup_s,
        r.duration_s,
        r.confidence_pct,
        r.resamples,
        r.seed
    );
    if r.trials_per_side < 5 {
        o.push_str(
            "- **few trials**: under 5 per side a bootstrap interval covers less than it says (about 90% for 95% with 4); the verdicts are less sure than they read.\n",
        );
    }
    let n = &r.noise;
    let _ = writeln!(
        o,
        "- **host noise: {}**. Processes other than the gateways, this load generator and the host's Ceph daemons used {:.2} CPUs on average (at most {:.2} in a trial; {:.2} during A's trials, {:.2} during B's) of the {} this run could use; steal time {:.1}% on average (at most {:.1}%); the host was {:.0}% busy; load average up to {:.1}. The Ceph daemons (ceph-osd, ceph-mon, ceph-mgr: the store of gateways on RADOS, not counted as noise) used {:.2} CPUs on average.",
        n.level,
        n.others_cores_mean,
        n.others_cores_max,
        n.others_cores_a,
        n.others_cores_b,
        r.host_cpus,
        n.steal_pct_mean,
        n.steal_pct_max,
        n.host_busy_pct_mean,
        n.loadavg_max,
        n.ceph_cores_mean
    );
    let noisy: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| m.too_noisy)
        .filter_map(|m| {
            m.comparison
                .map(|c| format!("{} (±{:.0}%)", m.name, c.detectable_pct))
        })
        .collect();
    if noisy.is_empty() {
        let _ = writeln!(
            o,
            "- every metric without a difference could have shown one of {:.0}% (`--min-effect`).",
            r.min_effect_pct
        );
    } else {
        let _ = writeln!(
            o,
            "- **too noisy for a {:.0}% question** on {}: no difference found, and the smallest this run could detect is larger. More trials, longer trials or a quieter host narrow it.",
            r.min_effect_pct,
            noisy.join(", ")
        );
    }
    let errors: u64 = r.trials.iter().map(|t| t.errors).sum();
    if errors > 0 {
        let _ = writeln!(
            o,
            "- **{errors} operations failed** over the trials (the `errors` column): rates count successful operations only."
        );
    }
    o.push('\n');
    for c in charts.iter().filter(|c| c.ends_with(".svg")) {
        let _ = writeln!(o, "![trials and ratios]({c})\n");
    }
    o.push_str("## Trials\n\n| # | side | trial | ops/s | MB/s | p50 ms | p99 ms | CPU us/op | errors | host busy % | steal % | Ceph daemons' CPUs | others' CPUs |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for t in &r.trials {
        let _ = writeln!(
            o,
            "| {} | {} | {} | {:.0} | {:.2} | {:.2} | {:.2} | {:.1} | {} | {:.0} | {:.1} | {:.2} | {:.2} |",
            t.order,
            t.side,
            t.trial,
            t.ops_per_s,
            t.mb_per_s,
            t.p50_ms,
            t.p99_ms,
            t.cpu_us_per_op,
            t.errors,
            t.host_busy_pct,
            t.steal_pct,
            t.ceph_cores,
            t.others_cores
        );
    }
    let _ = writeln!(o, "\nCommand: `{}`", r.command);
    o
}

/// Writes report.md, trials.csv, summary.csv and results.json into `out`.
pub fn write_all(out: &Path, r: &Results, charts: &[String]) -> std::io::Result<()> {
    std::fs::create_dir_all(out)?;
    std::fs::write(out.join("report.md"), markdown(r, charts))?;
    write_trials_csv(out, &r.trials)?;
    std::fs::write(out.join("summary.csv"), summary_csv(r))?;
    let json = serde_json::to_string_pretty(r).map_err(std::io::Error::other)?;
    std::fs::write(out.join("results.json"), json)
}

/// Made-up results for tests of the report and the chart: B 30% faster
/// with 3% noise, latencies alike.
#[cfg(test)]
pub(crate) fn sample_results(per_side: usize) -> Results {
    use crate::sweep::gateway::Gateway;
    let mut rng = Rng::new(3);
    let side = |s: &str| SideInfo {
        side: s.into(),
        label: s.into(),
        gateway: Gateway::Rsgw,
        config: None,
        radosgw_name: None,
        sets: vec![format!(
            "pool.thread_pool_size={}",
            if s == "A" { 8 } else { 64 }
        )],
        layout: "2x1".into(),
        cpusets: vec!["0-1".into()],
        port: 1,
        rsgw: None,
    };
    let trials = super::abba(per_side)
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let noise = 1.0 + 0.03 * rng.normal();
            let ops = if b { 1300.0 } else { 1000.0 } * noise;
            Trial {
                order: i + 1,
                side: if b { "B" } else { "A" }.into(),
                trial: i / 2 + 1,
                seconds: 2.0,
                ops: (ops * 2.0) as u64,
                errors: 0,
                ops_per_s: ops,
                mb_per_s: ops * 4096.0 / 1e6,
                p50_ms: 2.0 * (1.0 + 0.05 * rng.normal()),
                p99_ms: 9.0 * (1.0 + 0.2 * rng.normal()),
                gateway_cpu_s: 0.5,
                cpu_us_per_op: 250.0 * (1.0 + 0.02 * rng.normal()),
                client_cpu_s: 0.4,
                host_busy_pct: 80.0,
                steal_pct: 0.0,
                ceph_cores: 1.5,
                others_cores: 0.1,
                loadavg: 2.0,
            }
        })
        .collect();
    let mut r = Results {
        command: "rsgw bench ab-test".into(),
        started_unix: 0,
        host_cpus: 2,
        a: side("A"),
        b: side("B"),
        workload: "ab".into(),
        trials_per_side: per_side,
        duration_s: 2,
        warmup_s: 1,
        restart_each_trial: true,
        seed: 1,
        resamples: 2000,
        confidence_pct: 95.0,
        min_effect_pct: 10.0,
        trials,
        metrics: Vec::new(),
        noise: Noise::default(),
        summary: String::new(),
    };
    analyze(&mut r);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analysis_finds_the_difference_and_reports_it_everywhere() {
        let r = sample_results(8);
        let ops = &r.metrics[0];
        let c = ops.comparison.expect("ops/s comparable");
        assert_eq!(c.verdict, Verdict::BBetter, "{c:?}");
        assert!(c.ratio.contains(1.3), "{c:?}");
        let p50 = r.metrics[1].comparison.expect("p50");
        assert_eq!(p50.verdict, Verdict::NoDifference, "{p50:?}");
        // a colocated cluster busy with the gateways' requests is not noise
        assert_eq!(r.noise.level, "quiet");
        assert!((r.noise.others_cores_mean - 0.1).abs() < 1e-9);
        assert!((r.noise.ceph_cores_mean - 1.5).abs() < 1e-9);
        assert!(
            r.summary
                .starts_with("ab-test B vs A, 8+8 trials, B/A: ops/s 1.3"),
            "{}",
            r.summary
        );
        assert!(
            r.summary.contains("B better") && r.summary.contains("host quiet"),
            "{}",
            r.summary
        );
        // the same trials and seed: the same conclusions
        let mut again = r.clone();
        analyze(&mut again);
        assert_eq!(again, r);
        let md = markdown(&r, &["abtest.svg".into(), "abtest.png".into()]);
        assert!(md.contains("| ops/s (ops/s, higher is better) |"), "{md}");
        assert!(
            md.contains("**B better**") && md.contains("![trials and ratios](abtest.svg)"),
            "{md}"
        );
        assert!(
            md.contains("used 0.10 CPUs on average")
                && md.contains("not counted as noise) used 1.50 CPUs on average")
                && md.contains("| 0.0 | 1.50 | 0.10 |"),
            "{md}"
        );
        assert_eq!(md.matches("\n| ").count(), 2 + 4 + 16, "{md}");
        assert_eq!(trials_csv(&r.trials).lines().count(), 17);
        let s = summary_csv(&r);
        assert_eq!(s.lines().count(), 5);
        assert!(
            s.lines().nth(1).is_some_and(
                |l| l.starts_with("ops_per_s,ops/s,higher,") && l.contains(",b_better,")
            ),
            "{s}"
        );
        let dir = std::env::temp_dir().join(format!("rsgw-abtest-report-{}", std::process::id()));
        write_all(&dir, &r, &[]).expect("write");
        // floats come back within their last bit: what is printed is equal
        let mut back = read_json(&dir.join("results.json")).expect("read");
        assert_eq!((back.trials.len(), &back.summary), (16, &r.summary));
        analyze(&mut back);
        assert_eq!(back.summary, r.summary);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_noisy_run_says_it_is_too_noisy() {
        let mut r = sample_results(4);
        for t in &mut r.trials {
            t.others_cores = 1.2;
            t.cpu_us_per_op *= if t.order % 3 == 0 { 1.6 } else { 1.0 };
        }
        r.min_effect_pct = 5.0;
        analyze(&mut r);
        assert_eq!(r.noise.level, "noisy");
        let cpu = &r.metrics[3];
        assert!(cpu.too_noisy, "{cpu:?}");
        assert!(r.summary.contains("too noisy for 5%"), "{}", r.summary);
        let md = markdown(&r, &[]);
        assert!(md.contains("**too noisy for a 5% question** on"), "{md}");
        assert!(md.contains("**few trials**"), "{md}");
        // a metric without values is not compared
        for t in &mut r.trials {
            t.p99_ms = 0.0;
        }
        analyze(&mut r);
        assert!(r.metrics[2].comparison.is_none());
        assert!(r.summary.contains("p99 not comparable"), "{}", r.summary);
    }
}
