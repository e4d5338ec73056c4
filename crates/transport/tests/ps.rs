//! Packet scatter on a FatTree k = 4 under load (issue 5; docs/model.md 5, 6.5): per-packet
//! paths are uniform over the (k/2)^2 = 4 inter-pod paths, and auto dupthresh (3 + 4 = 7)
//! makes spurious fast retransmits at least 5 times rarer than dupthresh 3. Release.

mod common;

use common::check_end;
use htsim_core::ids::HostId;
use htsim_core::packet::{Packet, PacketKind};
use htsim_core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_topology::cabling::{Cabling, QueueSite};
use htsim_topology::fattree::FatTree;
use htsim_transport::ps::ScatterOrder;
use htsim_transport::reach::Reach;
use htsim_transport::tcp::ReportSink;
use htsim_transport::{ConnectionSpec, Profile, PsTransport, Transport};
use std::sync::{Arc, Mutex};

/// A queue big enough that nothing is ever dropped (so every fast retransmit is spurious);
/// on a core switch's egress it also counts flow 0's data packets, one slot per queue.
struct Counting {
    slot: Option<usize>,
    counts: Arc<Mutex<Vec<u64>>>,
    drops: Arc<Mutex<u64>>,
}

impl QueueDiscipline for Counting {
    fn admit(&mut self, occ: &Occupancy, p: &mut Packet, _now: SimTime) -> Admission {
        if !occ.fits(p.size_bytes as u64) {
            *self.drops.lock().unwrap() += 1;
            return Admission::Drop;
        }
        if let Some(s) = self.slot {
            if p.flow == 0 && p.kind == PacketKind::Data {
                self.counts.lock().unwrap()[s] += 1;
            }
        }
        Admission::Enqueue
    }
    fn name(&self) -> &str {
        "counting"
    }
}

struct Run {
    /// Flow 0's data packets per core egress queue (only those into its destination pod are
    /// non-zero).
    per_core_queue: Vec<u64>,
    fast_retransmits: u64,
    drops: u64,
}

/// Every host of a k = 4 FatTree (1 Gb/s, 10 us cables) sends a PS flow of `size` bytes to
/// the host 8 places on (always another pod: 4 paths), all starting within 10 us.
fn run(auto: bool, seed: u64) -> Run {
    run_with(auto, ScatterOrder::Random, seed)
}

/// As [`run`], with the given scatter order.
fn run_with(auto: bool, scatter: ScatterOrder, seed: u64) -> Run {
    let mut w = World::new(seed);
    let counts = Arc::new(Mutex::new(Vec::new()));
    let drops = Arc::new(Mutex::new(0u64));
    let (c2, d2) = (counts.clone(), drops.clone());
    let mut factory = move |site: QueueSite<'_>| {
        let slot = (site.layer == "core").then(|| {
            let mut c = c2.lock().unwrap();
            c.push(0);
            c.len() - 1
        });
        Queue::new(
            BufferSize::Packets(1_000_000),
            Discipline::Custom(Box::new(Counting {
                slot,
                counts: c2.clone(),
                drops: d2.clone(),
            })),
        )
    };
    let cabling = Cabling::uniform(Rate::gbps(1), SimTime::from_us(10));
    let topo = FatTree {
        k: 4,
        oversubscription: 1,
    }
    .build(&mut w, &cabling, &mut factory)
    .expect("fattree");
    let n = topo.host_count();
    assert_eq!(n, 16);
    let mut t = PsTransport::new(Profile::Rfc);
    t.auto_dupthresh = auto;
    t.scatter = scatter;
    let report: ReportSink = Arc::new(Mutex::new(Vec::new()));
    for i in 0..n {
        let (src, dst) = (HostId(i), HostId((i + n / 2) % n));
        assert_eq!(
            topo.locality(src, dst),
            htsim_topology::topology::Locality::OtherPod
        );
        let reach = Reach {
            locality: htsim_transport::Locality::OtherPod,
            paths: topo.path_count(src, dst),
        };
        assert_eq!(reach.paths, 4);
        assert_eq!(
            t.dupthresh(reach.dupthresh_extra()),
            if auto { 7 } else { 3 }
        );
        let mut spec = ConnectionSpec::new(
            i as u64,
            src,
            dst,
            Some(2_000_000),
            SimTime::from_ns(625 * u64::from(i)),
            w.streams().substream("conn", i as u64),
        );
        spec.reach = Some(reach);
        spec.report = Some(report.clone());
        t.open(&mut w, spec).expect("open");
    }
    w.run();
    let recs = check_end(&w, &report);
    assert_eq!(recs.len(), n as usize, "every flow completes");
    let per_core_queue = counts.lock().unwrap().clone();
    let drops = *drops.lock().unwrap();
    Run {
        per_core_queue,
        fast_retransmits: recs.iter().map(|r| r.fast_retransmits).sum(),
        drops,
    }
}

/// Per-packet spraying (5): flow 0's data packets are uniform over its 4 core paths
/// (chi-square, 3 degrees of freedom, 1% critical value 11.345).
#[test]
fn ps_paths_are_uniform_over_the_four_core_paths() {
    let r = run(true, 3);
    let used: Vec<u64> = r
        .per_core_queue
        .iter()
        .copied()
        .filter(|&c| c > 0)
        .collect();
    assert_eq!(
        used.len(),
        4,
        "flow 0 crosses exactly 4 core queues: {:?}",
        r.per_core_queue
    );
    let total: u64 = used.iter().sum();
    let e = total as f64 / 4.0;
    let chi2: f64 = used.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    println!("flow 0 per core path {used:?}, chi-square {chi2:.2}");
    assert!(
        total >= 2_000_000 / 1400,
        "every data packet crosses the core"
    );
    assert!(chi2 < 11.345, "chi-square {chi2}");
}

/// With nothing dropped (1M-packet queues, checked) every fast retransmit is spurious, caused
/// by spraying's reordering; auto dupthresh 7 has at least 5 times fewer than dupthresh 3.
#[test]
fn auto_dupthresh_cuts_spurious_fast_retransmits_fivefold() {
    let fixed = run(false, 3);
    let auto = run(true, 3);
    println!(
        "spurious fast retransmits: dupthresh 3 {}, auto (7) {}; drops {} / {}",
        fixed.fast_retransmits, auto.fast_retransmits, fixed.drops, auto.drops
    );
    assert_eq!(
        fixed.drops + auto.drops,
        0,
        "nothing dropped: every FR is spurious"
    );
    assert!(fixed.fast_retransmits > 0, "dupthresh 3 sees reordering");
    assert!(
        auto.fast_retransmits * 5 <= fixed.fast_retransmits,
        "auto {} vs fixed {}",
        auto.fast_retransmits,
        fixed.fast_retransmits
    );
}

/// htsim's packet scatter (`scatter = "round-robin"`, docs/model.md 5) takes the paths in turn:
/// flow 0's data packets, retransmissions included, split over its 4 core paths within one
/// packet of each other, where independent random paths differ by dozens; and the even split
/// reorders less: under a quarter of the spurious fast retransmits of random paths.
#[test]
fn round_robin_scatter_splits_packets_evenly_over_the_paths() {
    let spread = |r: &Run| {
        let used: Vec<u64> = r
            .per_core_queue
            .iter()
            .copied()
            .filter(|&c| c > 0)
            .collect();
        assert_eq!(used.len(), 4, "{:?}", r.per_core_queue);
        used.iter().max().unwrap() - used.iter().min().unwrap()
    };
    let random = run_with(true, ScatterOrder::Random, 3);
    let rr = run_with(true, ScatterOrder::RoundRobin, 3);
    println!(
        "max - min packets per path: random {}, round robin {}; spurious fast retransmits {} / {}",
        spread(&random),
        spread(&rr),
        random.fast_retransmits,
        rr.fast_retransmits
    );
    assert_eq!(random.drops + rr.drops, 0, "nothing dropped");
    assert!(spread(&rr) <= 1, "round robin spread {}", spread(&rr));
    assert!(spread(&random) > 10, "random spread {}", spread(&random));
    assert!(
        rr.fast_retransmits * 4 < random.fast_retransmits,
        "round robin {} vs random {}",
        rr.fast_retransmits,
        random.fast_retransmits
    );
}
