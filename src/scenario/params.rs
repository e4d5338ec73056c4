//! Parameter tables of the topology and transport kinds: each kind's keys, their types and
//! defaults. The resolver checks a `[topology]` or `[transports.<name>]` table against them and
//! writes every default out; `htsim list` prints them.
//!
//! A new topology or transport kind is added here, in one entry.

use std::fmt;

use htsim_core::units::{format_buffer, format_duration, format_size, BufferSize};
use htsim_core::{Rate, SimTime};
use serde::ser::{Serialize, Serializer};

/// The type of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// An integer in `min..=max`, or the string `"auto"`.
    IntOrAuto {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// A float in `min..=max`.
    Float {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// `true` or `false`.
    Bool,
    /// A duration with its unit (`"20us"`).
    Duration,
    /// A size with its unit (`"1400B"`).
    Size,
    /// A size with its unit, above 0 (`"1400B"`).
    PositiveSize,
    /// A size with its unit, or the string `"unlimited"`.
    SizeOrUnlimited,
    /// A rate with its unit (`"100Mbps"`).
    Rate,
    /// A buffer size: packets (`"10pkt"`) or bytes.
    Buffer,
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
    /// Free text (a file path).
    Text,
}

impl ParamKind {
    /// What a value of this kind looks like, for messages.
    pub fn expected(&self) -> String {
        match self {
            ParamKind::Int { min, max } => format!("an integer from {min} to {max}"),
            ParamKind::IntOrAuto { min, max } => {
                format!("an integer from {min} to {max}, or \"auto\"")
            }
            ParamKind::Float { min, max } => format!("a number from {min} to {max}"),
            ParamKind::Bool => "true or false".into(),
            ParamKind::Duration => "a duration such as \"20us\"".into(),
            ParamKind::Size => "a size such as \"1400B\"".into(),
            ParamKind::PositiveSize => "a size above 0 such as \"1400B\"".into(),
            ParamKind::SizeOrUnlimited => "a size such as \"64KB\", or \"unlimited\"".into(),
            ParamKind::Rate => "a rate such as \"10Gbps\"".into(),
            ParamKind::Buffer => "a buffer size such as \"100pkt\" or \"64KB\"".into(),
            ParamKind::Choice(names) => format!("one of {}", quoted_list(names)),
            ParamKind::Text => "a string".into(),
        }
    }
}

/// `"a", "b" or "c"`.
pub fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// A resolved parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// The string `"auto"`.
    Auto,
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A duration.
    Duration(SimTime),
    /// A size in bytes.
    Size(u64),
    /// No limit.
    Unlimited,
    /// A rate.
    Rate(Rate),
    /// A buffer size.
    Buffer(BufferSize),
    /// A name from a fixed set, or free text.
    Text(String),
}

impl fmt::Display for ParamValue {
    /// Writes the value as a scenario file would (units included, strings unquoted).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Auto => f.write_str("auto"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Duration(t) => f.write_str(&format_duration(*t)),
            ParamValue::Size(b) => f.write_str(&format_size(*b)),
            ParamValue::Unlimited => f.write_str("unlimited"),
            ParamValue::Rate(r) => write!(f, "{r}"),
            ParamValue::Buffer(b) => f.write_str(&format_buffer(b)),
            ParamValue::Text(s) => f.write_str(s),
        }
    }
}

impl Serialize for ParamValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ParamValue::Int(i) => s.serialize_i64(*i),
            ParamValue::Float(x) => s.serialize_f64(*x),
            ParamValue::Bool(b) => s.serialize_bool(*b),
            other => s.serialize_str(&other.to_string()),
        }
    }
}

/// One parameter of a kind.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key.
    pub key: &'static str,
    /// Its type.
    pub kind: ParamKind,
    /// Its default, as written in a scenario; `None` when the key is required.
    pub default: Option<&'static str>,
    /// Defaults that differ under a compatibility profile: `(profile, value)` pairs that replace
    /// [`ParamSpec::default`] when the table's `profile` is that profile (docs/model.md 12).
    pub profile_defaults: &'static [(&'static str, &'static str)],
    /// What it means.
    pub doc: &'static str,
}

impl ParamSpec {
    /// The default under `profile` (the table's `profile` value, if the kind has one).
    pub fn default_for(&self, profile: Option<&str>) -> Option<&'static str> {
        profile
            .and_then(|pr| self.profile_defaults.iter().find(|(name, _)| *name == pr))
            .map(|&(_, value)| value)
            .or(self.default)
    }
}

/// A topology or transport kind: its name, what it is, its parameters and (topologies) its link
/// layers.
#[derive(Clone, Copy, Debug)]
pub struct KindSpec {
    /// The `kind = "..."` name.
    pub name: &'static str,
    /// One line on what it is.
    pub doc: &'static str,
    /// Its parameters (not counting `kind`).
    pub params: &'static [ParamSpec],
    /// Link layers it tags (`host`, `tor`, `agg`, `core`); empty = any name (file topologies).
    pub layers: &'static [&'static str],
}

impl KindSpec {
    /// The parameter called `key`.
    pub fn param(&self, key: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.key == key)
    }
}

const fn p(
    key: &'static str,
    kind: ParamKind,
    default: Option<&'static str>,
    doc: &'static str,
) -> ParamSpec {
    ParamSpec {
        key,
        kind,
        default,
        profile_defaults: &[],
        doc,
    }
}

const LINK_RATE: ParamSpec = p(
    "link_rate",
    ParamKind::Rate,
    Some("100Mbps"),
    "rate of every link unless a layer overrides it",
);
const LINK_DELAY: ParamSpec = p(
    "link_delay",
    ParamKind::Duration,
    Some("20us"),
    "propagation delay of every link unless a layer overrides it",
);
const FAT_TREE_LAYERS: &[&str] = &["host", "tor", "agg", "core"];

/// The topology kinds and their parameters (defaults from docs/model.md 11).
pub const TOPOLOGIES: &[KindSpec] = &[
    KindSpec {
        name: "fattree",
        doc: "k-ary FatTree: k pods of k/2 ToR and k/2 aggregation switches, (k/2)^2 core switches",
        params: &[
            p(
                "k",
                ParamKind::Int { min: 2, max: 128 },
                Some("8"),
                "switch port count (even)",
            ),
            p(
                "oversubscription",
                ParamKind::Int { min: 1, max: 64 },
                Some("1"),
                "hosts per ToR = (k/2) x oversubscription",
            ),
            LINK_RATE,
            LINK_DELAY,
        ],
        layers: FAT_TREE_LAYERS,
    },
    KindSpec {
        name: "dhft",
        doc: "dual-homed FatTree: each ToR of a k-ary FatTree split in two, every host on both",
        params: &[
            p(
                "k",
                ParamKind::Int { min: 6, max: 126 },
                Some("12"),
                "switch port count (a multiple of 6)",
            ),
            LINK_RATE,
            LINK_DELAY,
        ],
        layers: FAT_TREE_LAYERS,
    },
    KindSpec {
        name: "vl2",
        doc: "VL2: ToRs with 20 hosts, aggregation and intermediate switches in a Clos",
        params: &[
            p(
                "da",
                ParamKind::Int { min: 2, max: 128 },
                Some("8"),
                "aggregation switch port count (even)",
            ),
            p(
                "di",
                ParamKind::Int { min: 2, max: 128 },
                Some("8"),
                "intermediate switch port count (even)",
            ),
            p(
                "hosts_per_tor",
                ParamKind::Int { min: 1, max: 1024 },
                Some("20"),
                "hosts under each ToR",
            ),
            p(
                "link_rate",
                ParamKind::Rate,
                Some("1Gbps"),
                "host link rate",
            ),
            p(
                "switch_rate",
                ParamKind::Rate,
                Some("10Gbps"),
                "switch-to-switch link rate",
            ),
            LINK_DELAY,
        ],
        layers: FAT_TREE_LAYERS,
    },
    KindSpec {
        name: "bcube",
        doc: "BCube(n, k): n-port switches, k+1 levels, hosts with k+1 NICs",
        params: &[
            p(
                "n",
                ParamKind::Int { min: 2, max: 64 },
                Some("4"),
                "switch port count",
            ),
            p(
                "k",
                ParamKind::Int { min: 0, max: 4 },
                Some("1"),
                "highest level (k+1 levels)",
            ),
            LINK_RATE,
            LINK_DELAY,
        ],
        layers: &["host", "switch"],
    },
    KindSpec {
        name: "star",
        doc: "one perfect switch connecting every host",
        params: &[
            p(
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
        layers: &["host"],
    },
    KindSpec {
        name: "dumbbell",
        doc: "two switches joined by one bottleneck link, hosts on each side",
        params: &[
            p(
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
            p(
                "bottleneck_rate",
                ParamKind::Rate,
                Some("100Mbps"),
                "rate of the middle link",
            ),
        ],
        layers: &["host", "bottleneck"],
    },
    KindSpec {
        name: "xmp-two-path",
        doc: "the XMP paper's two-path testbed",
        params: &[
            p(
                "multipath_pairs",
                ParamKind::Int {
                    min: 0,
                    max: 1 << 16,
                },
                Some("1"),
                "sender/receiver pairs attached to both paths (hosts 0.. of each side)",
            ),
            p(
                "path0_pairs",
                ParamKind::Int {
                    min: 0,
                    max: 1 << 16,
                },
                Some("0"),
                "pairs attached to path 0 only, after the multipath pairs",
            ),
            p(
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
        layers: &["host", "bottleneck"],
    },
    KindSpec {
        name: "xmp-torus",
        doc: "the XMP paper's five-bottleneck torus",
        params: &[LINK_RATE, LINK_DELAY],
        layers: &["host", "bottleneck"],
    },
    KindSpec {
        name: "file",
        doc: "nodes and links read from a file (path relative to the scenario)",
        params: &[
            p("path", ParamKind::Text, None, "the topology file"),
            LINK_RATE,
            LINK_DELAY,
        ],
        layers: &[],
    },
];

const PROFILE: ParamSpec = p(
    "profile",
    ParamKind::Choice(&["rfc", "ns3-mmptcp"]),
    Some("rfc"),
    "compatibility profile (docs/model.md 12)",
);
const MSS: ParamSpec = p(
    "mss",
    ParamKind::PositiveSize,
    Some("1400B"),
    "maximum segment size (payload per packet)",
);
const HEADER: ParamSpec = p(
    "header_size",
    ParamKind::Size,
    Some("62B"),
    "header bytes added to each data packet on the wire",
);
const ACK: ParamSpec = p(
    "ack_size",
    ParamKind::Size,
    Some("42B"),
    "size of an ACK and a FIN on the wire (a SYN adds 8 B of options when header_size > 0)",
);
const IW: ParamSpec = p(
    "initial_cwnd",
    ParamKind::Int {
        min: 1,
        max: 1_000_000,
    },
    Some("1"),
    "initial congestion window, in segments",
);
const SSTHRESH: ParamSpec = p(
    "initial_ssthresh",
    ParamKind::Buffer,
    Some("65535B"),
    "initial slow-start threshold (bytes, or packets of mss bytes)",
);
const RWND: ParamSpec = ParamSpec {
    profile_defaults: &[("ns3-mmptcp", "65535B")],
    ..p(
        "rwnd",
        ParamKind::SizeOrUnlimited,
        Some("unlimited"),
        "receiver window cap (\"unlimited\": no cap, the rfc default; 65535B: the ns-3 model's \
         fixed window, the ns3-mmptcp default)",
    )
};
const DELACK: ParamSpec = p(
    "delayed_ack",
    ParamKind::Bool,
    Some("false"),
    "ACK every second segment (40 ms timer)",
);
const MIN_RTO: ParamSpec = p(
    "min_rto",
    ParamKind::Duration,
    Some("200ms"),
    "lower bound of the retransmission timeout",
);
const DUPTHRESH: ParamSpec = p(
    "dupthresh",
    ParamKind::Int { min: 1, max: 1000 },
    Some("3"),
    "duplicate ACKs that trigger fast retransmit",
);
const DUPTHRESH_AUTO: ParamSpec = p(
    "dupthresh",
    ParamKind::IntOrAuto { min: 1, max: 1000 },
    Some("auto"),
    "duplicate ACKs that trigger fast retransmit; auto = topology-aware (docs/model.md 6.5)",
);
const SUBFLOWS: ParamSpec = p(
    "subflows",
    ParamKind::Int { min: 1, max: 256 },
    Some("8"),
    "number of subflows",
);
const CC: ParamSpec = p(
    "cc",
    ParamKind::Choice(&["lia", "lia-uncapped", "fully-coupled", "uncoupled", "ewtcp"]),
    Some("lia"),
    "coupled congestion control (docs/model.md 4.6)",
);
const PATHS: ParamSpec = p(
    "paths",
    ParamKind::Choice(&["ecmp", "distinct"]),
    Some("ecmp"),
    "subflow paths: \"ecmp\" hashes each subflow's ports (subflows may share a path);      \"distinct\" pins each subflow to its own random path of the pair's equal-cost set,      wrapping round when there are more subflows than paths (docs/model.md 4.1)",
);
const CAP_SUBFLOWS: ParamSpec = p(
    "cap_subflows",
    ParamKind::Bool,
    Some("false"),
    "open at most as many subflows as the pair has equal-cost paths (htsim's rule; mmptcp:      at the switch)",
);
const SCATTER: ParamSpec = p(
    "scatter",
    ParamKind::Choice(&["random", "round-robin"]),
    Some("random"),
    "how data packets pick their paths: \"random\" = an independent random path each (a \
     random source port hashed by ECMP); \"round-robin\" = the pair's paths in turn, as \
     htsim's packet scatter (docs/model.md 5)",
);
const LIMITED_TRANSMIT: ParamSpec = p(
    "limited_transmit",
    ParamKind::Bool,
    Some("false"),
    "limited transmit in the scatter phase (docs/model.md 6.6)",
);

const XMP_SUBFLOWS: ParamSpec = p(
    "subflows",
    ParamKind::Int { min: 1, max: 256 },
    Some("2"),
    "number of subflows (1 = BOS, single-path XMP)",
);
/// XMP runs with "sufficiently large" buffers (docs/model.md 7.5): no cap under either profile.
const XMP_RWND: ParamSpec = p(
    "rwnd",
    ParamKind::SizeOrUnlimited,
    Some("unlimited"),
    "receiver window cap (XMP's experiments use none, docs/model.md 7.5)",
);

const REORDER_HOLD: ParamSpec = p(
    "reorder_hold",
    ParamKind::Duration,
    Some("0s"),
    "reorder-resilient receiver: hold the duplicate ACKs of out-of-order segments up to this \
     long before taking the hole for a loss (0s = off; above the paths' delay spread, e.g. \
     \"300us\"; every subflow of the multipath receivers too)",
);
const REORDER_SEGMENTS: ParamSpec = p(
    "reorder_hold_segments",
    ParamKind::Int {
        min: 1,
        max: 1_000_000,
    },
    Some("32"),
    "with reorder_hold: at most this many duplicate ACKs held per hole, then all are sent \
     (at most the expected window in segments)",
);

/// The transport kinds and their parameters (defaults from docs/model.md 11).
pub const TRANSPORTS: &[KindSpec] = &[
    KindSpec {
        name: "tcp",
        doc: "TCP NewReno (docs/model.md 2)",
        params: &[
            PROFILE,
            MSS,
            HEADER,
            ACK,
            IW,
            SSTHRESH,
            RWND,
            DELACK,
            MIN_RTO,
            REORDER_HOLD,
            REORDER_SEGMENTS,
            DUPTHRESH,
        ],
        layers: &[],
    },
    KindSpec {
        name: "dctcp",
        doc: "DCTCP (docs/model.md 8)",
        params: &[
            PROFILE,
            MSS,
            HEADER,
            ACK,
            IW,
            SSTHRESH,
            RWND,
            DELACK,
            MIN_RTO,
            REORDER_HOLD,
            REORDER_SEGMENTS,
            DUPTHRESH,
            p(
                "g",
                ParamKind::Float { min: 0.0, max: 1.0 },
                Some("0.0625"),
                "gain of the marked-fraction estimate",
            ),
        ],
        layers: &[],
    },
    KindSpec {
        name: "ps",
        doc: "packet scatter: one window, a random source port per packet (docs/model.md 5)",
        params: &[
            PROFILE,
            MSS,
            HEADER,
            ACK,
            IW,
            SSTHRESH,
            RWND,
            DELACK,
            MIN_RTO,
            REORDER_HOLD,
            REORDER_SEGMENTS,
            DUPTHRESH_AUTO,
            LIMITED_TRANSMIT,
            SCATTER,
        ],
        layers: &[],
    },
    KindSpec {
        name: "mptcp",
        doc: "MPTCP with coupled congestion control (docs/model.md 4)",
        params: &[
            PROFILE,
            MSS,
            HEADER,
            ACK,
            IW,
            SSTHRESH,
            RWND,
            DELACK,
            MIN_RTO,
            REORDER_HOLD,
            REORDER_SEGMENTS,
            DUPTHRESH,
            SUBFLOWS,
            CC,
            PATHS,
            CAP_SUBFLOWS,
        ],
        layers: &[],
    },
    KindSpec {
        name: "mmptcp",
        doc: "MMPTCP: packet scatter, then MPTCP after a switching threshold (docs/model.md 6)",
        params: &[
            PROFILE,
            MSS,
            HEADER,
            ACK,
            IW,
            SSTHRESH,
            RWND,
            DELACK,
            MIN_RTO,
            REORDER_HOLD,
            REORDER_SEGMENTS,
            DUPTHRESH_AUTO,
            SUBFLOWS,
            CC,
            PATHS,
            CAP_SUBFLOWS,
            LIMITED_TRANSMIT,
            p(
                "switch_threshold",
                ParamKind::Size,
                Some("100KB"),
                "bytes sent before switching to MPTCP",
            ),
            p(
                "auto_subflows",
                ParamKind::Bool,
                Some("false"),
                "8/4/1 subflows by distance (docs/model.md 6.7)",
            ),
        ],
        layers: &[],
    },
    KindSpec {
        name: "xmp",
        doc: "XMP: MPTCP with the BOS marking response and TraSh coupling (docs/model.md 7); \
              data is ECN-capable, queues of kind \"ecn\" with mark_threshold give K",
        params: &[
            PROFILE,
            MSS,
            HEADER,
            ACK,
            IW,
            XMP_RWND,
            MIN_RTO,
            REORDER_HOLD,
            REORDER_SEGMENTS,
            DUPTHRESH,
            XMP_SUBFLOWS,
            PATHS,
            CAP_SUBFLOWS,
            p(
                "beta",
                ParamKind::Int { min: 2, max: 64 },
                Some("4"),
                "an echo cuts the window by cwnd / beta, once per round (docs/model.md 7.3)",
            ),
            p(
                "min_cwnd",
                ParamKind::Int { min: 1, max: 1000 },
                Some("2"),
                "smallest window after an echo cut, in segments",
            ),
        ],
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
        p(
            "servers",
            ParamKind::Int {
                min: 1,
                max: 1 << 20,
            },
            Some("8"),
            "servers per job (the client is one more host; fewer than the topology's hosts)",
        ),
        p(
            "request",
            ParamKind::Size,
            Some("2KB"),
            "bytes the client sends to each server",
        ),
        p(
            "response",
            ParamKind::Size,
            Some("64KB"),
            "bytes each server sends back once its request completed",
        ),
        p(
            "concurrent",
            ParamKind::Int {
                min: 1,
                max: 1 << 20,
            },
            Some("8"),
            "jobs running at any time (closed loop: a job that ends is replaced at once)",
        ),
        p(
            "rack_local",
            ParamKind::Bool,
            Some("true"),
            "whether a server may be in the client's rack (false: no job flow stays under one \
             ToR)",
        ),
    ],
    layers: &[],
};

/// The topology kind called `name`.
pub fn topology(name: &str) -> Option<&'static KindSpec> {
    TOPOLOGIES.iter().find(|k| k.name == name)
}

/// The transport kind called `name`.
pub fn transport(name: &str) -> Option<&'static KindSpec> {
    TRANSPORTS.iter().find(|k| k.name == name)
}

/// A kind's parameters with resolved values, in the kind's order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Params {
    /// `(key, value)` pairs.
    pub values: Vec<(String, ParamValue)>,
}

impl Params {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The integer value of `key`.
    pub fn int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(ParamValue::Int(i)) => Some(*i),
            _ => None,
        }
    }

    /// The rate value of `key`.
    pub fn rate(&self, key: &str) -> Option<Rate> {
        match self.get(key) {
            Some(ParamValue::Rate(r)) => Some(*r),
            _ => None,
        }
    }

    /// The duration value of `key`.
    pub fn duration(&self, key: &str) -> Option<SimTime> {
        match self.get(key) {
            Some(ParamValue::Duration(t)) => Some(*t),
            _ => None,
        }
    }

    /// The size value of `key`, in bytes.
    pub fn size(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Some(ParamValue::Size(b)) => Some(*b),
            _ => None,
        }
    }

    /// The text value of `key`.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(ParamValue::Text(s)) => Some(s),
            _ => None,
        }
    }
}
