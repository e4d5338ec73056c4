//! How a builder makes links: line rate and propagation delay per cable layer, and the queue of
//! every egress port from a caller-supplied factory.
//!
//! A *cable* joins two nodes and is made of two directed links that get the same rate and delay.
//! Its *cable layer* is named by its upper end: in a FatTree `tor` for host–ToR cables, `agg`
//! for ToR–aggregation cables, `core` for aggregation–core cables (the XMP paper's 20/30/40 µs
//! are tor/agg/core, docs/model.md 7.6). Each builder documents its cable layers.
//!
//! The queue of each directed link comes from a factory `FnMut(QueueSite) -> Queue`, told the
//! egress layer (the layer of the transmitting node: `host`, `tor`, ...), the cable layer and
//! the link rate, so the scenario layer decides drop-tail or ECN and capacities per layer (ECN on
//! switch ports only, for instance, is the caller's choice).

use crate::error::{did_you_mean, Result, TopologyError};
use htsim_core::queue::Queue;
use htsim_core::{Rate, SimTime};

/// Rate and one-way propagation delay of both directions of a cable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cable {
    /// Line rate, bit/s.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: SimTime,
}

/// Cable parameters: a default and overrides by cable layer name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cabling {
    /// Parameters of cables whose layer has no override.
    pub default: Cable,
    /// `(cable layer, parameters)` overrides; a later entry for the same layer wins.
    pub layers: Vec<(String, Cable)>,
}

impl Cabling {
    /// Every cable at `rate` with propagation `delay`.
    pub fn uniform(rate: Rate, delay: SimTime) -> Self {
        Cabling {
            default: Cable { rate, delay },
            layers: Vec::new(),
        }
    }

    /// Adds an override for cable layer `layer`.
    pub fn with_layer(mut self, layer: &str, rate: Rate, delay: SimTime) -> Self {
        self.layers.push((layer.to_string(), Cable { rate, delay }));
        self
    }

    /// The parameters of cables of layer `layer`.
    pub fn cable(&self, layer: &str) -> Cable {
        self.layers
            .iter()
            .rev()
            .find(|(name, _)| name == layer)
            .map_or(self.default, |&(_, c)| c)
    }

    /// Checks that every override names one of `known` (the topology's cable layers).
    pub(crate) fn check(&self, topology: &'static str, known: &[&str]) -> Result<()> {
        for (name, _) in &self.layers {
            if !known.contains(&name.as_str()) {
                return Err(TopologyError::UnknownCableLayer {
                    topology,
                    layer: name.clone(),
                    known: known.join(", "),
                    hint: did_you_mean(name, known.iter().copied()),
                });
            }
        }
        Ok(())
    }
}

/// Where a queue sits: what the queue factory is told about each directed link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueSite<'a> {
    /// Layer of the transmitting node (whose egress port this is): `host`, `tor`, `agg`, ...
    pub layer: &'a str,
    /// Cable layer of the link (see the module doc).
    pub cable: &'a str,
    /// Line rate of the link, bit/s.
    pub rate: Rate,
}

/// The queue factory builders call once per directed link.
pub type QueueFactory<'a> = dyn FnMut(QueueSite<'_>) -> Queue + 'a;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_apply_by_layer_and_unknown_layers_are_errors() {
        let c = Cabling::uniform(Rate::gbps(1), SimTime::from_us(20)).with_layer(
            "core",
            Rate::gbps(10),
            SimTime::from_us(40),
        );
        assert_eq!(c.cable("tor").rate, Rate::gbps(1));
        assert_eq!(c.cable("core").delay, SimTime::from_us(40));
        assert!(c.check("fattree", &["tor", "agg", "core"]).is_ok());
        let bad = c.with_layer("cores", Rate::gbps(1), SimTime::ZERO);
        let err = bad.check("fattree", &["tor", "agg", "core"]).unwrap_err();
        assert!(err.to_string().contains("did you mean \"core\""), "{err}");
    }
}
