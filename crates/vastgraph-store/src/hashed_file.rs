//! Writing one store file: a large buffered writer that hashes (xxh3) the bytes as they go
//! through, so the checksum recorded in the manifest costs no second pass over the data.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::fsutil::start_writeback;
use crate::manifest::FileEntry;
use crate::pod::{as_bytes, Pod};
use crate::StoreError;

/// Large writes keep the number of syscalls low when streaming gigabytes.
const WRITE_BUFFER_BYTES: usize = 4 << 20;
/// How much data may be handed to the kernel before its writeback is started.
const WRITEBACK_STEP_BYTES: u64 = 64 << 20;

pub(crate) struct HashedFileWriter {
    path: PathBuf,
    name: String,
    out: BufWriter<File>,
    hasher: Xxh3,
    bytes: u64,
    writeback_started_to: u64,
}

impl HashedFileWriter {
    /// Create `dir/name`, which must not exist yet.
    pub(crate) fn create(dir: &Path, name: &str) -> Result<HashedFileWriter, StoreError> {
        let path = dir.join(name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| StoreError::write(&path, e))?;
        Ok(HashedFileWriter {
            path,
            name: name.to_string(),
            out: BufWriter::with_capacity(WRITE_BUFFER_BYTES, file),
            hasher: Xxh3::new(),
            bytes: 0,
            writeback_started_to: 0,
        })
    }

    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.hasher.update(bytes);
        self.out
            .write_all(bytes)
            .map_err(|e| StoreError::write(&self.path, e))?;
        self.bytes += bytes.len() as u64;
        let in_kernel = self.bytes - self.out.buffer().len() as u64;
        if in_kernel - self.writeback_started_to >= WRITEBACK_STEP_BYTES {
            start_writeback(
                self.out.get_ref(),
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

    /// Flush, fsync, and describe the file for the manifest.
    pub(crate) fn finish(self) -> Result<FileEntry, StoreError> {
        let HashedFileWriter {
            path,
            name,
            out,
            hasher,
            bytes,
            ..
        } = self;
        let file = out
            .into_inner()
            .map_err(|e| StoreError::write(&path, e.into_error()))?;
        file.sync_all().map_err(|e| StoreError::write(&path, e))?;
        Ok(FileEntry {
            name,
            bytes,
            xxh3: format_xxh3(hasher.digest()),
        })
    }
}

/// The manifest's spelling of a checksum: 16 lowercase hex digits.
pub fn format_xxh3(digest: u64) -> String {
    format!("{digest:016x}")
}
