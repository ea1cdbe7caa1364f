//! `src<TAB>dst[<TAB>weight]` per arc, one line each.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use vastgraph_engine::Adjacency;
use vastgraph_store::WeightType;

use crate::arcs::for_each_arc;
use crate::atomic::write_then_rename;
use crate::{ExportGraph, ProgressFn};

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
/// the same f32. A label holding a tab or a line break would read back as other columns or
/// lines: refused, naming the vertex, before anything is written.
pub fn write_tsv<A: Adjacency>(
    g: &ExportGraph<A>,
    path: &Path,
    progress: ProgressFn,
) -> anyhow::Result<TsvSummary> {
    if let Some(labels) = g.labels {
        if let Some(v) = labels.iter().position(|l| l.contains(['\t', '\n', '\r'])) {
            anyhow::bail!(
                "the label of vertex {v} ({:?}) holds a tab or a line break, which a TSV line \
                 cannot carry; export with --format parquet",
                labels[v]
            );
        }
    }
    let n = g.out.num_vertices();
    let mut listed = vec![0u64; n.div_ceil(64)];
    let mut list = |v: u32| listed[v as usize / 64] |= 1 << (v % 64);
    write_then_rename(path, |tmp| {
        let file = std::fs::File::create(tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut out = BufWriter::with_capacity(1 << 22, file);
        let mut line = Vec::with_capacity(64);
        let mut ints = itoa::Buffer::new();
        for_each_arc(g.out, progress, |u, v, w| {
            list(u);
            list(v);
            line.clear();
            match g.labels {
                Some(labels) => {
                    line.extend_from_slice(labels[u as usize].as_bytes());
                    line.push(b'\t');
                    line.extend_from_slice(labels[v as usize].as_bytes());
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
