//! Progress for long jobs: a bar with rate and ETA on a terminal, a log line every few seconds
//! otherwise (so CI logs and `nohup` runs still show that work is moving).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

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
    /// `unit` is "bytes" (shown as sizes) or a count noun like "edges".
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
                (true, _) => "{msg} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}",
                (false, "bytes") => "{msg} {spinner} {bytes} {bytes_per_sec}",
                (false, _) => "{msg} {spinner} {human_pos} {per_sec}",
            };
            bar.set_style(
                ProgressStyle::with_template(template)
                    .unwrap()
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
                format!("{:.2}M {}/s", rate / 1e6, self.unit)
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
