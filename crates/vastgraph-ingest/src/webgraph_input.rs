//! WebGraph BV graphs (`X.graph` + `X.properties`), read sequentially through the
//! `webgraph` crate: only the two files are needed (no `.offsets` / `.ef`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use vastgraph_store::MAX_VERTICES;
use webgraph::prelude::*;

use crate::format::{webgraph_basename, webgraph_file};
use crate::sink::EdgeSink;
use crate::{check_cancelled, IngestError};

/// Arcs per batch handed to the sink.
const BATCH_ARCS: usize = 1 << 20;

/// What the `.properties` file declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WebGraphInfo {
    pub(crate) nodes: u64,
    pub(crate) arcs: u64,
}

/// Reads `nodes` and `arcs` from `X.properties` and checks that `X.graph` exists.
pub(crate) fn read_info(path: &Path) -> Result<WebGraphInfo, IngestError> {
    let properties = webgraph_file(path, "properties");
    let graph = webgraph_file(path, "graph");
    let text = std::fs::read_to_string(&properties).map_err(|e| IngestError::io(&properties, e))?;
    std::fs::metadata(&graph).map_err(|e| IngestError::io(&graph, e))?;
    let value = |key: &str| {
        text.lines()
            .filter(|l| !l.trim_start().starts_with(['#', '!']))
            .filter_map(|l| l.split_once(['=', ':']))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim().to_string())
    };
    let number = |key: &str| -> Result<u64, IngestError> {
        value(key).and_then(|v| v.parse().ok()).ok_or_else(|| {
            IngestError::invalid(
                &properties,
                format!("missing or non-numeric '{key}' property"),
            )
        })
    };
    let info = WebGraphInfo {
        nodes: number("nodes")?,
        arcs: number("arcs")?,
    };
    if let Some(endianness) = value("endianness") {
        if endianness != "big" {
            return Err(IngestError::invalid(
                &properties,
                format!("endianness '{endianness}' is not supported (only big-endian, as written by the Java WebGraph)"),
            ));
        }
    }
    if info.nodes > MAX_VERTICES {
        return Err(IngestError::invalid(
            &properties,
            format!(
                "{} nodes exceed the limit of {MAX_VERTICES} vertices",
                info.nodes
            ),
        ));
    }
    Ok(info)
}

/// Streams all arcs into `sink`; `after_batch(nodes_done)` reports progress. Returns the
/// number of arcs, checked against the properties.
pub(crate) fn ingest_webgraph(
    path: &Path,
    info: WebGraphInfo,
    sink: &mut dyn EdgeSink,
    after_batch: &mut dyn FnMut(u64),
) -> Result<u64, IngestError> {
    let basename = webgraph_basename(path);
    let graph_path = webgraph_file(path, "graph");
    let invalid = |e: anyhow::Error| IngestError::invalid(&graph_path, format!("{e:#}"));
    // Memory-mapped (the library default) because the decoder reads whole words and the
    // mapping pads the file's tail; the pages are clean file pages the kernel can drop.
    let graph = BvGraphSeq::with_basename(&basename)
        .flags(MemoryFlags::SEQUENTIAL)
        .load()
        .map_err(invalid)?;
    if graph.num_nodes() as u64 != info.nodes {
        return Err(IngestError::invalid(
            &graph_path,
            "node count differs from the properties",
        ));
    }
    // The decoder has no error channel for corrupt bit streams and may panic; a corrupt
    // input must become an error, not a crash.
    let streamed = catch_unwind(AssertUnwindSafe(|| -> Result<u64, IngestError> {
        let mut src = Vec::with_capacity(BATCH_ARCS);
        let mut dst = Vec::with_capacity(BATCH_ARCS);
        let mut arcs: u64 = 0;
        let mut flush = |src: &mut Vec<u32>, dst: &mut Vec<u32>, node: u64| {
            sink.push_batch(src, dst, None)
                .map_err(|source| IngestError::Sink {
                    path: graph_path.clone(),
                    source,
                })?;
            arcs += src.len() as u64;
            src.clear();
            dst.clear();
            after_batch(node);
            check_cancelled()
        };
        for (u, v) in graph.iter().into_pairs() {
            if u as u64 >= info.nodes || v as u64 >= info.nodes {
                return Err(IngestError::invalid(
                    &graph_path,
                    format!(
                        "arc {u} → {v} names a node beyond the {} declared",
                        info.nodes
                    ),
                ));
            }
            src.push(u as u32);
            dst.push(v as u32);
            if src.len() == BATCH_ARCS {
                flush(&mut src, &mut dst, u as u64)?;
            }
        }
        flush(&mut src, &mut dst, info.nodes)?;
        Ok(arcs)
    }));
    let arcs = streamed.map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("decoder failure");
        IngestError::invalid(&graph_path, format!("corrupt WebGraph stream: {message}"))
    })??;
    if arcs != info.arcs {
        return Err(IngestError::invalid(
            &graph_path,
            format!("holds {arcs} arcs but the properties declare {}", info.arcs),
        ));
    }
    Ok(arcs)
}
