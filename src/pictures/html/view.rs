//! Frame views: what the page's drawing module (`board.js`, `RallyBoard`) draws for one moment
//! of a game, as JSON. The shape is documented for page authors in docs/pictures.md ("The
//! frame JSON"); the replay viewer and the playtest table (`rally serve`) both build their
//! frames here, so they show the same things the same way.
//!
//! Everything that needs the rules is worked out here, in Rust, so the page never re-implements
//! one: where each board laser's beam ends for the robots standing in the frame (the engine's
//! own `world::trace`), which squares a robot passed through since the previous frame (read
//! off the events), who shot whom (the `source` and `shooter` of the damage events), which
//! cards are face up, and who has won.

use super::{Frame, Moment};
use crate::board::Board;
use crate::geometry::{Dir, Pos};
use crate::pictures::words::describe;
use crate::state::{Event, Robot, REGISTERS};
use crate::text::sentence::Sentences;
use crate::{pictures::svg, world};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// One frame as the page draws it.
#[derive(Clone, Debug, Serialize)]
pub struct FrameView {
    #[serde(flatten)]
    pub moment: Moment,
    pub robots: Vec<RobotView>,
    /// Every board laser's beam as it stands in this frame.
    pub beams: Vec<BeamView>,
    /// The lasers that hit a robot in this frame, from shooter to target.
    pub shots: Vec<ShotView>,
    pub events: Vec<EventView>,
    /// The robot that has won the game by this frame.
    pub winner: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RobotView {
    pub name: String,
    pub color: &'static str,
    pub at: Pos,
    pub facing: Dir,
    pub damage: i32,
    pub lives: i32,
    pub flags: u32,
    pub destroyed: bool,
    pub powered_down: bool,
    pub vars: Map<String, Value>,
    /// Option cards held.
    pub options: Vec<String>,
    /// The squares it went through since the previous frame, where it was first and where it
    /// is last; absent when it did not move.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path: Vec<Pos>,
    /// Its facing in the previous frame, when that differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub was_facing: Option<Dir>,
    /// Destroyed in this frame (the page marks the wreck where it last stood).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wrecked: bool,
    /// Registers 1..=5 as `"move2@500"`, `null` for an empty register; empty when unknown.
    pub program: Vec<Option<String>>,
    /// How many of the program's cards are face up (registers 1..=shown).
    pub shown: u8,
}

#[derive(Clone, Debug, Serialize)]
pub struct BeamView {
    /// The emitter's square.
    pub from: Pos,
    /// The last square the beam reaches.
    pub to: Pos,
    pub dir: Dir,
    pub strength: i64,
    /// The robot that stops it, standing on `to`.
    pub hit: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ShotView {
    /// The square the beam started in: a board laser's emitter or the shooter's square.
    pub from: Pos,
    /// The target's square.
    pub to: Pos,
    /// The robot that fired; absent for a board laser.
    pub shooter: Option<String>,
    pub target: String,
    /// Damage dealt (0 when an option or rule prevented all of it).
    pub amount: i64,
    pub cause: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct EventView {
    pub robot: Option<String>,
    pub what: String,
    /// The event in words.
    pub text: String,
}

/// The views of `frames`, in order: each compared with the one before it. Events are told
/// in words, a script's in the sentences its declaration gives (`sentences`).
pub fn views(board: &Board, frames: &[Frame], sentences: &Sentences) -> Vec<FrameView> {
    let mut out = Vec::with_capacity(frames.len());
    let mut winner: Option<String> = None;
    // Robots that executed their card in the current register, for the face-up cards.
    let mut acted: HashSet<String> = HashSet::new();
    let mut register = (0, 0);
    for (i, frame) in frames.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| &frames[p].robots[..]);
        if (frame.moment.turn, frame.moment.register) != register {
            register = (frame.moment.turn, frame.moment.register);
            acted.clear();
        }
        for e in &frame.events {
            if e.what == "card" {
                acted.extend(e.robot.as_deref().map(str::to_string));
            }
            if e.what == "won" && winner.is_none() {
                winner = e.robot.as_deref().map(str::to_string);
            }
        }
        out.push(view(
            board,
            frame,
            previous,
            &acted,
            winner.clone(),
            sentences,
        ));
    }
    out
}

fn view(
    board: &Board,
    frame: &Frame,
    previous: Option<&[Robot]>,
    acted: &HashSet<String>,
    winner: Option<String>,
    sentences: &Sentences,
) -> FrameView {
    let cards_done = !matches!(
        frame.moment.stage.as_str(),
        "start" | "register_start" | "reveal" | "card"
    );
    let robots = frame
        .robots
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let before = previous.and_then(|p| p.iter().find(|b| b.name == r.name));
            let shown = match frame.moment.stage.as_str() {
                "start" => 0,
                "end" => 5,
                _ if cards_done || acted.contains(&*r.name) => frame.moment.register,
                _ => frame.moment.register.saturating_sub(1),
            };
            RobotView {
                name: r.name.to_string(),
                color: svg::robot_color(i, r),
                at: r.at,
                facing: r.facing,
                damage: r.damage,
                lives: r.lives,
                flags: r.flags,
                destroyed: r.destroyed,
                powered_down: r.powered_down,
                vars: (*r.vars).clone(),
                options: r.options.iter().map(|o| o.name.clone()).collect(),
                path: before.map_or_else(Vec::new, |b| path(board, b, r, &frame.events)),
                was_facing: before.map(|b| b.facing).filter(|&f| f != r.facing),
                wrecked: r.destroyed && before.is_some_and(|b| !b.destroyed),
                program: program(r),
                shown,
            }
        })
        .collect();
    FrameView {
        moment: frame.moment.clone(),
        robots,
        beams: beams(board, &frame.robots),
        shots: shots(&frame.robots, &frame.events),
        events: frame
            .events
            .iter()
            .map(|e| EventView {
                robot: e.robot.as_deref().map(str::to_string),
                what: e.what.to_string(),
                text: describe(e, sentences),
            })
            .collect(),
        winner,
    }
}

/// The robot's five registers as the page shows them (a shorter program's last registers are
/// empty); none when its program is not known.
fn program(r: &Robot) -> Vec<Option<String>> {
    if r.program.is_empty() {
        return Vec::new();
    }
    (1..=REGISTERS as u8)
        .map(|register| r.card(register).map(|c| c.to_string()))
        .collect()
}

/// The squares `now` went through since `before`: where it stood, every square on the board
/// an event of this frame put it on (a move, a push, a belt, a placement), and where it stands.
/// Empty if it stayed put. A robot that fell off the board ends at the last square it was on.
fn path(board: &Board, before: &Robot, now: &Robot, events: &[Event]) -> Vec<Pos> {
    let mut path = vec![before.at];
    let moves = events.iter().filter(|e| {
        e.robot.as_deref() == Some(&now.name)
            && matches!(
                e.what.as_ref(),
                "moved" | "pushed" | "conveyed" | "placed" | "reentered"
            )
    });
    for e in moves {
        let to = e.detail.get("to").or_else(|| e.detail.get("at"));
        if let Some(to) = to.and_then(|v| Pos::deserialize(v).ok()) {
            if board.contains(to) && path.last() != Some(&to) {
                path.push(to);
            }
        }
    }
    if !now.destroyed && path.last() != Some(&now.at) {
        path.push(now.at);
    }
    if path.len() < 2 {
        path.clear();
    }
    path
}

/// Every board laser's beam among `robots`, traced as the engine fires it.
fn beams(board: &Board, robots: &[Robot]) -> Vec<BeamView> {
    board
        .tiles
        .iter()
        .filter(|t| t.name == "laser")
        .filter_map(|t| {
            let dir = t.params.get("dir")?.as_str().and_then(Dir::parse)?;
            let beam = world::trace(board, robots, t.at, dir, false, 0);
            Some(BeamView {
                from: t.at,
                to: beam.end,
                dir,
                strength: t
                    .params
                    .get("strength")
                    .and_then(Value::as_i64)
                    .unwrap_or(1),
                hit: beam.hits.first().map(|&r| robots[r].name.to_string()),
            })
        })
        .collect()
}

/// The shots of a frame: every damage event that names the square its beam came from, one
/// shot per beam and target (a hit partly prevented logs two events).
fn shots(robots: &[Robot], events: &[Event]) -> Vec<ShotView> {
    let mut shots: Vec<ShotView> = Vec::new();
    for e in events {
        if !matches!(e.what.as_ref(), "damaged" | "damage_prevented") {
            continue;
        }
        let Some(from) = e
            .detail
            .get("source")
            .and_then(|v| Pos::deserialize(v).ok())
        else {
            continue;
        };
        let Some(target) = robots.iter().find(|r| Some(&*r.name) == e.robot.as_deref()) else {
            continue;
        };
        let text = |k: &str| e.detail.get(k).and_then(Value::as_str).map(String::from);
        let dealt = if e.what == "damaged" {
            e.detail.get("amount").and_then(Value::as_i64).unwrap_or(0)
        } else {
            0
        };
        let shooter = text("shooter");
        match shots
            .iter_mut()
            .find(|s| s.from == from && s.shooter == shooter && *s.target == *target.name)
        {
            Some(shot) => shot.amount += dealt,
            None => shots.push(ShotView {
                from,
                to: target.at,
                shooter,
                target: target.name.to_string(),
                amount: dealt,
                cause: text("cause").unwrap_or_default(),
            }),
        }
    }
    shots
}
