//! Progress for long jobs: a bar with rate and ETA on a terminal, a log line every few seconds
//! otherwise (so CI logs and `nohup` runs still show that work is moving).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

pub struct Progress {
    bar: Option<ProgressBar>,
    what: String,
    unit: &'static str,
    total: Option<u64>,
    started: Instant,
    last_log: Instant,
}

const LOG_EVERY: Duration = Duration::from_secs(5);

impl Progress {
    /// `unit` is "bytes" (shown as sizes), a count noun like "edges", or "" for work that is
    /// not counted (a spinner and the time it has taken).
    pub fn new(what: &str, total: Option<u64>, unit: &'static str, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = match total {
                Some(t) => ProgressBar::new(t),
                None => ProgressBar::new_spinner(),
            };
            let template = match (total.is_some(), unit) {
                (true, "bytes") => {
                    "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}"
                }
                (true, _) => "{msg} [{bar:30}] {human_pos}/{human_len} {rate} eta {eta}",
                (false, "bytes") => "{msg} {spinner} {bytes} {bytes_per_sec}",
                (false, "") => "{msg} {spinner} {elapsed}",
                (false, _) => "{msg} {spinner} {human_pos} {rate}",
            };
            let rate = move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&human_rate(state.per_sec(), unit));
            };
            bar.set_style(
                ProgressStyle::with_template(template)
                    .unwrap()
                    .with_key("rate", rate)
                    .progress_chars("=> "),
            );
            bar.set_message(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let now = Instant::now();
        Progress {
            bar,
            what: what.to_string(),
            unit,
            total,
            started: now,
            last_log: now,
        }
    }

    pub fn set(&mut self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            return;
        }
        if self.last_log.elapsed() >= LOG_EVERY {
            self.last_log = Instant::now();
            let secs = self.started.elapsed().as_secs_f64();
            let rate = done as f64 / secs.max(1e-9);
            let pct = self
                .total
                .map(|t| format!(" ({:.1}%)", 100.0 * done as f64 / t.max(1) as f64))
                .unwrap_or_default();
            let shown = if self.unit == "bytes" {
                crate::size::human(done)
            } else {
                format!("{done} {}", self.unit)
            };
            let rate = if self.unit == "bytes" {
                format!("{}/s", crate::size::human(rate as u64))
            } else {
                human_rate(rate, self.unit)
            };
            eprintln!("[{:>7.1}s] {}: {shown}{pct}, {rate}", secs, self.what);
        }
    }

    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A run's status while it runs, read from [`vastgraph_engine::progress`] five times a second:
/// a spinner line on a terminal, a log line every few seconds otherwise, nothing when quiet.
/// Dropping it stops the reader and clears the line.
pub struct RunStatus {
    stop: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
    bar: Option<ProgressBar>,
}

impl RunStatus {
    /// `bound`: the most iterations the run may take, when its algorithm caps them.
    pub fn start(what: &str, bound: Option<u64>, quiet: bool) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        if quiet {
            return RunStatus {
                stop,
                reader: None,
                bar: None,
            };
        }
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix} [{elapsed}] {msg}").unwrap(),
            );
            bar.set_prefix(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let (shown, flag, what) = (bar.clone(), stop.clone(), what.to_string());
        let reader = std::thread::spawn(move || {
            let started = Instant::now();
            let mut logged = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let line = run_line(
                    &vastgraph_engine::progress::snapshot(),
                    bound,
                    started.elapsed(),
                );
                match &shown {
                    Some(bar) => bar.set_message(line),
                    None if logged.elapsed() >= LOG_EVERY && !line.is_empty() => {
                        eprintln!("{what}: {line}");
                        logged = Instant::now();
                    }
                    None => {}
                }
            }
        });
        RunStatus {
            stop,
            reader: Some(reader),
            bar,
        }
    }
}

impl Drop for RunStatus {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A run's progress in a line: `iteration 12/100 (eta at most 40s), 1.2M active, read 310.0 MiB
/// at 402.1MB/s (streaming)`. The time left assumes the remaining iterations cost what the
/// finished ones did, and the run may converge sooner, hence "at most".
pub fn run_line(
    p: &vastgraph_engine::progress::RunProgress,
    bound: Option<u64>,
    elapsed: Duration,
) -> String {
    let mut parts = Vec::new();
    match (p.iterations, bound) {
        (0, _) if p.operations > 0 => parts.push(format!("step {}", p.operations)),
        (0, _) => {}
        (done, Some(bound)) if bound >= done => {
            let left = elapsed.mul_f64((bound - done) as f64 / done as f64);
            parts.push(format!(
                "iteration {done}/{bound} (eta at most {})",
                indicatif::HumanDuration(left)
            ));
        }
        (done, _) => parts.push(format!("iteration {done}")),
    }
    if p.active > 0 {
        parts.push(format!("{} active", human_count(p.active as f64)));
    }
    if p.passes > 0 {
        let rate = p.bytes_read as f64 / elapsed.as_secs_f64().max(1e-9);
        parts.push(format!(
            "read {} at {}B/s ({})",
            crate::size::human(p.bytes_read),
            human_count(rate),
            p.mode.unwrap_or("mixed")
        ));
    }
    parts.join(", ")
}

/// A count as people write it: `1.2M`, `950`.
pub fn human_count(count: f64) -> String {
    let (value, prefix) = match count {
        c if c >= 1e9 => (c / 1e9, "G"),
        c if c >= 1e6 => (c / 1e6, "M"),
        c if c >= 1e3 => (c / 1e3, "k"),
        c => (c, ""),
    };
    let digits = if prefix.is_empty() { 0 } else { 1 };
    format!("{value:.digits$}{prefix}")
}

/// A rate as people write it: `24.3M edges/s`.
pub fn human_rate(per_second: f64, unit: &str) -> String {
    format!("{} {unit}/s", human_count(per_second))
}

/// Shows the phases a store operation reports ([`vastgraph_store::progress`]) one after
/// another, each as a [`Progress`] of arcs.
pub struct Phases {
    quiet: bool,
    started: Instant,
    current: Mutex<Option<Progress>>,
}

impl Phases {
    pub fn new(quiet: bool) -> Arc<Phases> {
        Arc::new(Phases {
            quiet,
            started: Instant::now(),
            current: Mutex::new(None),
        })
    }

    /// Clears the last phase's bar.
    pub fn finish(&self) {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = current.take() {
            p.finish();
        }
    }
}

impl vastgraph_store::progress::Observer for Phases {
    fn phase(&self, name: &str, total: Option<u64>) {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = current.take() {
            p.finish();
        }
        // Off a terminal, a line as each phase starts (a long one adds lines as it goes).
        if !self.quiet && !std::io::stderr().is_terminal() {
            eprintln!("[{:>7.1}s] {name}", self.started.elapsed().as_secs_f64());
        }
        let unit = if total.is_some() { "arcs" } else { "" };
        *current = Some(Progress::new(name, total, unit, self.quiet));
    }

    fn note(&self, line: &str) {
        // Sent before the first phase's bar, so it cannot break one.
        if !self.quiet {
            eprintln!("{line}");
        }
    }

    fn advance(&self, done: u64) {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = current.as_mut() {
            p.set(done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::human_rate;

    #[test]
    fn a_run_line_counts_iterations_down_to_the_bound() {
        use vastgraph_engine::progress::RunProgress;
        let run = RunProgress {
            operations: 7,
            iterations: 5,
            active: 1_200_000,
            passes: 5,
            bytes_read: 400 << 20,
            mode: Some("streaming"),
        };
        let line = super::run_line(&run, Some(20), std::time::Duration::from_secs(10));
        assert_eq!(
            line,
            "iteration 5/20 (eta at most 30 seconds), 1.2M active, read 400.0 MiB at 41.9MB/s \
             (streaming)"
        );
        let traversal = RunProgress {
            operations: 3,
            active: 950,
            ..Default::default()
        };
        let line = super::run_line(&traversal, None, std::time::Duration::from_secs(1));
        assert_eq!(line, "step 3, 950 active");
        assert_eq!(
            super::run_line(&RunProgress::default(), None, Default::default()),
            ""
        );
    }

    #[test]
    fn rates_read_as_people_write_them() {
        assert_eq!(human_rate(24_345_851.716_1, "edges"), "24.3M edges/s");
        assert_eq!(human_rate(1.5e9, "arcs"), "1.5G arcs/s");
        assert_eq!(human_rate(950.2, "edges"), "950 edges/s");
        assert_eq!(human_rate(12_500.0, "lines"), "12.5k lines/s");
        assert_eq!(super::human_count(1_234_567.0), "1.2M");
    }
}
