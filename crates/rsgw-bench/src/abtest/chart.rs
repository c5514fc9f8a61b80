//! The A/B test's chart, SVG and PNG: per metric, both sides' trial values
//! (in the order run, left to right) with their medians; below, each ratio
//! B/A with its interval on a log scale, coloured by verdict.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::report::{METRICS, Metric, Results, ratio_text};
use crate::stats::{Verdict, median};

const SIZE: (u32, u32) = (1100, 760);
const A_COLOR: RGBColor = RGBColor(31, 119, 180);
const B_COLOR: RGBColor = RGBColor(255, 127, 14);

/// Draws `abtest.svg` and `abtest.png` into `dir`; returns their names.
pub fn draw(dir: &Path, r: &Results, font: Option<&Path>) -> Result<Vec<String>, String> {
    crate::sweep::chart::font(font)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let svg = dir.join("abtest.svg");
    draw_on(SVGBackend::new(&svg, SIZE).into_drawing_area(), r)
        .map_err(|e| format!("{}: {e}", svg.display()))?;
    let png = dir.join("abtest.png");
    draw_on(BitMapBackend::new(&png, SIZE).into_drawing_area(), r)
        .map_err(|e| format!("{}: {e}", png.display()))?;
    Ok(vec!["abtest.svg".into(), "abtest.png".into()])
}

fn draw_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, r: &Results) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(e)?;
    let root = root
        .titled(
            &format!(
                "A: {}   B: {}   ({} trials each, ABBA order)",
                r.a.short(&r.b),
                r.b.short(&r.a),
                r.trials_per_side
            ),
            ("sans-serif", 20),
        )
        .map_err(e)?;
    let (top, bottom) = root.split_vertically(400);
    for (panel, m) in top.split_evenly((1, METRICS.len())).iter().zip(&METRICS) {
        strip(panel, r, m)?;
    }
    forest(&bottom, r)?;
    root.present().map_err(e)?;
    Ok(())
}

/// One metric's trial values of both sides, each side's median as a bar.
fn strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    r: &Results,
    m: &Metric,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let ymax = r
        .trials
        .iter()
        .map(m.value)
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption(
            if m.name == m.unit {
                m.name.to_string()
            } else {
                format!("{} ({})", m.name, m.unit)
            },
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(28)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.6f64..1.6f64, 0.0..ymax)
        .map_err(e)?;
    let side_label = |v: &f64| {
        if v.abs() < 1e-6 {
            "A".to_string()
        } else if (v - 1.0).abs() < 1e-6 {
            "B".to_string()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(RGBColor(238, 238, 238))
        .x_labels(12)
        .x_label_formatter(&side_label)
        .y_label_formatter(&|v| {
            if ymax >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.1}")
            }
        })
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    for (x, side, color) in [(0.0, "A", A_COLOR), (1.0, "B", B_COLOR)] {
        let values: Vec<f64> = r
            .trials
            .iter()
            .filter(|t| t.side == side)
            .map(m.value)
            .collect();
        let n = values.len().max(2) - 1;
        chart
            .draw_series(values.iter().enumerate().map(|(k, &v)| {
                let jitter = k as f64 / n as f64 * 0.5 - 0.25;
                Circle::new((x + jitter, v), 4, color.filled())
            }))
            .map_err(e)?;
        if let Some(med) = median(&values) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x - 0.34, med), (x + 0.34, med)],
                    BLACK.stroke_width(2),
                )))
                .map_err(e)?;
        }
    }
    Ok(())
}

/// Each metric's ratio B/A and its interval, on a log scale.
fn forest<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Results) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let n = r.metrics.len().max(1);
    let xs: Vec<f64> = r
        .metrics
        .iter()
        .filter_map(|m| m.comparison)
        .flat_map(|c| [c.ratio.lo.log2(), c.ratio.hi.log2()])
        .chain([0.0])
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let pad = ((hi - lo) * 0.1).max(0.15);
    // room on the right for the verdicts
    let (lo, hi) = (lo - pad, hi + pad + (hi - lo + 2.0 * pad) * 0.35);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "B/A: ratio of the medians with its {}% bootstrap interval (log scale)",
                r.confidence_pct
            ),
            ("sans-serif", 17),
        )
        .margin(14)
        .x_label_area_size(36)
        .y_label_area_size(90)
        .build_cartesian_2d(lo..hi, -0.6f64..(n as f64 - 0.4))
        .map_err(e)?;
    let names: Vec<String> = r.metrics.iter().map(|m| m.name.clone()).collect();
    let row_name = move |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
            names[names.len() - 1 - i as usize].clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(RGBColor(238, 238, 238))
        .y_labels(4 * n + 1)
        .y_label_formatter(&row_name)
        .x_labels(10)
        .x_label_formatter(&|v| format!("{}x", ratio_text(v.exp2())))
        .x_desc("B / A")
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 14))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, -0.6), (0.0, n as f64 - 0.4)],
            RGBColor(90, 90, 90).stroke_width(1),
        )))
        .map_err(e)?;
    for (i, m) in r.metrics.iter().enumerate() {
        let Some(c) = m.comparison else { continue };
        let y = (n - 1 - i) as f64;
        let color = match c.verdict {
            Verdict::BBetter => RGBColor(44, 160, 44),
            Verdict::BWorse => RGBColor(214, 39, 40),
            Verdict::NoDifference => RGBColor(110, 110, 110),
        };
        let (l, h, x) = (
            c.ratio.lo.log2(),
            c.ratio.hi.log2(),
            c.ratio.estimate.log2(),
        );
        chart
            .draw_series([
                PathElement::new(vec![(l, y), (h, y)], color.stroke_width(3)),
                PathElement::new(vec![(l, y - 0.15), (l, y + 0.15)], color.stroke_width(2)),
                PathElement::new(vec![(h, y - 0.15), (h, y + 0.15)], color.stroke_width(2)),
            ])
            .map_err(e)?;
        chart
            .draw_series(std::iter::once(Circle::new((x, y), 6, color.filled())))
            .map_err(e)?;
        let text = match c.verdict {
            Verdict::NoDifference => format!(
                "{}x: no difference (±{:.0}% detectable)",
                ratio_text(c.ratio.estimate),
                c.detectable_pct
            ),
            v => format!("{}x: {}", ratio_text(c.ratio.estimate), v.phrase()),
        };
        chart
            .draw_series(std::iter::once(Text::new(
                text,
                (h + pad * 0.3, y + 0.12),
                ("sans-serif", 14).into_font().color(&color),
            )))
            .map_err(e)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abtest::report::sample_results;

    #[test]
    fn draws_both_sides_and_the_ratios() {
        let r = sample_results(6);
        let dir = std::env::temp_dir().join(format!("rsgw-abtest-chart-{}", std::process::id()));
        let files = draw(&dir, &r, None).expect("chart");
        assert_eq!(files, ["abtest.svg", "abtest.png"]);
        let svg = std::fs::read_to_string(dir.join("abtest.svg")).expect("svg");
        assert!(
            svg.contains("<svg") && svg.contains("CPU/op") && svg.contains("B better"),
            "{svg}"
        );
        // 12 trials in 4 strips and 4 ratio points
        assert!(svg.matches("<circle").count() >= 4 * 12 + 4);
        let png = std::fs::read(dir.join("abtest.png")).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}
