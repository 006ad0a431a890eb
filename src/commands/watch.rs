//! `rally watch PATH...`: runs scenarios, then runs them again from the start whenever one
//! of their files changes (the scenario, its board, the scripts, the variants it switches
//! on), and prints what changed against the previous run, so a playtester sees the effect of
//! an edit the moment it is saved (docs/hot-reload.md).
//!
//! One scenario file is shown in full: every run with its header, the differences and the
//! expectations. Folders and several files are watched together: on a save, every scenario
//! that uses the changed file runs again, each shows its differences, and a summary like
//! `rally test`'s follows.
//!
//! Each change builds everything again from the files, off to the side: the scenario, a
//! complete new rule set, the board compiled against it. Only rules that load cleanly are
//! used (with the next generation number); otherwise the error is printed and the last good
//! rules stay, and they still answer when only the scenario or its board was edited.

use crate::board::Board;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::formats::scenario::Scenario;
use crate::pictures::{diff, render, stopped};
use crate::reload::{self, Change, Watched, Watcher};
use crate::script::{Project, RuleFolders, RuleSet, Sources};
use crate::state::Resolution;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Run scenarios, then again on every change to their files, printing what changed (hot reload)
///
/// One scenario is shown in full on every run. With folders or several files, a save runs
/// again every scenario that uses the changed file and ends with `N passed, M failed`.
/// Examples: `rally watch boards/tour.toml`, `rally watch tests/scenarios/belts my.toml`.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario files (.toml) or folders of them (searched recursively)
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Look at the files every 100 ms instead of waiting for change events (network and VM file systems)
    #[arg(long)]
    poll: bool,
    /// Print how long each reload took: debounce, rebuild, re-run, save to result
    #[arg(long)]
    timings: bool,
    /// How long saves following one another (or, with --poll, any save) must stay unchanged
    /// before a reload, in milliseconds; a lone save is read once its files are closed
    #[arg(long, value_name = "MS", default_value_t = 40)]
    debounce: u64,
    /// Stop every run after MOMENT (t2r3, t2r3s4, t2r0, t2end, as `rally run --until`) and
    /// show what changed there
    #[arg(long, value_name = "MOMENT")]
    until: Option<crate::game::moment::Moment>,
}

impl Args {
    /// Runs until interrupted (or until the file watcher stops). A path that does not exist,
    /// or a folder without scenarios, is an error at once.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        watch(&self.paths, self, common)
    }
}

fn watch(paths: &[PathBuf], opts: &Args, common: &RuleFolders) -> Result<bool> {
    let files = scenarios(paths)?;
    let single = matches!(paths, [one] if !one.is_dir());
    let mut sessions = files
        .iter()
        .map(|f| Session::new(f, common, opts))
        .collect::<Result<Vec<_>>>()?;
    // Watch before the first run, so that a save made while it runs is not missed.
    let mut watcher = Watcher::new(
        &everything(&sessions),
        &reload::WatchOptions {
            poll: opts.poll,
            quiet: Duration::from_millis(opts.debounce),
        },
    )?;
    let clear = std::io::stdout().is_terminal();
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    super::output::note(format!("watching {} (Ctrl-C to stop)", shown.join(", ")));
    let all: Vec<usize> = (0..sessions.len()).collect();
    run(&mut sessions, &all, None, single, clear);
    watcher.set_watched(&everything(&sessions))?;
    while let Some(change) = watcher.wait_change(None) {
        let affected: Vec<usize> = (0..sessions.len())
            .filter(|&i| sessions[i].uses(&change.paths))
            .collect();
        if !affected.is_empty() {
            run(&mut sessions, &affected, Some(&change), single, clear);
        }
        watcher.set_watched(&everything(&sessions))?;
    }
    Ok(true)
}

/// The scenario files under `paths`: a file as it is; in a folder, every `.toml` file with a
/// `board` (as `rally test` finds them).
fn scenarios(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    if paths.is_empty() {
        return Err(Error::Other(
            "rally watch needs a scenario file or a folder of scenarios".into(),
        ));
    }
    let mut found = Vec::new();
    for path in paths {
        let files = crate::formats::scenario::collect(std::slice::from_ref(path))?;
        if !path.is_dir() {
            found.extend(files);
            continue;
        }
        let before = found.len();
        for file in files {
            if crate::formats::scenario::is_scenario(&file)? {
                found.push(file);
            }
        }
        if found.len() == before {
            return Err(Error::File {
                file: path.clone(),
                message: "holds no scenario (a .toml file with a `board`)".into(),
            });
        }
    }
    Ok(found)
}

/// What the watcher looks at: every session's files.
fn everything(sessions: &[Session]) -> Watched {
    let mut all = Watched::default();
    for s in sessions {
        let w = s.watched();
        all.folders.extend(w.folders);
        all.files.extend(w.files);
    }
    all.folders.sort();
    all.folders.dedup();
    all.files.sort();
    all.files.dedup();
    all
}

/// Runs the sessions `which` (after `change`, or for the first time) and prints them: one
/// scenario in full, several with a summary of all.
fn run(
    sessions: &mut [Session],
    which: &[usize],
    change: Option<&Change>,
    single: bool,
    clear: bool,
) {
    let mut out = String::new();
    let why = match change {
        None => "started".to_string(),
        Some(c) => format!("{} changed", c.describe()),
    };
    if single {
        for &i in which {
            sessions[i].reload(change, &why, &mut out);
        }
    } else {
        let _ = writeln!(
            out,
            "── {why} · {} of {} scenarios run ──",
            which.len(),
            sessions.len()
        );
        for &i in which {
            let mut body = String::new();
            sessions[i].reload(change, &why, &mut body);
            let _ = writeln!(out, "▸ {}", sessions[i].path.display());
            for line in body.lines() {
                let _ = writeln!(out, "  {line}");
            }
        }
        let passed = sessions.iter().filter(|s| s.passed == Some(true)).count();
        let failed = sessions.iter().filter(|s| s.passed == Some(false)).count();
        let _ = writeln!(out, "{passed} passed, {failed} failed");
    }
    // A new run replaces the screen; a failure alone is printed below the last run.
    if clear && (!single || out.contains("── run ")) {
        out.insert_str(0, "\x1b[2J\x1b[H");
    }
    print!("{out}");
    let _ = std::io::stdout().flush();
}

/// One scenario: the last good state of things, and what the next run is compared with.
struct Session {
    path: PathBuf,
    /// The project whose layers the rules come from (read again on every build, so an
    /// edited rally.toml counts).
    project: Project,
    extra: Vec<String>,
    timings: bool,
    /// Where each run stops (`--until`); `None`: at the end.
    until: Option<crate::game::moment::Moment>,
    /// The scenario as last read from its file (its variants decide which folders to watch,
    /// even when the rules it asks for do not load).
    latest: Option<Scenario>,
    /// The scenario last run, and the last good rules, in the game they last ran.
    current: Option<(Scenario, Engine)>,
    /// The generation of the rules in `current`: one more for every rule set that loaded.
    generation: u64,
    /// The last run that finished, to compare the next one with.
    previous: Option<Resolution>,
    runs: u32,
    /// Whether its expectations held the last time it ran (`None`: it has none, or it did
    /// not run), for the summary.
    passed: Option<bool>,
}

impl Session {
    fn new(path: &Path, common: &RuleFolders, opts: &Args) -> Result<Session> {
        Ok(Session {
            path: path.to_path_buf(),
            project: common.project(Some(path)),
            extra: common.extra_variants.clone(),
            timings: opts.timings,
            until: opts.until,
            latest: Scenario::load(path).ok(),
            current: None,
            generation: 0,
            previous: None,
            runs: 0,
            passed: None,
        })
    }

    fn sources(&self, scenario: &Scenario) -> Sources {
        scenario.sources(&self.project, &self.extra)
    }

    /// The scenario file, its board files, and in every layer but the built-in one the
    /// scripts, the switched-on variants' folders and the manifests.
    fn watched(&self) -> Watched {
        let mut watched = match &self.latest {
            Some(s) => {
                let mut w = Watched::rules(&self.sources(s));
                w.files.extend(s.files());
                w
            }
            None => Watched::rules(&Sources {
                project: self.project.clone(),
                choices: Vec::new(),
            }),
        };
        watched.files.push(self.path.clone());
        watched
    }

    /// Whether any of the changed `paths` matters to this scenario: its own files, the rule
    /// and option scripts, its variants, and of the element scripts those of the elements on
    /// its board (a script that declares none of the loaded elements may declare a new one,
    /// so it matters too).
    fn uses(&self, paths: &[PathBuf]) -> bool {
        let watched = self.watched();
        let paths: Vec<PathBuf> = paths
            .iter()
            .filter(|p| watched.covers(std::slice::from_ref(p)))
            .cloned()
            .collect();
        let Some((_, game)) = &self.current else {
            return !paths.is_empty();
        };
        let rules = game.rules();
        let on_board: Vec<&str> = game
            .board()
            .tiles
            .iter()
            .filter_map(|t| rules.elements.get(t.element))
            .map(|e| e.file.as_str())
            .collect();
        paths.iter().any(|p| {
            let shown = crate::files::display_path(p);
            let declares_elements = rules.elements.iter().any(|e| e.file == shown);
            !declares_elements || on_board.contains(&shown.as_str())
        })
    }

    /// Builds from the files and runs again; `change` is `None` the first time.
    fn reload(&mut self, change: Option<&Change>, why: &str, out: &mut String) {
        let start = Instant::now();
        let scenario = match Scenario::load(&self.path) {
            Ok(s) => s,
            Err(e) => {
                self.failed(&e, out);
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
                Err(e) => self.failed(&e, out),
            }
        }
        let rules = match (rules, self.current.take()) {
            (Some(r), _) => r,
            // The last good rules answer for an edited scenario or board, as long as it asks
            // for the same variants and its board compiles against them.
            (None, Some((old, game))) if game_changed && same_variants => {
                if let Err(e) = Board::compile(&scenario.layout, game.rules()) {
                    self.failed(&e, out);
                    self.current = Some((old, game));
                    return;
                }
                game.into_rules()
            }
            (None, current) => {
                self.current = current;
                return;
            }
        };
        let rebuild = start.elapsed();
        let mut game = match scenario.start(rules) {
            Ok(g) => g,
            Err(e) => {
                // The board compiled against these rules, so this is rare (a script failing
                // while the game is set up); without a good game there is nothing to keep.
                let _ = writeln!(out, "✗ {e}");
                self.passed = Some(false);
                return;
            }
        };
        let run_start = Instant::now();
        let result = scenario.resolve_until(&mut game, self.until);
        let rerun = run_start.elapsed();
        // Where a failed run stopped, and what it had logged (the state at the failure).
        let result = result.map_err(|e| (e, game.take_rolled_back()));
        self.show(&scenario, &game, result, why, out);
        if self.timings {
            let _ = match change {
                Some(c) => writeln!(
                    out,
                    "timings: debounce {:.1} ms, rebuild {:.1} ms, re-run {:.1} ms; save → result {:.1} ms",
                    ms(c.debounce()),
                    ms(rebuild),
                    ms(rerun),
                    ms(c.first_seen.elapsed())
                ),
                None => writeln!(
                    out,
                    "timings: build {:.1} ms, run {:.1} ms",
                    ms(rebuild),
                    ms(rerun)
                ),
            };
        }
        self.current = Some((scenario, game));
    }

    /// Writes one run: a header and the folders the rules come from, the difference against
    /// the previous run (or the final state, the first time), then the expectations; or the
    /// script error that stopped it.
    fn show(
        &mut self,
        scenario: &Scenario,
        engine: &Engine,
        result: std::result::Result<
            Vec<crate::formats::scenario::Failure>,
            (Error, Option<crate::engine::RolledBack>),
        >,
        why: &str,
        out: &mut String,
    ) {
        self.runs += 1;
        let _ = writeln!(
            out,
            "── run {} · rules v{} · {why} ──",
            self.runs, self.generation
        );
        let rules = engine.rules();
        let _ = writeln!(out, "rules from {}", rules.describe_sources());
        for notice in rules.notices() {
            let _ = writeln!(out, "note: {notice}");
        }
        let state = engine.state();
        let mut failures = match result {
            Ok(failures) => failures,
            Err((e, rolled)) => {
                // The state is the one before the failed register: its expectations say nothing.
                match rolled {
                    Some(rolled) => {
                        drop(state);
                        out.push_str(&stopped::failure(
                            engine,
                            Some(&rolled),
                            render::Clock::of_run(scenario.turns, &engine.state().events),
                        ));
                        let _ = writeln!(out, "  {e}");
                    }
                    None => {
                        let _ =
                            writeln!(out, "✗ script error, the register was rolled back:\n  {e}");
                    }
                }
                self.passed = Some(false);
                return;
            }
        };
        let outcome = Resolution::of(&state);
        match &self.previous {
            Some(previous) => out.push_str(&diff::compare(previous, &outcome).to_string()),
            None => {
                let _ = writeln!(
                    out,
                    "{}{} events",
                    render::robots(&state),
                    state.events.len()
                );
            }
        }
        self.previous = Some(outcome);
        if let Some(m) = self.until {
            // Expectations are about the end, not the moment stopped at.
            let _ = writeln!(out, "stopped at {m} ({}) by --until", m.words());
            self.passed = None;
        } else if scenario.has_expectations() {
            failures.extend(scenario.check(&state));
            self.passed = Some(failures.is_empty());
            out.push_str(&render::expectations(&failures));
        } else {
            self.passed = None;
        }
    }

    /// Reports a scenario or rule set that did not load; what ran last stays.
    fn failed(&mut self, error: &Error, out: &mut String) {
        if self.generation == 0 {
            let _ = writeln!(out, "✗ cannot load: {error}");
            self.passed = Some(false);
        } else {
            let _ = writeln!(out, "{}", reload::failure_message(self.generation, error));
        }
        if let Some(snippet) = crate::snippet::of(error, super::output::stdout_colour()) {
            let _ = writeln!(out, "{snippet}");
        }
        if self.generation == 0 {
            let _ = writeln!(out, "  waiting for a fix");
        }
    }
}

/// A complete new rule set from the files, its scripts checked first (`rally check`), and
/// the board compiled against it: only rules that pass all three are used.
fn build(sources: &Sources, scenario: &Scenario) -> Result<RuleSet> {
    let rules = crate::script::check::checked_rules(sources)?;
    Board::compile(&scenario.layout, &rules)?;
    Ok(rules)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
