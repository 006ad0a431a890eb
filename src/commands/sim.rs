//! `rally sim GAME --games N [--compare V,W] [--shard K/M] [--json|--csv] [--out FILE]`:
//! bot-only games on every core with a progress bar on a terminal, then the balancing
//! summary with confidence intervals; with `--compare`, a second column for the game with
//! more variants and the difference between the two. `rally sim merge FILES...` adds up the
//! tally files of a study's shards and prints the same summary (docs/simulations.md).

use super::output::note;
use crate::board::Board;
use crate::error::{Error, Result};
use crate::game::bot::Strength;
use crate::game::columns::{self, Change};
use crate::game::study::{Column, GameFile, Rules, Study};
use crate::game::{sim, Setup};
use crate::pictures::{heatmap, report};
use crate::script::variant::Choice;
use crate::script::{RuleFolders, RuleSet, Sources};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

/// `--shard K/M`: the K-th of M equal parts of the games, counting from 0 (as
/// `JOB_COMPLETION_INDEX` and `SLURM_ARRAY_TASK_ID` with `--array=0-(M-1)` do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Shard, String> {
        let usage =
            || format!("`{text}`: expected K/M, shard K of M counting from 0 (0/4, 1/4, 2/4, 3/4)");
        let (k, m) = text.split_once('/').ok_or_else(usage)?;
        let index: u64 = k.trim().parse().map_err(|_| usage())?;
        let count: u64 = m.trim().parse().map_err(|_| usage())?;
        if count == 0 {
            return Err(format!("`{text}`: there must be at least one shard"));
        }
        if index >= count {
            return Err(format!(
                "`{text}`: shards count from 0, so the last of {count} is {}/{count}",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The games of this shard: `[first, end)` out of `games`, in contiguous blocks whose
    /// sizes differ by at most one.
    pub fn range(self, games: u64) -> [u64; 2] {
        let at = |k: u64| (games as u128 * k as u128 / self.count as u128) as u64;
        [at(self.index), at(self.index + 1)]
    }
}

/// Where `rally sim` and `rally sim merge` put their results.
#[derive(clap::Args)]
struct Output {
    /// Print the tally file (JSON: raw tallies, summary, hashes; format `version` 1) instead of the table
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the summary as CSV (metric,column,value,low,high) instead of the table
    #[arg(long)]
    csv: bool,
    /// Also write the tally file (JSON) to FILE, for `rally sim merge`
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Show this script event per robot too; with any --metric, only the events named (repeatable)
    #[arg(long = "metric", value_name = "NAME")]
    metrics: Vec<String>,
    /// Draw a heatmap on the board to the -o file: per square deaths, damage, visits or turn ends, or turns to each flag; with several columns, the last minus the first
    #[arg(long, value_name = "MAP", requires = "picture", value_parser = clap::builder::PossibleValuesParser::new(heatmap::NAMES))]
    heatmap: Option<String>,
    /// Where --heatmap draws (.svg, or .png)
    #[arg(
        short = 'o',
        long = "picture",
        value_name = "FILE",
        requires = "heatmap"
    )]
    picture: Option<PathBuf>,
    /// Write a self-contained HTML page with the tables, the charts and the heatmaps
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Draw the trend across the columns (a sweep) of the finish rate, the turns per game and each --metric, with 95% bands (.svg or .png)
    #[arg(long, value_name = "FILE")]
    trend: Option<PathBuf>,
}

/// Play bot-only games of a game file on every core and summarise them for balancing
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct Args {
    #[command(subcommand)]
    merge: Option<Merge>,
    /// The game file (.toml); people at the terminal are replaced by bots
    #[arg(required = true)]
    game: Option<PathBuf>,
    /// How many games (per column) in the whole study
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Another column: the file's variants changed by V (on), -V (off) and V.PARAM=VALUE, comma-separated (repeatable)
    #[arg(long, value_name = "V,-W,V.P=X", allow_hyphen_values = true)]
    compare: Vec<String>,
    /// One column per value of a variant's parameter, on the same games: V.PARAM=LOW..HIGH or V.PARAM=A,B,C
    #[arg(long, value_name = "V.PARAM=A..B", conflicts_with = "compare")]
    sweep: Option<String>,
    /// Play the robot NAME with a bot of this strength (weak, medium or strong) instead of the file's (repeatable)
    #[arg(long = "strength", value_name = "NAME=STRENGTH")]
    strengths: Vec<String>,
    /// Play only shard K of M (K counts from 0): games K·N/M up to (K+1)·N/M; merge the shards' --out files
    #[arg(long, value_name = "K/M")]
    shard: Option<Shard>,
    /// Worker threads [default: one per core; at most one per game, and 256]; the results do not depend on it
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    threads: Option<usize>,
    #[command(flatten)]
    output: Output,
}

#[derive(clap::Subcommand)]
enum Merge {
    /// Add up the tally files of a study's shards and print the summary of the whole study
    Merge {
        /// Tally files written by `rally sim --shard K/M --out FILE` (all M of them)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        output: Output,
    },
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        match &self.merge {
            Some(Merge::Merge { files, output }) => merge(files, output, common),
            None => sim(
                self.game
                    .as_deref()
                    .expect("clap requires a game without a subcommand"),
                self,
                common,
            ),
        }
    }
}

fn sim(path: &Path, opts: &Args, common: &RuleFolders) -> Result<bool> {
    let mut setup = Setup::load(path)?;
    for given in &opts.strengths {
        set_strength(&mut setup, given)?;
    }
    let project = common.project(Some(path));
    let usage = |flag: &str, m: String| Error::Other(format!("{flag} {m}"));
    let changes: Vec<Vec<Change>> = match &opts.sweep {
        Some(sweep) => columns::sweep(sweep).map_err(|m| usage("--sweep", m))?,
        None => std::iter::once(Ok(Vec::new()))
            .chain(
                opts.compare
                    .iter()
                    .map(|c| columns::parse(c).map_err(|m| usage("--compare", m))),
            )
            .collect::<Result<_>>()?,
    };
    let base = setup.choices(&common.extra_variants);
    let choices: Vec<Vec<Choice>> = changes
        .iter()
        .map(|c| columns::apply(&base, &setup.parked, c).map_err(Error::Other))
        .collect::<Result<_>>()?;
    for warning in setup.unused_settings(choices.iter().flatten()) {
        note(format!("warning: {warning}"));
    }
    let [first, end] = opts.shard.map_or([0, opts.games], |s| s.range(opts.games));
    let threads = sim::threads(opts.threads, end - first);
    let part = match opts.shard {
        Some(s) => format!(
            "games {first}..{end} of {} (shard {}/{})",
            opts.games, s.index, s.count
        ),
        None => format!("{} bot game(s)", opts.games),
    };
    note(format!(
        "{}: {part} per column on {threads} thread(s)",
        path.display()
    ));
    // Each column's rules, loaded here first: their hashes, and a warning for a variant
    // that changes nothing on this board, before any game is played.
    let mut rules = Rules::default();
    let mut prepared = Vec::new();
    let mut first_rules = None;
    for choices in choices {
        let sources = Sources {
            project: project.clone(),
            choices,
        };
        let loaded = common.load(&sources)?;
        rules.add(&loaded)?;
        for warning in setup.idle_variant_warnings(&loaded)? {
            note(format!("warning: {warning}"));
        }
        if prepared
            .iter()
            .any(|p: &Sources| p.choices == sources.choices)
        {
            note("warning: two columns switch on the same variants with the same settings: they are the same games");
        }
        first_rules.get_or_insert(loaded);
        prepared.push(sources);
    }
    for file in [
        &opts.output.out,
        &opts.output.picture,
        &opts.output.report,
        &opts.output.trend,
    ]
    .into_iter()
    .flatten()
    {
        // Refused now, not after the games: it must not replace the game file.
        crate::files::check_output(file)?;
    }
    let mut played = Vec::new();
    // The first column's figures per game, which the columns after it are paired with.
    let mut first_figures = Vec::new();
    for sources in prepared {
        let variants: Vec<String> = sources.choices.iter().map(|c| c.name.clone()).collect();
        let settings = columns::settings(&sources.choices);
        let name = columns::header(&variants, &settings);
        let bar = super::output::progress_bar(&name, end - first, "games");
        let started = Instant::now();
        let pairing = match played.is_empty() {
            true => sim::Pairing::Keep(&mut first_figures),
            false => sim::Pairing::With(&first_figures),
        };
        let tally = sim::run(
            &setup,
            &sources,
            first..end,
            threads,
            pairing,
            &mut |done| bar.set_position(done),
        )?;
        bar.finish_and_clear();
        let seconds = started.elapsed().as_secs_f64();
        note(format!(
            "{name}: {} games in {seconds:.1} s ({:.0} games per minute)",
            tally.games,
            tally.games as f64 * 60.0 / seconds.max(1e-9)
        ));
        played.push(Column {
            name,
            variants,
            settings,
            tally,
        });
    }
    let game = GameFile::of(&setup, path)?;
    let study = Study::new(game, rules, opts.games, [first, end], played);
    let rules = first_rules.expect("a study has at least one column");
    let board = Board::compile(&setup.layout, &rules)?;
    emit(&study, &opts.output, Some((&rules, &board)))
}

/// `--strength NAME=STRENGTH`: the robot NAME is played by a bot of that strength.
fn set_strength(setup: &mut Setup, given: &str) -> Result<()> {
    let names: Vec<String> = setup.seats.iter().map(|s| s.name.clone()).collect();
    let usage = || {
        Error::Other(format!(
            "--strength {given}: expected NAME=weak, NAME=medium or NAME=strong, NAME one of {}",
            names.join(", ")
        ))
    };
    let (name, strength) = given.split_once('=').ok_or_else(usage)?;
    let strength = match strength {
        "weak" => Strength::Weak,
        "medium" => Strength::Medium,
        "strong" => Strength::Strong,
        _ => return Err(usage()),
    };
    let seat = setup
        .seats
        .iter_mut()
        .find(|s| s.name == name)
        .ok_or_else(usage)?;
    seat.strength = strength;
    Ok(())
}

/// `rally sim merge FILES...`: the tallies of a study's shards added up, printed as one
/// unsharded run prints them.
fn merge(files: &[PathBuf], output: &Output, common: &RuleFolders) -> Result<bool> {
    let shards = files
        .iter()
        .map(|f| Ok((f.clone(), Study::read(f)?)))
        .collect::<Result<Vec<_>>>()?;
    let study = Study::merge(shards)?;
    if output.heatmap.is_some() || output.report.is_some() {
        // The board comes from the game file, if it is still the one the games were played on.
        let setup = Setup::load(Path::new(&study.game.file))?;
        if GameFile::of(&setup, Path::new(&study.game.file))?.sha256 != study.game.sha256 {
            return Err(Error::Other(format!(
                "{}: the game file or a board it uses changed since the games were played: the heatmaps need the board they were played on",
                study.game.file
            )));
        }
        let rules = common.load(&Sources {
            project: common.project(Some(Path::new(&study.game.file))),
            choices: setup.choices(&study.columns[0].variants),
        })?;
        let board = Board::compile(&setup.layout, &rules)?;
        return emit(&study, output, Some((&rules, &board)));
    }
    emit(&study, output, None)
}

fn emit(study: &Study, output: &Output, board: Option<(&RuleSet, &Board)>) -> Result<bool> {
    if output.json && output.csv {
        return Err(Error::Other("--json and --csv: choose one".into()));
    }
    let seen = study.event_names();
    for metric in &output.metrics {
        if !seen.contains(metric) {
            note(format!(
                "warning: --metric {metric}: no script logged `{metric}` in these games (logged: {})",
                if seen.is_empty() { "none".to_string() } else { seen.join(", ") }
            ));
        }
    }
    if let Some(file) = &output.out {
        super::output::write_file(file, study.json().as_bytes())?;
    }
    if let (Some(map), Some(file), Some((rules, board))) = (&output.heatmap, &output.picture, board)
    {
        let svg = heatmap::of_study(study, map, rules, board).map_err(Error::Other)?;
        super::render::write_picture(file, &svg, 1.0)?;
    }
    if let Some(file) = &output.trend {
        super::render::write_picture(file, &report::trend(study, &output.metrics), 1.0)?;
    }
    if let (Some(file), Some((rules, board))) = (&output.report, board) {
        let command: Vec<String> = std::env::args().skip(1).collect();
        let page = report::page(study, &command.join(" "), rules, board, &output.metrics);
        super::output::write_file(file, page.as_bytes())?;
    }
    let text = if output.json {
        study.json()
    } else if output.csv {
        study.csv()
    } else {
        // Robot names come from the game file: their control characters are shown escaped.
        crate::text::clean(&study.table(&output.metrics)).into_owned()
    };
    print!("{text}");
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_game_once() {
        for games in [0, 1, 7, 1000, 1001] {
            for count in [1, 3, 7, 64] {
                let mut next = 0;
                for index in 0..count {
                    let [first, end] = Shard { index, count }.range(games);
                    assert_eq!(first, next);
                    assert!(end - first <= games / count + 1);
                    next = end;
                }
                assert_eq!(next, games);
            }
        }
    }

    #[test]
    fn shard_arguments() {
        assert_eq!("2/7".parse(), Ok(Shard { index: 2, count: 7 }));
        let last = "7/7".parse::<Shard>().unwrap_err();
        assert!(last.contains("the last of 7 is 6/7"), "{last}");
        assert!("0/0".parse::<Shard>().is_err());
        assert!("1".parse::<Shard>().unwrap_err().contains("expected K/M"));
        assert!("a/b".parse::<Shard>().is_err());
    }
}
