//! Embedding htsim: load a scenario from a string, run one run, print a few numbers.
//!
//! ```text
//! cargo run --release --example embed
//! ```

use std::error::Error;
use std::path::Path;

use htsim::scenario::{load_str, LoadOptions};
use htsim::simulate::{run, RunContext};

/// A FatTree k = 4 at 1 Gb/s: four long TCP flows and Poisson short flows on a permutation.
pub const SCENARIO: &str = r#"
name = "embedded"
[run]
duration = "500ms"
drain = "200ms"
[topology]
kind = "fattree"
k = 4
link_rate = "1Gbps"
link_delay = "10us"
[[flows]]
name = "long"
senders = 4
size = "infinite"
transport = { kind = "tcp" }
[[flows]]
name = "short"
senders = "rest"
size = { cdf = "websearch" }
arrivals = { poisson = 200 }
transport = { kind = "tcp" }
"#;

/// Runs [`SCENARIO`] with seed 1 and describes the result in a few lines.
pub fn run_example() -> Result<String, Box<dyn Error>> {
    let loaded = load_str(
        "embedded.toml",
        SCENARIO,
        Path::new("."),
        &LoadOptions::default(),
    )?;
    let scenario = &loaded.points[0].scenario;
    let out = run(scenario, 1, &RunContext::default())?;
    let mut text = String::new();
    for class in &out.summary().classes {
        if class.long_flows > 0 {
            let goodput = class.goodput_mbps.as_ref().map_or(0.0, |s| s.mean);
            text += &format!(
                "{}: {} long flows, mean goodput {goodput:.1} Mb/s\n",
                class.class, class.long_flows
            );
        } else {
            let fct = class.fct_ms.as_ref().map_or(0.0, |s| s.mean);
            text += &format!(
                "{}: {} of {} flows completed, mean FCT {fct:.3} ms\n",
                class.class, class.completed, class.finite_flows
            );
        }
    }
    let cost = &out.summary().cost;
    text += &format!(
        "{} events, {} data packets delivered, packets conserved: {}\n",
        cost.events,
        cost.data_packets_delivered,
        out.conservation.holds()
    );
    Ok(text)
}

#[allow(dead_code)] // a test includes this file and calls run_example() only
fn main() -> Result<(), Box<dyn Error>> {
    print!("{}", run_example()?);
    Ok(())
}
