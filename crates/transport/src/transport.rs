//! Opening connections, and the one place where transports are registered.
//!
//! A [`Transport`] opens a [`Connection`] (a sender and a receiver endpoint) described by a
//! [`ConnectionSpec`], at setup time (`&mut World`) or during a run (`&mut Ctx`, e.g. from a
//! workload generator), through htsim-core's [`Spawn`]. A new transport is added by writing its
//! module, with its [`TransportKind`] (scenario parameters and constructors), and one line in
//! [`REGISTRY`].

use crate::cc::CongestionControl;
use crate::config::{Profile, TcpConfig};
use crate::error::{ParamError, TransportError};
use crate::path::{PathChoice, PathPolicy};
use crate::reach::Reach;
use crate::receiver::TcpReceiver;
use crate::subflow::{Subflow, SubflowAddr};
use crate::tcp::{ReportSink, SenderSpec, TcpSender};
use crate::trace::{TraceLog, Tracer};
use htsim_core::endpoint::Spawn;
use htsim_core::ids::{EndpointId, HostId, PathSetId};
use htsim_core::params::{KindSpec, Params};
use htsim_core::rng::SimRng;
use htsim_core::SimTime;
use rand::Rng;
use std::sync::Arc;

/// The server's port of every connection; the client's port is random, so ECMP spreads flows.
pub const SERVER_PORT: u16 = 80;

/// The first ephemeral client port drawn (the range is `CLIENT_PORT_MIN..=65535`).
pub const CLIENT_PORT_MIN: u16 = 1024;

/// What to open: one flow between two hosts.
#[derive(Debug)]
pub struct ConnectionSpec {
    /// The flow's number, unique within a run (its low 32 bits go into [`Packet::flow`](htsim_core::packet::Packet::flow)).
    pub flow_id: u64,
    /// Sending host.
    pub src: HostId,
    /// Receiving host.
    pub dst: HostId,
    /// Bytes to send; `None` for a long flow.
    pub size_bytes: Option<u64>,
    /// When the application connects (the flow's arrival time).
    pub start: SimTime,
    /// When a long flow's application stops (ignored for finite flows).
    pub stop: Option<SimTime>,
    /// The connection's own random stream (ports; per-packet ports when scattering).
    pub rng: SimRng,
    /// Endpoint and token to notify when the flow completes or fails.
    pub notify_on_complete: Option<(EndpointId, u32)>,
    /// How data packets choose their path (default: ECMP on the connection's ports).
    pub path: PathPolicy,
    /// Where both endpoints report their final state when they close (tests, debugging).
    pub report: Option<ReportSink>,
    /// The destination's locality and path count, for PS's and MMPTCP's automatic dupthresh
    /// and subflow count (docs/model.md 6.5, 6.7); `None` = unknown (X = 0, configured count).
    pub reach: Option<Reach>,
    /// The run's trace log when this connection is traced ([`crate::trace`]; `None` = not).
    pub trace: Option<TraceLog>,
}

impl ConnectionSpec {
    /// The forward (src to dst) and reverse path sets of this connection, or
    /// [`TransportError::NoPath`] when the topology has none.
    pub fn path_sets(
        &self,
        spawner: &mut dyn Spawn,
    ) -> Result<(PathSetId, PathSetId), TransportError> {
        let no_path = || TransportError::NoPath {
            src: self.src,
            dst: self.dst,
        };
        let fwd = spawner.path_set(self.src, self.dst).ok_or_else(no_path)?;
        let rev = spawner.path_set(self.dst, self.src).ok_or_else(no_path)?;
        Ok((fwd, rev))
    }

    /// A flow of `size_bytes` (`None` = long) from `src` to `dst` starting at `start`, with ECMP
    /// routing, no stop, no notification and no report.
    pub fn new(
        flow_id: u64,
        src: HostId,
        dst: HostId,
        size_bytes: Option<u64>,
        start: SimTime,
        rng: SimRng,
    ) -> Self {
        ConnectionSpec {
            flow_id,
            src,
            dst,
            size_bytes,
            start,
            stop: None,
            rng,
            notify_on_complete: None,
            path: PathPolicy::Ecmp,
            report: None,
            reach: None,
            trace: None,
        }
    }
}

/// The endpoints of an opened connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connection {
    /// The sending endpoint (it owns the flow record).
    pub sender: EndpointId,
    /// The receiving endpoint.
    pub receiver: EndpointId,
}

/// A transport protocol that can open connections.
pub trait Transport: Send + Sync {
    /// The name scenario files use (`tcp`, `dctcp`).
    fn name(&self) -> &str;
    /// Creates the connection's endpoints; the sender starts at `conn.start` and, for a long
    /// flow with `conn.stop`, its application stops then.
    fn open(
        &self,
        spawner: &mut dyn Spawn,
        conn: ConnectionSpec,
    ) -> Result<Connection, TransportError>;
    /// Whether connections to destinations with the `reaches` given (locality and equal-cost
    /// path count) can be opened with this transport's parameters, so that a caller can check
    /// the pairs a run may connect before it starts; the error names the scenario key at fault
    /// and the first reach refused is the last one taken from `reaches`. The multipath
    /// transports with pinned subflow paths (`paths = { pinned = [...] }`, docs/model.md 4.1)
    /// refuse a pair that lacks a path their subflows use, as [`open`](Transport::open) does.
    /// Transports that accept any destination (the default) take nothing from `reaches`, so
    /// it may lazily offer every pair of a large topology.
    fn check_reaches(&self, reaches: &mut dyn Iterator<Item = Reach>) -> Result<(), ParamError> {
        let _ = reaches;
        Ok(())
    }
    /// The subflows every connection opens from its start, at least (one for a single-path
    /// transport), each with its own window and state: what a caller can count of a
    /// connection's memory before a run. Subflows a connection may open later (MMPTCP's, at
    /// its switch) or only for some pairs (MPTCP's `cap_subflows`) are not counted.
    fn subflows_from_start(&self) -> u32 {
        1
    }
}

/// Opens a one-subflow connection (TCP, DCTCP) with controller `cc`.
pub fn open_single_path(
    spawner: &mut dyn Spawn,
    mut conn: ConnectionSpec,
    config: &TcpConfig,
    cc: Box<dyn CongestionControl>,
) -> Result<Connection, TransportError> {
    config.validate()?;
    let (fwd, rev) = conn.path_sets(spawner)?;
    let port = conn.rng.random_range(CLIENT_PORT_MIN..=u16::MAX);
    let sender = spawner.reserve();
    let receiver = spawner.reserve();
    let flow = conn.flow_id as u32;
    let mut sf = Subflow::new(
        SubflowAddr {
            index: 0,
            peer: receiver,
            flow,
            path: PathChoice::new(fwd, port, SERVER_PORT, conn.path),
            rto_timer_key: 0,
            syn_timer_key: 1,
        },
        config,
    );
    sf.set_tracer(conn.trace.map(|log| Tracer::new(log, conn.flow_id, 0)));
    let rx = TcpReceiver::new(
        conn.flow_id,
        sender,
        PathChoice::ecmp(rev, SERVER_PORT, port),
        config,
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
    let tx = TcpSender::new(spec, config, sf, cc);
    spawner.install(receiver, Box::new(rx), conn.start);
    spawner.install(sender, Box::new(tx), conn.start);
    if let (None, Some(stop)) = (conn.size_bytes, conn.stop) {
        spawner.schedule_stop(sender, stop);
    }
    Ok(Connection { sender, receiver })
}

/// A transport kind as scenarios name and configure it: its name, description and parameters
/// (the keys a `[transports.<name>]` table of this kind takes, with types, defaults and docs),
/// and how to build it. Each transport declares its own next to its code; [`REGISTRY`] lists
/// them.
#[derive(Clone, Copy, Debug)]
pub struct TransportKind {
    /// The `kind = "..."` name, what it is, and its parameters in listing order.
    pub spec: KindSpec,
    /// The transport with `profile`'s defaults.
    pub new: fn(Profile) -> Box<dyn Transport>,
    /// The transport that its parameters, resolved against [`TransportKind::spec`] (every key
    /// present, defaults filled in), describe.
    pub configure: fn(&Params) -> Result<Configured, ParamError>,
}

impl AsRef<KindSpec> for TransportKind {
    fn as_ref(&self) -> &KindSpec {
        &self.spec
    }
}

/// A transport built from scenario parameters, with the TCP parameters of its connections
/// (segment and packet sizes for the ideal FCT).
#[derive(Clone)]
pub struct Configured {
    /// The transport.
    pub transport: Arc<dyn Transport>,
    /// Its TCP parameters.
    pub tcp: TcpConfig,
}

/// Every transport kind. Adding a transport = its module (with its [`TransportKind`]) + one
/// line here.
pub const REGISTRY: &[TransportKind] = &[
    crate::tcp::KIND,
    crate::dctcp::KIND,
    crate::ps::KIND,
    crate::mptcp::KIND,
    crate::mmptcp::KIND,
    crate::xmp::KIND,
];

/// The transport kind called `name`.
pub fn transport_kind(name: &str) -> Option<&'static TransportKind> {
    REGISTRY.iter().find(|k| k.spec.name == name)
}

/// The names of the registered transports.
pub fn transport_names() -> Vec<&'static str> {
    REGISTRY.iter().map(|k| k.spec.name).collect()
}

/// The transport called `name`, configured by `profile`.
pub fn transport_by_name(
    name: &str,
    profile: Profile,
) -> Result<Box<dyn Transport>, TransportError> {
    transport_kind(name)
        .map(|k| (k.new)(profile))
        .ok_or_else(|| TransportError::UnknownTransport(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dctcp::DctcpTransport;
    use crate::tcp::TcpTransport;
    use htsim_core::world::World;

    #[test]
    fn registry_finds_each_transport_by_name() {
        assert_eq!(
            transport_names(),
            vec!["tcp", "dctcp", "ps", "mptcp", "mmptcp", "xmp"]
        );
        for name in transport_names() {
            let t = transport_by_name(name, Profile::Ns3Mmptcp).expect("registered");
            assert_eq!(t.name(), name);
        }
        let err = transport_by_name("quic", Profile::Rfc).err();
        assert_eq!(err, Some(TransportError::UnknownTransport("quic".into())));
        assert!(err.is_some_and(|e| e.to_string().contains("tcp, dctcp")));
    }

    #[test]
    fn every_kind_configures_from_its_declared_keys() {
        use htsim_core::params::{ParamKind, ParamValue};
        for kind in REGISTRY {
            let built = (kind.configure)(&Params::default()).expect("profile defaults");
            assert_eq!(built.transport.name(), kind.spec.name);
            // Each name a choice key declares is one its kind reads; any other is refused.
            for p in kind.spec.params {
                let ParamKind::Choice(names) = p.kind else {
                    continue;
                };
                for name in names {
                    let mut params = Params::default();
                    params.set(p.key, ParamValue::Text(name.to_string()));
                    let got = (kind.configure)(&params).err();
                    assert_eq!(got, None, "{}.{} = {name}", kind.spec.name, p.key);
                }
                let mut params = Params::default();
                params.set(p.key, ParamValue::Text("bogus".into()));
                assert!(
                    (kind.configure)(&params).is_err(),
                    "{}.{} = bogus",
                    kind.spec.name,
                    p.key
                );
            }
        }
        let mut params = Params::default();
        params.set("cc", ParamValue::Text("reno".into()));
        let err = (crate::mptcp::KIND.configure)(&params).err();
        assert_eq!(err, Some(ParamError::new("cc", "unknown cc `reno`")));
    }

    #[test]
    fn opening_without_a_path_or_with_a_bad_config_fails_cleanly() {
        let mut w = World::new(1);
        let spec = || {
            ConnectionSpec::new(
                1,
                HostId(0),
                HostId(1),
                Some(1),
                SimTime::ZERO,
                World::new(1).streams().stream("x"),
            )
        };
        let t = TcpTransport::new(Profile::Rfc);
        assert_eq!(
            t.open(&mut w, spec()),
            Err(TransportError::NoPath {
                src: HostId(0),
                dst: HostId(1)
            })
        );
        let mut bad = TcpTransport::new(Profile::Rfc);
        bad.config.dupthresh = 0;
        assert!(matches!(
            bad.open(&mut w, spec()),
            Err(TransportError::InvalidConfig(_))
        ));
        let mut dctcp = DctcpTransport::new(Profile::Rfc);
        dctcp.dctcp.g = 0.0;
        assert!(matches!(
            dctcp.open(&mut w, spec()),
            Err(TransportError::InvalidConfig(_))
        ));
    }
}
