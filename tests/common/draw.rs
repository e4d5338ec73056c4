//! Scenario pieces drawn by the property tests over varied runs (`physical_invariants`,
//! `liveness`): topologies and transports with their options. Each binary uses a part of it.

#![allow(dead_code)]

use std::fmt::Write as _;

use proptest::prelude::*;

/// Cases a property test runs: `var` of the environment (e.g. `HTSIM_LIVENESS_CASES=500`), or
/// 40.
pub fn cases(var: &str) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

/// Host link rates drawn, Mb/s.
pub const RATES_MBPS: &[u64] = &[100, 400, 1000, 2500, 10_000];
/// Link delays drawn, us.
pub const DELAYS_US: &[u64] = &[1, 2, 5, 20];
/// Factor of a switch layer's rate over the host links' (1: the same).
pub const LAYER_FACTORS: &[f64] = &[1.0, 0.5, 2.0, 10.0];
/// Queue capacities drawn, packets.
pub const CAPACITIES: &[u64] = &[4, 16, 100];
/// Finite flow sizes drawn.
pub const SIZES: &[&str] = &["1B", "3KB", "70KB", "{ uniform = [\"1KB\", \"300KB\"] }"];
/// Segment sizes drawn, bytes.
pub const MSS: &[u64] = &[1400, 1400, 536, 9000];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topo {
    FatTree,
    Dhft,
    Vl2,
    BCube,
    Star,
    Dumbbell,
}

pub const TOPOS: &[Topo] = &[
    Topo::FatTree,
    Topo::FatTree,
    Topo::Dhft,
    Topo::Vl2,
    Topo::BCube,
    Topo::Star,
    Topo::Dumbbell,
];

/// A transport drawn: kind and its kind's settings.
#[derive(Clone, Debug)]
pub struct Transport {
    pub kind: &'static str,
    pub extra: String,
    /// The most subflows a connection may open: `subflows` (XMP at most 4 here), and for
    /// MMPTCP its scattering subflow 0 too (docs/scenarios.md, `subflows`).
    pub max_subflows: u32,
}

impl Transport {
    /// Whether the transport spreads one flow's packets over several paths.
    pub fn multipath(&self) -> bool {
        !matches!(self.kind, "tcp" | "dctcp")
    }
}

/// A transport drawn with minimum RTOs from `min_rtos`.
pub fn transport(min_rtos: &'static [&'static str]) -> impl Strategy<Value = Transport> {
    (
        0usize..8,
        1u32..=8,
        0usize..3,
        0usize..MSS.len(),
        0usize..min_rtos.len(),
        1u32..=10,
        any::<bool>(),
        (any::<u8>(), any::<u8>()),
    )
        .prop_map(|(k, subflows, cc, mss, rto, cwnd, ns3, (a, b))| {
            // Each option with probability 1/4.
            let opt = |bit: u8| a & b & (1 << bit) != 0;
            let ccs = ["lia", "uncoupled", "fully-coupled"];
            let kind = [
                "tcp", "dctcp", "ps", "mptcp", "mptcp", "mmptcp", "xmp", "xmp",
            ][k];
            let mut extra = format!(
                "mss = \"{}B\"\nmin_rto = \"{}\"\ninitial_cwnd = {cwnd}\n",
                MSS[mss], min_rtos[rto]
            );
            match kind {
                "mptcp" => {
                    let _ = writeln!(extra, "subflows = {subflows}\ncc = \"{}\"", ccs[cc]);
                }
                "mmptcp" => {
                    let _ = writeln!(
                        extra,
                        "subflows = {subflows}\ncc = \"{}\"\nswitch_threshold = \"20KB\"",
                        ccs[cc]
                    );
                }
                "xmp" => {
                    let _ = writeln!(extra, "subflows = {}", subflows.min(4));
                }
                _ => {}
            }
            if opt(0) && kind != "xmp" {
                extra.push_str("delayed_ack = true\n");
            }
            if opt(1) {
                extra.push_str("reorder_hold = \"300us\"\n");
            }
            if opt(2) && matches!(kind, "ps" | "mmptcp") {
                extra.push_str("limited_transmit = true\n");
            }
            if opt(3) && kind == "ps" {
                extra.push_str("scatter = \"round-robin\"\n");
            }
            if opt(4) && matches!(kind, "mptcp" | "mmptcp" | "xmp") {
                extra.push_str("paths = \"distinct\"\n");
            }
            if opt(5) && matches!(kind, "mptcp" | "mmptcp" | "xmp") {
                extra.push_str("cap_subflows = true\n");
            }
            if opt(6) {
                extra.push_str("dupthresh = 1\n");
            }
            if ns3 && matches!(kind, "mptcp" | "mmptcp" | "tcp") {
                extra.push_str("profile = \"ns3-mmptcp\"\n");
            }
            let max_subflows = match kind {
                "mptcp" => subflows,
                "mmptcp" => subflows + 1,
                "xmp" => subflows.min(4),
                _ => 1,
            };
            Transport {
                kind,
                extra,
                max_subflows,
            }
        })
}

/// A topology drawn, with what its `[topology]` table needs.
#[derive(Clone, Debug)]
pub struct TopologyDraw {
    pub topo: Topo,
    pub rate_mbps: u64,
    pub delay_us: u64,
    /// Factor of a switch layer's rate over the host links' (1: the same).
    pub layer_factor: f64,
    /// FatTree hosts per ToR over k/2.
    pub oversubscription: u32,
}

impl TopologyDraw {
    /// The other rate of the topology's switch layer (FatTree core, VL2 switch links, dumbbell
    /// bottleneck), Mb/s.
    pub fn layer_rate_mbps(&self) -> u64 {
        ((self.rate_mbps as f64 * self.layer_factor) as u64).max(1)
    }

    /// The `[topology]` table: FatTree k = 4, dual-homed FatTree k = 6, VL2 (4, 4, 3 hosts per
    /// ToR), BCube(4, 1), a star of 8 hosts, a dumbbell of 3 + 3 hosts.
    pub fn toml(&self, t: &mut String) {
        let c = self;
        let rate = format!("\"{}Mbps\"", c.rate_mbps);
        let layer = format!("\"{}Mbps\"", c.layer_rate_mbps());
        let delay = format!("\"{}us\"", c.delay_us);
        t.push_str("[topology]\n");
        match c.topo {
            Topo::FatTree => {
                let _ = writeln!(
                    t,
                    "kind = \"fattree\"\nk = 4\noversubscription = {}\nlink_rate = {rate}\n\
                     link_delay = {delay}\n[topology.layers.core]\nlink_rate = {layer}",
                    c.oversubscription
                );
            }
            Topo::Dhft => {
                let _ = writeln!(
                    t,
                    "kind = \"dhft\"\nk = 6\nlink_rate = {rate}\nlink_delay = {delay}\n\
                     [topology.layers.agg]\nlink_rate = {layer}"
                );
            }
            Topo::Vl2 => {
                let _ = writeln!(
                    t,
                    "kind = \"vl2\"\nda = 4\ndi = 4\nhosts_per_tor = 3\nlink_rate = {rate}\n\
                     switch_rate = {layer}\nlink_delay = {delay}"
                );
            }
            Topo::BCube => {
                let _ = writeln!(
                    t,
                    "kind = \"bcube\"\nn = 4\nk = 1\nlink_rate = {rate}\nlink_delay = {delay}"
                );
            }
            Topo::Star => {
                let _ = writeln!(
                    t,
                    "kind = \"star\"\nhosts = 8\nlink_rate = {rate}\nlink_delay = {delay}"
                );
            }
            Topo::Dumbbell => {
                let _ = writeln!(
                    t,
                    "kind = \"dumbbell\"\nhosts = 3\nlink_rate = {rate}\nlink_delay = {delay}\n\
                     bottleneck_rate = {layer}"
                );
            }
        }
    }
}

/// `size` as a TOML value: a table as it is, a size quoted.
pub fn quoted(size: &str) -> String {
    if size.starts_with('{') {
        size.to_string()
    } else {
        format!("\"{size}\"")
    }
}

/// A drawn queue capacity as the scenario writes it: `capacity` packets, or as many bytes of
/// the largest packet drawn (9000 B of data and its header) when `in_bytes`.
pub fn capacity_value(capacity: u64, in_bytes: bool) -> (u64, &'static str) {
    if in_bytes {
        (capacity * 9062, "B")
    } else {
        (capacity, "pkt")
    }
}

/// A drawn case's network settings: `[queue]` of `kind` with `capacity` (from
/// [`capacity_value`]) and, for a marking queue, a threshold of a quarter of it; spraying when
/// `spray`; the `long` and `short` transports.
pub fn network_toml(
    t: &mut String,
    kind: &str,
    (capacity, unit): (u64, &str),
    spray: bool,
    long: &Transport,
    short: &Transport,
) {
    let _ = writeln!(t, "[queue]\nkind = \"{kind}\"");
    let _ = writeln!(t, "capacity = \"{capacity}{unit}\"");
    if kind != "droptail" {
        let _ = writeln!(t, "mark_threshold = \"{}{unit}\"", (capacity / 4).max(1));
    }
    if spray {
        t.push_str("[routing]\nmode = \"spray\"\n");
    }
    for (name, tr) in [("long", long), ("short", short)] {
        let _ = writeln!(
            t,
            "[transports.{name}]\nkind = \"{}\"\n{}",
            tr.kind, tr.extra
        );
    }
}

/// The `short` flow class of a drawn case: flows of `size` (a TOML value) between the hosts
/// no other class uses, arriving as a Poisson process of `poisson` flows per second.
pub fn short_flows_toml(t: &mut String, size: &str, poisson: u64) {
    let _ = writeln!(
        t,
        "[[flows]]\nname = \"short\"\nmatrix = \"permutation\"\nsenders = \"rest\"\n\
         size = {size}\narrivals = {{ poisson = {poisson} }}\ntransport = \"short\""
    );
}

/// The `where` of a drawn case's link events on `topo`: half the core switches, a quarter of
/// BCube's switches, one star port, the dumbbell's bottleneck.
pub fn event_target(topo: Topo) -> &'static str {
    match topo {
        Topo::FatTree | Topo::Dhft | Topo::Vl2 => "{ layer = \"core\", switches = \"50%\" }",
        Topo::BCube => "{ layer = \"switch\", switches = \"25%\" }",
        Topo::Star => "{ link = \"switch->host2\" }",
        Topo::Dumbbell => "{ layer = \"bottleneck\" }",
    }
}
