//! Squares, directions and rotations: the vocabulary every other module speaks.
//!
//! Coordinates follow the file formats: `x` counts columns from the west edge, `y` counts
//! rows from the north edge, so moving north decreases `y`.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A square on the board (or just off it: positions may be negative or beyond the edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(from = "[i32; 2]", into = "[i32; 2]")]
pub struct Pos {
    pub x: i32,
    pub y: i32,
}

impl Pos {
    pub const fn new(x: i32, y: i32) -> Pos {
        Pos { x, y }
    }

    /// The neighbouring square in `dir`.
    pub fn step(self, dir: Dir) -> Pos {
        self.offset(dir, 1)
    }

    /// The square `n` squares away in `dir`.
    pub fn offset(self, dir: Dir, n: i32) -> Pos {
        let (dx, dy) = dir.delta();
        Pos::new(self.x + dx * n, self.y + dy * n)
    }

    /// Chebyshev distance: 1 for the eight neighbours.
    pub fn ring_distance(self, other: Pos) -> i32 {
        (self.x - other.x).abs().max((self.y - other.y).abs())
    }
}

impl From<[i32; 2]> for Pos {
    fn from([x, y]: [i32; 2]) -> Pos {
        Pos::new(x, y)
    }
}

impl From<Pos> for [i32; 2] {
    fn from(p: Pos) -> [i32; 2] {
        [p.x, p.y]
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.x, self.y)
    }
}

/// A compass direction. The order (N, E, S, W) is clockwise, which makes turning arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Dir {
    N,
    E,
    S,
    W,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::N, Dir::E, Dir::S, Dir::W];

    /// North or south: moving this way keeps the column.
    pub fn is_vertical(self) -> bool {
        matches!(self, Dir::N | Dir::S)
    }

    pub fn delta(self) -> (i32, i32) {
        match self {
            Dir::N => (0, -1),
            Dir::E => (1, 0),
            Dir::S => (0, 1),
            Dir::W => (-1, 0),
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    fn from_index(i: usize) -> Dir {
        Dir::ALL[i % 4]
    }

    pub fn turned(self, rotation: Rotation) -> Dir {
        Dir::from_index(self.index() + rotation.quarter_turns() as usize)
    }

    pub fn opposite(self) -> Dir {
        self.turned(Rotation::UTurn)
    }

    /// The rotation that turns `self` into `to`, if they differ.
    pub fn rotation_to(self, to: Dir) -> Option<Rotation> {
        match (to.index() + 4 - self.index()) % 4 {
            0 => None,
            1 => Some(Rotation::Right),
            2 => Some(Rotation::UTurn),
            _ => Some(Rotation::Left),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Dir::N => "N",
            Dir::E => "E",
            Dir::S => "S",
            Dir::W => "W",
        }
    }

    /// Accepts `N`/`E`/`S`/`W` and the long names, in any case.
    pub fn parse(text: &str) -> Option<Dir> {
        Dir::ALL.into_iter().find(|d| {
            let long = match d {
                Dir::N => "north",
                Dir::E => "east",
                Dir::S => "south",
                Dir::W => "west",
            };
            text.eq_ignore_ascii_case(d.name()) || text.eq_ignore_ascii_case(long)
        })
    }
}

impl TryFrom<String> for Dir {
    type Error = String;
    fn try_from(text: String) -> Result<Dir, String> {
        Dir::parse(&text).ok_or_else(|| {
            format!("unknown direction `{text}`, expected one of N, E, S, W (or north, east, south, west)")
        })
    }
}

impl From<Dir> for &'static str {
    fn from(d: Dir) -> &'static str {
        d.name()
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A turn in place: left is counter-clockwise, right clockwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Rotation {
    Left,
    Right,
    UTurn,
}

impl Rotation {
    /// Clockwise quarter turns (0..4).
    pub fn quarter_turns(self) -> u8 {
        match self {
            Rotation::Right => 1,
            Rotation::UTurn => 2,
            Rotation::Left => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Rotation::Left => "left",
            Rotation::Right => "right",
            Rotation::UTurn => "uturn",
        }
    }

    pub fn parse(text: &str) -> Option<Rotation> {
        let names: [(&[&str], Rotation); 3] = [
            (&["left", "l", "ccw"], Rotation::Left),
            (&["right", "r", "cw"], Rotation::Right),
            (&["uturn", "u", "u-turn"], Rotation::UTurn),
        ];
        names
            .into_iter()
            .find(|(spellings, _)| spellings.iter().any(|s| text.eq_ignore_ascii_case(s)))
            .map(|(_, r)| r)
    }
}

impl TryFrom<String> for Rotation {
    type Error = String;
    fn try_from(text: String) -> Result<Rotation, String> {
        Rotation::parse(&text).ok_or_else(|| {
            format!("unknown rotation `{text}`, expected `left`, `right` or `uturn`")
        })
    }
}

impl From<Rotation> for &'static str {
    fn from(r: Rotation) -> &'static str {
        r.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_is_clockwise_arithmetic() {
        assert_eq!(Dir::N.turned(Rotation::Right), Dir::E);
        assert_eq!(Dir::N.turned(Rotation::Left), Dir::W);
        assert_eq!(Dir::E.turned(Rotation::UTurn), Dir::W);
        assert_eq!(Dir::S.rotation_to(Dir::W), Some(Rotation::Right));
        assert_eq!(Dir::S.rotation_to(Dir::E), Some(Rotation::Left));
        assert_eq!(Dir::S.rotation_to(Dir::S), None);
    }

    #[test]
    fn north_decreases_y() {
        assert_eq!(Pos::new(2, 2).step(Dir::N), Pos::new(2, 1));
        assert_eq!(Pos::new(2, 2).offset(Dir::W, 2), Pos::new(0, 2));
    }
}
