//! `vastgraph info STORE [--json] [--verify]`

use std::path::PathBuf;

use rayon::prelude::*;
use vastgraph_store::Store;

#[derive(clap::Args)]
pub struct InfoArgs {
    pub store: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Recompute every file's checksum and compare with the manifest.
    #[arg(long)]
    pub verify: bool,
}

/// Degree statistics of one direction of the adjacency.
fn degree_stats(offsets: &[u64]) -> serde_json::Value {
    let n = offsets.len().saturating_sub(1);
    let degrees = || offsets.par_windows(2).map(|w| w[1] - w[0]);
    let max = degrees().max().unwrap_or(0);
    let zero = degrees().filter(|&d| d == 0).count();
    // Histogram by powers of two: bucket k holds degrees in [2^(k-1), 2^k), bucket 0 holds 0.
    let buckets = 65 - max.leading_zeros() as usize;
    let histogram = degrees()
        .fold(
            || vec![0u64; buckets.max(1)],
            |mut h, d| {
                h[(64 - d.leading_zeros()) as usize] += 1;
                h
            },
        )
        .reduce(
            || vec![0u64; buckets.max(1)],
            |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
        );
    let labels: Vec<serde_json::Value> = histogram
        .iter()
        .enumerate()
        .map(|(k, &count)| {
            let range = if k == 0 {
                "0".to_string()
            } else {
                format!("{}-{}", 1u64 << (k - 1), (1u64 << k) - 1)
            };
            serde_json::json!({ "degrees": range, "vertices": count })
        })
        .collect();
    let arcs = offsets.last().copied().unwrap_or(0);
    serde_json::json!({
        "max": max,
        "mean": if n == 0 { 0.0 } else { arcs as f64 / n as f64 },
        "zero_degree_vertices": zero,
        "histogram": labels,
    })
}

/// A file of the tiles, or its page checksums.
fn tile_file(name: &str) -> bool {
    vastgraph_store::manifest::files::TILES.iter().any(|t| {
        name.strip_prefix(t)
            .is_some_and(|rest| rest.is_empty() || rest == ".pagesums")
    })
}

pub fn run(args: InfoArgs) -> anyhow::Result<()> {
    // `info` writes nothing: an interrupt, during the checksums of --verify say, ends it.
    let _stop_at_once = crate::signals::StopAtOnce::now();
    let store = Store::open(&args.store)?;
    if args.verify {
        store.verify()?;
    }
    let m = store.manifest();
    let files = store.file_sizes();
    let total_bytes: u64 = files.iter().map(|f| f.1).sum();
    let adjacency_bytes = crate::compress::adjacency_bytes(m);
    let mut info = serde_json::json!({
        "store": args.store.display().to_string(),
        "vertices": m.vertices,
        "arcs": m.arcs,
        "directed": m.directed,
        "weighted": m.weighted,
        "weight_type": m.weight_type,
        "has_transpose": m.has_transpose,
        "has_labels": m.has_labels,
        "codec": m.codec,
        "format_version": m.version,
        "dropped": m.dropped,
        "out_degree": degree_stats(store.offsets()),
        // null without arcs: no figure to divide by.
        "bytes_per_arc": (m.arcs > 0).then(|| adjacency_bytes as f64 / m.arcs as f64),
        "total_bytes": total_bytes,
        "files": files.iter().map(|(n, b)| serde_json::json!({"name": n, "bytes": b})).collect::<Vec<_>>(),
        "provenance": m.provenance,
        "checksums_verified": args.verify,
        "structure_verified": args.verify,
    });
    if let Some(inc) = store.in_offsets() {
        info["in_degree"] = degree_stats(inc);
    }
    if let Some(t) = &m.tiles {
        let bytes: u64 = files
            .iter()
            .filter(|(name, _)| tile_file(name))
            .map(|f| f.1)
            .sum();
        info["tiles"] = serde_json::json!({
            "side_log2": t.side_log2,
            "tiles": t.tiles,
            "arcs_per_tile": m.arcs as f64 / t.tiles.max(1) as f64,
            "bytes": bytes,
            "bytes_per_arc": (m.arcs > 0).then(|| bytes as f64 / m.arcs as f64),
        });
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    let d = &info["out_degree"];
    println!("store        {}", args.store.display());
    println!("vertices     {}", m.vertices);
    println!(
        "arcs         {} ({}{}{})",
        m.arcs,
        if m.directed { "directed" } else { "symmetric" },
        if m.weighted {
            format!(", weighted {:?}", m.weight_type.unwrap()).to_lowercase()
        } else {
            String::new()
        },
        if m.has_transpose {
            ", with transpose"
        } else {
            ""
        }
    );
    println!(
        "degree       max {}, mean {:.2}, {} vertices of degree 0",
        d["max"],
        d["mean"].as_f64().unwrap_or(0.0),
        d["zero_degree_vertices"]
    );
    println!(
        "histogram    {}",
        d["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| format!("{}:{}", h["degrees"].as_str().unwrap(), h["vertices"]))
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "codec        {}",
        match m.codec {
            vastgraph_store::Codec::Raw => "raw (u32 neighbour ids)",
            vastgraph_store::Codec::ByteCode64 =>
                "bytecode64 (difference-encoded varint byte codes, blocks of 64 neighbours)",
            vastgraph_store::Codec::StreamVByte64 =>
                "streamvbyte64 (difference-encoded Stream VByte codes, blocks of 64 neighbours)",
            vastgraph_store::Codec::FrameOfReference64 =>
                "for64 (offsets from each block's first neighbour in 1 to 4 bytes, blocks of 64 neighbours)",
            vastgraph_store::Codec::Zeta64 =>
                "zeta64 (intervals and gaps in γ and ζ3 bit codes, blocks of 64 neighbours)",
        }
    );
    println!(
        "input        {}",
        dropped_line(&m.dropped).unwrap_or_else(|| "every arc kept as given".to_string())
    );
    println!(
        "size         {} ({})",
        crate::size::human(total_bytes),
        match m.arcs {
            0 => "no arcs".to_string(),
            arcs => format!(
                "{} for the adjacency",
                crate::size::bytes_an_arc(adjacency_bytes, arcs)
            ),
        }
    );
    let width = files.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, bytes) in &files {
        println!("  {name:<width$} {:>12}", crate::size::human(*bytes));
    }
    if let Some(t) = info.get("tiles") {
        println!(
            "tiles        {} of 2^{} × 2^{} vertices, {:.0} arcs a tile, {} ({})",
            t["tiles"],
            t["side_log2"],
            t["side_log2"],
            t["arcs_per_tile"].as_f64().unwrap_or(0.0),
            crate::size::human(t["bytes"].as_u64().unwrap_or(0)),
            crate::size::bytes_an_arc(t["bytes"].as_u64().unwrap_or(0), m.arcs)
        );
    }
    if m.has_labels {
        println!("labels       yes (labels.txt maps dense ids to the input's labels)");
    }
    if args.verify {
        println!("checksums    verified");
        match (m.directed, m.has_transpose) {
            (false, _) => println!("structure    verified: every arc's reverse is stored"),
            (true, true) => {
                println!("structure    verified: the transpose holds the lists' reverses")
            }
            (true, false) => {}
        }
    }
    Ok(())
}

/// What a build dropped and merged, in words; `None` when it kept every input arc as given.
pub(crate) fn dropped_line(dropped: &vastgraph_store::Dropped) -> Option<String> {
    let mut parts = Vec::new();
    if dropped.self_loops + dropped.duplicate_arcs > 0 {
        parts.push(format!(
            "dropped {} self-loops and {} duplicate arcs",
            dropped.self_loops, dropped.duplicate_arcs
        ));
    }
    if dropped.reciprocal_pairs > 0 {
        parts.push(format!(
            "merged {} reciprocal pairs (edges given in both directions)",
            dropped.reciprocal_pairs
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
