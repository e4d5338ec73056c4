//! FatTree: counts against formulas, path sets (counts, shape, reverses), ECMP and spraying over
//! the installed path source, parameter errors.

mod common;

use common::{cabling, check_pair, droptail, nodes_of};
use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{HostId, RouteId};
use htsim_core::packet::Packet;
use htsim_core::routing::{FlowKey, RoutingMode};
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_topology::error::TopologyError;
use htsim_topology::fattree::FatTree;
use htsim_topology::topology::{Locality, NodeKind, Topology};
use rand::{Rng, SeedableRng};

fn fattree(k: u32, r: u32) -> (World, Topology) {
    let mut w = World::new(1);
    let t = FatTree {
        k,
        oversubscription: r,
    }
    .build(&mut w, &cabling(), &mut droptail)
    .expect("valid FatTree");
    (w, t)
}

#[test]
fn counts_match_the_formulas() {
    for k in [4u32, 8, 16] {
        for r in [1u32, 2, 4] {
            let (w, t) = fattree(k, r);
            let hosts = k * k * k / 4 * r;
            assert_eq!(t.host_count(), hosts, "k={k} r={r}");
            assert_eq!(t.switch_count() as u32, 5 * k * k / 4);
            assert_eq!(t.links().len() as u32, 2 * hosts + k * k * k);
            assert_eq!(w.links().len(), t.links().len());
            assert_eq!(t.rack_count(), k * k / 2);
            assert_eq!(t.pod_count(), k);
            let count_layer = |name: &str| {
                let l = t.layer_id(name).unwrap();
                t.nodes().iter().filter(|n| n.layer == l).count() as u32
            };
            assert_eq!(count_layer("tor"), k * k / 2);
            assert_eq!(count_layer("agg"), k * k / 2);
            assert_eq!(count_layer("core"), k * k / 4);
            // Every switch has k ports, a ToR (k/2)(1 + r): k/2 up and (k/2) r down.
            for (i, n) in t.nodes().iter().enumerate() {
                let ports = t
                    .links_of_node(htsim_topology::topology::NodeId(i as u32))
                    .count() as u32;
                let want = match t.layer_name(n.layer) {
                    "host" => 1,
                    "tor" => k / 2 * (1 + r),
                    _ => k,
                };
                assert_eq!(ports, want, "{}", n.name);
            }
        }
    }
}

#[test]
fn names_layers_racks_and_pods_follow_the_spec() {
    let (_, t) = fattree(8, 2);
    // Host index order is pod, ToR, host: 8 hosts per ToR, 32 per pod.
    let h = t.host(HostId(77)).unwrap();
    assert_eq!(t.node(h.node).name, "host77");
    assert_eq!(t.node(h.node).kind, NodeKind::Host);
    assert_eq!((h.rack, h.pod), (9, 2));
    for name in ["tor2.1", "agg7.3", "core15"] {
        assert!(t.node_by_name(name).is_ok(), "{name}");
    }
    let tor = t.node_by_name("tor2.1").unwrap();
    assert!(t.links_of_node(tor).any(|l| l.to == h.node));
    // Core c of group g connects to agg g of every pod: core 13 is in group 3.
    let core = t.node_by_name("core13").unwrap();
    let mut aggs: Vec<String> = t
        .links_of_node(core)
        .map(|l| t.node(l.to).name.clone())
        .collect();
    aggs.sort();
    let want: Vec<String> = (0..8).map(|p| format!("agg{p}.3")).collect();
    assert_eq!(aggs, want);
    for l in t.links_of_node(core) {
        assert_eq!(t.layer_name(l.layer), "core");
        assert_eq!(t.layer_name(l.cable), "core");
    }
    let err = t.node_by_name("core16").unwrap_err();
    assert!(err.to_string().contains("did you mean"), "{err}");
}

#[test]
fn path_counts_by_locality() {
    for (k, r) in [(4u32, 1u32), (8, 1), (8, 4)] {
        let (_, t) = fattree(k, r);
        let n = t.host_count();
        for s in (0..n).step_by(3) {
            for d in (0..n).step_by(5) {
                let (src, dst) = (HostId(s), HostId(d));
                let (want, hops) = match t.locality(src, dst) {
                    Locality::SameHost => (0, 0),
                    Locality::SameTor => (1, 2),
                    Locality::SamePod => (k / 2, 4),
                    Locality::OtherPod => (k * k / 4, 6),
                };
                assert_eq!(t.path_count(src, dst), want, "k={k} {s}->{d}");
                if want > 0 {
                    check_pair(&t, src, dst, hops);
                }
            }
        }
    }
}

#[test]
fn all_pairs_of_a_k4_fattree_have_shortest_distinct_reversible_paths() {
    let (_, t) = fattree(4, 1);
    let n = t.host_count();
    let mut counts = [0u32; 3];
    for s in 0..n {
        for d in 0..n {
            let (src, dst) = (HostId(s), HostId(d));
            let loc = t.locality(src, dst);
            if loc == Locality::SameHost {
                assert_eq!(t.path_count(src, dst), 0);
                continue;
            }
            let hops = 2 * (loc as usize);
            let fwd = check_pair(&t, src, dst, hops);
            let back = check_pair(&t, dst, src, hops);
            counts[loc as usize - 1] += 1;
            for (f, b) in fwd.iter().zip(&back) {
                let mut rev = nodes_of(&t, dst, b);
                rev.reverse();
                assert_eq!(nodes_of(&t, src, f), rev, "reverse of {s}->{d}");
            }
        }
    }
    // 16 hosts: 16 x 1 same-ToR, 16 x 2 same-pod, 16 x 12 other-pod ordered pairs.
    assert_eq!(counts, [16, 32, 192]);
}

#[test]
fn bad_parameters_are_errors_and_leave_the_world_alone() {
    let mut w = World::new(1);
    for (k, r) in [(3, 1), (0, 1), (1, 1), (4, 0)] {
        let err = FatTree {
            k,
            oversubscription: r,
        }
        .build(&mut w, &cabling(), &mut droptail)
        .unwrap_err();
        assert!(
            matches!(err, TopologyError::InvalidParameter { .. }),
            "{err}"
        );
    }
    let err = FatTree {
        k: 4096,
        oversubscription: 1,
    }
    .build(&mut w, &cabling(), &mut droptail)
    .unwrap_err();
    assert!(matches!(err, TopologyError::TooLarge { .. }), "{err}");
    let err = FatTree {
        k: 4,
        oversubscription: 1,
    }
    .build(
        &mut w,
        &cabling().with_layer("cor", htsim_core::Rate::gbps(1), SimTime::ZERO),
        &mut droptail,
    )
    .unwrap_err();
    assert!(err.to_string().contains("did you mean \"core\""), "{err}");
    assert_eq!(w.links().len(), 0);
}

/// Asks the world's routing for a route per flow key, twice per key, and keeps the answers.
struct Chooser {
    src: HostId,
    dst: HostId,
    keys: Vec<FlowKey>,
    chosen: Vec<(RouteId, RouteId)>,
}
impl Endpoint for Chooser {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let set = ctx.path_set(self.src, self.dst).expect("a path set");
        for &key in &self.keys {
            let a = ctx.choose_route(set, key);
            let b = ctx.choose_route(set, key);
            self.chosen.push((a, b));
        }
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
}

/// The path index each route of the pair is, through the world's interned routes.
fn path_histogram(
    w: &World,
    t: &Topology,
    src: HostId,
    dst: HostId,
    routes: &[RouteId],
) -> Vec<u32> {
    let n = t.path_count(src, dst);
    let paths: Vec<Vec<_>> = (0..n)
        .map(|i| {
            let mut p = Vec::new();
            t.path(src, dst, i, &mut p);
            p
        })
        .collect();
    let mut hist = vec![0u32; n as usize];
    for &r in routes {
        let links = w.routes().links(r);
        let i = paths
            .iter()
            .position(|p| p == links)
            .expect("a path of the pair");
        hist[i] += 1;
    }
    hist
}

fn choose(mode: RoutingMode, keys: Vec<FlowKey>) -> (World, Topology, Vec<(RouteId, RouteId)>) {
    let (mut w, t) = fattree(8, 1);
    w.set_routing_mode(mode);
    // host0 (pod 0) to host100 (pod 6): 16 paths.
    let id = w.spawn(
        Box::new(Chooser {
            src: HostId(0),
            dst: HostId(100),
            keys,
            chosen: Vec::new(),
        }),
        SimTime::ZERO,
    );
    w.run();
    let e: &dyn std::any::Any = w.endpoint(id).expect("chooser alive");
    let chosen = e.downcast_ref::<Chooser>().unwrap().chosen.clone();
    (w, t, chosen)
}

fn chi_square(hist: &[u32]) -> f64 {
    let total: u32 = hist.iter().sum();
    let e = f64::from(total) / hist.len() as f64;
    hist.iter().map(|&c| (f64::from(c) - e).powi(2) / e).sum()
}

#[test]
fn ecmp_is_stable_per_five_tuple_and_uniform_over_source_ports() {
    // 100000 distinct random 5-tuples: random source ports, and since there are only 65536 of
    // those, random destination ports too (a repeated tuple is not an independent draw).
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2024);
    let mut seen = std::collections::HashSet::new();
    let mut keys = Vec::new();
    while keys.len() < 100_000 {
        let key = FlowKey {
            src_port: rng.random(),
            dst_port: rng.random(),
            protocol: 6,
        };
        if seen.insert(key) {
            keys.push(key);
        }
    }
    let (w, t, chosen) = choose(RoutingMode::Ecmp, keys.clone());
    assert_eq!(t.path_count(HostId(0), HostId(100)), 16);
    assert!(
        chosen.iter().all(|(a, b)| a == b),
        "same 5-tuple, same path"
    );
    // The same tuples again in a new run with the same seed: the same routes.
    let (_, _, again) = choose(RoutingMode::Ecmp, keys[..1000].to_vec());
    assert_eq!(again[..], chosen[..1000]);
    let routes: Vec<RouteId> = chosen.iter().map(|c| c.0).collect();
    let hist = path_histogram(&w, &t, HostId(0), HostId(100), &routes);
    // 16 paths: 15 degrees of freedom, critical value 30.58 at the 1% level.
    let chi2 = chi_square(&hist);
    assert!(chi2 < 30.58, "chi2 = {chi2}, histogram {hist:?}");
    assert_eq!(
        w.routes().route_count(),
        16,
        "only the pair's 16 routes exist"
    );
}

#[test]
fn spraying_is_uniform_per_packet_and_single_uses_one_path() {
    let key = FlowKey {
        src_port: 1234,
        dst_port: 80,
        protocol: 6,
    };
    let (w, t, chosen) = choose(RoutingMode::Spray, vec![key; 16_000]);
    let routes: Vec<RouteId> = chosen.iter().flat_map(|c| [c.0, c.1]).collect();
    let hist = path_histogram(&w, &t, HostId(0), HostId(100), &routes);
    let chi2 = chi_square(&hist);
    assert!(chi2 < 30.58, "chi2 = {chi2}, histogram {hist:?}");
    let keys: Vec<FlowKey> = (0..1000u16)
        .map(|p| FlowKey { src_port: p, ..key })
        .collect();
    let (_, _, chosen) = choose(RoutingMode::Single, keys);
    assert!(chosen.iter().all(|c| c.0 == chosen[0].0));
}

#[test]
fn a_k32_fattree_builds() {
    let (w, t) = fattree(32, 1);
    assert_eq!(t.host_count(), 8192);
    assert_eq!(t.switch_count(), 1280);
    assert_eq!(w.links().len(), 2 * 8192 + 32 * 32 * 32);
    assert_eq!(t.path_count(HostId(0), HostId(8191)), 256);
    check_pair(&t, HostId(0), HostId(8191), 6);
}
