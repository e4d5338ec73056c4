//! The star: one switch connecting every host, \[P2\]'s "perfect switch" (docs/model.md
//! 16.1).
//!
//! - Hosts `host<i>`, one switch `switch` in layer `switch`; cable layer `switch`.
//! - Counts: `N` hosts, 1 switch, `2N` directed links; one rack and one pod, so every pair is
//!   `SameTor` with one two-link path.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::Result;
use crate::topology::Topology;
use htsim_core::world::World;

/// Parameters of a star.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Star {
    /// Number of hosts; at least 1.
    pub hosts: u32,
}

const KIND: &str = "star";

impl Star {
    /// Builds the star into `world` and installs its paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        if self.hosts == 0 {
            return Err(invalid(KIND, "hosts must be at least 1"));
        }
        ensure_size(
            world,
            KIND,
            u64::from(self.hosts),
            2 * u64::from(self.hosts),
        )?;
        let mut a = Assembler::new(KIND, &["switch"], world, cabling, queues)?;
        a.reserve(self.hosts as usize + 1, 2 * self.hosts as usize);
        let layer = a.layer("switch");
        let hosts: Vec<_> = (0..self.hosts).map(|_| a.host(0, 0, false)).collect();
        let switch = a.switch("switch".to_string(), layer);
        for h in hosts {
            a.cable(h, switch, layer);
        }
        Ok(a.finish_shortest(1, 1))
    }
}
