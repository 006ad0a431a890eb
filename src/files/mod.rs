//! Reading the files rally is given: scenarios, boards, Tiled maps, games, variants, saves,
//! replays and scripts all come through here, so that none of them can hang or exhaust the
//! process. Only regular files are read (a FIFO would block for ever, `/dev/zero` never
//! ends), at most [`MAX_BYTES`] of them, and a file that is neither is refused with its
//! name. Built-in files ([`builtin`]) are served from memory under the same paths, and
//! messages name every file the same way ([`display_path`]).
//!
//! Every file read is remembered, so that a command never writes its output over one of its
//! inputs ([`check_output`]: `rally play g.toml --save g.toml`, `rally run s.toml --record
//! s.toml`), and outputs are written whole or not at all ([`write_atomic`]).

pub mod builtin;
mod source;

pub use source::Source;

use crate::error::{Error, Result};
use std::collections::HashSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

/// The largest file rally reads: far above any board, script or saved game (a 100-turn
/// game's save is well under a megabyte), far below what would strain memory.
pub const MAX_BYTES: u64 = 32 << 20;

/// How deep [`walk`] goes into nested folders.
const MAX_DEPTH: usize = 32;

fn error(path: &Path, message: impl Into<String>) -> Error {
    Error::File {
        file: path.to_path_buf(),
        message: message.into(),
    }
}

/// The bytes of a regular file (or a built-in one), refusing anything else and anything
/// larger than [`MAX_BYTES`].
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    if builtin::is_built_in(path) {
        return builtin::file(path)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| error(path, "no such built-in file"));
    }
    let file = open(path).map_err(|e| error(path, e.to_string()))?;
    let meta = file.metadata().map_err(|e| error(path, e.to_string()))?;
    if !meta.is_file() {
        return Err(error(
            path,
            format!(
                "is {}, not a regular file: rally reads only regular files",
                kind(&meta)
            ),
        ));
    }
    if meta.len() > MAX_BYTES {
        return Err(too_large(path));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file that grows while it is read stops at the limit all the same.
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| error(path, e.to_string()))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(too_large(path));
    }
    if let Ok(real) = path.canonicalize() {
        inputs().insert(real);
    }
    Ok(bytes)
}

/// The canonical paths of the files this process has read.
static INPUTS: LazyLock<Mutex<HashSet<PathBuf>>> = LazyLock::new(Mutex::default);

fn inputs() -> std::sync::MutexGuard<'static, HashSet<PathBuf>> {
    INPUTS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A regular file's text (see [`read_bytes`]); it must be UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    String::from_utf8(read_bytes(path)?).map_err(|e| {
        let before = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = before.len()
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1)
            + 1;
        Error::At {
            file: path.to_path_buf(),
            line,
            column,
            message: "the file is not UTF-8 text".into(),
        }
    })
}

fn too_large(path: &Path) -> Error {
    error(
        path,
        format!(
            "is larger than {} MiB, more than rally reads from one file",
            MAX_BYTES >> 20
        ),
    )
}

/// Opens without blocking: opening a FIFO for reading would otherwise wait for a writer.
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a folder"
    } else {
        "something else"
    }
}

/// Refuses `output` if it is a file this process read (compared by canonical path, so
/// `g.toml` and `./games/../g.toml` are one file): an output must never replace an input.
/// Call it before the work whose result goes there, so nothing is computed for nothing.
pub fn check_output(output: &Path) -> Result<()> {
    match output.canonicalize() {
        Ok(real) if inputs().contains(&real) => Err(error(
            output,
            "is one of this command's input files: writing the output there would replace it; choose another file",
        )),
        _ => Ok(()),
    }
}

/// Lets this process write over `path` although it read it: a resumed game's save is both.
pub fn rewritable(path: &Path) {
    if let Ok(real) = path.canonicalize() {
        inputs().remove(&real);
    }
}

/// Writes `bytes` to a fresh temporary file beside `path`, syncs it, then renames it over
/// `path` (creating its folder): an interrupted write never leaves half a file. The
/// temporary file has an unpredictable name and is created exclusively (never through a
/// link planted there); `path` itself, if it exists, must be a regular file: a FIFO, a
/// device, a folder or a symbolic link would be replaced rather than written to.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let err = |e: std::io::Error| error(path, e.to_string());
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.is_file() {
            let what = if meta.file_type().is_symlink() {
                "a symbolic link"
            } else {
                kind(&meta)
            };
            return Err(error(
                path,
                format!("is {what}, not a regular file: rally writes its output only to a regular file (or a new one)"),
            ));
        }
    }
    let dir = match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(err)?;
            dir
        }
        None => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".rally-").suffix(".tmp");
    // As a file made with `File::create`: readable by others unless the umask says not.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir).map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// A regular file (following symbolic links), or a built-in one.
pub fn is_file(path: &Path) -> bool {
    if builtin::is_built_in(path) {
        return builtin::file(path).is_some();
    }
    path.metadata().is_ok_and(|m| m.is_file())
}

/// A folder (following symbolic links), or a built-in one.
pub fn is_dir(path: &Path) -> bool {
    if builtin::is_built_in(path) {
        return builtin::is_dir(path);
    }
    path.is_dir()
}

/// How a file is named in messages: relative to the current folder when it is below it; a
/// built-in file by its place in rally's sources (`scripts/elements/gear.lua`).
pub fn display_path(path: &Path) -> String {
    if let Some(inside) = builtin::shown(path) {
        return inside.display().to_string();
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A scripts or variants folder as messages name it: `built-in scripts`, or its path.
pub fn describe_folder(path: &Path) -> String {
    match builtin::shown(path) {
        Some(inside) => format!("built-in {}", inside.display()),
        None => display_path(path),
    }
}

/// The entries of a folder, sorted; empty when it cannot be read.
pub fn list(dir: &Path) -> Vec<PathBuf> {
    let mut found = if builtin::is_built_in(dir) {
        builtin::entries(dir)
    } else {
        std::fs::read_dir(dir)
            .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    };
    found.sort();
    found
}

/// Every regular file under `dir` (recursively, sorted, folders in order), for which `keep`
/// holds. Each folder is visited once, however symbolic links loop, and at most
/// [`MAX_DEPTH`] deep.
pub fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Result<Vec<PathBuf>> {
    std::fs::read_dir(dir).map_err(|e| error(dir, e.to_string()))?;
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    walk_into(dir, keep, 0, &mut seen, &mut found);
    Ok(found)
}

fn walk_into(
    dir: &Path,
    keep: &dyn Fn(&Path) -> bool,
    depth: usize,
    seen: &mut HashSet<PathBuf>,
    found: &mut Vec<PathBuf>,
) {
    let Ok(real) = dir.canonicalize() else {
        return;
    };
    if depth > MAX_DEPTH || !seen.insert(real) {
        return;
    }
    for path in list(dir) {
        if path.is_dir() {
            walk_into(&path, keep, depth + 1, seen, found);
        } else if keep(&path) && is_file(&path) {
            found.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)] // mkfifo, to make one
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path()).unwrap_err().to_string();
        assert!(e.contains("is a folder, not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let zero = dir.path().join("zero.lua");
            std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
            let e = read_text(&zero).unwrap_err().to_string();
            assert!(e.contains("zero.lua: is a device"), "{e}");
            let fifo = dir.path().join("fifo.lua");
            let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: `name` is a NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            let e = read_text(&fifo).unwrap_err().to_string();
            assert!(e.contains("fifo.lua: is a FIFO"), "{e}");
        }
    }

    #[test]
    fn large_files_and_bad_text_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.toml");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        let e = read_text(&big).unwrap_err().to_string();
        assert!(e.contains("big.toml: is larger than 32 MiB"), "{e}");
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, b"a = 1\nb = \xff\n").unwrap();
        let e = read_text(&bad).unwrap_err().to_string();
        assert!(
            e.contains("bad.toml:2:5: the file is not UTF-8 text"),
            "{e}"
        );
    }

    #[test]
    fn an_output_may_not_replace_an_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.toml");
        std::fs::write(&input, "a = 1\n").unwrap();
        let other = dir.path().join("out.json");
        check_output(&input).unwrap();
        read_text(&input).unwrap();
        // Named another way, it is the same file.
        let roundabout = dir.path().join(".").join("in.toml");
        let e = check_output(&roundabout).unwrap_err().to_string();
        assert!(e.contains("is one of this command's input files"), "{e}");
        check_output(&other).unwrap();
        rewritable(&input);
        check_output(&input).unwrap();
    }

    #[test]
    fn walking_survives_a_folder_that_contains_itself() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/s.toml"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path(), dir.path().join("a/loop")).unwrap();
        let found = walk(dir.path(), &|p| p.extension().is_some_and(|x| x == "toml")).unwrap();
        assert_eq!(found, vec![dir.path().join("a/s.toml")]);
    }
}
