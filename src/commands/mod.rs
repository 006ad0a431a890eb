//! The `rally` commands. `main.rs` only parses the command line; each command lives here,
//! one module each, on top of the library.

pub mod catalogue;
pub mod completions;
pub mod play;
pub mod render;
pub mod run;
pub mod serve;
pub mod sim;
pub mod test;
pub mod viewer;
pub mod watch;

use crate::error::{Error, Result};
use crate::script::{RuleSet, Sources};
use std::path::{Path, PathBuf};

/// Options every command shares.
#[derive(Clone, Debug, Default)]
pub struct Common {
    pub scripts: Option<PathBuf>,
    pub variants: Option<PathBuf>,
    pub extra_variants: Vec<String>,
}

impl Common {
    /// The scripts and variants folders: as given, else beside `file`, else the current
    /// folder's, else the copies built into the binary.
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
        choices: Vec<crate::variant::Choice>,
    ) -> Result<RuleSet> {
        let (scripts, variants) = self.folders(file)?;
        RuleSet::load(&Sources {
            scripts,
            variants,
            choices: crate::variant::with_extra(&choices, &self.extra_variants),
        })
    }
}

fn find_folder(name: &str, beside: Option<&Path>) -> Result<PathBuf> {
    if let Some(dir) = beside.and_then(Path::parent) {
        let candidate = dir.join(name);
        if candidate.is_dir() {
            return Ok(candidate);
        }
    }
    let here = PathBuf::from(name);
    if here.is_dir() {
        return Ok(here);
    }
    crate::builtin::extract(name)
        .map_err(|e| Error::Other(format!("cannot unpack the built-in {name}: {e}")))
}
