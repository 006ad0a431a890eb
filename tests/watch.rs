//! `rally watch` as a playtester uses it: the real binary runs on a temporary project (a copy
//! of the gear and of the robot lasers rule, layered on the built-in rules) while the test
//! edits files the way editors do, and reads what it prints.
//!
//! Every wait has a generous deadline (a loaded two-core machine can be slow), but a passing
//! test only waits as long as the watcher needs.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A belt carries the robot onto a right-turning gear: it ends facing N (from W).
fn scenario() -> String {
    format!(
        "description = \"A belt carries the robot onto a gear, which turns it in the same register\"\n{}{}",
        support::BELT_ONTO_GEAR,
        r#"[[robot]]
name = "A"
at = [1, 1]
facing = "W"
[expect.A]
at = [1, 2]
facing = "N"
"#
    )
}

/// The standard gear's step: the declared rotate effect. A designer's save replaces it with a
/// function (`gear_step`), as an edit to the rule would.
const GEAR_LINE: &str = "gears = rally.effect.rotate(\"turn\", { by = \"gear\" }),";
const REVERSED: &str = "ctx:rotate(robot, tile.turn == 'left' and 'right' or 'left', 'gear')";

/// The gear's step written as a function doing `body`.
fn gear_step(body: &str) -> String {
    format!("gears = function(ctx, tile, robot) {body} end,")
}
const PATIENCE: Duration = Duration::from_secs(15);

/// A temporary project with copies of two standard scripts (replacing the built-in ones,
/// unchanged at first) and the scenario.
struct Fixture {
    dir: tempfile::TempDir,
    gear: String,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        for file in ["elements/gear.lua", "rules/robot_lasers.lua"] {
            let to = dir.path().join("scripts").join(file);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("scripts")
                    .join(file),
                to,
            )
            .unwrap();
        }
        std::fs::write(dir.path().join("s.toml"), scenario()).unwrap();
        let gear = std::fs::read_to_string(dir.path().join("scripts/elements/gear.lua")).unwrap();
        assert!(
            gear.contains(GEAR_LINE),
            "gear.lua no longer says {GEAR_LINE}"
        );
        Fixture { dir, gear }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn gear_path(&self) -> PathBuf {
        self.path("scripts/elements/gear.lua")
    }

    fn reversed_gear(&self) -> String {
        self.gear.replace(GEAR_LINE, &gear_step(REVERSED))
    }

    /// Saves the way most editors do: a temporary file beside it, renamed over it.
    fn save_by_rename(&self, path: &Path, text: &str) {
        let temp = path.with_file_name(format!(
            ".{}.tmp",
            path.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&temp, text).unwrap();
        std::fs::rename(&temp, path).unwrap();
    }

    /// Saves in place: truncate and write the same file.
    fn save_in_place(&self, path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn watch(&self, args: &[&str]) -> Watch {
        let mut all = vec![self.path("s.toml").to_string_lossy().into_owned()];
        all.extend(args.iter().map(|a| a.to_string()));
        let mut watch = self.spawn(&all);
        watch.until("✓ all expectations hold");
        watch
    }

    /// `rally watch ARGS` in the fixture's folder.
    fn spawn(&self, args: &[String]) -> Watch {
        let mut child = support::rally_command(self.dir.path(), &["watch"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rally starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Watch {
            child,
            lines,
            seen: Vec::new(),
        }
    }
}

/// A running `rally watch` and everything it printed so far.
struct Watch {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Watch {
    /// Reads until a line contains `text`; returns the lines read, that one included.
    fn until(&mut self, text: &str) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    let done = line.contains(text);
                    read.push(line);
                    if done {
                        return read;
                    }
                }
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => panic!(
                    "no line with {text:?} within {PATIENCE:?}; output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// Every line printed within `time`.
    /// Everything printed until nothing more comes for `quiet` (within [`PATIENCE`]).
    fn until_quiet(&mut self, quiet: Duration) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut read = Vec::new();
        while Instant::now() < deadline {
            match self.lines.recv_timeout(quiet) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    read.push(line);
                }
                Err(_) => return read,
            }
        }
        panic!("still printing after {PATIENCE:?}: {read:?}")
    }

    fn quiet_for(&mut self, time: Duration) -> Vec<String> {
        let deadline = Instant::now() + time;
        let mut read = Vec::new();
        while let Ok(line) = self
            .lines
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            self.seen.push(line.clone());
            read.push(line);
        }
        read
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn contains(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

#[test]
fn an_edit_reruns_the_scenario_and_shows_what_changed() {
    let f = Fixture::new();
    let mut w = f.watch(&[]);
    assert!(
        contains(&w.seen, "── run 1 · rules v1 · started ──"),
        "{:?}",
        w.seen
    );
    assert!(
        contains(&w.seen, "A        at [1, 2] facing N"),
        "{:?}",
        w.seen
    );

    f.save_by_rename(&f.gear_path(), &f.reversed_gear());
    let header = w.until("── run 2");
    assert!(
        header
            .last()
            .unwrap()
            .contains("rules v2 · scripts/elements/gear.lua changed"),
        "{header:?}"
    );
    let run = w.until("✗ A: facing expected N, got S");
    assert!(contains(&run, "first difference at event 2:"), "{run:?}");
    let now = run.iter().find(|l| l.starts_with("  now")).unwrap();
    assert!(
        now.contains("turned") && now.contains("rotation=left") && now.contains("facing=S"),
        "{run:?}"
    );
    assert!(contains(&run, "A        facing N → S"), "{run:?}");

    f.save_in_place(&f.gear_path(), &f.gear);
    w.until("── run 3 · rules v3");
    let run = w.until("✓ all expectations hold");
    assert!(contains(&run, "A        facing S → N"), "{run:?}");
}

#[test]
fn a_broken_script_is_reported_and_the_old_rules_keep_answering() {
    let f = Fixture::new();
    let mut w = f.watch(&[]);

    f.save_by_rename(&f.gear_path(), "return rally.element {\n  name = \n");
    let failure = w.until("gear.lua:");
    assert!(
        contains(&failure, "✗ reload failed, still using rules v1"),
        "{failure:?}"
    );
    assert!(
        !contains(&failure, "── run 2"),
        "no run with broken rules: {failure:?}"
    );

    // Only the scenario changes: the last good rules (v1, the real gear) answer.
    f.save_by_rename(
        &f.path("s.toml"),
        &scenario().replace("facing = \"W\"", "facing = \"E\""),
    );
    w.until("── run 2 · rules v1 · s.toml changed ──");
    let run = w.until("✗ A: facing expected N, got S");
    assert!(contains(&run, "A        facing N → S"), "{run:?}");

    // The fix loads: new rules, and the run goes on from where the last one ended.
    f.save_by_rename(&f.gear_path(), &f.reversed_gear());
    w.until("── run 3 · rules v2 · scripts/elements/gear.lua changed ──");
    let run = w.until("✓ all expectations hold");
    assert!(contains(&run, "A        facing S → N"), "{run:?}");
}

/// A typo on a path the scenario never takes is caught by the check a reload runs first
/// (`rally check`): the reload fails, the old rules keep answering.
#[test]
fn a_reload_checks_the_scripts_first() {
    let f = Fixture::new();
    let mut w = f.watch(&[]);
    let typo = f.gear.replace(
        GEAR_LINE,
        &gear_step(
            "if robot.damage == 99 then ctx:rotat(robot) end ctx:rotate(robot, tile.turn, 'gear')",
        ),
    );
    f.save_by_rename(&f.gear_path(), &typo);
    let failure = w.until("does not exist");
    assert!(
        contains(&failure, "✗ reload failed, still using rules v1")
            && contains(&failure, "gear.lua:")
            && contains(
                &failure,
                "`ctx:rotat` does not exist (did you mean `ctx:rotate`?)"
            ),
        "{failure:?}"
    );
    assert!(!contains(&failure, "── run 2"), "{failure:?}");
}

/// The project's gear replaces the built-in one, said in the header once it differs;
/// deleted, it gives way to the built-in gear again.
#[test]
fn a_deleted_script_gives_way_to_the_layer_beneath() {
    let f = Fixture::new();
    let mut w = f.watch(&[]);
    let notice = "note: project: scripts/elements/gear.lua replaces element `gear` (built-in)";
    assert!(
        !contains(&w.seen, notice),
        "an unchanged copy: {:?}",
        w.seen
    );
    f.save_by_rename(&f.gear_path(), &f.reversed_gear());
    let run = w.until("✗ A: facing expected N, got S");
    assert!(contains(&run, notice), "{run:?}");
    std::fs::remove_file(f.gear_path()).unwrap();
    w.until("── run 3 · rules v3 · scripts/elements/gear.lua changed ──");
    let run = w.until("✓ all expectations hold");
    assert!(contains(&run, "A        facing S → N"), "{run:?}");
    assert!(!contains(&run, notice), "{run:?}");
}

/// A pack's scripts are watched as the project's are: an edit to the pack's element runs
/// the scenario again.
#[test]
fn an_edit_to_a_packs_script_reloads() {
    let f = Fixture::new();
    let pack = f.path("packs/spin/scripts/elements/spinner.lua");
    std::fs::create_dir_all(pack.parent().unwrap()).unwrap();
    let spinner = "return rally.element {\n  name = \"spinner\",\n  describe = \"Turns a robot on it left in step C4.\",\n  steps = { gears = function(ctx, tile, robot) ctx:rotate(robot, \"left\", \"spinner\") end },\n}\n";
    std::fs::write(&pack, spinner).unwrap();
    std::fs::write(f.path("rally.toml"), "packs = [\"packs/spin\"]\n").unwrap();
    std::fs::write(
        f.path("s.toml"),
        "board = { grid = \"S\", legend = { \"S\" = \"spinner\" } }\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n[expect.A]\nfacing = \"W\"\n",
    )
    .unwrap();
    let mut w = f.watch(&[]);
    assert!(
        contains(
            &w.seen,
            "rules from the layers built-in, pack spin (packs/spin), project (scripts); no variant switched on"
        ),
        "{:?}",
        w.seen
    );
    f.save_by_rename(
        &pack,
        &spinner.replace("\"left\", \"spinner\"", "\"right\", \"spinner\""),
    );
    w.until("── run 2 · rules v2 · packs/spin/scripts/elements/spinner.lua changed ──");
    w.until("✗ A: facing expected W, got E");
}

#[test]
fn temp_files_and_saves_without_changes_do_not_rerun() {
    let f = Fixture::new();
    let mut w = f.watch(&[]);
    std::fs::write(f.path("scripts/elements/.gear.lua.swp"), "junk").unwrap();
    std::fs::write(f.path("scripts/elements/gear.lua~"), "junk").unwrap();
    std::fs::write(f.path("scripts/elements/notes.txt"), "junk").unwrap();
    f.save_by_rename(&f.gear_path(), &f.gear);
    f.save_in_place(&f.path("s.toml"), &scenario());
    let printed = w.quiet_for(Duration::from_millis(1500));
    assert!(printed.is_empty(), "nothing changed, yet: {printed:?}");
}

#[test]
fn fifty_saves_in_a_second_end_in_a_few_consistent_runs() {
    let f = Fixture::new();
    // A burst merges into one change while saves come less than a quiet period apart, and is
    // acted on at the latest after `HOLD` quiet periods (so endless saving cannot starve it):
    // how many runs fifty saves make depends on how promptly a loaded machine schedules the
    // writer, but never a half-written file, never one run per save, and the last run shows
    // the last save.
    let mut w = f.watch(&["--debounce", "250"]);
    let reversed = f.reversed_gear();
    for i in 0..50 {
        let text = if i % 2 == 1 { &reversed } else { &f.gear };
        f.save_in_place(&f.gear_path(), &format!("{text}\n-- save {i}\n"));
        std::thread::sleep(Duration::from_millis(20));
    }
    let printed = w.until_quiet(Duration::from_millis(1500));
    assert!(
        !contains(&printed, "reload failed"),
        "a half-written file was loaded: {printed:?}"
    );
    let runs: Vec<usize> = (0..printed.len())
        .filter(|&i| printed[i].starts_with("── run"))
        .collect();
    assert!(
        (1..=6).contains(&runs.len()),
        "{} runs for one burst: {printed:?}",
        runs.len()
    );
    // The last save (49) has the reversed gear.
    let last = &printed[*runs.last().unwrap()..];
    assert!(contains(last, "✗ A: facing expected N, got S"), "{last:?}");
}

#[test]
fn polling_sees_changes_too() {
    let f = Fixture::new();
    let mut w = f.watch(&["--poll"]);
    f.save_by_rename(&f.gear_path(), &f.reversed_gear());
    w.until("── run 2 · rules v2");
    w.until("✗ A: facing expected N, got S");
}

#[test]
fn timings_split_the_latency() {
    let f = Fixture::new();
    let mut w = f.watch(&["--timings"]);
    f.save_in_place(&f.gear_path(), &f.reversed_gear());
    let line = w.until("timings: debounce").pop().unwrap();
    for part in ["rebuild", "re-run", "save → result"] {
        assert!(line.contains(part), "{line}");
    }
}

#[test]
fn the_header_says_where_the_rules_come_from() {
    let f = Fixture::new();
    let w = f.watch(&[]);
    assert!(
        contains(
            &w.seen,
            "rules from the layers built-in, project (scripts); no variant switched on"
        ),
        "{:?}",
        w.seen
    );
}

#[test]
fn a_path_that_does_not_exist_is_an_error_at_once() {
    let f = Fixture::new();
    for args in [&["missing.toml"][..], &["s.toml", "nowhere/"], &["scripts"]] {
        let out = support::rally(f.dir.path(), &[&["watch"][..], args].concat());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("no such file or folder") || err.contains("holds no scenario"),
            "{args:?}: {err}"
        );
    }
}

/// A folder of scenarios: a save runs again only those that use the changed file, shows
/// what changed for them, and sums up all of them like `rally test`.
#[test]
fn a_folder_reruns_the_scenarios_that_use_the_changed_script() {
    let f = Fixture::new();
    std::fs::create_dir(f.path("scenarios")).unwrap();
    std::fs::rename(f.path("s.toml"), f.path("scenarios/gear.toml")).unwrap();
    std::fs::write(
        f.path("scenarios/belt.toml"),
        "board = { grid = \". v .\", legend = { \".\" = \"floor\", \"v\" = { element = \"conveyor\", dir = \"S\" } } }\n\
         [[robot]]\nname = \"B\"\nat = [0, 0]\nfacing = \"N\"\n[expect.B]\nat = [0, 0]\n",
    )
    .unwrap();
    // Not a scenario (no `board`): passed over.
    std::fs::write(f.path("scenarios/notes.toml"), "title = \"notes\"\n").unwrap();
    let mut w = f.spawn(&["scenarios".to_string()]);
    let first = w.until("passed, ");
    assert!(
        contains(&first, "── started · 2 of 2 scenarios run ──"),
        "{first:?}"
    );
    assert!(contains(&first, "2 passed, 0 failed"), "{first:?}");

    f.save_by_rename(&f.gear_path(), &f.reversed_gear());
    let run = w.until("passed, ");
    assert!(
        contains(
            &run,
            "scripts/elements/gear.lua changed · 1 of 2 scenarios run"
        ),
        "{run:?}"
    );
    assert!(contains(&run, "▸ scenarios/gear.toml"), "{run:?}");
    assert!(!contains(&run, "▸ scenarios/belt.toml"), "{run:?}");
    assert!(contains(&run, "A        facing N → S"), "{run:?}");
    assert!(contains(&run, "1 passed, 1 failed"), "{run:?}");

    // A rule every scenario uses runs them all.
    let lasers = f.path("scripts/rules/robot_lasers.lua");
    let text = std::fs::read_to_string(&lasers).unwrap();
    f.save_by_rename(&lasers, &format!("{text}\n-- edited\n"));
    let run = w.until("passed, ");
    assert!(contains(&run, "2 of 2 scenarios run"), "{run:?}");
}

/// A handler that fails while the scenario runs: the events up to the failure, the board and
/// robots as the register was rolled back, and when (issue 28 §2, docs/debugging.md).
#[test]
fn a_failing_handler_shows_the_state_at_the_failure() {
    let f = Fixture::new();
    let mut w = f.watch(&[]);
    f.save_by_rename(
        &f.gear_path(),
        &f.gear.replace(
            GEAR_LINE,
            &gear_step("local held = nil; ctx:rotate(robot, held.turn, 'gear')"),
        ),
    );
    let run =
        w.until("✗ script error in turn 1, register 1, step gears, the register was rolled back:");
    assert!(contains(&run, "Events up to the failure:"), "{run:?}");
    assert!(
        contains(
            &run,
            "R1  board_elements  Robot A is carried S to [1, 2] by a belt (rolled back)"
        ),
        "{run:?}"
    );
    // Rolled back: A stands where it started, facing W.
    assert!(contains(&run, "  A        at [1, 1] facing W"), "{run:?}");
    let message = w.until("gear.lua:");
    assert!(
        contains(&message, "attempt to index a nil value (local 'held')"),
        "{message:?}"
    );
}

/// `--until` stops every run at the moment, and says so instead of checking expectations.
#[test]
fn until_stops_every_run_at_the_moment() {
    let f = Fixture::new();
    let args = [
        f.path("s.toml").to_string_lossy().into_owned(),
        "--until".into(),
        "t1r1s1".into(),
    ];
    let mut w = f.spawn(&args);
    // Frame 1 of register 1: the belt carried A, the gear has not turned it yet.
    let run = w.until("stopped at t1r1s1 (turn 1, register 1, frame 1) by --until");
    assert!(contains(&run, "  A        at [1, 2] facing W"), "{run:?}");
    f.save_by_rename(&f.gear_path(), &f.reversed_gear());
    let run = w.until("stopped at t1r1s1");
    assert!(contains(&run, "no change"), "{run:?}");
}

/// A variant's folder moved away and back (a `git stash`, a file manager's cut and paste):
/// the watch on it is armed again, and a later save in it is seen.
#[test]
fn a_variant_folder_moved_away_and_back_is_watched_again() {
    let f = Fixture::new();
    let variant = f.path("variants/house");
    std::fs::create_dir_all(&variant).unwrap();
    std::fs::write(
        variant.join("variant.toml"),
        "name = \"house\"\ndescription = \"a house rule\"\nfiles = [\"rule.lua\"]\n",
    )
    .unwrap();
    let rule = "return rally.rule {\n  name = \"house\",\n  describe = \"Does nothing yet.\",\n}\n";
    std::fs::write(variant.join("rule.lua"), rule).unwrap();
    let text = std::fs::read_to_string(f.path("s.toml")).unwrap();
    std::fs::create_dir(f.path("scenarios")).unwrap();
    std::fs::write(
        f.path("scenarios/s.toml"),
        format!("variants = [\"house\"]\n{text}"),
    )
    .unwrap();
    std::fs::remove_file(f.path("s.toml")).unwrap();
    // Watching the folder of scenarios, as `rally watch scenarios/`.
    let mut w = f.spawn(&["scenarios", "--variants", "variants"].map(String::from));
    w.until("1 passed, 0 failed");

    let away = f.path("away");
    std::fs::rename(&variant, &away).unwrap();
    w.until("reload failed");
    std::fs::rename(&away, &variant).unwrap();
    w.until("1 passed, 0 failed");
    // A save in the folder after it came back is seen.
    f.save_by_rename(
        &variant.join("rule.lua"),
        "return rally.rule {\n  name = \n",
    );
    let failure = w.until("rule.lua:");
    assert!(contains(&failure, "reload failed"), "{failure:?}");
    // And so is the fix.
    f.save_by_rename(&variant.join("rule.lua"), rule);
    w.until("1 passed, 0 failed");
}
