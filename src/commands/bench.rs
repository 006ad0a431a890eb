//! `rally bench [PATH...]`: times every scenario under the paths, each resolved `--repeat`
//! times from its start, and prints how the scenarios' medians are distributed (the figures
//! of docs/performance.md come from here, so anyone can reproduce them).
//! `rally run SCENARIO --repeat N` times one scenario the same way ([`time`]).
//!
//! Only the resolution is timed: the rules are loaded, the game started and the start state
//! copied outside the clock, and the state a resolution replaces is dropped outside it too.
//!
//! `rally bench --report` measures every row of the performance table again (`report.rs`).

mod report;

use super::output::{self, paint, JSON_VERSION, WARN};
use crate::engine::Engine;
use crate::error::Result;
use crate::formats::scenario::{self, Scenario};
use crate::pictures::probe::Profile;
use crate::script::RuleFolders;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Time every scenario under the paths: each one's median, and how the medians are distributed
///
/// Only the resolutions are timed (the rules loaded and the game started outside the clock),
/// each scenario once untimed, then --repeat times from its start.
///
/// `rally bench --report` measures every figure of the performance table instead (a turn,
/// the scenario sets, the tiniest cases, building the rules, bot games), in rounds that
/// take the rows in turn, and prints the table docs/performance.md and the README show,
/// with the command that measures each row alone. Run it from the clone's top folder with a
/// release build (`cargo run --release -- bench --report`), on a machine as quiet as you
/// can: the load average before and after is printed with the figures.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario files or folders (searched recursively) [default: tests/scenarios]
    paths: Vec<PathBuf>,
    /// Timed resolutions of each scenario (after one untimed); with --report, in each round
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Print every scenario's median, min, spread and max, not only the five slowest
    #[arg(long)]
    each: bool,
    /// Print every scenario's times and the summary as JSON
    #[arg(long)]
    json: bool,
    /// Also add up every handler call of the timed resolutions: instructions, time and calls
    /// per handler and per script, the costliest first (the times are then slower)
    #[arg(long, conflicts_with = "json")]
    profile: bool,
    /// Measure every figure of the performance table again (docs/performance.md, the README)
    /// and print the table as markdown: min and median over the rounds, the command that
    /// measures each row alone, the date, the machine, the build and the load average. Run
    /// it from the top folder of the clone, with a release build
    #[arg(long, conflicts_with_all = ["paths", "each", "json", "profile"])]
    report: bool,
    /// With --report: how many times each figure is measured; every row takes its turn in
    /// each round, so a burst of load spreads over the rows instead of spoiling one
    #[arg(long, value_name = "N", default_value_t = 5, requires = "report", value_parser = clap::value_parser!(u32).range(1..))]
    rounds: u32,
    /// With --report: the bot games of each `rally sim` row in each round
    #[arg(long, value_name = "N", default_value_t = 200, requires = "report", value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,
}

impl Args {
    /// Returns whether every scenario could be timed.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        if self.report {
            let plan = report::Plan {
                rounds: self.rounds,
                repeat: self.repeat,
                games: self.games,
            };
            return report::run(&plan, common);
        }
        bench(&self.paths, self, common)
    }
}

/// Resolutions of one scenario, sorted from the fastest.
pub struct Timing(Vec<Duration>);

impl Timing {
    /// The time below which a share `q` (0 to 1) of the resolutions finished (nearest rank;
    /// `quantile(0.5)` is the median).
    pub fn quantile(&self, q: f64) -> Duration {
        nearest_rank(&self.0, q).expect("at least one resolution is timed")
    }

    pub fn median(&self) -> Duration {
        self.quantile(0.5)
    }

    pub fn min(&self) -> Duration {
        self.0[0]
    }

    pub fn max(&self) -> Duration {
        self.0[self.0.len() - 1]
    }

    /// How far apart the middle half of the resolutions lie (the interquartile range).
    pub fn spread(&self) -> Duration {
        self.quantile(0.75) - self.quantile(0.25)
    }

    pub fn runs(&self) -> usize {
        self.0.len()
    }

    /// `median 54.1 µs (min 50.0 µs, spread 2.1 µs, max 230.9 µs)`.
    pub fn summary(&self) -> String {
        format!(
            "median {} (min {}, spread {}, max {})",
            micros(self.median()),
            micros(self.min()),
            micros(self.spread()),
            micros(self.max())
        )
    }
}

/// The value below which a share `q` (0 to 1) of `sorted` lies, by nearest rank.
fn nearest_rank<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    let last = sorted.len().checked_sub(1)?;
    Some(sorted[((last as f64 * q).round() as usize).min(last)])
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// To the nanosecond, for JSON.
fn rounded(us: f64) -> f64 {
    (us * 1000.0).round() / 1000.0
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", us(d))
}

/// Resolves the scenario `n` times (at least once), each from the state the game is in now,
/// and times each resolution alone. One resolution runs untimed first: the first one fills
/// caches (Lua strings, buffers) that every later one finds made. The game is left in the
/// state of the last resolution.
///
/// With `profile`, every handler call of the timed resolutions is added to it (`--profile`:
/// noting the calls slows the resolutions down, so their times are not the engine's).
pub fn time(
    scenario: &Scenario,
    engine: &mut Engine,
    n: u32,
    mut profile: Option<&mut Profile>,
) -> Result<Timing> {
    let start = engine.state().clone();
    engine.set_probe(profile.is_some());
    scenario.resolve(engine)?;
    drop(engine.take_calls());
    let mut times = Vec::with_capacity(n.max(1) as usize);
    for _ in 0..n.max(1) {
        // The replaced state is dropped here, outside the clock.
        drop(scenario.rewind(engine, start.clone()));
        let t = Instant::now();
        scenario.resolve(engine)?;
        times.push(t.elapsed());
        if let Some(profile) = profile.as_deref_mut() {
            profile.add(&engine.take_calls());
        }
    }
    times.sort();
    Ok(Timing(times))
}

/// Loads, starts and times one scenario.
fn time_file(
    file: &Path,
    repeat: u32,
    common: &RuleFolders,
    profile: Option<&mut Profile>,
) -> Result<Timing> {
    let scenario = Scenario::load(file)?;
    let rules = common.rules(Some(file), scenario.variants.clone())?;
    let mut engine = scenario.start(rules)?;
    time(&scenario, &mut engine, repeat, profile)
}

/// The buckets of the distribution, in µs: 1, 2, 5 per decade.
const EDGES: [f64; 11] = [
    0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0,
];

/// How many medians fall in each bucket: below the first edge, between two edges, from the
/// last edge up.
fn histogram(medians: &[f64]) -> Vec<(Option<f64>, Option<f64>, usize)> {
    let bounds: Vec<(Option<f64>, Option<f64>)> = std::iter::once((None, Some(EDGES[0])))
        .chain(EDGES.windows(2).map(|w| (Some(w[0]), Some(w[1]))))
        .chain(std::iter::once((Some(EDGES[EDGES.len() - 1]), None)))
        .collect();
    let counts: Vec<usize> = bounds
        .iter()
        .map(|(from, to)| {
            medians
                .iter()
                .filter(|&&m| from.is_none_or(|f| m >= f) && to.is_none_or(|t| m < t))
                .count()
        })
        .collect();
    // Only the range from the first bucket used to the last.
    let first = counts.iter().position(|&c| c > 0).unwrap_or(0);
    let last = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
    (first..=last)
        .map(|i| (bounds[i].0, bounds[i].1, counts[i]))
        .collect()
}

/// The scenarios under the paths, in file order.
fn scenario_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for file in scenario::collect(paths)? {
        // Folders hold board parts and variant files beside scenarios; a file named is
        // timed whatever it is (and refused if it is no scenario).
        if paths.contains(&file) || scenario::is_scenario(&file)? {
            files.push(file);
        }
    }
    Ok(files)
}

fn bench(paths: &[PathBuf], opts: &Args, common: &RuleFolders) -> Result<bool> {
    let default = [PathBuf::from("tests/scenarios")];
    let paths = if paths.is_empty() {
        &default[..]
    } else {
        paths
    };
    let files = scenario_files(paths)?;
    let bar = output::progress_bar("bench", files.len() as u64, "scenarios");
    let mut timed: Vec<(PathBuf, Timing)> = Vec::new();
    let mut errors: Vec<(PathBuf, String)> = Vec::new();
    let mut profile = opts.profile.then(Profile::default);
    for file in files {
        match time_file(&file, opts.repeat, common, profile.as_mut()) {
            Ok(t) => timed.push((file, t)),
            Err(e) => errors.push((file, e.to_string())),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();

    let mut medians: Vec<f64> = timed.iter().map(|(_, t)| us(t.median())).collect();
    medians.sort_by(f64::total_cmp);
    let quantile = |q: f64| nearest_rank(&medians, q);
    // (as printed, as named in JSON, share)
    let quantiles = [
        ("min", "min", 0.0),
        ("10%", "p10", 0.1),
        ("25%", "p25", 0.25),
        ("median", "median", 0.5),
        ("75%", "p75", 0.75),
        ("90%", "p90", 0.9),
        ("max", "max", 1.0),
    ];
    let histogram = histogram(&medians);
    if opts.json {
        let scenarios: Vec<_> = timed
            .iter()
            .map(|(file, t)| {
                json!({
                    "file": file,
                    "runs": t.runs(),
                    "min_us": rounded(us(t.min())),
                    "median_us": rounded(us(t.median())),
                    "spread_us": rounded(us(t.spread())),
                    "max_us": rounded(us(t.max())),
                })
            })
            .collect();
        let summary: serde_json::Map<String, serde_json::Value> = quantiles
            .iter()
            .map(|(_, name, q)| (name.to_string(), json!(quantile(*q).map(rounded))))
            .collect();
        let report = json!({
            "version": JSON_VERSION,
            "repeat": opts.repeat.max(1),
            "scenarios": scenarios,
            "errors": errors.iter().map(|(file, e)| json!({"file": file, "error": e})).collect::<Vec<_>>(),
            "medians_us": summary,
            "histogram": histogram.iter().map(|(from, to, count)| json!({"from_us": from, "to_us": to, "count": count})).collect::<Vec<_>>(),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&report).expect("JSON values serialize")
        );
        return Ok(errors.is_empty());
    }

    for (file, e) in &errors {
        anstream::println!(
            "{} {}: {}",
            paint(output::FAIL, "ERROR"),
            file.display(),
            crate::text::clean(e)
        );
    }
    println!(
        "{} scenario(s), {} timed resolution(s) each, from the start of each to its end",
        timed.len(),
        opts.repeat.max(1)
    );
    if timed.is_empty() {
        return Ok(errors.is_empty());
    }
    println!("each scenario's median, across the scenarios:");
    let line: Vec<String> = quantiles
        .iter()
        .filter_map(|(name, _, q)| Some(format!("{name} {:.1} µs", quantile(*q)?)))
        .collect();
    println!("  {}", line.join(", "));
    println!("distribution of the medians:");
    let widest = histogram.iter().map(|h| h.2).max().unwrap_or(1).max(1);
    for (from, to, count) in &histogram {
        let range = match (from, to) {
            (None, Some(t)) => format!("< {t} µs"),
            (Some(f), Some(t)) => format!("{f}–{t} µs"),
            (Some(f), None) => format!("≥ {f} µs"),
            (None, None) => String::new(),
        };
        let bar = "#".repeat((count * 40).div_ceil(widest));
        println!("  {range:>12} {count:>5} {bar}");
    }
    if opts.each {
        println!("each:");
        for (file, t) in &timed {
            println!("  {}: {}", file.display(), t.summary());
        }
    } else {
        let mut slowest: Vec<&(PathBuf, Timing)> = timed.iter().collect();
        slowest.sort_by_key(|(_, t)| std::cmp::Reverse(t.median()));
        println!("slowest:");
        for (file, t) in slowest.iter().take(5) {
            println!("  {}: {}", file.display(), t.summary());
        }
    }
    if let Some(profile) = &profile {
        print!("{profile}");
    }
    if !errors.is_empty() {
        anstream::println!(
            "{}",
            paint(
                WARN,
                format!("{} scenario(s) could not be timed", errors.len())
            )
        );
    }
    Ok(errors.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let t = Timing((1..=5).map(Duration::from_micros).collect());
        assert_eq!(t.min(), Duration::from_micros(1));
        assert_eq!(t.median(), Duration::from_micros(3));
        assert_eq!(t.max(), Duration::from_micros(5));
        assert_eq!(t.spread(), Duration::from_micros(2));
    }

    #[test]
    fn histogram_covers_the_used_buckets_only() {
        let h = histogram(&[0.7, 1.5, 1.9, 7.0, 2000.0]);
        assert_eq!(h.first(), Some(&(Some(0.5), Some(1.0), 1)));
        assert_eq!(h[1], (Some(1.0), Some(2.0), 2));
        assert_eq!(h.last(), Some(&(Some(1000.0), None, 1)));
        assert_eq!(h.iter().map(|b| b.2).sum::<usize>(), 5);
    }
}
