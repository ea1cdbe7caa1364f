//! WebGraph BV graphs (`X.graph` + `X.properties`), read sequentially through the
//! `webgraph` crate: only the two files are needed (no `.offsets` / `.ef`).

use std::path::Path;

use vastgraph_store::MAX_VERTICES;
use webgraph::prelude::*;

use crate::format::{webgraph_basename, webgraph_file};
use crate::quiet_panic::decode_quietly;
use crate::sink::EdgeSink;
use crate::{check_cancelled, IngestError};

/// Arcs per batch handed to the sink.
const BATCH_ARCS: usize = 1 << 20;

/// The largest compression window accepted (WebGraph's default is 7).
const MAX_WINDOW: u64 = 1 << 16;

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
    // The decoder allocates a slot per list of the window (and a list per slot) before it
    // reads a bit: an absurd window must be refused, not allocated. Java WebGraph's is 7.
    if let Some(window) = value("windowsize") {
        match window.parse::<u64>() {
            Ok(w) if w <= MAX_WINDOW => {}
            _ => {
                return Err(IngestError::invalid(
                    &properties,
                    format!("windowsize '{window}' is not a number of at most {MAX_WINDOW}"),
                ))
            }
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

/// The error for a decoder failure: what the crate said, and what usually causes it.
fn corrupt(graph_path: &Path, message: &str) -> IngestError {
    let what = if message.contains("UnexpectedEof") {
        "the bit stream ends early"
    } else {
        "the bit stream does not decode"
    };
    IngestError::invalid(
        graph_path,
        format!(
            "corrupt WebGraph stream: {what} ({message}); the file is truncated or damaged, or \
             its .properties (nodes, windowsize, compressionflags, zetak) do not describe it"
        ),
    )
}

/// Decodes every node's degree alone (no successor is built) and checks each against the
/// declared nodes and their sum against the declared arcs: the successor decoder reserves a
/// list's degree before it reads the list, so a corrupt degree would otherwise ask for
/// terabytes and abort the process instead of failing.
fn check_degrees<F: SequentialDecoderFactory>(
    graph: &BvGraphSeq<F>,
    info: WebGraphInfo,
    graph_path: &Path,
) -> Result<(), IngestError> {
    let mut degrees =
        decode_quietly(|| graph.offset_deg_iter()).map_err(|m| corrupt(graph_path, &m))?;
    let mut arcs: u64 = 0;
    let mut node: u64 = 0;
    while node < info.nodes {
        // A batch of nodes at a time, so that a panic is caught near where it happened.
        let end = (node + (1 << 16)).min(info.nodes);
        decode_quietly(|| -> Result<(), IngestError> {
            for u in node..end {
                let degree = degrees.next_degree().map_err(|e| {
                    IngestError::invalid(graph_path, format!("corrupt WebGraph stream: {e:#}"))
                })? as u64;
                arcs = arcs.saturating_add(degree);
                if degree > info.nodes || arcs > info.arcs {
                    return Err(IngestError::invalid(
                        graph_path,
                        format!(
                            "node {u} has {degree} successors: more than the {} nodes, or past \
                             the {} arcs the properties declare (corrupt stream)",
                            info.nodes, info.arcs
                        ),
                    ));
                }
            }
            Ok(())
        })
        .map_err(|m| corrupt(graph_path, &m))??;
        node = end;
    }
    Ok(())
}

/// Streams all arcs into `sink`; `after_batch(nodes_done)` reports progress. Returns the
/// number of arcs, checked against the properties. Decoding stops at the first arc that names
/// a node beyond those declared, comes out of order, or exceeds the declared arc count, so a
/// damaged stream ends in an error, never in an endless or oversized read.
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
    let graph = decode_quietly(|| {
        BvGraphSeq::with_basename(&basename)
            .flags(MemoryFlags::SEQUENTIAL)
            .load()
    })
    .map_err(|m| corrupt(&graph_path, &m))?
    .map_err(invalid)?;
    if graph.num_nodes() as u64 != info.nodes {
        return Err(IngestError::invalid(
            &graph_path,
            "node count differs from the properties",
        ));
    }
    check_degrees(&graph, info, &graph_path)?;
    let mut pairs =
        decode_quietly(|| graph.iter().into_pairs()).map_err(|m| corrupt(&graph_path, &m))?;
    let (mut src, mut dst) = (
        Vec::with_capacity(BATCH_ARCS),
        Vec::with_capacity(BATCH_ARCS),
    );
    let mut arcs: u64 = 0;
    let mut last = (0usize, None::<usize>);
    loop {
        src.clear();
        dst.clear();
        // One batch decoded; the sink runs outside, where a panic is a bug to be seen.
        let batch = decode_quietly(|| -> Result<(), IngestError> {
            while src.len() < BATCH_ARCS {
                let Some((u, v)) = pairs.next() else {
                    break;
                };
                let bad = |why: String| Err(IngestError::invalid(&graph_path, why));
                if u as u64 >= info.nodes || v as u64 >= info.nodes {
                    return bad(format!(
                        "arc {u} → {v} names a node beyond the {} declared",
                        info.nodes
                    ));
                }
                if (u, Some(v)) <= last {
                    return bad(format!("arc {u} → {v} is out of order (corrupt stream)"));
                }
                if arcs + src.len() as u64 >= info.arcs {
                    return bad(format!(
                        "holds more arcs than the {} the properties declare",
                        info.arcs
                    ));
                }
                last = (u, Some(v));
                src.push(u as u32);
                dst.push(v as u32);
            }
            Ok(())
        })
        .map_err(|m| corrupt(&graph_path, &m))?;
        batch?;
        if src.is_empty() {
            break;
        }
        sink.push_batch(&src, &dst, None)
            .map_err(|source| IngestError::Sink {
                path: graph_path.clone(),
                source,
            })?;
        arcs += src.len() as u64;
        after_batch(last.0 as u64);
        check_cancelled()?;
    }
    after_batch(info.nodes);
    if arcs != info.arcs {
        return Err(IngestError::invalid(
            &graph_path,
            format!("holds {arcs} arcs but the properties declare {}", info.arcs),
        ));
    }
    Ok(arcs)
}
