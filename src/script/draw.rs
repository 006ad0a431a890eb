//! An element's picture, as its script declares it (`draw = { ... }`): a list of parts drawn
//! in order on a 64×64 square pointing north, turned into place by a direction parameter.
//! Every element is drawn this way, the built-ins too (docs/pictures.md), so a designer's
//! element can look as finished as a standard one without touching the renderer.
//!
//! ```lua
//! draw = {
//!   turn = "dir",                           -- the parameter that turns the drawing
//!   legend = function(tile) return tile.express and "express belt" or "belt" end,
//!   { "circle", color = "#2456a6" },        -- a part: its kind, then its settings
//!   function(tile) return { "number", tile.number } end,  -- parts made from the tile
//! }
//! ```
//!
//! Static parts are checked when the script loads, so a typo is an error with its line; parts
//! made by a function are checked when they are drawn (a mistake is a warning and the part is
//! left out). Every value that reaches the SVG is a checked number, colour or word, or text
//! escaped there: nothing a script writes becomes markup. Pictures beside the script
//! (`images = { crane = "crane.svg" }`) are sanitised when they load ([`image`]).

use super::views::open;
use crate::geometry::Dir;
use mlua::{Function, Lua, Table, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub mod icons;
pub mod image;

/// The path of the script being loaded, so that `images` are found beside it. Set by the
/// loader (as Lua app data) before each script runs.
pub struct ScriptPath(pub PathBuf);

/// The layers of a picture an element's parts go on, bottom to top (labels, beams and walls
/// have layers of their own above these).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    Ground,
    Belts,
    Fixtures,
    Edges,
}

const LAYERS: [(&str, Layer); 4] = [
    ("ground", Layer::Ground),
    ("belts", Layer::Belts),
    ("fixtures", Layer::Fixtures),
    ("edges", Layer::Edges),
];

/// An element's drawing as declared.
#[derive(Clone, Debug)]
pub struct Drawing {
    /// Where its parts go unless a part says otherwise (default: fixtures).
    pub layer: Layer,
    /// The parameter whose direction turns the drawing (`dir`, `side`, `up`; a list of sides
    /// turns it to the first); none: it is drawn pointing north.
    pub turn: Option<String>,
    /// Its name in the legend: a string or `function(tile)`; default: the element's name.
    /// Tiles whose legends read the same share one entry.
    pub legend: Option<Value>,
    /// False: drawn in the legend only (walls, which the board draws from its edges).
    pub on_board: bool,
    pub entries: Vec<Entry>,
    /// Sanitised SVG pictures beside the script, by the name parts use (`{ "image", "crane" }`).
    pub images: BTreeMap<String, Arc<str>>,
}

/// A part as written, or a function of the tile that makes parts.
#[derive(Clone, Debug)]
pub enum Entry {
    Part(Box<Part>),
    Made(Function),
}

/// What a part draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Square,
    Circle,
    Ring,
    Diamond,
    Triangle,
    Edge,
    Bar,
    Arrow,
    Chevrons,
    Label,
    Number,
    Badge,
    Icon,
    Image,
    Belt,
    Beam,
    Wall,
}

/// Settings every part takes.
const COMMON: &[&str] = &[
    "color", "stroke", "width", "opacity", "dash", "turn", "layer", "rotate",
];

impl Kind {
    /// Every kind, its name, and the settings it takes besides `COMMON`.
    pub const ALL: [(&'static str, Kind, &'static [&'static str]); 17] = [
        ("square", Kind::Square, &["inset", "round"]),
        ("circle", Kind::Circle, &["x", "y", "r"]),
        ("ring", Kind::Ring, &["x", "y", "r"]),
        ("diamond", Kind::Diamond, &["x", "y", "r"]),
        ("triangle", Kind::Triangle, &["x", "y", "r"]),
        ("edge", Kind::Edge, &["size", "offset"]),
        ("bar", Kind::Bar, &["x", "y", "w", "h", "round"]),
        ("arrow", Kind::Arrow, &["x", "y", "size"]),
        ("chevrons", Kind::Chevrons, &["n", "y", "gap", "size"]),
        ("label", Kind::Label, &["x", "y", "size"]),
        ("number", Kind::Number, &["x", "y", "size"]),
        ("badge", Kind::Badge, &["x", "y"]),
        ("icon", Kind::Icon, &["mirror"]),
        ("image", Kind::Image, &["mirror"]),
        ("belt", Kind::Belt, &["n", "bend", "turns"]),
        ("beam", Kind::Beam, &["n"]),
        ("wall", Kind::Wall, &[]),
    ];

    fn named(name: &str) -> Option<(Kind, &'static [&'static str])> {
        Kind::ALL
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|(_, k, keys)| (*k, *keys))
    }

    pub fn name(self) -> &'static str {
        Kind::ALL
            .iter()
            .find(|(_, k, _)| *k == self)
            .expect("listed")
            .0
    }

    /// What its second entry is (`{ "label", TEXT }`), if it takes one.
    fn subject(self) -> Option<&'static str> {
        match self {
            Kind::Label | Kind::Badge => Some("its text"),
            Kind::Number => Some("its number"),
            Kind::Icon => Some("an icon's name"),
            Kind::Image => Some("the name of one of `images`"),
            _ => None,
        }
    }
}

/// Which way a part is turned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// With the drawing (its `turn` parameter).
    Drawing,
    /// Always this way (`turn = "E"`; `turn = false` is north: not turned).
    Fixed(Dir),
}

/// One part: its kind and the settings it was given (absent: the kind's default).
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub kind: Kind,
    /// Label, number and badge text; an icon's or image's name. A label without text shows
    /// the element's glyph.
    pub text: Option<String>,
    pub color: Option<String>,
    pub stroke: Option<String>,
    pub width: Option<f64>,
    pub opacity: Option<f64>,
    /// `stroke-dasharray`: numbers, checked.
    pub dash: Option<String>,
    pub turn: Turn,
    pub layer: Option<Layer>,
    /// Degrees clockwise about the square's centre.
    pub rotate: Option<f64>,
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub r: Option<f64>,
    pub w: Option<f64>,
    pub h: Option<f64>,
    pub size: Option<f64>,
    pub inset: Option<f64>,
    pub round: Option<f64>,
    pub offset: Option<f64>,
    pub gap: Option<f64>,
    pub n: Option<i64>,
    pub mirror: bool,
    /// A belt's curve (a conveyor's `turn`): robots arrive from the right and turn left to go
    /// north, or from the left turning right.
    pub bend: Option<Side>,
    /// A belt junction (a conveyor's `turns`): the directions of travel robots arrive in; those
    /// from the sides get an arm.
    pub turns: Vec<Dir>,
}

/// A side of a square pointing north.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Part {
    pub fn new(kind: Kind) -> Part {
        Part {
            kind,
            text: None,
            color: None,
            stroke: None,
            width: None,
            opacity: None,
            dash: None,
            turn: Turn::Drawing,
            layer: None,
            rotate: None,
            x: None,
            y: None,
            r: None,
            w: None,
            h: None,
            size: None,
            inset: None,
            round: None,
            offset: None,
            gap: None,
            n: None,
            mirror: false,
            bend: None,
            turns: Vec::new(),
        }
    }
}

/// The largest number a part's setting may be (coordinates, sizes): a square is 64 wide.
const MAX_NUMBER: f64 = 1000.0;
/// How many chevrons, beams or arms a part may ask for.
const MAX_COUNT: i64 = 12;
/// The longest text a label may have (it is squeezed into the square anyway).
const MAX_TEXT: usize = 60;
/// How many parts a drawing may have, written or made.
pub const MAX_PARTS: usize = 64;
/// How many pictures a script may bring.
const MAX_IMAGES: usize = 16;

/// Reads `draw = { ... }` of an element declaration (`what` names it in messages).
pub fn parse(lua: &Lua, decl: &Table, what: &str) -> mlua::Result<Option<Drawing>> {
    let table = match decl.get::<Value>("draw")? {
        Value::Nil => return Ok(None),
        Value::Table(t) => open(lua, &t)?,
        other => {
            return Err(mlua::Error::runtime(format!(
                "{what}, draw: expected a table of parts, got {}",
                super::args::a(other.type_name())
            )))
        }
    };
    let what = format!("{what}, draw");
    // An unknown key gets the caret at the key itself, as every declaration key does.
    let fail = |m: String| {
        let key = m
            .split_once("unknown field `")
            .and_then(|(_, rest)| rest.split_once('`'));
        let place = key.and_then(|(key, _)| super::decl::key_place(lua, key));
        mlua::Error::runtime(format!("{}{what}{m}", place.unwrap_or_default()))
    };
    let out = drawing(lua, &table).map_err(fail)?;
    // `turn` names one of the element's parameters: a typo would never turn the drawing.
    if let Some(turn) = out.as_ref().and_then(|d| d.turn.as_deref()) {
        let mut params = Vec::new();
        if let Some(specs) = decl.get::<Option<Table>>("params")? {
            for pair in open(lua, &specs)?.pairs::<String, Value>() {
                params.push(pair?.0);
            }
        }
        if !params.iter().any(|p| p == turn) {
            return Err(fail(format!(
                ", turn: `{turn}` is not one of its parameters{}",
                crate::error::suggest(turn, params.iter().map(String::as_str))
            )));
        }
    }
    Ok(out)
}

/// The keys of the drawing table itself.
const DRAWING_KEYS: &[&str] = &[
    "layer", "turn", "legend", "board", "images", "color", "label", "shape",
];

fn drawing(lua: &Lua, table: &Table) -> Result<Option<Drawing>, String> {
    let mut out = Drawing {
        layer: Layer::Fixtures,
        turn: None,
        legend: None,
        on_board: true,
        entries: Vec::new(),
        images: BTreeMap::new(),
    };
    let (mut short, mut short_label) = (None::<String>, None::<Value>);
    let mut short_color = None;
    let mut images = None;
    let mut listed = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (key, value) = pair.map_err(|e| format!(": {e}"))?;
        match key {
            Value::Integer(i) => listed.push((i, value)),
            Value::String(s) => {
                let key = s.to_string_lossy();
                let at = |m: String| format!(", {key}: {m}");
                match key.as_str() {
                    "layer" => out.layer = layer(&value).map_err(at)?,
                    "turn" => out.turn = Some(word(&value, "a parameter's name").map_err(at)?),
                    "legend" => out.legend = Some(text_or_fn(value).map_err(at)?),
                    "board" => {
                        out.on_board = match value {
                            Value::Boolean(b) => b,
                            other => return Err(at(expected("true or false", &other))),
                        }
                    }
                    "images" => images = Some(value),
                    "color" => short_color = Some(color(&value).map_err(at)?),
                    "label" => short_label = Some(text_or_fn(value).map_err(at)?),
                    "shape" => short = Some(word(&value, "a shape").map_err(at)?),
                    _ => return Err(unknown(&key, DRAWING_KEYS)),
                }
            }
            other => return Err(format!(": unexpected key {}", other.type_name())),
        }
    }
    if let Some(images) = images {
        out.images = load_images(lua, &images).map_err(|m| format!(", images{m}"))?;
    }
    listed.sort_by_key(|(i, _)| *i);
    if listed.len() > MAX_PARTS {
        return Err(format!(": {} parts, at most {MAX_PARTS}", listed.len()));
    }
    for (n, (i, value)) in listed.into_iter().enumerate() {
        if i != n as i64 + 1 {
            return Err(format!(": the parts must be a list (key [{i}] breaks it)"));
        }
        let entry = match value {
            Value::Function(f) => Entry::Made(f),
            Value::Table(t) => Entry::Part(Box::new(
                part(lua, &open(lua, &t).map_err(|e| e.to_string())?, &out.images)
                    .map_err(|m| format!(", part {i}{m}"))?,
            )),
            other => {
                return Err(format!(
                    ", part {i}: {}",
                    expected("a table { \"circle\", ... } or a function(tile)", &other)
                ))
            }
        };
        out.entries.push(entry);
    }
    let shorthand = short.is_some() || short_label.is_some() || short_color.is_some();
    if shorthand && !out.entries.is_empty() {
        return Err(": `color`, `label` and `shape` are the short form of a drawing; with parts, give each part its own".into());
    }
    if shorthand {
        short_form(lua, &mut out, short.as_deref(), short_color, short_label)?;
    }
    Ok(Some(out))
}

/// `draw = { color = "#4a8", label = "Z", shape = "circle" }`: one outline in the colour, with
/// the label (default: the glyph) on it.
fn short_form(
    lua: &Lua,
    out: &mut Drawing,
    shape: Option<&str>,
    color: Option<String>,
    label: Option<Value>,
) -> Result<(), String> {
    const SHAPES: [&str; 5] = ["square", "circle", "diamond", "triangle", "edge"];
    let shape = shape.unwrap_or("square");
    let kind = match Kind::named(shape) {
        Some((k, _)) if SHAPES.contains(&shape) => k,
        _ => {
            return Err(format!(
                ": shape = \"{shape}\"{}: expected one of {}",
                crate::error::suggest(shape, SHAPES),
                SHAPES.join(", ")
            ))
        }
    };
    let mut outline = Part::new(kind);
    outline.color = color;
    outline.stroke = Some("#222".into());
    outline.width = Some(1.5);
    outline.round = Some(4.0);
    let mut text = Part::new(Kind::Label);
    if kind == Kind::Edge {
        out.turn = Some("side".into());
        text.y = Some(16.0);
        text.size = Some(10.0);
    }
    out.entries.push(Entry::Part(Box::new(outline)));
    match label {
        Some(Value::Function(f)) => {
            let made = lua
                .create_function(move |lua, tile: Value| {
                    let words: Value = f.call(tile)?;
                    let part = lua.create_table()?;
                    part.raw_push("label")?;
                    part.raw_push(words)?;
                    part.raw_set("y", text.y)?;
                    part.raw_set("size", text.size)?;
                    Ok(part)
                })
                .map_err(|e| e.to_string())?;
            out.entries.push(Entry::Made(made));
        }
        Some(v) => {
            text.text = Some(label_text(lua, &v)?);
            out.entries.push(Entry::Part(Box::new(text)));
        }
        None => out.entries.push(Entry::Part(Box::new(text))),
    }
    Ok(())
}

/// The parts a function made (`function(tile)` in the list): one part, a list of parts, or
/// nil for none.
pub fn made(
    lua: &Lua,
    value: Value,
    images: &BTreeMap<String, Arc<str>>,
) -> Result<Vec<Part>, String> {
    let Value::Table(t) = value else {
        return match value {
            Value::Nil => Ok(Vec::new()),
            other => Err(expected(
                "a part { \"circle\", ... }, a list of parts or nil",
                &other,
            )),
        };
    };
    let t = open(lua, &t).map_err(|e| e.to_string())?;
    if let Value::String(_) = t.raw_get::<Value>(1).map_err(|e| e.to_string())? {
        return Ok(vec![part(lua, &t, images)?]);
    }
    let mut out = Vec::new();
    for (i, p) in t.sequence_values::<Value>().enumerate() {
        let p = p.map_err(|e| e.to_string())?;
        if out.len() >= MAX_PARTS {
            return Err(format!("more than {MAX_PARTS} parts"));
        }
        match p {
            Value::Table(p) => out.push(
                part(lua, &open(lua, &p).map_err(|e| e.to_string())?, images)
                    .map_err(|m| format!("part {}{m}", i + 1))?,
            ),
            other => return Err(format!("part {}: {}", i + 1, expected("a table", &other))),
        }
    }
    Ok(out)
}

/// One part: `{ "circle", r = 20, color = "#2456a6" }`. Errors start with ": " or ", KEY: ".
fn part(lua: &Lua, t: &Table, images: &BTreeMap<String, Arc<str>>) -> Result<Part, String> {
    let names: Vec<&str> = Kind::ALL.iter().map(|(n, ..)| *n).collect();
    let name = match t.raw_get::<Value>(1).map_err(|e| e.to_string())? {
        Value::String(s) => s.to_string_lossy(),
        other => {
            return Err(format!(
                ": {} (one of {})",
                expected("the part's kind first, { \"circle\", ... }", &other),
                names.join(", ")
            ))
        }
    };
    let Some((kind, own)) = Kind::named(&name) else {
        return Err(format!(
            ": unknown part `{name}`{}: expected one of {}",
            crate::error::suggest(&name, names.iter().copied()),
            names.join(", ")
        ));
    };
    let mut p = Part::new(kind);
    let keys: Vec<&str> = COMMON.iter().chain(own).copied().collect();
    for pair in t.pairs::<Value, Value>() {
        let (key, value) = pair.map_err(|e| e.to_string())?;
        let key = match key {
            Value::Integer(1) => continue,
            Value::Integer(2) if kind.subject().is_some() => {
                p.text = Some(match kind {
                    Kind::Number => match value {
                        Value::Integer(n) => n.to_string(),
                        Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e9 => {
                            format!("{}", n as i64)
                        }
                        other => {
                            return Err(format!(", [2]: {}", expected("a whole number", &other)))
                        }
                    },
                    Kind::Label | Kind::Badge => {
                        label_text(lua, &value).map_err(|m| format!(", [2]{m}"))?
                    }
                    _ => word(&value, kind.subject().expect("checked"))
                        .map_err(|m| format!(", [2]: {m}"))?,
                });
                continue;
            }
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(format!(
                    ": unexpected key {}{}",
                    match &other {
                        Value::Integer(i) => format!("[{i}]"),
                        o => o.type_name().to_string(),
                    },
                    match kind.subject() {
                        Some(s) => format!(" (a {name} takes its kind, then {s})"),
                        None => format!(" (a {name} takes only its kind, then named settings)"),
                    }
                ))
            }
        };
        if !keys.contains(&key.as_str()) {
            return Err(unknown(&key, &keys));
        }
        let at = |m: String| format!(", {key}: {m}");
        let num = |v: &Value| number(v).map_err(at);
        match key.as_str() {
            "color" => p.color = Some(color(&value).map_err(at)?),
            "stroke" => p.stroke = Some(color(&value).map_err(at)?),
            "width" => p.width = Some(num(&value)?),
            "opacity" => {
                let o = num(&value)?;
                if !(0.0..=1.0).contains(&o) {
                    return Err(at(format!("{o} is not between 0 and 1")));
                }
                p.opacity = Some(o);
            }
            "dash" => p.dash = Some(dash(&value).map_err(at)?),
            "turn" => {
                p.turn = match &value {
                    Value::Boolean(false) => Turn::Fixed(Dir::N),
                    Value::Boolean(true) => Turn::Drawing,
                    Value::String(s) => Turn::Fixed(
                        Dir::parse(&s.to_string_lossy())
                            .ok_or_else(|| at(expected("N, E, S, W, true or false", &value)))?,
                    ),
                    other => return Err(at(expected("N, E, S, W, true or false", other))),
                }
            }
            "layer" => p.layer = Some(layer(&value).map_err(at)?),
            "rotate" => p.rotate = Some(num(&value)?),
            "x" => p.x = Some(num(&value)?),
            "y" => p.y = Some(num(&value)?),
            "r" => p.r = Some(num(&value)?),
            "w" => p.w = Some(num(&value)?),
            "h" => p.h = Some(num(&value)?),
            "size" => p.size = Some(num(&value)?),
            "inset" => p.inset = Some(num(&value)?),
            "round" => p.round = Some(num(&value)?),
            "offset" => p.offset = Some(num(&value)?),
            "gap" => p.gap = Some(num(&value)?),
            "n" => {
                let n = num(&value)?;
                if n.fract() != 0.0 || !(0.0..=MAX_COUNT as f64).contains(&n) {
                    return Err(at(format!(
                        "{n} is not a whole number from 0 to {MAX_COUNT}"
                    )));
                }
                p.n = Some(n as i64);
            }
            "mirror" => {
                p.mirror = match value {
                    Value::Boolean(b) => b,
                    other => return Err(at(expected("true or false", &other))),
                }
            }
            "bend" => p.bend = side(&value).map_err(at)?,
            "turns" => {
                let Value::Table(map) = &value else {
                    return Err(at(expected("a conveyor's turns, { N = \"left\" }", &value)));
                };
                let map = open(lua, map).map_err(|e| e.to_string())?;
                for pair in map.pairs::<Value, Value>().take(4) {
                    let (travel, _) = pair.map_err(|e| e.to_string())?;
                    let d = match &travel {
                        Value::String(t) => Dir::parse(&t.to_string_lossy()),
                        _ => None,
                    };
                    p.turns
                        .push(d.ok_or_else(|| at(expected("directions as keys", &travel)))?);
                }
                p.turns.sort_by_key(|d| d.index());
            }
            _ => unreachable!("every key is matched"),
        }
    }
    if let Some(subject) = kind.subject() {
        if p.text.is_none() && kind != Kind::Label {
            return Err(format!(": a {name} needs {subject}: {{ \"{name}\", ... }}"));
        }
    }
    match (kind, &p.text) {
        (Kind::Icon, Some(icon)) if icons::get(icon).is_none() => {
            let known = icons::names();
            return Err(format!(
                ": no icon `{icon}`{}: the bundled icons are {}",
                crate::error::suggest(icon, known.iter().copied()),
                known.join(", ")
            ));
        }
        (Kind::Image, Some(name)) if !images.contains_key(name) => {
            return Err(format!(
                ": no image `{name}`{}: declare it in `images = {{ {name} = \"{name}.svg\" }}`",
                crate::error::suggest(name, images.keys().map(String::as_str))
            ));
        }
        _ => {}
    }
    Ok(p)
}

/// The SVG pictures beside the script: `images = { crane = "crane.svg" }`.
fn load_images(lua: &Lua, value: &Value) -> Result<BTreeMap<String, Arc<str>>, String> {
    let Value::Table(t) = value else {
        return Err(format!(
            ": {}",
            expected("a table { crane = \"crane.svg\" }", value)
        ));
    };
    let script = lua
        .app_data_ref::<ScriptPath>()
        .map(|p| p.0.clone())
        .ok_or(": pictures can only be declared while a script loads")?;
    let dir = script.parent().unwrap_or(Path::new("."));
    let mut out = BTreeMap::new();
    for pair in t.pairs::<Value, Value>() {
        let (name, file) = pair.map_err(|e| e.to_string())?;
        let name = word(&name, "a name").map_err(|m| format!(": {m}"))?;
        if out.len() >= MAX_IMAGES {
            return Err(format!(": more than {MAX_IMAGES} pictures"));
        }
        let file = match &file {
            Value::String(s) => s.to_string_lossy(),
            other => {
                return Err(format!(
                    ".{name}: {}",
                    expected("a file name, \"crane.svg\"", other)
                ))
            }
        };
        // Only a file in the script's own folder: a name, no path.
        let plain = !file.contains(['/', '\\']) && file != ".." && !file.starts_with('.');
        if !plain || !file.ends_with(".svg") {
            return Err(format!(
                ".{name} = \"{file}\": expected the name of an .svg file beside the script"
            ));
        }
        let path = dir.join(&file);
        let bytes = crate::files::read_bytes(&path).map_err(|e| format!(".{name}: {e}"))?;
        let fragment = image::sanitise(&bytes, &format!("img-{name}"))
            .map_err(|m| format!(".{name}: {file}{m}"))?;
        out.insert(name, Arc::from(fragment));
    }
    Ok(out)
}

/// "a table", "the string \"x\"": what a value was, for messages.
fn expected(what: &str, got: &Value) -> String {
    let got = match got {
        Value::String(s) => format!("\"{}\"", crate::text::clean_line(&s.to_string_lossy())),
        Value::Integer(i) => i.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Boolean(b) => b.to_string(),
        other => super::args::a(other.type_name()).to_string(),
    };
    format!("expected {what}, got {got}")
}

fn unknown(key: &str, keys: &[&str]) -> String {
    format!(
        ": unknown field `{key}`{}, expected one of {}",
        crate::error::suggest(key, keys.iter().copied()),
        keys.join(", ")
    )
}

/// A name: letters, digits, `_` and `-`, so it can go into SVG and messages as it is.
fn word(value: &Value, what: &str) -> Result<String, String> {
    match value {
        Value::String(s) => {
            let s = s.to_string_lossy();
            let ok = !s.is_empty()
                && s.len() <= 40
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if ok {
                Ok(s)
            } else {
                Err(expected(
                    &format!("{what} (letters, digits, _ and -)"),
                    value,
                ))
            }
        }
        other => Err(expected(what, other)),
    }
}

fn layer(value: &Value) -> Result<Layer, String> {
    let names: Vec<&str> = LAYERS.iter().map(|(n, _)| *n).collect();
    let expect = format!("one of {}", names.join(", "));
    let name = word(value, &expect)?;
    LAYERS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, l)| *l)
        .ok_or_else(|| {
            format!(
                "\"{name}\"{}: expected {expect}",
                crate::error::suggest(&name, names.iter().copied())
            )
        })
}

/// A belt's curve from a conveyor's `turn`: a right turn comes in from the right (a U-turn
/// is drawn as a left one).
fn side(value: &Value) -> Result<Option<Side>, String> {
    match value {
        Value::Nil => Ok(None),
        Value::String(s) if *s.as_bytes() == *b"right" => Ok(Some(Side::Right)),
        Value::String(s) if matches!(&*s.as_bytes(), b"left" | b"uturn") => Ok(Some(Side::Left)),
        other => Err(expected("\"left\" or \"right\"", other)),
    }
}

/// A setting's number: finite and no bigger than [`MAX_NUMBER`] either way.
fn number(value: &Value) -> Result<f64, String> {
    let n = match value {
        Value::Integer(i) => *i as f64,
        Value::Number(n) => *n,
        other => return Err(expected("a number", other)),
    };
    if n.is_finite() && n.abs() <= MAX_NUMBER {
        Ok(n)
    } else {
        Err(format!(
            "{n} is out of range (-{MAX_NUMBER} to {MAX_NUMBER})"
        ))
    }
}

/// A colour that can go into SVG as it is: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, a CSS
/// colour name (letters only) or `none`.
pub fn color(value: &Value) -> Result<String, String> {
    let expect = "\"#rgb\" or \"#rrggbb\" (or a colour's name, \"purple\")";
    let Value::String(s) = value else {
        return Err(expected(expect, value));
    };
    let c = s.to_string_lossy();
    let ok = match c.strip_prefix('#') {
        Some(hex) => {
            matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|h| h.is_ascii_hexdigit())
        }
        None => !c.is_empty() && c.len() <= 24 && c.chars().all(|h| h.is_ascii_alphabetic()),
    };
    if ok {
        Ok(c)
    } else {
        Err(format!(
            "color = \"{}\": expected {expect}",
            crate::text::clean_line(&c)
        ))
    }
}

/// `dash = "6 4"` (up to 8 lengths) or `dash = true` (a plain dash).
fn dash(value: &Value) -> Result<String, String> {
    match value {
        Value::Boolean(true) => Ok("6 4".into()),
        Value::String(s) => {
            let s = s.to_string_lossy();
            let lengths: Option<Vec<f64>> = s
                .split_whitespace()
                .map(|n| {
                    n.parse::<f64>()
                        .ok()
                        .filter(|n| (0.0..=MAX_NUMBER).contains(n))
                })
                .collect();
            match lengths {
                Some(l) if !l.is_empty() && l.len() <= 8 => {
                    Ok(l.iter().map(f64::to_string).collect::<Vec<_>>().join(" "))
                }
                _ => Err(expected("lengths, \"6 4\", or true", value)),
            }
        }
        other => Err(expected("lengths, \"6 4\", or true", other)),
    }
}

/// A label's text: a string, a number, or a list of them written with spaces between
/// (`{ "label", tile.phases }` reads "2 4").
fn label_text(lua: &Lua, value: &Value) -> Result<String, String> {
    let one = |v: &Value| -> Result<String, String> {
        match v {
            Value::String(s) => Ok(crate::text::clean_line(&s.to_string_lossy()).into_owned()),
            Value::Integer(i) => Ok(i.to_string()),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => Ok(format!("{}", *n as i64)),
            Value::Number(n) => Ok(n.to_string()),
            other => Err(format!(
                ": {}",
                expected("text, a number or a list of them", other)
            )),
        }
    };
    let text = match value {
        Value::Table(t) => {
            let mut words = Vec::new();
            let t = open(lua, t).map_err(|e| e.to_string())?;
            for v in t.sequence_values::<Value>().take(MAX_TEXT) {
                words.push(one(&v.map_err(|e| e.to_string())?)?);
            }
            words.join(" ")
        }
        v => one(v)?,
    };
    Ok(text.chars().take(MAX_TEXT).collect())
}

fn text_or_fn(value: Value) -> Result<Value, String> {
    match value {
        v @ (Value::String(_) | Value::Function(_)) => Ok(v),
        other => Err(expected("a string or a function(tile)", &other)),
    }
}
