//! What a designer sees where a run stopped (docs/debugging.md): at a script error, the
//! events up to it, then the board and the robots as the register was rolled back; at a
//! moment asked for (`--until`), the board, the robots and the events so far. `rally run`,
//! `rally watch` and `rally play` show the same.

use crate::engine::{Engine, RolledBack};
use crate::pictures::render::{self, Clock};
use std::fmt::Write;

/// The state after a failure: every event before the failed stage, the ones it had logged
/// before it failed (marked as taken back), then the board and robots as the rollback left
/// them, under a line that says when it failed (`turn 2, register 3, step gears`). Without
/// `rolled` (a failure outside the registers and the turn's ends) only the board and robots.
/// The lines say when on `clock` (a scenario's: [`Clock::of_run`]; a game's: turns).
pub fn failure(engine: &Engine, rolled: Option<&RolledBack>, clock: Clock) -> String {
    let state = engine.state();
    let sentences = &engine.rules().sentences;
    let mut out = String::new();
    let taken_back = rolled.map_or(&[][..], |r| &r.events[..]);
    let all: Vec<_> = state.events.iter().chain(taken_back).cloned().collect();
    let _ = writeln!(out, "Events up to the failure:");
    for e in &state.events {
        let _ = writeln!(out, "  {}", render::told(e, sentences, clock));
    }
    for e in taken_back {
        let _ = writeln!(out, "  {} (rolled back)", render::told(e, sentences, clock));
    }
    if all.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    let when = rolled.map_or_else(String::new, |r| format!(" ({})", r.moment()));
    let board = engine.board();
    let glyphs = render::glyphs(engine.rules(), &board);
    let _ = writeln!(
        out,
        "\nThe board and robots as the failed stage was rolled back{when}:"
    );
    let _ = writeln!(out, "{}", render::board(&board, &glyphs, &state));
    out.push_str(&render::robots(&state));
    if let Some(r) = rolled {
        let _ = writeln!(
            out,
            "✗ script error in {}, the register was rolled back:",
            r.moment()
        );
    }
    out
}
