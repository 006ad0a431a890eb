//! The standard scripts and variants, built into the binary so that `rally` works from any
//! folder. They are read from memory, never unpacked: a shared folder on disk would be raced
//! by concurrent runs and could be planted by another user of the machine.
//!
//! Built-in files have paths under a root that no file on disk can be confused with,
//! [`ROOT`]: `<built-in>/scripts/elements/conveyor.lua`. The rest of rally passes these paths
//! around like any other; [`crate::files`] reads them from here. Messages name them without
//! the root (`scripts/elements/conveyor.lua:4:`), which is where they live in rally's sources.

use include_dir::{include_dir, Dir, DirEntry};
use std::path::{Component, Path, PathBuf};

static SCRIPTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/scripts");
static VARIANTS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/variants");

/// The root of every built-in path.
pub const ROOT: &str = "<built-in>";

/// The built-in `scripts` or `variants` folder.
pub fn folder(name: &str) -> PathBuf {
    Path::new(ROOT).join(name)
}

/// Whether `path` names something built in (whether or not it exists).
pub fn is_built_in(path: &Path) -> bool {
    path.components().next() == Some(Component::Normal(ROOT.as_ref()))
}

/// `path` as messages show it: without the built-in root.
pub fn shown(path: &Path) -> Option<&Path> {
    path.strip_prefix(ROOT).ok()
}

/// What a built-in path names: `None` if it is not built in or does not exist.
fn entry(path: &Path) -> Option<Entry> {
    let rest = shown(path)?;
    let mut parts = rest.components();
    let tree = match parts.next()? {
        Component::Normal(n) if n == "scripts" => &SCRIPTS,
        Component::Normal(n) if n == "variants" => &VARIANTS,
        _ => return None,
    };
    let inner = parts.as_path();
    if inner.as_os_str().is_empty() {
        return Some(Entry::Dir(tree));
    }
    match tree.get_entry(inner)? {
        DirEntry::Dir(d) => Some(Entry::Dir(d)),
        DirEntry::File(f) => Some(Entry::File(f.contents())),
    }
}

enum Entry {
    Dir(&'static Dir<'static>),
    File(&'static [u8]),
}

/// The contents of a built-in file.
pub fn file(path: &Path) -> Option<&'static [u8]> {
    match entry(path)? {
        Entry::File(bytes) => Some(bytes),
        Entry::Dir(_) => None,
    }
}

pub fn is_dir(path: &Path) -> bool {
    matches!(entry(path), Some(Entry::Dir(_)))
}

/// The entries of a built-in folder, as built-in paths (empty if it is not one).
pub fn entries(path: &Path) -> Vec<PathBuf> {
    let Some(Entry::Dir(dir)) = entry(path) else {
        return Vec::new();
    };
    dir.entries()
        .iter()
        .filter_map(|e| e.path().file_name())
        .map(|name| path.join(name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_files_are_read_from_memory() {
        let gear = folder("scripts").join("elements/gear.lua");
        assert!(is_built_in(&gear));
        assert!(std::str::from_utf8(file(&gear).unwrap())
            .unwrap()
            .contains("rally.element"));
        assert_eq!(shown(&gear), Some(Path::new("scripts/elements/gear.lua")));
        assert!(is_dir(&folder("scripts").join("elements")));
        assert!(entries(&folder("scripts").join("elements")).contains(&gear));
        assert!(file(&folder("variants").join("ice-rink/variant.toml")).is_some());
        assert!(file(&folder("scripts").join("elements/nothing.lua")).is_none());
        assert!(!is_built_in(Path::new("scripts/elements/gear.lua")));
    }
}
