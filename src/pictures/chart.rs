//! Small SVG charts for a study (the report and `rally sim --trend`): a line with its 95%
//! interval band across the columns of a sweep, and bars with interval whiskers. Drawn
//! here as plain SVG, so a page that holds them needs nothing from the network.

use crate::text::xml;
use std::fmt::Write;

/// One point or bar: a value and its interval, if it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub value: f64,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// The size of every chart.
pub const WIDTH: f64 = 520.0;
pub const HEIGHT: f64 = 220.0;
const W: f64 = WIDTH;
const H: f64 = HEIGHT;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 46.0;
const INK: &str = "#0b5394";
const BAND: &str = "#9fc5e8";

/// The value range a chart shows: every value and interval end, with 0 when it is near.
fn range(points: &[Option<Point>], percent: bool) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for p in points.iter().flatten() {
        for v in [Some(p.value), p.low, p.high].into_iter().flatten() {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if lo > 0.0 && lo < (hi - lo) {
        lo = 0.0;
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    if lo >= 0.0 {
        // Counts, means of counts and rates are never below 0: neither is the axis.
        let high = if percent {
            (hi + pad).min(1.0)
        } else {
            hi + pad
        };
        return ((lo - pad).max(0.0), high);
    }
    if percent {
        // A rate lives in 0..=100%.
        return ((lo - pad).max(0.0), (hi + pad).min(1.0));
    }
    (lo - pad, hi + pad)
}

fn number(v: f64, percent: bool) -> String {
    if percent {
        format!("{:.0}%", 100.0 * v)
    } else if v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The frame of a chart: title, axis, three grid lines with their values, and labels
/// under each of `n` slots. Returns the SVG so far and a function from value to y.
fn frame(
    title: &str,
    labels: &[String],
    (lo, hi): (f64, f64),
    percent: bool,
) -> (String, impl Fn(f64) -> f64) {
    let y = move |v: f64| TOP + (H - TOP - BOTTOM) * (1.0 - (v - lo) / (hi - lo));
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"><rect width="{W}" height="{H}" fill="#fff"/><text x="{LEFT}" y="18" font-size="13" font-weight="bold" fill="#222">{}</text>"##,
        xml(title)
    );
    for i in 0..=2 {
        let v = lo + (hi - lo) * i as f64 / 2.0;
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT}" x2="{}" y1="{y0:.1}" y2="{y0:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" font-size="10" text-anchor="end" fill="#444">{}</text>"##,
            W - RIGHT,
            LEFT - 4.0,
            y(v) + 3.0,
            number(v, percent),
            y0 = y(v)
        );
    }
    let slot = (W - LEFT - RIGHT) / labels.len().max(1) as f64;
    for (i, label) in labels.iter().enumerate() {
        let x = LEFT + slot * (i as f64 + 0.5);
        let shown: String = label.chars().take((slot / 6.0).max(4.0) as usize).collect();
        let _ = writeln!(
            out,
            r##"<text x="{x:.1}" y="{}" font-size="10" text-anchor="middle" fill="#222"><title>{}</title>{}</text>"##,
            H - BOTTOM + 14.0,
            xml(label),
            xml(&shown)
        );
    }
    (out, y)
}

/// The x of slot `i` of `n`.
fn slot_x(i: usize, n: usize) -> f64 {
    let slot = (W - LEFT - RIGHT) / n.max(1) as f64;
    LEFT + slot * (i as f64 + 0.5)
}

/// A line through `points` (one per label) with the band of their intervals.
pub fn line(title: &str, labels: &[String], points: &[Option<Point>], percent: bool) -> String {
    let (mut out, y) = frame(title, labels, range(points, percent), percent);
    let n = labels.len();
    let band: Vec<(f64, f64, f64)> = points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let p = (*p)?;
            Some((slot_x(i, n), y(p.low?), y(p.high?)))
        })
        .collect();
    if band.len() > 1 {
        let mut path = String::new();
        for (i, (x, _, top)) in band.iter().enumerate() {
            let _ = write!(path, "{}{x:.1},{top:.1} ", if i == 0 { "M" } else { "L" });
        }
        for (x, bottom, _) in band.iter().rev() {
            let _ = write!(path, "L{x:.1},{bottom:.1} ");
        }
        let _ = writeln!(
            out,
            r#"<path d="{}Z" fill="{BAND}" fill-opacity="0.6"/>"#,
            path
        );
    }
    let mut path = String::new();
    for (i, p) in points.iter().enumerate() {
        if let Some(p) = p {
            let _ = write!(
                path,
                "{}{:.1},{:.1} ",
                if path.is_empty() { "M" } else { "L" },
                slot_x(i, n),
                y(p.value)
            );
        }
    }
    let _ = writeln!(
        out,
        r#"<path d="{path}" fill="none" stroke="{INK}" stroke-width="2"/>"#
    );
    for (i, p) in points.iter().enumerate() {
        if let Some(p) = p {
            let _ = writeln!(
                out,
                r##"<circle cx="{:.1}" cy="{:.1}" r="3.5" fill="{INK}"><title>{}: {}{}</title></circle>"##,
                slot_x(i, n),
                y(p.value),
                xml(&labels[i]),
                number(p.value, percent),
                interval(p, percent)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

fn interval(p: &Point, percent: bool) -> String {
    match (p.low, p.high) {
        (Some(l), Some(h)) => format!(" [{}, {}]", number(l, percent), number(h, percent)),
        _ => String::new(),
    }
}

/// A bar per label, with a whisker for its interval when it has one.
pub fn bars(title: &str, labels: &[String], points: &[Option<Point>], percent: bool) -> String {
    let (lo, hi) = range(points, percent);
    let lo = lo.min(0.0);
    let (mut out, y) = frame(title, labels, (lo, hi), percent);
    let n = labels.len();
    let width = ((W - LEFT - RIGHT) / n.max(1) as f64 * 0.6).min(48.0);
    for (i, p) in points.iter().enumerate() {
        let Some(p) = p else { continue };
        let x = slot_x(i, n);
        let (top, base) = (y(p.value.max(0.0)), y(p.value.min(0.0)));
        let _ = writeln!(
            out,
            r##"<rect x="{:.1}" y="{top:.1}" width="{width:.1}" height="{:.1}" fill="{BAND}" stroke="{INK}"><title>{}: {}{}</title></rect>"##,
            x - width / 2.0,
            (base - top).max(0.5),
            xml(&labels[i]),
            number(p.value, percent),
            interval(p, percent)
        );
        if let (Some(l), Some(h)) = (p.low, p.high) {
            let _ = writeln!(
                out,
                r#"<path d="M{x:.1},{:.1}V{:.1}M{:.1},{:.1}h10M{:.1},{:.1}h10" stroke="{INK}" stroke-width="1.5"/>"#,
                y(l),
                y(h),
                x - 5.0,
                y(l),
                x - 5.0,
                y(h)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_its_band_and_a_point_per_value() {
        let p = |v: f64| {
            Some(Point {
                value: v,
                low: Some(v - 0.1),
                high: Some(v + 0.1),
            })
        };
        let labels: Vec<String> = ["2", "3", "4"].map(String::from).to_vec();
        let svg = line("finish rate", &labels, &[p(0.5), p(0.6), None], true);
        assert_eq!(svg.matches("<circle").count(), 2);
        assert!(svg.contains(r#"fill-opacity="0.6""#), "the band");
        assert!(svg.contains("3: 60% [50%, 70%]"), "{svg}");
        let svg = bars("wins", &labels, &[p(0.2), p(0.3), p(0.5)], true);
        assert_eq!(svg.matches("<rect x=").count(), 3);
    }
}
