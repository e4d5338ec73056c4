//! The dual-homed FatTree (DHFT) of \[P2\] section 5 (docs/model.md 16.1).
//!
//! Start from a k-port FatTree and keep its aggregation and core switches (`agg<pod>.<j>`,
//! `core<c>`, wired as in [`crate::fattree`]). Each ToR is replaced by a pair of ToRs that
//! together keep the original `k/2` uplinks and serve `2k/3` hosts; every host has one cable
//! to each ToR of its pair (5 switch ports per host, as in a FatTree).
//!
//! - ToRs `tor<pod>.<i>`, `i = 0..k`: pair `i / 2`, side `i mod 2`.
//! - Uplink split: side 0 of a pair links to aggregation switches `0..⌈k/4⌉` of its pod, side 1
//!   to `⌈k/4⌉..k/2` (k = 12: 3 and 3), so the pair reaches every aggregation switch once and
//!   each aggregation switch keeps `k/2` downlinks. A ToR then uses `2k/3 + ⌈k/4⌉ ≤ k` ports.
//! - `k` must be a multiple of 6 (so that `2k/3` is whole and both sides have an uplink).
//! - Counts: `k³/3` hosts (k = 12: 576), `7k²/4` switches, `4·k³/3 + k³` directed links.
//! - Racks are ToR pairs (`pod·k/2 + pair`), pods are pods. Equal-cost paths (BFS): 2 within a
//!   pair (one per ToR), `k/2` within a pod, `(k/2)²` across pods, as in a FatTree.
//! - Layers `host`, `tor`, `agg`, `core`; cable layers `tor`, `agg`, `core`.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::Result;
use crate::fattree::CABLE_LAYERS;
use crate::hops::HopRule;
use crate::topology::{NodeId, Topology};
use htsim_core::world::World;

/// Parameters of a dual-homed FatTree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dhft {
    /// Switch port count of the FatTree it derives from; a multiple of 6.
    pub k: u32,
}

const KIND: &str = "dhft";

impl Dhft {
    /// Number of hosts, `k³/3`.
    pub fn host_count(&self) -> u64 {
        let k = u128::from(self.k);
        u64::try_from(k * k * k / 3).unwrap_or(u64::MAX)
    }

    /// Builds the DHFT into `world` and installs its paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        let k = self.k;
        if k == 0 || !k.is_multiple_of(6) {
            return Err(invalid(
                KIND,
                format!("k must be a positive multiple of 6, got {k}"),
            ));
        }
        let hosts = self.host_count();
        let cube = u64::from(k).saturating_pow(3);
        ensure_size(
            world,
            KIND,
            hosts,
            hosts.saturating_mul(4).saturating_add(cube),
        )?;
        let (h2, per_pair) = (k / 2, 2 * k / 3);
        let split = k.div_ceil(4);
        let mut a = Assembler::new(KIND, &CABLE_LAYERS, world, cabling, queues)?;
        let (tor_l, agg_l, core_l) = (a.layer("tor"), a.layer("agg"), a.layer("core"));
        let pairs = k * h2;
        let host_nodes: Vec<NodeId> = (0..hosts as u32)
            .map(|h| {
                let pair = h / per_pair;
                a.host(pair, pair / h2, false)
            })
            .collect();
        let tors: Vec<NodeId> = (0..2 * pairs)
            .map(|t| a.switch(format!("tor{}.{}", t / k, t % k), tor_l))
            .collect();
        let aggs: Vec<NodeId> = (0..pairs)
            .map(|x| a.switch(format!("agg{}.{}", x / h2, x % h2), agg_l))
            .collect();
        let cores: Vec<NodeId> = (0..h2 * h2)
            .map(|c| a.switch(format!("core{c}"), core_l))
            .collect();
        for (h, &node) in host_nodes.iter().enumerate() {
            let pair = h as u32 / per_pair;
            a.cable(node, tors[2 * pair as usize], tor_l);
            a.cable(node, tors[2 * pair as usize + 1], tor_l);
        }
        for pair in 0..pairs {
            let pod = pair / h2;
            for j in 0..h2 {
                let side = u32::from(j >= split);
                a.cable(
                    tors[(2 * pair + side) as usize],
                    aggs[(pod * h2 + j) as usize],
                    agg_l,
                );
            }
        }
        for (x, &agg) in aggs.iter().enumerate() {
            let group = x as u32 % h2;
            for m in 0..h2 {
                a.cable(agg, cores[(group * h2 + m) as usize], core_l);
            }
        }
        a.set_hop_rule(HopRule::ByLocality);
        Ok(a.finish_shortest(pairs, k))
    }
}
