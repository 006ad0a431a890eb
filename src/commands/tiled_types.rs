//! `rally tiled-types`: Tiled's Custom Types for every loaded element
//! ([`crate::formats::tiled_types`]), to import in Tiled's Custom Types Editor.

use crate::error::Result;
use crate::script::RuleFolders;
use std::path::{Path, PathBuf};

/// Write Tiled's Custom Types (JSON) for every element and its parameters: import it in Tiled's Custom Types Editor, then pick parameters from dropdowns (e.g. `rally tiled-types -o rally-types.json`)
#[derive(clap::Args)]
pub struct Args {
    /// Where to write them [default: standard output]
    #[arg(short, long, value_name = "FILE.json")]
    output: Option<PathBuf>,
}

impl Args {
    pub fn exec(&self, common: &RuleFolders) -> Result<bool> {
        tiled_types(self.output.as_deref(), common).map(|()| true)
    }
}

fn tiled_types(output: Option<&Path>, common: &RuleFolders) -> Result<()> {
    let rules = common.rules(None, Vec::new())?;
    let text =
        serde_json::to_string_pretty(&crate::formats::tiled_types::custom_types(&rules.elements))
            .map_err(|e| crate::error::Error::Other(e.to_string()))?;
    match output {
        Some(path) => super::output::write_file(path, format!("{text}\n").as_bytes()),
        None => {
            println!("{text}");
            Ok(())
        }
    }
}
