//! `rally run SCENARIO`: resolve a scenario and show the board before and after, the event
//! log and the expectations; or the final state as JSON; or time it (`--repeat N`).

use super::Common;
use crate::error::Result;
use crate::render;
use crate::scenario::Scenario;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

pub struct RunOptions {
    pub json: bool,
    pub repeat: Option<u32>,
}

/// Returns whether every expectation held (true when there are none).
pub fn run(path: &Path, opts: &RunOptions, common: &Common) -> Result<bool> {
    let scenario = Scenario::load(path)?;
    let rules = common.rules(Some(path), scenario.variants.clone())?;
    let mut game = scenario.start(rules)?;

    if let Some(n) = opts.repeat {
        let start = game.state().clone();
        let mut times: Vec<Duration> = Vec::with_capacity(n as usize);
        for _ in 0..n.max(1) {
            game.restore(start.clone());
            let t = Instant::now();
            scenario.resolve(&mut game)?;
            times.push(t.elapsed());
        }
        times.sort();
        let median = times[times.len() / 2];
        println!(
            "{}: {} resolutions, median {:.1} µs (min {:.1} µs, max {:.1} µs)",
            path.display(),
            times.len(),
            median.as_secs_f64() * 1e6,
            times[0].as_secs_f64() * 1e6,
            times[times.len() - 1].as_secs_f64() * 1e6
        );
        return Ok(true);
    }

    let glyphs = render::glyphs(game.rules(), &game.board());
    let before = render::board(&game.board(), &glyphs, &game.state());
    scenario.resolve(&mut game)?;
    let state = game.state();
    let failures = scenario.check(&state);
    if opts.json {
        let out = json!({
            "register": state.register,
            "turn": state.turn,
            "robots": state.robots,
            "events": state.events,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&out).expect("state serializes")
        );
        return Ok(failures.is_empty());
    }
    if !scenario.description.is_empty() {
        println!("{}\n", scenario.description);
    }
    let board = game.board();
    println!(
        "Before ({}, {}×{}):\n{}",
        board.name, board.width, board.height, before
    );
    println!(
        "After {} register(s){}:",
        scenario.registers,
        if scenario.end_of_turn {
            " and the end of the turn"
        } else {
            ""
        }
    );
    println!("{}", render::board(&board, &glyphs, &state));
    print!("{}", render::robots(&state));
    println!("\nEvents:");
    for e in &state.events {
        println!("  {}", render::event(e));
    }
    if scenario.has_expectations() {
        println!();
        if failures.is_empty() {
            println!("✓ all expectations hold");
        }
        for f in &failures {
            println!(
                "✗ {}: {} expected {}, got {}",
                f.robot, f.key, f.expected, f.actual
            );
        }
    }
    Ok(failures.is_empty())
}
