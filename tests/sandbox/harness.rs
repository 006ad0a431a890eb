//! Runs one attack through the real binary: a variant `attack` holding `attack.lua`, switched
//! on in a scenario where robot A stands on a `trap` square with one card. The process is
//! watched: killed (and the test failed) if it outlives [`HANG`], its peak memory measured.

use crate::support;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A process still running after this is hung.
pub const HANG: Duration = Duration::from_secs(20);
/// An attack must be stopped within this (the limits in force are 1 s and 5M instructions;
/// debug builds and a busy machine make up the rest).
pub const PROMPT: Duration = Duration::from_secs(6);
/// Peak memory a stopped attack may have reached: the scripts' 64 MiB and the program.
pub const MEMORY_MIB: u64 = 200;

/// Robot A on a `trap` square with one card (the attack's variant is switched on with it).
pub const TRAP_BOARD: &str = r#"[board]
grid = "T . . ."
[board.legend]
"." = "floor"
"T" = "trap"
[[robot]]
name = "A"
at = [0, 0]
facing = "E"
program = ["move2"]
"#;

/// [`TRAP_BOARD`] with the attack's variant switched on.
pub fn trap_scenario() -> String {
    format!("variants = [\"attack\"]\n{TRAP_BOARD}")
}

pub struct Attack {
    pub dir: tempfile::TempDir,
}

pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub took: Duration,
    pub peak_mib: u64,
}

impl Attack {
    /// `source` is the whole of `attack.lua`.
    pub fn file(source: &str) -> Attack {
        let dir = tempfile::tempdir().unwrap();
        let variant = dir.path().join("variants/attack");
        std::fs::create_dir_all(&variant).unwrap();
        std::fs::write(
            variant.join("variant.toml"),
            "name = \"attack\"\ndescription = \"an attack\"\nfiles = [\"attack.lua\"]\n",
        )
        .unwrap();
        std::fs::write(variant.join("attack.lua"), source).unwrap();
        std::fs::write(dir.path().join("s.toml"), trap_scenario()).unwrap();
        Attack { dir }
    }

    /// `attack.lua` declares `trap`, whose `on_card` runs `body`, which starts on line 2.
    pub fn on_card(body: &str) -> Attack {
        Attack::file(&format!(
            "rally.element {{ name = \"trap\", on_card = function(ctx, tile, robot, card)\n{body}\nend }}\n"
        ))
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `rally ARGS...` with the repository's scripts and this attack's variants folder.
    pub fn rally(&self, args: &[&str]) -> Outcome {
        let scripts = support::root().join("scripts");
        let mut all = vec![
            "--scripts",
            scripts.to_str().unwrap(),
            "--variants",
            "variants",
        ];
        all.extend(args);
        watch(&mut support::rally_command(self.dir.path(), &all))
    }

    /// `rally run s.toml` (the trap scenario), plus `args` before `run`.
    pub fn run(&self, args: &[&str]) -> Outcome {
        let mut all = args.to_vec();
        all.extend(["run", "s.toml"]);
        self.rally(&all)
    }

    /// Every file in the attack's folder: scripts must not have added or changed any.
    pub fn files(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![self.dir.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    out.push((path.clone(), std::fs::read(&path).unwrap()));
                }
            }
        }
        out.sort();
        out
    }
}

impl Outcome {
    /// Stopped promptly with exit status 2, in bounded memory, the error naming
    /// `attack.lua:LINE:` and containing `what`.
    pub fn refused(&self, line: u32, what: &str) -> &Self {
        self.stopped();
        let place = format!("attack.lua:{line}: ");
        assert!(
            self.stderr.contains(&place) && self.stderr.contains(what),
            "expected `{place}` and `{what}` in the error, got:\n{}",
            self.stderr
        );
        self
    }

    /// Ended promptly with exit status 2 and bounded memory.
    pub fn stopped(&self) -> &Self {
        assert_eq!(self.code, Some(2), "exit status; stderr:\n{}", self.stderr);
        assert!(
            self.took < PROMPT,
            "took {:?} (more than {PROMPT:?}); stderr:\n{}",
            self.took,
            self.stderr
        );
        assert!(
            self.peak_mib < MEMORY_MIB,
            "peak memory {} MiB; stderr:\n{}",
            self.peak_mib,
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        self
    }
}

/// Runs `command`, killing it if it outlives [`HANG`]; reads at most 1 MiB of each output.
// The child is reaped by `wait4` (for its peak memory), which clippy cannot see.
#[allow(clippy::zombie_processes, unsafe_code)]
fn watch(command: &mut Command) -> Outcome {
    let started = Instant::now();
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The child's rusage peak is never below this process's own at the moment it was
    // spawned: Linux carries the old address space's high-water mark across exec, and the
    // child started in ours (vfork). Read ours now, and the child's own (VmHWM, reset by
    // exec) while it runs, to tell the two apart below.
    let inherited = high_water_kib("self");
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut pipe = pipe.unwrap();
            let mut kept = Vec::new();
            (&mut pipe).take(1 << 20).read_to_end(&mut kept).unwrap();
            std::io::copy(&mut pipe, &mut std::io::sink()).unwrap();
            String::from_utf8_lossy(&kept).into_owned()
        })
    };
    let stdout = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let pid = child.id() as libc::pid_t;
    let mut hung = false;
    let mut seen = 0;
    let (status, usage) = loop {
        seen = seen.max(high_water_kib(&pid.to_string()));
        let mut status = 0;
        // SAFETY: plain libc calls on our own child; `usage` is written by wait4.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let flags = if hung { 0 } else { libc::WNOHANG };
        // SAFETY: as above: `status` and `usage` are ours to write.
        let done = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
        if done == pid {
            break (status, usage);
        }
        if started.elapsed() > HANG {
            hung = true;
            // SAFETY: the child is not reaped yet, so `pid` is still its.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = started.elapsed();
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(
        !hung,
        "rally hung: killed after {HANG:?}; stderr:\n{stderr}"
    );
    Outcome {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout,
        stderr,
        took,
        peak_mib: peak_kib(usage.ru_maxrss as u64, inherited, seen) / 1024,
    }
}

/// The child's peak memory in KiB: its rusage figure where that is above what it inherited
/// from this process (so the child's own), else the highest of its own high-water marks
/// read while it ran (which misses at most the last few milliseconds before it exited).
fn peak_kib(rusage: u64, inherited: u64, seen: u64) -> u64 {
    if rusage > inherited {
        rusage
    } else {
        seen
    }
}

/// `VmHWM` of `/proc/PID/status` in KiB (0 once the process has exited).
fn high_water_kib(pid: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}
