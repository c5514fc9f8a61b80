//! Statistics of repeated measurements: medians, a seeded bootstrap
//! confidence interval of the ratio of two medians, Student-t intervals of a
//! small set of repeats, and the verdict of an A/B comparison with the
//! smallest difference a run could have detected.
//!
//! Everything random here draws from [`Rng`], seeded by the caller, so a
//! report recomputed from the same trials gives the same intervals and the
//! tests cannot flake.

use serde::{Deserialize, Serialize};

/// The two-sided normal quantile of a 95% interval.
const Z_975: f64 = 1.959_964;

/// SplitMix64: small, fast, seedable, and good enough for resampling.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator with this seed; equal seeds give equal sequences.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in 0..n (n > 0); the modulo bias is below 2^-50 for the
    /// sample sizes used here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A standard normal deviate (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

/// Whether a value can enter a ratio or a logarithm.
fn positive(x: f64) -> bool {
    x > 0.0 && x.is_finite()
}

/// The median; `None` for no values.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    median_in_place(&mut v)
}

/// The median, reordering `v`.
fn median_in_place(v: &mut [f64]) -> Option<f64> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    if n <= 32 {
        // the bootstrap's many small samples: insertion sort is quickest
        for i in 1..n {
            let mut j = i;
            while j > 0 && v[j - 1] > v[j] {
                v.swap(j - 1, j);
                j -= 1;
            }
        }
    } else {
        v.sort_unstable_by(f64::total_cmp);
    }
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The `q` quantile (0..=1) of sorted values, interpolated linearly.
pub fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let x = q.clamp(0.0, 1.0) * last as f64;
    let i = x.floor() as usize;
    let f = x - i as f64;
    Some(match sorted.get(i + 1) {
        Some(next) => sorted[i] * (1.0 - f) + next * f,
        None => sorted[i],
    })
}

/// The coefficient of variation (sample standard deviation over mean), in
/// percent; `None` under two values or a zero mean.
pub fn cv_pct(values: &[f64]) -> Option<f64> {
    let (mean, sd) = mean_sd(values)?;
    (mean != 0.0).then(|| 100.0 * sd / mean.abs())
}

/// Mean and sample standard deviation; `None` under two values.
fn mean_sd(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some((mean, var.sqrt()))
}

/// The standard normal quantile of `p` (0 < p < 1), by Acklam's rational
/// approximation (relative error under 1.2e-9).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.024_25 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.024_25 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// A point estimate with a confidence interval.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The estimate.
    pub estimate: f64,
    /// Lower end of the interval.
    pub lo: f64,
    /// Upper end of the interval.
    pub hi: f64,
}

impl Interval {
    /// Whether `x` lies in the interval (ends included).
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }
}

/// The ratio of B's median to A's with a percentile-bootstrap interval at
/// confidence `level` (0.95 for 95%): `resamples` times, each side's values
/// are drawn again with replacement (independently, as the trials of the
/// two sides are) and the ratio of the resampled medians taken; the
/// interval spans the middle `level` of those ratios. `None` when a side has no values or a value is not
/// positive (a ratio needs positive medians in every resample).
///
/// Checked on synthetic samples (the tests below): with 5 to 10 values per
/// side the interval holds the true ratio in 94-97% of runs; with 4, about
/// 90-93%, so fewer than 5 trials a side give a narrower interval than
/// promised.
pub fn bootstrap_median_ratio(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    level: f64,
    rng: &mut Rng,
) -> Option<Interval> {
    if a.is_empty() || b.is_empty() || !a.iter().chain(b).copied().all(positive) {
        return None;
    }
    let estimate = median(b)? / median(a)?;
    let mut ra = vec![0.0; a.len()];
    let mut rb = vec![0.0; b.len()];
    let mut ratios = Vec::with_capacity(resamples.max(1));
    for _ in 0..resamples.max(1) {
        for x in ra.iter_mut() {
            *x = a[rng.below(a.len())];
        }
        for x in rb.iter_mut() {
            *x = b[rng.below(b.len())];
        }
        ratios.push(median_in_place(&mut rb)? / median_in_place(&mut ra)?);
    }
    ratios.sort_unstable_by(f64::total_cmp);
    Some(Interval {
        estimate,
        lo: quantile(&ratios, (1.0 - level) / 2.0)?,
        hi: quantile(&ratios, (1.0 + level) / 2.0)?,
    })
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (a 95%
/// two-sided interval); fractional `df` (Welch) rounds down, which widens
/// the interval slightly.
pub fn t_975(df: f64) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    let d = df.floor().max(1.0) as usize;
    match TABLE.get(d - 1) {
        Some(t) => *t,
        // beyond 30, within 0.5% of the normal quantile's correction
        None => Z_975 + 2.4 / d as f64,
    }
}

/// A summary of repeats of one measurement: the geometric mean with a 95%
/// interval from Student's t on the logarithms (noise that scales with the
/// value, as throughput's does, is symmetric there); with a value that is
/// not positive, the arithmetic mean and its t interval. One value gives
/// an interval of that value alone; none gives `None`.
pub fn repeat_interval(values: &[f64]) -> Option<Interval> {
    let n = values.len();
    let first = *values.first()?;
    if n == 1 {
        return Some(Interval {
            estimate: first,
            lo: first,
            hi: first,
        });
    }
    let logs = values.iter().copied().all(positive);
    let xs: Vec<f64> = if logs {
        values.iter().map(|x| x.ln()).collect()
    } else {
        values.to_vec()
    };
    let (mean, sd) = mean_sd(&xs)?;
    let half = t_975((n - 1) as f64) * sd / (n as f64).sqrt();
    let back = |x: f64| if logs { x.exp() } else { x };
    Some(Interval {
        estimate: back(mean),
        lo: back(mean - half),
        hi: back(mean + half),
    })
}

/// The ratio of the geometric means of `b` and `a` with a 95% interval
/// from Welch's t on the logarithms; `None` unless both sides have two or
/// more positive values.
pub fn welch_log_ratio(a: &[f64], b: &[f64]) -> Option<Interval> {
    if !a.iter().chain(b).copied().all(positive) {
        return None;
    }
    let la: Vec<f64> = a.iter().map(|x| x.ln()).collect();
    let lb: Vec<f64> = b.iter().map(|x| x.ln()).collect();
    let (ma, sa) = mean_sd(&la)?;
    let (mb, sb) = mean_sd(&lb)?;
    let (va, vb) = (sa * sa / la.len() as f64, sb * sb / lb.len() as f64);
    let se = (va + vb).sqrt();
    let df = if se > 0.0 {
        (va + vb).powi(2) / (va * va / (la.len() - 1) as f64 + vb * vb / (lb.len() - 1) as f64)
    } else {
        (la.len() + lb.len() - 2) as f64
    };
    let d = mb - ma;
    let half = t_975(df) * se;
    Some(Interval {
        estimate: d.exp(),
        lo: (d - half).exp(),
        hi: (d + half).exp(),
    })
}

/// Which way a metric improves.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// More is better (throughput).
    Higher,
    /// Less is better (latency, CPU per operation).
    Lower,
}

/// What a comparison concludes about B against A.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval of B/A lies wholly on the better side of 1.
    BBetter,
    /// The interval of B/A lies wholly on the worse side of 1.
    BWorse,
    /// The interval holds 1: no difference detectable at this noise.
    NoDifference,
}

impl Verdict {
    /// How reports say it.
    pub fn phrase(&self) -> &'static str {
        match self {
            Verdict::BBetter => "B better",
            Verdict::BWorse => "B worse",
            Verdict::NoDifference => "no difference detectable",
        }
    }
}

/// One metric of an A/B comparison.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Comparison {
    /// Median of A's trials.
    pub median_a: f64,
    /// Median of B's trials.
    pub median_b: f64,
    /// B's median over A's, with its bootstrap interval.
    pub ratio: Interval,
    /// The interval's confidence level (0.95 for 95%).
    pub level: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// The smallest difference, in percent either way, that a run of this
    /// size and noise detects four times out of five (80% power at the
    /// interval's level; 2.80 standard errors at 95%), the standard error
    /// taken from the interval's width on a log scale.
    pub detectable_pct: f64,
}

/// Compares B's trials with A's: medians, the ratio's bootstrap interval
/// at confidence `level` (`resamples` draws from `rng`), the verdict and
/// the smallest detectable difference. `None` when the ratio is undefined (see
/// [`bootstrap_median_ratio`]).
pub fn compare(
    a: &[f64],
    b: &[f64],
    better: Better,
    resamples: usize,
    level: f64,
    rng: &mut Rng,
) -> Option<Comparison> {
    let ratio = bootstrap_median_ratio(a, b, resamples, level, rng)?;
    let (above, below) = (ratio.lo > 1.0, ratio.hi < 1.0);
    let verdict = match (better, above, below) {
        (Better::Higher, true, _) | (Better::Lower, _, true) => Verdict::BBetter,
        (Better::Higher, _, true) | (Better::Lower, true, _) => Verdict::BWorse,
        _ => Verdict::NoDifference,
    };
    let z = normal_quantile((1.0 + level) / 2.0);
    let se = (ratio.hi.ln() - ratio.lo.ln()) / (2.0 * z);
    Some(Comparison {
        median_a: median(a)?,
        median_b: median(b)?,
        ratio,
        level,
        verdict,
        detectable_pct: 100.0 * (((z + normal_quantile(0.8)) * se).exp() - 1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values around `center` with multiplicative noise of `sd` (log
    /// scale), so the population median is exactly `center`.
    fn sample(rng: &mut Rng, n: usize, center: f64, sd: f64) -> Vec<f64> {
        (0..n).map(|_| center * (sd * rng.normal()).exp()).collect()
    }

    #[test]
    fn medians_and_quantiles() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.5), Some(3.0));
        assert_eq!(quantile(&[0.0, 10.0], 0.25), Some(2.5));
        assert_eq!(quantile(&[], 0.5), None);
        let cv = cv_pct(&[90.0, 100.0, 110.0]).expect("cv");
        assert!((cv - 10.0).abs() < 1e-9, "{cv}");
        assert_eq!(t_975(1.0), 12.706);
        for (p, z) in [
            (0.975, 1.959_964),
            (0.8, 0.841_621),
            (0.9995, 3.290_527),
            (0.01, -2.326_348),
        ] {
            assert!((normal_quantile(p) - z).abs() < 1e-5, "{p}");
        }
        assert!((t_975(1000.0) - 1.962).abs() < 0.002);
    }

    #[test]
    fn the_generator_is_seeded_and_roughly_normal() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        let xs: Vec<f64> = (0..20_000).map(|_| a.normal()).collect();
        let (mean, sd) = mean_sd(&xs).expect("values");
        assert!(mean.abs() < 0.03 && (sd - 1.0).abs() < 0.03, "{mean} {sd}");
        assert!((0..1000).all(|_| a.below(5) < 5));
    }

    #[test]
    fn a_known_difference_is_found() {
        let mut rng = Rng::new(1);
        // 20% more throughput under 5% noise, 8 trials a side: found in
        // every one of 200 runs, with the true ratio inside nearly always
        let mut inside = 0;
        for _ in 0..200 {
            let a = sample(&mut rng, 8, 1000.0, 0.05);
            let b = sample(&mut rng, 8, 1200.0, 0.05);
            let c = compare(&a, &b, Better::Higher, 2000, 0.95, &mut rng).expect("comparison");
            assert_eq!(c.verdict, Verdict::BBetter, "{c:?}");
            inside += usize::from(c.ratio.contains(1.2));
            // the same numbers as latencies: higher is worse
            let c = compare(&a, &b, Better::Lower, 2000, 0.95, &mut rng).expect("comparison");
            assert_eq!(c.verdict, Verdict::BWorse, "{c:?}");
        }
        assert!(inside >= 180, "{inside} of 200");
    }

    #[test]
    fn equal_distributions_give_no_difference_in_about_95_percent() {
        for (n, seed) in [(5, 2), (8, 3)] {
            let mut rng = Rng::new(seed);
            let runs: usize = 1000;
            let mut none = 0;
            for _ in 0..runs {
                let a = sample(&mut rng, n, 1000.0, 0.08);
                let b = sample(&mut rng, n, 1000.0, 0.08);
                let c = compare(&a, &b, Better::Higher, 1000, 0.95, &mut rng).expect("comparison");
                none += usize::from(c.verdict == Verdict::NoDifference);
            }
            let share = none as f64 / runs as f64;
            assert!((0.92..=0.99).contains(&share), "n={n}: {share}");
        }
    }

    #[test]
    fn a_stricter_level_rarely_finds_a_difference_between_equals() {
        // what the end-to-end A/A test relies on: 99.9% with 8 trials a side
        let mut rng = Rng::new(11);
        let runs: usize = 600;
        let mut found = 0;
        for _ in 0..runs {
            let a = sample(&mut rng, 8, 1000.0, 0.1);
            let b = sample(&mut rng, 8, 1000.0, 0.1);
            let c = compare(&a, &b, Better::Higher, 2000, 0.999, &mut rng).expect("comparison");
            found += usize::from(c.verdict != Verdict::NoDifference);
        }
        assert!(found <= 4, "{found} of {runs}");
    }

    #[test]
    fn the_interval_covers_the_true_ratio_about_95_percent() {
        // unequal noise on the two sides, and a real difference
        for (n, seed) in [(5, 5), (8, 6)] {
            let mut rng = Rng::new(seed);
            let runs: usize = 1000;
            let mut covered = 0;
            for _ in 0..runs {
                let a = sample(&mut rng, n, 1000.0, 0.05);
                let b = sample(&mut rng, n, 1300.0, 0.15);
                let i = bootstrap_median_ratio(&a, &b, 1000, 0.95, &mut rng).expect("interval");
                covered += usize::from(i.contains(1.3));
            }
            let share = covered as f64 / runs as f64;
            assert!((0.92..=0.98).contains(&share), "n={n}: {share}");
        }
    }

    #[test]
    fn the_smallest_detectable_difference_is_detected_about_four_times_in_five() {
        let mut rng = Rng::new(8);
        let n = 8;
        let sd = 0.06;
        // what runs of this size and noise report, on average
        let mut sum = 0.0;
        for _ in 0..300 {
            let a = sample(&mut rng, n, 1000.0, sd);
            let b = sample(&mut rng, n, 1000.0, sd);
            sum += compare(&a, &b, Better::Higher, 1000, 0.95, &mut rng)
                .expect("comparison")
                .detectable_pct;
        }
        let mde = sum / 300.0;
        assert!((5.0..15.0).contains(&mde), "{mde}");
        // a true difference of that size is called in about 80% of runs
        let mut found = 0;
        for _ in 0..500 {
            let a = sample(&mut rng, n, 1000.0, sd);
            let b = sample(&mut rng, n, 1000.0 * (1.0 + mde / 100.0), sd);
            let c = compare(&a, &b, Better::Higher, 1000, 0.95, &mut rng).expect("comparison");
            found += usize::from(c.verdict == Verdict::BBetter);
        }
        let share = found as f64 / 500.0;
        assert!((0.70..=0.92).contains(&share), "{share} at {mde:.1}%");
    }

    #[test]
    fn repeat_intervals_cover_about_95_percent_with_three_repeats() {
        let mut rng = Rng::new(9);
        let runs: usize = 20_000;
        let mut covered = 0;
        let mut ratio_covered = 0;
        for _ in 0..runs {
            let a = sample(&mut rng, 3, 500.0, 0.1);
            let b = sample(&mut rng, 3, 750.0, 0.2);
            covered += usize::from(repeat_interval(&a).expect("interval").contains(500.0));
            ratio_covered += usize::from(welch_log_ratio(&a, &b).expect("interval").contains(1.5));
        }
        let share = covered as f64 / runs as f64;
        assert!((0.94..=0.96).contains(&share), "{share}");
        // rounding Welch's degrees of freedom down makes this one wider
        let share = ratio_covered as f64 / runs as f64;
        assert!((0.95..=0.99).contains(&share), "{share}");
    }

    #[test]
    fn undefined_ratios_and_small_inputs() {
        let mut rng = Rng::new(10);
        assert_eq!(
            bootstrap_median_ratio(&[], &[1.0], 100, 0.95, &mut rng),
            None
        );
        assert_eq!(
            bootstrap_median_ratio(&[0.0, 1.0], &[1.0], 100, 0.95, &mut rng),
            None
        );
        let i = repeat_interval(&[5.0]).expect("one value");
        assert_eq!((i.lo, i.estimate, i.hi), (5.0, 5.0, 5.0));
        assert_eq!(repeat_interval(&[]), None);
        let i = repeat_interval(&[0.0, 2.0, 4.0]).expect("arithmetic");
        assert!((i.estimate - 2.0).abs() < 1e-12 && i.lo < 0.0);
        assert_eq!(welch_log_ratio(&[1.0], &[1.0, 2.0]), None);
        // identical trials: a point interval, and no difference
        let c =
            compare(&[5.0; 4], &[5.0; 4], Better::Higher, 100, 0.95, &mut rng).expect("comparison");
        assert_eq!(c.verdict, Verdict::NoDifference);
        assert_eq!(c.detectable_pct, 0.0);
    }
}
