//! Transports of htsim: TCP NewReno and DCTCP on a per-subflow engine that the multipath
//! transports (packet scatter, MPTCP, MMPTCP, XMP) reuse.
//!
//! The algorithms are those of docs/model.md (cited by section in the item docs):
//! - [`config`]: every TCP parameter of section 11 with its default, the packet sizes of
//!   section 1, the `rfc` / `ns3-mmptcp` profiles of section 12, and their scenario keys;
//! - [`subflow`]: the sender engine of one subflow (section 2): handshake, sending with
//!   go-back-N, ACK classification, NewReno fast retransmit / fast recovery, RTO, FIN;
//! - [`rtt`]: RTT estimators (RFC 6298, ns-3 mean deviation) and the RTO (2.9);
//! - [`cc`]: the congestion-control hook; [`newreno`] (2.7) and [`dctcp`] (8) implement it;
//! - [`receiver`]: cumulative ACKs, delayed ACKs, the DCTCP CE echo and XMP's 2-bit CE count
//!   (7.2), the passive handshake;
//! - [`reorder`]: the reorder-resilient receiver option (issue 5, Juggler-like duplicate-ACK hold);
//! - [`xmp`]: XMP's per-connection controller (BOS + TraSh, 7) and single-path BOS;
//! - [`path`]: the per-packet path hook (ECMP ports, pinned path, per-packet scatter ports);
//! - [`tcp`]: the TCP transport, the sender endpoint, completion rule (9.6) and flow record;
//! - [`trace`]: per-flow event traces of selected connections (off by default);
//! - [`transport`]: [`Transport`], [`ConnectionSpec`], and the registry of transports: each
//!   transport's module declares its scenario keys (types, defaults, docs) and how they
//!   configure it in a [`TransportKind`]; [`REGISTRY`] lists them;
//! - [`ps`]: packet scatter (5); [`mptcp`]: MPTCP with its coupled controllers (4);
//!   [`mmptcp`]: MMPTCP (6); [`reach`]: the destination's locality and path count (6.5, 6.7).
//!
//! Choices the papers, RFCs and reference code leave open, and departures from them (each
//! also noted at the code it concerns, and in docs/model.md):
//! - The bulk-send application is not chunked (2.4): a finite flow's bytes are all available at
//!   once and a long flow is unlimited, so segmentation is exactly 2.4's rule with `unsent` = the
//!   remaining bytes. When a long flow's application stops, `send_buffer_bytes` (131 072 B) still
//!   drain before the FIN (2.11); its record's `bytes_sent` is frozen at the stop (9.6).
//! - A go-back-N resend (2.4, 2.10) keeps its segment's length, so it waits until the usable
//!   window holds the whole segment. `dupacks` is reset on an RTO under `rfc`; under
//!   `ns3-mmptcp` only a new ACK resets it, as in the ns-3 code (`rto_keeps_dupacks`, 2.10).
//! - Two profile settings beyond section 12's rows, where 2.8 describes the ns-3 code and
//!   RFC 6582 the clean behaviour: `careful_recovery` (an RTO sets `recover` to `snd_max`, and
//!   fast retransmit needs an ACK above `recover`: RFC 6582 3.2 steps 2 and 4) and
//!   `full_ack_window` (the full ACK deflates to the data still outstanding plus one segment:
//!   3.2 step 3 option (1)). `rfc` has both, `ns3-mmptcp` neither. Without them a recovery
//!   that timed out, or one whose flight the receiver already held, released a window of
//!   segments back to back (the seed-22 anomaly of tests/mptcp.rs).
//! - `ack_early_fin`: a FIN ahead of missing data earns a duplicate ACK under `rfc` (RFC 5681
//!   4.2); `ns3-mmptcp`'s receiver answers a FIN only in sequence (2.11), so two segments
//!   after a loss and the FIN make two duplicate ACKs there, not three.
//! - `send_at_fast_retransmit`: under `rfc` the duplicate ACK that starts fast recovery also
//!   sends what the inflated window allows; `ns3-mmptcp` sends only on duplicate ACKs in fast
//!   recovery and on new ACKs (2.4, 2.8).
//! - The receive window is a sender-side cap from the configuration (it is fixed in the code
//!   modelled); ACKs do not carry a window.
//! - RFC 6298 estimator: clock granularity G = 0; no 60 s RTO ceiling in either profile, only the
//!   x64 backoff cap. Both estimators run in `f64` picoseconds.
//! - The rfc profile's SYN timer is 1 s and doubles, with 6 transmissions like ns-3.
//! - A lost MP_JOIN SYN (issue 13, evidence in [`mptcp`]): under `rfc` the round robin skips the
//!   join until it is established and the join SYN is retried on the SYN timer; under
//!   `ns3-mmptcp` the join SYN is sent once with no timer and the round robin stalls on it, as
//!   in the ns-3 code (docs/model.md 2.2 says join SYNs are retried; the code does not), so such
//!   a connection never completes.
//! - A FIN is given up after `syn_max_transmissions` RTO-timed transmissions; the receiver
//!   resends its FIN+ACK in LAST_ACK on the SYN timer and closes after as many; a sender whose
//!   SYN is given up sends a RST so the passive side closes too. TIME_WAIT lasts 0 s (2.11).
//! - Delayed ACK (8): segments that arrive out of order, fill all or part of a hole (RFC 5681
//!   4.2), or complete the data before the FIN are ACKed at once. One CE state machine serves with and without delayed ACK (without
//!   it, ECE equals the CE bit of the segment answered, as 8 requires).
//! - DCTCP's first observation window ends at `snd_nxt` as of the first ACK.
//! - Ports: the client's is drawn from the connection's stream in 1024..=65535, the server's is
//!   80. The completion notification is also sent when a connection fails.
//!
//! Opening a flow:
//! ```
//! use htsim_core::{world::World, ids::HostId, SimTime};
//! use htsim_transport::{ConnectionSpec, Profile, transport_by_name};
//! let mut world = World::new(1);
//! let tcp = transport_by_name("tcp", Profile::Rfc).unwrap();
//! let spec = ConnectionSpec::new(7, HostId(0), HostId(1), Some(70_000), SimTime::ZERO,
//!     world.streams().substream("conn", 7));
//! // Without a topology there is no path, so opening fails cleanly.
//! assert!(tcp.open(&mut world, spec).is_err());
//! ```

pub mod cc;
pub mod config;
pub mod dctcp;
pub mod error;
mod grow;
pub mod mmptcp;
pub mod mptcp;
pub mod newreno;
mod ooo;
pub mod path;
pub mod ps;
pub mod reach;
pub mod receiver;
pub mod reorder;
pub mod rtt;
pub mod subflow;
pub mod tcp;
pub mod trace;
pub mod transport;
pub mod xmp;

pub use config::{PacketSizes, Profile, TcpConfig};
pub use dctcp::DctcpTransport;
pub use error::{ParamError, TransportError};
pub use mmptcp::MmptcpTransport;
pub use mptcp::MptcpTransport;
pub use ps::PsTransport;
pub use reach::{Locality, Reach};
pub use tcp::TcpTransport;
pub use transport::{
    transport_by_name, transport_kind, transport_names, Configured, Connection, ConnectionSpec,
    Transport, TransportKind, REGISTRY,
};
