//! TCP NewReno: the [`TcpTransport`] and its scenario parameters ([`KIND`]), and the TCP
//! sender endpoint: a connection with one [`Subflow`] (docs/model.md 2), the bulk-send
//! application, the FIN exchange (2.11), the completion rule (9.6) and the flow record.
//!
//! DCTCP is the same endpoint with the [`Dctcp`](crate::dctcp::Dctcp) controller (section 8).

use crate::cc::CongestionControl;
use crate::config::keys::{DUPTHRESH, ECN};
use crate::config::tcp_keys_and;
use crate::config::{CeEcho, EcnMode, Profile, TcpConfig};
use crate::error::TransportError;
use crate::newreno::NewReno;
use crate::path::PathPolicy;
use crate::receiver::ReceiverStats;
use crate::subflow::{
    AckKind, DataSource, Subflow, SubflowCounters, SubflowEnv, TimerOutcome, FIRST_SEQ,
};
use crate::transport::{
    open_single_path, Configured, Connection, ConnectionSpec, Transport, TransportKind,
};
use htsim_core::endpoint::{Ctx, Endpoint, Spawn};
use htsim_core::flow::{FlowRecord, FlowSample};
use htsim_core::ids::{EndpointId, HostId};
use htsim_core::packet::{Packet, PacketKind};
use htsim_core::params::KindSpec;
use htsim_core::timer::TimerFired;
use htsim_core::SimTime;
use std::sync::{Arc, Mutex};

/// TCP NewReno (docs/model.md 2), optionally with RFC 3168 ECN (2.14).
#[derive(Clone, Debug, PartialEq)]
pub struct TcpTransport {
    /// Parameters of every connection.
    pub config: TcpConfig,
}

impl TcpTransport {
    /// TCP with `profile`'s parameters.
    pub fn new(profile: Profile) -> Self {
        TcpTransport {
            config: TcpConfig::for_profile(profile),
        }
    }

    /// The same TCP with RFC 3168 ECN (docs/model.md 2.14): new data is ECN-capable, the
    /// sender answers an echo as a loss (one reduction per window) and announces each
    /// reduction with CWR, and the receiver echoes ECE from a CE mark until that CWR.
    pub fn with_ecn(mut self) -> Self {
        self.config.ecn = EcnMode {
            ect_data: true,
            ect_retransmits: false,
            cwr: true,
        };
        self.config.ce_echo = CeEcho::Rfc3168;
        self
    }
}

impl Transport for TcpTransport {
    fn name(&self) -> &str {
        "tcp"
    }
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError> {
        let cc = NewReno::new(self.config.ss_increase);
        open_single_path(spawner, conn, &self.config, Box::new(cc))
    }
}

/// `tcp` in scenarios: the keys of [`TcpConfig`] ([`TcpConfig::from_params`]).
pub const KIND: TransportKind = TransportKind {
    spec: KindSpec {
        name: "tcp",
        doc: "TCP NewReno (docs/model.md 2)",
        params: tcp_keys_and![DUPTHRESH, ECN],
    },
    new: |p| Box::new(TcpTransport::new(p)),
    configure: |params| {
        let mut t = TcpTransport {
            config: TcpConfig::from_params(params)?,
        };
        if params.bool("ecn") == Some(true) {
            t = t.with_ecn();
        }
        Ok(Configured {
            tcp: t.config.clone(),
            transport: Arc::new(t),
        })
    },
};

/// What an endpoint reports when it closes, if the connection was given a [`ReportSink`]
/// (tests and debugging; results proper go through [`FlowRecord`]s).
#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionReport {
    /// The sender's final state.
    Sender {
        /// The flow record at close (also pushed to the world on completion).
        record: FlowRecord,
        /// All subflow counters (docs/model.md 2.12).
        counters: SubflowCounters,
        /// The last RTT sample.
        last_rtt: Option<SimTime>,
    },
    /// The receiver's counters at close.
    Receiver {
        /// The flow's number.
        flow_id: u64,
        /// Its counters.
        stats: ReceiverStats,
    },
}

/// A shared list the endpoints of a connection append their [`ConnectionReport`] to.
pub type ReportSink = Arc<Mutex<Vec<ConnectionReport>>>;

/// Unsent bytes of an effectively unlimited application (a long flow before it stops).
const UNLIMITED: u64 = u64::MAX / 4;

/// The bulk-send application (docs/model.md 2.4, 2.11): a fixed number of bytes, or unlimited
/// until the application stops. It is the [`DataSource`] of a connection's subflows and hands
/// out data sequence numbers from 1 (4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkSend {
    /// Total bytes the application writes; `None` while a long flow runs.
    total: Option<u64>,
    /// Data sequence number of the next byte to packetise.
    next_data_seq: u64,
    /// Distinct bytes packetised when a long flow's application stopped.
    sent_at_stop: Option<u64>,
}

impl BulkSend {
    /// An application writing `size_bytes` (`None` = unlimited until [`BulkSend::stop`]).
    pub fn new(size_bytes: Option<u64>) -> Self {
        BulkSend {
            total: size_bytes,
            next_data_seq: FIRST_SEQ,
            sent_at_stop: None,
        }
    }

    /// Distinct bytes packetised so far (`next_data_seq - 1`).
    pub fn packetised(&self) -> u64 {
        self.next_data_seq - FIRST_SEQ
    }

    /// Whether the application has closed (a finite flow, or a stopped long flow): the FIN goes
    /// once nothing is left unsent.
    pub fn is_closed(&self) -> bool {
        self.total.is_some()
    }

    /// Whether every byte has been packetised and the application closed: time for the FIN.
    pub fn all_sent(&self) -> bool {
        self.is_closed() && self.unsent_bytes() == 0
    }

    /// Stops an unlimited application: what it had written into the send buffer
    /// (`send_buffer_bytes`) still drains (2.11). No effect on a finite flow.
    pub fn stop(&mut self, send_buffer_bytes: u64) {
        if self.total.is_none() {
            let sent = self.packetised();
            self.sent_at_stop = Some(sent);
            self.total = Some(sent + send_buffer_bytes);
        }
    }

    /// The 9.6 goodput numerator: distinct bytes sent, frozen when a long flow stopped.
    pub fn bytes_sent(&self) -> u64 {
        self.sent_at_stop.unwrap_or(self.packetised())
    }
}

impl DataSource for BulkSend {
    fn unsent_bytes(&self) -> u64 {
        self.total
            .map_or(UNLIMITED, |t| t.saturating_sub(self.packetised()))
    }
    fn take(&mut self, len: u32) -> u64 {
        let d = self.next_data_seq;
        self.next_data_seq += len as u64;
        d
    }
}

/// Lifecycle of the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Connecting,
    Open,
    Completed,
    Failed,
}

/// Who the sender is and what it sends.
#[derive(Clone, Debug)]
pub struct SenderSpec {
    /// The flow's number.
    pub flow_id: u64,
    /// Sending host.
    pub src: HostId,
    /// Receiving host.
    pub dst: HostId,
    /// Bytes to send; `None` for a long flow that runs until [`Endpoint::stop`].
    pub size_bytes: Option<u64>,
    /// Endpoint (and token) notified when the flow completes or fails.
    pub notify_on_complete: Option<(EndpointId, u32)>,
    /// Where to report the final state, if anywhere.
    pub report: Option<ReportSink>,
}

/// The sending endpoint of a TCP or DCTCP connection.
pub struct TcpSender {
    spec: SenderSpec,
    send_buffer_bytes: u64,
    /// `TcpConfig::send_at_fast_retransmit`.
    send_at_fast_retransmit: bool,
    sf: Subflow,
    cc: Box<dyn CongestionControl>,
    app: BulkSend,
    phase: Phase,
    arrival: SimTime,
    end: Option<SimTime>,
}

impl TcpSender {
    /// A sender for `spec` over subflow `sf`, growing its window with `cc`.
    pub fn new(
        spec: SenderSpec,
        config: &TcpConfig,
        sf: Subflow,
        cc: Box<dyn CongestionControl>,
    ) -> Self {
        TcpSender {
            app: BulkSend::new(spec.size_bytes),
            spec,
            send_buffer_bytes: config.send_buffer_bytes,
            send_at_fast_retransmit: config.send_at_fast_retransmit,
            sf,
            cc,
            phase: Phase::Connecting,
            arrival: SimTime::ZERO,
            end: None,
        }
    }

    /// The subflow (window, sequence numbers, counters).
    pub fn subflow(&self) -> &Subflow {
        &self.sf
    }

    /// The congestion controller.
    pub fn congestion_control(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    /// The flow record as of `now` (docs/model.md 9.6, 2.12).
    ///
    /// For a long flow stopped by its application, `bytes_sent` is frozen at the stop: it is
    /// the paper's goodput numerator, while the data buffered at the stop still drains.
    pub fn record(&self) -> FlowRecord {
        let c = self.sf.counters();
        let (bytes_sent, bytes_acked) = (self.app.bytes_sent(), self.sf.snd_una() - FIRST_SEQ);
        FlowRecord {
            flow_id: self.spec.flow_id,
            src: self.spec.src,
            dst: self.spec.dst,
            size_bytes: self.spec.size_bytes,
            arrival: self.arrival,
            start: self.sf.established_at(),
            end: self.end,
            bytes_sent,
            bytes_acked,
            // The connection's one subflow: both levels are the same.
            subflow_bytes_sent: bytes_sent,
            subflow_bytes_acked: bytes_acked,
            packets_sent: c.packets_sent,
            retransmits: c.retransmits,
            fast_retransmits: c.fast_retransmits,
            timeouts: c.timeouts,
            subflows: 1,
        }
    }

    fn env<'e, 'c>(
        cc: &'e mut Box<dyn CongestionControl>,
        app: &'e mut BulkSend,
        ctx: &'e mut Ctx<'c>,
    ) -> SubflowEnv<'e, 'c> {
        SubflowEnv {
            ctx,
            cc: cc.as_mut(),
            source: app,
        }
    }

    /// Sends what the window allows, then the FIN once every byte has been transmitted.
    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        let mut env = Self::env(&mut self.cc, &mut self.app, ctx);
        self.sf.try_send(&mut env);
        if self.app.all_sent() && !self.sf.fin_sent() {
            self.sf.send_fin(ctx);
        }
    }

    /// 9.6: complete at the first ACK after the FIN was sent with nothing unacknowledged.
    fn check_complete(&mut self, ctx: &mut Ctx<'_>) {
        if self.phase == Phase::Open && self.sf.fin_sent() && self.sf.snd_una() == self.sf.snd_max()
        {
            self.phase = Phase::Completed;
            self.end = Some(ctx.now());
            self.sf.trace_completed(ctx.now());
            ctx.record_flow(self.record());
            if let Some((target, token)) = self.spec.notify_on_complete {
                ctx.notify(target, token);
            }
        }
    }

    fn close(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(sink) = &self.spec.report {
            if let Ok(mut v) = sink.lock() {
                v.push(ConnectionReport::Sender {
                    record: self.record(),
                    counters: *self.sf.counters(),
                    last_rtt: self.sf.rtt().last_sample(),
                });
            }
        }
        ctx.close();
    }

    fn fail(&mut self, ctx: &mut Ctx<'_>) {
        self.phase = Phase::Failed;
        self.sf.send_rst(ctx);
        if let Some((target, token)) = self.spec.notify_on_complete {
            ctx.notify(target, token);
        }
        self.close(ctx);
    }
}

impl Endpoint for TcpSender {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.arrival = ctx.now();
        self.sf.open(ctx);
    }

    fn on_packet(&mut self, packet: &Packet, ctx: &mut Ctx<'_>) {
        match packet.kind {
            PacketKind::SynAck => {
                if self.sf.on_syn_ack(ctx) {
                    self.phase = Phase::Open;
                    self.pump(ctx);
                }
            }
            PacketKind::Ack => {
                let mut env = Self::env(&mut self.cc, &mut self.app, ctx);
                let kind = self.sf.on_ack(packet, &mut env);
                if kind != AckKind::FastRetransmit || self.send_at_fast_retransmit {
                    self.pump(ctx);
                }
                self.check_complete(ctx);
            }
            PacketKind::Fin => {
                // FIN+ACK: it acknowledges all data and the FIN; answer and close (TIME_WAIT is
                // 0 s, docs/model.md 2.11 [PROPOSED]).
                let mut env = Self::env(&mut self.cc, &mut self.app, ctx);
                self.sf.on_ack(packet, &mut env);
                self.check_complete(ctx);
                if self.sf.fin_sent() && self.sf.snd_una() == self.sf.snd_max() {
                    self.sf.on_fin_acked();
                    self.sf.send_ack(ctx, packet.seq + 1); // acknowledges the peer's FIN
                    self.close(ctx);
                }
            }
            PacketKind::Rst => self.fail(ctx),
            PacketKind::Data | PacketKind::Syn => {}
        }
    }

    fn on_timer(&mut self, fired: TimerFired, ctx: &mut Ctx<'_>) {
        let mut env = Self::env(&mut self.cc, &mut self.app, ctx);
        match self.sf.on_timer(fired, &mut env) {
            TimerOutcome::Rto => self.pump(ctx),
            TimerOutcome::SynFailed => self.fail(ctx),
            TimerOutcome::FinGaveUp => self.close(ctx),
            TimerOutcome::Nothing
            | TimerOutcome::FinRetransmitted
            | TimerOutcome::SynRetransmitted => {}
        }
    }

    fn stop(&mut self, ctx: &mut Ctx<'_>) {
        if self.app.is_closed() {
            return; // a finite flow's application has already written everything
        }
        self.app.stop(self.send_buffer_bytes);
        match self.phase {
            Phase::Open => self.pump(ctx),
            Phase::Connecting => self.fail(ctx),
            Phase::Completed | Phase::Failed => {}
        }
    }

    fn flow_record(&self, _now: SimTime) -> Option<FlowRecord> {
        // Completed flows were recorded already; failed flows have no record (9.6).
        matches!(self.phase, Phase::Connecting | Phase::Open).then(|| self.record())
    }

    /// The subflow's congestion window (packet scatter's one window too).
    fn sample(&self) -> Option<FlowSample> {
        Some(FlowSample {
            cwnd_bytes: self.sf.cwnd(),
        })
    }

    /// Moves a per-flow routed sender (ECMP, or pinned by an earlier move) onto path `index`;
    /// packet scatter's senders do not move.
    fn pin_path(&mut self, index: u32) -> bool {
        let path = self.sf.path_mut();
        match path.policy {
            PathPolicy::Ecmp | PathPolicy::Pinned(_) => {
                path.policy = PathPolicy::Pinned(index);
                true
            }
            PathPolicy::Scatter(_) | PathPolicy::Cycle(_) => false,
        }
    }
}
