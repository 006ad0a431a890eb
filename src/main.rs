//! The `rally` command line. Parsing only: every command is implemented in `rally::commands`.

use clap::{CommandFactory, Parser, Subcommand};
use rally::commands::{self, render::RenderOptions, run::RunOptions, Common};
use std::path::PathBuf;
use std::process::ExitCode;

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
    #[arg(long = "variant", global = true, value_name = "NAME")]
    variant: Vec<String>,
    /// More log output (-v info, -vv debug, -vvv trace)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    /// Only errors
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Resolve a scenario: the board before and after, the event log, the expectations
    Run {
        /// The scenario file (.toml)
        #[arg(required_unless_present = "replay")]
        scenario: Option<PathBuf>,
        /// Print only the final state as JSON
        #[arg(long)]
        json: bool,
        /// Resolve it N times in-process and print the median time per resolution
        #[arg(long, value_name = "N")]
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
    /// Run every scenario with an [expect] table under the paths; ends with `N passed, M failed`
    Test {
        /// Scenario files or folders (searched recursively) [default: tests/scenarios]
        paths: Vec<PathBuf>,
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
    },
    /// Write a self-contained HTML page that plays a replay log, a scenario or a whole game register by register
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
    Elements,
    /// List the variants, with parameters
    Variants,
    /// Write Tiled's Custom Types (JSON) for every element and its parameters: import it in Tiled's Custom Types Editor, then pick parameters from dropdowns (e.g. `rally tiled-types -o rally-types.json`)
    TiledTypes {
        /// Where to write them [default: standard output]
        #[arg(short, long, value_name = "FILE.json")]
        output: Option<PathBuf>,
    },
    /// List the option cards the scripts define, with ammunition and descriptions
    Options,
    /// Play a whole game: people at this terminal and bots (see docs/games.md)
    Play {
        /// The game file (.toml) [not needed with --resume]
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
    },
    /// Serve a playtest table in the browser: a link per seat, bots in empty seats, hot reload for everyone
    ///
    /// Prints one link per seat, a spectators' link and a host link for each game, and serves
    /// them until Ctrl-C. Each player opens their seat's link; the game starts when every
    /// person's seat is taken (or the host presses Start: bots play the empty seats).
    /// Games are saved after every register to SAVES/TABLE.save.json, with the links' tokens
    /// beside it; `--resume` brings a table back and the same links work again.
    ///
    /// By default only this computer can connect (127.0.0.1): `--host 0.0.0.0` lets others
    /// on your network in, at this computer's address.
    ///
    /// Examples:
    ///   rally serve games/practice.toml
    ///   rally serve games/practice.toml games/practice.toml --host 0.0.0.0 --port 8000
    ///   rally serve --resume saves/practice.save.json
    #[command(verbatim_doc_comment)]
    Serve {
        /// Game files (.toml); each becomes a table
        #[arg(required_unless_present = "resume")]
        games: Vec<PathBuf>,
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
        #[arg(long, value_name = "SECS", default_value_t = 0)]
        timer: u64,
        /// Seconds an absent player's seat waits before a bot decides for it (0: it waits)
        #[arg(long, value_name = "SECS", default_value_t = 0)]
        bot_after: u64,
        /// Seconds a player has to answer a question before its default is taken
        #[arg(long, value_name = "SECS", default_value_t = 30)]
        choice_timeout: u64,
        /// Do not watch the rule files (no hot reload)
        #[arg(long)]
        no_reload: bool,
    },
    /// Play bot-only games of a game file on every core and summarise them for balancing
    Sim {
        /// The game file (.toml); people at the terminal are replaced by bots
        game: PathBuf,
        /// How many games (per column)
        #[arg(long, default_value_t = 1000)]
        games: u32,
        /// A second column with these variants (comma-separated) on top of the file's
        #[arg(long, value_name = "V,W")]
        compare: Option<String>,
        /// Worker threads [default: one per core]
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
    },
}

fn main() -> ExitCode {
    // Die quietly when the reader of our output goes away (`rally elements | head`).
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let level = match (cli.quiet, cli.verbose) {
        (true, _) => "error",
        (_, 0) => "warn",
        (_, 1) => "info",
        (_, 2) => "debug",
        _ => "trace",
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("RALLY_LOG")
                .unwrap_or_else(|_| level.into()),
        )
        .with_writer(std::io::stderr)
        .without_time()
        .init();
    if let Some(mapping) = cli.tiled_mapping {
        rally::tiled::use_mapping(mapping);
    }
    let common = Common {
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
        Command::Test { paths } => commands::test::test(paths, &common),
        Command::Render {
            file,
            output,
            after,
        } => commands::render::render(
            file,
            &RenderOptions {
                output: output
                    .clone()
                    .unwrap_or_else(|| commands::render::default_output(file)),
                after: *after,
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
            commands::completions::completions(*shell, &mut Cli::command()).map(|_| true)
        }
        Command::Man => commands::completions::man(Cli::command()).map(|_| true),
        Command::Elements => commands::catalogue::elements(&common).map(|_| true),
        Command::Variants => commands::catalogue::variants(&common).map(|_| true),
        Command::TiledTypes { output } => {
            commands::catalogue::tiled_types(output.as_deref(), &common).map(|_| true)
        }
        Command::Options => commands::catalogue::options(&common).map(|_| true),
        Command::Play {
            game,
            fast,
            resume,
            save,
        } => commands::play::play(
            game.as_deref(),
            &commands::play::PlayOptions {
                fast: *fast,
                resume: resume.clone(),
                save: save.clone(),
            },
            &common,
        ),
        Command::Serve {
            games,
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
                settings: rally::table::protocol::Settings {
                    bot_after: *bot_after,
                    choice_timeout: (*choice_timeout).max(1),
                    timer: *timer,
                },
                reload: !no_reload,
            },
            &common,
        ),
        Command::Sim {
            game,
            games,
            compare,
            threads,
        } => commands::sim::sim(
            game,
            &commands::sim::SimOptions {
                games: *games,
                compare: compare.clone(),
                threads: *threads,
            },
            &common,
        ),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
