//! WebGraph BV graphs (`X.graph` + `X.properties`), read sequentially through the
//! `webgraph` crate: only the two files are needed (no `.offsets` / `.ef`).

use std::path::Path;

use dsi_bitstream::codes::ToInt;
use dsi_bitstream::traits::BE;
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
    // The decoder's own words, without the unwrap that turned its error into a panic.
    let message = message.trim_start_matches("called `Result::unwrap()` on an `Err` value: ");
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

/// The decoder's settings, as the `webgraph` crate reads them from the `.properties`.
#[derive(Clone, Copy)]
struct Layout {
    nodes: u64,
    arcs: u64,
    window: usize,
    min_interval: usize,
}

/// Reads every node's record with the crate's code reader, as its successor decoder will, but
/// keeping only the lengths of the lists in the window, and checks each count before the
/// decoder can act on it. The decoder trusts its input: it reserves a list's degree, extends
/// a list by an interval's length, copies blocks of a reference and subtracts what it decoded
/// from the degree without a check, so one corrupt count asks for exabytes (an allocation
/// failure aborts the process; no panic handler sees it) or loops for 2^64 residuals. After
/// this walk every list the decoder builds is exactly its checked degree, at most the nodes.
fn check_records<D: Decode>(
    decoder: &mut D,
    layout: Layout,
    graph_path: &Path,
) -> Result<(), IngestError> {
    let slots = layout.window + 1;
    let mut lengths = vec![0u64; slots];
    let mut arcs: u64 = 0;
    let mut node: u64 = 0;
    while node < layout.nodes {
        // A batch of nodes at a time, so that a panic (a read past the end) is caught near
        // where it happened.
        let end = (node + (1 << 16)).min(layout.nodes);
        decode_quietly(|| -> Result<(), String> {
            for u in node..end {
                let degree = check_record(decoder, layout, u, &lengths)?;
                arcs = arcs.saturating_add(degree);
                if arcs > layout.arcs {
                    return Err(format!(
                        "node {u}: past the {} arcs the properties declare",
                        layout.arcs
                    ));
                }
                lengths[u as usize % slots] = degree;
            }
            Ok(())
        })
        .map_err(|m| corrupt(graph_path, &m))?
        .map_err(|why| {
            IngestError::invalid(graph_path, format!("corrupt WebGraph stream: {why}"))
        })?;
        node = end;
    }
    Ok(())
}

/// Reads node `u`'s record (degree, reference, blocks, intervals, residuals) and returns its
/// degree once every count in it fits: the reference within the window and before `u`, the
/// blocks within the referenced list, the copied arcs, intervals and residuals adding up to the
/// degree, every interval and residual naming a node below `nodes`. Each loop advances by at
/// least one arc of a bounded list, so a stream of zeros or of huge counts ends in an error.
fn check_record<D: Decode>(
    d: &mut D,
    layout: Layout,
    u: u64,
    lengths: &[u64],
) -> Result<u64, String> {
    let nodes = layout.nodes;
    let degree = d.read_outdegree();
    if degree > nodes {
        return Err(format!(
            "node {u} has {degree} successors, more than the {nodes} nodes"
        ));
    }
    if degree == 0 {
        return Ok(0);
    }
    let mut left = degree;
    let reference = if layout.window == 0 {
        0
    } else {
        d.read_reference_offset()
    };
    if reference != 0 {
        if reference > layout.window as u64 || reference > u {
            return Err(format!(
                "node {u} copies from {reference} lists back, outside its window of {}",
                layout.window
            ));
        }
        let listed = lengths[(u - reference) as usize % lengths.len()];
        let blocks = d.read_block_count();
        let copied = if blocks == 0 {
            listed
        } else {
            let mut at = d.read_block();
            let mut copied = at;
            for block in 1..blocks {
                let length = d.read_block().saturating_add(1);
                if block % 2 == 0 {
                    copied = copied.saturating_add(length);
                }
                at = at.saturating_add(length);
                if at > listed {
                    break;
                }
            }
            if at > listed {
                return Err(format!(
                    "node {u}: its copy blocks run past the {listed} arcs of node {}",
                    u - reference
                ));
            }
            if blocks.is_multiple_of(2) {
                copied += listed - at;
            }
            copied
        };
        left = degree
            .checked_sub(copied)
            .ok_or_else(|| format!("node {u} copies {copied} arcs but has {degree} successors"))?;
    }
    let beyond = |what: &str| format!("node {u}: {what} beyond the {nodes} nodes");
    if left != 0 && layout.min_interval != 0 {
        let intervals = d.read_interval_count();
        if intervals > left {
            return Err(format!(
                "node {u} has {intervals} intervals but {left} successors left to decode"
            ));
        }
        let mut start = 0u64;
        for interval in 0..intervals {
            start = if interval == 0 {
                u.checked_add_signed(d.read_interval_start().to_int())
                    .ok_or_else(|| beyond("an interval starts"))?
            } else {
                start
                    .saturating_add(1)
                    .saturating_add(d.read_interval_start())
            };
            let length = d
                .read_interval_len()
                .saturating_add(layout.min_interval as u64);
            if length > left {
                return Err(format!(
                    "node {u}: an interval of {length} arcs, more than the {left} left to decode"
                ));
            }
            if start.saturating_add(length) > nodes {
                return Err(beyond("an interval ends"));
            }
            left -= length;
            start += length;
        }
    }
    if left != 0 {
        let mut residual = u
            .checked_add_signed(d.read_first_residual().to_int())
            .filter(|&v| v < nodes)
            .ok_or_else(|| beyond("a residual"))?;
        for _ in 1..left {
            residual = residual.saturating_add(1).saturating_add(d.read_residual());
            if residual >= nodes {
                return Err(beyond("a residual"));
            }
        }
    }
    Ok(degree)
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
    let (_, _, flags) =
        parse_properties::<BE>(webgraph_file(path, "properties")).map_err(invalid)?;
    if graph.num_nodes() as u64 != info.nodes {
        return Err(IngestError::invalid(
            &graph_path,
            "node count differs from the properties",
        ));
    }
    let layout = Layout {
        nodes: info.nodes,
        arcs: info.arcs,
        window: flags.compression_window,
        min_interval: flags.min_interval_length,
    };
    let factory = graph.into_inner();
    {
        let mut decoder = decode_quietly(|| SequentialDecoderFactory::new_decoder(&factory))
            .map_err(|m| corrupt(&graph_path, &m))?
            .map_err(invalid)?;
        check_records(&mut decoder, layout, &graph_path)?;
    }
    let graph = BvGraphSeq::new(
        factory,
        info.nodes as usize,
        Some(info.arcs),
        layout.window,
        layout.min_interval,
    );
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
