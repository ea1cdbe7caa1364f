//! A read-only data file opened for direct I/O when the file system allows it.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::io::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};

pub struct DataFile {
    file: File,
    path: PathBuf,
    len: u64,
    direct: bool,
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
        })
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

    /// The file's device, `major:minor`.
    pub fn device(&self) -> io::Result<(u32, u32)> {
        use std::os::unix::fs::MetadataExt;
        let dev = self.file.metadata()?.dev();
        Ok((libc::major(dev), libc::minor(dev)))
    }
}
