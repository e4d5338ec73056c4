//! TCP NewReno and DCTCP on small hand-built networks (issue 3): throughput, fairness, loss
//! recovery, DCTCP queue control, slow-start timing, delivery and counter invariants, and the
//! ns3-mmptcp profile. Run in release: several tests simulate seconds of 1 Gb/s traffic.

mod common;

use common::*;
use htsim_core::ids::HostId;
use htsim_core::queue::{Discipline, Queue};
use htsim_core::units::BufferSize;
use htsim_core::world::World;
use htsim_core::{Rate, SimTime};
use htsim_transport::config::{DelayedAck, TcpConfig};
use htsim_transport::tcp::{ConnectionReport, ReportSink};
use htsim_transport::trace::{TraceEvent, TraceKind, TraceLog};
use htsim_transport::{ConnectionSpec, DctcpTransport, Profile, TcpTransport, Transport};

fn tcp() -> TcpTransport {
    TcpTransport::new(Profile::Rfc)
}

/// Runs `flows` long flows for `secs` and returns each flow's goodput (acked bytes x 8 over the
/// time since its handshake) in b/s, then stops them and checks the end-of-run invariants.
fn long_flows(t: &dyn Transport, flows: u32, secs: u64, buffer: u64) -> Vec<f64> {
    let mut w = World::new(11);
    let net = Net::gig(flows);
    dumbbell(&mut w, net, droptail(buffer));
    let report = sink();
    let end = SimTime::from_secs(secs);
    for i in 0..flows {
        let start = SimTime::from_us(37 * i as u64);
        open(&mut w, t, &net, i, None, start, Some(end), &report);
    }
    w.run_until(end);
    let mut open_records = w.open_flow_records();
    open_records.sort_by_key(|r| r.flow_id);
    assert_eq!(open_records.len(), flows as usize);
    let goodputs = open_records
        .iter()
        .map(|r| {
            let t0 = r.start.expect("established");
            r.bytes_acked as f64 * 8.0 / (end - t0).as_secs_f64()
        })
        .collect();
    w.run(); // drain, FIN, close
    let done = check_end(&w, &report);
    assert_eq!(
        done.len(),
        flows as usize,
        "every long flow completes after its stop"
    );
    let buffered = TcpConfig::rfc().send_buffer_bytes;
    for r in &done {
        // bytes_sent is frozen at the stop (the 9.6 goodput numerator); the send buffer the
        // application had filled (131 072 B) drains before the FIN.
        assert_eq!(r.bytes_acked, r.bytes_sent + buffered, "flow {}", r.flow_id);
        assert!(r.end.is_some_and(|e| e > end));
    }
    goodputs
}

#[test]
fn one_flow_fills_a_gigabit_dumbbell() {
    let g = long_flows(&tcp(), 1, 1, 100);
    println!("goodput {:.4} Gb/s", g[0] / 1e9);
    assert!(g[0] >= 0.95e9, "goodput {} b/s", g[0]);
}

#[test]
fn equal_rtt_flows_share_fairly() {
    for n in [2u32, 4, 8] {
        let g = long_flows(&tcp(), n, 2, 100);
        let j = jain(&g);
        let total: f64 = g.iter().sum();
        println!("{n} flows: Jain {j:.4}, total {:.4} Gb/s", total / 1e9);
        assert!(j >= 0.95, "{n} flows: Jain {j} for {g:?}");
        assert!(total >= 0.93e9, "{n} flows: total goodput {total}");
    }
}

/// One finite flow over the gigabit dumbbell whose bottleneck drops the listed data arrivals;
/// returns the completed record, the sender's counters and the queue log.
fn lossy_flow(
    config: TcpConfig,
    size: u64,
    drops: Vec<u64>,
) -> (
    htsim_core::flow::FlowRecord,
    htsim_transport::subflow::SubflowCounters,
    QueueLog,
) {
    lossy_flow_with(config, size, drops, 0)
}

/// The counters the one sender of `report` reported when it closed.
fn sender_counters(report: &ReportSink) -> htsim_transport::subflow::SubflowCounters {
    let reports = report.lock().unwrap();
    let sender = reports.iter().find_map(|r| match r {
        ConnectionReport::Sender { counters, .. } => Some(*counters),
        _ => None,
    });
    sender.expect("sender report")
}

/// [`lossy_flow`] whose bottleneck also drops the first `drop_retransmits` retransmissions.
fn lossy_flow_with(
    config: TcpConfig,
    size: u64,
    drops: Vec<u64>,
    drop_retransmits: u64,
) -> (
    htsim_core::flow::FlowRecord,
    htsim_transport::subflow::SubflowCounters,
    QueueLog,
) {
    lossy_flow_traced(config, size, drops, drop_retransmits, None)
}

/// [`lossy_flow_with`], its sender's events recorded in `trace`.
fn lossy_flow_traced(
    config: TcpConfig,
    size: u64,
    drops: Vec<u64>,
    drop_retransmits: u64,
    trace: Option<TraceLog>,
) -> (
    htsim_core::flow::FlowRecord,
    htsim_transport::subflow::SubflowCounters,
    QueueLog,
) {
    let mut w = World::new(3);
    let net = Net::gig(1);
    let (q, log) = test_queue_dropping(100, drops, drop_retransmits);
    dumbbell(&mut w, net, q);
    let report = sink();
    let t = TcpTransport { config };
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(net.pairs),
        Some(size),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    spec.trace = trace;
    spec.report = Some(report.clone());
    t.open(&mut w, spec).expect("open");
    w.run();
    let recs = check_end(&w, &report);
    assert_eq!(recs.len(), 1, "the flow completes");
    let counters = sender_counters(&report);
    let log = std::mem::take(&mut *log.lock().unwrap());
    (recs[0].clone(), counters, log)
}

#[test]
fn single_loss_is_repaired_by_fast_retransmit() {
    for config in [TcpConfig::rfc(), TcpConfig::ns3_mmptcp()] {
        let (r, c, log) = lossy_flow(config, 500_000, vec![30]);
        let lost = log.data[29];
        assert!(lost.dropped && !lost.retransmit);
        let rtx: Vec<_> = log.data.iter().filter(|s| s.retransmit).collect();
        assert_eq!(rtx.len(), 1, "exactly one retransmission: {rtx:?}");
        assert_eq!(rtx[0].seq, lost.seq, "of the lost segment");
        assert_eq!((r.fast_retransmits, r.timeouts, r.retransmits), (1, 0, 1));
        assert_eq!(c.full_acks, 1, "one loss: recovery ends with a full ACK");
        assert_eq!(c.partial_acks, 0);
        assert!(c.fr_dupacks > 0);
        // Repaired within a few RTTs, far below any RTO.
        assert!(
            rtx[0].at - lost.at < SimTime::from_ms(2),
            "{:?}",
            rtx[0].at - lost.at
        );
    }
}

#[test]
fn two_losses_in_a_window_are_repaired_by_one_newreno_recovery() {
    for config in [TcpConfig::rfc(), TcpConfig::ns3_mmptcp()] {
        let (r, c, log) = lossy_flow(config, 500_000, vec![30, 33]);
        let lost = [log.data[29].seq, log.data[32].seq];
        let rtx: Vec<u64> = log
            .data
            .iter()
            .filter(|s| s.retransmit)
            .map(|s| s.seq)
            .collect();
        assert_eq!(rtx, lost, "each hole resent once, in order");
        assert_eq!((r.fast_retransmits, r.timeouts, r.retransmits), (1, 0, 2));
        assert_eq!(
            (c.partial_acks, c.full_acks),
            (1, 1),
            "RFC 6582: a partial ACK resends the next hole"
        );
    }
}

#[test]
fn lost_last_packet_is_repaired_by_a_timeout_no_earlier_than_min_rto() {
    // 70 000 B = 50 full segments; the 50th is dropped, so no duplicate ACK can follow.
    for config in [TcpConfig::rfc(), TcpConfig::ns3_mmptcp()] {
        let min_rto = config.min_rto;
        let (r, c, log) = lossy_flow(config, 70_000, vec![50]);
        let lost = log.data[49];
        assert!(lost.dropped);
        let rtx: Vec<_> = log.data.iter().filter(|s| s.retransmit).collect();
        assert_eq!(rtx.len(), 1);
        assert_eq!(rtx[0].seq, lost.seq);
        assert_eq!((r.timeouts, r.fast_retransmits), (1, 0));
        assert_eq!(c.timeouts, 1);
        let wait = rtx[0].at - lost.at;
        println!("RTO repair after {wait}");
        assert!(wait >= min_rto, "retransmitted after {wait}");
        assert!(
            wait < min_rto + SimTime::from_ms(1),
            "retransmitted after {wait}"
        );
        assert!(r.fct().expect("completed") >= min_rto);
    }
}

/// Two long flows through a 1 Gb/s bottleneck with a 100-packet buffer that marks ECN-capable
/// arrivals above K = 20; returns (time-averaged queue in packets, utilisation, max queue).
fn queue_under(t: &dyn Transport) -> (f64, f64, usize) {
    let mut w = World::new(5);
    let net = Net::gig(2);
    let q = Queue::new(
        BufferSize::Packets(100),
        Discipline::Ecn {
            threshold: BufferSize::Packets(20),
        },
    );
    let d = dumbbell(&mut w, net, q);
    let report = sink();
    let end = SimTime::from_secs(1);
    for i in 0..2 {
        open(
            &mut w,
            t,
            &net,
            i,
            None,
            SimTime::from_us(50 * i as u64),
            Some(end),
            &report,
        );
    }
    let warm = SimTime::from_ms(100);
    w.run_until(warm);
    let departed0 = w.link_counters(d.bottleneck).bytes_departed;
    let step = SimTime::from_us(5);
    let (mut sum, mut samples, mut max) = (0u64, 0u64, 0usize);
    let mut t_now = warm;
    while t_now < end {
        t_now += step;
        w.run_until(t_now);
        let len = w.link_occupancy(d.bottleneck).packets;
        sum += len;
        samples += 1;
        max = max.max(len as usize);
    }
    let bytes = w.link_counters(d.bottleneck).bytes_departed - departed0;
    let util = bytes as f64 * 8.0 / (1e9 * (end - warm).as_secs_f64());
    w.run();
    check_end(&w, &report);
    (sum as f64 / samples as f64, util, max)
}

#[test]
fn dctcp_holds_the_queue_near_k_while_tcp_fills_it() {
    let (q, u, max) = queue_under(&DctcpTransport::new(Profile::Rfc));
    println!("DCTCP: mean queue {q:.2} pkts, max {max}, utilisation {u:.4}");
    assert!(q <= 25.0, "DCTCP mean queue {q}");
    assert!(u >= 0.95, "DCTCP utilisation {u}");

    let mut delayed = DctcpTransport::new(Profile::Rfc);
    delayed.config.delayed_ack = Some(DelayedAck {
        segments: 2,
        timeout: SimTime::from_ms(40),
    });
    let (qd, ud, maxd) = queue_under(&delayed);
    println!("DCTCP, delayed ACK m=2: mean queue {qd:.2} pkts, max {maxd}, utilisation {ud:.4}");
    assert!(qd <= 25.0, "DCTCP (delayed ACK) mean queue {qd}");
    assert!(ud >= 0.95, "DCTCP (delayed ACK) utilisation {ud}");

    let (qt, ut, maxt) = queue_under(&tcp());
    println!("TCP: mean queue {qt:.2} pkts, max {maxt}, utilisation {ut:.4}");
    assert!(
        qt >= 60.0,
        "TCP mean queue {qt}: it should keep the buffer nearly full"
    );
    assert_eq!(maxt, 100, "TCP fills the buffer");
    assert!(ut >= 0.95);
}

#[test]
fn short_flow_completes_in_the_slow_start_time() {
    // Idle 10 Gb/s path, 3 hops each way with 20 us each: rounds never overlap.
    let rate = Rate::gbps(10);
    let net = Net {
        pairs: 1,
        access: rate,
        bottleneck: rate,
        access_delay: SimTime::from_us(20),
        bottleneck_delay: SimTime::from_us(20),
    };
    let s = rate.serialisation_time(1462);
    let s_ack = rate.serialisation_time(42);
    let hops = 3;
    let prop = SimTime::from_us(60);
    // The ACK of packet j of a round returns (j - 1) s after that of its first packet, which
    // itself returns one round trip h (s + s_ack) + 2 D after the round started; the data starts
    // s_ack after the SYN-ACK, behind the handshake ACK on the NIC.
    let rtt1 = SimTime::from_ps(hops * (s.as_ps() + s_ack.as_ps())) + prop + prop;
    // 70 000 B = 50 segments. IW 1: rounds 1, 2, 4, 8, 16, then 19. IW 10: 10, 20, then 20.
    for (iw, rounds, last) in [(1u32, 6u64, 19u64), (10, 3, 20)] {
        for profile in [Profile::Rfc, Profile::Ns3Mmptcp] {
            let mut w = World::new(1);
            dumbbell(&mut w, net, droptail(100));
            let report = sink();
            let mut t = TcpTransport::new(profile);
            t.config.initial_cwnd_segments = iw;
            open(
                &mut w,
                &t,
                &net,
                0,
                Some(70_000),
                SimTime::ZERO,
                None,
                &report,
            );
            w.run();
            let r = &check_end(&w, &report)[0];
            let fct = r.fct().expect("completed");
            let predicted =
                s_ack + SimTime::from_ps(rounds * rtt1.as_ps() + (last - 1) * s.as_ps());
            println!("IW {iw} {profile:?}: FCT {fct}, predicted {predicted}");
            assert!(
                fct.as_ps().abs_diff(predicted.as_ps()) <= s.as_ps(),
                "IW {iw}: FCT {fct} vs predicted {predicted}"
            );
            assert_eq!(r.retransmits, 0);
        }
    }
}

#[test]
fn delivered_bytes_equal_sent_bytes_and_counters_add_up() {
    // Many flows of awkward sizes through a 3-packet buffer: drops, fast recoveries and RTOs.
    for config in [TcpConfig::rfc(), TcpConfig::ns3_mmptcp()] {
        let mut w = World::new(9);
        let net = Net::gig(12);
        let (q, log) = test_queue(3, vec![]);
        dumbbell(&mut w, net, q);
        let report = sink();
        let t = TcpTransport { config };
        let sizes = [1u64, 1399, 1400, 1401, 70_000, 99_999, 250_000, 1_000_001];
        for i in 0..net.pairs {
            let size = sizes[i as usize % sizes.len()];
            let start = SimTime::from_us(13 * i as u64);
            open(&mut w, &t, &net, i, Some(size), start, None, &report);
        }
        w.run();
        let recs = check_end(&w, &report);
        assert_eq!(recs.len(), net.pairs as usize, "every flow completes");
        let sent: u64 = recs.iter().map(|r| r.packets_sent).sum();
        let log = log.lock().unwrap();
        assert_eq!(
            sent,
            w.stats().data_packets_delivered + log.data_dropped,
            "every data packet sent was delivered or dropped"
        );
        let rtx: u64 = recs.iter().map(|r| r.retransmits).sum();
        assert!(log.data_dropped > 0, "the test should exercise losses");
        assert!(rtx >= log.data_dropped, "every drop was retransmitted");
        let fr: u64 = recs.iter().map(|r| r.fast_retransmits).sum();
        let to: u64 = recs.iter().map(|r| r.timeouts).sum();
        println!(
            "{:?}: {} drops, {rtx} retransmits, {fr} fast retransmits, {to} timeouts",
            t.config.profile, log.data_dropped
        );
        assert!(fr > 0 && to > 0, "both repair paths are exercised");
    }
}

#[test]
fn ns3_profile_caps_a_flow_at_the_receive_window() {
    // 10 Gb/s, 1 ms base RTT: the BDP (1.25 MB) dwarfs the 65 535 B window.
    let rate = Rate::gbps(10);
    let net = Net {
        pairs: 1,
        access: rate,
        bottleneck: rate,
        access_delay: SimTime::from_us(200),
        bottleneck_delay: SimTime::from_us(100),
    };
    let end = SimTime::from_ms(500);
    let mut rates = Vec::new();
    for profile in [Profile::Ns3Mmptcp, Profile::Rfc] {
        let mut w = World::new(2);
        dumbbell(&mut w, net, droptail(1000));
        let report = sink();
        open(
            &mut w,
            &TcpTransport::new(profile),
            &net,
            0,
            None,
            SimTime::ZERO,
            Some(end),
            &report,
        );
        w.run_until(end);
        let r = w.open_flow_records().pop().expect("open flow");
        let per_rtt = r.bytes_acked as f64 / ((end - r.start.unwrap()).as_secs_f64() / 1e-3);
        println!("{profile:?}: {per_rtt:.0} B per 1 ms RTT");
        rates.push(per_rtt);
        w.run();
        check_end(&w, &report);
    }
    // 46 full segments (64 400 B) fit in 65 535 B; the RTT is 1 ms plus serialisation.
    assert!(rates[0] <= 65_535.0, "ns3-mmptcp: {} B per RTT", rates[0]);
    assert!(
        rates[0] >= 0.93 * 65_535.0,
        "ns3-mmptcp: {} B per RTT",
        rates[0]
    );
    assert!(
        rates[1] > 5.0 * 65_535.0,
        "rfc has no cap: {} B per RTT",
        rates[1]
    );
}

#[test]
fn first_rto_before_any_sample_depends_on_the_profile() {
    for (config, initial) in [
        (TcpConfig::ns3_mmptcp(), SimTime::from_ms(1500)),
        (TcpConfig::rfc(), SimTime::from_secs(1)),
    ] {
        // The first data packet is lost: no RTT sample exists when its RTO fires.
        let (r, _, log) = lossy_flow(config, 20_000, vec![1]);
        assert!(log.data[0].dropped);
        let rtx = log
            .data
            .iter()
            .find(|s| s.retransmit)
            .expect("retransmitted");
        assert_eq!(rtx.seq, log.data[0].seq);
        // The first transmission left the NIC behind the handshake ACK (42 B at 10 Gb/s).
        let behind_ack = Rate::gbps(10).serialisation_time(42);
        assert_eq!(rtx.at - log.data[0].at, initial - behind_ack, "first RTO");
        assert_eq!(r.timeouts, 1);
    }
}

#[test]
fn lost_syn_is_retransmitted_after_the_syn_timeout() {
    for (profile, timeout) in [
        (Profile::Ns3Mmptcp, SimTime::from_secs(3)),
        (Profile::Rfc, SimTime::from_secs(1)),
    ] {
        let mut w = World::new(4);
        let net = Net::gig(1);
        let (mut d, _log) = TestQueue::new(vec![]);
        d.drop_syns = 2;
        let q = Queue::new(BufferSize::Packets(100), Discipline::Custom(Box::new(d)));
        dumbbell(&mut w, net, q);
        let report = sink();
        open(
            &mut w,
            &TcpTransport::new(profile),
            &net,
            0,
            Some(10_000),
            SimTime::ZERO,
            None,
            &report,
        );
        w.run();
        let r = &check_end(&w, &report)[0];
        // Two SYNs lost: the third leaves at timeout x (1 + 2); FCT starts at the SYN-ACK.
        let start = r.start.unwrap() - r.arrival;
        let three = SimTime::from_ps(3 * timeout.as_ps());
        assert!(
            start > three && start < three + SimTime::from_ms(1),
            "{start}"
        );
        assert_eq!(r.timeouts, 0, "SYN timeouts are not data timeouts");
    }
}

#[test]
fn syn_exhaustion_fails_the_flow_without_a_record() {
    // ns-3: SYNs at 0, 3, 9, 21, 45 and 93 s; the connection fails at the 6th expiry, 189 s.
    let mut w = World::new(4);
    let net = Net::gig(1);
    let (mut d, log) = TestQueue::new(vec![]);
    d.drop_syns = u64::MAX;
    let q = Queue::new(BufferSize::Packets(100), Discipline::Custom(Box::new(d)));
    dumbbell(&mut w, net, q);
    let report = sink();
    let t = TcpTransport::new(Profile::Ns3Mmptcp);
    open(
        &mut w,
        &t,
        &net,
        0,
        Some(10_000),
        SimTime::ZERO,
        None,
        &report,
    );
    w.run_until(SimTime::from_secs(189) - SimTime::from_us(1));
    assert_eq!(
        w.open_flow_records().len(),
        1,
        "still trying just before 189 s"
    );
    w.run();
    assert_eq!(log.lock().unwrap().syns_dropped, 6);
    assert!(w.records().is_empty(), "a failed flow has no record");
    assert!(w.open_flow_records().is_empty(), "both endpoints closed");
    assert!(w.now() >= SimTime::from_secs(189) && w.now() < SimTime::from_secs(190));
    let reports = report.lock().unwrap();
    assert_eq!(
        reports.len(),
        2,
        "the RST closed the listening receiver too"
    );
    assert!(w.conservation().holds());
}

#[test]
fn fast_recovery_inflation_follows_the_profile() {
    // dupthresh 5: ns-3 inflates by 3 MSS whatever the dupthresh, rfc by dupthresh x MSS.
    for (mut config, inflation) in [(TcpConfig::ns3_mmptcp(), 3u64), (TcpConfig::rfc(), 5)] {
        config.dupthresh = 5;
        let mut w = World::new(3);
        let net = Net::gig(1);
        let (q, _log) = test_queue(100, vec![40]);
        dumbbell(&mut w, net, q);
        let report = sink();
        let t = TcpTransport { config };
        let conn = open(
            &mut w,
            &t,
            &net,
            0,
            Some(300_000),
            SimTime::ZERO,
            None,
            &report,
        );
        let mut seen = false;
        while w.step() {
            let e: &dyn std::any::Any = match w.endpoint(conn.sender) {
                Some(e) => e,
                None => break,
            };
            let sf = e
                .downcast_ref::<htsim_transport::tcp::TcpSender>()
                .expect("a TcpSender")
                .subflow();
            if sf.in_fast_recovery() {
                let half = ((sf.snd_max() - sf.snd_una()) / 2).max(2 * 1400);
                assert_eq!(sf.ssthresh(), half, "ssthresh = max(2 MSS, flight / 2)");
                assert_eq!(sf.cwnd(), half + inflation * 1400);
                assert_eq!(sf.counters().fast_retransmits, 1);
                seen = true;
                break;
            }
        }
        assert!(seen, "fast recovery was entered");
        w.run();
        let r = &check_end(&w, &report)[0];
        assert_eq!((r.fast_retransmits, r.timeouts), (1, 0));
    }
}

/// RFC 6582 3.2 steps 2 and 4 (docs/model.md 2.8, `TcpConfig::careful_recovery`): after an
/// RTO, duplicate ACKs drawn by go-back-N resends of data the receiver already holds must not
/// start a fast retransmit. Holes every fourth segment (data arrivals 30, 34, ..., 50) start a
/// fast recovery whose retransmission is lost too, so the RTO fires with the receiver holding
/// three segments after each hole; go-back-N resends them, and from the second hole on the
/// window is wide enough that three of them reach the receiver after the ACK jumped, as three
/// duplicate ACKs with `ack <= recover`.
///
/// `rfc`: those duplicate ACKs are passed over (`fr_suppressed`), the only fast retransmit is
/// the first, and go-back-N resends each segment at most once (28 retransmissions). Without
/// the rule (the engine before it, 2 fast retransmits): the spurious recovery takes ssthresh =
/// half the flight and cwnd = ssthresh + 3 MSS, and resends that flight, which the receiver
/// holds, as one burst (182 retransmissions of 178 segments for 6 holes). The
/// `ns3-mmptcp` profile keeps the code's behaviour (2.8: `recover` is not updated on RTO) and
/// does enter the second fast recovery.
#[test]
fn duplicate_acks_of_go_back_n_resends_do_not_start_fast_retransmit() {
    let drops = vec![30, 34, 38, 42, 46, 50];
    let resends = |log: &QueueLog| {
        let mut per_seq = std::collections::BTreeMap::<u64, u32>::new();
        for s in log.data.iter().filter(|s| s.retransmit) {
            *per_seq.entry(s.seq).or_default() += 1;
        }
        per_seq
    };
    let (r, c, log) = lossy_flow_with(TcpConfig::rfc(), 500_000, drops.clone(), 1);
    let per_seq = resends(&log);
    let most = per_seq.values().copied().max().unwrap_or(0);
    println!(
        "rfc: {} fast retransmits, {} suppressed, {} timeouts, {} retransmissions of {} segments, \
         at most {most} each",
        r.fast_retransmits,
        c.fr_suppressed,
        r.timeouts,
        r.retransmits,
        per_seq.len()
    );
    assert_eq!((r.fast_retransmits, r.timeouts), (1, 1));
    assert!(c.fr_suppressed >= 1, "go-back-N drew duplicate ACKs: {c:?}");
    // The hole of the fast retransmit is sent three times (original, lost retransmission, RTO);
    // every other segment at most twice (original and one go-back-N resend).
    let first_hole = log.data[29].seq;
    assert_eq!(per_seq[&first_hole], 2);
    for (&seq, &n) in &per_seq {
        assert!(
            seq == first_hole || n == 1,
            "segment {seq} resent {n} times"
        );
    }
    assert!(r.retransmits <= 30, "{} retransmissions", r.retransmits);

    let (r, c, _) = lossy_flow_with(TcpConfig::ns3_mmptcp(), 500_000, drops, 1);
    println!(
        "ns3-mmptcp: {} fast retransmits, {} timeouts, {} retransmissions",
        r.fast_retransmits, r.timeouts, r.retransmits
    );
    assert_eq!(c.fr_suppressed, 0);
    assert!(r.fast_retransmits >= 2, "faithful: {r:?}");
}

/// `TcpConfig::rto_keeps_dupacks` (docs/model.md 2.10): the ns-3 model resets its duplicate-ACK
/// count only on a new ACK. One loss whose fast retransmission is lost too: the fast recovery's
/// inflated window keeps new data, and so duplicate ACKs, flowing until the RTO (no receive
/// window here, which would stop them), and the segments sent before the RTO go on drawing
/// duplicate ACKs for a round trip after it. With the count kept (`ns3-mmptcp`) it is past
/// dupthresh then, and they start nothing; cleared, their third starts a second, spurious fast
/// recovery (recover is not updated on RTO in `ns3-mmptcp`), whose retransmission of the hole
/// goes out ahead of the go-back-N resends.
#[test]
fn an_rto_keeps_the_duplicate_ack_count_under_ns3_mmptcp() {
    // The fast retransmits between the RTO and the next new ACK (snd_una unchanged).
    let run = |keep: bool| {
        let config = TcpConfig {
            rwnd_cap: None,
            rto_keeps_dupacks: keep,
            ..TcpConfig::ns3_mmptcp()
        };
        let trace = TraceLog::new(1_000_000);
        let (r, _, _) = lossy_flow_traced(config, 40_000_000, vec![30], 1, Some(trace.clone()));
        let events = trace.events();
        let rto = events
            .iter()
            .find(|e| e.kind == TraceKind::Rto)
            .expect("an RTO");
        let before_new_ack = events
            .iter()
            .filter(|e| e.at >= rto.at && e.state.snd_una == rto.state.snd_una)
            .filter(|e| e.kind == TraceKind::FastRetransmit)
            .count();
        println!(
            "rto_keeps_dupacks = {keep}: RTO at {}, {before_new_ack} fast retransmits before \
             the next new ACK; {} fast retransmits, {} timeouts, {} retransmissions in all",
            rto.at, r.fast_retransmits, r.timeouts, r.retransmits
        );
        before_new_ack
    };
    assert!(TcpConfig::ns3_mmptcp().rto_keeps_dupacks && !TcpConfig::rfc().rto_keeps_dupacks);
    assert_eq!(run(true), 0);
    assert_eq!(run(false), 1);
}

/// Every resend (fast, partial-ACK, go-back-N after an RTO) carries the bytes of the segment's
/// first transmission, the runt tail segment included: the retransmission queue derives a
/// segment's length from where the next one starts (or `snd_max`), so this checks that
/// derivation against the lengths the first transmissions had.
#[test]
fn resends_carry_the_lengths_of_the_first_transmissions() {
    // 500 300 B: full segments and a runt tail, with the losses of the test above (a lost
    // retransmission: an RTO and go-back-N resends).
    let size = 500_300;
    let (r, _, log) = lossy_flow_with(TcpConfig::rfc(), size, vec![30, 34, 38, 42, 46, 50], 1);
    let mut first = std::collections::BTreeMap::<u64, u32>::new();
    for s in log.data.iter().filter(|s| !s.retransmit) {
        assert!(
            first.insert(s.seq, s.payload).is_none(),
            "new data at {} sent once",
            s.seq
        );
    }
    // The first transmissions tile the flow: each starts where the previous ended.
    let mut next = 1;
    for (&seq, &len) in &first {
        assert_eq!(seq, next, "contiguous");
        assert!(len > 0);
        next += u64::from(len);
    }
    assert_eq!(next, size + 1, "the whole flow");
    let mss = first[&1];
    let tail = *first.values().last().unwrap();
    assert_eq!(u64::from(tail), size % u64::from(mss), "a runt tail");
    let resent: Vec<_> = log.data.iter().filter(|s| s.retransmit).collect();
    assert!(r.timeouts >= 1 && resent.len() >= 6, "{r:?}");
    for s in resent {
        assert_eq!(s.payload, first[&s.seq], "resend of {}", s.seq);
    }
}

/// A lost runt tail is resent with its own length after the RTO.
#[test]
fn a_lost_runt_tail_is_resent_whole() {
    // 70 500 B = 50 full segments and a 500 B tail (the 51st data arrival), dropped.
    let (r, _, log) = lossy_flow(TcpConfig::rfc(), 70_500, vec![51]);
    let lost = log.data[50];
    assert!(lost.dropped && !lost.retransmit);
    assert_eq!((lost.seq, lost.payload), (70_001, 500), "{lost:?}");
    let rtx: Vec<_> = log.data.iter().filter(|s| s.retransmit).collect();
    assert_eq!(r.timeouts, 1);
    assert_eq!(rtx.len(), 1);
    assert_eq!((rtx[0].seq, rtx[0].payload), (70_001, 500));
}

/// The longest run of data arrivals at the bottleneck spaced by at most 1.5 us, i.e. sent back
/// to back on the 10 Gb/s access link (a 1462 B packet takes 1.17 us there, 11.7 us on the
/// 1 Gb/s bottleneck that clocks the ACKs).
fn longest_back_to_back_run(log: &QueueLog) -> usize {
    let (mut best, mut run) = (1, 1);
    for pair in log.data.windows(2) {
        run = if pair[1].at - pair[0].at <= SimTime::from_ns(1500) {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}

/// RFC 6582 3.2 step 3 option (1) (`FullAckWindow::Outstanding`, the `rfc` profile): the full
/// ACK that ends fast recovery sets cwnd = min(ssthresh, max(FlightSize, MSS) + MSS) with
/// FlightSize the data still outstanding, so the sender holds at most a few segments of window
/// beyond its flight (one, plus that ACK's increase), and no burst follows. Ten consecutive losses (arrivals 100-109) make a
/// NewReno recovery that repairs one hole per RTT while new data flows; a loss in that new
/// data (arrival 160) starts a second recovery whose flight the receiver already holds, so its
/// full ACK acknowledges everything. The `ns3-mmptcp` rule (2.8, min(ssthresh, flight before
/// the ACK + MSS), about ssthresh) then leaves a window of about ssthresh with nothing in
/// flight, and it leaves back to back at the access rate (82 in a row here); with the RFC rule the
/// longest back-to-back run is what one ACK releases in slow start (ABC with L = 2: the
/// acknowledged segment plus two) plus at most the retransmission of a partial ACK: 4.
#[test]
fn a_full_ack_does_not_release_a_burst_beyond_the_data_in_flight() {
    let mut drops: Vec<u64> = (100..110).collect();
    drops.push(160);
    let (r, c, log) = lossy_flow(TcpConfig::rfc(), 1_000_000, drops.clone());
    let run = longest_back_to_back_run(&log);
    println!(
        "rfc: {} fast retransmits, {} partial ACKs, {} timeouts, longest back-to-back run {run}, \
         FCT {}",
        r.fast_retransmits,
        c.partial_acks,
        r.timeouts,
        r.fct().expect("completed")
    );
    assert_eq!((r.fast_retransmits, r.timeouts), (2, 0), "two recoveries");
    assert!(c.partial_acks >= 9, "one hole per RTT: {c:?}");
    assert!(run <= 4, "a burst of {run} back-to-back packets");

    let mut pre_ack = TcpConfig::rfc();
    pre_ack.full_ack_window = htsim_transport::config::FullAckWindow::PreAckFlight;
    let (r, _, log) = lossy_flow(pre_ack, 1_000_000, drops);
    let run = longest_back_to_back_run(&log);
    println!(
        "pre-ACK flight rule: {} fast retransmits, longest back-to-back run {run}",
        r.fast_retransmits
    );
    assert!(run >= 30, "the ns-3 rule bursts: {run}");
}

/// One finite ECN-capable flow (RFC 3168, docs/model.md 2.14) of 300 segments over the gigabit
/// dumbbell whose bottleneck drops the data arrivals `drops` and marks `marks` CE (n-th data
/// arrivals, 1-based); returns the sender's counters and how many times its ssthresh fell.
fn ecn_flow(
    drops: Vec<u64>,
    marks: Vec<u64>,
) -> (htsim_transport::subflow::SubflowCounters, usize) {
    let (counters, events) = ecn_flow_traced(drops, marks);
    let ssthresh: Vec<u64> = events.iter().map(|e| e.state.ssthresh).collect();
    let cuts = ssthresh.windows(2).filter(|p| p[1] < p[0]).count();
    (counters, cuts)
}

/// [`ecn_flow`], returning the sender's trace events instead of the count of cuts.
fn ecn_flow_traced(
    drops: Vec<u64>,
    marks: Vec<u64>,
) -> (htsim_transport::subflow::SubflowCounters, Vec<TraceEvent>) {
    let mut w = World::new(3);
    let net = Net::gig(1);
    let (mut d, _log) = TestQueue::new(drops);
    d.mark_data = marks;
    let q = Queue::new(BufferSize::Packets(100), Discipline::Custom(Box::new(d)));
    dumbbell(&mut w, net, q);
    let report = sink();
    let t = tcp().with_ecn();
    let mut spec = ConnectionSpec::new(
        0,
        HostId(0),
        HostId(1),
        Some(300 * u64::from(t.config.mss)),
        SimTime::ZERO,
        w.streams().substream("conn", 0),
    );
    let log = TraceLog::new(100_000);
    spec.trace = Some(log.clone());
    spec.report = Some(report.clone());
    t.open(&mut w, spec).expect("open");
    w.run();
    assert_eq!(check_end(&w, &report).len(), 1, "the flow completes");
    (sender_counters(&report), log.events())
}

/// RFC 3168 6.1.2: an echo halves the window at most once per window of data, and a loss in
/// the same window is the same congestion (one reduction, whichever comes first). Marks on
/// ten consecutive data arrivals are one reduction; a mark some 200 segments later (windows
/// later) is another. With data arrival 40 lost: marks from arrival 41 on echo on the first
/// duplicate ACK, before the fast retransmit, which then keeps the reduced ssthresh; marks
/// from arrival 44 on echo only once the recovery has begun, are ignored in it, and the
/// sender's CWR ends the echo before the recovery ends. A mark on arrival 30 and the loss of
/// arrival 45: the fast retransmit keeps the ssthresh of the ECN reduction.
#[test]
fn ecn_echoes_reduce_once_per_window_and_a_loss_is_the_same_congestion() {
    let (c, cuts) = ecn_flow(vec![], (41..=50).collect());
    assert_eq!((c.ecn_reductions, c.fast_retransmits, cuts), (1, 0, 1));
    let (c, cuts) = ecn_flow(vec![], vec![41, 260]);
    assert_eq!((c.ecn_reductions, c.fast_retransmits, cuts), (2, 0, 2));
    let (c, cuts) = ecn_flow(vec![40], (41..=50).collect());
    assert_eq!((c.ecn_reductions, c.fast_retransmits, cuts), (1, 1, 1));
    let (c, cuts) = ecn_flow(vec![40], (44..=50).collect());
    assert_eq!((c.ecn_reductions, c.fast_retransmits, cuts), (0, 1, 1));
    // A mark, then the loss of a segment sent before the reduction: the flight has shrunk by
    // the time the loss is found, and half of it would be a second, deeper cut.
    let (c, cuts) = ecn_flow(vec![45], vec![30]);
    assert_eq!((c.ecn_reductions, c.fast_retransmits, cuts), (1, 1, 1));
    // A mark after the last new segment, then a lost tail: the timeout's go-back-N resends
    // old data only, so no CWR ends the echo before it is done; it still slow-starts (the
    // echo is ignored in loss recovery) instead of resending one segment per round trip.
    let (c, events) = ecn_flow_traced((285..=300).collect(), vec![270]);
    assert_eq!((c.ecn_reductions, c.timeouts), (1, 1));
    let rto = events
        .iter()
        .position(|e| e.kind == TraceKind::Rto)
        .unwrap();
    let mss = u64::from(tcp().config.mss);
    // (The timeout's own event shows the window before it.)
    let grown = events[rto + 1..]
        .iter()
        .map(|e| e.state.cwnd)
        .max()
        .unwrap();
    assert!(grown >= 4 * mss, "cwnd after the timeout: {grown} B");
    // Plain TCP sends nothing ECN-capable, so nothing is marked.
    assert!(!tcp().config.ecn.ect_data && tcp().with_ecn().config.ecn.ect_data);
}

#[test]
fn with_delayed_acks_a_partial_ack_is_not_held_by_the_timer() {
    // 70 000 B = 50 segments; the 46th and 47th are lost, so the last three bring the three
    // duplicate ACKs and nothing new is left to send. The fast retransmission of segment 46
    // fills half the hole: the receiver must ACK it at once (RFC 5681 4.2), or the partial
    // ACK that releases segment 47 waits for the 40 ms delayed-ACK timer. (The lossless flow
    // waits for the timer once too: its first segment travels alone.)
    for profile in [Profile::Rfc, Profile::Ns3Mmptcp] {
        let config = TcpConfig {
            delayed_ack: Some(DelayedAck {
                segments: 2,
                timeout: SimTime::from_ms(40),
            }),
            ..TcpConfig::for_profile(profile)
        };
        let (clean, _, _) = lossy_flow(config.clone(), 70_000, vec![]);
        let (r, c, _) = lossy_flow(config, 70_000, vec![46, 47]);
        let (fct0, fct) = (clean.fct().expect("completed"), r.fct().expect("completed"));
        println!("{profile:?}: FCT {fct0} without loss, {fct} with two");
        assert_eq!((r.fast_retransmits, r.timeouts, r.retransmits), (1, 0, 2));
        assert_eq!((c.partial_acks, c.full_acks), (1, 1));
        assert!(fct < fct0 + SimTime::from_ms(1), "FCT {fct} against {fct0}");
    }
}

#[test]
fn a_fin_ahead_of_a_hole_is_acked_under_rfc_only() {
    // 70 000 B = 50 segments; the 48th is lost, so two segments and the FIN follow it. The
    // ns-3 receiver (2.11: a FIN is answered when in sequence) ignores the early FIN: two
    // duplicate ACKs, so the hole waits for the RTO. Under rfc the FIN is an out-of-order
    // segment and earns a duplicate ACK at once (RFC 5681 4.2): the third, fast retransmit.
    for (config, fast, timeouts) in [(TcpConfig::rfc(), 1, 0), (TcpConfig::ns3_mmptcp(), 0, 1)] {
        let min_rto = config.min_rto;
        let (r, _, _) = lossy_flow(config, 70_000, vec![48]);
        let fct = r.fct().expect("completed");
        println!(
            "FCT {fct}: {} fast retransmits, {} timeouts",
            r.fast_retransmits, r.timeouts
        );
        assert_eq!((r.fast_retransmits, r.timeouts), (fast, timeouts));
        assert_eq!(fct >= min_rto, timeouts == 1, "FCT {fct}");
    }
}

#[test]
fn new_data_at_fast_retransmit_follows_the_profile() {
    // 10 segments; the 4th is lost when four are in flight, so the three duplicate ACKs start
    // fast recovery with ssthresh = 2 MSS and cwnd = 2 + 3 (or 2 + dupthresh) = 5 MSS: room
    // for one new segment. Under rfc it goes with the fast retransmission (RFC 5681 3.2: send
    // when cwnd allows). The ns-3 model sends only on a duplicate ACK *in* fast recovery and
    // on new ACKs (2.4, 2.8): none is left to come, so the new segment waits for the full ACK.
    for (config, at_once) in [(TcpConfig::rfc(), true), (TcpConfig::ns3_mmptcp(), false)] {
        let (r, c, log) = lossy_flow(config, 14_000, vec![4]);
        assert_eq!((r.fast_retransmits, r.timeouts, c.fr_dupacks), (1, 0, 0));
        let i = log
            .data
            .iter()
            .position(|s| s.retransmit)
            .expect("a retransmission");
        let (rtx, next) = (log.data[i], log.data[i + 1]);
        assert!(!next.retransmit && next.seq > rtx.seq);
        let gap = next.at - rtx.at;
        println!(
            "new segment {gap} after the fast retransmission, FCT {:?}",
            r.fct()
        );
        // Back to back: 1.17 us apart (1462 B at the 10 Gb/s NIC); the round trip is above 100 us.
        assert_eq!(gap < SimTime::from_us(20), at_once, "gap {gap}");
    }
}

#[test]
fn limited_transmit_stops_once_every_byte_is_sent() {
    // Spec 6.6: a duplicate ACK below dupthresh sends one segment only while application data
    // is unsent (in go-back-N, the next stored segment instead). 10 segments, dupthresh 19:
    // segments 3 and 5 are lost, and 5 again when the RTO resends it (the 12th data arrival).
    // Before the RTO, limited transmit sends the last 5 segments. After it, the resends of 6
    // and on bring duplicate ACKs, and nothing is unsent: no more limited transmit, so the
    // go-back-N resends stay within cwnd until the next RTO.
    let config = TcpConfig {
        limited_transmit: htsim_transport::config::LimitedTransmit::Mmptcp,
        dupthresh: 19,
        ..TcpConfig::ns3_mmptcp()
    };
    let (r, c, _) = lossy_flow(config, 14_000, vec![3, 5, 12]);
    println!("{c:?}");
    assert_eq!((r.fast_retransmits, r.timeouts), (0, 2));
    assert_eq!(c.limited_transmit_bytes, 5 * 1400);
    assert_eq!(
        c.limited_transmits, 5,
        "every limited transmit carried new data"
    );
}

// ----- RFC audit of the `rfc` profile (docs/model.md 2, 12) -----------------------------------

/// Runs one finite flow of `t` over the gigabit dumbbell whose bottleneck is `queue` (a
/// [`TestQueue`]), calling `watch` with the sender's subflow and the time after every event
/// while the sender exists; returns the completed record. `size` `None`: a long flow whose
/// application stops at `stop`.
fn watched_flow(
    t: &TcpTransport,
    size: Option<u64>,
    stop: Option<SimTime>,
    queue: TestQueue,
    mut watch: impl FnMut(&htsim_transport::subflow::Subflow, SimTime),
) -> htsim_core::flow::FlowRecord {
    let mut w = World::new(3);
    let net = Net::gig(1);
    let q = Queue::new(
        BufferSize::Packets(100),
        Discipline::Custom(Box::new(queue)),
    );
    dumbbell(&mut w, net, q);
    let report = sink();
    let conn = open(&mut w, t, &net, 0, size, SimTime::ZERO, stop, &report);
    while w.step() {
        let now = w.now();
        let e: &dyn std::any::Any = match w.endpoint(conn.sender) {
            Some(e) => e,
            None => break,
        };
        let sender = e
            .downcast_ref::<htsim_transport::tcp::TcpSender>()
            .expect("a TcpSender");
        watch(sender.subflow(), now);
    }
    w.run();
    let recs = check_end(&w, &report);
    assert_eq!(recs.len(), 1, "the flow completes");
    recs[0].clone()
}

/// RFC 6298 5.4-5.6 and RFC 5681 3.1 (eq. 4 and the loss window): the last segment and its
/// first retransmission are lost, so the RTO fires twice for the same segment. The first
/// expiry waits the RTO (200 ms: the 100 us RTT is far below `min_rto`), the second twice
/// that (the backed-off timer is started with the doubled value), the data's retransmission
/// goes out at each expiry, cwnd is one MSS after each, and ssthresh is max(FlightSize / 2,
/// 2 MSS) = 2 MSS at both (one segment in flight: the floor; eq. 4's "held constant" at a
/// repeated expiry is not told apart here).
#[test]
fn repeated_rtos_double_the_timer_and_floor_ssthresh() {
    let (mut q, log) = TestQueue::new(vec![50]);
    q.drop_retransmits = 1;
    let mut at_rto = Vec::new();
    let r = watched_flow(&tcp(), Some(70_000), None, q, |sf, now| {
        let n = sf.counters().timeouts as usize;
        if n > at_rto.len() {
            at_rto.push((now, sf.cwnd(), sf.ssthresh(), sf.rtt().backoff()));
        }
    });
    let log = std::mem::take(&mut *log.lock().unwrap());
    let lost = log.data[49];
    assert!(lost.dropped && !lost.retransmit);
    let rtx: Vec<_> = log.data.iter().filter(|s| s.retransmit).collect();
    assert_eq!(rtx.len(), 2, "{rtx:?}");
    assert!(rtx[0].dropped && !rtx[1].dropped);
    let min_rto = TcpConfig::rfc().min_rto;
    // The first timer was restarted by the last new ACK, a fraction of a millisecond after the
    // lost segment left; the second starts at the retransmission.
    let near = |got: SimTime, want: SimTime| got >= want && got < want + SimTime::from_ms(1);
    let first = rtx[0].at - lost.at;
    let second = rtx[1].at - rtx[0].at;
    assert!(near(first, min_rto), "first RTO after {first}");
    assert!(
        near(second, SimTime::from_ps(2 * min_rto.as_ps())),
        "second RTO after {second}"
    );
    assert_eq!((r.timeouts, r.retransmits, r.fast_retransmits), (2, 2, 0));
    assert_eq!(at_rto.len(), 2);
    assert_eq!(at_rto[0].1..=at_rto[1].1, 1400..=1400, "loss window: 1 MSS");
    assert_eq!(
        (at_rto[0].2, at_rto[1].2),
        (2800, 2800),
        "ssthresh floor 2 MSS"
    );
    assert_eq!((at_rto[0].3, at_rto[1].3), (2, 4), "backoff x2 per expiry");
}

/// RFC 6298 3 (Karn) and 5 (the backed-off RTO is kept until a valid sample): after an RTO,
/// the ACKs of go-back-N resends cover only retransmitted segments and give no RTT sample, so
/// the backoff stays doubled through the whole resend; the first ACK that covers a segment
/// sent once resets it. Segment 40 and its fast retransmission are lost; the receiver holds
/// the segments after it, so the resends draw cumulative ACKs at once. (A long flow: the
/// inflated window of the failed recovery sends any finite flow's last byte before the RTO.)
#[test]
fn acks_of_resent_segments_give_no_rtt_sample_and_keep_the_backoff() {
    let (mut q, _log) = TestQueue::new(vec![40]);
    q.drop_retransmits = 1;
    let mut rto: Option<(u64, Option<SimTime>)> = None; // (snd_max, last sample) at the RTO
    let mut events_without_sample = 0;
    let mut reset_after = None;
    let stop = Some(SimTime::from_ms(300));
    let r = watched_flow(&tcp(), None, stop, q, |sf, _| {
        if sf.counters().timeouts == 1 && rto.is_none() {
            rto = Some((sf.snd_max(), sf.rtt().last_sample()));
            assert_eq!(sf.rtt().backoff(), 2);
        }
        let Some((snd_max, sample)) = rto else { return };
        if reset_after.is_some() {
            return;
        }
        if sf.rtt().last_sample() != sample {
            reset_after = Some(sf.snd_una());
            assert_eq!(sf.rtt().backoff(), 1, "a valid sample resets the backoff");
        } else if sf.snd_una() <= snd_max {
            assert_eq!(sf.rtt().backoff(), 2, "no sample, backoff kept");
            events_without_sample += 1;
        }
    });
    let (snd_max, _) = rto.expect("an RTO");
    let reset_after = reset_after.expect("a sample after the resends");
    assert!(
        reset_after > snd_max,
        "first sample at snd_una {reset_after}, resends end at {snd_max}"
    );
    assert!(events_without_sample > 10, "{events_without_sample}");
    // Later losses (the 100-packet buffer overflows in slow start) do not matter here.
    assert!(r.timeouts >= 1 && r.fast_retransmits >= 1);
    println!("{events_without_sample} events without a sample; reset at {reset_after} > {snd_max}");
}

// Deviations of the `rfc` profile from the RFCs it cites, pinned as they are so that a change
// is deliberate (docs/model.md 12.1).

/// Deviation, RFC 6298 5.7: "If the timer expires awaiting the ACK of a SYN segment and the
/// TCP implementation is using an RTO less than 3 seconds, the RTO MUST be re-initialized to 3
/// seconds when data transmission begins." Under `rfc` the SYN timeout is 1 s; here the first
/// SYN is lost, and then the first data segment: its RTO fires after the 1 s initial RTO (the
/// estimator is reset at establishment, docs/model.md 2.2), not after 3 s.
#[test]
fn after_a_syn_timeout_the_first_data_rto_stays_at_one_second() {
    let (mut q, log) = TestQueue::new(vec![1]);
    q.drop_syns = 1;
    let r = watched_flow(&tcp(), Some(20_000), None, q, |_, _| {});
    let log = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!(log.syns_dropped, 1);
    assert!(log.data[0].dropped);
    let rtx = log.data.iter().find(|s| s.retransmit).expect("resent");
    assert_eq!(rtx.seq, log.data[0].seq);
    let behind_ack = Rate::gbps(10).serialisation_time(42);
    // RFC 6298 5.7 would give 3 s here.
    assert_eq!(rtx.at - log.data[0].at, SimTime::from_secs(1) - behind_ack);
    assert_eq!(r.timeouts, 1);
}

/// Deviation, RFC 3465 2.3: slow start after a retransmission timeout counts at most L = 1 SMSS
/// per ACK (the receiver may hold out-of-order data, so one ACK can cover many segments); the
/// profile keeps L = 2. Segment 40 and its fast retransmission are lost; at the RTO cwnd = 1
/// MSS, the go-back-N resend of the hole draws an ACK covering the segments the receiver held,
/// and cwnd grows by 2 MSS on it (L = 1: by 1 MSS, to 2 800 B).
#[test]
fn slow_start_after_an_rto_counts_two_segments_per_ack() {
    let (mut q, _log) = TestQueue::new(vec![40]);
    q.drop_retransmits = 1;
    let mut at_rto: Option<(u64, u64)> = None; // (snd_una, cwnd)
    let mut first_ack: Option<(u64, u64)> = None; // (bytes acked, cwnd)
    let stop = Some(SimTime::from_ms(300));
    watched_flow(&tcp(), None, stop, q, |sf, _| {
        if sf.counters().timeouts == 1 && at_rto.is_none() {
            at_rto = Some((sf.snd_una(), sf.cwnd()));
        }
        if let (Some((una, _)), None) = (at_rto, first_ack) {
            if sf.snd_una() > una {
                first_ack = Some((sf.snd_una() - una, sf.cwnd()));
            }
        }
    });
    let (_, cwnd_at_rto) = at_rto.expect("an RTO");
    let (acked, cwnd) = first_ack.expect("an ACK after the RTO");
    println!("first ACK after the RTO: {acked} B, cwnd {cwnd_at_rto} -> {cwnd}");
    assert_eq!(cwnd_at_rto, 1400);
    assert!(acked >= 3 * 1400, "the ACK covers held segments: {acked} B");
    assert_eq!(
        cwnd,
        1400 + 2 * 1400,
        "L = 2 (RFC 3465 2.3: L = 1, 2 800 B)"
    );
}

/// Deviation, RFC 3168 6.1.2: "the sending TCP MUST reset the retransmit timer on receiving
/// the ECN-Echo packet when the congestion window is one", and may send again only when it
/// expires. With `ecn` on, the first data segment (cwnd = 1 MSS) is marked CE; its echo sets
/// ssthresh = cwnd = max(2 MSS, flight / 2) = 2 MSS, the window slow start would have reached
/// anyway, and two segments leave at once, one RTT later, instead of one after the RTO.
#[test]
fn an_echo_at_a_one_segment_window_neither_shrinks_nor_waits() {
    let (mut q, log) = TestQueue::new(vec![]);
    q.mark_data = vec![1];
    let mut at_echo: Option<(u64, u64, u64)> = None; // (cwnd before, cwnd, ssthresh)
    let mut cwnd_before = 0;
    let t = tcp().with_ecn();
    let r = watched_flow(&t, Some(20_000), None, q, |sf, _| {
        if sf.counters().ecn_reductions == 1 && at_echo.is_none() {
            at_echo = Some((cwnd_before, sf.cwnd(), sf.ssthresh()));
        }
        cwnd_before = sf.cwnd();
    });
    let log = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!(
        at_echo,
        Some((1400, 2800, 2800)),
        "cwnd 1 -> 2 MSS on the echo"
    );
    let gap = log.data[1].at - log.data[0].at;
    assert!(
        gap < SimTime::from_ms(1),
        "second segment {gap} after the first"
    );
    let pair = log.data[2].at - log.data[1].at;
    assert!(pair < SimTime::from_us(2), "back to back: {pair}");
    assert_eq!(r.timeouts, 0);
}

/// The window state at each partial and full ACK of one `rfc` flow of `size` bytes whose
/// bottleneck drops the data arrivals `drops`: (cwnd before, bytes acknowledged, cwnd after)
/// per partial ACK, (ssthresh, data outstanding after it and before what it sends, cwnd
/// after) per full ACK.
#[allow(clippy::type_complexity)]
fn recovery_acks(size: u64, drops: Vec<u64>) -> (Vec<(u64, u64, u64)>, Vec<(u64, u64, u64)>) {
    let (q, _log) = TestQueue::new(drops);
    let mut prev = (0u64, 0u64, 0u64, 0u64, 0u64); // (cwnd, snd_una, partial, full, snd_max)
    let (mut partial, mut full) = (Vec::new(), Vec::new());
    watched_flow(&tcp(), Some(size), None, q, |sf, _| {
        let c = sf.counters();
        if c.partial_acks > prev.2 {
            partial.push((prev.0, sf.snd_una() - prev.1, sf.cwnd()));
        }
        if c.full_acks > prev.3 {
            full.push((sf.ssthresh(), prev.4 - sf.snd_una(), sf.cwnd()));
        }
        let (cwnd, una, max) = (sf.cwnd(), sf.snd_una(), sf.snd_max());
        prev = (cwnd, una, c.partial_acks, c.full_acks, max);
    });
    (partial, full)
}

/// RFC 6582 3.2 step 3: a partial ACK deflates cwnd by the bytes it acknowledges and adds one
/// SMSS back (it acknowledges at least one: segments are full-sized), and the full ACK sets
/// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS), FlightSize being what is still
/// outstanding (option 1); the same ACK's window increase follows (docs/model.md 2.8), here
/// congestion avoidance's MSS^2 / cwnd. Two losses in a window (arrivals 30 and 33).
#[test]
fn partial_and_full_acks_set_the_window_of_rfc_6582() {
    let (partial, full) = recovery_acks(500_000, vec![30, 33]);
    println!("partial {partial:?} full {full:?}");
    let mss = 1400;
    assert_eq!(partial.len(), 1);
    let (before, acked, after) = partial[0];
    assert_eq!((before, acked), (60_200, 3 * mss));
    assert_eq!(after, before - acked + mss);
    assert_eq!(full.len(), 1);
    let (ssthresh, flight, cwnd) = full[0];
    assert_eq!((ssthresh, flight), (21_000, 19_600));
    let deflated = ssthresh.min(flight.max(mss) + mss);
    assert_eq!(cwnd, deflated + mss * mss / deflated);
}

/// Deviation, RFC 6582 3.2 step 3 (option 1) with RFC 5681 3.2 step 6: the full ACK *sets*
/// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS); neither RFC grows the window further on
/// that ACK, but the engine then applies the ACK's normal increase (docs/model.md 2.8), which
/// in slow start (the deflated window is below ssthresh) is ABC's 2 MSS. In the scenario of
/// `a_full_ack_does_not_release_a_burst_beyond_the_data_in_flight` the second recovery's full
/// ACK acknowledges everything: FlightSize = 0, the RFC's window 2 MSS, the engine's 4 MSS.
#[test]
fn the_full_ack_also_grows_the_window_it_deflates() {
    let mut drops: Vec<u64> = (100..110).collect();
    drops.push(160);
    let (_, full) = recovery_acks(1_000_000, drops);
    println!("full ACKs (ssthresh, outstanding, cwnd): {full:?}");
    assert_eq!(full.len(), 2);
    let (ssthresh, flight, cwnd) = full[1];
    assert_eq!(flight, 0);
    assert!(ssthresh > 4 * 1400);
    assert_eq!(cwnd, 4 * 1400, "RFC 6582 step 3 option 1: 2 800 B");
}

/// RFC 3168 6.1.5 and 6.1.2 (docs/model.md 2.14): new data segments are ECN-capable and
/// retransmissions are not; after each window reduction, for an echo or for a loss, the first
/// *new* data segment carries CWR, and no other does. Arrival 60 is marked CE (an ECN
/// reduction); arrival 200 is lost (a fast retransmit, also a reduction).
#[test]
fn ect_is_on_new_data_only_and_cwr_follows_each_reduction_once() {
    let (mut q, log) = TestQueue::new(vec![200]);
    q.mark_data = vec![60];
    let mut reductions = Vec::new(); // snd_max at each reduction
    let mut last = (0, 0);
    let r = watched_flow(&tcp().with_ecn(), Some(500_000), None, q, |sf, _| {
        let c = sf.counters();
        let now = (c.ecn_reductions, c.fast_retransmits);
        if now != last {
            reductions.push(sf.snd_max());
            last = now;
        }
    });
    let log = std::mem::take(&mut *log.lock().unwrap());
    assert_eq!((r.fast_retransmits, r.timeouts, r.retransmits), (1, 0, 1));
    assert_eq!(reductions.len(), 2, "one echo, one loss: {reductions:?}");
    for s in &log.data {
        assert_eq!(s.ect, !s.retransmit, "{s:?}");
    }
    let cwr: Vec<(u64, bool)> = log
        .data
        .iter()
        .filter(|s| s.cwr)
        .map(|s| (s.seq, s.retransmit))
        .collect();
    // The first new segment after each reduction starts at the snd_max of the reduction, or
    // later when the window let nothing new go in the same instant.
    assert_eq!(cwr.len(), 2, "{cwr:?}");
    for (&(seq, rtx), &at) in cwr.iter().zip(&reductions) {
        assert!(!rtx);
        let first_new_after = log
            .data
            .iter()
            .filter(|s| !s.retransmit && s.seq >= at)
            .map(|s| s.seq)
            .min()
            .expect("new data after the reduction");
        assert_eq!(seq, first_new_after);
    }
}

/// RFC 6298 5.1 and 5.3: a retransmission starts the timer only if it is not running, and
/// only an ACK of new data restarts it. Segment 40 and its fast retransmission are lost; no
/// new ACK arrives after the fast retransmit, so the RTO fires 200 ms after the last new ACK,
/// which came before the fast retransmit (the three duplicate ACKs in between take some
/// 35 us), not 200 ms after the fast retransmit.
#[test]
fn a_fast_retransmit_does_not_restart_a_running_timer() {
    let (mut q, log) = TestQueue::new(vec![40]);
    q.drop_retransmits = 1;
    let stop = Some(SimTime::from_ms(300));
    watched_flow(&tcp(), None, stop, q, |_, _| {});
    let log = std::mem::take(&mut *log.lock().unwrap());
    let lost = log.data[39];
    let rtx: Vec<_> = log
        .data
        .iter()
        .filter(|s| s.retransmit && s.seq == lost.seq)
        .collect();
    assert!(rtx.len() >= 2 && rtx[0].dropped && !rtx[1].dropped);
    let wait = rtx[1].at - rtx[0].at;
    let min_rto = TcpConfig::rfc().min_rto;
    println!("RTO resend {wait} after the fast retransmit");
    assert!(
        wait < min_rto && wait > min_rto - SimTime::from_us(100),
        "{wait}"
    );
}

/// RFC 5681 3.1 (after eq. 4): when the segment the RTO resends was already resent by the
/// timer, ssthresh is held constant. Segment 40, its fast retransmission and its first RTO
/// resend are lost: the second expiry, for the same segment, keeps the first one's ssthresh
/// (half the flight the failed recovery left: its inflated window sent one new segment per
/// duplicate ACK for 200 ms, so some 24 MB are outstanding and ssthresh rises from the fast
/// retransmit's 28 kB to 12 MB), though cwnd is then one segment.
#[test]
fn a_second_rto_of_the_same_segment_keeps_ssthresh() {
    let (mut q, _log) = TestQueue::new(vec![40]);
    q.drop_retransmits = 2;
    let mut at_rto = Vec::new(); // (ssthresh, snd_una, flight)
    let mut at_fr = None; // ssthresh of the fast retransmit
    let stop = Some(SimTime::from_ms(800));
    watched_flow(&tcp(), None, stop, q, |sf, _| {
        if sf.counters().fast_retransmits == 1 && at_fr.is_none() {
            at_fr = Some(sf.ssthresh());
        }
        if sf.counters().timeouts as usize > at_rto.len() {
            at_rto.push((sf.ssthresh(), sf.snd_una(), sf.snd_max() - sf.snd_una()));
        }
    });
    println!("ssthresh at the fast retransmit {at_fr:?}; at each RTO (ssthresh, snd_una, flight): {at_rto:?}");
    assert!(at_rto.len() >= 2);
    let ((s1, una1, flight), (s2, una2, _)) = (at_rto[0], at_rto[1]);
    assert_eq!(una1, una2, "the same segment");
    assert_eq!(s1, flight / 2);
    assert!(s1 > 10 * 1400);
    assert_eq!(s2, s1, "held constant");
}

/// RFC 5681 3.2 step 4: in fast recovery every further duplicate ACK inflates cwnd by one
/// SMSS (and new data goes out when the window allows, step 5). One loss (arrival 30).
#[test]
fn each_duplicate_ack_in_fast_recovery_adds_one_mss() {
    let (q, _log) = TestQueue::new(vec![30]);
    let (mut prev_dup, mut prev_cwnd, mut prev_max) = (0, 0, 0);
    let mut steps = Vec::new(); // (cwnd increase, new bytes sent) per duplicate ACK in recovery
    let r = watched_flow(&tcp(), Some(500_000), None, q, |sf, _| {
        let dup = sf.counters().fr_dupacks;
        if dup > prev_dup {
            assert_eq!(dup, prev_dup + 1, "one duplicate ACK per event");
            steps.push((sf.cwnd() - prev_cwnd, sf.snd_max() - prev_max));
        }
        (prev_dup, prev_cwnd, prev_max) = (dup, sf.cwnd(), sf.snd_max());
    });
    assert_eq!(r.fast_retransmits, 1);
    assert!(steps.len() > 10, "{steps:?}");
    assert!(steps.iter().all(|&(grow, _)| grow == 1400), "{steps:?}");
    // Once the inflated window exceeds the flight, each one sends a new segment; before,
    // none does (14 of the 26 here).
    let first = steps
        .iter()
        .position(|&(_, sent)| sent > 0)
        .expect("new data");
    assert!(steps[..first].iter().all(|&(_, sent)| sent == 0));
    assert!(
        steps[first..].iter().all(|&(_, sent)| sent == 1400),
        "{steps:?}"
    );
    assert_eq!((steps.len(), steps.len() - first), (26, 14));
}

/// Deviation (a SHOULD), RFC 5681 3.2 step 1: on the first and second duplicate ACKs a sender
/// should send new data (RFC 3042 limited transmit); the `rfc` profile does not
/// (`LimitedTransmit::Off`, docs/model.md 12.1). A 20 kB flow loses its second segment, sent
/// in a window of three: the two duplicate ACKs that follow are all it gets, so the hole waits
/// for the RTO (200 ms); with RFC 3042 two new segments draw the third and fourth duplicate
/// ACKs and a fast retransmit repairs it within a millisecond.
#[test]
fn without_limited_transmit_a_loss_in_a_small_window_waits_for_the_rto() {
    let (r, c, _) = lossy_flow(TcpConfig::rfc(), 20_000, vec![2]);
    let fct = r.fct().expect("completed");
    println!("rfc: FCT {fct}, {} timeouts", r.timeouts);
    assert_eq!(
        (r.timeouts, r.fast_retransmits, c.limited_transmits),
        (1, 0, 0)
    );
    assert!(fct > SimTime::from_ms(200));

    let mut lt = TcpConfig::rfc();
    lt.limited_transmit = htsim_transport::config::LimitedTransmit::Rfc3042;
    let (r, c, _) = lossy_flow(lt, 20_000, vec![2]);
    let fct = r.fct().expect("completed");
    println!(
        "with RFC 3042: FCT {fct}, {} limited transmits",
        c.limited_transmits
    );
    assert_eq!(
        (r.timeouts, r.fast_retransmits, c.limited_transmits),
        (0, 1, 2)
    );
    assert!(fct < SimTime::from_ms(1));
}

/// Deviation, RFC 6582 3.2 step 3: "For the first partial ACK that arrives during fast
/// recovery, also reset the retransmit timer" (the "Impatient" variant; the RFC discusses
/// resetting it on every partial ACK, "Slow-but-Steady", as the alternative). The engine
/// restarts it on every partial ACK (docs/model.md 2.8). With a 1 ms minimum RTO and ten
/// holes (arrivals 100-109), the recovery repairs one hole per round trip and lasts 2.4 ms,
/// twice the RTO: here it ends without a timeout; with the timer reset on the first partial
/// ACK only, it times out. (With the 200 ms default the recovery would need some 800 holes.)
#[test]
fn every_partial_ack_restarts_the_timer() {
    let mut config = TcpConfig::rfc();
    config.min_rto = SimTime::from_ms(1);
    let drops: Vec<u64> = (100..110).collect();
    let (q, _log) = TestQueue::new(drops);
    let mut fr_at = None;
    let mut recovery = None;
    let r = watched_flow(
        &TcpTransport { config },
        Some(1_000_000),
        None,
        q,
        |sf, now| {
            if sf.in_fast_recovery() && fr_at.is_none() {
                fr_at = Some((now, sf.rtt().rto()));
            }
            if let (Some((t0, _)), false, None) = (fr_at, sf.in_fast_recovery(), recovery) {
                recovery = Some(now - t0);
            }
        },
    );
    let (_, rto) = fr_at.expect("a fast recovery");
    let recovery = recovery.expect("the recovery ended");
    println!(
        "recovery {recovery} with an RTO of {rto}; {} timeouts",
        r.timeouts
    );
    assert!(
        recovery > SimTime::from_ps(2 * rto.as_ps()),
        "{recovery} vs RTO {rto}"
    );
    assert_eq!((r.fast_retransmits, r.timeouts), (1, 0));
}
