//! A read-only data file opened for direct I/O when the file system allows it.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::aligned::{AlignedBuf, ALIGN};

/// Checks bytes read from a file: given the page-aligned offset they start at and the bytes
/// (whole pages, the file's last one possibly shorter), an error if they are damaged.
pub type ReadCheck = Arc<dyn Fn(u64, &[u8]) -> io::Result<()> + Send + Sync>;

pub struct DataFile {
    file: File,
    path: PathBuf,
    len: u64,
    direct: bool,
    check: Option<ReadCheck>,
}

impl DataFile {
    /// Opens `path` read-only, with `O_DIRECT` when `direct` is asked for and the file system
    /// supports it (tmpfs and some overlay file systems do not: those reads go through the page
    /// cache, and a warning says so).
    pub fn open(path: &Path, direct: bool) -> io::Result<DataFile> {
        let with_context =
            |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let mut opened = None;
        if direct {
            match OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECT)
                .open(path)
            {
                Ok(f) => opened = Some((f, true)),
                Err(e) if e.raw_os_error() == Some(libc::EINVAL) => log::warn!(
                    "{}: the file system refuses O_DIRECT; reads go through the page cache",
                    path.display()
                ),
                Err(e) => return Err(with_context(e)),
            }
        }
        let (file, direct) = match opened {
            Some(x) => x,
            None => (File::open(path).map_err(with_context)?, false),
        };
        let len = file.metadata().map_err(with_context)?.len();
        Ok(DataFile {
            file,
            path: path.to_path_buf(),
            len,
            direct,
            check: None,
        })
    }

    /// Every read of this file (through [`crate::IoEngine::run`] or [`DataFile::read_span`])
    /// is given to `check` before its bytes are handed over.
    pub fn with_check(mut self, check: ReadCheck) -> DataFile {
        self.check = Some(check);
        self
    }

    /// Whether reads of this file are checked.
    pub fn has_check(&self) -> bool {
        self.check.is_some()
    }

    /// Checks `bytes` read at the page-aligned `offset`, when the file has a check.
    pub fn check(&self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        match &self.check {
            Some(check) => check(offset, bytes),
            None => Ok(()),
        }
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether reads bypass the page cache.
    pub fn is_direct(&self) -> bool {
        self.direct
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// Reads bytes `offset..offset + len` with blocking `pread`s into `buf`, widened to whole
    /// pages as direct I/O requires (`buf` must hold the widened span); returns the requested
    /// bytes and how many the device delivered. For the rare range too long for a pooled buffer.
    pub fn read_span<'b>(
        &self,
        offset: u64,
        len: usize,
        buf: &'b mut AlignedBuf,
    ) -> io::Result<(&'b [u8], u64)> {
        let (aligned, needed) = self.read_span_unchecked(offset, len, buf)?;
        self.check(aligned, &buf.as_slice()[..needed])?;
        let skip = (offset - aligned) as usize;
        Ok((&buf.as_slice()[skip..skip + len], needed as u64))
    }

    /// [`DataFile::read_span`] without the file's check, for a reader that checks each page
    /// ([`DataFile::check`]) just before it uses it, while the page is in its cache. Returns the
    /// page-aligned offset `buf` starts at and the bytes read there: whole pages covering
    /// `offset..offset + len`, the file's last one possibly shorter.
    pub fn read_span_unchecked(
        &self,
        offset: u64,
        len: usize,
        buf: &mut AlignedBuf,
    ) -> io::Result<(u64, usize)> {
        let end = offset + len as u64;
        if end > self.len {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{}: bytes {offset}..{end} requested, the file has {}",
                    self.path.display(),
                    self.len
                ),
            ));
        }
        let aligned = offset / ALIGN as u64 * ALIGN as u64;
        let skip = (offset - aligned) as usize;
        let span = (skip + len).next_multiple_of(ALIGN);
        assert!(span <= buf.len(), "the buffer holds the page-widened span");
        let needed = ((aligned + span as u64).min(self.len) - aligned) as usize;
        let mut filled = 0usize;
        while filled < needed {
            // SAFETY: `filled < span <= buf.len()`; the kernel writes at most `span - filled`
            // bytes there, and page-aligned lengths keep direct I/O valid after a short read.
            let got = unsafe {
                libc::pread(
                    self.fd(),
                    buf.as_ptr().add(filled) as *mut libc::c_void,
                    span - filled,
                    (aligned + filled as u64) as libc::off_t,
                )
            };
            if got < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(io::Error::new(
                    e.kind(),
                    format!("{}: read failed: {e}", self.path.display()),
                ));
            }
            if got == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "{}: file ended at byte {} while reading",
                        self.path.display(),
                        aligned + filled as u64
                    ),
                ));
            }
            filled += got as usize;
        }
        Ok((aligned, needed))
    }

    /// The file's device, `major:minor`.
    pub fn device(&self) -> io::Result<(u32, u32)> {
        use std::os::unix::fs::MetadataExt;
        let dev = self.file.metadata()?.dev();
        Ok((libc::major(dev), libc::minor(dev)))
    }
}
