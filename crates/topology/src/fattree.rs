//! The k-ary FatTree with oversubscription (docs/model.md 9.1), and its arithmetic paths.
//!
//! - `k` pods, each with `k/2` ToRs `tor<pod>.<i>` and `k/2` aggregation switches
//!   `agg<pod>.<j>`; `(k/2)²` core switches `core<c>` in `k/2` groups of `k/2`: core
//!   `c = g·k/2 + m` (group `g`) connects to aggregation switch `g` of every pod.
//! - Every ToR links to every aggregation switch of its pod. Oversubscription `r` is realised
//!   by more hosts per ToR: `(k/2)·r` hosts, so `k³r/4` hosts in all, numbered pod, ToR, host
//!   (`host<i>`, host `i` under ToR `i / ((k/2)·r)`); a host's rack is its ToR's global index
//!   `pod·k/2 + i` and its pod is the pod.
//! - Layers: `host`, `tor`, `agg`, `core`; cable layers `tor` (host–ToR), `agg` (ToR–agg),
//!   `core` (agg–core).
//! - Counts: `k³r/4` hosts, `5k²/4` switches, `2·k³r/4 + k³` directed links.
//!
//! Equal-cost paths (docs/model.md 3): 1 to a host of the same ToR, `k/2` within a pod (path
//! `j` crosses aggregation switch `j`), `(k/2)²` across pods (path `i` crosses aggregation
//! switch `j = i / (k/2)` of both pods and core `j·k/2 + i mod k/2`). They are computed from the
//! link-id layout (links are added in blocks, one block per kind of port), never stored, so a
//! k = 32 FatTree (8192 hosts) costs only its links. Path `i` from `b` to `a` crosses the same
//! switches as path `i` from `a` to `b`, in reverse.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::Result;
use crate::hops::HopRule;
use crate::paths::Paths;
use crate::topology::{NodeId, Topology};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::routing::PathSource;
use htsim_core::world::World;

/// Parameters of a k-ary FatTree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FatTree {
    /// Switch port count; even, at least 2.
    pub k: u32,
    /// Oversubscription ratio `r` (hosts per ToR = `(k/2)·r`); at least 1.
    pub oversubscription: u32,
}

const KIND: &str = "fattree";

/// The cable layers of a FatTree.
pub const CABLE_LAYERS: [&str; 3] = ["tor", "agg", "core"];

impl FatTree {
    /// Number of hosts, `k³r/4` (saturating at `u64::MAX`).
    pub fn host_count(&self) -> u64 {
        let k = u128::from(self.k);
        let hosts = k * k * k / 4 * u128::from(self.oversubscription);
        u64::try_from(hosts).unwrap_or(u64::MAX)
    }

    /// Number of directed links, `2·hosts + k³` (saturating at `u64::MAX`).
    pub fn link_count(&self) -> u64 {
        let k = u64::from(self.k);
        let cube = k.saturating_mul(k).saturating_mul(k);
        self.host_count().saturating_mul(2).saturating_add(cube)
    }

    fn check(&self, world: &World) -> Result<()> {
        if self.k < 2 || !self.k.is_multiple_of(2) {
            return Err(invalid(
                KIND,
                format!("k must be even and at least 2, got {}", self.k),
            ));
        }
        if self.oversubscription == 0 {
            return Err(invalid(KIND, "oversubscription must be at least 1"));
        }
        ensure_size(world, KIND, self.host_count(), self.link_count())
    }

    /// Builds the FatTree into `world` (links with `cabling`'s rates and delays and `queues`'
    /// queues) and installs its paths. Errors before touching the world.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        self.check(world)?;
        let k = self.k;
        let h2 = k / 2;
        let hpt = h2 * self.oversubscription;
        let hosts = self.host_count() as u32;
        let tors = k * h2;
        let cores = h2 * h2;
        let mut a = Assembler::new(KIND, &CABLE_LAYERS, world, cabling, queues)?;
        a.reserve(
            (u64::from(hosts) + 5 * u64::from(k) * u64::from(k) / 4) as usize,
            self.link_count() as usize,
        );
        let (tor_l, agg_l, core_l) = (a.layer("tor"), a.layer("agg"), a.layer("core"));
        for h in 0..hosts {
            let t = h / hpt;
            a.host(t, t / h2, false);
        }
        let tor = |t: u32| NodeId(hosts + t);
        let agg = |x: u32| NodeId(hosts + tors + x);
        let core = |c: u32| NodeId(hosts + 2 * tors + c);
        for t in 0..tors {
            a.switch(format!("tor{}.{}", t / h2, t % h2), tor_l);
        }
        for x in 0..tors {
            a.switch(format!("agg{}.{}", x / h2, x % h2), agg_l);
        }
        for c in 0..cores {
            a.switch(format!("core{c}"), core_l);
        }
        // The blocks FatTreePaths relies on, in order.
        let first = a.link(NodeId(0), tor(0), tor_l);
        for h in 1..hosts {
            a.link(NodeId(h), tor(h / hpt), tor_l);
        }
        for h in 0..hosts {
            a.link(tor(h / hpt), NodeId(h), tor_l);
        }
        for t in 0..tors {
            for j in 0..h2 {
                a.link(tor(t), agg(t / h2 * h2 + j), agg_l);
            }
        }
        for x in 0..tors {
            for i in 0..h2 {
                a.link(agg(x), tor(x / h2 * h2 + i), agg_l);
            }
        }
        for x in 0..tors {
            for m in 0..h2 {
                a.link(agg(x), core(x % h2 * h2 + m), core_l);
            }
        }
        for c in 0..cores {
            for p in 0..k {
                a.link(core(c), agg(p * h2 + c / h2), core_l);
            }
        }
        let paths = FatTreePaths {
            k,
            hosts_per_tor: hpt,
            hosts,
            first: first.0,
        };
        a.set_hop_rule(HopRule::ByLocality);
        Ok(a.finish(tors, k, Some(Paths::FatTree(paths))))
    }
}

/// FatTree paths from the link-id layout of [`FatTree::build`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FatTreePaths {
    k: u32,
    hosts_per_tor: u32,
    hosts: u32,
    /// World id of the first link (host 0's uplink).
    first: u32,
}

impl FatTreePaths {
    fn half(&self) -> u32 {
        self.k / 2
    }
    fn tor_of(&self, h: u32) -> u32 {
        h / self.hosts_per_tor
    }
    fn host_up(&self, h: u32) -> LinkId {
        LinkId(self.first + h)
    }
    fn host_down(&self, h: u32) -> LinkId {
        LinkId(self.first + self.hosts + h)
    }
    fn tor_up(&self, t: u32, j: u32) -> LinkId {
        LinkId(self.first + 2 * self.hosts + t * self.half() + j)
    }
    fn agg_down(&self, x: u32, i: u32) -> LinkId {
        let tors = self.k * self.half();
        LinkId(self.first + 2 * self.hosts + tors * self.half() + x * self.half() + i)
    }
    fn agg_up(&self, x: u32, m: u32) -> LinkId {
        let tors = self.k * self.half();
        LinkId(self.first + 2 * self.hosts + 2 * tors * self.half() + x * self.half() + m)
    }
    fn core_down(&self, c: u32, p: u32) -> LinkId {
        let tors = self.k * self.half();
        LinkId(self.first + 2 * self.hosts + 3 * tors * self.half() + c * self.k + p)
    }
}

impl PathSource for FatTreePaths {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        let (s, d) = (src.0, dst.0);
        if s == d || s >= self.hosts || d >= self.hosts {
            return 0;
        }
        let (ts, td) = (self.tor_of(s), self.tor_of(d));
        let h2 = self.half();
        if ts == td {
            1
        } else if ts / h2 == td / h2 {
            h2
        } else {
            h2 * h2
        }
    }

    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        let n = self.path_count(src, dst);
        if index >= n {
            return;
        }
        let (s, d) = (src.0, dst.0);
        let (ts, td) = (self.tor_of(s), self.tor_of(d));
        let h2 = self.half();
        let (ps, pd) = (ts / h2, td / h2);
        out.push(self.host_up(s));
        if ps != pd {
            let (j, m) = (index / h2, index % h2);
            out.push(self.tor_up(ts, j));
            out.push(self.agg_up(ps * h2 + j, m));
            out.push(self.core_down(j * h2 + m, pd));
            out.push(self.agg_down(pd * h2 + j, td % h2));
        } else if ts != td {
            out.push(self.tor_up(ts, index));
            out.push(self.agg_down(ps * h2 + index, td % h2));
        }
        out.push(self.host_down(d));
    }
}
