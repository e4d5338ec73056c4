//! Draws an [`XyChart`] as SVG and as PNG at print resolution.
//!
//! The layout is computed here rather than left to plotters' chart builder, so that: tick
//! labels never overlap (fewer ticks until they fit) and are never clipped (the label area is
//! as wide as its widest label); the legend sits right of the plotting area, never on the
//! data; log axes get labelled ticks inside a decade; series that share an x are dodged
//! sideways so each error bar shows. plotters draws the shapes and the text.
//!
//! Text is drawn with DejaVu Sans embedded in the library (`fonts/DejaVuSans.ttf`, Bitstream
//! Vera licence in `fonts/LICENSE-DejaVu.txt`) and registered with plotters' `ab_glyph` font
//! table, so no system font, fontconfig or freetype is needed.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis::{compact, linear_ticks, log_bounds, log_ticks, Tick};
use super::chart::{XScale, XyChart};
use super::palette::{style_of, Shape};
use crate::output::{commit_temp, temp_path};
use crate::report::error::{io_error, ReportError, Result};

/// The embedded DejaVu Sans (Debian fonts-dejavu-core, Bitstream Vera licence).
static DEJAVU_SANS: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
/// The font family name plots use; DejaVu Sans is registered under it.
const FAMILY: &str = "sans-serif";
/// Width of every chart in SVG user units (the PNG has [`PNG_SCALE`] times as many pixels).
pub const PLOT_WIDTH: u32 = 960;
/// Height of every chart in SVG user units.
pub const PLOT_HEIGHT: u32 = 600;
/// PNG pixels per SVG unit: 1920 x 1200 pixels, 300 dpi at 6.4 x 4 inches; every font size,
/// margin and line width scales with it.
pub const PNG_SCALE: u32 = 2;

/// Font sizes and spacing in SVG units.
const MARGIN: f64 = 16.0;
const TITLE_FONT: f64 = 24.0;
const NOTE_FONT: f64 = 15.0;
const AXIS_TITLE_FONT: f64 = 18.0;
const TICK_FONT: f64 = 16.0;
const LEGEND_FONT: f64 = 15.0;
const MARKER_RADIUS: f64 = 4.0;
const LINE_WIDTH: f64 = 2.0;
/// The widest gap between the markers of dodged series that share an x.
const DODGE: f64 = 12.0;
/// The width of a legend entry's swatch and the gap before its label.
const SWATCH: f64 = 30.0;
/// The gap between the plotting area and the legend.
const LEGEND_GAP: f64 = 12.0;

/// Registers the embedded font with plotters (once per process). Returns whether the font
/// could be registered (it always can: the bytes are a valid TrueType file, checked in tests).
fn register_fonts() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS).is_ok()
    })
}

/// Draws `chart` into `dir/<name>.svg` ([`PLOT_WIDTH`] x [`PLOT_HEIGHT`]) and
/// `dir/<name>.png` ([`PNG_SCALE`] times that in pixels); creates `dir`. Returns the two
/// paths, or none when the chart has no point to draw: an empty chart is never written.
pub fn render(chart: &XyChart, dir: &Path, name: &str) -> Result<Vec<PathBuf>> {
    if !chart.has_data() {
        return Ok(Vec::new());
    }
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let svg = dir.join(format!("{name}.svg"));
    let png = dir.join(format!("{name}.png"));
    if !register_fonts() {
        return Err(ReportError::Plot {
            path: svg,
            message: "the embedded font did not load".into(),
        });
    }
    let size = (PLOT_WIDTH, PLOT_HEIGHT);
    replace_plot(&svg, |tmp| {
        draw(&SVGBackend::new(tmp, size).into_drawing_area(), chart, 1.0)
    })?;
    let size = (PLOT_WIDTH * PNG_SCALE, PLOT_HEIGHT * PNG_SCALE);
    replace_plot(&png, |tmp| {
        let scale = PNG_SCALE as f64;
        draw(
            &BitMapBackend::new(tmp, size).into_drawing_area(),
            chart,
            scale,
        )
    })?;
    Ok(vec![svg, png])
}

/// Draws the plot at `path` with `draw_into` into a temporary file ([`temp_path`], which keeps
/// the extension the bitmap backend picks its format by), then renames it over `path`: a report
/// cut short (killed, a full disk) never leaves a plot half drawn, and a reader of the old plot
/// keeps it whole.
fn replace_plot(path: &Path, draw_into: impl FnOnce(&Path) -> DrawResult<()>) -> Result<()> {
    let tmp = temp_path(path).map_err(io_error(path))?;
    if let Err(message) = draw_into(&tmp) {
        let _ = std::fs::remove_file(&tmp);
        return Err(ReportError::Plot {
            path: path.to_path_buf(),
            message,
        });
    }
    commit_temp(&tmp, path).map_err(io_error(path))
}

/// The x and y ranges the axes span: every drawable point and error bar, padded, the y range
/// inside the chart's floor and ceiling (starting at 0 when every value is positive and near
/// it).
pub fn bounds(chart: &XyChart) -> (Range<f64>, Range<f64>) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for s in &chart.series {
        for (i, &(x, y)) in s.points.iter().enumerate() {
            if !chart.drawable((x, y)) {
                continue;
            }
            let (lo, hi) = s
                .error_bars
                .as_ref()
                .and_then(|e| e.get(i))
                .copied()
                .filter(|(lo, hi)| lo.is_finite() && hi.is_finite())
                .unwrap_or((y, y));
            (x0, x1) = (x0.min(x), x1.max(x));
            (y0, y1) = (y0.min(y).min(lo), y1.max(y).max(hi));
        }
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 10.0, 0.0, 1.0);
    }
    (x0, x1) = match &chart.x_scale {
        XScale::Categories(c) => (-0.5, c.len().max(1) as f64 - 0.5),
        XScale::Log => {
            let r = log_bounds(&(x0 / 1.1..x1 * 1.1));
            (r.start, r.end)
        }
        // Ticks at the values themselves: the same margin either side.
        XScale::LogAt(_) => (x0 / 1.25, x1 * 1.25),
        // Room for dodged markers at the ends; whole ranks keep half a rank either side.
        scale => {
            let mut pad = if x1 > x0 {
                0.04 * (x1 - x0)
            } else {
                0.1 * x0.abs().max(1.0)
            };
            if *scale == XScale::Integer {
                pad = pad.max(0.5);
            }
            (x0 - pad, x1 + pad)
        }
    };
    let floor = chart.y_floor.unwrap_or(f64::MIN);
    if y0 >= floor.max(0.0) && y0 <= 0.5 * y1 {
        y0 = floor.max(0.0);
    }
    if y1 <= y0 {
        y1 = y0 + if y0 == 0.0 { 1.0 } else { 0.1 * y0.abs() };
    }
    let pad = 0.05 * (y1 - y0);
    let y_low = if y0 == floor.max(0.0) && y0 >= floor {
        y0
    } else {
        (y0 - pad).max(floor)
    };
    let y_high = (y1 + pad).min(chart.y_ceiling.map_or(f64::MAX, |c| c + 0.02 * (c - y_low)));
    (x0..x1, y_low..y_high)
}

/// A point and its error bar (low, high), if any.
type PointWithBar = ((f64, f64), Option<(f64, f64)>);

/// Maps chart values to backend pixels inside the plotting rectangle.
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x: Range<f64>,
    y: Range<f64>,
    log_x: bool,
}

impl Frame {
    /// The pixel column of `x`.
    fn px(&self, x: f64) -> f64 {
        let (t, a, b) = if self.log_x {
            (x.log10(), self.x.start.log10(), self.x.end.log10())
        } else {
            (x, self.x.start, self.x.end)
        };
        self.left + (t - a) / (b - a) * (self.right - self.left)
    }

    /// The pixel row of `y`; values off the axis (above a chart's ceiling) at its edge.
    fn py(&self, y: f64) -> f64 {
        let row = self.bottom
            - (y - self.y.start) / (self.y.end - self.y.start) * (self.bottom - self.top);
        row.clamp(self.top, self.bottom)
    }
}

/// A backend coordinate from a pixel position.
fn at(x: f64, y: f64) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// A drawing error, as text.
type DrawResult<T> = std::result::Result<T, String>;

/// A backend's drawing area with every size in SVG units multiplied by `scale`.
struct Canvas<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
    scale: f64,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    /// `units` SVG units in pixels.
    fn px(&self, units: f64) -> f64 {
        units * self.scale
    }

    /// The embedded font at `size` SVG units, black.
    fn font(&self, size: f64) -> TextStyle<'static> {
        TextStyle::from((FAMILY, self.px(size)).into_font()).color(&BLACK)
    }

    /// A stroke of `units` SVG units in `color`.
    fn stroke(&self, color: RGBColor, units: f64) -> ShapeStyle {
        color.stroke_width(self.px(units).round().max(1.0) as u32)
    }

    /// Width and height of `text` in pixels.
    fn text_size(&self, text: &str, style: &TextStyle) -> DrawResult<(f64, f64)> {
        self.root
            .estimate_text_size(text, style)
            .map(|(w, h)| (w as f64, h as f64))
            .map_err(|e| e.to_string())
    }

    /// Draws `text` anchored at `(x, y)` by `pos`.
    fn text(&self, text: &str, (x, y): (f64, f64), style: &TextStyle, pos: Pos) -> DrawResult<()> {
        let element = Text::new(text.to_string(), at(x, y), style.pos(pos));
        self.root.draw(&element).map_err(|e| e.to_string())
    }

    /// A line through `path`, dashed (8 units on, 5 off) or solid.
    fn line(&self, path: Vec<(i32, i32)>, style: ShapeStyle, dashed: bool) -> DrawResult<()> {
        let drawn = if dashed {
            let (dash, gap) = (self.px(8.0) as i32, self.px(5.0) as i32);
            self.root
                .draw(&DashedPathElement::new(path, dash, gap, style))
        } else {
            self.root.draw(&PathElement::new(path, style))
        };
        drawn.map_err(|e| e.to_string())
    }

    /// A rectangle's outline.
    fn frame(&self, corners: [(i32, i32); 2], style: ShapeStyle) -> DrawResult<()> {
        self.root
            .draw(&Rectangle::new(corners, style))
            .map_err(|e| e.to_string())
    }

    /// A filled marker centred at `(x, y)`.
    fn marker(&self, (x, y): (i32, i32), shape: Shape, color: RGBColor) -> DrawResult<()> {
        let r = self.px(MARKER_RADIUS).round() as i32;
        let style = color.filled();
        let drawn = match shape {
            Shape::Circle => self.root.draw(&Circle::new((x, y), r, style)),
            Shape::Square => self
                .root
                .draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], style)),
            Shape::Triangle => self.root.draw(&Polygon::new(
                vec![(x, y - r - 1), (x - r - 1, y + r), (x + r + 1, y + r)],
                style,
            )),
        };
        drawn.map_err(|e| e.to_string())
    }
}

/// Draws `chart` on any backend, every size multiplied by `scale`: title and notes, then the
/// legend's width decides where the plotting area ends, the tick labels' sizes where it
/// starts.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &XyChart,
    scale: f64,
) -> DrawResult<()> {
    let canvas = Canvas { root, scale };
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (width, _) = root.dim_in_pixel();
    let top = draw_header(&canvas, chart)?;
    let legend = Legend::measure(&canvas, chart)?;
    let right = width as f64
        - canvas.px(MARGIN)
        - legend
            .as_ref()
            .map_or(0.0, |l| l.width + canvas.px(LEGEND_GAP));
    let frame = draw_axes(&canvas, chart, top, right)?;
    draw_series(&canvas, chart, &frame)?;
    if let Some(legend) = legend {
        legend.draw(&canvas, chart, (right + canvas.px(LEGEND_GAP), top))?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Draws the title and the notes centred at the top; returns where the plotting area starts.
fn draw_header<DB: DrawingBackend>(canvas: &Canvas<DB>, chart: &XyChart) -> DrawResult<f64> {
    let (width, _) = canvas.root.dim_in_pixel();
    let mut top = canvas.px(MARGIN);
    for (text, size) in std::iter::once((&chart.title, TITLE_FONT))
        .chain(chart.notes.iter().map(|n| (n, NOTE_FONT)))
    {
        let style = canvas.font(size);
        let pos = Pos::new(HPos::Center, VPos::Top);
        canvas.text(text, (width as f64 / 2.0, top), &style, pos)?;
        top += canvas.text_size(text, &style)?.1 + canvas.px(6.0);
    }
    Ok(top + canvas.px(8.0))
}

/// Lays out the axes of a plotting area from `top` to `right`, leaving room for the tick
/// labels and axis titles; draws grid, frame, ticks, tick labels and axis titles. Returns the
/// plotting area.
fn draw_axes<DB: DrawingBackend>(
    canvas: &Canvas<DB>,
    chart: &XyChart,
    top: f64,
    right: f64,
) -> DrawResult<Frame> {
    let (_, height) = canvas.root.dim_in_pixel();
    let height = height as f64;
    let margin = canvas.px(MARGIN);
    let tick_style = canvas.font(TICK_FONT);
    let axis_style = canvas.font(AXIS_TITLE_FONT);
    let tick_height = canvas.text_size("0.9", &tick_style)?.1;
    let title_height = canvas.text_size(&chart.x_label, &axis_style)?.1;
    let tick_length = canvas.px(5.0);
    // Category names too wide to sit side by side alternate between two rows; the plotting
    // area's width is not known yet, so judge by the widest it can be.
    let staggered = match &chart.x_scale {
        XScale::Categories(names) if names.len() > 1 => {
            let mut widest: f64 = 0.0;
            for name in names {
                widest = widest.max(canvas.text_size(name, &tick_style)?.0);
            }
            widest + canvas.px(12.0) > (right - margin) / names.len() as f64
        }
        _ => false,
    };
    let label_rows = if staggered { 2.0 } else { 1.0 };
    let bottom =
        height - margin - title_height - label_rows * tick_height - tick_length - canvas.px(20.0);
    let (x_range, y_range) = bounds(chart);
    let y_ticks = fitting_ticks(bottom - top, 2.2 * tick_height, |n| {
        linear_ticks(&y_range, n, chart.y_integer)
    });
    let mut y_label_width: f64 = 0.0;
    for t in &y_ticks {
        y_label_width = y_label_width.max(canvas.text_size(&t.label, &tick_style)?.0);
    }
    let left = margin + title_height + canvas.px(14.0) + y_label_width + tick_length;
    let frame = Frame {
        left,
        right,
        top,
        bottom,
        x: x_range.clone(),
        y: y_range,
        log_x: chart.x_scale.is_log(),
    };
    let x_ticks = x_ticks(chart, &x_range, right - left, &|t| {
        canvas.text_size(t, &tick_style).map_or(0.0, |s| s.0)
    });

    let grid = canvas.stroke(RGBColor(0xDD, 0xDD, 0xDD), 1.0);
    let ink = canvas.stroke(BLACK, 1.0);
    for t in &y_ticks {
        let y = frame.py(t.value);
        canvas.line(vec![at(left, y), at(right, y)], grid, false)?;
        canvas.line(vec![at(left - tick_length, y), at(left, y)], ink, false)?;
        let pos = Pos::new(HPos::Right, VPos::Center);
        let anchor = (left - tick_length - canvas.px(4.0), y);
        canvas.text(&t.label, anchor, &tick_style, pos)?;
    }
    for (i, t) in x_ticks.iter().enumerate() {
        let x = frame.px(t.value);
        let row = if staggered && i % 2 == 1 {
            tick_height
        } else {
            0.0
        };
        if !matches!(chart.x_scale, XScale::Categories(_)) {
            canvas.line(vec![at(x, top), at(x, bottom)], grid, false)?;
        }
        canvas.line(vec![at(x, bottom), at(x, bottom + tick_length)], ink, false)?;
        let pos = Pos::new(HPos::Center, VPos::Top);
        let anchor = (x, bottom + tick_length + canvas.px(4.0) + row);
        canvas.text(&t.label, anchor, &tick_style, pos)?;
    }
    canvas.frame([at(left, top), at(right, bottom)], ink)?;
    let pos = Pos::new(HPos::Center, VPos::Top);
    let x_title = ((left + right) / 2.0, height - margin - title_height);
    canvas.text(&chart.x_label, x_title, &axis_style, pos)?;
    let rotated = axis_style.transform(FontTransform::Rotate270);
    canvas.text(
        &chart.y_label,
        (margin, (top + bottom) / 2.0),
        &rotated,
        pos,
    )?;
    Ok(frame)
}

/// Draws every series in `frame`: its line (none across categories), error bars with caps,
/// markers; series that share an x dodged sideways.
fn draw_series<DB: DrawingBackend>(
    canvas: &Canvas<DB>,
    chart: &XyChart,
    frame: &Frame,
) -> DrawResult<()> {
    let categorical = matches!(chart.x_scale, XScale::Categories(_));
    let offsets = dodge_offsets(chart, frame, canvas.scale);
    for (i, s) in chart.series.iter().enumerate() {
        let (color, shape, dashed) = style_of(i);
        let line = canvas.stroke(color, LINE_WIDTH);
        let points: Vec<PointWithBar> = s
            .points
            .iter()
            .enumerate()
            .filter(|(_, &p)| chart.drawable(p))
            .map(|(j, &p)| (p, s.error_bars.as_ref().and_then(|e| e.get(j)).copied()))
            .collect();
        let x_of = |x: f64| frame.px(x) + offsets[i];
        if !categorical {
            let path = points
                .iter()
                .map(|&((x, y), _)| at(x_of(x), frame.py(y)))
                .collect();
            canvas.line(path, line, dashed)?;
        }
        for &((x, y), bar) in &points {
            if let Some((lo, hi)) = bar.filter(|(lo, hi)| lo.is_finite() && hi.is_finite()) {
                let (cx, cap) = (x_of(x), canvas.px(4.0));
                let (ylo, yhi) = (frame.py(lo), frame.py(hi));
                canvas.line(vec![at(cx, ylo), at(cx, yhi)], line, false)?;
                for y in [ylo, yhi] {
                    canvas.line(vec![at(cx - cap, y), at(cx + cap, y)], line, false)?;
                }
            }
            if chart.markers || categorical {
                canvas.marker(at(x_of(x), frame.py(y)), shape, color)?;
            }
        }
    }
    Ok(())
}

/// The legend: a box right of the plotting area with the heading (one parameter a line) and
/// a swatch and label per series.
struct Legend<'a> {
    heading: Vec<&'a str>,
    width: f64,
}

impl<'a> Legend<'a> {
    /// The legend of `chart` and its width in pixels; `None` when the chart has none.
    fn measure<DB: DrawingBackend>(
        canvas: &Canvas<DB>,
        chart: &'a XyChart,
    ) -> DrawResult<Option<Self>> {
        if !chart.has_legend() {
            return Ok(None);
        }
        let style = canvas.font(LEGEND_FONT);
        let heading: Vec<&str> = chart
            .legend_title
            .as_deref()
            .map_or(Vec::new(), |t| t.split(", ").collect());
        let mut width: f64 = 0.0;
        for s in &chart.series {
            width = width.max(canvas.text_size(&s.label, &style)?.0 + canvas.px(SWATCH));
        }
        for line in &heading {
            width = width.max(canvas.text_size(line, &style)?.0);
        }
        Ok(Some(Legend {
            heading,
            width: width + canvas.px(16.0),
        }))
    }

    /// Draws the legend with its top left corner at `(x0, top)`.
    fn draw<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<DB>,
        chart: &XyChart,
        (x0, top): (f64, f64),
    ) -> DrawResult<()> {
        let style = canvas.font(LEGEND_FONT);
        let categorical = matches!(chart.x_scale, XScale::Categories(_));
        let row = canvas.text_size("Mg", &style)?.1 + canvas.px(8.0);
        let pad = canvas.px(6.0);
        let mut y = top;
        for line in &self.heading {
            let pos = Pos::new(HPos::Left, VPos::Top);
            canvas.text(line, (x0 + canvas.px(8.0), y + pad), &style, pos)?;
            y += row;
        }
        for (i, s) in chart.series.iter().enumerate() {
            let (color, shape, dashed) = style_of(i);
            let cy = y + pad + row / 2.0 - canvas.px(4.0);
            let (sx0, sx1) = (x0 + canvas.px(8.0), x0 + canvas.px(SWATCH));
            if !categorical {
                let stroke = canvas.stroke(color, LINE_WIDTH);
                canvas.line(vec![at(sx0, cy), at(sx1, cy)], stroke, dashed)?;
            }
            if chart.markers || categorical {
                canvas.marker(at((sx0 + sx1) / 2.0, cy), shape, color)?;
            }
            let pos = Pos::new(HPos::Left, VPos::Center);
            canvas.text(&s.label, (sx1 + canvas.px(8.0), cy), &style, pos)?;
            y += row;
        }
        let outline = canvas.stroke(BLACK, 1.0);
        canvas.frame([at(x0, top), at(x0 + self.width, y + pad)], outline)
    }
}

/// Ticks for an axis `length` pixels long from `ticks(n)` (about n ticks): the most ticks,
/// from 10 down, whose spacing is at least `min_spacing` pixels.
fn fitting_ticks(length: f64, min_spacing: f64, ticks: impl Fn(usize) -> Vec<Tick>) -> Vec<Tick> {
    (2..=10)
        .rev()
        .map(&ticks)
        .find(|t| t.len() <= 1 || length / (t.len() - 1) as f64 >= min_spacing)
        .unwrap_or_else(|| ticks(2))
}

/// The x ticks: the categories' names, or round values (integers on an integer axis, 1-2-5
/// on a log axis) with as many ticks as fit with their labels `label_width` apart by at least
/// 1.5 times the widest label.
fn x_ticks(
    chart: &XyChart,
    range: &Range<f64>,
    length: f64,
    label_width: &dyn Fn(&str) -> f64,
) -> Vec<Tick> {
    let widest = |t: &[Tick]| t.iter().map(|t| label_width(&t.label)).fold(0.0, f64::max);
    let fits = |t: &[Tick], spacing: f64| t.len() <= 1 || spacing >= 1.3 * widest(t);
    match &chart.x_scale {
        XScale::Categories(c) => c
            .iter()
            .enumerate()
            .map(|(i, label)| Tick {
                value: i as f64,
                label: label.clone(),
            })
            .collect(),
        XScale::LogAt(values) => values
            .iter()
            .map(|&value| Tick {
                value,
                label: compact(value),
            })
            .collect(),
        XScale::Log => {
            // 1-2-5 per decade until the labels would touch, then powers of ten only.
            let t = log_ticks(range, 4);
            let decades = (range.end / range.start).log10().max(1.0);
            if fits(&t, length / (t.len() as f64).max(decades)) {
                t
            } else {
                log_ticks(range, 1)
            }
        }
        scale => {
            let integer = *scale == XScale::Integer;
            (2..=10)
                .rev()
                .map(|n| linear_ticks(range, n, integer))
                .find(|t| fits(t, length / (t.len().max(2) - 1) as f64))
                .unwrap_or_else(|| linear_ticks(range, 2, integer))
        }
    }
}

/// Per series, the sideways pixel offset of its markers, lines and error bars: when several
/// series with markers share an x, they spread over up to [`DODGE`] units apart each, centred
/// on the true x, so that none hides another's error bar.
fn dodge_offsets(chart: &XyChart, frame: &Frame, scale: f64) -> Vec<f64> {
    let n = chart.series.len();
    let shares_x = chart.series.iter().enumerate().any(|(i, a)| {
        chart.series[i + 1..]
            .iter()
            .any(|b| a.points.iter().any(|p| b.points.iter().any(|q| q.0 == p.0)))
    });
    if n < 2 || !(chart.markers || matches!(chart.x_scale, XScale::Categories(_))) || !shares_x {
        return vec![0.0; n];
    }
    // The narrowest gap between distinct x values bounds the spread.
    let mut xs: Vec<f64> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| frame.px(p.0)))
        .filter(|x| x.is_finite())
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup_by(|a, b| (*a - *b).abs() < 0.5);
    let gap = xs
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(frame.right - frame.left, f64::min);
    let step = (DODGE * scale).min(0.6 * gap / n as f64);
    (0..n)
        .map(|j| (j as f64 - (n - 1) as f64 / 2.0) * step)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plots::chart::Series;
    use crate::report::plots::distributions::ranked_throughput;
    use crate::report::plots::tests::svg_texts;

    fn png_pixels(path: &Path) -> (u32, u32, Vec<u8>) {
        let mut reader = png::Decoder::new(std::fs::File::open(path).unwrap())
            .read_info()
            .unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut buf).unwrap();
        let info = reader.info();
        (info.width, info.height, buf)
    }

    #[test]
    fn embedded_font_is_a_valid_truetype_file() {
        assert!(register_fonts());
        assert_eq!(&DEJAVU_SANS[..4], &[0, 1, 0, 0]);
    }

    fn chart(series: Vec<Series>) -> XyChart {
        XyChart {
            markers: true,
            ..XyChart::new("A title", "An x axis (s)", "A y axis (ms)", series)
        }
    }

    fn series(label: &str, points: &[(f64, f64)]) -> Series {
        Series {
            label: label.into(),
            points: points.to_vec(),
            error_bars: Some(points.iter().map(|&(_, y)| (y - 1.0, y + 1.0)).collect()),
        }
    }

    #[test]
    fn svg_has_the_words_and_png_is_at_print_resolution() {
        // Text goes through the embedded font only (plotters is built without font-kit): the
        // strings in the SVG prove the font path works.
        let dir = tempfile::tempdir().unwrap();
        let mut c = chart(vec![series("tcp", &[(1.0, 2.0), (2.0, 3.0)])]);
        c.notes = vec!["A note".into()];
        c.legend_title = Some("transports.long.kind".into());
        let files = render(&c, dir.path(), "c").unwrap();
        assert_eq!(files.len(), 2);
        let texts = svg_texts(&std::fs::read_to_string(&files[0]).unwrap());
        for s in [
            "A title",
            "A note",
            "An x axis (s)",
            "A y axis (ms)",
            "tcp",
            "transports.long.kind",
        ] {
            assert!(texts.iter().any(|t| t == s), "{s} missing from {texts:?}");
        }
        let (w, h, pixels) = png_pixels(&files[1]);
        assert_eq!((w, h), (PLOT_WIDTH * PNG_SCALE, PLOT_HEIGHT * PNG_SCALE));
        assert!(w >= 1920, "at least 2x the old 960 pixels");
        // Drawn text and lines: plenty of dark pixels.
        assert!(pixels.iter().filter(|&&b| b < 128).count() > 4000);
    }

    #[test]
    fn a_plot_is_replaced_whole_never_rewritten_in_place() {
        // A reader holding the old plot (here a second link to its file) keeps it whole: the
        // new plot is drawn into a temporary file and renamed over it, so a report cut short
        // never leaves a plot half drawn under its name.
        let dir = tempfile::tempdir().unwrap();
        let c = chart(vec![series("tcp", &[(1.0, 2.0), (2.0, 3.0)])]);
        let mut held = Vec::new();
        for ext in ["svg", "png"] {
            let plot = dir.path().join(format!("c.{ext}"));
            std::fs::write(&plot, b"old plot").unwrap();
            let link = dir.path().join(format!("held-{ext}"));
            std::fs::hard_link(&plot, &link).unwrap();
            held.push(link);
        }
        let files = render(&c, dir.path(), "c").unwrap();
        for link in &held {
            assert_eq!(std::fs::read(link).unwrap(), b"old plot", "{link:?}");
        }
        assert!(std::fs::read_to_string(&files[0]).unwrap().contains("<svg"));
        assert_eq!(png_pixels(&files[1]).0, PLOT_WIDTH * PNG_SCALE);
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["c.png", "c.svg", "held-png", "held-svg"]);
    }

    /// The numbers of attribute `name` in an SVG element's text.
    fn attribute(element: &str, name: &str) -> Option<String> {
        let start = element.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(element[start..start + element[start..].find('"')?].to_string())
    }

    #[test]
    fn the_legend_sits_right_of_every_data_point() {
        // Data up to the top right corner, where plotters put the legend before.
        let dir = tempfile::tempdir().unwrap();
        let mut c = chart(vec![
            series("tcp", &[(0.0, 0.0), (10.0, 100.0)]),
            series("mptcp", &[(0.0, 50.0), (10.0, 99.0)]),
        ]);
        c.legend_title = Some("transports.long.kind, flows.short.arrivals.poisson".into());
        let files = render(&c, dir.path(), "legend").unwrap();
        let svg = std::fs::read_to_string(&files[0]).unwrap();
        let legend = svg.split("<rect").last().unwrap();
        let number = |e: &str, n: &str| attribute(e, n).unwrap().parse::<f64>().unwrap();
        let (lx, lw) = (number(legend, "x"), number(legend, "width"));
        // The heading is one parameter a line, not one wide line.
        let texts = crate::report::plots::tests::svg_texts(&svg);
        assert!(texts.iter().any(|t| t == "flows.short.arrivals.poisson"));
        let colours: Vec<String> = (0..2)
            .map(|i| {
                let c = style_of(i).0;
                format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
            })
            .collect();
        let mut data_xs = Vec::new();
        for element in svg
            .split('<')
            .filter(|e| colours.iter().any(|c| e.contains(c.as_str())))
        {
            if let Some(points) = attribute(element, "points") {
                data_xs.extend(
                    points
                        .split_whitespace()
                        .map(|p| p.split(',').next().unwrap().parse::<f64>().unwrap()),
                );
            }
            if let Some(cx) = attribute(element, "cx") {
                data_xs.push(cx.parse().unwrap());
            }
        }
        // Everything coloured is left of the legend, or is a legend swatch (its left 40 units).
        let (data, swatches): (Vec<f64>, Vec<f64>) = data_xs.iter().partition(|&&x| x < lx);
        assert!(!data.is_empty() && !swatches.is_empty());
        assert!(
            swatches.iter().all(|&x| x <= lx + 40.0),
            "{swatches:?} in {lx} + {lw}"
        );
    }

    #[test]
    fn long_category_names_alternate_between_two_rows() {
        let dir = tempfile::tempdir().unwrap();
        let names: Vec<String> = (1..=8)
            .map(|i| format!("_uniform=_{i}0KB_{i}00KB__"))
            .collect();
        let mut c = chart(vec![series(
            "",
            &(0..8).map(|i| (i as f64, 1.0)).collect::<Vec<_>>(),
        )]);
        c.x_scale = XScale::Categories(names.clone());
        let files = render(&c, dir.path(), "categories").unwrap();
        let svg = std::fs::read_to_string(&files[0]).unwrap();
        // The y of each category name's text element: two distinct rows, alternating.
        let ys: Vec<f64> = svg
            .split("<text")
            .filter(|t| names.iter().any(|n| t.contains(n.as_str())))
            .map(|t| attribute(t, "y").unwrap().parse().unwrap())
            .collect();
        assert_eq!(ys.len(), 8);
        assert!(ys[1] > ys[0] && ys[2] == ys[0] && ys[3] == ys[1], "{ys:?}");
        // Three short names stay on one row.
        let mut short = chart(vec![series("", &[(0.0, 1.0), (2.0, 2.0)])]);
        short.x_scale = XScale::Categories(vec!["tcp".into(), "dctcp".into(), "mptcp".into()]);
        let files = render(&short, dir.path(), "short").unwrap();
        let svg = std::fs::read_to_string(&files[0]).unwrap();
        let ys: Vec<f64> = svg
            .split("<text")
            .filter(|t| t.contains("tcp\n"))
            .map(|t| attribute(t, "y").unwrap().parse().unwrap())
            .collect();
        assert!(ys.iter().all(|y| *y == ys[0]), "{ys:?}");
        assert_eq!(ys.len(), 3);
    }

    #[test]
    fn a_chart_without_data_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let empty = chart(vec![series("tcp", &[(f64::NAN, 1.0)])]);
        assert!(render(&empty, dir.path(), "empty").unwrap().is_empty());
        assert!(!dir.path().join("empty.svg").exists());
        let mut log = chart(vec![series("tcp", &[(0.0, 1.0)])]);
        log.x_scale = XScale::Log;
        assert!(render(&log, dir.path(), "log").unwrap().is_empty());
    }

    #[test]
    fn rank_axes_get_integer_ticks_only() {
        for flows in [2usize, 3, 7, 20, 150] {
            let goodputs: Vec<f64> = (0..flows).map(|i| 100.0 + i as f64).collect();
            let c = ranked_throughput("ranked", &[("tcp".into(), goodputs)]);
            let (x, _) = bounds(&c);
            let ticks = x_ticks(&c, &x, 800.0, &|t| 9.0 * t.len() as f64);
            assert!(!ticks.is_empty());
            for t in &ticks {
                assert_eq!(t.value.fract(), 0.0, "{flows} flows: {t:?}");
                assert!(!t.label.contains('.'), "{flows} flows: {t:?}");
            }
        }
    }

    #[test]
    fn x_tick_labels_never_overlap() {
        // The rate time series: long labels (a billion bit/s) on a narrow axis.
        let c = chart(vec![series("", &[(0.0, 1.0), (0.2, 2e9)])]);
        let (x, _) = bounds(&c);
        let width = |t: &str| 9.0 * t.len() as f64;
        let ticks = x_ticks(&c, &x, 300.0, &width);
        let spacing = 300.0 / (x.end - x.start) * (ticks[1].value - ticks[0].value);
        let widest = ticks.iter().map(|t| width(&t.label)).fold(0.0, f64::max);
        assert!(spacing >= widest, "{ticks:?}");
    }

    #[test]
    fn series_at_the_same_x_are_dodged_apart() {
        let c = chart(vec![
            series("a", &[(1.0, 2.0), (2.0, 3.0)]),
            series("b", &[(1.0, 2.5), (2.0, 3.5)]),
            series("c", &[(1.0, 2.2), (2.0, 3.1)]),
        ]);
        let (x, y) = bounds(&c);
        let frame = Frame {
            left: 0.0,
            right: 900.0,
            top: 0.0,
            bottom: 500.0,
            x,
            y,
            log_x: false,
        };
        let offsets = dodge_offsets(&c, &frame, 1.0);
        assert_eq!(offsets, vec![-DODGE, 0.0, DODGE]);
        // A line chart (no markers, no error bars) is not dodged.
        let mut lines = c.clone();
        lines.markers = false;
        assert_eq!(dodge_offsets(&lines, &frame, 1.0), vec![0.0; 3]);
    }
}
