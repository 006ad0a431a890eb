//! The standard scripts and variants, built into the binary so that `rally` works from any
//! folder. They are unpacked on first use into a per-version cache folder, because scripts are
//! loaded (and named in messages) as files.

use include_dir::{include_dir, Dir};
use std::path::{Path, PathBuf};

static SCRIPTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/scripts");
static VARIANTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/variants");

fn built_in(name: &str) -> std::io::Result<&'static Dir<'static>> {
    match name {
        "scripts" => Ok(&SCRIPTS),
        "variants" => Ok(&VARIANTS),
        other => Err(std::io::Error::other(format!(
            "nothing built in called {other}"
        ))),
    }
}

/// Writes a copy of `scripts` or `variants` into the folder `target` (`rally new` setting
/// up a project).
pub fn copy_to(name: &str, target: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(target)?;
    built_in(name)?.extract(target)
}

/// Unpacks `scripts` or `variants` and returns its folder.
pub fn extract(name: &str) -> std::io::Result<PathBuf> {
    let dir = built_in(name)?;
    let root = std::env::temp_dir().join(format!("rally-{}-builtin", env!("CARGO_PKG_VERSION")));
    let target = root.join(name);
    // Unpack every time into a fresh folder, then rename: concurrent runs never see half a copy,
    // and a newer build of the same version never runs stale scripts.
    let staging = root.join(format!("{name}.{}", std::process::id()));
    std::fs::create_dir_all(&staging)?;
    dir.extract(&staging)?;
    let _ = std::fs::remove_dir_all(&target);
    if std::fs::rename(&staging, &target).is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(target)
}
