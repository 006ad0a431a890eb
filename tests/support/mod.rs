//! Helpers shared by the integration tests and benchmarks that drive the real binary on
//! temporary copies of the project's files.

// Each test crate compiles its own copy of this module and uses only part of it.
#![allow(dead_code)]

use std::path::Path;

/// Copies the folder `from` (recursively) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A temporary folder holding copies of these folders of the project (`scripts`, `boards`...).
pub fn copy_of(folders: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for folder in folders {
        copy_dir(&root.join(folder), &dir.path().join(folder));
    }
    dir
}

/// A belt that carries a robot south onto a right-turning gear (the acceptance example's
/// board); tests add their robots after it.
pub const BELT_ONTO_GEAR: &str = r#"
[board]
grid = """
.  v  .
.  v  .
.  R  .
"""
[board.legend]
"." = "floor"
"v" = { element = "conveyor", dir = "S" }
"R" = { element = "gear", turn = "right" }
"#;

/// Runs `rally ARGS` in `dir`.
pub fn rally(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rally"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Runs `rally ARGS` in `dir`, checks it succeeded and returns its standard output.
pub fn rally_ok(dir: &Path, args: &[&str]) -> String {
    let out = rally(dir, args);
    assert!(
        out.status.success(),
        "rally {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
