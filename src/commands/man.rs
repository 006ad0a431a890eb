//! `rally man`: the manual pages of rally and of each command, from the same clap definition
//! the command line is parsed with ([`super::cli`]), with the examples, environment and exit
//! statuses `--help` shows ([`super::help`]).

use super::help::{examples, ENVIRONMENT, EXIT_STATUS};
use crate::error::{Error, Result};
use clap_mangen::roff::{bold, roman, Roff};
use std::io::Write;

/// Print the manual page (roff) of rally and its commands (e.g. `rally man | man -l -`)
#[derive(clap::Args)]
pub struct Args {}

impl Args {
    pub fn exec(&self) -> Result<bool> {
        man(super::cli()).map(|()| true)
    }
}

/// Writes the man page (roff) of the command and of each subcommand to standard output:
/// the sections clap_mangen makes, then EXAMPLES, ENVIRONMENT and EXIT STATUS.
fn man(cli: clap::Command) -> Result<()> {
    let io = |e: std::io::Error| Error::Other(format!("cannot write the man page: {e}"));
    let mut out = std::io::stdout().lock();
    page(&cli, "rally", clap_mangen::Man::new(cli.clone()), &mut out).map_err(io)?;
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        let title = format!("{}-{}", cli.get_name(), sub.get_name());
        writeln!(out).map_err(io)?;
        let man = clap_mangen::Man::new(sub.clone()).title(title);
        page(sub, sub.get_name(), man, &mut out).map_err(io)?;
    }
    Ok(())
}

fn page(
    cmd: &clap::Command,
    name: &str,
    man: clap_mangen::Man,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if cmd.has_subcommands() {
        man.render_subcommands_section(out)?;
    }
    let mut roff = Roff::new();
    for (title, rows) in [
        ("EXAMPLES", examples(name)),
        ("ENVIRONMENT", ENVIRONMENT),
        ("EXIT STATUS", EXIT_STATUS),
    ] {
        if rows.is_empty() {
            continue;
        }
        roff.control("SH", [title]);
        for (first, second) in rows {
            roff.control("TP", []);
            roff.text([bold(*first)]);
            roff.text([roman(*second)]);
        }
    }
    out.write_all(roff.to_roff().as_bytes())?;
    if cmd.get_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
}
