//! Parameter tables of the topology kinds and of partition/aggregate jobs: each kind's keys,
//! their types and defaults; the transport kinds are declared by their modules in
//! `htsim-transport` ([`TRANSPORTS`]). The resolver checks a `[topology]`, `[transports.<name>]`
//! or `jobs` table against them and writes every default out; `htsim list` prints them.
//!
//! A new topology kind is added here, in one entry; a new transport kind is its module in
//! `htsim-transport` and one line of [`htsim_transport::REGISTRY`].

use htsim_transport::TransportKind;
use serde::ser::{Serialize, SerializeMap, Serializer};

pub use htsim_core::params::{quoted_list, KindSpec, ParamKind, ParamSpec, ParamValue, Params};

/// A topology kind: its name, description and parameters, and the link layers it tags.
#[derive(Clone, Copy, Debug)]
pub struct TopologyKind {
    /// The `kind = "..."` name, what it is, and its parameters.
    pub kind: KindSpec,
    /// Link layers it tags (`host`, `tor`, `agg`, `core`); empty = any name (file topologies).
    pub layers: &'static [&'static str],
}

impl AsRef<KindSpec> for TopologyKind {
    fn as_ref(&self) -> &KindSpec {
        &self.kind
    }
}

const LINK_RATE: ParamSpec = ParamSpec::new(
    "link_rate",
    ParamKind::Rate,
    Some("100Mbps"),
    "rate of every link unless a layer overrides it",
);
const LINK_DELAY: ParamSpec = ParamSpec::new(
    "link_delay",
    ParamKind::Duration,
    Some("20us"),
    "propagation delay of every link unless a layer overrides it",
);
const FAT_TREE_LAYERS: &[&str] = &["host", "tor", "agg", "core"];

/// The topology kinds and their parameters (defaults from docs/model.md 11).
pub const TOPOLOGIES: &[TopologyKind] = &[
    TopologyKind {
        kind: KindSpec {
            name: "fattree",
            doc: "k-ary FatTree: k pods of k/2 ToR and k/2 aggregation switches, (k/2)^2 core switches",
            params: &[
                ParamSpec::new(
                    "k",
                    ParamKind::Int { min: 2, max: 128 },
                    Some("8"),
                    "switch port count (even)",
                ),
                ParamSpec::new(
                    "oversubscription",
                    ParamKind::Int { min: 1, max: 64 },
                    Some("1"),
                    "hosts per ToR = (k/2) x oversubscription",
                ),
                LINK_RATE,
                LINK_DELAY,
            ],
        },
        layers: FAT_TREE_LAYERS,
    },
    TopologyKind {
        kind: KindSpec {
            name: "dhft",
            doc: "dual-homed FatTree: each ToR of a k-ary FatTree split in two, every host on both",
            params: &[
                ParamSpec::new(
                    "k",
                    ParamKind::Int { min: 6, max: 126 },
                    Some("12"),
                    "switch port count (a multiple of 6)",
                ),
                LINK_RATE,
                LINK_DELAY,
            ],
        },
        layers: FAT_TREE_LAYERS,
    },
    TopologyKind {
        kind: KindSpec {
            name: "vl2",
            doc: "VL2: ToRs with 20 hosts, aggregation and intermediate switches in a Clos",
            params: &[
                ParamSpec::new(
                    "da",
                    ParamKind::Int { min: 2, max: 128 },
                    Some("8"),
                    "aggregation switch port count (even)",
                ),
                ParamSpec::new(
                    "di",
                    ParamKind::Int { min: 2, max: 128 },
                    Some("8"),
                    "intermediate switch port count (even)",
                ),
                ParamSpec::new(
                    "hosts_per_tor",
                    ParamKind::Int { min: 1, max: 1024 },
                    Some("20"),
                    "hosts under each ToR",
                ),
                ParamSpec::new(
                    "link_rate",
                    ParamKind::Rate,
                    Some("1Gbps"),
                    "host link rate",
                ),
                ParamSpec::new(
                    "switch_rate",
                    ParamKind::Rate,
                    Some("10Gbps"),
                    "switch-to-switch link rate",
                ),
                LINK_DELAY,
            ],
        },
        layers: FAT_TREE_LAYERS,
    },
    TopologyKind {
        kind: KindSpec {
            name: "bcube",
            doc: "BCube(n, k): n-port switches, k+1 levels, hosts with k+1 NICs",
            params: &[
                ParamSpec::new(
                    "n",
                    ParamKind::Int { min: 2, max: 64 },
                    Some("4"),
                    "switch port count",
                ),
                ParamSpec::new(
                    "k",
                    ParamKind::Int { min: 0, max: 4 },
                    Some("1"),
                    "highest level (k+1 levels)",
                ),
                LINK_RATE,
                LINK_DELAY,
            ],
        },
        layers: &["host", "switch"],
    },
    TopologyKind {
        kind: KindSpec {
            name: "star",
            doc: "one perfect switch connecting every host",
            params: &[
                ParamSpec::new(
                    "hosts",
                    ParamKind::Int {
                        min: 2,
                        max: 1 << 20,
                    },
                    Some("16"),
                    "number of hosts",
                ),
                LINK_RATE,
                LINK_DELAY,
            ],
        },
        layers: &["host"],
    },
    TopologyKind {
        kind: KindSpec {
            name: "dumbbell",
            doc: "two switches joined by one bottleneck link, hosts on each side",
            params: &[
                ParamSpec::new(
                    "hosts",
                    ParamKind::Int {
                        min: 1,
                        max: 1 << 16,
                    },
                    Some("2"),
                    "hosts on each side",
                ),
                LINK_RATE,
                LINK_DELAY,
                ParamSpec::new(
                    "bottleneck_rate",
                    ParamKind::Rate,
                    Some("100Mbps"),
                    "rate of the middle link",
                ),
            ],
        },
        layers: &["host", "bottleneck"],
    },
    TopologyKind {
        kind: KindSpec {
            name: "xmp-two-path",
            doc: "the XMP paper's two-path testbed",
            params: &[
                ParamSpec::new(
                    "multipath_pairs",
                    ParamKind::Int {
                        min: 0,
                        max: 1 << 16,
                    },
                    Some("1"),
                    "sender/receiver pairs attached to both paths (hosts 0.. of each side)",
                ),
                ParamSpec::new(
                    "path0_pairs",
                    ParamKind::Int {
                        min: 0,
                        max: 1 << 16,
                    },
                    Some("0"),
                    "pairs attached to path 0 only, after the multipath pairs",
                ),
                ParamSpec::new(
                    "path1_pairs",
                    ParamKind::Int {
                        min: 0,
                        max: 1 << 16,
                    },
                    Some("0"),
                    "pairs attached to path 1 only, after those",
                ),
                LINK_RATE,
                LINK_DELAY,
            ],
        },
        layers: &["host", "bottleneck"],
    },
    TopologyKind {
        kind: KindSpec {
            name: "xmp-torus",
            doc: "the XMP paper's five-bottleneck torus",
            params: &[LINK_RATE, LINK_DELAY],
        },
        layers: &["host", "bottleneck"],
    },
    TopologyKind {
        kind: KindSpec {
            name: "file",
            doc: "nodes and links read from a file (path relative to the scenario)",
            params: &[
                ParamSpec::new("path", ParamKind::Text, None, "the topology file"),
                LINK_RATE,
                LINK_DELAY,
            ],
        },
        layers: &[],
    },
];

/// The keys of a partition/aggregate flow class's `jobs` table (`[[flows]] jobs = { ... }`,
/// docs/model.md 7.6; the defaults are the XMP paper's incast pattern). `htsim list workloads`
/// prints them.
pub const JOBS: KindSpec = KindSpec {
    name: "jobs",
    doc: "partition/aggregate jobs: a client sends a request to each of `servers` hosts, each \
          answers once its request completed; when every answer is in, a new job starts on \
          new random hosts (until the run's duration)",
    params: &[
        ParamSpec::new(
            "servers",
            ParamKind::Int {
                min: 1,
                max: 1 << 20,
            },
            Some("8"),
            "servers per job (the client is one more host; fewer than the topology's hosts)",
        ),
        ParamSpec::new(
            "request",
            ParamKind::Size,
            Some("2KB"),
            "bytes the client sends to each server",
        ),
        ParamSpec::new(
            "response",
            ParamKind::Size,
            Some("64KB"),
            "bytes each server sends back once its request completed",
        ),
        ParamSpec::new(
            "concurrent",
            ParamKind::Int {
                min: 1,
                max: 1 << 20,
            },
            Some("8"),
            "jobs running at any time (closed loop: a job that ends is replaced at once)",
        ),
        ParamSpec::new(
            "rack_local",
            ParamKind::Bool,
            Some("true"),
            "whether a server may be in the client's rack (false: no job flow stays under one \
             ToR)",
        ),
    ],
};

/// The topology kind called `name`.
pub fn topology(name: &str) -> Option<&'static TopologyKind> {
    TOPOLOGIES.iter().find(|k| k.kind.name == name)
}

/// The transport kinds, each declared next to its implementation in `htsim-transport`.
pub const TRANSPORTS: &[TransportKind] = htsim_transport::REGISTRY;

/// The transport kind called `name`.
pub fn transport(name: &str) -> Option<&'static KindSpec> {
    htsim_transport::transport_kind(name).map(|k| &k.spec)
}

/// A parameter value as a scenario file writes it: numbers and booleans as such, the rest as
/// strings with their units.
pub(crate) struct WrittenValue<'a>(pub &'a ParamValue);

impl Serialize for WrittenValue<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ParamValue::Int(i) => s.serialize_i64(*i),
            ParamValue::Float(x) => s.serialize_f64(*x),
            ParamValue::Bool(b) => s.serialize_bool(*b),
            ParamValue::List { key, values } => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry(key, values)?;
                m.end()
            }
            other => s.serialize_str(&other.to_string()),
        }
    }
}

/// Transport switches added after results were written without them, each off by default:
/// written only when on, so that a scenario without them reads back, and hashes into run
/// identities, as before they existed (results of earlier builds stay current instead of
/// stale). A test checks that each is a switch whose default is off wherever it exists.
pub(crate) const TRANSPORT_SWITCHES_WRITTEN_WHEN_ON: &[&str] = &["ecn"];

/// Serialises `params` into `map`, in order, leaving out those of `when_on` that are false.
pub(crate) fn serialize_params<M: SerializeMap>(
    map: &mut M,
    params: &Params,
    when_on: &[&str],
) -> Result<(), M::Error> {
    for (k, v) in &params.values {
        if when_on.contains(&k.as_str()) && *v == ParamValue::Bool(false) {
            continue;
        }
        map.serialize_entry(k, &WrittenValue(v))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use htsim_core::params::ParamKind;

    #[test]
    fn switches_written_only_when_on_are_off_by_default_wherever_they_exist() {
        for key in TRANSPORT_SWITCHES_WRITTEN_WHEN_ON {
            let mut found = 0;
            for kind in TRANSPORTS {
                for p in kind.spec.params.iter().filter(|p| p.key == *key) {
                    assert!(
                        matches!(p.kind, ParamKind::Bool),
                        "{key} of {}",
                        kind.spec.name
                    );
                    for profile in [None, Some("rfc"), Some("ns3-mmptcp")] {
                        assert_eq!(p.default_for(profile), Some("false"), "{key}");
                    }
                    found += 1;
                }
            }
            assert!(found > 0, "{key} is a key of some transport");
        }
    }
}
