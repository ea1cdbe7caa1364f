//! Decode speed of the codec alone on a raw store's lists: every list encoded in memory, then
//! decoded in order on one core (one id at a time, a block at a time, a range of lists at a
//! time), ids summed, for each codec; and PageRank's gather, Σ values[u] per list, raw and
//! decoded (the sums' totals are printed as bits, not compared: the lanes differ). For tuning
//! the decoder without building the rest.
//!
//! cargo run --release -p vastgraph-codec --example bench_decode -- RAW_STORE_DIR [ROUNDS [CODEC]]
//!
//! CODEC (as `{:?}` prints it, e.g. `Zeta`) measures that codec alone, for a profile of it.

use std::time::Instant;

use vastgraph_codec::{encode_list, ByteCodeLists, ListCodec, ListVisitor};

/// Sums every id handed over.
struct Sum(u64);

impl ListVisitor for Sum {
    fn block(&mut self, ids: &[u32]) {
        self.0 = ids.iter().fold(self.0, |s, &u| s.wrapping_add(u as u64));
    }
    fn end_list(&mut self, _v: u32) {}
}

fn read_array<const W: usize>(path: &std::path::Path) -> Vec<[u8; W]> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(W)
        .map(|c| c.try_into().unwrap())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = std::path::Path::new(
        args.first()
            .expect("usage: bench_decode RAW_STORE_DIR [ROUNDS [CODEC]]"),
    );
    let rounds: usize = args.get(1).map_or(10, |r| r.parse().expect("ROUNDS"));
    let only = args.get(2);
    let offsets: Vec<u64> = read_array::<8>(&dir.join("offsets.u64"))
        .into_iter()
        .map(u64::from_le_bytes)
        .collect();
    let neighbors: Vec<u32> = read_array::<4>(&dir.join("neighbors.u32"))
        .into_iter()
        .map(u32::from_le_bytes)
        .collect();
    let n = offsets.len() - 1;
    let m = neighbors.len() as f64;
    let time = |label: &str, scan: &dyn Fn() -> u64| {
        let mut best = f64::INFINITY;
        let mut sum = 0;
        for _ in 0..rounds {
            let t = Instant::now();
            sum = scan();
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{label:>8}: {:.2} ns/arc, {:.0} M arcs/s, checksum {sum}",
            best * 1e9 / m,
            m / best / 1e6
        );
        sum
    };
    let raw = time("raw", &|| {
        let mut sum = 0u64;
        for v in 0..n {
            for &u in &neighbors[offsets[v] as usize..offsets[v + 1] as usize] {
                sum = sum.wrapping_add(u as u64);
            }
        }
        sum
    });
    for codec in ListCodec::ALL {
        if only.is_some_and(|name| *name != format!("{codec:?}")) {
            continue;
        }
        let (mut byte_offsets, mut bytes) = (vec![0u64], Vec::new());
        for v in 0..n {
            let list = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
            encode_list(codec, v as u32, list, &mut bytes).unwrap();
            byte_offsets.push(bytes.len() as u64);
        }
        let lists = ByteCodeLists::new(codec, &offsets, &byte_offsets, &bytes).unwrap();
        println!(
            "{codec:?}: {} vertices, {} arcs, {:.3} bytes/arc of codes",
            n,
            neighbors.len(),
            bytes.len() as f64 / m
        );
        let decoded = time("decoded", &|| {
            let mut sum = 0u64;
            for v in 0..n as u32 {
                lists.for_each(v, |u| sum = sum.wrapping_add(u as u64));
            }
            sum
        });
        let blocks = time("blocks", &|| {
            let mut sum = 0u64;
            for v in 0..n as u32 {
                lists.for_each_block_in(v, 0, usize::MAX, |ids| {
                    sum = ids.iter().fold(sum, |s, &u| s.wrapping_add(u as u64));
                    true
                });
            }
            sum
        });
        // As PageRank reads them: every list of the range in one call.
        let visited = time("visited", &|| {
            let mut sum = Sum(0);
            lists.visit_lists(0..n as u32, &mut sum);
            sum.0
        });
        // As PageRank sums them: each list's Σ values[u], decoded and summed in one loop where
        // the codec has that decoder (the rest visited), against the raw lists' sums.
        let mut values: Vec<f64> = (0..n).map(|u| 1.0 / (u as f64 + 1.0)).collect();
        values.push(0.0);
        let raw_sums = time("raw sums", &|| {
            let mut total = 0.0f64;
            for v in 0..n {
                let list = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
                total += list.iter().map(|&u| values[u as usize]).sum::<f64>();
            }
            total.to_bits()
        });
        let summed = time("summed", &|| {
            let mut total = 0.0f64;
            let rest = lists.sum_lists(0..n as u32, &values, |_, sum| total += sum);
            for v in rest..n as u32 {
                lists.for_each(v, |u| total += values[u as usize]);
            }
            total.to_bits()
        });
        let _ = (raw_sums, summed);
        assert_eq!(raw, decoded);
        assert_eq!(raw, blocks);
        assert_eq!(raw, visited);
    }
}
