//! One table from algorithm names to kernels and verifiers, so that the CLI and the Python
//! package run every algorithm the same way: the same parameter names and defaults, the same
//! output arrays, the same statistics.

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use thiserror::Error;
use vastgraph_engine::{memory, visit_store, Adjacency, Graph, GraphVisitor, Vertex};
use vastgraph_store::Store;

use crate::checkpoint::Checkpoint;
use crate::common::{AlgoError, RunStats, StateSize, VerifyError};
use crate::*;

/// Parameters by name; each algorithm reads the ones it has and uses its defaults for the rest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Params {
    /// Source vertex (bfs, sssp, bellman-ford, bc, widest). Default: the vertex of largest out-degree.
    pub source: Option<u64>,
    /// Several sources (personalized-pagerank's teleport set; random-walk's start vertices).
    pub sources: Option<Vec<u64>>,
    /// bfs: output the BFS tree's parents instead of distances.
    #[serde(default)]
    pub parents: bool,
    /// tc: output per-vertex triangle counts.
    #[serde(default)]
    pub per_vertex: bool,
    pub max_iters: Option<u64>,
    pub tolerance: Option<f64>,
    pub damping: Option<f64>,
    /// sssp: bucket width; widest: bucket width.
    pub delta: Option<f64>,
    /// cc: afforest | ldd; widest: frontier | buckets; tc: marking | filter.
    pub method: Option<String>,
    pub seed: Option<u64>,
    /// ldd: the exponential-shift rate β.
    pub beta: Option<f64>,
    /// spanner: the stretch parameter k.
    pub k: Option<u32>,
    /// densest, setcover: ε.
    pub epsilon: Option<f64>,
    /// random-walk: steps per walk.
    pub walk_length: Option<usize>,
    /// random-walk: start a walk at every k-th vertex when no sources are given.
    pub every: Option<u64>,
    /// Where the iterative kernels save their state and resume from ([`ALGORITHMS`]'
    /// `resumable`); not a parameter of the result, so not serialised.
    #[serde(skip)]
    pub checkpoint: Option<Arc<Checkpoint>>,
}

impl Params {
    /// These parameters with those algorithm `name` does not take unset (the checkpoint
    /// kept): for a caller holding one set of parameters for many algorithms, such as a sweep
    /// over the registry. An unknown name keeps them all.
    pub fn only_for(&self, name: &str) -> Params {
        let Some(info) = ALGORITHMS.iter().find(|a| a.name == name) else {
            return self.clone();
        };
        let mut value = params_json(self);
        if let serde_json::Value::Object(fields) = &mut value {
            for (field, v) in fields.iter_mut() {
                if !info.params.contains(&field.as_str()) && !v.is_null() {
                    *v = if v.is_boolean() {
                        serde_json::Value::Bool(false)
                    } else {
                        serde_json::Value::Null
                    };
                }
            }
        }
        let mut kept: Params = serde_json::from_value(value).unwrap_or_default();
        kept.checkpoint = self.checkpoint.clone();
        kept
    }
}

/// A per-vertex (or per-edge, per-walk) result.
#[derive(Clone, Debug)]
pub enum Values {
    I64(Vec<i64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    U8(Vec<u8>),
    F64(Vec<f64>),
    /// Rows of `cols` vertex ids (edges: cols = 2; walks: cols = length + 1).
    Rows {
        data: Vec<u32>,
        cols: usize,
    },
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::I64(v) => v.len(),
            Values::U64(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::U8(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Rows { data, cols } => data.len() / cols.max(&1),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub struct Output {
    pub values: Option<Values>,
    pub stats: RunStats,
    /// The parameters the kernel ran with, defaults resolved.
    pub parameters: serde_json::Value,
    /// Kernel time only (the graph is already open).
    pub wall_seconds: f64,
    /// Peak heap above the heap live at the start: the algorithm's mutable state (0 unless the
    /// process installed the counting allocator).
    pub peak_mutable_bytes: u64,
    /// Seconds the verifier took, when asked to verify.
    pub verify_seconds: Option<f64>,
}

#[derive(Debug, Error)]
pub enum RunError {
    #[error("unknown algorithm '{0}'; run `vastgraph run --help` for the list")]
    Unknown(String),
    #[error(transparent)]
    Algo(#[from] AlgoError),
    #[error(transparent)]
    Verify(#[from] VerifyError),
}

pub struct AlgorithmInfo {
    pub name: &'static str,
    /// The fields of [`Params`] the kernel reads; giving any other is an error
    /// ([`check_params`]) rather than silently ignored.
    pub params: &'static [&'static str],
    pub summary: &'static str,
    /// What the kernel keeps in DRAM, for a run within a memory budget.
    pub state: StateSize,
    /// Saves and resumes from checkpoints ([`crate::checkpoint`]).
    pub resumable: bool,
    /// For a kernel with a branch of passes ([`vastgraph_engine::Traversal`]), which it takes
    /// on lists on disk: the bytes of state it keeps for `n` vertices with these parameters, or
    /// None when they make it read lists one at a time instead.
    pub state_in_passes: Option<fn(u64, &Params) -> Option<u64>>,
}

pub const ALGORITHMS: &[AlgorithmInfo] = &[
    AlgorithmInfo { name: "bfs", params: &["source", "parents"], summary: "hop distance from --source (-1 unreachable); --parents for the BFS tree", state: bfs::STATE, resumable: true, state_in_passes: Some(|n, p| Some(bfs::state_in_passes(n, p.parents))) },
    AlgorithmInfo { name: "sssp", params: &["source", "delta"], summary: "shortest-path distance from --source, non-negative weights (delta-stepping); inf unreachable", state: sssp::STATE, resumable: true, state_in_passes: Some(|n, _| Some(sssp::state_in_passes(n))) },
    AlgorithmInfo { name: "bellman-ford", params: &["source"], summary: "shortest-path distance from --source, any weights; error on a negative cycle", state: sssp::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "cc", params: &["method", "seed", "beta"], summary: "connected components (weak on directed graphs), label = smallest id in the component", state: cc::STATE, resumable: false, state_in_passes: Some(|n, p| (p.method.is_none() || p.method.as_deref() == Some("afforest")).then(|| cc::state_in_passes(n))) },
    AlgorithmInfo { name: "pagerank", params: &["damping", "tolerance", "max_iters"], summary: "PageRank, damping 0.85, stop at L1 change < --tolerance or --max-iters", state: pagerank::STATE, resumable: true, state_in_passes: Some(|n, _| Some(pagerank::state_in_passes(n))) },
    AlgorithmInfo { name: "bc", params: &["source"], summary: "single-source betweenness dependency from --source (Brandes)", state: bc::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "kcore", params: &[], summary: "coreness of every vertex (symmetric graphs)", state: kcore::STATE, resumable: true, state_in_passes: Some(|n, _| Some(kcore::state_in_passes(n))) },
    AlgorithmInfo { name: "tc", params: &["method", "per_vertex"], summary: "triangle count (total in stats; --per-vertex for counts per vertex)", state: tc::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "widest", params: &["source", "delta", "method"], summary: "widest (bottleneck) path width from --source; --method frontier|buckets", state: widest::STATE, resumable: false, state_in_passes: Some(|n, _| Some(widest::state_in_passes(n))) },
    AlgorithmInfo { name: "ldd", params: &["beta", "seed"], summary: "low-diameter decomposition (--beta, --seed): cluster id per vertex", state: ldd::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "spanner", params: &["k", "seed"], summary: "O(k)-spanner edges (--k, default ceil(log2 n))", state: spanner::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "spanning-forest", params: &[], summary: "spanning forest edges", state: spanning_forest::STATE, resumable: false, state_in_passes: Some(|n, _| Some(spanning_forest::state_in_passes(n))) },
    AlgorithmInfo { name: "coloring", params: &["seed"], summary: "(max degree + 1)-colouring, largest-log-degree-first", state: coloring::STATE, resumable: false, state_in_passes: Some(|n, _| Some(coloring::state_in_passes(n))) },
    AlgorithmInfo { name: "mis", params: &["seed"], summary: "maximal independent set, random-priority greedy (--seed); 1 = in the set", state: mis::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "densest", params: &["epsilon"], summary: "approximate densest subgraph by peeling (--epsilon); 1 = chosen", state: densest::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "matching", params: &["seed"], summary: "maximal matching, random-priority greedy through the graph filter (--seed): k × 2 edges", state: matching::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "setcover", params: &["epsilon", "seed"], summary: "(1+ε)-approximate set cover of the closed neighbourhoods (--epsilon, --seed); 1 = chosen", state: setcover::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "biconnectivity", params: &[], summary: "articulation points (1 = cut vertex); biconnected components in the stats", state: biconnectivity::STATE, resumable: false, state_in_passes: None },
    AlgorithmInfo { name: "label-propagation", params: &["max_iters"], summary: "community labels by synchronous label propagation", state: label_propagation::STATE, resumable: true, state_in_passes: None },
    AlgorithmInfo { name: "random-walk", params: &["sources", "source", "every", "walk_length", "seed"], summary: "random walks (--sources or --every, --walk-length, --seed): one row per walk", state: random_walk::STATE, resumable: false, state_in_passes: Some(|n, p| Some(random_walk_state(n, p))) },
    AlgorithmInfo { name: "delta-pagerank", params: &["damping", "tolerance", "max_iters"], summary: "PageRank by pushing changes above a threshold, same stopping rule", state: pagerank_variants::DELTA_STATE, resumable: true, state_in_passes: Some(|n, _| Some(pagerank_variants::state_in_passes(n))) },
    AlgorithmInfo { name: "personalized-pagerank", params: &["sources", "source", "damping", "tolerance", "max_iters"], summary: "PageRank teleporting to --sources (or --source)", state: pagerank_variants::PERSONALIZED_STATE, resumable: true, state_in_passes: Some(|n, _| Some(pagerank_variants::state_in_passes(n))) },
];

/// The registry as `vastgraph algorithms --json` prints it and `vg.algorithms()` returns it:
/// for each algorithm its name, summary, parameters, whether it saves checkpoints and whether
/// it runs in passes over lists on disk within a memory budget.
pub fn describe() -> serde_json::Value {
    ALGORITHMS
        .iter()
        .map(|a| {
            serde_json::json!({
                "name": a.name,
                "summary": a.summary,
                "parameters": a.params,
                "resumable": a.resumable,
                "in_passes": a.state_in_passes.is_some(),
            })
        })
        .collect()
}

/// The parameters set in `p` (given a value, or `true`) that algorithm `info` does not read:
/// an error naming them and the algorithm's own, so that `run bfs --damping 0.5` or
/// `vg.run(g, "cc", source=3)` is refused instead of silently ignoring the option.
pub fn check_params(info: &AlgorithmInfo, p: &Params) -> Result<(), AlgoError> {
    let serde_json::Value::Object(fields) = params_json(p) else {
        return Ok(());
    };
    let stray: Vec<&str> = fields
        .iter()
        .filter(|(_, value)| {
            !matches!(
                value,
                serde_json::Value::Null | serde_json::Value::Bool(false)
            )
        })
        .map(|(field, _)| field.as_str())
        .filter(|field| !info.params.contains(field))
        .collect();
    if stray.is_empty() {
        return Ok(());
    }
    let own = if info.params.is_empty() {
        "it takes no parameters".to_string()
    } else {
        format!("it takes {}", info.params.join(", "))
    };
    Err(invalid(
        info.name,
        format!("does not take {}; {own}", stray.join(" or ")),
    ))
}

/// The state of random-walk's branch of passes: it keeps its output, so it depends on how many
/// walks the parameters ask for and how long they are.
fn random_walk_state(n: u64, p: &Params) -> u64 {
    let d = random_walk::RandomWalkParams::default();
    let walks = match (&p.sources, p.source) {
        (Some(sources), _) => sources.len() as u64,
        (None, Some(_)) => 1,
        (None, None) => n.div_ceil(p.every.unwrap_or(d.every).max(1)),
    };
    let row_len = (p.walk_length.unwrap_or(d.length) as u64).saturating_add(1);
    random_walk::state_in_passes(n, walks, row_len)
}

/// The default source: the vertex with the most out-edges (smallest id among ties), so a run
/// without --source still explores something on any graph.
pub fn default_source<A: Adjacency>(g: &Graph<A>) -> u64 {
    use rayon::prelude::*;
    (0..g.num_vertices() as Vertex)
        .into_par_iter()
        .map(|v| (g.out().degree(v), std::cmp::Reverse(v)))
        .max()
        .map(|(_, std::cmp::Reverse(v))| v as u64)
        .unwrap_or(0)
}

/// A verifier applied to a kernel's typed result.
pub(crate) type Verifier<'a, R> = &'a dyn Fn(&R) -> Result<(), VerifyError>;

/// Runs `kernel`, measuring its time and heap peak, then `after_kernel`, then (if asked) the
/// verifier.
pub(crate) fn execute_then<R>(
    kernel: impl FnOnce() -> Result<R, AlgoError>,
    after_kernel: &dyn Fn(),
    verifier: Option<Verifier<'_, R>>,
    parameters: serde_json::Value,
    into: impl FnOnce(R) -> (Option<Values>, RunStats),
) -> Result<Output, RunError> {
    let started = Instant::now();
    let (result, peak) = memory::measure_heap_peak(kernel);
    let wall_seconds = started.elapsed().as_secs_f64();
    after_kernel();
    let result = result?;
    let verify_seconds = match verifier {
        Some(check) => {
            let t = Instant::now();
            check(&result)?;
            Some(t.elapsed().as_secs_f64())
        }
        None => None,
    };
    let (values, stats) = into(result);
    Ok(Output {
        values,
        stats,
        parameters,
        wall_seconds,
        peak_mutable_bytes: peak as u64,
        verify_seconds,
    })
}

/// The parameters a kernel ran with, defaults resolved, as JSON (the stats' `parameters`).
pub(crate) fn params_json(p: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(p).unwrap_or(serde_json::Value::Null)
}

fn invalid(algorithm: &'static str, message: String) -> AlgoError {
    AlgoError::InvalidParameter { algorithm, message }
}

/// Runs algorithm `name` on the graph of `store`, through the view its codec needs (raw or
/// compressed); with `verify`, also checks the result. Not generic, so that every kernel is
/// compiled once, here, for both views, rather than again in each crate that runs algorithms
/// (the CLI, the Python extension).
pub fn run_on_store(
    store: &Store,
    name: &str,
    params: &Params,
    verify: bool,
) -> Result<Output, RunError> {
    visit_store(
        store,
        RunOnGraph {
            name,
            params,
            verify,
        },
    )
}

/// [`run`] as a [`GraphVisitor`].
struct RunOnGraph<'a> {
    name: &'a str,
    params: &'a Params,
    verify: bool,
}

impl GraphVisitor for RunOnGraph<'_> {
    type Output = Result<Output, RunError>;
    fn visit<A: Adjacency>(self, graph: &Graph<A>) -> Self::Output {
        run(self.name, graph, self.params, self.verify)
    }
}

/// Runs algorithm `name` on `g`; with `verify`, also checks the result with its verifier.
pub fn run<A: Adjacency>(
    name: &str,
    g: &Graph<A>,
    p: &Params,
    verify: bool,
) -> Result<Output, RunError> {
    run_then(name, g, p, verify.then_some(g), &|| {})
}

/// [`run`], with the verifier (if any) reading `verify_on`, and `after_kernel` called when the
/// kernel is done, before its verifier: an out-of-core run takes the kernel's I/O records there,
/// and verifies on the mapped store rather than by reads at random.
pub fn run_then<A: Adjacency, B: Adjacency>(
    name: &str,
    g: &Graph<A>,
    p: &Params,
    verify_on: Option<&Graph<B>>,
    after_kernel: &dyn Fn(),
) -> Result<Output, RunError> {
    if let Some(info) = ALGORITHMS.iter().find(|a| a.name == name) {
        check_params(info, p)?;
    }
    let source = || p.source.unwrap_or_else(|| default_source(g));
    let checkpoint = p.checkpoint.as_deref();
    if let (Some(_), Some(info)) = (checkpoint, ALGORITHMS.iter().find(|a| a.name == name)) {
        if !info.resumable {
            let resumable: Vec<&str> = ALGORITHMS
                .iter()
                .filter(|a| a.resumable)
                .map(|a| a.name)
                .collect();
            return Err(invalid(
                info.name,
                format!(
                    "it does not save checkpoints; --checkpoint serves {}",
                    resumable.join(", ")
                ),
            )
            .into());
        }
    }
    macro_rules! go {
        ($q:expr, $kernel:expr, |$g:ident, $qq:ident, $r:ident| $verify:expr, |$res:ident| $into:expr) => {{
            let q = $q;
            let qr = &q;
            let check = verify_on.map(|vg| {
                move |$r: &_| {
                    let ($g, $qq) = (vg, qr);
                    $verify
                }
            });
            execute_then(
                || ($kernel)(g, &q),
                after_kernel,
                check.as_ref().map(|c| c as &dyn Fn(&_) -> _),
                params_json(&q),
                |$res| $into,
            )
        }};
    }
    match name {
        "bfs" => go!(
            bfs::BfsParams {
                source: source(),
                parents: p.parents
            },
            |g, q| bfs::bfs_resumable(g, q, checkpoint),
            |g, q, r| bfs::verify_bfs(g, q, r),
            |r| {
                let values = if p.parents {
                    r.parents.unwrap_or_default()
                } else {
                    r.distances
                };
                (Some(Values::I64(values)), r.stats)
            }
        ),
        "sssp" => go!(
            sssp::SsspParams {
                source: source(),
                delta: p.delta,
                ..Default::default()
            },
            |g, q| sssp::sssp_resumable(g, q, checkpoint),
            |g, q, r| sssp::verify_sssp(g, q.source, r),
            |r| (Some(Values::F64(r.distances)), r.stats)
        ),
        "bellman-ford" => go!(
            sssp::BellmanFordParams {
                source: source(),
                ..Default::default()
            },
            sssp::bellman_ford,
            |g, q, r| sssp::verify_sssp(g, q.source, r),
            |r| (Some(Values::F64(r.distances)), r.stats)
        ),
        "cc" => {
            let mut q = cc::CcParams {
                seed: p.seed.unwrap_or(cc::CcParams::default().seed),
                ..Default::default()
            };
            if let Some(b) = p.beta {
                q.beta = b;
            }
            q.method = match p.method.as_deref() {
                None => q.method,
                Some("afforest") => cc::CcMethod::Afforest,
                Some("ldd") => cc::CcMethod::Ldd,
                Some(other) => {
                    return Err(
                        invalid("cc", format!("unknown method '{other}': afforest or ldd")).into(),
                    )
                }
            };
            go!(
                q,
                cc::connected_components,
                |g, _q, r| cc::verify_cc(g, r),
                |r| (Some(Values::U32(r.labels)), r.stats)
            )
        }
        "pagerank" => {
            let d = pagerank::PageRankParams::default();
            go!(
                pagerank::PageRankParams {
                    damping: p.damping.unwrap_or(d.damping),
                    tolerance: p.tolerance.unwrap_or(d.tolerance),
                    max_iters: p.max_iters.unwrap_or(d.max_iters),
                },
                |g, q| pagerank::pagerank_resumable(g, q, checkpoint),
                |g, q, r| pagerank::verify_pagerank(g, q, r),
                |r| (Some(Values::F64(r.scores)), r.stats)
            )
        }
        "bc" => go!(
            bc::BcParams {
                source: source(),
                ..Default::default()
            },
            bc::bc,
            |g, q, r| bc::verify_bc(g, q, r),
            |r| (Some(Values::F64(r.dependencies)), r.stats)
        ),
        "kcore" => go!(
            kcore::KcoreParams::default(),
            |g, q| kcore::kcore_resumable(g, q, checkpoint),
            |g, _q, r| kcore::verify_kcore(g, r),
            |r| (Some(Values::U32(r.coreness)), r.stats)
        ),
        "tc" => {
            let method = match p.method.as_deref() {
                None => tc::TcParams::default().method,
                Some(m) => m.parse()?,
            };
            go!(
                tc::TcParams {
                    per_vertex: p.per_vertex,
                    method,
                    ..Default::default()
                },
                tc::tc,
                |g, _q, r| tc::verify_tc(g, r),
                |r| (r.per_vertex.map(Values::U64), r.stats)
            )
        }
        "widest" => {
            let method = match p.method.as_deref() {
                None => widest::WidestParams::default().method,
                Some("frontier") => widest::WidestMethod::Frontier,
                Some("buckets") => widest::WidestMethod::Buckets,
                Some(other) => {
                    return Err(invalid(
                        "widest",
                        format!("unknown method '{other}': frontier or buckets"),
                    )
                    .into())
                }
            };
            go!(
                widest::WidestParams {
                    source: source(),
                    method,
                    bucket_width: p.delta,
                    ..Default::default()
                },
                widest::widest_path,
                |g, q, r| widest::verify_widest_path(g, q, r),
                |r| (Some(Values::F64(r.widths)), r.stats)
            )
        }
        "ldd" => {
            let d = ldd::LddParams::default();
            go!(
                ldd::LddParams {
                    beta: p.beta.unwrap_or(d.beta),
                    seed: p.seed.unwrap_or(d.seed)
                },
                ldd::low_diameter_decomposition,
                |g, _q, r| ldd::verify_ldd(g, r),
                |r| (Some(Values::U32(r.clusters)), r.stats)
            )
        }
        "spanner" => {
            let d = spanner::SpannerParams::default();
            go!(
                spanner::SpannerParams {
                    k: p.k.or(d.k),
                    seed: p.seed.unwrap_or(d.seed)
                },
                spanner::spanner,
                |g, _q, r| spanner::verify_spanner(g, r),
                |r| (
                    Some(Values::Rows {
                        data: r.edges.concat(),
                        cols: 2
                    }),
                    r.stats
                )
            )
        }
        "spanning-forest" => go!(
            spanning_forest::SpanningForestParams::default(),
            spanning_forest::spanning_forest,
            |g, _q, r| spanning_forest::verify_spanning_forest(g, r),
            |r| (
                Some(Values::Rows {
                    data: r.edges.concat(),
                    cols: 2
                }),
                r.stats
            )
        ),
        "coloring" => go!(
            coloring::ColoringParams {
                seed: p.seed.unwrap_or(coloring::ColoringParams::default().seed)
            },
            coloring::coloring,
            |g, _q, r| coloring::verify_coloring(g, r),
            |r| (Some(Values::U32(r.colors)), r.stats)
        ),
        "mis" => go!(
            mis::MisParams {
                seed: p.seed.unwrap_or(mis::MisParams::default().seed)
            },
            mis::maximal_independent_set,
            |g, _q, r| mis::verify_mis(g, r),
            |r| (Some(Values::U8(r.in_set)), r.stats)
        ),
        "densest" => go!(
            densest::DensestParams {
                epsilon: p
                    .epsilon
                    .unwrap_or(densest::DensestParams::default().epsilon)
            },
            densest::densest_subgraph,
            |g, q, r| densest::verify_densest_subgraph(g, q, r),
            |r| (Some(Values::U8(r.in_subgraph)), r.stats)
        ),
        "matching" => go!(
            matching::MatchingParams {
                seed: p.seed.unwrap_or(matching::MatchingParams::default().seed),
                ..Default::default()
            },
            matching::maximal_matching,
            |g, _q, r| matching::verify_matching(g, r),
            |r| (
                Some(Values::Rows {
                    data: r.edges.concat(),
                    cols: 2
                }),
                r.stats
            )
        ),
        "setcover" => {
            let d = setcover::SetCoverParams::default();
            go!(
                setcover::SetCoverParams {
                    epsilon: p.epsilon.unwrap_or(d.epsilon),
                    seed: p.seed.unwrap_or(d.seed),
                },
                setcover::set_cover,
                |g, q, r| setcover::verify_set_cover(g, q, r),
                |r| (Some(Values::U8(r.in_cover)), r.stats)
            )
        }
        "biconnectivity" => go!(
            biconnectivity::BiconnectivityParams::default(),
            biconnectivity::biconnectivity,
            |g, _q, r| biconnectivity::verify_biconnectivity(g, r),
            |r| (Some(Values::U8(r.articulation)), r.stats)
        ),
        "label-propagation" => {
            let d = label_propagation::LabelPropagationParams::default();
            go!(
                label_propagation::LabelPropagationParams {
                    max_iters: p
                        .max_iters
                        .map(|x| x.min(u32::MAX as u64) as u32)
                        .unwrap_or(d.max_iters),
                },
                |g, q| label_propagation::label_propagation_resumable(g, q, checkpoint),
                |g, q, r| label_propagation::verify_label_propagation(g, q, r),
                |r| (Some(Values::U32(r.labels)), r.stats)
            )
        }
        "random-walk" => {
            let d = random_walk::RandomWalkParams::default();
            go!(
                random_walk::RandomWalkParams {
                    sources: p.sources.clone().or(p.source.map(|s| vec![s])),
                    every: p.every.unwrap_or(d.every),
                    length: p.walk_length.unwrap_or(d.length),
                    seed: p.seed.unwrap_or(d.seed),
                },
                random_walk::random_walks,
                |g, q, r| random_walk::verify_random_walks(g, q, r),
                |r| (
                    Some(Values::Rows {
                        data: r.walks,
                        cols: r.row_len
                    }),
                    r.stats
                )
            )
        }
        "delta-pagerank" => {
            let d = pagerank_variants::DeltaPageRankParams::default();
            go!(
                pagerank_variants::DeltaPageRankParams {
                    damping: p.damping.unwrap_or(d.damping),
                    tolerance: p.tolerance.unwrap_or(d.tolerance),
                    max_iters: p
                        .max_iters
                        .map(|x| x.min(u32::MAX as u64) as u32)
                        .unwrap_or(d.max_iters),
                    ..d
                },
                |g, q| pagerank_variants::delta_pagerank_resumable(g, q, checkpoint),
                |g, q, r| pagerank_variants::verify_delta_pagerank(g, q, r),
                |r| (Some(Values::F64(r.scores)), r.stats)
            )
        }
        "personalized-pagerank" => {
            let d = pagerank_variants::PersonalizedPageRankParams::default();
            go!(
                pagerank_variants::PersonalizedPageRankParams {
                    sources: p.sources.clone().unwrap_or_else(|| vec![source()]),
                    damping: p.damping.unwrap_or(d.damping),
                    tolerance: p.tolerance.unwrap_or(d.tolerance),
                    max_iters: p
                        .max_iters
                        .map(|x| x.min(u32::MAX as u64) as u32)
                        .unwrap_or(d.max_iters),
                    ..d
                },
                |g, q| pagerank_variants::personalized_pagerank_resumable(g, q, checkpoint),
                |g, q, r| pagerank_variants::verify_personalized_pagerank(g, q, r),
                |r| (Some(Values::F64(r.scores)), r.stats)
            )
        }
        other => Err(RunError::Unknown(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str) -> &'static AlgorithmInfo {
        ALGORITHMS.iter().find(|a| a.name == name).unwrap()
    }

    #[test]
    fn an_option_the_algorithm_does_not_read_is_refused_by_name() {
        let given = Params {
            damping: Some(0.5),
            source: Some(1),
            ..Params::default()
        };
        let err = check_params(info("bfs"), &given).unwrap_err().to_string();
        assert_eq!(err, "bfs: does not take damping; it takes source, parents");
        let err = check_params(info("kcore"), &given).unwrap_err().to_string();
        assert_eq!(
            err,
            "kcore: does not take damping or source; it takes no parameters"
        );
        assert!(check_params(info("personalized-pagerank"), &given).is_ok());
        // Unset flags are not "given".
        assert!(check_params(info("kcore"), &Params::default()).is_ok());
        let kept = given.only_for("bfs");
        assert_eq!((kept.source, kept.damping), (Some(1), None));
        assert!(check_params(info("bfs"), &kept).is_ok());
    }

    #[test]
    fn every_declared_parameter_is_a_field_of_params() {
        let fields = match params_json(&Params::default()) {
            serde_json::Value::Object(fields) => fields,
            other => panic!("{other}"),
        };
        for a in ALGORITHMS {
            for p in a.params {
                assert!(
                    fields.contains_key(*p),
                    "{}: {p} is not a Params field",
                    a.name
                );
            }
        }
        let described = describe();
        assert_eq!(described.as_array().unwrap().len(), ALGORITHMS.len());
        assert_eq!(
            described[0]["parameters"],
            serde_json::json!(ALGORITHMS[0].params)
        );
    }
}
