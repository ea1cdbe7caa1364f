//! The summary line of a run within `--memory` that read its lists from disk: how it read
//! them (the I/O mode, the backend), its passes' modes, bytes read, the read rate, and where its
//! time went.

use vastgraph_algos::harness::RunRecord;

use crate::size::human;

/// The line `vastgraph run --memory` prints for an out-of-core run: `io` is the record's
/// `out_of_core`.
pub fn summary_line(
    r: &RunRecord,
    io: &serde_json::Value,
    median: &str,
    notes: &str,
    verified: &str,
) -> String {
    let random_access = io["random_access"].as_bool().unwrap_or(false);
    let modes: Vec<&str> = r
        .iteration_modes
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    format!(
        "{} on {} out of core ({}, {} backend): {:.4} s{median}, {} iterations{notes}{}, read {} in {} requests \
         ({:.0} MB/s, amplification {:.2}, I/O wait {:.3} s, compute {:.3} s){}, peak RSS {}{verified}",
        r.algorithm,
        r.store,
        if random_access { "random access" } else { io["mode"].as_str().unwrap_or("?") },
        io["backend"].as_str().unwrap_or("?"),
        r.wall_seconds,
        r.iterations,
        passes_summary(&modes, random_access),
        human(r.bytes_read.unwrap_or(0)),
        r.io_requests.unwrap_or(0),
        r.read_mb_per_s.unwrap_or(0.0),
        r.io_amplification.unwrap_or(0.0),
        r.io_wait_seconds.unwrap_or(0.0),
        r.compute_seconds.unwrap_or(0.0),
        match io["cached_bytes"].as_u64().unwrap_or(0) {
            0 => String::new(),
            b => format!(", {} of short lists served from the cache", human(b)),
        },
        r.peak_rss_bytes.map_or("?".into(), human),
    )
}

/// " in 5 passes [selective x3, streaming x2]", or for a kernel that read its lists at random
/// through the cache of blocks, " (lists read through the block cache)". In a run of passes,
/// the lists a label-correcting queue read one at a time are "one at a time".
fn passes_summary(modes: &[&str], random_access: bool) -> String {
    match modes {
        ["random"] if random_access => " (lists read through the block cache)".to_string(),
        _ => {
            let shown: Vec<&str> = modes
                .iter()
                .map(|&m| if m == "random" { "one at a time" } else { m })
                .collect();
            format!(" in {} passes [{}]", modes.len(), summarize_modes(&shown))
        }
    }
}

/// "selective x3, streaming x2, selective" for a run of iteration modes.
fn summarize_modes(modes: &[&str]) -> String {
    let mut parts: Vec<(String, usize)> = Vec::new();
    for &m in modes {
        match parts.last_mut() {
            Some((last, count)) if last == m => *count += 1,
            _ => parts.push((m.to_string(), 1)),
        }
    }
    parts
        .iter()
        .map(|(m, c)| {
            if *c > 1 {
                format!("{m} x{c}")
            } else {
                m.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
