//! The multipath receiver endpoint (docs/model.md 4.4): the passive side of every subflow's
//! handshake (2.2 step 3, MP_JOIN SYNs by subflow index, 4.1 step 4), a cumulative ACK per
//! segment in each subflow's own sequence space (2.5; there is no DATA_ACK), data-level
//! reassembly with both `rcv_nxt` semantics of 4.4, and the close (2.11).
//!
//! Also the receiver of MMPTCP (6): sprayed packets reach this endpoint whatever their path
//! (the engine delivers by endpoint, which stands for 5's token demultiplexing).
//!
//! With `TcpConfig::reorder_hold` each subflow holds the duplicate ACKs of out-of-order
//! arrivals exactly as the TCP receiver does ([`crate::reorder`]), so MMPTCP's sprayed phase 1
//! is spared spurious fast retransmits; a held CE mark is echoed on the next ACK of the subflow
//! (XMP's echo counts them, 7.2: every held mark reaches the sender).

use super::ranges::DataRanges;
use super::RxSubflowAck;
use crate::config::{CeEcho, PacketSizes, TcpConfig};
use crate::ooo::OooSegments;
use crate::path::PathChoice;
use crate::receiver::{echo_ce_count, ReceiverStats};
use crate::reorder::{HoldDecision, HoldState, ReorderHold};
use crate::subflow::FIRST_SEQ;
use crate::tcp::{ConnectionReport, ReportSink};
use crate::transport::SERVER_PORT;
use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::{EndpointId, PathSetId};
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::SimTime;

/// Handshake and close state of one passive subflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RxState {
    SynRcvd { transmissions: u32 },
    Established,
    LastAck { transmissions: u32 },
    Finished,
}

/// One subflow's receive state.
#[derive(Debug)]
struct RxSubflow {
    path: PathChoice,
    state: RxState,
    rcv_nxt: u64,
    /// Per-subflow semantics only: out-of-order segments.
    ooo: OooSegments,
    fin_seq: Option<u64>,
    timer: Timer,
    /// The reorder hold of this subflow's duplicate ACKs ([`crate::reorder`]).
    hold_state: HoldState,
    /// Fires at the hold deadline (key [`HOLD_KEY`] + subflow index).
    hold_timer: Timer,
    /// A held out-of-order segment was CE-marked: the next ACK sent carries ECE (one-bit
    /// echo).
    held_ce: bool,
    /// XMP's `cnt_ce` (docs/model.md 7.2): CE-marked segments not yet echoed; every ACK
    /// carries `e = min(cnt_ce, 3)` in ECE (bit 0) and CWR (bit 1) and takes `e` off.
    cnt_ce: u32,
}

/// Timer keys of the hold timers start here (subflow timers use the subflow index).
const HOLD_KEY: u32 = 1 << 16;

impl RxSubflow {
    fn fin_complete(&self) -> bool {
        self.fin_seq == Some(self.rcv_nxt)
    }
}

/// A data-level segment stored by the code's reassembly: its subflow, subflow seq and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stored {
    /// Subflow index (a connection has at most `u16::MAX` subflows).
    sub: u32,
    len: u32,
    seq: u64,
}

/// Stores segment `stored` at data sequence number `d` in `store` (sorted by `d`), unless a
/// segment is stored there already; returns whether it was stored.
fn store_new(store: &mut Vec<(u64, Stored)>, d: u64, stored: Stored) -> bool {
    match search_from_back(store, d) {
        Ok(_) => false,
        Err(i) => {
            store.insert(i, (d, stored));
            true
        }
    }
}

/// `store.binary_search_by_key(&d, ..)`, searching back from the end in growing steps first:
/// segments arrive behind a hole that holds the store back (it can reach tens of thousands of
/// them) and mostly land near its end, so the search stays in the few cache lines there.
fn search_from_back(store: &[(u64, Stored)], d: u64) -> Result<usize, usize> {
    // Every segment in `store[hi..]` is after `d`.
    let mut hi = store.len();
    let mut step = 1;
    let lo = loop {
        let probe = hi.saturating_sub(step);
        if probe == 0 || store[probe].0 <= d {
            break probe;
        }
        hi = probe;
        step *= 2;
    };
    match store[lo..hi].binary_search_by_key(&d, |&(d, _)| d) {
        Ok(i) => Ok(lo + i),
        Err(i) => Err(lo + i),
    }
}

/// The receiving endpoint of an MPTCP or MMPTCP connection.
pub struct MptcpReceiver {
    flow_id: u64,
    peer: EndpointId,
    rev: PathSetId,
    ports: (u16, u16),
    sizes: PacketSizes,
    syn_timeout: SimTime,
    syn_max_transmissions: u32,
    semantics: RxSubflowAck,
    hold: Option<ReorderHold>,
    /// A FIN ahead of missing data earns a duplicate ACK ([`TcpConfig::ack_early_fin`]).
    ack_early_fin: bool,
    /// XMP's 2-bit count echo ([`CeEcho::XmpCount`]); otherwise ECE echoes the segment's CE.
    xmp_count: bool,
    subs: Vec<Option<RxSubflow>>,
    rcv_next_data: u64,
    /// Per-subflow semantics: the data ranges received above `rcv_next_data`.
    ranges: DataRanges,
    /// The code's semantics: the stored segments, sorted by data sequence number (`drain`
    /// needs each segment's subflow and subflow seq). A sorted `Vec` rather than a map:
    /// segments mostly arrive in data order behind a hole and are appended (the store can
    /// reach tens of thousands of them), and `drain` walks all of it on every in-order
    /// arrival, which a contiguous array does faster.
    store: Vec<(u64, Stored)>,
    stats: ReceiverStats,
    report: Option<ReportSink>,
}

/// Counts `len` bytes handed to the application in data-sequence order: the next expected
/// data sequence number moves past them.
fn delivered(rcv_next_data: &mut u64, stats: &mut ReceiverStats, len: u64) {
    *rcv_next_data += len;
    stats.bytes_delivered += len;
}

impl MptcpReceiver {
    /// A receiver for flow `flow_id` answering `peer` over path set `rev`; `ports` = (subflow
    /// 0's client port, the joins' base port P: join j uses P + j, 4.1).
    pub fn new(
        flow_id: u64,
        peer: EndpointId,
        rev: PathSetId,
        ports: (u16, u16),
        config: &TcpConfig,
        semantics: RxSubflowAck,
        report: Option<ReportSink>,
    ) -> Self {
        MptcpReceiver {
            flow_id,
            peer,
            rev,
            ports,
            sizes: config.sizes,
            syn_timeout: config.syn_timeout,
            syn_max_transmissions: config.syn_max_transmissions,
            semantics,
            hold: config.reorder_hold,
            ack_early_fin: config.ack_early_fin,
            xmp_count: config.ce_echo == CeEcho::XmpCount,
            subs: Vec::new(),
            rcv_next_data: FIRST_SEQ,
            ranges: DataRanges::default(),
            store: Vec::new(),
            stats: ReceiverStats::default(),
            report,
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    fn backoff(&self, transmissions: u32) -> SimTime {
        let shift = transmissions.saturating_sub(1).min(30);
        SimTime::from_ps(self.syn_timeout.as_ps().saturating_mul(1u64 << shift))
    }

    fn send(&mut self, j: usize, ctx: &mut Ctx<'_>, kind: PacketKind, ce: bool) {
        let Some(sub) = self.subs[j].as_mut() else {
            return;
        };
        let route = sub.path.control_route(ctx);
        let fin = kind == PacketKind::Ack && sub.fin_complete();
        let mut p = Packet {
            sent_at: ctx.now(),
            dst: self.peer,
            route,
            flow: self.flow_id as u32,
            subflow: j as u16,
            ..Packet::default()
        };
        if kind == PacketKind::SynAck {
            p.kind = PacketKind::SynAck;
            p.ack = FIRST_SEQ;
            p.size_bytes = self.sizes.syn;
        } else {
            // The FIN+ACK takes seq 1 and acknowledges the FIN (as TcpReceiver does).
            p.kind = if fin {
                PacketKind::Fin
            } else {
                PacketKind::Ack
            };
            p.seq = if fin { FIRST_SEQ } else { 0 };
            p.ack = sub.rcv_nxt + fin as u64;
            p.size_bytes = if fin { self.sizes.fin } else { self.sizes.ack };
            if fin {
                p.set(flags::FIN);
            }
            if self.xmp_count {
                echo_ce_count(&mut sub.cnt_ce, &mut p);
            } else if ce {
                p.set(flags::ECE);
            }
            self.stats.acks_sent += 1;
        }
        ctx.send(p);
    }

    fn on_syn(&mut self, j: usize, ctx: &mut Ctx<'_>) {
        if self.subs.len() <= j {
            self.subs.resize_with(j + 1, || None);
        }
        let transmissions = match &self.subs[j] {
            None => {
                let port = if j == 0 {
                    self.ports.0
                } else {
                    self.ports.1.wrapping_add(j as u16)
                };
                self.subs[j] = Some(RxSubflow {
                    path: PathChoice::ecmp(self.rev, SERVER_PORT, port),
                    state: RxState::SynRcvd { transmissions: 0 },
                    rcv_nxt: FIRST_SEQ,
                    ooo: OooSegments::default(),
                    fin_seq: None,
                    timer: Timer::new(j as u32),
                    hold_state: HoldState::default(),
                    hold_timer: Timer::new(HOLD_KEY + j as u32),
                    held_ce: false,
                    cnt_ce: 0,
                });
                1
            }
            Some(RxSubflow {
                state: RxState::SynRcvd { transmissions },
                ..
            }) => transmissions + 1,
            Some(_) => return,
        };
        self.send_syn_ack(j, ctx, transmissions);
    }

    fn send_syn_ack(&mut self, j: usize, ctx: &mut Ctx<'_>, transmissions: u32) {
        self.send(j, ctx, PacketKind::SynAck, false);
        let at = ctx.now().saturating_add(self.backoff(transmissions));
        if let Some(sub) = self.subs[j].as_mut() {
            sub.state = RxState::SynRcvd { transmissions };
            sub.timer.set(ctx, at);
        }
    }

    /// Established on the handshake ACK or the first data segment / FIN (2.2 step 3).
    fn establish(sub: &mut RxSubflow) {
        if let RxState::SynRcvd { .. } = sub.state {
            sub.state = RxState::Established;
            sub.timer.cancel();
        }
    }

    fn deliver(&mut self, len: u64) {
        delivered(&mut self.rcv_next_data, &mut self.stats, len);
    }

    /// Delivers the stored range that starts at `rcv_next_data`, if any (per-subflow
    /// semantics; stored ranges never touch, so one is all there can be).
    fn deliver_in_order(&mut self) {
        if let Some(len) = self.ranges.take_from(self.rcv_next_data) {
            self.deliver(len);
        }
    }

    /// Per-subflow contiguous `rcv_nxt` (RFC 8684; 4.4 **\[PROPOSED\]**).
    fn on_data_per_subflow(&mut self, j: usize, s: u64, d: u64, len: u32) {
        let Some(sub) = self.subs[j].as_mut() else {
            return;
        };
        // Each segment the subflow accepts, in subflow order, goes straight to the data-level
        // ranges (no list of them: this runs on every data packet).
        let ranges = &mut self.ranges;
        let rcv_next_data = self.rcv_next_data;
        let mut accept = |d: u64, len: u32| {
            if d >= rcv_next_data {
                ranges.insert(d, len);
            }
        };
        if s == sub.rcv_nxt {
            accept(d, len);
            sub.rcv_nxt += len as u64;
            while let Some((l, dd)) = sub.ooo.take_at(sub.rcv_nxt) {
                accept(dd, l);
                sub.rcv_nxt += l as u64;
            }
        } else if s > sub.rcv_nxt {
            self.stats.out_of_order_segments += 1;
            sub.ooo.insert(s, len, d);
        } else {
            self.stats.duplicate_segments += 1;
        }
        self.deliver_in_order();
    }

    /// The code's reassembly (4.4 "Reassembly as coded"), artefacts (a) and (b) included.
    fn on_data_code(&mut self, j: usize, s: u64, d: u64, len: u32) {
        let Some(sub) = self.subs[j].as_mut() else {
            return;
        };
        if s == sub.rcv_nxt {
            if d == self.rcv_next_data {
                sub.rcv_nxt += len as u64;
                self.deliver(len as u64);
                self.drain();
            } else if d > self.rcv_next_data {
                let stored = Stored {
                    sub: j as u32,
                    len,
                    seq: s,
                };
                if store_new(&mut self.store, d, stored) {
                    sub.rcv_nxt += len as u64;
                } else {
                    self.stats.duplicate_segments += 1;
                }
            } else {
                // The code aborts here; 4.4 [PROPOSED]: a duplicate that still advances rcv_nxt.
                sub.rcv_nxt += len as u64;
                self.stats.duplicate_segments += 1;
            }
        } else if s > sub.rcv_nxt {
            self.stats.out_of_order_segments += 1;
            let stored = Stored {
                sub: j as u32,
                len,
                seq: s,
            };
            store_new(&mut self.store, d, stored);
        } else {
            self.stats.duplicate_segments += 1;
        }
    }

    /// `drain()` of 4.4: one walk of the store in data-sequence order, removing what it
    /// delivers as it goes (`retain` visits the segments in order and allocates nothing).
    fn drain(&mut self) {
        let (subs, rcv_next_data, stats) =
            (&mut self.subs, &mut self.rcv_next_data, &mut self.stats);
        self.store.retain(|&(d, e)| {
            let Some(x) = subs.get_mut(e.sub as usize).and_then(Option::as_mut) else {
                return true;
            };
            if d == *rcv_next_data {
                if e.seq == x.rcv_nxt {
                    x.rcv_nxt += e.len as u64;
                }
                // `deliver`, on the fields `retain` leaves free.
                delivered(rcv_next_data, stats, e.len as u64);
                return false;
            }
            if e.seq == x.rcv_nxt {
                x.rcv_nxt += e.len as u64;
            }
            true
        });
    }

    fn on_data(&mut self, j: usize, packet: &Packet, ctx: &mut Ctx<'_>) {
        self.stats.segments_received += 1;
        let ce = packet.has(flags::CE);
        if ce {
            self.stats.ce_segments += 1;
        }
        let (s, d, len) = (packet.seq, packet.data_seq, packet.payload_bytes);
        let before = self.subs[j].as_ref().map_or(0, |sub| sub.rcv_nxt);
        if ce && self.xmp_count {
            if let Some(sub) = self.subs[j].as_mut() {
                sub.cnt_ce += 1;
            }
        }
        match self.semantics {
            RxSubflowAck::PerSubflow => self.on_data_per_subflow(j, s, d, len),
            RxSubflowAck::CodeDrain => self.on_data_code(j, s, d, len),
        }
        if self.hold_acks(j, s, before, ce, ctx) {
            let ce = ce || self.take_held_ce(j);
            self.send(j, ctx, PacketKind::Ack, ce);
        }
        self.after_fin_check(j, ctx);
    }

    /// The reorder hold of subflow `j` for a data segment at subflow seq `s` that found
    /// `rcv_nxt = before` (as `ReceiverSubflow` does, [`crate::reorder`]): progress forgets the
    /// owed duplicate ACKs (one cumulative ACK answers); an out-of-order arrival owes its
    /// duplicate ACK, or releases them all at the count limit. Returns whether to ACK now.
    fn hold_acks(&mut self, j: usize, s: u64, before: u64, ce: bool, ctx: &mut Ctx<'_>) -> bool {
        let Some(hold) = self.hold else {
            return true;
        };
        let now = ctx.now();
        let Some(sub) = self.subs[j].as_mut() else {
            return true;
        };
        if sub.rcv_nxt > before {
            self.stats.dupacks_absorbed += sub.hold_state.owed() as u64;
            sub.hold_state.on_progress();
            sub.hold_timer.cancel();
            return true;
        }
        if s <= before {
            return true; // an old duplicate: answered at once
        }
        match sub.hold_state.on_out_of_order(&hold, sub.rcv_nxt, now) {
            HoldDecision::AckNow => true,
            HoldDecision::Hold => {
                sub.held_ce |= ce;
                if let Some(due) = sub.hold_state.due() {
                    if sub.hold_timer.deadline() != Some(due) {
                        sub.hold_timer.set(ctx, due);
                    }
                }
                false
            }
            HoldDecision::Release(n) => {
                sub.held_ce |= ce;
                sub.hold_timer.cancel();
                self.stats.hold_releases += 1;
                self.release(j, n, ctx);
                false
            }
        }
    }

    /// Sends `n` held duplicate ACKs of subflow `j` back to back (the first carries the echo of
    /// any CE-marked held segment).
    fn release(&mut self, j: usize, n: u32, ctx: &mut Ctx<'_>) {
        for _ in 0..n {
            let ce = self.take_held_ce(j);
            self.send(j, ctx, PacketKind::Ack, ce);
        }
    }

    fn take_held_ce(&mut self, j: usize) -> bool {
        self.subs[j]
            .as_mut()
            .is_some_and(|sub| std::mem::take(&mut sub.held_ce))
    }

    fn after_fin_check(&mut self, j: usize, ctx: &mut Ctx<'_>) {
        let at = ctx.now().saturating_add(self.backoff(1));
        if let Some(sub) = self.subs[j].as_mut() {
            if sub.fin_complete() && sub.state == RxState::Established {
                sub.state = RxState::LastAck { transmissions: 1 };
                sub.timer.set(ctx, at);
            }
        }
    }

    fn maybe_close(&mut self, ctx: &mut Ctx<'_>) {
        let all = self
            .subs
            .iter()
            .flatten()
            .all(|s| s.state == RxState::Finished);
        if all && self.subs.first().is_some_and(Option::is_some) {
            self.close(ctx);
        }
    }

    fn close(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(sink) = &self.report {
            if let Ok(mut v) = sink.lock() {
                v.push(ConnectionReport::Receiver {
                    flow_id: self.flow_id,
                    stats: self.stats,
                });
            }
        }
        ctx.close();
    }
}

impl Endpoint for MptcpReceiver {
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        let j = packet.subflow as usize;
        if packet.kind == PacketKind::Syn {
            self.on_syn(j, ctx);
            return;
        }
        if packet.kind == PacketKind::Rst {
            self.close(ctx);
            return;
        }
        let Some(sub) = self.subs.get_mut(j).and_then(Option::as_mut) else {
            return; // nothing before the SYN
        };
        match packet.kind {
            PacketKind::Ack => match sub.state {
                RxState::SynRcvd { .. } => Self::establish(sub),
                RxState::LastAck { .. } if packet.ack > FIRST_SEQ => {
                    sub.state = RxState::Finished;
                    sub.timer.cancel();
                    self.maybe_close(ctx);
                }
                _ => {}
            },
            PacketKind::Data => {
                Self::establish(sub);
                if sub.state != RxState::Finished {
                    self.on_data(j, packet, ctx);
                }
            }
            PacketKind::Fin => {
                Self::establish(sub);
                if sub.state != RxState::Finished {
                    sub.fin_seq = Some(packet.seq);
                    // Ahead of missing data: remembered, answered only with ack_early_fin.
                    if self.ack_early_fin || sub.fin_complete() {
                        self.send(j, ctx, PacketKind::Ack, false);
                    }
                    self.after_fin_check(j, ctx);
                }
            }
            PacketKind::Syn | PacketKind::SynAck | PacketKind::Rst => {}
        }
    }

    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        if fired.key >= HOLD_KEY {
            // The hold deadline passed: the hole is taken for a loss (crate::reorder).
            let j = (fired.key - HOLD_KEY) as usize;
            let now = ctx.now();
            let Some(sub) = self.subs.get_mut(j).and_then(Option::as_mut) else {
                return;
            };
            if !sub.hold_timer.fire(ctx, fired) {
                return;
            }
            let n = sub.hold_state.on_expiry(sub.rcv_nxt, now);
            if n > 0 {
                self.stats.hold_releases += 1;
                self.release(j, n, ctx);
            }
            return;
        }
        let j = fired.key as usize;
        let max = self.syn_max_transmissions;
        let (timeout, now) = (self.syn_timeout, ctx.now());
        let Some(sub) = self.subs.get_mut(j).and_then(Option::as_mut) else {
            return;
        };
        if !sub.timer.fire(ctx, fired) {
            return;
        }
        match sub.state {
            RxState::SynRcvd { transmissions } | RxState::LastAck { transmissions }
                if transmissions >= max =>
            {
                // A join given up, or no last ACK (**[PROPOSED]**, as TcpReceiver).
                sub.state = RxState::Finished;
                self.maybe_close(ctx);
            }
            RxState::SynRcvd { transmissions } => self.send_syn_ack(j, ctx, transmissions + 1),
            RxState::LastAck { transmissions } => {
                sub.state = RxState::LastAck {
                    transmissions: transmissions + 1,
                };
                let shift = transmissions.min(30);
                let wait = SimTime::from_ps(timeout.as_ps().saturating_mul(1u64 << shift));
                sub.timer.set(ctx, now.saturating_add(wait));
                self.send(j, ctx, PacketKind::Ack, false);
            }
            RxState::Established | RxState::Finished => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_from_back_agrees_with_binary_search() {
        let stored = Stored {
            sub: 0,
            len: 1,
            seq: 0,
        };
        // Stores of 0 to 70 segments at odd numbers 1, 3, 5 ...: every number from 0 to one
        // past the last, present (odd) or not (even), is found where a plain binary search
        // finds it.
        for n in 0..70u64 {
            let store: Vec<(u64, Stored)> = (0..n).map(|i| (2 * i + 1, stored)).collect();
            for d in 0..=2 * n + 1 {
                assert_eq!(
                    search_from_back(&store, d),
                    store.binary_search_by_key(&d, |&(d, _)| d),
                    "n {n} d {d}"
                );
            }
        }
        // And stored in that place, a new segment keeps the store sorted; a present one is not
        // stored twice.
        let mut store = Vec::new();
        for d in [50, 10, 90, 30, 70, 30, 100, 60] {
            store_new(&mut store, d, stored);
        }
        let keys: Vec<u64> = store.iter().map(|&(d, _)| d).collect();
        assert_eq!(keys, [10, 30, 50, 60, 70, 90, 100]);
    }
}
