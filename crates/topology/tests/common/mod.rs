//! Helpers shared by the topology tests.
#![allow(dead_code)]

use htsim_core::ids::{HostId, LinkId};
use htsim_core::queue::{Discipline, Queue};
use htsim_core::units::BufferSize;
use htsim_core::{Rate, SimTime};
use htsim_topology::cabling::{Cabling, QueueSite};
use htsim_topology::topology::{NodeId, Topology};

/// 100-packet drop-tail queues everywhere.
pub fn droptail(_: QueueSite<'_>) -> Queue {
    Queue::new(BufferSize::Packets(100), Discipline::DropTail)
}

/// 100 Mb/s, 20 us cables everywhere.
pub fn cabling() -> Cabling {
    Cabling::uniform(Rate::mbps(100), SimTime::from_us(20))
}

/// The nodes a path visits, starting at the source host; checks the path is connected.
pub fn nodes_of(t: &Topology, src: HostId, links: &[LinkId]) -> Vec<NodeId> {
    let mut nodes = vec![t.hosts()[src.0 as usize].node];
    for &l in links {
        let info = t.link(l).expect("a link of the topology");
        assert_eq!(info.from, *nodes.last().unwrap(), "path is connected");
        nodes.push(info.to);
    }
    nodes
}

/// Checks every path of a pair: connected, from `src` to `dst`, `hops` links, no node twice,
/// and all distinct. Returns the paths.
pub fn check_pair(t: &Topology, src: HostId, dst: HostId, hops: usize) -> Vec<Vec<LinkId>> {
    let n = t.path_count(src, dst);
    let mut paths = Vec::new();
    for i in 0..n {
        let mut p = Vec::new();
        t.path(src, dst, i, &mut p);
        assert_eq!(p.len(), hops, "{src:?}->{dst:?} path {i}: {p:?}");
        let nodes = nodes_of(t, src, &p);
        assert_eq!(*nodes.last().unwrap(), t.hosts()[dst.0 as usize].node);
        let mut sorted = nodes.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), nodes.len(), "no loop");
        paths.push(p);
    }
    let mut sorted = paths.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), paths.len(), "paths of a pair are distinct");
    paths
}
