//! What the CLI tests share: the `htsim` binary run in a directory, clear of the shard variables
//! a cluster job would set (a test run inside a Slurm array must not pick a shard).

#![allow(dead_code)] // each test file uses the part it needs

use std::path::Path;
use std::process::{Command, Output};

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
