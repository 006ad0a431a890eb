//! `rally.toml`, the optional manifest at the root of a project or a pack: its name and
//! version, the oldest rally it works with, the packs a project layers on the standard game
//! (by path, in order) and, for a total conversion, `base = "none"`. Read through serde with
//! `deny_unknown_fields`, so a misspelt key is an error at its line and column.

use crate::error::{Error, Result};
use crate::files::Source;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The manifest's file name.
pub const FILE: &str = "rally.toml";

/// The most packs one project uses: each is a layer loaded on every build of the rules.
pub const MAX_PACKS: usize = 32;

/// The longest name or version a manifest may give.
const MAX_NAME: usize = 64;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFile {
    name: Option<Spanned<String>>,
    version: Option<Spanned<String>>,
    rally_version: Option<Spanned<String>>,
    packs: Option<Spanned<Vec<Spanned<String>>>>,
    base: Option<Spanned<Base>>,
}

/// What a project is layered on.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Base {
    /// The built-in standard game: elements, rules, options and variants.
    #[default]
    Standard,
    /// Nothing: a total conversion brings every element and rule itself.
    None,
}

/// A manifest as read and checked.
#[derive(Clone, Debug)]
pub struct Manifest {
    pub source: Source,
    pub name: Option<String>,
    pub version: Option<String>,
    pub base: Base,
    /// The packs, as written (relative to the manifest's folder), each with where.
    packs: Vec<Spanned<String>>,
    /// Where `packs` and `base` are written, for the errors of a pack's manifest.
    packs_at: Option<usize>,
    base_at: Option<usize>,
}

/// A pack a project's manifest names: the folder, and where the manifest names it.
pub struct PackEntry {
    pub dir: PathBuf,
    pub written: String,
    pub at: usize,
}

impl Manifest {
    /// Reads `rally.toml` in `root`, if there is one.
    pub fn find(root: &Path) -> Result<Option<Manifest>> {
        let path = root.join(FILE);
        // Anything there is read (and refused if it is not a regular file), not passed over.
        if !crate::files::is_file(&path) && !path.exists() {
            return Ok(None);
        }
        Manifest::read(&path).map(Some)
    }

    pub fn read(path: &Path) -> Result<Manifest> {
        let source = Source::read(path)?;
        let file: ManifestFile = source.parse_toml()?;
        let checked = |value: Option<Spanned<String>>, what: &str, ok: fn(&str) -> bool| {
            value
                .map(|v| {
                    let at = v.span().start;
                    let v = v.into_inner();
                    if ok(&v) && v.len() <= MAX_NAME {
                        Ok(v)
                    } else {
                        Err(source.error_at(at, format!("`{what}`: {}", rule_for(what))))
                    }
                })
                .transpose()
        };
        let name = checked(file.name, "name", is_name)?;
        let version = checked(file.version, "version", is_version_text)?;
        if let Some(needed) = &file.rally_version {
            check_rally_version(&source, needed)?;
        }
        let packs_at = file
            .packs
            .as_ref()
            .filter(|p| !p.get_ref().is_empty())
            .map(|p| p.span().start);
        let packs = file.packs.map(Spanned::into_inner).unwrap_or_default();
        if packs.len() > MAX_PACKS {
            let extra = &packs[MAX_PACKS];
            return Err(source.error_at(
                extra.span().start,
                format!("more than {MAX_PACKS} packs: a project layers at most {MAX_PACKS}"),
            ));
        }
        Ok(Manifest {
            name,
            version,
            base: file.base.as_ref().map_or(Base::Standard, |b| *b.get_ref()),
            base_at: file.base.as_ref().map(|b| b.span().start),
            packs,
            packs_at,
            source,
        })
    }

    pub fn path(&self) -> &Path {
        &self.source.path
    }

    /// The packs a project's manifest names, in its order, each checked: a path relative to
    /// the manifest's folder, to a folder inside the project `root` (after following
    /// symbolic links), named once. Where each is written is kept for later errors.
    pub fn packs(&self, root: &Path) -> Result<Vec<PackEntry>> {
        let folder = self.path().parent().unwrap_or(Path::new(""));
        let inside = canonical(root).map_err(|e| Error::File {
            file: root.to_path_buf(),
            message: format!("cannot find the project's folder: {e}"),
        })?;
        let mut found: Vec<(PathBuf, PackEntry)> = Vec::new();
        for written in &self.packs {
            let at = written.span().start;
            let text = written.get_ref();
            let fail = |message: String| self.source.error_at(at, message);
            let path = Path::new(text);
            if text.is_empty() || path.is_absolute() || path.has_root() {
                return Err(fail(format!(
                    "pack `{text}`: name a pack by its path from this file's folder, such as `packs/doors`"
                )));
            }
            let dir = folder.join(path);
            if !dir.is_dir() {
                return Err(fail(format!(
                    "pack `{text}`: there is no folder {}",
                    dir.display()
                )));
            }
            let real = canonical(&dir).map_err(|e| fail(format!("pack `{text}`: {e}")))?;
            if !real.starts_with(&inside) {
                return Err(fail(format!(
                    "pack `{text}` is outside the project ({}): a project's packs live in its folder, so that it works the same wherever it is copied; copy the pack in, e.g. to packs/{}",
                    match crate::files::display_path(root) {
                        shown if shown.is_empty() => ".".to_string(),
                        shown => shown,
                    },
                    real.file_name().map_or("NAME".into(), |n| n.to_string_lossy())
                )));
            }
            if real == inside {
                return Err(fail(format!(
                    "pack `{text}` is the project itself: its scripts/ and variants/ are loaded as the project layer"
                )));
            }
            if let Some((_, first)) = found.iter().find(|(r, _)| *r == real) {
                return Err(fail(format!(
                    "pack `{text}` is named twice (first as `{}`)",
                    first.written
                )));
            }
            found.push((
                real,
                PackEntry {
                    dir,
                    written: text.clone(),
                    at,
                },
            ));
        }
        Ok(found.into_iter().map(|(_, entry)| entry).collect())
    }

    /// A pack's own manifest says what it is, never what it is layered on: only the project
    /// chooses the packs (packs do not name packs, so there are no chains or cycles to
    /// follow) and the base.
    pub fn check_as_pack(&self) -> Result<()> {
        if let Some(at) = self.packs_at {
            return Err(self.source.error_at(
                at,
                "a pack does not name packs: the project's rally.toml lists every pack it uses, in order",
            ));
        }
        if let Some(at) = self.base_at {
            return Err(self.source.error_at(
                at,
                "a pack does not choose the base: `base` belongs in the project's rally.toml",
            ));
        }
        Ok(())
    }

    /// An error at the place `entry` is written in this manifest.
    pub fn error_at(&self, at: usize, message: String) -> Error {
        self.source.error_at(at, message)
    }
}

/// `dir` with its links followed (the current folder for "").
pub(super) fn canonical(dir: &Path) -> std::io::Result<PathBuf> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    dir.canonicalize()
}

/// A pack's or project's name: as a variant's, so that `pack NAME` reads as one word.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn is_version_text(v: &str) -> bool {
    !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
}

fn rule_for(what: &str) -> String {
    match what {
        "name" => format!(
            "letters, digits, - and _, starting with a letter or digit, at most {MAX_NAME} characters"
        ),
        _ => format!(
            "a version such as \"1.2.0\": letters, digits, ., - and +, at most {MAX_NAME} characters"
        ),
    }
}

/// `MAJOR[.MINOR[.PATCH]]`, the missing parts 0; `None` if it is not that.
fn numbers(version: &str) -> Option<[u64; 3]> {
    // A pre-release or build suffix (`0.2.0-dev`) does not change what it is at least.
    let core = version.split(['-', '+']).next()?;
    let written: Vec<&str> = core.split('.').collect();
    if written.len() > 3 {
        return None;
    }
    let mut parts = [0; 3];
    for (part, text) in parts.iter_mut().zip(&written) {
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *part = text.parse().ok()?;
    }
    Some(parts)
}

/// `rally_version = "0.2"`: the oldest rally the project works with. An older rally refuses
/// it, saying which it is, instead of failing later on something it does not know.
fn check_rally_version(source: &Source, needed: &Spanned<String>) -> Result<()> {
    let at = needed.span().start;
    let text = needed.get_ref();
    let Some(wanted) = numbers(text) else {
        return Err(source.error_at(
            at,
            format!(
                "`rally_version = \"{}\"`: expected the oldest rally version it works with, such as \"0.2\" or \"0.2.1\"",
                crate::text::clean_line(text)
            ),
        ));
    };
    let this = env!("CARGO_PKG_VERSION");
    if numbers(this).is_some_and(|have| have < wanted) {
        return Err(source.error_at(
            at,
            format!("needs rally {text} or later, and this is rally {this}: update rally"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_their_numbers() {
        assert_eq!(numbers("0.2"), Some([0, 2, 0]));
        assert_eq!(numbers("1.10.3"), Some([1, 10, 3]));
        assert_eq!(numbers("0.2.0-dev"), Some([0, 2, 0]));
        assert!(numbers("0.10").unwrap() > numbers("0.9.9").unwrap());
        for bad in ["", "1.", "x", "1.2.3.4", ">=1", "1..2"] {
            assert_eq!(numbers(bad), None, "{bad}");
        }
    }
}
