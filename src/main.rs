//! The `rally` command line: parses it and hands it to the command it names. The commands,
//! their flags and what they do are in `rally::commands`.

use clap::FromArgMatches;
use rally::commands::{self, output, Cli};
use std::process::ExitCode;

/// Allocation is a large part of resolving a turn (events, Lua tables and strings): mimalloc
/// serves small blocks several times faster than the system allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Die quietly when the reader of our output goes away (`rally elements | head`).
    #[cfg(unix)]
    #[allow(unsafe_code)]
    // SAFETY: at the start of main, before any thread exists, restoring a signal's default
    // action affects nothing else.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // The shell asking for completions (`rally completions SHELL` installs the script).
    clap_complete::CompleteEnv::with_factory(commands::cli)
        .var(commands::completions::COMPLETE_VAR)
        .complete();
    // `--help` and usage errors obey `--color` too, so it is looked for before parsing.
    let color = output::color_arg();
    output::set_color(color);
    let cli = Cli::from_arg_matches(&commands::cli().color(color).get_matches())
        .unwrap_or_else(|e| e.exit());
    cli.exec()
}
