//! The per-subflow sender engine (docs/model.md 2): handshake initiation with SYN timers,
//! sending with go-back-N resends, ACK classification, NewReno fast retransmit and fast
//! recovery, RTT sampling and the RTO, FIN.
//!
//! TCP and DCTCP are connections with one [`Subflow`]; packet scatter, MPTCP, MMPTCP and XMP
//! reuse it per subflow and change only its hooks: the [`CongestionControl`] passed to each call,
//! the dupthresh, limited transmit, the [`PathPolicy`](crate::path::PathPolicy) of its data
//! packets and their ECN capability. The subflow does not own the application data: new bytes
//! come from a [`DataSource`] (the connection's send buffer and data-sequence counter), so a
//! multipath connection's scheduler decides which subflow packetises them.
//!
//! Sequence numbers are in bytes. The SYN takes subflow sequence number 0, so data starts at 1;
//! the FIN takes `snd_max`.

use crate::cc::{AckSample, CcState, CongestionControl};
use crate::config::{EcnMode, FrInflation, FullAckWindow, LimitedTransmit, PacketSizes, TcpConfig};
use crate::path::PathChoice;
use crate::rtt::RttEstimator;
use crate::trace::{TraceKind, Tracer, WindowState};
use htsim_core::endpoint::Ctx;
use htsim_core::ids::EndpointId;
use htsim_core::packet::{flags, Packet, PacketKind};
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::SimTime;
use std::collections::VecDeque;

/// The first data byte's subflow sequence number (the SYN takes 0).
pub const FIRST_SEQ: u64 = 1;

/// Where a subflow's new data comes from: the connection's unsent application bytes.
pub trait DataSource {
    /// Application bytes written but not yet packetised (a large number for an unlimited
    /// application).
    fn unsent_bytes(&self) -> u64;
    /// Packetises the next `len` (<= `unsent_bytes()`) bytes and returns the data sequence number
    /// of the first (docs/model.md 4.2).
    fn take(&mut self, len: u32) -> u64;
    /// The connection's unsent application bytes, even where this subflow may take none of them
    /// (MMPTCP's subflow 0 after the switch): limited transmit acts only while some are left
    /// (docs/model.md 6.6).
    fn pending_bytes(&self) -> u64 {
        self.unsent_bytes()
    }
}

/// What a subflow call borrows from its connection.
pub struct SubflowEnv<'e, 'c> {
    /// The engine context of the current callback.
    pub ctx: &'e mut Ctx<'c>,
    /// The congestion controller to apply.
    pub cc: &'e mut dyn CongestionControl,
    /// The connection's unsent data.
    pub source: &'e mut dyn DataSource,
}

/// A sent, unacknowledged segment of the retransmission queue (docs/model.md 2.3 `rtxq`).
///
/// Its length is not stored: the queue is contiguous in subflow sequence space (new data is
/// appended only at `snd_max`, acknowledged segments leave only from the front, resends keep
/// their segment), so a segment ends where the next one starts and the last one ends at
/// `snd_max`. The retransmitted flag is the top bit of the stored sequence number (byte
/// sequence numbers never reach 2^63). 24 bytes instead of 32: the queues of a large
/// multipath run hold millions of segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Subflow sequence number of the first byte, with [`Segment::RETRANSMITTED`] or-ed in.
    seq_and_flag: u64,
    /// Data sequence number of the first byte (its DSN mapping, kept on retransmission).
    data_seq: u64,
    /// When it was last transmitted.
    sent_at: SimTime,
}

impl Segment {
    /// The bit of `seq_and_flag` that marks a retransmitted segment.
    const RETRANSMITTED: u64 = 1 << 63;

    /// A never-retransmitted segment starting at subflow sequence number `seq` (< 2^63) and
    /// data sequence number `data_seq`, sent at `sent_at`.
    pub fn new(seq: u64, data_seq: u64, sent_at: SimTime) -> Self {
        assert!(
            seq < Self::RETRANSMITTED,
            "subflow sequence number {seq} >= 2^63"
        );
        Segment {
            seq_and_flag: seq,
            data_seq,
            sent_at,
        }
    }
    /// Subflow sequence number of the first byte.
    #[inline]
    pub fn seq(&self) -> u64 {
        self.seq_and_flag & !Self::RETRANSMITTED
    }
    /// Data sequence number of the first byte.
    #[inline]
    pub fn data_seq(&self) -> u64 {
        self.data_seq
    }
    /// When it was last transmitted.
    #[inline]
    pub fn sent_at(&self) -> SimTime {
        self.sent_at
    }
    /// Whether it was ever retransmitted (Karn: no RTT sample from it).
    #[inline]
    pub fn retransmitted(&self) -> bool {
        self.seq_and_flag & Self::RETRANSMITTED != 0
    }
    /// Records a transmission at `now`; `retransmit` marks it retransmitted for good.
    #[inline]
    fn sent(&mut self, now: SimTime, retransmit: bool) {
        if retransmit {
            self.seq_and_flag |= Self::RETRANSMITTED;
        }
        self.sent_at = now;
    }
}

/// Where the subflow is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubflowState {
    /// Not opened yet.
    Idle,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// Handshake done: data may flow (also after the FIN was sent).
    Established,
    /// The SYN was given up after the configured number of transmissions.
    Failed,
}

/// What a subflow's window lets it send now ([`Subflow::send_room`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendRoom {
    /// Nothing.
    Closed,
    /// Room, but less than one MSS: new data only once less than one MSS is left unsent (the
    /// tail of the data; no runt segment mid-stream).
    Tail {
        /// The MSS (bytes).
        mss: u64,
    },
    /// The go-back-N resend at `snd_nxt` (`resend`), or else a full segment of new data.
    Open {
        /// The next segment is a go-back-N resend, sent whatever the unsent data.
        resend: bool,
    },
}

impl SendRoom {
    /// Whether [`Subflow::send_one`] sends with this room and `unsent` new bytes offered.
    #[inline]
    pub fn admits(self, unsent: u64) -> bool {
        match self {
            SendRoom::Closed => false,
            SendRoom::Tail { mss } => unsent > 0 && unsent < mss,
            SendRoom::Open { resend } => resend || unsent > 0,
        }
    }
}

/// Per-subflow counters (docs/model.md 2.12 plus packet counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubflowCounters {
    /// Data packets sent, retransmissions included.
    pub packets_sent: u64,
    /// Data packets retransmitted (fast, partial-ACK and go-back-N resends).
    pub retransmits: u64,
    /// Entries into fast recovery.
    pub fast_retransmits: u64,
    /// Data RTO expiries (SYN and FIN timeouts not counted).
    pub timeouts: u64,
    /// Partial ACKs in fast recovery.
    pub partial_acks: u64,
    /// Full ACKs ending fast recovery.
    pub full_acks: u64,
    /// Duplicate ACKs received inside fast recovery.
    pub fr_dupacks: u64,
    /// Dupthresh-th duplicate ACKs that did not start fast retransmit because the cumulative
    /// ACK did not cover more than `recover` (RFC 6582 3.2 step 2; `careful_recovery` only).
    pub fr_suppressed: u64,
    /// Segments sent by limited transmit.
    pub limited_transmits: u64,
    /// New bytes packetised by limited transmit (MMPTCP excludes them from its switching count).
    pub limited_transmit_bytes: u64,
    /// Bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Window reductions on an ECN echo under RFC 3168 (`tcp` with `ecn = true`).
    pub ecn_reductions: u64,
    /// SYN transmissions.
    pub syns_sent: u32,
}

/// How an ACK was classified (docs/model.md 2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    /// It acknowledged new data.
    New,
    /// A duplicate ACK.
    Duplicate,
    /// The duplicate ACK that started fast recovery (its retransmission is sent).
    FastRetransmit,
    /// Neither (old, or nothing outstanding).
    Ignored,
}

/// What a subflow timer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerOutcome {
    /// Not this subflow's timer, or a stale event.
    Nothing,
    /// A data RTO: go-back-N started (the caller should run its scheduler).
    Rto,
    /// The FIN was retransmitted.
    FinRetransmitted,
    /// The FIN was given up (no FIN+ACK after the configured transmissions).
    FinGaveUp,
    /// The SYN was retransmitted.
    SynRetransmitted,
    /// The SYN was given up: the subflow failed.
    SynFailed,
}

/// Identity and addressing of a subflow.
#[derive(Clone, Debug)]
pub struct SubflowAddr {
    /// The subflow's index in its connection (carried in [`Packet::subflow`]).
    pub index: u16,
    /// The peer endpoint receiving this subflow's packets.
    pub peer: EndpointId,
    /// The flow number carried in [`Packet::flow`].
    pub flow: u32,
    /// Path set, ports and data-path policy.
    pub path: PathChoice,
    /// Key of the RTO timer (unique among the owning endpoint's timers).
    pub rto_timer_key: u32,
    /// Key of the SYN timer.
    pub syn_timer_key: u32,
}

/// State of the FIN on this subflow (docs/model.md 2.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fin {
    NotSent,
    Sent { transmissions: u32 },
    Acked,
}

/// The sender side of one subflow.
#[derive(Debug)]
pub struct Subflow {
    /// The subflow's index in its connection ([`SubflowAddr::index`]).
    index: u16,
    /// The peer endpoint ([`SubflowAddr::peer`]).
    peer: EndpointId,
    /// The flow number of its packets ([`SubflowAddr::flow`]).
    flow: u32,
    /// Path set, ports and data-path policy. (The timer keys live in the timers.)
    path: PathChoice,
    state: SubflowState,
    mss: u64,
    sizes: PacketSizes,
    ecn: EcnMode,
    /// The receive-window cap in bytes (`u64::MAX` when there is none).
    rwnd_cap: u64,
    fr_inflation: FrInflation,
    careful_recovery: bool,
    rto_keeps_dupacks: bool,
    full_ack_window: FullAckWindow,
    limited_transmit: LimitedTransmit,
    dupthresh: u32,
    syn_timeout: SimTime,
    syn_max_transmissions: u32,
    /// Whether the SYN is retransmitted on the SYN timer (MMPTCP's ns-3 joins: not).
    syn_retransmit: bool,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    cwnd: u64,
    ssthresh: u64,
    in_fr: bool,
    /// With [`EcnMode::cwr`] (RFC 3168): the next new data segment carries CWR, announcing a
    /// window reduction.
    cwr_pending: bool,
    /// With [`EcnMode::cwr`]: `snd_max` at the last window reduction (ECN or loss); echoes
    /// are ignored until `snd_una` is beyond it, one reduction per window (RFC 3168 6.1.2).
    ecn_recover: u64,
    recover: u64,
    dupacks: u32,
    rtxq: VecDeque<Segment>,
    rtt: RttEstimator,
    rto_timer: Timer,
    syn_timer: Timer,
    fin: Fin,
    established_at: Option<SimTime>,
    counters: SubflowCounters,
    /// Set when the connection is traced ([`crate::trace`]); `None` costs one branch per site.
    trace: Option<Box<Tracer>>,
}

impl Subflow {
    /// A subflow with `config`'s initial window, thresholds and timers (docs/model.md 2.1).
    pub fn new(addr: SubflowAddr, config: &TcpConfig) -> Self {
        let mss = config.mss_bytes();
        Subflow {
            rto_timer: Timer::new(addr.rto_timer_key),
            syn_timer: Timer::new(addr.syn_timer_key),
            index: addr.index,
            peer: addr.peer,
            flow: addr.flow,
            path: addr.path,
            state: SubflowState::Idle,
            mss,
            sizes: config.sizes,
            ecn: config.ecn,
            rwnd_cap: config.rwnd_cap.unwrap_or(u64::MAX),
            fr_inflation: config.fr_inflation,
            careful_recovery: config.careful_recovery,
            rto_keeps_dupacks: config.rto_keeps_dupacks,
            full_ack_window: config.full_ack_window,
            limited_transmit: config.limited_transmit,
            dupthresh: config.dupthresh,
            syn_timeout: config.syn_timeout,
            syn_max_transmissions: config.syn_max_transmissions,
            syn_retransmit: true,
            snd_una: FIRST_SEQ,
            snd_nxt: FIRST_SEQ,
            snd_max: FIRST_SEQ,
            cwnd: config.initial_cwnd_segments as u64 * mss,
            ssthresh: config.initial_ssthresh,
            in_fr: false,
            cwr_pending: false,
            ecn_recover: FIRST_SEQ,
            recover: FIRST_SEQ - 1, // the SYN's sequence number (RFC 6582: the ISN)
            dupacks: 0,
            rtxq: VecDeque::new(),
            rtt: RttEstimator::new(config),
            fin: Fin::NotSent,
            established_at: None,
            counters: SubflowCounters::default(),
            trace: None,
        }
    }

    /// Traces this subflow's events into `tracer` ([`crate::trace`]); `None` stops tracing.
    pub fn set_tracer(&mut self, tracer: Option<Tracer>) {
        self.trace = tracer.map(Box::new);
    }

    /// The window state recorded with trace events.
    pub fn window_state(&self) -> WindowState {
        WindowState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
        }
    }

    /// Records `kind` with `value` if traced.
    #[inline]
    fn trace(&self, now: SimTime, kind: TraceKind, value: u64) {
        if let Some(t) = &self.trace {
            t.record(now, kind, self.window_state(), value);
        }
    }

    /// Records the flow's completion (bytes acknowledged) if traced.
    pub fn trace_completed(&self, now: SimTime) {
        self.trace(now, TraceKind::Completed, self.snd_una - FIRST_SEQ);
    }

    /// The trace handle, if this subflow is traced.
    pub fn tracer(&self) -> Option<&Tracer> {
        self.trace.as_deref()
    }

    /// Records a `window` event if traced and cwnd crossed a whole MSS or ssthresh changed.
    #[inline]
    fn trace_window(&mut self, now: SimTime) {
        if self.trace.is_some() {
            let state = self.window_state();
            if let Some(t) = self.trace.as_mut() {
                t.window(now, state, self.mss);
            }
        }
    }

    // ----- inspection and hooks -----------------------------------------------------------

    /// The subflow's index in its connection.
    pub fn index(&self) -> u16 {
        self.index
    }
    /// Lifecycle state.
    pub fn state(&self) -> SubflowState {
        self.state
    }
    /// Whether the handshake completed.
    pub fn is_established(&self) -> bool {
        self.state == SubflowState::Established
    }
    /// When the SYN-ACK arrived.
    pub fn established_at(&self) -> Option<SimTime> {
        self.established_at
    }
    /// Congestion window (bytes).
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    /// Slow-start threshold (bytes).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// Sets cwnd (bytes), e.g. MMPTCP's phase-2 initial window (docs/model.md 6.3).
    pub fn set_cwnd(&mut self, cwnd: u64, now: SimTime) {
        self.cwnd = cwnd;
        self.trace_window(now);
    }
    /// First unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// Data sequence number of the first byte this subflow has sent and not had acknowledged
    /// (its DSN mapping), `None` when nothing is outstanding.
    pub fn first_unacked_data_seq(&self) -> Option<u64> {
        let front = self.rtxq.front()?;
        Some(front.data_seq + self.snd_una.saturating_sub(front.seq()))
    }
    /// Next byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// Highest byte sent + 1.
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    /// In NewReno fast recovery.
    pub fn in_fast_recovery(&self) -> bool {
        self.in_fr
    }
    /// Fast recovery, or go-back-N resends after an RTO not finished.
    pub fn in_recovery(&self) -> bool {
        self.in_fr || self.snd_nxt < self.snd_max
    }
    /// The dupthresh (docs/model.md 2.8, 6.5).
    pub fn dupthresh(&self) -> u32 {
        self.dupthresh
    }
    /// Changes the dupthresh (e.g. PS / MMPTCP subflow 0: 3 + number of paths).
    pub fn set_dupthresh(&mut self, dupthresh: u32) {
        self.dupthresh = dupthresh.max(1);
    }
    /// Sends the SYN once, without the SYN timer: no retry and no give-up (the MP_JOIN SYNs of
    /// the ns-3 code, [`crate::mptcp`]).
    pub fn disable_syn_retransmit(&mut self) {
        self.syn_retransmit = false;
    }
    /// Changes the limited-transmit mode (docs/model.md 6.6).
    pub fn set_limited_transmit(&mut self, mode: LimitedTransmit) {
        self.limited_transmit = mode;
    }
    /// The path of this subflow's packets (to change its policy, e.g. to stop scattering).
    pub fn path_mut(&mut self) -> &mut PathChoice {
        &mut self.path
    }
    /// The RTT estimator.
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The counters.
    pub fn counters(&self) -> &SubflowCounters {
        &self.counters
    }
    /// Bytes sent and not yet acknowledged (`snd_max - snd_una`).
    pub fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }
    /// Whether the FIN was sent.
    pub fn fin_sent(&self) -> bool {
        self.fin != Fin::NotSent
    }
    /// Whether the peer acknowledged the FIN.
    pub fn fin_acked(&self) -> bool {
        self.fin == Fin::Acked
    }
    /// When the retransmission timer (data and FIN, docs/model.md 2.9) expires, if it is armed.
    pub fn rto_deadline(&self) -> Option<SimTime> {
        self.rto_timer.deadline()
    }
    /// When the SYN timer (docs/model.md 2.2) expires, if it is armed.
    pub fn syn_deadline(&self) -> Option<SimTime> {
        self.syn_timer.deadline()
    }
    /// Whether a timer event with `key` belongs to this subflow.
    pub fn owns_timer(&self, key: u32) -> bool {
        key == self.rto_timer.key() || key == self.syn_timer.key()
    }

    /// The window state handed to a congestion controller.
    pub fn cc_state(&self) -> CcState {
        CcState {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            mss: self.mss,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
            snd_max: self.snd_max,
            in_recovery: self.in_recovery(),
            srtt: self.rtt.srtt(),
            subflow: self.index,
        }
    }

    fn apply(&mut self, st: &CcState) {
        self.cwnd = st.cwnd;
        self.ssthresh = st.ssthresh;
    }

    /// The usable window: min(rwnd, cwnd) - (snd_nxt - snd_una), clamped at 0 (docs/model.md 2.4).
    pub fn usable_window(&self) -> u64 {
        let wnd = self.rwnd_cap.min(self.cwnd);
        wnd.saturating_sub(self.snd_nxt - self.snd_una)
    }

    // ----- handshake ----------------------------------------------------------------------

    /// Sends the SYN and arms the SYN timer (docs/model.md 2.2 step 1-2).
    pub fn open(&mut self, ctx: &mut Ctx<'_>) {
        self.state = SubflowState::SynSent;
        self.send_syn(ctx);
    }

    fn send_syn(&mut self, ctx: &mut Ctx<'_>) {
        self.counters.syns_sent += 1;
        let route = self.path.control_route(ctx);
        ctx.send(self.control(PacketKind::Syn, route, self.sizes.syn, 0, ctx.now()));
        if self.trace.is_some() {
            let sent = u64::from(self.counters.syns_sent);
            if sent == 1 {
                self.trace(ctx.now(), TraceKind::Path, u64::from(route.0));
            }
            self.trace(ctx.now(), TraceKind::Syn, sent);
        }
        if !self.syn_retransmit {
            return;
        }
        // Timeout = syn_timeout x 2^(attempt - 1).
        let shift = (self.counters.syns_sent - 1).min(30);
        let wait = SimTime::from_ps(self.syn_timeout.as_ps().saturating_mul(1u64 << shift));
        self.syn_timer.set(ctx, ctx.now().saturating_add(wait));
    }

    /// Handles a SYN-ACK: the first establishes the subflow (the estimator is reset, the
    /// handshake RTT is not sampled) and returns `true`; each is answered with a pure ACK
    /// (docs/model.md 2.2 step 4).
    pub fn on_syn_ack(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let first = self.state == SubflowState::SynSent;
        if first {
            self.state = SubflowState::Established;
            self.established_at = Some(ctx.now());
            self.syn_timer.cancel();
            self.rtt.reset();
            self.trace(
                ctx.now(),
                TraceKind::Established,
                self.counters.syns_sent.into(),
            );
            self.trace_window(ctx.now());
        }
        if self.state == SubflowState::Established {
            self.send_ack(ctx, FIRST_SEQ);
        }
        first
    }

    /// Sends a pure ACK acknowledging `ack` (the handshake ACK, the ACK of a FIN+ACK).
    pub fn send_ack(&mut self, ctx: &mut Ctx<'_>, ack: u64) {
        let route = self.path.control_route(ctx);
        let mut p = self.control(
            PacketKind::Ack,
            route,
            self.sizes.ack,
            self.snd_max,
            ctx.now(),
        );
        p.ack = ack;
        ctx.send(p);
    }

    /// Sends a RST (a connection that gives up tells its peer, so the peer closes too).
    pub fn send_rst(&mut self, ctx: &mut Ctx<'_>) {
        let route = self.path.control_route(ctx);
        ctx.send(self.control(
            PacketKind::Rst,
            route,
            self.sizes.fin,
            self.snd_max,
            ctx.now(),
        ));
    }

    fn control(
        &self,
        kind: PacketKind,
        route: htsim_core::ids::RouteId,
        size: u32,
        seq: u64,
        now: SimTime,
    ) -> Packet {
        Packet {
            seq,
            sent_at: now,
            dst: self.peer,
            route,
            size_bytes: size,
            flow: self.flow,
            subflow: self.index,
            kind,
            ..Packet::default()
        }
    }

    // ----- sending ------------------------------------------------------------------------

    fn segment_index(&self, seq: u64) -> Option<usize> {
        self.rtxq.binary_search_by_key(&seq, Segment::seq).ok()
    }

    /// One past the last byte of `rtxq[i]`: where the next segment starts, or `snd_max`.
    #[inline]
    fn segment_end(&self, i: usize) -> u64 {
        self.rtxq.get(i + 1).map_or(self.snd_max, Segment::seq)
    }

    /// Payload bytes of `rtxq[i]` (at most one MSS).
    #[inline]
    fn segment_len(&self, i: usize) -> u32 {
        (self.segment_end(i) - self.rtxq[i].seq()) as u32
    }

    fn arm_rto_if_idle(&mut self, ctx: &mut Ctx<'_>) {
        if !self.rto_timer.is_armed() {
            self.rto_timer
                .set(ctx, ctx.now().saturating_add(self.rtt.rto()));
        }
    }

    fn restart_rto(&mut self, ctx: &mut Ctx<'_>) {
        self.rto_timer
            .set(ctx, ctx.now().saturating_add(self.rtt.rto()));
    }

    /// Transmits `rtxq[i]`; a retransmission is marked (Karn) and counted.
    fn transmit(&mut self, i: usize, ctx: &mut Ctx<'_>, retransmit: bool) {
        let now = ctx.now();
        let len = self.segment_len(i);
        let seg = &mut self.rtxq[i];
        seg.sent(now, retransmit);
        let (seq, data_seq) = (seg.seq(), seg.data_seq);
        if retransmit {
            self.counters.retransmits += 1;
        }
        self.counters.packets_sent += 1;
        let (route, scattered) = self.path.data_route(ctx);
        let mut f = 0;
        if self.ecn.ect_data && (!retransmit || self.ecn.ect_retransmits) {
            f |= flags::ECT;
        }
        if retransmit {
            f |= flags::RETRANSMIT;
        } else if self.cwr_pending {
            f |= flags::CWR;
            self.cwr_pending = false;
        }
        if scattered {
            f |= flags::SCATTERED;
        }
        ctx.send(Packet {
            seq,
            ack: 0,
            data_seq,
            sent_at: now,
            dst: self.peer,
            route,
            size_bytes: self.sizes.data(len),
            payload_bytes: len,
            flow: self.flow,
            hop: 0,
            subflow: self.index,
            kind: PacketKind::Data,
            flags: f,
        });
    }

    /// Packetises and sends `len` new bytes.
    fn send_new(&mut self, len: u32, env: &mut SubflowEnv<'_, '_>) {
        // The queue stays contiguous: new data starts at snd_max and ends the queue.
        debug_assert_eq!(self.snd_nxt, self.snd_max);
        let data_seq = env.source.take(len);
        crate::grow::reserve_one(&mut self.rtxq);
        self.rtxq
            .push_back(Segment::new(self.snd_max, data_seq, env.ctx.now()));
        self.snd_max += len as u64;
        self.snd_nxt = self.snd_max;
        let i = self.rtxq.len() - 1;
        self.transmit(i, env.ctx, false);
        self.arm_rto_if_idle(env.ctx);
    }

    /// Resends the stored segment at `snd_nxt` (go-back-N); returns false if there is none.
    fn resend_next(&mut self, ctx: &mut Ctx<'_>) -> bool {
        let Some(i) = self.segment_index(self.snd_nxt) else {
            return false;
        };
        let len = self.segment_len(i) as u64;
        self.transmit(i, ctx, true);
        self.snd_nxt += len;
        self.arm_rto_if_idle(ctx);
        true
    }

    /// Sends one segment if the window allows: the go-back-N resend at `snd_nxt` first, else
    /// new data, with no runt segment mid-stream (docs/model.md 2.4). Returns whether it sent.
    pub fn send_one(&mut self, env: &mut SubflowEnv<'_, '_>) -> bool {
        let unsent = env.source.unsent_bytes();
        if !self.can_send(unsent) {
            return false;
        }
        if self.snd_nxt < self.snd_max {
            return self.resend_next(env.ctx);
        }
        let len = self.usable_window().min(self.mss).min(unsent) as u32;
        self.send_new(len, env);
        true
    }

    /// Whether [`Subflow::send_one`] would send a segment now, with `unsent` new bytes offered
    /// ([`Subflow::send_room`]). It changes nothing, so a scheduler can pass over subflows with
    /// full windows cheaply.
    #[inline]
    pub fn can_send(&self, unsent: u64) -> bool {
        self.send_room().admits(unsent)
    }

    /// What the window lets [`Subflow::send_one`] send now (docs/model.md 2.4): nothing unless
    /// established and not closed by a FIN; the go-back-N resend at `snd_nxt` if it fits; else
    /// new data, and with less than one MSS of room only the tail of the data (no runt segment
    /// mid-stream). A function of the subflow's own state alone, so a scheduler
    /// may keep it until the subflow changes.
    #[inline]
    pub fn send_room(&self) -> SendRoom {
        if self.state != SubflowState::Established
            || (self.fin_sent() && self.snd_nxt == self.snd_max)
        {
            return SendRoom::Closed;
        }
        let usable = self.usable_window();
        if self.snd_nxt < self.snd_max {
            // A stored segment keeps its length: send it only when it fits (**[PROPOSED]**).
            let fits = self
                .segment_index(self.snd_nxt)
                .is_some_and(|i| self.segment_len(i) as u64 <= usable);
            return if fits {
                SendRoom::Open { resend: true }
            } else {
                SendRoom::Closed
            };
        }
        if usable == 0 {
            SendRoom::Closed
        } else if usable < self.mss {
            SendRoom::Tail { mss: self.mss }
        } else {
            SendRoom::Open { resend: false }
        }
    }

    /// Sends while the window allows (TCP's `try_send`; a multipath scheduler calls
    /// [`Subflow::send_one`] instead).
    pub fn try_send(&mut self, env: &mut SubflowEnv<'_, '_>) {
        while self.send_one(env) {}
    }

    /// Sends one segment regardless of cwnd (limited transmit, docs/model.md 6.6).
    fn send_limited(&mut self, env: &mut SubflowEnv<'_, '_>) {
        if self.snd_nxt < self.snd_max {
            if self.resend_next(env.ctx) {
                self.counters.limited_transmits += 1;
            }
            return;
        }
        let unsent = env.source.unsent_bytes();
        if unsent == 0 {
            return;
        }
        let len = unsent.min(self.mss) as u32;
        self.send_new(len, env);
        self.counters.limited_transmits += 1;
        self.counters.limited_transmit_bytes += len as u64;
    }

    /// Sends the FIN (`seq = snd_max`) once all data has been transmitted (docs/model.md 2.11).
    pub fn send_fin(&mut self, ctx: &mut Ctx<'_>) {
        let transmissions = match self.fin {
            Fin::NotSent => 1,
            Fin::Sent { transmissions } => transmissions + 1,
            Fin::Acked => return,
        };
        self.fin = Fin::Sent { transmissions };
        self.trace(ctx.now(), TraceKind::Fin, transmissions.into());
        let route = self.path.control_route(ctx);
        let mut p = self.control(
            PacketKind::Fin,
            route,
            self.sizes.fin,
            self.snd_max,
            ctx.now(),
        );
        p.flags = flags::FIN;
        ctx.send(p);
        self.arm_rto_if_idle(ctx);
    }

    /// Records that the peer acknowledged the FIN; stops the RTO timer.
    pub fn on_fin_acked(&mut self) {
        self.fin = Fin::Acked;
        self.rto_timer.cancel();
    }

    // ----- ACK processing -----------------------------------------------------------------

    /// Processes an ACK (docs/model.md 2.6-2.9 and the controller's ECN hook). It does not send
    /// new data: the caller runs its scheduler afterwards ([`Subflow::try_send`] for TCP),
    /// except after [`AckKind::FastRetransmit`] without `TcpConfig::send_at_fast_retransmit`.
    /// Fast retransmissions, partial-ACK retransmissions and limited transmit are sent here.
    pub fn on_ack(&mut self, packet: &Packet, env: &mut SubflowEnv<'_, '_>) -> AckKind {
        if self.state != SubflowState::Established {
            return AckKind::Ignored;
        }
        let now = env.ctx.now();
        // A FIN+ACK acknowledges snd_max + 1 (the FIN); only data counts here.
        let a = packet.ack.min(self.snd_max);
        // Karn's sample: the oldest segment, fully covered and never retransmitted (2.9).
        if let Some(front) = self.rtxq.front() {
            if a >= self.segment_end(0) && !front.retransmitted() {
                self.rtt.sample(now.saturating_sub(front.sent_at));
            }
        }
        let mut kind = if a > self.snd_una {
            AckKind::New
        } else if a == self.snd_una
            && self.rtxq.front().is_some_and(|s| s.seq() == a)
            && a < self.snd_nxt
        {
            AckKind::Duplicate
        } else {
            AckKind::Ignored
        };
        let newly = if kind == AckKind::New {
            a - self.snd_una
        } else {
            0
        };
        let sample = AckSample {
            ack: a,
            snd_una_before: self.snd_una,
            newly_acked: newly,
            duplicate: kind == AckKind::Duplicate,
            ece: packet.has(flags::ECE),
            cwr: packet.has(flags::CWR),
        };
        let mut st = self.cc_state();
        st.snd_una = a.max(self.snd_una);
        let mut suppress_increase = env.cc.on_ack(&mut st, &sample);
        if self.ecn.cwr && sample.ece && !st.in_recovery {
            // RFC 3168 6.1.2: an echo is a loss without a retransmission, at most once per
            // window; no echo grows the window. In loss recovery echoes are ignored: after a
            // timeout, go-back-N slow-starts even while the receiver still echoes (its CWR
            // goes only on new data).
            suppress_increase = true;
            // The ACK must cover data sent after the last reduction (beyond `ecn_recover`): the
            // ACK of the last segment sent before it still carries the latched echo.
            if st.snd_una > self.ecn_recover {
                st.ssthresh = env.cc.fast_retransmit_ssthresh(&st);
                st.cwnd = st.ssthresh;
                self.reduced_window();
                self.counters.ecn_reductions += 1;
            }
        }
        self.apply(&st);
        match kind {
            AckKind::New => {
                self.new_ack(&sample, suppress_increase, env);
                self.dupacks = 0;
                self.counters.bytes_acked += newly;
            }
            AckKind::Duplicate => {
                if self.dup_ack(env) {
                    kind = AckKind::FastRetransmit;
                }
            }
            AckKind::FastRetransmit | AckKind::Ignored => {}
        }
        self.trace_window(now);
        kind
    }

    /// Notes a window reduction under RFC 3168 ([`EcnMode::cwr`]): an ECN echo, a fast
    /// retransmit or a timeout. Echoes of data sent before it are then ignored, and the next
    /// new data segment tells the receiver with CWR.
    fn reduced_window(&mut self) {
        if self.ecn.cwr {
            self.ecn_recover = self.snd_max;
            self.cwr_pending = true;
        }
    }

    fn drop_acked(&mut self, a: u64) {
        while !self.rtxq.is_empty() && self.segment_end(0) <= a {
            self.rtxq.pop_front();
        }
    }

    /// new_ack of docs/model.md 2.8.
    fn new_ack(&mut self, ack: &AckSample, suppress_increase: bool, env: &mut SubflowEnv<'_, '_>) {
        let a = ack.ack;
        let old_una = self.snd_una;
        if self.in_fr && a < self.recover {
            // Partial ACK: deflate (saturating, docs/model.md 10 #8), resend the next hole.
            self.cwnd = self.cwnd.saturating_sub(ack.newly_acked) + self.mss;
            self.drop_acked(a);
            self.snd_una = a;
            // Without careful_recovery, fast recovery can start during go-back-N (recover is not
            // updated on RTO, 2.8), so the ACK may pass snd_nxt; the hole resent here is then
            // also the next resend.
            if a > self.snd_nxt {
                self.snd_nxt = a;
            }
            if let Some(i) = self.segment_index(a) {
                let len = self.segment_len(i) as u64;
                self.transmit(i, env.ctx, true);
                if self.snd_nxt == a {
                    self.snd_nxt += len;
                }
            }
            self.restart_rto(env.ctx);
            self.counters.partial_acks += 1;
            return;
        }
        if self.in_fr {
            // Full ACK: deflate (2.8; RFC 6582 3.2 step 3).
            let flight = match self.full_ack_window {
                FullAckWindow::PreAckFlight => self.snd_max - old_una,
                FullAckWindow::Outstanding => (self.snd_max - a).max(self.mss),
            };
            self.cwnd = self.ssthresh.min(flight + self.mss);
            self.in_fr = false;
            self.counters.full_acks += 1;
        }
        self.drop_acked(a);
        self.snd_una = a;
        if a > self.snd_nxt {
            self.snd_nxt = a;
        }
        if !suppress_increase {
            let mut st = self.cc_state();
            env.cc.increase(&mut st, ack);
            self.apply(&st);
        }
        let fin_outstanding = matches!(self.fin, Fin::Sent { .. });
        if self.snd_una == self.snd_max && env.source.unsent_bytes() == 0 && !fin_outstanding {
            self.rto_timer.cancel();
        } else {
            self.restart_rto(env.ctx);
        }
    }

    /// dup_ack of docs/model.md 2.8, with limited transmit (6.6) and, with `careful_recovery`,
    /// RFC 6582 3.2 step 2: no fast retransmit unless the cumulative ACK covers more than
    /// `recover` (such duplicate ACKs are not a new instance of congestion: they answer resends
    /// of data the receiver holds, RFC 6582 4). `recover` holds `snd_max` (one past the highest
    /// byte sent) where the RFC records the highest byte itself, so "covers more than recover"
    /// (the RFC's `ack_number - 1 > recover`) is `snd_una > recover` here.
    /// Returns whether it started fast recovery.
    fn dup_ack(&mut self, env: &mut SubflowEnv<'_, '_>) -> bool {
        self.dupacks += 1;
        if self.dupacks == self.dupthresh
            && !self.in_fr
            && self.careful_recovery
            && self.snd_una <= self.recover
        {
            self.counters.fr_suppressed += 1;
        } else if self.dupacks == self.dupthresh && !self.in_fr {
            let st = self.cc_state();
            // RFC 3168 6.1.2, as Linux: a loss of data sent before an ECN reduction is the same
            // congestion, and the window is not reduced twice for it.
            let reduced_already = self.ecn.cwr && self.snd_una < self.ecn_recover;
            if !reduced_already {
                self.ssthresh = env.cc.fast_retransmit_ssthresh(&st);
            }
            let inflation = match self.fr_inflation {
                FrInflation::ThreeMss => 3 * self.mss,
                FrInflation::Dupthresh => self.dupthresh as u64 * self.mss,
            };
            self.cwnd = self.ssthresh + inflation;
            self.recover = self.snd_max;
            self.in_fr = true;
            self.reduced_window();
            self.transmit(0, env.ctx, true); // the segment at snd_una (a dup ACK implies it exists)
            self.arm_rto_if_idle(env.ctx); // a running timer is not restarted
            self.counters.fast_retransmits += 1;
            self.trace(
                env.ctx.now(),
                TraceKind::FastRetransmit,
                self.dupacks.into(),
            );
            return true;
        } else if self.in_fr {
            self.cwnd += self.mss;
            self.counters.fr_dupacks += 1;
        } else if env.source.pending_bytes() > 0 {
            // 6.6: only while application data is unsent; then one new segment, or the next
            // go-back-N resend.
            match self.limited_transmit {
                LimitedTransmit::Off => {}
                LimitedTransmit::Mmptcp => {
                    // Below dupthresh; or past it, where only an RTO that kept the count
                    // leads (the ns-3 model sends on every such duplicate ACK).
                    if self.dupacks < self.dupthresh || self.rto_keeps_dupacks {
                        self.send_limited(env);
                    }
                }
                LimitedTransmit::Rfc3042 => {
                    let next = env.source.unsent_bytes().min(self.mss);
                    let flight = self.snd_nxt - self.snd_una;
                    if self.dupacks <= 2 && flight + next <= self.cwnd + 2 * self.mss {
                        self.send_limited(env);
                    }
                }
            }
        }
        false
    }

    // ----- timers -------------------------------------------------------------------------

    /// Handles one of this subflow's timer events (RTO: docs/model.md 2.10; SYN: 2.2).
    pub fn on_timer(&mut self, fired: TimerFired, env: &mut SubflowEnv<'_, '_>) -> TimerOutcome {
        if fired.key == self.syn_timer.key() {
            if !self.syn_timer.fire(env.ctx, fired) || self.state != SubflowState::SynSent {
                return TimerOutcome::Nothing;
            }
            if self.counters.syns_sent >= self.syn_max_transmissions {
                self.state = SubflowState::Failed;
                self.rto_timer.cancel();
                self.trace(
                    env.ctx.now(),
                    TraceKind::SynFailed,
                    self.counters.syns_sent.into(),
                );
                return TimerOutcome::SynFailed;
            }
            self.send_syn(env.ctx);
            return TimerOutcome::SynRetransmitted;
        }
        if fired.key != self.rto_timer.key() || !self.rto_timer.fire(env.ctx, fired) {
            return TimerOutcome::Nothing;
        }
        if self.state != SubflowState::Established {
            return TimerOutcome::Nothing;
        }
        if self.rtxq.is_empty() {
            // Only the FIN can be outstanding; it is resent with the data RTO (2.11).
            return match self.fin {
                Fin::Sent { transmissions } if transmissions >= self.syn_max_transmissions => {
                    TimerOutcome::FinGaveUp
                }
                Fin::Sent { .. } => {
                    self.rtt.back_off();
                    self.send_fin(env.ctx);
                    TimerOutcome::FinRetransmitted
                }
                _ => TimerOutcome::Nothing, // stale timer
            };
        }
        self.trace(env.ctx.now(), TraceKind::Rto, self.rtt.rto().as_ns());
        self.in_fr = false;
        if !self.rto_keeps_dupacks {
            self.dupacks = 0;
        }
        if self.careful_recovery {
            self.recover = self.snd_max; // RFC 6582 3.2 step 4
        }
        let mut st = self.cc_state();
        env.cc.on_rto(&mut st);
        self.apply(&st);
        self.reduced_window();
        self.snd_nxt = self.snd_una;
        self.rtt.back_off();
        self.resend_next(env.ctx);
        self.restart_rto(env.ctx);
        self.counters.timeouts += 1;
        self.trace_window(env.ctx.now());
        TimerOutcome::Rto
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_round_trips_its_fields_and_flag() {
        let big = (1 << 63) - 1;
        for (seq, data_seq) in [(FIRST_SEQ, 0), (big, u64::MAX), (1 << 40, 7)] {
            let t0 = SimTime::from_us(3);
            let mut s = Segment::new(seq, data_seq, t0);
            assert_eq!((s.seq(), s.data_seq(), s.sent_at()), (seq, data_seq, t0));
            assert!(!s.retransmitted());
            s.sent(SimTime::from_us(5), false);
            assert!(!s.retransmitted(), "an original transmission is not marked");
            s.sent(SimTime::from_us(9), true);
            assert!(s.retransmitted());
            assert_eq!((s.seq(), s.sent_at()), (seq, SimTime::from_us(9)));
            s.sent(SimTime::from_us(11), false);
            assert!(s.retransmitted(), "the mark stays");
            assert_eq!((s.seq(), s.data_seq()), (seq, data_seq));
        }
    }

    #[test]
    #[should_panic(expected = ">= 2^63")]
    fn a_segment_rejects_a_sequence_number_that_would_hide_the_flag() {
        Segment::new(1 << 63, 0, SimTime::ZERO);
    }

    #[test]
    fn a_segment_takes_three_words() {
        // The point of the encoding (a k=32 MPTCP run queues millions of segments).
        assert_eq!(std::mem::size_of::<Segment>(), 24);
    }
}
