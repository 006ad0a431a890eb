//! `rally completions SHELL` and `rally man`: shell completions and man pages, both from the
//! same clap definition the command line is parsed with, so they can never fall out of step
//! with it. `main.rs` owns that definition and passes it in.
//!
//! Completions are dynamic (clap_complete's `COMPLETE=SHELL rally` protocol, as cargo's):
//! the script `rally completions SHELL` prints asks `rally` itself for candidates while the
//! user types, so element and variant names come from the folder the shell is in (its
//! `scripts/` and `variants/`, else the built-in ones), as they are at that moment.

use super::help::{examples, ENVIRONMENT, EXIT_STATUS};
use crate::error::{Error, Result};
use crate::script::RuleFolders;
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::Shells;
use clap_mangen::roff::{bold, roman, Roff};
use std::ffi::OsStr;
use std::io::Write;

/// The environment variable the completion scripts set to ask for completions.
pub const COMPLETE_VAR: &str = "COMPLETE";

/// Writes the completion script for `shell` to standard output.
pub fn completions(shell: clap_complete::Shell, cli: &clap::Command) -> Result<()> {
    let name = cli.get_name();
    let shell = shell.to_string();
    let shells = Shells::builtins();
    let completer = shells
        .completer(&shell)
        .ok_or_else(|| Error::Other(format!("no completions for {shell}")))?;
    let mut out = std::io::stdout().lock();
    completer
        .write_registration(COMPLETE_VAR, name, name, name, &mut out)
        .map_err(|e| Error::Other(format!("cannot write the completion script: {e}")))
}

/// Candidates for an argument that takes names from the scripts folder of the current
/// folder (or the built-in scripts): element or option names.
fn script_names(
    current: &OsStr,
    names: impl Fn(&crate::script::RuleSet) -> Vec<String>,
) -> Vec<CompletionCandidate> {
    let prefix = current.to_string_lossy();
    let Ok(rules) = RuleFolders::default().rules(None, Vec::new()) else {
        return Vec::new();
    };
    names(&rules)
        .into_iter()
        .filter(|n| n.starts_with(prefix.as_ref()))
        .map(CompletionCandidate::new)
        .collect()
}

/// Element names, for `rally elements NAME`.
pub fn element_names(current: &OsStr) -> Vec<CompletionCandidate> {
    script_names(current, |rules| {
        rules.elements.iter().map(|e| e.name.clone()).collect()
    })
}

/// Option card names, for `rally options NAME`.
pub fn option_names(current: &OsStr) -> Vec<CompletionCandidate> {
    script_names(current, |rules| {
        rules.options.iter().map(|o| o.name.clone()).collect()
    })
}

/// Variant names, for `--variant` and `rally variants NAME`.
pub fn variant_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let prefix = current.to_string_lossy();
    let Ok((_, dir)) = RuleFolders::default().folders(None) else {
        return Vec::new();
    };
    crate::script::variant::Variant::discover(&dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|v| v.name.starts_with(prefix.as_ref()))
        .map(|v| CompletionCandidate::new(v.name).help(Some(v.description.into())))
        .collect()
}

/// Writes the man page (roff) of the command and of each subcommand to standard output:
/// the sections clap_mangen makes, then EXAMPLES, ENVIRONMENT and EXIT STATUS.
pub fn man(cli: clap::Command) -> Result<()> {
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
