//! Where the rules for a file come from when the command line does not say: the project the
//! file belongs to (the nearest folder, beside it or above it, with a `rally.toml`, a
//! `scripts/` or a `variants/`, else the current folder), layered on the built-in standard
//! game ([`super::layers`]), and the variants switched on from the command line.

use super::layers::{self, Layer, Offered, Project};
use super::variant::Variant;
use super::{RuleSet, Sources};
use crate::error::Result;
use std::path::{Path, PathBuf};

/// Where a command's rules come from, as its command line says: the project layer's
/// `scripts` and `variants` folders (`--scripts`, `--variants`; the project's own when not
/// given), the variants switched on with `--variant`, and where to say what a layer
/// replaces.
#[derive(Clone, Debug, Default)]
pub struct RuleFolders {
    pub scripts: Option<PathBuf>,
    pub variants: Option<PathBuf>,
    pub extra_variants: Vec<String>,
    /// Told each notice of a rule set loaded through [`RuleFolders::load`] (a layer
    /// replacing a name); the commands print each once.
    pub announce: Option<fn(&str)>,
}

impl RuleFolders {
    /// The project the rules of `file` come from (`find_root`), with the folders the
    /// command line names.
    pub fn project(&self, file: Option<&Path>) -> Project {
        Project {
            root: find_root(file),
            scripts: self.scripts.clone(),
            variants: self.variants.clone(),
        }
    }

    /// The project's rules with the given variants (and those of `--variant`).
    pub fn sources(&self, file: Option<&Path>, choices: &[super::variant::Choice]) -> Sources {
        Sources {
            project: self.project(file),
            choices: super::variant::with_extra(choices, &self.extra_variants),
        }
    }

    /// Loads the layered rules plus the given variants (and those of `--variant`).
    pub fn rules(
        &self,
        file: Option<&Path>,
        choices: Vec<super::variant::Choice>,
    ) -> Result<RuleSet> {
        self.load(&self.sources(file, &choices))
    }

    /// Loads `sources`, telling [`RuleFolders::announce`] what its layers replace.
    pub fn load(&self, sources: &Sources) -> Result<RuleSet> {
        let rules = RuleSet::load(sources)?;
        if let Some(announce) = self.announce {
            for notice in rules.notices() {
                announce(&notice);
            }
        }
        Ok(rules)
    }

    /// The layers of the project of `file`, and every variant they offer (the top one of
    /// each name), loaded, sorted by name.
    pub fn variants(&self, file: Option<&Path>) -> Result<(Vec<Layer>, Offers)> {
        let layers = self.project(file).layers()?;
        let mut found = Vec::new();
        for offered in layers::offered_variants(&layers)? {
            let mut variant = Variant::load(&offered.dir)?;
            variant.layer = offered.layer;
            found.push((offered, variant));
        }
        Ok((layers, found))
    }
}

/// Every variant the layers offer, loaded: what `rally variants` lists.
pub type Offers = Vec<(Offered, Variant)>;

/// The root of the project `file` belongs to: the folder beside it, else the nearest folder
/// above it (as Cargo finds Cargo.toml), else the current folder, that has a `rally.toml`, or
/// a `scripts/` or `variants/` holding rules (so an unrelated `~/scripts` is passed over).
/// The search upward stops below a folder anyone may write to (such as `/tmp`), where
/// someone else could have planted rules. `None`: no project, the built-in rules alone.
fn find_root(file: Option<&Path>) -> Option<PathBuf> {
    let is_root = |dir: &Path| -> bool {
        dir.join(super::manifest::FILE).exists()
            || layers::holds_scripts(&dir.join("scripts"))
            || layers::holds_variants(&dir.join("variants"))
    };
    if let Some(beside) = file.and_then(Path::parent) {
        if is_root(beside) {
            return Some(beside.to_path_buf());
        }
        // `s.toml` has the folder "": the current one.
        let beside = if beside.as_os_str().is_empty() {
            Path::new(".")
        } else {
            beside
        };
        let start = beside
            .canonicalize()
            .or_else(|_| std::path::absolute(beside));
        if let Ok(start) = start {
            for dir in start.ancestors().skip(1) {
                if shared(dir) {
                    break;
                }
                if is_root(dir) {
                    return Some(dir.to_path_buf());
                }
            }
        }
    }
    is_root(Path::new("")).then(PathBuf::new)
}

/// A folder every user may write to (`/tmp`): nothing found there or above is trusted.
fn shared(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        dir.metadata()
            .is_ok_and(|m| m.permissions().mode() & 0o002 != 0)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}
