//! The device's sequential bandwidth and random-read IOPS, measured with direct reads of a file
//! on it and cached per device, so that the engine's cost model uses numbers of this disk.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::aligned::ALIGN;
use crate::file::DataFile;
use crate::pipeline::{Extent, IoEngine};

/// Stop each measurement after this long (or after reading the byte cap below); a file below
/// `MIN_CACHED_FILE_BYTES` gets a share of it in proportion to its size, down to a tenth.
const MEASURE_SECONDS: f64 = 0.5;
const SEQUENTIAL_CAP_BYTES: u64 = 1 << 30;
const RANDOM_CAP_READS: u64 = 200_000;
/// A smaller file may sit in a cache below the file system (a virtual disk's host page cache):
/// its measurement is used for the run but not cached as the device's.
const MIN_CACHED_FILE_BYTES: u64 = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceProfile {
    /// Sequential read bandwidth with large requests at depth, bytes per second.
    pub sequential_bytes_per_second: f64,
    /// Random page-sized reads per second at depth.
    pub random_reads_per_second: f64,
}

impl DeviceProfile {
    /// Seconds to read `bytes` in `requests` requests: each request costs a random read's share of
    /// the device's IOPS and each byte its share of the bandwidth.
    pub fn cost_seconds(&self, bytes: u64, requests: u64) -> f64 {
        requests as f64 / self.random_reads_per_second
            + bytes as f64 / self.sequential_bytes_per_second
    }

    /// The gap below which reading the gap is cheaper than a separate request.
    pub fn break_even_gap_bytes(&self) -> u64 {
        (self.sequential_bytes_per_second / self.random_reads_per_second) as u64
    }
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    profile: DeviceProfile,
    measured_unix: u64,
    file: String,
}

/// A stable key for the device holding `file`: its `major:minor` and, where sysfs names it, the
/// block device's name.
pub fn device_key(file: &DataFile) -> io::Result<String> {
    let (major, minor) = file.device()?;
    let name = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}"))
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()));
    Ok(match name {
        Some(name) => format!("{major}:{minor}:{name}"),
        None => format!("{major}:{minor}"),
    })
}

/// `$XDG_CACHE_HOME/vastgraph/devices.json`, or `~/.cache/vastgraph/devices.json`.
pub fn cache_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("vastgraph").join("devices.json"))
}

/// The cached profile of `file`'s device, or a fresh measurement (then cached; a cache that
/// cannot be written is only logged). With `remeasure`, the device is measured again and the
/// cached profile replaced: a measurement taken while the disk was busy (say, right after a
/// large write) would otherwise steer every later run's cost model.
pub fn load_or_calibrate(
    file: &DataFile,
    engine: &mut IoEngine,
    remeasure: bool,
) -> io::Result<DeviceProfile> {
    let key = device_key(file)?;
    let path = cache_path();
    let mut cache: BTreeMap<String, CacheEntry> = path
        .as_ref()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    if let Some(entry) = cache.get(&key).filter(|_| !remeasure) {
        log::info!(
            "device {key}: cached profile {:.0} MB/s sequential, {:.0} random reads/s",
            entry.profile.sequential_bytes_per_second / 1e6,
            entry.profile.random_reads_per_second
        );
        return Ok(entry.profile);
    }
    let profile = calibrate(file, engine)?;
    log::info!(
        "device {key}: measured {:.0} MB/s sequential, {:.0} random reads/s ({} backend{})",
        profile.sequential_bytes_per_second / 1e6,
        profile.random_reads_per_second,
        engine.backend_name(),
        if file.is_direct() {
            ", O_DIRECT"
        } else {
            ", page cache"
        }
    );
    // Only direct reads of a large file measure the device; other measurements are not cached.
    if let (Some(path), true) = (
        path,
        file.is_direct() && file.len() >= MIN_CACHED_FILE_BYTES,
    ) {
        cache.insert(
            key,
            CacheEntry {
                profile,
                measured_unix: SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
                file: file.path().display().to_string(),
            },
        );
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                // Unique even where every process is process 1 (a container).
                let nanos = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos());
                let tmp = path.with_extension(format!("json.tmp-{}-{nanos}", std::process::id()));
                std::fs::write(&tmp, serde_json::to_vec_pretty(&cache).unwrap_or_default())?;
                std::fs::rename(&tmp, &path)
            });
        if let Err(e) = written {
            log::warn!("cannot cache the device profile in {}: {e}", path.display());
        }
    }
    Ok(profile)
}

/// The time each of `calibrate`'s two measurements may take on a file of `len` bytes. A small
/// file's measurement is not cached, so it is taken again by every run on it: a full second
/// would be most of such a run, whose passes over a few megabytes the cost model cannot
/// make much slower or faster.
fn measure_seconds(len: u64) -> f64 {
    MEASURE_SECONDS * (len as f64 / MIN_CACHED_FILE_BYTES as f64).clamp(0.1, 1.0)
}

/// Measures sequential bandwidth (whole buffers, read in order, at the engine's depth) and random
/// IOPS (single pages at random offsets) by reading `file`. A small file is read repeatedly;
/// with direct I/O every pass goes to the device.
pub fn calibrate(file: &DataFile, engine: &mut IoEngine) -> io::Result<DeviceProfile> {
    let len = file.len() / ALIGN as u64 * ALIGN as u64;
    if len == 0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: too small to measure the device", file.path().display()),
        ));
    }
    let chunk = engine.config().buffer_bytes as u64;
    let seconds_each = measure_seconds(len);
    let one_part = |engine: &mut IoEngine, extents: &mut dyn Iterator<Item = Extent>| {
        let started = Instant::now();
        let totals = engine.run_one_file(file, extents.map(|e| (e, ())), false, |_| Ok(()))?;
        Ok::<_, io::Error>((
            totals.bytes_read,
            totals.requests,
            started.elapsed().as_secs_f64(),
        ))
    };

    let started = Instant::now();
    let mut position = 0u64;
    let mut sequential = (0..)
        .map_while(|_| {
            if position >= SEQUENTIAL_CAP_BYTES.max(len.min(SEQUENTIAL_CAP_BYTES))
                || started.elapsed().as_secs_f64() > seconds_each
            {
                return None;
            }
            let offset = position % len;
            let take = chunk.min(len - offset);
            position += take;
            Some(Extent {
                offset,
                len: take as usize,
            })
        })
        .fuse();
    let (bytes, _, seconds) = one_part(engine, &mut sequential)?;
    let sequential_bytes_per_second = bytes as f64 / seconds.max(1e-6);

    let pages = len / ALIGN as u64;
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ len;
    let started = Instant::now();
    let mut count = 0u64;
    let mut random = std::iter::from_fn(|| {
        if count >= RANDOM_CAP_READS || started.elapsed().as_secs_f64() > seconds_each {
            return None;
        }
        count += 1;
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        Some(Extent {
            offset: (state % pages) * ALIGN as u64,
            len: ALIGN,
        })
    });
    let (_, requests, seconds) = one_part(engine, &mut random)?;
    let random_reads_per_second = requests as f64 / seconds.max(1e-6);
    Ok(DeviceProfile {
        sequential_bytes_per_second,
        random_reads_per_second,
    })
}
