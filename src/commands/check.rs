//! `rally check [PATH]`: the static pass of `crate::script::check` over every script of a
//! project's layers, each problem printed as an error with its file, line and source line;
//! exit status 1 when there is one. `rally watch` and `rally test` run the same pass first.

use super::output;
use crate::error::{Error, Result};
use crate::script::check;
use crate::script::RuleFolders;
use std::path::{Path, PathBuf};

/// Check every script of a project without running a game: names, declarations, handlers
///
/// Reads every script of the project's layers (the built-in rules, the packs its rally.toml
/// names, its own scripts/ and variants/) and reports, each with its file and line:
/// undeclared globals (and libraries the sandbox leaves out, such as `os`), unknown `rally.`
/// and `ctx:` names with the nearest known one, assignments to globals, unknown
/// declaration keys, hooks and steps, and handlers whose parameters do not match what they
/// are called with. Nothing is run but the scripts' declarations. Exit status 1 when a
/// problem is found. `rally watch` and `rally test` run the same check before resolving.
#[derive(clap::Args)]
pub struct Args {
    /// The project: its folder, or a file in it (a scenario, a script) [default: the current folder]
    path: Option<PathBuf>,
}

impl Args {
    /// Returns whether no problem was found.
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        let path = self.path.clone().unwrap_or_else(|| PathBuf::from("."));
        if !path.exists() {
            return Err(Error::File {
                file: path,
                message: "does not exist: expected a project folder or a file in one".into(),
            });
        }
        let sources = common.sources(Some(&anchor(&path)), &[]);
        let report = check::project(&sources, true)?;
        let problems: Vec<&Error> = report.all().collect();
        for problem in &problems {
            output::print_error(problem);
        }
        let layers = crate::script::layers::describe(&sources.project.layers()?);
        let scripts = plural(report.files.len(), "script");
        if problems.is_empty() {
            println!("{scripts} checked, no problems (layers: {layers})");
        } else {
            anstream::eprintln!(
                "{} in {scripts} (layers: {layers})",
                plural(problems.len(), "problem")
            );
        }
        Ok(problems.is_empty())
    }
}

/// A path the project of `path` is found from: the project search starts beside a file, so
/// a folder is named by a file in it.
fn anchor(path: &Path) -> PathBuf {
    if path == Path::new(".") {
        PathBuf::from(crate::script::manifest::FILE)
    } else if path.is_dir() {
        path.join(crate::script::manifest::FILE)
    } else {
        path.to_path_buf()
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// What `rally test` runs before resolving the scenarios `files`: the check of each of
/// their projects (once per project), above the built-in layer. Problems are printed; a
/// project whose layers or rules do not load is left to its scenarios, which each say why.
/// Returns whether there were none.
pub fn before_running(files: &[PathBuf], common: &RuleFolders) -> bool {
    let mut seen = Vec::new();
    let mut clean = true;
    for file in files {
        let sources = common.sources(Some(file), &[]);
        if seen.contains(&sources.project) {
            continue;
        }
        // A project whose layers cannot be read is left to its scenarios, each of which
        // says why (as without the check).
        let Ok(report) = check::project(&sources, false) else {
            seen.push(sources.project);
            continue;
        };
        for problem in &report.problems {
            output::print_error(problem);
            clean = false;
        }
        seen.push(sources.project);
    }
    clean
}
