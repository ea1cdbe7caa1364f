//! `vastgraph reorder`: a copy of a store with its vertices renumbered by decreasing degree.
//!
//! On a power-law graph the few vertices with the longest lists then sit together at the
//! front of every array, and the many short lists together behind them. Two things gain:
//! - out of core, a pass over the short lists (BFS's dense pull over the vertices still
//!   unvisited) reads one contiguous region instead of pages shared with the hubs' lists;
//! - in memory, the per-vertex values that gathers read most often (the hubs') share
//!   cache lines.
//!
//! The copy is built by the same out-of-core builder as `convert` (sorted runs within the
//! budget, staged and renamed into place), fed the source's arcs with both ends renamed.
//! It records where each vertex came from in `labels.txt`: the source's label when it had
//! labels, else the source's id, so outputs written as text still name the original
//! vertices.

use std::cmp::Reverse;
use std::path::Path;

use rayon::prelude::*;

use crate::builder::Labels;
use crate::manifest::{files, Manifest};
use crate::target_lock::{stage_path, TargetLock};
use crate::{BuildOptions, Store, StoreBuilder, StoreError, MIN_MEMORY_BYTES};

/// Arcs handed to the builder at a time.
const BATCH_ARCS: usize = 1 << 20;

#[derive(Clone, Debug)]
pub struct ReorderOptions {
    /// Budget for the whole reorder: the two id maps (8 bytes a vertex), the source's labels
    /// if it has any, and the builder's sort buffers.
    pub memory_bytes: u64,
    /// Replace an existing store at the target.
    pub overwrite: bool,
    /// Provenance: the command that built the store.
    pub command: String,
    /// Record the source's options as the copy's own, with `"order": "degree"` added: for a
    /// source built only to be reordered (`convert --order degree`). Otherwise the options
    /// name the source store and its command and options. Either way the copy keeps the
    /// source's inputs and what their build dropped.
    pub carry_provenance: bool,
    /// Where the renumbering and the build's phases are reported.
    pub progress: crate::progress::Progress,
}

/// How a new store's vertices are numbered (`convert --order`, `generate --order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VertexOrder {
    /// The ids as read (dense ids in first-seen order for labelled input).
    #[default]
    Input,
    /// By decreasing degree, as [`reorder_store`] renumbers them.
    Degree,
}

impl VertexOrder {
    pub const ALL: [VertexOrder; 2] = [VertexOrder::Input, VertexOrder::Degree];

    pub fn name(self) -> &'static str {
        match self {
            VertexOrder::Input => "input",
            VertexOrder::Degree => "degree",
        }
    }

    pub fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|o| o.name() == name)
            .ok_or_else(|| format!("unknown vertex order {name:?}: choose input or degree"))
    }
}

/// Runs `build(path, overwrite)`, which writes a store at `path`, so that the store at
/// `target` has its vertices in `order`. For degree order the store is built under a hidden
/// name next to `target` (the same file system, so the space is taken where it will be
/// used), renumbered into `target` with its provenance carried over, and removed, whether
/// the renumbering succeeds or not. An existing `target` is refused before the build unless
/// `overwrite`.
pub fn build_in_order<E: From<StoreError>>(
    target: &Path,
    overwrite: bool,
    order: VertexOrder,
    memory_bytes: u64,
    command: &str,
    build: impl FnOnce(&Path, bool) -> Result<Manifest, E>,
) -> Result<Manifest, E> {
    if order == VertexOrder::Input {
        return build(target, overwrite);
    }
    let target = &crate::staging::through_link(target);
    if target.exists() && !overwrite {
        return Err(StoreError::TargetExists {
            path: target.to_path_buf(),
        }
        .into());
    }
    // Held from before the hidden build until the renumbered store is in place: taking it
    // removes what a killed build of `target` left, never this build's own stage.
    let lock = TargetLock::acquire(target)?;
    let unordered = stage_path(target, "input-order");
    let reordered = build(&unordered, false).and_then(|_| {
        let opts = ReorderOptions {
            memory_bytes,
            overwrite,
            command: command.to_string(),
            carry_provenance: true,
            progress: Default::default(),
        };
        log::info!("renumbering by decreasing degree into {}", target.display());
        Ok(reorder_store_with(&unordered, target, &opts, Some(lock))?)
    });
    if unordered.exists() {
        if let Err(e) = std::fs::remove_dir_all(&unordered) {
            log::warn!("could not remove {}: {e}", unordered.display());
        }
    }
    reordered
}

/// The order of the new ids: `order[new] = old`, by decreasing out-degree, ties by old id
/// (so the result does not depend on the thread count).
fn degree_order(offsets: &[u64]) -> Vec<u32> {
    let n = offsets.len().saturating_sub(1);
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.par_sort_unstable_by_key(|&v| {
        let degree = offsets[v as usize + 1] - offsets[v as usize];
        (Reverse(degree), v)
    });
    order
}

/// The inverse of a permutation: `rank[order[i]] = i`.
fn inverse(order: &[u32]) -> Vec<u32> {
    let mut rank = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old as usize] = new as u32;
    }
    rank
}

/// Writes the store at `source` renumbered by [`degree_order`] to `target`, with the same
/// codec, direction, transpose, weights and self-loop policy.
pub fn reorder_store(
    source: &Path,
    target: &Path,
    opts: &ReorderOptions,
) -> Result<Manifest, StoreError> {
    reorder_store_with(source, target, opts, None)
}

/// [`reorder_store`] with the lock on writing `target` held by the caller, or taken here.
fn reorder_store_with(
    source: &Path,
    target: &Path,
    opts: &ReorderOptions,
    lock: Option<TargetLock>,
) -> Result<Manifest, StoreError> {
    // The tiles are not carried over (a renumbered store needs new ones): damaged ones do not
    // stop the copy.
    let store = Store::open_without_tiles(source)?;
    let target = &crate::staging::through_link(target);
    crate::staging::refuse_inside(source, target)?;
    let manifest = store.manifest().clone();
    let n = store.num_vertices();
    // Checked before the labels are loaded: their text plus a String header each.
    let label_bytes = manifest
        .files
        .iter()
        .find(|f| manifest.has_labels && f.name == files::LABELS)
        .map_or(0, |f| f.bytes + 24 * n as u64);
    let maps_bytes = 8 * n as u64;
    let minimum = maps_bytes + label_bytes + MIN_MEMORY_BYTES;
    if opts.memory_bytes < minimum {
        return Err(StoreError::MemoryBudgetTooSmall {
            given: opts.memory_bytes,
            minimum,
        });
    }
    let names = store.labels()?;
    let order = degree_order(store.offsets());
    let rank = inverse(&order);

    let symmetric = !manifest.directed;
    let build = BuildOptions {
        symmetrize: symmetric,
        input_has_both_arcs: symmetric,
        transpose: manifest.has_transpose,
        keep_self_loops: manifest.self_loops_kept,
        weighted: manifest.weighted,
        memory_bytes: opts.memory_bytes - maps_bytes - label_bytes,
        overwrite: opts.overwrite,
        command: opts.command.clone(),
        options_json: if opts.carry_provenance {
            let mut options = manifest.provenance.options.clone();
            if let Some(o) = options.as_object_mut() {
                o.insert("order".into(), "degree".into());
            }
            options
        } else {
            // As `compress` records it: the store it came from and how that one was built.
            serde_json::json!({
                "order": "degree",
                "source": source,
                "source_command": manifest.provenance.command,
                "source_options": manifest.provenance.options,
            })
        },
        codec: manifest.codec,
        progress: opts.progress.clone(),
        expected_size: Some(crate::ExpectedSize {
            edges: manifest.arcs,
            vertices: manifest.vertices,
        }),
        ..Default::default()
    };
    let mut builder = StoreBuilder::create_with(target, build, lock)?;
    // The same arcs renumbered: the original inputs and what their build dropped and merged
    // stay the store's record (as `compress` keeps them); a new count would find nothing.
    for input in &manifest.provenance.inputs {
        builder.add_input(input.clone());
    }
    builder.inherit_counts(manifest.dropped.clone(), manifest.provenance.input_edges);
    builder.ensure_vertices(n as u64);

    let offsets = store.offsets();
    let weights = store.weights();
    let lists = store.byte_code();
    let raw = store.neighbors();
    let (mut src, mut dst, mut wts) = (Vec::new(), Vec::new(), Vec::new());
    let mut list = Vec::new();
    opts.progress.phase("renumbering", Some(manifest.arcs));
    for v in 0..n {
        let neighbors: &[u32] = match &lists {
            Some(lists) => {
                list.clear();
                lists.decode_into(v as u32, &mut list);
                &list
            }
            None => &raw[offsets[v] as usize..offsets[v + 1] as usize],
        };
        // The lists were checked when the store was opened; a file rewritten since (in place,
        // under the map) must not become a store: a list that is not strictly increasing and
        // in range is no list of a store.
        if !is_list_of_a_store(neighbors, n) {
            return Err(StoreError::invalid_input(format!(
                "{}: the list of vertex {v} is not strictly increasing below {n}: the store \
                 changed while it was read, or is damaged (`vastgraph info --verify` checks it)",
                source.join(files::NEIGHBORS).display()
            )));
        }
        for (j, &u) in neighbors.iter().enumerate() {
            src.push(rank[v]);
            dst.push(rank[u as usize]);
            if let Some(w) = &weights {
                wts.push(w.get(offsets[v] as usize + j));
            }
        }
        if src.len() >= BATCH_ARCS || v + 1 == n {
            builder.push_batch(&src, &dst, weights.is_some().then_some(&wts[..]))?;
            opts.progress.advance(offsets[v + 1]);
            src.clear();
            dst.clear();
            wts.clear();
        }
    }
    drop(rank);
    builder.set_label_source(Labels::Renumbered {
        previous: order,
        names,
    });
    let written = builder.finish()?;
    log::info!(
        "reordered {} ({n} vertices, {} arcs) into {}",
        source.display(),
        manifest.arcs,
        target.display()
    );
    Ok(written)
}

/// Whether `neighbors` can be a list of a store of `n` vertices: strictly increasing, below n.
fn is_list_of_a_store(neighbors: &[u32], n: usize) -> bool {
    neighbors.windows(2).all(|w| w[0] < w[1]) && neighbors.last().is_none_or(|&u| (u as usize) < n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_is_strictly_increasing_and_in_range() {
        assert!(is_list_of_a_store(&[], 0));
        assert!(is_list_of_a_store(&[0, 2, 3], 4));
        // Zeros written over a file under its map, a repeat, an id past the vertices.
        assert!(!is_list_of_a_store(&[0, 0, 0], 4));
        assert!(!is_list_of_a_store(&[1, 2, 2], 4));
        assert!(!is_list_of_a_store(&[1, 4], 4));
    }

    #[test]
    fn degree_order_puts_long_lists_first_and_breaks_ties_by_id() {
        // Degrees: v0 1, v1 3, v2 0, v3 3, v4 1.
        let offsets = [0u64, 1, 4, 4, 7, 8];
        let order = degree_order(&offsets);
        assert_eq!(order, vec![1, 3, 0, 4, 2]);
        let rank = inverse(&order);
        for (new, &old) in order.iter().enumerate() {
            assert_eq!(rank[old as usize], new as u32);
        }
    }
}
