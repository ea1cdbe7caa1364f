//! The algorithms' parameters as `vastgraph run` flags, derived from the registry's
//! descriptors: one flag per parameter name, whose help lists the algorithms that take it with
//! their defaults and ranges. A new algorithm's parameters become flags without an edit here.

use clap::{Arg, ArgAction, ArgMatches, Command};
use vastgraph_algos::algorithm::{Kind, Param};
use vastgraph_algos::registry::ALGORITHMS;

/// The words given to the parameter flags of a command line, by parameter.
#[derive(Clone, Debug, Default)]
pub struct ParamFlags {
    pub given: Vec<(&'static Param, String)>,
}

/// Each parameter name of the registry once (its first declaration: a name has one kind
/// across the registry, a test checks).
fn distinct_params() -> Vec<&'static Param> {
    let mut seen: Vec<&'static Param> = Vec::new();
    for a in ALGORITHMS {
        for p in a.params {
            if !seen.iter().any(|q| q.name == p.name) {
                seen.push(p);
            }
        }
    }
    seen
}

/// "pagerank, delta-pagerank: the damping factor (0.85; [0, 1))", one clause per distinct
/// help, default and range among the algorithms that take the parameter.
fn help_of(name: &str) -> String {
    let mut clauses: Vec<(Vec<&str>, String)> = Vec::new();
    for a in ALGORITHMS {
        let Some(p) = a.param(name) else { continue };
        let range = p.range_text().map_or(String::new(), |r| format!("; {r}"));
        let text = format!("{} (default {}{range})", p.help, p.default_text());
        match clauses.iter_mut().find(|(_, t)| *t == text) {
            Some((names, _)) => names.push(a.name),
            None => clauses.push((vec![a.name], text)),
        }
    }
    clauses
        .iter()
        .map(|(names, text)| format!("{}: {text}", names.join(", ")))
        .collect::<Vec<_>>()
        .join(". ")
}

fn arg_of(p: &'static Param) -> Arg {
    // The flag names live as long as the command: leaked once per process.
    let long: &'static str = Box::leak(p.flag_name().into_boxed_str());
    let arg = Arg::new(p.name)
        .long(long)
        .help(help_of(p.name))
        .help_heading("Algorithm parameters");
    match p.kind {
        Kind::Flag => arg.action(ArgAction::SetTrue),
        Kind::Vertex => arg.value_name("VERTEX"),
        Kind::Vertices => arg.value_name("VERTEX,..."),
        Kind::Count => arg.value_name("N"),
        Kind::Number => arg.value_name("X"),
        Kind::Choice(_) => arg.value_name("NAME"),
    }
}

impl clap::FromArgMatches for ParamFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for p in distinct_params() {
            match p.kind {
                Kind::Flag => {
                    if matches.get_flag(p.name) {
                        given.push((p, "true".to_string()));
                    }
                }
                _ => {
                    if let Some(word) = matches.get_one::<String>(p.name) {
                        given.push((p, word.clone()));
                    }
                }
            }
        }
        Ok(ParamFlags { given })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for ParamFlags {
    fn augment_args(cmd: Command) -> Command {
        distinct_params()
            .into_iter()
            .fold(cmd, |cmd, p| cmd.arg(arg_of(p)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
