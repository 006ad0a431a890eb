//! Running a scenario (its file is read by [`crate::formats::scenario`]): a game at its
//! starting position, the registers of one turn or whole turns through the turn loop, the
//! expectations only the rules can check, and [`test_file`], what `rally test` does with
//! each file.

use super::moment::{Moment, Stage as MomentStage};
use super::{Phase, Progress, Seats, Stage, TurnLoop, TurnRecord};
use crate::cards::Card;
use crate::deal::{self, Hand, Stacked};
use crate::decision::Fixed;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::formats::scenario::{check_questions, Expect, Failure, Scenario, Slot};
use crate::script::{RuleFolders, RuleSet};
use crate::state::{RobotId, State, REGISTERS};
use std::path::Path;

/// What checking one file found.
#[derive(Debug)]
pub enum Verdict {
    /// Every expectation held.
    Passed,
    /// These expectations did not hold.
    Failed(Vec<Failure>),
    /// A scenario with nothing to check: no `[expect]`, no `[after_turn]`.
    NoExpectations,
    /// A `.toml` file without a `board`: a board or variant file kept beside scenarios.
    NotAScenario,
    /// The file could not be read or run: the error, which names the file.
    Error(String),
}

/// Runs the scenario in `file` with the rules `folders` find for it and checks its
/// expectations: what `rally test` does with each file (and the test suite with each of
/// tests/scenarios/).
pub fn test_file(file: &Path, folders: &RuleFolders) -> Verdict {
    // Folders may hold boards and variant files next to scenarios; only files with a
    // `board` key are scenarios.
    match crate::formats::scenario::is_scenario(file) {
        Ok(true) => {}
        Ok(false) => return Verdict::NotAScenario,
        Err(e) => return Verdict::Error(e.to_string()),
    }
    let scenario = match Scenario::load(file) {
        Ok(s) => s,
        Err(e) => return Verdict::Error(e.to_string()),
    };
    if !scenario.has_expectations() {
        return Verdict::NoExpectations;
    }
    let result = folders
        .rules(Some(file), scenario.variants.clone())
        .and_then(|rules| scenario.start(rules))
        .and_then(|mut game| scenario.resolve(&mut game).map(|f| (game, f)));
    match result {
        Err(e) => Verdict::Error(in_file(file, &e)),
        Ok((game, mut failures)) => {
            failures.extend(scenario.check(&game.state()));
            match scenario.check_game(&game) {
                Ok(more) => failures.extend(more),
                Err(e) => return Verdict::Error(in_file(file, &e)),
            }
            if failures.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed(failures)
            }
        }
    }
}

/// `error` said as an error of the scenario `file`: after the file's name, unless it begins
/// with it already (a mistake in the file itself, rather than in a script it ran).
fn in_file(file: &Path, error: &Error) -> String {
    match error {
        Error::File { file: named, .. } | Error::At { file: named, .. } if named == file => {
            error.to_string()
        }
        _ => format!("{}: {error}", file.display()),
    }
}

impl Scenario {
    /// A game at the scenario's starting position, not yet resolved, answering questions
    /// with the file's `choices`. Option names are checked against the loaded options; a
    /// held option without a `uses` count starts full.
    pub fn start(&self, rules: RuleSet) -> Result<Engine> {
        let known = |name: &str| -> Result<Option<u32>> {
            let def = rules.option_def(name).ok_or_else(|| Error::File {
                file: self.path.clone(),
                message: format!(
                    "there is no option `{name}`{}",
                    crate::error::suggest(name, rules.options.iter().map(|o| o.name.as_str()))
                ),
            })?;
            Ok(def.uses)
        };
        let mut robots = self.robots.clone();
        for robot in &mut robots {
            for held in &mut robot.options {
                let uses = known(&held.name)?;
                held.uses_left = held.uses_left.or(uses);
            }
        }
        let mut state = State::new(robots, self.seed);
        if let Some(deck) = &self.option_deck {
            for name in deck {
                known(name)?;
            }
            state.option_deck = Some(deck.iter().rev().cloned().collect());
        }
        if self.turns.is_none() && !self.deck.is_empty() {
            deal::stack_deck(&mut state, &self.deck);
        }
        let mut engine = Engine::new(self.layout.clone(), state, rules)?;
        let board = engine.board();
        for &i in &self.unfaced {
            let mut state = engine.state_mut();
            let robot = &mut state.robots[i];
            let dock = board.starts().iter().find(|s| s.at == robot.at);
            if let Some(facing) = dock.and_then(|s| s.facing) {
                robot.facing = facing;
            }
        }
        engine.set_chooser(self.answers());
        Ok(engine)
    }

    /// Puts a started game back at `start` (its state before resolving) with the file's
    /// answers to questions all still to give, to resolve it again (`rally run --repeat`,
    /// `rally bench`). Returns the state it replaces.
    pub fn rewind(&self, engine: &mut Engine, start: State) -> State {
        engine.set_chooser(self.answers());
        engine.restore(start)
    }

    /// Resolves the scenario's registers (and end of turn) on a started game; with `turns`,
    /// plays the turns through the game's turn loop. Returns the failed expectations of
    /// `[after_turn.N]`, checked as each turn ended (the final `[expect]` are for
    /// [`Scenario::check`]).
    pub fn resolve(&self, engine: &mut Engine) -> Result<Vec<Failure>> {
        self.resolve_until(engine, None)
    }

    /// [`Scenario::resolve`], stopping after `until` (`rally run --until`): the state is then
    /// as it was at that moment, its events those logged by then (in a register's frame, the
    /// robots as the frame shows them). A moment the scenario never reaches is an error that
    /// says where it ends. After a script error, the state is as the failed stage was rolled
    /// back to, with every event before it ([`Engine::take_rolled_back`] has the rest).
    pub fn resolve_until(
        &self,
        engine: &mut Engine,
        until: Option<Moment>,
    ) -> Result<Vec<Failure>> {
        if let Some(turns) = self.turns {
            return self.play_turns(engine, turns, None, until);
        }
        // The robots stand as the registers begin (docs/formats.md): a robot given
        // `powered_down = true` keeps the `damage` given. Discarding damage as a turn
        // begins (rules.md §7.4.2) belongs to the turn loop, which `turns = N` plays.
        engine.start_turn()?;
        if until.is_some_and(|u| u.is_in(1, MomentStage::Start)) {
            return Ok(Vec::new());
        }
        for register in 1..=self.registers {
            match until.filter(|u| u.is_in(1, MomentStage::Register(register))) {
                Some(u) => {
                    let base = engine.state().events.len();
                    let frames = engine.run_register_noted(register)?;
                    let logged = engine.state().events.len() - base;
                    let (robots, upto) = u.frame_of(&frames, base, logged).map_err(Error::Other)?;
                    let mut state = engine.state_mut();
                    state.events.truncate(base + upto);
                    if let Some(robots) = robots {
                        state.robots = robots;
                    }
                    return Ok(Vec::new());
                }
                None => engine.run_register(register)?,
            }
        }
        if self.end_of_turn {
            let destroyed: Vec<bool> = engine.state().robots.iter().map(|r| r.destroyed).collect();
            engine.end_turn()?;
            // A robot back on the board faces as its player chooses (`reenter_facing`), as in
            // the turn loop; powering down for a next turn has no meaning in one turn.
            for (id, was) in destroyed.into_iter().enumerate() {
                let (back, on_archive) = {
                    let r = &engine.state().robots[id];
                    (was && !r.destroyed, r.at == r.archive)
                };
                if back {
                    super::face_on_reentry(engine, id, on_archive)?;
                }
            }
        }
        let last = match self.end_of_turn {
            true => Moment::after(1, MomentStage::End),
            false => Moment::after(1, MomentStage::Register(self.registers)),
        };
        match until {
            Some(u) if u == last => Ok(Vec::new()),
            Some(u) => Err(past_the_end(u, Some(last))),
            None => Ok(Vec::new()),
        }
    }

    /// `turns = N`: whole turns through [`TurnLoop`], as a game plays them; the last turn
    /// stops after `registers` registers, with its end if `end_of_turn`. A robot that wins
    /// ends the scenario there, as it ends a game.
    fn play_turns(
        &self,
        engine: &mut Engine,
        turns: u32,
        history: Option<&mut Vec<TurnRecord>>,
        until: Option<Moment>,
    ) -> Result<Vec<Failure>> {
        self.lock_registers(engine)?;
        // A frame needs the steps noted, which the turn loop does for a history.
        let mut scratch = Vec::new();
        let history = match history {
            None if until.is_some_and(|u| u.frame.is_some()) => Some(&mut scratch),
            given => given,
        };
        let mut progress = Progress {
            phase: Phase::Program,
            announced: engine
                .state()
                .robots
                .iter()
                .map(|r| r.powered_down)
                .collect(),
            outcome: None,
        };
        let mut seats = ScenarioSeats { scenario: self };
        let mut events = Vec::new();
        let mut failures = Vec::new();
        let mut turn_loop = TurnLoop {
            engine,
            progress: &mut progress,
            history,
            turn_limit: turns,
        };
        let mut reached = None;
        loop {
            let last = turn_loop.engine.state().turn >= turns;
            match turn_loop.progress.phase {
                Phase::Over => break,
                Phase::Register(r) if last && r > self.registers => {
                    if !self.end_of_turn {
                        break;
                    }
                    turn_loop.progress.phase = Phase::EndOfTurn;
                }
                // After register 5 the turn loop itself goes on to the end of the turn.
                Phase::EndOfTurn if last && !self.end_of_turn => break,
                _ => {}
            }
            let turn = turn_loop.engine.state().turn;
            let stage = match turn_loop.advance(&mut seats) {
                Ok(stage) => stage,
                Err(e) => {
                    // The stage was rolled back: the state keeps every event before it.
                    let mut state = turn_loop.engine.state_mut();
                    events.append(&mut state.events);
                    state.events = events;
                    return Err(self.turn_error(turn, e));
                }
            };
            events.extend_from_slice(stage.events());
            let here = match &stage {
                Stage::Programmed { .. } => MomentStage::Start,
                Stage::Register { register, .. } => MomentStage::Register(*register),
                Stage::EndOfTurn { .. } => MomentStage::End,
            };
            reached = Some(Moment::after(turn, here));
            if let Some(u) = until.filter(|u| u.is_in(turn, here)) {
                let (robots, keep) = match &stage {
                    Stage::Register {
                        steps,
                        events: logged,
                        ..
                    } => {
                        let (robots, upto) =
                            u.frame_of(steps, 0, logged.len()).map_err(Error::Other)?;
                        (robots, events.len() - logged.len() + upto)
                    }
                    _ => (None, events.len()),
                };
                events.truncate(keep);
                let mut state = turn_loop.engine.state_mut();
                state.events = events;
                if let Some(robots) = robots {
                    state.robots = robots;
                }
                return Ok(failures);
            }
            if let Stage::EndOfTurn { .. } = &stage {
                if let Some((_, expect)) = self.after_turn.iter().find(|(n, _)| *n == turn) {
                    let mut state = turn_loop.engine.state().clone();
                    state.events = events.iter().filter(|e| e.turn == turn).cloned().collect();
                    let asked: Vec<_> = turn_loop
                        .engine
                        .asked()
                        .into_iter()
                        .filter(|a| a.turn == turn)
                        .collect();
                    failures.extend(
                        self.check_robots(expect, &state)
                            .into_iter()
                            .chain(self.check_hands(expect, turn_loop.engine)?)
                            .chain(check_questions(expect, &asked))
                            .map(|f| Failure {
                                key: format!("after turn {turn}: {}", f.key),
                                ..f
                            }),
                    );
                }
            }
        }
        engine.state_mut().events = events;
        match until {
            Some(u) => Err(past_the_end(u, reached)),
            None => Ok(failures),
        }
    }

    /// A scenario of several turns played as [`Scenario::resolve`] plays it, each turn
    /// recorded as a game records it (the replay viewer shows them); `None` for a scenario of
    /// one turn.
    pub fn record_turns(&self, engine: &mut Engine) -> Result<Option<Vec<TurnRecord>>> {
        let Some(turns) = self.turns else {
            return Ok(None);
        };
        let mut history = Vec::new();
        self.play_turns(engine, turns, Some(&mut history), None)?;
        Ok(Some(history))
    }

    /// Puts the `locked` cards into the registers locked at the start (turns mode).
    fn lock_registers(&self, engine: &mut Engine) -> Result<()> {
        let mut state = engine.state_mut();
        for (r, plan) in state.robots.iter_mut().zip(&self.plans) {
            r.program = vec![None; REGISTERS];
            let slots: Vec<usize> = (0..REGISTERS).filter(|&i| deal::is_locked(r, i)).collect();
            if plan.locked.len() > slots.len() {
                return Err(self.error(format!(
                    "robot `{}`: {} locked card(s), but {} damage locks {} register(s)",
                    r.name,
                    plan.locked.len(),
                    r.damage,
                    slots.len()
                )));
            }
            for (slot, card) in slots.iter().zip(&plan.locked) {
                r.program[*slot] = Some(*card);
            }
        }
        Ok(())
    }

    /// Who answers the questions: the file's `choices`, the rest by default.
    fn answers(&self) -> Box<Fixed> {
        Box::new(Fixed::new(&self.choices).written_in(&self.path))
    }

    fn error(&self, message: String) -> Error {
        Error::File {
            file: self.path.clone(),
            message,
        }
    }

    /// A failure in turn `turn`, said with the file and the turn.
    fn turn_error(&self, turn: u32, e: Error) -> Error {
        match e {
            Error::Other(m) => self.error(format!("turn {turn}: {m}")),
            other => other,
        }
    }

    /// The expectations that need the rules or the questions, not just the state
    /// (`hand_size`, `asked`, `offered`).
    pub fn check_game(&self, engine: &Engine) -> Result<Vec<Failure>> {
        let mut failures = self.check_hands(&self.expect, engine)?;
        failures.extend(check_questions(&self.expect, &engine.asked()));
        Ok(failures)
    }

    fn check_hands(&self, expect: &[(String, Expect)], engine: &Engine) -> Result<Vec<Failure>> {
        let mut failures = Vec::new();
        for (name, e) in expect {
            let Some(want) = e.hand_size else { continue };
            let Some(id) = engine.state().find(name) else {
                failures.push(Failure::missing(name));
                continue;
            };
            let got = engine.hand_size(id)?;
            if got != want {
                failures.push(Failure {
                    robot: name.clone(),
                    key: "hand_size".into(),
                    expected: want.to_string(),
                    actual: got.to_string(),
                });
            }
        }
        Ok(failures)
    }
}

/// `until` is never reached: the scenario (or the game, won early) ends at `last`.
fn past_the_end(until: Moment, last: Option<Moment>) -> Error {
    let last = last.map_or_else(
        || "before it starts".to_string(),
        |m| format!("at {m} ({})", m.words()),
    );
    Error::Other(format!(
        "--until {until}: the scenario never reaches {}; it ends {last}",
        until.words()
    ))
}

/// The seats of a scenario of several turns: the file's programs and stacked hands. The turn
/// loop's other decisions (power down, staying down, re-entry: `game::questions`) are
/// questions answered by the robot's `choices` like any other (`power_down`, `stay_down`,
/// `reenter_facing`, `reenter_powered_down`; default: no, and the facing it had).
struct ScenarioSeats<'a> {
    scenario: &'a Scenario,
}

impl ScenarioSeats<'_> {
    /// The robot's program for this turn, register by register (`None`: `-`), none once
    /// the file's list runs out.
    fn slots(&self, engine: &Engine, robot: RobotId) -> Vec<Slot> {
        let turn = engine.state().turn as usize;
        self.scenario.plans[robot]
            .programs
            .get(turn - 1)
            .cloned()
            .unwrap_or_default()
    }

    /// Its cards for this turn, without the `-`.
    fn program(&self, engine: &Engine, robot: RobotId) -> Vec<Card> {
        self.slots(engine, robot)
            .into_iter()
            .filter_map(|s| s.0)
            .collect()
    }
}

impl Seats for ScenarioSeats<'_> {
    fn program(&mut self, engine: &mut Engine, hand: &Hand) -> Result<Vec<Card>> {
        let slots = self.slots(engine, hand.robot);
        if slots.len() > hand.open.len() {
            let r = &engine.state().robots[hand.robot];
            return Err(Error::Other(format!(
                "robot `{}` has {} card(s) for {} unlocked register(s) ({} damage locks {})",
                r.name,
                slots.len(),
                hand.open.len(),
                r.damage,
                REGISTERS - hand.open.len()
            )));
        }
        Ok(ScenarioSeats::program(self, engine, hand.robot))
    }

    fn idle(&mut self, engine: &Engine, hand: &Hand) -> Vec<usize> {
        let slots = self.slots(engine, hand.robot);
        (0..slots.len()).filter(|&i| slots[i].0.is_none()).collect()
    }

    fn stacked(&mut self, engine: &Engine) -> Result<Option<Stacked>> {
        let turn = engine.state().turn as usize;
        let mut hands = Vec::new();
        for (id, plan) in self.scenario.plans.iter().enumerate() {
            let program = ScenarioSeats::program(self, engine, id);
            let r = &engine.state().robots[id];
            let absent = if r.destroyed {
                Some("destroyed")
            } else if r.powered_down {
                Some("powered down")
            } else {
                None
            };
            if let (Some(why), false) = (absent, program.is_empty()) {
                return Err(Error::Other(format!(
                    "robot `{}` is {why} this turn: it runs no program",
                    r.name
                )));
            }
            hands.push(Some(plan.hands.get(turn - 1).cloned().unwrap_or(program)));
        }
        Ok(Some(Stacked {
            hands,
            top: self.scenario.deck.clone(),
        }))
    }
}
