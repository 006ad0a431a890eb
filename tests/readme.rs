//! The README's worked example must keep working: its element script and its two scenarios
//! are taken out of README.md and run against the standard scripts plus the example element.

mod support;

use std::path::Path;
use std::process::Command;

/// The fenced blocks of one language, in order.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    text.split(&fence)
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_worked_example_in_the_readme_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lua = blocks(&readme, "lua");
    let toml = blocks(&readme, "toml");
    assert!(
        !lua.is_empty() && toml.len() >= 2,
        "the README lost its worked example"
    );

    let dir = tempfile::tempdir().unwrap();
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    std::fs::write(
        dir.path().join("scripts/elements/example_magnet.lua"),
        &lua[0],
    )
    .unwrap();
    std::fs::write(dir.path().join("scenario.toml"), &toml[0]).unwrap();
    std::fs::write(dir.path().join("example_magnet.toml"), &toml[1]).unwrap();

    let output = Command::new(env!("CARGO_BIN_EXE_rally"))
        .current_dir(dir.path())
        .args(["test", "."])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("2 passed, 0 failed"), "{stdout}");
}
