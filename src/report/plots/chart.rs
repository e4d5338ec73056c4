//! What a chart shows, independent of how it is drawn: title, notes, axes, series.

/// One line (or set of markers) of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend entry (empty: the chart's only series, no legend).
    pub label: String,
    /// The points, in drawing order, in the chart's units.
    pub points: Vec<(f64, f64)>,
    /// Per point, an interval drawn as an error bar: (low, high), already cut to the metric's
    /// range by the builder.
    pub error_bars: Option<Vec<(f64, f64)>>,
}

/// How the x axis maps values and which ticks it gets.
#[derive(Clone, Debug, PartialEq)]
pub enum XScale {
    /// Linear, ticks at round values.
    Linear,
    /// Linear, ticks at integers only (ranks, counts).
    Integer,
    /// Logarithmic (values <= 0 are left out), ticks at 1, 2, 5 x powers of ten.
    Log,
    /// Logarithmic, ticks at these values (a swept parameter's values).
    LogAt(Vec<f64>),
    /// Categories at x = 0, 1, 2, ..., named by these labels; markers only, no lines.
    Categories(Vec<String>),
}

impl XScale {
    /// Whether the axis is logarithmic.
    pub fn is_log(&self) -> bool {
        matches!(self, XScale::Log | XScale::LogAt(_))
    }
}

/// A 2-D chart.
#[derive(Clone, Debug, PartialEq)]
pub struct XyChart {
    /// The title.
    pub title: String,
    /// Lines under the title: the statistic shown, and what the chart leaves out or cuts.
    pub notes: Vec<String>,
    /// The x-axis title, with its unit.
    pub x_label: String,
    /// The y-axis title, with its unit.
    pub y_label: String,
    /// The x axis.
    pub x_scale: XScale,
    /// The lowest value the y quantity can take (0 for every non-negative metric): the y axis
    /// never extends below it.
    pub y_floor: Option<f64>,
    /// The highest value the y quantity can take (1 for a CDF).
    pub y_ceiling: Option<f64>,
    /// The y quantity is a whole number (packets waiting): integer ticks only.
    pub y_integer: bool,
    /// Draw markers at the points.
    pub markers: bool,
    /// The legend's heading: what the series labels are values of (parameters joined by `, `,
    /// drawn one per line).
    pub legend_title: Option<String>,
    /// The series.
    pub series: Vec<Series>,
}

impl XyChart {
    /// A chart with these titles and series on a linear x axis, no notes or bounds, lines
    /// without markers.
    pub fn new(title: &str, x_label: &str, y_label: &str, series: Vec<Series>) -> Self {
        XyChart {
            title: title.to_string(),
            notes: Vec::new(),
            x_label: x_label.to_string(),
            y_label: y_label.to_string(),
            x_scale: XScale::Linear,
            y_floor: None,
            y_ceiling: None,
            y_integer: false,
            markers: false,
            legend_title: None,
            series,
        }
    }

    /// Whether point `(x, y)` can be drawn: finite, and x > 0 on a log axis.
    pub fn drawable(&self, (x, y): (f64, f64)) -> bool {
        x.is_finite() && y.is_finite() && !(self.x_scale.is_log() && x <= 0.0)
    }

    /// Whether some series has a point to draw: a chart without one is not written.
    pub fn has_data(&self) -> bool {
        self.series
            .iter()
            .any(|s| s.points.iter().any(|&p| self.drawable(p)))
    }

    /// Whether the chart gets a legend: several series, or one with a label.
    pub fn has_legend(&self) -> bool {
        self.series.len() > 1 || self.series.iter().any(|s| !s.label.is_empty())
    }
}
