//! The `rally` command line. Parsing only: every command is implemented in `rally::commands`.

use clap::{Parser, Subcommand};
use rally::commands::{self, run::RunOptions, Common};
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
        scenario: PathBuf,
        /// Print only the final state as JSON
        #[arg(long)]
        json: bool,
        /// Resolve it N times in-process and print the median time per resolution
        #[arg(long, value_name = "N")]
        repeat: Option<u32>,
    },
    /// Run every scenario with an [expect] table under the paths; ends with `N passed, M failed`
    Test {
        /// Scenario files or folders (searched recursively) [default: tests/scenarios]
        paths: Vec<PathBuf>,
    },
    /// List the board elements the scripts define, with parameters, and the order of play
    Elements,
    /// List the variants, with parameters
    Variants,
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
    let common = Common {
        scripts: cli.scripts,
        variants: cli.variants,
        extra_variants: cli.variant,
    };
    let result = match &cli.command {
        Command::Run {
            scenario,
            json,
            repeat,
        } => commands::run::run(
            scenario,
            &RunOptions {
                json: *json,
                repeat: *repeat,
            },
            &common,
        ),
        Command::Test { paths } => commands::test::test(paths, &common),
        Command::Elements => commands::catalogue::elements(&common).map(|_| true),
        Command::Variants => commands::catalogue::variants(&common).map(|_| true),
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
