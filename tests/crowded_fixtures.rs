//! The crowded fixtures (benches/fixtures/crowded/): 30 scenarios of one register and the end
//! of the turn, 8 robots each on a 12×12 board of 20 to 60 standard elements (belts and
//! express belts in runs, gears, pushers, crushers, board lasers, walls, pits, flags, repair
//! sites), the robots half on belts and gears, half on the floor among them. One register, as
//! issue 26's converted scenarios were (a quarter of a standard turn's time, which has five):
//! its target of 4 µs a scenario is the standard turn's 20 µs over five registers. `rally bench benches/fixtures/crowded` times them; the median of their medians is a
//! row of docs/performance.md (`rally bench --report`).
//!
//! They are generated here from fixed seeds: this test checks that the committed files are
//! what the generator makes, that each one resolves and that its robots meet the elements;
//! `RALLY_REGENERATE=1 cargo test --test tests crowded_fixtures` writes them again.

use crate::support::fixtures;
use rally::script::RuleSet;
use rally::state::Rng;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};

const SCENARIOS: usize = 30;
const SIDE: i32 = 12;
const ROBOTS: usize = 8;
const FEWEST: usize = 20;
const MOST: usize = 60;
const FLAGS: usize = 3;
/// Directions as the board's codes and the scenario's `facing` spell them.
const DIRS: [(&str, (i32, i32)); 4] =
    [("N", (0, -1)), ("E", (1, 0)), ("S", (0, 1)), ("W", (-1, 0))];

/// Every code the boards may use, with its legend entry, in the order the legend lists them.
/// Pushers push on the odd registers, so in the one register played.
const LEGEND: &[(&str, &str)] = &[
    (".", "\"floor\""),
    ("O", "\"pit\""),
    ("^", "{ element = \"conveyor\", dir = \"N\" }"),
    (">", "{ element = \"conveyor\", dir = \"E\" }"),
    ("v", "{ element = \"conveyor\", dir = \"S\" }"),
    ("<", "{ element = \"conveyor\", dir = \"W\" }"),
    (
        "^^",
        "{ element = \"conveyor\", dir = \"N\", express = true }",
    ),
    (
        ">>",
        "{ element = \"conveyor\", dir = \"E\", express = true }",
    ),
    (
        "vv",
        "{ element = \"conveyor\", dir = \"S\", express = true }",
    ),
    (
        "<<",
        "{ element = \"conveyor\", dir = \"W\", express = true }",
    ),
    ("G>", "{ element = \"gear\", turn = \"right\" }"),
    ("G<", "{ element = \"gear\", turn = \"left\" }"),
    (
        "P^",
        "{ element = \"pusher\", dir = \"N\", phases = [1, 3, 5] }",
    ),
    (
        "P>",
        "{ element = \"pusher\", dir = \"E\", phases = [1, 3, 5] }",
    ),
    (
        "Pv",
        "{ element = \"pusher\", dir = \"S\", phases = [1, 3, 5] }",
    ),
    (
        "P<",
        "{ element = \"pusher\", dir = \"W\", phases = [1, 3, 5] }",
    ),
    ("X", "\"crusher\""),
    ("L^", "{ element = \"laser\", dir = \"N\" }"),
    ("L>", "{ element = \"laser\", dir = \"E\" }"),
    ("Lv", "{ element = \"laser\", dir = \"S\" }"),
    ("L<", "{ element = \"laser\", dir = \"W\" }"),
    ("wN", "{ element = \"wall\", side = \"N\" }"),
    ("wE", "{ element = \"wall\", side = \"E\" }"),
    ("wS", "{ element = \"wall\", side = \"S\" }"),
    ("wW", "{ element = \"wall\", side = \"W\" }"),
    ("F1", "{ element = \"flag\", number = 1 }"),
    ("F2", "{ element = \"flag\", number = 2 }"),
    ("F3", "{ element = \"flag\", number = 3 }"),
    ("R", "\"repair\""),
    ("R2", "{ element = \"repair\", wrenches = 2 }"),
];

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/fixtures/crowded")
}

/// Scenario `k` (from 0) has 20 elements, the last 60, the ones between evenly spread.
fn element_count(k: usize) -> usize {
    FEWEST + k * (MOST - FEWEST) / (SCENARIOS - 1)
}

fn file_name(k: usize) -> String {
    format!("{:02}_{}_elements.toml", k + 1, element_count(k))
}

/// A number in `0..n` (`Rng::roll` counts from 1, as Lua does).
fn below(rng: &mut Rng, n: usize) -> usize {
    (rng.roll(n as u64) - 1) as usize
}

/// A 12×12 board of `count` elements, as its grid of codes (row by row).
fn board(rng: &mut Rng, count: usize) -> Vec<Vec<&'static str>> {
    let mut grid = vec![vec!["."; SIDE as usize]; SIDE as usize];
    let mut placed = 0;
    let mut flags = 0;
    let pick = |rng: &mut Rng, codes: [&'static str; 4]| codes[below(rng, 4)];
    while placed < count {
        let (x, y) = (
            below(rng, SIDE as usize) as i32,
            below(rng, SIDE as usize) as i32,
        );
        if grid[y as usize][x as usize] != "." {
            continue;
        }
        // Out of 100: what the piece on this square is. A belt is a run of 2 to 5 squares,
        // as on the printed boards, so robots ride it for more than one square.
        let code = match below(rng, 100) {
            0..30 => {
                let dir = below(rng, 4);
                let express = below(rng, 3) == 0;
                let code = match express {
                    false => ["^", ">", "v", "<"][dir],
                    true => ["^^", ">>", "vv", "<<"][dir],
                };
                let (dx, dy) = DIRS[dir].1;
                let (mut bx, mut by) = (x, y);
                for _ in 0..2 + below(rng, 4) {
                    let free = (0..SIDE).contains(&bx)
                        && (0..SIDE).contains(&by)
                        && grid[by as usize][bx as usize] == ".";
                    if !free || placed == count {
                        break;
                    }
                    grid[by as usize][bx as usize] = code;
                    placed += 1;
                    (bx, by) = (bx + dx, by + dy);
                }
                continue;
            }
            30..40 => ["G>", "G<"][below(rng, 2)],
            40..48 => pick(rng, ["P^", "P>", "Pv", "P<"]),
            48..51 => "X",
            51..60 => pick(rng, ["L^", "L>", "Lv", "L<"]),
            60..76 => pick(rng, ["wN", "wE", "wS", "wW"]),
            76..84 => "O",
            84..91 if flags < FLAGS => {
                flags += 1;
                ["F1", "F2", "F3"][flags - 1]
            }
            _ => ["R", "R2"][below(rng, 2)],
        };
        grid[y as usize][x as usize] = code;
        placed += 1;
    }
    grid
}

/// Where the robots start: half on belts and gears (while there are enough), the others on
/// bare floor, never two on a square.
fn robot_squares(rng: &mut Rng, grid: &[Vec<&str>]) -> Vec<(i32, i32)> {
    let squares = |wanted: fn(&str) -> bool| -> Vec<(i32, i32)> {
        (0..SIDE)
            .flat_map(|y| (0..SIDE).map(move |x| (x, y)))
            .filter(|&(x, y)| wanted(grid[y as usize][x as usize]))
            .collect()
    };
    let mut moving = squares(|c| c.starts_with(['^', '>', 'v', '<', 'G']));
    let mut floor = squares(|c| c == ".");
    let mut chosen = Vec::new();
    for i in 0..ROBOTS {
        let from = if i % 2 == 0 && !moving.is_empty() {
            &mut moving
        } else {
            &mut floor
        };
        chosen.push(from.swap_remove(below(rng, from.len())));
    }
    chosen
}

/// The way with the most board ahead of a robot at `(x, y)` (the first of those, in the
/// order N, E, S, W): programs are dealt at random, and a robot facing the near edge would
/// mostly drive off the board instead of meeting the elements.
fn facing(x: i32, y: i32) -> &'static str {
    let ahead = [y, SIDE - 1 - x, SIDE - 1 - y, x];
    let most = ahead.iter().max().expect("four ways");
    DIRS[ahead
        .iter()
        .position(|a| a == most)
        .expect("the most is one of them")]
    .0
}

/// The scenario file: the board, its legend (the codes it uses), then the robots, each with
/// five cards dealt as the scaling fixtures deal them.
fn fixture(k: usize) -> String {
    let count = element_count(k);
    let mut rng = Rng::new(0xC20_0000 + k as u64);
    let grid = board(&mut rng, count);
    let mut text = String::new();
    writeln!(
        text,
        "description = \"Benchmark: one register and the end of the turn, 8 robots on a crowded 12×12 board of {count} elements (generated by tests/crowded_fixtures.rs)\""
    )
    .unwrap();
    text.push_str("registers = 1\nend_of_turn = true\n\n[board]\ngrid = \"\"\"\n");
    for row in &grid {
        let codes: Vec<String> = row.iter().map(|c| format!("{c:<2}")).collect();
        writeln!(text, "{}", codes.join(" ").trim_end()).unwrap();
    }
    text.push_str("\"\"\"\n\n[board.legend]\n");
    let used: BTreeSet<&str> = grid.iter().flatten().copied().collect();
    for (code, entry) in LEGEND.iter().filter(|(code, _)| used.contains(code)) {
        writeln!(text, "\"{code}\" = {entry}").unwrap();
    }
    let squares = robot_squares(&mut rng, &grid);
    let programs = crate::scaling_fixtures::deal(&mut rng, ROBOTS);
    for (i, ((x, y), program)) in squares.into_iter().zip(programs).enumerate() {
        writeln!(
            text,
            "\n[[robot]]\nname = \"R{}\"\nat = [{x}, {y}]\nfacing = \"{}\"\nprogram = [{}]",
            i + 1,
            facing(x, y),
            program.join(", ")
        )
        .unwrap();
    }
    text
}

/// What the board did to the robots in one resolution (`segment what`, e.g. `board_elements
/// conveyed`: every event but the robots' own moves), and how many robots were destroyed.
fn board_events(events: &[rally::state::Event]) -> (Vec<String>, usize) {
    let done = events
        .iter()
        .filter(|e| e.robot.is_some() && e.segment != "robots_move")
        .map(|e| format!("{} {}", e.segment, e.what))
        .collect();
    let destroyed = events
        .iter()
        .filter(|e| e.what == "destroyed")
        .filter_map(|e| e.robot.clone())
        .collect::<BTreeSet<_>>()
        .len();
    (done, destroyed)
}

#[test]
fn the_committed_fixtures_are_generated_and_resolve() {
    let mut rules: Option<RuleSet> = None;
    let mut seen = BTreeSet::new();
    for k in 0..SCENARIOS {
        let path = folder().join(file_name(k));
        fixtures::check_committed(&path, &fixture(k), "crowded_fixtures");
        let game = fixtures::resolve(&path, &mut rules);
        let (done, destroyed) = {
            let state = game.state();
            assert_eq!(state.robots.len(), ROBOTS);
            board_events(&state.events)
        };
        // The robots meet the board: belts, gears or pushers move some of them, and at least
        // three of the eight stay on it (random programs drive some off the edge).
        assert!(
            done.len() >= 3 && done.iter().any(|d| d.starts_with("board_elements ")),
            "{}: the board did little to the robots: {done:?}",
            path.display()
        );
        assert!(
            destroyed <= ROBOTS - 3,
            "{}: {destroyed} of the robots destroyed: a crowded board, not a graveyard",
            path.display()
        );
        seen.extend(done);
        rules = Some(game.into_rules());
    }
    // Over the set, every kind of element acts on some robot.
    for what in [
        "board_elements conveyed",
        "board_elements turned",
        "board_elements pushed",
        "board_elements destroyed",
        "lasers damaged",
        "touch flag",
        "end_of_turn repaired",
    ] {
        assert!(seen.contains(what), "no `{what}` in the set: {seen:?}");
    }
}
