//! TCP with RFC 3168 ECN (`[transports.x] kind = "tcp"`, `ecn = true`, docs/model.md 2.14):
//! behind a `red` queue, which drops packets that are not ECN-capable above K and marks those
//! that are, plain TCP loses packets and retransmits; ECN-capable TCP is marked instead, halves
//! its window at most once per window, and keeps the link full without a loss.

use htsim::simulate::{run, RunContext, RunOutput};

mod common;
use common::{scenario, PAYLOAD_LINE_RATE_BPS};

/// Two long TCP flows share a dumbbell's 100 Mb/s bottleneck behind 1 Gb/s host links; every
/// queue is `red` with K = 20 packets and room for 100.
const DUMBBELL: &str = r#"
[run]
duration = "500ms"
warmup = "100ms"
[topology]
kind = "dumbbell"
hosts = 2
link_rate = "1Gbps"
bottleneck_rate = "100Mbps"
[queue]
kind = "red"
capacity = "100pkt"
mark_threshold = "20pkt"
[[flows]]
name = "fwd"
matrix = "pairs"
pairs = [[0, 2], [1, 3]]
size = "infinite"
transport = { kind = "tcp" }
"#;

fn run_with(overrides: &[&str]) -> RunOutput {
    run(&scenario(DUMBBELL, overrides), 1, &RunContext::default()).unwrap()
}

/// The bottleneck's row of links.csv.
fn bottleneck(out: &RunOutput) -> &htsim::simulate::results::LinkResult {
    out.results
        .links
        .iter()
        .find(|l| l.name == "left->right")
        .unwrap()
}

#[test]
fn ecn_capable_tcp_is_marked_where_plain_tcp_is_dropped() {
    let plain = run_with(&[]);
    let ecn = run_with(&["flows.fwd.transport={ kind = \"tcp\", ecn = true }"]);
    let (p, e) = (bottleneck(&plain), bottleneck(&ecn));
    // Plain TCP: nothing is ECN-capable, so nothing is marked and the queue drops above K.
    assert_eq!(p.packets_marked, 0);
    assert!(p.packets_dropped > 10, "{p:?}");
    let retransmits = |o: &RunOutput| o.results.flows.iter().map(|f| f.retransmits).sum::<u64>();
    assert!(retransmits(&plain) > 10);
    // ECN: marked instead; the halvings keep the queue under its 100 packets, so no loss.
    assert!(e.packets_marked > 10, "{e:?}");
    assert_eq!(e.packets_dropped, 0, "{e:?}");
    assert_eq!(retransmits(&ecn), 0);
    let goodput: f64 = ecn
        .results
        .flows
        .iter()
        .map(|f| f.goodput_bps.unwrap())
        .sum();
    let payload_rate = PAYLOAD_LINE_RATE_BPS / 10.0;
    assert!(
        goodput > 0.95 * payload_rate && goodput <= payload_rate,
        "{goodput} b/s of {payload_rate}"
    );
    assert!(e.utilisation_pct.unwrap() > 99.0, "{e:?}");
}

#[test]
fn the_echo_ends_with_cwr_so_a_long_path_stays_full() {
    // One flow over a path of 400 us of delay at 1 Gb/s: 34 packets in flight fill it. Each
    // halving above K = 20 leaves the window near the path's, and the echo stops once the
    // sender's CWR arrives; an echo that never stopped would halve the window every round
    // trip, down to 2 packets, about 6% of the link.
    let out = run(
        &scenario(
            DUMBBELL,
            &[
                "topology.link_rate=\"10Gbps\"",
                "topology.bottleneck_rate=\"1Gbps\"",
                "topology.link_delay=\"100us\"",
                "flows.fwd.pairs=[[0, 2]]",
                "flows.fwd.transport={ kind = \"tcp\", ecn = true }",
            ],
        ),
        1,
        &RunContext::default(),
    )
    .unwrap();
    let goodput = out.results.flows[0].goodput_bps.unwrap();
    assert!(goodput > 0.8 * PAYLOAD_LINE_RATE_BPS, "{goodput} b/s");
    let neck = bottleneck(&out);
    assert!(
        neck.packets_marked > 0 && neck.packets_dropped == 0,
        "{neck:?}"
    );
}

#[test]
fn ecn_is_a_tcp_key_only() {
    let e = htsim::scenario::load_str(
        "test.toml",
        &DUMBBELL.replace("{ kind = \"tcp\" }", "{ kind = \"dctcp\", ecn = true }"),
        std::path::Path::new("."),
        &htsim::scenario::LoadOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("unknown key `ecn`"), "{e}");
}
