//! `rally types`: the scripting API's LuaLS annotations, the same file the binary carries
//! (scripts/types/rally.lua), for editors (`-o DIR` writes DIR/rally.lua); or, with
//! `--markdown FILE`, the API reference generated from them (docs/api.md, `reference.rs`).

use crate::error::{Error, Result};
use crate::script::reference::{self, ANNOTATIONS};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Write the scripting API's annotations for editors (lua-language-server), or the API reference
#[derive(clap::Args)]
pub struct Args {
    /// Write rally.lua into this folder (created if needed) [default: standard output]
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Write the API reference (Markdown, docs/api.md) to FILE instead (- for standard output)
    #[arg(long, value_name = "FILE", conflicts_with = "output")]
    markdown: Option<PathBuf>,
}

impl Args {
    pub fn exec(&self) -> Result<bool> {
        types(self.output.as_deref(), self.markdown.as_deref()).map(|()| true)
    }
}

fn types(output: Option<&Path>, markdown: Option<&Path>) -> Result<()> {
    if let Some(file) = markdown {
        let api = reference::parse(ANNOTATIONS).map_err(Error::Other)?;
        return write(file, &reference::markdown(&api));
    }
    match output {
        None => write(Path::new("-"), ANNOTATIONS),
        Some(dir) => write_annotations(dir),
    }
}

/// Writes `DIR/rally.lua`, creating the folder.
pub fn write_annotations(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::File {
        file: dir.to_path_buf(),
        message: format!("cannot create the folder: {e}"),
    })?;
    write(&dir.join("rally.lua"), ANNOTATIONS)
}

/// Writes `text` to `file`, or to standard output for `-`.
fn write(file: &Path, text: &str) -> Result<()> {
    if file == Path::new("-") {
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
        return Ok(());
    }
    super::output::write_file(file, text.as_bytes())
}
