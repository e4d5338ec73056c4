//! One run of a scenario: build the world (topology, queues, transports, flow classes, events),
//! run it, and render its files.
//!
//! Building a world needs the topology and transport crates' builders; until they are wired in,
//! [`Simulator`] reports which part is missing, and the runner marks the run failed.

use crate::output::RunFiles;
use crate::runner::{Executor, RunError};
use crate::scenario::Scenario;

/// The executor that simulates a scenario with the engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simulator;

impl Executor for Simulator {
    fn execute(&self, scenario: &Scenario, _seed: u64) -> Result<RunFiles, RunError> {
        Err(RunError::Unsupported(format!(
            "building a `{}` world from a scenario (topology and transport wiring is the next step of issue 6)",
            scenario.topology.kind
        )))
    }
}
