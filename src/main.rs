//! The `rally` command line. Parsing only: every command is implemented in `rally::commands`.

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use clap_complete::ArgValueCompleter;
use rally::commands::completions::{element_names, option_names, variant_names};
use rally::commands::{self, output, render::RenderOptions, run::RunOptions};
use rally::script::RuleFolders;
use std::path::PathBuf;
use std::process::ExitCode;

/// Allocation is a large part of resolving a turn (events, Lua tables and strings): mimalloc
/// serves small blocks several times faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// rally: a RoboRally rules engine whose board elements and house rules are Lua plugins.
///
/// Scenarios place robots with programs on a board and resolve registers; `rally test` checks
/// their expectations. Board elements live in scripts/elements/*.lua, house rules in
/// variants/NAME/. See README.md for the file formats and the scripting API.
#[derive(Parser)]
#[command(name = "rally", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Folder holding elements/ and rules/ [default: scripts/ beside the file, else ./scripts, else built in]
    #[arg(long, global = true, value_name = "DIR")]
    scripts: Option<PathBuf>,
    /// Folder holding one folder per variant [default: variants/ beside the file, else ./variants, else built in]
    #[arg(long, global = true, value_name = "DIR")]
    variants: Option<PathBuf>,
    /// A mapping file for Tiled maps made for another game: tiles to elements, properties to parameters (docs/tiled.md)
    #[arg(long, global = true, value_name = "FILE")]
    tiled_mapping: Option<PathBuf>,
    /// Switch a variant on (repeatable); adds to the file's `variants`
    #[arg(long = "variant", global = true, value_name = "NAME", add = ArgValueCompleter::new(variant_names))]
    variant: Vec<String>,
    /// More log output (-v info, -vv debug, -vvv trace) [default: RALLY_LOG or RUST_LOG, else warnings]
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// No chatter: only results, warnings about them and errors
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Colour: auto (on a terminal, unless NO_COLOR is set), always or never
    #[arg(long, global = true, value_name = "WHEN", default_value = "auto")]
    color: clap::ColorChoice,
    /// Change a limit of the script sandbox (repeatable), e.g. `--limit seconds=5`:
    /// instructions=N, seconds=S, memory=SIZE, value=SIZE, vars=SIZE, log=SIZE, events=N
    /// (SIZE in bytes, or with K, M or G). See docs/sandbox.md
    #[arg(long = "limit", global = true, value_name = "NAME=VALUE")]
    limit: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Resolve a scenario: the board before and after, the event log, the expectations
    #[command(
        override_usage = "rally run [OPTIONS] <SCENARIO>\n       rally run [OPTIONS] --replay <LOG>"
    )]
    Run {
        /// The scenario file (.toml); required, except with --replay
        #[arg(required_unless_present = "replay")]
        scenario: Option<PathBuf>,
        /// Print only the final state as JSON (the contract's format, with its events)
        #[arg(long)]
        json: bool,
        /// Resolve it N times in-process and print the median, min, spread (middle half) and max time per resolution
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
        repeat: Option<u32>,
        /// Also write a replay log (JSON) of the resolution to LOG
        #[arg(long, value_name = "LOG")]
        record: Option<PathBuf>,
        /// Resolve a recorded replay log again under the current rules and print what changed
        #[arg(long, value_name = "LOG", conflicts_with_all = ["scenario", "json", "repeat", "record"])]
        replay: Option<PathBuf>,
    },
    /// Run scenarios, then again on every change to their files, printing what changed (hot reload)
    ///
    /// One scenario is shown in full on every run. With folders or several files, a save runs
    /// again every scenario that uses the changed file and ends with `N passed, M failed`.
    /// Examples: `rally watch boards/tour.toml`, `rally watch tests/scenarios/belts my.toml`.
    Watch {
        /// Scenario files (.toml) or folders of them (searched recursively)
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Look at the files every 100 ms instead of waiting for change events (network and VM file systems)
        #[arg(long)]
        poll: bool,
        /// Print how long each reload took: debounce, rebuild, re-run, save to result
        #[arg(long)]
        timings: bool,
        /// How long the files must stay unchanged before a reload, in milliseconds
        #[arg(long, value_name = "MS", default_value_t = 40)]
        debounce: u64,
    },
    /// Time every scenario under the paths: each one's median, and how the medians are distributed
    Bench {
        /// Scenario files or folders (searched recursively) [default: tests/scenarios]
        paths: Vec<PathBuf>,
        /// Timed resolutions of each scenario (after one untimed)
        #[arg(long, value_name = "N", default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..))]
        repeat: u32,
        /// Print every scenario's median, min, spread and max, not only the five slowest
        #[arg(long)]
        each: bool,
        /// Print every scenario's times and the summary as JSON
        #[arg(long)]
        json: bool,
    },
    /// Run every scenario with an [expect] table under the paths; ends with `N passed, M failed`
    Test {
        /// Scenario files or folders (searched recursively) [default: tests/scenarios]
        paths: Vec<PathBuf>,
        /// Print the results as JSON
        #[arg(long)]
        json: bool,
    },
    /// Draw a board, or a scenario's board with its robots, as SVG or PNG
    Render {
        /// A board (.toml, or a Tiled map .tmj/.json/.tmx) or a scenario (.toml)
        file: PathBuf,
        /// The picture: FILE.svg, FILE.png, or - for SVG on standard output [default: the input's name with .svg]
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// For a scenario: draw the robots after resolving it, not where they start
        #[arg(long)]
        after: bool,
        /// Add a legend under the board: a sample of each kind of element on it, named
        #[arg(long)]
        legend: bool,
        /// For PNG: pixels per unit of the picture (a square is 64 units), e.g. 3 for print (about 288 dpi at the SVG's size)
        #[arg(long, value_name = "N", default_value_t = 1.0)]
        scale: f32,
    },
    /// Write a self-contained HTML page that plays a replay log, a scenario or a whole game card by card and step by step
    Replay {
        /// A replay log (.json, from `rally run --record`), a scenario (.toml), or a game's replay or save (.json, from `rally play`)
        file: PathBuf,
        /// The page [default: the input's name with .html]
        #[arg(short, long, value_name = "FILE.html")]
        output: Option<PathBuf>,
    },
    /// Print the completion script for a shell (e.g. `rally completions bash > /etc/bash_completion.d/rally`)
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) of rally and its commands (e.g. `rally man | man -l -`)
    Man,
    /// List the board elements the scripts define, with parameters, and the order of play
    Elements {
        /// Only these elements [default: all]
        #[arg(value_name = "ELEMENT", add = ArgValueCompleter::new(element_names))]
        names: Vec<String>,
        /// Print them as JSON
        #[arg(long)]
        json: bool,
    },
    /// List the variants, with parameters
    Variants {
        /// Only these variants [default: all]
        #[arg(value_name = "VARIANT", add = ArgValueCompleter::new(variant_names))]
        names: Vec<String>,
        /// Print them as JSON
        #[arg(long)]
        json: bool,
    },
    /// Write Tiled's Custom Types (JSON) for every element and its parameters: import it in Tiled's Custom Types Editor, then pick parameters from dropdowns (e.g. `rally tiled-types -o rally-types.json`)
    TiledTypes {
        /// Where to write them [default: standard output]
        #[arg(short, long, value_name = "FILE.json")]
        output: Option<PathBuf>,
    },
    /// List the option cards the scripts define, with ammunition and descriptions
    Options {
        /// Only these option cards [default: all]
        #[arg(value_name = "OPTION", add = ArgValueCompleter::new(option_names))]
        names: Vec<String>,
        /// Print them as JSON
        #[arg(long)]
        json: bool,
    },
    /// Write the scripting API's annotations for editors (lua-language-server), or the API reference
    Types {
        /// Write rally.lua into this folder (created if needed) [default: standard output]
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Write the API reference (Markdown, docs/api.md) to FILE instead (- for standard output)
        #[arg(long, value_name = "FILE", conflicts_with = "output")]
        markdown: Option<PathBuf>,
    },
    /// Start a new element, variant or scenario from a commented stub that works, with a scenario testing it
    New {
        #[command(subcommand)]
        what: New,
        /// The project folder: scripts/, variants/ and tests/scenarios/ go here; a folder without scripts/ is set up first
        #[arg(long, global = true, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
    },
    /// Play a whole game: people at this terminal and bots (see docs/games.md)
    #[command(
        override_usage = "rally play [OPTIONS] <GAME>\n       rally play [OPTIONS] --resume <SAVE>"
    )]
    Play {
        /// The game file (.toml); required, except with --resume
        #[arg(required_unless_present = "resume")]
        game: Option<PathBuf>,
        /// No pauses between registers
        #[arg(long)]
        fast: bool,
        /// Continue a saved game where it stopped
        #[arg(long, value_name = "SAVE")]
        resume: Option<PathBuf>,
        /// Where to save after every register [default: saves/GAME.save.json; with --resume, SAVE]
        #[arg(long, value_name = "FILE")]
        save: Option<PathBuf>,
        /// Start the game anew even if its save holds a game, replacing it (without it, rally play refuses)
        #[arg(long, conflicts_with = "resume")]
        new: bool,
    },
    /// Serve a playtest table in the browser: a link per seat, bots in empty seats, hot reload for everyone
    ///
    /// Prints one link per seat, a spectators' link and a host link for each game, and serves
    /// them until Ctrl-C. Each player opens their seat's link; the game starts when every
    /// person's seat is taken (or the host presses Start: bots play the empty seats).
    /// Without a game file, open the printed start page: pick a game file of --games-dir DIR,
    /// variants and which seats wait for a person, and it opens the table and shows its links.
    /// Games are saved after every register to SAVES/TABLE.save.json, with the links' tokens
    /// beside it; `--resume` brings a table back and the same links work again.
    ///
    /// By default only this computer can connect (127.0.0.1): `--host 0.0.0.0` lets others
    /// on your network in, at this computer's address.
    ///
    /// Examples:
    ///   rally serve                                  # the start page: pick a game in the browser
    ///   rally serve games/practice.toml
    ///   rally serve games/practice.toml games/practice.toml --host 0.0.0.0 --port 8000
    ///   rally serve --resume saves/practice.save.json
    #[command(verbatim_doc_comment)]
    Serve {
        /// Game files (.toml); each becomes a table (none: pick one on the start page)
        games: Vec<PathBuf>,
        /// The folder of game files the start page offers
        #[arg(long, value_name = "DIR", default_value = "games")]
        games_dir: PathBuf,
        /// The address to listen on; 0.0.0.0 lets others on your network (LAN) in
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Bring back a table from its save (repeatable); its links stay the same
        #[arg(long, value_name = "SAVE")]
        resume: Vec<PathBuf>,
        /// Folder for the saves, tokens and replays of new tables
        #[arg(long, value_name = "DIR", default_value = "saves")]
        saves: PathBuf,
        /// The classic timer: seconds the last player has once all others are ready (0: off)
        #[arg(long, value_name = "SECS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
        timer: u64,
        /// Seconds an absent player's seat waits before a bot decides for it (0: it waits)
        #[arg(long, value_name = "SECS", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
        bot_after: u64,
        /// Seconds a player has to answer a question before its default is taken
        #[arg(long, value_name = "SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
        choice_timeout: u64,
        /// Do not watch the rule files (no hot reload)
        #[arg(long)]
        no_reload: bool,
    },
    /// Play bot-only games of a game file on every core and summarise them for balancing
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Sim {
        #[command(subcommand)]
        merge: Option<SimCommand>,
        /// The game file (.toml); people at the terminal are replaced by bots
        #[arg(required = true)]
        game: Option<PathBuf>,
        /// How many games (per column) in the whole study
        #[arg(long, default_value_t = 1000)]
        games: u64,
        /// A second column with these variants (comma-separated) on top of the file's, and the difference
        #[arg(long, value_name = "V,W")]
        compare: Option<String>,
        /// Play the robot NAME with a bot of this strength (weak, medium or strong) instead of the file's (repeatable)
        #[arg(long = "strength", value_name = "NAME=STRENGTH")]
        strengths: Vec<String>,
        /// Play only shard K of M (K counts from 0): games K·N/M up to (K+1)·N/M; merge the shards' --out files
        #[arg(long, value_name = "K/M")]
        shard: Option<commands::sim::Shard>,
        /// Worker threads [default: one per core; at most one per game, and 256]; the results do not depend on it
        #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
        threads: Option<usize>,
        #[command(flatten)]
        output: SimOutput,
    },
}

#[derive(Subcommand)]
enum SimCommand {
    /// Add up the tally files of a study's shards and print the summary of the whole study
    Merge {
        /// Tally files written by `rally sim --shard K/M --out FILE` (all M of them)
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        output: SimOutput,
    },
}

/// Where `rally sim` and `rally sim merge` put their results.
#[derive(clap::Args)]
struct SimOutput {
    /// Print the tally file (JSON: raw tallies, summary, hashes; format `version` 1) instead of the table
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the summary as CSV (metric,column,value,low,high) instead of the table
    #[arg(long)]
    csv: bool,
    /// Also write the tally file (JSON) to FILE, for `rally sim merge`
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

impl SimOutput {
    fn options(&self) -> commands::sim::Output {
        commands::sim::Output {
            json: self.json,
            csv: self.csv,
            out: self.out.clone(),
        }
    }
}

/// What `rally new` makes.
#[derive(Subcommand)]
enum New {
    /// A board element: scripts/elements/NAME.lua and tests/scenarios/NAME.toml
    Element {
        /// Its name, as boards will use it: letters, digits and _, not starting with a digit
        name: String,
    },
    /// A variant: variants/NAME/ (variant.toml and a rule) and tests/scenarios/NAME.toml
    Variant {
        /// Its name, as `variants = [...]` will use it: letters, digits, - and _
        name: String,
    },
    /// A scenario: tests/scenarios/NAME.toml on a small board of standard elements
    Scenario {
        /// Its file name, without .toml
        #[arg(default_value = "scenario")]
        name: String,
    },
}

/// The command line as clap sees it, with the examples, environment and exit statuses
/// added to the help (`commands::help`).
fn command() -> clap::Command {
    commands::help::decorate(Cli::command())
}

/// `--color` as given, looked for before parsing so that `--help` and usage errors obey it.
fn color_arg() -> clap::ColorChoice {
    let args: Vec<String> = std::env::args().collect();
    let value = args
        .iter()
        .enumerate()
        .find_map(|(i, a)| match a.strip_prefix("--color=") {
            Some(v) => Some(v.to_string()),
            None if a == "--color" => args.get(i + 1).cloned(),
            None => None,
        });
    match value.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

fn set_color(choice: clap::ColorChoice) {
    match choice {
        clap::ColorChoice::Always => anstream::ColorChoice::Always,
        clap::ColorChoice::Never => anstream::ColorChoice::Never,
        clap::ColorChoice::Auto => anstream::ColorChoice::Auto,
    }
    .write_global();
}

/// Logs go to stderr: -v/-q decide the level; without them RALLY_LOG, else RUST_LOG, else
/// warnings only.
fn init_logging(cli: &Cli) {
    use tracing_subscriber::EnvFilter;
    let level = match (cli.quiet, cli.verbose) {
        (true, _) => Some("error"),
        (_, 0) => None,
        (_, 1) => Some("info"),
        (_, 2) => Some("debug"),
        _ => Some("trace"),
    };
    let filter = match level {
        Some(level) => EnvFilter::new(level),
        None => EnvFilter::try_from_env("RALLY_LOG")
            .or_else(|_| EnvFilter::try_from_env("RUST_LOG"))
            .unwrap_or_else(|_| EnvFilter::new("warn")),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(output::stderr_colour())
        .without_time()
        .init();
}

fn main() -> ExitCode {
    // Die quietly when the reader of our output goes away (`rally elements | head`).
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // The shell asking for completions (`rally completions SHELL` installs the script).
    clap_complete::CompleteEnv::with_factory(command)
        .var(commands::completions::COMPLETE_VAR)
        .complete();
    let color = color_arg();
    set_color(color);
    let cli =
        Cli::from_arg_matches(&command().color(color).get_matches()).unwrap_or_else(|e| e.exit());
    set_color(cli.color);
    output::set_quiet(cli.quiet);
    init_logging(&cli);
    if let Some(mapping) = cli.tiled_mapping {
        rally::board::tiled::use_mapping(mapping);
    }
    if !cli.limit.is_empty() {
        let mut limits = rally::script::sandbox::Limits::default();
        let set = cli.limit.iter().try_for_each(|spec| limits.set(spec));
        if let Err(e) = set.and_then(|()| limits.install()) {
            anstream::eprintln!("{} {e}", output::paint(output::FAIL, "error:"));
            return ExitCode::from(2);
        }
    }
    let common = RuleFolders {
        scripts: cli.scripts,
        variants: cli.variants,
        extra_variants: cli.variant,
    };
    let result = match &cli.command {
        Command::Run {
            replay: Some(log), ..
        } => commands::run::replay(log, &common),
        Command::Run {
            scenario,
            json,
            repeat,
            record,
            replay: None,
        } => commands::run::run(
            scenario
                .as_deref()
                .expect("clap requires a scenario without --replay"),
            &RunOptions {
                json: *json,
                repeat: *repeat,
                record: record.clone(),
            },
            &common,
        ),
        Command::Watch {
            paths,
            poll,
            timings,
            debounce,
        } => commands::watch::watch(
            paths,
            &commands::watch::WatchOptions {
                poll: *poll,
                timings: *timings,
                quiet: std::time::Duration::from_millis(*debounce),
            },
            &common,
        ),
        Command::Bench {
            paths,
            repeat,
            each,
            json,
        } => commands::bench::bench(
            paths,
            &commands::bench::BenchOptions {
                repeat: *repeat,
                each: *each,
                json: *json,
            },
            &common,
        ),
        Command::Test { paths, json } => commands::test::test(paths, *json, &common),
        Command::Render {
            file,
            output,
            after,
            legend,
            scale,
        } => commands::render::render(
            file,
            &RenderOptions {
                output: output
                    .clone()
                    .unwrap_or_else(|| commands::render::default_output(file)),
                after: *after,
                legend: *legend,
                scale: *scale,
            },
            &common,
        )
        .map(|_| true),
        Command::Replay { file, output } => commands::viewer::replay(
            file,
            &output
                .clone()
                .unwrap_or_else(|| commands::viewer::default_output(file)),
            &common,
        )
        .map(|_| true),
        Command::Completions { shell } => {
            commands::completions::completions(*shell, &command()).map(|_| true)
        }
        Command::Man => commands::completions::man(command()).map(|_| true),
        Command::Elements { names, json } => {
            commands::catalogue::elements(names, *json, &common).map(|_| true)
        }
        Command::Variants { names, json } => {
            commands::catalogue::variants(names, *json, &common).map(|_| true)
        }
        Command::Options { names, json } => {
            commands::catalogue::options(names, *json, &common).map(|_| true)
        }
        Command::Types { output, markdown } => {
            commands::types::types(output.as_deref(), markdown.as_deref()).map(|_| true)
        }
        Command::New { what, dir } => {
            let what = match what {
                New::Element { name } => commands::new::What::Element(name.clone()),
                New::Variant { name } => commands::new::What::Variant(name.clone()),
                New::Scenario { name } => commands::new::What::Scenario(name.clone()),
            };
            commands::new::new(&what, dir).map(|_| true)
        }
        Command::TiledTypes { output } => {
            commands::catalogue::tiled_types(output.as_deref(), &common).map(|_| true)
        }
        Command::Play {
            game,
            fast,
            resume,
            save,
            new,
        } => commands::play::play(
            game.as_deref(),
            &commands::play::PlayOptions {
                fast: *fast,
                resume: resume.clone(),
                save: save.clone(),
                new: *new,
            },
            &common,
        ),
        Command::Serve {
            games,
            games_dir,
            host,
            port,
            resume,
            saves,
            timer,
            bot_after,
            choice_timeout,
            no_reload,
        } => commands::serve::serve(
            games,
            &commands::serve::ServeOptions {
                host: host.clone(),
                port: *port,
                resume: resume.clone(),
                saves: saves.clone(),
                games: games_dir.clone(),
                settings: rally::table::protocol::Settings {
                    bot_after: *bot_after,
                    choice_timeout: *choice_timeout,
                    timer: *timer,
                },
                reload: !no_reload,
            },
            &common,
        ),
        Command::Sim {
            merge: Some(SimCommand::Merge { files, output }),
            ..
        } => commands::sim::merge(files, &output.options()),
        Command::Sim {
            merge: None,
            game,
            games,
            compare,
            strengths,
            shard,
            threads,
            output,
        } => commands::sim::sim(
            game.as_deref()
                .expect("clap requires a game without a subcommand"),
            &commands::sim::SimOptions {
                games: *games,
                strengths: strengths.clone(),
                compare: compare.clone(),
                threads: *threads,
                shard: *shard,
                output: output.options(),
            },
            &common,
        ),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            // Messages quote scripts and files: their control characters are shown, not sent.
            anstream::eprintln!(
                "{} {}",
                output::paint(output::FAIL, "error:"),
                rally::text::clean(&e.to_string())
            );
            if let Some(snippet) = rally::snippet::of(&e, true) {
                anstream::eprintln!("{snippet}");
            }
            ExitCode::from(2)
        }
    }
}
