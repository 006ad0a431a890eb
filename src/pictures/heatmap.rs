//! Heatmaps of a study on its board (`rally sim --heatmap MAP -o FILE`, and the report):
//! per square, a number per game drawn as a colour over the board picture, with a legend
//! and the number on hover. Counts use viridis, differences between two columns a
//! purple-to-orange diverging scale; both read for colour-blind eyes and in grey.
//!
//! The board underneath is the renderer's own ([`svg::board_layers`]); this module only
//! lays the colours and the legend over it.

use super::svg::{self, CELL, MARGIN};
use crate::board::Board;
use crate::game::study::{Column, Study};
use crate::game::tally::{square_of, Tally};
use crate::geometry::Pos;
use crate::script::RuleSet;
use crate::text::xml;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The maps `--heatmap` draws: the tally's (`tally::MAPS`), and `flags` (mean turns to reach each flag from
/// the robot's previous one, on the flag).
pub const NAMES: [&str; 5] = ["deaths", "damage", "visits", "ends", "flags"];

/// What a map's number means, for the legend and the hover titles.
fn unit(map: &str) -> &'static str {
    match map {
        "deaths" => "robots destroyed here per game",
        "damage" => "damage taken here per game",
        "visits" => "robots entering per game",
        "ends" => "robots ending a turn here per game",
        _ => "turns to reach this flag from the previous one",
    }
}

/// How the colours run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// From 0 (dark) up to the largest value (yellow): viridis.
    Counts,
    /// Below 0 purple, 0 white, above 0 orange, symmetric about 0: PuOr.
    Difference,
}

/// Viridis at nine stops (matplotlib's, 0 to 1).
const VIRIDIS: [(u8, u8, u8); 9] = [
    (68, 1, 84),
    (71, 44, 122),
    (59, 81, 139),
    (44, 113, 142),
    (33, 144, 141),
    (39, 173, 129),
    (92, 200, 99),
    (170, 220, 50),
    (253, 231, 37),
];

/// PuOr (ColorBrewer, 9 classes), purple (-1) through white (0) to orange (+1).
const PUOR: [(u8, u8, u8); 9] = [
    (84, 39, 136),
    (128, 115, 172),
    (178, 171, 210),
    (216, 218, 235),
    (247, 247, 247),
    (254, 224, 182),
    (253, 184, 99),
    (224, 130, 20),
    (179, 88, 6),
];

/// The colour at `t` (0..=1) along `stops`, interpolated.
fn along(stops: &[(u8, u8, u8)], t: f64) -> String {
    let t = t.clamp(0.0, 1.0) * (stops.len() - 1) as f64;
    let i = (t.floor() as usize).min(stops.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (stops[i], stops[i + 1]);
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// A value's colour on a scale whose extreme is `top` (> 0).
fn colour(scale: Scale, value: f64, top: f64) -> String {
    match scale {
        Scale::Counts => along(&VIRIDIS, value / top),
        Scale::Difference => along(&PUOR, 0.5 + value / (2.0 * top)),
    }
}

/// A number as the picture prints it: two significant decimals at most.
fn short(value: f64) -> String {
    let text = if value.abs() >= 10.0 {
        format!("{value:.0}")
    } else if value.abs() >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    };
    if text.starts_with("-0") && text.trim_start_matches(['-', '0', '.']).is_empty() {
        "0".into()
    } else {
        text
    }
}

/// The board with `values` (per square) coloured over it, a title above and a legend
/// below: a standalone SVG document. Squares without a value are left as they are.
pub fn picture(
    rules: &RuleSet,
    board: &Board,
    title: &str,
    values: &BTreeMap<Pos, f64>,
    scale: Scale,
    unit: &str,
) -> String {
    let title_height = 28;
    let legend_height = 56;
    // Wide enough for the title and the legend on a small board.
    let w = (board.width * CELL + 2 * MARGIN).max(480);
    let board_h = board.height * CELL + 2 * MARGIN;
    let h = title_height + board_h + legend_height;
    let top = values
        .values()
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    let mut out = String::new();
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"><rect width="{w}" height="{h}" fill="#f7f7f5"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="{MARGIN}" y="20" font-size="16" font-weight="bold" fill="#222">{}</text>"##,
        xml(title)
    );
    let _ = writeln!(out, r#"<g transform="translate(0,{title_height})">"#);
    out.push_str(&svg::board_layers(rules, board, &[]));
    out.push_str(r#"<g id="heat">"#);
    for (at, &value) in values {
        if !(0..board.width).contains(&at.x) || !(0..board.height).contains(&at.y) {
            continue;
        }
        let (x, y) = (MARGIN + at.x * CELL, MARGIN + at.y * CELL);
        let fill = colour(scale, value, top);
        let shown = short(value);
        let _ = write!(
            out,
            r##"<g><title>[{}, {}] · {} {}</title><rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" fill-opacity="0.78"/>"##,
            at.x,
            at.y,
            shown,
            xml(unit)
        );
        // The number on a white tab, legible over any colour.
        let _ = writeln!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="16" rx="3" fill="#fff" fill-opacity="0.85"/><text x="{}" y="{}" font-size="12" text-anchor="middle" fill="#111">{shown}</text></g>"##,
            x + CELL / 2 - 20,
            y + CELL / 2 - 11,
            40,
            x + CELL / 2,
            y + CELL / 2 + 1
        );
    }
    out.push_str("</g>\n</g>\n");
    // The legend: the scale as a bar, with its ends and the unit.
    let ly = title_height + board_h;
    let bar_w = (w - 2 * MARGIN).min(320);
    out.push_str(r#"<g id="legend">"#);
    let steps = 32;
    for i in 0..steps {
        let t = i as f64 / (steps - 1) as f64;
        let value = match scale {
            Scale::Counts => t * top,
            Scale::Difference => (2.0 * t - 1.0) * top,
        };
        let _ = write!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="12" fill="{}"/>"#,
            MARGIN as f64 + bar_w as f64 * i as f64 / steps as f64,
            ly + 4,
            bar_w as f64 / steps as f64 + 0.5,
            colour(scale, value, top)
        );
    }
    let (low, high) = match scale {
        Scale::Counts => (0.0, top),
        Scale::Difference => (-top, top),
    };
    let _ = writeln!(
        out,
        r##"<text x="{MARGIN}" y="{}" font-size="11" fill="#222">{}</text><text x="{}" y="{}" font-size="11" text-anchor="end" fill="#222">{}</text><text x="{MARGIN}" y="{}" font-size="12" fill="#222">{}</text></g>"##,
        ly + 30,
        short(low),
        MARGIN + bar_w,
        ly + 30,
        short(high),
        ly + 48,
        xml(unit)
    );
    out.push_str("</svg>\n");
    out
}

/// A map of one column: its value per square (per game; `flags`: mean turns, on each flag).
pub fn values(tally: &Tally, map: &str, board: &Board) -> BTreeMap<Pos, f64> {
    let games = tally.games.max(1) as f64;
    if map == "flags" {
        return board
            .flags()
            .iter()
            .filter_map(|&(number, at)| {
                let r = tally.flags.get(&number)?;
                (r.times > 0).then(|| (at, r.turns.sum as f64 / r.times as f64))
            })
            .collect();
    }
    tally
        .squares
        .get(map)
        .into_iter()
        .flatten()
        .filter_map(|(key, &n)| Some((square_of(key)?, n as f64 / games)))
        .collect()
}

/// One column's map, counts per game.
fn counts(column: &Column, map: &str, rules: &RuleSet, board: &Board) -> String {
    let title = format!("{map}: {} ({} games)", column.name, column.tally.games);
    let values = values(&column.tally, map, board);
    picture(rules, board, &title, &values, Scale::Counts, unit(map))
}

/// `other`'s map minus `first`'s (the same games, so what the change moved).
fn difference(first: &Column, other: &Column, map: &str, rules: &RuleSet, board: &Board) -> String {
    let a = values(&first.tally, map, board);
    let b = values(&other.tally, map, board);
    let mut difference = BTreeMap::new();
    for at in a.keys().chain(b.keys()) {
        let d = b.get(at).copied().unwrap_or(0.0) - a.get(at).copied().unwrap_or(0.0);
        difference.insert(*at, d);
    }
    let title = format!("{map}: {} − {}", other.name, first.name);
    let unit = format!("{} (difference)", unit(map));
    picture(rules, board, &title, &difference, Scale::Difference, &unit)
}

/// `rally sim --heatmap MAP`: the map of a one-column study, or with several columns the
/// last minus the first.
pub fn of_study(
    study: &Study,
    map: &str,
    rules: &RuleSet,
    board: &Board,
) -> Result<String, String> {
    if !NAMES.contains(&map) {
        return Err(format!(
            "--heatmap {map}: no such map; there are {}",
            NAMES.join(", ")
        ));
    }
    match study.columns.as_slice() {
        [] => Err("the study has no columns".into()),
        [only] => Ok(counts(only, map, rules, board)),
        [first, .., last] => Ok(difference(first, last, map, rules, board)),
    }
}

/// For the report, every map anything happened on: the first column's, then each other
/// column's difference with it. (title, SVG) each.
pub fn all(study: &Study, rules: &RuleSet, board: &Board) -> Vec<(String, String)> {
    let mut pictures = Vec::new();
    let Some((first, rest)) = study.columns.split_first() else {
        return pictures;
    };
    for map in NAMES {
        if study
            .columns
            .iter()
            .all(|c| values(&c.tally, map, board).is_empty())
        {
            continue;
        }
        pictures.push((
            format!("{map}: {}", first.name),
            counts(first, map, rules, board),
        ));
        for other in rest {
            pictures.push((
                format!("{map}: {} − {}", other.name, first.name),
                difference(first, other, map, rules, board),
            ));
        }
    }
    pictures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_run_from_end_to_end() {
        assert_eq!(colour(Scale::Counts, 0.0, 2.0), "#440154");
        assert_eq!(colour(Scale::Counts, 2.0, 2.0), "#fde725");
        assert_eq!(colour(Scale::Difference, 0.0, 1.0), "#f7f7f7");
        assert_eq!(colour(Scale::Difference, -1.0, 1.0), "#542788");
        assert_eq!(colour(Scale::Difference, 1.0, 1.0), "#b35806");
        assert_eq!(short(0.123), "0.12");
        assert_eq!(short(-0.001), "0");
        assert_eq!(short(12.4), "12");
    }
}
