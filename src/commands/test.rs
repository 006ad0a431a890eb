//! `rally test [PATH...]`: runs every scenario with expectations and ends with the line
//! `N passed, M failed` (green and red on a terminal); with `--json`, the results in the
//! format of docs/formats.md ("`rally test --json`").

use super::output::{paint, FAIL, JSON_VERSION, PASS};
use crate::error::Result;
use crate::formats::scenario;
use crate::game::scenario::{test_file, Verdict};
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
    // The scripts' names and handlers first (`rally check`): a mistake on a path no scenario
    // takes is found all the same, and before any scenario runs.
    if !super::check::before_running(&files, common) {
        anstream::eprintln!("the scripts have problems (`rally check`): no scenario was run");
        return Ok(false);
    }
    let (mut passed, mut failed) = (0, 0);
    let mut results = Vec::new();
    let mut skipped = Vec::new();
    for file in &files {
        let named = paths.iter().any(|p| p == file);
        let verdict = match test_file(file, common) {
            Verdict::NotAScenario if !named => continue,
            Verdict::NoExpectations => {
                // A file named on the command line is not passed over in silence.
                if named {
                    if !as_json {
                        println!("{}: no [expect], skipped", file.display());
                    }
                    skipped.push(file);
                }
                continue;
            }
            verdict => verdict,
        };
        if matches!(verdict, Verdict::Passed) {
            passed += 1;
        } else {
            failed += 1;
        }
        if as_json {
            results.push(json(&verdict, file));
        } else {
            print(&verdict, file);
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

/// A failure or error as text; a pass says nothing (the summary counts it).
fn print(verdict: &Verdict, file: &Path) {
    match verdict {
        Verdict::Passed | Verdict::NoExpectations => {}
        Verdict::Failed(failures) => {
            anstream::println!("{} {}", paint(FAIL, "FAIL"), file.display());
            for f in failures {
                // Values come from scripts: their control characters are shown, not sent.
                println!("     {}", crate::text::clean_line(&f.to_string()));
            }
        }
        Verdict::NotAScenario => anstream::println!(
            "{} {}: not a scenario (no `board`)",
            paint(FAIL, "ERROR"),
            file.display()
        ),
        Verdict::Error(message) => {
            anstream::println!("{} {}", paint(FAIL, "ERROR"), crate::text::clean(message))
        }
    }
}

/// A result as an entry of `rally test --json`'s `scenarios`.
fn json(verdict: &Verdict, file: &Path) -> serde_json::Value {
    let (status, failures, error) = match verdict {
        Verdict::Passed | Verdict::NoExpectations => ("passed", Vec::new(), None),
        Verdict::Failed(failures) => (
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
        Verdict::NotAScenario => (
            "error",
            Vec::new(),
            Some("not a scenario (no `board`)".to_string()),
        ),
        Verdict::Error(message) => ("error", Vec::new(), Some(message.clone())),
    };
    json!({ "file": file, "status": status, "failures": failures, "error": error })
}
