//! Transports of htsim: TCP NewReno and DCTCP on a per-subflow engine that the multipath
//! transports (packet scatter, MPTCP, MMPTCP, XMP) reuse.
//!
//! The algorithms are those of `transports.md` (cited by section in the item docs):
//! - [`config`]: every TCP parameter of section 11 with its default, the packet sizes of
//!   section 1, and the `rfc` / `ns3-mmptcp` profiles of section 12;
//! - [`subflow`]: the sender engine of one subflow (section 2): handshake, sending with
//!   go-back-N, ACK classification, NewReno fast retransmit / fast recovery, RTO, FIN;
//! - [`rtt`]: RTT estimators (RFC 6298, ns-3 mean deviation) and the RTO (2.9);
//! - [`cc`]: the congestion-control hook; [`newreno`] (2.7) and [`dctcp`] (8) implement it;
//! - [`receiver`]: cumulative ACKs, delayed ACKs, the DCTCP CE echo, the passive handshake;
//! - [`path`]: the per-packet path hook (ECMP ports, pinned path, per-packet scatter ports);
//! - [`tcp`]: the sender endpoint, completion rule (9.6) and flow record;
//! - [`transport`]: [`Transport`], [`ConnectionSpec`], and the registry of transports.
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
pub mod newreno;
pub mod path;
pub mod receiver;
pub mod rtt;
pub mod subflow;
pub mod tcp;
pub mod transport;

pub use config::{PacketSizes, Profile, TcpConfig};
pub use error::TransportError;
pub use transport::{
    transport_by_name, transport_names, Connection, ConnectionSpec, DctcpTransport, TcpTransport,
    Transport,
};
