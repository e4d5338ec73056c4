//! A sweep written as a loop: the same FatTree workload over four transports, each built with
//! `htsim::builder`, run once, and summarised from its typed per-flow and per-link results into
//! one line of a table.
//!
//! ```text
//! cargo run --release --example sweep
//! ```

use std::error::Error;

use htsim::builder::ScenarioBuilder;
use htsim::core::units::BufferSize;
use htsim::core::{Rate, SimTime};
use htsim::scenario::{FlowClass, QueueConfig, Senders, SizeSpec, TopologyConfig, TransportConfig};
use htsim::simulate::results::RunResults;
use htsim::simulate::{run, RunContext};

/// The transports compared: a name for the table and the transport.
pub fn transports() -> Vec<(&'static str, TransportConfig)> {
    vec![
        ("tcp", TransportConfig::tcp()),
        ("dctcp", TransportConfig::dctcp()),
        ("mptcp-4", TransportConfig::mptcp(4)),
        ("mmptcp-4", TransportConfig::mmptcp(4)),
    ]
}

/// A FatTree k = 4 at 1 Gb/s with ECN queues (K = 20 packets): four long flows and, from the
/// other twelve hosts, one 200 KB flow each at the start, all over `transport`.
pub fn scenario(transport: TransportConfig) -> ScenarioBuilder {
    ScenarioBuilder::new("sweep-demo")
        .duration(SimTime::from_ms(40))
        .drain(SimTime::from_ms(300))
        .topology(TopologyConfig::fattree(4).link_rate(Rate::gbps(1)))
        .queue(QueueConfig::ecn(
            BufferSize::Packets(100),
            BufferSize::Packets(20),
        ))
        .transport("t", transport)
        .flows(FlowClass::long("long", "t").senders(Senders::Count(4)))
        .flows(FlowClass::new("short", SizeSpec::Fixed(200_000), "t").senders(Senders::Rest))
}

/// One line of the table, from a run's typed results.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The transport's name in the table.
    pub transport: &'static str,
    /// Mean goodput of the long flows, Mb/s.
    pub long_goodput_mbps: f64,
    /// Short flows that completed, and short flows.
    pub short_completed: (usize, usize),
    /// Mean FCT of the completed short flows, ms.
    pub short_fct_ms: f64,
    /// Highest utilisation of a core switch's links, %.
    pub core_utilisation_pct: f64,
    /// Packets dropped on every link.
    pub drops: u64,
}

impl Row {
    /// The line of `transport` from `results`.
    pub fn of(transport: &'static str, results: &RunResults) -> Self {
        let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len().max(1) as f64;
        let goodputs: Vec<f64> = results
            .flows_of("long")
            .filter_map(|f| f.goodput_bps)
            .map(|bps| bps / 1e6)
            .collect();
        let short: Vec<_> = results.flows_of("short").collect();
        let fcts: Vec<f64> = short
            .iter()
            .filter_map(|f| f.fct)
            .map(|t| t.as_secs_f64() * 1e3)
            .collect();
        Row {
            transport,
            long_goodput_mbps: mean(&goodputs),
            short_completed: (fcts.len(), short.len()),
            short_fct_ms: mean(&fcts),
            core_utilisation_pct: results
                .links_of("core")
                .filter_map(|l| l.utilisation_pct)
                .fold(0.0, f64::max),
            drops: results.links.iter().map(|l| l.packets_dropped).sum(),
        }
    }
}

/// Runs [`scenario`] over every transport of [`transports`] with seed 1: one row each.
pub fn sweep() -> Result<Vec<Row>, Box<dyn Error>> {
    let mut rows = Vec::new();
    for (name, transport) in transports() {
        let scenario = scenario(transport).build()?;
        let out = run(&scenario, 1, &RunContext::default())?;
        rows.push(Row::of(name, &out.results));
    }
    Ok(rows)
}

/// The rows as an aligned table.
pub fn table(rows: &[Row]) -> String {
    let mut text = format!(
        "{:<10} {:>14} {:>10} {:>13} {:>14} {:>6}\n",
        "transport", "long Mb/s", "short done", "short FCT ms", "core util %", "drops"
    );
    for r in rows {
        text += &format!(
            "{:<10} {:>14.1} {:>10} {:>13.3} {:>14.1} {:>6}\n",
            r.transport,
            r.long_goodput_mbps,
            format!("{}/{}", r.short_completed.0, r.short_completed.1),
            r.short_fct_ms,
            r.core_utilisation_pct,
            r.drops
        );
    }
    text
}

#[allow(dead_code)] // a test includes this file and calls sweep() only
fn main() -> Result<(), Box<dyn Error>> {
    print!("{}", table(&sweep()?));
    Ok(())
}
