//! Issue 24: board files that explode when read. Elements per square, tile layers and the
//! nesting of groups are bounded, so a file of a few KB stays a few KB of board.

use crate::support;
use std::path::Path;

/// `rally render FILE -o out.svg` in `dir`, with the built-in scripts.
fn render(dir: &Path, file: &str) -> (Option<i32>, String) {
    let out = support::rally(dir, &["render", file, "-o", "out.svg"]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Tiled map using the practice tileset, whose layers are `layers`.
fn tiled_map(dir: &Path, layers: &str) {
    let tiled = support::root().join("boards/tiled");
    for name in ["factory.tsx", "factory.png"] {
        std::fs::copy(tiled.join(name), dir.join(name)).unwrap();
    }
    let map = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\" orientation=\"orthogonal\" width=\"2\" height=\"1\" tilewidth=\"64\" tileheight=\"64\">\n <tileset firstgid=\"1\" source=\"factory.tsx\"/>\n{layers}</map>\n"
    );
    std::fs::write(dir.join("map.tmx"), map).unwrap();
}

const LAYER: &str =
    " <layer name=\"floor\" width=\"2\" height=\"1\"><data encoding=\"csv\">1,1</data></layer>\n";

#[test]
fn a_legend_naming_many_elements_for_one_square_is_refused() {
    // 1000 pits on each of 256×256 squares: 35 KB of board took 1.6 GiB.
    let dir = tempfile::tempdir().unwrap();
    let pits = vec!["\"pit\""; 1000].join(", ");
    let row = vec!["x"; 256].join(" ");
    let grid = vec![row; 256].join("\n");
    std::fs::write(
        dir.path().join("b.toml"),
        format!("[board]\ngrid = \"\"\"\n{grid}\n\"\"\"\n[board.legend]\nx = [{pits}]\n"),
    )
    .unwrap();
    let (code, err) = render(dir.path(), "b.toml");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("a square holds at most 16"), "{err}");
    assert!(err.contains("b.toml"), "{err}");
}

#[test]
fn a_tiled_map_with_many_layers_or_deep_groups_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    tiled_map(dir.path(), LAYER);
    let (code, err) = render(dir.path(), "map.tmx");
    assert_eq!(code, Some(0), "the plain map renders: {err}");

    // Every layer places a tile on each square: more than 16 on one.
    tiled_map(dir.path(), &LAYER.repeat(17));
    let (code, err) = render(dir.path(), "map.tmx");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("a square holds at most 16"), "{err}");

    let empty =
        " <layer name=\"e\" width=\"2\" height=\"1\"><data encoding=\"csv\">0,0</data></layer>\n";
    tiled_map(dir.path(), &empty.repeat(65));
    let (code, err) = render(dir.path(), "map.tmx");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("more than 64 tile layers"), "{err}");

    // 20,000 nested groups overflowed the stack (SIGABRT).
    let depth = 20_000;
    tiled_map(
        dir.path(),
        &format!(
            "{}{LAYER}{}",
            "<group>".repeat(depth),
            "</group>".repeat(depth)
        ),
    );
    let (code, err) = render(dir.path(), "map.tmx");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("nest more than 16 deep"), "{err}");
}

#[test]
fn a_tileset_is_read_only_from_a_tileset_file_and_never_shown() {
    // A map could name any readable file, and the error printed its first line.
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOPSECRET: hunter2\n").unwrap();
    let map = |source: &str| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<map version=\"1.10\" orientation=\"orthogonal\" width=\"2\" height=\"1\" tilewidth=\"64\" tileheight=\"64\">\n <tileset firstgid=\"1\" source=\"{source}\"/>\n{LAYER}</map>\n"
        )
    };
    std::fs::write(dir.path().join("map.tmx"), map(secret.to_str().unwrap())).unwrap();
    let (code, err) = render(dir.path(), "map.tmx");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a tileset file"), "{err}");
    assert!(!err.contains("TOPSECRET"), "{err}");
    // A tileset file that is not one: where the map names it, without its text.
    std::fs::write(dir.path().join("secret.tsj"), "TOPSECRET: hunter2\n").unwrap();
    std::fs::write(dir.path().join("map.tmx"), map("secret.tsj")).unwrap();
    let (code, err) = render(dir.path(), "map.tmx");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("map.tmx") && err.contains("tileset `secret.tsj`"),
        "{err}"
    );
    assert!(!err.contains("TOPSECRET"), "{err}");
}
