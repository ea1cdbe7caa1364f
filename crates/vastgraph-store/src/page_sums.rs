//! Checksums of each 4 KiB page of a store file, in a side file beside it.
//!
//! Why: the manifest's whole-file xxh3 can only be checked by reading the whole file, which
//! `info --verify` does and a run does not; a structurally valid flipped bit in the neighbour
//! lists then gave a wrong answer with no error. With a checksum a page, every reader checks
//! exactly what it reads: opening a store in memory checks every page of the arrays it maps (it
//! reads them all anyway to validate the lists), and the out-of-core engine checks each page as
//! its read completes, whether a selective pass fetched a few pages or a streaming pass all.
//! A page is the unit of a direct read, so no read ever holds part of a page.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

use crate::hashed_file::{expect_checksum, format_xxh3};
use crate::manifest::{files, FileEntry, MANIFEST_FILE};
use crate::StoreError;

/// Bytes a checksum covers: the page of a direct read.
pub const PAGE_BYTES: u64 = 4096;

/// The checksum of one page (the last page of a file may be shorter).
pub fn page_sum(page: &[u8]) -> u32 {
    xxh3_64(page) as u32
}

/// Whether the file called `name` gets page checksums: the binary arrays do; the labels (read
/// whole, as text) and the manifest do not.
pub(crate) fn wants_page_sums(name: &str) -> bool {
    name != files::LABELS && name != MANIFEST_FILE
}

/// The name of the side file of `name`'s page checksums.
pub(crate) fn side_file_name(name: &str) -> String {
    format!("{name}.pagesums")
}

/// The page checksums of one store file, loaded and checked against the manifest.
#[derive(Debug)]
pub struct PageSums {
    /// The data file the checksums describe.
    path: PathBuf,
    file_bytes: u64,
    page_bytes: u64,
    sums: Vec<u32>,
}

impl PageSums {
    /// Reads the side file of `entry` in `dir` and checks it (length, and its own xxh3); None
    /// when the store predates page checksums.
    pub fn load(dir: &Path, entry: &FileEntry) -> Result<Option<PageSums>, StoreError> {
        let Some(side) = &entry.page_sums else {
            return Ok(None);
        };
        let path = dir.join(&side.name);
        let pages = entry.bytes.div_ceil(side.page_bytes.max(1));
        // Readers check what they read from a 4 KiB boundary: only pages of that size line up.
        if side.page_bytes != PAGE_BYTES || side.bytes != 4 * pages {
            return Err(StoreError::Manifest {
                path: dir.join(MANIFEST_FILE),
                reason: format!(
                    "{}: {} bytes of checksums for pages of {} bytes of a {}-byte file",
                    side.name, side.bytes, side.page_bytes, entry.bytes
                ),
            });
        }
        let mut bytes = Vec::with_capacity(side.bytes as usize);
        File::open(&path)
            .and_then(|f| f.take(side.bytes + 1).read_to_end(&mut bytes))
            .map_err(|e| StoreError::io(&path, e))?;
        if bytes.len() as u64 != side.bytes {
            return Err(StoreError::FileLength {
                path,
                expected: side.bytes,
                actual: bytes.len() as u64,
            });
        }
        expect_checksum(&path, &side.xxh3, format_xxh3(xxh3_64(&bytes)))?;
        let sums = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        Ok(Some(PageSums {
            path: dir.join(&entry.name),
            file_bytes: entry.bytes,
            page_bytes: side.page_bytes,
            sums,
        }))
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> u64 {
        4 * self.sums.len() as u64
    }

    /// Checks `bytes`, read from the file at `offset` (a page boundary): every whole page, and
    /// the file's last page where it ends there. A shorter piece of a page (a read that stopped
    /// early) cannot be checked and is left to the reader's other checks.
    pub fn check(&self, offset: u64, bytes: &[u8]) -> Result<(), StoreError> {
        debug_assert_eq!(offset % self.page_bytes, 0, "reads start on a page");
        let first = offset / self.page_bytes;
        for (i, page) in bytes.chunks(self.page_bytes as usize).enumerate() {
            let index = first + i as u64;
            let start = index * self.page_bytes;
            let expected_len = self.page_bytes.min(self.file_bytes.saturating_sub(start));
            if page.len() as u64 != expected_len {
                continue;
            }
            let Some(&expected) = self.sums.get(index as usize) else {
                continue;
            };
            if page_sum(page) != expected {
                return Err(StoreError::DamagedPage {
                    path: self.path.clone(),
                    start,
                    end: start + expected_len,
                });
            }
        }
        Ok(())
    }

    /// Checks the whole file, mapped or read into `bytes`, on every thread.
    pub fn check_all(&self, bytes: &[u8]) -> Result<(), StoreError> {
        // 64 pages a task: enough to amortise the task, small enough to spread 4 MiB files.
        let task = 64 * self.page_bytes as usize;
        bytes
            .par_chunks(task)
            .enumerate()
            .try_for_each(|(i, chunk)| self.check((i * task) as u64, chunk))
    }
}

/// Checksums pages as a file is written, in whatever pieces it arrives.
#[derive(Default)]
pub(crate) struct PageSummer {
    page: Vec<u8>,
    sums: Vec<u32>,
}

impl PageSummer {
    pub fn update(&mut self, mut bytes: &[u8]) {
        let page = PAGE_BYTES as usize;
        while !bytes.is_empty() {
            if self.page.is_empty() && bytes.len() >= page {
                // Whole pages straight from the caller's buffer.
                let whole = bytes.len() / page * page;
                self.sums
                    .extend(bytes[..whole].chunks_exact(page).map(page_sum));
                bytes = &bytes[whole..];
                continue;
            }
            let take = (page - self.page.len()).min(bytes.len());
            self.page.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.page.len() == page {
                self.sums.push(page_sum(&self.page));
                self.page.clear();
            }
        }
    }

    /// The checksums of every page, the last (partial) one included.
    pub fn finish(mut self) -> Vec<u32> {
        if !self.page.is_empty() {
            self.sums.push(page_sum(&self.page));
        }
        self.sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_summed_in_any_pieces_are_the_pages_of_the_whole() {
        let data: Vec<u8> = (0..3 * PAGE_BYTES as usize + 100)
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        let whole: Vec<u32> = data.chunks(PAGE_BYTES as usize).map(page_sum).collect();
        for piece in [1, 100, 4095, 4096, 5000, data.len()] {
            let mut summer = PageSummer::default();
            for chunk in data.chunks(piece) {
                summer.update(chunk);
            }
            assert_eq!(summer.finish(), whole, "pieces of {piece} bytes");
        }
    }
}
