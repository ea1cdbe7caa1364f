//! The io_uring backend: every read is one submission-queue entry; the kernel works on all of
//! them at once while the caller computes.

use std::io;

use io_uring::{opcode, types, IoUring};

use crate::backend::{Backend, Job};

pub(crate) struct Uring {
    ring: IoUring,
    /// Entries pushed but not yet handed to the kernel.
    unsubmitted: usize,
}

impl Uring {
    pub fn new(depth: usize) -> io::Result<Uring> {
        let entries = (depth.max(1) * crate::MAX_PARTS).next_power_of_two() as u32;
        let ring = IoUring::new(entries)?;
        Ok(Uring {
            ring,
            unsubmitted: 0,
        })
    }

    fn enter(&mut self, want: usize) -> io::Result<()> {
        loop {
            match self.ring.submit_and_wait(want) {
                Ok(_) => {
                    self.unsubmitted = 0;
                    return Ok(());
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // The completion queue is full: reap first (the caller's wait does).
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
}

impl Backend for Uring {
    fn submit(&mut self, job: Job) -> io::Result<()> {
        let entry = opcode::Read::new(types::Fd(job.fd), job.buf, job.len as u32)
            .offset(job.offset)
            .build()
            .user_data(job.tag);
        loop {
            // SAFETY: the buffer stays valid and untouched until the completion with this tag
            // is reaped (the pipeline's slot discipline), and the fd outlives the run.
            if unsafe { self.ring.submission().push(&entry) }.is_ok() {
                self.unsubmitted += 1;
                return Ok(());
            }
            // Submission queue full: hand its entries to the kernel and retry.
            self.enter(0)?;
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.unsubmitted > 0 {
            self.enter(0)?;
        }
        Ok(())
    }

    fn wait(&mut self, done: &mut Vec<(u64, io::Result<usize>)>) -> io::Result<()> {
        let before = done.len();
        loop {
            for cqe in self.ring.completion() {
                let r = cqe.result();
                let result = if r < 0 {
                    Err(io::Error::from_raw_os_error(-r))
                } else {
                    Ok(r as usize)
                };
                done.push((cqe.user_data(), result));
            }
            if done.len() > before {
                // Start whatever was queued meanwhile before the caller computes.
                if self.unsubmitted > 0 {
                    self.enter(0)?;
                }
                return Ok(());
            }
            self.enter(1)?;
        }
    }

    fn name(&self) -> &'static str {
        "io_uring"
    }
}
