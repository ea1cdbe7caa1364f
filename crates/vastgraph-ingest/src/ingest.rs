//! Streaming all planned inputs into a sink, in order.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::binary::{ingest_binary, BinFormat};
use crate::blocks::TEXT_BLOCK_BYTES;
use crate::edge_list::{EdgeListParser, IdMode};
use crate::labels::LabelInterner;
use crate::sink::EdgeSink;
use crate::source::{open_input, open_text_input};
use crate::table;
use crate::text::{ingest_text_body, DeclaredCount, TextBody};
use crate::{
    dimacs, edge_list, matrix_market, webgraph_input, IngestError, IngestPlan, InputFormat,
};

/// What `ingest` read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IngestSummary {
    /// Edges pushed into the sink (all inputs).
    pub edges: u64,
    /// Edges per input, in input order.
    pub per_input: Vec<(PathBuf, u64)>,
    /// Number of distinct labels (label mode only).
    pub labels: Option<u64>,
}

/// Streams all inputs of `plan` into `sink`, in input order. Calls
/// `sink.ensure_vertices(declared)` first when a header declared a vertex count, and
/// `sink.set_labels(..)` first for an export's labels, last in label mode. `progress(bytes)`
/// is called now and then with the on-disk bytes consumed so far (compare with
/// `plan.total_bytes()`).
pub fn ingest(
    plan: &IngestPlan,
    sink: &mut dyn EdgeSink,
    progress: &mut dyn FnMut(u64),
) -> Result<IngestSummary, IngestError> {
    ingest_with_block_size(plan, sink, progress, TEXT_BLOCK_BYTES)
}

/// `ingest` with a chosen text block size (tests use tiny blocks to cross block edges).
pub(crate) fn ingest_with_block_size(
    plan: &IngestPlan,
    sink: &mut dyn EdgeSink,
    progress: &mut dyn FnMut(u64),
    block_bytes: usize,
) -> Result<IngestSummary, IngestError> {
    if let Some(n) = plan.declared_vertices {
        sink.ensure_vertices(n);
    }
    let mut interner = plan.labels.then(LabelInterner::default);
    let mut summary = IngestSummary::default();
    if let Some(first) = plan.vertex_labels.first() {
        // Read before the edges, so that a bad vertex table fails before a long read.
        let labels = table::vertex_labels(&plan.vertex_labels)?;
        let recorded = plan.declared_vertices.unwrap_or(labels.len() as u64);
        if recorded != labels.len() as u64 {
            let dir = first.parent().unwrap_or(first);
            return Err(IngestError::invalid(
                dir,
                format!(
                    "lists {} vertices, but the edge tables record {recorded}: the tables are not of one export",
                    labels.len()
                ),
            ));
        }
        summary.labels = Some(labels.len() as u64);
        sink.set_labels(labels);
    }
    let mut done_bytes = 0;
    for input in &plan.inputs {
        let path = input.path.as_path();
        let consumed = Arc::new(AtomicU64::new(0));
        let mut report = || progress(done_bytes + consumed.load(Ordering::Relaxed));
        let text = |first_line: u64, declared: Option<DeclaredCount>| TextBody {
            path,
            first_line,
            declared,
            block_bytes,
            read_ahead: true,
        };
        let edges = match input.format {
            InputFormat::EdgeList => {
                let parser = EdgeListParser {
                    ids: if plan.labels {
                        IdMode::Labels
                    } else {
                        IdMode::Integer
                    },
                    weighted: plan.weighted,
                };
                let stream = open_text_input(path, consumed.clone())?;
                let (first_line, stream) = match &input.header {
                    Some((line, _)) => (
                        line + 1,
                        Box::new(edge_list::skip_header(path, stream, *line)?)
                            as Box<dyn std::io::Read + Send>,
                    ),
                    None => (1, Box::new(stream) as Box<dyn std::io::Read + Send>),
                };
                ingest_text_body(
                    &text(first_line, None),
                    stream,
                    &parser,
                    interner.as_mut(),
                    sink,
                    &mut report,
                )?
            }
            InputFormat::MatrixMarket => {
                let stream = open_text_input(path, consumed.clone())?;
                let (header, reader) = matrix_market::read_header(path, stream)?;
                check_weighted(path, header.weighted(), plan)?;
                let declared = DeclaredCount {
                    count: header.entries,
                    what: "entries declared in the size line",
                };
                let parser = matrix_market::MatrixMarketParser { header };
                let body = text(header.header_lines + 1, Some(declared));
                ingest_text_body(&body, reader.into_inner(), &parser, None, sink, &mut report)?
            }
            InputFormat::Dimacs => {
                let stream = open_text_input(path, consumed.clone())?;
                let (header, reader) = dimacs::read_header(path, stream)?;
                check_weighted(path, true, plan)?;
                let declared = DeclaredCount {
                    count: header.arcs,
                    what: "arcs declared in the problem line",
                };
                let parser = dimacs::DimacsParser { header };
                let body = text(header.header_lines + 1, Some(declared));
                ingest_text_body(&body, reader.into_inner(), &parser, None, sink, &mut report)?
            }
            InputFormat::Bin32 | InputFormat::Bin64 => {
                check_weighted(path, false, plan)?;
                let format = if input.format == InputFormat::Bin32 {
                    BinFormat::Bin32
                } else {
                    BinFormat::Bin64
                };
                let stream = open_input(path, consumed.clone())?;
                ingest_binary(path, stream, format, sink, &mut report)?
            }
            InputFormat::Parquet | InputFormat::ArrowIpc => {
                let layout = input.table.as_ref().expect("planned with its layout");
                check_weighted(path, layout.weighted(), plan)?;
                let mut by_share =
                    |share: f64| progress(done_bytes + (input.bytes as f64 * share) as u64);
                table::ingest_table(
                    path,
                    input.format,
                    layout,
                    interner.as_mut(),
                    sink,
                    &mut by_share,
                )?
            }
            InputFormat::WebGraph => {
                check_weighted(path, false, plan)?;
                let info = webgraph_input::read_info(path)?;
                let nodes = info.nodes.max(1);
                let mut by_node = |node: u64| progress(done_bytes + input.bytes * node / nodes);
                webgraph_input::ingest_webgraph(path, info, sink, &mut by_node)?
            }
        };
        done_bytes += input.bytes;
        progress(done_bytes);
        summary.edges += edges;
        summary.per_input.push((input.path.clone(), edges));
    }
    if let Some(interner) = interner {
        summary.labels = Some(interner.len() as u64);
        sink.set_labels(interner.into_labels());
    }
    Ok(summary)
}

/// A sink created for weighted (unweighted) edges must get only those. The plan checked
/// this, but the file may have changed since.
fn check_weighted(path: &Path, weighted: bool, plan: &IngestPlan) -> Result<(), IngestError> {
    if weighted != plan.weighted {
        return Err(IngestError::invalid(
            path,
            format!(
                "is {} but the plan says the inputs are {}; was the file changed?",
                if weighted { "weighted" } else { "unweighted" },
                if plan.weighted {
                    "weighted"
                } else {
                    "unweighted"
                }
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{plan, IngestOptions, VecSink};

    /// Reads `text` (written to a file named `name`) with several block sizes; all must give
    /// the same edges, labels and error message as the default 16 MiB blocks.
    fn same_result_for_any_block_size(name: &str, text: &str) -> Result<VecSink, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let run = |block_bytes: usize| -> Result<VecSink, String> {
            let plan = plan(std::slice::from_ref(&path), &IngestOptions::default())
                .map_err(|e| e.to_string())?;
            let mut sink = VecSink::default();
            ingest_with_block_size(&plan, &mut sink, &mut |_| {}, block_bytes)
                .map_err(|e| e.to_string())?;
            sink.batches = 0;
            Ok(sink)
        };
        let reference = run(TEXT_BLOCK_BYTES);
        for block_bytes in [32, 33, 100, 4096] {
            assert_eq!(
                run(block_bytes),
                reference,
                "{name} with {block_bytes}-byte blocks"
            );
        }
        reference
    }

    fn edge_list_text(lines: usize, bad_line: Option<usize>) -> String {
        let mut text = String::from("# header\n");
        for i in 2..=lines {
            let line = match i {
                _ if Some(i) == bad_line => "1 2 3 4".to_string(),
                _ if i % 7 == 0 => "% comment".to_string(),
                _ if i % 11 == 0 => String::new(),
                _ => format!("{}\t{}", i % 101, (i * 31) % 97),
            };
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    #[test]
    fn edges_and_error_lines_do_not_depend_on_block_boundaries() {
        let ok = same_result_for_any_block_size("g.tsv", &edge_list_text(3000, None)).unwrap();
        let data_lines = (2..=3000).filter(|i| i % 7 != 0 && i % 11 != 0).count();
        assert_eq!(ok.src.len(), data_lines);
        assert_eq!(ok.pairs()[0], (2, 62));

        let err =
            same_result_for_any_block_size("g.tsv", &edge_list_text(3000, Some(2718))).unwrap_err();
        assert!(err.contains("g.tsv:2718: too many columns"), "{err}");
    }

    #[test]
    fn labels_do_not_depend_on_block_boundaries() {
        let text: String = (0..2000)
            .map(|i| format!("v{} w{}\n", i % 37, (i * 13) % 53))
            .collect();
        let sink = same_result_for_any_block_size("l.tsv", &text).unwrap();
        let labels = sink.labels.unwrap();
        assert_eq!(&labels[..3], ["v0", "w0", "v1"]);
        assert_eq!(labels.len(), 37 + 53);
    }

    #[test]
    fn declared_counts_are_checked_across_block_boundaries() {
        let mut text =
            String::from("%%MatrixMarket matrix coordinate pattern general\n% c\n90 90 500\n");
        for i in 0..600 {
            text.push_str(&format!("{} {}\n", i % 90 + 1, (i * 7) % 90 + 1));
        }
        let err = same_result_for_any_block_size("m.mtx", &text).unwrap_err();
        // Entry 501 is on line 3 + 501.
        assert!(
            err.contains("m.mtx:504: more than the 500 entries"),
            "{err}"
        );
    }
}
