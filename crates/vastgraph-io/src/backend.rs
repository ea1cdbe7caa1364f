//! The two ways reads are kept in flight: io_uring, or a pool of threads calling `pread`.

use std::io;
use std::os::unix::io::RawFd;

/// Which backend to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// io_uring when the kernel allows it (it may be disabled or filtered by seccomp), else pread.
    Auto,
    /// io_uring or an error.
    Uring,
    /// The pread thread pool.
    Pread,
}

impl std::str::FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "uring" | "io_uring" | "io-uring" => Ok(BackendChoice::Uring),
            "pread" => Ok(BackendChoice::Pread),
            _ => Err(format!("unknown I/O backend {s:?}: auto, uring or pread")),
        }
    }
}

/// One read: `len` bytes at `offset` of `fd` into `buf`, reported back with `tag`.
#[derive(Clone, Copy)]
pub(crate) struct Job {
    pub tag: u64,
    pub fd: RawFd,
    pub buf: *mut u8,
    pub len: usize,
    pub offset: u64,
}

// SAFETY: a job's buffer belongs to the pipeline, which does not touch it until the job is
// reported complete; handing the pointer to another thread is the point.
unsafe impl Send for Job {}

pub(crate) trait Backend: Send {
    /// Queues a read (it may not start before [`Backend::wait`]).
    fn submit(&mut self, job: Job) -> io::Result<()>;
    /// Starts every queued read without waiting.
    fn flush(&mut self) -> io::Result<()>;
    /// Starts every queued read, waits until at least one read has finished, and appends every
    /// finished one as (tag, bytes read or error).
    fn wait(&mut self, done: &mut Vec<(u64, io::Result<usize>)>) -> io::Result<()>;
    fn name(&self) -> &'static str;
}

pub(crate) fn open_backend(choice: BackendChoice, depth: usize) -> io::Result<Box<dyn Backend>> {
    match choice {
        BackendChoice::Pread => Ok(Box::new(crate::pread::PreadPool::new(depth))),
        BackendChoice::Uring => Ok(Box::new(crate::uring::Uring::new(depth)?)),
        BackendChoice::Auto => match crate::uring::Uring::new(depth) {
            Ok(ring) => Ok(Box::new(ring)),
            Err(e) => {
                log::warn!("io_uring is unavailable ({e}); reading with a pool of pread threads");
                Ok(Box::new(crate::pread::PreadPool::new(depth)))
            }
        },
    }
}
