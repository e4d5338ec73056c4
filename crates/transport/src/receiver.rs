//! The receiver: cumulative ACKs per subflow (docs/model.md 2.5), optional delayed ACKs, ECN
//! echo (DCTCP's one bit, 8; XMP's 2-bit count, 7.2), the optional reorder hold of duplicate
//! ACKs ([`crate::reorder`]), FIN handling (2.11), and the passive side of the handshake (2.2
//! step 3).
//!
//! [`ReceiverSubflow`] is one subflow's receive state; [`PassiveSubflow`] adds the passive
//! handshake and close around it, and is what the multipath receivers reuse per subflow;
//! [`TcpReceiver`] is the endpoint of a single-subflow connection.

use crate::config::{CeEcho, DelayedAck, PacketSizes, TcpConfig};
use crate::ooo::OooSegments;
use crate::path::PathChoice;
use crate::reorder::{HoldDecision, HoldState, ReorderHold};
use crate::subflow::FIRST_SEQ;
use crate::tcp::{ConnectionReport, ReportSink};
use htsim_core::endpoint::{Ctx, Endpoint};
use htsim_core::ids::EndpointId;
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::SimTime;

/// Counters of a receiver (all subflows of one connection).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data segments received (duplicates included).
    pub segments_received: u64,
    /// Data segments that were old duplicates.
    pub duplicate_segments: u64,
    /// Data segments that arrived out of order (above `rcv_nxt`).
    pub out_of_order_segments: u64,
    /// Data segments that arrived marked CE.
    pub ce_segments: u64,
    /// Pure ACKs (and FIN+ACKs) sent.
    pub acks_sent: u64,
    /// Application bytes delivered in order.
    pub bytes_delivered: u64,
    /// Delivered segments whose data sequence number was not the next expected one (must stay 0).
    pub order_errors: u64,
    /// Duplicate ACKs held by the reorder option and then made unnecessary by a filled hole.
    pub dupacks_absorbed: u64,
    /// Holds of the reorder option released by deadline or count (the hole taken for a loss).
    pub hold_releases: u64,
}

/// The receive side of one subflow: `rcv_nxt`, the out-of-order store, delayed-ACK state and
/// the DCTCP one-bit CE state (docs/model.md 2.5, 8).
#[derive(Debug)]
pub struct ReceiverSubflow {
    index: u16,
    peer: EndpointId,
    flow: u32,
    path: PathChoice,
    sizes: PacketSizes,
    rcv_nxt: u64,
    /// Out-of-order segments.
    store: OooSegments,
    delayed: Option<DelayedAck>,
    pending: u32,
    /// The ACK timer: the delayed-ACK deadline and, with the reorder option, the hold deadline.
    dack_timer: Timer,
    /// When the delayed ACK of `pending` segments is due.
    dack_due: Option<SimTime>,
    ce_state: bool,
    ce_echo: CeEcho,
    /// XMP's count of CE segments not yet echoed (docs/model.md 7.2).
    cnt_ce: u32,
    hold: Option<ReorderHold>,
    hold_state: HoldState,
    fin_seq: Option<u64>,
    /// A FIN ahead of missing data earns a duplicate ACK ([`TcpConfig::ack_early_fin`]).
    ack_early_fin: bool,
}

impl ReceiverSubflow {
    /// Receive state for subflow `index`, ACKing to `peer` over `path`; the delayed-ACK timer
    /// uses key `dack_timer_key`.
    pub fn new(
        index: u16,
        peer: EndpointId,
        flow: u32,
        path: PathChoice,
        config: &TcpConfig,
        dack_timer_key: u32,
    ) -> Self {
        ReceiverSubflow {
            index,
            peer,
            flow,
            path,
            sizes: config.sizes,
            rcv_nxt: FIRST_SEQ,
            store: OooSegments::default(),
            delayed: config.delayed_ack,
            pending: 0,
            dack_timer: Timer::new(dack_timer_key),
            dack_due: None,
            ce_state: false,
            ce_echo: config.ce_echo,
            cnt_ce: 0,
            hold: config.reorder_hold,
            hold_state: HoldState::default(),
            fin_seq: None,
            ack_early_fin: config.ack_early_fin,
        }
    }

    /// The next expected subflow byte.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Whether every byte up to the FIN has arrived (the FIN is in sequence).
    pub fn fin_complete(&self) -> bool {
        self.fin_seq == Some(self.rcv_nxt)
    }

    /// The route of this subflow's ACKs (for SYN-ACKs sent by the owner).
    pub fn path_mut(&mut self) -> &mut PathChoice {
        &mut self.path
    }

    /// Arms the ACK timer at the earlier of the delayed-ACK and hold deadlines, or disarms it.
    fn arm_ack_timer(&mut self, ctx: &mut Ctx<'_>) {
        match (self.dack_due, self.hold_state.due()) {
            (None, None) => self.dack_timer.cancel(),
            (a, b) => {
                let at = a.unwrap_or(SimTime::MAX).min(b.unwrap_or(SimTime::MAX));
                self.dack_timer.set(ctx, at);
            }
        }
    }

    /// Sends the cumulative ACK now (a FIN+ACK once the FIN is in sequence). With
    /// [`CeEcho::Dctcp`] ECE carries the CE state (docs/model.md 8: every ACK carries ECE =
    /// `ce_state`), with [`CeEcho::Rfc3168`] the latched echo (2.14); with
    /// [`CeEcho::XmpCount`], `e = min(cnt_ce, 3)` goes into ECE (bit 0) and CWR (bit 1) and
    /// `cnt_ce -= e` (7.2).
    pub fn send_ack(&mut self, ctx: &mut Ctx<'_>, stats: &mut ReceiverStats) {
        self.pending = 0;
        self.dack_due = None;
        self.arm_ack_timer(ctx);
        let route = self.path.control_route(ctx);
        let fin = self.fin_complete();
        let mut p = Packet {
            // The receiver's SYN-ACK took sequence number 0, so its FIN takes 1: the sender's
            // last ACK acknowledges 2, which tells it apart from a handshake ACK.
            seq: if fin { FIRST_SEQ } else { 0 },
            ack: self.rcv_nxt + fin as u64,
            sent_at: ctx.now(),
            dst: self.peer,
            route,
            size_bytes: if fin { self.sizes.fin } else { self.sizes.ack },
            flow: self.flow,
            subflow: self.index,
            kind: if fin {
                PacketKind::Fin
            } else {
                PacketKind::Ack
            },
            ..Packet::default()
        };
        if fin {
            p.set(flags::FIN);
        }
        match self.ce_echo {
            CeEcho::Dctcp | CeEcho::Rfc3168 => {
                if self.ce_state {
                    p.set(flags::ECE);
                }
            }
            CeEcho::XmpCount => echo_ce_count(&mut self.cnt_ce, &mut p),
        }
        stats.acks_sent += 1;
        ctx.send(p);
    }

    /// Handles a data segment; `deliver(data_seq, len)` is called for every segment that
    /// becomes in order on this subflow, in order.
    pub fn on_data(
        &mut self,
        packet: &Packet,
        ctx: &mut Ctx<'_>,
        stats: &mut ReceiverStats,
        deliver: &mut dyn FnMut(u64, u32),
    ) {
        stats.segments_received += 1;
        let ce = packet.has(flags::CE);
        if ce {
            stats.ce_segments += 1;
        }
        match self.ce_echo {
            CeEcho::Dctcp if ce != self.ce_state => {
                // DCTCP: ACK the data received before this segment with the old CE state first.
                if self.pending > 0 {
                    self.send_ack(ctx, stats);
                }
                self.ce_state = ce;
            }
            CeEcho::Dctcp => {}
            CeEcho::XmpCount => self.cnt_ce += u32::from(ce),
            CeEcho::Rfc3168 => {
                // The latch: set by CE, cleared by the sender's CWR (CE wins on one segment).
                self.ce_state = ce || (self.ce_state && !packet.has(flags::CWR));
            }
        }
        let s = packet.seq;
        let len = packet.payload_bytes;
        let mut ack_now = true;
        if s == self.rcv_nxt {
            // Segments held above rcv_nxt: this one fills all or part of a hole, and RFC 5681
            // 4.2 asks for an immediate ACK in both cases (a partial ACK for NewReno).
            let filled = !self.store.is_empty();
            deliver(packet.data_seq, len);
            self.rcv_nxt += len as u64;
            if self.hold.is_some() {
                // The cumulative ACK supersedes the held duplicate ACKs.
                stats.dupacks_absorbed += self.hold_state.owed() as u64;
                self.hold_state.on_progress();
            }
            while let Some((l, d)) = self.store.take_at(self.rcv_nxt) {
                deliver(d, l);
                self.rcv_nxt += l as u64;
            }
            // In-order data may be delayed; data that filled all or part of a hole and the last
            // data before the FIN are ACKed at once.
            if let (Some(d), false, false) = (self.delayed, filled, self.fin_complete()) {
                self.pending += 1;
                if self.pending < d.segments {
                    ack_now = false;
                    if self.dack_due.is_none() {
                        self.dack_due = Some(ctx.now().saturating_add(d.timeout));
                    }
                }
            }
            if !ack_now {
                self.arm_ack_timer(ctx); // (send_ack re-arms it otherwise)
            }
        } else if s > self.rcv_nxt {
            stats.out_of_order_segments += 1;
            self.store.insert(s, len, packet.data_seq);
            if let Some(hold) = self.hold {
                match self
                    .hold_state
                    .on_out_of_order(&hold, self.rcv_nxt, ctx.now())
                {
                    HoldDecision::AckNow => {}
                    HoldDecision::Hold => {
                        ack_now = false;
                        self.arm_ack_timer(ctx);
                    }
                    HoldDecision::Release(n) => {
                        ack_now = false;
                        stats.hold_releases += 1;
                        for _ in 0..n {
                            self.send_ack(ctx, stats);
                        }
                    }
                }
            }
        } else {
            stats.duplicate_segments += 1;
        }
        if ack_now {
            self.send_ack(ctx, stats);
        }
    }

    /// Handles a FIN (or a retransmitted one): answered by a FIN+ACK when in sequence; ahead of
    /// missing data, remembered and answered by a duplicate ACK only with
    /// [`TcpConfig::ack_early_fin`] (the FIN+ACK goes once the missing data arrives).
    pub fn on_fin(&mut self, packet: &Packet, ctx: &mut Ctx<'_>, stats: &mut ReceiverStats) {
        self.fin_seq = Some(packet.seq);
        if self.ack_early_fin || self.fin_complete() {
            self.send_ack(ctx, stats);
        }
    }

    /// Handles a timer event; returns `true` if it was this subflow's ACK timer (delayed ACK,
    /// reorder hold) and it expired.
    pub fn on_timer(
        &mut self,
        fired: TimerFired,
        ctx: &mut Ctx<'_>,
        stats: &mut ReceiverStats,
    ) -> bool {
        if fired.key != self.dack_timer.key() || !self.dack_timer.fire(ctx, fired) {
            return false;
        }
        let now = ctx.now();
        if self.dack_due.is_some_and(|d| d <= now) {
            self.dack_due = None;
            if self.pending > 0 {
                self.send_ack(ctx, stats);
            }
        }
        if self.hold.is_some() {
            // The hold deadline passed: the hole is taken for a loss (crate::reorder).
            let n = self.hold_state.on_expiry(self.rcv_nxt, now);
            if n > 0 {
                stats.hold_releases += 1;
            }
            for _ in 0..n {
                self.send_ack(ctx, stats);
            }
            self.arm_ack_timer(ctx);
        }
        true
    }
}

/// Handshake and close state of one passive subflow (docs/model.md 2.2 step 3, 2.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RxState {
    Listen,
    SynRcvd { transmissions: u32 },
    Established,
    LastAck { transmissions: u32 },
}

/// What a [`PassiveSubflow`] reports after a packet or timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassiveEvent {
    /// Nothing that ends the subflow.
    Nothing,
    /// The last ACK of the close arrived (or was given up on, **\[PROPOSED\]**): the subflow is done.
    Finished,
    /// The SYN-ACK was given up after the configured transmissions: the subflow failed.
    Failed,
    /// The peer reset the connection.
    Reset,
}

/// The passive side of one subflow: answers SYNs with SYN-ACKs on the SYN timer (3 s or 1 s,
/// doubling, up to `syn_max_transmissions`), becomes established on the handshake ACK or the
/// first data segment, receives data through a [`ReceiverSubflow`], and answers the FIN with a
/// FIN+ACK (resent on the same timer until the last ACK). TCP uses one; the multipath
/// receivers use one per subflow (MP_JOIN SYNs follow the same rule, 2.2).
#[derive(Debug)]
pub struct PassiveSubflow {
    state: RxState,
    sub: ReceiverSubflow,
    syn_timer: Timer,
    syn_timeout: SimTime,
    syn_max_transmissions: u32,
    syn_size: u32,
}

impl PassiveSubflow {
    /// A listening subflow `index` of flow `flow`, answering `peer` over `path`; its timers use
    /// keys `syn_timer_key` and `dack_timer_key`.
    pub fn new(
        index: u16,
        peer: EndpointId,
        flow: u32,
        path: PathChoice,
        config: &TcpConfig,
        syn_timer_key: u32,
        dack_timer_key: u32,
    ) -> Self {
        PassiveSubflow {
            state: RxState::Listen,
            sub: ReceiverSubflow::new(index, peer, flow, path, config, dack_timer_key),
            syn_timer: Timer::new(syn_timer_key),
            syn_timeout: config.syn_timeout,
            syn_max_transmissions: config.syn_max_transmissions,
            syn_size: config.sizes.syn,
        }
    }

    /// The receive state (rcv_nxt, FIN).
    pub fn receiver(&self) -> &ReceiverSubflow {
        &self.sub
    }

    /// Whether the handshake completed (data may arrive).
    pub fn is_established(&self) -> bool {
        matches!(self.state, RxState::Established | RxState::LastAck { .. })
    }

    fn backoff(&self, transmissions: u32) -> SimTime {
        let shift = transmissions.saturating_sub(1).min(30);
        SimTime::from_ps(self.syn_timeout.as_ps().saturating_mul(1u64 << shift))
    }

    fn send_syn_ack(&mut self, ctx: &mut Ctx<'_>, transmissions: u32) {
        let route = self.sub.path.control_route(ctx);
        ctx.send(Packet {
            ack: FIRST_SEQ,
            sent_at: ctx.now(),
            dst: self.sub.peer,
            route,
            size_bytes: self.syn_size,
            flow: self.sub.flow,
            subflow: self.sub.index,
            kind: PacketKind::SynAck,
            ..Packet::default()
        });
        self.state = RxState::SynRcvd { transmissions };
        let at = ctx.now().saturating_add(self.backoff(transmissions));
        self.syn_timer.set(ctx, at);
    }

    fn establish(&mut self) {
        if let RxState::SynRcvd { .. } = self.state {
            self.state = RxState::Established;
            self.syn_timer.cancel();
        }
    }

    fn after_fin_check(&mut self, ctx: &mut Ctx<'_>) {
        if self.sub.fin_complete() && !matches!(self.state, RxState::LastAck { .. }) {
            self.state = RxState::LastAck { transmissions: 1 };
            let at = ctx.now().saturating_add(self.backoff(1));
            self.syn_timer.set(ctx, at);
        }
    }

    /// Handles a packet of this subflow; in-order data goes to `deliver(data_seq, len)`.
    pub fn on_packet(
        &mut self,
        packet: &Packet,
        ctx: &mut Ctx<'_>,
        stats: &mut ReceiverStats,
        deliver: &mut dyn FnMut(u64, u32),
    ) -> PassiveEvent {
        match packet.kind {
            PacketKind::Syn => match self.state {
                RxState::Listen => self.send_syn_ack(ctx, 1),
                RxState::SynRcvd { transmissions } => self.send_syn_ack(ctx, transmissions + 1),
                _ => {}
            },
            PacketKind::Ack => match self.state {
                RxState::SynRcvd { .. } => self.establish(),
                // Only the ACK of our FIN ends the connection, not a late handshake ACK (the
                // answer to a retransmitted SYN-ACK).
                RxState::LastAck { .. } if packet.ack > FIRST_SEQ => return PassiveEvent::Finished,
                _ => {}
            },
            PacketKind::Data => {
                // Established on the first data segment if the handshake ACK was lost (2.2).
                self.establish();
                if self.state != RxState::Listen {
                    self.sub.on_data(packet, ctx, stats, deliver);
                    self.after_fin_check(ctx);
                }
            }
            PacketKind::Fin => {
                self.establish();
                if self.state != RxState::Listen {
                    self.sub.on_fin(packet, ctx, stats);
                    self.after_fin_check(ctx);
                }
            }
            PacketKind::Rst => return PassiveEvent::Reset,
            PacketKind::SynAck => {}
        }
        PassiveEvent::Nothing
    }

    /// Handles one of this subflow's timers (SYN-ACK / FIN+ACK retransmission, delayed ACK).
    pub fn on_timer(
        &mut self,
        fired: TimerFired,
        ctx: &mut Ctx<'_>,
        stats: &mut ReceiverStats,
    ) -> PassiveEvent {
        if self.sub.on_timer(fired, ctx, stats)
            || fired.key != self.syn_timer.key()
            || !self.syn_timer.fire(ctx, fired)
        {
            return PassiveEvent::Nothing;
        }
        match self.state {
            RxState::SynRcvd { transmissions } if transmissions >= self.syn_max_transmissions => {
                PassiveEvent::Failed
            }
            RxState::SynRcvd { transmissions } => {
                self.send_syn_ack(ctx, transmissions + 1);
                PassiveEvent::Nothing
            }
            RxState::LastAck { transmissions } if transmissions >= self.syn_max_transmissions => {
                PassiveEvent::Finished // **[PROPOSED]**: give up waiting for the last ACK
            }
            RxState::LastAck { transmissions } => {
                self.sub.send_ack(ctx, stats);
                self.state = RxState::LastAck {
                    transmissions: transmissions + 1,
                };
                let at = ctx.now().saturating_add(self.backoff(transmissions + 1));
                self.syn_timer.set(ctx, at);
                PassiveEvent::Nothing
            }
            RxState::Listen | RxState::Established => PassiveEvent::Nothing,
        }
    }
}

const SYN_TIMER: u32 = 0;
const DACK_TIMER: u32 = 1;

/// The receiving endpoint of a TCP (or DCTCP) connection: one [`PassiveSubflow`], an in-order
/// delivery check, and the counters.
pub struct TcpReceiver {
    flow_id: u64,
    sub: PassiveSubflow,
    next_data: u64,
    stats: ReceiverStats,
    report: Option<ReportSink>,
}

impl TcpReceiver {
    /// A listening receiver for flow `flow_id`, answering `peer` over `path` (its ports are
    /// the reverse of the sender's).
    pub fn new(
        flow_id: u64,
        peer: EndpointId,
        path: PathChoice,
        config: &TcpConfig,
        report: Option<ReportSink>,
    ) -> Self {
        TcpReceiver {
            flow_id,
            sub: PassiveSubflow::new(0, peer, flow_id as u32, path, config, SYN_TIMER, DACK_TIMER),
            next_data: FIRST_SEQ,
            stats: ReceiverStats::default(),
            report,
        }
    }

    /// The receiver's counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    fn react(&mut self, event: PassiveEvent, ctx: &mut Ctx<'_>) {
        if event == PassiveEvent::Nothing {
            return;
        }
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

impl Endpoint for TcpReceiver {
    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        let next = &mut self.next_data;
        let (mut delivered, mut errors) = (0u64, 0u64);
        let event = self
            .sub
            .on_packet(packet, ctx, &mut self.stats, &mut |data_seq, len| {
                if data_seq != *next {
                    errors += 1;
                }
                *next = data_seq + len as u64;
                delivered += len as u64;
            });
        self.stats.bytes_delivered += delivered;
        self.stats.order_errors += errors;
        self.react(event, ctx);
    }

    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        let event = self.sub.on_timer(fired, ctx, &mut self.stats);
        self.react(event, ctx);
    }
}

/// XMP's count echo (docs/model.md 7.2) on the ACK `p`: `e = min(cnt_ce, 3)` CE-marked segments
/// not yet echoed go into ECE (bit 0) and CWR (bit 1), and are taken off `cnt_ce`.
pub(crate) fn echo_ce_count(cnt_ce: &mut u32, p: &mut Packet) {
    let e = (*cnt_ce).min(3);
    if e & 1 != 0 {
        p.set(flags::ECE);
    }
    if e & 2 != 0 {
        p.set(flags::CWR);
    }
    *cnt_ce -= e;
}
