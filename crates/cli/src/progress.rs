//! Progress for a log: when stderr is not a terminal (a Slurm or CI log), plain lines instead of
//! a bar, such as
//!
//! ```text
//! progress: 3/10 runs (30%), elapsed 0:00:12, ETA 0:00:28
//! ```
//!
//! A line is printed each time another tenth of the work is done, and otherwise at most every
//! [`HEARTBEAT`] while work advances, so a log shows the run is alive without filling up.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest time between two lines while the work advances.
pub const HEARTBEAT: Duration = Duration::from_secs(20);

/// Writes progress lines to stderr (see the module documentation).
#[derive(Debug)]
pub struct LogProgress {
    start: Instant,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    last_line: Instant,
    /// Tenths of the work done at the last line.
    last_tenth: u64,
}

impl LogProgress {
    /// Starts the clock now.
    pub fn new() -> Self {
        let now = Instant::now();
        LogProgress {
            start: now,
            state: Mutex::new(State {
                last_line: now,
                last_tenth: 0,
            }),
        }
    }

    /// Reports that `done` of `total` units are done, `what` describing them (`runs`, or the
    /// simulated seconds of a single run); prints a line when one is due.
    pub fn update(&self, done: f64, total: f64, what: impl FnOnce() -> String) {
        let fraction = if total > 0.0 {
            (done / total).clamp(0.0, 1.0)
        } else {
            1.0
        };
        let tenth = (fraction * 10.0).floor() as u64;
        let now = Instant::now();
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        if tenth <= state.last_tenth && now.duration_since(state.last_line) < HEARTBEAT {
            return;
        }
        state.last_tenth = state.last_tenth.max(tenth);
        state.last_line = now;
        drop(state);
        note!(
            "{}",
            line(&what(), fraction, now.duration_since(self.start))
        );
    }
}

/// `progress: <what> (<pct>%), elapsed <h:mm:ss>, ETA <h:mm:ss>` (ETA `unknown` before
/// anything is done).
pub fn line(what: &str, fraction: f64, elapsed: Duration) -> String {
    let eta = if fraction > 0.0 {
        clock(elapsed.mul_f64((1.0 - fraction) / fraction))
    } else {
        "unknown".to_string()
    };
    format!(
        "progress: {what} ({:.0}%), elapsed {}, ETA {eta}",
        fraction * 100.0,
        clock(elapsed)
    )
}

/// `h:mm:ss`, whole seconds.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_show_the_fraction_the_elapsed_time_and_the_eta() {
        assert_eq!(
            line("3/10 runs", 0.3, Duration::from_secs(12)),
            "progress: 3/10 runs (30%), elapsed 0:00:12, ETA 0:00:28"
        );
        assert_eq!(
            line("0/4 runs", 0.0, Duration::from_secs(3725)),
            "progress: 0/4 runs (0%), elapsed 1:02:05, ETA unknown"
        );
    }
}
