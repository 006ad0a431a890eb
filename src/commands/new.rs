//! `rally new element|variant|scenario NAME`: a commented stub that works as it is, and a
//! scenario that exercises it, so `rally test` passes straight away and the designer edits
//! something that runs. The stubs are the files in `new/`.
//!
//! A folder that is not a project yet is first set up as one: a `rally.toml` saying which
//! rally it was made with, the API annotations (`scripts/types/rally.lua`, as `rally types`
//! writes them) and a `.luarc.json` pointing lua-language-server at them. Nothing of the
//! standard rules is copied: the project is layered on them (docs/packs.md), so it gets every
//! later fix of rally's own. Nothing is ever overwritten.

use super::output::note;
use crate::error::{Error, Result};
use crate::script::layers::{self, Project};
use crate::script::{RuleSet, Sources};
use std::path::{Path, PathBuf};

/// Start a new element, variant or scenario from a commented stub that works, with a scenario testing it
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
    /// The project folder: scripts/, variants/ and tests/scenarios/ go here; a folder that is not a project yet is set up first
    #[arg(long, global = true, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

impl Args {
    pub fn exec(&self) -> Result<bool> {
        new(&self.what, &self.dir).map(|()| true)
    }
}

/// What `rally new` makes.
#[derive(clap::Subcommand)]
enum What {
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

const LUA_KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
];

/// The editor configuration a new project gets: the repository's own.
const LUARC: &str = include_str!("../../.luarc.json");

fn new(what: &What, dir: &Path) -> Result<()> {
    check_name(what)?;
    // Paths as the person typed them: `scripts/...` in the current folder, not `./scripts/...`.
    let dir = if dir == Path::new(".") {
        Path::new("")
    } else {
        dir
    };
    let scenarios = dir.join("tests").join("scenarios");
    let files: Vec<(PathBuf, String)> = match what {
        What::Element { name } => {
            let glyph: String = name
                .chars()
                .take(2)
                .enumerate()
                .map(|(i, c)| if i == 0 { c.to_ascii_uppercase() } else { c })
                .collect();
            let fill = |t: &str| t.replace("{{name}}", name).replace("{{glyph}}", &glyph);
            vec![
                (
                    dir.join("scripts/elements").join(format!("{name}.lua")),
                    fill(include_str!("new/element.lua")),
                ),
                (
                    scenarios.join(format!("{name}.toml")),
                    fill(include_str!("new/element.toml")),
                ),
            ]
        }
        What::Variant { name } => {
            let rule = name.replace('-', "_");
            let fill = |t: &str| t.replace("{{name}}", name).replace("{{rule}}", &rule);
            let folder = dir.join("variants").join(name);
            vec![
                (
                    folder.join("variant.toml"),
                    fill(include_str!("new/variant.toml")),
                ),
                (
                    folder.join(format!("{rule}.lua")),
                    fill(include_str!("new/variant.lua")),
                ),
                (
                    scenarios.join(format!("{name}.toml")),
                    fill(include_str!("new/variant_scenario.toml")),
                ),
            ]
        }
        What::Scenario { name } => vec![(
            scenarios.join(format!("{name}.toml")),
            include_str!("new/scenario.toml").replace("{{name}}", name),
        )],
    };
    for (file, _) in &files {
        if file.exists() {
            return Err(Error::File {
                file: file.clone(),
                message: "already exists; `rally new` never overwrites a file (choose another name, or remove it)".into(),
            });
        }
    }
    let fresh = !is_project(dir);
    let here = if dir.as_os_str().is_empty() {
        "this folder".to_string()
    } else {
        dir.display().to_string()
    };
    check_clash(what, dir)?;

    if fresh {
        let manifest = dir.join(crate::script::manifest::FILE);
        write(
            &manifest,
            &include_str!("new/rally.toml").replace("{{version}}", env!("CARGO_PKG_VERSION")),
        )?;
        note(format!(
            "set up {here} as a rally project, layered on the standard game (docs/packs.md): created {}",
            manifest.display()
        ));
        let types = dir.join("scripts/types/rally.lua");
        if !types.exists() {
            write(&types, crate::script::reference::ANNOTATIONS)?;
        }
        let luarc = dir.join(".luarc.json");
        if !luarc.exists() {
            write(&luarc, LUARC)?;
        }
        note(format!(
            "editor support: {} points lua-language-server at {} (`rally types -o {}` refreshes it for a newer rally)",
            luarc.display(),
            types.display(),
            dir.join("scripts/types").display()
        ));
    }
    for (file, text) in &files {
        write(file, text)?;
        note(format!("created {}", file.display()));
    }
    let scenario = &files.last().expect("a scenario is always made").0;
    note(format!(
        "next: `rally test` in {here} runs it; `rally watch {}` re-runs it on every save",
        scenario.strip_prefix(dir).unwrap_or(scenario).display()
    ));
    Ok(())
}

fn check_name(what: &What) -> Result<()> {
    let (kind, name, ok, rule) = match what {
        What::Element { name: n } => (
            "element",
            n,
            is_identifier(n) && !LUA_KEYWORDS.contains(&n.as_str()),
            "letters, digits and _, not starting with a digit, and not a Lua keyword (scripts write `rally.elements.NAME`)",
        ),
        What::Variant { name: n } => (
            "variant",
            n,
            is_file_name(n),
            "letters, digits, - and _, starting with a letter or digit (it is a folder name)",
        ),
        What::Scenario { name: n } => (
            "scenario",
            n,
            is_file_name(n),
            "letters, digits, - and _, starting with a letter or digit (it is a file name, without .toml)",
        ),
    };
    if ok && name.len() <= 64 {
        return Ok(());
    }
    let suggestion: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let suggestion = suggestion.trim_matches('_');
    let hint = match what {
        What::Element { .. }
            if suggestion != name
                && is_identifier(suggestion)
                && !LUA_KEYWORDS.contains(&suggestion) =>
        {
            format!(", e.g. `{suggestion}`")
        }
        _ => String::new(),
    };
    Err(Error::Other(format!(
        "`{name}` is not a valid {kind} name: use {rule}, at most 64 characters{hint}"
    )))
}

/// Whether the folder is a project already, as rally finds them: a `rally.toml`, or rules
/// of its own (`scripts/` with elements/, rules/ or options/, `variants/` with a variant).
fn is_project(dir: &Path) -> bool {
    dir.join(crate::script::manifest::FILE).exists()
        || layers::holds_scripts(&dir.join("scripts"))
        || layers::holds_variants(&dir.join("variants"))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_file_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A new element or variant must not take a name the project's layers already have: the
/// stub would replace the element of that name (or the rule set would refuse to load).
fn check_clash(what: &What, dir: &Path) -> Result<()> {
    let project = Project {
        root: Some(dir.to_path_buf()),
        ..Project::default()
    };
    match what {
        What::Element { name } => {
            let sources = Sources {
                project,
                choices: Vec::new(),
            };
            // A project whose scripts do not load now is not this command's business.
            if let Some(found) = RuleSet::load(&sources).ok().and_then(|rules| {
                let e = rules.elements.iter().find(|e| &e.name == name)?;
                Some(format!("{}: {}", rules.layers[e.layer], e.file))
            }) {
                return Err(Error::Other(format!(
                    "there is already an element `{name}` ({found}); choose another name (a script of the project that declares `{name}` replaces that one: docs/packs.md)"
                )));
            }
        }
        What::Variant { name } => {
            let Ok(layers) = project.layers() else {
                return Ok(());
            };
            let offered = layers::offered_variants(&layers).unwrap_or_default();
            if let Some(o) = offered.iter().find(|o| &o.name == name) {
                return Err(Error::Other(format!(
                    "there is already a variant `{name}` ({}: {}); choose another name",
                    layers[o.layer],
                    crate::files::display_path(&o.dir)
                )));
            }
        }
        What::Scenario { .. } => {}
    }
    Ok(())
}

fn write(file: &Path, text: &str) -> Result<()> {
    let fail = |e: std::io::Error| Error::File {
        file: file.to_path_buf(),
        message: format!("cannot write it: {e}"),
    };
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(fail)?;
    }
    std::fs::write(file, text).map_err(fail)
}
