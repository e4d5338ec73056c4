//! Results: per-run metrics, statistics, aggregation across seeds, and plots.
//!
//! Metric definitions follow transports.md 9.6; output names and columns follow
//! scenario-format.md ("Outputs").
