//! The SVG pictures (`rally render`): snapshots of a few boards (insta; the `.snap` files are
//! in tests/snapshots/, review changes with `cargo insta review` or by reading the diff), a
//! check that every element shipped in scripts/ and variants/ has a real drawing, and the
//! `draw = { ... }` declaration and fallback for elements the renderer does not know.

use rally::board::{Board, Layout, Tile};
use rally::commands::Common;
use rally::params::Kind;
use rally::scenario::Scenario;
use rally::script::{RuleSet, Sources};
use rally::svg::{self, Look};
use rally::variant::Choice;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

fn rules(variants: &[&str]) -> RuleSet {
    RuleSet::load(&Sources {
        scripts: PathBuf::from("scripts"),
        variants: PathBuf::from("variants"),
        choices: variants
            .iter()
            .map(|v| Choice {
                name: v.to_string(),
                params: toml::Table::new(),
            })
            .collect(),
    })
    .unwrap()
}

fn board_picture(path: &str, variants: &[&str]) -> String {
    let rules = rules(variants);
    let board = Board::compile(&Layout::load(Path::new(path)).unwrap(), &rules).unwrap();
    svg::board_picture(&rules, &board)
}

fn scenario_picture(path: &str) -> String {
    let path = Path::new(path);
    let scenario = Scenario::load(path).unwrap();
    let rules = Common::default()
        .rules(Some(path), scenario.variants.clone())
        .unwrap();
    let game = scenario.start(rules).unwrap();
    let board = game.board();
    let robots = game.state().robots.clone();
    svg::picture(game.rules(), &board, &robots, &svg::Options::default())
}

#[test]
fn standard_board_snapshot() {
    let svg = board_picture("tests/pictures/standard.toml", &[]);
    assert!(!svg.contains("fallback"), "a standard element fell back");
    insta::assert_snapshot!("standard", svg);
}

#[test]
fn expansion_board_snapshot() {
    let svg = board_picture("tests/pictures/expansion.toml", &[]);
    assert!(!svg.contains("fallback"), "an expansion element fell back");
    insta::assert_snapshot!("expansion", svg);
}

#[test]
fn ice_rink_scenario_snapshot() {
    let svg = scenario_picture("tests/pictures/ice.toml");
    assert!(
        svg.contains(r#"class="ice-speed""#),
        "the robot's ice speed is drawn"
    );
    assert!(
        svg.contains(r#"class="ice-spin""#),
        "the robot's ice spin is drawn"
    );
    insta::assert_snapshot!("ice_rink", svg);
}

#[test]
fn robots_snapshot() {
    insta::assert_snapshot!(
        "robots",
        scenario_picture("tests/pictures/replay_two_robots.toml")
    );
}

/// A value of `kind` that the board compiler accepts, for a sample tile.
fn sample(kind: &Kind) -> Value {
    match kind {
        Kind::Dir => "N".into(),
        Kind::Rotation => "right".into(),
        Kind::Bool => false.into(),
        Kind::Int { min, .. } => min.unwrap_or(1).into(),
        Kind::Str { choices } => choices.first().cloned().unwrap_or("red".into()).into(),
        Kind::List(of) => Value::Array(vec![sample(of)]),
        Kind::DirMap(of) => Value::Object(Map::from_iter([("N".to_string(), sample(of))])),
    }
}

/// Every element that exists when the test runs (standard scripts, and each variant's on its
/// own): none may need the fallback square.
#[test]
fn every_shipped_element_has_a_drawing() {
    let mut sets = vec![(String::from("scripts/"), rules(&[]))];
    let mut variants: Vec<PathBuf> = std::fs::read_dir("variants")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("variant.toml").is_file())
        .collect();
    variants.sort();
    for dir in variants {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        sets.push((format!("variants/{name}"), rules(&[&name])));
    }
    let mut missing = Vec::new();
    let mut checked = 0;
    for (from, rules) in &sets {
        for (index, def) in rules.elements.iter().enumerate() {
            let params = def
                .params
                .iter()
                .map(|(name, spec)| {
                    let value = spec.default.clone().unwrap_or_else(|| sample(&spec.kind));
                    (name.clone(), value)
                })
                .collect();
            let tile = Tile {
                element: index,
                name: def.name.clone(),
                at: rally::geometry::Pos::new(0, 0),
                params,
            };
            checked += 1;
            if svg::look(rules, &tile) == Look::Fallback {
                missing.push(format!("{} ({from}, {})", def.name, def.file));
            }
        }
    }
    assert!(checked >= 11, "only {checked} elements found");
    assert!(
        missing.is_empty(),
        "no drawing in src/svg.rs (and no `draw = {{...}}` in the script) for: {}",
        missing.join(", ")
    );
}

/// A scripts folder with the floor and one more element script.
fn scripts_with(element: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("elements")).unwrap();
    std::fs::copy(
        "scripts/elements/floor.lua",
        dir.path().join("elements/floor.lua"),
    )
    .unwrap();
    std::fs::write(dir.path().join("elements/custom.lua"), element).unwrap();
    dir
}

fn load(dir: &Path) -> rally::Result<RuleSet> {
    RuleSet::load(&Sources {
        scripts: dir.to_path_buf(),
        variants: PathBuf::from("variants"),
        choices: Vec::new(),
    })
}

fn one_tile_picture(rules: &RuleSet, element: &str, params: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.toml");
    std::fs::write(
        &path,
        format!("width = 1\nheight = 1\n[[tile]]\nat = [0, 0]\nelement = \"{element}\"\n{params}"),
    )
    .unwrap();
    let board = Board::compile(&Layout::load(&path).unwrap(), rules).unwrap();
    svg::picture(rules, &board, &[], &svg::Options::default())
}

#[test]
fn an_unknown_element_gets_a_labelled_fallback() {
    let dir = scripts_with(r#"return rally.element { name = "zapper", glyph = "Zp" }"#);
    let rules = load(dir.path()).unwrap();
    let svg = one_tile_picture(&rules, "zapper", "");
    assert!(svg.contains(r#"class="fallback""#));
    assert!(svg.contains(">Zp</text>"), "the glyph labels it");
    assert!(svg.contains(">zapper</text>"), "the name labels it");
}

#[test]
fn a_script_can_declare_its_look() {
    let dir = scripts_with(
        r##"return rally.element {
  name = "beacon",
  params = { side = rally.param.dir() },
  draw = { color = "#12ab34", label = function(tile) return "B" .. tile.side end, shape = "edge" },
}"##,
    );
    let rules = load(dir.path()).unwrap();
    let svg = one_tile_picture(&rules, "beacon", "side = \"E\"");
    assert!(!svg.contains("fallback"));
    assert!(svg.contains(r##"fill="#12ab34""##), "its colour");
    assert!(svg.contains(">BE</text>"), "its label function");
    assert!(
        svg.contains("rotate(90 32 32)"),
        "the edge band turned to the east side"
    );
}

#[test]
fn a_bad_draw_declaration_is_an_error_with_its_line() {
    let dir = scripts_with(
        "return rally.element {\n  name = \"bad\",\n  draw = { colour = \"#fff\" },\n}",
    );
    let e = load(dir.path()).err().unwrap().to_string();
    assert!(e.contains("custom.lua:1"), "{e}");
    assert!(e.contains("unknown field `colour`"), "{e}");
    assert!(e.contains("color"), "suggests the right key: {e}");

    let dir =
        scripts_with(r#"return rally.element { name = "bad", draw = { color = "red\"/>" } }"#);
    let e = load(dir.path()).err().unwrap().to_string();
    assert!(e.contains("#rrggbb"), "{e}");
}

#[test]
fn png_output_is_a_png() {
    let svg = board_picture("tests/pictures/standard.toml", &[]);
    let png = svg::to_png(&svg).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
}
