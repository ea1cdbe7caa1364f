//! The fallback backend: a pool of threads, each blocking in `pread` on one read at a time, so
//! that up to `depth` reads are in flight at the device. Threads start as reads are sent, so a
//! pipeline that keeps few reads outstanding (a small graph, a short pass) starts few.

use std::io;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::backend::{Backend, Job};

/// More threads than this add no depth a SATA or NVMe device can use, only memory.
const MAX_THREADS: usize = 64;

pub(crate) struct PreadPool {
    jobs: Option<Sender<Job>>,
    /// Shared by the workers: each takes the next job when it is free.
    job_rx: Arc<Mutex<Receiver<Job>>>,
    result_tx: Sender<(u64, io::Result<usize>)>,
    results: Receiver<(u64, io::Result<usize>)>,
    /// Started as reads are sent, never more than `depth` nor more than the reads in flight at
    /// once: a pool that only ever has one read outstanding runs one thread.
    workers: Vec<JoinHandle<()>>,
    depth: usize,
    /// Reads sent to the workers whose results have not been received.
    in_flight: usize,
    queued: Vec<Job>,
}

impl PreadPool {
    pub fn new(depth: usize) -> PreadPool {
        let (jobs, job_rx) = channel::<Job>();
        let (result_tx, results) = channel();
        PreadPool {
            jobs: Some(jobs),
            job_rx: Arc::new(Mutex::new(job_rx)),
            result_tx,
            results,
            workers: Vec::new(),
            depth: depth.clamp(1, MAX_THREADS),
            in_flight: 0,
            queued: Vec::new(),
        }
    }

    /// Starts one more worker.
    fn spawn_worker(&mut self) -> io::Result<()> {
        let job_rx = Arc::clone(&self.job_rx);
        let result_tx = self.result_tx.clone();
        let worker = std::thread::Builder::new()
            .name(format!("vastgraph-pread-{}", self.workers.len()))
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
            })?;
        self.workers.push(worker);
        Ok(())
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
        let queued = std::mem::take(&mut self.queued);
        for job in queued {
            self.in_flight += 1;
            if self.workers.len() < self.in_flight.min(self.depth) {
                self.spawn_worker()?;
            }
            let jobs = self.jobs.as_ref().expect("pool is open");
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
        let before = done.len();
        done.push(first);
        done.extend(self.results.try_iter());
        self.in_flight -= done.len() - before;
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
