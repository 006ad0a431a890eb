//! `rally bench --report`: every figure of the performance table (docs/performance.md, the
//! README) measured again by this binary and printed as that table, in markdown, with the
//! date, the machine, the build and the load average before and after.
//!
//! Every row is measured once per round and the rounds are interleaved (each round measures
//! every row), so load that comes and goes spreads over the rows instead of spoiling one;
//! the table gives the min and the median over the rounds. A row's figure is what the
//! command in its last column prints, measured by the same code: that command reproduces
//! the row alone. Figures that need other tools (criterion's bot benchmark, the reload
//! timings, instruction counts, save sizes) are listed below the table with their commands,
//! never copied into it.

use super::{nearest_rank, scenario_files, time_file};
use crate::commands::output::{note, paint, WARN};
use crate::error::{Error, Result};
use crate::formats::scenario::Scenario;
use crate::game::{sim, Setup};
use crate::script::{RuleFolders, RuleSet, Sources};
use std::fmt::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

/// How much each round measures.
pub struct Plan {
    pub rounds: u32,
    /// Timed resolutions of each scenario.
    pub repeat: u32,
    /// Bot games of each `rally sim` row.
    pub games: u64,
}

/// What a row measures, and so the command that measures it alone.
enum Measure {
    /// One scenario's median resolution (`rally run FILE --repeat N`).
    Scenario(&'static str),
    /// The median of the medians of every scenario under a folder (`rally bench DIR`).
    Scenarios(&'static str),
    /// Building the rules a scenario uses, all its scripts loaded into a new Lua state.
    Rules(&'static str),
    /// Bot games of a game file, the wall time over their number (`rally sim GAME`), on
    /// every core or on `threads`.
    Games {
        file: &'static str,
        threads: Option<usize>,
    },
}

/// Rule sets built in each round for [`Measure::Rules`]: a few milliseconds each.
const RULE_LOADS: u32 = 20;

struct Row {
    what: &'static str,
    measure: Measure,
}

/// The rows, in the order of the table.
const ROWS: &[Row] = &[
    Row {
        what: "one standard turn: 5 registers and the end of the turn, 8 robots, 12×12 board, ~60 scripted elements",
        measure: Measure::Scenario("benches/fixtures/standard_turn.toml"),
    },
    Row {
        what: "the same robots and programs on the Speedway (oil, portals, repulsors, trap doors)",
        measure: Measure::Scenario("benches/fixtures/expansion_turn.toml"),
    },
    Row {
        what: "crowded boards: 30 scenarios of one register and the end of the turn, 8 robots on 12×12 among 20–60 elements; the median of their medians (target ≤ 4 µs)",
        measure: Measure::Scenarios("benches/fixtures/crowded"),
    },
    Row {
        what: "small scenarios: every file of `tests/scenarios`; the median of their medians",
        measure: Measure::Scenarios("tests/scenarios"),
    },
    Row {
        what: "the tiniest case: 1 robot, 1 register, a 3×3 floor",
        measure: Measure::Scenario("benches/fixtures/tiny.toml"),
    },
    Row {
        what: "the same with the end of the turn",
        measure: Measure::Scenario("benches/fixtures/tiny_end_of_turn.toml"),
    },
    Row {
        what: "building a whole rule set (what a hot reload rebuilds)",
        measure: Measure::Rules("benches/fixtures/standard_turn.toml"),
    },
    Row {
        what: "complete 4-bot games (weak bots) on the Factory, on every core",
        measure: Measure::Games {
            file: "games/factory.toml",
            threads: None,
        },
    },
    Row {
        what: "the same on one thread",
        measure: Measure::Games {
            file: "games/factory.toml",
            threads: Some(1),
        },
    },
    Row {
        what: "the same on the Practice Floor, every core",
        measure: Measure::Games {
            file: "games/bots.toml",
            threads: None,
        },
    },
    Row {
        what: "the Practice Floor with option cards, every core",
        measure: Measure::Games {
            file: "games/options.toml",
            threads: None,
        },
    },
];

/// What the table leaves to other tools, with the command that measures each.
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "a bot planning one hand on the Factory (criterion)",
        "cargo bench --bench turn -- bot/",
    ),
    (
        "a save → the new result printed by `rally watch`",
        "cargo bench --bench reload; rally watch --timings",
    ),
    (
        "instruction counts of a standard turn",
        "valgrind --tool=callgrind target/release/rally run benches/fixtures/standard_turn.toml --repeat 100",
    ),
    (
        "a save's bytes after one stage (exact, not a time)",
        "cargo test --test tests journal::a_stage -- --nocapture",
    ),
];

impl Measure {
    /// The file or folder it reads, relative to the clone's top folder.
    fn path(&self) -> &'static str {
        match self {
            Measure::Scenario(path) | Measure::Scenarios(path) | Measure::Rules(path) => path,
            Measure::Games { file, .. } => file,
        }
    }

    /// The command that measures this row alone and prints its figure.
    fn how(&self, plan: &Plan) -> String {
        match self {
            Measure::Scenario(file) => format!("`rally run {file} --repeat {}`", plan.repeat),
            Measure::Scenarios(folder) => {
                format!("`rally bench {folder} --repeat {}`", plan.repeat)
            }
            Measure::Rules(_) => {
                "`cargo bench --bench turn -- rules/load` (criterion, the same rules)".into()
            }
            Measure::Games { file, threads } => {
                let threads = threads.map_or(String::new(), |n| format!(" --threads {n}"));
                format!("`rally sim {file} --games {}{threads}`", plan.games)
            }
        }
    }

    /// Measures it once: a time per resolution, per rule set or per game.
    fn once(&self, plan: &Plan, common: &RuleFolders) -> Result<Duration> {
        match self {
            Measure::Scenario(file) => {
                Ok(time_file(Path::new(file), plan.repeat, common, None)?.median())
            }
            Measure::Scenarios(folder) => {
                let mut medians = Vec::new();
                for file in scenario_files(&[folder.into()])? {
                    medians.push(time_file(&file, plan.repeat, common, None)?.median());
                }
                medians.sort();
                nearest_rank(&medians, 0.5)
                    .ok_or_else(|| Error::Other(format!("{folder}: no scenario to time")))
            }
            Measure::Rules(file) => {
                let path = Path::new(file);
                let scenario = Scenario::load(path)?;
                let sources = common.sources(Some(path), &scenario.variants);
                let mut times = Vec::new();
                for _ in 0..RULE_LOADS {
                    let started = Instant::now();
                    let rules = RuleSet::load(&sources)?;
                    times.push(started.elapsed());
                    // Dropped outside the clock, as `rally bench` drops a replaced state.
                    drop(rules);
                }
                times.sort();
                Ok(nearest_rank(&times, 0.5).expect("rule sets were built"))
            }
            Measure::Games { file, threads } => {
                time_games(Path::new(file), plan.games, *threads, common)
            }
        }
    }

    /// A figure as the table shows it.
    fn cell(&self, time: Duration) -> String {
        let us = time.as_secs_f64() * 1e6;
        match self {
            // Two decimals below 10 µs, where the tiniest cases are.
            Measure::Scenario(_) | Measure::Scenarios(_) if us < 10.0 => format!("{us:.2} µs"),
            Measure::Scenario(_) | Measure::Scenarios(_) => format!("{us:.1} µs"),
            Measure::Rules(_) => format!("{:.1} ms", us / 1000.0),
            Measure::Games { .. } => format!(
                "{:.2} ms a game ({} a minute)",
                us / 1000.0,
                thousands((60e6 / us).round() as u64)
            ),
        }
    }
}

/// The time a bot game takes over `games` games of the file, as `rally sim` plays and
/// times them (the rules each thread builds included, the study's summary not).
fn time_games(
    path: &Path,
    games: u64,
    threads: Option<usize>,
    common: &RuleFolders,
) -> Result<Duration> {
    let setup = Setup::load(path)?;
    let sources = Sources {
        project: common.project(Some(path)),
        choices: setup.choices(&common.extra_variants),
    };
    let threads = sim::threads(threads, games);
    let mut figures = Vec::new();
    let started = Instant::now();
    sim::run(
        &setup,
        &sources,
        0..games,
        threads,
        sim::Pairing::Keep(&mut figures),
        &mut |_| {},
    )?;
    Ok(started.elapsed() / games.try_into().unwrap_or(u32::MAX))
}

/// `21700` as `21,700`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Measures every row `plan.rounds` times and prints the table.
pub fn run(plan: &Plan, common: &RuleFolders) -> Result<bool> {
    // Every file first: a clone missing one is told so before minutes of measuring.
    for row in ROWS {
        let path = row.measure.path();
        if !Path::new(path).exists() {
            return Err(Error::Other(format!(
                "{path}: no such file or folder; `rally bench --report` measures the files of a rally clone: run it from the clone's top folder"
            )));
        }
    }
    let build = if cfg!(debug_assertions) {
        // A warning about the results: printed even with -q.
        anstream::eprintln!(
            "{}",
            paint(
                WARN,
                "warning: this is a debug build: its figures are many times the release build's and say nothing about the engine; measure with `cargo run --release -- bench --report`",
            )
        );
        "debug build (not the engine's figures)"
    } else {
        "release build"
    };
    let (date, load_before) = (utc_now(), load_average());
    let started = Instant::now();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); ROWS.len()];
    for round in 1..=plan.rounds {
        for (row, times) in ROWS.iter().zip(&mut times) {
            note(format!(
                "round {round}/{}: {}",
                plan.rounds,
                row.measure.how(plan)
            ));
            times.push(row.measure.once(plan, common)?);
        }
    }
    let load_after = load_average();
    note(format!(
        "measured in {:.0} s",
        started.elapsed().as_secs_f64()
    ));

    let mut out = String::new();
    writeln!(
        out,
        "Measured {date} by `rally bench --report --rounds {} --repeat {} --games {}`: rally {}, {build}, {}; load average (1, 5, 15 minutes) {load_before} before, {load_after} after.",
        plan.rounds,
        plan.repeat,
        plan.games,
        env!("CARGO_PKG_VERSION"),
        machine(),
    )
    .expect("writing to a String");
    writeln!(
        out,
        "Each row was measured once in each of {} rounds, every round measuring every row in turn; min and median are over the rounds.\n",
        plan.rounds
    )
    .expect("writing to a String");
    out.push_str("| what | min | median | how |\n| --- | --- | --- | --- |\n");
    for (row, times) in ROWS.iter().zip(&mut times) {
        times.sort();
        let [min, median] =
            [0.0, 0.5].map(|q| nearest_rank(times, q).expect("every row is measured"));
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            row.what,
            row.measure.cell(min),
            row.measure.cell(median),
            row.measure.how(plan)
        )
        .expect("writing to a String");
    }
    out.push_str("\nNot in the report, measured by other tools (run them yourself):\n");
    for (what, how) in ELSEWHERE {
        writeln!(out, "- {what}: `{how}`").expect("writing to a String");
    }
    print!("{out}");
    Ok(true)
}

/// `2 cores (AMD EPYC 7B13)`: the CPU model from /proc/cpuinfo where there is one.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split_once(':'))
                .map(|(_, model)| model.trim().to_string())
        })
        .unwrap_or_else(|| "CPU model unknown".into());
    format!("{cores} cores ({model})")
}

/// The load averages over 1, 5 and 15 minutes, from /proc/loadavg; `unknown` where there
/// is none (not Linux).
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|load| !load.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Now as `2026-12-04 01:23 UTC`.
fn utc_now() -> String {
    let seconds = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (year, month, day) = civil(seconds.div_euclid(86_400));
    let minute = seconds.rem_euclid(86_400) / 60;
    format!(
        "{year}-{month:02}-{day:02} {:02}:{:02} UTC",
        minute / 60,
        minute % 60
    )
}

/// The calendar date of a day counted from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`): no date library for one line of the report.
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months counted from March, so that February, with the leap day, comes last.
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_723), (2024, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(-1), (1969, 12, 31));
    }

    #[test]
    fn rates_get_thousands_separators() {
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(21_700), "21,700");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
