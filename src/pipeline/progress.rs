//! The progress bar: records, pages, MB/s, pages/s and an ETA by input bytes.
//! Hidden when standard error is not a terminal or with `--quiet`.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::output::Counts;

pub struct Progress {
    bar: ProgressBar,
    started: Instant,
    pages_done: AtomicU64,
    records_done: AtomicU64,
    bytes_done: AtomicU64,
}

impl Progress {
    /// `total_bytes`: the summed size of the inputs, when known.
    pub fn new(total_bytes: Option<u64>, quiet: bool) -> Self {
        let visible = !quiet && std::io::stderr().is_terminal();
        let bar = match (visible, total_bytes) {
            (false, _) => ProgressBar::hidden(),
            (true, Some(total)) => ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr()),
            (true, None) => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
        };
        let template = if total_bytes.is_some() { "{elapsed_precise} [{bar:30}] {percent:>3}% {msg} ETA {eta}" } else { "{elapsed_precise} {spinner} {msg}" };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        if visible {
            bar.enable_steady_tick(Duration::from_millis(250));
        }
        Self { bar, started: Instant::now(), pages_done: AtomicU64::new(0), records_done: AtomicU64::new(0), bytes_done: AtomicU64::new(0) }
    }

    /// Progress within the current input: input bytes read, records read, pages written.
    pub fn advance(&self, position: u64, records: u64, pages: u64) {
        let bytes = self.bytes_done.load(Ordering::Relaxed) + position;
        self.bar.set_position(bytes);
        let pages = self.pages_done.load(Ordering::Relaxed) + pages;
        let records = self.records_done.load(Ordering::Relaxed) + records;
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        self.bar.set_message(format!("{records} records, {pages} pages, {:.1} MB/s, {:.0} pages/s", bytes as f64 / 1e6 / secs, pages as f64 / secs));
    }

    /// Called after each input with its size and final counts.
    pub fn input_finished(&self, input_size: u64, counts: Option<&Counts>) {
        self.bytes_done.fetch_add(input_size, Ordering::Relaxed);
        if let Some(counts) = counts {
            self.pages_done.fetch_add(counts.pages, Ordering::Relaxed);
            self.records_done.fetch_add(counts.total_records(), Ordering::Relaxed);
        }
        self.bar.set_position(self.bytes_done.load(Ordering::Relaxed));
    }

    pub fn println(&self, line: &str) {
        if self.bar.is_hidden() {
            return;
        }
        self.bar.println(line);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
