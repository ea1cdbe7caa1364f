//! What every algorithm shares: errors for unsuitable graphs and inputs, run statistics, and
//! verifier failures.

use thiserror::Error;
use vastgraph_engine::{Adjacency, EngineError, Graph, Traversal, Vertex};

#[derive(Debug, Error)]
pub enum AlgoError {
    #[error("{algorithm} needs edge weights, but this store is unweighted; {hint}")]
    NeedsWeights {
        algorithm: &'static str,
        hint: &'static str,
    },
    #[error("{algorithm} needs a symmetric (undirected) graph, but this store is directed; rebuild it with `vastgraph convert --symmetrize` (or `generate ... --symmetrize`)")]
    NeedsSymmetric { algorithm: &'static str },
    #[error("{algorithm} needs the in-edges of this directed graph; rebuild the store with `vastgraph convert --transpose`, or give it tiles (`vastgraph tile STORE`), which hold them too")]
    NeedsTranspose { algorithm: &'static str },
    /// Out of core a directed store's transpose is not read: in-edges come from its tiles,
    /// which the store lacks (`has_tiles` false) or the run did not open: asked not to, or for
    /// the lack of room (`tiles_budget`: the least budget that leaves it). `in_memory`: the
    /// least budget that runs in memory on the store's transpose, where it has one.
    #[error("{algorithm} needs the in-edges of this directed graph, which out of core come from the store's tiles; {}", tiles_remedy(*has_tiles, *tiles_budget, *in_memory))]
    NeedsTilesOutOfCore {
        algorithm: &'static str,
        has_tiles: bool,
        tiles_budget: Option<u64>,
        in_memory: Option<u64>,
    },
    #[error("{}", source_out_of_range_text(*vertex, *vertices))]
    SourceOutOfRange { vertex: u64, vertices: u64 },
    #[error("{algorithm}: {message}")]
    InvalidParameter {
        algorithm: &'static str,
        message: String,
    },
    /// Reading the graph failed (out-of-core runs read it while they compute).
    #[error("{algorithm}: {message}")]
    Io {
        algorithm: &'static str,
        message: String,
    },
    /// A checkpoint could not be read, written or used for this run.
    #[error("{}: {message}", path.display())]
    Checkpoint {
        path: std::path::PathBuf,
        message: String,
    },
    /// The run stopped on request (Ctrl-C, or the checkpoint's `stop_after`) after saving its
    /// state.
    #[error("{algorithm} stopped after iteration {iteration}; its state is saved in {}: run the same command with --resume to continue", path.display())]
    Interrupted {
        algorithm: &'static str,
        iteration: u64,
        path: std::path::PathBuf,
    },
    #[error("{algorithm}: {message}")]
    InvalidInput {
        algorithm: &'static str,
        message: String,
    },
}

/// What opens a store's tiles for a run out of core: building them, or, for a store that has
/// them, the room and the switch a run needs to read them.
fn tiles_remedy(has_tiles: bool, tiles_budget: Option<u64>, in_memory: Option<u64>) -> String {
    let first = match (has_tiles, tiles_budget) {
        (false, _) => "add them with `vastgraph tile STORE`".to_string(),
        // The least budget whose plan leaves them room (the I/O pool takes part of the rest).
        (true, Some(bytes)) => format!(
            "the budget has no room to stream them: give at least --memory {} ({bytes} bytes)",
            vastgraph_engine::memory::budget_flag_value(bytes)
        ),
        (true, None) => "this run did not open them: leave out --no-tiles".to_string(),
    };
    let or = match in_memory {
        Some(bytes) => format!(
            "or run in memory on the store's transpose: {}",
            vastgraph_engine::memory::minimum_budget_phrase(bytes)
        ),
        None => "or run without --memory on a store built with `vastgraph convert --transpose`"
            .to_string(),
    };
    format!("{first}; {or}")
}

#[derive(Debug, Error)]
#[error("verification of {algorithm} failed: {message}")]
pub struct VerifyError {
    pub algorithm: &'static str,
    pub message: String,
}

impl VerifyError {
    pub fn new(algorithm: &'static str, message: impl Into<String>) -> Self {
        VerifyError {
            algorithm,
            message: message.into(),
        }
    }
}

/// Counters every run reports (the CLI adds wall time and memory).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct RunStats {
    /// Rounds, levels, sweeps or peeling steps, as the algorithm defines them.
    pub iterations: u64,
    /// Arcs examined, summed over all steps.
    pub edges_traversed: u64,
    /// Algorithm-specific figures (triangle total, component count, final L1 change, ...).
    pub extra: serde_json::Map<String, serde_json::Value>,
}

impl RunStats {
    pub fn with(mut self, key: &str, value: impl Into<serde_json::Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// "not converged after N iterations" for an iterative kernel that stopped at its
    /// iteration bound (its `converged` is false); None otherwise.
    pub fn convergence_note(&self) -> Option<String> {
        (self.extra.get("converged") == Some(&serde_json::Value::Bool(false)))
            .then(|| format!("not converged after {} iterations", self.iterations))
    }
}

pub fn check_source<A: Adjacency>(g: &Graph<A>, source: u64) -> Result<Vertex, AlgoError> {
    if source >= g.num_vertices() as u64 {
        return Err(AlgoError::SourceOutOfRange {
            vertex: source,
            vertices: g.num_vertices() as u64,
        });
    }
    Ok(source as Vertex)
}

/// The error of `algorithm` on a graph that is not symmetric (in memory or on disk).
pub fn require_symmetric<G: Traversal>(g: &G, algorithm: &'static str) -> Result<(), AlgoError> {
    if g.is_symmetric() {
        Ok(())
    } else {
        Err(AlgoError::NeedsSymmetric { algorithm })
    }
}

/// The DRAM a kernel keeps beside the graph, its output included: what a run within a memory
/// budget sets aside for it before the rest goes to reading the graph. Each algorithm declares
/// its own beside its kernel (`STATE`), as an upper bound of what it allocates; a test measures
/// every kernel's heap peak against its declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StateSize {
    pub bytes_per_vertex: u64,
    /// Bits per arc, for kernels that keep a graph filter (Sage's bit per edge) or per-arc
    /// bucket entries; 0 for the O(n) kernels.
    pub bits_per_arc: u64,
}

/// Per worker thread, for task-local buffers (a push's destinations, a block of a list).
const STATE_PER_THREAD: u64 = 512 << 10;

/// A failed pass over the graph, as `algorithm`'s error.
pub(crate) fn read_error(algorithm: &'static str) -> impl Fn(EngineError) -> AlgoError {
    move |e| AlgoError::Io {
        algorithm,
        message: e.to_string(),
    }
}

impl StateSize {
    pub const fn per_vertex(bytes_per_vertex: u64) -> StateSize {
        StateSize {
            bytes_per_vertex,
            bits_per_arc: 0,
        }
    }

    /// The bytes for `n` vertices and `m` arcs with `threads` worker threads.
    pub fn bytes(&self, n: u64, m: u64, threads: u64) -> u64 {
        self.bytes_per_vertex * n + (self.bits_per_arc * m).div_ceil(8) + STATE_PER_THREAD * threads
    }
}

/// The ids of a graph of `vertices` vertices, for a message: "ids 0..=9", "no vertices".
/// An empty graph has no vertex to start from, whichever was asked for (or defaulted to).
fn source_out_of_range_text(vertex: u64, vertices: u64) -> String {
    match vertices {
        0 => "the graph has no vertices, so there is no source vertex to start from".to_string(),
        n => format!(
            "source vertex {vertex} is out of range: the graph has {n} vertices ({})",
            ids_text(n)
        ),
    }
}

pub(crate) fn ids_text(vertices: u64) -> String {
    match vertices {
        0 => "no ids".to_string(),
        n => format!("ids 0..={}", n - 1),
    }
}
