//! Helpers shared by the simulation test binaries (`simulate`, `multipath`).

use std::path::Path;

use htsim::scenario::{load_str, LoadOptions, Scenario};

/// The first sweep point of scenario `text`, with `--set` style `overrides` applied.
pub fn scenario(text: &str, overrides: &[&str]) -> Scenario {
    let options = LoadOptions {
        overrides: overrides.iter().map(|s| s.to_string()).collect(),
        seeds: None,
        ..LoadOptions::default()
    };
    let loaded = load_str("test.toml", text, Path::new("."), &options).unwrap();
    loaded.points[0].scenario.clone()
}

/// 1 Gb/s of 1462-B packets carrying 1400 B each: the most payload a flow can get through.
pub const PAYLOAD_LINE_RATE_BPS: f64 = 1e9 * 1400.0 / 1462.0;
