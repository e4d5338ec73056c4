//! A scenario transport (`[transports.<name>]` or inline) as a configured [`Transport`]: the
//! kind's [`TransportKind`](htsim_transport::TransportKind) in `htsim-transport` turns the
//! resolved parameters into the transport (each transport module documents its keys), and
//! [`reach`] gives connections what the topology says about their destination.

use std::sync::Arc;

use htsim_core::ids::HostId;
use htsim_topology::topology::{Locality as TopoLocality, Topology};
use htsim_transport::{transport_kind, transport_names, Locality, Reach, TcpConfig, Transport};

use super::setup_error::SetupError;
use crate::scenario::TransportConfig;

/// A configured transport and what flows.csv and the ideal FCT need to know about it.
#[derive(Clone)]
pub struct Configured {
    /// The transport.
    pub transport: Arc<dyn Transport>,
    /// Its kind (`tcp`, `dctcp`): the flows.csv `transport` column.
    pub kind: String,
    /// Its TCP parameters (segment and packet sizes for the ideal FCT).
    pub tcp: TcpConfig,
}

/// The transport `config` describes.
pub fn configure(config: &TransportConfig) -> Result<Configured, SetupError> {
    let kind = config.kind.as_str();
    let Some(registered) = transport_kind(kind) else {
        return Err(SetupError::unsupported(
            "kind",
            format!(
                "transport `{kind}` is not implemented yet (available: {})",
                transport_names().join(", ")
            ),
        ));
    };
    let built =
        (registered.configure)(&config.params).map_err(|e| SetupError::new(e.key, e.message))?;
    Ok(Configured {
        transport: built.transport,
        kind: kind.to_string(),
        tcp: built.tcp,
    })
}

/// The [`Reach`] of `dst` from `src`: locality and equal-cost path count from the topology
/// (docs/model.md 6.5; the ECMP fan-out cap is not applied: every path is hashed over).
pub fn reach(topology: &Topology, src: u32, dst: u32) -> Reach {
    let (s, d) = (HostId(src), HostId(dst));
    let locality = match topology.locality(s, d) {
        TopoLocality::SameHost => Locality::SameHost,
        TopoLocality::SameTor => Locality::SameTor,
        TopoLocality::SamePod => Locality::SamePod,
        TopoLocality::OtherPod => Locality::OtherPod,
    };
    Reach {
        locality,
        paths: topology.path_count(s, d),
    }
}
