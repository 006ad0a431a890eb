//! One test per scenario file, named by its path: every scenario under `tests/scenarios/`,
//! the project's copy of the contract's acceptance examples (`tests/acceptance/`) and, in a
//! workspace that has them beside the clone, the shared originals (`../shared/acceptance/`).
//! Each is checked as `rally test` checks it, so `cargo test -- belts/` runs the belt
//! scenarios and a failure names its file (`rally test FILE` runs it again). The command
//! itself, its summary line and exit status, is tested in tests/cli.rs.

use libtest_mimic::{Arguments, Failed, Trial};
use rally::formats::scenario;
use rally::game::scenario::{test_file, Verdict};
use rally::RuleFolders;
use std::path::Path;

/// The folders of scenarios, from the project's root, and whether a clone always has them.
const SUITES: &[(&str, bool)] = &[
    ("tests/scenarios", true),
    ("tests/acceptance/core", true),
    ("tests/acceptance/ice-rink", true),
    // The worked example of docs/packs.md: a project with a pack of its own.
    ("examples/toll-gate/tests/scenarios", true),
    // A user's clone has no `../shared`: then the copy above is the suite.
    ("../shared/acceptance/core", false),
    ("../shared/acceptance/ice-rink", false),
];

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut trials = Vec::new();
    for &(suite, always) in SUITES {
        let dir = root.join(suite);
        if !dir.is_dir() && !always {
            continue;
        }
        let files = scenario::collect(&[dir]).unwrap_or_else(|e| panic!("{suite}: {e}"));
        let before = trials.len();
        for file in files {
            // Boards and variant files may sit beside the scenarios.
            if matches!(scenario::is_scenario(&file), Ok(false)) {
                continue;
            }
            let name = file
                .strip_prefix(root)
                .unwrap_or(&file)
                .display()
                .to_string();
            trials.push(Trial::test(name, move || check(&file)));
        }
        if trials.len() == before {
            trials.push(Trial::test(format!("{suite} holds scenarios"), || {
                Err("no scenario found".into())
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The scenario `file` passes, or why not, as `rally test` says it.
fn check(file: &Path) -> Result<(), Failed> {
    match test_file(file, &RuleFolders::default()) {
        Verdict::Passed => Ok(()),
        Verdict::Failed(failures) => {
            let lines: Vec<String> = failures.iter().map(|f| f.to_string()).collect();
            Err(lines.join("\n").into())
        }
        Verdict::NoExpectations => Err("checks nothing: no [expect] or [after_turn] table".into()),
        Verdict::NotAScenario => Err("not a scenario (no `board`)".into()),
        Verdict::Error(message) => Err(message.into()),
    }
}
