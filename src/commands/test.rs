//! `rally test [PATH...]`: runs every scenario with expectations and ends with the line
//! `N passed, M failed`.

use super::Common;
use crate::error::Result;
use crate::scenario::{self, Scenario};
use std::path::{Path, PathBuf};

/// Returns whether every scenario passed.
pub fn test(paths: &[PathBuf], common: &Common) -> Result<bool> {
    let default = [PathBuf::from("tests/scenarios")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let files = scenario::collect(paths)?;
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        let named = paths.iter().any(|p| p == file);
        match test_one(file, common) {
            Outcome::NotAScenario if !named => {}
            Outcome::NoExpectations => {}
            Outcome::Passed => passed += 1,
            Outcome::Failed(lines) => {
                failed += 1;
                println!("FAIL {}", file.display());
                for line in lines {
                    println!("     {line}");
                }
            }
            Outcome::NotAScenario => {
                failed += 1;
                println!("ERROR {}: not a scenario (no `board`)", file.display());
            }
            Outcome::Error(message) => {
                failed += 1;
                println!("ERROR {message}");
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    Ok(failed == 0)
}

enum Outcome {
    Passed,
    Failed(Vec<String>),
    NoExpectations,
    NotAScenario,
    Error(String),
}

fn test_one(file: &Path, common: &Common) -> Outcome {
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
        .and_then(|mut game| scenario.resolve(&mut game).map(|_| game));
    match result {
        Err(e) => Outcome::Error(format!("{}: {e}", file.display())),
        Ok(game) => {
            let mut failures = scenario.check(&game.state());
            match scenario.check_game(&game) {
                Ok(more) => failures.extend(more),
                Err(e) => return Outcome::Error(format!("{}: {e}", file.display())),
            }
            if failures.is_empty() {
                Outcome::Passed
            } else {
                Outcome::Failed(
                    failures
                        .iter()
                        .map(|f| {
                            format!(
                                "robot {}: {}: expected {}, got {}",
                                f.robot, f.key, f.expected, f.actual
                            )
                        })
                        .collect(),
                )
            }
        }
    }
}
