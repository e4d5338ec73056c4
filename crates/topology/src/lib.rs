//! Topologies (filled by the topology issue).
