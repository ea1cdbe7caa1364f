//! `vastgraph report STORE [--run STATS.json ...] -o report.html`: one self-contained HTML page
//! (inline SVG and CSS; no script, no external resource) with the store's degree distribution
//! on log-log axes and, for each run's stats record (`run --stats`), its summary, its
//! per-pass frontier size, bytes read and I/O mode (records of runs within `--memory`), and its
//! top vertices with their labels.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use plotters::coord::Shift;
use plotters::prelude::*;
use rayon::prelude::*;
use vastgraph_store::Store;

#[derive(clap::Args)]
pub struct ReportArgs {
    /// The store the page describes.
    pub store: PathBuf,
    /// A run's statistics, as written by `vastgraph run STORE ... --stats FILE` (repeatable).
    #[arg(long = "run", value_name = "STATS.json")]
    pub runs: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Replace an existing output file.
    #[arg(long, alias = "overwrite")]
    pub force: bool,
}

/// Series colours. The report test finds them in a rendering of the page, so they are written
/// once here and in no other colour of the page.
const OUT_DEGREE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
const IN_DEGREE: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
const FRONTIER: RGBColor = RGBColor(0x94, 0x67, 0xbd);

/// The colour of an I/O mode's bars.
fn mode_colour(mode: &str) -> RGBColor {
    match mode {
        "selective" => RGBColor(0xd6, 0x27, 0x28),
        "streaming" => RGBColor(0x2c, 0xa0, 0x2c),
        "random" => RGBColor(0x8c, 0x56, 0x4b),
        "first-neighbours-sample" => RGBColor(0xbc, 0xbd, 0x22),
        "list-heads" => RGBColor(0x17, 0xbe, 0xcf),
        _ => RGBColor(0x7f, 0x7f, 0x7f),
    }
}

const PLOT_SIZE: (u32, u32) = (720, 400);

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    crate::run::refuse_inside_store(&args.store, &args.output)?;
    crate::run::refuse_existing(&args.output, args.force)?;
    // Nothing is written until the page is drawn: until then, an interrupt ends the command.
    let stop_at_once = crate::signals::StopAtOnce::now();
    // A report reads the manifest and the degrees, not the tiles.
    let store = Store::open_without_tiles(&args.store)?;
    let m = store.manifest();
    // Every stats file is read and checked before anything is drawn or written.
    let fingerprint = vastgraph_algos::checkpoint::store_fingerprint(&args.store)?;
    let runs: Vec<(PathBuf, serde_json::Value)> = args
        .runs
        .iter()
        .map(|path| {
            let run = read_run(path, (&args.store, &fingerprint), m.vertices, m.arcs)?;
            Ok((path.clone(), run))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut page = String::new();
    let name = args.store.display().to_string();
    write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>vastgraph report: {}</title><style>{STYLE}</style></head><body>\n\
         <h1>{}</h1>\n",
        escape(&name),
        escape(&name)
    )?;
    store_section(&mut page, &store)?;
    for (path, stats) in &runs {
        run_section(&mut page, &args.store, m, path, stats)?;
    }
    page.push_str("</body></html>\n");
    drop(stop_at_once);
    crate::run::write_atomically(&args.output, args.force, |w| {
        Ok(w.write_all(page.as_bytes())?)
    })?;
    eprintln!(
        "report of {} ({} run{}) written to {}",
        name,
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        args.output.display()
    );
    Ok(())
}

const STYLE: &str = "body{font-family:sans-serif;max-width:760px;margin:2em auto;color:#222}\
    table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 10px;text-align:left}\
    th{border-bottom:1px solid #999}td.n{text-align:right;font-variant-numeric:tabular-nums}\
    h2{margin-top:2em;border-bottom:1px solid #ccc}p.note{color:#555}";

/// A stats record of a run on this store: a JSON object naming its algorithm, whose vertex and
/// arc counts are the store's, and whose store fingerprint (when it has one) is this store's: a
/// store of the same size (a reordered copy, another graph) would give its top vertices other
/// names.
fn read_run(
    path: &Path,
    (store, fingerprint): (&Path, &str),
    vertices: u64,
    arcs: u64,
) -> anyhow::Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let stats: serde_json::Value = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a stats record (JSON written by `vastgraph run --stats`)",
            path.display()
        )
    })?;
    anyhow::ensure!(
        stats["algorithm"].is_string(),
        "{}: not a stats record of `vastgraph run --stats` (it names no algorithm)",
        path.display()
    );
    let counts = (stats["vertices"].as_u64(), stats["arcs"].as_u64());
    anyhow::ensure!(
        counts == (Some(vertices), Some(arcs)),
        "{}: a run on a graph of {} vertices and {} arcs, not on this store ({vertices} vertices, \
         {arcs} arcs)",
        path.display(),
        stats["vertices"],
        stats["arcs"]
    );
    if let Some(recorded) = stats["store_fingerprint"].as_str() {
        anyhow::ensure!(
            recorded == fingerprint,
            "{}: a run on another store ({}) of the same size, or on {} before it was rebuilt, \
             reordered or tiled; its vertex ids may name other vertices here: run it again on {}",
            path.display(),
            stats["store"].as_str().unwrap_or("?"),
            store.display(),
            store.display()
        );
    }
    let out_of_range = stats["top"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["vertex"].as_u64().is_none_or(|v| v >= vertices));
    if let Some(ranked) = out_of_range {
        anyhow::bail!(
            "{}: its top names vertex {}, which this store of {vertices} vertices does not have",
            path.display(),
            ranked["vertex"]
        );
    }
    Ok(stats)
}

/// Number of vertices of each degree: (degree, vertices) for the degrees that occur, ascending.
fn degree_counts(offsets: &[u64]) -> Vec<(u64, u64)> {
    let counts = offsets
        .par_windows(2)
        .fold(BTreeMap::new, |mut counts: BTreeMap<u64, u64>, w| {
            *counts.entry(w[1] - w[0]).or_default() += 1;
            counts
        })
        .reduce(BTreeMap::new, |mut a, b| {
            for (degree, count) in b {
                *a.entry(degree).or_default() += count;
            }
            a
        });
    counts.into_iter().collect()
}

fn store_section(page: &mut String, store: &Store) -> anyhow::Result<()> {
    let m = store.manifest();
    let total_bytes: u64 = store.file_sizes().iter().map(|f| f.1).sum();
    page.push_str("<h2>Graph</h2>\n<table>\n");
    let rows = [
        ("vertices", m.vertices.to_string()),
        ("arcs", m.arcs.to_string()),
        (
            "kind",
            format!(
                "{}{}{}",
                if m.directed { "directed" } else { "symmetric" },
                if m.weighted { ", weighted" } else { "" },
                if m.has_transpose {
                    ", with transpose"
                } else {
                    ""
                }
            ),
        ),
        ("codec", format!("{:?}", m.codec).to_lowercase()),
        ("size on disk", crate::size::human(total_bytes)),
        (
            "labels",
            if m.has_labels { "yes" } else { "no" }.to_string(),
        ),
    ];
    for (key, value) in rows {
        writeln!(page, "<tr><th>{key}</th><td>{}</td></tr>", escape(&value))?;
    }
    page.push_str("</table>\n");
    let mut series = vec![("out-degree", OUT_DEGREE, degree_counts(store.offsets()))];
    if let Some(in_offsets) = store.in_offsets() {
        series.push(("in-degree", IN_DEGREE, degree_counts(in_offsets)));
    }
    let isolated: Vec<String> = series
        .iter()
        .map(|(name, _, counts)| {
            let zero = counts.first().filter(|c| c.0 == 0).map_or(0, |c| c.1);
            format!("{zero} of {name} 0")
        })
        .collect();
    writeln!(
        page,
        "<h3>Degree distribution</h3>\n<p class=\"note\">Vertices of each degree, log-log; \
         vertices of degree 0 are not drawn ({}).</p>",
        isolated.join(", ")
    )?;
    page.push_str(&degree_plot(&series)?);
    Ok(())
}

/// A plotted series: its name, its colour and its (degree, vertices) counts.
type DegreeSeries<'a> = (&'a str, RGBColor, Vec<(u64, u64)>);

/// The log-log scatter of (degree, vertices) for each series, degree 0 left out.
fn degree_plot(series: &[DegreeSeries<'_>]) -> anyhow::Result<String> {
    let points = || {
        series
            .iter()
            .flat_map(|s| s.2.iter())
            .filter(|(degree, _)| *degree > 0)
    };
    let max_degree = points().map(|p| p.0).max().unwrap_or(1).max(2) as f64;
    let max_count = points().map(|p| p.1).max().unwrap_or(1).max(2) as f64;
    svg_plot(|root| {
        let mut chart = chart_on(root)
            .build_cartesian_2d(
                (1f64..max_degree * 1.5).log_scale(),
                (1f64..max_count * 1.5).log_scale(),
            )
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("degree")
            .y_desc("vertices")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(plot_error)?;
        for (name, colour, counts) in series {
            let colour = *colour;
            chart
                .draw_series(
                    counts
                        .iter()
                        .filter(|(degree, _)| *degree > 0)
                        .map(move |&(d, c)| Circle::new((d as f64, c as f64), 3, colour.filled())),
                )
                .map_err(plot_error)?
                .label(*name)
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, colour.filled()));
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()
            .map_err(plot_error)?;
        Ok(())
    })
}

/// One plot as an SVG element: a white canvas of [`PLOT_SIZE`] on which `draw` builds its chart
/// from [`chart_on`].
fn svg_plot(
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, PLOT_SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        draw(&root)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The page's chart layout: margins and room for the axes' labels.
fn chart_on<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(root);
    builder
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70);
    builder
}

fn plot_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow::anyhow!("cannot draw the report's plot: {e}")
}

fn run_section(
    page: &mut String,
    store_dir: &Path,
    manifest: &vastgraph_store::Manifest,
    path: &Path,
    stats: &serde_json::Value,
) -> anyhow::Result<()> {
    let algorithm = stats["algorithm"].as_str().unwrap_or_default();
    let within = stats["memory_budget_bytes"].as_u64();
    writeln!(
        page,
        "<h2>{}{}</h2>\n<p class=\"note\">From {}</p>\n<table>",
        escape(algorithm),
        within.map_or(String::new(), |b| format!(
            " within {}",
            crate::size::human(b)
        )),
        escape(&path.display().to_string())
    )?;
    let number = |key: &str| stats[key].as_f64();
    let mut rows: Vec<(&str, String)> = vec![(
        "parameters",
        serde_json::to_string(&stats["parameters"]["resolved"])?,
    )];
    if let Some(s) = number("wall_seconds") {
        rows.push(("time", format!("{s:.4} s")));
    }
    if let Some(i) = stats["iterations"].as_u64() {
        rows.push(("iterations", i.to_string()));
    }
    if let Some(e) = stats["edges_traversed"].as_u64() {
        rows.push(("arcs traversed", e.to_string()));
    }
    if let Some(b) = stats["bytes_read"].as_u64() {
        rows.push(("bytes read", crate::size::human(b)));
    }
    if let Some(r) = number("read_mb_per_s") {
        rows.push(("read rate", format!("{r:.0} MB/s")));
    }
    if let Some(b) = stats["peak_rss_bytes"].as_u64() {
        rows.push(("peak RSS", crate::size::human(b)));
    }
    rows.push((
        "verified",
        if stats["verified"].as_bool() == Some(true) {
            "yes"
        } else {
            "no"
        }
        .to_string(),
    ));
    for (key, value) in rows {
        writeln!(page, "<tr><th>{key}</th><td>{}</td></tr>", escape(&value))?;
    }
    page.push_str("</table>\n");
    match stats["out_of_core"]["iterations"].as_array() {
        Some(passes) if !passes.is_empty() => pass_plots(page, passes)?,
        _ => page.push_str(
            "<p class=\"note\">No per-pass records: a run keeps them when it reads the graph \
             within <code>--memory</code>.</p>\n",
        ),
    }
    top_table(page, store_dir, manifest, &stats["top"])
}

/// Two bar charts over the passes: the frontier (active vertices, log scale) and the bytes
/// read, coloured by the pass's I/O mode.
fn pass_plots(page: &mut String, passes: &[serde_json::Value]) -> anyhow::Result<()> {
    let k = passes.len();
    let field = |p: &serde_json::Value, key: &str| p[key].as_u64().unwrap_or(0);
    let frontier: Vec<u64> = passes.iter().map(|p| field(p, "active_vertices")).collect();
    let bytes: Vec<f64> = passes
        .iter()
        .map(|p| field(p, "bytes_read") as f64 / (1 << 20) as f64)
        .collect();
    let modes: Vec<&str> = passes
        .iter()
        .map(|p| p["mode"].as_str().unwrap_or("unknown"))
        .collect();
    let max_frontier = frontier.iter().copied().max().unwrap_or(1).max(2) as f64;
    let max_bytes = bytes.iter().copied().fold(0.0, f64::max).max(1e-3);

    page.push_str("<h3>Frontier per pass</h3>\n");
    page.push_str(&svg_plot(|root| {
        let mut chart = chart_on(root)
            .build_cartesian_2d(
                -0.5f64..k as f64 - 0.5,
                (1f64..max_frontier * 1.5).log_scale(),
            )
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("pass")
            .y_desc("active vertices")
            .x_label_formatter(&|x| format!("{}", x.round() as i64 + 1))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(
                frontier
                    .iter()
                    .enumerate()
                    .filter(|(_, &f)| f > 0)
                    .map(|(i, &f)| {
                        let x = i as f64;
                        Rectangle::new([(x - 0.4, 1.0), (x + 0.4, f as f64)], FRONTIER.filled())
                    }),
            )
            .map_err(plot_error)?;
        Ok(())
    })?);

    page.push_str("<h3>Bytes read per pass, by I/O mode</h3>\n");
    page.push_str(&svg_plot(|root| {
        let mut chart = chart_on(root)
            .build_cartesian_2d(-0.5f64..k as f64 - 0.5, 0f64..max_bytes * 1.15)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("pass")
            .y_desc("MiB read")
            .x_label_formatter(&|x| format!("{}", x.round() as i64 + 1))
            .draw()
            .map_err(plot_error)?;
        let present: BTreeSet<&str> = modes.iter().copied().collect();
        for mode in present {
            let colour = mode_colour(mode);
            chart
                .draw_series(
                    bytes
                        .iter()
                        .zip(&modes)
                        .enumerate()
                        .filter(|(_, (_, &m))| m == mode)
                        .map(|(i, (&b, _))| {
                            let x = i as f64;
                            Rectangle::new([(x - 0.4, 0.0), (x + 0.4, b)], colour.filled())
                        }),
                )
                .map_err(plot_error)?
                .label(mode.to_string())
                .legend(move |(x, y)| {
                    Rectangle::new([(x + 4, y - 5), (x + 14, y + 5)], colour.filled())
                });
        }
        chart
            .configure_series_labels()
            .border_style(BLACK)
            .background_style(WHITE)
            .draw()
            .map_err(plot_error)?;
        Ok(())
    })?);
    Ok(())
}

/// The stats record's top vertices (`run` keeps the ten largest values, or `--top K`), with
/// the store's labels.
fn top_table(
    page: &mut String,
    store_dir: &Path,
    manifest: &vastgraph_store::Manifest,
    top: &serde_json::Value,
) -> anyhow::Result<()> {
    let Some(top) = top.as_array().filter(|t| !t.is_empty()) else {
        page.push_str(
            "<p class=\"note\">No top vertices: the algorithm gives no value per vertex.</p>\n",
        );
        return Ok(());
    };
    let ids: Vec<u32> = top
        .iter()
        .map(|t| {
            t["vertex"]
                .as_u64()
                .filter(|&v| v < manifest.vertices)
                .map(|v| v as u32)
                .context("the stats record's top names a vertex the store does not have")
        })
        .collect::<anyhow::Result<_>>()?;
    let labels = vastgraph_store::labels_of_ids(store_dir, manifest, &ids)?;
    writeln!(
        page,
        "<h3>Top {} vertices</h3>\n<table><tr><th>rank</th><th>vertex</th>{}<th>value</th></tr>",
        ids.len(),
        if labels.is_some() {
            "<th>label</th>"
        } else {
            ""
        }
    )?;
    for (rank, (entry, id)) in top.iter().zip(&ids).enumerate() {
        let label = labels
            .as_ref()
            .map_or(String::new(), |l| format!("<td>{}</td>", escape(&l[rank])));
        writeln!(
            page,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{id}</td>{label}<td class=\"n\">{}</td></tr>",
            rank + 1,
            escape(&match entry["value"].as_f64() {
                Some(x) if entry["value"].is_f64() => format!("{x:.6e}"),
                _ => entry["value"].to_string(),
            })
        )?;
    }
    page.push_str("</table>\n");
    Ok(())
}

/// Text for HTML: labels and paths come from the user's files.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degrees_are_counted_per_value() {
        // Degrees 2, 0, 1, 2.
        assert_eq!(
            degree_counts(&[0, 2, 2, 3, 5]),
            vec![(0, 1), (1, 1), (2, 2)]
        );
        assert!(degree_counts(&[0]).is_empty());
    }

    #[test]
    fn markup_in_user_text_is_escaped() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }
}
