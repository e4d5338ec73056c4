//! Errors of topology builders, file parsing and link selection, and the "did you mean" hint.

use thiserror::Error;

/// Everything that can go wrong building a topology or resolving names in it. Builders check
/// their parameters before touching the world, so an error leaves the world unchanged.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TopologyError {
    /// A builder parameter is out of range (odd k, zero hosts, ...).
    #[error("{topology}: {message}")]
    InvalidParameter {
        /// The topology kind (`fattree`, `bcube`, ...).
        topology: &'static str,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// The topology would need more nodes or links than 32-bit ids can number.
    #[error("{topology}: too large: {what} would exceed {limit}")]
    TooLarge {
        /// The topology kind.
        topology: &'static str,
        /// What overflows (`hosts`, `links`, ...).
        what: &'static str,
        /// The largest count accepted.
        limit: u64,
    },
    /// The topology needs more links than the world's memory budget allows
    /// ([`World::set_max_links`](htsim_core::world::World::set_max_links)).
    #[error("{topology}: {hosts} hosts and {links} directed links, more than the {max_links} links the memory budget allows")]
    OverBudget {
        /// The topology kind.
        topology: &'static str,
        /// Hosts it would have.
        hosts: u64,
        /// Directed links it would have.
        links: u64,
        /// The most links the budget allows.
        max_links: u64,
    },
    /// A per-layer cabling override names a cable layer the topology does not have.
    #[error("{topology}: no cable layer \"{layer}\" (it has: {known}){hint}")]
    UnknownCableLayer {
        /// The topology kind.
        topology: &'static str,
        /// The name given.
        layer: String,
        /// The cable layers the topology has, comma separated.
        known: String,
        /// `" (did you mean \"x\"?)"` or empty.
        hint: String,
    },
    /// A node, link or layer name matches nothing in the topology.
    #[error("no {what} named \"{name}\"{hint}")]
    UnknownName {
        /// `node`, `link` or `layer`.
        what: &'static str,
        /// The name given.
        name: String,
        /// `" (did you mean \"x\"?)"` or empty.
        hint: String,
    },
    /// A link selector is malformed (a fraction outside 0..=1, a link id outside the topology).
    #[error("bad link selector: {0}")]
    BadSelector(String),
    /// A line of a topology file is wrong.
    #[error("line {line}: {message}")]
    File {
        /// 1-based line number.
        line: usize,
        /// What is wrong with the line.
        message: String,
    },
}

/// Result of topology operations.
pub type Result<T, E = TopologyError> = std::result::Result<T, E>;

/// `" (did you mean \"x\"?)"` for the candidate closest to `given`
/// ([`htsim_core::suggest::closest`]), else the empty string.
pub(crate) fn did_you_mean<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> String {
    htsim_core::suggest::closest(given, candidates)
        .map(|c| format!(" (did you mean \"{c}\"?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestion_only_when_close() {
        let names = ["core0", "core1", "agg0.0"];
        assert_eq!(did_you_mean("cor1", names), " (did you mean \"core1\"?)");
        assert_eq!(did_you_mean("zzzzzzzz", names), "");
    }
}
