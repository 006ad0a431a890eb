//! The board: which element instances stand on which squares, and the static facts their
//! scripts declared when the board was compiled (walls on edges, hazards, flags, docks).
//! Those facts are native tables, so the hot paths (movement, beams) never call Lua for them.
//! Boards are read from their files by [`file`] (TOML) and `tiled` (Tiled maps); the
//! elements' parameters are checked against the schemas their scripts declare ([`params`]).

pub(crate) mod file;
pub mod params;
pub(crate) mod tiled;
mod walk;

pub use file::{BoardRef, Layout, Origin, Part};
pub use walk::Walk;

use crate::error::{Error, Result};
use crate::geometry::{Dir, Pos};
use crate::hooks::Hook;
use params::ParamSpecs;
use serde_json::{Map, Value};

/// One element instance on one square, with checked parameters.
#[derive(Clone, Debug)]
pub struct Tile {
    /// Index of the element in the rule set the board was compiled against.
    pub element: usize,
    pub name: String,
    pub at: Pos,
    pub params: Map<String, Value>,
}

/// Which way a wall stops things crossing one side of a square.
#[derive(Clone, Copy, Debug, Default)]
pub struct Blocking {
    /// Stops robots leaving the square through this side.
    pub robots_out: bool,
    /// Stops robots entering the square through this side.
    pub robots_in: bool,
    pub lasers_out: bool,
    pub lasers_in: bool,
}

/// What element scripts may declare about their square when the board is compiled.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub width: i32,
    /// Per square, per side (bit = `Dir::index`).
    robots_out: Vec<u8>,
    robots_in: Vec<u8>,
    lasers_out: Vec<u8>,
    lasers_in: Vec<u8>,
    /// Robots are never placed here (re-entry) and a teleport onto it destroys: pits and kin.
    hazard: Vec<bool>,
    /// Something physically occupies the square (a teleporter cannot land here).
    solid: Vec<bool>,
    pub flags: Vec<(u32, Pos)>,
    pub starts: Vec<Start>,
    /// Per tile (by index), the hooks of its element it does not hear (`b:ignore`), as bits
    /// (`1 << hook`): its handler cannot matter on that tile (a straight belt's
    /// `on_conveyed`), so it is not called there.
    pub ignored: Vec<u32>,
}

/// A start square (docking bay), as its element's `build` declares it (`b:start(n, facing)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Start {
    pub number: u32,
    pub at: Pos,
    /// The way a robot placed here faces when the game or scenario gives none.
    pub facing: Option<Dir>,
}

/// How `Board::compile` reaches the element declarations without depending on Lua.
pub trait Catalogue {
    /// The element's index and declared parameters, or a message (with a suggestion).
    fn element(&self, name: &str) -> std::result::Result<(usize, &ParamSpecs), String>;
    /// Runs the element's `build` declaration for tile `index`, if it has one.
    fn build(&self, index: usize, tile: &Tile, facts: &mut Facts) -> Result<()>;
}

#[derive(Clone, Debug)]
pub struct Board {
    pub name: String,
    pub description: String,
    pub width: i32,
    pub height: i32,
    /// In a fixed order (row, column, element name), so handlers run deterministically.
    pub tiles: Vec<Tile>,
    /// For a course, the boards it is made of (empty for a single board).
    pub parts: Vec<Part>,
    by_square: Vec<Vec<usize>>,
    facts: Facts,
    /// Per square, per side (bit = `Dir::index`): is leaving it that way blocked for robots
    /// (a wall on this side, or one on the neighbour's facing side)? Made from `facts` once,
    /// so that each square a move or a beam crosses costs one lookup.
    robots_blocked: Vec<u8>,
    lasers_blocked: Vec<u8>,
    /// Per square, per direction (`Dir::index`): how many squares a beam leaving it that way
    /// crosses before a wall or the board's edge stops it, so that a beam is traced by
    /// looking at the robots on its line, not square by square.
    laser_reach: Vec<[u32; 4]>,
    /// Per flag of `facts.flags`, the walking distances to it, made when first asked.
    walks: Vec<std::sync::OnceLock<Walk>>,
}

impl Board {
    /// Checks every placement against the element declarations and runs their `build`.
    pub fn compile(layout: &Layout, catalogue: &dyn Catalogue) -> Result<Board> {
        // Layouts are checked as they are read; checked again here, since every board
        // passes this way, before any size is multiplied or any square indexed.
        let (width, height) =
            file::check_size(layout.width.into(), layout.height.into()).map_err(|message| {
                Error::File {
                    file: layout.files.first().cloned().unwrap_or_default(),
                    message,
                }
            })?;
        let squares = (width * height) as usize;
        let mut tiles = Vec::with_capacity(layout.placements.len());
        for p in &layout.placements {
            if !(0..width).contains(&p.at.x) || !(0..height).contains(&p.at.y) {
                return Err(p.error(format!(
                    "element `{}` at {} is outside the {width}×{height} board",
                    p.element, p.at
                )));
            }
            let (element, specs) = catalogue.element(&p.element).map_err(|m| p.error(m))?;
            let mut params =
                params::check_all(specs, &p.params, &p.element).map_err(|e| p.error(e.message))?;
            if p.quarter_turns != 0 {
                for (name, value) in params.iter_mut() {
                    if let Some(spec) = specs.get(name) {
                        *value = spec.kind.rotate(value, p.quarter_turns);
                    }
                }
            }
            let tile = Tile {
                element,
                name: p.element.clone(),
                at: p.at,
                params,
            };
            tiles.push((tile, p));
        }
        tiles.sort_by(|(a, _), (b, _)| (a.at.y, a.at.x, &a.name).cmp(&(b.at.y, b.at.x, &b.name)));
        // Each tile's placement stays beside it until `build` has run, so that a tile its
        // element's `build` refuses is reported where the board file (or map) places it.
        let (tiles, placements): (Vec<Tile>, Vec<&file::Placement>) = tiles.into_iter().unzip();
        let count = tiles.len();
        let mut board = Board {
            name: layout.name.clone(),
            description: layout.description.clone(),
            width: layout.width,
            height: layout.height,
            tiles,
            parts: layout.parts.clone(),
            by_square: vec![Vec::new(); squares],
            robots_blocked: Vec::new(),
            walks: Vec::new(),
            lasers_blocked: Vec::new(),
            laser_reach: Vec::new(),
            facts: Facts {
                width: layout.width,
                robots_out: vec![0; squares],
                robots_in: vec![0; squares],
                lasers_out: vec![0; squares],
                lasers_in: vec![0; squares],
                hazard: vec![false; squares],
                solid: vec![false; squares],
                flags: Vec::new(),
                starts: Vec::new(),
                ignored: vec![0; count],
            },
        };
        for (index, (tile, placement)) in board.tiles.iter().zip(placements).enumerate() {
            if let Some(square) = board.index(tile.at) {
                board.by_square[square].push(index);
            }
            catalogue
                .build(index, tile, &mut board.facts)
                .map_err(|e| placement.error(e.to_string()))?;
        }
        board.facts.flags.sort();
        board.facts.starts.sort();
        let blocked = |out: &[u8], into: &[u8]| -> Vec<u8> {
            (0..squares)
                .map(|i| {
                    let at = Pos::new(i as i32 % width, i as i32 / width);
                    Dir::ALL
                        .into_iter()
                        .filter(|&d| Self::crosses_wall(out, into, &board, at, d))
                        .fold(0, |bits, d| bits | 1 << d.index())
                })
                .collect()
        };
        let robots = blocked(&board.facts.robots_out, &board.facts.robots_in);
        let lasers = blocked(&board.facts.lasers_out, &board.facts.lasers_in);
        (board.robots_blocked, board.lasers_blocked) = (robots, lasers);
        board.laser_reach = board.reaches();
        board.walks = vec![std::sync::OnceLock::new(); board.facts.flags.len()];
        Ok(board)
    }

    /// [`Board::laser_reach`] for every square: in each direction, a square's reach is its
    /// neighbour's plus one if the beam can cross to it, so the squares are visited with the
    /// neighbour first (from the far edge back).
    fn reaches(&self) -> Vec<[u32; 4]> {
        let mut reach = vec![[0; 4]; (self.width * self.height) as usize];
        for dir in Dir::ALL {
            let (dx, dy) = dir.delta();
            let xs: Vec<i32> = if dx > 0 {
                (0..self.width).rev().collect()
            } else {
                (0..self.width).collect()
            };
            let ys: Vec<i32> = if dy > 0 {
                (0..self.height).rev().collect()
            } else {
                (0..self.height).collect()
            };
            for &y in &ys {
                for &x in &xs {
                    let at = Pos::new(x, y);
                    let next = at.step(dir);
                    if let (Some(i), Some(j)) = (self.index(at), self.index(next)) {
                        if self.laser_can_cross(at, dir) {
                            reach[i][dir.index()] = reach[j][dir.index()] + 1;
                        }
                    }
                }
            }
        }
        reach
    }

    /// How many squares a beam leaving `from` in `dir` crosses before a wall or the edge of
    /// the board stops it (0 off the board).
    pub fn laser_reach(&self, from: Pos, dir: Dir) -> u32 {
        self.index(from)
            .map_or(0, |i| self.laser_reach[i][dir.index()])
    }

    pub fn contains(&self, p: Pos) -> bool {
        p.x >= 0 && p.y >= 0 && p.x < self.width && p.y < self.height
    }

    /// The square's index in row order, if it is on the board.
    pub fn index(&self, p: Pos) -> Option<usize> {
        self.contains(p).then(|| (p.y * self.width + p.x) as usize)
    }

    /// Tile indices on a square (empty off the board).
    pub fn tiles_at(&self, p: Pos) -> &[usize] {
        self.index(p).map_or(&[], |i| &self.by_square[i])
    }

    pub fn has_element(&self, p: Pos, name: &str) -> bool {
        self.tiles_at(p).iter().any(|&t| self.tiles[t].name == name)
    }

    /// Can a robot cross from `from` to its neighbour in `dir`? (The edge may be a wall.)
    #[inline]
    pub fn robot_can_cross(&self, from: Pos, dir: Dir) -> bool {
        let facts = &self.facts;
        self.can_cross(
            &self.robots_blocked,
            (&facts.robots_out, &facts.robots_in),
            from,
            dir,
        )
    }

    /// Can a laser beam cross from `from` to its neighbour in `dir`?
    #[inline]
    pub fn laser_can_cross(&self, from: Pos, dir: Dir) -> bool {
        let facts = &self.facts;
        self.can_cross(
            &self.lasers_blocked,
            (&facts.lasers_out, &facts.lasers_in),
            from,
            dir,
        )
    }

    /// Whether the edge from `from` in `dir` is open: one bit of `blocked` for a square of the
    /// board, else the walls (`out`, `into`) of the square beyond it, if that one is on it.
    #[inline]
    fn can_cross(&self, blocked: &[u8], walls: (&[u8], &[u8]), from: Pos, dir: Dir) -> bool {
        match self.index(from) {
            Some(i) => blocked[i] & (1 << dir.index()) == 0,
            None => !Self::crosses_wall(walls.0, walls.1, self, from, dir),
        }
    }

    fn crosses_wall(out: &[u8], into: &[u8], board: &Board, from: Pos, dir: Dir) -> bool {
        let bit = |bits: &[u8], p: Pos, d: Dir| {
            board
                .index(p)
                .is_some_and(|i| bits[i] & (1 << d.index()) != 0)
        };
        bit(out, from, dir) || bit(into, from.step(dir), dir.opposite())
    }

    /// A pit or anything else a robot must never be placed on. Off the board counts too.
    pub fn is_hazard(&self, p: Pos) -> bool {
        self.index(p).is_none_or(|i| self.facts.hazard[i])
    }

    pub fn is_solid(&self, p: Pos) -> bool {
        self.index(p).is_some_and(|i| self.facts.solid[i])
    }

    /// Does tile `t` hear `hook`? Every tile hears its element's hooks unless its `build`
    /// said `b:ignore` for one.
    pub fn hears(&self, t: usize, hook: Hook) -> bool {
        self.facts.ignored[t] & 1 << hook as u32 == 0
    }

    /// `(number, square)` of every flag, in order.
    pub fn flags(&self) -> &[(u32, Pos)] {
        &self.facts.flags
    }

    /// Walking distances to the flag on `flag` (one of [`Board::flags`]), computed the first
    /// time they are asked for and kept with the board.
    pub fn walk_to(&self, flag: Pos) -> &Walk {
        let i = self.facts.flags.iter().position(|(_, at)| *at == flag);
        let i = i.expect("walk_to is asked for a flag of the board");
        self.walks[i].get_or_init(|| Walk::new(self, flag))
    }

    /// Every start square, by number.
    pub fn starts(&self) -> &[Start] {
        &self.facts.starts
    }
}

impl Facts {
    fn index(&self, p: Pos) -> usize {
        (p.y * self.width + p.x) as usize
    }

    /// Declares a wall on side `side` of square `at`.
    pub fn add_wall(&mut self, at: Pos, side: Dir, blocking: Blocking) {
        let i = self.index(at);
        let bit = 1 << side.index();
        let set = |bits: &mut Vec<u8>, on: bool| {
            if on {
                bits[i] |= bit
            }
        };
        set(&mut self.robots_out, blocking.robots_out);
        set(&mut self.robots_in, blocking.robots_in);
        set(&mut self.lasers_out, blocking.lasers_out);
        set(&mut self.lasers_in, blocking.lasers_in);
    }

    pub fn set_hazard(&mut self, at: Pos) {
        let i = self.index(at);
        self.hazard[i] = true;
    }

    pub fn set_solid(&mut self, at: Pos) {
        let i = self.index(at);
        self.solid[i] = true;
    }

    /// Tile `index` does not hear `hook` (`b:ignore`).
    pub fn ignore(&mut self, index: usize, hook: Hook) {
        self.ignored[index] |= 1 << hook as u32;
    }
}
