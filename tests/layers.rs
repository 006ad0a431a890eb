//! The layers of src/: imports run one way. Each top-level module of the crate belongs to
//! one layer of [`LAYERS`] and may import (`crate::NAME`, `use crate::{...}`, or `super::`
//! paths that reach the crate root) only modules of its own layer or a lower one; and no
//! modules may import each other round a cycle, within a layer either. A new top-level
//! module must be given its layer here. The test reads the source text, so it needs no
//! build of the crate to say which file makes an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module imports only from its own layer and those before it.
const LAYERS: &[&[&str]] = &[
    // Plain values and words: errors, squares and directions, text made safe to show.
    &["error", "geometry", "text"],
    // What is read before any script runs: boards and their parameter schemas, the cards,
    // reading files, the order of play and who hears each hook, error snippets.
    &["board", "cards", "files", "hooks", "order", "snippet"],
    // The Lua host: loading, the sandbox, declarations, variants, where rules come from.
    &["script"],
    // The state and what changes it natively: dealing, players' decisions, the physical rules.
    &["deal", "decision", "state", "world"],
    // The phase loop and its Lua face (ctx, native readers, handlers' tables).
    &["engine"],
    // File schemas above the engine: scenarios, replay logs, Tiled custom types.
    &["formats"],
    // Whole games: the turn loop, bots, saves, reruns, simulations, running scenarios.
    &["game"],
    // Hot reload.
    &["reload"],
    // What people look at: text, differences, SVG/PNG, the HTML viewer.
    &["pictures"],
    // The browser table.
    &["table"],
    // The commands of the `rally` binary.
    &["commands"],
];

/// The top-level module a file of src/ belongs to (`engine/ctx.rs` → `engine`), and its
/// module path below the crate root (`["engine", "ctx"]`); `None` for lib.rs and main.rs.
fn module_of(rel: &Path) -> Option<(String, Vec<String>)> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?.to_string();
    if parts.is_empty() && (stem == "lib" || stem == "main") {
        return None;
    }
    if stem != "mod" {
        parts.push(stem);
    }
    Some((parts[0].clone(), parts))
}

/// The text without comments (`//` to the end of the line, `/* */`) and without the insides
/// of string literals, so that neither counts as an import.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                // A raw string (r"..", r#".."#) ends at its quote and hashes; a plain one at an
                // unescaped quote.
                let hashes = text[..i].chars().rev().take_while(|&c| c == '#').count();
                let raw = text[..i - hashes].ends_with('r');
                i += 1;
                while i < bytes.len() {
                    if raw {
                        if bytes[i] == b'"' && bytes[i + 1..].starts_with(&vec![b'#'; hashes]) {
                            i += 1 + hashes;
                            break;
                        }
                    } else if bytes[i] == b'\\' {
                        i += 1;
                    } else if bytes[i] == b'"' {
                        i += 1;
                        break;
                    }
                    i += 1;
                }
                out.push_str("\"\"");
            }
            b'\'' if bytes.get(i + 2) == Some(&b'\'') || bytes.get(i + 1) == Some(&b'\\') => {
                // A character literal ('"', '\''), not a lifetime.
                let end = text[i + 1..].find('\'').map_or(i + 1, |e| i + 1 + e);
                let end = if bytes[i + 1] == b'\\' && bytes.get(i + 2) == Some(&b'\'') {
                    i + 3
                } else {
                    end
                };
                out.push_str("' '");
                i = end + 1;
            }
            _ => {
                let c = text[i..].chars().next().expect("inside the text");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// The first segment of every path inside a `{...}` group that starts at `text[0]`.
fn group_heads(text: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let (mut depth, mut item) = (0, String::new());
    for c in text.chars() {
        match c {
            '{' => {
                depth += 1;
                if depth > 1 {
                    item.push(c);
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    heads.push(std::mem::take(&mut item));
                    break;
                }
                item.push(c);
            }
            ',' if depth == 1 => heads.push(std::mem::take(&mut item)),
            _ => item.push(c),
        }
    }
    heads
        .iter()
        .filter_map(|h| {
            let head: String = h
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!head.is_empty()).then_some(head)
        })
        .collect()
}

/// The names a file reaches at the crate root: `crate::NAME`, `crate::{A, B::C}`, and
/// `super::` paths that climb to the root from `path` (its module path).
fn root_names(code: &str, path: &[String]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let starts_word = |at: usize| {
        at == 0 || {
            let before = code[..at].chars().next_back().unwrap_or(' ');
            !(before.is_alphanumeric() || before == '_')
        }
    };
    for (at, _) in code.match_indices("crate::") {
        // `$crate::` in a macro is the crate too.
        if !starts_word(at) && !code[..at].ends_with('$') {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if rest.starts_with('{') {
            names.extend(group_heads(rest));
        } else {
            names.insert(ident(rest));
        }
    }
    // A file `a/b.rs` is module `a::b`: two `super::` from inside it reach the root.
    let depth = path.len();
    for (at, _) in code.match_indices("super::") {
        if !starts_word(at) || code[..at].ends_with("super::") {
            continue;
        }
        let mut rest = &code[at..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            up += 1;
            rest = r;
        }
        // A `mod tests` inside a file adds a level the path does not show, so `super::NAME`
        // there is read as the root's NAME: an edge only if a child module of the file is
        // named like a top-level module, which none is.
        if up >= depth {
            if rest.starts_with('{') {
                names.extend(group_heads(rest));
            } else {
                names.insert(ident(rest));
            }
        }
    }
    names
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Edges between top-level modules: (from, to) → the files that make it.
type Edges = BTreeMap<(String, String), Vec<String>>;

fn import_graph() -> (BTreeSet<String>, Edges) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let is_module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if is_module && name != "lib" && name != "main" {
            modules.insert(name);
        }
    }
    let mut edges = Edges::new();
    for file in rust_files(&src) {
        let rel = file.strip_prefix(&src).unwrap();
        let Some((top, path)) = module_of(rel) else {
            continue;
        };
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        for name in root_names(&code, &path) {
            if name != top && modules.contains(&name) {
                edges
                    .entry((top.clone(), name))
                    .or_default()
                    .push(format!("src/{}", rel.display()));
            }
        }
    }
    (modules, edges)
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

#[test]
fn every_top_level_module_has_a_layer() {
    let (modules, _) = import_graph();
    let placed: BTreeSet<String> = LAYERS
        .iter()
        .flat_map(|l| l.iter())
        .map(|m| m.to_string())
        .collect();
    let unplaced: Vec<&String> = modules.difference(&placed).collect();
    assert!(
        unplaced.is_empty(),
        "src/ has top-level modules that tests/layers.rs does not place in a layer: {unplaced:?}"
    );
    let gone: Vec<&String> = placed.difference(&modules).collect();
    assert!(
        gone.is_empty(),
        "tests/layers.rs places modules that src/ does not have: {gone:?}"
    );
}

#[test]
fn imports_point_down_the_layers() {
    let (_, edges) = import_graph();
    let mut upward = Vec::new();
    for ((from, to), files) in &edges {
        let (Some(a), Some(b)) = (layer_of(from), layer_of(to)) else {
            continue;
        };
        if b > a {
            upward.push(format!(
                "{from} (layer {a}) imports {to} (layer {b}), a layer above it, in {}",
                files.join(", ")
            ));
        }
    }
    assert!(
        upward.is_empty(),
        "imports must run down the layers of tests/layers.rs:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_modules_import_each_other() {
    let (modules, edges) = import_graph();
    let next = |m: &str| -> Vec<&String> {
        edges
            .keys()
            .filter(|(from, _)| from == m)
            .map(|(_, to)| to)
            .collect()
    };
    // A depth-first walk; a module met again on the path closes a cycle.
    fn walk<'a>(
        m: &'a String,
        next: &dyn Fn(&str) -> Vec<&'a String>,
        path: &mut Vec<&'a String>,
        done: &mut BTreeSet<&'a String>,
    ) -> Option<Vec<&'a String>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            let mut cycle = path[i..].to_vec();
            cycle.push(m);
            return Some(cycle);
        }
        if !done.insert(m) {
            return None;
        }
        path.push(m);
        for n in next(m) {
            if let Some(cycle) = walk(n, next, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in &modules {
        if let Some(cycle) = walk(m, &next, &mut Vec::new(), &mut done) {
            let steps: Vec<String> = cycle
                .windows(2)
                .map(|w| {
                    let files = &edges[&(w[0].clone(), w[1].clone())];
                    format!("{} → {} ({})", w[0], w[1], files.join(", "))
                })
                .collect();
            panic!(
                "modules import each other in a cycle:\n{}",
                steps.join("\n")
            );
        }
    }
}

#[test]
fn the_reader_finds_imports_and_ignores_the_rest() {
    let path = vec!["engine".to_string(), "ctx".to_string()];
    let code = code_only(
        "use crate::{board::{Board, Tile}, cards::Card};\n\
         use super::super::world::World; // crate::commented\n\
         let s = \"crate::quoted\"; let r = r#\"crate::raw\"#; let q = '\"';\n\
         /* crate::blocked */ crate::state::Robot::new(); $crate::order::x();\n\
         mycrate::not_ours(); use super::Link;",
    );
    let names: Vec<String> = root_names(&code, &path).into_iter().collect();
    assert_eq!(names, ["board", "cards", "order", "state", "world"]);
}
