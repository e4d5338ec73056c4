//! Building a scenario in code: the topology, queues, transports and flow classes of a FatTree
//! experiment assembled with `htsim::builder`, one run of it read from its typed results, then a
//! small sweep (MPTCP with 1 and 8 subflows x two seeds) through the runner into an output
//! directory, with its cross-seed summary.csv read by column name.
//!
//! ```text
//! cargo run --release --example builder            # results in results/builder-demo
//! ```

use std::error::Error;
use std::path::Path;

use htsim::builder::ScenarioBuilder;
use htsim::core::units::BufferSize;
use htsim::core::{Rate, SimTime};
use htsim::runner::{run_all, write_report, ReportOutcome, RunOptions};
use htsim::scenario::{
    Arrivals, FlowClass, QueueConfig, Seeds, Senders, SizeSpec, TopologyConfig, TransportConfig,
};
use htsim::simulate::{run, RunContext, Simulator};

/// A FatTree k = 4 at 1 Gb/s with ECN queues (K = 20 packets): four long flows over the
/// transport called `long` (MPTCP with 8 subflows) and Poisson web-search flows over DCTCP from
/// the other hosts.
pub fn scenario() -> ScenarioBuilder {
    ScenarioBuilder::new("builder-demo")
        .duration(SimTime::from_ms(300))
        .drain(SimTime::from_ms(100))
        .topology(
            TopologyConfig::fattree(4)
                .link_rate(Rate::gbps(1))
                .link_delay(SimTime::from_us(10)),
        )
        .queue(QueueConfig::ecn(
            BufferSize::Packets(100),
            BufferSize::Packets(20),
        ))
        .transport("long", TransportConfig::mptcp(8))
        .flows(FlowClass::long("long", "long").senders(Senders::Count(4)))
        .flows(
            FlowClass::new(
                "short",
                SizeSpec::cdf("websearch"),
                TransportConfig::dctcp(),
            )
            .senders(Senders::Rest)
            .arrivals(Arrivals::Poisson(400.0)),
        )
}

/// The columns of summary.csv this example reads (docs/outputs.md lists them all).
#[derive(serde::Deserialize)]
struct SummaryRow {
    point: String,
    class: String,
    metric: String,
    unit: String,
    n: u64,
    mean: f64,
}

/// Runs [`scenario`] once with seed 1, then its sweep over the subflows of the long flows' MPTCP
/// (1 and 8) with seeds 1 and 2 into `out`; describes both in a few lines.
pub fn run_example(out: &Path) -> Result<String, Box<dyn Error>> {
    let builder = scenario();
    let scenario = builder.build()?;
    let one = run(&scenario, 1, &RunContext::default())?;
    let mut text = String::new();
    for class in &one.results.classes {
        let flows: Vec<_> = one.results.flows_of(&class.name).collect();
        let completed = flows.iter().filter(|f| f.completed).count();
        text += &format!(
            "seed 1, {}: {} flows, {completed} completed\n",
            class.name,
            flows.len()
        );
    }

    let loaded = builder
        .seeds(Seeds::Count(2))
        .sweep("transports.long.subflows", [1, 8])
        .build_loaded()?;
    let options = RunOptions {
        out: out.to_path_buf(),
        jobs: 2,
        shard: None,
        ..RunOptions::default()
    };
    let report = run_all(&loaded, &options, &Simulator::for_loaded(&loaded), &|_| {})?;
    if let Some((id, why)) = report.failed.first() {
        return Err(format!("{id} failed: {why}").into());
    }
    text += &format!(
        "sweep: {} point(s), {} run(s) finished, {} skipped\n",
        loaded.points.len(),
        report.finished.len(),
        report.skipped.len()
    );
    let ReportOutcome::Written(_) = write_report(&loaded, out)? else {
        return Err("some runs are missing from the output directory".into());
    };
    // summary.csv, read by column name: the mean goodput of the long flows per point.
    let mut summary = csv::Reader::from_path(out.join("summary.csv"))?;
    for row in summary.deserialize() {
        let row: SummaryRow = row?;
        if row.class == "long" && row.metric == "goodput_mean" {
            text += &format!(
                "{}: long-flow goodput {:.1} {} over {} seeds\n",
                row.point, row.mean, row.unit, row.n
            );
        }
    }
    Ok(text)
}

#[allow(dead_code)] // a test includes this file and calls run_example() only
fn main() -> Result<(), Box<dyn Error>> {
    print!("{}", run_example(Path::new("results/builder-demo"))?);
    Ok(())
}
