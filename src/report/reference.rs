//! The comparison of our results with the scenario's `[[reference]]` values: one row per
//! (reference, sweep point it applies to), written as `DIR/reference.csv` and shown as an
//! aligned table (docs/outputs.md). Ours is the summary's cross-seed mean of the metric; a
//! reference whose metric has no summary row is reported as missing, never dropped. A mismatch
//! is a result, never an error.

use std::collections::HashMap;

use super::aggregate::SummaryRow;
use crate::output::{csv_bytes, csv_writer, CSV_IN_MEMORY};
use crate::scenario::{Loaded, Published, Reference};

/// The columns of reference.csv (docs/outputs.md).
pub const REFERENCE_COLUMNS: [&str; 17] = [
    "source",
    "point",
    "class",
    "metric",
    "unit",
    "ours",
    "ours_std",
    "ours_ci95",
    "n",
    "published",
    "published_spread",
    "tolerance_pct",
    "at_least",
    "at_most",
    "ratio",
    "within",
    "status",
];

/// One reference at one sweep point it applies to.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceCheck {
    /// The reference.
    pub reference: Reference,
    /// The sweep point's name.
    pub point: String,
}

/// The checks of a loaded scenario: every reference at every point it applies to, references
/// in file order, points in run-list order.
pub fn checks(loaded: &Loaded) -> Vec<ReferenceCheck> {
    let mut out = Vec::new();
    for reference in &loaded.scenario.references {
        for point in &loaded.points {
            if reference.applies_to(&point.assignments) {
                out.push(ReferenceCheck {
                    reference: reference.clone(),
                    point: point.name.clone(),
                });
            }
        }
    }
    out
}

/// Our value of a check: the summary row's statistics over seeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ours {
    /// The mean over seeds (over flows, for a pooled metric).
    pub mean: f64,
    /// Their standard deviation.
    pub std: f64,
    /// The half-width of the 95% confidence interval of the mean.
    pub ci95: f64,
    /// How many values.
    pub n: u64,
}

/// One row of reference.csv: a check and our value, if the summary has one.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceRow {
    /// The reference and the point.
    pub check: ReferenceCheck,
    /// Ours; `None` when summary.csv has no row of the metric at the point.
    pub ours: Option<Ours>,
}

impl ReferenceRow {
    /// `ours / published`, for a published value other than 0.
    pub fn ratio(&self) -> Option<f64> {
        match self.check.reference.published {
            Published::Value { value, .. } if value != 0.0 => Some(self.ours?.mean / value),
            _ => None,
        }
    }

    /// Whether ours is within the tolerance or bounds; `None` without ours, or for a value
    /// given without a tolerance.
    pub fn within(&self) -> Option<bool> {
        let ours = self.ours?.mean;
        match self.check.reference.published {
            Published::Value {
                value,
                tolerance_pct,
            } => tolerance_pct.map(|t| (ours - value).abs() <= t / 100.0 * value.abs()),
            Published::Bounds { at_least, at_most } => {
                Some(at_least.is_none_or(|b| ours >= b) && at_most.is_none_or(|b| ours <= b))
            }
        }
    }

    /// `within`, `outside`, `compared` (a value without a tolerance) or `missing`.
    pub fn status(&self) -> &'static str {
        match (self.ours, self.within()) {
            (None, _) => "missing",
            (_, Some(true)) => "within",
            (_, Some(false)) => "outside",
            (_, None) => "compared",
        }
    }
}

/// Compares every check with the summary rows.
pub fn compare(checks: &[ReferenceCheck], rows: &[SummaryRow]) -> Vec<ReferenceRow> {
    if checks.is_empty() {
        return Vec::new();
    }
    let index: HashMap<(&str, &str, &str), &SummaryRow> = rows
        .iter()
        .map(|row| {
            (
                (row.point.as_str(), row.class.as_str(), row.metric.as_str()),
                row,
            )
        })
        .collect();
    checks
        .iter()
        .map(|check| {
            let r = &check.reference;
            let ours = index
                .get(&(check.point.as_str(), r.class.as_str(), r.metric.as_str()))
                .map(|row| Ours {
                    mean: row.stats.mean,
                    std: row.stats.std,
                    ci95: row.stats.ci95,
                    n: row.stats.n,
                });
            ReferenceRow {
                check: check.clone(),
                ours,
            }
        })
        .collect()
}

/// A number as summary.csv writes it (shortest round-trip form), empty for none.
fn field(x: Option<f64>) -> String {
    x.map_or(String::new(), |x| x.to_string())
}

/// The text of reference.csv: a header of [`REFERENCE_COLUMNS`], then one line per row.
pub fn reference_csv(rows: &[ReferenceRow]) -> String {
    let mut w = csv_writer();
    w.write_record(REFERENCE_COLUMNS).expect(CSV_IN_MEMORY);
    for row in rows {
        let r = &row.check.reference;
        let (published, tolerance, at_least, at_most) = match r.published {
            Published::Value {
                value,
                tolerance_pct,
            } => (Some(value), tolerance_pct, None, None),
            Published::Bounds { at_least, at_most } => (None, None, at_least, at_most),
        };
        let ours = row.ours;
        w.write_record([
            r.source.as_str(),
            &row.check.point,
            &r.class,
            &r.metric,
            &r.unit,
            &field(ours.map(|o| o.mean)),
            &field(ours.map(|o| o.std)),
            &field(ours.map(|o| o.ci95)),
            &ours.map_or(String::new(), |o| o.n.to_string()),
            &field(published),
            &field(r.spread),
            &field(tolerance),
            &field(at_least),
            &field(at_most),
            &field(row.ratio()),
            &row.within().map_or(String::new(), |w| w.to_string()),
            row.status(),
        ])
        .expect(CSV_IN_MEMORY);
    }
    String::from_utf8(csv_bytes(w)).expect("CSV of UTF-8 fields is UTF-8")
}

/// `x` with four significant digits (at most six decimals), for reading.
fn short(x: f64) -> String {
    let magnitude = if x == 0.0 {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    let decimals = (3 - magnitude).clamp(0, 6) as usize;
    format!("{x:.decimals$}")
}

/// The rows as an aligned text table: source, point, class, metric, ours (± ci95, std, n),
/// published (spread or bounds), ratio and the result.
pub fn table(rows: &[ReferenceRow]) -> String {
    let mut lines: Vec<[String; 8]> = vec![[
        "source".into(),
        "point".into(),
        "class".into(),
        "metric".into(),
        "ours (mean ± ci95, std, n)".into(),
        "published".into(),
        "ratio".into(),
        "result".into(),
    ]];
    for row in rows {
        let r = &row.check.reference;
        let ours = row.ours.map_or("missing".to_string(), |o| {
            format!(
                "{} ± {} {} (std {}, n={})",
                short(o.mean),
                short(o.ci95),
                r.unit,
                short(o.std),
                o.n
            )
        });
        let (published, result) = match r.published {
            Published::Value {
                value,
                tolerance_pct,
            } => {
                let spread = r
                    .spread
                    .map_or(String::new(), |s| format!(" (spread {})", short(s)));
                let rule = tolerance_pct.map_or(String::new(), |t| format!(" ±{t}%"));
                (format!("{} {}{spread}", short(value), r.unit), rule)
            }
            Published::Bounds { at_least, at_most } => {
                let mut parts = Vec::new();
                parts.extend(at_least.map(|b| format!(">= {}", short(b))));
                parts.extend(at_most.map(|b| format!("<= {}", short(b))));
                (format!("{} {}", parts.join(", "), r.unit), String::new())
            }
        };
        let result = match row.status() {
            "missing" => "MISSING: no summary row".to_string(),
            "outside" => format!("OUTSIDE{result}"),
            status => format!("{status}{result}"),
        };
        lines.push([
            r.source.clone(),
            row.check.point.clone(),
            r.class.clone(),
            r.metric.clone(),
            ours,
            published,
            row.ratio().map_or("-".to_string(), |x| format!("{x:.2}")),
            result,
        ]);
    }
    let mut widths = [0usize; 8];
    for line in &lines {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::stats::Summary;

    fn reference(published: Published) -> Reference {
        Reference {
            source: "Paper, Table 2".into(),
            metric: "fct_mean".into(),
            class: "short".into(),
            point: Vec::new(),
            unit: "ms".into(),
            published,
            spread: Some(118.0),
        }
    }

    fn check(published: Published) -> ReferenceCheck {
        ReferenceCheck {
            reference: reference(published),
            point: "base".into(),
        }
    }

    fn summary(mean: f64) -> Vec<SummaryRow> {
        vec![SummaryRow {
            point: "base".into(),
            class: "short".into(),
            metric: "fct_mean".into(),
            unit: "ms".into(),
            stats: Summary::of(&[mean - 1.0, mean + 1.0]).unwrap(),
        }]
    }

    fn value(value: f64, tolerance_pct: Option<f64>) -> Published {
        Published::Value {
            value,
            tolerance_pct,
        }
    }

    #[test]
    fn within_outside_and_bounds() {
        let rows = summary(70.0);
        let row = |p| compare(&[check(p)], &rows).remove(0);
        // 70 vs 64.3: 8.9% off.
        let r = row(value(64.3, Some(10.0)));
        assert_eq!((r.within(), r.status()), (Some(true), "within"));
        assert!((r.ratio().unwrap() - 70.0 / 64.3).abs() < 1e-12);
        let r = row(value(64.3, Some(8.0)));
        assert_eq!((r.within(), r.status()), (Some(false), "outside"));
        assert_eq!(row(value(64.3, None)).status(), "compared");
        let bound = |at_least, at_most| row(Published::Bounds { at_least, at_most });
        assert_eq!(bound(None, Some(70.0)).within(), Some(true));
        assert_eq!(bound(None, Some(69.9)).within(), Some(false));
        assert_eq!(bound(Some(70.1), None).within(), Some(false));
        assert_eq!(bound(Some(60.0), Some(80.0)).within(), Some(true));
        assert_eq!(bound(None, Some(1.0)).ratio(), None);
    }

    #[test]
    fn a_reference_without_a_summary_row_is_missing_not_dropped() {
        let mut other = check(value(64.3, Some(10.0)));
        other.reference.metric = "fct_p99".into();
        let rows = compare(&[other], &summary(70.0));
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].status(), rows[0].within()), ("missing", None));
        let csv = reference_csv(&rows);
        let line = csv.lines().nth(1).unwrap();
        assert_eq!(
            line,
            "\"Paper, Table 2\",base,short,fct_p99,ms,,,,,64.3,118,10,,,,,missing"
        );
        assert!(table(&rows).contains("MISSING"));
    }

    #[test]
    fn csv_and_table_show_ours_and_published() {
        let rows = compare(&[check(value(64.3, Some(5.0)))], &summary(70.0));
        let csv = reference_csv(&rows);
        assert_eq!(csv.lines().next().unwrap(), REFERENCE_COLUMNS.join(","));
        let fields: Vec<&str> = csv.lines().nth(1).unwrap().rsplit(',').collect();
        assert_eq!(fields[0], "outside");
        assert_eq!(fields[1], "false");
        let text = table(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        // Aligned: every column starts at the same character in both lines.
        let at = |l: &str| l.find("fct_mean").or_else(|| l.find("metric"));
        assert_eq!(at(lines[0]), at(lines[1]));
        assert!(
            lines[1].contains("70.00 ± 12.71 ms (std 1.414, n=2)"),
            "{text}"
        );
        assert!(lines[1].contains("64.30 ms (spread 118.0)"), "{text}");
        assert!(
            lines[1].contains("1.09") && lines[1].ends_with("OUTSIDE ±5%"),
            "{text}"
        );
    }
}
