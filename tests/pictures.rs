//! The SVG pictures (`rally render`): snapshots of a few boards (insta; the `.snap` files are
//! in tests/snapshots/, review changes with `cargo insta review` or by reading the diff), a
//! check that every element shipped in scripts/ and variants/ has a real drawing, and the
//! `draw = { ... }` declaration and fallback for elements the renderer does not know.

use crate::support;
use rally::board::params::Kind;
use rally::board::{Board, Layout, Tile};
use rally::formats::scenario::Scenario;
use rally::pictures::svg::{self, Look};
use rally::script::variant::Choice;
use rally::script::RuleFolders;
use rally::script::{RuleSet, Sources};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

fn rules(variants: &[&str]) -> RuleSet {
    RuleSet::load(&Sources {
        project: rally::script::Project::folders("scripts", "variants"),
        choices: variants
            .iter()
            .map(|v| Choice {
                name: v.to_string(),
                ..Choice::default()
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
    let rules = RuleFolders::default()
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
        "no drawing in src/pictures/svg.rs (and no `draw = {{...}}` in the script) for: {}",
        missing.join(", ")
    );
}

/// A scripts folder with the floor and one more element script.
pub(crate) fn scripts_with(element: &str) -> tempfile::TempDir {
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

pub(crate) fn load(dir: &Path) -> rally::Result<RuleSet> {
    RuleSet::load(&Sources {
        project: rally::script::Project::folders(dir, "variants"),
        choices: Vec::new(),
    })
}

pub(crate) fn one_tile_picture(rules: &RuleSet, element: &str, params: &str) -> String {
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

/// A long label is squeezed into its square (SVG's `textLength`), not spilled over the
/// squares beside it; a short one is drawn as it is.
#[test]
fn long_labels_fit_their_square() {
    let dir = scripts_with(
        r#"return rally.element { name = "sign", draw = { label = "CAUTION: CRUSHER AHEAD" } }"#,
    );
    let rules = load(dir.path()).unwrap();
    let svg = one_tile_picture(&rules, "sign", "");
    let label = svg
        .lines()
        .find(|l| l.contains(">CAUTION: CRUSHER AHEAD</text>"))
        .expect("the label");
    assert!(
        label.contains(r#"textLength="60" lengthAdjust="spacingAndGlyphs""#),
        "{label}"
    );
    let svg = one_tile_picture(&rules, "sign", "").replace("CAUTION: CRUSHER AHEAD", "");
    assert_eq!(
        svg.matches("textLength").count(),
        1,
        "only the long label is squeezed"
    );
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
    // The caret at the key itself (line 3, column 12), not at the declaration.
    assert!(e.contains("custom.lua:3:12: "), "{e}");
    assert!(e.contains("unknown field `colour`"), "{e}");
    assert!(e.contains("color"), "suggests the right key: {e}");

    let dir =
        scripts_with(r#"return rally.element { name = "bad", draw = { color = "red\"/>" } }"#);
    let e = load(dir.path()).err().unwrap().to_string();
    assert!(e.contains("#rrggbb"), "{e}");
}

/// A PNG decoded, to look at its pixels.
#[cfg(feature = "png")]
fn pixels(png: &[u8]) -> resvg::tiny_skia::Pixmap {
    resvg::tiny_skia::Pixmap::decode_png(png).expect("a PNG")
}

#[cfg(feature = "png")]
#[test]
fn png_output_is_a_png_at_any_scale() {
    let svg = board_picture("tests/pictures/standard.toml", &[]);
    let png = svg::to_png(&svg, 1.0).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let one = pixels(&png);
    let three = pixels(&svg::to_png(&svg, 3.0).unwrap());
    assert_eq!(
        (three.width(), three.height()),
        (one.width() * 3, one.height() * 3)
    );
    for bad in [0.0, -1.0, f32::NAN] {
        assert!(svg::to_png(&svg, bad).is_err(), "scale {bad}");
    }
    let e = svg::to_png(&svg, 1000.0).unwrap_err();
    assert!(e.contains("the most is"), "{e}");
}

/// Labels come out in the font built into rally, whatever the machine has installed (no
/// system font is ever loaded): text is drawn.
#[cfg(feature = "png")]
#[test]
fn labels_are_drawn_with_the_built_in_font() {
    let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"><rect width="80" height="40" fill="#fff"/><text x="4" y="30" font-size="28" font-family="DejaVu Sans" font-weight="bold" fill="#000">×88</text></svg>"##;
    let image = pixels(&svg::to_png(svg, 1.0).unwrap());
    let dark = image
        .pixels()
        .iter()
        .filter(|p| p.red() < 100 && p.alpha() > 200)
        .count();
    assert!(
        dark > 150,
        "only {dark} dark pixels: the text was not drawn"
    );
}

/// A robot on a flag leaves the flag readable: its token is a frame round the square, not a
/// block over it. The pennant's red still shows through where a solid token would be blue.
/// The picture of a scenario written out here.
fn picture_of(scenario: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(&path, scenario).unwrap();
    scenario_picture(path.to_str().unwrap())
}

#[cfg(feature = "png")]
#[test]
fn a_robot_leaves_the_square_under_it_readable() {
    let svg = picture_of(
        r#"
[board]
grid = ". F"
[board.legend]
"." = "floor"
"F" = { element = "flag", number = 1 }
[[robot]]
name = "Red"
at = [0, 0]
facing = "N"
[[robot]]
name = "Blue"
at = [1, 0]
facing = "E"
"#,
    );
    let image = pixels(&svg::to_png(&svg, 1.0).unwrap());
    // The pennant of the flag on square [1,0] (its polygon 21,12 46,19 21,27 in the square).
    let (x, y) = (
        (svg::MARGIN + svg::CELL + 28) as u32,
        (svg::MARGIN + 19) as u32,
    );
    let p = image.pixel(x, y).unwrap();
    assert!(
        p.red() > 150 && p.blue() < 120,
        "the flag under Blue is hidden: {p:?}"
    );
}

#[test]
fn robots_carry_their_full_names_and_hover_titles() {
    let svg = picture_of(
        r#"
[board]
grid = ". ."
[board.legend]
"." = "floor"
[[robot]]
name = "Hammer Bot Deluxe"
at = [0, 0]
facing = "S"
damage = 3
[[robot]]
name = "Zoe"
at = [1, 0]
facing = "N"
"#,
    );
    assert!(
        svg.contains(r#"lengthAdjust="spacingAndGlyphs">Hammer Bot Deluxe</text>"#),
        "a long name is squeezed to fit the square, not cut"
    );
    assert!(svg.contains(">Zoe</text>"));
    assert!(
        svg.contains("<title>Hammer Bot Deluxe, facing S · 3 damage · 3 lives · 0 flags</title>")
    );
}

#[test]
fn squares_have_hover_titles() {
    let svg = board_picture("tests/pictures/standard.toml", &[]);
    assert!(
        svg.contains("<title>[3, 3] · pusher (dir N, phases 2 4) · wall (side S)</title>"),
        "the pusher's square names everything on it"
    );
    assert!(svg.contains("<title>[2, 2] · conveyor (dir W, express)</title>"));
    assert!(!svg.contains("<title>[0, 3]"), "plain floor has no title");
}

/// A board laser's beam ends at the first robot in its way, as the engine stops it.
#[test]
fn a_beam_ends_at_the_first_robot() {
    // The laser at [5,2] fires W; robot A stands at [1,2].
    let svg = scenario_picture("tests/pictures/replay_two_robots.toml");
    let centre_of_a = svg::MARGIN + svg::CELL + svg::CELL / 2;
    assert!(
        svg.contains(&format!(r#"x2="{centre_of_a}" y2="184""#)),
        "{}",
        svg.lines()
            .find(|l| l.contains("class=\"beam\""))
            .unwrap_or_default()
    );
}

#[test]
fn a_course_shows_the_seams_between_its_boards() {
    let svg = board_picture("boards/course-meltdown.toml", &[]);
    assert_eq!(svg.matches(r#"class="seam""#).count(), 2, "two boards");
    assert!(svg.contains("<title>Factory at [0, 12]</title>"));
}

#[test]
fn the_legend_names_every_kind_of_element_on_the_board() {
    let rules = rules(&[]);
    let board = Board::compile(
        &Layout::load(Path::new("tests/pictures/standard.toml")).unwrap(),
        &rules,
    )
    .unwrap();
    let plain = svg::picture(&rules, &board, &[], &svg::Options::default());
    let with = svg::picture(
        &rules,
        &board,
        &[],
        &svg::Options {
            legend: true,
            ..svg::Options::default()
        },
    );
    assert!(!plain.contains("id=\"legend\""));
    assert!(with.contains("id=\"legend\""));
    let names: Vec<&str> = with
        .split(r##"font-size="12" fill="#222">"##)
        .skip(1)
        .map(|s| &s[..s.find('<').unwrap()])
        .collect();
    assert_eq!(
        names,
        [
            "belt",
            "pit",
            "pusher",
            "laser (2 beams)",
            "wall",
            "gear (counter-clockwise)",
            "crusher",
            "flag",
            "start dock",
            "express belt",
            "repair site (2 wrenches)",
            // Told apart by what its drawing shows (its registers), its direction aside.
            "pusher (phases 2 4)",
        ]
    );
    let height = |svg: &str| -> i32 {
        let h = &svg[svg.find("height=\"").unwrap() + 8..];
        h[..h.find('"').unwrap()].parse().unwrap()
    };
    assert!(height(&with) > height(&plain) + 100, "the legend has room");
}

#[cfg(feature = "png")]
#[test]
fn rally_render_writes_print_sized_pngs_and_refuses_absurd_scales() {
    let dir = tempfile::tempdir().unwrap();
    let render = |args: &[&str]| {
        let mut command =
            support::rally_command(support::root(), &["render", "tests/pictures/standard.toml"]);
        support::finish(command.args(args))
    };
    let png = dir.path().join("big.png");
    let out = render(&["--scale", "2", "--legend", "-o", png.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let image = pixels(&std::fs::read(&png).unwrap());
    assert_eq!(image.width(), 2 * (6 * svg::CELL + 2 * svg::MARGIN) as u32);

    for scale in ["0", "-2", "5000", "NaN"] {
        let out = render(&[&format!("--scale={scale}"), "-o", png.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--scale {scale}: {stderr}");
        assert!(stderr.contains("big.png"), "names the file: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}
