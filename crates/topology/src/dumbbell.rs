//! The dumbbell: `N` senders and `N` receivers on two switches joined by one bottleneck cable.
//!
//! - Senders `host0..host<N-1>` on switch `left`, receivers `host<N>..host<2N-1>` on switch
//!   `right` (sender `i` pairs naturally with receiver `N + i`); switches in layer `switch`.
//! - Cable layers: `switch` (host cables) and `bottleneck` (the `left`–`right` cable): give the
//!   bottleneck its own rate and delay with a `bottleneck` cabling override, and its own queue
//!   by answering [`QueueSite::cable`](crate::cabling::QueueSite) `== "bottleneck"`.
//! - Counts: `2N` hosts, 2 switches, `4N + 2` directed links. Racks and pods: the senders are
//!   rack and pod 0, the receivers rack and pod 1. Every pair has one path.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::Result;
use crate::topology::Topology;
use htsim_core::world::World;

/// Parameters of a dumbbell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dumbbell {
    /// Number of sender hosts, and of receiver hosts; at least 1.
    pub pairs: u32,
}

const KIND: &str = "dumbbell";

impl Dumbbell {
    /// Builds the dumbbell into `world` and installs its paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        if self.pairs == 0 {
            return Err(invalid(KIND, "pairs must be at least 1"));
        }
        let n = u64::from(self.pairs);
        ensure_size(world, KIND, 2 * n, 4 * n + 2)?;
        let mut a = Assembler::new(KIND, &["switch", "bottleneck"], world, cabling, queues)?;
        a.reserve(2 * self.pairs as usize + 2, 4 * self.pairs as usize + 2);
        let (sw, neck) = (a.layer("switch"), a.layer("bottleneck"));
        let hosts: Vec<_> = (0..2 * self.pairs)
            .map(|i| {
                let side = i / self.pairs;
                a.host(side, side, false)
            })
            .collect();
        let left = a.switch("left".to_string(), sw);
        let right = a.switch("right".to_string(), sw);
        for (i, &h) in hosts.iter().enumerate() {
            a.cable(h, if (i as u32) < self.pairs { left } else { right }, sw);
        }
        a.cable(left, right, neck);
        Ok(a.finish_shortest(2, 2))
    }
}
