//! Engine behaviour with exact numbers: delivery times, drops, ECN marks, link changes,
//! conservation, determinism and the packet pool's steady state.

use htsim_core::endpoint::{Ctx, Endpoint, RouteCache};
use htsim_core::ids::{EndpointId, HostId, LinkId, RouteId};
use htsim_core::link::LinkChange;
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::queue::{Discipline, Queue};
use htsim_core::routing::{FlowKey, PathSource, RoutingMode};
use htsim_core::source::{CbrSource, Sink, SourceSpec, WindowSource};
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};

fn droptail(pkts: u64) -> Queue {
    Queue::new(BufferSize::Packets(pkts), Discipline::DropTail)
}

/// A chain of `n` links of the same rate and delay; returns the route over all of them.
fn chain(w: &mut World, n: usize, rate: Rate, delay: SimTime, buf: u64) -> (Vec<LinkId>, RouteId) {
    let links: Vec<LinkId> = (0..n)
        .map(|_| w.add_link(rate, delay, droptail(buf)))
        .collect();
    let route = w.routes_mut().intern(&links);
    (links, route)
}

/// Sends a fixed list of packets at start.
struct Burst {
    packets: Vec<Packet>,
}
impl Endpoint for Burst {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        for p in self.packets.drain(..) {
            ctx.send(p);
        }
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
}

/// Remembers every packet it receives, with its arrival time.
#[derive(Default)]
struct Recorder {
    got: Vec<(SimTime, Packet)>,
}
impl Endpoint for Recorder {
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        self.got.push((ctx.now(), *packet));
    }
}

fn data(dst: EndpointId, route: RouteId, size: u32, seq: u64) -> Packet {
    Packet {
        seq,
        dst,
        route,
        size_bytes: size,
        payload_bytes: size,
        kind: PacketKind::Data,
        ..Packet::default()
    }
}

fn recorder(w: &World, id: EndpointId) -> &Recorder {
    let e: &dyn std::any::Any = w.endpoint(id).expect("recorder alive");
    e.downcast_ref::<Recorder>().expect("a Recorder")
}

fn assert_conserved(w: &World) {
    let c = w.conservation();
    assert!(c.holds(), "conservation broken: {c:?}");
}

#[test]
fn one_packet_over_three_hops_arrives_exactly_on_time() {
    let mut w = World::new(1);
    let rate = Rate::mbps(100);
    let delay = SimTime::from_us(20);
    let (_, route) = chain(&mut w, 3, rate, delay, 100);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    w.spawn(
        Box::new(Burst {
            packets: vec![data(rx, route, 1462, 0)],
        }),
        SimTime::from_us(5),
    );
    w.run();
    // Store-and-forward: 3 x (116.96 us serialisation + 20 us propagation) after the 5 us start.
    let expected = SimTime::from_us(5) + SimTime::from_ns(3 * (116_960 + 20_000));
    let got = &recorder(&w, rx).got;
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, expected);
    assert_eq!(got[0].1.hop, 3);
    assert_conserved(&w);
    assert_eq!(w.conservation().in_flight, 0);
}

#[test]
fn burst_into_droptail_drops_exactly_the_overflow() {
    let mut w = World::new(1);
    // Fast first link feeding a slow second one with a 10-packet buffer.
    let fast = w.add_link(Rate::gbps(10), SimTime::ZERO, droptail(1000));
    let slow = w.add_link(Rate::mbps(100), SimTime::ZERO, droptail(10));
    let route = w.routes_mut().intern(&[fast, slow]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..50).map(|i| data(rx, route, 1500, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    w.run();
    // The slow link serialises one packet per 120 us; the fast link delivers one per 1.2 us, so
    // the whole burst reaches the slow queue while its first packet is in service: 1 in service
    // + 10 waiting are accepted, 39 dropped.
    let q = &w.link_counters(slow);
    assert_eq!(q.packets_enqueued, 11);
    assert_eq!(q.packets_dropped, 39);
    assert_eq!(q.bytes_dropped, 39 * 1500);
    assert_eq!(q.packets_departed, 11);
    let got: Vec<u64> = recorder(&w, rx).got.iter().map(|(_, p)| p.seq).collect();
    assert_eq!(
        got,
        (0..11).collect::<Vec<_>>(),
        "FIFO order, the head of the burst"
    );
    assert_eq!(w.stats().packets_dropped, 39);
    assert_conserved(&w);
}

#[test]
fn watched_links_count_each_flows_data_packets_while_watched() {
    let mut w = World::new(1);
    // Two flows share a slow link with a 10-packet buffer; only flow 7 also crosses `side`.
    let fast = w.add_link(Rate::gbps(10), SimTime::ZERO, droptail(1000));
    let side = w.add_link(Rate::gbps(10), SimTime::ZERO, droptail(1000));
    let slow = w.add_link(Rate::mbps(100), SimTime::ZERO, droptail(10));
    let via_fast = w.routes_mut().intern(&[fast, slow]);
    let via_side = w.routes_mut().intern(&[side, slow]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let flow = |flow: u32, route: RouteId, n: u64| -> Vec<Packet> {
        (0..n)
            .map(|i| Packet {
                flow,
                ..data(rx, route, 1500, i)
            })
            .collect()
    };
    // An ACK of flow 7 on the watched links is not counted.
    let mut seven = flow(7, via_side, 30);
    seven.push(Packet {
        kind: PacketKind::Ack,
        flow: 7,
        ..data(rx, via_side, 40, 0)
    });
    w.spawn(Box::new(Burst { packets: seven }), SimTime::from_us(5));
    w.spawn(
        Box::new(Burst {
            packets: flow(3, via_fast, 20),
        }),
        SimTime::from_us(1),
    );
    w.spawn(
        Box::new(Burst {
            packets: flow(9, via_fast, 5),
        }),
        SimTime::ZERO,
    );
    // Flow 9's packets reach `slow` every 1.2 us from 1.2 us: the watch, from 3 us, misses
    // two of them. Flow 3's wait behind them on `fast`; flow 7's start at 5 us.
    w.run_until(SimTime::from_us(3));
    w.watch_links(&[slow, side]);
    w.run();
    let got = w.take_crossings();
    let row = |link: LinkId, flow: u32| got.iter().find(|c| c.link == link && c.flow == flow);
    let keys: Vec<(u32, u32)> = got.iter().map(|c| (c.link.0, c.flow)).collect();
    assert_eq!(
        keys,
        vec![(side.0, 7), (slow.0, 3), (slow.0, 7), (slow.0, 9)]
    );
    let side7 = row(side, 7).unwrap();
    assert_eq!(
        (side7.packets, side7.bytes, side7.dropped),
        (30, 30 * 1500, 0)
    );
    // Every data packet offered to `slow` after the watch began, accepted or dropped.
    let count = |flow: u32| {
        let c = row(slow, flow).unwrap();
        assert_eq!(c.bytes, c.packets * 1500);
        c.packets + c.dropped
    };
    assert_eq!((count(9), count(3), count(7)), (3, 20, 30));
    // With the two packets before the watch and the ACK, they are the link's counters.
    let q = w.link_counters(slow);
    let (accepted, dropped) = got
        .iter()
        .filter(|c| c.link == slow)
        .fold((0, 0), |(a, d), c| (a + c.packets, d + c.dropped));
    assert_eq!(
        accepted + dropped + 3,
        q.packets_enqueued + q.packets_dropped
    );
    // The ACK, last of flow 7's burst, arrives at a full buffer: dropped, and not counted.
    assert_eq!(dropped + 1, q.packets_dropped);
    assert!(row(slow, 7).unwrap().dropped > 0 && row(slow, 3).unwrap().dropped > 0);
    // The watch is over: nothing more is counted.
    assert!(w.take_crossings().is_empty());
    assert_conserved(&w);

    // A watched link that is down drops every arrival, and counts the data ones.
    let now = w.now();
    w.watch_links(&[side]);
    w.schedule_link_change(now, side, LinkChange::Down);
    w.spawn(
        Box::new(Burst {
            packets: flow(5, via_side, 3),
        }),
        now + SimTime::from_us(1),
    );
    w.run();
    let got = w.take_crossings();
    assert_eq!(got.len(), 1);
    let c = got[0];
    assert_eq!(
        (c.link, c.flow, c.packets, c.bytes, c.dropped),
        (side, 5, 0, 0, 3)
    );
    assert_conserved(&w);
}

#[test]
fn ecn_marks_exactly_the_arrivals_above_k() {
    let mut w = World::new(1);
    let fast = w.add_link(Rate::gbps(10), SimTime::ZERO, droptail(1000));
    let k = 5;
    let slow = w.add_link(
        Rate::mbps(100),
        SimTime::ZERO,
        Queue::new(
            BufferSize::Packets(100),
            Discipline::Ecn {
                threshold: BufferSize::Packets(k),
            },
        ),
    );
    let route = w.routes_mut().intern(&[fast, slow]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..20)
        .map(|i| {
            let mut p = data(rx, route, 1500, i);
            if i % 2 == 0 {
                p.set(flags::ECT);
            }
            p
        })
        .collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    w.run();
    // Packet i (i >= 1) finds i - 1 packets waiting (packet 0 is in service). Marked: ECT packets
    // that find more than K = 5 waiting, i.e. even i with i - 1 > 5: 8, 10, ..., 18.
    let marked: Vec<u64> = recorder(&w, rx)
        .got
        .iter()
        .filter(|(_, p)| p.has(flags::CE))
        .map(|(_, p)| p.seq)
        .collect();
    assert_eq!(marked, vec![8, 10, 12, 14, 16, 18]);
    assert_eq!(w.link_counters(slow).packets_marked, 6);
    assert_eq!(w.link_counters(slow).packets_dropped, 0);
    assert_conserved(&w);
}

#[test]
fn rate_change_applies_from_the_next_packet_served() {
    let mut w = World::new(1);
    let link = w.add_link(Rate::mbps(100), SimTime::ZERO, droptail(100));
    let route = w.routes_mut().intern(&[link]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..3).map(|i| data(rx, route, 1250, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    // 1250 B at 100 Mb/s = 100 us. Halve the rate at 50 us, in the middle of packet 0.
    w.schedule_link_change(SimTime::from_us(50), link, LinkChange::Rate(Rate::mbps(50)));
    w.run();
    let times: Vec<SimTime> = recorder(&w, rx).got.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        times,
        vec![
            SimTime::from_us(100), // served at the old rate
            SimTime::from_us(300), // 200 us at 50 Mb/s
            SimTime::from_us(500),
        ]
    );
    assert_eq!(w.link_counters(link).busy_time, SimTime::from_us(500));
    assert_conserved(&w);
}

#[test]
fn rate_change_retimes_a_queue_longer_than_a_wire_page() {
    // 20 packets queue on the link (the wire's pages hold 8 each): a rate change must retime
    // all the waiting ones, across pages.
    let mut w = World::new(1);
    let link = w.add_link(Rate::mbps(100), SimTime::ZERO, droptail(100));
    let route = w.routes_mut().intern(&[link]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..20).map(|i| data(rx, route, 1250, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    // Packet 0 is served 0-100 us at 100 Mb/s; from 50 us the rate is 200 Mb/s: 50 us each.
    let faster = LinkChange::Rate(Rate::mbps(200));
    w.schedule_link_change(SimTime::from_us(50), link, faster);
    w.run_until(SimTime::from_us(60));
    assert_eq!(w.link_occupancy(link).packets, 19);
    w.run_until(SimTime::from_us(560));
    // Packets 0-9 departed by 550 us; 10 is in service (550-600 us).
    assert_eq!(w.link_occupancy(link).packets, 9);
    assert_eq!(w.link_counters(link).packets_departed, 10);
    w.run();
    let times: Vec<SimTime> = recorder(&w, rx).got.iter().map(|(t, _)| *t).collect();
    let expected: Vec<SimTime> = (0..20).map(|i| SimTime::from_us(100 + 50 * i)).collect();
    assert_eq!(times, expected);
    assert_eq!(
        w.link_counters(link).busy_time,
        SimTime::from_us(100 + 19 * 50)
    );
    assert_conserved(&w);
}

/// A 100 Mb/s link with 50 us of propagation and a burst of three 1250-byte packets sent on it
/// at 0 (100 us each at that rate); returns the link and the receiver.
fn three_packet_burst(w: &mut World) -> (LinkId, EndpointId) {
    let link = w.add_link(Rate::mbps(100), SimTime::from_us(50), droptail(100));
    let route = w.routes_mut().intern(&[link]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..3).map(|i| data(rx, route, 1250, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    (link, rx)
}

/// Runs until each instant of `at_us` and reads `link` there: (instant, packets waiting,
/// packets departed, busy time in us).
fn read_queue_at(w: &mut World, link: LinkId, at_us: &[u64]) -> Vec<(u64, u64, u64, u64)> {
    let mut seen = Vec::new();
    for &at in at_us {
        w.run_until(SimTime::from_us(at));
        let c = w.link_counters(link);
        let occ = w.link_occupancy(link);
        assert_eq!(occ.bytes, occ.packets * 1250);
        let busy_us = c.busy_time.0 / SimTime::from_us(1).0;
        seen.push((at, occ.packets, c.packets_departed, busy_us));
    }
    seen
}

#[test]
fn queue_length_and_counters_read_mid_run_match_packet_by_packet_service() {
    let mut w = World::new(1);
    let (link, _) = three_packet_burst(&mut w);
    // Packet i is served from 100i to 100(i+1) us. (at us, waiting, departed, busy us): busy
    // time is the serialisation done by then, the packet in service counted up to that instant.
    assert_eq!(
        read_queue_at(&mut w, link, &[50, 100, 150, 250, 400]),
        vec![
            (50, 2, 0, 50),
            (100, 1, 1, 100), // packet 1 starts as packet 0 leaves: in service, not waiting
            (150, 1, 1, 150),
            (250, 0, 2, 250),
            (400, 0, 3, 300),
        ]
    );
    assert_eq!(w.link_counters(link).bytes_departed, 3 * 1250);
    assert_conserved(&w);
}

#[test]
fn queue_and_counters_read_after_a_faster_rate_mid_packet_count_the_served_packet_once() {
    let mut w = World::new(1);
    let (link, rx) = three_packet_burst(&mut w);
    // Packet 0 takes 100 us at 100 Mb/s and keeps its instants; from 10 us the rate is
    // 400 Mb/s, so packets 1 and 2 take 25 us each: served 100-125 and 125-150 us. At the new
    // rate packet 0 would have started at 75 us: it must still count as in service, not
    // waiting, before then.
    let faster = LinkChange::Rate(Rate::mbps(400));
    w.schedule_link_change(SimTime::from_us(10), link, faster);
    // (at us, waiting, departed, busy us): a packet in service counts up to the reading, packet
    // 0 at the rate it started with.
    assert_eq!(
        read_queue_at(&mut w, link, &[20, 80, 110, 130, 160]),
        vec![
            (20, 2, 0, 20),
            (80, 2, 0, 80),
            (110, 1, 1, 110),
            (130, 0, 2, 130),
            (160, 0, 3, 150),
        ]
    );
    w.run();
    let times: Vec<SimTime> = recorder(&w, rx).got.iter().map(|(t, _)| *t).collect();
    let landed = [150, 175, 200].map(SimTime::from_us);
    assert_eq!(times, landed);
    assert_conserved(&w);
}

#[test]
fn busy_time_between_two_readings_is_the_serialisation_between_them() {
    // The burst of three packets (served 0-100, 100-200 and 200-300 us) on a link slowed to
    // 10 Mb/s at 150 us: packet 1 keeps its instants, packet 2 takes 1000 us (200-1200 us).
    // The link is busy from 0 to 1200 us, so over any window inside that span it is busy all
    // the time, whichever packets are in service at the window's edges: 100 us of 100 us over
    // 150-250 us, where counting the packet in service at each reading whole would give the
    // 1000 us of packet 2 (1000%).
    let mut w = World::new(1);
    let (link, _) = three_packet_burst(&mut w);
    let slower = LinkChange::Rate(Rate::mbps(10));
    w.schedule_link_change(SimTime::from_us(150), link, slower);
    let busy: Vec<u64> = read_queue_at(&mut w, link, &[150, 250, 700, 1200, 1500])
        .into_iter()
        .map(|(_, _, _, busy_us)| busy_us)
        .collect();
    assert_eq!(busy, [150, 250, 700, 1200, 1200]);
    // Read ahead of the clock, before any arrival: the serialisation done by then.
    let mut w = World::new(1);
    let (link, _) = three_packet_burst(&mut w);
    w.run_until(SimTime::from_us(149));
    let ahead = w.link_counters_at(link, SimTime::from_us(150));
    assert_eq!(
        (ahead.busy_time, ahead.packets_departed),
        (SimTime::from_us(150), 1)
    );
    // An instant before the clock reads as now.
    let now = w.link_counters_at(link, SimTime::from_us(10));
    assert_eq!(now, w.link_counters(link));
    assert_eq!(now.busy_time, SimTime::from_us(149));
}

#[test]
fn buffer_change_applies_to_new_arrivals() {
    let mut w = World::new(1);
    let fast = w.add_link(Rate::gbps(10), SimTime::ZERO, droptail(1000));
    let slow = w.add_link(Rate::mbps(100), SimTime::ZERO, droptail(100));
    let route = w.routes_mut().intern(&[fast, slow]);
    w.schedule_link_change(
        SimTime::ZERO,
        slow,
        LinkChange::Limit(BufferSize::Packets(3)),
    );
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..10).map(|i| data(rx, route, 1500, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::from_us(1));
    w.run();
    assert_eq!(w.link_counters(slow).packets_enqueued, 4);
    assert_eq!(w.link_counters(slow).packets_dropped, 6);
    assert_conserved(&w);
}

#[test]
fn link_down_loses_what_is_on_it_and_up_restores_service() {
    let mut w = World::new(1);
    let link = w.add_link(Rate::mbps(100), SimTime::from_us(50), droptail(100));
    let route = w.routes_mut().intern(&[link]);
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    let burst: Vec<Packet> = (0..5).map(|i| data(rx, route, 1250, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    // 1250 B at 100 Mb/s take 100 us. Packet 0 is served 0-100 us and lands at 150 us; at
    // 160 us packet 1 is in service (100-200 us) and 2..4 wait: going down then loses 1..4.
    // Packets 5 and 6 arrive at 500 us while the link is down; packet 7 after it is up again.
    w.schedule_link_change(SimTime::from_us(160), link, LinkChange::Down);
    w.schedule_link_change(SimTime::from_us(1000), link, LinkChange::Up);
    let late = (5..7).map(|i| data(rx, route, 1250, i)).collect();
    w.spawn(Box::new(Burst { packets: late }), SimTime::from_us(500));
    let after = (7..8).map(|i| data(rx, route, 1250, i)).collect();
    w.spawn(Box::new(Burst { packets: after }), SimTime::from_us(2000));
    w.run();
    let got: Vec<(SimTime, u64)> = recorder(&w, rx)
        .got
        .iter()
        .map(|(t, p)| (*t, p.seq))
        .collect();
    assert_eq!(
        got,
        vec![
            (SimTime::from_us(150), 0),
            (SimTime::from_us(2150), 7) // 100 us serialisation + 50 us propagation
        ]
    );
    let c = w.link_counters(link);
    assert_eq!(c.packets_lost_link_down, 4);
    assert_eq!(c.packets_dropped, 2, "arrivals while down are dropped");
    // Busy serialising packet 0 (100 us), packet 1 until the cut (60 us) and packet 7 (100 us).
    assert_eq!(c.busy_time, SimTime::from_us(260));
    assert_eq!(w.stats().packets_lost_link_down, 4);
    assert_conserved(&w);
    assert_eq!(w.conservation().in_flight, 0);
}

#[test]
fn window_source_fills_the_bottleneck_and_the_pool_stops_growing() {
    let mut w = World::new(1);
    let rate = Rate::gbps(1);
    let (_, fwd) = chain(&mut w, 3, rate, SimTime::from_us(10), 1000);
    let (_, back) = chain(&mut w, 3, rate, SimTime::from_us(10), 1000);
    let src = w.reserve();
    let sink = w.spawn(Box::new(Sink::acking(src, back, 40)), SimTime::ZERO);
    let spec = SourceSpec {
        flow_id: 1,
        src: HostId(0),
        dst: HostId(1),
        sink,
        route: fwd,
        packet_bytes: 1500,
        packets: None,
    };
    // RTT ~ 3*(12 us + 10 us) + 3*(0.32 us + 10 us) = 97 us; BDP ~ 8 packets: 20 fill the pipe.
    w.install(src, Box::new(WindowSource::new(spec, 20)), SimTime::ZERO);
    w.run_until(SimTime::from_ms(10));
    let slots_warm = w.pool().capacity_slots();
    let sent_warm = w.stats().packets_sent;
    w.run_until(SimTime::from_ms(100));
    assert_eq!(
        w.pool().capacity_slots(),
        slots_warm,
        "no pool growth in steady state"
    );
    assert!(w.stats().packets_sent > sent_warm + 10_000);
    assert!(w.pool().peak_live() <= 40, "window 20 + their ACKs");
    // Goodput over 100 ms at the 1 Gb/s bottleneck: ~8333 packets; the window keeps it full.
    let sink_ep: &dyn std::any::Any = w.endpoint(sink).unwrap();
    let rx = sink_ep.downcast_ref::<Sink>().unwrap().received_packets();
    let line = 100_000_000_000u64 / (1500 * 8 * 1000); // packets in 100 ms
    assert!(
        rx >= line * 98 / 100 && rx <= line + 1,
        "rx {rx} vs line {line}"
    );
    assert_conserved(&w);
}

#[test]
fn cbr_source_sends_at_its_rate_and_records_its_flow() {
    let mut w = World::new(1);
    let (_, route) = chain(&mut w, 1, Rate::gbps(10), SimTime::from_us(1), 100);
    let sink = w.spawn(Box::new(Sink::new()), SimTime::ZERO);
    let spec = SourceSpec {
        flow_id: 9,
        src: HostId(0),
        dst: HostId(1),
        sink,
        route,
        packet_bytes: 1000,
        packets: Some(100),
    };
    w.spawn(
        Box::new(CbrSource::new(spec, Rate::mbps(80))),
        SimTime::ZERO,
    );
    w.run();
    // 1000 B at 80 Mb/s = 100 us per packet: the 100th leaves at 9.9 ms.
    let rec = &w.records()[0];
    assert_eq!(rec.flow_id, 9);
    assert_eq!(rec.packets_sent, 100);
    assert_eq!(rec.end, Some(SimTime::from_us(9_900)));
    let sink_ep: &dyn std::any::Any = w.endpoint(sink).unwrap();
    assert_eq!(
        sink_ep.downcast_ref::<Sink>().unwrap().received_packets(),
        100
    );
    assert_conserved(&w);
}

/// Two parallel two-hop paths between host 0 and host 1.
struct Diamond {
    paths: [[LinkId; 2]; 4],
}
impl PathSource for Diamond {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        if src == dst {
            0
        } else {
            4
        }
    }
    fn path(&self, _src: HostId, _dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        out.extend_from_slice(&self.paths[index as usize]);
    }
}

/// Sends `n` packets, each on the route its routing mode chooses for a fresh source port.
struct Sprayer {
    dst: EndpointId,
    n: u16,
}
impl Endpoint for Sprayer {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let ps = ctx.path_set(HostId(0), HostId(1)).unwrap();
        for port in 0..self.n {
            let key = FlowKey {
                src_port: port,
                dst_port: 80,
                protocol: 6,
            };
            let route = ctx.choose_route(ps, key);
            ctx.send(data(self.dst, route, 1500, port as u64));
        }
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
}

/// A world with the four two-hop paths of [`Diamond`] from host 0 to host 1.
fn diamond(seed: u64, mode: RoutingMode) -> World {
    let mut w = World::new(seed);
    let mut paths = [[LinkId(0); 2]; 4];
    for p in &mut paths {
        for l in p.iter_mut() {
            *l = w.add_link(Rate::gbps(1), SimTime::from_us(5), droptail(20));
        }
    }
    w.set_path_source(Box::new(Diamond { paths }));
    w.set_routing_mode(mode);
    w
}

fn diamond_world(seed: u64, mode: RoutingMode) -> World {
    let mut w = diamond(seed, mode);
    w.enable_trace_hash();
    let rx = w.spawn(Box::new(Recorder::default()), SimTime::ZERO);
    w.spawn(Box::new(Sprayer { dst: rx, n: 200 }), SimTime::ZERO);
    w.run();
    assert_conserved(&w);
    w
}

#[test]
fn same_seed_gives_the_same_event_trace() {
    for mode in [RoutingMode::Ecmp, RoutingMode::Spray] {
        let a = diamond_world(5, mode).trace_hash();
        let b = diamond_world(5, mode).trace_hash();
        assert!(a.is_some());
        assert_eq!(a, b, "{mode:?}");
        let c = diamond_world(6, mode).trace_hash();
        assert_ne!(
            a, c,
            "another seed, another ECMP salt and spray draws ({mode:?})"
        );
    }
}

#[test]
fn single_and_first_use_one_path_and_spray_uses_all() {
    let used = |w: &World| {
        (0..8)
            .filter(|&l| w.link_counters(LinkId(l)).packets_enqueued > 0)
            .count()
    };
    assert_eq!(used(&diamond_world(3, RoutingMode::Single)), 2);
    assert_eq!(used(&diamond_world(3, RoutingMode::Spray)), 8);
    assert_eq!(used(&diamond_world(3, RoutingMode::Ecmp)), 8);
    // `First`: path 0 (links 0 and 1) for every port, whatever the seed.
    for seed in [3, 4] {
        let w = diamond_world(seed, RoutingMode::First);
        let busy: Vec<u32> = (0..8)
            .filter(|&l| w.link_counters(LinkId(l)).packets_enqueued > 0)
            .collect();
        assert_eq!(busy, [0, 1]);
    }
}

/// Asks for the routes of 64 ports, 4 times each, through one [`RouteCache`], and records them
/// with what [`Ctx::choose_route`] gives for the same keys.
#[derive(Default)]
struct CacheProbe {
    cached: Vec<RouteId>,
    uncached: Vec<RouteId>,
}
impl Endpoint for CacheProbe {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let ps = ctx.path_set(HostId(0), HostId(1)).unwrap();
        let mut cache = RouteCache::default();
        for port in 0..64u16 {
            let key = FlowKey {
                src_port: port,
                dst_port: 80,
                protocol: 6,
            };
            for _ in 0..4 {
                self.cached
                    .push(ctx.choose_route_cached(ps, key, &mut cache));
                self.uncached.push(ctx.choose_route(ps, key));
            }
        }
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
}

#[test]
fn cached_routes_follow_the_key_and_the_routing_mode() {
    let probe = |mode| {
        let mut w = diamond(9, mode);
        let id = w.spawn(Box::new(CacheProbe::default()), SimTime::ZERO);
        w.run();
        let e = w.endpoint(id).unwrap() as &dyn std::any::Any;
        let p = e.downcast_ref::<CacheProbe>().unwrap();
        let distinct = |v: &[RouteId]| v.iter().collect::<std::collections::HashSet<_>>().len();
        (p.cached.clone(), p.uncached.clone(), distinct(&p.cached))
    };
    // ECMP and single path: the cache gives exactly the hashed route, key after key (64 ports
    // spread over all 4 paths under ECMP, one path for the pair under single-path routing).
    let (cached, uncached, n) = probe(RoutingMode::Ecmp);
    assert_eq!(cached, uncached);
    assert_eq!(n, 4);
    let (cached, uncached, n) = probe(RoutingMode::Single);
    assert_eq!(cached, uncached);
    assert_eq!(n, 1);
    // Spraying: nothing is cached, so the 4 asks of one port get independent paths.
    let (cached, _, n) = probe(RoutingMode::Spray);
    assert_eq!(n, 4);
    assert!(
        cached.chunks(4).any(|c| c.iter().any(|r| *r != c[0])),
        "sprayed routes repeat per port: {cached:?}"
    );
}

/// Re-arms one timer on every tick of another, always later: only one event per expiry.
struct LazyTimers {
    tick: Timer,
    rto: Timer,
    ticks: u32,
    fired_at: Vec<SimTime>,
}
impl Endpoint for LazyTimers {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        let t = ctx.now() + SimTime::from_us(1);
        self.tick.set(ctx, t);
        let r = ctx.now() + SimTime::from_ms(1);
        self.rto.set(ctx, r);
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        if fired.key == self.tick.key() && self.tick.fire(ctx, fired) {
            self.ticks += 1;
            if self.ticks < 100 {
                let t = ctx.now() + SimTime::from_us(1);
                self.tick.set(ctx, t);
                let r = ctx.now() + SimTime::from_ms(1); // restart, like an RTO on each ACK
                self.rto.set(ctx, r);
            } else if self.ticks == 100 {
                // Re-arm earlier than the pending event: a new event; the old one goes stale.
                let r = ctx.now() + SimTime::from_us(10);
                self.rto.set(ctx, r);
            }
        } else if fired.key == self.rto.key() && self.rto.fire(ctx, fired) {
            self.fired_at.push(ctx.now());
        }
    }
}

#[test]
fn timers_restart_lazily_and_fire_once_at_their_deadline() {
    let mut w = World::new(1);
    let id = w.spawn(
        Box::new(LazyTimers {
            tick: Timer::new(0),
            rto: Timer::new(1),
            ticks: 0,
            fired_at: Vec::new(),
        }),
        SimTime::ZERO,
    );
    w.run();
    let e: &dyn std::any::Any = w.endpoint(id).unwrap();
    let e = e.downcast_ref::<LazyTimers>().unwrap();
    assert_eq!(e.ticks, 100);
    assert_eq!(e.fired_at, vec![SimTime::from_us(110)]);
    // Events: start, 100 ticks, the first RTO event (1 ms, stale by generation), the re-armed
    // RTO at 110 us. Without lazy restarts there would be ~100 RTO events.
    assert_eq!(w.stats().events, 1 + 100 + 2);
}

/// Closes itself on the first packet; later packets must be discarded, not delivered.
struct CloseOnFirst {
    got: u32,
}
impl Endpoint for CloseOnFirst {
    fn on_packet(&mut self, _packet: &Packet, ctx: &mut Ctx<'_>) {
        self.got += 1;
        ctx.close();
    }
}

#[test]
fn packets_for_a_closed_endpoint_are_discarded_and_slots_are_reused() {
    let mut w = World::new(1);
    let (_, route) = chain(&mut w, 1, Rate::gbps(1), SimTime::from_us(1), 100);
    let rx = w.spawn(Box::new(CloseOnFirst { got: 0 }), SimTime::ZERO);
    let burst = (0..3).map(|i| data(rx, route, 1500, i)).collect();
    w.spawn(Box::new(Burst { packets: burst }), SimTime::ZERO);
    w.run();
    assert!(w.endpoint(rx).is_none());
    assert_eq!(w.stats().packets_delivered, 3);
    assert_eq!(w.stats().packets_discarded, 2);
    let again = w.reserve();
    assert_eq!(again.index, rx.index, "the freed slot is reused");
    assert_ne!(again, rx, "a reused slot has a new generation");
    assert_conserved(&w);
}

/// Counts notifications; the notifier sends three and closes.
#[derive(Default)]
struct Listener {
    tokens: Vec<(SimTime, u32)>,
}
impl Endpoint for Listener {
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
    fn on_notify(&mut self, token: u32, ctx: &mut Ctx<'_>) {
        self.tokens.push((ctx.now(), token));
    }
}
struct Notifier {
    target: EndpointId,
}
impl Endpoint for Notifier {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        for t in [3, 1, 2] {
            ctx.notify(self.target, t);
        }
        ctx.notify(EndpointId::NONE, 9); // to nobody: ignored
        ctx.close();
    }
    fn on_packet(&mut self, _packet: &Packet, _ctx: &mut Ctx<'_>) {}
}

#[test]
fn notifications_arrive_in_order_at_the_same_instant() {
    let mut w = World::new(1);
    let l = w.spawn(Box::new(Listener::default()), SimTime::ZERO);
    w.spawn(Box::new(Notifier { target: l }), SimTime::from_us(7));
    w.run();
    let e: &dyn std::any::Any = w.endpoint(l).unwrap();
    let got = &e.downcast_ref::<Listener>().unwrap().tokens;
    let t = SimTime::from_us(7);
    assert_eq!(got, &vec![(t, 3), (t, 1), (t, 2)]);
}
