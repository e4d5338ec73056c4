//! Per-flow result records, common to every transport.
//!
//! A sender fills a [`FlowRecord`] as its flow progresses and hands it to the world when the flow
//! completes ([`Ctx::record_flow`](crate::endpoint::Ctx::record_flow)); flows still open at the
//! end of a run are snapshotted through
//! [`Endpoint::flow_record`](crate::endpoint::Endpoint::flow_record). Metric definitions are in
//! docs/model.md 9.6 and 2.12.

use crate::ids::HostId;
use crate::time::SimTime;

/// What happened to one flow (one connection, all its subflows).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowRecord {
    /// The flow's number, unique within a run.
    pub flow_id: u64,
    /// Sending host.
    pub src: HostId,
    /// Receiving host.
    pub dst: HostId,
    /// Application bytes to send; `None` for an infinite (long-lived) flow.
    pub size_bytes: Option<u64>,
    /// When the application asked for the flow (connect time).
    pub arrival: SimTime,
    /// When the flow started: the client received subflow 0's SYN-ACK (the FCT origin, 9.6).
    pub start: Option<SimTime>,
    /// When the flow completed (9.6: all data acknowledged and FIN sent); `None` if unfinished.
    pub end: Option<SimTime>,
    /// Distinct application bytes transmitted at least once (the paper's goodput numerator).
    pub bytes_sent: u64,
    /// Application bytes cumulatively acknowledged.
    pub bytes_acked: u64,
    /// Data bytes transmitted at least once, counted per subflow (each subflow's highest data
    /// sequence sent): a byte sent on two subflows counts twice, a retransmission on the same
    /// subflow not again. Equal to `bytes_sent` for single-path transports.
    pub subflow_bytes_sent: u64,
    /// Data bytes cumulatively acknowledged at the subflow level: the sum over subflows of each
    /// subflow's cumulative-ACK advance, whatever holes the other subflows leave in the data
    /// sequence (htsim's throughput numerator). Equal to `bytes_acked` for single-path
    /// transports.
    pub subflow_bytes_acked: u64,
    /// Data packets sent, retransmissions included.
    pub packets_sent: u64,
    /// Data packets retransmitted (fast, partial-ACK, go-back-N and limited-transmit resends).
    pub retransmits: u64,
    /// Entries into fast recovery, summed over subflows (2.12).
    pub fast_retransmits: u64,
    /// Data RTO expiries, summed over subflows (2.12).
    pub timeouts: u64,
    /// Subflows the connection opened (1 for single-path transports).
    pub subflows: u32,
}

impl FlowRecord {
    /// Flow completion time (end - start), if the flow completed and started.
    pub fn fct(&self) -> Option<SimTime> {
        Some(self.end?.saturating_sub(self.start?))
    }

    /// Whether the flow completed.
    pub fn completed(&self) -> bool {
        self.end.is_some()
    }
}

/// A sender's state at an instant, for time series (docs/model.md has no such metric; it serves
/// plots of the window).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FlowSample {
    /// Congestion window in bytes (multipath: the sum over subflows).
    pub cwnd_bytes: u64,
}
