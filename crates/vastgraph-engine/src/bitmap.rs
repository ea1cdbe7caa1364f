//! A fixed-size bitmap over vertex ids whose bits can be set concurrently.
//!
//! Dense frontiers are bitmaps rather than byte arrays: a pull step reads the frontier at random
//! for every in-edge, and n/8 bytes stay in cache far longer than n bytes.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::Vertex;

/// Calls `f` on `base + j` for each set bit `j` of `word`, in increasing order.
#[inline(always)]
pub fn for_each_in_word(mut word: u64, base: Vertex, mut f: impl FnMut(Vertex)) {
    while word != 0 {
        f(base + word.trailing_zeros());
        word &= word - 1;
    }
}

pub struct Bitmap {
    words: Vec<AtomicU64>,
    len: usize,
}

impl Bitmap {
    pub fn new(len: usize) -> Self {
        let words = (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect();
        Bitmap { words, len }
    }

    /// Builds a bitmap from whole words computed elsewhere (each bit past `len` must be 0).
    pub fn from_words(words: Vec<u64>, len: usize) -> Self {
        debug_assert_eq!(words.len(), len.div_ceil(64));
        // AtomicU64 has the same size and bit validity as u64, so this is a reinterpretation, not a copy.
        let mut words = std::mem::ManuallyDrop::new(words);
        let (ptr, length, cap) = (words.as_mut_ptr(), words.len(), words.capacity());
        let words = unsafe { Vec::from_raw_parts(ptr as *mut AtomicU64, length, cap) };
        Bitmap { words, len }
    }

    /// Every bit of `0..len` set.
    pub fn full(len: usize) -> Self {
        Bitmap::from_fn(len, |_| true)
    }

    /// The bits `i` of `0..len` for which `keep(i)` holds, computed in parallel.
    pub fn from_fn(len: usize, keep: impl Fn(usize) -> bool + Sync) -> Self {
        let words = (0..len.div_ceil(64))
            .into_par_iter()
            .map(|w| {
                (64 * w..(64 * w + 64).min(len))
                    .filter(|&i| keep(i))
                    .fold(0u64, |word, i| word | 1 << (i - 64 * w))
            })
            .collect();
        Bitmap::from_words(words, len)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn num_words(&self) -> usize {
        self.words.len()
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        (self.words[i >> 6].load(Ordering::Relaxed) >> (i & 63)) & 1 == 1
    }

    /// Sets bit `i`; returns true if this call changed it from 0 to 1.
    #[inline]
    pub fn set_atomic(&self, i: usize) -> bool {
        let mask = 1u64 << (i & 63);
        let w = &self.words[i >> 6];
        if w.load(Ordering::Relaxed) & mask != 0 {
            return false;
        }
        w.fetch_or(mask, Ordering::Relaxed) & mask == 0
    }

    /// Clears bit `i`; returns true if this call changed it from 1 to 0.
    #[inline]
    pub fn take(&self, i: usize) -> bool {
        let mask = 1u64 << (i & 63);
        let w = &self.words[i >> 6];
        if w.load(Ordering::Relaxed) & mask == 0 {
            return false;
        }
        w.fetch_and(!mask, Ordering::Relaxed) & mask != 0
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        *self.words[i >> 6].get_mut() |= 1u64 << (i & 63);
    }

    /// The words themselves, for kernels that give each task whole words to read and write
    /// (bit `i` is bit `i % 64` of word `i / 64`).
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    #[inline]
    pub fn word(&self, w: usize) -> u64 {
        self.words[w].load(Ordering::Relaxed)
    }

    pub fn clear_all(&mut self) {
        self.words.par_iter_mut().for_each(|w| *w.get_mut() = 0);
    }

    pub fn count_ones(&self) -> usize {
        self.words
            .par_iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as usize)
            .sum()
    }

    /// The set bits in ascending order, computed in parallel.
    pub fn to_sorted_ids(&self) -> Vec<u32> {
        let counts: Vec<usize> = self
            .words
            .par_chunks(WORDS_PER_TASK)
            .map(|c| {
                c.iter()
                    .map(|w| w.load(Ordering::Relaxed).count_ones() as usize)
                    .sum()
            })
            .collect();
        let total: usize = counts.iter().sum();
        let mut out = vec![0u32; total];
        let mut slices = Vec::with_capacity(counts.len());
        let mut rest = out.as_mut_slice();
        for &c in &counts {
            let (head, tail) = rest.split_at_mut(c);
            slices.push(head);
            rest = tail;
        }
        self.words
            .par_chunks(WORDS_PER_TASK)
            .zip(slices.into_par_iter())
            .enumerate()
            .for_each(|(ci, (chunk, dst))| {
                let mut k = 0;
                for (wi, w) in chunk.iter().enumerate() {
                    let mut bits = w.load(Ordering::Relaxed);
                    let base = ((ci * WORDS_PER_TASK + wi) * 64) as u32;
                    while bits != 0 {
                        dst[k] = base + bits.trailing_zeros();
                        k += 1;
                        bits &= bits - 1;
                    }
                }
            });
        out
    }

    /// Calls `f` for every set bit, in parallel over blocks of words.
    pub fn par_for_each_set<F: Fn(u32) + Sync>(&self, f: F) {
        self.words
            .par_chunks(WORDS_PER_TASK)
            .with_max_len(1)
            .enumerate()
            .for_each(|(ci, chunk)| {
                for (wi, w) in chunk.iter().enumerate() {
                    let base = ((ci * WORDS_PER_TASK + wi) * 64) as u32;
                    for_each_in_word(w.load(Ordering::Relaxed), base, &f);
                }
            });
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// Words handled by one parallel task: 64 words = 4096 vertices, enough work to amortise a task.
///
/// Loops whose work follows the vertices' degrees split down to single tasks
/// (`with_max_len(1)`). Rayon's adaptive splitting stops after a few halvings unless work is
/// stolen, and on a store renumbered by degree (`vastgraph reorder`) the first quarter of the
/// ids holds most of the arcs: one thread then ran it alone (PageRank used 1.2 of 2 cores).
pub const WORDS_PER_TASK: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_count_and_ids() {
        let mut b = Bitmap::new(200);
        for i in [0usize, 63, 64, 130, 199] {
            b.set(i);
        }
        assert!(b.get(63) && b.get(64) && !b.get(65));
        assert!(!b.set_atomic(130));
        assert!(b.set_atomic(131));
        assert_eq!(b.count_ones(), 6);
        assert_eq!(b.to_sorted_ids(), vec![0, 63, 64, 130, 131, 199]);
    }

    #[test]
    fn ids_across_many_tasks() {
        let n = WORDS_PER_TASK * 64 * 5 + 17;
        let mut b = Bitmap::new(n);
        let want: Vec<u32> = (0..n as u32).filter(|v| v % 7 == 3).collect();
        for &v in &want {
            b.set(v as usize);
        }
        assert_eq!(b.to_sorted_ids(), want);
    }
}
