//! The pairs of hosts at a number of switch hops ([`HopPairs`]) against a brute-force search
//! from every host, on small topologies of every builder and over host lists in several orders.

mod common;

use common::{cabling, droptail};
use htsim_core::world::World;
use htsim_topology::bcube::BCube;
use htsim_topology::cabling::Cabling;
use htsim_topology::dhft::Dhft;
use htsim_topology::dumbbell::Dumbbell;
use htsim_topology::fattree::FatTree;
use htsim_topology::file::FileTopology;
use htsim_topology::hops::{switch_hops_from, HopPairs, HopTally};
use htsim_topology::star::Star;
use htsim_topology::topology::{NodeKind, Topology};
use htsim_topology::vl2::Vl2;
use htsim_topology::xmp::{XmpTorus, XmpTwoPath};

/// Switch hops from node `start` to every node, by relaxing every link until nothing changes:
/// entering a switch costs 1, entering a host 0, and only switches, forwarding hosts and
/// `start` pass packets on.
fn brute_hops(t: &Topology, start: usize) -> Vec<Option<u32>> {
    let mut dist = vec![None; t.nodes().len()];
    dist[start] = Some(0);
    loop {
        let mut changed = false;
        for l in t.links() {
            let (from, to) = (l.from.0 as usize, l.to.0 as usize);
            let Some(d) = dist[from] else { continue };
            if from != start && !t.nodes()[from].forwards {
                continue;
            }
            let d = d + u32::from(t.nodes()[to].kind == NodeKind::Switch);
            if dist[to].is_none_or(|x| d < x) {
                dist[to] = Some(d);
                changed = true;
            }
        }
        if !changed {
            return dist;
        }
    }
}

/// Every pair of `hosts` (indices into it) `distance` hops apart, by source then destination,
/// and the tally, from a search per host.
fn brute_pairs(t: &Topology, hosts: &[u32], distance: u32) -> (Vec<(u32, u32)>, HopTally) {
    let mut pairs = Vec::new();
    let mut farthest = None;
    for (i, &a) in hosts.iter().enumerate() {
        let dist = brute_hops(t, t.hosts()[a as usize].node.0 as usize);
        for (j, &b) in hosts.iter().enumerate() {
            let Some(d) = dist[t.hosts()[b as usize].node.0 as usize] else {
                continue;
            };
            if i != j {
                farthest = farthest.max(Some(d));
                if d == distance {
                    pairs.push((i as u32, j as u32));
                }
            }
        }
    }
    let tally = HopTally {
        pairs: pairs.len() as u64,
        farthest,
    };
    (pairs, tally)
}

/// Small topologies of every builder, with a name for messages.
fn topologies() -> Vec<(String, Topology)> {
    let c = cabling();
    let build = |f: &dyn Fn(&mut World, &Cabling) -> Topology| f(&mut World::new(1), &c);
    let mut out: Vec<(String, Topology)> = Vec::new();
    for (k, oversubscription) in [(2, 1), (4, 2), (6, 1)] {
        out.push((
            format!("fattree k={k} os={oversubscription}"),
            build(&|w, c| {
                FatTree {
                    k,
                    oversubscription,
                }
                .build(w, c, &mut droptail)
                .unwrap()
            }),
        ));
    }
    for k in [6, 12] {
        out.push((
            format!("dhft k={k}"),
            build(&|w, c| Dhft { k }.build(w, c, &mut droptail).unwrap()),
        ));
    }
    for (da, di, hosts_per_tor) in [(4, 4, 2), (2, 4, 3), (6, 2, 1)] {
        out.push((
            format!("vl2 {da} {di} {hosts_per_tor}"),
            build(&|w, c| {
                Vl2 {
                    da,
                    di,
                    hosts_per_tor,
                }
                .build(w, c, &mut droptail)
                .unwrap()
            }),
        ));
    }
    for (n, k) in [(2, 0), (3, 1), (3, 2), (2, 3), (4, 1)] {
        out.push((
            format!("bcube {n} {k}"),
            build(&|w, c| BCube { n, k }.build(w, c, &mut droptail).unwrap()),
        ));
    }
    out.push((
        "star 5".into(),
        build(&|w, c| Star { hosts: 5 }.build(w, c, &mut droptail).unwrap()),
    ));
    for pairs in [1, 3] {
        out.push((
            format!("dumbbell {pairs}"),
            build(&|w, c| Dumbbell { pairs }.build(w, c, &mut droptail).unwrap()),
        ));
    }
    for (multipath_pairs, single_path_pairs) in [(2, [1, 1]), (0, [2, 1])] {
        out.push((
            format!("two-path {multipath_pairs} {single_path_pairs:?}"),
            build(&|w, c| {
                XmpTwoPath {
                    multipath_pairs,
                    single_path_pairs,
                }
                .build(w, c, &mut droptail)
                .unwrap()
            }),
        ));
    }
    out.push((
        "torus 5".into(),
        build(&|w, c| {
            XmpTorus { bottlenecks: 5 }
                .build(w, c, &mut droptail)
                .unwrap()
        }),
    ));
    // A chain of switches with hosts along it, two hosts cabled to each other (0 switches
    // apart) and hosts on two switches.
    let file = "host host0 rack=0\nhost host1 rack=0\nhost host2 rack=1\nhost host3 rack=2\n\
                host host4 rack=3\nhost host5 rack=3\nhost host6 rack=4\nhost host7 rack=5\n\
                switch a\nswitch b\nswitch c\nswitch d\n\
                link a b 1Gbps 1us 10pkt\nlink b c 1Gbps 1us 10pkt\nlink c d 1Gbps 1us 10pkt\n\
                link host0 a 1Gbps 1us 10pkt\nlink host1 a 1Gbps 1us 10pkt\n\
                link host2 c 1Gbps 1us 10pkt\nlink host3 d 1Gbps 1us 10pkt\n\
                link host3 host4 1Gbps 1us 10pkt\nlink host4 b 1Gbps 1us 10pkt\n\
                link host5 b 1Gbps 1us 10pkt\nlink host5 d 1Gbps 1us 10pkt\n\
                link host6 a 1Gbps 1us 10pkt\nlink host7 c 1Gbps 1us 10pkt\n\
                link host7 d 1Gbps 1us 10pkt\n";
    out.push((
        "file".into(),
        build(&|w, _| {
            FileTopology::parse(file)
                .unwrap()
                .build(w, &mut droptail)
                .unwrap()
        }),
    ));
    out
}

#[test]
fn pairs_at_a_distance_are_those_a_search_from_every_host_finds() {
    let mut checked = 0;
    for (name, t) in topologies() {
        let n = t.host_count();
        let all: Vec<u32> = (0..n).collect();
        let reversed: Vec<u32> = (0..n).rev().collect();
        // Every third host, then the others, each half in a scrambled order.
        let scrambled: Vec<u32> = (0..n)
            .filter(|h| h % 3 == 1)
            .chain((0..n).filter(|h| h % 3 != 1).rev())
            .collect();
        let some: Vec<u32> = (0..n).filter(|h| h % 2 == 0).collect();
        for hosts in [&all, &reversed, &scrambled, &some] {
            if hosts.len() < 2 {
                continue;
            }
            for distance in 0..8 {
                let (pairs, tally) = brute_pairs(&t, hosts, distance);
                let fast = HopPairs::new(&t, hosts, distance);
                assert_eq!(
                    fast.tally(),
                    tally,
                    "{name}, {hosts:?}, distance {distance}"
                );
                let mut listed = Vec::new();
                fast.for_each(|a, b| listed.push((a, b)));
                assert_eq!(listed, pairs, "{name}, {hosts:?}, distance {distance}");
                checked += pairs.len();
            }
        }
    }
    // The comparison is not vacuous: many pairs, at several distances.
    assert!(checked > 100_000, "{checked}");
}

#[test]
fn the_search_from_one_host_gives_the_brute_force_distances() {
    for (name, t) in topologies() {
        for h in 0..t.host_count() {
            let fast = switch_hops_from(&t, htsim_core::ids::HostId(h));
            let brute = brute_hops(&t, t.hosts()[h as usize].node.0 as usize);
            let fast: Vec<Option<u32>> = fast
                .into_iter()
                .map(|d| (d != u32::MAX).then_some(d))
                .collect();
            assert_eq!(fast, brute, "{name}: host {h}");
        }
    }
}

#[test]
fn known_distances() {
    // FatTree k = 4: 2 hosts per ToR, 4 per pod, 16 in all.
    let t = FatTree {
        k: 4,
        oversubscription: 1,
    }
    .build(&mut World::new(1), &cabling(), &mut droptail)
    .unwrap();
    let all: Vec<u32> = (0..16).collect();
    let tally = |d| HopPairs::new(&t, &all, d).tally();
    assert_eq!(tally(1).pairs, 16);
    assert_eq!(tally(3).pairs, 16 * 2);
    assert_eq!(tally(5).pairs, 16 * 12);
    assert_eq!(tally(2).pairs, 0);
    assert_eq!(tally(2).farthest, Some(5));
    // BCube(4, 1) read: (k + 1) (n - 1) = 6 one-hop neighbours per host.
    let t = BCube { n: 4, k: 1 }
        .build(&mut World::new(1), &cabling(), &mut droptail)
        .unwrap();
    let all: Vec<u32> = (0..16).collect();
    assert_eq!(HopPairs::new(&t, &all, 1).tally().pairs, 16 * 6);
    assert_eq!(HopPairs::new(&t, &all, 2).tally().pairs, 16 * 9);
}
