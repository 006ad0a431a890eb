//! The replay viewer: one self-contained HTML file that plays a resolved scenario (or a
//! recorded replay log) or a whole recorded game, for sharing a game or a rules question with
//! someone who has no rally installed.
//!
//! The file holds the board as SVG (drawn once by [`crate::pictures::svg`], without robots), one frame
//! per moment of the game as JSON ([`view`]), and two scripts: `board.js` (`RallyBoard`, the
//! drawing module the playtest table shares: robots, ghosts and trails, beams, shots, the
//! cards, the robots table and the event list, all drawn from a frame) and `viewer.js` (the
//! navigation around it). Nothing is fetched: it opens from disk with no network.

pub mod view;

use crate::cards::Card;
use crate::engine::Engine;
use crate::error::Result;
use crate::formats::scenario::Scenario;
use crate::game::{Phase, TurnRecord};
use crate::pictures::svg;
use crate::state::{Event, Robot, StepSnapshot};
use serde::Serialize;

/// The drawing module (`RallyBoard`), for any page that draws frames: include it in a
/// `<script>` element (docs/pictures.md documents its interface and the frame JSON).
pub const BOARD_JS: &str = include_str!("html/board.js");
const VIEWER_JS: &str = include_str!("html/viewer.js");
const TEMPLATE: &str = include_str!("html/viewer.html");

/// Where a frame stands in the game: its name in links and its place in the turn. Both the
/// frame and the page's view of it ([`view::FrameView`]) carry it.
#[derive(Clone, Debug, Serialize)]
pub struct Moment {
    /// The frame's name in links: `t3r2s4` (turn 3, register 2, its 4th stage), `t3r0` (the
    /// start of turn 3), `t3end` (its end).
    pub id: String,
    pub label: String,
    pub turn: u32,
    /// 1..=5, or 0 outside the registers.
    pub register: u8,
    /// The step of the order of play just resolved (`belts`, `fire`...), `card` for one
    /// robot's card, `start` or `end` for the turn's ends.
    pub stage: String,
    /// The robot whose card this frame executes.
    pub acting: Option<String>,
}

/// One moment of the game: the robots as they stand then (with their programs), and what
/// happened since the frame before.
#[derive(Clone, Debug)]
pub struct Frame {
    pub moment: Moment,
    pub robots: Vec<Robot>,
    pub events: Vec<Event>,
}

impl Frame {
    /// The frame after the start (`Phase::Program`) or the end of turn `turn`, or after a
    /// whole register.
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
            moment: Moment {
                id,
                label,
                turn,
                register,
                stage: stage.into(),
                acting: None,
            },
            robots,
            events,
        }
    }
}

/// The frames of one register: one per step snapshot the engine noted (each card, each step in
/// which something happened), `t{turn}r{register}s1`, `s2`...; a register in which nothing
/// happened is one frame. `events` are the register's events, counted as the steps count
/// them; `after` are the robots once it is over.
pub fn register_frames(
    turn: u32,
    register: u8,
    steps: &[StepSnapshot],
    events: &[Event],
    after: Vec<Robot>,
) -> Vec<Frame> {
    if steps.is_empty() {
        return vec![Frame::of_phase(
            turn,
            Phase::Register(register),
            after,
            events.to_vec(),
        )];
    }
    let mut frames = Vec::with_capacity(steps.len());
    let mut seen = 0;
    for (i, m) in steps.iter().enumerate() {
        // The last frame takes any events logged after the last note.
        let upto = if i + 1 == steps.len() {
            events.len()
        } else {
            m.events.clamp(seen, events.len())
        };
        let events = events[seen..upto].to_vec();
        seen = upto;
        let stage = if m.robot.is_some() { "card" } else { &m.step };
        frames.push(Frame {
            moment: Moment {
                id: format!("t{turn}r{register}s{}", i + 1),
                label: format!("Register {register} · {}", stage_label(m, &events)),
                turn,
                register,
                stage: stage.to_string(),
                acting: m.robot.clone(),
            },
            robots: m.robots.clone(),
            events,
        });
    }
    frames
}

/// What a step snapshot shows, in words: "robot Alpha plays Move 2 (700)", "express belts",
/// "lasers".
fn stage_label(m: &StepSnapshot, events: &[Event]) -> String {
    if let Some(robot) = &m.robot {
        let card = events
            .iter()
            .find(|e| e.what == "card" && e.robot.as_deref() == Some(robot.as_str()))
            .and_then(|e| Card::parse(e.detail.get("card")?.as_str()?).ok());
        let robot = crate::pictures::words::robot_words(robot);
        return match card {
            Some(card) => format!(
                "{robot} plays {}",
                crate::pictures::words::card_words(&card)
            ),
            None => format!("the card of {robot}"),
        };
    }
    match m.step.as_str() {
        "register_start" => "start of the register".into(),
        "reveal" => "cards revealed".into(),
        "robots_move" => "robots move".into(),
        "after_cards" => "after the cards".into(),
        "fire" => "lasers".into(),
        "touch" => "flags and repair sites".into(),
        "register_end" => "end of the register".into(),
        step => step.replace('_', " "),
    }
}

/// Resolves `scenario` on a freshly started `game`: "Start" (after the start of the turn),
/// then each register stage by stage (each robot's card, each step in which something
/// happened), and "End of turn" if the scenario resolves it. A scenario of several turns is
/// shown as a game is, turn by turn.
pub fn frames(scenario: &Scenario, engine: &mut Engine) -> Result<Vec<Frame>> {
    if let Some(turns) = scenario.record_turns(engine)? {
        return Ok(game_frames(&turns));
    }
    let mut frames = Vec::new();
    engine.start_turn()?;
    let turn = engine.state().turn;
    let events = |engine: &Engine, from: usize| engine.state().events[from..].to_vec();
    frames.push(Frame::of_phase(
        turn,
        Phase::Program,
        engine.state().robots.clone(),
        events(engine, 0),
    ));
    for register in 1..=scenario.registers {
        let seen = engine.state().events.len();
        let mut steps = engine.run_register_noted(register)?;
        for m in &mut steps {
            m.events -= seen;
        }
        let after = engine.state().robots.clone();
        frames.extend(register_frames(
            turn,
            register,
            &steps,
            &events(engine, seen),
            after,
        ));
    }
    if scenario.end_of_turn {
        let seen = engine.state().events.len();
        engine.end_turn()?;
        frames.push(Frame::of_phase(
            turn,
            Phase::EndOfTurn,
            engine.state().robots.clone(),
            events(engine, seen),
        ));
    }
    Ok(frames)
}

/// The frames a whole game recorded (`rally play`, `rally sim`): the start of each turn, each
/// register stage by stage, the end of the turn, labelled "Turn 3 · Register 2 · belts", with
/// the events of each and the programs dealt.
pub fn game_frames(turns: &[TurnRecord]) -> Vec<Frame> {
    let mut frames = Vec::new();
    for turn in turns {
        let programs = |robots: &[Robot]| -> Vec<Robot> {
            let mut robots = robots.to_vec();
            for robot in &mut robots {
                if let Some(dealt) = turn.dealt.iter().find(|d| *d.robot == *robot.name) {
                    robot.program.clone_from(&dealt.program);
                }
            }
            robots
        };
        let mut seen = 0;
        for snapshot in &turn.snapshots {
            let upto = snapshot.events.clamp(seen, turn.events.len());
            let events = &turn.events[seen..upto];
            let mut stage = match snapshot.stage {
                Phase::Register(r) => {
                    let steps: Vec<StepSnapshot> = snapshot
                        .steps
                        .iter()
                        .map(|m| StepSnapshot {
                            events: m.events.saturating_sub(seen),
                            robots: programs(&m.robots),
                            ..m.clone()
                        })
                        .collect();
                    register_frames(turn.turn, r, &steps, events, programs(&snapshot.robots))
                }
                phase => vec![Frame::of_phase(
                    turn.turn,
                    phase,
                    programs(&snapshot.robots),
                    events.to_vec(),
                )],
            };
            for frame in &mut stage {
                frame.moment.label = format!("Turn {} · {}", turn.turn, frame.moment.label);
            }
            frames.extend(stage);
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
pub fn board_svg(engine: &Engine) -> String {
    svg::picture(
        engine.rules(),
        &engine.board(),
        &[],
        &svg::Options::default(),
    )
}

/// The whole page. `title` heads it; `description` (may be empty) says what it shows.
pub fn page(engine: &Engine, title: &str, description: &str, frames: &[Frame]) -> String {
    page_for(
        &engine.board(),
        &board_svg(engine),
        &engine.rules().sentences,
        title,
        description,
        frames,
    )
}

/// The page for `board`, drawn as `board_svg` ([`board_svg`]), without the game: the table
/// server makes a finished game's replay page on another thread when someone asks for it.
pub fn page_for(
    board: &crate::board::Board,
    board_svg: &str,
    sentences: &crate::text::sentence::Sentences,
    title: &str,
    description: &str,
    frames: &[Frame],
) -> String {
    let data = Data {
        flags: board.flags().len(),
        frames: view::views(board, frames, sentences),
    };
    // `<` escaped so no string in the data can close the script element.
    let json = serde_json::to_string(&data)
        .expect("replay data serializes")
        .replace('<', "\\u003c");
    let description = if description.is_empty() {
        String::new()
    } else {
        format!(
            "<p class=\"description\">{}</p>",
            crate::text::xml(description)
        )
    };
    fill(
        TEMPLATE,
        &[
            ("TITLE", &crate::text::xml(title)),
            ("DESCRIPTION", &description),
            ("BOARD", board_svg),
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
