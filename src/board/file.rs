//! The board file format (`boards/*.toml`, or `[board]` inline in a scenario): a `grid` with
//! its `[legend]`, `[[tile]]` entries, and courses of several boards (`[[board]]`).
//! This module only reads the file into a [`Layout`]: which element goes where, with which
//! raw parameters, from which line. Checking the elements and parameters needs the loaded
//! scripts and happens in [`super::Board::compile`].

use crate::error::{Error, Result};
use crate::files::Source;
use crate::geometry::Pos;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The longest side a board may have (the largest published courses are a few dozen squares).
pub const MAX_SIDE: i32 = 256;

/// The most elements one square may hold (a busy square of the standard floor holds four or
/// five): without a bound, a board file of a few KB could place millions of elements.
pub const MAX_PER_SQUARE: usize = 16;

/// The error of a square holding more than [`MAX_PER_SQUARE`] elements.
pub fn crowded(count: usize) -> String {
    format!("{count} elements on one square: a square holds at most {MAX_PER_SQUARE}")
}

/// Checks a board's size, however the board came in (a board file, a course, an inline
/// board, a Tiled map): 1 to [`MAX_SIDE`] squares a side. Sizes are taken as `i64` so that
/// whatever a file says can be checked before any arithmetic is done with it.
pub fn check_size(width: i64, height: i64) -> Result<(i32, i32), String> {
    if width <= 0 || height <= 0 {
        return Err(format!("a {width}×{height} board has no squares"));
    }
    if width > MAX_SIDE as i64 || height > MAX_SIDE as i64 {
        return Err(format!(
            "a {width}×{height} board is larger than rally handles: at most {MAX_SIDE} squares a side"
        ));
    }
    Ok((width as i32, height as i32))
}

/// Where a placement came from, for error messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Origin {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

impl Origin {
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::At {
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            message: message.into(),
        }
    }
}

/// One element on one square, as written, not yet checked.
#[derive(Clone, Debug)]
pub struct Placement {
    pub element: String,
    pub at: Pos,
    pub params: toml::Table,
    /// Clockwise quarter turns to apply to its directions (a rotated board in a course).
    pub quarter_turns: u8,
    pub origin: Origin,
    /// What the line and column alone do not say, for messages: a Tiled map's layer, square
    /// and tile.
    pub context: Option<String>,
}

impl Placement {
    /// An error about this placement, at its origin and in its context.
    pub fn error(&self, message: impl Into<String>) -> Error {
        match &self.context {
            Some(context) => self.origin.error(format!("{context}: {}", message.into())),
            None => self.origin.error(message),
        }
    }
}

/// A board as read from its file(s).
#[derive(Clone, Debug)]
pub struct Layout {
    pub name: String,
    pub description: String,
    pub width: i32,
    pub height: i32,
    pub placements: Vec<Placement>,
    /// Every file it was read from (hot reload watches them).
    pub files: Vec<PathBuf>,
    /// For a course, the boards it is made of, where they lie (pictures draw the seams).
    pub parts: Vec<Part>,
}

/// One board of a course: its name and the rectangle it covers in the course.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    pub name: String,
    pub at: Pos,
    pub width: i32,
    pub height: i32,
}

/// The TOML schema of a board.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct BoardFile {
    name: Option<String>,
    description: Option<String>,
    width: Option<i32>,
    height: Option<i32>,
    grid: Option<Spanned<String>>,
    #[serde(default)]
    legend: BTreeMap<String, Spanned<toml::Value>>,
    #[serde(default)]
    tile: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    board: Vec<Spanned<CoursePart>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
struct CoursePart {
    path: String,
    at: [i32; 2],
    #[serde(default)]
    rotate: u16,
    /// Elements of that board the course leaves out, such as its own flags and start
    /// squares when the course places its own: `without = ["flag", "start"]`.
    #[serde(default)]
    without: Vec<String>,
}

/// A scenario's `board`: a path to a board file, or the board itself inline.
#[derive(Debug)]
pub enum BoardRef {
    Path(Spanned<String>),
    Inline(Box<BoardFile>),
}

impl<'de> Deserialize<'de> for BoardRef {
    // Hand-written (not `#[serde(untagged)]`) so that spans inside an inline board survive.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BoardRef, D::Error> {
        struct RefVisitor;
        impl<'de> Visitor<'de> for RefVisitor {
            type Value = BoardRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a path to a board file or an inline [board] table")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BoardRef, E> {
                Ok(BoardRef::Path(Spanned::new(0..0, v.to_string())))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<BoardRef, A::Error> {
                let file = BoardFile::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(BoardRef::Inline(Box::new(file)))
            }
        }
        deserializer.deserialize_any(RefVisitor)
    }
}

impl BoardRef {
    /// The layout this names: an inline board, or a board file relative to the file
    /// (`source`) that refers to it (scenarios and game files).
    pub fn layout(self, source: &Source) -> Result<Layout> {
        match self {
            BoardRef::Inline(board) => Layout::from_file(*board, source),
            BoardRef::Path(p) => {
                let beside = source.path.parent().unwrap_or(Path::new("."));
                let board_path = beside.join(p.get_ref());
                if !board_path.exists() {
                    return Err(source.error_at(
                        p.span().start,
                        format!("board file `{}` not found", board_path.display()),
                    ));
                }
                Layout::load(&board_path)
            }
        }
    }
}

impl Layout {
    /// Reads a board file, TOML or a Tiled map (and, for a course, the boards it names).
    pub fn load(path: &Path) -> Result<Layout> {
        Layout::load_nested(path, false)
    }

    /// Loads a board; `in_course`: it is a part of a course, which must be a single board
    /// (a course of courses could name itself and never end).
    fn load_nested(path: &Path, in_course: bool) -> Result<Layout> {
        // Boards drawn in the Tiled map editor load like TOML boards (src/board/tiled.rs).
        if super::tiled::is_map(path) {
            return super::tiled::load(path);
        }
        let source = Source::read(path)?;
        let file: BoardFile = source.parse_toml()?;
        if in_course && !file.board.is_empty() {
            return Err(Error::File {
                file: path.to_path_buf(),
                message: "is itself a course ([[board]] parts): a course is made of single boards"
                    .into(),
            });
        }
        let mut layout = Layout::from_file(file, &source)?;
        layout.files.insert(0, path.to_path_buf());
        Ok(layout)
    }

    /// Builds a layout from a parsed board table; `source` is the file it was written in.
    pub fn from_file(file: BoardFile, source: &Source) -> Result<Layout> {
        let origin_of = |offset: usize| {
            let (line, column) = source.locate(offset);
            Origin {
                file: source.path.clone(),
                line,
                column,
            }
        };
        let mut placements = Vec::new();
        let mut files = Vec::new();
        let mut parts = Vec::new();
        let (mut width, mut height) = (0, 0);

        if let Some(grid) = &file.grid {
            let (grid_line, _) = source.locate(grid.span().start);
            let rows = grid_rows(grid.get_ref());
            let longest = rows.iter().map(|(_, cells)| cells.len()).max().unwrap_or(0);
            if !rows.is_empty() {
                (width, height) = check_size(longest as i64, rows.len() as i64)
                    .map_err(|m| origin_of(grid.span().start).error(format!("the grid: {m}")))?;
            }
            for (y, (line_index, cells)) in rows.iter().enumerate() {
                if cells.len() as i32 != width {
                    let row = Origin {
                        file: source.path.clone(),
                        line: grid_line + line_index,
                        column: 1,
                    };
                    return Err(row.error(format!(
                        "grid row {y} has {} cells, but the longest row has {width}: every row needs the same number",
                        cells.len()
                    )));
                }
                for (x, key) in cells.iter().enumerate() {
                    let origin = Origin {
                        file: source.path.clone(),
                        line: grid_line + line_index,
                        column: 1,
                    };
                    let entry = file.legend.get(*key).ok_or_else(|| {
                        let known: Vec<&str> = file.legend.keys().map(String::as_str).collect();
                        origin.error(format!(
                            "grid cell `{key}` at [{x}, {y}] is not in [legend]{}",
                            crate::error::suggest(key, known)
                        ))
                    })?;
                    let at = Pos::new(x as i32, y as i32);
                    let legend_origin = origin_of(entry.span().start);
                    for (element, params) in legend_entries(entry.get_ref())
                        .map_err(|m| legend_origin.error(format!("legend `{key}`: {m}")))?
                    {
                        placements.push(Placement {
                            element,
                            at,
                            params,
                            quarter_turns: 0,
                            origin: legend_origin.clone(),
                            context: None,
                        });
                    }
                }
            }
        }

        let grid_size = (width, height);
        for part in &file.board {
            let origin = origin_of(part.span().start);
            let part = part.get_ref();
            let base = source.path.parent().unwrap_or(Path::new("."));
            let path = base.join(&part.path);
            let sub = Layout::load_nested(&path, true).map_err(|e| match e {
                Error::File { message, .. } => {
                    origin.error(format!("course board `{}`: {message}", part.path))
                }
                other => other,
            })?;
            let quarter_turns = match part.rotate {
                0 => 0,
                90 => 1,
                180 => 2,
                270 => 3,
                other => {
                    return Err(origin.error(format!(
                        "rotate = {other}: expected 0, 90, 180 or 270 (degrees clockwise)"
                    )))
                }
            };
            let (w, h) = if quarter_turns % 2 == 1 {
                (sub.height, sub.width)
            } else {
                (sub.width, sub.height)
            };
            let offset = Pos::from(part.at);
            // A part placed far away makes the course too large; say so before adding up.
            let reach = |at: i32, side: i32| {
                let end = at as i64 + side as i64;
                if at < 0 || end > MAX_SIDE as i64 {
                    Err(origin.error(format!(
                        "course board `{}` at {offset} reaches square {}: a course covers squares 0 to {} each way",
                        part.path,
                        end - 1,
                        MAX_SIDE - 1
                    )))
                } else {
                    Ok(end as i32)
                }
            };
            width = width.max(reach(offset.x, w)?);
            height = height.max(reach(offset.y, h)?);
            parts.push(Part {
                name: sub.name.clone(),
                at: offset,
                width: w,
                height: h,
            });
            for mut p in sub.placements {
                if part.without.contains(&p.element) {
                    continue;
                }
                let local = rotate_pos(p.at, quarter_turns, sub.width, sub.height);
                p.at = Pos::new(local.x + offset.x, local.y + offset.y);
                p.quarter_turns = (p.quarter_turns + quarter_turns) % 4;
                placements.push(p);
            }
            files.extend(sub.files);
        }

        for tile in &file.tile {
            let origin = origin_of(tile.span().start);
            let mut params = tile.get_ref().clone();
            let at = params
                .remove("at")
                .ok_or_else(|| origin.error("[[tile]] needs `at = [x, y]`"))?;
            let at: [i32; 2] = at
                .try_into()
                .map_err(|_| origin.error("`at` must be two whole numbers: at = [x, y]"))?;
            let element = match params.remove("element") {
                Some(toml::Value::String(name)) => name,
                Some(_) => return Err(origin.error("`element` must be an element name")),
                None => return Err(origin.error("[[tile]] needs `element = \"NAME\"`")),
            };
            placements.push(Placement {
                element,
                at: Pos::from(at),
                params,
                quarter_turns: 0,
                origin,
                context: None,
            });
        }

        let whole = Origin {
            file: source.path.clone(),
            line: 1,
            column: 1,
        };
        let (width, height) = check_size(
            file.width.map_or(width as i64, i64::from),
            file.height.map_or(height as i64, i64::from),
        )
        .map_err(|m| {
            whole.error(format!(
                "{m}: give `width` and `height`, a `grid`, or `[[board]]` parts"
            ))
        })?;
        if !parts.is_empty() {
            // A course's squares that no board (nor the course's own grid) covers are off
            // the board, and squares off the board behave as pits (the contract; rules.md
            // §4.15): a robot driving into the gap of an L-shaped course falls.
            let grid = grid_size;
            let covered = |p: Pos| {
                (p.x < grid.0 && p.y < grid.1)
                    || parts.iter().any(|part: &Part| {
                        p.x >= part.at.x
                            && p.y >= part.at.y
                            && p.x < part.at.x + part.width
                            && p.y < part.at.y + part.height
                    })
            };
            for y in 0..height {
                for x in 0..width {
                    let at = Pos::new(x, y);
                    if !covered(at) {
                        placements.push(Placement {
                            element: "pit".into(),
                            at,
                            params: toml::Table::new(),
                            quarter_turns: 0,
                            origin: whole.clone(),
                            context: None,
                        });
                    }
                }
            }
        }
        Ok(Layout {
            name: file.name.unwrap_or_else(|| {
                source
                    .path
                    .file_stem()
                    .map_or("board".into(), |s| s.to_string_lossy().into())
            }),
            description: file.description.unwrap_or_default(),
            width,
            height,
            placements,
            files,
            parts,
        })
    }
}

/// The grid's rows as (line offset from the `grid` key, cells); blank lines are skipped.
fn grid_rows(grid: &str) -> Vec<(usize, Vec<&str>)> {
    grid.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, cells)| !cells.is_empty())
        .collect()
}

/// A legend value: `"name"`, `{ element = "name", ...params }`, or a list of those.
pub(crate) fn legend_entries(value: &toml::Value) -> Result<Vec<(String, toml::Table)>, String> {
    match value {
        toml::Value::String(name) => Ok(vec![(name.clone(), toml::Table::new())]),
        toml::Value::Table(table) => {
            let mut params = table.clone();
            match params.remove("element") {
                Some(toml::Value::String(name)) => Ok(vec![(name, params)]),
                _ => Err("a table needs `element = \"NAME\"`".into()),
            }
        }
        toml::Value::Array(items) => {
            let mut all = Vec::new();
            for item in items {
                all.extend(legend_entries(item)?);
                if all.len() > MAX_PER_SQUARE {
                    return Err(crowded(all.len()));
                }
            }
            Ok(all)
        }
        _ => Err("expected an element name, a table with `element`, or a list of them".into()),
    }
}

/// Where square `p` of a `width`×`height` board lands when the board turns clockwise.
fn rotate_pos(p: Pos, quarter_turns: u8, width: i32, height: i32) -> Pos {
    let (mut p, mut w, mut h) = (p, width, height);
    for _ in 0..quarter_turns {
        p = Pos::new(h - 1 - p.y, p.x);
        std::mem::swap(&mut w, &mut h);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotating_a_board_moves_the_north_west_corner_east() {
        assert_eq!(rotate_pos(Pos::new(0, 0), 1, 4, 2), Pos::new(1, 0));
        assert_eq!(rotate_pos(Pos::new(3, 0), 1, 4, 2), Pos::new(1, 3));
        assert_eq!(rotate_pos(Pos::new(0, 0), 2, 4, 2), Pos::new(3, 1));
    }
}
