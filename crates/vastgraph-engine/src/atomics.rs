//! Small atomic helpers used by push-direction updates, where several threads may race on one
//! destination vertex.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// Lowers `a` to `v` if `v` is smaller; true if this call lowered it.
#[inline]
pub fn write_min_u32(a: &AtomicU32, v: u32) -> bool {
    let mut cur = a.load(Ordering::Relaxed);
    while v < cur {
        match a.compare_exchange_weak(cur, v, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(c) => cur = c,
        }
    }
    false
}

/// An f64 in an AtomicU64. Non-negative floats (including +inf) order like their bit patterns,
/// which is what [`AtomicF64::write_min_nonneg`] relies on.
#[repr(transparent)]
pub struct AtomicF64(AtomicU64);

impl AtomicF64 {
    pub fn new(v: f64) -> Self {
        AtomicF64(AtomicU64::new(v.to_bits()))
    }
    #[inline]
    pub fn load(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    #[inline]
    pub fn store(&self, v: f64) {
        self.0.store(v.to_bits(), Ordering::Relaxed)
    }
    #[inline]
    pub fn fetch_add(&self, d: f64) -> f64 {
        let mut cur = self.0.load(Ordering::Relaxed);
        loop {
            let new = (f64::from_bits(cur) + d).to_bits();
            match self
                .0
                .compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return f64::from_bits(cur),
                Err(c) => cur = c,
            }
        }
    }
    /// Lowers the value to `v` if smaller, for values of any sign (a CAS loop, so slower than
    /// [`AtomicF64::write_min_nonneg`]; Bellman-Ford with negative weights needs it). True if
    /// lowered.
    #[inline]
    pub fn write_min(&self, v: f64) -> bool {
        let mut cur = self.0.load(Ordering::Relaxed);
        while v < f64::from_bits(cur) {
            match self.0.compare_exchange_weak(
                cur,
                v.to_bits(),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(c) => cur = c,
            }
        }
        false
    }
    /// Lowers the value to `v` if smaller; both must be non-negative (or +inf). True if lowered.
    #[inline]
    pub fn write_min_nonneg(&self, v: f64) -> bool {
        debug_assert!(v >= 0.0);
        let bits = v.to_bits();
        self.0.fetch_min(bits, Ordering::Relaxed) > bits
    }
    /// Raises the value to `v` if larger; both must be non-negative. True if raised.
    #[inline]
    pub fn write_max_nonneg(&self, v: f64) -> bool {
        debug_assert!(v >= 0.0);
        let bits = v.to_bits();
        self.0.fetch_max(bits, Ordering::Relaxed) < bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_and_add() {
        let a = AtomicU32::new(10);
        assert!(write_min_u32(&a, 3));
        assert!(!write_min_u32(&a, 5));
        assert_eq!(a.load(Ordering::Relaxed), 3);
        let f = AtomicF64::new(f64::INFINITY);
        assert!(f.write_min_nonneg(2.5));
        assert!(!f.write_min_nonneg(7.0));
        assert!(f.write_min_nonneg(0.0));
        assert_eq!(f.load(), 0.0);
        f.fetch_add(1.25);
        assert_eq!(f.load(), 1.25);
        assert!(f.write_max_nonneg(4.0));
        assert!(!f.write_max_nonneg(3.0));
        assert!(f.write_min(-2.0));
        assert!(!f.write_min(-1.0));
        assert!(f.write_min(-7.5));
        assert_eq!(f.load(), -7.5);
    }
}
