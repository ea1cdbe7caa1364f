//! Range operations on a frontier bitmap, word at a time.

use std::sync::atomic::Ordering::Relaxed;

use crate::bitmap::Bitmap;
use crate::Vertex;

/// The mask of bits `lo..hi` (within one word, 0 ≤ lo ≤ hi ≤ 64).
#[inline]
fn mask(lo: usize, hi: usize) -> u64 {
    if hi - lo == 64 {
        u64::MAX
    } else {
        ((1u64 << (hi - lo)) - 1) << lo
    }
}

/// Calls `f(word index, mask)` for each word overlapping `lo..hi`, with the mask of its bits
/// inside the range.
#[inline]
fn for_each_word(lo: usize, hi: usize, mut f: impl FnMut(usize, u64) -> bool) {
    let mut i = lo;
    while i < hi {
        let w = i / 64;
        let end = ((w + 1) * 64).min(hi);
        if !f(w, mask(i - w * 64, end - w * 64)) {
            return;
        }
        i = end;
    }
}

/// Whether any vertex in `lo..hi` is set.
pub fn any_in_range(bits: &Bitmap, lo: Vertex, hi: Vertex) -> bool {
    let mut any = false;
    for_each_word(lo as usize, hi as usize, |w, m| {
        any = bits.words()[w].load(Relaxed) & m != 0;
        !any
    });
    any
}

/// How many vertices of `lo..hi` are set.
pub fn count_in_range(bits: &Bitmap, lo: Vertex, hi: Vertex) -> usize {
    let mut count = 0;
    for_each_word(lo as usize, hi as usize, |w, m| {
        count += (bits.words()[w].load(Relaxed) & m).count_ones() as usize;
        true
    });
    count
}

/// Whether every vertex in `lo..hi` is set.
pub fn all_in_range(bits: &Bitmap, lo: Vertex, hi: Vertex) -> bool {
    let mut all = true;
    for_each_word(lo as usize, hi as usize, |w, m| {
        all = bits.words()[w].load(Relaxed) & m == m;
        all
    });
    all
}

/// Calls `f` on each set vertex of `lo..hi`, ascending.
pub fn for_each_in_range(bits: &Bitmap, lo: Vertex, hi: Vertex, mut f: impl FnMut(Vertex)) {
    for_each_word(lo as usize, hi as usize, |w, m| {
        let mut word = bits.words()[w].load(Relaxed) & m;
        while word != 0 {
            f((w * 64) as Vertex + word.trailing_zeros());
            word &= word - 1;
        }
        true
    });
}

/// Clears the bits of `lo..hi` and calls `f` on each vertex that was set, ascending. Atomic per
/// word, so that a bit set concurrently is either taken here or left for later, never lost.
pub fn take_range(bits: &Bitmap, lo: Vertex, hi: Vertex, mut f: impl FnMut(Vertex)) {
    for_each_word(lo as usize, hi as usize, |w, m| {
        let slot = &bits.words()[w];
        if slot.load(Relaxed) & m != 0 {
            let mut word = slot.fetch_and(!m, Relaxed) & m;
            while word != 0 {
                f((w * 64) as Vertex + word.trailing_zeros());
                word &= word - 1;
            }
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cross_words() {
        let mut b = Bitmap::new(300);
        for v in [3usize, 63, 64, 130, 299] {
            b.set(v);
        }
        assert!(any_in_range(&b, 60, 64));
        assert!(!any_in_range(&b, 65, 130));
        assert!(any_in_range(&b, 65, 131));
        assert_eq!(count_in_range(&b, 3, 300), 5);
        assert_eq!(count_in_range(&b, 4, 299), 3);
        assert_eq!(count_in_range(&b, 65, 130), 0);
        let mut seen = vec![];
        for_each_in_range(&b, 4, 300, |v| seen.push(v));
        assert_eq!(seen, vec![63, 64, 130, 299]);
        let mut taken = vec![];
        take_range(&b, 64, 131, |v| taken.push(v));
        assert_eq!(taken, vec![64, 130]);
        assert!(b.get(63) && !b.get(64) && !b.get(130) && b.get(299));
    }

    #[test]
    fn all_in_range_checks_every_word_of_the_range() {
        let mut b = Bitmap::new(300);
        for v in (60..200).filter(|&v| v != 128) {
            b.set(v);
        }
        assert!(all_in_range(&b, 60, 128));
        assert!(all_in_range(&b, 63, 128));
        assert!(all_in_range(&b, 100, 100), "an empty range");
        assert!(!all_in_range(&b, 59, 128));
        assert!(!all_in_range(&b, 129, 201));
        assert!(!all_in_range(&b, 64, 192), "a hole in a middle word");
        assert!(all_in_range(&b, 129, 200));
    }
}
