//! Charts of per-flow distributions: the FCT CDF and ranked per-flow goodput, one series per
//! sweep point.

use super::chart::{Series, XScale, XyChart};

/// FCT CDF, one series per (label, FCTs in ms): x = FCT on a log axis, y = fraction of the
/// series' flows with an FCT at most x, drawn as steps. Non-positive and non-finite FCTs are
/// left out; each label gets the number of flows it has (`tcp (40 flows)`).
pub fn fct_cdf(title: &str, fcts_ms: &[(String, Vec<f64>)]) -> XyChart {
    let series = fcts_ms
        .iter()
        .map(|(label, values)| {
            let mut v: Vec<f64> = values
                .iter()
                .copied()
                .filter(|x| x.is_finite() && *x > 0.0)
                .collect();
            v.sort_by(f64::total_cmp);
            let n = v.len() as f64;
            // Each flow raises the CDF by 1/n at its FCT: a vertical step there.
            let points = v
                .iter()
                .enumerate()
                .flat_map(|(i, &x)| [(x, i as f64 / n), (x, (i + 1) as f64 / n)])
                .collect();
            let flows = v.len();
            let plural = if flows == 1 { "" } else { "s" };
            Series {
                label: if label.is_empty() {
                    format!("{flows} flow{plural}")
                } else {
                    format!("{label} ({flows} flow{plural})")
                },
                points,
                error_bars: None,
            }
        })
        .collect();
    XyChart {
        x_scale: XScale::Log,
        y_floor: Some(0.0),
        y_ceiling: Some(1.0),
        ..XyChart::new(
            title,
            "Flow completion time (ms, log scale)",
            "CDF (fraction of flows)",
            series,
        )
    }
}

/// Ranked per-flow goodput, one series per (label, goodputs in Mb/s): flows sorted from
/// fastest to slowest, x = rank (1 = fastest, integer ticks), y = goodput.
pub fn ranked_throughput(title: &str, mbps: &[(String, Vec<f64>)]) -> XyChart {
    let series = mbps
        .iter()
        .map(|(label, values)| {
            let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
            v.sort_by(|a, b| b.total_cmp(a));
            Series {
                label: label.clone(),
                points: v
                    .iter()
                    .enumerate()
                    .map(|(i, &y)| ((i + 1) as f64, y))
                    .collect(),
                error_bars: None,
            }
        })
        .collect();
    XyChart {
        x_scale: XScale::Integer,
        y_floor: Some(0.0),
        ..XyChart::new(title, "Flow rank (1 = fastest)", "Goodput (Mb/s)", series)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cdf_steps_up_by_one_over_n_at_each_fct() {
        let chart = fct_cdf(
            "Short-flow FCT",
            &[("tcp".into(), vec![3.4, 1.2, f64::NAN, 0.0, 120.0, 0.8])],
        );
        let s = &chart.series[0];
        assert_eq!(s.label, "tcp (4 flows)");
        assert_eq!(
            s.points,
            vec![
                (0.8, 0.0),
                (0.8, 0.25),
                (1.2, 0.25),
                (1.2, 0.5),
                (3.4, 0.5),
                (3.4, 0.75),
                (120.0, 0.75),
                (120.0, 1.0)
            ]
        );
        assert_eq!(chart.x_scale, XScale::Log);
        // No flow with an FCT: nothing to draw, so the chart is not written.
        assert!(!fct_cdf("none", &[("tcp".into(), vec![f64::NAN])]).has_data());
    }

    #[test]
    fn ranked_goodput_is_sorted_fastest_first_on_an_integer_axis() {
        let chart = ranked_throughput("Long", &[("mptcp".into(), vec![40.0, 95.0, 70.0])]);
        assert_eq!(
            chart.series[0].points,
            vec![(1.0, 95.0), (2.0, 70.0), (3.0, 40.0)]
        );
        assert_eq!(chart.x_scale, XScale::Integer);
    }
}
