//! `rally run SCENARIO`: resolve a scenario and show the board before and after, the event
//! log and the expectations; or the final state as JSON; or time it (`--repeat N`); or record
//! it (`--record LOG`) and later resolve the recording again under the current rules
//! (`rally run --replay LOG`, see `formats/replay.rs`).

use crate::error::Result;
use crate::formats::replay::ReplayLog;
use crate::formats::scenario::Scenario;
use crate::game::moment::{Moment, Stage};
use crate::pictures::probe::Profile;
use crate::pictures::{diff, render};
use crate::script::RuleFolders;
use crate::state::Resolution;
use std::path::{Path, PathBuf};

/// Resolve a scenario: the board before and after, the event log, the expectations
#[derive(clap::Args)]
#[command(
    override_usage = "rally run [OPTIONS] <SCENARIO>\n       rally run [OPTIONS] --replay <LOG>"
)]
pub struct Args {
    /// The scenario file (.toml); required, except with --replay
    #[arg(required_unless_present = "replay")]
    scenario: Option<PathBuf>,
    /// Print only the final state as JSON (the contract's format, with its events)
    #[arg(long)]
    json: bool,
    /// Resolve it N times in-process and print the median, min, spread (middle half) and max time per resolution
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    repeat: Option<u32>,
    /// Print the events as data, `NAME key=value ...`, instead of in words
    #[arg(long, conflicts_with = "json")]
    raw_events: bool,
    /// Also write a replay log (JSON) of the resolution to LOG
    #[arg(long, value_name = "LOG")]
    record: Option<PathBuf>,
    /// Resolve a recorded replay log again under the current rules and print what changed
    #[arg(long, value_name = "LOG", conflicts_with_all = ["scenario", "json", "repeat", "record"])]
    replay: Option<PathBuf>,
    /// Stop after MOMENT and show the board, robots (vars too) and events then: t2r3 (turn 2,
    /// register 3), t2r3s4 (its 4th frame, as the replay viewer numbers them), t2r0 (the start
    /// of turn 2), t2end (its end); with --json the state then
    #[arg(long, value_name = "MOMENT", conflicts_with_all = ["repeat", "record", "replay"])]
    until: Option<Moment>,
    /// Also print every handler call in order: element or rule, square, robot, hook or step,
    /// what it logged and queued, the instructions it used (in steps of 256) and its time
    #[arg(long, conflicts_with_all = ["json", "repeat", "replay"])]
    trace: bool,
    /// Also print the handler calls added up per handler and per script, the costliest first
    /// (with --repeat N: over the N timed resolutions)
    #[arg(long, conflicts_with_all = ["json", "replay"])]
    profile: bool,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        match (&self.replay, &self.scenario) {
            (Some(log), _) => replay(log, common),
            (None, scenario) => run(
                scenario
                    .as_deref()
                    .expect("clap requires a scenario without --replay"),
                self,
                common,
            ),
        }
    }
}

/// Returns whether every expectation held (true when there are none).
fn run(path: &Path, opts: &Args, common: &RuleFolders) -> Result<bool> {
    let scenario = Scenario::load(path)?;
    let rules = common.rules(Some(path), scenario.variants.clone())?;
    let mut engine = scenario.start(rules)?;

    if let Some(n) = opts.repeat {
        let mut profile = opts.profile.then(Profile::default);
        let timing = super::bench::time(&scenario, &mut engine, n, profile.as_mut())?;
        println!(
            "{}: {} resolutions, {}",
            path.display(),
            timing.runs(),
            timing.summary()
        );
        if let Some(profile) = profile {
            print!("{profile}");
        }
        return Ok(true);
    }
    engine.set_probe(opts.trace || opts.profile);

    let glyphs = render::glyphs(engine.rules(), &engine.board());
    let before = render::board(&engine.board(), &glyphs, &engine.state());
    let mut failures = match scenario.resolve_until(&mut engine, opts.until) {
        Ok(failures) => failures,
        Err(e) => {
            if let (Some(rolled), false) = (engine.take_rolled_back(), opts.json) {
                print!(
                    "{}",
                    crate::pictures::stopped::failure(
                        &engine,
                        Some(&rolled),
                        render::Clock::of_run(scenario.turns, &engine.state().events),
                    )
                );
            }
            return Err(e);
        }
    };
    // Expectations are about the end: a run stopped before it checks none.
    if opts.until.is_none() {
        failures.extend(scenario.check_game(&engine)?);
    }
    let state = engine.state();
    if let Some(log) = &opts.record {
        let choices =
            crate::script::variant::with_extra(&scenario.variants, &common.extra_variants);
        let text = ReplayLog::record(&scenario, &choices, &state, log).text(log)?;
        super::output::write_file(log, text.as_bytes())?;
    }
    if opts.until.is_none() {
        failures.extend(scenario.check(&state));
    }
    if opts.json {
        // The last register resolved, as the contract's example shows: the end of the turn,
        // which the engine runs outside the registers (0), does not undo it.
        let (register, turn) = match opts.until {
            None => (
                match state.register {
                    0 => scenario.registers,
                    r => r,
                },
                state.turn,
            ),
            Some(m) => (
                match m.stage {
                    Stage::Start => 0,
                    Stage::Register(r) => r,
                    Stage::End if Some(m.turn) == scenario.turns.or(Some(1)) => scenario.registers,
                    Stage::End => crate::state::REGISTERS as u8,
                },
                m.turn,
            ),
        };
        let out = JsonState {
            version: super::output::JSON_VERSION,
            register,
            turn,
            robots: &state.robots,
            events: &state.events,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&out).expect("state serializes")
        );
        return Ok(failures.is_empty());
    }
    if !scenario.description.is_empty() {
        println!("{}\n", crate::text::clean(&scenario.description));
    }
    let board = engine.board();
    println!(
        "Before ({}, {}×{}):\n{}{}\n",
        crate::text::clean_line(&board.name),
        board.width,
        board.height,
        before,
        render::legend(engine.rules(), &board)
    );
    let end = if scenario.end_of_turn {
        " and the end of the turn"
    } else {
        ""
    };
    match (opts.until, scenario.turns) {
        (Some(m), _) => println!("At {m} ({}), stopped by --until:", m.words()),
        (None, Some(n)) => println!(
            "After {n} turn(s) ({} register(s){end} in the last):",
            scenario.registers
        ),
        (None, None) => println!("After {} register(s){end}:", scenario.registers),
    }
    println!("{}", render::board(&board, &glyphs, &state));
    print!("{}", render::robots(&state));
    println!("\nEvents:");
    let clock = render::Clock::of_run(scenario.turns, &state.events);
    for e in &state.events {
        match opts.raw_events {
            true => println!("  {}", render::event(e, clock)),
            false => println!("  {}", render::told(e, &engine.rules().sentences, clock)),
        }
    }
    let calls = engine.take_calls();
    if opts.trace {
        print!(
            "\n{}",
            crate::pictures::probe::trace(&calls, &engine.rules().sentences, clock)
        );
    }
    if opts.profile {
        let mut profile = Profile::default();
        profile.add(&calls);
        print!("\n{profile}");
    }
    match (opts.until, scenario.has_expectations()) {
        (Some(m), true) => println!("\nexpectations not checked: they are about the end, not {m}"),
        (None, true) => print!("\n{}", render::expectations(&failures)),
        (_, false) => {}
    }
    Ok(failures.is_empty())
}

/// `rally run --replay LOG`: resolves a recorded game again under the rules on disk now (and
/// any `--variant` added) and prints what changed. Returns whether nothing did.
fn replay(log_path: &Path, common: &RuleFolders) -> Result<bool> {
    if let Some(record) = crate::game::save::GameRecord::read(log_path)? {
        return replay_game(log_path, record, common);
    }
    let log = ReplayLog::read(log_path)?;
    let scenario = log.scenario(log_path)?;
    let rules = common.rules(Some(&scenario.path), scenario.variants.clone())?;
    let mut engine = scenario.start(rules)?;
    scenario.resolve(&mut engine)?;
    let diff = diff::compare(&log.resolution(), &Resolution::of(&engine.state()));
    println!(
        "{} replayed on {} under the current rules, against the recording:",
        log_path.display(),
        scenario.path.display()
    );
    print!("{diff}");
    Ok(diff.is_empty())
}

/// A whole game's replay or save, played again with its recorded decisions under the
/// current rules (`game::rerun`).
fn replay_game(
    path: &Path,
    record: crate::game::save::GameRecord,
    common: &RuleFolders,
) -> Result<bool> {
    let setup = crate::game::Setup::load(&record.game)?;
    let rules = common.rules(Some(&setup.path), setup.choices(&record.variants))?;
    let rerun = crate::game::rerun::rerun(&record, setup, rules)?;
    let diff = diff::compare(&rerun.recorded, &rerun.now);
    println!(
        "{} replayed ({} turn(s)) on {} under the current rules, against the recording:",
        path.display(),
        rerun.turns,
        record.game.display()
    );
    if let Some(why) = &rerun.stopped {
        println!("stopped early: {why}");
    }
    print!("{diff}");
    Ok(diff.is_empty() && rerun.stopped.is_none())
}

/// The `--json` output of the contract, fields in the contract's order after the format's
/// `version` (an extension: the contract allows new keys). The events are part of the
/// contract's state, so they are always there.
#[derive(serde::Serialize)]
struct JsonState<'a> {
    version: u32,
    register: u8,
    turn: u32,
    robots: &'a [crate::state::Robot],
    events: &'a [crate::state::Event],
}
