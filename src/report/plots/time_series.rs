//! Time-series charts: a run's queue lengths, congestion windows or rates over simulated time,
//! saying which links or flows they leave out.

use super::chart::{Series, XyChart};
use crate::report::timeseries::RunSeries;

/// The chart of one run's series: one line per link or flow kept, x = simulated time in s.
/// The notes say how many ids were all 0 and how many others were left out. Rates are drawn
/// in Mb/s.
pub fn time_series(s: &RunSeries) -> XyChart {
    let (what, y_label, things, zero, divisor) = match s.series.as_str() {
        "queue" => (
            "Queue length",
            "Queue length (packets waiting)",
            "links",
            "never queued",
            1.0,
        ),
        "cwnd" => (
            "Congestion window",
            "Congestion window (bytes)",
            "flows",
            "had a zero window throughout",
            1.0,
        ),
        "rate" => (
            "Rate acknowledged in order",
            "Rate (Mb/s, acknowledged in order)",
            "flows",
            "delivered nothing",
            1e6,
        ),
        other => (other, other, "ids", "stayed at 0", 1.0),
    };
    let label = |id: &str| match s.series.as_str() {
        "queue" => id.to_string(),
        _ => format!("flow {id}"),
    };
    let mut notes = Vec::new();
    if s.all_zero > 0 {
        notes.push(format!(
            "{} of {} {things} {zero}: not shown",
            s.all_zero, s.ids
        ));
    }
    let others = s.ids - s.all_zero - s.lines.len();
    if others > 0 {
        notes.push(format!(
            "{others} more {things} not shown: only the {} with the highest peak",
            s.lines.len()
        ));
    }
    let point = s.point.replace(',', ", ");
    XyChart {
        notes,
        y_floor: Some(0.0),
        y_integer: s.series == "queue",
        ..XyChart::new(
            &format!("{what}: {point}, seed {}", s.seed),
            "Simulated time (s)",
            y_label,
            s.lines
                .iter()
                .map(|(id, points)| Series {
                    label: label(id),
                    points: points.iter().map(|&(t, v)| (t, v / divisor)).collect(),
                    error_bars: None,
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_chart_says_which_links_it_leaves_out() {
        let s = RunSeries {
            point: "base".into(),
            seed: 1,
            series: "queue".into(),
            lines: vec![("core0->agg0".into(), vec![(0.0, 1.0), (0.001, 5.0)])],
            ids: 16,
            all_zero: 8,
        };
        let chart = time_series(&s);
        assert_eq!(
            chart.notes,
            [
                "8 of 16 links never queued: not shown",
                "7 more links not shown: only the 1 with the highest peak"
            ]
        );
        assert_eq!(chart.series[0].label, "core0->agg0");
        assert!(chart.y_integer, "packets waiting are whole");
        let rate = time_series(&RunSeries {
            series: "rate".into(),
            lines: vec![("3".into(), vec![(0.001, 940e6)])],
            ids: 1,
            all_zero: 0,
            ..s
        });
        assert!(rate.notes.is_empty());
        assert_eq!(rate.series[0].points, [(0.001, 940.0)]);
        assert_eq!(rate.series[0].label, "flow 3");
    }
}
