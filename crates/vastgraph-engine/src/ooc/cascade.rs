//! The cascade of a pull on disk ([`crate::Traversal::pull`]): a pull walks each list of a
//! set until its walker is done with the vertex, and on a skewed graph most vertices are done
//! at their first ids. Where the store has the side files of first neighbours (4 bytes a
//! vertex) and list heads (the first 8 ids of each list), the cost model decides whether to
//! read them first, so that only the lists of the vertices they leave open are read:
//!
//! 1. when the set's lists hold more than [`SETTLE_FIRST_ARCS`] arcs a vertex of the graph,
//!    either the first neighbours (then, if they pay, the heads of the vertices left), or the
//!    heads of the whole set at once, whichever a sample of the first neighbours says costs
//!    less ([`heads_first_pays`]);
//! 2. the lists of the vertices still open, in one planned pass.
//!
//! A caller that walked the first neighbours itself (cc's sampling) gives the share they
//! settled, and the cascade goes on from the heads.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;
use vastgraph_store::manifest::LIST_HEAD_IDS;

use super::graph::OocGraph;
use super::scan::ScanSpec;
use crate::bitmap::{Bitmap, WORDS_PER_TASK};
use crate::traverse::{PullSpec, Traversal};
use crate::Vertex;

/// Arcs a vertex of the graph that the open vertices' lists must hold before a pull reads the
/// first neighbours first: the side file holds one id a vertex, and a pull whose lists are
/// short or cached (on Kronecker graphs, every BFS pull after the first) is cheaper to read
/// directly.
const SETTLE_FIRST_ARCS: u64 = 2;

impl OocGraph {
    /// [`crate::Traversal::pull`] on disk: the cascade of the module documentation.
    pub(crate) fn pull_lists<W>(&self, spec: &PullSpec<'_>, walk: W) -> anyhow::Result<u64>
    where
        W: Fn(Vertex, &[Vertex]) -> bool + Sync,
    {
        let done = spec.done;
        // No count is kept as vertices settle (a counter every thread bumps at every vertex
        // bounces between the cores' caches): `done` tells how many, after a stage.
        let settle = |v: Vertex, ids: &[Vertex]| {
            let finished = walk(v, ids);
            if finished {
                done.set_atomic(v as usize);
            }
            finished
        };
        let n = self.num_vertices() as u64;
        let mut walked = 0;
        let open = minus(spec.set, done);
        let to_read = match spec.first_settled {
            Some(hit_rate) => {
                // The first ids were walked: a list of one id is done with.
                let longer = keep(&open, |v| self.degree(v) > 1);
                if heads_spare_reads(self, &longer, hit_rate)? {
                    let (left, read) = self.walk_heads(&longer, 1, &settle, spec.repeats)?;
                    walked += read;
                    left
                } else {
                    longer
                }
            }
            None if self.has_first_neighbors()
                && spec
                    .arcs
                    .unwrap_or_else(|| Traversal::degree_sum(self, &open))
                    > SETTLE_FIRST_ARCS * n =>
            {
                if heads_first_pays(self, &open, &settle)? {
                    // The sample settled some already.
                    let open = minus(&open, done);
                    let (left, read) = self.walk_heads(&open, 0, &settle, spec.repeats)?;
                    walked += read;
                    left
                } else {
                    let record = self.scan_first_neighbors(&open, |v, first| {
                        settle(v, &[first]);
                    })?;
                    walked += record.arcs_processed;
                    // Those with a single arc are left open although their one neighbour
                    // was walked: a vertex a pull leaves open is usually pulled again, and
                    // reading their lists now caches them for it. Left out, on Kronecker 25
                    // in its original order the next two BFS levels read 2.9 GB each for
                    // them, where their lists lie scattered over the whole file.
                    let rest = minus(&open, done);
                    let settled = open.count_ones() - rest.count_ones();
                    let hit_rate = settled as f64 / record.arcs_processed.max(1) as f64;
                    if heads_spare_reads(self, &rest, hit_rate)? {
                        let (left, read) = self.walk_heads(&rest, 1, &settle, spec.repeats)?;
                        walked += read;
                        left
                    } else {
                        rest
                    }
                }
            }
            None => open,
        };
        let to_read = match spec.done_anyway {
            Some(done_anyway) => keep(&to_read, |v| {
                let finished = done_anyway(v);
                if finished {
                    done.set_atomic(v as usize);
                }
                !finished
            }),
            None => to_read,
        };
        // A vertex this pull leaves open is pulled again next time: its short list is cached
        // now rather than read again.
        let open_after = |v: Vertex| !done.get(v as usize);
        let lists = ScanSpec {
            again: spec.repeats.then_some(&open_after as _),
            ..ScanSpec::new(&to_read)
        };
        // Every piece of a list is walked, even once another piece finished the vertex: the
        // walker may want the smallest hit of the whole list.
        let record = self.scan(&lists, |v, ids, _| {
            settle(v, ids);
        })?;
        Ok(walked + record.arcs_processed)
    }

    /// Walks the list heads of `set` from id `skip` on. Returns the vertices whose walk neither
    /// finished nor reached the end of their list (their lists are still to read), and the ids
    /// walked. A whole list that leaves its vertex open is cached when the pull `repeats`.
    fn walk_heads<S>(
        &self,
        set: &Bitmap,
        skip: usize,
        settle: &S,
        repeats: bool,
    ) -> anyhow::Result<(Bitmap, u64)>
    where
        S: Fn(Vertex, &[Vertex]) -> bool + Sync,
    {
        let longer = Bitmap::new(self.num_vertices());
        let record = self.scan_list_heads(set, |v, head| {
            let ids = &head[skip.min(head.len())..];
            if !ids.is_empty() && settle(v, ids) {
                return false;
            }
            if head.len() == self.degree(v) {
                return repeats;
            }
            longer.set_atomic(v as usize);
            false
        })?;
        Ok((longer, record.arcs_processed))
    }
}

/// The members of `set` not in `removed`.
fn minus(set: &Bitmap, removed: &Bitmap) -> Bitmap {
    let words = set
        .words()
        .par_iter()
        .zip(removed.words())
        .map(|(s, r)| s.load(Relaxed) & !r.load(Relaxed))
        .collect();
    Bitmap::from_words(words, set.len())
}

/// The members `v` of `set` for which `keep(v)` holds.
fn keep(set: &Bitmap, keep: impl Fn(Vertex) -> bool + Sync) -> Bitmap {
    let words = set
        .words()
        .par_iter()
        .enumerate()
        .map(|(w, word)| {
            let mut kept = 0u64;
            crate::bitmap::for_each_in_word(word.load(Relaxed), (64 * w) as Vertex, |v| {
                if keep(v) {
                    kept |= 1 << (v as usize - 64 * w);
                }
            });
            kept
        })
        .collect();
    Bitmap::from_words(words, set.len())
}

/// The vertices with at least one arc, from the CSR offsets (n + 1). A word of 64 vertices
/// whose offsets at both ends agree holds none, and is not read further: on a degree-ordered
/// store the isolated vertices (half of Kronecker 25's) lie together at the end, and half of
/// the offsets' 268 MB is skipped.
pub(crate) fn vertices_with_arcs(offsets: &[u64]) -> Bitmap {
    let n = offsets.len() - 1;
    let words = (0..n.div_ceil(64))
        .into_par_iter()
        .map(|w| {
            let (lo, hi) = (64 * w, (64 * w + 64).min(n));
            if offsets[lo] == offsets[hi] {
                return 0;
            }
            (lo..hi)
                .filter(|&v| offsets[v + 1] > offsets[v])
                .fold(0u64, |word, v| word | 1 << (v - lo))
        })
        .collect();
    Bitmap::from_words(words, n)
}

/// Whether a pass should read the list heads of `rest` before their lists: when the cost
/// model puts the heads below what they would spare of the lists' reads. `hit_rate` is the
/// share of the vertices that a list's first id already took care of (BFS: settled by the
/// first neighbours; CC: hung in the giant tree by them). The lists are costed as an adaptive
/// selective pass would read them: their pages, in runs merged across gaps the device reads
/// faster than it serves another request, each run a request (counted in one walk: the
/// planner itself would cost tens of milliseconds over 5.8M scattered vertices).
///
/// What the heads spare: each of their further 7 ids is taken to succeed as often as the first
/// ids did, so they leave a fraction `(1 - hit_rate)^7` of these vertices whose lists must
/// still be read. Lists share pages, so the pages left are up to that fraction times the lists
/// a page holds. On Kronecker 25 in its original order the first neighbours settle 64% of BFS's
/// first pull, the heads are 313 MiB against 2.4 GiB of pages of lists, and leave 1,883 lists
/// to read; cc's 74k vertices outside the giant tree have 274 MB of pages in 32k runs. On a
/// degree-ordered store the lists left are few and short (BFS: 127 MiB). On a uniform random
/// graph the frontier of the first pull is a twelfth of the vertices, and the heads would leave
/// half the lists, on every page.
fn heads_spare_reads(g: &OocGraph, rest: &Bitmap, hit_rate: f64) -> anyhow::Result<bool> {
    let Some(heads) = g.list_heads_seconds(rest)? else {
        return Ok(false);
    };
    let profile = g.profile();
    let gap_pages = profile.break_even_gap_bytes() / PAGE;
    let (lists, pages, runs) = lists_and_pages(g, rest, gap_pages);
    if pages == 0 {
        return Ok(false);
    }
    let lists_seconds = profile.cost_seconds(PAGE * pages, runs);
    let pages_left = heads_leave(hit_rate, LIST_HEAD_IDS - 1, lists, pages);
    Ok(heads < HEADS_MARGIN * lists_seconds * (1.0 - pages_left))
}

/// The share of the pages of `lists` lists that must still be read after `ids` ids of each,
/// each id taken to settle a vertex as often as the first did (`hit_rate`). Lists share pages,
/// so the pages left are up to that share of the vertices times the lists a page holds.
fn heads_leave(hit_rate: f64, ids: u64, lists: u64, pages: u64) -> f64 {
    let left = (1.0 - hit_rate).powi(ids as i32);
    (left * lists as f64 / pages as f64).min(1.0)
}

/// Whether a pass that needs the first ids of the lists of `set`, and that is done with a
/// vertex when one of them `settles`, should read the list heads of all of `set` rather than
/// the first neighbours, then the heads (or the lists) of the vertices they leave.
///
/// Both ways leave the same vertices whose lists must be read. The first costs the first
/// neighbours and, after them, the smaller of the lists left or their heads; and where the
/// first ids settle too few vertices, those left lie in every chunk of the heads, so that the
/// heads cost as much as for all of `set`. A sample of the first neighbours
/// ([`OocGraph::sample_first_neighbors`], a page in 256) tells which: the share they settle,
/// and the pages of the lists they leave, scaled up from the sampled pages' vertices. On
/// Kronecker 25 in its original order the first ids settle 64% of BFS's first pull and the
/// lists left lie on 2.4 GiB of pages: the heads (313 MiB) are read at once, and the first
/// neighbours' 134 MB are spared. On a degree-ordered store the lists left are 127 MiB, and
/// the first neighbours are read first. The same margin as [`heads_spare_reads`] keeps the
/// first way where the model cannot tell them apart.
fn heads_first_pays(
    g: &OocGraph,
    set: &Bitmap,
    settle: &(dyn Fn(Vertex, &[Vertex]) -> bool + Sync),
) -> anyhow::Result<bool> {
    let Some(heads) = g.list_heads_seconds(set)? else {
        return Ok(false);
    };
    let Some(firsts) = g.first_neighbors_seconds(set)? else {
        return Ok(false);
    };
    let left = Bitmap::new(g.num_vertices());
    // The sampled vertices are walked for real: those it settles are done with.
    let sample = g.sample_first_neighbors(set, |v, first| {
        if !settle(v, &[first]) {
            left.set_atomic(v as usize);
        }
    })?;
    // Each vertex of `set` in the sampled pages is visited once.
    let sampled = sample.arcs_processed as f64;
    if sampled == 0.0 {
        return Ok(false);
    }
    let hit_rate = 1.0 - left.count_ones() as f64 / sampled;
    let scale = set.count_ones() as f64 / sampled;
    let profile = g.profile();
    let (lists, pages, runs) = lists_and_pages(g, &left, profile.break_even_gap_bytes() / PAGE);
    let runs = scaled_runs(&left, lists, runs, scale);
    let lists_seconds = profile.cost_seconds(PAGE * (pages as f64 * scale) as u64, runs);
    let pages_left = match pages {
        0 => 0.0,
        _ => heads_leave(hit_rate, LIST_HEAD_IDS - 1, lists, pages),
    };
    let spared = firsts + lists_seconds * (1.0 - pages_left);
    log::info!(
        "first ids settle {:.1}% of a sample of {sampled} vertices; heads {heads:.3} s, \
         first neighbours {firsts:.3} s, lists left {lists_seconds:.3} s (modelled)",
        100.0 * hit_rate
    );
    Ok(heads < HEADS_MARGIN * spared)
}

/// The runs a pass over the lists of a whole set would read in, from those of a sample of it
/// (`left`: `lists` lists in `runs` runs) taken in pages of the first neighbours' file, each
/// [`SAMPLE_WINDOW`] consecutive vertices, `scale` times fewer than the set. Each sampled page
/// starts a run of its own, where in the whole pass its first list may go on from the page
/// before's last: scaling those up would count a request for every 1,024 vertices (on a
/// degree-ordered Kronecker 25, 0.16 s of requests for lists read in a few hundred). So a
/// page's first run is taken to be a new one as often as a list in a page started one.
fn scaled_runs(left: &Bitmap, lists: u64, runs: u64, scale: f64) -> u64 {
    let windows = left
        .words()
        .par_chunks(SAMPLE_WINDOW / 64)
        .filter(|words| words.iter().any(|w| w.load(Relaxed) != 0))
        .count() as u64;
    let within = runs.saturating_sub(windows);
    let starts = match lists.saturating_sub(windows) {
        0 => 1.0,
        later => within as f64 / later as f64,
    };
    ((within as f64 + windows as f64 * starts) * scale).max(1.0) as u64
}

/// Vertices whose first neighbours share a page: a sample's unit.
const SAMPLE_WINDOW: usize = PAGE as usize / 4;

/// The share of the lists' modelled reads the heads must stay below. The model is coarse: on
/// the degree-ordered Kronecker 25 it put BFS's lists at 0.10 s where the planner put 0.065 s,
/// the heads at 0.078 s, and reading the heads made the run 1.16× slower (8 paired cold runs).
/// Where they pay, they cost a tenth or less (original order: 0.12 s against 1.5 s for BFS,
/// 0.63 s for CC).
const HEADS_MARGIN: f64 = 0.5;

const PAGE: u64 = 4096;

/// The lists of `set` that are not empty, the pages of the neighbour file read for them (each
/// once, even when several lists share it), and the runs they are read in: consecutive pages,
/// and gaps of up to `gap_pages` read through (a page or a run shared across two tasks is
/// counted twice).
fn lists_and_pages(g: &OocGraph, set: &Bitmap, gap_pages: u64) -> (u64, u64, u64) {
    let offsets = g.offsets();
    set.words()
        .par_chunks(WORDS_PER_TASK)
        .enumerate()
        .map(|(t, words)| {
            let (mut lists, mut pages, mut runs) = (0u64, 0u64, 0u64);
            let mut counted = None::<u64>;
            for (i, word) in words.iter().enumerate() {
                let mut bits = word.load(Relaxed);
                while bits != 0 {
                    let v = (t * WORDS_PER_TASK + i) * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let (a, b) = (offsets[v], offsets[v + 1]);
                    if a == b {
                        continue;
                    }
                    let (first, last) = (4 * a / PAGE, (4 * b - 1) / PAGE);
                    let from = match counted {
                        Some(c) if first > c + 1 + gap_pages => {
                            runs += 1;
                            first
                        }
                        // The gap since the last page is read through.
                        Some(c) => c + 1,
                        None => {
                            runs += 1;
                            first
                        }
                    };
                    pages += (last + 1).saturating_sub(from);
                    counted = Some(last);
                    lists += 1;
                }
            }
            (lists, pages, runs)
        })
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vertices_with_arcs_skips_empty_words_and_keeps_every_vertex_with_an_arc() {
        // 300 vertices: arcs for 0..70 but 5 and 64, none for 70..250 (two whole words and
        // parts of two), arcs again for 250..299 but 260, and the last one isolated.
        let n = 300;
        let has = |v: usize| !matches!(v, 5 | 64 | 70..=249 | 260 | 299);
        let mut offsets = vec![0u64];
        for v in 0..n {
            offsets.push(offsets[v] + u64::from(has(v)) * (1 + v as u64 % 3));
        }
        let got = vertices_with_arcs(&offsets);
        let want: Vec<u32> = (0..n).filter(|&v| has(v)).map(|v| v as u32).collect();
        assert_eq!(got.to_sorted_ids(), want);
        assert_eq!(got.len(), n);
    }
}
