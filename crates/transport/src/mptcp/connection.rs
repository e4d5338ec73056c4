//! The multipath sender endpoint (docs/model.md 4; MMPTCP's two phases, 6): subflow setup with
//! NdiffPorts and MP_JOIN SYNs (4.1), the scheduler (4.3), per-subflow loss recovery through
//! the [`Subflow`] engine with the coupled controller (4.5, 4.6), the staggered FINs (2.11),
//! completion (4.7, 9.6) and the flow record with counters summed over subflows (2.12).

use super::coupled::{CoupledAdapter, CoupledCc, SubflowView};
use super::receiver::MptcpReceiver;
use super::scheduler::{RoundRobin, SubflowMemos};
use super::{MptcpConfig, SubflowPaths, TotalCwndScope};
use crate::cc::CongestionControl;
use crate::config::{LimitedTransmit, TcpConfig};
use crate::error::TransportError;
use crate::newreno::NewReno;
use crate::path::{PathChoice, PathPolicy};
use crate::reach::Reach;
use crate::subflow::{
    AckKind, DataSource, Subflow, SubflowAddr, SubflowCounters, SubflowEnv, SubflowState,
    TimerOutcome, FIRST_SEQ,
};
use crate::tcp::{BulkSend, ConnectionReport, SenderSpec};
use crate::trace::{TraceKind, Tracer, WindowState};
use crate::transport::{Connection, ConnectionSpec, CLIENT_PORT_MIN, SERVER_PORT};
use htsim_core::endpoint::{Ctx, Endpoint, Spawn};
use htsim_core::flow::{FlowRecord, FlowSample};
use htsim_core::ids::{EndpointId, PathSetId};
use htsim_core::packet::{Packet, PacketKind};
use htsim_core::rng::SimRng;
use htsim_core::timer::{Timer, TimerFired};
use htsim_core::SimTime;
use rand::seq::index::sample;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

/// Timer keys: subflow j owns `4j` (RTO) and `4j + 1` (SYN); `4j + 2` opens join j; `4j + 3`
/// sends subflow j's staggered FIN.
const KEYS_PER_SUBFLOW: u32 = 4;

/// MMPTCP's settings for one connection (docs/model.md 6), given by
/// [`MmptcpTransport`](crate::mmptcp::MmptcpTransport).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmptcpSetup {
    /// FlowSizeThresh (bytes): switch when more than this was sent (6.3).
    pub switch_threshold: u64,
    /// Subflows opened at the switch (MaxSubflows - 1 faithful, MaxSubflows clean; 0 = never).
    pub new_subflows: u32,
    /// Subflow 0's dupthresh (3 + X, 6.5).
    pub sf0_dupthresh: u32,
    /// Subflow 0's limited transmit (6.6).
    pub sf0_limited_transmit: LimitedTransmit,
}

/// MMPTCP's run-time state (6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mmptcp {
    setup: MmptcpSetup,
    phase2: bool,
    initiated: bool,
}

/// Lifecycle of the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Connecting,
    Open,
    Completed,
    Failed,
}

/// A data source that offers nothing: MMPTCP's subflow 0 after the switch only recovers its
/// own segments (6.4).
struct NoNewData {
    /// The connection's unsent bytes ([`DataSource::pending_bytes`]).
    pending: u64,
}

impl DataSource for NoNewData {
    fn unsent_bytes(&self) -> u64 {
        0
    }
    fn take(&mut self, _len: u32) -> u64 {
        0 // never called: nothing is offered
    }
    fn pending_bytes(&self) -> u64 {
        self.pending
    }
}

/// Draws `count` integer delays in [0, `span`) microseconds, distinct while `count <= span`
/// (docs/model.md 4.1, 10 #12).
fn distinct_gaps(rng: &mut SimRng, span: u32, count: usize) -> Vec<SimTime> {
    let span = span.max(1) as usize;
    let mut gaps: Vec<u64> = sample(rng, span, count.min(span))
        .into_iter()
        .map(|g| g as u64)
        .collect();
    while gaps.len() < count {
        gaps.push(rng.random_range(0..span as u64));
    }
    gaps.into_iter().map(SimTime::from_us).collect()
}

/// The paths of a connection's subflows that follow no per-packet policy of their own.
#[derive(Clone, Debug, PartialEq, Eq)]
enum SubflowPins {
    /// ECMP on each subflow's own ports.
    Ecmp,
    /// Subflow j on path `p + j` (a [`PathPolicy::Pinned`] connection).
    Consecutive(u32),
    /// Subflow j (from `first` on) on path `order[(j - first) mod order.len()]`: distinct
    /// random paths ([`SubflowPaths::Distinct`]) or the scenario's list
    /// ([`SubflowPaths::Pinned`]).
    Listed {
        /// The first pinned subflow (0 for MPTCP; 1 for MMPTCP, whose subflow 0 sprays).
        first: u32,
        /// Path indices: distinct ones in a random order, or the pinned list.
        order: Arc<[u32]>,
    },
}

impl SubflowPins {
    /// The data-path policy of subflow `j`.
    fn policy(&self, j: u32) -> PathPolicy {
        match self {
            SubflowPins::Ecmp => PathPolicy::Ecmp,
            SubflowPins::Consecutive(p) => PathPolicy::Pinned(p.wrapping_add(j)),
            SubflowPins::Listed { first, order } => match j.checked_sub(*first) {
                Some(i) if !order.is_empty() => PathPolicy::Pinned(order[i as usize % order.len()]),
                _ => PathPolicy::Ecmp,
            },
        }
    }
}

/// The subflows a connection to a pair with a given number of equal-cost paths opens (4.1, 6.3).
struct SubflowCounts {
    /// Subflows MPTCP opens (MaxSubflows, capped by the path count with `cap_subflows`).
    target: u32,
    /// MMPTCP's setup, its subflows opened at the switch capped the same way.
    mmptcp: Option<MmptcpSetup>,
}

impl SubflowCounts {
    fn new(mptcp: &MptcpConfig, mmptcp: Option<MmptcpSetup>, paths: u32) -> Self {
        let cap = |n: u32| if mptcp.cap_subflows { n.min(paths) } else { n };
        SubflowCounts {
            target: cap(mptcp.max_subflows),
            mmptcp: mmptcp.map(|m| MmptcpSetup {
                new_subflows: cap(m.new_subflows),
                ..m
            }),
        }
    }

    /// The first subflow that `mptcp.paths` places and how many it places: all of MPTCP's,
    /// MMPTCP's from subflow 1 (subflow 0 sprays).
    fn placed(&self) -> (u32, u32) {
        match &self.mmptcp {
            Some(m) => (1, m.new_subflows),
            None => (0, self.target),
        }
    }
}

/// The first path index of `list` that `count` subflows placed by it use (subflow i takes
/// `list[i mod len]`) and that a pair with `paths` paths lacks.
fn missing_pin(list: &[u32], count: u32, paths: u32) -> Option<u32> {
    (0..count as usize)
        .map(|i| list[i % list.len()])
        .find(|&index| index >= paths)
}

/// Whether the pinned paths ([`SubflowPaths::Pinned`]) that the subflows of connections to
/// destinations with the `reaches` given would use all exist (MMPTCP's with `mmptcp`, its setup
/// for a destination); stops at the first that lacks one. [`open_multipath`] refuses such a
/// connection with the same error. Without pinned paths, takes nothing from `reaches`.
pub fn check_pinned_paths(
    mptcp: &MptcpConfig,
    reaches: &mut dyn Iterator<Item = Reach>,
    mmptcp: impl Fn(Reach) -> Option<MmptcpSetup>,
) -> Result<(), TransportError> {
    let SubflowPaths::Pinned(list) = &mptcp.paths else {
        return Ok(());
    };
    for reach in reaches {
        let paths = reach.paths;
        let (_, count) = SubflowCounts::new(mptcp, mmptcp(reach), paths).placed();
        if let Some(index) = missing_pin(list, count, paths) {
            return Err(TransportError::PinnedPathOutOfRange { index, paths });
        }
    }
    Ok(())
}

/// The sending endpoint of an MPTCP or MMPTCP connection.
pub struct MptcpSender {
    spec: SenderSpec,
    config: TcpConfig,
    mptcp: MptcpConfig,
    fwd: PathSetId,
    peer: EndpointId,
    base_port: u16,
    pins: SubflowPins,
    /// Subflows MPTCP opens (MaxSubflows, capped by the path count with `cap_subflows`).
    subflow_target: u32,
    subs: Vec<Subflow>,
    /// The coupled controller's view of each subflow, refreshed where `memo` says it is stale.
    views: Vec<SubflowView>,
    /// What is remembered of each subflow until it changes ([`MptcpSender::touch`]).
    memo: SubflowMemos,
    done: Vec<bool>,
    cc: Box<dyn CoupledCc>,
    sf0_cc: NewReno,
    app: BulkSend,
    scheduler: RoundRobin,
    rng: SimRng,
    join_timers: Vec<Timer>,
    fin_timers: Vec<Timer>,
    fin_started: bool,
    mmptcp: Option<Mmptcp>,
    phase: Phase,
    arrival: SimTime,
    end: Option<SimTime>,
    /// The subflow the scheduler last stalled on (a trace shows each new stall once).
    stalled_on: Option<usize>,
    /// Connection-level trace events (joins, stalls, completion), when traced.
    trace: Option<Box<Tracer>>,
}

impl MptcpSender {
    /// The subflows, by index.
    pub fn subflows(&self) -> &[Subflow] {
        &self.subs
    }

    /// Whether MMPTCP has switched to phase 2 (always false for MPTCP).
    pub fn in_phase2(&self) -> bool {
        self.mmptcp.is_some_and(|m| m.phase2)
    }

    /// Counters summed over subflows (2.12).
    pub fn counters(&self) -> SubflowCounters {
        let mut t = SubflowCounters::default();
        for c in self.subs.iter().map(Subflow::counters) {
            t.packets_sent += c.packets_sent;
            t.retransmits += c.retransmits;
            t.fast_retransmits += c.fast_retransmits;
            t.timeouts += c.timeouts;
            t.partial_acks += c.partial_acks;
            t.full_acks += c.full_acks;
            t.fr_dupacks += c.fr_dupacks;
            t.fr_suppressed += c.fr_suppressed;
            t.limited_transmits += c.limited_transmits;
            t.limited_transmit_bytes += c.limited_transmit_bytes;
            t.bytes_acked += c.bytes_acked;
            t.ecn_reductions += c.ecn_reductions;
            t.syns_sent += c.syns_sent;
        }
        t
    }

    /// Data bytes acknowledged in order at the connection level: every byte below the first
    /// one still unacknowledged on some subflow. There is no DATA_ACK (4.4), so this is what
    /// one would carry: a byte counts once its subflow has acknowledged it and every earlier
    /// data byte as well (a subflow's ACK for data beyond a hole on another subflow does not).
    pub fn data_acked(&self) -> u64 {
        self.subs
            .iter()
            .filter_map(Subflow::first_unacked_data_seq)
            .min()
            .map_or(self.app.packetised(), |seq| seq - FIRST_SEQ)
    }

    /// Data bytes sent and cumulatively acknowledged at the subflow level, summed over
    /// subflows: each subflow's `snd_max` and `snd_una` past its first data byte, so a byte
    /// counts once per subflow that carried it, and a subflow's ACK counts whatever holes the
    /// others leave in the data sequence.
    pub fn subflow_bytes(&self) -> (u64, u64) {
        self.subs.iter().fold((0, 0), |(sent, acked), sf| {
            (
                sent + sf.snd_max() - FIRST_SEQ,
                acked + sf.snd_una() - FIRST_SEQ,
            )
        })
    }

    /// The flow record (9.6, 2.12): counters summed over subflows, `bytes_acked` the
    /// connection-level cumulative acknowledgement ([`MptcpSender::data_acked`]), the
    /// `subflow_bytes_*` the subflow level ([`MptcpSender::subflow_bytes`]).
    pub fn record(&self) -> FlowRecord {
        let c = self.counters();
        let (subflow_bytes_sent, subflow_bytes_acked) = self.subflow_bytes();
        FlowRecord {
            flow_id: self.spec.flow_id,
            src: self.spec.src,
            dst: self.spec.dst,
            size_bytes: self.spec.size_bytes,
            arrival: self.arrival,
            start: self.subs[0].established_at(),
            end: self.end,
            bytes_sent: self.app.bytes_sent(),
            bytes_acked: self.data_acked(),
            subflow_bytes_sent,
            subflow_bytes_acked,
            packets_sent: c.packets_sent,
            retransmits: c.retransmits,
            fast_retransmits: c.fast_retransmits,
            timeouts: c.timeouts,
            subflows: self.subs.len() as u32,
        }
    }

    /// MMPTCP's `bytes_sent` of 6.3: new bytes packetised, limited transmit excluded.
    fn switch_bytes(&self) -> u64 {
        self.app.packetised() - self.subs[0].counters().limited_transmit_bytes
    }

    /// Whether subflow `i` counts in W and alpha (4.6 scope; 6.2 and 6.4 for MMPTCP).
    fn in_scope(&self, i: usize) -> bool {
        let sf = &self.subs[i];
        let by_state = match self.mptcp.total_cwnd_scope {
            TotalCwndScope::AllSubflows => sf.state() != SubflowState::Failed,
            TotalCwndScope::Established => sf.is_established(),
        };
        match self.mmptcp {
            Some(m) if m.phase2 => i != 0 && by_state,
            Some(_) => i == 0,
            None => by_state,
        }
    }

    /// The coupled controller's view of subflow `i`.
    fn view(&self, i: usize) -> SubflowView {
        let sf = &self.subs[i];
        SubflowView {
            index: sf.index(),
            established: sf.is_established(),
            in_scope: self.in_scope(i),
            cwnd: sf.cwnd(),
            ssthresh: sf.ssthresh(),
            in_fast_recovery: sf.in_fast_recovery(),
            srtt: sf.rtt().srtt(),
            snd_una: sf.snd_una(),
            snd_nxt: sf.snd_nxt(),
            snd_max: sf.snd_max(),
        }
    }

    /// Marks subflow `i` as changed: its view and the scheduler's memo are redone when next
    /// needed. Called wherever a subflow may change.
    #[inline]
    fn touch(&mut self, i: usize) {
        self.memo.changed(i);
    }

    /// Brings the views of the subflows that changed up to date.
    fn refresh_views(&mut self) {
        for i in 0..self.subs.len() {
            if self.memo.take_stale_view(i) {
                let v = self.view(i);
                match self.views.get_mut(i) {
                    Some(slot) => *slot = v,
                    None => self.views.push(v), // a new subflow: the next index
                }
            }
        }
        debug_assert!(
            (0..self.subs.len()).all(|i| self.views[i] == self.view(i)),
            "a subflow changed without MptcpSender::touch"
        );
    }

    /// Runs `f` on subflow `i` with its environment: MMPTCP's subflow 0 uses the TCP increase
    /// (6.2) and, after the switch, gets no new data (6.4); every other subflow uses the
    /// connection's coupled controller.
    fn with_subflow<R>(
        &mut self,
        i: usize,
        ctx: &mut Ctx<'_>,
        f: impl FnOnce(&mut Subflow, &mut SubflowEnv<'_, '_>) -> R,
    ) -> R {
        self.refresh_views();
        let mmptcp_sf0 = i == 0 && self.mmptcp.is_some();
        let phase2 = self.in_phase2();
        let mut adapter = CoupledAdapter {
            cc: self.cc.as_mut(),
            views: &mut self.views,
        };
        let cc: &mut dyn CongestionControl = if mmptcp_sf0 {
            &mut self.sf0_cc
        } else {
            &mut adapter
        };
        let mut none = NoNewData {
            pending: self.app.unsent_bytes(),
        };
        let source: &mut dyn DataSource = if mmptcp_sf0 && phase2 {
            &mut none
        } else {
            &mut self.app
        };
        let mut env = SubflowEnv { ctx, cc, source };
        let r = f(&mut self.subs[i], &mut env);
        self.touch(i); // the subflow and, through the adapter, its view
        r
    }

    /// The scheduler, then subflow `named`'s go-back-N resends if no data is left (4.3), then
    /// the FINs once every byte has been transmitted (2.11).
    fn pump(&mut self, ctx: &mut Ctx<'_>, named: Option<usize>) {
        let phase = self.mmptcp.map(|m| m.phase2);
        let eligible = move |i: usize| match phase {
            None => true,
            Some(false) => i == 0,
            Some(true) => i != 0,
        };
        {
            let mut env = SubflowEnv {
                ctx: &mut *ctx,
                cc: &mut self.sf0_cc, // sending never consults the controller
                source: &mut self.app,
            };
            let stall = self
                .scheduler
                .run(&mut self.subs, &mut self.memo, eligible, &mut env);
            if stall != self.stalled_on {
                self.stalled_on = stall;
                if let (Some(t), Some(j)) = (&self.trace, stall) {
                    let up = self.subs.iter().filter(|s| s.is_established()).count();
                    let state = self.subs[j].window_state();
                    t.record_on(j as u16, ctx.now(), TraceKind::Stall, state, up as u64);
                }
            }
        }
        if let Some(i) = named {
            if self.app.unsent_bytes() == 0 || !eligible(i) {
                self.with_subflow(i, ctx, |sf, env| sf.try_send(env));
            }
        }
        if self.app.all_sent() && !self.fin_started {
            self.start_fins(ctx);
        }
    }

    /// 2.11: the FIN goes at once on subflow 0, after distinct random delays on the other
    /// established subflows; none on subflows still in SYN_SENT (they get theirs when they
    /// establish).
    fn start_fins(&mut self, ctx: &mut Ctx<'_>) {
        self.fin_started = true;
        self.subs[0].send_fin(ctx);
        self.touch(0);
        let others: Vec<usize> = (1..self.subs.len())
            .filter(|&j| self.subs[j].is_established())
            .collect();
        let gaps = distinct_gaps(&mut self.rng, self.mptcp.random_gap_us, others.len());
        for (j, gap) in others.into_iter().zip(gaps) {
            let at = ctx.now().saturating_add(gap);
            self.fin_timers[j].set(ctx, at);
        }
    }

    /// Schedules `count` joins after distinct gaps (4.1 step 2; 6.3).
    fn schedule_joins(&mut self, ctx: &mut Ctx<'_>, count: u32) {
        let gaps = distinct_gaps(&mut self.rng, self.mptcp.random_gap_us, count as usize);
        for gap in gaps {
            let index = self.join_timers.len() as u32 + 1;
            if let Some(t) = &self.trace {
                let (now, state) = (ctx.now(), WindowState::default());
                t.record_on(
                    index as u16,
                    now,
                    TraceKind::JoinScheduled,
                    state,
                    gap.as_ns(),
                );
            }
            let key = index * KEYS_PER_SUBFLOW + 2;
            let mut t = Timer::new(key);
            t.set(ctx, ctx.now().saturating_add(gap));
            self.join_timers.push(t);
        }
    }

    /// A creation event: subflow j = current count, port P + j, MP_JOIN SYN (4.1).
    fn create_join(&mut self, ctx: &mut Ctx<'_>) {
        let j = self.subs.len() as u32;
        let policy = self.pins.policy(j);
        let mut sf = Subflow::new(
            SubflowAddr {
                index: j as u16,
                peer: self.peer,
                flow: self.spec.flow_id as u32,
                path: PathChoice::new(
                    self.fwd,
                    self.base_port.wrapping_add(j as u16),
                    SERVER_PORT,
                    policy,
                ),
                rto_timer_key: j * KEYS_PER_SUBFLOW,
                syn_timer_key: j * KEYS_PER_SUBFLOW + 1,
            },
            &self.config,
        );
        sf.set_tracer(self.trace.as_ref().map(|t| t.for_subflow(j as u16)));
        if !self.mptcp.join_syn_retransmit {
            sf.disable_syn_retransmit();
        }
        sf.open(ctx);
        self.subs.push(sf);
        self.memo.push();
        self.done.push(false);
        self.fin_timers
            .push(Timer::new(j * KEYS_PER_SUBFLOW + KEYS_PER_SUBFLOW - 1));
    }

    /// MMPTCP's switching rule, at the start of every ACK (6.3).
    fn check_switch(&mut self, ctx: &mut Ctx<'_>) {
        let Some(m) = self.mmptcp else { return };
        if m.phase2
            || m.initiated
            || m.setup.new_subflows == 0
            || self.switch_bytes() <= m.setup.switch_threshold
        {
            return;
        }
        self.mmptcp = Some(Mmptcp {
            initiated: true,
            ..m
        });
        self.schedule_joins(ctx, m.setup.new_subflows);
    }

    /// 9.6: complete at the first ACK after subflow 0's FIN with nothing unacknowledged.
    fn check_complete(&mut self, ctx: &mut Ctx<'_>) {
        if self.phase == Phase::Open
            && self.subs[0].fin_sent()
            && self.subs.iter().all(|s| s.snd_una() == s.snd_max())
        {
            self.phase = Phase::Completed;
            self.end = Some(ctx.now());
            let record = self.record();
            if let Some(t) = &self.trace {
                let state = WindowState::default();
                t.record(ctx.now(), TraceKind::Completed, state, record.bytes_acked);
            }
            ctx.record_flow(record);
            if let Some((target, token)) = self.spec.notify_on_complete {
                ctx.notify(target, token);
            }
        }
    }

    fn maybe_close(&mut self, ctx: &mut Ctx<'_>) {
        let joins_pending = self.join_timers.iter().any(Timer::is_armed);
        if self.fin_started && !joins_pending && self.done.iter().all(|&d| d) {
            self.close(ctx);
        }
    }

    fn close(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(sink) = &self.spec.report {
            if let Ok(mut v) = sink.lock() {
                v.push(ConnectionReport::Sender {
                    record: self.record(),
                    counters: self.counters(),
                    last_rtt: self.subs.iter().rev().find_map(|s| s.rtt().last_sample()),
                });
            }
        }
        ctx.close();
    }

    fn fail(&mut self, ctx: &mut Ctx<'_>) {
        self.phase = Phase::Failed;
        self.subs[0].send_rst(ctx);
        self.touch(0);
        if let Some((target, token)) = self.spec.notify_on_complete {
            ctx.notify(target, token);
        }
        self.close(ctx);
    }

    fn on_established(&mut self, j: usize, ctx: &mut Ctx<'_>) {
        if j == 0 {
            self.phase = Phase::Open;
            if self.mmptcp.is_none() {
                let joins = self.subflow_target.saturating_sub(1);
                self.schedule_joins(ctx, joins);
            }
        } else if let Some(m) = self.mmptcp {
            if !m.phase2 {
                self.mmptcp = Some(Mmptcp { phase2: true, ..m });
                let iw = self.config.initial_cwnd_segments as u64 * self.config.mss_bytes();
                self.subs[j].set_cwnd(iw, ctx.now());
                // Every subflow's scope changes with the phase (6.4).
                for i in 0..self.subs.len() {
                    self.touch(i);
                }
            }
        }
        if self.fin_started {
            self.subs[j].send_fin(ctx);
            self.touch(j);
        }
        self.pump(ctx, Some(j));
    }
}

impl Endpoint for MptcpSender {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.arrival = ctx.now();
        self.subs[0].open(ctx);
        self.touch(0);
    }

    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        let j = packet.subflow as usize;
        if j >= self.subs.len() || self.phase == Phase::Failed {
            return;
        }
        match packet.kind {
            PacketKind::SynAck => {
                let established = self.subs[j].on_syn_ack(ctx);
                self.touch(j);
                if established {
                    self.on_established(j, ctx);
                }
            }
            PacketKind::Ack | PacketKind::Fin => {
                self.check_switch(ctx);
                let kind = self.with_subflow(j, ctx, |sf, env| sf.on_ack(packet, env));
                if kind != AckKind::FastRetransmit || self.config.send_at_fast_retransmit {
                    self.pump(ctx, Some(j));
                }
                self.check_complete(ctx);
                let sf = &mut self.subs[j];
                if packet.kind == PacketKind::Fin && sf.fin_sent() && sf.snd_una() == sf.snd_max() {
                    if !sf.fin_acked() {
                        sf.on_fin_acked();
                        sf.send_ack(ctx, packet.seq + 1);
                        self.touch(j);
                    }
                    self.done[j] = true;
                    self.maybe_close(ctx);
                }
            }
            PacketKind::Rst => self.fail(ctx),
            PacketKind::Data | PacketKind::Syn => {}
        }
    }

    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        let j = (fired.key / KEYS_PER_SUBFLOW) as usize;
        match fired.key % KEYS_PER_SUBFLOW {
            2 => {
                let Some(t) = j.checked_sub(1).and_then(|i| self.join_timers.get_mut(i)) else {
                    return;
                };
                if t.fire(ctx, fired) && !matches!(self.phase, Phase::Failed) {
                    self.create_join(ctx);
                }
            }
            3 => {
                let Some(t) = self.fin_timers.get_mut(j) else {
                    return;
                };
                if t.fire(ctx, fired) {
                    self.subs[j].send_fin(ctx);
                    self.touch(j);
                }
            }
            _ if j < self.subs.len() => {
                match self.with_subflow(j, ctx, |sf, env| sf.on_timer(fired, env)) {
                    TimerOutcome::Rto => self.pump(ctx, Some(j)),
                    TimerOutcome::SynFailed if j == 0 => self.fail(ctx),
                    TimerOutcome::SynFailed | TimerOutcome::FinGaveUp => {
                        self.done[j] = true;
                        self.pump(ctx, None); // a failed join no longer stalls the scheduler
                        self.maybe_close(ctx);
                    }
                    TimerOutcome::Nothing
                    | TimerOutcome::FinRetransmitted
                    | TimerOutcome::SynRetransmitted => {}
                }
            }
            _ => {}
        }
    }

    fn stop(&mut self, ctx: &mut Ctx<'_>) {
        if self.app.is_closed() {
            return;
        }
        self.app.stop(self.config.send_buffer_bytes);
        match self.phase {
            Phase::Open => self.pump(ctx, None),
            Phase::Connecting => self.fail(ctx),
            Phase::Completed | Phase::Failed => {}
        }
    }

    fn flow_record(&self, _now: SimTime) -> Option<FlowRecord> {
        matches!(self.phase, Phase::Connecting | Phase::Open).then(|| self.record())
    }

    /// The sum of the congestion windows of the subflows that have not failed (MMPTCP: the
    /// scatter window alone in phase 1, and subflow 0's with the joins' in phase 2).
    fn sample(&self) -> Option<FlowSample> {
        let cwnd_bytes = (self.subs.iter())
            .filter(|sf| sf.state() != SubflowState::Failed)
            .map(Subflow::cwnd)
            .fold(0u64, u64::saturating_add);
        Some(FlowSample { cwnd_bytes })
    }
}

/// Opens an MPTCP connection, or an MMPTCP one with `mmptcp` (subflow 0 then sprays, 6.2).
///
/// `conn.path`: `Pinned(p)` pins subflow j on path p + j (testbeds with disjoint paths);
/// otherwise (`Scatter` is treated as `Ecmp`: MPTCP does not spray) `mptcp.paths` decides:
/// ECMP on each subflow's own ports (4.1 step 6), distinct random paths, or the pinned list
/// (refused with [`TransportError::PinnedPathOutOfRange`] when the pair lacks a path it
/// uses). With `mptcp.cap_subflows`, MPTCP opens at most as many subflows as the pair has
/// paths, and MMPTCP opens at most that many at the switch.
pub fn open_multipath(
    spawner: &mut dyn Spawn,
    mut conn: ConnectionSpec,
    config: &TcpConfig,
    mptcp: &MptcpConfig,
    cc: Box<dyn CoupledCc>,
    mmptcp: Option<MmptcpSetup>,
) -> Result<Connection, TransportError> {
    config.validate()?;
    mptcp.validate()?;
    let (fwd, rev) = conn.path_sets(spawner)?;
    let port0 = conn.rng.random_range(CLIENT_PORT_MIN..=u16::MAX);
    // 4.1: P = uniform{0..64999}, P + 1 if it equals subflow 0's port; drawn at open time so
    // the receiver knows the joins' ports (module doc).
    let mut base_port = conn.rng.random_range(0..=64_999u16);
    if base_port == port0 {
        base_port += 1;
    }
    let mut rng = SimRng::seed_from_u64(conn.rng.random());
    let paths = spawner.path_count(fwd);
    let counts = SubflowCounts::new(mptcp, mmptcp, paths);
    let (first, placed) = counts.placed();
    let SubflowCounts {
        target: subflow_target,
        mmptcp,
    } = counts;
    let pins = match (&conn.path, &mptcp.paths) {
        (PathPolicy::Pinned(p), _) => SubflowPins::Consecutive(*p),
        (_, SubflowPaths::Ecmp) => SubflowPins::Ecmp,
        (_, SubflowPaths::Distinct) => {
            // Drawn after the draws above, so ECMP connections keep their random streams.
            let order = sample(&mut conn.rng, paths as usize, placed.min(paths) as usize);
            SubflowPins::Listed {
                first,
                order: order.into_iter().map(|i| i as u32).collect(),
            }
        }
        (_, SubflowPaths::Pinned(list)) => {
            if let Some(index) = missing_pin(list, placed, paths) {
                return Err(TransportError::PinnedPathOutOfRange { index, paths });
            }
            SubflowPins::Listed {
                first,
                order: Arc::clone(list),
            }
        }
    };
    let sender = spawner.reserve();
    let receiver = spawner.reserve();
    let flow = conn.flow_id as u32;
    let sf0_policy = match &mmptcp {
        Some(_) => PathPolicy::Scatter(Box::new(SimRng::seed_from_u64(rng.random()))),
        None => pins.policy(0),
    };
    let mut sf0 = Subflow::new(
        SubflowAddr {
            index: 0,
            peer: receiver,
            flow,
            path: PathChoice::new(fwd, port0, SERVER_PORT, sf0_policy),
            rto_timer_key: 0,
            syn_timer_key: 1,
        },
        config,
    );
    let trace = conn.trace.map(|log| Tracer::new(log, conn.flow_id, 0));
    sf0.set_tracer(trace.clone());
    if let Some(m) = &mmptcp {
        sf0.set_dupthresh(m.sf0_dupthresh);
        sf0.set_limited_transmit(m.sf0_limited_transmit);
    }
    let rx = MptcpReceiver::new(
        conn.flow_id,
        sender,
        rev,
        (port0, base_port),
        config,
        mptcp.rx_subflow_ack,
        conn.report.clone(),
    );
    let spec = SenderSpec {
        flow_id: conn.flow_id,
        src: conn.src,
        dst: conn.dst,
        size_bytes: conn.size_bytes,
        notify_on_complete: conn.notify_on_complete,
        report: conn.report,
    };
    let tx = MptcpSender {
        app: BulkSend::new(spec.size_bytes),
        spec,
        config: config.clone(),
        mptcp: mptcp.clone(),
        fwd,
        peer: receiver,
        base_port,
        pins,
        subflow_target,
        subs: vec![sf0],
        views: Vec::new(),
        memo: SubflowMemos::new(1),
        done: vec![false],
        cc,
        sf0_cc: NewReno::new(config.ss_increase),
        scheduler: RoundRobin::new(mptcp.rr_skip_unestablished),
        rng,
        join_timers: Vec::new(),
        fin_timers: vec![Timer::new(KEYS_PER_SUBFLOW - 1)],
        fin_started: false,
        mmptcp: mmptcp.map(|setup| Mmptcp {
            setup,
            phase2: false,
            initiated: false,
        }),
        phase: Phase::Connecting,
        arrival: SimTime::ZERO,
        end: None,
        stalled_on: None,
        trace: trace.map(Box::new),
    };
    spawner.install(receiver, Box::new(rx), conn.start);
    spawner.install(sender, Box::new(tx), conn.start);
    if let (None, Some(stop)) = (conn.size_bytes, conn.stop) {
        spawner.schedule_stop(sender, stop);
    }
    Ok(Connection { sender, receiver })
}
