//! Per-flow event traces: what the sender of a selected connection did and when (handshakes,
//! path, window changes, losses, scheduler stalls), for debugging a transport or explaining a
//! result.
//!
//! A run owns one [`TraceLog`]. A connection is traced when its
//! [`ConnectionSpec::trace`](crate::ConnectionSpec::trace) carries the log; each of its subflows then holds a
//! [`Tracer`]. An untraced connection holds `None`: its only cost is that branch at each event
//! site (no allocation, no lock). A traced event takes the log's (uncontended) lock; a run's log
//! keeps at most [`TraceLog::limit`] events, then counts what it drops.
//!
//! Events ([`TraceKind`]), each with the subflow's state after it (`cwnd`, `ssthresh`,
//! `snd_una`, `snd_max`, in bytes of its own sequence space; 0 for connection-level events) and
//! one event-specific `value`:
//!
//! | event | when | `value` |
//! |---|---|---|
//! | `syn` | a SYN (subflow 0) or MP_JOIN SYN is sent, first or again | transmission number (1 = first) |
//! | `path` | with a subflow's first SYN | the route id of its control packets and, unless it sprays, its data (equal ids = same path) |
//! | `established` | the SYN-ACK arrives | SYN transmissions it took |
//! | `syn_failed` | the SYN is given up | transmissions made |
//! | `window` | cwnd crosses a whole MSS, or ssthresh changes | cwnd in MSS |
//! | `fast_retransmit` | fast recovery starts | duplicate ACKs counted |
//! | `rto` | a data retransmission timeout | the RTO that expired, ns |
//! | `fin` | a FIN is sent | transmission number |
//! | `join_scheduled` | an MPTCP join is scheduled (subflow = its future index) | delay, ns |
//! | `stall` | the round-robin scheduler starts waiting on a subflow that is not established, with data to send (subflow = the one waited on) | subflows established at that moment |
//! | `completed` | the flow completes (9.6 rule) | bytes acknowledged |
//! | `truncated` | the last row when the log was full | events dropped |

use htsim_core::SimTime;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

/// What happened (the `event` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceKind {
    /// A SYN or MP_JOIN SYN was sent.
    Syn,
    /// The route of a subflow's packets.
    Path,
    /// The SYN-ACK arrived.
    Established,
    /// The SYN was given up.
    SynFailed,
    /// cwnd crossed a whole MSS, or ssthresh changed.
    Window,
    /// Fast retransmit / fast recovery started.
    FastRetransmit,
    /// A data retransmission timeout.
    Rto,
    /// A FIN was sent.
    Fin,
    /// An MPTCP join was scheduled.
    JoinScheduled,
    /// The scheduler began waiting on a subflow that is not established.
    Stall,
    /// The flow completed.
    Completed,
    /// The log was full: events were dropped.
    Truncated,
}

impl TraceKind {
    /// The name written in the `event` column.
    pub fn name(self) -> &'static str {
        match self {
            TraceKind::Syn => "syn",
            TraceKind::Path => "path",
            TraceKind::Established => "established",
            TraceKind::SynFailed => "syn_failed",
            TraceKind::Window => "window",
            TraceKind::FastRetransmit => "fast_retransmit",
            TraceKind::Rto => "rto",
            TraceKind::Fin => "fin",
            TraceKind::JoinScheduled => "join_scheduled",
            TraceKind::Stall => "stall",
            TraceKind::Completed => "completed",
            TraceKind::Truncated => "truncated",
        }
    }
}

/// The window state of a subflow recorded with an event (bytes; subflow sequence space).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowState {
    /// Congestion window.
    pub cwnd: u64,
    /// Slow-start threshold.
    pub ssthresh: u64,
    /// First unacknowledged byte.
    pub snd_una: u64,
    /// Highest byte sent + 1.
    pub snd_max: u64,
}

/// One trace row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// When.
    pub at: SimTime,
    /// The flow's id.
    pub flow: u64,
    /// The subflow's index (0 for TCP).
    pub subflow: u16,
    /// What happened.
    pub kind: TraceKind,
    /// The subflow's window state after the event.
    pub state: WindowState,
    /// The event's value (see the module table).
    pub value: u64,
}

/// The columns of trace.csv, in order.
pub const TRACE_COLUMNS: &[&str] = &[
    "time_ns",
    "flow",
    "subflow",
    "event",
    "cwnd_bytes",
    "ssthresh_bytes",
    "snd_una",
    "snd_max",
    "value",
];

/// The default [`TraceLog::limit`]: events kept per run.
pub const DEFAULT_TRACE_LIMIT: usize = 1_000_000;

#[derive(Debug, Default)]
struct Buffer {
    events: Vec<TraceEvent>,
    limit: usize,
    dropped: u64,
    last_at: SimTime,
}

/// A run's trace: the events of every traced connection, in simulation order.
#[derive(Clone, Debug)]
pub struct TraceLog(Arc<Mutex<Buffer>>);

impl TraceLog {
    /// An empty log that keeps at most `limit` events.
    pub fn new(limit: usize) -> Self {
        TraceLog(Arc::new(Mutex::new(Buffer {
            limit,
            ..Buffer::default()
        })))
    }

    fn push(&self, event: TraceEvent) {
        // A poisoned lock means a panicking run; its trace is not used.
        if let Ok(mut b) = self.0.lock() {
            b.last_at = event.at;
            if b.events.len() < b.limit {
                b.events.push(event);
            } else {
                b.dropped += 1;
            }
        }
    }

    /// The most events the log keeps.
    pub fn limit(&self) -> usize {
        self.0.lock().map_or(0, |b| b.limit)
    }

    /// The events so far (a copy), in the order they happened.
    pub fn events(&self) -> Vec<TraceEvent> {
        self.0.lock().map_or(Vec::new(), |b| b.events.clone())
    }

    /// How many events were dropped because the log was full.
    pub fn dropped(&self) -> u64 {
        self.0.lock().map_or(0, |b| b.dropped)
    }

    /// The log as CSV ([`TRACE_COLUMNS`]), ending with a `truncated` row if events were dropped.
    pub fn to_csv(&self) -> String {
        let Ok(b) = self.0.lock() else {
            return String::new();
        };
        let mut s = TRACE_COLUMNS.join(",");
        s.push('\n');
        let mut row = |e: &TraceEvent| {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                e.at.as_ns(),
                e.flow,
                e.subflow,
                e.kind.name(),
                e.state.cwnd,
                e.state.ssthresh,
                e.state.snd_una,
                e.state.snd_max,
                e.value
            );
        };
        b.events.iter().for_each(&mut row);
        if b.dropped > 0 {
            row(&TraceEvent {
                at: b.last_at,
                flow: 0,
                subflow: 0,
                kind: TraceKind::Truncated,
                state: WindowState::default(),
                value: b.dropped,
            });
        }
        s
    }
}

/// The trace handle of one subflow (or of a connection, for its connection-level events).
#[derive(Clone, Debug)]
pub struct Tracer {
    log: TraceLog,
    flow: u64,
    subflow: u16,
    /// (cwnd in MSS, ssthresh) at the last `window` event.
    last_window: (u64, u64),
}

impl Tracer {
    /// A handle writing events of `flow`'s subflow `subflow` into `log`.
    pub fn new(log: TraceLog, flow: u64, subflow: u16) -> Self {
        Tracer {
            log,
            flow,
            subflow,
            last_window: (u64::MAX, u64::MAX),
        }
    }

    /// The same log and flow, for subflow `subflow`.
    pub fn for_subflow(&self, subflow: u16) -> Self {
        Tracer::new(self.log.clone(), self.flow, subflow)
    }

    /// Records an event of this handle's subflow.
    pub fn record(&self, at: SimTime, kind: TraceKind, state: WindowState, value: u64) {
        self.record_on(self.subflow, at, kind, state, value);
    }

    /// Records an event about subflow `subflow` of this handle's flow.
    pub fn record_on(
        &self,
        subflow: u16,
        at: SimTime,
        kind: TraceKind,
        state: WindowState,
        value: u64,
    ) {
        self.log.push(TraceEvent {
            at,
            flow: self.flow,
            subflow,
            kind,
            state,
            value,
        });
    }

    /// Records a `window` event if cwnd crossed a whole `mss` or ssthresh changed since the
    /// last one.
    pub fn window(&mut self, at: SimTime, state: WindowState, mss: u64) {
        let now = (state.cwnd / mss.max(1), state.ssthresh);
        if now != self.last_window {
            self.last_window = now;
            self.record(at, TraceKind::Window, state, now.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_events_only_on_whole_mss_or_ssthresh_changes() {
        let log = TraceLog::new(10);
        let mut t = Tracer::new(log.clone(), 7, 2);
        let st = |cwnd, ssthresh| WindowState {
            cwnd,
            ssthresh,
            ..WindowState::default()
        };
        t.window(SimTime::from_ns(1), st(1000, 5000), 1000);
        t.window(SimTime::from_ns(2), st(1999, 5000), 1000); // still 1 MSS
        t.window(SimTime::from_ns(3), st(2000, 5000), 1000); // 2 MSS
        t.window(SimTime::from_ns(4), st(2000, 4000), 1000); // ssthresh changed
        let values: Vec<(u64, u64)> = log
            .events()
            .iter()
            .map(|e| (e.at.as_ns(), e.value))
            .collect();
        assert_eq!(values, vec![(1, 1), (3, 2), (4, 2)]);
        assert!(log.events().iter().all(|e| e.flow == 7 && e.subflow == 2));
    }

    #[test]
    fn a_full_log_counts_what_it_drops_and_says_so_in_its_last_row() {
        let log = TraceLog::new(2);
        let t = Tracer::new(log.clone(), 1, 0);
        for i in 0..5 {
            t.record(
                SimTime::from_ns(i),
                TraceKind::Syn,
                WindowState::default(),
                i,
            );
        }
        assert_eq!((log.events().len(), log.dropped()), (2, 3));
        let csv = log.to_csv();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], TRACE_COLUMNS.join(","));
        assert_eq!(lines[1], "0,1,0,syn,0,0,0,0,0");
        assert_eq!(lines.last(), Some(&"4,0,0,truncated,0,0,0,0,3"));
        assert_eq!(lines.len(), 4);
    }
}
