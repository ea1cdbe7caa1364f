//! What a long store operation is doing, for a front end to show: a named phase, with its total
//! when known, and how far it has got. The builder reports through a [`Progress`] in its
//! options; without an observer the reports cost a branch.

use std::sync::Arc;

/// Receives a long operation's phases and their advance (from any thread).
pub trait Observer: Send + Sync {
    /// A phase starts: `total` units of work when known (arcs, for the builder's phases).
    fn phase(&self, name: &str, total: Option<u64>);
    /// `done` units of the current phase are done.
    fn advance(&self, done: u64);
    /// A line worth showing once, such as the disk a build will hold (none by default).
    fn note(&self, _line: &str) {}
}

/// An optional [`Observer`].
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Observer>>);

impl Progress {
    pub fn new(observer: Arc<dyn Observer>) -> Progress {
        Progress(Some(observer))
    }

    pub fn phase(&self, name: &str, total: Option<u64>) {
        if let Some(o) = &self.0 {
            o.phase(name, total);
        }
    }

    pub fn advance(&self, done: u64) {
        if let Some(o) = &self.0 {
            o.advance(done);
        }
    }

    pub fn note(&self, line: &str) {
        if let Some(o) = &self.0 {
            o.note(line);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(observed)"
        } else {
            "Progress(none)"
        })
    }
}
