//! Save-to-result latency of hot reload, as a playtester feels it: `rally watch --timings` runs
//! the benchmark scenario (one full turn, 8 robots, about 60 scripted elements) in a project
//! with its own gear, layered on the built-in rules (docs/packs.md); the bench saves the
//! gear and times how long until the new result
//! line is printed. Prints the median and 90th percentile, and the median of the split that
//! `--timings` reports (debounce, rebuild, re-run). Target: median ≤ 20 ms (issue 26).
//!
//! `cargo bench --bench reload` (uses the release binary).

// The tests' helpers; a benchmark uses only some of them.
#[allow(dead_code)]
#[path = "../tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

const SAVES: usize = 40;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    std::fs::copy(
        root.join("scripts/elements/gear.lua"),
        dir.path().join("scripts/elements/gear.lua"),
    )
    .unwrap();
    std::fs::copy(
        root.join("benches/fixtures/standard_turn.toml"),
        dir.path().join("s.toml"),
    )
    .unwrap();
    let gear = dir.path().join("scripts/elements/gear.lua");
    let original = std::fs::read_to_string(&gear).unwrap();

    let mut child = support::rally_command(dir.path(), &["watch", "s.toml", "--timings"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, lines) = channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.starts_with("timings:") && tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    let wait = || {
        lines
            .recv_timeout(Duration::from_secs(10))
            .expect("a timings line within 10 s")
    };
    wait(); // the first run

    let mut latency = Vec::new();
    let mut split: [Vec<f64>; 3] = Default::default();
    for i in 0..SAVES {
        std::thread::sleep(Duration::from_millis(150));
        let written = Instant::now();
        let mut f = std::fs::File::create(&gear).unwrap();
        f.write_all(format!("{original}\n-- save {i}\n").as_bytes())
            .unwrap();
        drop(f);
        let (printed, line) = wait();
        latency.push(ms(printed - written));
        for (values, name) in split.iter_mut().zip(["debounce", "rebuild", "re-run"]) {
            values.push(field(&line, name));
        }
    }
    let _ = child.kill();
    let _ = child.wait();

    println!("hot reload, {SAVES} saves of gear.lua, benches/fixtures/standard_turn.toml:");
    println!(
        "  save → result printed: median {:.1} ms, p90 {:.1} ms (target: median ≤ 20 ms)",
        percentile(&mut latency, 0.5),
        percentile(&mut latency, 0.9)
    );
    for (values, name) in split.iter_mut().zip(["debounce", "rebuild", "re-run"]) {
        println!("  {name:<9} median {:.1} ms", percentile(values, 0.5));
    }
}

/// `12.3` from `... rebuild 12.3 ms ...`.
fn field(line: &str, name: &str) -> f64 {
    let rest = &line[line.find(name).expect("field in the timings line") + name.len()..];
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
