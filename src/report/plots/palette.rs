//! Series colours: the Okabe-Ito palette, which stays distinct under the common forms of colour
//! blindness, without its yellow (too light on white), darkest first.

use plotters::style::RGBColor;

/// The colours in the order series get them. Series past the last one reuse the colours with
/// another marker shape and a dashed line ([`style_of`]).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x00, 0x00, 0x00), // black
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
];

/// A marker's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle, point up.
    Triangle,
}

/// How series `i` is drawn: its colour, marker shape, and whether its line is dashed (the
/// second and later rounds through the palette).
pub fn style_of(i: usize) -> (RGBColor, Shape, bool) {
    let round = i / PALETTE.len();
    let shape = [Shape::Circle, Shape::Square, Shape::Triangle][round % 3];
    (PALETTE[i % PALETTE.len()], shape, round % 2 == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG relative luminance contrast ratio against white.
    fn contrast_on_white(c: RGBColor) -> f64 {
        let channel = |v: u8| {
            let v = v as f64 / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        let l = 0.2126 * channel(c.0) + 0.7152 * channel(c.1) + 0.0722 * channel(c.2);
        1.05 / (l + 0.05)
    }

    #[test]
    fn every_colour_stands_out_on_white_and_no_two_series_look_alike() {
        // The old palette's yellow (255, 215, 0) had a contrast of 1.4: invisible in print.
        assert!(contrast_on_white(RGBColor(255, 215, 0)) < 1.5);
        for c in PALETTE {
            assert!(contrast_on_white(c) >= 2.0, "{c:?}");
        }
        let styles: Vec<_> = (0..2 * PALETTE.len()).map(style_of).collect();
        for (i, a) in styles.iter().enumerate() {
            assert!(!styles[i + 1..].contains(a), "series {i} repeats a style");
        }
    }
}
