//! VL2 (Greenberg et al., used by \[P2\], docs/model.md 16.1).
//!
//! - `D_I` aggregation switches `agg<i>` with `D_A` ports: `D_A/2` down to ToRs and `D_A/2` up,
//!   one to each of the `D_A/2` intermediate switches `int<i>` (`D_I` ports each): the
//!   aggregation and intermediate layers form a complete bipartite graph.
//! - `D_A·D_I/4` ToRs `tor<i>`, each with two uplinks: aggregation switches are taken in pairs
//!   `(2q, 2q+1)` and pair `q` serves ToRs `q·D_A/2 .. (q+1)·D_A/2`, each ToR linked to both.
//!   A pair and its ToRs form a pod; a ToR is a rack of `hosts_per_tor` hosts.
//! - Layers `host`, `tor`, `agg`, `int`; cable layers `tor` (host–ToR), `agg` (ToR–agg), `int`
//!   (agg–int). Host and fabric rates are separate through the cabling: \[P2\]'s VL2 is
//!   `Cabling::uniform(10 Gb/s, ..).with_layer("tor", 1 Gb/s, ..)`.
//! - Counts: `D_A·D_I/4·hosts_per_tor` hosts, `D_A·D_I/4 + D_I + D_A/2` switches,
//!   `2·hosts + 2·D_A·D_I` directed links.
//! - Equal-cost paths (BFS): 1 within a ToR, 2 within a pod, `2·D_A` across pods.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::Result;
use crate::hops::HopRule;
use crate::topology::{NodeId, Topology};
use htsim_core::world::World;

/// Parameters of a VL2 network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Vl2 {
    /// Ports per aggregation switch, `D_A`; even, at least 2.
    pub da: u32,
    /// Ports per intermediate switch, `D_I` (= number of aggregation switches); even, at least 2.
    pub di: u32,
    /// Hosts under each ToR; at least 1.
    pub hosts_per_tor: u32,
}

const KIND: &str = "vl2";

impl Vl2 {
    /// Number of ToRs, `D_A·D_I/4`.
    pub fn tor_count(&self) -> u64 {
        u64::from(self.da) * u64::from(self.di) / 4
    }

    /// Builds the VL2 network into `world` and installs its paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        for (name, v) in [("da", self.da), ("di", self.di)] {
            if v < 2 || v % 2 != 0 {
                return Err(invalid(
                    KIND,
                    format!("{name} must be even and at least 2, got {v}"),
                ));
            }
        }
        if self.hosts_per_tor == 0 {
            return Err(invalid(KIND, "hosts_per_tor must be at least 1"));
        }
        let hosts = self
            .tor_count()
            .saturating_mul(u64::from(self.hosts_per_tor));
        let fabric = (u64::from(self.da) * u64::from(self.di)).saturating_mul(2);
        ensure_size(
            world,
            KIND,
            hosts,
            hosts.saturating_mul(2).saturating_add(fabric),
        )?;
        let (tors, half) = (self.tor_count() as u32, self.da / 2);
        let mut a = Assembler::new(KIND, &["tor", "agg", "int"], world, cabling, queues)?;
        let (tor_l, agg_l, int_l) = (a.layer("tor"), a.layer("agg"), a.layer("int"));
        let host_nodes: Vec<NodeId> = (0..hosts as u32)
            .map(|h| {
                let t = h / self.hosts_per_tor;
                a.host(t, t / half, false)
            })
            .collect();
        let tor_nodes: Vec<NodeId> = (0..tors)
            .map(|t| a.switch(format!("tor{t}"), tor_l))
            .collect();
        let aggs: Vec<NodeId> = (0..self.di)
            .map(|i| a.switch(format!("agg{i}"), agg_l))
            .collect();
        let ints: Vec<NodeId> = (0..half)
            .map(|i| a.switch(format!("int{i}"), int_l))
            .collect();
        for (h, &node) in host_nodes.iter().enumerate() {
            a.cable(node, tor_nodes[h / self.hosts_per_tor as usize], tor_l);
        }
        for (t, &tor) in tor_nodes.iter().enumerate() {
            let q = t / half as usize;
            a.cable(tor, aggs[2 * q], agg_l);
            a.cable(tor, aggs[2 * q + 1], agg_l);
        }
        for &agg in &aggs {
            for &int in &ints {
                a.cable(agg, int, int_l);
            }
        }
        a.set_hop_rule(HopRule::ByLocality);
        Ok(a.finish_shortest(tors, self.di / 2))
    }
}
