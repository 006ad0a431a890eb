//! The replay viewer: one self-contained HTML file that plays a resolved scenario (or a
//! recorded replay log) or a whole recorded game, for sharing a game or a rules question with
//! someone who has no rally installed.
//!
//! The file holds the board as SVG (drawn once by [`crate::svg`], without robots), one frame
//! per moment of the game as JSON ([`view`]), and two scripts: `board.js` (`RallyBoard`, the
//! drawing module the playtest table shares: robots, ghosts and trails, beams, shots, the
//! cards, the robots table and the event list, all drawn from a frame) and `viewer.js` (the
//! navigation around it). Nothing is fetched: it opens from disk with no network.

pub mod view;

use crate::engine::Game;
use crate::error::Result;
use crate::game::{Phase, TurnRecord};
use crate::scenario::Scenario;
use crate::state::{Event, Robot};
use crate::svg;
use serde::Serialize;

/// The drawing module (`RallyBoard`), for any page that draws frames: include it in a
/// `<script>` element (docs/pictures.md documents its interface and the frame JSON).
pub const BOARD_JS: &str = include_str!("html/board.js");
const VIEWER_JS: &str = include_str!("html/viewer.js");
const TEMPLATE: &str = include_str!("html/viewer.html");

/// One moment of the game: the robots as they stand then (with their programs), and what
/// happened since the frame before.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Its name in links (`t1r2s3`, see [`view::FrameView::id`]).
    pub id: String,
    pub label: String,
    pub turn: u32,
    /// 1..=5, or 0 outside the registers.
    pub register: u8,
    /// The step just resolved, `card`, `start` or `end` (see [`view::FrameView::stage`]).
    pub stage: String,
    /// The robot whose card this frame executes.
    pub acting: Option<String>,
    pub robots: Vec<Robot>,
    pub events: Vec<Event>,
}

impl Frame {
    /// The frame after `phase` of turn `turn` ("Start", "Register 2", "End of turn").
    pub fn of_phase(turn: u32, phase: Phase, robots: Vec<Robot>, events: Vec<Event>) -> Frame {
        let (id, register, stage, label) = match phase {
            Phase::Register(r) => (
                format!("t{turn}r{r}s1"),
                r,
                "register",
                format!("Register {r}"),
            ),
            Phase::EndOfTurn => (format!("t{turn}end"), 0, "end", "End of turn".into()),
            Phase::Program | Phase::Over => (format!("t{turn}r0"), 0, "start", "Start".into()),
        };
        Frame {
            id,
            label,
            turn,
            register,
            stage: stage.into(),
            acting: None,
            robots,
            events,
        }
    }
}

/// Resolves `scenario` on a freshly started `game`, one frame per register: "Start" (after
/// the start of the turn), "Register 1".., and "End of turn" if the scenario resolves it.
pub fn frames(scenario: &Scenario, game: &mut Game) -> Result<Vec<Frame>> {
    let mut frames = Vec::new();
    let mut seen = 0;
    let mut snapshot = |game: &Game, phase: Phase| {
        let state = game.state();
        frames.push(Frame::of_phase(
            state.turn,
            phase,
            state.robots.clone(),
            state.events[seen..].to_vec(),
        ));
        seen = state.events.len();
    };
    game.start_turn()?;
    snapshot(game, Phase::Program);
    for register in 1..=scenario.registers {
        game.run_register(register)?;
        snapshot(game, Phase::Register(register));
    }
    if scenario.end_of_turn {
        game.end_turn()?;
        snapshot(game, Phase::EndOfTurn);
    }
    Ok(frames)
}

/// The frames a whole game recorded (`rally play`, `rally sim`): one per snapshot of each
/// turn, labelled "Turn 3 · Register 2", with the events of that stage and the programs dealt.
pub fn game_frames(turns: &[TurnRecord]) -> Vec<Frame> {
    let mut frames = Vec::new();
    for turn in turns {
        let mut seen = 0;
        for snapshot in &turn.snapshots {
            let upto = snapshot.events.clamp(seen, turn.events.len());
            let mut robots = snapshot.robots.clone();
            for robot in &mut robots {
                if let Some(dealt) = turn.dealt.iter().find(|d| d.robot == robot.name) {
                    robot.program.clone_from(&dealt.program);
                }
            }
            let mut frame = Frame::of_phase(
                turn.turn,
                snapshot.stage,
                robots,
                turn.events[seen..upto].to_vec(),
            );
            frame.label = format!("Turn {} · {}", turn.turn, frame.label);
            frames.push(frame);
            seen = upto;
        }
    }
    frames
}

#[derive(Serialize)]
struct Data {
    flags: usize,
    frames: Vec<view::FrameView>,
}

/// The board as the page shows it: its picture without robots, which the frames draw.
pub fn board_svg(game: &Game) -> String {
    svg::picture(game.rules(), &game.board(), &[], &svg::Options::default())
}

/// The whole page. `title` heads it; `description` (may be empty) says what it shows.
pub fn page(game: &Game, title: &str, description: &str, frames: &[Frame]) -> String {
    let board = game.board();
    let data = Data {
        flags: board.flags().len(),
        frames: view::views(&board, frames),
    };
    // `<` escaped so no string in the data can close the script element.
    let json = serde_json::to_string(&data)
        .expect("replay data serializes")
        .replace('<', "\\u003c");
    let description = if description.is_empty() {
        String::new()
    } else {
        format!("<p class=\"description\">{}</p>", escape(description))
    };
    fill(
        TEMPLATE,
        &[
            ("TITLE", &escape(title)),
            ("DESCRIPTION", &description),
            ("BOARD", &board_svg(game)),
            ("DATA", &json),
            ("BOARD_JS", BOARD_JS),
            ("VIEWER_JS", VIEWER_JS),
        ],
    )
}

/// Replaces each `{{NAME}}` in `template` in one pass, so a value that happens to contain a
/// marker (a board named `{{DATA}}`) is never substituted again.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| {
            let name = &after[..end];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (end, *v))
        }) {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
