//! Text pictures for the terminal: the board with its robots, and the event log, readable at a
//! glance. Each square is drawn as two characters (the element's `glyph`, or the robot's
//! initial and an arrow for its facing); walls are drawn as `|` and `--` on the square's edges.

use crate::board::Board;
use crate::geometry::{Dir, Pos};
use crate::script::{lua_message, RuleSet};
use crate::state::{Event, GameState};
use mlua::Value;
use std::fmt::Write;

/// The glyph of every square, from the element scripts (`glyph = ">"` or `glyph = function(tile)`).
pub fn glyphs(rules: &RuleSet, board: &Board) -> Vec<String> {
    let mut out = vec![String::from("."); (board.width * board.height) as usize];
    for tile in &board.tiles {
        let def = &rules.elements[tile.element];
        let glyph = match &def.glyph {
            Some(Value::String(s)) => s.to_string_lossy(),
            Some(Value::Function(f)) => rules
                .tile_table(tile)
                .and_then(|t| f.call::<String>(t))
                .unwrap_or_else(|e| {
                    tracing::warn!("glyph of `{}`: {}", tile.name, lua_message(&e));
                    "?".into()
                }),
            _ => tile.name.chars().take(2).collect(),
        };
        let i = (tile.at.y * board.width + tile.at.x) as usize;
        // Later (non-floor) elements on a square draw over earlier ones; walls draw as edges.
        if tile.name != "floor" && tile.name != "wall" {
            out[i] = glyph;
        }
    }
    out
}

fn arrow(d: Dir) -> char {
    match d {
        Dir::N => '^',
        Dir::E => '>',
        Dir::S => 'v',
        Dir::W => '<',
    }
}

/// The board with the robots standing on it.
pub fn board(board: &Board, glyphs: &[String], state: &GameState) -> String {
    let mut out = String::new();
    let _ = write!(out, "    ");
    for x in 0..board.width {
        let _ = write!(out, " {:<2}", x % 100);
    }
    out.push('\n');
    for y in 0..board.height {
        let _ = write!(out, "{y:>3} ");
        for x in 0..board.width {
            let p = Pos::new(x, y);
            let wall_west = !board.robot_can_cross(p, Dir::W);
            out.push(if wall_west { '|' } else { ' ' });
            let cell = match state.robots.iter().find(|r| !r.destroyed && r.at == p) {
                Some(r) => format!(
                    "{}{}",
                    r.name.chars().next().unwrap_or('?'),
                    arrow(r.facing)
                ),
                None => glyphs[(y * board.width + x) as usize].clone(),
            };
            let _ = write!(out, "{cell:<2}");
        }
        let east_wall = !board.robot_can_cross(Pos::new(board.width - 1, y), Dir::E);
        out.push_str(if east_wall { "|\n" } else { "\n" });
        let walls_south: Vec<bool> = (0..board.width)
            .map(|x| !board.robot_can_cross(Pos::new(x, y), Dir::S))
            .collect();
        if walls_south.iter().any(|w| *w) {
            let _ = write!(out, "    ");
            for w in walls_south {
                out.push_str(if w { " --" } else { "   " });
            }
            out.push('\n');
        }
    }
    out
}

/// One robot per line: where it is and what it carries.
pub fn robots(state: &GameState) -> String {
    let mut out = String::new();
    for r in &state.robots {
        let place = if r.destroyed {
            "destroyed".to_string()
        } else {
            format!("at {} facing {}", r.at, r.facing)
        };
        let _ = write!(
            out,
            "  {:<8} {place}, damage {}, lives {}, flags {}, archive {}",
            r.name, r.damage, r.lives, r.flags, r.archive
        );
        if r.powered_down {
            out.push_str(", powered down");
        }
        if !r.vars.is_empty() {
            let _ = write!(out, ", vars {}", serde_json::Value::Object(r.vars.clone()));
        }
        out.push('\n');
    }
    out
}

/// One event per line: `R2 board_elements  A  conveyed dir=S to=[1,2]`.
pub fn event(e: &Event) -> String {
    let when = if e.register > 0 {
        format!("R{}", e.register)
    } else {
        format!("T{}", e.turn)
    };
    let mut line = format!(
        "{when:<3} {:<15} {:<8} {}",
        e.segment,
        e.robot.as_deref().unwrap_or("-"),
        e.what
    );
    for (k, v) in &e.detail {
        let v = match v {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = write!(line, " {k}={v}");
    }
    line
}
