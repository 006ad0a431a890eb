//! Top-down SVG pictures of a board and its robots (`rally render`, the HTML replay viewer).
//!
//! Every standard, expansion and Ice Rink element has a drawing here, chosen by element name
//! and drawn from its parameters, so a picture reads like the printed board: belts with
//! arrows (express ones blue, with double chevrons), curves, gears, pushers and crushers with
//! their active registers, lasers with their beams, walls, pits, numbered flags, repair sites
//! with their wrenches. Elements are drawn in layers (floor, belts, fixtures, beams, edges,
//! labels, robots) so that a beam crosses a belt and a wall covers a beam's end.
//!
//! An element the renderer does not know is still drawn: from its script's `draw = { ... }`
//! declaration if it has one, else as a labelled fallback square (class `fallback`) that says
//! its glyph, so a designer's new element is never invisible. Walls are drawn from the
//! compiled board's blocking facts, so a script that declares walls in `build` gets them drawn.
//!
//! The picture is plain text built with `format!`: the output is deterministic, diffable in
//! snapshot tests, and needs no SVG library; PNG output goes through resvg ([`to_png`]).

use crate::board::{Board, Tile};
use crate::geometry::{Dir, Pos};
use crate::pictures::render;
use crate::script::decl::Shape;
use crate::script::RuleSet;
use crate::state::Robot;
use crate::text::xml;
use crate::world;

mod legend;
#[cfg(feature = "png")]
mod png;
mod robots;

#[cfg(feature = "png")]
pub use png::to_png;
pub use robots::{robot_color, robots_layer};
use serde_json::Value;
use std::fmt::Write;

/// Side of a square, in SVG user units.
pub const CELL: i32 = 64;
/// Room around the board for the coordinates.
pub const MARGIN: i32 = 24;

const FONT: &str = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
const FLOOR: &str = "#c9ccd1";
const BELT: &str = "#e0b43a";
const EXPRESS: &str = "#3578d4";
const WATER: &str = "#5aa9e6";
const WALL: &str = "#f2c200";
const BEAM: &str = "#ff2a2a";

/// How an element gets its picture; [`look`] tells, the tests check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// A drawing of the renderer's own.
    Builtin,
    /// Drawn from the compiled board's walls (the `wall` element).
    Edges,
    /// From the script's `draw = { ... }` declaration.
    Declared,
    /// The labelled fallback square: nobody said how to draw it.
    Fallback,
}

/// The drawing layers, bottom to top.
#[derive(Clone, Copy)]
enum Layer {
    Ground,
    Belts,
    Fixtures,
    Beams,
    Edges,
    Labels,
}
const LAYERS: usize = 6;

/// How a tile is drawn: a declared look wins (a designer's or variant's choice), then the
/// built-in drawing for the element's name, then the fallback.
pub fn look(rules: &RuleSet, tile: &Tile) -> Look {
    if rules.elements[tile.element].draw.is_some() {
        Look::Declared
    } else if tile.name == "wall" {
        Look::Edges
    } else if builtin(tile, &mut Canvas::default()) {
        Look::Builtin
    } else {
        Look::Fallback
    }
}

/// Options for a picture.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A title above the board (none: no title row).
    pub title: Option<String>,
    /// A legend under the board: a sample of every kind of element on it, named.
    pub legend: bool,
}

/// A board alone, titled with its name (what `rally render BOARD` draws).
pub fn board_picture(rules: &RuleSet, board: &Board) -> String {
    let opts = Options {
        title: Some(board.name.clone()),
        ..Options::default()
    };
    picture(rules, board, &[], &opts)
}

/// The board with `robots` on it, as a standalone SVG document. The board's group carries
/// hover titles for its squares (`#squares`); robots are in `#robots` with theirs.
pub fn picture(rules: &RuleSet, board: &Board, robots: &[Robot], opts: &Options) -> String {
    let title_height = if opts.title.is_some() { 28 } else { 0 };
    let w = board.width * CELL + 2 * MARGIN;
    let legend = opts
        .legend
        .then(|| legend::legend(rules, board, w, board.height * CELL + 2 * MARGIN));
    let legend_height = legend.as_ref().map_or(0, |(_, h)| *h);
    let h = board.height * CELL + 2 * MARGIN + title_height + legend_height;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="{FONT}" data-cell="{CELL}" data-margin="{MARGIN}">"#
    );
    out.push('\n');
    let _ = writeln!(out, r##"<rect width="{w}" height="{h}" fill="#f7f7f5"/>"##);
    if let Some(title) = &opts.title {
        let _ = writeln!(
            out,
            r##"<text x="{MARGIN}" y="20" font-size="16" font-weight="bold" fill="#222">{}</text>"##,
            xml(title)
        );
    }
    let _ = writeln!(out, r#"<g transform="translate(0,{title_height})">"#);
    out.push_str(&board_layers(rules, board, robots));
    out.push_str(&square_titles(board));
    let _ = writeln!(out, r#"<g id="robots">{}</g>"#, robots_layer(robots));
    if let Some((legend, _)) = legend {
        out.push_str(&legend);
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// Everything but the robots: the grid, the coordinates and every element, in layers. Board
/// lasers' beams stop at the first of `robots` in their way, as they do when they fire; they
/// are in the group `#beams`, which a page's drawing module redraws for each frame.
pub fn board_layers(rules: &RuleSet, board: &Board, robots: &[Robot]) -> String {
    let mut out = String::new();
    let (bw, bh) = (board.width * CELL, board.height * CELL);
    let _ = writeln!(
        out,
        r##"<g id="board"><rect x="{MARGIN}" y="{MARGIN}" width="{bw}" height="{bh}" fill="{FLOOR}" stroke="#555" stroke-width="2"/>"##
    );
    // The grid and the coordinates, as printed boards have them.
    for x in 0..board.width {
        let px = MARGIN + x * CELL;
        if x > 0 {
            let _ = writeln!(
                out,
                r##"<line x1="{px}" y1="{MARGIN}" x2="{px}" y2="{}" stroke="#9a9ea5" stroke-width="1"/>"##,
                MARGIN + bh
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" font-size="11" fill="#666" text-anchor="middle">{x}</text>"##,
            px + CELL / 2,
            MARGIN - 8
        );
    }
    for y in 0..board.height {
        let py = MARGIN + y * CELL;
        if y > 0 {
            let _ = writeln!(
                out,
                r##"<line x1="{MARGIN}" y1="{py}" x2="{}" y2="{py}" stroke="#9a9ea5" stroke-width="1"/>"##,
                MARGIN + bw
            );
        }
        let _ = writeln!(
            out,
            r##"<text x="{}" y="{}" font-size="11" fill="#666" text-anchor="middle">{y}</text>"##,
            MARGIN / 2,
            py + CELL / 2 + 4
        );
    }

    let mut canvas = Canvas::default();
    for tile in &board.tiles {
        canvas.at = tile.at;
        draw_tile(rules, tile, &mut canvas);
        if tile.name == "laser" {
            beam(board, robots, tile, &mut canvas);
        }
    }
    seams(board, &mut canvas);
    walls(board, &mut canvas);
    for (i, layer) in canvas.layers.iter().enumerate() {
        if i == Layer::Beams as usize {
            let _ = writeln!(out, r#"<g id="beams">{layer}</g>"#);
        } else {
            out.push_str(layer);
        }
    }
    out.push_str("</g>\n");
    out
}

/// The robots' colours, in the order they are listed.
const PALETTE: [&str; 8] = [
    "#d6372e", "#2f6fd0", "#2e9e4f", "#8e44ad", "#e67e22", "#16a2a2", "#c2185b", "#6d5d2e",
];

/// Draws one tile as its look says (`canvas.at` is its square).
fn draw_tile(rules: &RuleSet, tile: &Tile, canvas: &mut Canvas) {
    match look(rules, tile) {
        Look::Builtin => {
            builtin(tile, canvas);
        }
        Look::Edges => {}
        Look::Declared => declared(rules, tile, canvas),
        Look::Fallback => fallback(rules, tile, canvas),
    }
}

/// A hover title for every square with something on it, on an invisible square above the
/// board: "[3,2] · conveyor (dir E, express) · wall (side N)".
fn square_titles(board: &Board) -> String {
    let mut out = String::from("<g id=\"squares\" fill=\"transparent\">");
    for y in 0..board.height {
        for x in 0..board.width {
            let at = Pos::new(x, y);
            let tiles: Vec<String> = board
                .tiles_at(at)
                .iter()
                .map(|&t| &board.tiles[t])
                .filter(|t| t.name != "floor")
                .map(describe)
                .collect();
            if tiles.is_empty() {
                continue;
            }
            let (px, py) = origin(at);
            let _ = write!(
                out,
                r#"<rect x="{px}" y="{py}" width="{CELL}" height="{CELL}"><title>{}</title></rect>"#,
                xml(&format!("{at} · {}", tiles.join(" · ")))
            );
        }
    }
    out.push_str("</g>\n");
    out
}

/// A tile in words: its element and parameters, "pusher (dir S, phases 2 4)".
fn describe(tile: &Tile) -> String {
    let params: Vec<String> = tile
        .params
        .iter()
        .filter_map(|(k, v)| match v {
            Value::Bool(false) | Value::Null => None,
            Value::Bool(true) => Some(k.clone()),
            Value::String(s) => Some(format!("{k} {s}")),
            Value::Array(items) => {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), String::from))
                    .collect();
                Some(format!("{k} {}", items.join(" ")))
            }
            other => Some(format!("{k} {other}")),
        })
        .collect();
    if params.is_empty() {
        tile.name.clone()
    } else {
        format!("{} ({})", tile.name, params.join(", "))
    }
}

/// Where the boards of a course meet: each board's outline, drawn under the walls, with its
/// name as a hover title.
fn seams(board: &Board, c: &mut Canvas) {
    for part in &board.parts {
        let (x, y) = origin(part.at);
        let _ = writeln!(
            c.layers[Layer::Edges as usize],
            r##"<rect class="seam" x="{x}" y="{y}" width="{}" height="{}" fill="none" stroke="#2b2d31" stroke-width="4"><title>{} at {}</title></rect>"##,
            part.width * CELL,
            part.height * CELL,
            xml(&part.name),
            part.at
        );
    }
}

/// Where drawings go while a board is drawn: one buffer per layer, and the square being drawn.
struct Canvas {
    layers: [String; LAYERS],
    at: Pos,
}

impl Default for Canvas {
    fn default() -> Canvas {
        Canvas {
            layers: Default::default(),
            at: Pos::new(0, 0),
        }
    }
}

impl Canvas {
    /// `inner`, drawn for a tile pointing north, placed on the square and turned to `dir`.
    fn put(&mut self, layer: Layer, dir: Dir, inner: &str) {
        let (x, y) = origin(self.at);
        let deg = degrees(dir);
        let turn = if deg == 0 {
            String::new()
        } else {
            format!(" rotate({deg} 32 32)")
        };
        let _ = writeln!(
            self.layers[layer as usize],
            r#"<g transform="translate({x},{y}){turn}">{inner}</g>"#
        );
    }

    /// The registers a device is active on, written across the square (or `all`).
    fn phases_label(&mut self, tile: &Tile, all: &str) {
        let text = phases_text(tile).unwrap_or_else(|| all.into());
        self.label(Dir::N, 32.0, 32.0, 11, "#fff", &text);
    }

    /// Upright dark text on a white tab centred on point (`cx`, `cy`) of a north-pointing
    /// tile turned to `dir`: a small label that stays readable over any drawing.
    fn badge(&mut self, dir: Dir, cx: f64, cy: f64, text: &str) {
        let (x, y) = self.turned(dir, cx, cy);
        let width = text.chars().count() as f64 * 6.4 + 6.0;
        let _ = writeln!(
            self.layers[Layer::Labels as usize],
            r##"<rect x="{}" y="{}" width="{width}" height="13" rx="3" fill="#fff" stroke="#333" stroke-width="1"/><text x="{x}" y="{}" font-size="10" font-weight="bold" fill="#111" text-anchor="middle">{}</text>"##,
            x - width / 2.0,
            y - 6.5,
            y + 3.5,
            xml(text)
        );
    }

    /// Where point (`cx`, `cy`) of a north-pointing tile turned to `dir` lies on the picture.
    fn turned(&self, dir: Dir, cx: f64, cy: f64) -> (f64, f64) {
        let (mut dx, mut dy) = (cx - 32.0, cy - 32.0);
        for _ in 0..dir.index() {
            (dx, dy) = (-dy, dx);
        }
        let (x, y) = origin(self.at);
        (f64::from(x) + 32.0 + dx, f64::from(y) + 32.0 + dy)
    }

    /// Upright text centred on point (`cx`, `cy`) of a north-pointing tile turned to `dir`
    /// (labels never turn upside down with their element). Text that would be wider than the
    /// square (a script's long `draw.label`, a long element name) is squeezed to fit it
    /// rather than spill into its neighbours.
    fn label(&mut self, dir: Dir, cx: f64, cy: f64, size: u32, fill: &str, text: &str) {
        /// Bold text is about this many ems wide per character, on average.
        const EM_PER_CHAR: f64 = 0.6;
        let (x, y) = self.turned(dir, cx, cy);
        let room = f64::from(CELL) - 4.0;
        let wide = text.chars().count() as f64 * f64::from(size) * EM_PER_CHAR > room;
        let fit = if wide {
            format!(r#" textLength="{room}" lengthAdjust="spacingAndGlyphs""#)
        } else {
            String::new()
        };
        let _ = writeln!(
            self.layers[Layer::Labels as usize],
            r#"<text x="{x}" y="{}" font-size="{size}" font-weight="bold" fill="{fill}" text-anchor="middle"{fit}>{}</text>"#,
            y + f64::from(size) * 0.35,
            xml(text)
        );
    }
}

fn origin(p: Pos) -> (i32, i32) {
    (MARGIN + p.x * CELL, MARGIN + p.y * CELL)
}

fn degrees(d: Dir) -> i32 {
    d.index() as i32 * 90
}

// --- Reading parameters (checked by the board compiler; absent optional ones are None) ------

fn dir_param(tile: &Tile, key: &str) -> Option<Dir> {
    tile.params.get(key)?.as_str().and_then(Dir::parse)
}

fn str_param<'a>(tile: &'a Tile, key: &str) -> Option<&'a str> {
    tile.params.get(key)?.as_str()
}

fn int_param(tile: &Tile, key: &str) -> Option<i64> {
    tile.params.get(key)?.as_i64()
}

/// `phases = [1, 3, 5]` as "1 3 5"; nothing when it acts in every register.
fn phases_text(tile: &Tile) -> Option<String> {
    let phases: Vec<i64> = tile
        .params
        .get("phases")?
        .as_array()?
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    (phases.len() < 5).then(|| {
        phases
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The side an edge element sits on (`side`, else the first of `sides`).
fn side_param(tile: &Tile) -> Option<Dir> {
    dir_param(tile, "side").or_else(|| {
        tile.params
            .get("sides")?
            .as_array()?
            .first()?
            .as_str()
            .and_then(Dir::parse)
    })
}

// --- The drawings ------------------------------------------------------------------------
//
// Each is drawn in a 64×64 square for the element pointing north (its `dir` up, or its
// `side` the north edge) and turned into place by `Canvas::put`.

/// Draws a tile with the renderer's own drawing; false if there is none for its name.
fn builtin(tile: &Tile, c: &mut Canvas) -> bool {
    let dir = dir_param(tile, "dir").unwrap_or(Dir::N);
    match tile.name.as_str() {
        "floor" | "wall" => {}
        "pit" => c.put(Layer::Ground, Dir::N, PIT),
        "conveyor" => {
            let express = tile.params.get("express").and_then(Value::as_bool) == Some(true);
            conveyor(tile, dir, if express { Belt::Express } else { Belt::Normal }, c)
        }
        // The gold-belts variant's three-square belt.
        "gold_belt" => conveyor(tile, dir, Belt::Gold, c),
        "gear" => {
            let left = str_param(tile, "turn") == Some("left");
            let (fill, mirror) = if left {
                ("#c62f2f", r#" transform="translate(64,0) scale(-1,1)""#)
            } else {
                ("#2f9a46", "")
            };
            c.put(
                Layer::Fixtures,
                Dir::N,
                &format!(
                    r##"<circle cx="32" cy="32" r="23" fill="none" stroke="{fill}" stroke-width="8" stroke-dasharray="6 5.2"/><circle cx="32" cy="32" r="20" fill="{fill}" stroke="#222" stroke-width="1.5"/><g{mirror}><path d="M20,32 A12,12 0 1 1 32,44" fill="none" stroke="#fff" stroke-width="4"/><polygon points="32,37 32,51 24,44" fill="#fff"/></g>"##
                ),
            );
        }
        "pusher" => {
            c.put(
                Layer::Fixtures,
                dir,
                r##"<rect x="4" y="52" width="56" height="10" fill="#f2c200" stroke="#333" stroke-width="1.5"/><rect x="27" y="34" width="10" height="18" fill="#888" stroke="#333"/><rect x="12" y="28" width="40" height="7" fill="#f2c200" stroke="#333" stroke-width="1.5"/><path d="M32,24 L32,10 M25,16 L32,9 L39,16" fill="none" stroke="#333" stroke-width="3"/>"##,
            );
            // On the piston, clear of the edge (and any wall) behind the pusher.
            if let Some(p) = phases_text(tile) {
                c.badge(dir, 32.0, 43.0, &p);
            }
        }
        "crusher" => {
            c.put(
                Layer::Fixtures,
                Dir::N,
                r##"<rect x="4" y="4" width="56" height="56" fill="#6c6f75" stroke="#222" stroke-width="2"/><path d="M4,4 L12,20 L20,4 L28,20 L36,4 L44,20 L52,4 L60,20 L60,4 Z M4,60 L12,44 L20,60 L28,44 L36,60 L44,44 L52,60 L60,44 L60,60 Z" fill="#d9d9d9" stroke="#222"/>"##,
            );
            c.phases_label(tile, "crush");
        }
        "laser" => {
            let strength = int_param(tile, "strength").unwrap_or(1);
            let dots: String = (0..strength)
                .map(|i| {
                    format!(
                        r##"<circle cx="{}" cy="60" r="2" fill="#ffcc00"/>"##,
                        32 - 5 * (strength - 1) + 10 * i
                    )
                })
                .collect();
            c.put(
                Layer::Edges,
                dir,
                &format!(
                    r##"<rect x="18" y="50" width="28" height="13" rx="2" fill="#444" stroke="#111"/><circle cx="32" cy="50" r="6" fill="{BEAM}" stroke="#111"/>{dots}"##
                ),
            );
        }
        "flag" => {
            c.put(
                Layer::Fixtures,
                Dir::N,
                r##"<circle cx="32" cy="32" r="26" fill="#fff" stroke="#222" stroke-width="2"/><line x1="20" y1="12" x2="20" y2="52" stroke="#222" stroke-width="3"/><polygon points="21,12 46,19 21,27" fill="#e03a2f" stroke="#222"/>"##,
            );
            let n = int_param(tile, "number").unwrap_or(0);
            c.label(Dir::N, 37.0, 41.0, 20, "#111", &n.to_string());
        }
        "repair" => {
            let two = int_param(tile, "wrenches").unwrap_or(1) >= 2;
            let wrench = |deg: i32| {
                format!(
                    r##"<g transform="rotate({deg} 32 32)"><rect x="29" y="20" width="6" height="30" rx="2" fill="#fff"/><circle cx="32" cy="19" r="8" fill="#fff"/><rect x="29" y="9" width="6" height="10" fill="#2456a6"/></g>"##
                )
            };
            let wrenches = if two {
                wrench(-40) + &wrench(40)
            } else {
                wrench(45)
            };
            c.put(
                Layer::Fixtures,
                Dir::N,
                &format!(
                    r##"<circle cx="32" cy="32" r="26" fill="#2456a6" stroke="#111" stroke-width="2"/>{wrenches}"##
                ),
            );
            if two {
                c.badge(Dir::N, 49.0, 50.0, "×2");
            }
        }
        "start" => {
            c.put(
                Layer::Ground,
                Dir::N,
                r##"<rect x="5" y="5" width="54" height="54" rx="6" fill="#d8ecd8" stroke="#2e8b3e" stroke-width="3" stroke-dasharray="7 4"/>"##,
            );
            let n = int_param(tile, "number").unwrap_or(0);
            c.label(Dir::N, 32.0, 32.0, 22, "#2e8b3e", &n.to_string());
        }
        // --- Expansion elements (rules.md §4) ---
        "one_way_wall" => {
            let side = side_param(tile).unwrap_or(Dir::N);
            // The arrow shows the way robots and lasers may cross the edge.
            let arrow = if str_param(tile, "pass") == Some("in") {
                "M32,4 L32,20 M26,14 L32,20 L38,14"
            } else {
                "M32,20 L32,4 M26,10 L32,4 L38,10"
            };
            c.put(
                Layer::Edges,
                side,
                &format!(
                    r##"<rect x="0" y="-2" width="64" height="7" fill="#ff8c1a" stroke="#222" stroke-dasharray="8 3"/><path d="{arrow}" fill="none" stroke="#b35a00" stroke-width="3"/>"##
                ),
            );
        }
        "water" => c.put(Layer::Ground, Dir::N, &water("")),
        "current" => c.put(
            Layer::Ground,
            dir,
            &water(r##"<path d="M32,52 L32,14 M22,24 L32,12 L42,24" fill="none" stroke="#fff" stroke-width="4"/>"##),
        ),
        "drain" => c.put(
            Layer::Ground,
            Dir::N,
            &water(r##"<circle cx="32" cy="32" r="12" fill="#1b3f66"/><path d="M32,20 A12,12 0 0 1 44,32 M32,44 A12,12 0 0 1 20,32" fill="none" stroke="#fff" stroke-width="2.5"/>"##),
        ),
        "flamer" => {
            c.put(
                Layer::Fixtures,
                dir,
                r##"<rect x="4" y="4" width="56" height="56" fill="#5a2b1a" opacity="0.25"/><path d="M32,8 C44,22 48,30 46,42 C44,54 20,54 18,42 C16,32 24,28 26,18 C30,26 32,28 34,30 C36,22 34,16 32,8 Z" fill="#ff6a00" stroke="#8a2500" stroke-width="2"/><path d="M32,30 C38,38 40,44 36,50 C32,54 26,50 26,44 C26,40 30,38 32,30 Z" fill="#ffd000"/>"##,
            );
            if let Some(p) = phases_text(tile) {
                c.badge(Dir::N, 32.0, 47.0, &p);
            }
        }
        "ledge" => {
            let side = side_param(tile).unwrap_or(Dir::N);
            c.put(
                Layer::Edges,
                side,
                r##"<rect x="0" y="0" width="64" height="8" fill="#7a4b22" stroke="#222"/><path d="M8,8 L14,16 L20,8 M26,8 L32,16 L38,8 M44,8 L50,16 L56,8" fill="none" stroke="#7a4b22" stroke-width="2.5"/>"##,
            );
        }
        "ramp" => {
            let up = dir_param(tile, "up").unwrap_or(Dir::N);
            c.put(
                Layer::Ground,
                up,
                r##"<defs><linearGradient id="ramp-shade" x1="0" y1="1" x2="0" y2="0"><stop offset="0" stop-color="#a58a6a"/><stop offset="1" stop-color="#e6d3b5"/></linearGradient></defs><rect x="2" y="2" width="60" height="60" fill="url(#ramp-shade)" stroke="#6b5339"/><path d="M18,30 L32,16 L46,30 M18,48 L32,34 L46,48" fill="none" stroke="#6b5339" stroke-width="4"/>"##,
            );
        }
        "oil" => c.put(
            Layer::Ground,
            Dir::N,
            r##"<path d="M14,30 C8,18 24,8 34,14 C44,6 58,18 50,30 C60,40 48,56 36,50 C26,58 8,50 14,40 C8,36 10,32 14,30 Z" fill="#1a1a1a"/><ellipse cx="26" cy="24" rx="7" ry="3" fill="#777" opacity="0.8"/>"##,
        ),
        "portal" => {
            let color = str_param(tile, "color").unwrap_or("purple");
            // Colour names come from boards: only plain CSS names go into the picture.
            let fill = if color.chars().all(|ch| ch.is_ascii_alphabetic()) {
                color
            } else {
                "purple"
            };
            c.put(
                Layer::Fixtures,
                Dir::N,
                &format!(
                    r##"<circle cx="32" cy="32" r="25" fill="#111"/><circle cx="32" cy="32" r="21" fill="none" stroke="{fill}" stroke-width="6"/><circle cx="32" cy="32" r="11" fill="none" stroke="{fill}" stroke-width="3" opacity="0.7"/>"##
                ),
            );
            c.label(Dir::N, 32.0, 32.0, 9, "#fff", color);
        }
        "teleporter" => {
            c.put(
                Layer::Fixtures,
                Dir::N,
                r##"<circle cx="32" cy="32" r="26" fill="#3b1f5c" stroke="#111" stroke-width="2"/><circle cx="32" cy="32" r="19" fill="none" stroke="#c77dff" stroke-width="3"/><circle cx="32" cy="32" r="11" fill="none" stroke="#c77dff" stroke-width="3"/>"##,
            );
            c.label(Dir::N, 32.0, 32.0, 13, "#fff", "T");
        }
        "randomizer" => {
            c.put(
                Layer::Fixtures,
                Dir::N,
                r##"<rect x="6" y="6" width="26" height="26" fill="#e74c3c"/><rect x="32" y="6" width="26" height="26" fill="#3498db"/><rect x="6" y="32" width="26" height="26" fill="#2ecc71"/><rect x="32" y="32" width="26" height="26" fill="#f1c40f"/><rect x="6" y="6" width="52" height="52" fill="none" stroke="#111" stroke-width="2"/>"##,
            );
            c.label(Dir::N, 32.0, 32.0, 28, "#fff", "?");
        }
        "repulsor" => {
            let side = side_param(tile).unwrap_or(Dir::N);
            c.put(
                Layer::Edges,
                side,
                r##"<rect x="0" y="0" width="64" height="5" fill="#1fb5c9"/><path d="M2,10 L10,4 L18,12 L26,4 L34,12 L42,4 L50,12 L58,4 L62,8" fill="none" stroke="#1fb5c9" stroke-width="2.5"/>"##,
            );
        }
        "radiation" => {
            c.put(
                Layer::Ground,
                Dir::N,
                r##"<rect x="2" y="2" width="60" height="60" fill="#f4e04d" opacity="0.85"/><circle cx="32" cy="32" r="4" fill="#111"/><path d="M32,32 L46,24 A16,16 0 0 0 18,24 Z M32,32 L18,40 A16,16 0 0 0 32,48 Z M32,32 L32,48 A16,16 0 0 0 46,40 Z" fill="#111" transform="rotate(30 32 32)"/>"##,
            );
        }
        "waste" => {
            c.put(
                Layer::Fixtures,
                Dir::N,
                r##"<rect x="18" y="12" width="28" height="40" rx="4" fill="#4caf50" stroke="#1b5e20" stroke-width="2"/><rect x="18" y="22" width="28" height="4" fill="#1b5e20"/><rect x="18" y="38" width="28" height="4" fill="#1b5e20"/><ellipse cx="32" cy="12" rx="14" ry="3" fill="#a5d6a7" stroke="#1b5e20"/><path d="M8,56 C14,50 20,60 28,56 C36,52 44,60 56,55" fill="none" stroke="#7cff4f" stroke-width="3"/>"##,
            );
        }
        "trapdoor" => {
            c.put(
                Layer::Ground,
                Dir::N,
                r##"<rect x="4" y="4" width="56" height="56" fill="#111"/><rect x="6" y="6" width="25" height="52" fill="#5d5d5d" stroke="#e0b43a" stroke-width="2"/><rect x="33" y="6" width="25" height="52" fill="#5d5d5d" stroke="#e0b43a" stroke-width="2"/>"##,
            );
            c.phases_label(tile, "trap");
        }
        "chop_shop" => {
            c.put(
                Layer::Fixtures,
                Dir::N,
                r##"<rect x="4" y="4" width="56" height="56" fill="#3a3a3a" stroke="#111" stroke-width="2"/><path d="M4,14 L14,4 M4,30 L30,4 M4,46 L46,4 M4,60 L60,4 M18,60 L60,18 M34,60 L60,34 M50,60 L60,50" stroke="#e0b43a" stroke-width="3"/><circle cx="32" cy="32" r="14" fill="#3a3a3a" stroke="#fff" stroke-width="2"/>"##,
            );
            c.label(Dir::N, 32.0, 32.0, 9, "#fff", "SHOP");
        }
        // --- Ice Rink (rules.md §4.29–4.31, §8) ---
        "ice" => c.put(
            Layer::Ground,
            Dir::N,
            r##"<rect x="0" y="0" width="64" height="64" fill="#dff4ff"/><path d="M8,20 L22,12 M36,50 L54,40 M30,26 L44,20" stroke="#fff" stroke-width="3"/><path d="M10,44 L20,38" stroke="#a9d8f0" stroke-width="2"/>"##,
        ),
        "snow" => c.put(
            Layer::Ground,
            Dir::N,
            r##"<rect x="0" y="0" width="64" height="64" fill="#fbfbfb"/><g fill="#c9d3dc"><circle cx="12" cy="14" r="2.5"/><circle cx="40" cy="10" r="2"/><circle cx="26" cy="30" r="2.5"/><circle cx="52" cy="28" r="2"/><circle cx="14" cy="48" r="2"/><circle cx="44" cy="50" r="2.5"/></g>"##,
        ),
        "ice_hole" => c.put(
            Layer::Ground,
            Dir::N,
            r##"<rect x="0" y="0" width="64" height="64" fill="#dff4ff"/><path d="M14,30 C10,16 30,8 42,14 C56,18 58,38 48,48 C38,58 16,54 14,30 Z" fill="#0b2e4f" stroke="#fff" stroke-width="3"/>"##,
        ),
        _ => return false,
    }
    true
}

const PIT: &str = r##"<rect x="3" y="3" width="58" height="58" fill="#0d0d0d" stroke="#f2c200" stroke-width="3" stroke-dasharray="6 4"/><rect x="10" y="10" width="44" height="44" fill="#262626"/>"##;

/// Water, with `extra` drawn on it.
fn water(extra: &str) -> String {
    format!(
        r##"<rect x="0" y="0" width="64" height="64" fill="{WATER}" opacity="0.85"/><path d="M6,16 Q14,10 22,16 T38,16 T54,16 M6,48 Q14,42 22,48 T38,48 T54,48" fill="none" stroke="#d6ecff" stroke-width="2"/>{extra}"##
    )
}

/// How fast a belt carries: its colour and one chevron per square a register.
#[derive(Clone, Copy)]
enum Belt {
    Normal,
    Express,
    Gold,
}

/// A belt: straight, a curve (`turn`), or a junction (`turns`).
fn conveyor(tile: &Tile, dir: Dir, belt: Belt, c: &mut Canvas) {
    let (color, chevrons): (&str, &[i32]) = match belt {
        Belt::Normal => (BELT, &[18]),
        Belt::Express => (EXPRESS, &[10, 28]),
        Belt::Gold => ("#c9a227", &[4, 20, 36]),
    };
    // An arc arm that brings robots in through the east (or west) edge and out north.
    let arm = |from_east: bool| {
        let d = if from_east {
            "M64,32 A32,32 0 0 1 32,0"
        } else {
            "M0,32 A32,32 0 0 0 32,0"
        };
        format!(r##"<path d="{d}" fill="none" stroke="{color}" stroke-width="38"/>"##)
    };
    let mut body = String::new();
    let curve = str_param(tile, "turn").map(|turn| turn == "right");
    match (curve, tile.params.get("turns")) {
        // A curve: robots travelling W (entering from the east edge) turn right to go N.
        (Some(from_east), _) => body.push_str(&arm(from_east)),
        (None, Some(Value::Object(turns))) => {
            body.push_str(&format!(
                r##"<rect x="13" y="0" width="38" height="64" fill="{color}"/>"##
            ));
            for travel in turns.keys().filter_map(|k| Dir::parse(k)) {
                // The arrival direction as seen with the belt pointing north.
                match Dir::ALL[(travel.index() + 4 - dir.index()) % 4] {
                    Dir::W => body.push_str(&arm(true)),
                    Dir::E => body.push_str(&arm(false)),
                    _ => {}
                }
            }
        }
        _ => body.push_str(&format!(
            r##"<rect x="13" y="0" width="38" height="64" fill="{color}"/>"##
        )),
    }
    body.push_str(r##"<rect x="0" y="0" width="64" height="64" fill="none" stroke="#00000022"/>"##);
    let chevron = |y: i32| {
        format!(
            r##"<path d="M20,{} L32,{} L44,{}" fill="none" stroke="#fff" stroke-width="5" stroke-linejoin="round"/>"##,
            y + 12,
            y,
            y + 12
        )
    };
    match curve {
        // Along a curve, the chevrons follow the arc (radius 32 about the corner it turns
        // round), each turned to the way robots travel there.
        Some(from_east) => {
            for i in 0..chevrons.len() {
                // Each in the middle of its share of the arc.
                let along = (i as f64 + 0.5) / chevrons.len() as f64;
                let (cx, theta) = if from_east {
                    (64.0, 90.0 + 90.0 * along)
                } else {
                    (0.0, 90.0 - 90.0 * along)
                };
                let rad = f64::to_radians(theta);
                let (x, y) = (cx + 32.0 * rad.cos(), 32.0 * rad.sin());
                let heading = if from_east { theta + 180.0 } else { theta };
                let _ = write!(
                    body,
                    r##"<path d="M-9,5 L0,-4 L9,5" transform="translate({x:.1},{y:.1}) rotate({heading:.0})" fill="none" stroke="#fff" stroke-width="4.5" stroke-linejoin="round"/>"##
                );
            }
        }
        None => {
            for &y in chevrons {
                body.push_str(&chevron(y));
            }
        }
    }
    c.put(Layer::Belts, dir, &body);
}

/// A board laser's beam: from the emitter's lens, along `dir`, to where it stops as the
/// engine traces it ([`world::trace`]): the centre of the first robot in its way, or the far
/// edge of the last square before a wall or the board's edge.
fn beam(board: &Board, robots: &[Robot], tile: &Tile, c: &mut Canvas) {
    let Some(dir) = dir_param(tile, "dir") else {
        return;
    };
    let strength = int_param(tile, "strength").unwrap_or(1);
    let traced = world::trace(board, robots, tile.at, dir, false, 0);
    let centre = |p: Pos| {
        let (x, y) = origin(p);
        (f64::from(x) + 32.0, f64::from(y) + 32.0)
    };
    let (dx, dy) = dir.delta();
    let (sx, sy) = centre(tile.at);
    let (ex, ey) = centre(traced.end);
    let reach = if traced.hits.is_empty() { 32.0 } else { 0.0 };
    let (sx, sy) = (sx - f64::from(dx) * 18.0, sy - f64::from(dy) * 18.0);
    let (ex, ey) = (ex + f64::from(dx) * reach, ey + f64::from(dy) * reach);
    for i in 0..strength {
        let off = (i as f64 - (strength - 1) as f64 / 2.0) * 6.0;
        let (ox, oy) = (f64::from(dy) * off, f64::from(dx) * off);
        let _ = writeln!(
            c.layers[Layer::Beams as usize],
            r#"<line class="beam" x1="{}" y1="{}" x2="{}" y2="{}" stroke="{BEAM}" stroke-width="2.5" opacity="0.8"/>"#,
            sx + ox,
            sy + oy,
            ex + ox,
            ey + oy
        );
    }
}

/// Walls: every edge that blocks robots and lasers both ways. Edges that block only some of
/// that (one-way walls, ledges, repulsor fields) are drawn by their elements.
fn walls(board: &Board, c: &mut Canvas) {
    for y in 0..board.height {
        for x in 0..board.width {
            let p = Pos::new(x, y);
            for side in Dir::ALL {
                let q = p.step(side);
                // Each inner edge once (from its north/west square); board-edge walls always.
                if board.contains(q) && matches!(side, Dir::N | Dir::W) {
                    continue;
                }
                let shut = |from: Pos, d: Dir| {
                    !board.robot_can_cross(from, d) && !board.laser_can_cross(from, d)
                };
                let blocked = shut(p, side) && (!board.contains(q) || shut(q, side.opposite()));
                if blocked {
                    c.at = p;
                    c.put(
                        Layer::Edges,
                        side,
                        &format!(
                            r##"<rect class="wall" x="-2" y="-4" width="68" height="8" rx="2" fill="{WALL}" stroke="#222" stroke-width="1.5"/>"##
                        ),
                    );
                }
            }
        }
    }
}

/// An element drawn as its script's `draw = { color, label, shape }` asks.
fn declared(rules: &RuleSet, tile: &Tile, c: &mut Canvas) {
    let def = &rules.elements[tile.element];
    let draw = def.draw.as_ref().expect("declared looks have a draw table");
    let color = draw.color.as_deref().unwrap_or("#b8a1d9");
    let label = render::text_of(rules, tile, draw.label.as_ref(), "draw.label")
        .unwrap_or_else(|| render::glyph(rules, tile));
    let (shape, side) = match draw.shape {
        Shape::Square => (
            format!(
                r##"<rect x="4" y="4" width="56" height="56" rx="4" fill="{color}" stroke="#222" stroke-width="1.5"/>"##
            ),
            Dir::N,
        ),
        Shape::Circle => (
            format!(
                r##"<circle cx="32" cy="32" r="24" fill="{color}" stroke="#222" stroke-width="1.5"/>"##
            ),
            Dir::N,
        ),
        Shape::Edge => (
            format!(r##"<rect x="0" y="0" width="64" height="9" fill="{color}" stroke="#222"/>"##),
            side_param(tile).unwrap_or(Dir::N),
        ),
    };
    c.put(Layer::Fixtures, side, &shape);
    let (ly, size) = if draw.shape == Shape::Edge {
        (16.0, 10)
    } else {
        (32.0, 14)
    };
    c.label(side, 32.0, ly, size, "#111", &label);
}

/// The square for an element nobody said how to draw: dashed, with its glyph and name.
fn fallback(rules: &RuleSet, tile: &Tile, c: &mut Canvas) {
    c.put(
        Layer::Fixtures,
        Dir::N,
        r##"<rect class="fallback" x="5" y="5" width="54" height="54" fill="#f3e8ff" stroke="#7b2cbf" stroke-width="2" stroke-dasharray="5 3"/>"##,
    );
    c.label(
        Dir::N,
        32.0,
        28.0,
        15,
        "#5a189a",
        &render::glyph(rules, tile),
    );
    c.label(Dir::N, 32.0, 48.0, 8, "#5a189a", &tile.name);
}
