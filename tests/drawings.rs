//! The `draw = { ... }` vocabulary (src/script/draw.rs, src/pictures/svg/parts.rs): each part
//! draws what it says, a direction parameter turns a drawing, drawings vary with parameters,
//! the legend has one entry per distinct drawing, a built-in is drawn only as its script
//! declares (replace its script and its picture changes), and pictures beside a script are
//! sanitised: hostile SVG files are refused with their line.

use crate::pictures::{load, one_tile_picture, scripts_with};
use rally::board::{Board, Layout};
use rally::pictures::svg;
use rally::script::RuleSet;
use std::path::Path;

/// A picture of one tile of the element scripted as `script` (named `custom`... as the
/// script says), with its parameters written as TOML lines.
fn drawn(script: &str, element: &str, params: &str) -> String {
    let dir = scripts_with(script);
    let rules = load(dir.path()).unwrap();
    one_tile_picture(&rules, element, params)
}

/// The error loading a scripts folder with `script` (and any files beside it).
fn load_error(script: &str, files: &[(&str, &[u8])]) -> String {
    let dir = scripts_with(script);
    for (name, bytes) in files {
        std::fs::write(dir.path().join("elements").join(name), bytes).unwrap();
    }
    match load(dir.path()) {
        Ok(_) => panic!("loaded: {script}"),
        Err(e) => e.to_string(),
    }
}

/// The board's drawing (everything above the grid and below the squares' titles).
fn tiles_part(svg: &str) -> &str {
    let start = svg.find("</text>\n<g transform").unwrap_or(0);
    &svg[start..svg.find(r#"<g id="squares""#).unwrap()]
}

#[test]
fn every_part_draws_what_it_says() {
    let svg = drawn(
        r##"return rally.element {
  name = "sampler",
  draw = {
    { "square", inset = 6, round = 3, color = "#101010" },
    { "circle", r = 10, color = "#202020" },
    { "ring", r = 12, color = "#303030", width = 2 },
    { "diamond", r = 20, color = "#404040" },
    { "triangle", r = 20, color = "#505050" },
    { "edge", size = 5, color = "#606060" },
    { "bar", x = 10, y = 20, w = 30, h = 4, color = "#707070" },
    { "arrow", y = 10, size = 30, color = "#808080" },
    { "chevrons", n = 3, color = "#909090" },
    { "icon", "gear", color = "#a0a0a0" },
    { "label", "Hi", color = "#b0b0b0" },
    { "number", 7, y = 50 },
    { "badge", "2 4" },
  },
}"##,
        "sampler",
        "",
    );
    let body = tiles_part(&svg);
    for want in [
        r##"<rect x="6" y="6" width="52" height="52" rx="3" fill="#101010"/>"##,
        r##"<circle cx="32" cy="32" r="10" fill="#202020"/>"##,
        r##"<circle cx="32" cy="32" r="12" fill="none" stroke="#303030" stroke-width="2"/>"##,
        r##"<polygon points="32,12 52,32 32,52 12,32" fill="#404040"/>"##,
        r##"<polygon points="32,12 49.3,42 14.7,42" fill="#505050"/>"##,
        r##"<rect x="0" y="0" width="64" height="5" fill="#606060"/>"##,
        r##"<rect x="10" y="20" width="30" height="4" fill="#707070"/>"##,
        r##"<path d="M32,40 L32,10 M23,19 L32,10 L41,19" fill="none" stroke="#808080""##,
        r##"<g color="#a0a0a0">"##,
        r##"fill="#b0b0b0" text-anchor="middle">Hi</text>"##,
        r##">7</text>"##,
        r##">2 4</text>"##,
    ] {
        assert!(body.contains(want), "missing {want} in\n{body}");
    }
    assert_eq!(
        body.matches(r##"stroke="#909090""##).count(),
        3,
        "three chevrons"
    );
    assert!(body.contains("stroke=\"currentColor\""), "the gear icon");
    assert!(!svg.contains("fallback"));
}

#[test]
fn a_direction_parameter_turns_the_drawing_and_labels_stay_upright() {
    let script = r##"return rally.element {
  name = "spring_pad",
  params = { dir = rally.param.dir() },
  draw = {
    turn = "dir",
    { "square", color = "#3a7" },
    { "arrow" },
    { "circle", r = 4, turn = false },
    { "label", "SP" },
  },
}"##;
    let east = drawn(script, "spring_pad", "dir = \"E\"");
    let north = drawn(script, "spring_pad", "dir = \"N\"");
    let south = drawn(script, "spring_pad", "dir = \"S\"");
    assert!(tiles_part(&east).contains(r#"translate(24,24) rotate(90 32 32)"><rect"#));
    assert!(tiles_part(&south).contains("rotate(180 32 32)"));
    assert!(
        !tiles_part(&north).contains("rotate("),
        "north is not turned"
    );
    // `turn = false`: the dot stays put whichever way the pad points.
    assert!(tiles_part(&east).contains(r#"<g transform="translate(24,24)"><circle"#));
    // The label is written upright, not inside a turned group.
    let label = east.lines().find(|l| l.contains(">SP</text>")).unwrap();
    assert!(label.starts_with("<text"), "{label}");
    assert_ne!(tiles_part(&east), tiles_part(&north));
}

#[test]
fn drawings_vary_with_parameters_and_the_legend_has_one_entry_per_drawing() {
    let dir = scripts_with(
        r##"return rally.element {
  name = "pad",
  params = { dir = rally.param.dir(), hot = rally.param.bool { default = false } },
  draw = {
    turn = "dir",
    function(tile) return { "circle", color = tile.hot and "#e33" or "#33e" } end,
    { "arrow" },
  },
}"##,
    );
    let rules = load(dir.path()).unwrap();
    let board_file = dir.path().join("b.toml");
    std::fs::write(
        &board_file,
        r#"name = "pads"
grid = "a b c d"
[legend]
"a" = { element = "pad", dir = "N" }
"b" = { element = "pad", dir = "E" }
"c" = { element = "pad", dir = "S", hot = true }
"d" = { element = "pad", dir = "W", hot = true }
"#,
    )
    .unwrap();
    let board = Board::compile(&Layout::load(&board_file).unwrap(), &rules).unwrap();
    let svg = svg::picture(
        &rules,
        &board,
        &[],
        &svg::Options {
            legend: true,
            ..svg::Options::default()
        },
    );
    let board_svg = tiles_part(&svg);
    assert_eq!(board_svg.matches(r##"fill="#e33""##).count(), 2, "hot pads");
    assert_eq!(
        board_svg.matches(r##"fill="#33e""##).count(),
        2,
        "cold pads"
    );
    let legend = &svg[svg.find(r#"id="legend""#).unwrap()..];
    // Two drawings (hot, cold), however the pads point: two entries, the second told apart
    // by what differs (its direction aside).
    assert_eq!(
        legend.matches("class=\"legend-entry\"").count(),
        2,
        "{legend}"
    );
    assert!(legend.contains(">pad</text>"));
    assert!(legend.contains(">pad (hot)</text>"), "{legend}");

    // A declared caption says which tiles are the same kind: one entry for all four.
    let dir = scripts_with(
        r##"return rally.element {
  name = "pad",
  params = { dir = rally.param.dir(), hot = rally.param.bool { default = false } },
  draw = {
    legend = "spring pad",
    function(tile) return { "circle", color = tile.hot and "#e33" or "#33e" } end,
  },
}"##,
    );
    let rules = load(dir.path()).unwrap();
    let board = Board::compile(&Layout::load(&board_file).unwrap(), &rules).unwrap();
    let svg = svg::picture(
        &rules,
        &board,
        &[],
        &svg::Options {
            legend: true,
            ..svg::Options::default()
        },
    );
    assert_eq!(svg.matches("class=\"legend-entry\"").count(), 1);
    assert!(svg.contains(">spring pad</text>"));
}

/// A project's script that replaces a built-in element draws it: the renderer has no picture
/// of its own for any element's name.
#[test]
fn a_built_in_is_drawn_only_as_its_script_declares() {
    for (element, params, builtin_mark) in [
        ("gear", "turn = \"left\"", r#"stroke-dasharray="6 5.2""#),
        ("conveyor", "dir = \"E\"", r#"width="38""#),
        ("laser", "dir = \"E\"", r#"class="beam""#),
        ("flag", "number = 2", ">2</text>"),
    ] {
        let standard = RuleSet::load(&rally::script::Sources {
            project: rally::script::Project::folders("scripts", "variants"),
            choices: Vec::new(),
        })
        .unwrap();
        let before = one_tile_picture(&standard, element, params);
        assert!(before.contains(builtin_mark), "{element}: {before}");
        // The same element, its script replaced by one drawn as a plain diamond.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("elements")).unwrap();
        let script = std::fs::read_to_string(format!("scripts/elements/{element}.lua")).unwrap();
        let start = script.find("  draw = {").unwrap();
        let end = start + script[start..].find("\n  },\n").map_or(0, |e| e + 5);
        let end = if end == start {
            start + script[start..].find('\n').unwrap() + 1
        } else {
            end
        };
        let replaced = format!(
            "{}  draw = {{ {{ \"diamond\", color = \"#123456\" }} }},\n{}",
            &script[..start],
            &script[end..]
        )
        .replacen("rally.element {", "rally.element {\n  replace = true,", 1);
        std::fs::write(dir.path().join(format!("elements/{element}.lua")), replaced).unwrap();
        let rules = load(dir.path()).unwrap();
        let after = one_tile_picture(&rules, element, params);
        assert!(after.contains(r##"fill="#123456""##), "{element}: {after}");
        assert!(
            !after.contains(builtin_mark),
            "{element} kept its old look: {after}"
        );
    }
}

/// A designer's element can draw exactly as a built-in does, by the same declaration.
#[test]
fn an_element_can_reuse_a_built_in_drawing() {
    let svg = drawn(
        r#"return rally.element {
  name = "slow_belt",
  params = rally.elements.conveyor.params,
  draw = rally.elements.conveyor.draw,
}"#,
        "slow_belt",
        "dir = \"S\"",
    );
    assert!(svg.contains(r##"<rect x="13" y="0" width="38" height="64" fill="#e0b43a"/>"##));
    assert!(svg.contains("rotate(180 32 32)"), "turned by its dir");
}

#[test]
fn bad_parts_are_errors_at_their_line_with_suggestions() {
    for (draw, want) in [
        (
            r#"{ { "cirle" } }"#,
            "unknown part `cirle` (did you mean `circle`?)",
        ),
        (r#"{ { "circle", radius = 3 } }"#, "unknown field `radius`"),
        (r#"{ { "circle", color = "red\"/><script>" } }"#, "#rrggbb"),
        (r#"{ { "circle", r = 1e9 } }"#, "out of range"),
        (
            r#"{ { "icon", "gaer" } }"#,
            "no icon `gaer` (did you mean `gear`?)",
        ),
        (r#"{ { "image", "crane" } }"#, "no image `crane`"),
        (
            r#"{ { "label", {} , size = "big" } }"#,
            "size: expected a number",
        ),
        (r#"{ { "chevrons", n = 1000 } }"#, "from 0 to 12"),
        (r#"{ { "square", dash = "1 x" } }"#, "dash"),
        (
            r#"{ layer = "sky" }"#,
            "expected one of ground, belts, fixtures, edges",
        ),
        (r#"{ shape = "diamond", { "circle" } }"#, "short form"),
        (r#"{ 42 }"#, "part 1: expected a table"),
        (
            r#"{ turn = "dirr" }"#,
            "turn: `dirr` is not one of its parameters (did you mean `dir`?)",
        ),
    ] {
        let e = load_error(
            &format!(
                "return rally.element {{\n  name = \"bad\",\n  params = {{ dir = rally.param.dir() }},\n  draw = {draw},\n}}"
            ),
            &[],
        );
        assert!(e.contains("custom.lua:"), "{draw}: {e}");
        assert!(e.contains(want), "{draw}: wanted {want:?} in {e}");
    }
}

/// The short form a designer may already have written still draws.
#[test]
fn the_short_form_draws_a_shape_with_a_label() {
    let svg = drawn(
        r##"return rally.element { name = "mark", glyph = "Mk", draw = { color = "#4a8", shape = "diamond" } }"##,
        "mark",
        "",
    );
    assert!(svg.contains(r##"fill="#4a8" stroke="#222" stroke-width="1.5""##));
    assert!(svg.contains("<polygon"));
    assert!(svg.contains(">Mk</text>"), "the glyph labels it");
}

/// A part a function gets wrong is left out with a warning; the rest is drawn, nothing
/// panics. Text from a script is escaped, never markup.
#[test]
fn made_parts_that_go_wrong_are_left_out_and_text_is_escaped() {
    let svg = drawn(
        r##"return rally.element {
  name = "odd",
  draw = {
    { "circle", color = "#0a0a0a" },
    function(tile) error("oops") end,
    function(tile) return { "nonsense" } end,
    function(tile) return 12 end,
    function(tile) return { "label", "<script>alert(1)</script>" } end,
  },
}"##,
        "odd",
        "",
    );
    assert!(svg.contains(r##"fill="#0a0a0a""##));
    assert!(svg.contains("&lt;script&gt;"));
    assert!(!svg.contains("<script"));
}

const GOOD_SVG: &str = r##"<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" viewBox="0 0 32 32" inkscape:version="1.2">
  <metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata>
  <defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient></defs>
  <title>a crane</title>
  <rect x="2" y="2" width="28" height="28" fill="url(#g)" inkscape:label="body" data-x="1"/>
</svg>"##;

#[test]
fn a_picture_beside_the_script_is_drawn_sanitised() {
    let dir = scripts_with(
        r#"return rally.element {
  name = "crane",
  draw = { images = { body = "crane.svg" }, { "image", "body" } },
}"#,
    );
    std::fs::write(dir.path().join("elements/crane.svg"), GOOD_SVG).unwrap();
    let rules = load(dir.path()).unwrap();
    let svg = one_tile_picture(&rules, "crane", "");
    assert!(
        svg.contains(r##"<svg x="0" y="0" width="64" height="64" viewBox="0 0 32 32"><defs><linearGradient id="img-body-g"><stop offset="0" stop-color="#f00"/></linearGradient></defs><rect x="2" y="2" width="28" height="28" fill="url(#img-body-g)"/></svg>"##),
        "{svg}"
    );
    for gone in ["inkscape", "metadata", "rdf", "a crane", "data-x"] {
        assert!(!svg.contains(gone), "{gone} kept");
    }
}

#[test]
fn hostile_pictures_are_refused_with_their_line() {
    let svg = |body: &str| {
        format!("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" viewBox=\"0 0 64 64\">\n{body}\n</svg>")
    };
    let big = svg(&"<rect width=\"1\" height=\"1\"/>".repeat(3000));
    let cases: Vec<(String, &str)> = vec![
        (svg("<script>alert(1)</script>"), "crane.svg:2: <script> is not allowed"),
        (svg("<rect onload=\"alert(1)\"/>"), "crane.svg:2: the attribute `onload` is not allowed"),
        (svg("<g><circle r=\"3\" onmouseover=\"x()\"/></g>"), "`onmouseover` is not allowed"),
        (svg("<image href=\"http://evil.example/x.png\"/>"), "<image> is not allowed"),
        (svg("<use xlink:href=\"http://evil.example/a.svg#x\"/>"), "<use> is not allowed"),
        (svg("<rect href=\"#a\"/>"), "the attribute `href` is not allowed"),
        (svg("<rect fill=\"url(http://evil.example/p)\"/>"), "only references inside the picture"),
        (svg("<rect fill=\"url('data:image/png;base64,AAAA')\"/>"), "only references inside the picture"),
        (svg("<rect style=\"fill:url(http://evil.example/p)\"/>"), "the attribute `style` is not allowed"),
        (svg("<style>rect { fill: red }</style>"), "<style> is not allowed"),
        (svg("<foreignObject><div xmlns=\"http://www.w3.org/1999/xhtml\">x</div></foreignObject>"), "<foreignObject> is not allowed"),
        (svg("<animate attributeName=\"x\" to=\"1\"/>"), "<animate> is not allowed"),
        (svg("<a href=\"http://evil.example\"><rect/></a>"), "<a> is not allowed"),
        (
            "<?xml version=\"1.0\"?>\n<!DOCTYPE svg [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><text>&b;</text></svg>".into(),
            "not an SVG picture",
        ),
        ("<html><body/></html>".into(), "its root is not <svg"),
        ("not xml at all".into(), "not an SVG picture"),
        (big, "more than a picture may have"),
        (svg(&"<g>".repeat(40)).replace("</svg>", &("</g>".repeat(40) + "</svg>")), "nested more than"),
    ];
    for (file, want) in cases {
        let e = load_error(
            r#"return rally.element { name = "crane", draw = { images = { body = "crane.svg" }, { "image", "body" } } }"#,
            &[("crane.svg", file.as_bytes())],
        );
        assert!(e.contains(want), "wanted {want:?} in {e}");
        assert!(e.contains("custom.lua:1"), "the declaration's line: {e}");
    }
}

#[test]
fn pictures_come_only_from_beside_the_script() {
    for (name, want) in [
        (
            "../crane.svg",
            "expected the name of an .svg file beside the script",
        ),
        (
            "/etc/passwd",
            "expected the name of an .svg file beside the script",
        ),
        (
            "crane.png",
            "expected the name of an .svg file beside the script",
        ),
        (
            ".hidden.svg",
            "expected the name of an .svg file beside the script",
        ),
        ("missing.svg", "missing.svg"),
    ] {
        let e = load_error(
            &format!(
                r#"return rally.element {{ name = "crane", draw = {{ images = {{ body = "{name}" }} }} }}"#
            ),
            &[],
        );
        assert!(e.contains(want), "{name}: {e}");
    }
}

/// Every bundled icon passes the sanitiser and is drawn by name; an icon's file written out
/// again is what the picture gets.
#[test]
fn the_bundled_icons_are_all_drawable() {
    let mut names: Vec<String> = std::fs::read_dir("assets/icons")
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            name.strip_suffix(".svg").map(String::from)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 19, "{names:?}");
    let parts: Vec<String> = names
        .iter()
        .map(|n| format!("{{ \"icon\", \"{n}\" }}"))
        .collect();
    let svg = drawn(
        &format!(
            "return rally.element {{ name = \"icons\", draw = {{ {} }} }}",
            parts.join(", ")
        ),
        "icons",
        "",
    );
    assert!(!svg.contains("fallback"));
    assert!(svg.contains("icon-ramp-shade"), "ids are prefixed per icon");
    let _ = Path::new("assets/icons");
}
