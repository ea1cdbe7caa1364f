//! The fallback backend: a fixed pool of threads, each blocking in `pread` on one read at a
//! time, so that up to `threads` reads are in flight at the device.

use std::io;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::backend::{Backend, Job};

/// More threads than this add no depth a SATA or NVMe device can use, only memory.
const MAX_THREADS: usize = 64;

pub(crate) struct PreadPool {
    jobs: Option<Sender<Job>>,
    results: Receiver<(u64, io::Result<usize>)>,
    workers: Vec<JoinHandle<()>>,
    queued: Vec<Job>,
}

impl PreadPool {
    pub fn new(depth: usize) -> PreadPool {
        let (jobs, job_rx) = channel::<Job>();
        let (result_tx, results) = channel();
        let job_rx = Arc::new(Mutex::new(job_rx));
        let workers = (0..depth.clamp(1, MAX_THREADS))
            .map(|i| {
                let job_rx = Arc::clone(&job_rx);
                let result_tx = result_tx.clone();
                std::thread::Builder::new()
                    .name(format!("vastgraph-pread-{i}"))
                    .stack_size(64 << 10)
                    .spawn(move || loop {
                        let job = match job_rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        if result_tx.send((job.tag, read_fully(&job))).is_err() {
                            return;
                        }
                    })
                    .expect("spawn a pread worker")
            })
            .collect();
        PreadPool {
            jobs: Some(jobs),
            results,
            workers,
            queued: Vec::new(),
        }
    }
}

/// One pread, retried on EINTR. A short count is returned as is: the pipeline resubmits the rest.
fn read_fully(job: &Job) -> io::Result<usize> {
    loop {
        // SAFETY: the pipeline owns `buf` for `len` bytes and leaves it alone until this job's
        // result is received.
        let r = unsafe {
            libc::pread(
                job.fd,
                job.buf as *mut libc::c_void,
                job.len,
                job.offset as libc::off_t,
            )
        };
        if r >= 0 {
            return Ok(r as usize);
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EINTR) {
            return Err(e);
        }
    }
}

impl Backend for PreadPool {
    fn submit(&mut self, job: Job) -> io::Result<()> {
        self.queued.push(job);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        let jobs = self.jobs.as_ref().expect("pool is open");
        for job in self.queued.drain(..) {
            jobs.send(job)
                .map_err(|_| io::Error::other("the pread workers stopped"))?;
        }
        Ok(())
    }

    fn wait(&mut self, done: &mut Vec<(u64, io::Result<usize>)>) -> io::Result<()> {
        self.flush()?;
        let first = self
            .results
            .recv()
            .map_err(|_| io::Error::other("the pread workers stopped"))?;
        done.push(first);
        done.extend(self.results.try_iter());
        Ok(())
    }

    fn name(&self) -> &'static str {
        "pread"
    }
}

impl Drop for PreadPool {
    fn drop(&mut self) {
        // Closing the job channel ends every worker's loop.
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}
