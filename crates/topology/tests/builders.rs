//! Counts against formulas and path sets for every builder other than the FatTree, the file
//! format, and a cross-check of the arithmetic FatTree paths against BFS on the same graph.

mod common;

use common::{cabling, check_pair, droptail, nodes_of};
use htsim_core::ids::{HostId, LinkId};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::bcube::BCube;
use htsim_topology::dhft::Dhft;
use htsim_topology::dumbbell::Dumbbell;
use htsim_topology::error::TopologyError;
use htsim_topology::fattree::FatTree;
use htsim_topology::file::FileTopology;
use htsim_topology::star::Star;
use htsim_topology::topology::{Locality, NodeKind, Topology};
use htsim_topology::vl2::Vl2;
use htsim_topology::xmp::{XmpTorus, XmpTwoPath};
use std::collections::HashSet;

fn counts(t: &Topology, w: &World) -> (u32, usize, usize) {
    assert_eq!(w.links().len(), t.links().len());
    (t.host_count(), t.switch_count(), t.links().len())
}

#[test]
fn star_and_dumbbell() {
    let mut w = World::new(1);
    let t = Star { hosts: 576 }
        .build(&mut w, &cabling(), &mut droptail)
        .unwrap();
    assert_eq!(counts(&t, &w), (576, 1, 1152));
    assert_eq!(t.path_count(HostId(0), HostId(575)), 1);
    assert_eq!(t.locality(HostId(0), HostId(575)), Locality::SameTor);
    check_pair(&t, HostId(3), HostId(400), 2);

    let mut w = World::new(1);
    let c = cabling().with_layer("bottleneck", Rate::mbps(10), SimTime::from_us(100));
    let mut neck_queues = 0;
    let t = Dumbbell { pairs: 5 }
        .build(&mut w, &c, &mut |site| {
            neck_queues += usize::from(site.cable == "bottleneck");
            droptail(site)
        })
        .unwrap();
    assert_eq!(counts(&t, &w), (10, 2, 22));
    assert_eq!(neck_queues, 2);
    let neck = t.node_by_name("left").unwrap();
    let right = t.node_by_name("right").unwrap();
    let l = t.links_between(neck, right).next().unwrap();
    assert_eq!(w.link(l.id).rate(), Rate::mbps(10));
    assert_eq!(w.link(l.id).delay(), SimTime::from_us(100));
    let p = check_pair(&t, HostId(1), HostId(7), 3);
    assert_eq!(p.len(), 1);
    assert!(p[0].contains(&l.id));
    assert_eq!(t.locality(HostId(1), HostId(7)), Locality::OtherPod);
    for bad in [
        Star { hosts: 0 }.build(&mut w, &cabling(), &mut droptail),
        Dumbbell { pairs: 0 }.build(&mut w, &cabling(), &mut droptail),
    ] {
        assert!(matches!(bad, Err(TopologyError::InvalidParameter { .. })));
    }
}

#[test]
fn dhft_k12_has_576_hosts_and_fattree_path_counts() {
    let mut w = World::new(1);
    let t = Dhft { k: 12 }
        .build(&mut w, &cabling(), &mut droptail)
        .unwrap();
    // 12 pods x 6 ToR pairs x 8 hosts; 144 ToRs + 72 aggs + 36 cores; 4 x 576 + 12^3 links.
    assert_eq!(counts(&t, &w), (576, 252, 4 * 576 + 1728));
    // Every host has two NICs, every ToR 8 host ports + 3 uplinks, aggs and cores 12 ports.
    let tor = t.layer_id("tor").unwrap();
    for (i, n) in t.nodes().iter().enumerate() {
        let ports = t
            .links_of_node(htsim_topology::topology::NodeId(i as u32))
            .count();
        let want = match t.layer_name(n.layer) {
            "host" => 2,
            "tor" => 11,
            _ => 12,
        };
        assert_eq!(ports, want, "{}", n.name);
    }
    assert!(t.nodes().iter().filter(|n| n.layer == tor).count() == 144);
    // host0 and host7 share a pair; host8 is the next pair; host48 is the next pod.
    for (dst, loc, paths, hops) in [
        (7, Locality::SameTor, 2, 2),
        (8, Locality::SamePod, 6, 4),
        (48, Locality::OtherPod, 36, 6),
        (575, Locality::OtherPod, 36, 6),
    ] {
        assert_eq!(t.locality(HostId(0), HostId(dst)), loc);
        assert_eq!(t.path_count(HostId(0), HostId(dst)), paths, "0->{dst}");
        check_pair(&t, HostId(0), HostId(dst), hops);
    }
    for k in [0, 4, 8, 13] {
        assert!(
            Dhft { k }.build(&mut w, &cabling(), &mut droptail).is_err(),
            "k={k}"
        );
    }
}

#[test]
fn vl2_counts_and_paths() {
    for (da, di, hpt) in [(4u32, 4u32, 2u32), (8, 6, 20)] {
        let mut w = World::new(1);
        let c = Cabling10G::new();
        let t = Vl2 {
            da,
            di,
            hosts_per_tor: hpt,
        }
        .build(&mut w, &c.0, &mut droptail)
        .unwrap();
        let tors = da * di / 4;
        let hosts = tors * hpt;
        assert_eq!(
            counts(&t, &w),
            (
                hosts,
                (tors + di + da / 2) as usize,
                (2 * hosts + 2 * da * di) as usize
            )
        );
        // Host links at 1 Gb/s, fabric at 10 Gb/s.
        let h0 = t.hosts()[0].node;
        assert_eq!(
            w.link(t.links_of_node(h0).next().unwrap().id).rate(),
            Rate::gbps(1)
        );
        let int0 = t.node_by_name("int0").unwrap();
        assert_eq!(t.links_of_node(int0).count() as u32, di);
        assert_eq!(
            w.link(t.links_of_node(int0).next().unwrap().id).rate(),
            Rate::gbps(10)
        );
        let per_pod = hpt * da / 2;
        for (dst, loc, paths, hops) in [
            (1, Locality::SameTor, 1, 2),
            (hpt, Locality::SamePod, 2, 4),
            (per_pod, Locality::OtherPod, 2 * da, 6),
        ] {
            assert_eq!(t.locality(HostId(0), HostId(dst)), loc);
            assert_eq!(t.path_count(HostId(0), HostId(dst)), paths);
            check_pair(&t, HostId(0), HostId(dst), hops);
        }
    }
    let mut w = World::new(1);
    assert!(Vl2 {
        da: 3,
        di: 4,
        hosts_per_tor: 1
    }
    .build(&mut w, &cabling(), &mut droptail)
    .is_err());
    assert!(Vl2 {
        da: 4,
        di: 4,
        hosts_per_tor: 0
    }
    .build(&mut w, &cabling(), &mut droptail)
    .is_err());
}

/// [P2]'s VL2 cabling: 10 Gb/s fabric, 1 Gb/s host links.
struct Cabling10G(htsim_topology::cabling::Cabling);
impl Cabling10G {
    fn new() -> Self {
        Cabling10G(
            htsim_topology::cabling::Cabling::uniform(Rate::gbps(10), SimTime::from_us(1))
                .with_layer("tor", Rate::gbps(1), SimTime::from_us(1)),
        )
    }
}

#[test]
fn bcube_counts_and_parallel_paths() {
    for (n, k) in [(4u32, 1u32), (4, 2)] {
        let mut w = World::new(1);
        let t = BCube { n, k }
            .build(&mut w, &cabling(), &mut droptail)
            .unwrap();
        let hosts = n.pow(k + 1);
        assert_eq!(
            counts(&t, &w),
            (
                hosts,
                ((k + 1) * n.pow(k)) as usize,
                (2 * (k + 1) * hosts) as usize
            )
        );
        assert!(t
            .nodes()
            .iter()
            .filter(|x| x.kind == NodeKind::Host)
            .all(|x| x.forwards));
        for s in 0..hosts {
            for d in (0..hosts).step_by(3) {
                let (src, dst) = (HostId(s), HostId(d));
                if s == d {
                    assert_eq!(t.path_count(src, dst), 0);
                    continue;
                }
                assert_eq!(t.path_count(src, dst), k + 1);
                let mut used = HashSet::new();
                let differing = (0..=k)
                    .filter(|&l| s / n.pow(l) % n != d / n.pow(l) % n)
                    .count();
                for i in 0..=k {
                    let mut p = Vec::new();
                    t.path(src, dst, i, &mut p);
                    let nodes = nodes_of(&t, src, &p);
                    assert_eq!(*nodes.last().unwrap(), t.hosts()[d as usize].node);
                    // One host-switch-host step per corrected digit, plus a detour of two steps
                    // on the paths that start on a level where the digits agree.
                    assert!(
                        p.len() == 2 * differing || p.len() == 2 * differing + 4,
                        "{s}->{d} path {i}: {} links",
                        p.len()
                    );
                    // The first hop is the source's level-i NIC.
                    assert_eq!(
                        t.layer_name(t.link(p[1]).unwrap().layer),
                        format!("level{i}")
                    );
                    for l in p {
                        assert!(used.insert(l), "{s}->{d}: paths share link {l:?}");
                    }
                }
            }
        }
    }
    let mut w = World::new(1);
    assert!(BCube { n: 1, k: 1 }
        .build(&mut w, &cabling(), &mut droptail)
        .is_err());
    assert!(matches!(
        BCube { n: 1000, k: 5 }.build(&mut w, &cabling(), &mut droptail),
        Err(TopologyError::TooLarge { .. })
    ));
}

#[test]
fn bcube_shortest_paths_are_the_minimum_hop_ones() {
    let (n, k) = (4u32, 2u32);
    let mut w = World::new(1);
    let mut t = BCube { n, k }
        .build(&mut w, &cabling(), &mut droptail)
        .unwrap();
    t.keep_shortest_paths(&mut w);
    for s in 0..n.pow(k + 1) {
        for d in (0..n.pow(k + 1)).step_by(5).filter(|&d| d != s) {
            let (src, dst) = (HostId(s), HostId(d));
            // Highest differing level first, as htsim lists them.
            let levels: Vec<u32> = (0..=k)
                .rev()
                .filter(|&l| s / n.pow(l) % n != d / n.pow(l) % n)
                .collect();
            // One path per differing digit, each of 2 links per digit, leaving on that level.
            assert_eq!(t.path_count(src, dst), levels.len() as u32, "{s}->{d}");
            for (i, level) in levels.iter().enumerate() {
                let mut p = Vec::new();
                t.path(src, dst, i as u32, &mut p);
                assert_eq!(p.len(), 2 * levels.len(), "{s}->{d} path {i}");
                let first = t.link(p[1]).unwrap().layer;
                assert_eq!(t.layer_name(first), format!("level{level}"));
                let nodes = nodes_of(&t, src, &p);
                assert_eq!(*nodes.last().unwrap(), t.hosts()[d as usize].node);
            }
        }
    }
    // Neighbours (host 0 and host 1 differ in digit 0 only): the direct link, one switch.
    assert_eq!(t.path_count(HostId(0), HostId(1)), 1);
    let mut p = Vec::new();
    t.path(HostId(0), HostId(1), 0, &mut p);
    assert_eq!(p.len(), 2);
}

#[test]
fn xmp_two_path_and_torus() {
    let mut w = World::new(1);
    let t = XmpTwoPath {
        multipath_pairs: 2,
        single_path_pairs: [1, 3],
    }
    .build(&mut w, &cabling(), &mut droptail)
    .unwrap();
    // 6 pairs; 2 dual-homed pairs have 4 host cables each, 4 single pairs 2 each; 2 bottlenecks.
    assert_eq!(counts(&t, &w), (12, 4, 2 * (2 * 4 + 4 * 2 + 2)));
    let neck = |p: &[LinkId]| t.node(t.link(p[1]).unwrap().from).name.clone();
    let paths = check_pair(&t, HostId(0), HostId(6), 3);
    assert_eq!(
        paths.iter().map(|p| neck(p)).collect::<Vec<_>>(),
        ["left0", "left1"]
    );
    assert_eq!(neck(&check_pair(&t, HostId(2), HostId(8), 3)[0]), "left0");
    assert_eq!(neck(&check_pair(&t, HostId(5), HostId(11), 3)[0]), "left1");

    let mut w = World::new(1);
    let t = XmpTorus { bottlenecks: 5 }
        .build(&mut w, &cabling(), &mut droptail)
        .unwrap();
    assert_eq!(counts(&t, &w), (10, 10, 2 * (5 * 4 + 5)));
    let neck = |p: &[LinkId]| t.node(t.link(p[1]).unwrap().from).name.clone();
    for i in 0..5u32 {
        let paths = check_pair(&t, HostId(i), HostId(5 + i), 3);
        let mut necks: Vec<String> = paths.iter().map(|p| neck(p)).collect();
        necks.sort();
        let mut want = vec![format!("l{i}"), format!("l{}", (i + 1) % 5)];
        want.sort();
        assert_eq!(necks, want);
    }
    assert!(XmpTorus { bottlenecks: 1 }
        .build(&mut w, &cabling(), &mut droptail)
        .is_err());
}

#[test]
fn file_topology_builds_with_the_buffers_and_rates_it_gives() {
    let text = "# two racks under one spine\n\
        host host0 rack=0 pod=0\n\
        host host1 rack=0\n\
        host host2 rack=1 pod=1\n\
        switch t0 layer=tor\n\
        switch t1 layer=tor\n\
        switch s0 layer=spine\n\
        switch s1 layer=spine\n\
        link host0 t0 1Gbps 1us 50pkt\n\
        link host1 t0 1Gbps 1us 50pkt\n\
        link host2 t1 1Gbps 1us 50pkt   # trailing comment\n\
        link t0 s0 10Gbps 2us 64KiB\n\
        link t0 s1 10Gbps 2us 64KiB\n\
        link t1 s0 10Gbps 2us 64KiB layer=fabric\n\
        link t1 s1 10Gbps 2us 64KiB layer=fabric\n";
    let f = FileTopology::parse(text).unwrap();
    let mut w = World::new(1);
    let mut sites = Vec::new();
    let t = f
        .build(&mut w, &mut |site| {
            sites.push((site.layer.to_string(), site.cable.to_string()));
            droptail(site)
        })
        .unwrap();
    assert_eq!(counts(&t, &w), (3, 4, 14));
    assert_eq!((t.rack_count(), t.pod_count()), (2, 2));
    assert_eq!(t.locality(HostId(0), HostId(1)), Locality::SameTor);
    assert_eq!(t.locality(HostId(0), HostId(2)), Locality::OtherPod);
    assert_eq!(t.path_count(HostId(0), HostId(1)), 1);
    assert_eq!(t.path_count(HostId(0), HostId(2)), 2);
    check_pair(&t, HostId(0), HostId(2), 4);
    let up = t
        .links_of_node(t.node_by_name("t0").unwrap())
        .find(|l| t.node(l.to).name == "s0")
        .unwrap();
    assert_eq!(w.link(up.id).rate(), Rate::gbps(10));
    assert_eq!(w.link(up.id).delay(), SimTime::from_us(2));
    assert_eq!(w.link(up.id).queue.limit(), BufferSize::Bytes(65536));
    assert_eq!(t.layer_name(up.cable), "spine");
    assert!(sites.contains(&("spine".to_string(), "fabric".to_string())));
    assert!(sites.contains(&("host".to_string(), "tor".to_string())));
    assert_eq!(
        w.link(t.links_of_node(t.hosts()[0].node).next().unwrap().id)
            .queue
            .limit(),
        BufferSize::Packets(50)
    );
}

#[test]
fn file_hosts_joined_by_switches_or_a_cable_are_connected() {
    for text in [
        "host host0\nhost host1\nlink host0 host1 1Gbps 1us 10pkt\n",
        "host host0\nhost host1\nswitch a\nswitch b\nlink host0 a 1Gbps 1us 10pkt\n\
         link a b 1Gbps 1us 10pkt\nlink host1 b 1Gbps 1us 10pkt\n",
    ] {
        let t = FileTopology::parse(text).unwrap();
        assert_eq!(
            (t.host_count(), t.link_count()),
            (2, 2 * text.matches("link").count() as u64)
        );
    }
}

#[test]
fn a_topology_over_the_link_budget_is_refused_before_allocating() {
    // k = 128 with oversubscription 64: 33.5 M hosts, 69 M directed links (~17 GB of links).
    let mut world = World::new(1);
    world.set_max_links(1000);
    let err = FatTree {
        k: 128,
        oversubscription: 64,
    }
    .build(&mut world, &cabling(), &mut droptail)
    .unwrap_err();
    assert_eq!(
        err,
        TopologyError::OverBudget {
            topology: "fattree",
            hosts: 33_554_432,
            links: 2 * 33_554_432 + 128 * 128 * 128,
            max_links: 1000,
        }
    );
    assert!(world.links().is_empty());
    // A topology within the budget builds.
    let small = FatTree {
        k: 4,
        oversubscription: 1,
    };
    assert!(small.link_count() <= 1000);
    small.build(&mut world, &cabling(), &mut droptail).unwrap();
}

#[test]
fn file_errors_name_the_line() {
    let cases = [
        ("host host0\nhost host2\n", "line 2", "expected host1"),
        (
            "host host0\nswich s0\n",
            "line 2",
            "did you mean \"switch\"",
        ),
        (
            "host host0\nswitch s0\nlink host0 s1 1Gbps 1us 10pkt\n",
            "line 3",
            "did you mean \"s0\"",
        ),
        (
            "host host0\nswitch s0\nlink host0 s0 1Gbps 1 10pkt\n",
            "line 3",
            "unit",
        ),
        (
            "host host0\nswitch s0\nlink host0 s0 1Gbps\n",
            "line 3",
            "link needs",
        ),
        (
            "host host0 rack=0 pod=0\nhost host1 rack=0 pod=1\n",
            "line 2",
            "already in pod 0",
        ),
        ("host host0 rak=1\n", "line 1", "did you mean \"rack\""),
        // `s->t` would name this switch and the link from `s` to `t` at once.
        (
            "host host0\nswitch s->t\n",
            "line 2",
            "node name \"s->t\" holds `->`",
        ),
        // A rack or pod index sizes the host layout: one far above the hosts would allocate
        // tens of GiB from one line.
        (
            "host host0\nhost host1 rack=4294967295 pod=4294967295\n",
            "line 2",
            "rack=4294967295 is out of range: with 2 host(s), racks and pods are numbered \
             from 0 to 1",
        ),
        (
            "host host0 rack=0 pod=2\nhost host1 rack=1 pod=1\n",
            "line 1",
            "pod=2 is out of range",
        ),
        ("switch s0\n", "line 1", "no host"),
        ("host host0\nhost host0\n", "line 2", "twice"),
        (
            "host host0\nhost host1\nswitch s0\nswitch s1\nlink host0 s0 1Gbps 1us 10pkt\n\
             link host1 s1 1Gbps 1us 10pkt\n",
            "line 2",
            "host1 cannot reach host0",
        ),
        (
            "host host0\nhost host1\nswitch s0\nlink host0 s0 1Gbps 1us 10pkt\n",
            "line 2",
            "host1 has no link to a switch",
        ),
        (
            "host host0\nswitch s0\nlink host0 s0 1Gbps 1us 0pkt\n",
            "line 3",
            "buffer must hold",
        ),
        (
            "host host0\nswitch s0\nlink host0 s0 0Gbps 1us 10pkt\n",
            "line 3",
            "rate must be positive",
        ),
        (
            "host host0\nswitch s0\nlink host0 s0 1Gbps 18446744s 10pkt\n",
            "line 3",
            "too large for a duration (at most 1000000s",
        ),
    ];
    for (text, line, what) in cases {
        let err = FileTopology::parse(text).unwrap_err().to_string();
        assert!(
            err.starts_with(line) && err.contains(what),
            "{text:?}: {err}"
        );
    }
}

/// The FatTree written as a topology file: hosts with their racks and pods, switches with
/// their layers, one line per cable.
fn as_file(t: &Topology) -> String {
    let mut s = String::new();
    for (i, h) in t.hosts().iter().enumerate() {
        s += &format!("host host{i} rack={} pod={}\n", h.rack, h.pod);
    }
    for n in t.nodes().iter().filter(|n| n.kind == NodeKind::Switch) {
        s += &format!("switch {} layer={}\n", n.name, t.layer_name(n.layer));
    }
    for l in t.links() {
        if l.from < l.to {
            s += &format!(
                "link {} {} 1Gbps 1us 100pkt\n",
                t.node(l.from).name,
                t.node(l.to).name
            );
        }
    }
    s
}

#[test]
fn fattree_arithmetic_paths_equal_the_bfs_shortest_paths() {
    let mut w = World::new(1);
    let ft = FatTree {
        k: 4,
        oversubscription: 2,
    }
    .build(&mut w, &cabling(), &mut droptail)
    .unwrap();
    let mut w2 = World::new(1);
    let bfs = FileTopology::parse(&as_file(&ft))
        .unwrap()
        .build(&mut w2, &mut droptail)
        .unwrap();
    let names = |t: &Topology, src: HostId, p: &[LinkId]| -> Vec<String> {
        nodes_of(t, src, p)
            .iter()
            .map(|&n| t.node(n).name.clone())
            .collect()
    };
    for s in 0..ft.host_count() {
        for d in 0..ft.host_count() {
            let (src, dst) = (HostId(s), HostId(d));
            assert_eq!(
                ft.path_count(src, dst),
                bfs.path_count(src, dst),
                "{s}->{d}"
            );
            assert_eq!(ft.locality(src, dst), bfs.locality(src, dst));
            let set = |t: &Topology| -> HashSet<Vec<String>> {
                (0..t.path_count(src, dst))
                    .map(|i| {
                        let mut p = Vec::new();
                        t.path(src, dst, i, &mut p);
                        names(t, src, &p)
                    })
                    .collect()
            };
            assert_eq!(set(&ft), set(&bfs), "{s}->{d}");
        }
    }
}

#[test]
fn hosts_of_one_path_class_have_the_same_path_counts_and_localities() {
    // Every pair of hosts against the pair of their classes' first hosts, on every builder.
    let build = |i: usize, w: &mut World| -> Topology {
        let c = cabling();
        match i {
            0 => FatTree {
                k: 4,
                oversubscription: 2,
            }
            .build(w, &c, &mut droptail),
            1 => Dhft { k: 6 }.build(w, &c, &mut droptail),
            2 => Vl2 {
                da: 4,
                di: 4,
                hosts_per_tor: 2,
            }
            .build(w, &Cabling10G::new().0, &mut droptail),
            3 | 4 => BCube { n: 3, k: 1 }.build(w, &c, &mut droptail),
            5 => Star { hosts: 5 }.build(w, &c, &mut droptail),
            6 => Dumbbell { pairs: 3 }.build(w, &c, &mut droptail),
            7 => XmpTwoPath {
                multipath_pairs: 2,
                single_path_pairs: [1, 1],
            }
            .build(w, &c, &mut droptail),
            _ => XmpTorus { bottlenecks: 5 }.build(w, &c, &mut droptail),
        }
        .unwrap()
    };
    for i in 0..9 {
        let mut w = World::new(1);
        let mut t = build(i, &mut w);
        if i == 4 {
            t.keep_shortest_paths(&mut w);
        }
        let classes = t.path_classes();
        let n = t.host_count();
        let first = |c: u32| classes.iter().position(|&x| x == c).unwrap() as u32;
        let second = |c: u32, not: u32| {
            (0..n)
                .find(|&h| classes[h as usize] == c && h != not)
                .unwrap()
        };
        for s in 0..n {
            for d in (0..n).filter(|&d| d != s) {
                let (cs, cd) = (classes[s as usize], classes[d as usize]);
                let (rs, rd) = if cs == cd {
                    (first(cs), second(cs, first(cs)))
                } else {
                    (first(cs), first(cd))
                };
                let (a, b) = (HostId(s), HostId(d));
                let (ra, rb) = (HostId(rs), HostId(rd));
                assert_eq!(
                    (t.path_count(a, b), t.locality(a, b)),
                    (t.path_count(ra, rb), t.locality(ra, rb)),
                    "builder {i}: {s}->{d} against {rs}->{rd}"
                );
            }
        }
        let distinct: HashSet<u32> = classes.iter().copied().collect();
        match i {
            0 => assert_eq!(distinct.len(), 8, "one class per ToR"),
            5 => assert_eq!(distinct.len(), 1, "a star is one class"),
            3 => assert_eq!(distinct.len() as u32, t.rack_count()),
            4 => assert_eq!(distinct.len() as u32, n),
            _ => {}
        }
    }
}

#[test]
fn bcube_shortest_pairs_per_reach_are_the_first_of_each_in_a_full_listing() {
    // Destination by destination, source by source, the first pair of each (locality, path
    // count) over every ordered pair, against the counting of first_pair_per_reach.
    let brute = |t: &Topology, hosts: &[u32], rack_local: bool| {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for &d in hosts {
            for &s in hosts {
                let (a, b) = (HostId(s), HostId(d));
                let locality = t.locality(a, b);
                if s == d || (!rack_local && locality == Locality::SameTor) {
                    continue;
                }
                if seen.insert((locality, t.path_count(a, b))) {
                    out.push((s, d));
                }
            }
        }
        out
    };
    let mut pairs = 0;
    for (n, k) in [(2, 0), (3, 1), (4, 1), (3, 2), (2, 3), (3, 3)] {
        let mut w = World::new(1);
        let mut t = BCube { n, k }
            .build(&mut w, &cabling(), &mut droptail)
            .unwrap();
        assert_eq!(t.first_pair_per_reach(&[0, 1], true), None);
        t.keep_shortest_paths(&mut w);
        let count = t.host_count();
        let all: Vec<u32> = (0..count).collect();
        let reversed: Vec<u32> = (0..count).rev().collect();
        let scrambled: Vec<u32> = (0..count).map(|h| (h * 7 + 3) % count).collect();
        let some: Vec<u32> = (0..count).filter(|h| h % 5 == 2 || h % 7 == 0).collect();
        let few = [count - 1, 0];
        for hosts in [&all[..], &reversed, &scrambled, &some, &few] {
            for rack_local in [true, false] {
                let expected = brute(&t, hosts, rack_local);
                pairs += expected.len();
                assert_eq!(
                    t.first_pair_per_reach(hosts, rack_local),
                    Some(expected),
                    "BCube({n}, {k}), {hosts:?}, rack_local {rack_local}"
                );
            }
        }
    }
    assert!(pairs > 100, "{pairs}");
    let t = Star { hosts: 4 }
        .build(&mut World::new(1), &cabling(), &mut droptail)
        .unwrap();
    assert_eq!(t.first_pair_per_reach(&[0, 1, 2], true), None);
}

#[test]
fn the_largest_parameters_are_refused_without_overflow_or_a_long_loop() {
    // Built directly (the scenario loader caps every parameter): the host and link counts
    // overflowed u64 (a panic in a debug build), and the XMP testbed listed 4 x 10^9 pairs
    // before checking its size.
    let big = u32::MAX - 1;
    let mut world = World::new(1);
    let results = [
        FatTree {
            k: big,
            oversubscription: u32::MAX,
        }
        .build(&mut world, &cabling(), &mut droptail),
        Dhft { k: 4_294_967_292 }.build(&mut world, &cabling(), &mut droptail),
        Vl2 {
            da: big,
            di: big,
            hosts_per_tor: u32::MAX,
        }
        .build(&mut world, &cabling(), &mut droptail),
        BCube {
            n: u32::MAX,
            k: u32::MAX,
        }
        .build(&mut world, &cabling(), &mut droptail),
        Star { hosts: u32::MAX }.build(&mut world, &cabling(), &mut droptail),
        Dumbbell { pairs: u32::MAX }.build(&mut world, &cabling(), &mut droptail),
        XmpTwoPath {
            multipath_pairs: u32::MAX / 2,
            single_path_pairs: [0, 0],
        }
        .build(&mut world, &cabling(), &mut droptail),
        XmpTorus {
            bottlenecks: u32::MAX,
        }
        .build(&mut world, &cabling(), &mut droptail),
    ];
    for r in results {
        let Err(e) = r else {
            panic!("a network this large was built");
        };
        assert!(e.to_string().contains("too"), "{e}");
    }
    assert!(world.links().is_empty());
    assert_eq!(
        FatTree {
            k: u32::MAX,
            oversubscription: u32::MAX
        }
        .host_count(),
        u64::MAX
    );
}
