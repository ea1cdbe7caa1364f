//! Compressed stores: `compress_store` writes a byte-coded copy of a raw store (`vastgraph
//! compress`); `compress_staged` turns the raw lists a build has just staged into codes
//! (`convert --compress`). Both validate the result by opening it before it is moved into place.

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use crate::builder::write_manifest;
use crate::byte_code_writer::{
    write_byte_code, ByteCodeFileNames, CodedSoFar, RawLists, IN_CODES, OUT_CODES,
};
use crate::cancel::check_cancel;
use crate::error::gb;
use crate::fsutil::available_bytes;
use crate::hashed_file::HashedFileWriter;
use crate::manifest::{files, Codec, FileEntry, Manifest, OffsetsCode};
use crate::offsets_file::recode_staged_offsets;
use crate::progress::Progress;
use crate::reader::MappedArray;
use crate::staging::{
    check_replaceable, commit, refuse_inside, split_target, through_link, TempDir,
};
use crate::target_lock::TargetLock;
use crate::{Store, StoreError, MIN_MEMORY_BYTES};

const COPY_BUFFER_BYTES: usize = 4 << 20;

#[derive(Clone, Debug)]
pub struct CompressOptions {
    /// The codec to write; not `Codec::Raw`.
    pub codec: Codec,
    /// Write instead the one [`pick_codec`] picks from the source's lists (what `compress`
    /// without `--codec` does).
    pub pick_codec: bool,
    /// Budget for the encoding buffers, in bytes.
    pub memory_bytes: u64,
    /// Replace an existing store at the target.
    pub overwrite: bool,
    /// Where the phases (compressing each direction's lists, copying, checking) are reported.
    pub progress: Progress,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            codec: Codec::COMPRESSED_DEFAULT,
            pick_codec: false,
            memory_bytes: 1 << 30,
            overwrite: false,
            progress: Progress::default(),
        }
    }
}

/// Writes a compressed copy (`opts.codec`, or the one `opts.pick_codec` picks) of the raw store at `source` to `target`: the
/// neighbour lists (and the transpose's) byte-coded, every other file copied and checked
/// against the source manifest's checksums, but the list heads only where they stay short
/// beside the codes (`keeps_list_heads`). The copy is staged next to the target, validated
/// by opening it, and renamed into place.
pub fn compress_store(
    source: &Path,
    target: &Path,
    opts: &CompressOptions,
) -> Result<Manifest, StoreError> {
    let started = Instant::now();
    if opts.memory_bytes < MIN_MEMORY_BYTES {
        return Err(StoreError::MemoryBudgetTooSmall {
            given: opts.memory_bytes,
            minimum: MIN_MEMORY_BYTES,
        });
    }
    compressed_list_codec(opts.codec)?;
    let store = Store::open(source)?;
    if store.codec() != Codec::Raw {
        return Err(StoreError::invalid_input(format!(
            "{} is already compressed (codec {}); a store is compressed from its raw lists: \
             compress the raw store it came from, or convert its export (`vastgraph export \
             --format parquet`) with --codec",
            source.display(),
            store.codec().name()
        )));
    }
    let codec = match opts.pick_codec {
        true => pick_codec(store.offsets(), store.neighbors()),
        false => opts.codec,
    };
    let target = &through_link(target);
    let (parent, name) = split_target(target)?;
    if let (Ok(a), Ok(b)) = (source.canonicalize(), target.canonicalize()) {
        if a == b {
            return Err(StoreError::invalid_input(format!(
                "{}: a store cannot be compressed onto itself; give another output path",
                target.display()
            )));
        }
    }
    refuse_inside(source, target)?;
    let _lock = TargetLock::acquire(target)?;
    check_replaceable(target, opts.overwrite)?;
    let need = CompressNeed::of(store.manifest());
    let free_at_start = available_bytes(&parent).ok();
    let coded = CodedSoFar::default();
    let staging = TempDir::create_in(&parent, &name, "tmp")?;
    let manifest = write_compressed(source, store, codec, &staging, opts, &coded, started)
        .map_err(|e| need.explain(e, &coded, free_at_start))?;
    check_cancel()?;
    commit(staging, target, opts.overwrite)?;
    Ok(manifest)
}

/// The compressed copy of `store`'s files (lists coded with `codec`'s list codec, the rest
/// copied and checked), with its manifest, staged in `staging` and opened once to check it.
fn write_compressed(
    source: &Path,
    store: Store,
    codec: Codec,
    staging: &TempDir,
    opts: &CompressOptions,
    coded: &CodedSoFar,
    started: Instant,
) -> Result<Manifest, StoreError> {
    let list_codec = compressed_list_codec(codec)?;
    let mut entries = Vec::with_capacity(store.manifest().files.len() + 2);
    // Copied, or not, once the size of the codes is known.
    let mut list_heads = None;
    for entry in &store.manifest().files {
        check_cancel()?;
        let codes = |names, offsets, neighbors| {
            let from = source.join(&entry.name);
            write_byte_code(
                list_codec,
                staging.path(),
                names,
                RawLists { offsets, neighbors },
                opts.memory_bytes,
                &from,
                &opts.progress,
                coded,
            )
        };
        match entry.name.as_str() {
            files::NEIGHBORS => {
                entries.extend(codes(&OUT_CODES, store.offsets(), store.neighbors())?)
            }
            files::IN_NEIGHBORS => entries.extend(codes(
                &IN_CODES,
                store.in_offsets().unwrap_or(&[0]),
                store.in_neighbors().unwrap_or(&[]),
            )?),
            files::LIST_HEADS => list_heads = Some(entry),
            _ => {
                opts.progress
                    .phase(&format!("copying {}", entry.name), None);
                entries.push(copy_checked(source, staging.path(), entry)?)
            }
        }
    }
    if let Some(heads) = list_heads.filter(|heads| keeps_list_heads(heads.bytes, &entries)) {
        entries.push(copy_checked(source, staging.path(), heads)?);
    }
    opts.progress.phase("coding the offsets", None);
    recode_staged_offsets(staging.path(), &mut entries)?;
    let mut manifest = store.manifest().clone();
    let provenance = &mut manifest.provenance;
    provenance.options = serde_json::json!({
        "compressed_from": source.display().to_string(),
        "memory": opts.memory_bytes,
        "source_command": provenance.command,
        "source_options": provenance.options,
    });
    provenance.command = "compress".into();
    provenance.created_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    provenance.build_seconds = started.elapsed().as_secs_f64();
    manifest.codec = codec;
    manifest.offsets_code = OffsetsCode::written_with(codec);
    manifest.files = entries;
    drop(store);
    write_manifest(staging.path(), &manifest)?;
    // Decode every list once before the store appears (the encoder's own output).
    opts.progress.phase("checking the compressed lists", None);
    Store::open(staging.path())?;
    Ok(manifest)
}

/// What a compressed copy of a raw store takes on disk, for a full disk's message. Only the
/// codes' size is unknown before they are written; it is estimated at the rate of the arcs
/// coded when the disk filled.
struct CompressNeed {
    /// Arcs of the lists, in both directions.
    arcs: u64,
    /// The byte offsets of the codes staged beside them (8 bytes a vertex and direction), and
    /// every file copied as it is but the list heads.
    other_bytes: u64,
    /// The list heads, copied only where they stay short beside the codes.
    heads_bytes: u64,
}

impl CompressNeed {
    fn of(manifest: &Manifest) -> CompressNeed {
        let lists = [files::NEIGHBORS, files::IN_NEIGHBORS];
        let (mut arcs, mut other_bytes, mut heads_bytes) = (0, 0, 0);
        for entry in &manifest.files {
            match entry.name.as_str() {
                name if lists.contains(&name) => {
                    arcs += entry.bytes / 4;
                    other_bytes += 8 * (manifest.vertices + 1);
                }
                files::LIST_HEADS => heads_bytes = entry.bytes,
                _ => other_bytes += entry.bytes,
            }
        }
        CompressNeed {
            arcs,
            other_bytes,
            heads_bytes,
        }
    }

    fn explain(
        &self,
        error: StoreError,
        coded: &CodedSoFar,
        free_at_start: Option<u64>,
    ) -> StoreError {
        let StoreError::DiskFull { path, .. } = error else {
            return error;
        };
        // Before any code is written, the raw lists' 4 bytes an arc: codes are rarely longer.
        let (bytes_per_arc, rate) = match coded.bytes_per_arc() {
            Some(rate) => (
                rate,
                format!(
                    "{rate:.2} bytes an arc, the rate of the {} arcs coded",
                    coded.arcs()
                ),
            ),
            None => (
                4.0,
                "4 bytes an arc, as the raw lists: no code was written".to_string(),
            ),
        };
        let codes = (bytes_per_arc * self.arcs as f64) as u64;
        // The out-lists' codes are most of `codes`; `keeps_list_heads` compares with those.
        let heads = match self.heads_bytes <= codes / 2 {
            true => self.heads_bytes,
            false => 0,
        };
        let need = self.other_bytes + codes + heads;
        let free = match free_at_start {
            Some(free) => {
                let short = match need.checked_sub(free) {
                    Some(more) if more > 0 => format!(", about {} more than it had", gb(more)),
                    _ => String::new(),
                };
                format!(
                    ", and that disk had {} free when it started{short}",
                    gb(free)
                )
            }
            None => String::new(),
        };
        let context = format!(
            ": this compression needs about {} of disk (its codes at {rate}){free}; its partial \
             files are removed",
            gb(need),
        );
        StoreError::DiskFull { path, context }
    }
}

/// How `codec`'s lists are coded; an error for `Codec::Raw`, which is no compression.
fn compressed_list_codec(codec: Codec) -> Result<vastgraph_codec::ListCodec, StoreError> {
    codec.list_codec().ok_or_else(|| {
        StoreError::invalid_input(format!(
            "codec {} is not a compressed codec; choose {}",
            codec.name(),
            Codec::compressed_names()
        ))
    })
}

/// Whether a compressed store keeps the list heads (`files::LIST_HEADS`, raw ids that the
/// out-of-core pulls read in place of lists) of `heads_bytes`, given its other files
/// (`entries`): only when they take at most half the bytes of the out-lists' codes. Past that a
/// head is about as long as the codes of the list it stands in for, and the heads cost more
/// reads than they spare. Out of core (`--memory 64MiB`), BFS read 16% fewer bytes on
/// cnr-2000 (heads 1.8 times its codes) and 4% fewer on ego-Twitter (0.61 times) without them,
/// and on Kronecker 22 (0.15 times) 6.8 times fewer with them (47 MB against 320 MB, `--memory
/// 256MiB`). On cnr-2000 they also made the compressed store half the raw store's size, against
/// 0.31 of it without.
fn keeps_list_heads(heads_bytes: u64, entries: &[FileEntry]) -> bool {
    let codes = entries.iter().find(|e| e.name == OUT_CODES.codes);
    codes.is_some_and(|codes| heads_bytes <= codes.bytes / 2)
}

/// Copies `dir/entry.name` from the source store into `into`, failing if its checksum is not
/// the one the source manifest records.
fn copy_checked(dir: &Path, into: &Path, entry: &FileEntry) -> Result<FileEntry, StoreError> {
    let path = dir.join(&entry.name);
    let mut file = File::open(&path).map_err(|e| StoreError::io(&path, e))?;
    let mut out = HashedFileWriter::create(into, &entry.name)?;
    let mut buffer = vec![0u8; COPY_BUFFER_BYTES];
    loop {
        let read = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(StoreError::io(&path, e)),
        };
        out.write_bytes(&buffer[..read])?;
    }
    let copied = out.finish()?;
    if copied.xxh3 != entry.xxh3 || copied.bytes != entry.bytes {
        return Err(StoreError::ChecksumMismatch {
            path,
            expected: entry.xxh3.clone(),
            actual: copied.xxh3,
        });
    }
    Ok(copied)
}

/// About this many arcs of evenly spaced lists are encoded to pick a codec.
const SAMPLE_ARCS: u64 = 1 << 20;

/// Below this many arcs [`pick_codec`] keeps the default.
const MIN_PICK_ARCS: u64 = 4096;

/// The codec written when compression is asked for and no codec is named: `zeta64` when its
/// codes of a sample of the lists (evenly spaced, about [`SAMPLE_ARCS`] arcs) take at most a
/// third of `for64`'s: a web graph, whose lists hold runs of consecutive ids and small gaps
/// (0.28 on cnr-2000, against 0.45 on ego-Twitter and 0.76 on Kronecker graphs); else
/// `for64`, the fastest to traverse in memory, which a graph of fewer than
/// [`MIN_PICK_ARCS`] arcs also gets.
pub fn pick_codec(offsets: &[u64], neighbors: &[u32]) -> Codec {
    let n = offsets.len().saturating_sub(1);
    let arcs = neighbors.len() as u64;
    let stride = (arcs / SAMPLE_ARCS).max(1) as usize;
    let bytes = |codec: vastgraph_codec::ListCodec| -> u64 {
        (0..n)
            .step_by(stride)
            .map(|v| {
                let list = &neighbors[offsets[v] as usize..offsets[v + 1] as usize];
                vastgraph_codec::encoded_len(codec, v as u32, list).unwrap_or(u64::MAX / 4)
            })
            .sum()
    };
    let zeta = bytes(vastgraph_codec::ListCodec::Zeta);
    let frame = bytes(vastgraph_codec::ListCodec::FrameOfReference);
    // A graph smaller than a few blocks gains nothing measurable: the default.
    match arcs >= MIN_PICK_ARCS && 3 * zeta <= frame {
        true => Codec::Zeta64,
        false => Codec::COMPRESSED_DEFAULT,
    }
}

/// [`pick_codec`] on the out-lists a build has staged in `dir` (listed in `entries`).
pub(crate) fn pick_staged_codec(dir: &Path, entries: &[FileEntry]) -> Result<Codec, StoreError> {
    let bytes_of = |name: &str| {
        entries
            .iter()
            .find(|e| e.name == name)
            .map_or(0, |e| e.bytes)
    };
    let offsets = MappedArray::<u64>::open(&dir.join(files::OFFSETS), bytes_of(files::OFFSETS))?;
    let neighbors =
        MappedArray::<u32>::open(&dir.join(files::NEIGHBORS), bytes_of(files::NEIGHBORS))?;
    Ok(pick_codec(offsets.values(), neighbors.values()))
}

/// Replaces the raw neighbour files a build has staged in `dir` (listed in `entries`) by
/// their codes, and the plain offsets by their Elias–Fano form, in place in `entries`.
/// Afterwards the staged store must be given `codec` and `OffsetsCode::EliasFano` in its
/// manifest.
pub(crate) fn compress_staged(
    codec: Codec,
    dir: &Path,
    entries: &mut Vec<FileEntry>,
    memory_bytes: u64,
    progress: &Progress,
) -> Result<(), StoreError> {
    let list_codec = compressed_list_codec(codec)?;
    let directions: [(&str, &str, &ByteCodeFileNames); 2] = [
        (files::OFFSETS, files::NEIGHBORS, &OUT_CODES),
        (files::IN_OFFSETS, files::IN_NEIGHBORS, &IN_CODES),
    ];
    for (offsets_name, neighbors_name, names) in directions {
        let Some(at) = entries.iter().position(|e| e.name == neighbors_name) else {
            continue;
        };
        check_cancel()?;
        let bytes_of = |name: &str| {
            entries
                .iter()
                .find(|e| e.name == name)
                .map_or(0, |e| e.bytes)
        };
        let neighbors_path = dir.join(neighbors_name);
        let codes = {
            let offsets =
                MappedArray::<u64>::open(&dir.join(offsets_name), bytes_of(offsets_name))?;
            let neighbors = MappedArray::<u32>::open(&neighbors_path, bytes_of(neighbors_name))?;
            write_byte_code(
                list_codec,
                dir,
                names,
                RawLists {
                    offsets: offsets.values(),
                    neighbors: neighbors.values(),
                },
                memory_bytes,
                &neighbors_path,
                progress,
                &CodedSoFar::default(),
            )?
        };
        let ids = entries
            .splice(at..=at, codes)
            .next()
            .expect("one entry replaced");
        remove_staged(dir, &ids)?;
    }
    // The build wrote the list heads before it knew the codes' size.
    if let Some(at) = entries.iter().position(|e| e.name == files::LIST_HEADS) {
        if !keeps_list_heads(entries[at].bytes, entries) {
            remove_staged(dir, &entries.remove(at))?;
        }
    }
    progress.phase("coding the offsets", None);
    recode_staged_offsets(dir, entries)
}

/// Deletes a staged file that leaves the store, with its page checksums.
pub(crate) fn remove_staged(dir: &Path, entry: &FileEntry) -> Result<(), StoreError> {
    let page_sums = entry.page_sums.as_ref().map(|p| &p.name);
    for name in std::iter::once(&entry.name).chain(page_sums) {
        let path = dir.join(name);
        std::fs::remove_file(&path).map_err(|e| StoreError::write(&path, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CSR offsets and ids of `lists`.
    fn csr(lists: &[Vec<u32>]) -> (Vec<u64>, Vec<u32>) {
        let mut offsets = vec![0u64];
        let mut ids = Vec::new();
        for list in lists {
            ids.extend_from_slice(list);
            offsets.push(ids.len() as u64);
        }
        (offsets, ids)
    }

    #[test]
    fn runs_of_consecutive_ids_pick_zeta_and_scattered_ids_pick_frame_of_reference() {
        let n = 20_000u32;
        // A web graph's shape: each page links to a run of its neighbours and a few pages near it.
        let runs: Vec<Vec<u32>> = (0..n)
            .map(|v| {
                let start = v.saturating_sub(10);
                let mut list: Vec<u32> = (start..(start + 24).min(n)).filter(|&u| u != v).collect();
                list.extend(
                    [v / 2 + n / 2, v / 3 + 2 * n / 3]
                        .iter()
                        .filter(|&&u| u < n && u > start + 24),
                );
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        let (offsets, ids) = csr(&runs);
        assert_eq!(pick_codec(&offsets, &ids), Codec::Zeta64);

        // Ids spread over the whole range, as a Kronecker or social graph's are.
        let mut rng = crate::synthetic::SplitMix64::new(3);
        let scattered: Vec<Vec<u32>> = (0..n)
            .map(|_| {
                let mut list: Vec<u32> = (0..16).map(|_| rng.below(n as u64)).collect();
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        let (offsets, ids) = csr(&scattered);
        assert_eq!(pick_codec(&offsets, &ids), Codec::FrameOfReference64);

        // Runs, but too few arcs to matter, and no arcs at all: the default.
        let (offsets, ids) = csr(&runs[..100]);
        assert_eq!(pick_codec(&offsets, &ids), Codec::FrameOfReference64);
        let (offsets, ids) = csr(&vec![Vec::new(); 5]);
        assert_eq!(pick_codec(&offsets, &ids), Codec::FrameOfReference64);
    }
}
