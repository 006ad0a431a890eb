//! The standard scripts and variants, built into the binary so that `rally` works from any
//! folder. They are unpacked on first use into a cache folder (one per content), because scripts are
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

/// Unpacks `scripts` or `variants` and returns its folder. Each content gets a folder of its
/// own, named by a hash of its files, which is written once (into a staging folder, then
/// renamed) and never changed: runs at the same time never see half a copy or a copy being
/// replaced, and a build with other scripts never runs stale ones.
pub fn extract(name: &str) -> std::io::Result<PathBuf> {
    let dir = built_in(name)?;
    let root = std::env::temp_dir().join(format!("rally-{}-builtin", env!("CARGO_PKG_VERSION")));
    let mut hasher = std::hash::DefaultHasher::new();
    fingerprint(dir, &mut hasher);
    let target = root.join(format!(
        "{name}-{:016x}",
        std::hash::Hasher::finish(&hasher)
    ));
    if target.is_dir() {
        return Ok(target);
    }
    let staging = root.join(format!("{name}.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging)?;
    dir.extract(&staging)?;
    if std::fs::rename(&staging, &target).is_err() {
        // Another run unpacked the same content first.
        let _ = std::fs::remove_dir_all(&staging);
        if !target.is_dir() {
            return Err(std::io::Error::other(format!(
                "cannot unpack into {}",
                target.display()
            )));
        }
    }
    Ok(target)
}

/// Every file's path and content, in a fixed order.
fn fingerprint(dir: &Dir, hasher: &mut impl std::hash::Hasher) {
    use std::hash::Hash;
    for file in dir.files() {
        file.path().hash(hasher);
        file.contents().hash(hasher);
    }
    for sub in dir.dirs() {
        fingerprint(sub, hasher);
    }
}
