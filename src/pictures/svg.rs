//! Top-down SVG pictures of a board and its robots (`rally render`, the HTML replay viewer).
//!
//! Every element is drawn as its script's `draw = { ... }` declares (`crate::script::draw`,
//! drawn by `parts`): the standard ones too, so a picture reads like the printed board
//! (belts with chevrons, gears, pushers with their active registers, lasers with their beams,
//! numbered flags) through the same mechanism a designer's element uses, and nothing here is
//! chosen by an element's name. Elements are drawn in layers (floor, belts, fixtures, beams,
//! edges, labels, robots) so that a beam crosses a belt and a wall covers a beam's end.
//!
//! An element whose script declares no drawing is still drawn, as a labelled fallback square
//! (class `fallback`) that says its glyph, so a designer's new element is never invisible.
//! Walls are drawn from the compiled board's blocking facts, so a script that declares walls
//! in `build` gets them drawn (the `wall` element's own drawing is for the legend only).
//!
//! The picture is plain text built with `format!`: the output is deterministic, diffable in
//! snapshot tests, and needs no SVG library; PNG output goes through resvg ([`to_png`]).

use crate::board::{Board, Tile};
use crate::geometry::{Dir, Pos};
use crate::pictures::render;
use crate::script::draw::Drawing;
use crate::script::RuleSet;
use crate::state::Robot;
use crate::text::xml;
use crate::world;

mod legend;
mod parts;
#[cfg(feature = "png")]
mod png;
mod robots;

use parts::Scene;
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
/// A wall along the north edge of a square.
const WALL_BAND: &str = r##"<rect class="wall" x="-2" y="-4" width="68" height="8" rx="2" fill="#f2c200" stroke="#222" stroke-width="1.5"/>"##;
const BEAM: &str = "#ff2a2a";

/// How an element gets its picture; [`look`] tells, the tests check it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// From the script's `draw = { ... }` declaration (every shipped element has one).
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

/// How a tile is drawn: as its element's script declares, else as the fallback.
pub fn look(rules: &RuleSet, tile: &Tile) -> Look {
    if rules.elements[tile.element].draw.is_some() {
        Look::Declared
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
        draw_tile(rules, tile, Some(&Scene { board, robots }), &mut canvas);
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

/// The robots' colours, in the order they are listed: the Okabe–Ito palette, told apart
/// with the common colour blindnesses (vermillion, blue, bluish green, reddish purple,
/// orange, sky blue, yellow, black). The tokens carry the robot's initial and name too, so
/// colour is never the only cue. The table and the replay viewer draw with these colours.
const PALETTE: [&str; 8] = [
    "#d55e00", "#0072b2", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000",
];

/// Draws one tile as its look says (`canvas.at` is its square; `scene`: the board it is on,
/// none for a legend sample, which draws even what the board draws from its edges).
fn draw_tile(rules: &RuleSet, tile: &Tile, scene: Option<&Scene>, canvas: &mut Canvas) {
    match &rules.elements[tile.element].draw {
        Some(drawing) if drawing.on_board || scene.is_none() => {
            declared(rules, drawing, tile, scene, canvas)
        }
        Some(_) => {}
        None => fallback(rules, tile, canvas),
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

/// A beam from `tile`'s square (a `beam` part): from the emitter's lens, along `dir`, to
/// where it stops as the engine traces it ([`world::trace`]): the centre of the first robot
/// in its way, or the far edge of the last square before a wall or the board's edge; `n`
/// lines side by side.
fn beam(board: &Board, robots: &[Robot], tile: &Tile, dir: Dir, n: i64, c: &mut Canvas) {
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
    for i in 0..n {
        let off = (i as f64 - (n - 1) as f64 / 2.0) * 6.0;
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
                    c.put(Layer::Edges, side, WALL_BAND);
                }
            }
        }
    }
}

/// An element drawn as its script's `draw = { ... }` declares (`scene`: the board it is on,
/// for its beams; none in a legend sample).
fn declared(
    rules: &RuleSet,
    drawing: &Drawing,
    tile: &Tile,
    scene: Option<&Scene>,
    c: &mut Canvas,
) {
    let parts = parts::parts(rules, drawing, tile);
    let dir = parts::turned(drawing, tile);
    parts::draw(rules, drawing, tile, &parts, dir, scene, c);
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
