//! Balancing simulations (`rally sim`): many bot-only games of one game file, spread over
//! all cores, summed up in a table a designer can act on (how often games finish, how long
//! they take, what kills robots and what hurts them).
//!
//! The Lua state is not `Send`, so each worker thread loads its own rule set and keeps one
//! game that it resets for every new game. Game `i` uses seed `seed + i` and the results
//! are added up in game order, so a summary does not depend on the number of threads.

use super::bot::Bots;
use super::{Match, Outcome, Setup};
use crate::error::{Error, Result};
use crate::script::{RuleSet, Sources};
use crate::state::{Event, Rng};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What one game came to.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GameResult {
    pub outcome: Option<Outcome>,
    pub turns: u32,
    /// Destructions by cause (`pit`, `laser`, `off the board`, ...).
    pub deaths: BTreeMap<String, u32>,
    /// Damage points by cause (the element or rule that dealt them).
    pub damage: BTreeMap<String, u64>,
}

impl GameResult {
    fn count(&mut self, events: &[Event]) {
        for e in events {
            let cause = || {
                e.detail
                    .get("cause")
                    .and_then(|c| c.as_str())
                    .unwrap_or("unknown")
                    .to_string()
            };
            match e.what.as_ref() {
                "destroyed" => *self.deaths.entry(cause()).or_default() += 1,
                "damaged" => {
                    let amount = e.detail.get("amount").and_then(|a| a.as_u64()).unwrap_or(0);
                    *self.damage.entry(cause()).or_default() += amount;
                }
                _ => {}
            }
        }
    }
}

/// Plays one bot-only game to the end on a match already at its start position.
pub fn play_one(m: &mut Match) -> Result<GameResult> {
    let mut bots = Bots::new(m.setup.seats.iter().map(|s| s.strength));
    let mut result = GameResult::default();
    while !m.is_over() {
        let stage = m.advance(&mut bots)?;
        result.count(stage.events());
    }
    result.outcome = m.progress.outcome.clone();
    result.turns = m.game.state().turn;
    Ok(result)
}

/// `games` bot-only games of `setup` with the rules from `sources`, on `threads` threads.
/// `progress` is called from the calling thread with the number of games done so far.
pub fn run(
    setup: &Setup,
    sources: &Sources,
    games: u32,
    threads: usize,
    progress: &mut dyn FnMut(u32),
) -> Result<Summary> {
    let started = Instant::now();
    let next = AtomicU32::new(0);
    let done = AtomicU32::new(0);
    let stop = AtomicBool::new(false);
    let results: Mutex<Vec<(u32, GameResult)>> = Mutex::new(Vec::with_capacity(games as usize));
    let errors: Mutex<Vec<Error>> = Mutex::new(Vec::new());
    let worker = || {
        let outcome = (|| -> Result<()> {
            let rules = RuleSet::load(sources)?;
            let mut m = Match::start(setup.clone(), rules)?;
            m.record = false;
            let (start_state, start_progress) = (m.game.state().clone(), m.progress.clone());
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= games || stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let mut state = start_state.clone();
                state.rng = Rng::new(setup.seed.wrapping_add(i as u64));
                m.game.restore(state);
                m.progress = start_progress.clone();
                let result = play_one(&mut m)?;
                results.lock().expect("no panics").push((i, result));
                done.fetch_add(1, Ordering::Relaxed);
            }
        })();
        if let Err(e) = outcome {
            stop.store(true, Ordering::Relaxed);
            errors.lock().expect("no panics").push(e);
        }
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1)).map(|_| scope.spawn(worker)).collect();
        while handles.iter().any(|h| !h.is_finished()) {
            progress(done.load(Ordering::Relaxed));
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    progress(done.load(Ordering::Relaxed));
    if let Some(e) = errors.into_inner().expect("no panics").into_iter().next() {
        return Err(e);
    }
    let mut results = results.into_inner().expect("no panics");
    results.sort_by_key(|(i, _)| *i);
    let mut summary = Summary::default();
    for (_, r) in &results {
        summary.add(r);
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The threads `rally sim` uses: one per core.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Many games added up.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub games: u32,
    pub won: u32,
    pub turn_limit: u32,
    pub none_left: u32,
    /// Turns of every won game, in game order.
    pub win_turns: Vec<u32>,
    pub wins: BTreeMap<String, u32>,
    pub deaths: BTreeMap<String, u32>,
    pub damage: BTreeMap<String, u64>,
    pub seconds: f64,
}

impl Summary {
    pub fn add(&mut self, r: &GameResult) {
        self.games += 1;
        match &r.outcome {
            Some(Outcome::Won { robot, turn }) => {
                self.won += 1;
                self.win_turns.push(*turn);
                *self.wins.entry(robot.clone()).or_default() += 1;
            }
            Some(Outcome::TurnLimit { .. }) => self.turn_limit += 1,
            Some(Outcome::NoneLeft { .. }) | None => self.none_left += 1,
        }
        for (cause, n) in &r.deaths {
            *self.deaths.entry(cause.clone()).or_default() += n;
        }
        for (cause, n) in &r.damage {
            *self.damage.entry(cause.clone()).or_default() += n;
        }
    }

    /// Complete games per minute of wall time.
    pub fn games_per_minute(&self) -> f64 {
        if self.seconds > 0.0 {
            self.games as f64 * 60.0 / self.seconds
        } else {
            0.0
        }
    }

    fn percent(&self, n: u32) -> String {
        format!("{:.1}%", 100.0 * n as f64 / self.games.max(1) as f64)
    }

    fn per_game(&self, n: u64) -> String {
        format!("{:.2}", n as f64 / self.games.max(1) as f64)
    }

    /// The `q` quantile (0..=1) of the turns to win.
    fn win_quantile(&self, q: f64) -> Option<u32> {
        let mut t = self.win_turns.clone();
        t.sort_unstable();
        (!t.is_empty()).then(|| t[((t.len() - 1) as f64 * q).round() as usize])
    }
}

/// The summaries side by side, one column each, with the row labels on the left.
pub fn table(columns: &[(String, &Summary)]) -> String {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |label: &str, f: &dyn Fn(&Summary) -> String| {
        rows.push((
            label.to_string(),
            columns.iter().map(|(_, s)| f(s)).collect(),
        ));
    };
    row("games", &|s| s.games.to_string());
    row("finish rate (a robot won)", &|s| s.percent(s.won));
    row("undecided at the turn limit", &|s| s.percent(s.turn_limit));
    row("every robot out of lives", &|s| s.percent(s.none_left));
    let turns = |q: f64| move |s: &Summary| s.win_quantile(q).map_or("-".into(), |t| t.to_string());
    row("turns to win: median", &turns(0.5));
    row(
        "turns to win: 10% / 90%",
        &|s| match (s.win_quantile(0.1), s.win_quantile(0.9)) {
            (Some(a), Some(b)) => format!("{a} / {b}"),
            _ => "-".into(),
        },
    );
    row("turns to win: mean", &|s| {
        if s.win_turns.is_empty() {
            "-".into()
        } else {
            let sum: u64 = s.win_turns.iter().map(|&t| t as u64).sum();
            format!("{:.1}", sum as f64 / s.win_turns.len() as f64)
        }
    });
    let names = |f: &dyn Fn(&Summary) -> Vec<String>| {
        let mut all: Vec<String> = columns.iter().flat_map(|(_, s)| f(s)).collect();
        all.sort();
        all.dedup();
        all
    };
    for robot in names(&|s| s.wins.keys().cloned().collect()) {
        row(&format!("wins: {robot}"), &|s| {
            s.percent(s.wins.get(&robot).copied().unwrap_or(0))
        });
    }
    row("deaths per game", &|s| {
        s.per_game(s.deaths.values().map(|&n| n as u64).sum())
    });
    for cause in names(&|s| s.deaths.keys().cloned().collect()) {
        row(&format!("  {cause}"), &|s| {
            s.per_game(s.deaths.get(&cause).copied().unwrap_or(0) as u64)
        });
    }
    row("damage per game", &|s| s.per_game(s.damage.values().sum()));
    for cause in names(&|s| s.damage.keys().cloned().collect()) {
        row(&format!("  {cause}"), &|s| {
            s.per_game(s.damage.get(&cause).copied().unwrap_or(0))
        });
    }
    row("games per minute", &|s| {
        format!("{:.0}", s.games_per_minute())
    });

    let label_width = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = (0..columns.len())
        .map(|c| {
            rows.iter()
                .map(|(_, v)| v[c].chars().count())
                .chain(std::iter::once(columns[c].0.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    let _ = write!(out, "{:label_width$}", "");
    for (c, (name, _)) in columns.iter().enumerate() {
        let _ = write!(out, "  {name:>w$}", w = widths[c]);
    }
    out.push('\n');
    for (label, values) in rows {
        let _ = write!(out, "{label:label_width$}");
        for (c, v) in values.iter().enumerate() {
            let _ = write!(out, "  {v:>w$}", w = widths[c]);
        }
        out.push('\n');
    }
    out
}
