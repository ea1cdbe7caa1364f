//! Every way opening, verifying or building a store can fail. Each variant names the file
//! it concerns, so a user can tell a truncated copy from a bad manifest from a full disk.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// `context` says what the build needed, when a build was writing.
    #[error("disk full while writing {}{context}", path.display())]
    DiskFull { path: PathBuf, context: String },

    /// Refused before any work: the build would not fit on the disk.
    #[error(
        "{}: not enough disk space: this build needs up to {} ({}), but {} are free; free \
         some space, or put the sorted runs on another disk (--tmp-dir; tmp_dir= in Python)",
        path.display(), gb(*needed), detail, gb(*available)
    )]
    NoSpace {
        path: PathBuf,
        needed: u64,
        available: u64,
        detail: String,
    },

    #[error("{}: invalid manifest: {reason}", path.display())]
    Manifest { path: PathBuf, reason: String },

    #[error("{}: missing (the manifest lists it)", path.display())]
    MissingFile { path: PathBuf },

    /// The path holds no manifest: a mistyped path, a store still being written (its
    /// temporary name), or an edge list where a store was expected.
    #[error("{}: not a vastgraph store ({reason}; `vastgraph convert` makes one)", path.display())]
    NotAStore { path: PathBuf, reason: &'static str },

    #[error("{}: {actual} bytes, expected {expected} (truncated or altered)", path.display())]
    FileLength {
        path: PathBuf,
        expected: u64,
        actual: u64,
    },

    #[error("{}: invalid offsets: {reason}", path.display())]
    BadOffsets { path: PathBuf, reason: String },

    #[error("{}: invalid neighbour list of vertex {vertex}: {reason}", path.display())]
    BadNeighbors {
        path: PathBuf,
        vertex: u64,
        reason: String,
    },

    #[error("{}: invalid tiles: {reason}", path.display())]
    BadTiles { path: PathBuf, reason: String },

    /// Opening a store's tiles failed: the store itself is usable without them.
    #[error(
        "{cause} (the store's tiles cannot be used: `vastgraph tile` rebuilds them; \
         `vastgraph run --no-tiles` runs on the lists without them)"
    )]
    DamagedTiles { cause: Box<StoreError> },

    #[error("{}: invalid labels: {reason}", path.display())]
    BadLabels { path: PathBuf, reason: String },

    #[error("{}: checksum mismatch: manifest records xxh3 {expected}, file has {actual}", path.display())]
    ChecksumMismatch {
        path: PathBuf,
        expected: String,
        actual: String,
    },

    #[error(
        "{}: bytes {start}..{end} do not match their page checksum (the file is damaged; \
         `vastgraph info --verify` checks the whole store)",
        path.display()
    )]
    DamagedPage { path: PathBuf, start: u64, end: u64 },

    #[error("{}: already exists (--force, or overwrite=True in Python, replaces it)", path.display())]
    TargetExists { path: PathBuf },

    #[error(
        "{}: the store was replaced (--force, or `vastgraph tile`) while it was being read; run again to use the new one",
        path.display()
    )]
    Replaced { path: PathBuf },

    #[error(
        "{}: another process is writing it (it holds the lock {}); wait for it to finish",
        path.display(),
        lock.display()
    )]
    Busy { path: PathBuf, lock: PathBuf },

    #[error("{}: refusing to overwrite: {reason}", path.display())]
    NotOverwritable { path: PathBuf, reason: String },

    #[error("invalid build input: {reason}")]
    InvalidInput { reason: String },

    #[error("memory budget of {given} bytes is below the minimum of {minimum} bytes")]
    MemoryBudgetTooSmall { given: u64, minimum: u64 },

    #[error("stopped before the output was complete; nothing was written")]
    Cancelled,
}

impl StoreError {
    /// An I/O error while reading or inspecting `path`.
    pub(crate) fn damaged_tiles(source: StoreError) -> StoreError {
        StoreError::DamagedTiles {
            cause: Box::new(source),
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> StoreError {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// An I/O error while writing `path`: a full disk (or exhausted quota) gets its own
    /// message, because it is the one a user can act on.
    pub(crate) fn write(path: impl Into<PathBuf>, source: io::Error) -> StoreError {
        match source.raw_os_error() {
            Some(code) if code == libc::ENOSPC || code == libc::EDQUOT => StoreError::DiskFull {
                path: path.into(),
                context: String::new(),
            },
            _ => StoreError::Io {
                path: path.into(),
                source,
            },
        }
    }

    pub(crate) fn invalid_input(reason: impl Into<String>) -> StoreError {
        StoreError::InvalidInput {
            reason: reason.into(),
        }
    }
}

/// Bytes as a user reads them in an error message.
pub fn gb(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.2} GB", bytes as f64 / 1e9)
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}
