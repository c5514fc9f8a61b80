//! The sweep's charts, drawn with plotters as SVG and PNG: per workload and
//! object size, throughput against cores per instance, against 1 or 2
//! instances on the same CPUs, and (with CPU per operation) against the
//! thread pool size, one line per gateway variant; with repeats, each point
//! is the cell's geometric mean with its 95% interval as an error bar.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::report::{Cell, Row, by_bandwidth, cells, groups, value_of};
use super::size_name;

/// Fonts tried when `--font` is not given (Debian's fonts-dejavu-core,
/// fonts-liberation).
const FONTS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

const SIZE: (u32, u32) = (900, 540);

/// A chart written as `charts/STEM.svg` and `charts/STEM.png`.
#[derive(Debug, Clone)]
pub struct ChartRef {
    /// The workload it shows.
    pub workload: String,
    /// The object size it shows.
    pub object_size: u64,
    /// File name without extension.
    pub stem: String,
    /// Its caption.
    pub title: String,
}

/// A point of a line: x, the value, and its interval (equal to the value
/// without repeats).
type Point = (f64, f64, f64, f64);

/// One line chart.
struct Chart {
    title: String,
    x_desc: String,
    y_desc: String,
    /// X values are powers of two: spaced evenly, labelled as numbers.
    log2_x: bool,
    series: Vec<(String, Vec<Point>)>,
}

/// Registers the charts' font once; plotters draws no text without one.
pub(crate) fn font(path: Option<&Path>) -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let candidates: Vec<PathBuf> = match path {
            Some(p) => vec![p.to_path_buf()],
            None => FONTS.iter().map(PathBuf::from).collect(),
        };
        let (p, bytes) = candidates
            .iter()
            .find_map(|p| std::fs::read(p).ok().map(|b| (p, b)))
            .ok_or_else(|| {
                format!(
                    "charts need a TrueType font: install fonts-dejavu-core or pass --font FILE (tried {})",
                    candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
                )
            })?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
            .map_err(|_| format!("{} is not a TrueType font plotters can use", p.display()))
    })
    .clone()
}

/// Draws every chart the rows allow into `dir`; returns what it drew.
pub fn draw_all(
    dir: &Path,
    rows: &[Row],
    font_path: Option<&Path>,
) -> Result<Vec<ChartRef>, String> {
    let mut out = Vec::new();
    let planned = plan(rows);
    if planned.is_empty() {
        return Ok(out);
    }
    font(font_path)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (r, chart) in planned {
        let svg = dir.join(format!("{}.svg", r.stem));
        draw(SVGBackend::new(&svg, SIZE).into_drawing_area(), &chart)
            .map_err(|e| format!("{}: {e}", svg.display()))?;
        let png = dir.join(format!("{}.png", r.stem));
        draw(BitMapBackend::new(&png, SIZE).into_drawing_area(), &chart)
            .map_err(|e| format!("{}: {e}", png.display()))?;
        out.push(r);
    }
    Ok(out)
}

/// The charts the rows support: an axis needs two or more points.
fn plan(rows: &[Row]) -> Vec<(ChartRef, Chart)> {
    let mut out = Vec::new();
    let mut variants: Vec<&str> = Vec::new();
    for r in rows {
        if !variants.contains(&r.variant.as_str()) {
            variants.push(&r.variant);
        }
    }
    let all = cells(rows);
    for (workload, size) in groups(rows) {
        let g: Vec<&Cell<'_>> = all
            .iter()
            .filter(|c| c.rows[0].workload == workload && c.rows[0].object_size == size)
            .collect();
        let metric = if by_bandwidth(size) { "MB/s" } else { "ops/s" };
        let value = value_of(size);
        let name = format!("{workload} {}", size_name(size));
        let slug = format!("{workload}-{}", size_name(size));
        let max_threads = g.iter().map(|c| c.threads()).max().unwrap_or(0);
        let reference = |stem: &str, title: String| ChartRef {
            workload: workload.clone(),
            object_size: size,
            stem: format!("{stem}-{slug}"),
            title,
        };
        // the cells `pick` keeps, at the x it gives, with `f`'s interval
        let series = |pick: &dyn Fn(&Cell<'_>) -> Option<f64>,
                      f: fn(&Row) -> f64|
         -> Vec<(String, Vec<Point>)> {
            variants
                .iter()
                .map(|v| {
                    let mut pts: Vec<Point> = g
                        .iter()
                        .filter(|c| c.variant() == *v)
                        .filter_map(|c| {
                            pick(c).map(|x| {
                                let i = c.interval(f);
                                (x, i.estimate, i.lo, i.hi)
                            })
                        })
                        .collect();
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    (v.to_string(), pts)
                })
                .filter(|(_, p)| !p.is_empty())
                .collect()
        };
        let enough = |s: &[(String, Vec<Point>)]| s.iter().any(|(_, p)| p.len() >= 2);

        // against cores per instance, one instance, the most threads
        let s = series(
            &|c| (c.instances() == 1 && c.threads() == max_threads).then(|| c.cores() as f64),
            value,
        );
        if enough(&s) {
            let title =
                format!("{name}: {metric} against cores (1 instance, {max_threads} threads)");
            out.push((
                reference("cores", title.clone()),
                Chart {
                    title,
                    x_desc: "cores per instance".into(),
                    y_desc: metric.into(),
                    log2_x: true,
                    series: s,
                },
            ));
        }

        // one instance of 2N cores against two of N: the largest such pair
        let total = g
            .iter()
            .filter(|c| c.instances() == 2)
            .map(|c| c.cores() * 2)
            .filter(|t| g.iter().any(|c| c.instances() == 1 && c.cores() == *t))
            .max();
        if let Some(t) = total {
            let s = series(
                &|c| {
                    (c.threads() == max_threads
                        && c.cores() * c.instances() == t
                        && c.instances() <= 2)
                        .then(|| c.instances() as f64)
                },
                value,
            );
            if enough(&s) {
                let title = format!(
                    "{name}: {metric}, 1 x {t} cores against 2 x {} ({max_threads} threads)",
                    t / 2
                );
                out.push((
                    reference("instances", title.clone()),
                    Chart {
                        title,
                        x_desc: format!("instances on {t} cores"),
                        y_desc: metric.into(),
                        log2_x: true,
                        series: s,
                    },
                ));
            }
        }

        // against thread pool size, on the largest single instance
        if let Some(cores) = g
            .iter()
            .filter(|c| c.instances() == 1)
            .map(|c| c.cores())
            .max()
        {
            for (stem, m, f) in [
                ("threads", metric, value),
                (
                    "cpu-threads",
                    "CPU us per op",
                    (|r| r.cpu_us_per_op) as fn(&Row) -> f64,
                ),
            ] {
                let s = series(
                    &|c| (c.instances() == 1 && c.cores() == cores).then(|| c.threads() as f64),
                    f,
                );
                if enough(&s) {
                    let title = format!("{name}: {m} against thread pool size (1 x {cores} cores)");
                    out.push((
                        reference(stem, title.clone()),
                        Chart {
                            title,
                            x_desc: "handler threads (thread_pool_size)".into(),
                            y_desc: m.into(),
                            log2_x: true,
                            series: s,
                        },
                    ));
                }
            }
        }
    }
    out
}

/// Each gateway variant keeps its colour from chart to chart.
fn color_of(variant: &str, i: usize) -> RGBAColor {
    match variant {
        "rsgw async" => RGBColor(31, 119, 180).to_rgba(),
        "rsgw blocking" => RGBColor(255, 127, 14).to_rgba(),
        "radosgw" => RGBColor(44, 160, 44).to_rgba(),
        _ => Palette99::pick(i).to_rgba(),
    }
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, c: &Chart) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let tx = |x: f64| if c.log2_x { x.log2() } else { x };
    let xs: Vec<f64> = c
        .series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|(x, ..)| tx(*x)))
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let pad = ((hi - lo) * 0.08).max(0.25);
    let ymax = c
        .series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|(_, y, ..)| *y))
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.6;
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&c.title, ("sans-serif", 20))
        .margin(18)
        .x_label_area_size(48)
        .y_label_area_size(78)
        .build_cartesian_2d((lo - pad)..(hi + pad), 0.0..ymax)
        .map_err(e)?;
    let ticks: Vec<f64> = {
        let mut t = xs.clone();
        t.sort_by(f64::total_cmp);
        t.dedup();
        t
    };
    let log2 = c.log2_x;
    let label = move |v: &f64| {
        // only the measured positions carry labels
        if ticks.iter().any(|t| (t - v).abs() < 1e-6) {
            let x = if log2 { v.exp2() } else { *v };
            format!("{}", x.round())
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_desc(c.x_desc.as_str())
        .y_desc(c.y_desc.as_str())
        .x_labels(((hi - lo) * 4.0).round() as usize + 2)
        .x_label_formatter(&label)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(e)?;
    let cap = (hi - lo + 2.0 * pad) * 0.01;
    let n = c.series.len() as f64;
    for (i, (name, pts)) in c.series.iter().enumerate() {
        let color = color_of(name, i);
        // error bars: each point's interval, the series side by side,
        // cut at the top of the chart (an interval of 2 repeats can be
        // many times its value)
        let dodge = (i as f64 - (n - 1.0) / 2.0) * cap * 1.5;
        chart
            .draw_series(
                pts.iter()
                    .filter(|(_, _, l, h)| h > l)
                    .flat_map(|&(x, _, l, h)| {
                        let x = tx(x) + dodge;
                        let (l, h) = (l.max(0.0), h.min(ymax));
                        [
                            PathElement::new(vec![(x, l), (x, h)], color.stroke_width(1)),
                            PathElement::new(
                                vec![(x - cap, h), (x + cap, h)],
                                color.stroke_width(1),
                            ),
                            PathElement::new(
                                vec![(x - cap, l), (x + cap, l)],
                                color.stroke_width(1),
                            ),
                        ]
                    }),
            )
            .map_err(e)?;
        let pts: Vec<(f64, f64)> = pts.iter().map(|(x, y, ..)| (tx(*x), *y)).collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(e)?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(e)?;
    }
    chart
        .configure_series_labels()
        .label_font(("sans-serif", 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::report::sample_row as row;

    #[test]
    fn charts_need_two_points_on_their_axis() {
        let rows = vec![
            row("rsgw async", 1, 1, 512, 500.0),
            row("rsgw async", 2, 1, 512, 900.0),
            row("rsgw async", 1, 2, 512, 950.0),
            row("radosgw", 2, 1, 512, 200.0),
        ];
        let stems: Vec<String> = plan(&rows).into_iter().map(|(r, _)| r.stem).collect();
        assert_eq!(stems, ["cores-read-4KiB", "instances-read-4KiB"]);
        let mut more = rows.clone();
        more.push(row("rsgw async", 2, 1, 64, 880.0));
        let stems: Vec<String> = plan(&more).into_iter().map(|(r, _)| r.stem).collect();
        assert_eq!(
            stems,
            [
                "cores-read-4KiB",
                "instances-read-4KiB",
                "threads-read-4KiB",
                "cpu-threads-read-4KiB"
            ]
        );
    }

    #[test]
    fn repeats_become_error_bars() {
        let mut rows = Vec::new();
        for (pass, f) in [1.0, 1.1, 0.9].into_iter().enumerate() {
            for (cores, ops) in [(1, 500.0), (2, 900.0)] {
                let mut r = row("rsgw async", cores, 1, 512, ops * f);
                r.repeat = pass + 1;
                rows.push(r);
            }
        }
        let planned = plan(&rows);
        let (_, chart) = planned.first().expect("the cores chart");
        let pts = &chart.series[0].1;
        assert_eq!(pts.len(), 2);
        for &(_, y, lo, hi) in pts {
            assert!(lo < y && y < hi, "{lo} {y} {hi}");
        }
        let dir = std::env::temp_dir().join(format!("rsgw-sweep-bars-{}", std::process::id()));
        let drawn = draw_all(&dir, &rows, None).expect("charts");
        let svg = std::fs::read_to_string(dir.join(format!("{}.svg", drawn[0].stem))).expect("svg");
        // three strokes per error bar, beside the line and the legend's
        assert!(svg.matches("<polyline").count() > 2 * 3, "{svg}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn draws_svg_and_png_files() {
        assert!(
            !FONTS.iter().all(|f| !Path::new(f).exists()),
            "no font for the charts: install fonts-dejavu-core (scripts/test does)"
        );
        let rows = vec![
            row("rsgw async", 1, 1, 512, 500.0),
            row("rsgw async", 2, 1, 512, 900.0),
            row("radosgw", 1, 1, 512, 150.0),
            row("radosgw", 2, 1, 512, 200.0),
        ];
        let dir = std::env::temp_dir().join(format!("rsgw-sweep-charts-{}", std::process::id()));
        let drawn = draw_all(&dir, &rows, None).expect("charts");
        assert_eq!(drawn.len(), 1);
        let svg = std::fs::read_to_string(dir.join("cores-read-4KiB.svg")).expect("svg");
        assert!(
            svg.contains("<svg") && svg.contains("radosgw") && svg.contains("cores per instance")
        );
        let png = std::fs::read(dir.join("cores-read-4KiB.png")).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        std::fs::remove_dir_all(&dir).ok();
    }
}
