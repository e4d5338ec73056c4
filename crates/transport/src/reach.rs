//! Where a connection's destination is, as plain values (docs/model.md 6.5, 6.7).
//!
//! The transport crate does not know topologies (docs/model.md 15.7); whoever wires a scenario
//! computes a [`Reach`] from its topology and puts it in the
//! [`ConnectionSpec`](crate::ConnectionSpec). Packet scatter and MMPTCP derive their automatic
//! dupthresh and MMPTCP its automatic subflow count from it.

/// How far the destination is, in FatTree terms (6.5's address test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Locality {
    /// The same host.
    SameHost,
    /// Another host under the same ToR.
    SameTor,
    /// Another ToR of the same pod (crosses the aggregation layer).
    SamePod,
    /// Another pod (crosses the core).
    OtherPod,
}

/// The destination's locality and the number of equal-cost paths to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reach {
    /// Where the destination is.
    pub locality: Locality,
    /// Equal-cost paths from source to destination (1, k/2, (k/2)^2 in a FatTree), already
    /// capped at the switches' ECMP fan-out if that is smaller (6.5).
    pub paths: u32,
}

impl Reach {
    /// X of 6.5: 0 for a single path (the rule is 3 + 0, not 3 + 1), else the path count.
    pub fn dupthresh_extra(&self) -> u32 {
        if self.paths <= 1 {
            0
        } else {
            self.paths
        }
    }

    /// MaxSubflows of Auto Subflow (6.7): 8 across the core, 4 across the aggregation layer,
    /// 1 under one ToR.
    pub fn auto_subflows(&self) -> u32 {
        match self.locality {
            Locality::OtherPod => 8,
            Locality::SamePod => 4,
            Locality::SameTor | Locality::SameHost => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_rules_of_6_5_and_6_7() {
        let r = |locality, paths| Reach { locality, paths };
        assert_eq!(r(Locality::SameTor, 1).dupthresh_extra(), 0);
        assert_eq!(r(Locality::SamePod, 4).dupthresh_extra(), 4);
        assert_eq!(r(Locality::OtherPod, 16).dupthresh_extra(), 16);
        assert_eq!(r(Locality::OtherPod, 16).auto_subflows(), 8);
        assert_eq!(r(Locality::SamePod, 4).auto_subflows(), 4);
        assert_eq!(r(Locality::SameTor, 1).auto_subflows(), 1);
    }
}
