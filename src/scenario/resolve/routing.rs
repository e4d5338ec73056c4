//! `[routing]`: path selection.

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::schema::*;
use crate::scenario::tree::{Node, Value};
use htsim_core::SimTime;

/// The First Fit threshold when `first_fit_threshold` is absent: 10% of the host's link rate.
const DEFAULT_FIRST_FIT_THRESHOLD: &str = "10%";

pub(super) fn routing(cx: &Cx, node: &Node, run: &RunConfig) -> Result<RoutingConfig> {
    let t = Tab::open(
        cx,
        node,
        "routing",
        &["mode", "first_fit", "first_fit_threshold"],
    )?;
    let mode = match t
        .choice(
            "mode",
            &["ecmp", "spray", "single", "shortest", "first"],
            Some("ecmp"),
        )?
        .as_str()
    {
        "spray" => RoutingMode::Spray,
        "single" => RoutingMode::Single,
        "shortest" => RoutingMode::Shortest,
        "first" => RoutingMode::First,
        _ => RoutingMode::Ecmp,
    };
    let first_fit = first_fit(&t, mode, run)?;
    Ok(RoutingConfig { mode, first_fit })
}

/// `first_fit` (`"off"` or a scan interval above 0) and `first_fit_threshold` (a share,
/// ignored while `first_fit` is off).
fn first_fit(t: &Tab, mode: RoutingMode, run: &RunConfig) -> Result<Option<FirstFitConfig>> {
    let threshold_node = t.get("first_fit_threshold");
    let interval = match t.get("first_fit") {
        Some(n) if matches!(&n.value, Value::String(s) if s == "off") => None,
        Some(n) => {
            let interval = duration(t.cx, n, &t.key("first_fit")).map_err(|e| {
                e.with_hint(
                    "`first_fit` is \"off\" or the time between two scans, such as \"100ms\"",
                )
            })?;
            if interval == SimTime::ZERO {
                return Err(t.cx.err(
                    &n.origin,
                    &t.key("first_fit"),
                    "a First Fit scheduler scanning every 0s never lets time pass: expected a \
                     duration above 0, or \"off\"",
                ));
            }
            periodic(t.cx, n, &t.key("first_fit"), interval, run, "scan")?;
            if mode != RoutingMode::Ecmp {
                return Err(t
                    .cx
                    .err(
                        &n.origin,
                        &t.key("first_fit"),
                        "the First Fit scheduler moves flows that ECMP routes: it needs \
                         `mode = \"ecmp\"`",
                    )
                    .with_hint("set `routing.mode = \"ecmp\"` or `first_fit = \"off\"`"));
            }
            Some(interval)
        }
        None => None,
    };
    // The threshold is read (and checked) even while the scheduler is off, and then ignored:
    // a sweep may pair `first_fit = "off"` with points that turn it on.
    let (threshold, threshold_text) = match threshold_node {
        Some(n) => (
            share(t.cx, n, &t.key("first_fit_threshold"))?,
            string(t.cx, n, &t.key("first_fit_threshold"))?.to_string(),
        ),
        None => (
            htsim_core::units::parse_share(DEFAULT_FIRST_FIT_THRESHOLD)
                .expect("the default threshold is a share"),
            DEFAULT_FIRST_FIT_THRESHOLD.to_string(),
        ),
    };
    let Some(interval) = interval else {
        return Ok(None);
    };
    Ok(Some(FirstFitConfig {
        interval,
        threshold,
        threshold_text,
    }))
}
