//! The CLI's `Observer`: a one-line progress meter on stderr with an
//! estimate of the time left, drawn only when stderr is a terminal, so
//! pipes and CI logs stay quiet.
//!
//! With `FATHOM_MEMORY_TRACE` set, it also says at the end of each stage
//! what that stage held: the heap's peak and what is live after it (the
//! counting allocator's), and the process's peak resident and virtual sizes
//! so far (`VmHWM`, `VmPeak`).

use std::io::IsTerminal;
use std::time::Instant;

use fathom_engine::{Observer, Stage};

pub struct Progress {
    start: Instant,
    stage_start: f64,
    stage: Option<Stage>,
    tty: bool,
    last: f64,
    trace: bool,
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            start: Instant::now(),
            stage_start: 0.0,
            stage: None,
            tty: std::io::stderr().is_terminal(),
            last: 0.0,
            trace: std::env::var_os("FATHOM_MEMORY_TRACE").is_some(),
        }
    }

    /// Clears the meter's line.
    pub fn finish(&mut self) {
        if self.tty && self.stage.is_some() {
            eprint!("\r\x1b[K");
        }
        if let Some(stage) = self.stage.take() {
            self.trace_end(stage);
        }
    }

    /// Under `FATHOM_MEMORY_TRACE`, what `stage` held, then the heap's peak
    /// starts again for the next.
    fn trace_end(&self, stage: Stage) {
        if !self.trace {
            return;
        }
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                .map_or_else(|| "?".to_owned(), |kb| fathom_engine::human_bytes(kb << 10))
        };
        let (live, peak) = fathom_engine::heap::counts().unwrap_or_default();
        eprintln!(
            "fathom: memory: {:<7} heap peak {}, live after {}; resident peak {}, virtual peak {}",
            stage.name(),
            fathom_engine::human_bytes(peak),
            fathom_engine::human_bytes(live),
            field("VmHWM:"),
            field("VmPeak:"),
        );
        fathom_engine::heap::reset_peak();
    }
}

impl Observer for Progress {
    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    fn progress(&mut self, stage: Stage, done: usize, total: usize) {
        if let Some(previous) = self.stage
            && previous != stage
        {
            self.trace_end(previous);
        }
        if !self.tty || total == 0 {
            self.stage = Some(stage);
            return;
        }
        let now = self.now_ms();
        if self.stage != Some(stage) {
            self.stage = Some(stage);
            self.stage_start = now;
        } else if now - self.last < 200.0 && done < total {
            return;
        }
        self.last = now;
        let spent = now - self.stage_start;
        let left = if done == 0 {
            String::new()
        } else {
            format!(", {:.0} s left", spent / done as f64 * (total - done) as f64 / 1000.0)
        };
        let unit = if stage == Stage::Embed { " chunks" } else { "" };
        eprint!("\r\x1b[K{} {done}/{total}{unit}{left}", stage.name());
    }
}
