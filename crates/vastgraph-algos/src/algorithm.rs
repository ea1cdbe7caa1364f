//! What an algorithm is to the rest of vastgraph, declared in the algorithm's own file: a
//! [`Descriptor`] (its name, summary, typed parameters with defaults and ranges, the graph it
//! needs, its state) and an [`Algorithm`] (how the given parameters become the kernel's, the
//! kernel, the verifier, the output values). The registry is the list of them
//! ([`crate::registry::ALGORITHMS`]); the CLI's flags, Python's keyword arguments, `--help` and
//! `vastgraph algorithms` are derived from the descriptors, so a parameter is declared once.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use vastgraph_engine::{Adjacency, Graph};

use crate::checkpoint::Checkpoint;
use crate::common::{AlgoError, RunStats, StateSize, VerifyError};
use crate::registry::Values;

/// What a parameter's values are.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A vertex: a dense id (a label on the command line of a labelled store).
    Vertex,
    /// A list of vertices.
    Vertices,
    /// A switch: given means true.
    Flag,
    /// A non-negative integer (a count, a bound or a seed).
    Count,
    /// A finite real number.
    Number,
    /// One of a fixed set of names; the first is the default.
    Choice(&'static [&'static str]),
}

impl Kind {
    /// The kind's name in `vastgraph algorithms --json` and in errors.
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Vertex => "vertex",
            Kind::Vertices => "vertices",
            Kind::Flag => "flag",
            Kind::Count => "integer",
            Kind::Number => "number",
            Kind::Choice(_) => "choice",
        }
    }
}

/// A parameter's value when it is not given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    Count(u64),
    Number(f64),
    /// A flag is off; a choice is its first option.
    Off,
    /// Worked out from the graph or the other parameters, as the text says.
    Computed(&'static str),
}

/// One typed parameter of an algorithm.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The name in the registry and Python (`max_iters`); the CLI's flag is `--max-iters`.
    pub name: &'static str,
    pub kind: Kind,
    pub default: DefaultValue,
    /// The values accepted for a count or a number.
    pub range: (Bound<f64>, Bound<f64>),
    pub help: &'static str,
}

const ANY: (Bound<f64>, Bound<f64>) = (Bound::Unbounded, Bound::Unbounded);

impl Param {
    pub const fn vertex(name: &'static str, help: &'static str) -> Param {
        Param {
            name,
            kind: Kind::Vertex,
            default: DefaultValue::Computed("the vertex with the most out-edges"),
            range: ANY,
            help,
        }
    }
    pub const fn vertices(name: &'static str, default: &'static str, help: &'static str) -> Param {
        Param {
            name,
            kind: Kind::Vertices,
            default: DefaultValue::Computed(default),
            range: ANY,
            help,
        }
    }
    pub const fn flag(name: &'static str, help: &'static str) -> Param {
        Param {
            name,
            kind: Kind::Flag,
            default: DefaultValue::Off,
            range: ANY,
            help,
        }
    }
    /// An integer of at least `min`.
    pub const fn count(name: &'static str, default: u64, min: u64, help: &'static str) -> Param {
        Param {
            name,
            kind: Kind::Count,
            default: DefaultValue::Count(default),
            range: (Bound::Included(min as f64), Bound::Unbounded),
            help,
        }
    }
    /// An integer in `min..=max`.
    pub const fn count_in(
        name: &'static str,
        default: u64,
        (min, max): (u64, u64),
        help: &'static str,
    ) -> Param {
        Param {
            name,
            kind: Kind::Count,
            default: DefaultValue::Count(default),
            range: (Bound::Included(min as f64), Bound::Included(max as f64)),
            help,
        }
    }
    /// A number in `range`.
    pub const fn number(
        name: &'static str,
        default: f64,
        range: (Bound<f64>, Bound<f64>),
        help: &'static str,
    ) -> Param {
        Param {
            name,
            kind: Kind::Number,
            default: DefaultValue::Number(default),
            range,
            help,
        }
    }
    pub const fn choice(
        name: &'static str,
        options: &'static [&'static str],
        help: &'static str,
    ) -> Param {
        Param {
            name,
            kind: Kind::Choice(options),
            default: DefaultValue::Off,
            range: ANY,
            help,
        }
    }
    /// This parameter with a default worked out at run time, as `text` says.
    pub const fn computed(self, text: &'static str) -> Param {
        Param {
            default: DefaultValue::Computed(text),
            ..self
        }
    }

    /// The default of a count (0 when it is worked out at run time).
    pub fn default_count(&self) -> u64 {
        match self.default {
            DefaultValue::Count(c) => c,
            _ => 0,
        }
    }

    /// The default of a number (0 when it is worked out at run time).
    pub fn default_number(&self) -> f64 {
        match self.default {
            DefaultValue::Number(x) => x,
            _ => 0.0,
        }
    }

    /// The default as `--help` and `vastgraph algorithms` show it.
    pub fn default_text(&self) -> String {
        match (self.default, self.kind) {
            (DefaultValue::Count(c), _) => c.to_string(),
            (DefaultValue::Number(x), _) => number_text(x),
            (DefaultValue::Off, Kind::Choice(options)) => options[0].to_string(),
            (DefaultValue::Off, _) => "off".to_string(),
            (DefaultValue::Computed(text), _) => text.to_string(),
        }
    }

    /// The accepted values, as "[0, 1)" or "at least 1"; None when any value of the kind is.
    pub fn range_text(&self) -> Option<String> {
        if let Kind::Choice(options) = self.kind {
            return Some(options.join(" | "));
        }
        // A count's bounds are integers: "4294967295", not "4.294967295e9".
        let shown = |x: f64| match self.kind {
            Kind::Count => format!("{}", x as u64),
            _ => number_text(x),
        };
        match self.range {
            (Bound::Unbounded, Bound::Unbounded) => None,
            (Bound::Included(lo), Bound::Unbounded) if lo == 0.0 && self.kind == Kind::Count => {
                None
            }
            (Bound::Included(lo), Bound::Unbounded) => Some(format!("at least {}", shown(lo))),
            (Bound::Excluded(lo), Bound::Unbounded) => Some(format!("above {}", shown(lo))),
            (lo, hi) => {
                let (open, lo) = match lo {
                    Bound::Included(x) => ("[", shown(x)),
                    Bound::Excluded(x) => ("(", shown(x)),
                    Bound::Unbounded => ("(", "-inf".into()),
                };
                let (close, hi) = match hi {
                    Bound::Included(x) => ("]", shown(x)),
                    Bound::Excluded(x) => (")", shown(x)),
                    Bound::Unbounded => (")", "inf".into()),
                };
                Some(format!("{open}{lo}, {hi}{close}"))
            }
        }
    }

    fn in_range(&self, x: f64) -> bool {
        let above = match self.range.0 {
            Bound::Included(lo) => x >= lo,
            Bound::Excluded(lo) => x > lo,
            Bound::Unbounded => true,
        };
        let below = match self.range.1 {
            Bound::Included(hi) => x <= hi,
            Bound::Excluded(hi) => x < hi,
            Bound::Unbounded => true,
        };
        above && below
    }

    /// Why `value` is not a value of this parameter, or None when it is.
    fn refuse(&self, value: &Value) -> Option<String> {
        let wrong = |what: &str| Some(format!("{} must be {what}, got {value}", self.name));
        match self.kind {
            Kind::Vertex => value.as_u64().is_none().then(|| wrong("a vertex id"))?,
            Kind::Vertices => match value.as_array() {
                Some(ids) if ids.iter().all(|id| id.as_u64().is_some()) => None,
                _ => wrong("a list of vertex ids"),
            },
            Kind::Flag => value.as_bool().is_none().then(|| wrong("true or false"))?,
            Kind::Count => match value.as_u64() {
                Some(c) if self.in_range(c as f64) => None,
                // "at least 1", but "in [0, 4294967295]".
                Some(_) => wrong(&self.range_text().map_or(String::new(), |r| {
                    match r.starts_with(['[', '(']) {
                        true => format!("in {r}"),
                        false => r,
                    }
                })),
                None => wrong("a non-negative integer"),
            },
            Kind::Number => match value.as_f64() {
                Some(x) if x.is_finite() && self.in_range(x) => None,
                _ => wrong(&format!(
                    "a finite number{}",
                    // "in [0, 1)", but "at least 0", "above 0".
                    self.range_text()
                        .map_or(String::new(), |r| match r.starts_with(['[', '(']) {
                            true => format!(" in {r}"),
                            false => format!(", {r}"),
                        })
                )),
            },
            Kind::Choice(options) => match value.as_str() {
                Some(name) if options.contains(&name) => None,
                _ => wrong(&options.join(" or ")),
            },
        }
    }

    /// A command-line word as a value of this parameter's kind (a vertex as an integer id: the
    /// caller looks labels up first). The range is the algorithm's to check
    /// ([`Descriptor::check`]): algorithms sharing a name may accept different ranges.
    pub fn parse(&self, word: &str) -> Result<Value, String> {
        let bad = |what: &str| format!("--{}: {word:?} is not {what}", self.flag_name());
        Ok(match self.kind {
            Kind::Vertex | Kind::Count => {
                Value::from(word.parse::<u64>().map_err(|e| match e.kind() {
                    std::num::IntErrorKind::PosOverflow => {
                        format!("--{}: {word} is more than 2^64 - 1", self.flag_name())
                    }
                    _ => bad("a non-negative integer"),
                })?)
            }
            Kind::Vertices => Value::from(
                word.split(',')
                    .map(|w| w.trim().parse::<u64>())
                    .collect::<Result<Vec<u64>, _>>()
                    .map_err(|_| bad("a comma-separated list of vertex ids"))?,
            ),
            Kind::Flag => Value::Bool(true),
            // JSON has no NaN or infinity (serde_json makes them null, which reads as "not
            // given"), so a word that parses to one is refused here, not left to the range.
            Kind::Number => match word.parse::<f64>() {
                Ok(x) if x.is_finite() => Value::from(x),
                _ => return Err(bad("a finite number")),
            },
            Kind::Choice(_) => Value::from(word),
        })
    }

    /// `--max-iters` for `max_iters`.
    pub fn flag_name(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// `x` as people write it: 0.85, 1e-6.
fn number_text(x: f64) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The parameters given to a run, by name; an algorithm reads them through its [`Param`]s,
/// which supply the defaults. A flag given as false and a value given as null count as not
/// given.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Params {
    values: BTreeMap<String, Value>,
    /// Where the iterative kernels save their state and resume from (the descriptor's
    /// `resumable`); not a parameter of the result, so not serialised.
    #[serde(skip)]
    pub checkpoint: Option<Arc<Checkpoint>>,
}

impl Params {
    /// These parameters with `name` set to `value`.
    pub fn with(mut self, name: &str, value: impl Into<Value>) -> Params {
        self.set(name, value);
        self
    }

    pub fn set(&mut self, name: &str, value: impl Into<Value>) {
        self.values.insert(name.to_string(), value.into());
    }

    /// The value given for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values
            .get(name)
            .filter(|v| !matches!(v, Value::Null | Value::Bool(false)))
    }

    /// The names given a value.
    pub fn given(&self) -> impl Iterator<Item = &str> {
        self.values
            .keys()
            .map(String::as_str)
            .filter(|name| self.get(name).is_some())
    }

    /// These parameters without those algorithm `name` does not take (the checkpoint kept):
    /// for a caller holding one set of parameters for many algorithms, such as a sweep over
    /// the registry. An unknown name keeps them all.
    pub fn only_for(&self, name: &str) -> Params {
        let Ok(algorithm) = crate::registry::descriptor(name) else {
            return self.clone();
        };
        Params {
            values: self
                .values
                .iter()
                .filter(|(name, _)| algorithm.param(name).is_some())
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect(),
            checkpoint: self.checkpoint.clone(),
        }
    }

    /// `p`'s value, or its default (0 for a default worked out at run time: read those with
    /// [`Params::given_count`]).
    pub fn count(&self, p: &Param) -> u64 {
        self.given_count(p).unwrap_or_else(|| p.default_count())
    }

    pub fn given_count(&self, p: &Param) -> Option<u64> {
        self.get(p.name).and_then(Value::as_u64)
    }

    /// `p`'s value, or its default (0 for a default worked out at run time: read those with
    /// [`Params::given_number`]).
    pub fn number(&self, p: &Param) -> f64 {
        self.given_number(p).unwrap_or_else(|| p.default_number())
    }

    pub fn given_number(&self, p: &Param) -> Option<f64> {
        self.get(p.name).and_then(Value::as_f64)
    }

    pub fn flag(&self, p: &Param) -> bool {
        self.get(p.name).and_then(Value::as_bool).unwrap_or(false)
    }

    /// The chosen option (the first when none is given).
    pub fn choice(&self, p: &Param) -> &str {
        match (self.get(p.name).and_then(Value::as_str), p.kind) {
            (Some(name), _) => name,
            (None, Kind::Choice(options)) => options[0],
            (None, _) => "",
        }
    }

    pub fn vertex(&self, p: &Param) -> Option<u64> {
        self.get(p.name).and_then(Value::as_u64)
    }

    pub fn vertices(&self, p: &Param) -> Option<Vec<u64>> {
        self.get(p.name)
            .and_then(Value::as_array)
            .map(|ids| ids.iter().filter_map(Value::as_u64).collect())
    }
}

/// What an algorithm needs of the graph.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Needs {
    /// Refuses a directed graph.
    pub symmetric: bool,
    /// Refuses a directed graph without its stored transpose (in-edges).
    pub transpose: bool,
    /// Refuses an unweighted graph, with this remedy; a kernel that needs weights is also the
    /// only one that reads them (listed as `"weights": true`).
    #[serde(serialize_with = "serialize_is_some")]
    pub weights: Option<&'static str>,
    /// Refuses a directed graph when a choice parameter takes a value: (the parameter, the
    /// value, the run's name in the refusal), as label propagation's semi-synchronous schedule.
    #[serde(skip)]
    pub symmetric_for: Option<(&'static Param, &'static str, &'static str)>,
}

fn serialize_is_some<S: serde::Serializer>(
    hint: &Option<&'static str>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_bool(hint.is_some())
}

/// An algorithm as the registry lists it.
pub struct Descriptor {
    pub name: &'static str,
    pub summary: &'static str,
    /// Every parameter it takes; giving any other is an error ([`Descriptor::check`]).
    pub params: &'static [Param],
    pub needs: Needs,
    /// What the kernel keeps in DRAM, for a run within a memory budget.
    pub state: StateSize,
    /// Saves and resumes from checkpoints ([`crate::checkpoint`]).
    pub resumable: bool,
    /// For a kernel with a branch of passes ([`vastgraph_engine::Traversal`]), which it takes
    /// on lists on disk: the bytes of state it keeps for `n` vertices with these parameters, or
    /// None when they make it read lists one at a time instead.
    pub state_in_passes: Option<fn(u64, &Params) -> Option<u64>>,
    /// Whether the per-vertex values are vertex ids, which text output names by the store's
    /// labels as it names the vertices.
    pub vertex_values: VertexValues,
    /// Parameters the kernel would read one of, or one only with a choice: given together,
    /// they are refused ([`Descriptor::check`]) rather than one silently ignored.
    pub conflicts: &'static [Conflict],
}

/// Parameters that do not go together.
#[derive(Clone, Copy, Debug)]
pub enum Conflict {
    /// The kernel reads the first when both are given.
    Either(&'static Param, &'static Param),
    /// The first is read only when the choice parameter has this value.
    OnlyWith(&'static Param, &'static Param, &'static str),
}

/// Which outputs are vertex ids: a component's smallest vertex, a cluster's centre, a BFS
/// parent, a label that starts as a vertex's own id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexValues {
    /// Numbers of their own (distances, ranks, core numbers, colours, flags).
    No,
    Yes,
    /// Vertex ids when this flag parameter is set (bfs's `parents`), numbers otherwise.
    WhenSet(&'static str),
}

impl Descriptor {
    /// Whether a run with these parameters outputs vertex ids ([`VertexValues`]).
    pub fn values_are_vertices(&self, given: &Params) -> bool {
        match self.vertex_values {
            VertexValues::No => false,
            VertexValues::Yes => true,
            VertexValues::WhenSet(name) => self.param(name).is_some_and(|p| given.flag(p)),
        }
    }

    /// The error of running this algorithm with `given` on a graph of `vertices` vertices that
    /// is directed where it needs a symmetric one, unweighted where it needs weights, or lacks
    /// a vertex given as a parameter: what its kernel would refuse, known from the store's
    /// manifest before a memory budget is planned for the run.
    pub fn check_graph(
        &self,
        given: &Params,
        vertices: u64,
        symmetric: bool,
        weighted: bool,
    ) -> Result<(), AlgoError> {
        if self.needs.symmetric && !symmetric {
            return Err(AlgoError::NeedsSymmetric {
                algorithm: self.name,
            });
        }
        if let Some((p, value, run)) = self.needs.symmetric_for {
            if !symmetric && given.choice(p) == value {
                return Err(AlgoError::NeedsSymmetric { algorithm: run });
            }
        }
        if let (Some(hint), false) = (self.needs.weights, weighted) {
            return Err(AlgoError::NeedsWeights {
                algorithm: self.name,
                hint,
            });
        }
        for p in self.params {
            let ids = match p.kind {
                Kind::Vertex => given.vertex(p).into_iter().collect(),
                Kind::Vertices => given.vertices(p).unwrap_or_default(),
                _ => Vec::new(),
            };
            if let Some(&vertex) = ids.iter().find(|&&v| v >= vertices) {
                return Err(AlgoError::SourceOutOfRange { vertex, vertices });
            }
        }
        Ok(())
    }

    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The most iterations the run may take, for an algorithm whose iterations are capped by a
    /// `max_iters` parameter: what a progress display counts down to (the run may converge
    /// sooner).
    pub fn iteration_bound(&self, given: &Params) -> Option<u64> {
        self.param("max_iters").map(|p| given.count(p))
    }

    /// The given parameters this algorithm does not take, or whose values are not of their
    /// kind or range: an error naming the algorithm's own, so that `run bfs --damping 0.5` or
    /// `vg.run(g, "cc", source=3)` is refused instead of silently ignoring the option.
    pub fn check(&self, given: &Params) -> Result<(), AlgoError> {
        let stray: Vec<&str> = given
            .given()
            .filter(|name| self.param(name).is_none())
            .collect();
        if !stray.is_empty() {
            let own = if self.params.is_empty() {
                "it takes no parameters".to_string()
            } else {
                let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
                format!("it takes {}", names.join(", "))
            };
            return Err(self.invalid(format!("does not take {}; {own}", stray.join(" or "))));
        }
        for p in self.params {
            if let Some(why) = given.get(p.name).and_then(|value| p.refuse(value)) {
                return Err(self.invalid(why));
            }
        }
        let is_given = |p: &Param| given.get(p.name).is_some();
        for conflict in self.conflicts {
            match *conflict {
                Conflict::Either(a, b) if is_given(a) && is_given(b) => {
                    return Err(self.invalid(format!(
                        "give --{} or --{}, not both (the run would read --{} only)",
                        a.flag_name(),
                        b.flag_name(),
                        a.flag_name()
                    )));
                }
                Conflict::OnlyWith(p, choice, value)
                    if is_given(p) && given.choice(choice) != value =>
                {
                    return Err(self.invalid(format!(
                        "--{} applies to --{} {value} only",
                        p.flag_name(),
                        choice.flag_name()
                    )));
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub fn invalid(&self, message: String) -> AlgoError {
        AlgoError::InvalidParameter {
            algorithm: self.name,
            message,
        }
    }

    /// The descriptor as `vastgraph algorithms --json` prints it and `vg.algorithms()`
    /// returns it.
    pub fn describe(&self) -> Value {
        let params: Vec<Value> = self
            .params
            .iter()
            .map(|p| {
                let bound = |b: Bound<f64>| match b {
                    Bound::Included(x) => serde_json::json!({ "value": x, "inclusive": true }),
                    Bound::Excluded(x) => serde_json::json!({ "value": x, "inclusive": false }),
                    Bound::Unbounded => Value::Null,
                };
                let options = match p.kind {
                    Kind::Choice(options) => Value::from(options.to_vec()),
                    _ => Value::Null,
                };
                serde_json::json!({
                    "name": p.name,
                    "kind": p.kind.name(),
                    "default": p.default_text(),
                    "range": p.range_text(),
                    "min": bound(p.range.0),
                    "max": bound(p.range.1),
                    "options": options,
                    "help": p.help,
                })
            })
            .collect();
        serde_json::json!({
            "name": self.name,
            "summary": self.summary,
            "parameters": params,
            "needs": self.needs,
            "state_bytes_per_vertex": self.state.bytes_per_vertex,
            "state_bits_per_arc": self.state.bits_per_arc,
            "resumable": self.resumable,
            "in_passes": self.state_in_passes.is_some(),
        })
    }
}

/// An algorithm: its descriptor and its kernel, verifier and output, implemented by a unit
/// type in the algorithm's file and listed once in [`crate::registry`].
pub trait Algorithm {
    const DESCRIPTOR: Descriptor;
    /// The kernel's own parameters, defaults resolved (the stats' `parameters.resolved`).
    type Params: Serialize;
    type Result;
    /// The kernel's parameters from the given ones, which [`Descriptor::check`] accepted.
    fn params<A: Adjacency>(given: &Params, g: &Graph<A>) -> Result<Self::Params, AlgoError>;
    fn kernel<A: Adjacency>(
        g: &Graph<A>,
        q: &Self::Params,
        checkpoint: Option<&Checkpoint>,
    ) -> Result<Self::Result, AlgoError>;
    /// The independent verifier, on the same graph read another way.
    fn verify<A: Adjacency>(
        g: &Graph<A>,
        q: &Self::Params,
        r: &Self::Result,
    ) -> Result<(), VerifyError>;
    /// The per-vertex (or per-row) values and the statistics.
    fn output(r: Self::Result, q: &Self::Params) -> (Option<Values>, RunStats);
}

/// Something done with an algorithm's type, chosen by name ([`crate::registry::visit`]).
pub trait AlgorithmVisitor {
    type Output;
    fn visit<K: Algorithm>(self) -> Self::Output;
}

/// The source parameter shared by the algorithms that start from one vertex.
pub const SOURCE: Param = Param::vertex(
    "source",
    "the start vertex: its label on a labelled store, else its id",
);

/// The random seed of the randomised algorithms: the same seed, the same result, on any
/// thread count and in or out of core.
pub const SEED: Param = Param::count("seed", 1, 0, "the random seed");

/// The given source, or the vertex with the most out-edges.
pub fn source_or_default<A: Adjacency>(given: &Params, g: &Graph<A>) -> u64 {
    given
        .vertex(&SOURCE)
        .unwrap_or_else(|| crate::registry::default_source(g))
}
