//! External sorting of arc records within a memory budget: records collect in one buffer;
//! a full buffer is sorted, de-duplicated and written out as a run; at the end the runs
//! are merged (see `merge`). A sort that fits in one buffer never touches the disk.
//!
//! Writing a run overlaps with collecting the next one, in the same buffer: a background
//! thread writes the sorted run front to back and publishes how far it got, and new
//! records go only into the part already written. The caller's parsing (or generating)
//! then runs while the kernel copies the run out, with no second buffer.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::cancel::check_cancel;
use crate::merge::merge_runs;
use crate::record::{dedup_sorted, sort_records, SortRecord};
use crate::run_file::{RunFile, RunSpace, RunWriter};
use crate::StoreError;

/// Records handed to consumers at a time: small enough to stay in cache, large enough to
/// make per-chunk work (cancellation checks, buffer flushes) negligible.
pub(crate) const CHUNK_RECORDS: usize = 1 << 16;

/// Bytes a background run writer writes before publishing its progress.
const RUN_WRITE_STEP_BYTES: usize = 8 << 20;
/// How long the caller sleeps when it has caught up with the run writer.
const CATCH_UP_WAIT: Duration = Duration::from_micros(200);

/// The bytes of buffer that a sort budget of `budget_bytes` allows: the sort itself may
/// need half of its buffer again as scratch (see `sort_records`).
pub(crate) fn sort_buffer_bytes(budget_bytes: u64) -> u64 {
    budget_bytes / 3 * 2
}

pub(crate) struct ExternalSorter<R: SortRecord> {
    /// Only the allocation is used: records live in `[0, filled)` of its capacity and are
    /// accessed through `base`, because the run writer reads part of it concurrently.
    buffer: Vec<R>,
    base: *mut R,
    /// Records collected before a run is spilled: the whole allocation, or its lower half
    /// for a sorter that keeps the upper half free (`with_half_free`).
    limit: usize,
    filled: usize,
    /// Records may be stored below this index: the whole buffer, or while a run is being
    /// written, the part the writer has finished with.
    writable: usize,
    writing: Option<BackgroundRun>,
    space: RunSpace,
    runs: Vec<RunFile>,
}

// SAFETY: `base` points into `buffer`, which the sorter owns; the only other user of the
// allocation is the run writer thread, which the sorter joins before freeing or re-sorting it.
unsafe impl<R: SortRecord> Send for ExternalSorter<R> {}

/// A run being written by a background thread from the front of the sorter's buffer.
struct BackgroundRun {
    records: usize,
    progress: Arc<WriteProgress>,
    thread: JoinHandle<Result<RunFile, StoreError>>,
}

struct WriteProgress {
    /// Records `[0, written)` are written and may be overwritten.
    written: AtomicUsize,
    /// The thread has stopped (finished or failed).
    done: AtomicBool,
}

/// The run's records, sent to the writer thread.
struct RunRecords<R>(*const R, usize);

// SAFETY: the records stay allocated until the thread is joined, and the sorter writes only
// below the published `written` index, which the thread never reads again.
unsafe impl<R: Send> Send for RunRecords<R> {}

/// The sorted, duplicate-free result, ready to stream.
pub(crate) enum Sorted<R: SortRecord> {
    InMemory(Vec<R>),
    /// The runs stay in `space` (deleted with it) until merged.
    Runs(Vec<RunFile>, RunSpace),
}

impl<R: SortRecord> ExternalSorter<R> {
    /// A sorter whose buffer holds `buffer_bytes` of records.
    pub(crate) fn new(buffer_bytes: u64, space: RunSpace) -> ExternalSorter<R> {
        Self::with_half_free(buffer_bytes, space, false)
    }

    /// A sorter of `buffer_bytes` that, with `half_free`, spills at half of it, so that a
    /// sort ending in memory leaves room in its vector for as many records again (a
    /// symmetrising build adds each arc's reverse there). The upper half is never touched
    /// before `finish`.
    pub(crate) fn with_half_free(
        buffer_bytes: u64,
        space: RunSpace,
        half_free: bool,
    ) -> ExternalSorter<R> {
        let capacity = (buffer_bytes / std::mem::size_of::<R>() as u64).max(2) as usize;
        let limit = if half_free { capacity / 2 } else { capacity };
        // Reserved, not touched: memory becomes resident only as records arrive.
        let mut buffer = Vec::with_capacity(capacity);
        let base = buffer.as_mut_ptr();
        ExternalSorter {
            buffer,
            base,
            limit,
            filled: 0,
            writable: limit,
            writing: None,
            space,
            runs: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, record: R) -> Result<(), StoreError> {
        if self.filled >= self.writable {
            self.make_room()?;
        }
        // SAFETY: filled < writable <= limit <= capacity, and the run writer no longer reads
        // anything below `writable`.
        unsafe { self.base.add(self.filled).write(record) };
        self.filled += 1;
        Ok(())
    }

    /// Wait for the run writer, or spill a full buffer.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) -> Result<(), StoreError> {
        loop {
            match &self.writing {
                Some(run) => {
                    let written = run.progress.written.load(Ordering::Acquire);
                    if written == run.records {
                        // The writer has read everything: the whole buffer is free again.
                        self.writable = self.limit;
                    } else if written > self.filled {
                        self.writable = written;
                    } else if run.progress.done.load(Ordering::Acquire) {
                        // Stopped early: collect its error.
                        self.join_writer()?;
                    } else {
                        std::thread::sleep(CATCH_UP_WAIT);
                        continue;
                    }
                    if self.filled < self.writable {
                        return Ok(());
                    }
                    // Full again while the last writer is still around: collect it first.
                    self.join_writer()?;
                }
                // Then wait for the new writer to free the front of the buffer.
                None => self.spill()?,
            }
        }
    }

    /// The records collected so far, for sorting. No run may be being written.
    fn records_mut(&mut self) -> &mut [R] {
        debug_assert!(self.writing.is_none());
        // SAFETY: [0, filled) was written by `push`, and no other thread uses the buffer.
        unsafe { std::slice::from_raw_parts_mut(self.base, self.filled) }
    }

    /// Sort and de-duplicate the buffer in place; returns the number of records left.
    fn sort_and_dedup(&mut self) -> usize {
        sort_records(self.records_mut());
        // SAFETY: the buffer holds `filled` initialised records; no other thread uses it.
        unsafe { self.buffer.set_len(self.filled) };
        dedup_sorted(&mut self.buffer);
        let len = self.buffer.len();
        // Back to tracking the length in `filled` (the Vec itself stays at length 0).
        unsafe { self.buffer.set_len(0) };
        len
    }

    /// Sort the full buffer and start writing it as a run in the background.
    fn spill(&mut self) -> Result<(), StoreError> {
        check_cancel()?;
        let records = self.sort_and_dedup();
        let writer = RunWriter::<R>::create(&mut self.space)?;
        let path = writer.path().to_path_buf();
        let progress = Arc::new(WriteProgress {
            written: AtomicUsize::new(0),
            done: AtomicBool::new(false),
        });
        let run = RunRecords(self.base as *const R, records);
        let thread_progress = Arc::clone(&progress);
        let thread = std::thread::Builder::new()
            .name("vastgraph-run-writer".into())
            .spawn(move || {
                let result = write_run(writer, run, &thread_progress);
                thread_progress.done.store(true, Ordering::Release);
                result
            })
            .map_err(|e| StoreError::io(path, e))?;
        self.writing = Some(BackgroundRun {
            records,
            progress,
            thread,
        });
        self.filled = 0;
        self.writable = 0;
        Ok(())
    }

    /// Wait for the background writer and record its run.
    fn join_writer(&mut self) -> Result<(), StoreError> {
        if let Some(run) = self.writing.take() {
            let result = match run.thread.join() {
                Ok(result) => result,
                Err(panic) => std::panic::resume_unwind(panic),
            };
            self.writable = self.limit;
            self.runs.push(result?);
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<Sorted<R>, StoreError> {
        self.join_writer()?;
        check_cancel()?;
        if self.runs.is_empty() {
            let records = self.sort_and_dedup();
            let mut buffer = std::mem::take(&mut self.buffer);
            // SAFETY: the first `records` entries are initialised (sorted, de-duplicated).
            unsafe { buffer.set_len(records) };
            self.filled = 0;
            return Ok(Sorted::InMemory(buffer));
        }
        if self.filled > 0 {
            self.spill()?;
            self.join_writer()?;
        }
        // Give the buffer's memory back before the merge allocates its own.
        self.buffer = Vec::new();
        self.filled = 0;
        let runs = std::mem::take(&mut self.runs);
        let space = std::mem::take(&mut self.space);
        Ok(Sorted::Runs(runs, space))
    }
}

impl<R: SortRecord> Drop for ExternalSorter<R> {
    fn drop(&mut self) {
        // The writer thread reads the buffer: it must stop before the buffer is freed.
        if let Some(run) = self.writing.take() {
            let _ = run.thread.join();
        }
    }
}

/// The writer thread: write the run in steps, publishing progress after each.
fn write_run<R: SortRecord>(
    mut writer: RunWriter<R>,
    run: RunRecords<R>,
    progress: &WriteProgress,
) -> Result<RunFile, StoreError> {
    let step = (RUN_WRITE_STEP_BYTES / std::mem::size_of::<R>()).max(1);
    let RunRecords(base, records) = run;
    let mut start = 0;
    while start < records {
        check_cancel()?;
        let end = (start + step).min(records);
        // SAFETY: [start, end) is part of the sorted run, initialised, and the sorter does
        // not write there until `written` passes `end`.
        let chunk = unsafe { std::slice::from_raw_parts(base.add(start), end - start) };
        writer.append(chunk)?;
        progress.written.store(end, Ordering::Release);
        start = end;
    }
    writer.finish()
}

impl<R: SortRecord> Sorted<R> {
    /// Feed the records in order, in chunks, to `consume`; a merge may use up to
    /// `merge_budget_bytes` for its read buffers.
    pub(crate) fn for_each_chunk(
        self,
        merge_budget_bytes: u64,
        consume: impl FnMut(&[R]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        match self {
            Sorted::InMemory(records) => for_each_chunk_of(&records, consume),
            Sorted::Runs(runs, mut space) => {
                merge_runs(runs, &mut space, merge_budget_bytes, consume)
            }
        }
    }
}

/// Hand `records` to `consume` a chunk at a time, checking for cancellation between chunks.
pub(crate) fn for_each_chunk_of<R: SortRecord>(
    records: &[R],
    mut consume: impl FnMut(&[R]) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    for chunk in records.chunks(CHUNK_RECORDS) {
        check_cancel()?;
        consume(chunk)?;
    }
    Ok(())
}
