//! Out-of-core connected components in one sequential pass (CLIP's beyond-neighbourhood
//! processing): every arc streamed from disk links its endpoints in the same lock-free
//! union-find as the in-memory kernel (pointers from larger to smaller ids), then pointer
//! jumping labels every vertex with the smallest id of its component. On a symmetric graph each
//! edge is stored twice and is linked from one side only.

use std::sync::atomic::AtomicU32;

use rayon::prelude::*;
use vastgraph_engine::ooc::{IoMode, OocGraph, ScanSpec};
use vastgraph_engine::Vertex;

use super::{all_vertices, io_error};
use crate::cc::{compress, link, CcResult};
use crate::common::{AlgoError, RunStats};

const ALGORITHM: &str = "cc";

pub fn connected_components(g: &OocGraph) -> Result<CcResult, AlgoError> {
    let n = g.num_vertices();
    let comp: Vec<AtomicU32> = (0..n as Vertex)
        .into_par_iter()
        .map(AtomicU32::new)
        .collect();
    let symmetric = g.is_symmetric();
    let all = all_vertices(n);
    let spec = ScanSpec {
        mode: Some(IoMode::Streaming),
        ..ScanSpec::new(&all)
    };
    let record = g
        .scan(&spec, |v, neighbors, _| {
            for &u in neighbors {
                if !symmetric || u < v {
                    link(&comp, v, u);
                }
            }
        })
        .map_err(|e| io_error(ALGORITHM, e))?;
    drop(all);
    compress(&comp);
    let labels: Vec<Vertex> = comp.into_iter().map(AtomicU32::into_inner).collect();
    let num_components = labels
        .par_iter()
        .enumerate()
        .filter(|&(v, &l)| v as Vertex == l)
        .count() as u64;
    let stats = RunStats {
        iterations: 1,
        edges_traversed: record.bytes_needed / 4,
        ..Default::default()
    }
    .with("components", num_components)
    .with("method", "union-find, one pass");
    Ok(CcResult {
        labels,
        num_components,
        stats,
    })
}
