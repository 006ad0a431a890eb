//! Bots that plan with the engine itself: a candidate program is tried by restoring the
//! current state, putting the cards in the robot's registers, running the registers and
//! scoring where the robot ends up. Because the real rules resolve every candidate, a bot
//! understands any scripted element or variant without knowing it exists.
//!
//! The search goes register by register (a beam search): each kept partial program is
//! extended with one card of each kind left in the hand, the register is simulated, and the
//! best partial programs are kept. The weak bot keeps one (greedy, fast enough for thousands
//! of games a minute); the medium bot keeps 6 and the strong bot 16. Other robots' unlocked registers are
//! secret while programming, so they idle in the simulation (their locked cards still run).
//! There is no randomness: ties go to the first candidate, so bots are deterministic.

use super::Seats;
use crate::board::Board;
use crate::cards::{Card, CardKind};
use crate::deal::Hand;
use crate::engine::Engine;
use crate::error::Result;
use crate::geometry::{Dir, Pos};
use crate::state::{RobotId, State};
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// How hard a bot thinks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strength {
    /// Greedy: the best card for each register in turn.
    #[default]
    Weak,
    /// Keeps the best 6 partial programs at every register (the strong bot until the engine
    /// got fast enough for the strong bot to look wider in the same time).
    Medium,
    /// Keeps the best 16 partial programs at every register.
    Strong,
}

impl Strength {
    /// Partial programs kept after each register.
    fn beam(self) -> usize {
        match self {
            Strength::Weak => 1,
            Strength::Medium => 6,
            Strength::Strong => 16,
        }
    }

    /// Damage from which the bot announces power down (its answer to `power_down`).
    pub fn power_down_at(self) -> i32 {
        match self {
            Strength::Weak => crate::decision::BotPolicy::POWER_DOWN_AT,
            Strength::Medium | Strength::Strong => 5,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Strength::Weak => "weak",
            Strength::Medium => "medium",
            Strength::Strong => "strong",
        }
    }
}

/// Weights of the score (higher is better); one square nearer the next flag is worth 10.
const FLAG_VALUE: i64 = 1000;
const SQUARE_VALUE: i64 = 10;
const QUARTER_TURN_VALUE: i64 = 4;
const DAMAGE_VALUE: i64 = 6;
const DESTROYED_VALUE: i64 = 600;
const LAST_LIFE_VALUE: i64 = 5000;
/// A partial program and the state after its last simulated register.
struct Partial {
    cards: Vec<Card>,
    state: State,
    value: i64,
    /// Destroyed or finished: later registers are filled without simulating.
    settled: bool,
}

/// One bot, for one robot.
pub struct Bot {
    pub strength: Strength,
}

impl Bot {
    pub fn new(strength: Strength) -> Bot {
        Bot { strength }
    }

    /// How good `state` is for `id`, which had touched `start_flags` flags before.
    fn value(&self, board: &Rc<Board>, state: &State, id: RobotId, start_flags: u32) -> i64 {
        let r = &state.robots[id];
        let mut value = (r.flags as i64 - start_flags as i64) * FLAG_VALUE;
        if r.destroyed {
            value -= if r.lives <= 0 {
                LAST_LIFE_VALUE
            } else {
                DESTROYED_VALUE
            };
            return value;
        }
        if let Some(flag) = next_flag(board, r.flags) {
            let walk = board.walk_to(flag);
            value -= SQUARE_VALUE * walk.at(r.at) as i64;
            value -= QUARTER_TURN_VALUE * walk.turn_cost(board, r.at, r.facing) as i64;
        }
        value - DAMAGE_VALUE * r.damage as i64
    }

    /// Chooses the cards for the hand's open registers by simulating candidates. The game is
    /// left exactly as it was found.
    pub fn plan(&mut self, engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        let id = hand.robot;
        let needed = hand.open.len().min(hand.cards.len());
        let board = engine.board();
        let base = {
            // The game's events are not the bot's business: copy everything else, and log
            // nothing while rehearsing (the bot reads only where the robots end up).
            let mut state = engine.state_mut();
            let events = std::mem::take(&mut state.events);
            let mut base = state.clone();
            state.events = events;
            base.quiet = true;
            base
        };
        let start_flags = base.robots[id].flags;
        let start_value = self.value(&board, &base, id, start_flags);
        // The game's own state waits aside; rehearsals run in copies.
        let original = engine.restore(base.clone());
        let mut beam = vec![Partial {
            cards: Vec::new(),
            state: base,
            value: start_value,
            settled: false,
        }];
        // Questions asked while trying programs out are answered as a bot would, not put
        // to the people at the table.
        let rehearsing = engine.set_rehearsal(true);
        let result = self.search(engine, hand, &board, start_flags, &mut beam);
        engine.set_rehearsal(rehearsing);
        engine.restore(original);
        result?;
        let best = &beam[0];
        let mut cards = best.cards.clone();
        // A settled program (destroyed, or won) still fills its registers, in hand order.
        for c in &hand.cards {
            if cards.len() >= needed {
                break;
            }
            if !cards.contains(c) {
                cards.push(*c);
            }
        }
        Ok(cards)
    }

    /// The beam search: register by register, each kept partial program is extended with
    /// each card kind left and the register rehearsed; the best `beam` partials go on.
    /// States are copied into the game's own buffers (`clone_from`) and taken out of it only
    /// for the candidates that make the beam, so a rehearsal allocates next to nothing.
    fn search(
        &mut self,
        engine: &mut Engine,
        hand: &Hand,
        board: &Rc<Board>,
        start_flags: u32,
        beam: &mut Vec<Partial>,
    ) -> Result<()> {
        let id = hand.robot;
        let last_flag = board.flags().last().map_or(0, |(n, _)| *n);
        let width = self.strength.beam();
        // States of partials that left the beam, reused for the next ones kept.
        let mut spare: Vec<State> = Vec::new();
        for register in 1..=crate::state::REGISTERS as u8 {
            let slot = register as usize - 1;
            let open = hand.open.contains(&slot);
            // Kept sorted, best first; among equal values the earlier candidate (hand
            // order) stays first, as a stable sort of every candidate would leave them.
            let mut next: Vec<Partial> = Vec::new();
            let keep = |next: &mut Vec<Partial>, spare: &mut Vec<State>, p: Partial| {
                let at = next.partition_point(|q| q.value >= p.value);
                if at < width {
                    next.insert(at, p);
                    if next.len() > width {
                        spare.extend(next.pop().map(|p| p.state));
                    }
                } else {
                    spare.push(p.state);
                }
            };
            for partial in beam.drain(..) {
                if partial.settled {
                    keep(&mut next, &mut spare, partial);
                    continue;
                }
                let choices: Vec<Option<Card>> = if open {
                    best_of_each_kind(&hand.cards, &partial.cards)
                        .into_iter()
                        .map(Some)
                        .collect()
                } else {
                    vec![None]
                };
                if choices.is_empty() {
                    keep(&mut next, &mut spare, partial);
                    continue;
                }
                for choice in choices {
                    {
                        let mut state = engine.state_mut();
                        state.clone_from(&partial.state);
                        if let Some(card) = choice {
                            let program = &mut state.robots[id].program;
                            program.resize(crate::state::REGISTERS, None);
                            program[slot] = Some(card);
                        }
                    }
                    engine.rehearse_register(register)?;
                    let (value, settled) = {
                        let after = engine.state();
                        let r = &after.robots[id];
                        let settled = r.destroyed || r.flags >= last_flag;
                        (self.value(board, &after, id, start_flags), settled)
                    };
                    if next.len() >= width && next.last().is_some_and(|p| p.value >= value) {
                        continue;
                    }
                    let buffer = spare.pop().unwrap_or_else(|| State::new(Vec::new(), 0));
                    let mut state = engine.restore(buffer);
                    state.events.clear();
                    let mut cards = partial.cards.clone();
                    cards.extend(choice);
                    keep(
                        &mut next,
                        &mut spare,
                        Partial {
                            cards,
                            state,
                            value,
                            settled,
                        },
                    );
                }
                spare.push(partial.state);
            }
            *beam = next;
        }
        Ok(())
    }
}

/// The square of the flag after `flags_touched` (the last one once all are touched).
fn next_flag(board: &Board, flags_touched: u32) -> Option<Pos> {
    let flags = board.flags();
    flags
        .iter()
        .find(|(n, _)| *n == flags_touched + 1)
        .or(flags.last())
        .map(|(_, at)| *at)
}

/// The facing that needs the fewest turns towards the robot's next flag (the advice bots
/// follow when the robot re-enters: `game::questions`); its facing now if there is no flag.
pub fn reentry_facing(engine: &Engine, id: RobotId) -> Dir {
    let board = engine.board();
    let state = engine.state();
    let r = &state.robots[id];
    match next_flag(&board, r.flags) {
        Some(at) => {
            let walk = board.walk_to(at);
            Dir::ALL
                .into_iter()
                .min_by_key(|&d| walk.turn_cost(&board, r.at, d))
                .unwrap_or(r.facing)
        }
        None => r.facing,
    }
}

/// For each card kind still in the hand, its highest-priority card (higher moves first),
/// in a fixed kind order so the search is deterministic.
fn best_of_each_kind(hand: &[Card], used: &[Card]) -> Vec<Card> {
    CardKind::ALL
        .into_iter()
        .filter_map(|kind| {
            hand.iter()
                .filter(|c| c.kind == kind && !used.contains(c))
                .max_by_key(|c| c.priority)
                .copied()
        })
        .collect()
}

/// Seats where every robot is driven by a bot (simulations, tests, stand-ins).
pub struct Bots {
    bots: Vec<Bot>,
}

impl Bots {
    pub fn new(strengths: impl IntoIterator<Item = Strength>) -> Bots {
        Bots {
            bots: strengths.into_iter().map(Bot::new).collect(),
        }
    }
}

impl Seats for Bots {
    fn program(&mut self, engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        self.bots[hand.robot].plan(engine, hand)
    }
}
