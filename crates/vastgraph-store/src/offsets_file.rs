//! A store's offsets files, plain or Elias–Fano ([`OffsetsCode`]), read as one sequence of u64s
//! whatever their form, and the Elias–Fano files written from the plain ones a build staged.
//!
//! The plain form is mapped and used in place by the in-memory store; the Elias–Fano form takes
//! `2 + ⌈log₂(last / (n+1))⌉` bits a vertex on disk and is decoded when opened, into the n+1
//! words a traversal indexes (Sage's O(n) words of DRAM). Either way a reader sees the values
//! checked as they were read: page checksums for the plain form, the encoding's own structure
//! for Elias–Fano (its values never decrease and end at the expected last one).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use vastgraph_codec::elias_fano::{elias_fano_bytes, EliasFanoReader, EliasFanoWriter};

use crate::hashed_file::HashedFileWriter;
use crate::manifest::{files, FileEntry, Manifest, OffsetsCode};
use crate::page_sums::{PageSums, PAGE_BYTES};
use crate::reader::MappedArray;
use crate::StoreError;

/// Which of a store's offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OffsetsOf {
    /// Each vertex's first out-arc.
    Arcs,
    /// Each vertex's first in-arc (a stored transpose).
    InArcs,
    /// Each vertex's first byte of out-list codes (a compressed store).
    Codes,
    /// Each vertex's first byte of in-list codes.
    InCodes,
}

impl OffsetsOf {
    pub const ALL: [OffsetsOf; 4] = [
        OffsetsOf::Arcs,
        OffsetsOf::InArcs,
        OffsetsOf::Codes,
        OffsetsOf::InCodes,
    ];

    /// The file's name in each form.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            OffsetsOf::Arcs => (files::OFFSETS, files::OFFSETS_EF),
            OffsetsOf::InArcs => (files::IN_OFFSETS, files::IN_OFFSETS_EF),
            OffsetsOf::Codes => (files::BYTE_OFFSETS, files::BYTE_OFFSETS_EF),
            OffsetsOf::InCodes => (files::IN_BYTE_OFFSETS, files::IN_BYTE_OFFSETS_EF),
        }
    }

    /// The name of the file that holds these offsets in a store written with `code`.
    pub fn file_name(self, code: OffsetsCode) -> &'static str {
        match code {
            OffsetsCode::Plain => self.names().0,
            OffsetsCode::EliasFano => self.names().1,
        }
    }

    /// The offsets that `name` (in either form) holds.
    pub fn of_file(name: &str) -> Option<OffsetsOf> {
        Self::ALL
            .into_iter()
            .find(|o| o.names().0 == name || o.names().1 == name)
    }

    /// The last offset, as `manifest` gives it: the arcs, or the length of the codes file.
    /// None when the manifest lists no codes file.
    pub fn last(self, manifest: &Manifest) -> Option<u64> {
        match self {
            OffsetsOf::Arcs | OffsetsOf::InArcs => Some(manifest.arcs),
            OffsetsOf::Codes => manifest.file(files::NEIGHBOR_CODES).map(|f| f.bytes),
            OffsetsOf::InCodes => manifest.file(files::IN_NEIGHBOR_CODES).map(|f| f.bytes),
        }
    }
}

/// The bytes the file of `offsets` must have in a store described by `manifest`; None when
/// that cannot be known (no codes file) or overflows.
pub(crate) fn expected_bytes(manifest: &Manifest, offsets: OffsetsOf) -> Option<u64> {
    let count = manifest.vertices.checked_add(1)?;
    match manifest.offsets_code {
        OffsetsCode::Plain => count.checked_mul(8),
        OffsetsCode::EliasFano => elias_fano_bytes(count, offsets.last(manifest)?),
    }
}

/// Bytes of DRAM the in-memory store holds for its arrays: the mapped files' lengths, but the
/// decoded length (8 bytes a value) of Elias–Fano offsets. The labels are left out (they are
/// read only to print results).
pub fn resident_bytes(manifest: &Manifest) -> u64 {
    let decoded = 8 * (manifest.vertices + 1);
    manifest
        .files
        .iter()
        .filter(|f| f.name != files::LABELS)
        .map(|f| match manifest.offsets_code {
            OffsetsCode::EliasFano if OffsetsOf::of_file(&f.name).is_some() => decoded,
            _ => f.bytes,
        })
        .sum()
}

/// Values per read of a plain file: whole pages, so that each read is checked as it arrives.
const PLAIN_CHUNK_VALUES: usize = 16 * PAGE_BYTES as usize / 8;

/// Reads one offsets file of a store as n+1 u64s, in pieces or whole.
pub struct OffsetsReader {
    path: PathBuf,
    count: u64,
    /// Values read so far.
    read: u64,
    source: Source,
    /// The longest list the manifest records, checked once every value is read.
    recorded: Option<u64>,
    /// The last value read and the largest step so far; None once two values were out of
    /// order (an error the caller's checks of order name).
    last: Option<u64>,
    longest: Option<u64>,
}

enum Source {
    Plain {
        file: File,
        sums: Option<PageSums>,
        chunk: Vec<u8>,
    },
    EliasFano(EliasFanoReader<Vec<u8>>),
}

impl OffsetsReader {
    /// Opens the file of `offsets` of the store in `dir`, described by `manifest` (which must
    /// list it). An Elias–Fano file is read whole here (its size is a small part of the
    /// decoded values') and its pages checked.
    pub fn open(
        dir: &Path,
        manifest: &Manifest,
        offsets: OffsetsOf,
    ) -> Result<OffsetsReader, StoreError> {
        let name = offsets.file_name(manifest.offsets_code);
        let path = dir.join(name);
        let entry = manifest.file(name).ok_or_else(|| StoreError::Manifest {
            path: dir.join(crate::manifest::MANIFEST_FILE),
            reason: format!("{name} is not listed"),
        })?;
        let sums = PageSums::load(dir, entry)?;
        let count = manifest.vertices + 1;
        let mut file = File::open(&path).map_err(|e| StoreError::io(&path, e))?;
        let source = match manifest.offsets_code {
            OffsetsCode::Plain => Source::Plain {
                file,
                sums,
                chunk: vec![0; 8 * PLAIN_CHUNK_VALUES],
            },
            OffsetsCode::EliasFano => {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)
                    .map_err(|e| StoreError::io(&path, e))?;
                drop_from_page_cache(&file);
                if let Some(sums) = sums {
                    sums.check_all(&bytes)?;
                }
                let last = offsets.last(manifest).ok_or_else(|| StoreError::Manifest {
                    path: dir.join(crate::manifest::MANIFEST_FILE),
                    reason: format!("{name} is listed without its codes"),
                })?;
                let reader = EliasFanoReader::new(bytes, count, last).map_err(|e| {
                    StoreError::BadOffsets {
                        path: path.clone(),
                        reason: e.to_string(),
                    }
                })?;
                Source::EliasFano(reader)
            }
        };
        Ok(OffsetsReader {
            path,
            count,
            read: 0,
            source,
            recorded: entry.longest_list,
            last: None,
            longest: Some(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The values the file holds: n+1.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Fills `out` with the next values and returns how many; fewer than `out.len()` only at
    /// the end. A plain file's values are returned as stored (the caller checks their order);
    /// an Elias–Fano file's are checked by its decoder. Once every value is read, the longest
    /// list the manifest records beside the file is checked against them.
    pub fn read(&mut self, out: &mut [u64]) -> Result<usize, StoreError> {
        let got = match &mut self.source {
            Source::EliasFano(reader) => reader.read(out).map_err(|e| StoreError::BadOffsets {
                path: self.path.clone(),
                reason: e.to_string(),
            })?,
            Source::Plain { file, sums, chunk } => {
                let mut filled = 0;
                let mut read = self.read;
                while filled < out.len() && read < self.count {
                    let take = (self.count - read)
                        .min(PLAIN_CHUNK_VALUES as u64)
                        .min((out.len() - filled) as u64) as usize;
                    let bytes = &mut chunk[..8 * take];
                    file.read_exact(bytes)
                        .map_err(|e| StoreError::io(&self.path, e))?;
                    // Reads start on a page (the chunks are whole pages) unless `out` is cut
                    // shorter; a piece of a page is left to the caller's checks of order.
                    if let Some(sums) = sums {
                        if (8 * read) % PAGE_BYTES == 0 {
                            sums.check(8 * read, bytes)?;
                        }
                    }
                    for (value, word) in out[filled..].iter_mut().zip(bytes.chunks_exact(8)) {
                        *value = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                    }
                    filled += take;
                    read += take as u64;
                }
                if read == self.count && filled > 0 {
                    drop_from_page_cache(file);
                }
                filled
            }
        };
        self.read += got as u64;
        for &value in &out[..got] {
            let step = value.checked_sub(self.last.unwrap_or(value));
            self.longest = self
                .longest
                .zip(step)
                .map(|(longest, step)| longest.max(step));
            self.last = Some(value);
        }
        match (self.recorded, self.longest) {
            (Some(recorded), Some(longest)) if self.read == self.count && recorded != longest => {
                Err(wrong_longest_list(&self.path, recorded, longest))
            }
            _ => Ok(got),
        }
    }

    /// Every value, in a vector of n+1 words.
    pub fn read_all(mut self) -> Result<Vec<u64>, StoreError> {
        let count = usize::try_from(self.count).expect("a 64-bit host");
        let mut values = vec![0; count];
        let got = self.read(&mut values)?;
        debug_assert_eq!(got, count);
        Ok(values)
    }
}

/// The error for an offsets file at `path` whose manifest records its longest list as
/// `recorded` where its offsets give `longest`.
pub(crate) fn wrong_longest_list(path: &Path, recorded: u64, longest: u64) -> StoreError {
    StoreError::Manifest {
        path: path.with_file_name(crate::manifest::MANIFEST_FILE),
        reason: format!(
            "records the longest list of {} as {recorded}, but its offsets give {longest} \
             (corrupt store?)",
            path.file_name().unwrap_or_default().to_string_lossy()
        ),
    }
}

/// Drops a file just read into DRAM from the page cache: the DRAM copy is what is used, and the
/// cached one would only take from a memory budget.
pub fn drop_from_page_cache(file: &File) {
    use std::os::unix::io::AsRawFd;
    // SAFETY: a hint on an open descriptor.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
}

/// Writes `values`, the offsets `offsets`, into `dir` in Elias–Fano form; its manifest entry,
/// which records the longest list.
fn write_elias_fano(
    dir: &Path,
    offsets: OffsetsOf,
    values: &[u64],
) -> Result<FileEntry, StoreError> {
    let name = offsets.file_name(OffsetsCode::EliasFano);
    let bad = |e: vastgraph_codec::CodecError| StoreError::BadOffsets {
        path: dir.join(name),
        reason: e.to_string(),
    };
    let last = values.last().copied().unwrap_or(0);
    let mut writer = EliasFanoWriter::new(values.len() as u64, last).map_err(bad)?;
    for &value in values {
        writer.push(value).map_err(bad)?;
    }
    let mut out = HashedFileWriter::create(dir, name)?;
    out.write_bytes(&writer.finish().map_err(bad)?)?;
    let longest_list = values.windows(2).map(|w| w[1].saturating_sub(w[0])).max();
    Ok(FileEntry {
        longest_list: Some(longest_list.unwrap_or(0)),
        ..out.finish()?
    })
}

/// Replaces the plain offsets files a build staged in `dir` (those of `entries`) by their
/// Elias–Fano form, in place in `entries`. Afterwards the staged store's manifest must say
/// `OffsetsCode::EliasFano`.
pub(crate) fn recode_staged_offsets(
    dir: &Path,
    entries: &mut [FileEntry],
) -> Result<(), StoreError> {
    for entry in entries.iter_mut() {
        let Some(offsets) = OffsetsOf::of_file(&entry.name) else {
            continue;
        };
        let plain = MappedArray::<u64>::open(&dir.join(&entry.name), entry.bytes)?;
        let recoded = write_elias_fano(dir, offsets, plain.values())?;
        drop(plain);
        crate::compress::remove_staged(dir, entry)?;
        *entry = recoded;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::write_manifest;
    use crate::{BuildOptions, Codec, Store, StoreBuilder};

    /// A compressed store of 500 vertices, with a transpose.
    fn compressed(dir: &Path) -> std::path::PathBuf {
        let target = dir.join("bc");
        let mut builder = StoreBuilder::create(
            &target,
            BuildOptions {
                transpose: true,
                codec: Codec::Zeta64,
                ..Default::default()
            },
        )
        .unwrap();
        let src: Vec<u32> = (0..6000).map(|i| (i * 7919) % 500).collect();
        let dst: Vec<u32> = (0..6000).map(|i| (i * 104_729 + i / 3) % 500).collect();
        builder.push_batch(&src, &dst, None).unwrap();
        builder.finish().unwrap();
        target
    }

    #[test]
    fn a_compressed_store_with_plain_offsets_as_older_versions_wrote_still_opens() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = compressed(tmp.path());
        let elias_fano = Store::open(&dir).unwrap();
        let (out_lists, in_lists) = (
            decoded(&elias_fano.byte_code().unwrap()),
            decoded(&elias_fano.in_byte_code().unwrap()),
        );
        let (offsets, in_offsets) = (
            elias_fano.offsets().to_vec(),
            elias_fano.in_offsets().unwrap().to_vec(),
        );
        let mut manifest = elias_fano.manifest().clone();
        drop(elias_fano);
        let original = manifest.clone();
        // Each Elias–Fano file back to its plain form, as a store written before them has.
        for entry in manifest.files.iter_mut() {
            let Some(which) = OffsetsOf::of_file(&entry.name) else {
                continue;
            };
            let plain = OffsetsReader::open(&dir, &original, which)
                .unwrap()
                .read_all()
                .unwrap();
            crate::compress::remove_staged(&dir, entry).unwrap();
            let mut out =
                HashedFileWriter::create(&dir, which.file_name(OffsetsCode::Plain)).unwrap();
            out.write_values(&plain).unwrap();
            *entry = out.finish().unwrap();
        }
        manifest.offsets_code = OffsetsCode::Plain;
        std::fs::remove_file(dir.join(crate::manifest::MANIFEST_FILE)).unwrap();
        write_manifest(&dir, &manifest).unwrap();

        let plain = Store::open(&dir).unwrap();
        assert_eq!(plain.offsets(), offsets);
        assert_eq!(plain.in_offsets().unwrap(), in_offsets);
        assert_eq!(decoded(&plain.byte_code().unwrap()), out_lists);
        assert_eq!(decoded(&plain.in_byte_code().unwrap()), in_lists);
    }

    fn decoded(lists: &vastgraph_codec::ByteCodeLists<'_>) -> Vec<Vec<u32>> {
        (0..lists.num_vertices() as u32)
            .map(|v| {
                let mut out = Vec::new();
                lists.decode_into(v, &mut out);
                out
            })
            .collect()
    }

    #[test]
    fn the_longest_lists_are_recorded_and_a_wrong_record_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = compressed(tmp.path());
        let store = Store::open(&dir).unwrap();
        let longest = |offsets: &[u64]| offsets.windows(2).map(|w| w[1] - w[0]).max().unwrap();
        let manifest = store.manifest().clone();
        let recorded = |which: OffsetsOf| {
            let name = which.file_name(OffsetsCode::EliasFano);
            manifest.file(name).unwrap().longest_list
        };
        let code_offsets = |which| OffsetsReader::open(&dir, &manifest, which).unwrap();
        let degrees = longest(store.offsets());
        let in_degrees = longest(store.in_offsets().unwrap());
        let code_bytes = longest(&code_offsets(OffsetsOf::Codes).read_all().unwrap());
        let in_code_bytes = longest(&code_offsets(OffsetsOf::InCodes).read_all().unwrap());
        drop(store);
        assert_eq!(recorded(OffsetsOf::Arcs), Some(degrees));
        assert_eq!(recorded(OffsetsOf::InArcs), Some(in_degrees));
        assert_eq!(recorded(OffsetsOf::Codes), Some(code_bytes));
        assert_eq!(recorded(OffsetsOf::InCodes), Some(in_code_bytes));
        assert!(degrees > 1 && code_bytes > 1);

        let name = OffsetsOf::Codes.file_name(OffsetsCode::EliasFano);
        refuses_a_wrong_record(&dir, &manifest, name, code_bytes);
    }

    #[test]
    fn a_raw_store_records_its_longest_lists_and_a_wrong_record_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("raw");
        let mut builder = StoreBuilder::create(
            &dir,
            BuildOptions {
                transpose: true,
                ..Default::default()
            },
        )
        .unwrap();
        // Vertex 3 has the longest out-list (4), vertex 2 the longest in-list (3) and no out-list.
        let (src, dst) = ([0, 1, 3, 3, 3, 3, 4], [2, 2, 0, 1, 2, 4, 3]);
        builder.push_batch(&src, &dst, None).unwrap();
        let manifest = builder.finish().unwrap();
        assert_eq!(manifest.offsets_code, OffsetsCode::Plain);
        let recorded = |which: OffsetsOf| {
            let name = which.file_name(OffsetsCode::Plain);
            manifest.file(name).unwrap().longest_list
        };
        assert_eq!(recorded(OffsetsOf::Arcs), Some(4));
        assert_eq!(recorded(OffsetsOf::InArcs), Some(3));
        Store::open(&dir).unwrap();
        let name = OffsetsOf::Arcs.file_name(OffsetsCode::Plain);
        refuses_a_wrong_record(&dir, &manifest, name, 4);
    }

    /// With the record of `name`'s longest list, `longest`, one short of the truth, the store in
    /// `dir` is refused both mapped and read by an [`OffsetsReader`], naming the manifest and both
    /// figures; without a record (a store written before it existed) it opens.
    fn refuses_a_wrong_record(dir: &Path, manifest: &Manifest, name: &str, longest: u64) {
        let rewrite = |record: Option<u64>| {
            let mut edited = manifest.clone();
            let entry = edited.files.iter_mut().find(|f| f.name == name).unwrap();
            entry.longest_list = record;
            std::fs::remove_file(dir.join(crate::manifest::MANIFEST_FILE)).unwrap();
            write_manifest(dir, &edited).unwrap();
            edited
        };
        let which = OffsetsOf::of_file(name).unwrap();
        let edited = rewrite(Some(longest - 1));
        let read = OffsetsReader::open(dir, &edited, which).unwrap().read_all();
        for error in [Store::open(dir).err().unwrap(), read.err().unwrap()] {
            let error = error.to_string();
            assert!(error.contains("manifest.json"), "{error}");
            assert!(error.contains(&format!("as {},", longest - 1)), "{error}");
            assert!(error.contains(&format!("give {longest}")), "{error}");
        }
        let edited = rewrite(None);
        Store::open(dir).unwrap();
        OffsetsReader::open(dir, &edited, which)
            .unwrap()
            .read_all()
            .unwrap();
    }

    #[test]
    fn a_raw_store_with_elias_fano_offsets_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("raw");
        let mut builder = StoreBuilder::create(&target, BuildOptions::default()).unwrap();
        builder.push_batch(&[0, 1], &[1, 2], None).unwrap();
        let mut manifest = builder.finish().unwrap();
        manifest.offsets_code = OffsetsCode::EliasFano;
        std::fs::remove_file(target.join(crate::manifest::MANIFEST_FILE)).unwrap();
        write_manifest(&target, &manifest).unwrap();
        let error = Store::open(&target).err().unwrap().to_string();
        assert!(error.contains("plain"), "{error}");
    }
}
