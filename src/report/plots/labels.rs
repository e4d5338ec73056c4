//! Words on charts: human names of metrics with their units, and short series labels made of
//! the swept values that tell the series apart.

use crate::report::swept::SweptValue;

/// A point's swept values as (key path, value) pairs.
pub fn pairs(values: &[SweptValue]) -> Vec<(&str, &str)> {
    values
        .iter()
        .map(|v| (v.path.as_str(), v.value.as_str()))
        .collect()
}

/// A sweep point in words, for a title: its swept values as `path=value` pairs joined by `, `
/// (`flows.short.size={ uniform = ["10KB", "100KB"] }, transports.long.kind=tcp`); the point's
/// name (`base`) when it assigns nothing.
pub fn point_label(point: &str, values: &[SweptValue]) -> String {
    if values.is_empty() {
        return point.to_string();
    }
    values
        .iter()
        .map(|v| format!("{}={}", v.path, v.value))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a chart is drawn against: one sweep axis, or a group of paired axes (which take their
/// values together, so that a chart against one of them is a chart against all).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dimension {
    /// For file names: the axis's key path, or the group's name.
    pub name: String,
    /// The key paths of its axes, in `[sweep]` order.
    pub paths: Vec<String>,
    /// Whether it is a group (whose name may be any key, even an axis's path).
    pub grouped: bool,
}

/// Joins the key paths or values of a group's axes.
const PAIRED: &str = " / ";

impl Dimension {
    /// The x axis's title: the key path, or the group's key paths joined by ` / `.
    pub fn title(&self) -> String {
        self.paths.join(PAIRED)
    }

    /// A point's value: its axis's value, or its group's values joined by ` / ` (`dctcp /
    /// 20pkt`); `None` when the point does not assign it.
    pub fn value_of(&self, values: &[SweptValue]) -> Option<String> {
        let mine: Option<Vec<&str>> = self
            .paths
            .iter()
            .map(|p| {
                values
                    .iter()
                    .find(|v| &v.path == p)
                    .map(|v| v.value.as_str())
            })
            .collect();
        Some(mine?.join(PAIRED))
    }
}

/// The dimensions of the sweep points whose values are `points`, in order of first appearance.
pub fn dimensions(points: &[Vec<SweptValue>]) -> Vec<Dimension> {
    let mut out: Vec<Dimension> = Vec::new();
    for v in points.iter().flatten() {
        let name = v.group.as_ref().unwrap_or(&v.path);
        let grouped = v.group.is_some();
        match out
            .iter_mut()
            .find(|d| &d.name == name && d.grouped == grouped)
        {
            Some(d) if !d.paths.contains(&v.path) => d.paths.push(v.path.clone()),
            Some(_) => {}
            None => out.push(Dimension {
                name: name.clone(),
                paths: vec![v.path.clone()],
                grouped,
            }),
        }
    }
    out
}

/// A summary.csv unit as an axis shows it: `Mbps` is Mb/s; dimensionless (`1`) has none.
fn unit_text(unit: &str) -> Option<&str> {
    match unit {
        "1" | "" => None,
        "Mbps" => Some("Mb/s"),
        other => Some(other),
    }
}

/// What a metric of summary.csv measures, for a title: `fct_p99` is "FCT, 99th percentile".
pub fn metric_words(metric: &str) -> String {
    let statistic = |s: &str| match s {
        "mean" => "mean".to_string(),
        "std" => "standard deviation".to_string(),
        "p50" => "median".to_string(),
        "p90" => "90th percentile".to_string(),
        "p99" => "99th percentile".to_string(),
        "p999" => "99.9th percentile".to_string(),
        other => other.replace('_', " "),
    };
    let (quantity, stat) = match metric.rsplit_once('_') {
        Some((q, s)) if ["mean", "std", "p50", "p90", "p99", "p999"].contains(&s) => (q, Some(s)),
        _ => (metric, None),
    };
    let quantity = match quantity {
        "fct" => "FCT".to_string(),
        "jct" => "job completion time".to_string(),
        "goodput" => "goodput".to_string(),
        "goodput_paper" => "paper-definition goodput (bytes sent)".to_string(),
        "subflow_goodput" => "subflow-level goodput (htsim's throughput)".to_string(),
        "events" => "events simulated".to_string(),
        "utilisation_paper" => "paper-definition utilisation".to_string(),
        "loss_rate_paper" => "paper-definition loss rate".to_string(),
        other => other.replace('_', " "),
    };
    match stat {
        Some(s) => format!("{quantity}, {}", statistic(s)),
        None => quantity,
    }
}

/// `word` with its first letter in upper case.
pub fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What a metric of a class (flow class, `layer:<name>` or `run`) measures, without its unit:
/// "Short-flow FCT, mean", "Core-layer utilisation", "Events simulated per run".
pub fn metric_title(class: &str, metric: &str) -> String {
    let words = metric_words(metric);
    if class == super::super::aggregate::RUN_CLASS {
        format!("{} per run", capitalised(&words))
    } else if let Some(layer) = class.strip_prefix(super::super::aggregate::LAYER_PREFIX) {
        format!("{}-layer {words}", capitalised(layer))
    } else if metric.starts_with("jct") {
        format!("{} {words}", capitalised(class))
    } else {
        format!("{}-flow {words}", capitalised(class))
    }
}

/// [`metric_title`] with the unit in brackets: "Short-flow FCT, mean (ms)".
pub fn metric_axis_title(class: &str, metric: &str, unit: &str) -> String {
    with_unit(&metric_title(class, metric), unit)
}

/// `title (unit)`, without brackets for a dimensionless quantity or a count of events (whose
/// title names them).
pub fn with_unit(title: &str, unit: &str) -> String {
    match unit_text(unit) {
        Some(u) if unit != "events" => format!("{title} ({u})"),
        _ => title.to_string(),
    }
}

/// Short labels for series that each stand for a list of `key=value` pairs (sweep points, or
/// what is left of them once the x axis's parameter is taken out): only the keys whose value
/// differs between the lists, as the bare value when one key differs (`tcp`), else as
/// `name=value` pairs with each key's last path segment (`kind=tcp, subflows=8`). Returns
/// the labels and the legend's heading (the keys that differ, joined by `, `), `None` when
/// nothing differs.
pub fn short_labels(lists: &[Vec<(&str, &str)>]) -> (Vec<String>, Option<String>) {
    let mut keys: Vec<&str> = Vec::new();
    for list in lists {
        for (k, v) in list {
            let differs = lists
                .iter()
                .any(|other| other.iter().find(|(ok, _)| ok == k).map(|(_, ov)| ov) != Some(v));
            if differs && !keys.contains(k) {
                keys.push(k);
            }
        }
    }
    let short = |k: &str| {
        let last = k.rsplit('.').next().unwrap_or(k);
        let unique = keys
            .iter()
            .filter(|o| o.rsplit('.').next() == Some(last))
            .count()
            == 1;
        if unique {
            last.to_string()
        } else {
            k.to_string()
        }
    };
    let labels = lists
        .iter()
        .map(|list| {
            let value = |k: &str| list.iter().find(|(lk, _)| *lk == k).map_or("", |(_, v)| *v);
            match keys.as_slice() {
                [one] => value(one).to_string(),
                _ => keys
                    .iter()
                    .map(|k| format!("{}={}", short(k), value(k)))
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })
        .collect();
    let heading = (!keys.is_empty()).then(|| keys.join(", "));
    (labels, heading)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::swept::SweptValues;

    /// The swept values of points known only by name.
    fn named(points: &[&str]) -> Vec<Vec<SweptValue>> {
        points
            .iter()
            .map(|p| SweptValues::default().of_point(p))
            .collect()
    }

    #[test]
    fn metric_titles_are_words_with_units() {
        assert_eq!(
            metric_axis_title("short", "fct_mean", "ms"),
            "Short-flow FCT, mean (ms)"
        );
        assert_eq!(
            metric_axis_title("short", "fct_p99", "ms"),
            "Short-flow FCT, 99th percentile (ms)"
        );
        assert_eq!(
            metric_axis_title("long", "goodput_mean", "Mbps"),
            "Long-flow goodput, mean (Mb/s)"
        );
        assert_eq!(
            metric_axis_title("incast", "jct_mean", "ms"),
            "Incast job completion time, mean (ms)"
        );
        assert_eq!(
            metric_axis_title("layer:core", "loss_rate", "%"),
            "Core-layer loss rate (%)"
        );
        assert_eq!(
            metric_axis_title("run", "events", "events"),
            "Events simulated per run"
        );
    }

    #[test]
    fn short_labels_keep_only_the_values_that_differ() {
        let points = [
            "transports.long.kind=tcp,flows.short.arrivals.poisson=256",
            "transports.long.kind=mptcp,flows.short.arrivals.poisson=256",
        ];
        let values = named(&points);
        let lists: Vec<_> = values.iter().map(|v| pairs(v)).collect();
        let (labels, heading) = short_labels(&lists);
        assert_eq!(labels, ["tcp", "mptcp"]);
        assert_eq!(heading.as_deref(), Some("transports.long.kind"));

        let points = [
            "transports.long.kind=tcp,flows.short.arrivals.poisson=256",
            "transports.long.kind=mptcp,flows.short.arrivals.poisson=512",
        ];
        let values = named(&points);
        let lists: Vec<_> = values.iter().map(|v| pairs(v)).collect();
        let (labels, _) = short_labels(&lists);
        assert_eq!(labels, ["kind=tcp, poisson=256", "kind=mptcp, poisson=512"]);

        // Same last segment: the whole key tells them apart.
        let points = [
            "transports.a.kind=tcp,transports.b.kind=tcp",
            "transports.a.kind=dctcp,transports.b.kind=mptcp",
        ];
        let values = named(&points);
        let lists: Vec<_> = values.iter().map(|v| pairs(v)).collect();
        let (labels, _) = short_labels(&lists);
        assert_eq!(
            labels[1],
            "transports.a.kind=dctcp, transports.b.kind=mptcp"
        );

        // Without a sweep: one unlabelled series.
        let (labels, heading) = short_labels(&[pairs(&named(&["base"])[0])]);
        assert_eq!((labels, heading), (vec![String::new()], None));
    }
}
