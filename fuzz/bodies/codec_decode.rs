//! Arbitrary bytes as one encoded list (and as a small graph's codes): decoding and validation
//! must never panic or read out of bounds, every id handed over is below n, and whatever
//! validation accepts decodes to a strictly increasing list of exactly the degree, which
//! re-encodes to codes that validate and decode to the same list. The summing decoder
//! (`ByteCodeLists::sum_lists`) never panics either.
//!
//! Shared by the fuzz target `codec_decode` and the replay of its corpus in the test command.

use vastgraph_codec::{
    decode_list, decode_list_blocks, encode_list, validate_list, ByteCodeLists, ListCodec, ListSpan,
};

pub fn run(input: &[u8]) {
    if input.len() < 12 {
        return;
    }
    let word = |i: usize| u32::from_le_bytes([input[i], input[i + 1], input[i + 2], input[i + 3]]);
    // n in 1..=u32::MAX, the source below n, a degree up to a few blocks, a range lo..hi.
    let n = (word(0) as u64).max(1);
    let source = (word(4) as u64 % n) as u32;
    let degree = (input[8] as usize) * 3;
    let (lo, hi) = (input[9] as usize * 2, input[10] as usize * 2);
    let data = &input[11..];
    // The range's start picks the codec.
    let codec = ListCodec::ALL[input[9] as usize % ListCodec::ALL.len()];

    // Every position (`hi` past the degree, to be clamped), and the range lo..hi.
    let everything = ListSpan {
        source,
        degree,
        n,
        lo: 0,
        hi: usize::MAX,
    };
    let range = ListSpan {
        lo,
        hi,
        ..everything
    };
    let mut all = Vec::new();
    decode_list(codec, data, everything, |w| {
        all.push(w);
        true
    });
    assert!(all.len() <= degree);
    assert!(all.iter().all(|&w| (w as u64) < n));
    let mut part = 0;
    decode_list(codec, data, range, |w| {
        assert!((w as u64) < n);
        part += 1;
        true
    });
    assert!(part <= hi.saturating_sub(lo));
    // A block at a time: the same ids as one at a time, as far as both get.
    let mut in_blocks = Vec::new();
    decode_list_blocks(codec, data, everything, |ids| {
        assert!(!ids.is_empty() && ids.len() <= vastgraph_codec::BLOCK_EDGES);
        in_blocks.extend_from_slice(ids);
        true
    });
    assert!(all.starts_with(&in_blocks));

    if validate_list(codec, data, source, degree, n).is_ok() {
        assert_eq!(all.len(), degree);
        assert!(all.windows(2).all(|p| p[0] < p[1]));
        let mut again = Vec::new();
        encode_list(codec, source, &all, &mut again).expect("a decoded list re-encodes");
        assert!(validate_list(codec, &again, source, degree, n).is_ok());
    }

    // The same bytes as the codes of a graph of up to 8 vertices with made-up offsets.
    let vertices = 1 + input[8] as usize % 8;
    let mut offsets = vec![0u64];
    let mut byte_offsets = vec![0u64];
    for v in 0..vertices {
        offsets.push(offsets[v] + (input[(v + 1) % input.len()] % 70) as u64);
        let step = data.len() as u64 / vertices as u64;
        byte_offsets.push(if v + 1 == vertices {
            data.len() as u64
        } else {
            step * (v as u64 + 1)
        });
    }
    if let Ok(lists) = ByteCodeLists::new(codec, &offsets, &byte_offsets, data) {
        for v in 0..vertices as u32 {
            let mut count = 0;
            lists.for_each(v, |w| {
                assert!((w as usize) < vertices);
                count += 1;
            });
            assert!(count <= lists.degree(v));
            // A block at a time, where the codes run on into the next list's.
            let mut in_blocks = 0;
            lists.for_each_block_in(v, 0, usize::MAX, |ids| {
                assert!(ids.iter().all(|&w| (w as usize) < vertices));
                in_blocks += ids.len();
                true
            });
            assert!(in_blocks <= count);
            let _ = lists.validate_vertex(v);
        }
        // All the lists walked in one call from their second neighbour, as BFS does.
        let mut walked = vec![0usize; vertices];
        let offered = lists.walk_word_from(0, (1u64 << vertices) - 1, 1, |v, u| {
            assert!((u as usize) < vertices);
            walked[v as usize] += 1;
            true
        });
        assert_eq!(offered, walked.iter().sum::<usize>() as u64);
        // Searched for the members of a bitmap (every third vertex, in as few words as hold
        // them), as BFS's bottom-up step does: only members, at most one a list.
        let bitmap: Vec<std::sync::atomic::AtomicU64> = (0..vertices.div_ceil(64))
            .map(|w| {
                let bits = (0..64)
                    .filter(|b| (w * 64 + b) % 3 == 0 && w * 64 + b < vertices)
                    .fold(0u64, |bits, b| bits | 1 << b);
                std::sync::atomic::AtomicU64::new(bits)
            })
            .collect();
        let mut found = vec![false; vertices];
        lists.find_word_in_bitmap(0, (1u64 << vertices) - 1, 1, &bitmap, |v, u| {
            assert!((u as usize) < vertices && u % 3 == 0);
            assert!(!std::mem::replace(&mut found[v as usize], true));
        });
        for (v, &count) in walked.iter().enumerate() {
            assert!(count <= lists.degree(v as u32).saturating_sub(1));
        }
        // Summed as decoded (a long input reaches the unchecked reads): the vertices handed
        // over are a prefix, in order, and each list that validates has its decoded list's sum
        // (values 2^v, so that any id summed wrongly changes the sum).
        let mut values: Vec<f64> = (0..vertices).map(|v| (1u64 << v) as f64).collect();
        values.push(0.0);
        let mut next = 0;
        let stop = lists.sum_lists(0..vertices as u32, &values, |v, sum| {
            assert_eq!(v, next);
            next += 1;
            if lists.validate_vertex(v).is_ok() {
                let mut decoded = Vec::new();
                lists.decode_into(v, &mut decoded);
                let exact: f64 = decoded.iter().map(|&w| values[w as usize]).sum();
                assert_eq!(sum, exact);
            }
        });
        assert_eq!(stop, next);
    }
}
