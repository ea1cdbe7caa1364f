//! Disk reads that do not go through the page cache, for the out-of-core engine.
//!
//! - [`DataFile`]: a file opened with `O_DIRECT` (falling back to buffered reads, with a log line,
//!   on file systems that refuse it).
//! - [`IoEngine`]: a bounded pool of page-aligned buffers and a backend that keeps many reads in
//!   flight: io_uring where the kernel allows it, else a pool of threads calling `pread` (and the
//!   log says so). [`IoEngine::run`] streams a sequence of byte ranges through the pool and hands
//!   each completed batch to the caller while later reads are still in flight, so compute overlaps
//!   I/O.
//! - [`DeviceProfile`]: the device's sequential bandwidth and random-read IOPS, measured once per
//!   device and cached, for the engine's cost model.

mod aligned;
mod backend;
mod calibrate;
mod file;
mod pipeline;
mod pread;
mod uring;

pub use aligned::{AlignedBuf, ALIGN};
pub use backend::BackendChoice;
pub use calibrate::{cache_path, calibrate, device_key, load_or_calibrate, DeviceProfile};
pub use file::{DataFile, ReadCheck};
pub use pipeline::{Extent, IoConfig, IoEngine, IoTotals, Loaded, MAX_PARTS};
