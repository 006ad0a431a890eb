//! Runs every scenario under `tests/scenarios/`, the project's copy of the contract's acceptance
//! examples (`tests/acceptance/`) and, in a workspace that has it beside the clone, the shared
//! originals in `../shared/acceptance`, all through the real `rally test` command, so
//! `cargo test` covers the whole rule suite on a machine that has nothing but the clone.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rally_test(paths: &[&Path]) {
    let output = Command::new(env!("CARGO_BIN_EXE_rally"))
        .current_dir(root())
        .arg("test")
        .args(paths)
        .output()
        .expect("rally runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        output.status.success(),
        "rally test {paths:?} failed: {summary}\n{stdout}\n{stderr}"
    );
    assert!(
        !summary.starts_with("0 passed"),
        "no scenario ran under {paths:?}"
    );
    println!("{summary}");
}

fn acceptance_suites(dir: &Path) -> Vec<PathBuf> {
    ["core", "ice-rink"]
        .iter()
        .map(|suite| dir.join(suite))
        .collect()
}

#[test]
fn rule_scenarios_pass() {
    rally_test(&[Path::new("tests/scenarios")]);
}

/// The project's own copy of the contract's examples: always there, in every clone.
#[test]
fn acceptance_examples_pass() {
    for suite in acceptance_suites(&root().join("tests/acceptance")) {
        rally_test(&[&suite]);
    }
}

/// The shared originals, when this clone sits in a workspace that has them; a user's clone
/// does not, and then the copy above is the suite.
#[test]
fn shared_acceptance_examples_pass_when_present() {
    let shared = root().join("../shared/acceptance");
    if !shared.is_dir() {
        println!(
            "no {} beside the clone: only tests/acceptance ran",
            shared.display()
        );
        return;
    }
    for suite in acceptance_suites(&shared).iter().filter(|s| s.is_dir()) {
        rally_test(&[suite]);
    }
}
