//! Julienne-style bucketing in O(n) space: vertices live in the bucket their current key says,
//! the lowest (or highest) non-empty bucket is extracted next.
//!
//! Only a window of `OPEN_BUCKETS` buckets is materialised; vertices with keys past it wait in
//! one overflow list that is redistributed when the window is used up. Moving a vertex appends
//! it to its new bucket and leaves a stale entry behind, which extraction filters by asking the
//! key function again; when stale entries pile up past 2n, everything is compacted, so the
//! structure never holds more than O(n) ids.

use crate::Vertex;

/// The key a vertex is not in any bucket under.
pub const NO_BUCKET: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BucketOrder {
    /// Extract the smallest key first (k-core, delta-stepping, peeling).
    Increasing,
    /// Extract the largest key first (set cover).
    Decreasing,
}

const OPEN_BUCKETS: usize = 128;

pub struct Buckets<K: Fn(Vertex) -> u64> {
    key_of: K,
    order: BucketOrder,
    n: usize,
    open: Vec<Vec<Vertex>>,
    /// Internal (ascending) key of `open[0]`.
    base: u64,
    /// Index of the bucket to look at next.
    cur: usize,
    /// Internal key of the bucket extracted last: keys are never filed below it.
    floor: u64,
    overflow: Vec<Vertex>,
    stored: usize,
}

impl<K: Fn(Vertex) -> u64> Buckets<K> {
    /// `key_of(v)` gives v's bucket now, or [`NO_BUCKET`]; it is asked again on extraction, so
    /// callers change keys first and then call [`Buckets::update`] with the moved vertices.
    pub fn new(n: usize, key_of: K, order: BucketOrder) -> Self {
        let mut b = Buckets {
            key_of,
            order,
            n,
            open: (0..OPEN_BUCKETS).map(|_| Vec::new()).collect(),
            base: 0,
            cur: 0,
            floor: 0,
            overflow: (0..n as Vertex).collect(),
            stored: n,
        };
        b.refill();
        b
    }

    /// Maps the user's key to an internal key that is always extracted in ascending order.
    fn internal(&self, key: u64) -> Option<u64> {
        match (key, self.order) {
            (NO_BUCKET, _) => None,
            (k, BucketOrder::Increasing) => Some(k),
            (k, BucketOrder::Decreasing) => Some(NO_BUCKET - 1 - k),
        }
    }

    fn external(&self, internal: u64) -> u64 {
        match self.order {
            BucketOrder::Increasing => internal,
            BucketOrder::Decreasing => NO_BUCKET - 1 - internal,
        }
    }

    /// The internal key v is filed under: a key lowered below the bucket extracted last is
    /// processed with that bucket rather than lost.
    fn key(&self, v: Vertex) -> Option<u64> {
        self.internal((self.key_of)(v)).map(|k| k.max(self.floor))
    }

    /// Starts a new window at the smallest key waiting in the overflow.
    fn refill(&mut self) {
        let waiting = std::mem::take(&mut self.overflow);
        self.stored = self.open.iter().map(Vec::len).sum();
        // Keys are asked for twice rather than stored next to the ids: (id, key) pairs for all
        // n vertices would be 2 words each, 4× the ids themselves.
        let Some(min) = waiting.iter().filter_map(|&v| self.key(v)).min() else {
            return;
        };
        self.base = min;
        self.cur = 0;
        for v in waiting {
            if let Some(k) = self.key(v) {
                self.place(v, k);
            }
        }
    }

    fn place(&mut self, v: Vertex, k: u64) {
        if k < self.base {
            // Below the window (keys lowered before much was extracted): start a new window.
            for slot in 0..OPEN_BUCKETS {
                let bucket = std::mem::take(&mut self.open[slot]);
                self.overflow.extend(bucket);
            }
            self.overflow.push(v);
            self.refill();
            return;
        }
        if k - self.base < OPEN_BUCKETS as u64 {
            let slot = (k - self.base) as usize;
            self.open[slot].push(v);
            // The buckets between cur and slot were empty when passed; look again from slot.
            self.cur = self.cur.min(slot);
        } else {
            self.overflow.push(v);
        }
        self.stored += 1;
    }

    /// Re-files vertices whose key changed since they were last filed.
    pub fn update(&mut self, moved: &[Vertex]) {
        for &v in moved {
            if let Some(k) = self.key(v) {
                self.place(v, k);
            }
        }
        if self.stored > 2 * self.n + 1024 {
            self.compact();
        }
    }

    fn compact(&mut self) {
        for slot in 0..OPEN_BUCKETS {
            let want = self.base + slot as u64;
            let mut bucket = std::mem::take(&mut self.open[slot]);
            bucket.retain(|&v| self.key(v) == Some(want));
            bucket.sort_unstable();
            bucket.dedup();
            self.open[slot] = bucket;
        }
        let horizon = self.base + OPEN_BUCKETS as u64;
        let mut overflow = std::mem::take(&mut self.overflow);
        overflow.retain(|&v| self.key(v).is_some_and(|k| k >= horizon));
        overflow.sort_unstable();
        overflow.dedup();
        self.overflow = overflow;
        self.stored = self.open.iter().map(Vec::len).sum::<usize>() + self.overflow.len();
    }

    /// The next non-empty bucket: its key and its vertices (distinct, ascending). None when
    /// every vertex's key is [`NO_BUCKET`].
    pub fn next_bucket(&mut self) -> Option<(u64, Vec<Vertex>)> {
        crate::interrupt::check();
        loop {
            while self.cur < OPEN_BUCKETS {
                let want = self.base + self.cur as u64;
                let mut bucket = std::mem::take(&mut self.open[self.cur]);
                self.stored -= bucket.len();
                bucket.retain(|&v| self.key(v) == Some(want));
                if !bucket.is_empty() {
                    self.floor = want;
                    bucket.sort_unstable();
                    bucket.dedup();
                    return Some((self.external(want), bucket));
                }
                self.cur += 1;
            }
            if self.overflow.is_empty() {
                return None;
            }
            self.refill();
        }
    }

    /// Ids currently held, stale entries included (for memory reporting and tests).
    pub fn stored(&self) -> usize {
        self.stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn extracts_in_key_order_across_windows() {
        let keys: Vec<u64> = vec![5, 0, 300, 5, NO_BUCKET, 1000, 129];
        let mut b = Buckets::new(keys.len(), |v| keys[v as usize], BucketOrder::Increasing);
        let mut got = vec![];
        while let Some((k, ids)) = b.next_bucket() {
            got.push((k, ids));
        }
        assert_eq!(
            got,
            vec![
                (0, vec![1]),
                (5, vec![0, 3]),
                (129, vec![6]),
                (300, vec![2]),
                (1000, vec![5])
            ]
        );
    }

    #[test]
    fn decreasing_order() {
        let keys: Vec<u64> = vec![1, 7, 3, 7];
        let mut b = Buckets::new(keys.len(), |v| keys[v as usize], BucketOrder::Decreasing);
        assert_eq!(b.next_bucket(), Some((7, vec![1, 3])));
        assert_eq!(b.next_bucket(), Some((3, vec![2])));
        assert_eq!(b.next_bucket(), Some((1, vec![0])));
        assert_eq!(b.next_bucket(), None);
    }

    #[test]
    fn moves_and_reinsertion_into_current_bucket() {
        // A k-core-like peel: keys fall while the current bucket is processed.
        let keys = RefCell::new(vec![2u64, 3, 3, 9]);
        let mut b = Buckets::new(4, |v| keys.borrow()[v as usize], BucketOrder::Increasing);
        let (k, ids) = b.next_bucket().unwrap();
        assert_eq!((k, ids.clone()), (2, vec![0]));
        keys.borrow_mut()[0] = NO_BUCKET;
        keys.borrow_mut()[1] = 2; // clamped to the current bucket
        keys.borrow_mut()[3] = 4;
        b.update(&[1, 3]);
        assert_eq!(b.next_bucket(), Some((2, vec![1])));
        keys.borrow_mut()[1] = NO_BUCKET;
        assert_eq!(b.next_bucket(), Some((3, vec![2])));
        keys.borrow_mut()[2] = NO_BUCKET;
        assert_eq!(b.next_bucket(), Some((4, vec![3])));
        keys.borrow_mut()[3] = NO_BUCKET;
        assert_eq!(b.next_bucket(), None);
    }

    #[test]
    fn stale_entries_stay_bounded() {
        let n = 100;
        let keys = RefCell::new(vec![1000u64; n]);
        let mut b = Buckets::new(n, |v| keys.borrow()[v as usize], BucketOrder::Increasing);
        for round in 0..50u64 {
            for v in 0..n {
                keys.borrow_mut()[v] = 500 - round;
            }
            let all: Vec<Vertex> = (0..n as Vertex).collect();
            b.update(&all);
            assert!(b.stored() <= 2 * n + 1024 + n);
        }
        let (k, ids) = b.next_bucket().unwrap();
        assert_eq!((k, ids.len()), (451, n));
    }
}
