//! Link selection and link events: exact arrival times and losses of packets sent through a
//! FatTree around a scheduled rate change and a down/up pair.

mod common;

use common::{cabling, droptail};
use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{EndpointId, HostId};
use htsim_core::link::LinkChange;
use htsim_core::packet::{Packet, PacketKind};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::error::TopologyError;
use htsim_topology::events::{schedule, LinkSelector};
use htsim_topology::fattree::FatTree;
use htsim_topology::topology::Topology;
use rand::SeedableRng;

fn fattree(k: u32) -> (World, Topology) {
    let mut w = World::new(1);
    let t = FatTree {
        k,
        oversubscription: 1,
    }
    .build(&mut w, &cabling(), &mut droptail)
    .unwrap();
    (w, t)
}

fn rng(seed: u64) -> rand_pcg::Pcg64Mcg {
    rand_pcg::Pcg64Mcg::seed_from_u64(seed)
}

fn names(t: &Topology, sel: &LinkSelector) -> Result<Vec<String>, TopologyError> {
    Ok(sel
        .resolve(t, &mut rng(0))?
        .into_iter()
        .map(|id| t.link_name(t.link(id).unwrap()))
        .collect())
}

#[test]
fn names_select_links_and_unknown_names_suggest() {
    let (_, t) = fattree(8);
    let one = |s: &str| LinkSelector::Names(vec![s.to_string()]);
    assert_eq!(names(&t, &one("core3->agg1.0")).unwrap(), ["core3->agg1.0"]);
    let both = names(&t, &one("core3<->agg1.0")).unwrap();
    assert_eq!(both.len(), 2);
    assert!(both.contains(&"agg1.0->core3".to_string()));
    assert_eq!(names(&t, &one("core3")).unwrap().len(), 8);
    let two = LinkSelector::Names(vec!["core3".into(), "core3->agg1.0".into()]);
    assert_eq!(names(&t, &two).unwrap().len(), 8, "no duplicates");
    let err = names(&t, &one("core3->agg1.1")).unwrap_err().to_string();
    assert!(err.contains("did you mean \"core3->agg1.0\""), "{err}");
    let err = names(&t, &one("cor3")).unwrap_err().to_string();
    assert!(err.contains("did you mean \"core3\""), "{err}");
    let ids = LinkSelector::Ids(vec![t.links()[5].id]);
    assert_eq!(ids.resolve(&t, &mut rng(0)).unwrap(), [t.links()[5].id]);
    let bad = LinkSelector::Ids(vec![htsim_core::ids::LinkId(1_000_000)]);
    assert!(bad.resolve(&t, &mut rng(0)).is_err());
}

#[test]
fn layer_fraction_picks_whole_switches_by_seed() {
    let (_, t) = fattree(8);
    let core = |f: f64| LinkSelector::Layer {
        layer: "core".into(),
        switches: Some(f),
    };
    // docs/model.md 9.5: 16 cores give 0, 1, 3, 4, 6, 8, 9 hot cores for 0..60%.
    for (pct, cores) in [(0, 0), (10, 1), (20, 3), (30, 4), (40, 6), (50, 8), (60, 9)] {
        let links = core(f64::from(pct) / 100.0)
            .resolve(&t, &mut rng(7))
            .unwrap();
        assert_eq!(links.len(), cores * 8, "{pct}%");
        let mut from: Vec<_> = links.iter().map(|&l| t.link(l).unwrap().from).collect();
        from.dedup();
        assert_eq!(from.len(), cores);
        for &l in &links {
            let info = t.link(l).unwrap();
            assert_eq!(t.layer_name(info.layer), "core");
            assert_eq!(
                t.layer_name(t.node(info.to).layer),
                "agg",
                "core-to-agg only"
            );
        }
    }
    let a = core(0.3).resolve(&t, &mut rng(1)).unwrap();
    assert_eq!(a, core(0.3).resolve(&t, &mut rng(1)).unwrap(), "same seed");
    let differs = (2..12).any(|s| core(0.3).resolve(&t, &mut rng(s)).unwrap() != a);
    assert!(differs, "other seeds choose other cores");
    // Over many seeds every core is chosen about equally often (4 of 16 each time).
    let mut hits = [0u32; 16];
    for s in 0..4000 {
        for l in core(0.3)
            .resolve(&t, &mut rng(s))
            .unwrap()
            .iter()
            .step_by(8)
        {
            let name = &t.node(t.link(*l).unwrap().from).name;
            hits[name[4..].parse::<usize>().unwrap()] += 1;
        }
    }
    let chi2: f64 = hits
        .iter()
        .map(|&h| (f64::from(h) - 1000.0).powi(2) / 1000.0)
        .sum();
    assert!(chi2 < 30.58, "{hits:?}");
    let all = LinkSelector::Layer {
        layer: "tor".into(),
        switches: None,
    };
    assert_eq!(all.resolve(&t, &mut rng(0)).unwrap().len(), 32 * 8);
    let err = LinkSelector::Layer {
        layer: "cores".into(),
        switches: Some(0.3),
    }
    .resolve(&t, &mut rng(0))
    .unwrap_err();
    assert!(err.to_string().contains("did you mean \"core\""), "{err}");
    assert!(core(1.5).resolve(&t, &mut rng(0)).is_err());
}

/// Sends `n` 1500-byte packets at start on path `index` of host0 -> host15.
struct Pinned {
    dst: EndpointId,
    index: u32,
    n: u64,
}
impl Endpoint for Pinned {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let set = ctx.path_set(HostId(0), HostId(15)).unwrap();
        let route = ctx.route(set, self.index);
        for seq in 0..self.n {
            ctx.send(Packet {
                seq,
                dst: self.dst,
                route,
                size_bytes: 1500,
                payload_bytes: 1500,
                kind: PacketKind::Data,
                ..Packet::default()
            });
        }
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
}

#[derive(Default)]
struct Recorder {
    got: Vec<(u64, u64)>,
}
impl Endpoint for Recorder {
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        self.got.push((packet.seq, ctx.now().as_ns() / 1000));
    }
}

/// Runs 5 packets host0 -> host15 (k = 4, 100 Mb/s, 20 us) on path 0 with `events`; returns
/// (sequence number, arrival in us) per delivered packet.
fn run(events: &[(&str, u64, LinkChange)]) -> (World, Vec<(u64, u64)>) {
    let (mut w, t) = fattree(4);
    for &(name, at_us, change) in events {
        let links = LinkSelector::Names(vec![name.into()])
            .resolve(&t, &mut rng(0))
            .unwrap();
        schedule(&mut w, &links, SimTime::from_us(at_us), change);
    }
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    w.spawn(
        Box::new(Pinned {
            dst: rx,
            index: 0,
            n: 5,
        }),
        SimTime::ZERO,
    );
    w.run();
    assert!(w.conservation().holds());
    let e: &dyn std::any::Any = w.endpoint(rx).unwrap();
    let got = e.downcast_ref::<Recorder>().unwrap().got.clone();
    (w, got)
}

#[test]
fn packets_cross_six_hops_store_and_forward() {
    // 1500 B at 100 Mb/s = 120 us per hop + 20 us propagation: the first packet after
    // 6 x 140 us, the others 120 us apart.
    let (_, got) = run(&[]);
    assert_eq!(got, [(0, 840), (1, 960), (2, 1080), (3, 1200), (4, 1320)]);
}

#[test]
fn a_rate_change_applies_from_the_next_packet_served_after_the_instant() {
    // The last hop (tor3.1 -> host15) serves packet j from 700 + 120 j us. At 1000 us it is
    // serving packet 2 (940..1060), which keeps its rate; packet 3 (arrived at 1060) takes
    // 240 us at 50 Mb/s: done 1300, arrives 1320; packet 4 waits: 1300..1540, arrives 1560.
    let (_, got) = run(&[("tor3.1->host15", 1000, LinkChange::Rate(Rate::mbps(50)))]);
    assert_eq!(got, [(0, 840), (1, 960), (2, 1080), (3, 1320), (4, 1560)]);
    // The same change at 1061 us: packet 3 is then in service (from 1060 us) and keeps the old
    // rate; only packet 4 is slowed: 1180..1420, arrives 1440.
    let (_, got) = run(&[("tor3.1->host15", 1061, LinkChange::Rate(Rate::mbps(50)))]);
    assert_eq!(got, [(0, 840), (1, 960), (2, 1080), (3, 1200), (4, 1440)]);
}

#[test]
fn down_loses_what_is_on_the_link_and_up_restores_it() {
    // Path 0 crosses core0 -> agg3.0, which serves packet j from 420 + 120 j us. Down at 500 us
    // loses packet 0 (in service); packets 1 and 2 reach the core at 540 and 660 and are
    // dropped; up at 700 us lets packets 3 (780) and 4 (900) through on time.
    let (w, got) = run(&[
        ("core0->agg3.0", 500, LinkChange::Down),
        ("core0->agg3.0", 700, LinkChange::Up),
    ]);
    assert_eq!(got, [(3, 1200), (4, 1320)]);
    assert_eq!(w.stats().packets_dropped + lost(&w), 3);
    // A buffer change to 0 packets at 0 us: the core's port admits nothing, all 5 are dropped
    // there; from 1000 us (after the last arrival at 900 us) it drops nothing.
    let core_port = |w: &World| {
        let (_, t) = fattree(4);
        let id = LinkSelector::Names(vec!["core0->agg3.0".into()])
            .resolve(&t, &mut rng(0))
            .unwrap()[0];
        w.link_counters(id).packets_dropped
    };
    let zero = LinkChange::Limit(BufferSize::Packets(0));
    let (w, got) = run(&[("core0->agg3.0", 0, zero)]);
    assert!(got.is_empty());
    assert_eq!(core_port(&w), 5);
    let (w, got) = run(&[("core0->agg3.0", 1000, zero)]);
    assert_eq!(got.len(), 5);
    assert_eq!(core_port(&w), 0);
}

fn lost(w: &World) -> u64 {
    (0..w.links().len() as u32)
        .map(|i| {
            w.link_counters(htsim_core::ids::LinkId(i))
                .packets_lost_link_down
        })
        .sum()
}
