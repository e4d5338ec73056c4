//! Results: per-run metrics, statistics, aggregation across seeds, and plots.
//!
//! Every output file, column and metric, with its unit and exact definition, is described for
//! users in `docs/outputs.md` in the repository.
//!
//! - [`metrics`] turns one run's flow records and link counters into a
//!   [`run_summary::RunSummary`], written as `runs/<point>/seed-<n>/summary.json`;
//! - [`aggregate`] reads those files back (merging shard directories) and writes the
//!   cross-seed `summary.csv` and `summary.json`;
//! - [`rebuild`] is `htsim report DIR...`: summaries and plots from the run files alone
//!   ([`flow_samples`] reads the per-flow values back);
//! - [`mod@reference`] compares the summary with the scenario's `[[reference]]` values
//!   (`reference.csv`);
//! - [`merge`] checks that the runs of several directories belong to one scenario;
//! - [`stats`] holds the statistics both use;
//! - [`swept`] gives each sweep point's values as the charts label them;
//! - [`timeseries`] reads the runs' timeseries.csv back for the time-series plots;
//! - `plots` (cargo feature `plots`, on by default) draws PNG and SVG charts with an embedded
//!   font.

pub mod aggregate;
pub mod error;
pub mod flow_samples;
pub mod merge;
pub mod metrics;
#[cfg(feature = "plots")]
pub mod plots;
pub mod rebuild;
pub mod reference;
pub mod run_summary;
pub mod stats;
pub mod swept;
pub mod timeseries;

pub use error::{ReportError, Result};
