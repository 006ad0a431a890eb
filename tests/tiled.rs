//! Boards drawn in Tiled (src/board/tiled.rs): the example map in boards/tiled/, saved as JSON
//! (`practice.tmj` + `factory.tsj`) and as XML (`practice.tmx` + `factory.tsx`), and the same
//! board written as TOML (tests/tiled/practice.toml) compile to the same tiles and resolve
//! the same scenario identically. Then the mapping file, and the errors a designer can make.

use crate::support::{rally, rally_ok, rally_refused};
use rally::board::{Board, Layout};
use rally::formats::scenario::Scenario;
use rally::script::RuleFolders;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const BOARDS: [&str; 3] = [
    "tests/tiled/practice.toml",
    "boards/tiled/practice.tmj",
    "boards/tiled/practice.tmx",
];

fn rules() -> rally::script::RuleSet {
    RuleFolders::default().rules(None, Vec::new()).unwrap()
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
            rally::script::RuleSet::load(&scenario.sources(
                &rally::script::Project::folders(scripts, Path::new("variants")),
                &[],
            ))
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
    // The message names the layer, square, tile, tileset and class, points at the cell in
    // the file (line 6, the data line, column 87), and says where mappings are explained.
    let e = load_error(&map_json(belt, "0, 1"));
    assert!(
        e.contains("m.tmj:6:90: layer `floor`, square [1, 0]: tile 0 of tileset `t` (class `conveyer`; how tiles become elements: docs/tiled.md)"),
        "{e}"
    );
    assert!(e.contains("unknown element `conveyer`"), "{e}");
    assert!(e.contains("conveyor"), "suggests the right name: {e}");

    // Flipped horizontally (not a rotation): a mirrored belt has no meaning.
    let e = load_error(&map_json(belt, "2147483650, 0"));
    assert!(e.contains("flipped") && e.contains("square [0, 0]"), "{e}");

    let e = load_error(&map_json(belt, "3, 0"));
    assert!(
        e.contains("tile 2 of tileset `t` (no class;") && e.contains("the tile has no class"),
        "{e}"
    );

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

/// Maps made for another game (tests/tiled/vendor/): their own tileset, property names and
/// values, y counted from the south, layer data in base64 with zlib, gzip and zstd. Read
/// through the mapping file beside them, they give the tiles of the same board in TOML.
#[test]
fn maps_made_for_another_game_import_through_a_mapping() {
    let toml = tiles("tests/tiled/vendor/yard.toml");
    assert!(toml.len() > 35, "the TOML twin covers the board");
    for map in ["yard.tmj", "yard.tmx", "yard-zstd.tmj"] {
        let path = format!("tests/tiled/vendor/{map}");
        assert_eq!(tiles(&path), toml, "{map}");
        let layout = Layout::load(Path::new(&path)).unwrap();
        assert_eq!(layout.name, "The Yard");
        assert!(
            layout
                .files
                .iter()
                .any(|f| f.ends_with("rally-mapping.toml")),
            "the mapping is a file the board depends on (hot reload)"
        );
    }
}

#[test]
fn a_mapping_on_the_command_line_and_the_error_without_one() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["yard.tmj", "vendor.tsj"] {
        std::fs::copy(Path::new("tests/tiled/vendor").join(f), dir.path().join(f)).unwrap();
    }
    let out = rally(dir.path(), &["render", "yard.tmj", "-o", "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    // Minified: everything is on line 1, so the column tells the layers apart.
    assert!(
        err.contains("yard.tmj:1:")
            && !err.contains("yard.tmj:1:1:")
            && err.contains("layer `ground`, square [0, 0]: tile 0 of tileset `vendor` (class `ground`; how tiles become elements: docs/tiled.md): unknown element `ground`"),
        "{err}"
    );
    let mapping = std::fs::canonicalize("tests/tiled/vendor/rally-mapping.toml").unwrap();
    let out = rally(
        dir.path(),
        &[
            "render",
            "yard.tmj",
            "-o",
            "-",
            "--tiled-mapping",
            mapping.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<svg"));
}

#[test]
fn a_translated_property_without_a_translation_names_the_value_and_the_mapping() {
    let tileset = r#"{"firstgid": 1, "name": "v", "tiles": [
        {"id": 0, "type": "belt", "properties": [{"name": "direction_out", "type": "int", "value": 45}]}]}"#;
    let dir = folder(&[
        ("m.tmj", &map_json(tileset, "1, 0")),
        (
            "rally-mapping.toml",
            "[classes]\nbelt = { element = \"conveyor\", dir = \"N\" }\n[properties]\ndirection_out = { -90 = { turn = \"left\" }, 90 = { turn = \"right\" } }\n",
        ),
    ]);
    let e = Layout::load(&dir.path().join("m.tmj"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("property `direction_out` = 45 has no translation in")
            && e.contains("rally-mapping.toml (it translates -90, 90)"),
        "{e}"
    );
}

#[test]
fn map_sizes_are_checked_before_anything_is_allocated() {
    for (w, h, wanted) in [
        ("-1", "-1", "a -1×-1 board has no squares"),
        ("0", "3", "a 0×3 board has no squares"),
        ("65536", "65536", "at most 256 squares a side"),
        ("5000", "1000", "at most 256 squares a side"),
        ("1e3", "2", "no whole-number `width`"),
    ] {
        let json = format!(
            r#"{{"type": "map", "orientation": "orthogonal", "width": {w}, "height": {h}, "tilesets": [], "layers": []}}"#
        );
        let xml = format!(r#"<map orientation="orthogonal" width="{w}" height="{h}"></map>"#);
        let dir = folder(&[("m.tmj", &json), ("m.tmx", &xml)]);
        for map in ["m.tmj", "m.tmx"] {
            let e = Layout::load(&dir.path().join(map)).unwrap_err().to_string();
            assert!(e.contains(map) && e.contains(wanted), "{w}×{h} {map}: {e}");
        }
    }
}

#[test]
fn compressed_data_that_would_not_end_is_cut_short() {
    use std::io::Write;
    // 64 MiB of zeros compresses to about 64 KiB; a 2×1 map needs 8 bytes of it.
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        z.write_all(&zeros).unwrap();
    }
    use base64::Engine;
    let data = base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap());
    let map = format!(
        r#"{{"type": "map", "orientation": "orthogonal", "width": 2, "height": 1, "tilesets": [],
  "layers": [{{"type": "tilelayer", "name": "floor", "encoding": "base64", "compression": "zlib", "data": "{data}"}}]}}"#
    );
    let e = load_error(&map);
    assert!(
        e.contains("layer `floor` has 3 tiles, the 2×1 map needs 2"),
        "{e}"
    );
    for (encoding, compression, wanted) in [
        (
            "base64",
            "lzma",
            "compression `lzma` is not one rally reads",
        ),
        ("base64", "zlib", "does not decompress"),
        ("base85", "", "encoding `base85` is not one Tiled writes"),
    ] {
        let map = format!(
            r#"{{"type": "map", "orientation": "orthogonal", "width": 2, "height": 1, "tilesets": [],
  "layers": [{{"type": "tilelayer", "name": "floor", "encoding": "{encoding}", "compression": "{compression}", "data": "AAAA"}}]}}"#
        );
        let e = load_error(&map);
        assert!(e.contains(wanted) && e.contains("m.tmj:2:"), "{e}");
    }
}

/// `rally tiled-types` writes a class per element with its parameters; a tileset whose tiles
/// use those classes (as Tiled saves them: enum values with a `propertytype`) loads.
#[test]
fn tiled_types_describe_every_element_and_maps_using_them_load() {
    let out = rally(Path::new("."), &["tiled-types"]);
    assert!(out.status.success());
    let types: Value = serde_json::from_slice(&out.stdout).unwrap();
    let find = |name: &str| {
        types
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no type {name}"))
    };
    assert_eq!(find("Dir")["values"], json!(["N", "E", "S", "W"]));
    let conveyor = find("conveyor");
    assert_eq!(conveyor["useAs"], json!(["tile"]));
    let members = conveyor["members"].as_array().unwrap();
    let member = |n: &str| members.iter().find(|m| m["name"] == n).unwrap().clone();
    assert_eq!(member("dir")["propertyType"], "Dir");
    assert_eq!(
        member("express"),
        json!({"name": "express", "type": "bool", "value": false})
    );
    let pusher = find("pusher");
    let phases = pusher["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "phases")
        .unwrap();
    assert_eq!(phases["type"], "string");
    let ids: Vec<u64> = types
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_u64().unwrap())
        .collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(ids, unique, "ids are unique");

    let tileset = r#"{"firstgid": 1, "name": "t", "tiles": [
        {"id": 0, "type": "conveyor", "properties": [
          {"name": "dir", "type": "string", "propertytype": "Dir", "value": "E"},
          {"name": "turns", "type": "string", "value": "{ N = \"right\" }"}]}]}"#;
    let dir = folder(&[("m.tmj", &map_json(tileset, "1, 0"))]);
    let board =
        Board::compile(&Layout::load(&dir.path().join("m.tmj")).unwrap(), &rules()).unwrap();
    assert_eq!(board.tiles[0].params["dir"], json!("E"));
    assert_eq!(board.tiles[0].params["turns"], json!({"N": "right"}));
}

/// A belt drawn as a curve (`turn`) and followed as a junction (`turns`) is refused where
/// the map places it, not silently resolved one way and drawn the other.
#[test]
fn a_belt_with_both_turn_and_turns_is_refused_where_it_is() {
    let belt = r#"{"firstgid": 1, "name": "t", "tiles": [
        {"id": 0, "type": "conveyor", "properties": [
          {"name": "dir", "type": "string", "value": "N"},
          {"name": "turn", "type": "string", "value": "left"},
          {"name": "turns", "type": "string", "value": "{ E = \"left\" }"}]}]}"#;
    let e = load_error(&map_json(belt, "0, 1"));
    assert!(
        e.contains("m.tmj:7:90:") && e.contains("square [1, 0]"),
        "{e}"
    );
    assert!(
        e.contains("`turn`") && e.contains("`turns`") && e.contains("not both"),
        "{e}"
    );
}

/// A tileset file that is not there: the error says which path was tried (joined to the
/// map's folder), not only the name the map gives.
#[test]
fn a_missing_tileset_names_the_path_it_tried() {
    let map = r#"{"type": "map", "orientation": "orthogonal", "infinite": false, "width": 1, "height": 1,
  "tilesets": [{"firstgid": 1, "source": "../x.json"}],
  "layers": [{"type": "tilelayer", "name": "floor", "width": 1, "height": 1, "data": [1]}]}"#;
    let dir = folder(&[("m.tmj", map)]);
    let e = Layout::load(&dir.path().join("m.tmj"))
        .unwrap_err()
        .to_string();
    let tried = dir.path().join("../x.json");
    assert!(e.contains("tileset `../x.json`"), "{e}");
    assert!(
        e.contains(&tried.display().to_string()),
        "names {}: {e}",
        tried.display()
    );
}

/// A map drawn with a community tileset (tests/tiled/community/): external tileset, rotated
/// belts, spawns and pushers, a junction by `[[match]]`, a drawn beam that is no element.
#[test]
fn a_community_tileset_map_gives_the_tiles_of_its_toml_twin() {
    let toml = tiles("tests/tiled/community/dock.toml");
    assert_eq!(toml.len(), 19, "one square holds no element (the beam)");
    assert_eq!(tiles("tests/tiled/community/dock.tmj"), toml);
}

/// The worked mapping in docs/tiled.md, copied out of the page, loads the community map as
/// written and gives every square of its TOML twin; and it is the vendored mapping file.
#[test]
fn the_worked_example_in_the_docs_runs_as_written() {
    let docs = std::fs::read_to_string("docs/tiled.md").unwrap();
    let from = docs
        .find("## Tilesets made for another game")
        .expect("the section");
    let start = docs[from..].find("```toml\n").unwrap() + from + "```toml\n".len();
    let end = docs[start..].find("```").unwrap() + start;
    let example = &docs[start..end];
    assert_eq!(
        example,
        std::fs::read_to_string("tests/tiled/community/rally-mapping.toml").unwrap(),
        "docs/tiled.md shows the vendored mapping"
    );
    let dir = tempfile::tempdir().unwrap();
    for f in ["dock.tmj", "factory_floor.tsj"] {
        std::fs::copy(
            Path::new("tests/tiled/community").join(f),
            dir.path().join(f),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("rally-mapping.toml"), example).unwrap();
    let map = dir.path().join("dock.tmj");
    assert_eq!(
        tiles(map.to_str().unwrap()),
        tiles("tests/tiled/community/dock.toml")
    );
    // Rendered too: the picture draws every element of the map.
    let svg = dir.path().join("dock.svg");
    rally_ok(dir.path(), &["render", "dock.tmj", "-o", "dock.svg"]);
    assert!(std::fs::read_to_string(svg).unwrap().starts_with("<svg"));
}

#[test]
fn render_list_shows_what_each_tile_became() {
    let dir = Path::new("tests/tiled/community");
    let out = rally_ok(dir, &["render", "dock.tmj", "--list"]);
    let row = |id: &str| {
        out.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(id))
            .unwrap_or_else(|| panic!("no row for tile {id}:\n{out}"))
            .to_string()
    };
    assert!(out.lines().next().unwrap().starts_with("tileset"), "{out}");
    assert!(
        row("0").contains("[classes] ground") && row("0").ends_with("floor"),
        "{out}"
    );
    assert!(
        row("0").split_whitespace().nth(4) == Some("6"),
        "6 cells hold ground: {out}"
    );
    assert!(
        row("5").contains("[[match]] 1 (class = belt, crossroad = true, direction_out = 90)")
            && row("5")
                .contains(r#"conveyor { dir = "E", express = false, turns = { N = "right" } }"#),
        "{out}"
    );
    assert!(
        row("10").contains("property `start` = false: no element") && row("10").ends_with("(none)"),
        "{out}"
    );
    assert!(row("6").contains("class as is"), "{out}");
    assert!(out.ends_with("15 tiles used, 0 not translated\n"), "{out}");

    // A tile the mapping cannot translate is listed, and the command fails (exit 1).
    let tmp = tempfile::tempdir().unwrap();
    for f in ["dock.tmj", "factory_floor.tsj"] {
        std::fs::copy(dir.join(f), tmp.path().join(f)).unwrap();
    }
    let mapping = std::fs::read_to_string(dir.join("rally-mapping.toml"))
        .unwrap()
        .replace("0 = { phases = [2, 4] }, ", "");
    std::fs::write(tmp.path().join("rally-mapping.toml"), mapping).unwrap();
    let out = rally(tmp.path(), &["render", "dock.tmj", "--list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.lines().any(|l| l.contains("pusher")
            && l.contains("NOT TRANSLATED")
            && l.contains("property `register` = 0 has no translation")),
        "{text}"
    );
    assert!(
        text.ends_with("15 tiles used, 1 not translated\n"),
        "{text}"
    );
    // Not a Tiled map: refused.
    let err = rally_refused(
        Path::new("."),
        &["render", "tests/tiled/community/dock.toml", "--list"],
    );
    assert!(err.contains("--list needs a Tiled map"), "{err}");
}

/// A 2×1 map of tiles 1 and 2 of a tileset whose tiles have `properties` (JSON lists), read
/// through `mapping`: the board's tiles, or the error.
fn mapped(tile0: &str, tile1: &str, mapping: &str) -> Result<Vec<Value>, String> {
    let tileset = format!(
        r#"{{"firstgid": 1, "name": "community", "tiles": [
          {{"id": 0, "type": "belt", "properties": {tile0}}},
          {{"id": 1, "type": "belt", "properties": {tile1}}}]}}"#
    );
    let dir = folder(&[
        ("m.tmj", &map_json(&tileset, "1, 2")),
        ("rally-mapping.toml", mapping),
    ]);
    let layout = Layout::load(&dir.path().join("m.tmj")).map_err(|e| e.to_string())?;
    let board = Board::compile(&layout, &rules()).map_err(|e| e.to_string())?;
    Ok(board
        .tiles
        .iter()
        .map(|t| json!([t.at, t.name, t.params]))
        .collect())
}

#[test]
fn match_rules_read_several_properties_and_refuse_ambiguity() {
    let p = |cross: bool, out: i64| {
        format!(
            r#"[{{"name": "crossroad", "type": "bool", "value": {cross}}},
                {{"name": "direction_out", "type": "int", "value": {out}}},
                {{"name": "speed", "type": "int", "value": 2}}]"#
        )
    };
    let mapping = r#"
drop = ["crossroad"]
[classes]
belt = { element = "conveyor", dir = "N" }
[properties]
speed = { 1 = {}, 2 = { express = true } }
direction_out = { 0 = {}, 90 = { dir = "E", turn = "right" } }
[[match]]
class = "belt"
properties = { crossroad = true, direction_out = 90 }
place = { element = "conveyor", dir = "E", turns = { N = "right" } }
"#;
    // Tile 0 is a crossroad (the rule), tile 1 the same direction without (the class).
    let got = mapped(&p(true, 90), &p(false, 90), mapping).unwrap();
    assert_eq!(
        got,
        [
            json!([[0, 0], "conveyor", {"dir": "E", "express": true, "turns": {"N": "right"}}]),
            json!([[1, 0], "conveyor", {"dir": "E", "express": true, "turn": "right"}]),
        ]
    );
    // The class must match when the rule gives one.
    let other_class = mapping.replace("class = \"belt\"", "class = \"rail\"");
    let got = mapped(&p(true, 90), &p(false, 0), &other_class).unwrap();
    assert_eq!(
        got[0],
        json!([[0, 0], "conveyor", {"dir": "E", "express": true, "turn": "right"}])
    );
    // Two rules matching one tile: an error naming the tile and both rules.
    let ambiguous =
        format!("{mapping}\n[[match]]\nproperties = {{ speed = 2 }}\nplace = \"pit\"\n");
    let err = mapped(&p(true, 90), &p(false, 0), &ambiguous).unwrap_err();
    assert!(
        err.contains("m.tmj:")
            && err.contains("square [0, 0]: tile 0 of tileset `community` (class `belt`")
            && err.contains("the tile matches several rules of")
            && err.contains("[[match]] 1 (class = belt, crossroad = true, direction_out = 90) and [[match]] 2 (speed = 2)"),
        "{err}"
    );
    // A rule that matches nothing in particular would match every tile: refused.
    let everything = format!("{mapping}\n[[match]]\nplace = \"pit\"\n");
    let err = mapped(&p(true, 90), &p(false, 0), &everything).unwrap_err();
    assert!(
        err.contains("rally-mapping.toml")
            && err.contains("[[match]] 2 gives neither `class` nor `properties`"),
        "{err}"
    );
}

#[test]
fn a_translation_to_nothing_places_no_element() {
    let beam = |start: bool| {
        format!(
            r#"[{{"name": "start", "type": "bool", "value": {start}}},
                {{"name": "laser_strength", "type": "int", "value": 2}}]"#
        )
    };
    let mapping = r#"
[classes]
belt = { element = "laser", dir = "S" }
[properties]
laser_strength = "strength"
start = { true = {}, false = [] }
"#;
    let got = mapped(&beam(true), &beam(false), mapping).unwrap();
    assert_eq!(
        got,
        [json!([[0, 0], "laser", {"dir": "S", "strength": 2}])],
        "the beam (start = false) is no element, and its strength no error"
    );
    // Anything but a table or [] is refused, naming the property and the mapping.
    let bad = mapping.replace("false = []", "false = 3");
    let err = mapped(&beam(true), &beam(false), &bad).unwrap_err();
    assert!(
        err.contains("square [1, 0]")
            && err.contains("property `start` = false is translated to 3 in")
            && err.contains("a table of parameters, or [] for no element"),
        "{err}"
    );
}
