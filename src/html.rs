//! The replay viewer: one self-contained HTML file that plays a resolved scenario (or a
//! recorded replay log) register by register, or a whole recorded game stage by stage, for
//! sharing a game or a rules question with someone who has no rally installed.
//!
//! The file holds the board as SVG (drawn once by [`crate::svg`]), one frame per moment of
//! the game (the start, each register, the end of the turn) as JSON, and a small inline script
//! that swaps the robots layer and the side panels. Each frame's robots are drawn here, in
//! Rust, by the same code as `rally render`, so the viewer and the pictures never disagree
//! and the script stays tiny. Nothing is fetched: it opens from disk with no network.

use crate::engine::Game;
use crate::error::Result;
use crate::game::TurnRecord;
use crate::render;
use crate::scenario::Scenario;
use crate::state::{Event, Robot};
use crate::svg;
use serde::Serialize;

/// One moment of the game: the robots as they stand then, and what happened to get there.
#[derive(Clone, Debug, Serialize)]
pub struct Frame {
    pub label: String,
    pub robots: Vec<Robot>,
    pub events: Vec<Event>,
}

/// Resolves `scenario` on a freshly started `game`, one frame per register: "Start" (after
/// the start of the turn), "Register 1".., and "End of turn" if the scenario resolves it.
pub fn frames(scenario: &Scenario, game: &mut Game) -> Result<Vec<Frame>> {
    let mut frames = Vec::new();
    let mut seen = 0;
    let mut snapshot = |game: &Game, label: String| {
        let state = game.state();
        frames.push(Frame {
            label,
            robots: state.robots.clone(),
            events: state.events[seen..].to_vec(),
        });
        seen = state.events.len();
    };
    game.start_turn()?;
    snapshot(game, "Start".into());
    for register in 1..=scenario.registers {
        game.run_register(register)?;
        snapshot(game, format!("Register {register}"));
    }
    if scenario.end_of_turn {
        game.end_turn()?;
        snapshot(game, "End of turn".into());
    }
    Ok(frames)
}

/// The frames a whole game recorded (`rally play`, `rally sim`): one per snapshot of each
/// turn, labelled "Turn 3 · Register 2", with the events of that stage.
pub fn game_frames(turns: &[TurnRecord]) -> Vec<Frame> {
    let mut frames = Vec::new();
    for turn in turns {
        let mut seen = 0;
        for snapshot in &turn.snapshots {
            let upto = snapshot.events.clamp(seen, turn.events.len());
            frames.push(Frame {
                label: format!("Turn {} · {}", turn.turn, snapshot.label()),
                robots: snapshot.robots.clone(),
                events: turn.events[seen..upto].to_vec(),
            });
            seen = upto;
        }
    }
    frames
}

/// What the page shows for one frame: the JSON the inline script reads.
#[derive(Serialize)]
struct FrameView<'a> {
    label: &'a str,
    /// The robots layer, drawn by `svg::robots_layer`.
    svg: String,
    robots: Vec<RobotView<'a>>,
    events: Vec<EventView>,
}

#[derive(Serialize)]
struct RobotView<'a> {
    name: &'a str,
    color: &'static str,
    at: [i32; 2],
    facing: String,
    damage: i32,
    lives: i32,
    flags: u32,
    destroyed: bool,
    powered_down: bool,
    vars: &'a serde_json::Map<String, serde_json::Value>,
}

#[derive(Serialize)]
struct EventView {
    robot: Option<String>,
    text: String,
}

#[derive(Serialize)]
struct Data<'a> {
    flags: usize,
    frames: Vec<FrameView<'a>>,
}

/// The whole page. `title` heads it; `description` (may be empty) says what it shows.
pub fn page(game: &Game, title: &str, description: &str, frames: &[Frame]) -> String {
    let board = game.board();
    let picture = svg::picture(game.rules(), &board, &[], &svg::Options::default());
    let data = Data {
        flags: board.flags().len(),
        frames: frames
            .iter()
            .map(|f| FrameView {
                label: &f.label,
                svg: svg::robots_layer(&f.robots),
                robots: f
                    .robots
                    .iter()
                    .enumerate()
                    .map(|(i, r)| RobotView {
                        name: &r.name,
                        color: svg::robot_color(i, r),
                        at: r.at.into(),
                        facing: r.facing.to_string(),
                        damage: r.damage,
                        lives: r.lives,
                        flags: r.flags,
                        destroyed: r.destroyed,
                        powered_down: r.powered_down,
                        vars: &r.vars,
                    })
                    .collect(),
                events: f
                    .events
                    .iter()
                    .map(|e| EventView {
                        robot: e.robot.clone(),
                        text: render::event(e),
                    })
                    .collect(),
            })
            .collect(),
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
            ("BOARD", &picture),
            ("DATA", &json),
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

const TEMPLATE: &str = include_str!("html/viewer.html");
