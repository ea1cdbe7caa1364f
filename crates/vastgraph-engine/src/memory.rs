//! Memory accounting for the run statistics: the heap an algorithm allocates (its mutable
//! state, since the graph itself is mapped read-only and never on the heap) and the process's
//! peak resident set.
//!
//! A binary opts in with `#[global_allocator] static A: CountingAllocator = CountingAllocator;`.
//! Without it the counters stay at zero.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

pub struct CountingAllocator;

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            grow(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            if new_size >= layout.size() {
                grow(new_size - layout.size());
            } else {
                CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[inline]
fn grow(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

/// Heap bytes live now (0 unless the counting allocator is installed).
pub fn heap_bytes() -> usize {
    CURRENT.load(Ordering::Relaxed)
}

/// Largest heap size since the last [`reset_heap_peak`].
pub fn heap_peak_bytes() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Starts a new peak window at the current heap size and returns that baseline.
pub fn reset_heap_peak() -> usize {
    let now = CURRENT.load(Ordering::Relaxed);
    PEAK.store(now, Ordering::Relaxed);
    now
}

/// Whether the counting allocator is installed in this process.
pub fn counting_enabled() -> bool {
    let before = heap_bytes();
    let probe = std::hint::black_box(vec![0u8; 4096]);
    let after = heap_bytes();
    drop(probe);
    after >= before + 4096
}

/// The process's peak resident set size (VmHWM), in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k * 1024)
}

/// The process's current resident set size (VmRSS), in bytes.
pub fn rss_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k * 1024)
}

fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// Asks the kernel to back `values` with transparent huge pages (Linux, THP in `madvise` mode),
/// for arrays read at random: 2 MiB pages keep a multi-megabyte array within the TLB's reach.
/// Acts at once on pages not touched yet (a large `vec![0; n]` is fresh, untouched mappings),
/// later through khugepaged on the rest. A hint: failures and other platforms are ignored.
pub fn advise_huge_pages<T>(values: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = values.as_mut_ptr() as usize;
        let end = start + std::mem::size_of_val(values);
        let (lo, hi) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if hi > lo {
            // SAFETY: the range lies inside memory this slice borrows exclusively; MADV_HUGEPAGE
            // changes only how it is backed, never its contents.
            unsafe { libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = values;
}

/// Asks for the cache line holding the byte at `x` to be loaded; a hint only. Takes a raw
/// pointer so that an address past the end of an array (built with `wrapping_add`) is fine:
/// a prefetch reads nothing and never faults.
#[inline(always)]
pub fn prefetch<T>(x: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault; SSE is part of x86-64.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(x as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// `n` values `init(i)`, filled in parallel into memory advised onto transparent huge pages
/// before its first touch, so the advice applies at once: for vertex arrays read or updated at
/// random once per arc (contributions, union-find parents, distances).
pub fn huge_page_vec<T: Send>(n: usize, init: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    use rayon::prelude::*;
    let mut values = Vec::with_capacity(n);
    advise_huge_pages(values.spare_capacity_mut());
    // An indexed iterator of known length writes in place into the reserved capacity.
    values.par_extend((0..n).into_par_iter().map(init));
    values
}

/// Measures the heap peak of `f` above the heap live when it starts.
pub fn measure_heap_peak<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = reset_heap_peak();
    let out = f();
    (out, heap_peak_bytes().saturating_sub(base))
}

/// Bytes this process may still allocate: the smaller of the memory the kernel reports
/// available (MemAvailable) and the room left in a memory cgroup's limit; None where neither
/// can be read.
pub fn available_bytes() -> Option<u64> {
    let available = meminfo_bytes("MemAvailable:");
    let cgroup = cgroup_room();
    match (available, cgroup) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// A figure of /proc/meminfo (`MemTotal:`, `MemAvailable:`, ...) in bytes.
pub fn meminfo_bytes(key: &str) -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Room left below this process's memory cgroup limit (v2, then v1), if it has one.
fn cgroup_room() -> Option<u64> {
    let read = |p: &str| std::fs::read_to_string(p).ok()?.trim().parse::<u64>().ok();
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let (limit, usage) = if controllers.is_empty() {
            let dir = format!("/sys/fs/cgroup{path}");
            (
                read(&format!("{dir}/memory.max")),
                read(&format!("{dir}/memory.current")),
            )
        } else if controllers.split(',').any(|c| c == "memory") {
            let dir = format!("/sys/fs/cgroup/memory{path}");
            (
                read(&format!("{dir}/memory.limit_in_bytes")),
                read(&format!("{dir}/memory.usage_in_bytes")),
            )
        } else {
            continue;
        };
        if let (Some(limit), Some(usage)) = (limit, usage) {
            // v1 reports "no limit" as a number near 2^63.
            if limit < 1 << 60 {
                return Some(limit.saturating_sub(usage));
            }
        }
    }
    None
}

/// Checks, before it is allocated, that `bytes` for `what` (an output whose size the user's
/// parameters decide) fit the memory available; the error gives both sizes, so that a request
/// for terabytes fails at once instead of aborting the process. (Within a budget, such an
/// output is part of the state the run's plan counts, and a budget too small is refused there.)
pub fn ensure_fits(what: &str, bytes: u64) -> Result<(), String> {
    match available_bytes() {
        Some(available) if bytes > available => Err(format!(
            "{what} would take {}, more than the {} of memory available",
            human_bytes(bytes),
            human_bytes(available)
        )),
        _ => Ok(()),
    }
}

/// The most worker threads a run may ask for: far more than any machine has cores, so a
/// typo (`--threads 100000`) is refused instead of spawning a thread per requested worker.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    (16 * cores).max(256)
}

/// Checks a requested thread count: at least 1 and at most [`max_threads`].
pub fn check_threads(threads: usize) -> Result<usize, String> {
    let max = max_threads();
    match threads {
        0 => Err("the thread count must be at least 1".into()),
        t if t > max => Err(format!(
            "{t} threads is more than the limit of {max} (16 per core, at least 256)"
        )),
        t => Ok(t),
    }
}

/// The phrase a refused budget ends with: the least budget that runs, as `--memory` takes it,
/// and, where that is more than the machine's memory, that too (no budget helps there).
pub fn minimum_budget_phrase(minimum: u64) -> String {
    // A plan's sum saturates rather than wraps: its minimum is then no number of bytes.
    if minimum == u64::MAX {
        return "the minimum is more than 2^64 bytes, which no budget holds".into();
    }
    let mut text = format!(
        "the minimum is --memory {} ({minimum} bytes)",
        budget_flag_value(minimum)
    );
    if let Some(ram) = meminfo_bytes("MemTotal:").filter(|&ram| minimum > ram) {
        text.push_str(&format!(
            ", more than this machine's {} of memory",
            human_bytes(ram)
        ));
    }
    text
}

/// The least whole number of KiB (below 16 MiB) or MiB that holds `bytes`, as `--memory` takes
/// it: "577KiB", "6MiB". Rounding up to whole MiB would name up to twice a small minimum.
pub fn budget_flag_value(bytes: u64) -> String {
    match bytes < 16 << 20 {
        true => format!("{}KiB", bytes.div_ceil(1 << 10)),
        false => format!("{}MiB", bytes.div_ceil(1 << 20)),
    }
}

/// `bytes` in the largest binary unit that keeps it at 1 or more: "512 B", "1.0 KiB", "3.9 GiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_rss() {
        assert!(peak_rss_bytes().unwrap() >= rss_bytes().unwrap() / 2);
        assert!(rss_bytes().unwrap() > 0);
    }

    #[test]
    fn outputs_larger_than_memory_are_refused_and_small_ones_pass() {
        assert!(available_bytes().unwrap() > 0);
        assert!(ensure_fits("a small output", 4096).is_ok());
        let err = ensure_fits("4 TiB of walks", 4 << 40).unwrap_err();
        assert!(err.contains("4.0 TiB"), "{err}");
    }

    #[test]
    fn a_minimum_beyond_the_machine_says_so() {
        let small = minimum_budget_phrase(8 << 20);
        assert_eq!(small, "the minimum is --memory 8192KiB (8388608 bytes)");
        // Rounded up to the next KiB below 16 MiB, to the next MiB above: never below the
        // minimum, and never twice it.
        assert!(minimum_budget_phrase(590_108).contains("--memory 577KiB (590108 bytes)"));
        assert!(minimum_budget_phrase((20 << 20) + 1).contains("--memory 21MiB"));
        let ram = meminfo_bytes("MemTotal:").unwrap();
        let huge = minimum_budget_phrase(ram + 1);
        assert!(huge.contains("more than this machine's"), "{huge}");
        assert!(huge.contains(&human_bytes(ram)), "{huge}");
        assert!(!minimum_budget_phrase(u64::MAX).contains("--memory"));
    }

    #[test]
    fn thread_counts_are_bounded() {
        assert!(check_threads(0).is_err());
        assert_eq!(check_threads(2), Ok(2));
        let err = check_threads(100_000).unwrap_err();
        assert!(err.contains("100000") && err.contains("limit"), "{err}");
    }
}
