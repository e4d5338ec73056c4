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

use super::axis::{linear_ticks, log_bounds, log_ticks, Tick};
use super::chart::{XScale, XyChart};
use super::palette::{style_of, Shape};
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
    let plot_error = |path: &Path| {
        let path = path.to_path_buf();
        move |message| ReportError::Plot { path, message }
    };
    if !register_fonts() {
        return Err(plot_error(&svg)("the embedded font did not load".into()));
    }
    let size = (PLOT_WIDTH, PLOT_HEIGHT);
    draw(&SVGBackend::new(&svg, size).into_drawing_area(), chart, 1.0).map_err(plot_error(&svg))?;
    let size = (PLOT_WIDTH * PNG_SCALE, PLOT_HEIGHT * PNG_SCALE);
    draw(
        &BitMapBackend::new(&png, size).into_drawing_area(),
        chart,
        PNG_SCALE as f64,
    )
    .map_err(plot_error(&png))?;
    Ok(vec![svg, png])
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
    fn px(&self, x: f64) -> f64 {
        let (t, a, b) = if self.log_x {
            (x.log10(), self.x.start.log10(), self.x.end.log10())
        } else {
            (x, self.x.start, self.x.end)
        };
        self.left + (t - a) / (b - a) * (self.right - self.left)
    }

    fn py(&self, y: f64) -> f64 {
        self.bottom - (y - self.y.start) / (self.y.end - self.y.start) * (self.bottom - self.top)
    }
}

/// A backend coordinate from a pixel position.
fn at(x: f64, y: f64) -> (i32, i32) {
    (x.round() as i32, y.round() as i32)
}

/// Draws `chart` on any backend, every size multiplied by `scale`.
fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &XyChart,
    scale: f64,
) -> std::result::Result<(), String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    let font = |size: f64| TextStyle::from((FAMILY, size * scale).into_font()).color(&BLACK);
    let text_size = |text: &str, style: &TextStyle| {
        root.estimate_text_size(text, style)
            .map(|(w, h)| (w as f64, h as f64))
            .map_err(|e| err(&e))
    };
    let put = |text: &str, (x, y): (f64, f64), style: &TextStyle, pos: Pos| {
        root.draw(&Text::new(text.to_string(), at(x, y), style.pos(pos)))
            .map_err(|e| err(&e))
    };
    let (width, height) = root.dim_in_pixel();
    let (width, height) = (width as f64, height as f64);
    let margin = MARGIN * scale;
    root.fill(&WHITE).map_err(|e| err(&e))?;

    // Title and notes, centred at the top.
    let mut top = margin;
    for (text, size) in std::iter::once((&chart.title, TITLE_FONT))
        .chain(chart.notes.iter().map(|n| (n, NOTE_FONT)))
    {
        let style = font(size);
        put(
            text,
            (width / 2.0, top),
            &style,
            Pos::new(HPos::Center, VPos::Top),
        )?;
        top += text_size(text, &style)?.1 + 6.0 * scale;
    }
    top += 8.0 * scale;

    // The legend, right of the plotting area.
    let legend_style = font(LEGEND_FONT);
    let swatch = 30.0 * scale;
    // The heading's parameters one per line, so that a long list does not widen the legend.
    let heading: Vec<&str> = chart
        .legend_title
        .as_deref()
        .map_or(Vec::new(), |t| t.split(", ").collect());
    let legend_width = if chart.has_legend() {
        let mut w: f64 = 0.0;
        for s in &chart.series {
            w = w.max(text_size(&s.label, &legend_style)?.0 + swatch);
        }
        for line in &heading {
            w = w.max(text_size(line, &legend_style)?.0);
        }
        w + 16.0 * scale
    } else {
        0.0
    };
    let right = width
        - margin
        - if legend_width > 0.0 {
            legend_width + 12.0 * scale
        } else {
            0.0
        };

    // Axis titles and tick label areas.
    let tick_style = font(TICK_FONT);
    let axis_style = font(AXIS_TITLE_FONT);
    let tick_height = text_size("0.9", &tick_style)?.1;
    let axis_title_height = text_size(&chart.x_label, &axis_style)?.1;
    let tick_length = 5.0 * scale;
    let bottom = height - margin - axis_title_height - tick_height - tick_length - 20.0 * scale;
    let (x_range, y_range) = bounds(chart);
    let y_ticks = fitting_ticks(bottom - top, 2.2 * tick_height, |n| {
        linear_ticks(&y_range, n, chart.y_integer)
    });
    let mut y_label_width: f64 = 0.0;
    for t in &y_ticks {
        y_label_width = y_label_width.max(text_size(&t.label, &tick_style)?.0);
    }
    let left =
        margin + axis_title_height + 10.0 * scale + y_label_width + tick_length + 4.0 * scale;
    let frame = Frame {
        left,
        right,
        top,
        bottom,
        x: x_range.clone(),
        y: y_range.clone(),
        log_x: chart.x_scale == XScale::Log,
    };
    let x_ticks = x_ticks(chart, &x_range, right - left, &|t| {
        text_size(t, &tick_style).map(|s| s.0).unwrap_or(0.0)
    });

    // Grid, frame, ticks and their labels.
    let grid = RGBColor(0xDD, 0xDD, 0xDD).stroke_width(scale.round() as u32);
    let ink = BLACK.stroke_width(scale.round() as u32);
    for t in &y_ticks {
        let y = frame.py(t.value);
        root.draw(&PathElement::new(vec![at(left, y), at(right, y)], grid))
            .map_err(|e| err(&e))?;
        root.draw(&PathElement::new(
            vec![at(left - tick_length, y), at(left, y)],
            ink,
        ))
        .map_err(|e| err(&e))?;
        let pos = Pos::new(HPos::Right, VPos::Center);
        put(
            &t.label,
            (left - tick_length - 4.0 * scale, y),
            &tick_style,
            pos,
        )?;
    }
    for t in &x_ticks {
        let x = frame.px(t.value);
        if !matches!(chart.x_scale, XScale::Categories(_)) {
            root.draw(&PathElement::new(vec![at(x, top), at(x, bottom)], grid))
                .map_err(|e| err(&e))?;
        }
        root.draw(&PathElement::new(
            vec![at(x, bottom), at(x, bottom + tick_length)],
            ink,
        ))
        .map_err(|e| err(&e))?;
        let pos = Pos::new(HPos::Center, VPos::Top);
        put(
            &t.label,
            (x, bottom + tick_length + 4.0 * scale),
            &tick_style,
            pos,
        )?;
    }
    root.draw(&Rectangle::new([at(left, top), at(right, bottom)], ink))
        .map_err(|e| err(&e))?;
    put(
        &chart.x_label,
        ((left + right) / 2.0, height - margin - axis_title_height),
        &axis_style,
        Pos::new(HPos::Center, VPos::Top),
    )?;
    put(
        &chart.y_label,
        (margin, (top + bottom) / 2.0),
        &axis_style.transform(FontTransform::Rotate270),
        Pos::new(HPos::Center, VPos::Top),
    )?;

    // The series.
    let categorical = matches!(chart.x_scale, XScale::Categories(_));
    let offsets = dodge_offsets(chart, &frame, scale);
    for (i, s) in chart.series.iter().enumerate() {
        let (color, shape, dashed) = style_of(i);
        let line = color.stroke_width((LINE_WIDTH * scale).round() as u32);
        let points: Vec<PointWithBar> = s
            .points
            .iter()
            .enumerate()
            .filter(|(_, &p)| chart.drawable(p))
            .map(|(j, &p)| (p, s.error_bars.as_ref().and_then(|e| e.get(j)).copied()))
            .collect();
        let pixel = |(x, y): (f64, f64)| at(frame.px(x) + offsets[i], frame.py(y));
        if !categorical {
            let path: Vec<(i32, i32)> = points.iter().map(|&(p, _)| pixel(p)).collect();
            polyline(root, path, line, dashed, scale).map_err(|e| err(&e))?;
        }
        for &((x, y), bar) in &points {
            if let Some((lo, hi)) = bar.filter(|(lo, hi)| lo.is_finite() && hi.is_finite()) {
                let cx = frame.px(x) + offsets[i];
                let cap = 4.0 * scale;
                let (ylo, yhi) = (frame.py(lo), frame.py(hi));
                for segment in [
                    vec![at(cx, ylo), at(cx, yhi)],
                    vec![at(cx - cap, ylo), at(cx + cap, ylo)],
                    vec![at(cx - cap, yhi), at(cx + cap, yhi)],
                ] {
                    root.draw(&PathElement::new(segment, line))
                        .map_err(|e| err(&e))?;
                }
            }
            if chart.markers || categorical {
                marker(root, pixel((x, y)), shape, color, scale).map_err(|e| err(&e))?;
            }
        }
    }

    // The legend.
    if chart.has_legend() {
        let x0 = right + 12.0 * scale;
        let row = text_size("Mg", &legend_style)?.1 + 8.0 * scale;
        let mut y = top;
        for line in &heading {
            put(
                line,
                (x0 + 8.0 * scale, y + 6.0 * scale),
                &legend_style,
                Pos::new(HPos::Left, VPos::Top),
            )?;
            y += row;
        }
        for (i, s) in chart.series.iter().enumerate() {
            let (color, shape, dashed) = style_of(i);
            let cy = y + 6.0 * scale + row / 2.0 - 4.0 * scale;
            let (sx0, sx1) = (x0 + 8.0 * scale, x0 + swatch);
            let line = color.stroke_width((LINE_WIDTH * scale).round() as u32);
            if !categorical {
                let path = vec![at(sx0, cy), at(sx1, cy)];
                polyline(root, path, line, dashed, scale).map_err(|e| err(&e))?;
            }
            if chart.markers || categorical {
                marker(root, at((sx0 + sx1) / 2.0, cy), shape, color, scale)
                    .map_err(|e| err(&e))?;
            }
            let pos = Pos::new(HPos::Left, VPos::Center);
            put(&s.label, (sx1 + 8.0 * scale, cy), &legend_style, pos)?;
            y += row;
        }
        root.draw(&Rectangle::new(
            [at(x0, top), at(x0 + legend_width, y + 6.0 * scale)],
            BLACK.stroke_width(scale.round() as u32),
        ))
        .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))
}

/// A line through `path`, dashed (8 units on, 5 off) or solid.
fn polyline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    path: Vec<(i32, i32)>,
    style: ShapeStyle,
    dashed: bool,
    scale: f64,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    if dashed {
        let (dash, gap) = ((8.0 * scale) as i32, (5.0 * scale) as i32);
        root.draw(&DashedPathElement::new(path, dash, gap, style))
    } else {
        root.draw(&PathElement::new(path, style))
    }
}

/// A filled marker centred at `c`.
fn marker<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (x, y): (i32, i32),
    shape: Shape,
    color: RGBColor,
    scale: f64,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let r = (MARKER_RADIUS * scale).round() as i32;
    let style = color.filled();
    match shape {
        Shape::Circle => root.draw(&Circle::new((x, y), r, style)),
        Shape::Square => root.draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], style)),
        Shape::Triangle => root.draw(&Polygon::new(
            vec![(x, y - r - 1), (x - r - 1, y + r), (x + r + 1, y + r)],
            style,
        )),
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
