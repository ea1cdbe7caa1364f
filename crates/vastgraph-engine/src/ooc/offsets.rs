//! A compressed store's byte offsets held in DRAM in about half the space of plain u64s: a u64
//! base per group of 64 vertices and a u32 offset from it per vertex (4.125 bytes per vertex
//! instead of 8). On Kronecker scale 25 that is 138 MiB instead of 256 MiB of the budget. A store
//! whose codes for 64 consecutive vertices span 4 GiB or more keeps plain u64s.

use std::path::Path;

use vastgraph_store::{Manifest, OffsetsOf, OffsetsReader};

const GROUP_SHIFT: u32 = 6;

#[derive(Debug)]
pub(crate) enum ByteOffsets {
    Grouped { base: Vec<u64>, low: Vec<u32> },
    Plain(Vec<u64>),
}

impl ByteOffsets {
    /// Reads the byte offsets of `offsets` (a compressed store's, plain or Elias–Fano) from the
    /// store in `dir` in chunks (never holding them all as u64s), checking that they start at
    /// 0, never decrease and end at the codes' length.
    pub fn read_store(
        dir: &Path,
        manifest: &Manifest,
        offsets: OffsetsOf,
    ) -> anyhow::Result<ByteOffsets> {
        let total = offsets.last(manifest).unwrap_or(0);
        let read = |grouped| {
            let mut reader = OffsetsReader::open(dir, manifest, offsets)?;
            let path = reader.path().to_path_buf();
            let count = reader.count() as usize;
            Self::from_chunks(count, total, grouped, |out| Ok(reader.read(out)?))
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
        };
        match read(true)? {
            Some(grouped) => Ok(grouped),
            None => Ok(read(false)?.expect("plain always fits")),
        }
    }

    /// The offsets `next_chunk` fills in pieces (`count` in all, the last `total`), grouped
    /// or plain; None when `grouped` and a group spans 4 GiB or more.
    fn from_chunks(
        count: usize,
        total: u64,
        grouped: bool,
        mut next_chunk: impl FnMut(&mut [u64]) -> anyhow::Result<usize>,
    ) -> anyhow::Result<Option<ByteOffsets>> {
        let (mut base, mut low, mut plain) = (Vec::new(), Vec::new(), Vec::new());
        if grouped {
            base.reserve_exact(count.div_ceil(1 << GROUP_SHIFT));
            low.reserve_exact(count);
        } else {
            plain.reserve_exact(count);
        }
        let mut chunk = vec![0u64; 1 << 16];
        let (mut v, mut previous) = (0usize, 0u64);
        while v < count {
            let got = next_chunk(&mut chunk)?;
            anyhow::ensure!(got > 0, "{count} offsets expected, {v} read");
            for &o in &chunk[..got] {
                anyhow::ensure!(
                    (v > 0 || o == 0) && o >= previous,
                    "offset {v} is {o} after {previous} (must start at 0 and not decrease)"
                );
                previous = o;
                if !grouped {
                    plain.push(o);
                } else {
                    if v & ((1 << GROUP_SHIFT) - 1) == 0 {
                        base.push(o);
                    }
                    match u32::try_from(o - base[base.len() - 1]) {
                        Ok(x) => low.push(x),
                        Err(_) => return Ok(None),
                    }
                }
                v += 1;
            }
        }
        anyhow::ensure!(
            previous == total,
            "the last offset is {previous}, expected {total}"
        );
        Ok(Some(if grouped {
            ByteOffsets::Grouped { base, low }
        } else {
            ByteOffsets::Plain(plain)
        }))
    }

    /// Offset `v` (0..=n).
    #[inline]
    pub fn get(&self, v: usize) -> u64 {
        match self {
            ByteOffsets::Grouped { base, low } => base[v >> GROUP_SHIFT] + low[v] as u64,
            ByteOffsets::Plain(plain) => plain[v],
        }
    }

    /// Entries (n+1).
    pub fn len(&self) -> usize {
        match self {
            ByteOffsets::Grouped { low, .. } => low.len(),
            ByteOffsets::Plain(plain) => plain.len(),
        }
    }

    /// Bytes held in DRAM.
    pub fn bytes(&self) -> u64 {
        match self {
            ByteOffsets::Grouped { base, low } => (8 * base.len() + 4 * low.len()) as u64,
            ByteOffsets::Plain(plain) => 8 * plain.len() as u64,
        }
    }

    /// DRAM bytes for `count` grouped offsets (what a budget plans for).
    pub fn grouped_bytes(count: u64) -> u64 {
        8 * count.div_ceil(1 << GROUP_SHIFT) + 4 * count
    }
}

/// The first index in `0..len` where `pred` turns false (`pred` true then false).
pub(crate) fn partition_point(len: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0usize, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// [`partition_point`] when the answer is known to be at least `from`: gallops up from there
/// before it bisects, so a run of searches for growing targets (a streaming pass's chunk
/// bounds) reads entries near the last answer instead of bisecting the whole array each time,
/// a cache miss a level (3 ms a pass of Kronecker scale 25's 4,000 chunks).
pub(crate) fn partition_point_from(from: usize, len: usize, pred: impl Fn(usize) -> bool) -> usize {
    // `pred` holds below `lo`; the answer lies in lo..=hi.
    let (mut lo, mut step) = (from.min(len), 1);
    let hi = loop {
        let probe = lo + step - 1;
        if probe >= len {
            break len;
        }
        if !pred(probe) {
            break probe;
        }
        lo = probe + 1;
        step *= 2;
    };
    lo + partition_point(hi - lo, |i| pred(lo + i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn galloping_from_any_lower_bound_finds_the_partition_point() {
        let values: Vec<u64> = (0..1000u64).map(|v| v * v / 37).collect();
        for target in [0, 1, 5, 26, 27, 100, 9999, 26_000, 26_999, 27_000, u64::MAX] {
            let want = values.partition_point(|&x| x < target);
            for from in (0..=want).step_by(7).chain([want]) {
                let got = partition_point_from(from, values.len(), |i| values[i] < target);
                assert_eq!(got, want, "target {target} from {from}");
            }
        }
        assert_eq!(partition_point_from(0, 0, |_| true), 0);
    }

    /// The offsets `values`, handed over in chunks of at most 1000.
    fn read(values: &[u64], total: u64) -> anyhow::Result<ByteOffsets> {
        let read_as = |grouped| {
            let mut rest = values;
            ByteOffsets::from_chunks(values.len(), total, grouped, |out| {
                let take = rest.len().min(out.len()).min(1000);
                out[..take].copy_from_slice(&rest[..take]);
                rest = &rest[take..];
                Ok(take)
            })
        };
        match read_as(true)? {
            Some(grouped) => Ok(grouped),
            None => Ok(read_as(false)?.unwrap()),
        }
    }

    #[test]
    fn grouped_offsets_read_back_and_bad_ones_are_refused() {
        let values: Vec<u64> = (0..100_000u64).map(|v| v * 3 + v / 7).collect();
        let total = *values.last().unwrap();
        let read = read(&values, total).unwrap();
        assert!(matches!(read, ByteOffsets::Grouped { .. }));
        assert!(read.bytes() < 5 * values.len() as u64);
        assert!((0..values.len()).all(|v| read.get(v) == values[v]));
        assert_eq!(
            partition_point(values.len(), |v| read.get(v) < 3000),
            values.partition_point(|&x| x < 3000)
        );

        // A group spanning 4 GiB: plain u64s, same values.
        let wide: Vec<u64> = vec![0, 1, 5 << 32, 6 << 32];
        let read = super::tests::read(&wide, 6 << 32).unwrap();
        assert!(matches!(read, ByteOffsets::Plain(_)));
        assert_eq!((read.get(2), read.len()), (5 << 32, 4));

        for (bad, why) in [
            (vec![1u64, 2, 3], "start at 0"),
            (vec![0u64, 5, 4], "not decrease"),
            (vec![0u64, 5, 9], "expected 10"),
        ] {
            let err = super::tests::read(&bad, 10).unwrap_err().to_string();
            assert!(err.contains(why) && err.contains("offset"), "{err}");
        }
    }
}
