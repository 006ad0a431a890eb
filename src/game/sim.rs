//! Balancing simulations (`rally sim`): many bot-only games of one game file, spread over
//! all cores, added up in a [`Tally`].
//!
//! Game `i` of a study plays with its own seed, [`game_seed`]`(file seed, i)`, from the same
//! start position, so which games a process plays (a shard: `--shard K/M`) or how many
//! threads play them changes nothing: the tally of a range of games is a sum over its games,
//! and sums of integers add up the same in any order.
//!
//! The Lua state is not `Send`, so each worker thread loads its own rule set and keeps one
//! game that it resets for every new game; finished games come back over a channel.

use super::bot::Bots;
use super::tally::{self, Figures, GameResult, Tally};
use super::Game;
use super::{Phase, Setup};
use crate::error::Result;
use crate::geometry::Pos;
use crate::script::{RuleSet, Sources};
use crate::state::{Event, Field, Rng, State};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

/// The seed of game `game` of a study of the file with seed `file_seed`: both mixed with
/// SplitMix64, so neighbouring files and neighbouring games share no games.
pub fn game_seed(file_seed: u64, game: u64) -> u64 {
    Rng::new(file_seed ^ Rng::new(game).next_u64()).next_u64()
}

/// What a game's events add up to while it is played: destructions and damage by cause,
/// the scripts' events, and where things happened (each robot's square followed from the
/// events that move it: every move logs its `to`).
struct Counter {
    result: GameResult,
    /// Each robot's square, by name.
    at: HashMap<Arc<str>, Pos>,
    /// The turn each robot touched its last flag on (0: none yet).
    last_flag: HashMap<Arc<str>, u32>,
    /// The board's size: a robot that leaves it is counted on the square it left.
    size: (i32, i32),
}

impl Counter {
    fn new(state: &State, size: (i32, i32)) -> Counter {
        let mut counter = Counter {
            result: GameResult::default(),
            at: HashMap::new(),
            last_flag: HashMap::new(),
            size,
        };
        counter.sync(state);
        counter
    }

    /// Every robot's square as the state has it (after a stage: re-entry, a script's
    /// placing).
    fn sync(&mut self, state: &State) {
        for r in state.robots.iter().filter(|r| r.is_active()) {
            match self.at.get_mut(&*r.name) {
                Some(at) => *at = r.at,
                None => {
                    self.at.insert(r.name.clone(), r.at);
                }
            }
        }
    }

    fn mark(&mut self, map: &'static str, at: Pos, n: u64) {
        *self
            .result
            .squares
            .entry(map)
            .or_default()
            .entry(at)
            .or_default() += n;
    }

    fn count(&mut self, events: &[Event]) {
        for e in events {
            let cause = || {
                e.detail
                    .get("cause")
                    .and_then(|c| c.as_str())
                    .unwrap_or("unknown")
                    .to_string()
            };
            let robot = e.robot.as_ref();
            if let (Some(robot), Some(Field::Pos(to))) = (robot, e.detail.field("to")) {
                if !(0..self.size.0).contains(&to.x) || !(0..self.size.1).contains(&to.y) {
                    continue;
                }
                if let Some(at) = self.at.get_mut(robot) {
                    *at = *to;
                }
                self.mark("visits", *to, 1);
            }
            let here = robot.and_then(|r| self.at.get(r).copied());
            if e.scripted() {
                let by = robot.map_or("", |r| r);
                *self
                    .result
                    .events
                    .entry(e.what.to_string())
                    .or_default()
                    .entry(by.to_string())
                    .or_default() += 1;
                continue;
            }
            match e.what.as_ref() {
                "destroyed" => {
                    *self.result.deaths.entry(cause()).or_default() += 1;
                    if let Some(at) = here {
                        self.mark("deaths", at, 1);
                    }
                }
                "damaged" => {
                    let amount = e.detail.get("amount").and_then(|a| a.as_u64()).unwrap_or(0);
                    *self.result.damage.entry(cause()).or_default() += amount;
                    if let Some(at) = here {
                        self.mark("damage", at, amount);
                    }
                }
                "flag" => {
                    let (Some(robot), Some(Field::Int(number))) = (robot, e.detail.field("number"))
                    else {
                        continue;
                    };
                    let last = self.last_flag.insert(robot.clone(), e.turn).unwrap_or(0);
                    self.result
                        .flags
                        .push((*number as u32, e.turn.saturating_sub(last)));
                }
                _ => {}
            }
        }
    }

    /// Where the robots on the board end a turn (before repairs and re-entry).
    fn end_turn(&mut self, state: &State) {
        for r in state.robots.iter().filter(|r| r.is_active()) {
            self.mark("ends", r.at, 1);
        }
    }
}

/// Plays one bot-only game to the end on a match already at its start position.
pub fn play_one(m: &mut Game) -> Result<GameResult> {
    let mut bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
    let size = (m.setup.layout.width, m.setup.layout.height);
    let mut counter = Counter::new(&m.engine.state(), size);
    while !m.is_over() {
        if m.progress.phase == Phase::EndOfTurn {
            counter.end_turn(&m.engine.state());
        }
        let stage = m.advance(&mut bots)?;
        counter.count(stage.events());
        counter.sync(&m.engine.state());
    }
    let mut result = counter.result;
    result.outcome = m.progress.outcome.clone();
    result.turns = m.engine.state().turn;
    Ok(result)
}

/// What [`run`] does with each game's figures ([`tally::figures`]): the first column of a
/// study keeps them, by game index from the range's start; each column after it pairs its
/// games with them, seed by seed ([`Tally::pair`]).
pub enum Pairing<'a> {
    Keep(&'a mut Vec<Figures>),
    With(&'a [Figures]),
}

/// Plays games `games` (by index) of `setup` with the rules from `sources` on `threads`
/// threads. `progress` is called on the calling thread after every game with the number
/// finished so far.
pub fn run(
    setup: &Setup,
    sources: &Sources,
    games: Range<u64>,
    threads: usize,
    mut pairing: Pairing,
    progress: &mut dyn FnMut(u64),
) -> Result<Tally> {
    if let Pairing::Keep(kept) = &mut pairing {
        kept.clear();
        kept.resize(games.clone().count(), Figures::new());
    }
    let next = AtomicU64::new(games.start);
    let stop = AtomicBool::new(false);
    let worker = |results: mpsc::Sender<Result<(u64, GameResult)>>| {
        let outcome = (|| -> Result<()> {
            let rules = RuleSet::load(sources)?;
            let mut m = Game::start(setup.clone(), rules)?;
            m.record = false;
            let (start_state, start_progress) = (m.engine.state().clone(), m.progress.clone());
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= games.end || stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let mut state = start_state.clone();
                state.rng = Rng::new(game_seed(setup.seed, i));
                m.engine.restore(state);
                m.progress = start_progress.clone();
                let result = play_one(&mut m)?;
                if results.send(Ok((i, result))).is_err() {
                    return Ok(());
                }
            }
        })();
        if let Err(e) = outcome {
            let _ = results.send(Err(e));
        }
    };
    let mut tally = Tally::default();
    let mut error = None;
    std::thread::scope(|scope| {
        let (sender, results) = mpsc::channel();
        for _ in 0..threads.max(1) {
            let sender = sender.clone();
            scope.spawn(|| worker(sender));
        }
        drop(sender);
        // Ends when every worker has finished and dropped its sender.
        for result in results {
            match result {
                Ok((i, r)) => {
                    tally.add(&r);
                    let index = (i - games.start) as usize;
                    match &mut pairing {
                        Pairing::Keep(kept) => kept[index] = tally::figures(&r),
                        Pairing::With(first) => tally.pair(&tally::figures(&r), &first[index]),
                    }
                    progress(tally.games);
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    error.get_or_insert(e);
                }
            }
        }
    });
    match error {
        Some(e) => Err(e),
        None => Ok(tally),
    }
}

/// The most threads `rally sim` starts: more only cost memory (each has its own rule set).
pub const MAX_THREADS: usize = 256;

/// The threads for `games` games: as `asked` (default: one per core), but never more than
/// one per game or [`MAX_THREADS`].
pub fn threads(asked: Option<usize>, games: u64) -> usize {
    let asked =
        asked.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let games = usize::try_from(games).unwrap_or(usize::MAX);
    asked.min(games).clamp(1, MAX_THREADS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_capped_by_the_games_and_a_maximum() {
        assert_eq!(threads(Some(1000), 2), 2);
        assert_eq!(threads(Some(100_000), 1_000_000), MAX_THREADS);
        assert_eq!(threads(Some(3), 10), 3);
        assert_eq!(threads(Some(4), 0), 1);
    }
}
