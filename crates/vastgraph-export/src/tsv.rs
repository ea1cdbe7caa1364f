//! `src<TAB>dst[<TAB>weight]` per arc, one line each.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use vastgraph_engine::Adjacency;
use vastgraph_store::WeightType;

use crate::arcs::for_each_arc;
use crate::atomic::write_then_rename;
use crate::{ExportGraph, ProgressFn};
use vastgraph_store::Existing;

/// What a TSV file of arcs does not say about the store it came from, for the caller to tell
/// the user: `convert` gives the same graph back only with the flags these call for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsvSummary {
    /// Vertices on no line (no arc in or out): a TSV cannot list them; Parquet's vertex table
    /// does.
    pub unlisted_vertices: u64,
}

/// Writes every arc of `g` to `path` as tab-separated text, vertices by their labels when the
/// store has them (the names its input gave; `convert` reads them back), else by their ids.
/// Integer weights print as integers, float weights as the shortest text that reads back as
/// the same f32. A label is written as `convert` reads it back ([`label_needs_quotes`]); one it cannot
/// read back is refused, naming the vertex, before anything is written. `existing` says what
/// becomes of a file already at `path`.
pub fn write_tsv<A: Adjacency>(
    g: &ExportGraph<A>,
    path: &Path,
    existing: Existing,
    progress: ProgressFn,
) -> anyhow::Result<TsvSummary> {
    // The labels, and which are quoted on a line (a bit a vertex), each checked before
    // anything is written.
    let labels = match g.labels {
        Some(labels) => {
            let mut quoted = vec![0u64; labels.len().div_ceil(64)];
            for (v, label) in labels.iter().enumerate() {
                let quote = label_needs_quotes(label).map_err(|why| {
                    anyhow::anyhow!(
                        "the label of vertex {v} ({label:?}) {why}, which a TSV line cannot \
                         carry; export with --format parquet"
                    )
                })?;
                quoted[v / 64] |= u64::from(quote) << (v % 64);
            }
            Some((labels, quoted))
        }
        None => None,
    };
    let push_label = |line: &mut Vec<u8>, (labels, quoted): &(&[String], Vec<u64>), x: u32| {
        let (x, quote) = (x as usize, quoted[x as usize / 64] >> (x % 64) & 1 == 1);
        if quote {
            line.push(b'"');
        }
        line.extend_from_slice(labels[x].as_bytes());
        if quote {
            line.push(b'"');
        }
    };
    let n = g.out.num_vertices();
    let mut listed = vec![0u64; n.div_ceil(64)];
    let mut list = |v: u32| listed[v as usize / 64] |= 1 << (v % 64);
    write_then_rename(path, existing, |tmp| {
        let file = crate::create_output(tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut out = BufWriter::with_capacity(1 << 22, file);
        let mut line = Vec::with_capacity(64);
        let mut ints = itoa::Buffer::new();
        for_each_arc(g.out, progress, |u, v, w| {
            list(u);
            list(v);
            line.clear();
            match &labels {
                Some(labels) => {
                    push_label(&mut line, labels, u);
                    line.push(b'\t');
                    push_label(&mut line, labels, v);
                }
                None => {
                    line.extend_from_slice(ints.format(u).as_bytes());
                    line.push(b'\t');
                    line.extend_from_slice(ints.format(v).as_bytes());
                }
            }
            match g.weight_type {
                Some(WeightType::I32) => {
                    line.push(b'\t');
                    line.extend_from_slice(ints.format(w as i32).as_bytes());
                }
                Some(WeightType::F32) => {
                    line.push(b'\t');
                    line.extend_from_slice(format!("{}", w as f32).as_bytes());
                }
                None => {}
            }
            line.push(b'\n');
            out.write_all(&line)
                .with_context(|| format!("writing {}", tmp.display()))
        })?;
        let file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("writing {}", tmp.display()))?;
        // Devices and pipes cannot be synced (EINVAL) and need not be.
        if file.metadata().is_ok_and(|m| m.is_file()) {
            file.sync_all()
                .with_context(|| format!("writing {}", tmp.display()))?;
        }
        Ok(())
    })?;
    let listed: u64 = listed.iter().map(|w| u64::from(w.count_ones())).sum();
    Ok(TsvSummary {
        unlisted_vertices: n as u64 - listed,
    })
}

/// Whether a label is quoted on a line (`"carol smith"`) for `convert` to read it back as the
/// same label: where it holds a separator (space, comma) or starts with a comment marker (`#`,
/// `%`). Err names what no field can carry: an empty label, a tab or a line break, or a quote
/// that a field would open with, or that a quoted field would end at.
pub fn label_needs_quotes(label: &str) -> Result<bool, &'static str> {
    if label.is_empty() {
        return Err("is empty");
    }
    if label.contains(['\t', '\n', '\r']) {
        return Err("holds a tab or a line break");
    }
    if label.starts_with('"') {
        return Err("starts with a quote");
    }
    let quoted = label.contains([' ', ',']) || label.starts_with(['#', '%']);
    match quoted && label.contains('"') {
        false => Ok(quoted),
        true => Err("holds a quote beside a space, comma or comment marker"),
    }
}

#[cfg(test)]
mod tests {
    use super::label_needs_quotes;

    #[test]
    fn labels_are_quoted_where_convert_would_split_or_skip_them() {
        for (label, quoted) in [
            ("alice", false),
            ("a\"b", false),
            ("x#", false),
            ("carol smith", true),
            ("b,c", true),
            ("#x", true),
            ("%z", true),
        ] {
            assert_eq!(label_needs_quotes(label), Ok(quoted), "{label:?}");
        }
        for label in ["", "a\tb", "a\nb", "\"q\"", "a \"b\""] {
            assert!(label_needs_quotes(label).is_err(), "{label:?}");
        }
    }
}
