//! `rally completions SHELL`: shell completions, from the same clap definition the command
//! line is parsed with ([`super::cli`]), so they can never fall out of step with it.
//!
//! Completions are dynamic (clap_complete's `COMPLETE=SHELL rally` protocol, as cargo's):
//! the script `rally completions SHELL` prints asks `rally` itself for candidates while the
//! user types, so element and variant names come from the folder the shell is in (its
//! `scripts/` and `variants/`, else the built-in ones), as they are at that moment.

use crate::error::{Error, Result};
use crate::script::RuleFolders;
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::Shells;
use std::ffi::OsStr;

/// The environment variable the completion scripts set to ask for completions.
pub const COMPLETE_VAR: &str = "COMPLETE";

/// Print the completion script for a shell (e.g. `rally completions bash > /etc/bash_completion.d/rally`)
#[derive(clap::Args)]
pub struct Args {
    /// bash, zsh, fish, elvish or powershell
    shell: clap_complete::Shell,
}

impl Args {
    pub fn exec(&self) -> Result<bool> {
        completions(self.shell, &super::cli()).map(|()| true)
    }
}

/// Writes the completion script for `shell` to standard output.
fn completions(shell: clap_complete::Shell, cli: &clap::Command) -> Result<()> {
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

/// Candidates for an argument that takes names from the rules of the current folder's
/// project (layered on the built-in ones): element or option names.
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
    let Ok((_, variants)) = RuleFolders::default().variants(None) else {
        return Vec::new();
    };
    variants
        .into_iter()
        .map(|(_, v)| v)
        .filter(|v| v.name.starts_with(prefix.as_ref()))
        .map(|v| CompletionCandidate::new(v.name).help(Some(v.description.into())))
        .collect()
}
