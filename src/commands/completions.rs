//! `rally completions SHELL` and `rally man`: shell completion scripts and a man page, both
//! generated from the same clap definition the command line is parsed with, so they can never
//! fall out of step with it. `main.rs` owns that definition and passes it in.

use crate::error::{Error, Result};
use clap_complete::Shell;
use std::io::Write;

/// Writes the completion script for `shell` to standard output.
pub fn completions(shell: Shell, cli: &mut clap::Command) -> Result<()> {
    let name = cli.get_name().to_string();
    clap_complete::generate(shell, cli, name, &mut std::io::stdout());
    Ok(())
}

/// Writes the man page (roff) of the command and of each subcommand to standard output.
pub fn man(cli: clap::Command) -> Result<()> {
    let io = |e: std::io::Error| Error::Other(format!("cannot write the man page: {e}"));
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(cli.clone())
        .render(&mut out)
        .map_err(io)?;
    for sub in cli.get_subcommands() {
        let title = format!("{}-{}", cli.get_name(), sub.get_name());
        writeln!(out).map_err(io)?;
        clap_mangen::Man::new(sub.clone())
            .title(title)
            .render(&mut out)
            .map_err(io)?;
    }
    Ok(())
}
