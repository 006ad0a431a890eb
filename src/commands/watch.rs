//! `rally watch SCENARIO`: runs the scenario, then runs it again from the start whenever one
//! of its files changes (the scenario, its board, the scripts, the variants it switches on),
//! and prints what changed against the previous run, so a playtester sees the effect of an
//! edit the moment it is saved (docs/hot-reload.md).
//!
//! Each change builds everything again from the files, off to the side: the scenario, a
//! complete new rule set, the board compiled against it. Only rules that load cleanly are
//! used (with the next generation number); otherwise the error is printed and the last good
//! rules stay, and they still answer when only the scenario or its board was edited.

use super::Common;
use crate::board::Board;
use crate::diff::{self, Outcome};
use crate::engine::Game;
use crate::error::{Error, Result};
use crate::reload::{self, Change, Watched, Watcher};
use crate::render;
use crate::scenario::Scenario;
use crate::script::{RuleSet, Sources};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub struct WatchOptions {
    pub poll: bool,
    /// Print how long each reload took: debounce, rebuild, re-run.
    pub timings: bool,
    /// How long the files must be quiet before a change is acted on.
    pub quiet: Duration,
}

/// Runs until interrupted (or until the file watcher stops).
pub fn watch(path: &Path, opts: &WatchOptions, common: &Common) -> Result<bool> {
    let (scripts, variants) = common.folders(Some(path))?;
    let mut session = Session {
        path: path.to_path_buf(),
        scripts,
        variants,
        extra: common.extra_variants.clone(),
        clear: std::io::stdout().is_terminal(),
        timings: opts.timings,
        latest: None,
        current: None,
        generation: 0,
        previous: None,
        runs: 0,
    };
    // Watch before the first run, so that a save made while it runs is not missed.
    session.latest = Scenario::load(path).ok();
    let mut watcher = Watcher::new(
        &session.watched(),
        &reload::WatchOptions {
            poll: opts.poll,
            quiet: opts.quiet,
        },
    )?;
    super::output::note(format!("watching {} (Ctrl-C to stop)", path.display()));
    session.reload(None);
    watcher.set_watched(&session.watched())?;
    while let Some(change) = watcher.wait_change(None) {
        session.reload(Some(&change));
        watcher.set_watched(&session.watched())?;
    }
    Ok(true)
}

/// The last good state of things, and what the next run is compared with.
struct Session {
    path: PathBuf,
    scripts: PathBuf,
    variants: PathBuf,
    extra: Vec<String>,
    clear: bool,
    timings: bool,
    /// The scenario as last read from its file (its variants decide which folders to watch,
    /// even when the rules it asks for do not load).
    latest: Option<Scenario>,
    /// The scenario last run, and the last good rules, in the game they last ran.
    current: Option<(Scenario, Game)>,
    /// The generation of the rules in `current`: one more for every rule set that loaded.
    generation: u64,
    /// The last run that finished, to compare the next one with.
    previous: Option<Outcome>,
    runs: u32,
}

impl Session {
    fn sources(&self, scenario: &Scenario) -> Sources {
        scenario.sources(&self.scripts, &self.variants, &self.extra)
    }

    /// The scenario file, its board files, the scripts and the switched-on variants' folders.
    fn watched(&self) -> Watched {
        let mut watched = match &self.latest {
            Some(s) => {
                let mut w = Watched::rules(&self.sources(s));
                w.files = s.files();
                w
            }
            None => Watched {
                folders: vec![self.scripts.clone()],
                files: Vec::new(),
            },
        };
        watched.files.push(self.path.clone());
        watched
    }

    /// Builds from the files and runs again; `change` is `None` the first time.
    fn reload(&mut self, change: Option<&Change>) {
        let start = Instant::now();
        let scenario = match Scenario::load(&self.path) {
            Ok(s) => s,
            Err(e) => {
                self.failed(&e);
                return;
            }
        };
        // Which of the changed files are the scenario's own (against the old and new lists:
        // a board may have been renamed); any other changed file is a rule file.
        let mut game_files: Vec<PathBuf> = scenario.files();
        if let Some(old) = &self.latest {
            game_files.extend(old.files());
        }
        let game_files: Vec<PathBuf> = game_files
            .iter()
            .filter_map(|f| f.canonicalize().ok())
            .collect();
        let changed = |game: bool| {
            change.is_none_or(|c| c.paths.iter().any(|p| game_files.contains(p) == game))
        };
        let same_variants = self
            .current
            .as_ref()
            .is_some_and(|(old, _)| old.variants == scenario.variants);
        let rules_changed = changed(false) || !same_variants;
        let game_changed = changed(true);
        self.latest = Some(scenario.clone());

        let mut rules = None;
        if rules_changed {
            match build(&self.sources(&scenario), &scenario) {
                Ok(r) => {
                    self.generation += 1;
                    rules = Some(r);
                }
                Err(e) => self.failed(&e),
            }
        }
        let rules = match rules {
            Some(r) => r,
            // The last good rules answer for an edited scenario or board, as long as it asks
            // for the same variants and its board compiles against them.
            None if game_changed && same_variants => {
                let (old, game) = self.current.take().expect("same_variants implies current");
                if let Err(e) = Board::compile(&scenario.layout, game.rules()) {
                    self.failed(&e);
                    self.current = Some((old, game));
                    return;
                }
                game.into_rules()
            }
            None => return,
        };
        let rebuild = start.elapsed();
        let mut game = match scenario.start(rules) {
            Ok(g) => g,
            Err(e) => {
                // The board compiled against these rules, so this is rare (a script failing
                // while the game is set up); without a good game there is nothing to keep.
                println!("✗ {e}");
                self.current = None;
                return;
            }
        };
        let run_start = Instant::now();
        let result = scenario.resolve(&mut game);
        let rerun = run_start.elapsed();
        self.show(&scenario, &game, result, change);
        if self.timings {
            match change {
                Some(c) => println!(
                    "timings: debounce {:.1} ms, rebuild {:.1} ms, re-run {:.1} ms; save → result {:.1} ms",
                    ms(c.debounce()),
                    ms(rebuild),
                    ms(rerun),
                    ms(c.first_seen.elapsed())
                ),
                None => println!("timings: build {:.1} ms, run {:.1} ms", ms(rebuild), ms(rerun)),
            }
        }
        flush();
        self.current = Some((scenario, game));
    }

    /// Prints one run: a header, the difference against the previous run (or the final
    /// state, the first time), then the expectations; or the script error that stopped it.
    fn show(
        &mut self,
        scenario: &Scenario,
        game: &Game,
        result: Result<()>,
        change: Option<&Change>,
    ) {
        self.runs += 1;
        if self.clear {
            print!("\x1b[2J\x1b[H");
        }
        let why = match change {
            None => "started".to_string(),
            Some(c) => format!("{} changed", c.describe()),
        };
        println!(
            "── run {} · rules v{} · {why} ──",
            self.runs, self.generation
        );
        let state = game.state();
        if let Err(e) = result {
            // The state is the one before the failed register: its expectations say nothing.
            println!("✗ script error, the register was rolled back:\n  {e}");
            return;
        }
        let outcome = Outcome::of(&state);
        match &self.previous {
            Some(previous) => print!("{}", diff::compare(previous, &outcome)),
            None => println!("{}{} events", render::robots(&state), state.events.len()),
        }
        self.previous = Some(outcome);
        if scenario.has_expectations() {
            print!("{}", render::expectations(&scenario.check(&state)));
        }
    }

    /// Reports a scenario or rule set that did not load; what ran last stays.
    fn failed(&self, error: &Error) {
        if self.generation == 0 {
            println!("✗ cannot load: {error}\n  waiting for a fix");
        } else {
            println!("{}", reload::failure_message(self.generation, error));
        }
        flush();
    }
}

/// A complete new rule set from the files, and the board compiled against it: only rules
/// that pass both are used.
fn build(sources: &Sources, scenario: &Scenario) -> Result<RuleSet> {
    let rules = RuleSet::load(sources)?;
    Board::compile(&scenario.layout, &rules)?;
    Ok(rules)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Output is read as it comes (a pipe, a test): never leave a run half in a buffer.
fn flush() {
    let _ = std::io::stdout().flush();
}
