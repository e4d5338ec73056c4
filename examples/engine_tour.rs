//! A tour of the engine: window-limited flows sharing a 1 Gb/s bottleneck.
//!
//! Eight fixed-window sources on their own 10 Gb/s access links share one 1 Gb/s link with a
//! 100-packet drop-tail buffer for 100 ms of simulated time. The windows (4, 6, ..., 18 packets,
//! 88 in all) fit in the buffer, so nothing is dropped, the bottleneck stays busy, and the FIFO
//! queue shares the link in proportion to the windows. It prints each flow's throughput, the
//! bottleneck's counters, and what the run cost.
//!
//! Run: `cargo run --release --example engine_tour`

use htsim::core::ids::{HostId, LinkId};
use htsim::core::queue::{Discipline, Queue};
use htsim::core::source::{Sink, SourceSpec, WindowSource};
use htsim::core::units::BufferSize;
use htsim::core::world::World;
use htsim::core::{Rate, SimTime};
use std::time::Instant;

fn main() {
    let flows = 8;
    let duration = SimTime::from_ms(100);
    let mut world = World::new(1);
    let droptail = |pkts| Queue::new(BufferSize::Packets(pkts), Discipline::DropTail);
    let bottleneck = world.add_link(Rate::gbps(1), SimTime::from_us(10), droptail(100));
    let back = world.add_link(Rate::gbps(1), SimTime::from_us(10), droptail(100));
    let mut sinks = Vec::new();
    for f in 0..flows {
        let access: LinkId = world.add_link(Rate::gbps(10), SimTime::from_us(5), droptail(1000));
        let egress = world.add_link(Rate::gbps(10), SimTime::from_us(5), droptail(1000));
        let fwd = world.routes_mut().intern(&[access, bottleneck, egress]);
        let ack_in = world.add_link(Rate::gbps(10), SimTime::from_us(5), droptail(1000));
        let ack_out = world.add_link(Rate::gbps(10), SimTime::from_us(5), droptail(1000));
        let rev = world.routes_mut().intern(&[ack_in, back, ack_out]);
        let src = world.reserve();
        let sink = world.spawn(Box::new(Sink::acking(src, rev, 40)), SimTime::ZERO);
        let spec = SourceSpec {
            flow_id: f,
            src: HostId(f as u32),
            dst: HostId((flows + f) as u32),
            sink,
            route: fwd,
            packet_bytes: 1500,
            packets: None,
        };
        let window = 4 + 2 * f; // unequal windows: proportional shares
        world.install(
            src,
            Box::new(WindowSource::new(spec, window)),
            SimTime::ZERO,
        );
        sinks.push((f, window, sink));
    }

    let wall = Instant::now();
    world.run_until(duration);
    let secs = wall.elapsed().as_secs_f64();

    println!("{flows} fixed-window flows over a 1 Gb/s bottleneck for {duration}:");
    println!("flow  window_pkts  throughput_mbps");
    let mut total = 0.0;
    for (f, window, sink) in sinks {
        let e: &dyn std::any::Any = world.endpoint(sink).expect("sinks never close");
        let bytes = e.downcast_ref::<Sink>().expect("a Sink").received_bytes();
        let mbps = bytes as f64 * 8.0 / duration.as_secs_f64() / 1e6;
        total += mbps;
        println!("{f:>4}  {window:>11}  {mbps:>15.1}");
    }
    let q = world.link_counters(bottleneck);
    println!("total throughput: {total:.1} Mb/s");
    println!(
        "bottleneck: {} packets forwarded, {} dropped, busy {:.1}% of the time",
        q.packets_departed,
        q.packets_dropped,
        100.0 * q.busy_time.as_secs_f64() / duration.as_secs_f64()
    );
    let stats = world.stats();
    println!(
        "cost: {} events in {:.3} s wall = {:.1} M events/s; peak {} packets in flight",
        stats.events,
        secs,
        stats.events as f64 / secs / 1e6,
        world.pool().peak_live()
    );
    assert!(world.conservation().holds(), "packet conservation");
}
