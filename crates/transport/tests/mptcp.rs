//! MPTCP on hand-built networks (issue 5, part A): TCP-friendliness of LIA at a shared
//! bottleneck, traffic shifting away from a loaded path, Uncoupled and EWTCP shares, loss
//! recovery with both receiver semantics, and the coupled-arithmetic property test; a lost
//! join SYN (issue 13) on a dumbbell and on a FatTree, and pinned subflow paths on a FatTree.
//! Conservation and complete in-order delivery are checked at the end of every run. Release.

mod common;

use common::*;
use htsim_core::ids::{HostId, LinkId};
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::queue::{Admission, Discipline, Occupancy, Queue, QueueDiscipline};
use htsim_core::routing::PathSource;
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::SimTime;
use htsim_transport::cc::{AckSample, CcState};
use htsim_transport::config::SlowStartIncrease;
use htsim_transport::mptcp::{CcKind, Coupling, RxSubflowAck, SubflowView, TotalCwndScope};
use htsim_transport::path::PathPolicy;
use htsim_transport::tcp::ConnectionReport;
use htsim_transport::trace::{TraceEvent, TraceKind, TraceLog};
use htsim_transport::{ConnectionSpec, MptcpTransport, Profile, TcpTransport, Transport};
use proptest::prelude::*;
use rand::Rng;
use std::sync::{Arc, Mutex};

fn mptcp(cc: CcKind, subflows: u32) -> MptcpTransport {
    let mut t = MptcpTransport::new(Profile::Rfc);
    t.mptcp.cc = cc;
    t.mptcp.max_subflows = subflows;
    t
}

/// The bottleneck of the TCP-friendliness tests: drop-tail of `pkts` packets that also drops
/// each first transmission of a data packet independently with probability `p` (its own
/// random stream). Retransmissions are never dropped at random: a lost retransmission costs
/// NewReno an RTO and go-back-N (2.10), a timeout artefact outside the congestion-control law
/// under test, and it would hit the small-window subflows more often than the TCP flow.
/// From `count_from` on it counts the data arrivals per 10 ms and the drops per flow.
struct RandomLoss {
    p: f64,
    rng: htsim_core::rng::SimRng,
    count_from: SimTime,
    counts: Arc<Mutex<LossCounts>>,
}

/// What a [`RandomLoss`] counted from its `count_from` on.
#[derive(Debug, Default)]
struct LossCounts {
    /// Data packets dropped at random, per flow (0 and 1).
    random_drops: [u64; 2],
    /// Data packets dropped because the buffer was full, per flow.
    overflow_drops: [u64; 2],
    /// Data arrivals in each 10 ms bin after `count_from`.
    arrivals_per_10ms: Vec<u64>,
}

impl QueueDiscipline for RandomLoss {
    fn admit(&mut self, occ: &Occupancy, packet: &mut Packet, now: SimTime) -> Admission {
        let data = packet.kind == PacketKind::Data;
        let fits = occ.fits(packet.size_bytes as u64);
        let random =
            fits && data && !packet.has(flags::RETRANSMIT) && self.rng.random::<f64>() < self.p;
        if data && now >= self.count_from {
            let mut c = self.counts.lock().unwrap();
            let bin = ((now - self.count_from).as_ps() / SimTime::from_ms(10).as_ps()) as usize;
            if c.arrivals_per_10ms.len() <= bin {
                c.arrivals_per_10ms.resize(bin + 1, 0);
            }
            c.arrivals_per_10ms[bin] += 1;
            let flow = (packet.flow as usize).min(1);
            c.overflow_drops[flow] += u64::from(!fits);
            c.random_drops[flow] += u64::from(random);
        }
        if !fits || random {
            Admission::Drop
        } else {
            Admission::Enqueue
        }
    }
    fn name(&self) -> &str {
        "random-loss"
    }
}

/// An independent-loss bottleneck and run length.
#[derive(Clone, Copy, Debug)]
struct LossSetup {
    /// Per-packet loss probability of first transmissions.
    p: f64,
    /// Buffer (packets).
    buffer: u64,
    /// Run length (s); the measurement starts at [`MEASURE_FROM_S`].
    end_s: u64,
}

/// Start of the measurement (slow start and the joins are over by then).
const MEASURE_FROM_S: u64 = 1;

/// The TCP-friendliness setup. Windows settle near 1.22 / sqrt(p) = 39 packets per TCP share,
/// so two shares (78 on average, the sawtooth peaks about 1/3 higher) fit the 200-packet buffer
/// plus the 8.5-packet BDP and nearly every loss is the independent one. p is low enough that
/// the timeouts NewReno without SACK cannot avoid stay rare: with `careful_recovery` (RFC 6582)
/// a loss of the first segment sent after a recovery began is repaired by an RTO (200 ms, 2000
/// RTTs), one per recovery with probability about p, so their rate grows as p^2. In the setup
/// used before (p = 4e-3, 100 packets, 10 s) each TCP flow took 3-8 such RTOs in 9 s and the
/// TCP-vs-TCP control alone spread 0.90-1.21 over seeds 21-28 (an RTO idles a TCP flow but
/// only one subflow of an MPTCP connection, so they also favoured LIA: 1.12-1.34); at
/// p = 1e-3 over 19 s it is 0-2 per flow, and ~750 loss events per flow remain.
const FAIR: LossSetup = LossSetup {
    p: 1e-3,
    buffer: 200,
    end_s: 20,
};

/// What one run of [`against_tcp_with`] measured between [`MEASURE_FROM_S`] and its end.
#[derive(Debug)]
struct Outcome {
    /// Goodput (acked bytes x 8 / s) of pair 0 and of the TCP flow (pair 1).
    goodput: [f64; 2],
    /// Fast retransmits of each flow.
    fast_retransmits: [u64; 2],
    /// The bottleneck's counts.
    counts: LossCounts,
    /// Old duplicate data segments each receiver got over the whole run (go-back-N resends of
    /// data it held, spurious retransmissions).
    duplicate_segments: [u64; 2],
}

/// `first` (pair 0) against one TCP flow (pair 1) on the gigabit dumbbell (100 us base RTT,
/// both flows through the same bottleneck, same `Profile::Rfc` TCP config) whose bottleneck
/// is [`RandomLoss`] with `setup`. Asserts the loss in the measurement was the independent
/// one (the initial slow-start overshoot does overflow the queue, and NewReno without SACK then
/// repairs one hole per RTT; that is before the measurement), then the end-of-run checks.
fn against_tcp_with(first: &dyn Transport, seed: u64, setup: LossSetup) -> Outcome {
    let mut w = World::new(seed);
    let net = Net::gig(2);
    let counts = Arc::new(Mutex::new(LossCounts::default()));
    let q = RandomLoss {
        p: setup.p,
        count_from: SimTime::from_secs(MEASURE_FROM_S),
        rng: w.streams().stream("random-loss"),
        counts: counts.clone(),
    };
    dumbbell(
        &mut w,
        net,
        Queue::new(
            BufferSize::Packets(setup.buffer),
            Discipline::Custom(Box::new(q)),
        ),
    );
    let report = sink();
    let end = SimTime::from_secs(setup.end_s);
    open(
        &mut w,
        first,
        &net,
        0,
        None,
        SimTime::ZERO,
        Some(end),
        &report,
    );
    let tcp = TcpTransport::new(Profile::Rfc);
    let t1 = SimTime::from_us(37);
    open(&mut w, &tcp, &net, 1, None, t1, Some(end), &report);
    let snapshot = |w: &World| {
        let mut recs = w.open_flow_records();
        recs.sort_by_key(|r| r.flow_id);
        [0, 1].map(|i| (recs[i].bytes_acked, recs[i].fast_retransmits))
    };
    let from = SimTime::from_secs(MEASURE_FROM_S);
    w.run_until(from);
    let s0 = snapshot(&w);
    w.run_until(end);
    let s1 = snapshot(&w);
    let secs = (end - from).as_secs_f64();
    w.run();
    assert_eq!(check_end(&w, &report).len(), 2);
    let counts = std::mem::take(&mut *counts.lock().unwrap());
    let (r, o) = (counts.random_drops, counts.overflow_drops);
    println!(
        "  {}: random drops {r:?}, overflow drops {o:?}",
        first.name()
    );
    let (r, o) = (r[0] + r[1], o[0] + o[1]);
    assert!(
        o * 20 <= r,
        "overflow drops {o} vs random {r}: not the independent-loss regime"
    );
    let mut duplicate_segments = [0; 2];
    for x in report.lock().unwrap().iter() {
        if let ConnectionReport::Receiver { flow_id, stats } = x {
            duplicate_segments[*flow_id as usize] = stats.duplicate_segments;
        }
    }
    Outcome {
        goodput: [0, 1].map(|i| (s1[i].0 - s0[i].0) as f64 * 8.0 / secs),
        fast_retransmits: [0, 1].map(|i| s1[i].1 - s0[i].1),
        counts,
        duplicate_segments,
    }
}

fn against_tcp(cc: CcKind, seed: u64) -> (f64, f64) {
    let o = against_tcp_with(&mptcp(cc, 2), seed, FAIR);
    (o.goodput[0], o.goodput[1])
}

/// RFC 6356 goal 2 (docs/model.md 4.6): LIA with 2 subflows takes one TCP share at a shared
/// bottleneck, checked on 4 seeds with TCP against TCP in the identical setup as the control.
/// Measured (seeds 21-28, the control in brackets): LIA / TCP 1.04-1.14 (0.95-1.05).
///
/// Why independent random loss ([`FAIR`]) and not the plain drop-tail bottleneck over
/// 2 s: RFC 6356's argument (and the 4.6 arithmetic, checked by hand in
/// `lia_increase_matches_rfc6356_by_hand`) assumes every flow sees the same per-packet loss
/// rate p; then LIA's total window (+alpha = 1/2 MSS per RTT at equal windows, a loss halves
/// one subflow: -W/4) and TCP's (+1 MSS, -W/2) both settle at sqrt(2/p). On the 2-flow
/// gigabit dumbbell with a drop-tail queue the flows are ACK-clocked, an overflow episode lasts
/// about an RTT, and the packets it drops are the ones sent beyond the ACK clock, i.e. those
/// each window's additive increase adds. A TCP flow adds one per RTT and is hit in every
/// episode; a LIA subflow adds about 1/4 MSS per RTT and often escapes. Measured over 1.5 s
/// after 0.5 s with the engine's RFC 6582 rules, start times drawn in [0, 1 ms) (seeds
/// 1, 2, 3, 6, 7, 9):
///
/// | buffer | TCP / TCP | LIA / TCP | episodes hitting TCP / LIA | loss rate TCP / LIA |
/// |---|---|---|---|---|
/// | 25 pkt | 1.00 (seed 2: 2.02, lock-out) | 1.72-5.98 | 100% / 76% (seed 1) | 1.0e-2 / 4.9e-3 |
/// | 50 pkt | 1.00 | 1.49-1.84 | 99% / 66% (seed 1) | 3.9e-3 / 1.8e-3 |
/// | 100 pkt | 1.00 | 1.26-1.61 | 100% / 78% (seed 1) | 1.0e-3 / 6.6e-4 |
/// | 200 pkt | 0.96-1.00 | 1.13-1.59 | 94% / 63% (seed 1) | 2.8e-4 / 1.5e-4 |
///
/// and with a 1-BDP buffer (9 packets) the LIA runs lock out, LIA / TCP 0.72 to 425 as one flow's
/// RTOs starve it (TCP / TCP 1.00). TCP against TCP is hit together in every episode (51 of 51 at
/// 100 packets), and Uncoupled subflows (+1 MSS per RTT each) are too (73 of 73, both subflows,
/// exactly two shares: 2.000); EWTCP (a = 1/4 per subflow, no coupling) escapes most (hit in 27-34
/// of 55-64 episodes, seeds 1, 2, 3, 6) and gets 1.46-2.09 times TCP's goodput. The order follows
/// the per-subflow increase, not the coupling: the drop-tail phase effect of a deterministic 2-flow
/// dumbbell, against RFC 6356's premise, not a defect of LIA (its alpha, the min with the TCP
/// increase and the per-ACK accounting match RFC 6356 and 4.6, see the by-hand test; congestion
/// avoidance is per ACK for TCP and LIA alike and nearly every ACK covers one segment, so ABC,
/// which only applies in slow start, plays no part). On the independent-loss bottleneck the
/// per-packet loss rates of TCP and of both subflows come out equal (about 1.0e-3 each), as the
/// premise requires.
#[test]
fn lia_with_two_subflows_takes_one_tcp_share_at_a_shared_bottleneck() {
    for seed in [21, 22, 23, 24] {
        let o = against_tcp_with(&TcpTransport::new(Profile::Rfc), seed, FAIR);
        let [a, b] = o.goodput;
        println!("seed {seed}: TCP vs TCP ratio {:.3}", a / b);
        assert!((a / b - 1.0).abs() <= 0.1, "control: TCP {a} vs TCP {b}");
        let (m, t) = against_tcp(CcKind::Lia, seed);
        println!(
            "seed {seed}: LIA {:.1} Mb/s, TCP {:.1} Mb/s, ratio {:.3}",
            m / 1e6,
            t / 1e6,
            m / t
        );
        assert!((m / t - 1.0).abs() <= 0.2, "MPTCP {m} vs TCP {t}");
    }
}

/// The seed-22 anomaly, in the setup it was found in (p = 4e-3, 100-packet buffer, 10 s). Before
/// RFC 6582's rules were in the `rfc` profile the flows left the independent-loss regime within
/// 0.2 s and never returned (from 1 s on: 143599 overflow drops against 2643 random ones, up to
/// 8554 data arrivals in 10 ms, 10x the link, 2141 LIA fast retransmits, the TCP flow starved at
/// 1.5 Mb/s). Traced, two engine rules each released a window of segments back to back at the
/// 10 Gb/s access rate:
/// - After an RTO, duplicate ACKs of go-back-N resends started a fast recovery (`recover` was
///   not updated on the RTO). LIA subflow 1's fast retransmission at 12 ms was lost in the
///   slow-start overshoot; stuck in recovery, the subflow sent a new segment per duplicate ACK
///   (the flight grew to 6.8 MB, nearly all of it held by the receiver) until its RTO at 212 ms
///   set ssthresh = 3.4 MB; go-back-N resent held segments, their duplicate ACKs started a
///   recovery with cwnd = ssthresh + 3 MSS = 3.2 MB, and 2166 of the resends overflowed in the
///   next 50 ms. Each later RTO of either flow repeated it.
/// - A full ACK that covered nearly the whole flight: the pre-ACK-flight deflation (2.8, the
///   ns-3 rule) left the TCP flow at 43 ms with cwnd = 314 segments and nothing in flight; the
///   burst into the 100-packet queue took a 178 ms NewReno recovery (one hole per RTT, the queue
///   full throughout), and the ssthresh it left (half a flight mostly held by the receiver)
///   drove slow-start overshoots after later recoveries.
///
/// Fixing the first alone left this run out of the regime (LIA / TCP 1.76, 4760 overflow drops
/// from 1 s on); fixing the second alone kept it in on this seed (the first chain did not
/// start), but tests/tcp.rs shows each mechanism on a single path. Both are now in the `rfc`
/// profile (`TcpConfig::careful_recovery`, `FullAckWindow::Outstanding`); `ns3-mmptcp` keeps
/// the code's rules (2.8) and its 65535 B receive window, which bounds such bursts.
///
/// Asserted: no overflow storm (overflow drops at most 5% of the random ones; measured 0 of
/// 3001); the bottleneck is never offered more than it can serve or hold: in every 10 ms
/// window after 1 s at most 855 packets (1 Gb/s for 10 ms at 1462 B) + 100 (the buffer) data
/// arrivals (measured at most 894; before: 8554); each flow's fast retransmits at most its
/// losses, since a recovery needs one (measured LIA 1577 of 1666, TCP 1213 of 1335); and
/// spurious resends stay rare: each receiver got fewer duplicate segments than 1% of its flow's
/// random losses (measured 2 and 0; before: 2852 and 2643, the go-back-N bursts of data the
/// receivers held). The LIA / TCP ratio is not asserted in this setup: at p = 4e-3 the RTOs of
/// NewReno without SACK bias it (see [`FAIR`]); seed 22 is one of the fairness test's seeds.
#[test]
fn lia_seed_22_stays_in_the_independent_loss_regime() {
    let setup = LossSetup {
        p: 4e-3,
        buffer: 100,
        end_s: 10,
    };
    let o = against_tcp_with(&mptcp(CcKind::Lia, 2), 22, setup);
    let most = o
        .counts
        .arrivals_per_10ms
        .iter()
        .copied()
        .max()
        .unwrap_or(0);
    let line = 1e9 * 0.01 / (1462.0 * 8.0);
    println!(
        "seed 22: goodput {:.1} / {:.1} Mb/s, fast retransmits {:?}, random drops {:?}, \
         overflow drops {:?}, most data arrivals in 10 ms {most} (line {line:.0}), duplicate \
         segments {:?}",
        o.goodput[0] / 1e6,
        o.goodput[1] / 1e6,
        o.fast_retransmits,
        o.counts.random_drops,
        o.counts.overflow_drops,
        o.duplicate_segments
    );
    assert!(
        most as f64 <= line + setup.buffer as f64,
        "{most} data arrivals in 10 ms: above what the link serves plus the buffer"
    );
    for i in 0..2 {
        let losses = o.counts.random_drops[i] + o.counts.overflow_drops[i];
        assert!(
            o.fast_retransmits[i] <= losses,
            "flow {i}: {} fast retransmits for {losses} losses",
            o.fast_retransmits[i]
        );
    }
    for i in 0..2 {
        assert!(
            o.duplicate_segments[i] * 100 <= o.counts.random_drops[i],
            "flow {i}: {} duplicate segments at the receiver",
            o.duplicate_segments[i]
        );
    }
}

/// Uncoupled takes two TCP shares (>= 60% of what the two flows get) and EWTCP (a = 1/n^2)
/// one (<= 55%), on the independent-loss bottleneck of the LIA test (see there for why).
/// Measured (seeds 21-28): Uncoupled 0.66-0.69, EWTCP 0.49-0.51.
#[test]
fn uncoupled_takes_two_shares_and_ewtcp_one() {
    for seed in [21, 23, 24] {
        let (m, t) = against_tcp(CcKind::Uncoupled, seed);
        let share = m / (m + t);
        println!("seed {seed}: Uncoupled share {share:.3}");
        assert!(share >= 0.6, "uncoupled share {share}");
        let (m, t) = against_tcp(CcKind::Ewtcp, seed);
        let share = m / (m + t);
        println!("seed {seed}: EWTCP share {share:.3}");
        assert!(share <= 0.55, "EWTCP share {share}");
    }
}

/// RFC 6356 3 by hand (docs/model.md 4.6), MSS 1400: subflow 1 has cwnd 14000 B and srtt 100 us,
/// subflow 2 28000 B and 200 us. W = 42000; max cwnd/rtt^2 = 14000 / 1e-8 = 1.4e12; sum cwnd/rtt =
/// 1.4e8 + 1.4e8 = 2.8e8; alpha = 42000 x 1.4e12 / 7.84e16 = 0.75. Increase per ACK: alpha MSS^2 /
/// W = 0.75 x 1.96e6 / 42000 = 35 B on either subflow; the cap MSS^2 / cwnd_i is 140 B and 70 B, so
/// LIA adds 35 B to the ACKed subflow only. With subflow 2 in fast recovery (w_2 = ssthresh =
/// 14000) W = 28000 and alpha = 0.5 (alpha keeps cwnd_2): still 0.5 x 1.96e6 / 28000 = 35 B. In
/// slow start both add 1 MSS; Uncoupled adds 1.96e6 / 14000 = 140 B.
#[test]
fn lia_increase_matches_rfc6356_by_hand() {
    let mut a = view(14_000, 100_000_000, 0);
    a.in_fast_recovery = false;
    let mut b = view(28_000, 200_000_000, 1);
    b.in_fast_recovery = false;
    b.ssthresh = 14_000;
    let mut views = [a, b];
    let run = |views: &[SubflowView], kind: CcKind, i: usize, ssthresh: u64| {
        let c = Coupling { subflows: views };
        let v = views[i];
        let mut st = CcState {
            cwnd: v.cwnd,
            ssthresh,
            mss: 1400,
            snd_una: 1,
            snd_nxt: 1 + v.cwnd,
            snd_max: 1 + v.cwnd,
            in_recovery: false,
            srtt: v.srtt,
            subflow: v.index,
        };
        let ack = AckSample {
            ack: 1401,
            snd_una_before: 1,
            newly_acked: 1400,
            duplicate: false,
            ece: false,
            cwr: false,
        };
        let mut cc = kind.build(SlowStartIncrease::PerAck);
        cc.increase(&c, &mut st, &ack);
        st.cwnd - v.cwnd
    };
    let c = Coupling { subflows: &views };
    assert_eq!(c.total_window(), 42_000);
    assert!((c.alpha() - 0.75).abs() < 1e-12, "alpha {}", c.alpha());
    assert_eq!(run(&views, CcKind::Lia, 0, 1), 35);
    assert_eq!(run(&views, CcKind::Lia, 1, 1), 35);
    assert_eq!(run(&views, CcKind::LiaUncapped, 0, 1), 35);
    assert_eq!(run(&views, CcKind::Uncoupled, 0, 1), 140);
    assert_eq!(
        run(&views, CcKind::Lia, 0, u64::MAX),
        1400,
        "slow start is TCP's"
    );
    views[1].in_fast_recovery = true;
    let c = Coupling { subflows: &views };
    assert_eq!(c.total_window(), 28_000);
    assert!((c.alpha() - 0.5).abs() < 1e-12, "alpha {}", c.alpha());
    assert_eq!(run(&views, CcKind::Lia, 0, 1), 35);
    // The cap binds on a big, slow subflow: subflow 0 14000 B at 100 us, subflow 1 140000 B at
    // 1 ms. W = 154000, max cwnd/rtt^2 = 1.4e12, sum cwnd/rtt = 2.8e8, alpha = 2.75; coupled
    // 2.75 x 1.96e6 / 154000 = 35 B; cap MSS^2 / cwnd_1 = 14 B, so LIA adds 14 B on subflow 1
    // and LIA-uncapped 35 B; subflow 0 (cap 140 B) gets 35 B from both.
    let views = [
        view(14_000, 100_000_000, 0),
        view(140_000, 1_000_000_000, 1),
    ];
    let views = views.map(|mut v| {
        v.in_fast_recovery = false;
        v
    });
    let c = Coupling { subflows: &views };
    assert!((c.alpha() - 2.75).abs() < 1e-9, "alpha {}", c.alpha());
    assert_eq!(run(&views, CcKind::Lia, 1, 1), 14);
    assert_eq!(run(&views, CcKind::LiaUncapped, 1, 1), 35);
    assert_eq!(run(&views, CcKind::Lia, 0, 1), 35);
    assert_eq!(run(&views, CcKind::LiaUncapped, 0, 1), 35);
}

/// Two disjoint 1 Gb/s paths A and B between host 0 and host 2; host 1 -> host 3 uses A.
/// Hosts 2 and 3 answer over mirror-image reverse links.
struct TwoPaths {
    up: [LinkId; 2],
    core: [LinkId; 2],
    down: [LinkId; 2],
    rev_up: [LinkId; 2],
    rev_core: [LinkId; 2],
    rev_down: [LinkId; 2],
}

impl PathSource for TwoPaths {
    fn path_count(&self, src: HostId, dst: HostId) -> u32 {
        match (src.0, dst.0) {
            (0, 2) | (2, 0) => 2,
            (1, 3) | (3, 1) => 1,
            _ => 0,
        }
    }
    fn path(&self, src: HostId, dst: HostId, index: u32, out: &mut Vec<LinkId>) {
        let i = index as usize % 2;
        if src.0 < 2 {
            out.extend([
                self.up[src.0 as usize],
                self.core[i],
                self.down[dst.0 as usize - 2],
            ]);
        } else {
            out.extend([
                self.rev_up[src.0 as usize - 2],
                self.rev_core[i],
                self.rev_down[dst.0 as usize],
            ]);
        }
    }
}

#[test]
fn lia_shifts_traffic_away_from_a_path_that_gets_loaded() {
    let mut w = World::new(5);
    let net = Net::gig(2);
    let acc = |w: &mut World| w.add_link(net.access, net.access_delay, droptail(10_000));
    let (qa, log_a) = test_queue(100, vec![]);
    let (qb, log_b) = test_queue(100, vec![]);
    let up = [acc(&mut w), acc(&mut w)];
    let core = [
        w.add_link(net.bottleneck, net.bottleneck_delay, qa),
        w.add_link(net.bottleneck, net.bottleneck_delay, qb),
    ];
    let down = [acc(&mut w), acc(&mut w)];
    let rev_up = [acc(&mut w), acc(&mut w)];
    let rev_core = [
        w.add_link(net.bottleneck, net.bottleneck_delay, droptail(10_000)),
        w.add_link(net.bottleneck, net.bottleneck_delay, droptail(10_000)),
    ];
    let rev_down = [acc(&mut w), acc(&mut w)];
    w.set_path_source(Box::new(TwoPaths {
        up,
        core,
        down,
        rev_up,
        rev_core,
        rev_down,
    }));
    let report = sink();
    let end = SimTime::from_secs(3);
    let tcp_start = SimTime::from_secs(1);
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(2),
        None,
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.path = PathPolicy::Pinned(0); // subflow j on path j
    spec.stop = Some(end);
    spec.report = Some(report.clone());
    mptcp(CcKind::Lia, 2).open(&mut w, spec).expect("open");
    let mut spec = ConnectionSpec::new(
        1,
        HostId(1),
        HostId(3),
        None,
        tcp_start,
        w.streams().substream("conn", 1),
    );
    spec.stop = Some(end);
    spec.report = Some(report.clone());
    TcpTransport::new(Profile::Rfc)
        .open(&mut w, spec)
        .expect("open");
    w.run();
    check_end(&w, &report);
    // Data packets of the MPTCP flow admitted on each path after the TCP flow settled.
    let after = tcp_start + SimTime::from_ms(500);
    let count = |log: &std::sync::Arc<std::sync::Mutex<QueueLog>>| {
        let l = log.lock().unwrap();
        l.data
            .iter()
            .filter(|s| s.flow == 0 && !s.dropped && s.at >= after && s.at < end)
            .count() as f64
    };
    let (a, b) = (count(&log_a), count(&log_b));
    let before_a = log_a
        .lock()
        .unwrap()
        .data
        .iter()
        .filter(|s| s.flow == 0 && s.at < tcp_start)
        .count();
    let before_b = log_b
        .lock()
        .unwrap()
        .data
        .iter()
        .filter(|s| s.flow == 0 && s.at < tcp_start)
        .count();
    println!(
        "before: A {before_a} B {before_b}; after: loaded A {a}, free B {b}, share {:.3}",
        a / (a + b)
    );
    assert!(a / (a + b) < 0.4, "loaded subflow carries {a} of {}", a + b);
}

/// One finite MPTCP flow on the dumbbell whose bottleneck drops the listed data arrivals.
fn lossy(semantics: RxSubflowAck, subflows: u32, drops: Vec<u64>) -> htsim_core::flow::FlowRecord {
    let mut w = World::new(9);
    let net = Net::gig(1);
    let (q, _log) = test_queue(100, drops);
    dumbbell(&mut w, net, q);
    let report = sink();
    let mut t = mptcp(CcKind::Lia, subflows);
    t.mptcp.rx_subflow_ack = semantics;
    open(
        &mut w,
        &t,
        &net,
        0,
        Some(1_000_000),
        SimTime::ZERO,
        None,
        &report,
    );
    w.run();
    let recs = check_end(&w, &report);
    assert_eq!(recs.len(), 1, "the flow completes");
    recs[0].clone()
}

#[test]
fn lossy_flows_deliver_everything_in_order_with_both_receiver_semantics() {
    for sem in [RxSubflowAck::PerSubflow, RxSubflowAck::CodeDrain] {
        for n in [1, 2, 4, 8] {
            let r = lossy(sem, n, vec![20, 40, 41, 90, 300, 301, 302, 600]);
            println!(
                "{sem:?} {n} subflows: fct {} rtx {} fr {} to {}",
                r.fct().unwrap(),
                r.retransmits,
                r.fast_retransmits,
                r.timeouts
            );
            assert_eq!(r.subflows, n);
            assert!(r.retransmits >= 8);
        }
    }
}

#[test]
fn ns3_profile_flow_completes_and_uses_all_subflows() {
    let mut w = World::new(4);
    let net = Net::gig(1);
    dumbbell(&mut w, net, droptail(100));
    let report = sink();
    let t = MptcpTransport::new(Profile::Ns3Mmptcp);
    assert_eq!(t.mptcp.total_cwnd_scope, TotalCwndScope::AllSubflows);
    open(
        &mut w,
        &t,
        &net,
        0,
        Some(2_000_000),
        SimTime::ZERO,
        None,
        &report,
    );
    w.run();
    let r = check_end(&w, &report);
    assert_eq!(r[0].subflows, 8);
}

fn view(cwnd: u64, rtt_ps: u64, index: u16) -> SubflowView {
    SubflowView {
        index,
        established: true,
        in_scope: true,
        cwnd,
        ssthresh: cwnd / 2,
        in_fast_recovery: index % 3 == 2,
        srtt: SimTime::from_ps(rtt_ps),
        snd_una: 1,
        snd_nxt: 1 + cwnd,
        snd_max: 1 + cwnd,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn coupled_arithmetic_never_overflows_or_produces_nan(
        subs in prop::collection::vec((1u64..=1_000_000_000, 1_000_000u64..=1_000_000_000_000), 1..9),
        mss in prop::sample::select(vec![1u64, 1400, 9000, 65_535]),
        flight_frac in 0u64..=2,
    ) {
        let views: Vec<SubflowView> = subs.iter().enumerate()
            .map(|(i, &(c, r))| view(c, r, i as u16)).collect();
        let c = Coupling { subflows: &views };
        prop_assert!(c.alpha().is_finite() && c.alpha() > 0.0);
        for (_, kind) in CcKind::ALL {
            for ss in [SlowStartIncrease::PerAck, SlowStartIncrease::Abc { limit: 2 }] {
                let mut cc = kind.build(ss);
                for v in &views {
                    let mut st = CcState {
                        cwnd: v.cwnd, ssthresh: if flight_frac == 0 { u64::MAX } else { v.ssthresh },
                        mss, snd_una: 1, snd_nxt: 1 + v.cwnd * flight_frac / 2,
                        snd_max: 1 + v.cwnd * flight_frac / 2, in_recovery: false,
                        srtt: v.srtt, subflow: v.index,
                    };
                    let ack = AckSample { ack: 1 + mss, snd_una_before: 1, newly_acked: mss, duplicate: false, ece: false, cwr: false };
                    let before = st.cwnd;
                    cc.on_ack(&c, &mut st, &ack);
                    cc.increase(&c, &mut st, &ack);
                    prop_assert!(st.cwnd > before, "{} did not grow", cc.name());
                    prop_assert!(st.cwnd <= before + before.max(mss) * 2 + 2 * mss, "{} grew {} -> {}", cc.name(), before, st.cwnd);
                    let ss_th = cc.fast_retransmit_ssthresh(&c, &st);
                    prop_assert!(ss_th >= 2 * mss && ss_th <= st.cwnd.max(2 * mss) + st.snd_max);
                    cc.on_rto(&c, &mut st);
                    prop_assert_eq!(st.cwnd, mss);
                }
            }
        }
    }
}

/// The flow record's `bytes_acked` is the connection-level cumulative acknowledgement: with a
/// hole on one subflow, the other subflows' ACKs for later data do not count. Sampled every
/// 10 us through a lossy 4-subflow flow, it never exceeds what the receiver has delivered in
/// order (the sum of the subflows' cumulative ACKs does, while a hole is open), never falls,
/// and ends at the flow's size.
#[test]
fn bytes_acked_is_the_connection_level_cumulative_ack() {
    use htsim_transport::mptcp::connection::MptcpSender;
    use htsim_transport::mptcp::receiver::MptcpReceiver;
    let mut w = World::new(9);
    let net = Net::gig(1);
    let (q, _log) = test_queue(100, vec![20, 40, 41, 90]);
    dumbbell(&mut w, net, q);
    let report = sink();
    let size = 1_000_000;
    let t = mptcp(CcKind::Lia, 4);
    let conn = open(
        &mut w,
        &t,
        &net,
        0,
        Some(size),
        SimTime::ZERO,
        None,
        &report,
    );
    let (mut last, mut holes, mut now) = (0u64, 0u32, SimTime::ZERO);
    loop {
        now += SimTime::from_us(10);
        w.run_until(now);
        let (Some(tx), Some(rx)) = (w.endpoint(conn.sender), w.endpoint(conn.receiver)) else {
            break;
        };
        let tx: &dyn std::any::Any = tx;
        let rx: &dyn std::any::Any = rx;
        let (Some(tx), Some(rx)) = (
            tx.downcast_ref::<MptcpSender>(),
            rx.downcast_ref::<MptcpReceiver>(),
        ) else {
            panic!("an MPTCP connection");
        };
        let acked = tx.record().bytes_acked;
        let subflow_sum: u64 = tx.subflows().iter().map(|s| s.snd_una() - 1).sum();
        // The record's subflow level is that sum (htsim's throughput numerator).
        assert_eq!(tx.record().subflow_bytes_acked, subflow_sum, "{now}");
        let delivered = rx.stats().bytes_delivered;
        assert!(
            acked <= delivered,
            "{now}: acked {acked} > delivered {delivered}"
        );
        assert!(
            acked >= last && acked <= subflow_sum,
            "{now}: {last} {acked} {subflow_sum}"
        );
        holes += u32::from(subflow_sum > delivered);
        last = acked;
        if tx.record().end.is_some() {
            break;
        }
    }
    assert!(holes > 0, "some subflow ran ahead of a hole on another");
    w.run();
    let recs = check_end(&w, &report);
    assert_eq!(recs[0].bytes_acked, size);
}

/// What [`lost_join`] saw.
struct LostJoin {
    /// The record of a completed flow.
    completed: Option<htsim_core::flow::FlowRecord>,
    /// The record of a flow still open when the world ran out of events.
    open: Option<htsim_core::flow::FlowRecord>,
    /// The flow's trace.
    trace: Vec<TraceEvent>,
}

/// One 1 MB MPTCP flow with 4 subflows on the dumbbell (1 Gb/s, 100 us RTT) whose bottleneck
/// drops the 2nd SYN to arrive: the MP_JOIN SYN of subflow 1 (joins are numbered in creation
/// order). Runs until nothing is left to happen; the flow is traced.
fn lost_join(profile: Profile) -> LostJoin {
    let mut w = World::new(5);
    let net = Net::gig(1);
    let (mut d, log) = TestQueue::new(Vec::new());
    d.drop_syn_arrivals = vec![2];
    let q = Queue::new(BufferSize::Packets(100), Discipline::Custom(Box::new(d)));
    dumbbell(&mut w, net, q);
    let report = sink();
    let mut t = MptcpTransport::new(profile);
    t.mptcp.max_subflows = 4;
    let trace = TraceLog::new(100_000);
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(1),
        Some(1_000_000),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.report = Some(report.clone());
    spec.trace = Some(trace.clone());
    t.open(&mut w, spec).expect("open");
    w.run();
    assert_eq!(log.lock().unwrap().syns_dropped, 1, "one join SYN dropped");
    let completed = check_end(&w, &report).pop();
    LostJoin {
        completed,
        open: w.open_flow_records().pop(),
        trace: trace.events(),
    }
}

/// The events of subflow `j` of kind `kind`.
fn events(trace: &[TraceEvent], j: u16, kind: TraceKind) -> Vec<TraceEvent> {
    trace
        .iter()
        .filter(|e| e.subflow == j && e.kind == kind)
        .copied()
        .collect()
}

/// The `rfc` outcome of a 1 MB flow at 1 Gb/s whose subflow 1 (of 4) lost its join SYN: it
/// completes within 30 ms (8 ms of data; waiting for the join's SYN retry would take over 1 s,
/// the stall of issue 13), never stalls on subflow 1, and subflows 0, 2 and 3 establish and
/// each carry more than 100 kB; subflow 1 never establishes.
fn assert_sends_past_the_lost_join(r: &LostJoin) {
    let rec = r.completed.as_ref().expect("the flow completes");
    let fct = rec.fct().unwrap();
    assert!(fct < SimTime::from_ms(30), "fct {fct}");
    assert!(events(&r.trace, 1, TraceKind::Stall).is_empty());
    for j in [0, 2, 3] {
        assert_eq!(events(&r.trace, j, TraceKind::Established).len(), 1);
        // Its FIN goes at snd_max: one past the bytes it carried.
        let fin = events(&r.trace, j, TraceKind::Fin);
        let carried = fin.first().map_or(0, |e| e.state.snd_max - 1);
        assert!(carried > 100_000, "subflow {j} carried {carried} B");
    }
    assert!(events(&r.trace, 1, TraceKind::Established).is_empty());
}

/// The `ns3-mmptcp` outcome of the same: the flow never completes, having had less than 100 kB
/// acknowledged, and stalls once on subflow 1, whose SYN is sent once.
fn assert_stalls_on_the_lost_join(r: &LostJoin) -> htsim_core::flow::FlowRecord {
    assert!(r.completed.is_none(), "the flow must not complete");
    let open = r.open.clone().expect("the sender is still open");
    assert!(open.bytes_acked < 100_000, "{} B acked", open.bytes_acked);
    assert_eq!(events(&r.trace, 1, TraceKind::Syn).len(), 1, "no SYN retry");
    assert!(events(&r.trace, 1, TraceKind::Established).is_empty());
    let stalls = events(&r.trace, 1, TraceKind::Stall);
    assert_eq!(stalls.len(), 1, "{stalls:?}");
    open
}

#[test]
fn rfc_sends_on_the_established_subflows_while_a_join_syn_is_lost() {
    let r = lost_join(Profile::Rfc);
    assert_sends_past_the_lost_join(&r);
    // The lost join is retried on the SYN timer (1 s, doubling). The receiver closed with the
    // data, so the retries go unanswered and the join gives up after its 6 transmissions.
    let syns = events(&r.trace, 1, TraceKind::Syn);
    assert_eq!(syns.len(), 6, "{syns:?}");
    assert!(syns[1].at >= SimTime::from_secs(1) && syns[1].at < SimTime::from_ms(1010));
    assert_eq!(events(&r.trace, 1, TraceKind::SynFailed).len(), 1);
}

#[test]
fn ns3_profile_stalls_for_good_on_a_lost_join_syn_as_the_ns3_code_does() {
    let r = lost_join(Profile::Ns3Mmptcp);
    // mp-tcp-socket-base.cc InitiateSingleSubflows sends the MP_JOIN SYN once, with no timer;
    // round robin waits on the subflow in SYN_SENT for ever, so the flow never completes (and
    // the ns-3 FatTree driver writes no result line for it).
    let open = assert_stalls_on_the_lost_join(&r);
    // Idle, not losing: everything sent before the stall was acknowledged.
    assert_eq!(open.bytes_sent, open.bytes_acked);
    // The other joins did establish: the stall is the scheduler's, not the path's.
    for j in [0, 2, 3] {
        assert_eq!(events(&r.trace, j, TraceKind::Established).len(), 1);
    }
}

/// A k = 4 FatTree (1 Gb/s, 10 us cables, 100-packet drop-tail queues) in `w`; every host's
/// uplink queue drops the SYNs whose arrival numbers (counted per queue) are in
/// `drop_syn_arrivals`, logging into one shared log.
fn fattree(
    w: &mut World,
    drop_syn_arrivals: Vec<u64>,
) -> (htsim_topology::topology::Topology, Arc<Mutex<QueueLog>>) {
    use htsim_topology::cabling::{Cabling, QueueSite};
    use htsim_topology::fattree::FatTree;
    let log = Arc::new(Mutex::new(QueueLog::default()));
    let shared = log.clone();
    let mut factory = move |site: QueueSite<'_>| {
        if site.layer != "host" {
            return droptail(100);
        }
        let (mut d, _) = TestQueue::new(Vec::new());
        d.drop_syn_arrivals = drop_syn_arrivals.clone();
        d.log = shared.clone();
        Queue::new(BufferSize::Packets(100), Discipline::Custom(Box::new(d)))
    };
    let cabling = Cabling::uniform(htsim_core::Rate::gbps(1), SimTime::from_us(10));
    let topo = FatTree {
        k: 4,
        oversubscription: 1,
    }
    .build(w, &cabling, &mut factory)
    .expect("fattree");
    (topo, log)
}

/// One `size`-byte MPTCP flow from host 0 to host 8 (another pod: 4 paths) of `t` on
/// [`fattree`], traced; runs until nothing is left to happen.
fn fattree_flow(
    t: &dyn Transport,
    size: u64,
    drop_syn_arrivals: Vec<u64>,
) -> (World, htsim_topology::topology::Topology, LostJoin, u64) {
    let mut w = World::new(3);
    let (topo, log) = fattree(&mut w, drop_syn_arrivals);
    let report = sink();
    let trace = TraceLog::new(100_000);
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(8),
        Some(size),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.report = Some(report.clone());
    spec.trace = Some(trace.clone());
    spec.reach = Some(htsim_transport::Reach {
        locality: htsim_transport::Locality::OtherPod,
        paths: topo.path_count(HostId(0), HostId(8)),
    });
    t.open(&mut w, spec).expect("open");
    w.run();
    let dropped = log.lock().unwrap().syns_dropped;
    let completed = check_end(&w, &report).pop();
    let open = w.open_flow_records().pop();
    let seen = LostJoin {
        completed,
        open,
        trace: trace.events(),
    };
    (w, topo, seen, dropped)
}

/// The links of the route of each subflow's first SYN (its `path` trace event; pinned
/// subflows send SYN and data on their pinned route), by subflow.
fn subflow_links(w: &World, trace: &[TraceEvent]) -> Vec<(u16, Vec<LinkId>)> {
    trace
        .iter()
        .filter(|e| e.kind == TraceKind::Path)
        .map(|e| {
            let route = htsim_core::ids::RouteId(e.value as u32);
            (e.subflow, w.routes().links(route).to_vec())
        })
        .collect()
}

/// The links of path `index` from host 0 to host 8 in `topo`.
fn path_links(topo: &htsim_topology::topology::Topology, index: u32) -> Vec<LinkId> {
    let mut out = Vec::new();
    topo.path(HostId(0), HostId(8), index, &mut out);
    out
}

#[test]
fn pinned_subflows_take_their_listed_paths_of_a_fattree() {
    // MPTCP: 3 subflows on [2, 0]: subflow 2 wraps round to path 2.
    let mut t = mptcp(CcKind::Lia, 3);
    t.mptcp.paths = htsim_transport::mptcp::SubflowPaths::Pinned(vec![2, 0].into());
    let (w, topo, r, _) = fattree_flow(&t, 2_000_000, Vec::new());
    assert!(r.completed.is_some());
    let taken = subflow_links(&w, &r.trace);
    let want: Vec<(u16, Vec<LinkId>)> = [(0, 2), (1, 0), (2, 2)]
        .into_iter()
        .map(|(j, p)| (j, path_links(&topo, p)))
        .collect();
    assert_eq!(taken, want);
    assert_ne!(path_links(&topo, 2), path_links(&topo, 0));
    // MMPTCP: subflow 0 sprays; the subflows opened at the switch take the list from its start.
    let mut m = htsim_transport::MmptcpTransport::new(Profile::Rfc);
    m.mptcp.max_subflows = 2;
    m.mptcp.paths = htsim_transport::mptcp::SubflowPaths::Pinned(vec![3, 1].into());
    let (w, topo, r, _) = fattree_flow(&m, 2_000_000, Vec::new());
    assert!(r.completed.is_some());
    let taken = subflow_links(&w, &r.trace);
    assert_eq!(taken.len(), 3, "subflow 0 and the two opened at the switch");
    assert_eq!(taken[1], (1, path_links(&topo, 3)));
    assert_eq!(taken[2], (2, path_links(&topo, 1)));
}

#[test]
fn a_pinned_path_the_pair_lacks_is_refused_at_open() {
    let mut w = World::new(1);
    let (topo, _) = fattree(&mut w, Vec::new());
    // Hosts 0 and 1 share a ToR: one path.
    assert_eq!(topo.path_count(HostId(0), HostId(1)), 1);
    let mut t = mptcp(CcKind::Lia, 2);
    t.mptcp.paths = htsim_transport::mptcp::SubflowPaths::Pinned(vec![0, 1].into());
    let spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(1),
        Some(1000),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    let err = t.open(&mut w, spec).err();
    assert_eq!(
        err,
        Some(htsim_transport::TransportError::PinnedPathOutOfRange { index: 1, paths: 1 })
    );
    assert_eq!(
        err.map(|e| e.to_string()).unwrap_or_default(),
        "pinned path 1 does not exist: the pair has 1 equal-cost path (indices 0 to 0)"
    );
    // Nothing was installed: the world runs empty.
    w.run();
    assert!(w.records().is_empty() && w.open_flow_records().is_empty());
    // check_reaches says the same before any run, and stops at the first pair refused.
    let reach = |paths| htsim_transport::Reach {
        locality: htsim_transport::Locality::SameTor,
        paths,
    };
    let mut reaches = [reach(4), reach(1), reach(2)].into_iter();
    let e = t.check_reaches(&mut reaches).expect_err("refused");
    assert_eq!(e.key, "paths");
    assert_eq!(reaches.next(), Some(reach(2)));
    // With cap_subflows a 1-path pair opens one subflow, on path 0: accepted.
    t.mptcp.cap_subflows = true;
    assert_eq!(t.check_reaches(&mut [reach(1)].into_iter()), Ok(()));
    // Without pinned paths nothing is taken from the reaches.
    let plain = mptcp(CcKind::Lia, 2);
    let mut untouched = [reach(1)].into_iter();
    assert_eq!(plain.check_reaches(&mut untouched), Ok(()));
    assert_eq!(untouched.len(), 1);
}

#[test]
fn on_a_fattree_rfc_keeps_sending_on_its_established_subflows_while_a_join_syn_is_lost() {
    // 4 subflows pinned on the 4 paths from host 0 to host 8; host 0's uplink drops the 2nd
    // SYN it sees: the MP_JOIN SYN of subflow 1.
    let pinned = |profile| {
        let mut t = MptcpTransport::new(profile);
        t.mptcp.max_subflows = 4;
        t.mptcp.paths = htsim_transport::mptcp::SubflowPaths::Pinned(vec![0, 1, 2, 3].into());
        t
    };
    let (_, _, r, dropped) = fattree_flow(&pinned(Profile::Rfc), 1_000_000, vec![2]);
    assert_eq!(dropped, 1, "one join SYN dropped");
    assert_sends_past_the_lost_join(&r);
    let syns = events(&r.trace, 1, TraceKind::Syn);
    assert!(syns.len() >= 2 && syns[1].at >= SimTime::from_secs(1));
    // ns3-mmptcp stalls on the lost join for good, as the ns-3 code does.
    let (_, _, r, dropped) = fattree_flow(&pinned(Profile::Ns3Mmptcp), 1_000_000, vec![2]);
    assert_eq!(dropped, 1);
    assert_stalls_on_the_lost_join(&r);
}
