//! The small multi-bottleneck networks of the XMP paper (\[P1\], docs/model.md 7.5–7.6): the
//! two-path testbed and the "torus" of bottlenecks.
//!
//! \[P1\] gives their link rates (the testbed runs at 300 Mb/s) but not every dimension; the
//! choices made here are:
//!
//! **Two-path testbed** ([`XmpTwoPath`]): two disjoint paths, each through one bottleneck
//! cable `left<p>`–`right<p>` (`p` = 0, 1). Senders attach to the left switches, receivers to
//! the right ones. The first `multipath_pairs` senders and receivers are dual-homed (a cable to
//! both switches of their side: two equal-cost paths, one per bottleneck); then come
//! `single_path_pairs[0]` pairs attached to path 0 only and `single_path_pairs[1]` to path 1
//! only (the competing single-path flows). With `S` senders in all, sender `host<i>` pairs with
//! receiver `host<S+i>`.
//!
//! **Torus** ([`XmpTorus`]): `B` bottleneck cables `l<j>`–`r<j>` (the paper's 5) in a ring, and
//! `B` sender/receiver pairs: sender `host<i>` is dual-homed to `l<i>` and `l<(i+1) mod B>`,
//! receiver `host<B+i>` to `r<i>` and `r<(i+1) mod B>`, so pair `i` has two paths, through
//! bottlenecks `i` and `i+1`, and every bottleneck is shared by two neighbouring pairs.
//!
//! Both: switches in layer `switch`; cable layers `switch` (host cables) and `bottleneck`;
//! senders are rack and pod 0, receivers rack and pod 1.

use crate::assemble::{ensure_size, invalid, Assembler};
use crate::cabling::{Cabling, QueueFactory};
use crate::error::Result;
use crate::topology::{NodeId, Topology};
use htsim_core::world::World;

/// The XMP two-path testbed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XmpTwoPath {
    /// Sender/receiver pairs attached to both paths.
    pub multipath_pairs: u32,
    /// Pairs attached to path 0 only and to path 1 only.
    pub single_path_pairs: [u32; 2],
}

/// The XMP torus of bottlenecks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct XmpTorus {
    /// Number of bottleneck cables and of sender/receiver pairs; at least 2 (\[P1\]: 5).
    pub bottlenecks: u32,
}

const CABLES: [&str; 2] = ["switch", "bottleneck"];

/// The shape both XMP networks share: `bottlenecks` cables between switches named
/// `<names[0]><j>` and `<names[1]><j>`, and `pairs` sender/receiver pairs.
struct Bottlenecks<'n> {
    kind: &'static str,
    bottlenecks: u32,
    pairs: u32,
    /// Host cables: the length of every pair's `attach` list, summed (known in closed form, so
    /// that a network too large is refused before anything is listed).
    cables: u64,
    names: [&'n str; 2],
}

impl Bottlenecks<'_> {
    /// Builds the shape; `attach(i)` lists the bottlenecks pair `i` attaches to.
    fn build(
        &self,
        attach: impl Fn(u32) -> Vec<u32>,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        let (kind, pairs) = (self.kind, self.pairs);
        if pairs == 0 {
            return Err(invalid(
                kind,
                "there must be at least one sender/receiver pair",
            ));
        }
        let links = 4 * self.cables + 2 * u64::from(self.bottlenecks);
        ensure_size(world, kind, 2 * u64::from(pairs), links)?;
        let mut a = Assembler::new(kind, &CABLES, world, cabling, queues)?;
        let (sw, neck) = (a.layer("switch"), a.layer("bottleneck"));
        let hosts: Vec<NodeId> = (0..2 * pairs)
            .map(|i| a.host(i / pairs, i / pairs, false))
            .collect();
        let sides: Vec<Vec<NodeId>> = self
            .names
            .iter()
            .map(|side| {
                (0..self.bottlenecks)
                    .map(|j| a.switch(format!("{side}{j}"), sw))
                    .collect()
            })
            .collect();
        for i in 0..pairs {
            for j in attach(i) {
                a.cable(hosts[i as usize], sides[0][j as usize], sw);
                a.cable(hosts[(pairs + i) as usize], sides[1][j as usize], sw);
            }
        }
        for (&left, &right) in sides[0].iter().zip(&sides[1]) {
            a.cable(left, right, neck);
        }
        Ok(a.finish_shortest(2, 2))
    }
}

impl XmpTwoPath {
    /// Builds the testbed into `world` and installs its paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        let m = self.multipath_pairs;
        let [s0, s1] = self.single_path_pairs;
        let pairs = m
            .checked_add(s0)
            .and_then(|p| p.checked_add(s1))
            .ok_or_else(|| invalid("xmp-two-path", "too many pairs"))?;
        let attach = |i: u32| {
            if i < m {
                vec![0, 1]
            } else if i < m + s0 {
                vec![0]
            } else {
                vec![1]
            }
        };
        let shape = Bottlenecks {
            kind: "xmp-two-path",
            bottlenecks: 2,
            pairs,
            cables: 2 * u64::from(m) + u64::from(s0) + u64::from(s1),
            names: ["left", "right"],
        };
        shape.build(attach, world, cabling, queues)
    }
}

impl XmpTorus {
    /// Builds the torus into `world` and installs its paths.
    pub fn build(
        &self,
        world: &mut World,
        cabling: &Cabling,
        queues: &mut QueueFactory<'_>,
    ) -> Result<Topology> {
        let b = self.bottlenecks;
        if b < 2 {
            return Err(invalid(
                "xmp-torus",
                format!("bottlenecks must be at least 2, got {b}"),
            ));
        }
        let attach = |i: u32| vec![i, (i + 1) % b];
        let shape = Bottlenecks {
            kind: "xmp-torus",
            bottlenecks: b,
            pairs: b,
            cables: 2 * u64::from(b),
            names: ["l", "r"],
        };
        shape.build(attach, world, cabling, queues)
    }
}
