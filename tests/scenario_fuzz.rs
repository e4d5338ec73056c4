//! The loader never panics: random text, and a valid scenario with random edits, always give a
//! scenario or an error.

use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use proptest::prelude::*;

const BASE: &str = r#"name = "fuzz"
[run]
duration = "1s"
drain = "0.5s"
seeds = [1, 3]
[topology]
kind = "fattree"
k = 4
[topology.layers.core]
link_rate = "1Gbps"
[queue]
kind = "ecn"
capacity = "100pkt"
mark_threshold = "20pkt"
[transports.m]
kind = "mmptcp"
dupthresh = "auto"
[[flows]]
name = "long"
matrix = "stride"
offset = 3
senders = "33%"
size = { pareto = { shape = 1.5, mean = "1MB", max = "8MB" } }
arrivals = { every = "100ms" }
transport = "m"
[[flows]]
name = "short"
senders = "rest"
size = { uniform = ["1KB", "1MB"] }
arrivals = { poisson = 10 }
transport = { kind = "dctcp", g = 0.1 }
[[events]]
at = "0.5s"
where = { layer = "core", switches = "30%" }
set = { rate = "100Mbps" }
[output]
timeseries = { interval = "1ms", series = ["queue"] }
[sweep]
"flows.short.arrivals.poisson" = [10, 20]
"#;

fn load(text: &str, overrides: Vec<String>) {
    let options = LoadOptions {
        overrides,
        seeds: None,
        ..LoadOptions::default()
    };
    if let Err(e) = load_str("fuzz.toml", text, Path::new("."), &options) {
        // Rendering the error must not panic either.
        let _ = e.to_string();
    }
}

#[test]
fn base_loads() {
    let loaded = load_str("fuzz.toml", BASE, Path::new("."), &LoadOptions::default()).unwrap();
    assert_eq!(loaded.points.len(), 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        load(&text, Vec::new());
    }

    #[test]
    fn edited_scenarios_never_panic(
        edits in prop::collection::vec((0usize..2000, 0usize..8, "[ -~\\n\\u{e9}\\u{1F600}]{0,6}"), 1..4),
        set in prop::option::of(("[a-z._]{0,24}", "[ -~]{0,10}")),
    ) {
        let mut text: Vec<char> = BASE.chars().collect();
        for (at, cut, insert) in edits {
            let at = at % (text.len() + 1);
            let end = (at + cut).min(text.len());
            text.splice(at..end, insert.chars());
        }
        let text: String = text.into_iter().collect();
        let overrides = set.map(|(p, v)| vec![format!("{p}={v}")]).unwrap_or_default();
        load(&text, overrides);
    }

    #[test]
    fn random_overrides_never_panic(path in "[a-z_.]{0,30}", value in "\\PC{0,12}") {
        load(BASE, vec![format!("{path}={value}")]);
    }
}
