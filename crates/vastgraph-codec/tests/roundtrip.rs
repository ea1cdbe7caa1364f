//! Encoding then decoding gives back every list, whole or in any range; corrupt codes are
//! reported by validation and never make the decoder panic or hand over an id out of range.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::Index;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use vastgraph_codec::{
    decode_list, decode_list_blocks, decode_list_blocks_in, encode_block, encode_block_index,
    encode_list, encoded_len, validate_list, ByteCodeLists, CodecError, ListCodec, ListSpan,
    BLOCK_EDGES,
};

/// The three arrays of an encoded direction, built the way the store writer builds them.
struct Encoded {
    codec: ListCodec,
    offsets: Vec<u64>,
    byte_offsets: Vec<u64>,
    bytes: Vec<u8>,
}

impl Encoded {
    fn new(codec: ListCodec, lists: &[Vec<u32>]) -> Encoded {
        let (mut offsets, mut byte_offsets, mut bytes) = (vec![0], vec![0], Vec::new());
        for (v, list) in lists.iter().enumerate() {
            encode_list(codec, v as u32, list, &mut bytes).unwrap();
            offsets.push(offsets.last().unwrap() + list.len() as u64);
            byte_offsets.push(bytes.len() as u64);
        }
        Encoded {
            codec,
            offsets,
            byte_offsets,
            bytes,
        }
    }

    fn view(&self) -> ByteCodeLists<'_> {
        ByteCodeLists::new(self.codec, &self.offsets, &self.byte_offsets, &self.bytes).unwrap()
    }
}

/// Positions lo..hi of one list, decoded.
fn decode(
    codec: ListCodec,
    data: &[u8],
    source: u32,
    degree: usize,
    n: u64,
    lo: usize,
    hi: usize,
) -> Vec<u32> {
    let mut out = Vec::new();
    let span = ListSpan {
        source,
        degree,
        n,
        lo,
        hi,
    };
    assert!(decode_list(codec, data, span, |w| {
        out.push(w);
        true
    }));
    out
}

/// A strictly increasing list below `n`: a start and gaps mixing ones (dense, web-like), small
/// gaps and huge ones. Degrees 0..700 cover empty, one-block, multi-block and partial blocks.
fn list_below(n: u64) -> impl Strategy<Value = Vec<u32>> {
    let gap = prop_oneof![6 => Just(1u64), 3 => 1u64..200, 1 => 1u64..(1 << 33)];
    let degree = prop_oneof![3 => 0usize..=3, 3 => 0usize..=2 * BLOCK_EDGES + 2, 1 => 0usize..=700];
    (0..n, degree.prop_flat_map(move |d| vec(gap.clone(), d))).prop_map(move |(start, gaps)| {
        let mut id = start;
        let mut list = Vec::with_capacity(gaps.len());
        for g in gaps {
            if id >= n {
                break;
            }
            list.push(id as u32);
            id += g;
        }
        list
    })
}

fn codec() -> impl Strategy<Value = ListCodec> {
    proptest::sample::select(ListCodec::ALL.to_vec())
}

/// (n, source, list): n up to u32::MAX (the most vertices a store holds), with the source
/// anywhere below n, so differences to the first neighbour reach ±(2^32 - 2).
fn case() -> impl Strategy<Value = (u64, u32, Vec<u32>)> {
    prop_oneof![Just(u32::MAX as u64), 1u64..=300, 1u64..=(u32::MAX as u64)]
        .prop_flat_map(|n| {
            let source = prop_oneof![Just(0), Just(n - 1), 0..n];
            (Just(n), source, list_below(n))
        })
        .prop_map(|(n, source, list)| (n, source as u32, list))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn every_list_and_every_range_round_trips(
        codec in codec(),
        (n, source, list) in case(),
        a in any::<Index>(),
        b in any::<Index>(),
    ) {
        let mut data = Vec::new();
        encode_list(codec, source, &list, &mut data).unwrap();
        prop_assert_eq!(data.len() as u64, encoded_len(codec, source, &list).unwrap());
        // The streaming path (index, then block by block) writes the same bytes.
        let mut streamed = Vec::new();
        encode_block_index(codec, source, &list, &mut streamed).unwrap();
        for block in list.chunks(BLOCK_EDGES) {
            encode_block(codec, source, block, &mut streamed).unwrap();
        }
        prop_assert_eq!(&streamed, &data);
        prop_assert_eq!(validate_list(codec, &data, source, list.len(), n), Ok(()));
        let d = list.len();
        prop_assert_eq!(&decode(codec, &data, source, d, n, 0, usize::MAX), &list);
        let (a, b) = (a.index(d + 1), b.index(d + 1));
        let (lo, hi) = (a.min(b), a.max(b));
        prop_assert_eq!(&decode(codec, &data, source, d, n, lo, hi), &list[lo..hi]);
        // A block at a time: the same ids, cut exactly where the codec's blocks end.
        let mut blocks: Vec<Vec<u32>> = Vec::new();
        let span = ListSpan {
            source,
            degree: d,
            n,
            lo,
            hi,
        };
        let finished = decode_list_blocks(codec, &data, span, |ids| {
            blocks.push(ids.to_vec());
            true
        });
        prop_assert!(finished);
        prop_assert_eq!(blocks.concat(), &list[lo..hi]);
        // The same from a buffer that runs on past the list's codes, into bytes of any value.
        let mut run_on = data.clone();
        run_on.extend((0..24u8).map(|i| i.wrapping_mul(97) ^ (lo ^ hi) as u8));
        let mut ahead = Vec::new();
        let finished = decode_list_blocks_in(codec, &run_on, data.len(), span, |ids| {
            ahead.extend_from_slice(ids);
            true
        });
        prop_assert!(finished);
        prop_assert_eq!(&ahead, &list[lo..hi]);
        let mut end = lo;
        for block in &blocks {
            end += block.len();
            prop_assert!(end == hi || end % BLOCK_EDGES == 0, "a block ends at {}", end);
        }
        // Stopping after k neighbours hands over exactly the first k and reports the stop.
        if d > 0 {
            let k = 1 + a.min(d - 1);
            let whole = ListSpan::whole(source, d, n);
            let mut seen = Vec::new();
            let finished = decode_list(codec, &data, whole, |w| {
                seen.push(w);
                seen.len() < k
            });
            prop_assert_eq!(finished, false);
            prop_assert_eq!(&seen[..], &list[..k]);
            // Stopping in the block that reaches k: nothing after that block is handed over.
            let mut handed = 0;
            let finished = decode_list_blocks(codec, &data, whole, |ids| {
                handed += ids.len();
                handed < k
            });
            prop_assert_eq!(finished, false);
            prop_assert_eq!(handed, (k.div_ceil(BLOCK_EDGES) * BLOCK_EDGES).min(d));
        }
        // A list validated against a smaller n is refused when it holds a larger id.
        if let Some(&max) = list.last() {
            prop_assert!(validate_list(codec, &data, source, d, max as u64).is_err());
        }
    }

    /// A whole graph through the view: degrees, lists, ranges, and validation of every vertex.
    #[test]
    fn a_graph_round_trips_through_the_view(
        codec in codec(),
        lists in (1u64..=120).prop_flat_map(|n| vec(list_below(n), n as usize)),
        at in any::<Index>(),
    ) {
        let e = Encoded::new(codec, &lists);
        let view = e.view();
        prop_assert_eq!(view.num_vertices(), lists.len());
        prop_assert_eq!(view.num_arcs(), lists.iter().map(|l| l.len() as u64).sum::<u64>());
        view.validate_vertices(0..lists.len()).unwrap();
        for (v, list) in lists.iter().enumerate() {
            let v = v as u32;
            prop_assert_eq!(view.degree(v), list.len());
            let mut out = Vec::new();
            view.decode_into(v, &mut out);
            prop_assert_eq!(&out, list);
            let lo = at.index(list.len() + 1);
            let mut part = Vec::new();
            view.for_each_in(v, lo, lo + 1, |w| { part.push(w); true });
            prop_assert_eq!(&part[..], &list[lo..(lo + 1).min(list.len())]);
        }
    }

    /// Any change to the codes or byte offsets: the decoder never panics and never hands over
    /// an id out of range or more ids than the degree; whatever validation accepts decodes to
    /// a strictly increasing list of exactly the degree.
    #[test]
    fn corruption_is_reported_never_a_crash(
        codec in codec(),
        lists in (1u64..=80).prop_flat_map(|n| vec(list_below(n), n as usize)),
        edits in vec((any::<Index>(), any::<u8>()), 1..6),
        truncate in any::<Option<Index>>(),
        moved_offset in any::<Option<(Index, u64)>>(),
    ) {
        let mut e = Encoded::new(codec, &lists);
        if e.bytes.is_empty() {
            return Ok(());
        }
        let n = lists.len() as u32;
        for (at, flip) in &edits {
            let i = at.index(e.bytes.len());
            e.bytes[i] ^= flip | 1;
        }
        if let Some(cut) = truncate {
            let len = cut.index(e.bytes.len());
            e.bytes.truncate(len);
            *e.byte_offsets.last_mut().unwrap() = len as u64;
        }
        if let Some((at, value)) = moved_offset {
            let i = at.index(e.byte_offsets.len());
            e.byte_offsets[i] = value % (e.bytes.len() as u64 + 3);
        }
        let Ok(view) = ByteCodeLists::new(codec, &e.offsets, &e.byte_offsets, &e.bytes) else {
            return Ok(());
        };
        for v in 0..n {
            let mut decoded = Vec::new();
            view.decode_into(v, &mut decoded);
            prop_assert!(decoded.len() <= view.degree(v));
            prop_assert!(decoded.iter().all(|&w| w < n));
            view.for_each_in(v, 65, 200, |w| { assert!(w < n); true });
            let mut in_blocks = 0;
            let span = ListSpan {
                source: v,
                degree: view.degree(v),
                n: n as u64,
                lo: 0,
                hi: usize::MAX,
            };
            decode_list_blocks(
                codec,
                &e.bytes[(e.byte_offsets[v as usize] as usize).min(e.bytes.len())..],
                span,
                |ids| {
                    assert!(ids.iter().all(|&w| w < n));
                    in_blocks += ids.len();
                    true
                },
            );
            prop_assert!(in_blocks <= view.degree(v));
            // The list's codes as recorded, read ahead into the lists after it.
            let (from, to) = (e.byte_offsets[v as usize], e.byte_offsets[v as usize + 1]);
            let from = (from as usize).min(e.bytes.len());
            let end = (to as usize).saturating_sub(from);
            let mut ahead = 0;
            decode_list_blocks_in(codec, &e.bytes[from..], end, span, |ids| {
                assert!(ids.iter().all(|&w| w < n));
                ahead += ids.len();
                true
            });
            prop_assert!(ahead <= view.degree(v));
            view.for_each_block_in(v, 3, 150, |ids| { assert!(ids.iter().all(|&w| w < n)); true });
            match view.validate_vertex(v) {
                Ok(()) => {
                    prop_assert_eq!(decoded.len(), view.degree(v));
                    prop_assert!(decoded.windows(2).all(|p| p[0] < p[1]));
                }
                Err(CodecError::Corrupt { vertex, .. }) => prop_assert_eq!(vertex, v as u64),
                Err(other) => prop_assert!(false, "unexpected error {other}"),
            }
        }
    }
}

#[test]
fn ids_at_both_ends_of_the_u32_range_and_self_loops_round_trip() {
    let n = u32::MAX as u64;
    let top = u32::MAX - 1;
    let cases: Vec<(u32, Vec<u32>)> = vec![
        (0, vec![0, 1, top - 1, top]),
        (top, vec![0, top]),
        (top, (top - 200..=top).collect()),
        (7, (0..300).map(|i| i * 14_000_000).collect()),
        (3, vec![3]),
    ];
    for ((source, list), codec) in cases
        .iter()
        .flat_map(|case| ListCodec::ALL.map(|codec| (case.clone(), codec)))
    {
        let mut data = Vec::new();
        encode_list(codec, source, &list, &mut data).unwrap();
        assert_eq!(validate_list(codec, &data, source, list.len(), n), Ok(()));
        assert_eq!(
            decode(codec, &data, source, list.len(), n, 0, usize::MAX),
            list
        );
        assert_eq!(
            decode(
                codec,
                &data,
                source,
                list.len(),
                n,
                list.len() - 1,
                usize::MAX
            ),
            vec![*list.last().unwrap()]
        );
    }
}

#[test]
fn a_dense_list_takes_about_a_byte_per_neighbour_or_two_bits_in_stream_vbyte() {
    let lists = vec![vec![0, 1, 2], (0..1000).collect::<Vec<u32>>()];
    let mut padded = lists.clone();
    padded.resize(1000, Vec::new());
    // 16 blocks and a 60-byte index. Each block k >= 2 restarts from the source: its first
    // neighbour 64k lies 64k-1 away, zig-zagged to 128k-2 >= 128, a two-byte code; blocks 0
    // and 1 start with one byte. Varints: one byte per later neighbour. Stream VByte: gaps of
    // zero take no data byte, only two bits of a control byte (16 per full block, 10 for the
    // last block's 39 gaps).
    for (codec, bytes) in [
        (ListCodec::Varint, 60 + 1000 + 14),
        (ListCodec::StreamVByte, 60 + (2 + 2 * 14) + (15 * 16 + 10)),
    ] {
        let e = Encoded::new(codec, &padded);
        assert_eq!(e.byte_offsets[2] - e.byte_offsets[1], bytes, "{codec:?}");
        let view = e.view();
        let mut out = Vec::new();
        view.decode_into(1, &mut out);
        assert_eq!(out, lists[1]);
    }
}

#[test]
fn unsorted_lists_and_inconsistent_layouts_are_refused() {
    for codec in ListCodec::ALL {
        refused_by(codec);
    }
}

fn refused_by(codec: ListCodec) {
    let mut out = Vec::new();
    assert!(matches!(
        encode_list(codec, 3, &[5, 5], &mut out),
        Err(CodecError::Unencodable { .. })
    ));
    // Out of order across a block boundary only.
    let mut across: Vec<u32> = (100..164).collect();
    across.push(10);
    assert!(encode_list(codec, 3, &across, &mut out).is_err());
    assert!(encode_block(codec, 3, &[], &mut out).is_err());
    assert!(ByteCodeLists::new(codec, &[], &[], &[]).is_err());
    assert!(ByteCodeLists::new(codec, &[0, 0], &[0], &[]).is_err());
    assert!(ByteCodeLists::new(codec, &[0, 1], &[0, 2], &[0]).is_err());
    assert!(ByteCodeLists::new(codec, &[0, 1], &[1, 1], &[0]).is_err());
}

#[test]
fn validation_names_what_is_wrong() {
    for codec in ListCodec::ALL {
        names_what_is_wrong(codec);
    }
}

fn names_what_is_wrong(codec: ListCodec) {
    let list: Vec<u32> = (0..130).collect();
    let mut data = Vec::new();
    encode_list(codec, 0, &list, &mut data).unwrap();
    let n = 200;
    // One byte too many, one too few, a wrong degree, a bad block index entry.
    let mut longer = data.clone();
    longer.push(0);
    assert!(validate_list(codec, &longer, 0, 130, n)
        .unwrap_err()
        .contains("left over"));
    assert!(validate_list(codec, &data[..data.len() - 1], 0, 130, n)
        .unwrap_err()
        .contains("truncated"));
    assert!(validate_list(codec, &data, 0, 129, n).is_err());
    let mut bad_index = data.clone();
    bad_index[0] ^= 1;
    assert!(validate_list(codec, &bad_index, 0, 130, n)
        .unwrap_err()
        .contains("the index puts block 1"));
    assert!(validate_list(codec, &[1], 0, 0, n)
        .unwrap_err()
        .contains("degree 0"));
    // An overlong code: six continuation bytes; a frame-of-reference block has no varints,
    // and no block header is 0xff.
    let expected = match codec {
        ListCodec::FrameOfReference => "codes no block",
        // Bit codes: the first bits decode to a block of one id, and the rest is left over.
        ListCodec::Zeta => "left over",
        _ => "overlong",
    };
    assert!(validate_list(codec, &[0xff; 6], 0, 1, n)
        .unwrap_err()
        .contains(expected));
}

/// Σ values[u] over `list` as the raw view sums it: four lanes by position mod 4, each in list
/// order, then (l0 + l1) + (l2 + l3).
fn lane_sum(list: &[u32], values: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 4];
    for (position, &u) in list.iter().enumerate() {
        lanes[position % 4] += values[u as usize];
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3])
}

/// A value per vertex (any sign, so that a lane that wrongly took an unused lane's value or
/// lost one would show), then the 0.0 `sum_lists` wants after them, then `zeros` more.
fn padded_values_for(n: usize, seed: u64, zeros: usize) -> Vec<f64> {
    let mut values = values_for(n, seed);
    values.resize(values.len() + zeros, 0.0);
    values
}

/// [`padded_values_for`] with no zeros after the 0.0.
fn values_for(n: usize, seed: u64) -> Vec<f64> {
    let mut values: Vec<f64> = (0..n as u64)
        .map(|v| {
            let x = (v ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 11;
            x as f64 / (1u64 << 53) as f64 - 0.25
        })
        .collect();
    values.push(0.0);
    values
}

/// `sum_lists` from `start` on: the vertices it handed over and their sums, and where it
/// stopped.
fn sums_from(
    view: &ByteCodeLists<'_>,
    vertices: std::ops::Range<u32>,
    values: &[f64],
) -> (Vec<(u32, f64)>, u32) {
    let mut sums = Vec::new();
    let stop = view.sum_lists(vertices, values, |v, sum| sums.push((v, sum)));
    (sums, stop)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The summing decoder gives, bit for bit, the lane sums of the decoded lists, for every
    /// vertex it hands over, in order; it hands over every list but those too close to the end
    /// of the codes for its unchecked reads (with frame-of-reference codes, and with Stream
    /// VByte on x86-64 with AVX2 and BMI2; elsewhere it hands over none and the caller visits
    /// them all). Zeros after the values' 0.0, which the frame-of-reference decoder uses to
    /// mask offsets instead of clamping ids, change no sum.
    #[test]
    fn summed_lists_are_the_lane_sums_of_the_decoded_lists(
        codec in codec(),
        lists in (200u64..=700).prop_flat_map(|n| vec(list_below(n), n as usize)),
        seed in any::<u64>(),
        cut in any::<(Index, Index)>(),
        zeros in prop_oneof![Just(0usize), 0usize..2048],
    ) {
        let n = lists.len();
        let e = Encoded::new(codec, &lists);
        let view = e.view();
        let values = padded_values_for(n, seed, zeros);
        let (a, b) = (cut.0.index(n + 1) as u32, cut.1.index(n + 1) as u32);
        let range = a.min(b)..a.max(b);
        let (sums, stop) = sums_from(&view, range.clone(), &values);
        prop_assert!(range.start <= stop && stop <= range.end);
        let expected: Vec<(u32, f64)> = (range.start..stop)
            .map(|v| (v, lane_sum(&lists[v as usize], &values)))
            .collect();
        let bits = |s: &[(u32, f64)]| s.iter().map(|&(v, x)| (v, x.to_bits())).collect::<Vec<_>>();
        prop_assert_eq!(bits(&sums), bits(&expected));
        let fused = cfg!(target_arch = "x86_64")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi2");
        if codec == ListCodec::FrameOfReference {
            // Only lists ending within 8 bytes of the end are left over.
            let left_over_early = stop < range.end
                && e.byte_offsets[stop as usize + 1] as usize + 8 <= e.bytes.len();
            prop_assert!(!left_over_early, "stopped at {} of {:?} with room to go on", stop, range);
        } else if codec == ListCodec::StreamVByte && fused {
            // Only lists starting within a block's reach of the end are left over.
            let reach = 5 + 16 + 16 * 16;
            let left_over_early = stop < range.end
                && e.byte_offsets[stop as usize] as usize + reach <= e.bytes.len();
            prop_assert!(!left_over_early, "stopped at {} of {:?} with room to go on", stop, range);
        } else {
            prop_assert_eq!(stop, range.start);
        }
    }

    /// Corrupt codes or byte offsets, through the fast decoders (long graphs, so that lists
    /// lie far enough from the end of the codes): walks hand over only ids below n, at most a
    /// list's degree, and a list that validates whole; the summing decoder never panics, hands
    /// over vertices in order, and every list it hands over that validation accepts has its
    /// true lane sum.
    #[test]
    fn fast_decoders_on_corrupt_codes_never_crash(
        codec in prop_oneof![Just(ListCodec::StreamVByte), Just(ListCodec::FrameOfReference)],
        lists in (200u64..=500).prop_flat_map(|n| vec(list_below(n), n as usize)),
        edits in vec((any::<Index>(), any::<u8>()), 1..6),
        moved_offset in any::<Option<(Index, u64)>>(),
        zeros in prop_oneof![Just(0usize), Just(512usize)],
    ) {
        let mut e = Encoded::new(codec, &lists);
        if e.bytes.is_empty() {
            return Ok(());
        }
        for (at, flip) in &edits {
            let i = at.index(e.bytes.len());
            e.bytes[i] ^= flip | 1;
        }
        if let Some((at, value)) = moved_offset {
            let i = at.index(e.byte_offsets.len());
            e.byte_offsets[i] = value % (e.bytes.len() as u64 + 3);
        }
        let Ok(view) = ByteCodeLists::new(codec, &e.offsets, &e.byte_offsets, &e.bytes) else {
            return Ok(());
        };
        let n = lists.len();
        // Walks, one list at a time and a word at a time: only ids below n, at most the
        // degree, and a list that validates is walked whole.
        for v in 0..n as u32 {
            let mut walked = Vec::new();
            view.for_each_in(v, 0, usize::MAX, |u| { walked.push(u); true });
            prop_assert!(walked.len() <= view.degree(v));
            prop_assert!(walked.iter().all(|&u| (u as usize) < n));
            if view.validate_vertex(v).is_ok() {
                prop_assert_eq!(&walked, &blocks_of(&view, v));
            }
        }
        for base in (0..n).step_by(64) {
            let word = if n - base < 64 { (1u64 << (n - base)) - 1 } else { u64::MAX };
            let mut counts = vec![0usize; 64];
            let offered = view.walk_word_from(base as u32, word, 1, |v, u| {
                assert!((u as usize) < n);
                counts[v as usize - base] += 1;
                true
            });
            prop_assert_eq!(offered, counts.iter().sum::<usize>() as u64);
            for (bit, &count) in counts.iter().enumerate().take(n - base) {
                prop_assert!(count <= view.degree((base + bit) as u32).saturating_sub(1));
            }
            // Searched for a bitmap's members: only ids below n whose bit is set, at most one
            // a list, and a list that validates gives its first member.
            let bitmap = bitmap_for(n, base as u64, 8);
            let mut found = vec![None; 64];
            view.find_word_in_bitmap(base as u32, word, 1, &bitmap, |v, u| {
                assert!((u as usize) < n && is_set(&bitmap, u));
                assert!(found[v as usize - base].replace(u).is_none());
            });
            for (bit, &u) in found.iter().enumerate().take(n - base) {
                let v = (base + bit) as u32;
                if view.validate_vertex(v).is_ok() {
                    let want = blocks_of(&view, v).into_iter().skip(1).find(|&u| is_set(&bitmap, u));
                    prop_assert_eq!(u, want, "vertex {}", v);
                }
            }
        }
        let values = padded_values_for(n, 7, zeros);
        let (sums, stop) = sums_from(&view, 0..n as u32, &values);
        prop_assert_eq!(sums.iter().map(|&(v, _)| v).collect::<Vec<_>>(), (0..stop).collect::<Vec<_>>());
        for &(v, sum) in &sums {
            if view.validate_vertex(v).is_ok() {
                let mut list = Vec::new();
                view.decode_into(v, &mut list);
                prop_assert_eq!(sum.to_bits(), lane_sum(&list, &values).to_bits(), "vertex {}", v);
            }
        }
    }
}

/// A bitmap of `n` bits in as few u64 words as hold them (so that a read past the last vertex's
/// word would go out of bounds), each bit set with probability density / 64.
fn bitmap_for(n: usize, seed: u64, density: u32) -> Vec<AtomicU64> {
    (0..n.div_ceil(64))
        .map(|w| {
            let bits = (0..64).fold(0u64, |bits, b| {
                let x = ((w * 64 + b) as u64 ^ seed).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58;
                if (x as u32) < density && w * 64 + b < n {
                    bits | 1 << b
                } else {
                    bits
                }
            });
            AtomicU64::new(bits)
        })
        .collect()
}

fn is_set(bitmap: &[AtomicU64], u: u32) -> bool {
    bitmap[u as usize / 64].load(Relaxed) >> (u % 64) & 1 == 1
}

/// v's list through the general decoder (a block at a time), the reference for the walks.
fn blocks_of(view: &ByteCodeLists<'_>, v: u32) -> Vec<u32> {
    let mut list = Vec::new();
    view.for_each_block_in(v, 0, usize::MAX, |ids| {
        list.extend_from_slice(ids);
        true
    });
    list
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A walk from the first or second neighbour (the fast decoder, where a list lies far
    /// enough from the end of the codes), one list at a time and a word of lists at a time,
    /// hands over the list in order and stops where asked.
    #[test]
    fn walks_from_the_first_or_second_neighbour_hand_over_the_list(
        codec in codec(),
        lists in (200u64..=700).prop_flat_map(|n| vec(list_below(n), n as usize)),
        stop_at in any::<Index>(),
        (seed, density) in (any::<u64>(), 0u32..=64),
    ) {
        let e = Encoded::new(codec, &lists);
        let view = e.view();
        let bitmap = bitmap_for(lists.len(), seed, density);
        for from in [0usize, 1] {
            for (v, list) in lists.iter().enumerate() {
                let v = v as u32;
                let want = list.get(from..).unwrap_or(&[]);
                let mut walked = Vec::new();
                let finished = view.for_each_in(v, from, usize::MAX, |u| { walked.push(u); true });
                prop_assert!(finished);
                prop_assert_eq!(&walked[..], want, "vertex {} from {}", v, from);
                // Stopped after `keep` neighbours.
                let keep = 1 + stop_at.index(want.len().max(1));
                let mut kept = Vec::new();
                let finished = view.for_each_in(v, from, usize::MAX, |u| { kept.push(u); kept.len() < keep });
                prop_assert_eq!(finished, keep > want.len());
                prop_assert_eq!(&kept[..], &want[..keep.min(want.len())]);
            }
            for base in (0..lists.len()).step_by(64) {
                let word = stop_at.index(usize::MAX) as u64 ^ 0x5555_5555_5555_5555;
                let word = if lists.len() - base < 64 { word & ((1u64 << (lists.len() - base)) - 1) } else { word };
                let mut walked: Vec<(u32, u32)> = Vec::new();
                let offered = view.walk_word_from(base as u32, word, from, |v, u| {
                    walked.push((v, u));
                    // Stops each list after its third neighbour.
                    walked.iter().filter(|&&(w, _)| w == v).count() < 3
                });
                prop_assert_eq!(offered, walked.len() as u64);
                let want: Vec<(u32, u32)> = (0..64)
                    .filter(|bit| word >> bit & 1 == 1)
                    .flat_map(|bit| {
                        let v = base + bit;
                        lists[v].iter().skip(from).take(3).map(move |&u| (v as u32, u))
                    })
                    .collect();
                prop_assert_eq!(walked, want, "word at {} from {}", base, from);
                // The first neighbour in the bitmap, and how many were looked at to find it.
                let mut found = Vec::new();
                let looked_at = view.find_word_in_bitmap(base as u32, word, from, &bitmap, |v, u| found.push((v, u)));
                let (mut want_found, mut want_looked_at) = (Vec::new(), 0);
                for bit in (0..64).filter(|bit| word >> bit & 1 == 1) {
                    let v = base + bit;
                    let rest = lists[v].get(from..).unwrap_or(&[]);
                    match rest.iter().position(|&u| is_set(&bitmap, u)) {
                        Some(i) => {
                            want_found.push((v as u32, rest[i]));
                            want_looked_at += i as u64 + 1;
                        }
                        None => want_looked_at += rest.len() as u64,
                    }
                }
                prop_assert_eq!(found, want_found, "word at {} from {}", base, from);
                prop_assert_eq!(looked_at, want_looked_at);
            }
        }
    }
}

#[test]
#[should_panic(expected = "then 0.0")]
fn summing_wants_a_zero_after_the_values() {
    let lists = vec![vec![1u32], vec![0]];
    let e = Encoded::new(ListCodec::StreamVByte, &lists);
    e.view().sum_lists(0..2, &[1.0, 2.0], |_, _| {});
}
