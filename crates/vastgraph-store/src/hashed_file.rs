//! Writing one store file: a large buffer, written past the page cache where the file system
//! allows it (`DirectAppender`: the builder does not read the store back), that hashes (xxh3)
//! the bytes as they go through, so the checksum recorded in the manifest costs no second pass
//! over the data; the checksum of each page is taken in the same pass and written to a side
//! file at the end.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::direct_file::DirectAppender;
use crate::fsutil::start_writeback;
use crate::manifest::{FileEntry, PageSumsEntry};
use crate::page_sums::{side_file_name, wants_page_sums, PageSummer, PAGE_BYTES};
use crate::pod::{as_bytes, Pod};
use crate::StoreError;

/// Large writes keep the number of syscalls low when streaming gigabytes (a whole number of
/// pages, as direct writes need).
const WRITE_BUFFER_BYTES: usize = 4 << 20;
/// How much data may be handed to the kernel before its writeback is started.
const WRITEBACK_STEP_BYTES: u64 = 64 << 20;

pub(crate) struct HashedFileWriter {
    dir: PathBuf,
    path: PathBuf,
    name: String,
    out: DirectAppender,
    hasher: Xxh3,
    /// None for the files that get no page checksums (labels, the manifest, side files).
    pages: Option<PageSummer>,
    writeback_started_to: u64,
    /// For a file of offsets written through [`Self::write_offsets`]: the last offset and the
    /// largest step between two consecutive ones (the longest list) so far.
    offsets: Option<(u64, u64)>,
}

impl HashedFileWriter {
    /// Create `dir/name`, which must not exist yet.
    pub(crate) fn create(dir: &Path, name: &str) -> Result<HashedFileWriter, StoreError> {
        let mut out = Self::create_plain(dir, name)?;
        out.pages = wants_page_sums(name).then(PageSummer::default);
        Ok(out)
    }

    /// As `create`, without page checksums.
    fn create_plain(dir: &Path, name: &str) -> Result<HashedFileWriter, StoreError> {
        let path = dir.join(name);
        let out = DirectAppender::create(&path, WRITE_BUFFER_BYTES)
            .map_err(|e| StoreError::write(&path, e))?;
        Ok(HashedFileWriter {
            dir: dir.to_path_buf(),
            path,
            name: name.to_string(),
            out,
            hasher: Xxh3::new(),
            pages: None,
            writeback_started_to: 0,
            offsets: None,
        })
    }

    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.hasher.update(bytes);
        if let Some(pages) = &mut self.pages {
            pages.update(bytes);
        }
        self.out
            .append(bytes)
            .map_err(|e| StoreError::write(&self.path, e))?;
        // Only a file that took no direct writes has dirty pages to start writing back.
        let in_kernel = self.out.written();
        if in_kernel - self.writeback_started_to >= WRITEBACK_STEP_BYTES {
            start_writeback(
                self.out.file(),
                self.writeback_started_to,
                in_kernel - self.writeback_started_to,
            );
            self.writeback_started_to = in_kernel;
        }
        Ok(())
    }

    /// Write numbers in the store's byte order (the host's, which is little-endian).
    pub(crate) fn write_values<T: Pod>(&mut self, values: &[T]) -> Result<(), StoreError> {
        self.write_bytes(as_bytes(values))
    }

    /// Write offsets (non-decreasing, continuing those written so far), recording the longest
    /// list they give for the manifest ([`FileEntry::longest_list`]).
    pub(crate) fn write_offsets(&mut self, values: &[u64]) -> Result<(), StoreError> {
        if let Some(&first) = values.first() {
            let (last, longest) = self.offsets.get_or_insert((first, 0));
            let steps = std::iter::once(first.saturating_sub(*last))
                .chain(values.windows(2).map(|w| w[1].saturating_sub(w[0])));
            *longest = steps.fold(*longest, u64::max);
            *last = *values.last().expect("not empty");
        }
        self.write_values(values)
    }

    /// Flush, fsync, write the side file of page checksums, and describe both for the manifest.
    pub(crate) fn finish(self) -> Result<FileEntry, StoreError> {
        let HashedFileWriter {
            dir,
            path,
            name,
            out,
            hasher,
            pages,
            offsets,
            ..
        } = self;
        let (file, bytes) = out.finish().map_err(|e| StoreError::write(&path, e))?;
        file.sync_all().map_err(|e| StoreError::write(&path, e))?;
        let page_sums = match pages {
            None => None,
            Some(pages) => {
                let mut side = Self::create_plain(&dir, &side_file_name(&name))?;
                side.write_values(&pages.finish())?;
                let side = side.finish()?;
                Some(PageSumsEntry {
                    name: side.name,
                    page_bytes: PAGE_BYTES,
                    bytes: side.bytes,
                    xxh3: side.xxh3,
                })
            }
        };
        Ok(FileEntry {
            name,
            bytes,
            xxh3: format_xxh3(hasher.digest()),
            page_sums,
            longest_list: offsets.map(|(_, longest)| longest),
        })
    }
}

/// The manifest's spelling of a checksum: 16 lowercase hex digits.
pub fn format_xxh3(digest: u64) -> String {
    format!("{digest:016x}")
}

/// Ok when `actual`, a file's checksum as the manifest spells it, is the `expected` one the
/// manifest records for the file at `path`.
pub(crate) fn expect_checksum(
    path: &Path,
    expected: &str,
    actual: String,
) -> Result<(), StoreError> {
    if actual == expected {
        return Ok(());
    }
    Err(StoreError::ChecksumMismatch {
        path: path.to_path_buf(),
        expected: expected.to_string(),
        actual,
    })
}
