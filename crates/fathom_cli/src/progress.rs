//! The CLI's `Observer`: a one-line progress meter on stderr with an
//! estimate of the time left, drawn only when stderr is a terminal, so
//! pipes and CI logs stay quiet.

use std::io::IsTerminal;
use std::time::Instant;

use fathom_engine::{Observer, Stage};

pub struct Progress {
    start: Instant,
    stage_start: f64,
    stage: Option<Stage>,
    tty: bool,
    last: f64,
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            start: Instant::now(),
            stage_start: 0.0,
            stage: None,
            tty: std::io::stderr().is_terminal(),
            last: 0.0,
        }
    }

    /// Clears the meter's line.
    pub fn finish(&self) {
        if self.tty && self.stage.is_some() {
            eprint!("\r\x1b[K");
        }
    }
}

impl Observer for Progress {
    fn now_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1000.0
    }

    fn progress(&mut self, stage: Stage, done: usize, total: usize) {
        if !self.tty || total == 0 {
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
