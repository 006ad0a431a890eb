//! Re-resolving a recorded game under today's rules (`rally run --replay GAME.replay.json`):
//! the game file, seed and variants set the game up again, and the recorded decisions are
//! played back: each turn's programs, and every answer to a question (the `chose` events),
//! power down and re-entry included (`game::questions`). (A recording made before power down
//! and re-entry were questions holds no answers to them: its rerun takes the defaults.) If
//! today's rules make a recorded decision impossible (a program no longer in the hand, a
//! turn the recording never reached), the rerun stops there; the difference against the
//! recording then shows where the game went another way.

use super::save::GameRecord;
use super::{Dealt, Game, Seats, Setup, TurnRecord};
use crate::cards::Card;
use crate::deal::Hand;
use crate::decision::{Fixed, RecordedAnswer};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::script::RuleSet;
use crate::state::Resolution;
use crate::state::{Robot, RobotId};
use std::collections::BTreeMap;

/// A recorded game and the same game resolved again.
pub struct Rerun {
    pub recorded: Resolution,
    pub now: Resolution,
    /// Why the rerun stopped before the game was over, if it did.
    pub stopped: Option<String>,
    /// Turns resolved again.
    pub turns: u32,
}

/// Plays `record` again with `rules` on the game `setup` describes.
pub fn rerun(record: &GameRecord, setup: Setup, rules: RuleSet) -> Result<Rerun> {
    let mut game = Game::start(setup, rules)?;
    game.engine
        .set_chooser(Box::new(Fixed::replaying(recorded_answers(&record.turns))));
    let mut seats = Recorded {
        turns: &record.turns,
    };
    let mut stopped = None;
    while !game.is_over() {
        if let Err(e) = game.advance(&mut seats) {
            stopped = Some(e.to_string());
            break;
        }
    }
    let history_events =
        |turns: &[TurnRecord]| turns.iter().flat_map(|t| t.events.clone()).collect();
    let last_robots = |turns: &[TurnRecord]| -> Vec<Robot> {
        turns
            .iter()
            .rev()
            .find_map(|t| t.snapshots.last())
            .map(|s| s.robots.clone())
            .unwrap_or_default()
    };
    Ok(Rerun {
        recorded: Resolution {
            events: history_events(&record.turns),
            robots: last_robots(&record.turns),
        },
        now: Resolution {
            events: history_events(&game.history),
            robots: last_robots(&game.history),
        },
        stopped,
        turns: game.history.len() as u32,
    })
}

/// Every recorded answer, per robot and question, in the order they were given.
fn recorded_answers(
    turns: &[TurnRecord],
) -> BTreeMap<String, BTreeMap<String, Vec<RecordedAnswer>>> {
    let mut answers: BTreeMap<String, BTreeMap<String, Vec<RecordedAnswer>>> = BTreeMap::new();
    for e in turns
        .iter()
        .flat_map(|t| &t.events)
        .filter(|e| e.what == "chose")
    {
        let text = |key: &str| {
            e.detail
                .get(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        if let (Some(robot), Some(question), Some(answer)) =
            (&e.robot, text("question"), text("answer"))
        {
            answers
                .entry(robot.to_string())
                .or_default()
                .entry(question)
                .or_default()
                .push(RecordedAnswer {
                    answer,
                    timed_out: e.detail.get("timed_out") == Some(&serde_json::Value::Bool(true)),
                });
        }
    }
    answers
}

/// The seats of a recorded game: every program as it was chosen.
struct Recorded<'a> {
    turns: &'a [TurnRecord],
}

impl Recorded<'_> {
    fn turn(&self, engine: &Engine) -> Option<&TurnRecord> {
        let turn = engine.state().turn;
        self.turns.iter().find(|t| t.turn == turn)
    }

    fn dealt(&self, engine: &Engine, robot: RobotId) -> Result<&Dealt> {
        let (turn, name) = {
            let state = engine.state();
            (state.turn, state.robots[robot].name.clone())
        };
        self.turn(engine)
            .and_then(|t| t.dealt.iter().find(|d| *d.robot == *name))
            .ok_or_else(|| {
                Error::Other(format!(
                    "the recording has no program for {name} in turn {turn}"
                ))
            })
    }
}

impl Seats for Recorded<'_> {
    fn program(&mut self, engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        let dealt = self.dealt(engine, hand.robot)?;
        Ok(hand
            .open
            .iter()
            .filter_map(|&i| dealt.program.get(i).copied().flatten())
            .collect())
    }
}
