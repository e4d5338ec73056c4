//! What the CLI tests share: the `htsim` binary run in a directory, clear of the shard variables
//! a cluster job would set (a test run inside a Slurm array must not pick a shard).

#![allow(dead_code)] // each test file uses the part it needs

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The shard variables `htsim run` reads from a Slurm job array or a Kubernetes indexed job.
const SHARD_VARIABLES: [&str; 4] = [
    "SLURM_ARRAY_TASK_ID",
    "SLURM_ARRAY_TASK_COUNT",
    "SLURM_ARRAY_TASK_MIN",
    "JOB_COMPLETION_INDEX",
];

/// The `htsim` binary to run in `dir`, without the shard variables.
pub fn command(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_htsim"));
    c.current_dir(dir);
    for v in SHARD_VARIABLES {
        c.env_remove(v);
    }
    c
}

/// Runs `htsim args` in `dir`.
pub fn htsim(args: &[&str], dir: &Path) -> Output {
    command(dir).args(args).output().expect("the binary runs")
}

/// Runs `command` (from [`command`]) with its output captured, killed and failed if it has not
/// exited within 60 s: for a test of a command that once hung.
pub fn output_within_60s(mut command: Command) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{command:?} still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}
