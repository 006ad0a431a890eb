//! The legend under a picture (`rally render --legend`): one sample of every kind of element
//! on the board, drawn as on the board and named ("express belt", "gear (clockwise)"), with
//! the element's description as its hover title, so a printed board explains itself.

use super::{draw_tile, parts, Canvas, CELL, MARGIN};
use crate::board::{Board, Tile};
use crate::geometry::Pos;
use crate::pictures::render;
use crate::script::RuleSet;
use crate::text::xml;
use std::fmt::Write;

/// How big a sample is drawn, and how much room a row and a character of a name take.
const SAMPLE: i32 = 40;
const ROW: i32 = SAMPLE + 8;
const CHAR_WIDTH: i32 = 7;
const HEADING: i32 = 22;

/// The legend for `board` in a picture `width` wide, placed `top` units down: its SVG and
/// its height.
pub fn legend(rules: &RuleSet, board: &Board, width: i32, top: i32) -> (String, i32) {
    let mut entries: Vec<(String, &Tile)> = Vec::new();
    // What tells entries apart: the caption a drawing declares, else the parts it draws.
    let mut seen: Vec<(String, String)> = Vec::new();
    for tile in &board.tiles {
        let Some(drawing) = &rules.elements[tile.element].draw else {
            if !seen.contains(&(tile.name.clone(), String::new())) {
                seen.push((tile.name.clone(), String::new()));
                entries.push((tile.name.replace('_', " "), tile));
            }
            continue;
        };
        // A named entry already listed needs no drawing made (most tiles of a board are).
        let caption = render::text_of(rules, tile, drawing.legend.as_ref(), "draw.legend");
        if let Some(c) = &caption {
            if seen.iter().any(|(n, k)| *n == tile.name && k == c) {
                continue;
            }
        }
        let drawn = parts::parts(rules, drawing, tile);
        if drawn.is_empty() {
            continue;
        }
        let key = match &caption {
            Some(c) => (tile.name.clone(), c.clone()),
            None => (tile.name.clone(), format!("{drawn:?}")),
        };
        if seen.contains(&key) {
            continue;
        }
        let name = caption.unwrap_or_else(|| {
            // A second drawing of an element that names none is told apart by its parameters.
            if seen.iter().any(|(n, _)| *n == tile.name) {
                let mut told = tile.clone();
                if let Some(turn) = &drawing.turn {
                    told.params.remove(turn);
                }
                super::describe(&told).replace('_', " ")
            } else {
                tile.name.replace('_', " ")
            }
        });
        seen.push(key);
        entries.push((name, tile));
    }
    // Columns as wide as the longest name needs, so no name runs into the next entry.
    let longest = entries.iter().map(|(n, _)| n.chars().count()).max();
    let entry_width = SAMPLE + 8 + longest.unwrap_or(0) as i32 * CHAR_WIDTH + 16;
    let columns = ((width - 2 * MARGIN) / entry_width).max(1) as usize;
    let rows = entries.len().div_ceil(columns) as i32;
    let height = HEADING + rows * ROW + MARGIN / 2;
    let mut out = format!(
        r##"<g id="legend" transform="translate(0,{top})"><text x="{MARGIN}" y="14" font-size="13" font-weight="bold" fill="#222">Legend</text>"##
    );
    for (i, (name, tile)) in entries.iter().enumerate() {
        let (column, row) = ((i % columns) as i32, (i / columns) as i32);
        let (x, y) = (MARGIN + column * entry_width, HEADING + row * ROW);
        let describe = &rules.elements[tile.element].describe;
        let _ = write!(
            out,
            r##"<g class="legend-entry"><title>{}</title><g transform="translate({x},{y}) scale({scale}) translate({m},{m})">{}</g><text x="{}" y="{}" font-size="12" fill="#222">{}</text></g>"##,
            xml(describe),
            sample(rules, tile),
            x + SAMPLE + 8,
            y + SAMPLE / 2 + 4,
            xml(name),
            scale = f64::from(SAMPLE) / f64::from(CELL),
            m = -MARGIN,
        );
    }
    out.push_str("</g>\n");
    (out, height)
}

/// One square with the tile drawn on it, at the board's first square.
fn sample(rules: &RuleSet, tile: &Tile) -> String {
    let mut canvas = Canvas::default();
    let at = Pos::new(0, 0);
    let tile = Tile { at, ..tile.clone() };
    let mut out = format!(
        r##"<rect x="{MARGIN}" y="{MARGIN}" width="{CELL}" height="{CELL}" fill="{}" stroke="#555"/>"##,
        super::FLOOR
    );
    draw_tile(rules, &tile, None, &mut canvas);
    for layer in &canvas.layers {
        out.push_str(layer);
    }
    out
}
