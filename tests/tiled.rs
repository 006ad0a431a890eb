//! Boards drawn in Tiled (src/tiled.rs): the example map in boards/tiled/, saved as JSON
//! (`practice.tmj` + `factory.tsj`) and as XML (`practice.tmx` + `factory.tsx`), and the same
//! board written as TOML (tests/tiled/practice.toml) compile to the same tiles and resolve
//! the same scenario identically. Then the mapping file, and the errors a designer can make.

use rally::board::{Board, Layout};
use rally::commands::Common;
use rally::scenario::Scenario;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const BOARDS: [&str; 3] = [
    "tests/tiled/practice.toml",
    "boards/tiled/practice.tmj",
    "boards/tiled/practice.tmx",
];

fn rules() -> rally::script::RuleSet {
    Common::default().rules(None, Vec::new()).unwrap()
}

/// The compiled tiles, as comparable data.
fn tiles(board: &str) -> Vec<Value> {
    let layout = Layout::load(Path::new(board)).unwrap();
    let board = Board::compile(&layout, &rules()).unwrap();
    board
        .tiles
        .iter()
        .map(|t| json!([t.at, t.name, t.params]))
        .collect()
}

#[test]
fn tiled_maps_compile_to_the_same_tiles_as_toml() {
    let toml = tiles(BOARDS[0]);
    assert!(toml.len() > 48, "the TOML twin covers the board");
    for board in &BOARDS[1..] {
        assert_eq!(tiles(board), toml, "{board}");
    }
    let layout = Layout::load(Path::new(BOARDS[1])).unwrap();
    assert_eq!(layout.name, "Tiled practice");
    assert!(
        layout.files.iter().any(|f| f.ends_with("factory.tsj")),
        "the tileset is a file the board depends on (hot reload)"
    );
}

/// Resolves a whole turn on `board`: both robots cross belts, gears, the laser and a pusher.
fn resolve(board: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let board = std::fs::canonicalize(board).unwrap();
    let path = dir.path().join("turn.toml");
    std::fs::write(
        &path,
        format!(
            r#"description = "a turn on the Tiled practice board"
board = "{}"
registers = 5
end_of_turn = true

[[robot]]
name = "A"
at = [1, 0]
facing = "E"
program = ["move1@500", "move1@510", "right@100", "move2@700", "back@430"]

[[robot]]
name = "B"
at = [0, 4]
facing = "N"
program = ["move1@520", "right@80", "move3@800", "move1@530", "left@90"]
"#,
            board.display()
        ),
    )
    .unwrap();
    let scenario = Scenario::load(&path).unwrap();
    let scripts = PathBuf::from("scripts");
    let mut game = scenario
        .start(
            rally::script::RuleSet::load(&scenario.sources(&scripts, Path::new("variants"), &[]))
                .unwrap(),
        )
        .unwrap();
    scenario.resolve(&mut game).unwrap();
    let state = game.state();
    json!({ "robots": state.robots, "events": state.events })
}

#[test]
fn a_scenario_resolves_the_same_on_tiled_and_toml_boards() {
    let toml = resolve(BOARDS[0]);
    let events = toml["events"].to_string();
    for what in ["conveyed", "turned", "destroyed", "reentered"] {
        assert!(
            events.contains(what),
            "the turn exercises the board: no `{what}` in {events}"
        );
    }
    for board in &BOARDS[1..] {
        assert_eq!(resolve(board), toml, "{board}");
    }
}

/// Writes `files` into a fresh folder.
fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// A 2×1 JSON map whose one layer holds `gids`, with an embedded tileset.
fn map_json(tileset: &str, gids: &str) -> String {
    format!(
        r#"{{"type": "map", "orientation": "orthogonal", "infinite": false, "width": 2, "height": 1,
  "tilesets": [{tileset}],
  "layers": [{{"type": "tilelayer", "name": "floor", "width": 2, "height": 1, "data": [{gids}]}}]}}"#
    )
}

#[test]
fn a_mapping_file_renames_classes_properties_and_tiles() {
    let tileset = r#"{"firstgid": 1, "name": "vendor",
      "properties": [{"name": "rally_mapping", "type": "string", "value": "vendor.rally.toml"}],
      "tiles": [
        {"id": 0, "type": "BeltFast", "properties": [{"name": "heading", "type": "string", "value": "N"}]},
        {"id": 1, "type": "Decoration"}
      ]}"#;
    let dir = folder(&[
        ("m.tmj", &map_json(tileset, "1, 2")),
        (
            "vendor.rally.toml",
            r#"
[classes]
BeltFast = { element = "conveyor", express = true }
[properties]
heading = "dir"
[tiles]
1 = [ { element = "flag", number = 1 }, { element = "repair" } ]
"#,
        ),
    ]);
    let layout = Layout::load(&dir.path().join("m.tmj")).unwrap();
    let board = Board::compile(&layout, &rules()).unwrap();
    let got: Vec<Value> = board
        .tiles
        .iter()
        .map(|t| json!([t.at, t.name, t.params]))
        .collect();
    assert_eq!(
        got,
        vec![
            json!([[0, 0], "conveyor", {"dir": "N", "express": true}]),
            json!([[1, 0], "flag", {"number": 1}]),
            json!([[1, 0], "repair", {"wrenches": 1}]),
        ]
    );
    assert!(layout
        .files
        .iter()
        .any(|f| f.ends_with("vendor.rally.toml")));
}

#[test]
fn list_properties_are_written_as_toml_text() {
    let tileset = r#"{"firstgid": 1, "name": "t", "tiles": [
        {"id": 0, "type": "pusher", "properties": [
          {"name": "dir", "type": "string", "value": "E"},
          {"name": "phases", "type": "string", "value": "[2, 4]"}]}]}"#;
    let dir = folder(&[("m.tmj", &map_json(tileset, "1, 0"))]);
    let board =
        Board::compile(&Layout::load(&dir.path().join("m.tmj")).unwrap(), &rules()).unwrap();
    assert_eq!(
        serde_json::to_value(&board.tiles[0].params).unwrap(),
        json!({"dir": "E", "phases": [2, 4]})
    );
}

fn load_error(map: &str) -> String {
    let dir = folder(&[("m.tmj", map)]);
    let layout = Layout::load(&dir.path().join("m.tmj"));
    match layout {
        Err(e) => e.to_string(),
        Ok(layout) => Board::compile(&layout, &rules()).err().unwrap().to_string(),
    }
}

#[test]
fn mistakes_are_errors_that_say_where_and_what() {
    let belt = r#"{"firstgid": 1, "name": "t", "tiles": [
        {"id": 0, "type": "conveyer", "properties": [{"name": "dir", "type": "string", "value": "N"}]},
        {"id": 1, "type": "conveyor", "properties": [{"name": "dir", "type": "string", "value": "N"}]},
        {"id": 2}]}"#;
    let e = load_error(&map_json(belt, "1, 0"));
    assert!(e.contains("m.tmj:"), "{e}");
    assert!(e.contains("unknown element `conveyer`"), "{e}");
    assert!(e.contains("conveyor"), "suggests the right name: {e}");

    // Flipped horizontally (not a rotation): a mirrored belt has no meaning.
    let e = load_error(&map_json(belt, "2147483650, 0"));
    assert!(e.contains("flipped") && e.contains("square [0, 0]"), "{e}");

    let e = load_error(&map_json(belt, "3, 0"));
    assert!(e.contains("tile 2 of tileset `t` has no class"), "{e}");

    let e = load_error(&map_json(belt, "1, 1, 1"));
    assert!(e.contains("has 3 tiles, the 2×1 map needs 2"), "{e}");
}

#[test]
fn a_rotated_tile_turns_its_directions() {
    let belt = r#"{"firstgid": 1, "name": "t", "tiles": [
        {"id": 0, "type": "conveyor", "properties": [{"name": "dir", "type": "string", "value": "N"}]}]}"#;
    // Tiled's rotations: 90° = H|D, 180° = H|V, 270° = V|D.
    for (flags, dir) in [
        (0xA000_0000u32, "E"),
        (0xC000_0000, "S"),
        (0x6000_0000, "W"),
    ] {
        let dir_ = folder(&[("m.tmj", &map_json(belt, &format!("{}, 0", flags | 1)))]);
        let board =
            Board::compile(&Layout::load(&dir_.path().join("m.tmj")).unwrap(), &rules()).unwrap();
        assert_eq!(board.tiles[0].params["dir"], json!(dir), "flags {flags:#x}");
    }
}
