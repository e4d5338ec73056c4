//! Errors of the transport crate.

use htsim_core::ids::HostId;

/// Why a connection could not be opened or a transport could not be configured.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    /// The topology has no path between the two hosts (or they are the same host).
    #[error("no path from host {} to host {}", .src.0, .dst.0)]
    NoPath {
        /// Source host.
        src: HostId,
        /// Destination host.
        dst: HostId,
    },
    /// A parameter is out of range.
    #[error("invalid transport configuration: {0}")]
    InvalidConfig(String),
    /// No transport is registered under this name.
    #[error("unknown transport `{0}` (known: {known})", known = crate::transport::transport_names().join(", "))]
    UnknownTransport(String),
    /// No compatibility profile has this name.
    #[error("unknown profile `{0}` (known: rfc, ns3-mmptcp)")]
    UnknownProfile(String),
    /// A subflow is pinned to a path index the pair does not have (docs/model.md 4.1).
    #[error(
        "pinned path {index} does not exist: the pair has {paths} equal-cost path{} (indices 0 to {})",
        if *.paths == 1 { "" } else { "s" },
        .paths.saturating_sub(1)
    )]
    PinnedPathOutOfRange {
        /// The pinned path index.
        index: u32,
        /// The pair's equal-cost path count.
        paths: u32,
    },
}

/// Why a transport's scenario parameters cannot be used: the key at fault (empty when the
/// combination of keys is) and what is wrong. The scenario loader has already checked each
/// value's type and range against the kind's [`ParamSpec`](htsim_core::params::ParamSpec)s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParamError {
    /// The key at fault, within the transport's table (`""`: the table as a whole).
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl ParamError {
    /// An error at `key`.
    pub fn new(key: &'static str, message: impl Into<String>) -> Self {
        ParamError {
            key,
            message: message.into(),
        }
    }
}
