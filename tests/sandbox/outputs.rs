//! Issue 24: outputs are written whole, to a fresh temporary file beside the target with an
//! unpredictable name, never through a link, and only over a regular file.

use crate::support;
use std::path::Path;

/// `rally render BOARD -o OUT` in `dir`, with the practice board.
fn render(dir: &Path, out: &str) -> std::process::Output {
    let board = support::root().join("boards/practice.toml");
    support::rally(dir, &["render", board.to_str().unwrap(), "-o", out])
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_fifo_a_folder_or_a_link_as_the_output_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A FIFO was replaced by a regular file, with exit status 0 (as root, `-o /dev/full`
    // replaced the device).
    let made = std::process::Command::new("mkfifo")
        .arg(d.join("pipe.svg"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = render(d, "pipe.svg");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(d.join("pipe.svg"))
        .unwrap()
        .file_type()
        .is_fifo());

    std::fs::create_dir(d.join("folder.svg")).unwrap();
    let out = render(d, "folder.svg");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a folder"), "{}", stderr(&out));

    std::fs::write(d.join("victim.txt"), "precious").unwrap();
    std::os::unix::fs::symlink(d.join("victim.txt"), d.join("link.svg")).unwrap();
    let out = render(d, "link.svg");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("victim.txt")).unwrap(),
        "precious"
    );
}

#[test]
fn a_link_planted_where_the_temporary_file_would_go_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("victim.txt"), "precious").unwrap();
    // The writer always used OUT.tmp, created with `File::create`: through the link.
    std::os::unix::fs::symlink(d.join("victim.txt"), d.join("pic.svg.tmp")).unwrap();
    let out = render(d, "pic.svg");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("victim.txt")).unwrap(),
        "precious"
    );
    assert!(std::fs::read_to_string(d.join("pic.svg"))
        .unwrap()
        .contains("<svg"));
    // Written again over a regular file, and no temporary file left behind.
    let out = render(d, "pic.svg");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["pic.svg", "pic.svg.tmp", "victim.txt"]);
}
