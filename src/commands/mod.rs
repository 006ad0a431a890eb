//! The `rally` commands: the command line's global options (`Cli`), one module per
//! command, each with its clap `Args` (the command's flags, help and examples live there)
//! and its `exec`, and what they share: `output` (colour, `-q`), `help` (examples,
//! environment, exit statuses), `completions`. `main.rs` only parses and dispatches.

mod bench;
mod catalogue;
mod check;
pub mod completions;
mod elements;
mod help;
mod man;
mod new;
mod options;
pub mod output;
mod play;
mod render;
pub mod replay;
mod run;
mod serve;
mod sim;
mod step;
mod test;
mod tiled_types;
mod types;
mod variants;
mod watch;

use crate::error::Result;
use crate::script::RuleFolders;
use clap::{CommandFactory, Parser, Subcommand};
use clap_complete::ArgValueCompleter;
use completions::variant_names;
use std::path::PathBuf;
use std::process::ExitCode;

/// rally: a RoboRally rules engine whose board elements and house rules are Lua plugins.
///
/// Scenarios place robots with programs on a board and resolve registers; `rally test` checks
/// their expectations. Board elements live in scripts/elements/*.lua, house rules in
/// variants/NAME/. See docs/formats.md for the file formats and docs/scripting.md for the scripting API.
#[derive(Parser)]
#[command(name = "rally", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The project's own elements/, rules/ and options/, layered on the built-in ones [default: the project's scripts/]
    #[arg(long, global = true, value_name = "DIR")]
    scripts: Option<PathBuf>,
    /// The project's own variants, one folder each, beside the built-in ones [default: the project's variants/]
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

/// The commands, in the order `rally --help` lists them.
#[derive(Subcommand)]
enum Command {
    Run(run::Args),
    Watch(watch::Args),
    Step(step::Args),
    Bench(bench::Args),
    Test(test::Args),
    Check(check::Args),
    Render(render::Args),
    Replay(replay::Args),
    Completions(completions::Args),
    Man(man::Args),
    Elements(elements::Args),
    Variants(variants::Args),
    TiledTypes(tiled_types::Args),
    Options(options::Args),
    Types(types::Args),
    New(new::Args),
    Play(play::Args),
    Serve(serve::Args),
    // Boxed: its arguments are many times the size of the others.
    Sim(Box<sim::Args>),
}

/// The command line as clap sees it, with the examples, environment and exit statuses
/// added to the help (`help::decorate`): what is parsed, completed and shown by `rally man`.
pub fn cli() -> clap::Command {
    help::decorate(Cli::command())
}

impl Cli {
    /// Applies the global options, runs the command and says how it went: exit status 0, 1
    /// when it ran but something failed (an expectation, a check), 2 on an error, which is
    /// printed with the file's lines it points at.
    pub fn exec(self) -> ExitCode {
        output::set_color(self.color);
        output::set_quiet(self.quiet);
        init_logging(self.quiet, self.verbose);
        if let Some(mapping) = self.tiled_mapping {
            crate::board::tiled::use_mapping(mapping);
        }
        if !self.limit.is_empty() {
            let mut limits = crate::script::sandbox::Limits::default();
            let set = self.limit.iter().try_for_each(|spec| limits.set(spec));
            if let Err(e) = set.and_then(|()| limits.install()) {
                anstream::eprintln!("{} {e}", output::paint(output::FAIL, "error:"));
                return ExitCode::from(2);
            }
        }
        let folders = RuleFolders {
            scripts: self.scripts,
            variants: self.variants,
            extra_variants: self.variant,
            announce: Some(output::note_once),
        };
        match self.command.exec(&folders) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                output::print_error(&e);
                ExitCode::from(2)
            }
        }
    }
}

impl Command {
    /// Runs the command; `Ok(false)`: it ran, but something failed (exit status 1).
    fn exec(&self, folders: &RuleFolders) -> Result<bool> {
        match self {
            Command::Run(args) => args.exec(folders),
            Command::Watch(args) => args.exec(folders),
            Command::Step(args) => args.exec(folders),
            Command::Bench(args) => args.exec(folders),
            Command::Test(args) => args.exec(folders),
            Command::Check(args) => args.exec(folders),
            Command::Render(args) => args.exec(folders),
            Command::Replay(args) => args.exec(folders),
            Command::Completions(args) => args.exec(),
            Command::Man(args) => args.exec(),
            Command::Elements(args) => args.exec(folders),
            Command::Variants(args) => args.exec(folders),
            Command::TiledTypes(args) => args.exec(folders),
            Command::Options(args) => args.exec(folders),
            Command::Types(args) => args.exec(),
            Command::New(args) => args.exec(),
            Command::Play(args) => args.exec(folders),
            Command::Serve(args) => args.exec(folders),
            Command::Sim(args) => args.exec(folders),
        }
    }
}

/// The error of a command, or an output, whose cargo feature this build left out.
#[cfg(any(not(feature = "serve"), not(feature = "png")))]
fn not_in_this_build(feature: &str, what: &str) -> crate::error::Error {
    crate::error::Error::Other(format!(
        "this rally was built without the `{feature}` feature, so it cannot {what}; build one \
         with `cargo build --release` (the default features) or `--features {feature}`"
    ))
}

/// Logs go to stderr: -v/-q decide the level; without them RALLY_LOG, else RUST_LOG, else
/// warnings only.
fn init_logging(quiet: bool, verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let level = match (quiet, verbose) {
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
