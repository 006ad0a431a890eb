//! Where the rules for a file come from when the command line does not say: the `scripts`
//! and `variants` folders beside the file or above it, else in the current folder, else
//! built in, and the variants switched on from the command line.

use super::{RuleSet, Sources};
use crate::error::Result;
use std::path::{Path, PathBuf};

/// Where a command's rules come from, as its command line says: the `scripts` and `variants`
/// folders (`--scripts`, `--variants`; found from the file when not given) and the variants
/// switched on with `--variant`.
#[derive(Clone, Debug, Default)]
pub struct RuleFolders {
    pub scripts: Option<PathBuf>,
    pub variants: Option<PathBuf>,
    pub extra_variants: Vec<String>,
}

impl RuleFolders {
    /// The scripts and variants folders: as given, else found from `file` (`find_folder`).
    pub fn folders(&self, file: Option<&Path>) -> Result<(PathBuf, PathBuf)> {
        let scripts = match &self.scripts {
            Some(dir) => dir.clone(),
            None => find_folder("scripts", file)?,
        };
        let variants = match &self.variants {
            Some(dir) => dir.clone(),
            None => find_folder("variants", file)?,
        };
        Ok((scripts, variants))
    }

    /// Loads the standard rules plus the given variants (and those of `--variant`).
    pub fn rules(
        &self,
        file: Option<&Path>,
        choices: Vec<super::variant::Choice>,
    ) -> Result<RuleSet> {
        let (scripts, variants) = self.folders(file)?;
        RuleSet::load(&Sources {
            scripts,
            variants,
            choices: super::variant::with_extra(&choices, &self.extra_variants),
        })
    }
}

/// Where the `scripts` or `variants` folder is when none is given: beside `file`, else in
/// the nearest folder above it (as Cargo finds Cargo.toml), else in the current folder, else
/// built in. Only a folder that holds rules counts (`scripts/` with `elements/`, `rules/`
/// or `options/`; `variants/` with a `*/variant.toml`), so an unrelated `~/scripts` is
/// passed over. The search upward stops below a folder anyone may write to (such as `/tmp`),
/// where someone else could have planted scripts.
fn find_folder(name: &str, file: Option<&Path>) -> Result<PathBuf> {
    let holds_rules = |dir: &Path| -> bool {
        let candidate = dir.join(name);
        match name {
            "scripts" => ["elements", "rules", "options"]
                .iter()
                .any(|sub| candidate.join(sub).is_dir()),
            _ => crate::files::list(&candidate)
                .iter()
                .any(|v| v.join("variant.toml").exists()),
        }
    };
    if let Some(beside) = file.and_then(Path::parent) {
        if holds_rules(beside) {
            return Ok(beside.join(name));
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
                if holds_rules(dir) {
                    return Ok(dir.join(name));
                }
            }
        }
    }
    if holds_rules(Path::new("")) {
        return Ok(PathBuf::from(name));
    }
    Ok(crate::files::builtin::folder(name))
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
