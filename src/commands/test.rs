//! `rally test [PATH...]`: runs every scenario with expectations and ends with the line
//! `N passed, M failed` (green and red on a terminal); with `--json`, the results in the
//! format of docs/formats.md ("`rally test --json`").

use super::output::{paint, FAIL, JSON_VERSION, PASS};
use crate::error::Result;
use crate::formats::scenario::{self, Scenario};
use crate::script::RuleFolders;
use serde_json::json;
use std::path::{Path, PathBuf};

/// Run every scenario with an [expect] table under the paths; ends with `N passed, M failed`
#[derive(clap::Args)]
pub struct Args {
    /// Scenario files or folders (searched recursively) [default: tests/scenarios]
    paths: Vec<PathBuf>,
    /// Print the results as JSON
    #[arg(long)]
    json: bool,
}

impl Args {
    /// Returns whether every scenario passed.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        test(&self.paths, self.json, common)
    }
}

fn test(paths: &[PathBuf], as_json: bool, common: &RuleFolders) -> Result<bool> {
    let default = [PathBuf::from("tests/scenarios")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let files = scenario::collect(paths)?;
    let (mut passed, mut failed) = (0, 0);
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for file in &files {
        let named = paths.iter().any(|p| p == file);
        let outcome = match test_one(file, common) {
            Outcome::NotAScenario if !named => continue,
            Outcome::NoExpectations => {
                // A file named on the command line is not passed over in silence.
                if named {
                    if !as_json {
                        println!("{}: no [expect], skipped", file.display());
                    }
                    skipped.push(file);
                }
                continue;
            }
            outcome => outcome,
        };
        if matches!(outcome, Outcome::Passed) {
            passed += 1;
        } else {
            failed += 1;
        }
        if as_json {
            results.push(outcome.json(file));
        } else {
            outcome.print(file);
        }
    }
    if as_json {
        let report = json!({
            "version": JSON_VERSION,
            "passed": passed,
            "failed": failed,
            "scenarios": results,
            "skipped": skipped,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("JSON values serialize")
        );
    } else {
        let failed_text = format!("{failed} failed");
        anstream::println!(
            "{}, {}",
            paint(PASS, format!("{passed} passed")),
            if failed == 0 {
                failed_text
            } else {
                paint(FAIL, failed_text)
            }
        );
    }
    Ok(failed == 0)
}

impl Outcome {
    /// A failure or error as text; a pass says nothing (the summary counts it).
    fn print(&self, file: &Path) {
        match self {
            Outcome::Passed | Outcome::NoExpectations => {}
            Outcome::Failed(failures) => {
                anstream::println!("{} {}", paint(FAIL, "FAIL"), file.display());
                for f in failures {
                    // Values come from scripts: their control characters are shown, not sent.
                    let line = format!(
                        "robot {}: {}: expected {}, got {}",
                        f.robot, f.key, f.expected, f.actual
                    );
                    println!("     {}", crate::text::clean_line(&line));
                }
            }
            Outcome::NotAScenario => anstream::println!(
                "{} {}: not a scenario (no `board`)",
                paint(FAIL, "ERROR"),
                file.display()
            ),
            Outcome::Error(message) => {
                anstream::println!("{} {}", paint(FAIL, "ERROR"), crate::text::clean(message))
            }
        }
    }

    fn json(&self, file: &Path) -> serde_json::Value {
        let (status, failures, error) = match self {
            Outcome::Passed | Outcome::NoExpectations => ("passed", Vec::new(), None),
            Outcome::Failed(failures) => (
                "failed",
                failures
                    .iter()
                    .map(|f| {
                        json!({
                            "robot": f.robot,
                            "key": f.key,
                            "expected": f.expected,
                            "actual": f.actual,
                        })
                    })
                    .collect(),
                None,
            ),
            Outcome::NotAScenario => (
                "error",
                Vec::new(),
                Some("not a scenario (no `board`)".to_string()),
            ),
            Outcome::Error(message) => ("error", Vec::new(), Some(message.clone())),
        };
        json!({ "file": file, "status": status, "failures": failures, "error": error })
    }
}

enum Outcome {
    Passed,
    Failed(Vec<scenario::Failure>),
    NoExpectations,
    NotAScenario,
    Error(String),
}

fn test_one(file: &Path, common: &RuleFolders) -> Outcome {
    // Folders may hold boards and variant files next to scenarios; only files with a
    // `board` key are scenarios.
    match scenario::is_scenario(file) {
        Ok(true) => {}
        Ok(false) => return Outcome::NotAScenario,
        Err(e) => return Outcome::Error(e.to_string()),
    }
    let scenario = match Scenario::load(file) {
        Ok(s) => s,
        Err(e) => return Outcome::Error(e.to_string()),
    };
    if !scenario.has_expectations() {
        return Outcome::NoExpectations;
    }
    let result = common
        .rules(Some(file), scenario.variants.clone())
        .and_then(|rules| scenario.start(rules))
        .and_then(|mut game| scenario.resolve(&mut game).map(|f| (game, f)));
    match result {
        Err(e) => Outcome::Error(format!("{}: {e}", file.display())),
        Ok((game, mut failures)) => {
            failures.extend(scenario.check(&game.state()));
            match scenario.check_game(&game) {
                Ok(more) => failures.extend(more),
                Err(e) => return Outcome::Error(format!("{}: {e}", file.display())),
            }
            if failures.is_empty() {
                Outcome::Passed
            } else {
                Outcome::Failed(failures)
            }
        }
    }
}
