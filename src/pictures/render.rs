//! Text pictures for the terminal: the board with its robots, and the event log, readable at a
//! glance. Each square is drawn as two characters (the element's `glyph`, or the robot's
//! initial and an arrow for its facing); walls are drawn as `|` and `--` on the square's edges.

use crate::board::{Board, Tile};
use crate::geometry::{Dir, Pos};
use crate::script::RuleSet;
use crate::state::{Event, State};
use mlua::Value;
use std::fmt::Write;

/// The glyph of every square, from the element scripts (`glyph = ">"` or `glyph = function(tile)`).
pub fn glyphs(rules: &RuleSet, board: &Board) -> Vec<String> {
    drawn(rules, board)
        .into_iter()
        .map(|d| d.map_or_else(|| ".".into(), |(glyph, _)| glyph))
        .collect()
}

/// For every square, the glyph drawn there and the element that drew it (none: floor).
/// Later (non-floor) elements on a square draw over earlier ones; walls draw as edges, and so
/// do edge elements whose glyph is "" (one-way walls, ledges, repulsors).
fn drawn<'b>(rules: &RuleSet, board: &'b Board) -> Vec<Option<(String, &'b str)>> {
    let mut out = vec![None; (board.width * board.height) as usize];
    for tile in &board.tiles {
        let glyph = glyph(rules, tile);
        if !is_edge(tile, &glyph) && tile.name != "floor" {
            out[(tile.at.y * board.width + tile.at.x) as usize] = Some((glyph, tile.name.as_str()));
        }
    }
    out
}

/// Drawn on a square's edges (`|`, `--`), not in it.
fn is_edge(tile: &Tile, glyph: &str) -> bool {
    tile.name == "wall" || glyph.is_empty()
}

/// The key to the glyphs [`board`] draws for `board`, wrapped to lines of about 90 columns:
/// `key: >  v  <  ^ conveyor · G<  G> gear · O pit · | -- wall · A> a robot (initial, facing)`.
/// Each element is listed once, in board order, with every glyph it shows on this board.
pub fn legend(rules: &RuleSet, board: &Board) -> String {
    let mut keys: Vec<(&str, Vec<String>)> = Vec::new();
    for (glyph, name) in drawn(rules, board).into_iter().flatten() {
        match keys.iter_mut().find(|(n, _)| *n == name) {
            Some((_, glyphs)) if !glyphs.contains(&glyph) => glyphs.push(glyph),
            Some(_) => {}
            None => keys.push((name, vec![glyph])),
        }
    }
    let walls = board.tiles.iter().any(|t| is_edge(t, &glyph(rules, t)));
    let mut items: Vec<String> = keys
        .iter_mut()
        .map(|(name, glyphs)| {
            // Shortest first, then in order: `S1 S2 … S10`, `< ^ v >> vv`.
            glyphs.sort_by(|a, b| (a.chars().count(), a).cmp(&(b.chars().count(), b)));
            format!("{} {name}", glyphs.join(" "))
        })
        .collect();
    if walls {
        items.push("| -- wall".into());
    }
    items.push(". floor · A> a robot (initial, facing)".into());
    let mut out = String::from("key:");
    let mut width = out.len();
    for (i, item) in items.iter().enumerate() {
        let sep = if i == 0 { " " } else { " · " };
        if width + sep.len() + item.chars().count() > 90 {
            out.push_str("\n    ");
            width = 4;
        } else {
            out.push_str(sep);
            width += sep.len();
        }
        out.push_str(item);
        width += item.chars().count();
    }
    crate::text::clean(&out).into_owned()
}

/// The glyph of one tile: its script's `glyph`, else the first two letters of its name.
pub fn glyph(rules: &RuleSet, tile: &Tile) -> String {
    text_of(
        rules,
        tile,
        rules.elements[tile.element].glyph.as_ref(),
        "glyph",
    )
    .unwrap_or_else(|| tile.name.chars().take(2).collect())
}

/// A declared text: a string, or `function(tile) -> string` called with the tile (`what` names
/// the key in the warning when the function fails).
pub fn text_of(rules: &RuleSet, tile: &Tile, value: Option<&Value>, what: &str) -> Option<String> {
    match value? {
        Value::String(s) => Some(crate::text::clean_line(&s.to_string_lossy()).into_owned()),
        Value::Function(f) => Some(
            rules
                .budgeted(|| rules.tile_table(tile).and_then(|t| f.call::<String>(t)))
                .map(|text| crate::text::clean_line(&text).into_owned())
                .unwrap_or_else(|e| {
                    tracing::warn!("{what} of `{}`: {e}", tile.name);
                    "?".into()
                }),
        ),
        _ => None,
    }
}

fn arrow(d: Dir) -> char {
    match d {
        Dir::N => '^',
        Dir::E => '>',
        Dir::S => 'v',
        Dir::W => '<',
    }
}

/// The letter a robot is drawn as: its name's first (`?` for none, or for a control
/// character, which must not reach the terminal).
pub fn initial(name: &str) -> char {
    name.chars()
        .next()
        .filter(|c| !c.is_control())
        .unwrap_or('?')
}

/// The board with the robots standing on it.
pub fn board(board: &Board, glyphs: &[String], state: &State) -> String {
    board_painted(board, glyphs, state, &|_, _, cell| cell)
}

/// The board as [`board`] draws it, with every two-character cell passed through `paint`
/// (its square, the robot standing there, the padded cell text) so a terminal can colour it
/// without upsetting the column widths (`rally play`).
pub fn board_painted(
    board: &Board,
    glyphs: &[String],
    state: &State,
    paint: &dyn Fn(Pos, Option<usize>, String) -> String,
) -> String {
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
            let robot = state.robots.iter().position(|r| !r.destroyed && r.at == p);
            let cell = match robot.map(|id| &state.robots[id]) {
                Some(r) => format!("{}{}", initial(&r.name), arrow(r.facing)),
                None => glyphs[(y * board.width + x) as usize].clone(),
            };
            out.push_str(&paint(p, robot, format!("{cell:<2}")));
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

/// One robot per line: where it is and what it carries. Names and script memory come from
/// files and scripts: their control characters are shown escaped.
pub fn robots(state: &State) -> String {
    state.robots.iter().map(robot).collect()
}

/// One robot's line of [`robots`]: where, damage, lives, flags, archive, vars.
pub fn robot(r: &crate::state::Robot) -> String {
    let mut line = String::new();
    let place = if r.destroyed {
        "destroyed".to_string()
    } else {
        format!("at {} facing {}", r.at, r.facing)
    };
    let _ = write!(
        line,
        "  {:<8} {place}, damage {}, lives {}, flags {}, archive {}",
        r.name, r.damage, r.lives, r.flags, r.archive
    );
    if r.powered_down {
        line.push_str(", powered down");
    }
    if !r.vars.is_empty() {
        let _ = write!(
            line,
            ", vars {}",
            serde_json::Value::Object((*r.vars).clone())
        );
    }
    format!("{}\n", crate::text::clean_line(&line))
}

/// How an event line says when it happened: `R2` in the log of one turn, as it always has;
/// `T2 R3` in a log of several turns, where `R3` alone would not say which turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Registers,
    Turns,
}

impl Clock {
    /// The clock a whole log is shown with: turns on every line when it spans more than one.
    pub fn of(events: &[Event]) -> Clock {
        match events.first() {
            Some(first) if events.iter().any(|e| e.turn != first.turn) => Clock::Turns,
            _ => Clock::Registers,
        }
    }

    /// `R3`, or `T2 R3` on [`Clock::Turns`]; `T2` outside the registers.
    pub fn label(self, turn: u32, register: u8) -> String {
        match (self, register) {
            (_, 0) => format!("T{turn}"),
            (Clock::Registers, r) => format!("R{r}"),
            (Clock::Turns, r) => format!("T{turn} R{r}"),
        }
    }

    /// The clock of a scenario's log: turns on every line when it plays several (`turns`),
    /// even where the log stops in the first (`--until`, a failure); otherwise as [`Clock::of`].
    pub fn of_run(turns: Option<u32>, events: &[Event]) -> Clock {
        match turns {
            Some(n) if n > 1 => Clock::Turns,
            _ => Clock::of(events),
        }
    }
}

/// One event per line, as data: `R2 board_elements  A  conveyed dir=S to=[1,2]`
/// (`rally run --raw-events`, and run-to-run differences); `T2 R2 ...` on a [`Clock::Turns`].
pub fn event(e: &Event, clock: Clock) -> String {
    format!("{} {}", when(e, clock), event_details(e))
}

/// One event per line, in words: `R2 board_elements Robot A is carried S to [1, 2]`; a
/// script's event in the sentence its declaration gives (`sentences`).
pub fn told(e: &Event, sentences: &crate::text::sentence::Sentences, clock: Clock) -> String {
    format!(
        "{} {}",
        when(e, clock),
        crate::pictures::words::describe(e, sentences)
    )
}

/// When an event happened, and in which step: `R2  board_elements `; on a [`Clock::Turns`]
/// `T2 R2 board_elements ` (`T2    ` outside the registers), so the columns stay aligned.
fn when(e: &Event, clock: Clock) -> String {
    let when = clock.label(e.turn, e.register);
    let width = match clock {
        Clock::Registers => 3,
        Clock::Turns => 6,
    };
    format!("{when:<width$} {:<15}", e.segment)
}

/// An event without its time: `A        conveyed dir=S to=[1,2]`.
pub fn event_details(e: &Event) -> String {
    let mut line = format!("{:<8} {}", e.robot.as_deref().unwrap_or("-"), e.what);
    for (k, v) in e.detail.iter() {
        // A square a script logged as `{ x =, y = }` reads as the engine's do: `[x,y]`.
        let v = match (v, crate::pictures::words::square(v)) {
            (serde_json::Value::String(s), _) => s.clone(),
            (_, Some(p)) => format!("[{},{}]", p.x, p.y),
            (other, None) => other.to_string(),
        };
        let _ = write!(line, " {k}={v}");
    }
    // Names and details come from scripts and files: their control characters are shown.
    crate::text::clean_line(&line).into_owned()
}

/// A scenario's expectation results: `✓ all expectations hold`, or one `✗` line per failure.
pub fn expectations(failures: &[crate::formats::scenario::Failure]) -> String {
    if failures.is_empty() {
        return "✓ all expectations hold\n".into();
    }
    let mut out = String::new();
    for f in failures {
        let line = format!(
            "✗ {}: {} expected {}, got {}",
            f.robot, f.key, f.expected, f.actual
        );
        let _ = writeln!(out, "{}", crate::text::clean_line(&line));
    }
    out
}
