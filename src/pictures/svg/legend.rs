//! The legend under a picture (`rally render --legend`): one sample of every kind of element
//! on the board, drawn as on the board and named ("express belt", "gear (clockwise)"), with
//! the element's description as its hover title, so a printed board explains itself.

use super::{draw_tile, Canvas, CELL, MARGIN, WALL};
use crate::board::{Board, Tile};
use crate::geometry::{Dir, Pos};
use crate::script::RuleSet;
use crate::text::xml;
use serde_json::Value;
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
    for tile in &board.tiles {
        let name = kind(tile);
        if tile.name != "floor" && !entries.iter().any(|(n, _)| *n == name) {
            entries.push((name, tile));
        }
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
    if tile.name == "wall" {
        // Walls are drawn from the board's edges; the sample shows one on the north side.
        canvas.put(
            super::Layer::Edges,
            Dir::N,
            &format!(
                r##"<rect class="wall" x="-2" y="-4" width="68" height="8" rx="2" fill="{WALL}" stroke="#222" stroke-width="1.5"/>"##
            ),
        );
    } else {
        draw_tile(rules, &tile, &mut canvas);
    }
    for layer in &canvas.layers {
        out.push_str(layer);
    }
    out
}

/// The kind of element a tile is, in words: its name, told apart where the board's pictures
/// tell them apart (express belts, the way a gear turns, two wrenches).
fn kind(tile: &Tile) -> String {
    let flag = |k: &str| tile.params.get(k).and_then(Value::as_bool) == Some(true);
    let text = |k: &str| tile.params.get(k).and_then(Value::as_str);
    match tile.name.as_str() {
        "conveyor" if flag("express") => "express belt".into(),
        "conveyor" => "belt".into(),
        "gear" if text("turn") == Some("left") => "gear (counter-clockwise)".into(),
        "gear" => "gear (clockwise)".into(),
        "repair" if tile.params.get("wrenches").and_then(Value::as_i64) >= Some(2) => {
            "repair site (2 wrenches)".into()
        }
        "repair" => "repair site".into(),
        "start" => "start dock".into(),
        name => name.replace('_', " "),
    }
}
