//! One table from algorithm names to kernels and verifiers, so that the CLI and the Python
//! package run every algorithm the same way: the same parameter names and defaults, the same
//! output arrays, the same statistics.

use std::time::Instant;

use serde::Serialize;
use thiserror::Error;
use vastgraph_engine::{memory, visit_store, Adjacency, CsrGraph, Graph, GraphVisitor, Vertex};
use vastgraph_store::Store;

pub use crate::algorithm::{Algorithm, AlgorithmVisitor, Descriptor, Params, VertexValues};
use crate::common::{AlgoError, RunStats, VerifyError};
use crate::*;

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

/// The registry: every algorithm, by its type. Adding an algorithm is its file (a descriptor
/// and an [`Algorithm`] impl) and one line here.
macro_rules! registry {
    ($($algorithm:ty),* $(,)?) => {
        /// Every algorithm's descriptor, in the order `vastgraph algorithms` lists them.
        pub const ALGORITHMS: &[Descriptor] = &[$(<$algorithm as Algorithm>::DESCRIPTOR),*];

        /// Does `visitor`'s work with the algorithm named `name`; None for an unknown name.
        pub fn visit<V: AlgorithmVisitor>(name: &str, visitor: V) -> Option<V::Output> {
            $(
                if name == <$algorithm as Algorithm>::DESCRIPTOR.name {
                    return Some(visitor.visit::<$algorithm>());
                }
            )*
            None
        }
    };
}

registry![
    bfs::Bfs,
    sssp::Sssp,
    sssp::BellmanFord,
    cc::Cc,
    pagerank::PageRank,
    bc::Bc,
    kcore::Kcore,
    tc::Tc,
    widest::Widest,
    ldd::Ldd,
    spanner::Spanner,
    spanning_forest::SpanningForest,
    coloring::Coloring,
    mis::Mis,
    densest::Densest,
    matching::Matching,
    setcover::SetCover,
    biconnectivity::Biconnectivity,
    label_propagation::LabelPropagation,
    random_walk::RandomWalk,
    pagerank_variants::DeltaPageRank,
    pagerank_variants::PersonalizedPageRank,
    scc::Scc,
];

/// The descriptor of algorithm `name`.
pub fn descriptor(name: &str) -> Result<&'static Descriptor, RunError> {
    ALGORITHMS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| RunError::Unknown(name.to_string()))
}

/// The most iterations a run of `name` with `params` takes, when its kernel has a bound
/// (`Descriptor::iteration_bound`); unknown algorithms have none.
pub fn iteration_bound(name: &str, params: &Params) -> Option<u64> {
    descriptor(name)
        .ok()
        .and_then(|d| d.iteration_bound(params))
}

/// The registry as `vastgraph algorithms --json` prints it and `vg.algorithms()` returns it.
pub fn describe() -> serde_json::Value {
    ALGORITHMS.iter().map(Descriptor::describe).collect()
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

/// [`run`] on a raw CSR graph (a store's mapped view, or an [`InMemoryGraph`]'s): not generic,
/// so that it is the instantiation [`run_on_store`] compiles here, rather than every kernel
/// compiled again in the crate that calls it (a test binary among them).
///
/// [`InMemoryGraph`]: vastgraph_engine::InMemoryGraph
pub fn run_on_csr(
    name: &str,
    g: &CsrGraph<'_>,
    p: &Params,
    verify: bool,
) -> Result<Output, RunError> {
    run(name, g, p, verify)
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
    visit(
        name,
        RunThen {
            g,
            p,
            verify_on,
            after_kernel,
        },
    )
    .unwrap_or_else(|| Err(RunError::Unknown(name.to_string())))
}

/// [`run_then`] for one algorithm's type.
struct RunThen<'a, A: Adjacency, B: Adjacency> {
    g: &'a Graph<A>,
    p: &'a Params,
    verify_on: Option<&'a Graph<B>>,
    after_kernel: &'a dyn Fn(),
}

/// Refuses a checkpoint to an algorithm that saves none, naming those that do.
pub fn check_resumable(descriptor: &Descriptor) -> Result<(), AlgoError> {
    if descriptor.resumable {
        return Ok(());
    }
    let resumable: Vec<&str> = ALGORITHMS
        .iter()
        .filter(|a| a.resumable)
        .map(|a| a.name)
        .collect();
    Err(descriptor.invalid(format!(
        "it does not save checkpoints; --checkpoint serves {}",
        resumable.join(", ")
    )))
}

impl<A: Adjacency, B: Adjacency> AlgorithmVisitor for RunThen<'_, A, B> {
    type Output = Result<Output, RunError>;
    fn visit<K: Algorithm>(self) -> Self::Output {
        let descriptor = &K::DESCRIPTOR;
        descriptor.check(self.p)?;
        descriptor.check_graph(
            self.p,
            self.g.num_vertices() as u64,
            self.g.is_symmetric(),
            self.g.is_weighted(),
        )?;
        let checkpoint = self.p.checkpoint.as_deref();
        if checkpoint.is_some() {
            check_resumable(descriptor)?;
        }
        let q = K::params(self.p, self.g)?;
        let resolved = &q;
        let verifier = self
            .verify_on
            .map(|vg| move |r: &K::Result| K::verify(vg, resolved, r));
        execute_then(
            || K::kernel(self.g, &q, checkpoint),
            self.after_kernel,
            verifier.as_ref().map(|v| v as Verifier<'_, K::Result>),
            params_json(&q),
            |r| K::output(r, &q),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn info(name: &str) -> &'static Descriptor {
        descriptor(name).unwrap()
    }

    #[test]
    fn an_option_the_algorithm_does_not_read_is_refused_by_name() {
        let given = Params::default().with("damping", 0.5).with("source", 1);
        let err = info("bfs").check(&given).unwrap_err().to_string();
        assert_eq!(err, "bfs: does not take damping; it takes source, parents");
        let err = info("kcore").check(&given).unwrap_err().to_string();
        assert_eq!(
            err,
            "kcore: does not take damping or source; it takes no parameters"
        );
        assert!(info("personalized-pagerank").check(&given).is_ok());
        // Unset flags are not "given".
        let unset = Params::default().with("parents", false);
        assert!(info("kcore").check(&unset).is_ok());
        let kept = given.only_for("bfs");
        assert_eq!(kept.get("source"), Some(&serde_json::json!(1)));
        assert_eq!(kept.get("damping"), None);
        assert!(info("bfs").check(&kept).is_ok());
    }

    #[test]
    fn a_value_outside_its_kind_or_range_is_refused_naming_the_range() {
        let refuse = |name: &str, p: Params| info(name).check(&p).unwrap_err().to_string();
        assert_eq!(
            refuse("pagerank", Params::default().with("damping", 1.0)),
            "pagerank: damping must be a finite number in [0, 1), got 1.0"
        );
        assert_eq!(
            refuse("cc", Params::default().with("method", "bfs")),
            "cc: method must be afforest or ldd, got \"bfs\""
        );
        assert_eq!(
            refuse("bfs", Params::default().with("source", -1)),
            "bfs: source must be a vertex id, got -1"
        );
        assert!(info("pagerank")
            .check(&Params::default().with("damping", 0.0))
            .is_ok());
        for word in ["nan", "NaN", "inf", "-inf", "infinity"] {
            assert_eq!(
                crate::pagerank::DAMPING.parse(word),
                Err(format!("--damping: {word:?} is not a finite number"))
            );
        }
        assert_eq!(crate::ldd::BETA.parse("0.5"), Ok(serde_json::json!(0.5)));
    }

    #[test]
    fn a_parameter_name_has_one_kind_across_the_registry() {
        let mut kinds: HashMap<&str, (&str, &str)> = HashMap::new();
        for a in ALGORITHMS {
            for p in a.params {
                let (first, kind) = *kinds.entry(p.name).or_insert((a.name, p.kind.name()));
                assert_eq!(
                    kind,
                    p.kind.name(),
                    "{} of {} and of {first} differ in kind",
                    p.name,
                    a.name
                );
            }
        }
        let described = describe();
        assert_eq!(described.as_array().unwrap().len(), ALGORITHMS.len());
        assert_eq!(described[0]["parameters"][0]["name"], "source");
    }

    #[test]
    fn the_registry_names_each_algorithm_once_and_visits_it_by_name() {
        struct Name;
        impl AlgorithmVisitor for Name {
            type Output = &'static str;
            fn visit<K: Algorithm>(self) -> &'static str {
                K::DESCRIPTOR.name
            }
        }
        let mut seen = std::collections::HashSet::new();
        for a in ALGORITHMS {
            assert!(seen.insert(a.name), "{} is listed twice", a.name);
            assert_eq!(visit(a.name, Name), Some(a.name));
        }
        assert_eq!(visit("no-such", Name), None);
    }

    #[test]
    fn a_descriptor_that_needs_a_symmetric_graph_is_one_whose_kernel_refuses_a_directed_one() {
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)];
        let g = vastgraph_engine::InMemoryGraph::from_edges(5, &edges, false);
        for a in ALGORITHMS {
            let refused = matches!(
                run(a.name, &g.view(), &Params::default(), false),
                Err(RunError::Algo(AlgoError::NeedsSymmetric { .. }))
            );
            assert_eq!(refused, a.needs.symmetric, "{}", a.name);
        }
    }
}
