//! Runs every scenario under `tests/scenarios/` and the shared acceptance examples through the
//! real `rally test` command, so `cargo test` covers the whole rule suite.

use std::path::Path;
use std::process::Command;

fn rally_test(paths: &[&Path]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO_BIN_EXE_rally"))
        .current_dir(root)
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

#[test]
fn rule_scenarios_pass() {
    rally_test(&[Path::new("tests/scenarios")]);
}

/// The contract's examples live beside the project, in `../shared/acceptance`.
#[test]
fn acceptance_examples_pass() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/acceptance");
    assert!(
        shared.is_dir(),
        "{} is missing: the acceptance examples are part of the suite",
        shared.display()
    );
    for suite in ["core", "ice-rink"] {
        let dir = shared.join(suite);
        if suite == "ice-rink"
            && !Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("variants/ice-rink")
                .is_dir()
        {
            continue;
        }
        rally_test(&[&dir]);
    }
}
