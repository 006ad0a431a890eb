//! What the integration tests share: running the real `rally` binary ([`rally_command`],
//! [`rally`], [`rally_ok`], [`rally_refused`]), temporary copies of the project's files to run
//! it on, the browser driver ([`browser`]) and the table's client ([`table_client`]).
//! Benchmarks include this file too.

pub mod browser;
pub mod fixtures;
#[cfg(feature = "serve")]
pub mod table_client;

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The project's folder (where `Cargo.toml` is), where `cargo test` runs the tests.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

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
    for folder in folders {
        copy_dir(&root().join(folder), &dir.path().join(folder));
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

/// A `rally` still running after this is hung: [`finish`] fails the test rather than let it
/// stall the suite (a debug build on a busy 2-core machine runs the longest command a test
/// gives, a simulation, in well under a minute).
pub const HANG: Duration = Duration::from_secs(180);

/// `rally ARGS` in `dir`, to run as it is or after adding to it (`.arg`, `.env`, `.stdin`):
/// the binary under test with nothing on its standard input, and without the variables that
/// change what it prints (colour, log levels), so a test sees a plain run's output whatever
/// the shell that started `cargo test` has set.
/// `rally ARGS` in `dir` running in the background (a server), with its stdout's lines as
/// they come. They are read to the end on a thread of their own: a closed pipe would fail
/// the server's prints.
pub fn spawn_with_lines(
    dir: &Path,
    args: &[&str],
) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let mut child = rally_command(dir, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, lines)
}

pub fn rally_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rally"));
    command.current_dir(dir).args(args).stdin(Stdio::null());
    for var in [
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "CLICOLOR",
        "RALLY_LOG",
        "RUST_LOG",
    ] {
        command.env_remove(var);
    }
    command
}

/// Runs `command` to its end and returns what it printed; kills it and fails the test if it
/// still runs after [`HANG`].
pub fn finish(command: &mut Command) -> Output {
    finish_within(command, HANG)
}

/// [`finish`] with a limit of the test's own.
pub fn finish_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    // Both pipes are read while it runs, so a child that prints much never waits on a full one.
    let stdout = read_all(child.stdout.take().unwrap());
    let stderr = read_all(child.stderr.take().unwrap());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} still runs after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn read_all(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        pipe.read_to_end(&mut bytes).unwrap();
        bytes
    })
}

/// A standard input that reads `text` (from a temporary file, gone once the run ends).
pub fn stdin_of(text: &str) -> Stdio {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(text.as_bytes()).unwrap();
    file.seek(SeekFrom::Start(0)).unwrap();
    Stdio::from(file)
}

/// Runs `rally ARGS` in `dir` (see [`rally_command`]).
pub fn rally(dir: &Path, args: &[&str]) -> Output {
    finish(&mut rally_command(dir, args))
}

/// Runs `rally ARGS` in `dir`, checks it succeeded and returns its standard output.
pub fn rally_ok(dir: &Path, args: &[&str]) -> String {
    let out = rally(dir, args);
    assert!(out.status.success(), "rally {args:?}: {}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `rally ARGS` in `dir`, checks it refused as an input error is refused (exit status 2,
/// no panic) and returns its standard error.
pub fn rally_refused(dir: &Path, args: &[&str]) -> String {
    refused(&rally(dir, args))
}

/// The standard error of a run that must have been refused: exit status 2, no panic.
pub fn refused(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{}", text(out));
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// What a run printed: its standard output, then its standard error.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
