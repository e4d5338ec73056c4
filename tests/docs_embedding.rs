//! The code of docs/embedding.md, compiled and run: a queue discipline of your own (RED) and a
//! transport of your own (Scalable TCP) on a FatTree built by hand; and the code of README.md's
//! "Embedding the library". The last tests check that every Rust block of those pages is this
//! file's code or an example's, line for line, so the pages cannot show code that does not
//! compile.

use std::error::Error;

use htsim::core::endpoint::Spawn;
use htsim::core::flow::FlowRecord;
use htsim::core::ids::HostId;
use htsim::core::packet::{flags, Packet};
use htsim::core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim::core::rng::SimRng;
use htsim::core::units::BufferSize;
use htsim::core::world::World;
use htsim::core::{Rate, SimTime};
use htsim::topology::cabling::{Cabling, QueueSite};
use htsim::topology::fattree::FatTree;
use htsim::transport::cc::{AckSample, CcState, CongestionControl};
use htsim::transport::transport::open_single_path;
use htsim::transport::{
    transport_by_name, Connection, ConnectionSpec, Profile, TcpConfig, Transport, TransportError,
};
use rand::Rng;

/// Random early detection, simplified: above `min` waiting packets an arrival is marked (if
/// ECN-capable) or dropped with a probability rising linearly to `max_p` at `max`; drop-tail at
/// the queue's limit.
struct Red {
    min: u64,
    max: u64,
    max_p: f64,
    rng: SimRng,
}

impl QueueDiscipline for Red {
    fn admit(&mut self, occ: &Occupancy, packet: &mut Packet, _now: SimTime) -> Admission {
        if !occ.fits(packet.size_bytes as u64) {
            return Admission::Drop;
        }
        if occ.packets <= self.min {
            return Admission::Enqueue;
        }
        let excess = (occ.packets - self.min) as f64 / (self.max - self.min) as f64;
        if self.rng.random::<f64>() >= self.max_p * excess.min(1.0) {
            return Admission::Enqueue;
        }
        if packet.has(flags::ECT) {
            packet.set(flags::CE);
            Admission::Enqueue
        } else {
            Admission::Drop
        }
    }

    fn name(&self) -> &str {
        "red"
    }
}

/// Scalable TCP (Kelly, 2003): in congestion avoidance +1% of a segment per ACK; a fast
/// retransmit cuts the window by 1/8. Slow start, fast recovery and the RTO are the engine's.
struct Scalable;

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    fn increase(&mut self, state: &mut CcState, _ack: &AckSample) {
        if state.cwnd < state.ssthresh {
            state.cwnd += state.mss;
        } else {
            state.cwnd += (state.mss / 100).max(1);
        }
    }

    fn fast_retransmit_ssthresh(&mut self, state: &CcState) -> u64 {
        (state.cwnd - state.cwnd / 8).max(2 * state.mss)
    }
}

/// A transport built on TCP's engine and receiver, with the Scalable controller.
struct ScalableTcp {
    config: TcpConfig,
}

impl Transport for ScalableTcp {
    fn name(&self) -> &str {
        "scalable"
    }

    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        open_single_path(spawner, conn, &self.config, Box::new(Scalable))
    }
}

/// A FatTree k = 4 at 1 Gb/s whose switch ports run RED (host NICs: drop-tail), and one 1 MB flow
/// of `transport` from every host to the host 8 places on (another pod); returns the records.
fn red_fattree(transport: &dyn Transport, seed: u64) -> Result<Vec<FlowRecord>, Box<dyn Error>> {
    let mut world = World::new(seed);
    let streams = world.streams();
    let mut ports = 0;
    let mut queues = |site: QueueSite<'_>| {
        ports += 1;
        let discipline = if site.layer == "host" {
            Discipline::DropTail
        } else {
            Discipline::Custom(Box::new(Red {
                min: 5,
                max: 30,
                max_p: 0.1,
                rng: streams.substream("red", ports),
            }))
        };
        Queue::new(BufferSize::Packets(100), discipline)
    };
    let cabling = Cabling::uniform(Rate::gbps(1), SimTime::from_us(10));
    let fattree = FatTree {
        k: 4,
        oversubscription: 1,
    };
    let topology = fattree.build(&mut world, &cabling, &mut queues)?;
    let hosts = topology.host_count();
    for i in 0..hosts {
        let (src, dst) = (HostId(i), HostId((i + hosts / 2) % hosts));
        let rng = world.streams().substream("conn", u64::from(i));
        let spec = ConnectionSpec::new(u64::from(i), src, dst, Some(1_000_000), SimTime::ZERO, rng);
        transport.open(&mut world, spec)?;
    }
    world.run();
    assert!(world.conservation().holds());
    Ok(world.records().to_vec())
}

#[test]
fn tcp_and_a_custom_transport_finish_over_custom_queues() {
    let tcp = transport_by_name("tcp", Profile::Rfc).unwrap();
    let scalable = ScalableTcp {
        config: TcpConfig::rfc(),
    };
    for transport in [tcp.as_ref(), &scalable as &dyn Transport] {
        let records = red_fattree(transport, 7).unwrap();
        assert_eq!(records.len(), 16, "{}", transport.name());
        for r in &records {
            assert!(r.completed(), "{}: flow {}", transport.name(), r.flow_id);
            assert_eq!(r.bytes_acked, 1_000_000);
            // 1 MB at 1 Gb/s takes at least 8 ms on the wire.
            assert!(r.fct().unwrap() >= SimTime::from_ms(8));
        }
    }
}

#[test]
fn red_enqueues_below_min_and_marks_or_drops_at_max() {
    let mut red = Red {
        min: 5,
        max: 30,
        max_p: 1.0,
        rng: World::new(1).streams().stream("red"),
    };
    let at = |packets| Occupancy {
        packets,
        bytes: packets * 1500,
        limit: BufferSize::Packets(100),
    };
    let plain = Packet {
        size_bytes: 1500,
        ..Packet::default()
    };
    let mut ect = plain;
    ect.set(flags::ECT);
    for _ in 0..100 {
        let mut p = plain;
        assert_eq!(red.admit(&at(5), &mut p, SimTime::ZERO), Admission::Enqueue);
        assert_eq!(red.admit(&at(30), &mut p, SimTime::ZERO), Admission::Drop);
        assert_eq!(red.admit(&at(100), &mut p, SimTime::ZERO), Admission::Drop);
        let mut e = ect;
        assert_eq!(
            red.admit(&at(30), &mut e, SimTime::ZERO),
            Admission::Enqueue
        );
        assert!(e.has(flags::CE));
    }
    // Half-way between min and max, about max_p / 2 of the arrivals are dropped.
    let drops = (0..10_000)
        .filter(|_| {
            let mut p = plain;
            red.admit(&at(17), &mut p, SimTime::ZERO) == Admission::Drop
        })
        .count();
    assert!((4_400..5_200).contains(&drops), "{drops} drops");
}

/// README.md, "Embedding the library": a scenario built in code, run for one seed.
fn readme_builder() -> Result<(), Box<dyn Error>> {
    use htsim::builder::ScenarioBuilder;
    use htsim::core::{units::BufferSize, Rate, SimTime};
    use htsim::scenario::{
        Arrivals, FlowClass, QueueConfig, Senders, SizeSpec, TopologyConfig, TransportConfig,
    };
    use htsim::simulate::{run, RunContext};

    let scenario = ScenarioBuilder::new("demo")
        .duration(SimTime::from_ms(500))
        .topology(TopologyConfig::fattree(4).link_rate(Rate::gbps(1)))
        .queue(QueueConfig::ecn(
            BufferSize::Packets(100),
            BufferSize::Packets(20),
        ))
        .transport("long", TransportConfig::mptcp(8))
        .flows(FlowClass::long("long", "long").senders(Senders::Count(4)))
        .flows(
            FlowClass::new("short", SizeSpec::cdf("websearch"), TransportConfig::tcp())
                .senders(Senders::Rest)
                .arrivals(Arrivals::Poisson(200.0)),
        )
        .build()?;
    let out = run(&scenario, 1, &RunContext::default())?;
    // Both classes (0: long, 1: short) opened flows.
    for class in [0, 1] {
        assert!(out.results.flows.iter().any(|f| f.class == class));
    }
    Ok(())
}

/// README.md, "Embedding the library": a link added to a world by hand.
fn readme_world() {
    use htsim::core::queue::{Discipline, Queue};
    use htsim::core::units::BufferSize;
    use htsim::core::{world::World, Rate, SimTime};

    let mut world = World::new(42);
    let link = world.add_link(
        Rate::gbps(10),
        SimTime::from_us(1),
        Queue::new(BufferSize::Packets(100), Discipline::DropTail),
    );
    assert_eq!(world.links().len(), 1);
    assert_eq!(world.link(link).rate(), Rate::gbps(10));
}

#[test]
fn the_readme_code_runs() {
    readme_builder().unwrap();
    readme_world();
}

/// The fenced ```rust blocks of a markdown page.
fn rust_blocks(page: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in page.lines() {
        let fence = line.trim_start();
        match current.as_mut() {
            None if fence.starts_with("```rust") => current = Some(Vec::new()),
            Some(_) if fence.starts_with("```") => blocks.extend(current.take()),
            Some(block) => block.push(line.trim()),
            None => {}
        }
    }
    blocks
}

/// Whether `block`'s non-blank lines appear in `source` as consecutive lines (leading
/// whitespace ignored).
fn quoted_in(block: &[&str], source: &str) -> bool {
    let block: Vec<&str> = block.iter().copied().filter(|l| !l.is_empty()).collect();
    let lines: Vec<&str> = source
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    !block.is_empty() && lines.windows(block.len()).any(|w| w == block.as_slice())
}

/// The compiled files whose code the docs may show: this file and the examples.
const COMPILED_SOURCES: [&str; 5] = [
    include_str!("docs_embedding.rs"),
    include_str!("../examples/embed.rs"),
    include_str!("../examples/builder.rs"),
    include_str!("../examples/sweep.rs"),
    include_str!("../examples/engine_tour.rs"),
];

/// The ```rust blocks of `page` (named `name`), each asserted to be quoted line for line from
/// one of [`COMPILED_SOURCES`]; at least `at_least` of them.
fn compiled_blocks<'a>(name: &str, page: &'a str, at_least: usize) -> Vec<Vec<&'a str>> {
    let blocks = rust_blocks(page);
    assert!(blocks.len() >= at_least, "{} rust blocks", blocks.len());
    for block in &blocks {
        assert!(
            COMPILED_SOURCES.iter().any(|s| quoted_in(block, s)),
            "{name} shows code that is in no compiled file:\n{}",
            block.join("\n")
        );
    }
    blocks
}

#[test]
fn every_rust_block_of_docs_embedding_md_is_compiled_code() {
    let blocks = compiled_blocks(
        "docs/embedding.md",
        include_str!("../docs/embedding.md"),
        10,
    );
    // The typed results are shown, and from compiled code.
    assert!(
        blocks
            .iter()
            .any(|b| b.iter().any(|l| l.contains(".flows_of(\"long\")"))),
        "docs/embedding.md shows no typed results"
    );
    // The check can fail: an edited line is caught.
    let edited: Vec<&str> = blocks[0]
        .iter()
        .map(|l| if l.is_empty() { l } else { "let x = 1;" })
        .collect();
    assert!(!COMPILED_SOURCES.iter().any(|s| quoted_in(&edited, s)));
}

#[test]
fn every_rust_block_of_readme_md_is_compiled_code() {
    compiled_blocks("README.md", include_str!("../README.md"), 2);
}
