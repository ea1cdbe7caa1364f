//! `src<TAB>dst[<TAB>weight]` per arc, one line each.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use vastgraph_engine::Adjacency;
use vastgraph_store::WeightType;

use crate::arcs::for_each_arc;
use crate::atomic::write_then_rename;
use crate::{ExportGraph, ProgressFn};

/// Writes every arc of `g` to `path` as tab-separated text. Integer weights print as integers,
/// float weights as the shortest text that reads back as the same f32.
pub fn write_tsv<A: Adjacency>(
    g: &ExportGraph<A>,
    path: &Path,
    progress: ProgressFn,
) -> anyhow::Result<()> {
    write_then_rename(path, |tmp| {
        let file = std::fs::File::create(tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        let mut out = BufWriter::with_capacity(1 << 22, file);
        let mut line = Vec::with_capacity(64);
        let mut ints = itoa::Buffer::new();
        for_each_arc(g.out, progress, |u, v, w| {
            line.clear();
            line.extend_from_slice(ints.format(u).as_bytes());
            line.push(b'\t');
            line.extend_from_slice(ints.format(v).as_bytes());
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
    })
}
