//! Layers (docs/packs.md): a project's scripts and variants, and the packs its `rally.toml`
//! names, layered on the built-in standard game. A new name adds, the same name replaces
//! with a notice, two packs clash, `base = "none"` leaves the standard game out; the manifest
//! is checked at its lines; the catalogues, the rules hash and the worked example of
//! docs/packs.md.

use crate::support;

use serde_json::Value;
use std::path::Path;
use support::{rally, rally_ok};

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit status 2 and the stderr that says why.
fn refused(dir: &Path, args: &[&str]) -> String {
    let out = rally(dir, args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "rally {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn json(dir: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&rally_ok(dir, args)).unwrap()
}

/// The entry of `list` (`elements`, `options`, `variants`) named `name`.
fn entry<'a>(doc: &'a Value, list: &str, name: &str) -> &'a Value {
    doc[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

const BEACON: &str = "return rally.element {\n  name = \"beacon\",\n  describe = \"A light to steer by.\",\n  glyph = \"B\",\n}\n";

/// A robot drives over a beacon on the standard floor.
const BEACON_SCENARIO: &str = "board = { grid = \". B .\", legend = { \".\" = \"floor\", \"B\" = \"beacon\" } }\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\nprogram = [\"move2\"]\n[expect.A]\nat = [2, 0]\n";

/// An element that always turns robots `turn` (taking, and ignoring, a gear's parameter).
fn spinner(name: &str, turn: &str) -> String {
    format!(
        "return rally.element {{\n  name = \"{name}\",\n  describe = \"Turns a robot on it {turn}.\",\n  params = {{ turn = rally.param.rotation {{ default = \"right\", describe = \"not heeded\" }} }},\n  steps = {{ gears = function(ctx, tile, robot) ctx:rotate(robot, \"{turn}\", \"{name}\") end }},\n}}\n"
    )
}

/// A robot standing on the right-turning gear, which it must face E after.
const GEAR_SCENARIO: &str = "board = { grid = \"G\", legend = { \"G\" = { element = \"gear\", turn = \"right\" } } }\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n[expect.A]\nfacing = \"E\"\n";

#[test]
fn a_project_with_one_element_stands_beside_the_built_ins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "scripts/elements/beacon.lua", BEACON);
    write(d, "s.toml", BEACON_SCENARIO);
    let out = rally(d, &["test", "s.toml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).is_empty(),
        "nothing replaced, nothing noted: {}",
        stderr(&out)
    );
    // From a folder below, and from elsewhere, the project is found the same.
    write(d, "deep/er/s.toml", BEACON_SCENARIO);
    rally_ok(&d.join("deep"), &["test", "er/s.toml"]);
    let doc = json(d, &["elements", "--json"]);
    assert_eq!(entry(&doc, "elements", "beacon")["layer"], "project");
    assert_eq!(entry(&doc, "elements", "floor")["layer"], "built-in");
    assert_eq!(entry(&doc, "elements", "floor")["replaces"], Value::Null);
    assert_eq!(doc["layers"][0]["layer"], "built-in");
    assert_eq!(doc["layers"][1]["layer"], "project");
    assert_eq!(doc["layers"][1]["scripts"], "scripts");
    // A truly unknown element says which layers were searched.
    write(
        d,
        "s.toml",
        &BEACON_SCENARIO.replace("= \"beacon\"", "= \"beakon\""),
    );
    let err = refused(d, &["run", "s.toml"]);
    assert!(
        err.contains("unknown element `beakon` (did you mean `beacon`?); searched the layers built-in, project (scripts); no variant switched on"),
        "{err}"
    );
}

#[test]
fn replacing_a_built_in_is_noted_once_and_an_unchanged_copy_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let standard = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/elements/gear.lua");
    std::fs::create_dir_all(d.join("scripts/elements")).unwrap();
    std::fs::copy(&standard, d.join("scripts/elements/gear.lua")).unwrap();
    write(d, "tests/scenarios/a.toml", GEAR_SCENARIO);
    write(d, "tests/scenarios/b.toml", GEAR_SCENARIO);
    let out = rally(d, &["test"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    let gear = |doc: &Value| entry(doc, "elements", "gear").clone();
    let unchanged = gear(&json(d, &["elements", "--json", "gear"]));
    assert_eq!(unchanged["layer"], "project");
    assert_eq!(unchanged["replaces"], "built-in");
    assert!(rally_ok(d, &["elements", "gear"])
        .contains("(project: scripts/elements/gear.lua, an unchanged copy of built-in's)"));

    // The project's gear turns the other way: both scenarios fail, the notice comes once.
    let text = std::fs::read_to_string(&standard).unwrap();
    write(
        d,
        "scripts/elements/gear.lua",
        &text.replace(
            "gears = rally.effect.rotate(\"turn\", { by = \"gear\" }),",
            "gears = function(ctx, tile, robot) ctx:rotate(robot, \"left\", \"gear\") end,",
        ),
    );
    let out = rally(d, &["test"]);
    assert_eq!(out.status.code(), Some(1));
    let notice = "note: project: scripts/elements/gear.lua replaces element `gear` (built-in)";
    assert_eq!(stderr(&out).matches(notice).count(), 1, "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 passed, 2 failed"));
    let out = rally(d, &["-q", "test"]);
    assert!(!stderr(&out).contains("note:"), "-q: {}", stderr(&out));
    assert!(rally_ok(d, &["elements", "gear"])
        .contains("(project: scripts/elements/gear.lua, replaces built-in)"));

    // The same holds for rules and options.
    write(
        d,
        "scripts/options/brakes.lua",
        "return rally.option { name = \"brakes\", describe = \"mine\" }\n",
    );
    let doc = json(d, &["options", "--json", "brakes"]);
    assert_eq!(entry(&doc, "options", "brakes")["layer"], "project");
    assert_eq!(entry(&doc, "options", "brakes")["replaces"], "built-in");
    let out = rally(d, &["options", "brakes"]);
    assert!(
        stderr(&out).contains(
            "note: project: scripts/options/brakes.lua replaces option `brakes` (built-in)"
        ),
        "{}",
        stderr(&out)
    );
}

/// A pack (a folder inside the project, named in its rally.toml) is a layer between the base
/// and the project: it adds names, may replace built-in ones, and the project may replace
/// its names.
#[test]
fn a_pack_is_layered_between_the_base_and_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "rally.toml", "packs = [\"packs/spin\"]\n");
    write(
        d,
        "packs/spin/rally.toml",
        "name = \"spinning\"\nversion = \"2.1\"\n",
    );
    write(
        d,
        "packs/spin/scripts/elements/spinner.lua",
        &spinner("spinner", "left"),
    );
    write(
        d,
        "packs/spin/scripts/elements/gear.lua",
        &spinner("gear", "left"),
    );
    write(
        d,
        "s.toml",
        &GEAR_SCENARIO.replace("facing = \"E\"", "facing = \"W\""),
    );
    let out = rally(d, &["test", "s.toml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("note: pack spinning: packs/spin/scripts/elements/gear.lua replaces element `gear` (built-in)"),
        "{}",
        stderr(&out)
    );
    let doc = json(d, &["elements", "--json"]);
    assert_eq!(entry(&doc, "elements", "spinner")["layer"], "pack spinning");
    assert_eq!(doc["layers"][1]["version"], "2.1");
    assert_eq!(doc["layers"][1]["manifest"], "packs/spin/rally.toml");
    let text = rally_ok(d, &["elements"]);
    assert!(
        text.starts_with("Layers, lowest first: built-in 0.1.0, pack spinning 2.1 (packs/spin), project (rally.toml)"),
        "{text}"
    );
    // The project replaces the pack's gear.
    write(d, "scripts/elements/gear.lua", &spinner("gear", "right"));
    write(d, "s.toml", GEAR_SCENARIO);
    let out = rally(d, &["test", "s.toml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "note: project: scripts/elements/gear.lua replaces element `gear` (pack spinning)"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        entry(&json(d, &["elements", "--json"]), "elements", "gear")["replaces"],
        "pack spinning"
    );
}

#[test]
fn two_packs_defining_one_name_is_an_error_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "rally.toml", "packs = [\"packs/a\", \"packs/b\"]\n");
    write(
        d,
        "packs/a/scripts/elements/spinner.lua",
        &spinner("spinner", "left"),
    );
    write(
        d,
        "packs/b/scripts/elements/turner.lua",
        &spinner("spinner", "right"),
    );
    write(d, "s.toml", BEACON_SCENARIO);
    let err = refused(d, &["run", "s.toml"]);
    assert!(
        err.contains("element `spinner` is defined by two packs, pack a (packs/a/scripts/elements/spinner.lua) and pack b (packs/b/scripts/elements/turner.lua)"),
        "{err}"
    );
    // Variants too.
    std::fs::remove_file(d.join("packs/b/scripts/elements/turner.lua")).unwrap();
    for pack in ["a", "b"] {
        write(
            d,
            &format!("packs/{pack}/variants/fast/variant.toml"),
            "name = \"fast\"\ndescription = \"d\"\n",
        );
    }
    let err = refused(d, &["variants"]);
    assert!(
        err.contains("variant `fast` is defined twice, by pack a (packs/a/variants/fast/variant.toml) and by pack b (packs/b/variants/fast/variant.toml)"),
        "{err}"
    );
}

#[test]
fn variants_come_from_every_layer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rink = Path::new(env!("CARGO_MANIFEST_DIR")).join("variants/ice-rink");
    support::copy_dir(&rink, &d.join("variants/ice-rink"));
    write(d, "rally.toml", "packs = [\"packs/v\"]\n");
    write(
        d,
        "packs/v/variants/calm/variant.toml",
        "name = \"calm\"\ndescription = \"nothing happens\"\nfiles = [\"calm.lua\"]\n",
    );
    write(
        d,
        "packs/v/variants/calm/calm.lua",
        "return rally.element { name = \"calm_floor\", describe = \"still\" }\n",
    );
    let doc = json(d, &["variants", "--json"]);
    assert_eq!(entry(&doc, "variants", "calm")["layer"], "pack v");
    assert_eq!(entry(&doc, "variants", "ice-rink")["layer"], "project");
    assert_eq!(entry(&doc, "variants", "ice-rink")["replaces"], "built-in");
    assert_eq!(entry(&doc, "variants", "thaw")["layer"], "built-in");
    // An element of a pack's variant that is not switched on: the error says which.
    write(
        d,
        "s.toml",
        "board = { grid = \"C\", legend = { \"C\" = \"calm_floor\" } }\n",
    );
    let err = refused(d, &["run", "s.toml"]);
    assert!(
        err.contains("`calm_floor` is defined by the variant `calm`"),
        "{err}"
    );
    let out = rally(d, &["run", "s.toml", "--variant", "calm"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The project's ice-rink is an unchanged copy: switched on, nothing is noted; changed, it is.
    write(
        d,
        "s.toml",
        "variants = [\"ice-rink\"]\nboard = { grid = \"~\", legend = { \"~\" = \"ice\" } }\n",
    );
    let out = rally(d, &["run", "s.toml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));
    let toml = d.join("variants/ice-rink/variant.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text + "\n# ours\n").unwrap();
    let out = rally(d, &["run", "s.toml"]);
    assert!(
        stderr(&out)
            .contains("note: project: variants/ice-rink/ replaces variant `ice-rink` (built-in)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn base_none_leaves_the_standard_game_out() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "rally.toml", "base = \"none\"\n");
    write(d, "scripts/elements/beacon.lua", BEACON);
    write(d, "s.toml", BEACON_SCENARIO);
    let err = refused(d, &["run", "s.toml"]);
    assert!(
        err.contains("unknown element `floor`; searched the layers project (scripts) (no built-in base: rally.toml says base = \"none\")"),
        "{err}"
    );
    write(
        d,
        "scripts/elements/floor.lua",
        "return rally.element { name = \"floor\", describe = \"mine\" }\n",
    );
    rally_ok(d, &["test", "s.toml"]);
    let doc = json(d, &["elements", "--json"]);
    assert_eq!(doc["elements"].as_array().unwrap().len(), 2);
    assert_eq!(doc["rules"].as_array().unwrap().len(), 0);
    assert_eq!(doc["layers"].as_array().unwrap().len(), 1);
    let doc = json(d, &["variants", "--json"]);
    assert_eq!(doc["variants"].as_array().unwrap().len(), 0);
    std::fs::remove_dir_all(d.join("scripts")).unwrap();
    let err = refused(d, &["run", "s.toml"]);
    assert!(err.contains("no scripts in the layers"), "{err}");
}

/// Every mistake in a manifest is refused at its line and column, before anything loads;
/// what a hostile project could name (a folder outside it, by path or link, a chain of
/// packs, thousands of them) is refused the same way.
#[test]
fn manifest_errors_are_at_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("p");
    write(&d, "s.toml", BEACON_SCENARIO);
    write(&d, "scripts/elements/beacon.lua", BEACON);
    write(
        &d,
        "packs/ok/scripts/elements/spinner.lua",
        &spinner("spinner", "left"),
    );
    write(&d, "packs/twin/rally.toml", "name = \"ok\"\n");
    write(
        &d,
        "packs/twin/scripts/elements/turner.lua",
        &spinner("turner", "left"),
    );
    std::fs::create_dir_all(d.join("packs/empty")).unwrap();
    write(
        dir.path(),
        "outside/scripts/elements/spinner.lua",
        &spinner("spinner", "left"),
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("outside"), d.join("packs/link")).unwrap();
    let many = format!(
        "packs = [{}]\n",
        (0..33)
            .map(|_| "\"packs/ok\"")
            .collect::<Vec<_>>()
            .join(", ")
    );
    let cases: Vec<(String, &str)> = vec![
        ("packz = []\n".into(), "rally.toml:1:1: unknown field `packz`, expected one of `name`, `version`, `rally_version`, `packs`, `base`"),
        ("base = \"nothing\"\n".into(), "rally.toml:1:8: unknown value `nothing`, expected `standard` or `none`"),
        ("name = \"my game\"\n".into(), "rally.toml:1:8: `name`: letters, digits, - and _"),
        ("rally_version = \"99.0\"\n".into(), "rally.toml:1:17: needs rally 99.0 or later, and this is rally"),
        ("rally_version = \">=0.1\"\n".into(), "rally.toml:1:17: `rally_version = \">=0.1\"`: expected the oldest rally version it works with"),
        ("packs = \"packs/ok\"\n".into(), "rally.toml:1:9: expected a list"),
        ("packs = [\"/etc\"]\n".into(), "rally.toml:1:10: pack `/etc`: name a pack by its path from this file's folder"),
        ("packs = [\"packs/none\"]\n".into(), "rally.toml:1:10: pack `packs/none`: there is no folder"),
        ("packs = [\"../outside\"]\n".into(), "rally.toml:1:10: pack `../outside` is outside the project"),
        ("packs = [\"packs/ok\", \"packs/../packs/ok\"]\n".into(), "rally.toml:1:22: pack `packs/../packs/ok` is named twice (first as `packs/ok`)"),
        ("packs = [\".\"]\n".into(), "rally.toml:1:10: pack `.` is the project itself"),
        ("packs = [\"packs/empty\"]\n".into(), "rally.toml:1:10: pack `packs/empty` holds no rules"),
        ("packs = [\"packs/ok\", \"packs/twin\"]\n".into(), "rally.toml:1:22: pack `packs/twin` is called `ok`, as is pack ok (packs/ok)"),
        (many, "rally.toml:1:"),
    ];
    for (text, wanted) in &cases {
        write(&d, "rally.toml", text);
        let err = refused(&d, &["run", "s.toml"]);
        assert!(err.contains(wanted), "{text}: expected `{wanted}` in {err}");
    }
    write(&d, "rally.toml", &cases.last().unwrap().0);
    assert!(refused(&d, &["run", "s.toml"]).contains("more than 32 packs"));
    #[cfg(unix)]
    {
        write(&d, "rally.toml", "packs = [\"packs/link\"]\n");
        let err = refused(&d, &["run", "s.toml"]);
        assert!(
            err.contains("pack `packs/link` is outside the project"),
            "{err}"
        );
    }
    // A pack's own manifest names what it is, never what it is layered on.
    write(&d, "rally.toml", "packs = [\"packs/ok\"]\n");
    for (text, wanted) in [
        (
            "packs = [\"../twin\"]\n",
            "packs/ok/rally.toml:1:9: a pack does not name packs",
        ),
        (
            "base = \"none\"\n",
            "packs/ok/rally.toml:1:8: a pack does not choose the base",
        ),
    ] {
        write(&d, "packs/ok/rally.toml", text);
        let err = refused(&d, &["run", "s.toml"]);
        assert!(err.contains(wanted), "{text}: expected `{wanted}` in {err}");
    }
    // Every command that reads the rules says the same.
    for args in [
        &["elements"][..],
        &["variants"],
        &["options"],
        &["test", "s.toml"],
    ] {
        let out = rally(&d, args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(
            stderr(&out).contains("a pack does not choose the base")
                || String::from_utf8_lossy(&out.stdout).contains("a pack does not choose the base"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

/// A study's rules hash names every layer's files by their place in the layer.
#[test]
fn the_rules_hash_covers_every_layer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let game = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/games/shards.toml"),
    )
    .unwrap();
    write(d, "game.toml", &game);
    write(d, "rally.toml", "packs = [\"packs/spin\"]\n");
    write(
        d,
        "packs/spin/scripts/elements/spinner.lua",
        &spinner("spinner", "left"),
    );
    write(d, "scripts/elements/beacon.lua", BEACON);
    let doc = json(d, &["sim", "game.toml", "--games", "2", "-q", "--json"]);
    let files = doc["rules"]["files"].as_object().unwrap();
    for name in [
        "rally.toml",
        "scripts/elements/beacon.lua",
        "packs/spin/scripts/elements/spinner.lua",
        "built-in/scripts/elements/gear.lua",
    ] {
        assert!(files.contains_key(name), "{name} not in {:?}", files.keys());
    }
    let before = doc["rules"]["sha256"].clone();
    write(
        d,
        "packs/spin/scripts/elements/spinner.lua",
        &spinner("spinner", "right"),
    );
    let after = json(d, &["sim", "game.toml", "--games", "2", "-q", "--json"]);
    assert_ne!(
        before, after["rules"]["sha256"],
        "a pack's edit changes the hash"
    );
}

/// docs/packs.md builds a project with a pack of spring pads: each block that starts with
/// a comment naming a file is that file. The project must pass `rally test`.
#[test]
fn the_worked_example_of_docs_packs_passes() {
    let page = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/packs.md"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("my-game");
    let mut written = Vec::new();
    for lang in ["toml", "lua"] {
        for block in page.split(&format!("```{lang}\n")).skip(1) {
            let body = block.split("```").next().unwrap();
            let first = body.lines().next().unwrap_or_default();
            let Some(file) = first
                .strip_prefix("# ")
                .or_else(|| first.strip_prefix("-- "))
            else {
                continue;
            };
            if file.ends_with(".toml") || file.ends_with(".lua") {
                write(&d, file, body);
                written.push(file.to_string());
            }
        }
    }
    written.sort();
    assert_eq!(
        written,
        [
            "packs/springs/rally.toml",
            "packs/springs/scripts/elements/spring_pad.lua",
            "rally.toml",
            "tests/scenarios/spring.toml"
        ],
        "docs/packs.md lost part of its worked example"
    );
    let out = rally_ok(&d, &["test"]);
    assert!(out.contains("1 passed, 0 failed"), "{out}");
    assert!(rally_ok(&d, &["elements", "spring_pad"])
        .contains("(pack springs: packs/springs/scripts/elements/spring_pad.lua)"));
    // Without the pack the scenario cannot load: the pack is what it tests.
    write(&d, "rally.toml", "name = \"my-game\"\n");
    let out = rally(&d, &["test"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A pack's or the project's file that leads outside the project (a link, a variant listing
/// `../..`) is refused before it is read: a project someone sends reads nothing else of the
/// machine, not even into an error message.
#[cfg(unix)]
#[test]
fn files_that_lead_outside_the_project_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("p");
    write(dir.path(), "secret.txt", "a private line\n");
    write(&d, "rally.toml", "packs = [\"packs/a\"]\n");
    write(&d, "s.toml", BEACON_SCENARIO);
    write(&d, "scripts/elements/beacon.lua", BEACON);
    let link = d.join("packs/a/scripts/elements/x.lua");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), &link).unwrap();
    let err = refused(&d, &["run", "s.toml"]);
    assert!(
        err.contains("packs/a/scripts/elements/x.lua: is outside the project folder"),
        "{err}"
    );
    assert!(!err.contains("private"), "{err}");
    std::fs::remove_file(&link).unwrap();
    write(
        &d,
        "packs/a/scripts/elements/ok.lua",
        &spinner("ok", "left"),
    );
    write(
        &d,
        "packs/a/variants/v/variant.toml",
        "name = \"v\"\ndescription = \"d\"\nfiles = [\"../../../../../secret.txt\"]\n",
    );
    let err = refused(&d, &["run", "s.toml", "--variant", "v"]);
    assert!(
        err.contains("secret.txt: is outside the project folder"),
        "{err}"
    );
    assert!(!err.contains("private"), "{err}");
    // A variant.toml or a pack's rally.toml that is a link leading out.
    std::fs::remove_file(d.join("packs/a/variants/v/variant.toml")).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("secret.txt"),
        d.join("packs/a/variants/v/variant.toml"),
    )
    .unwrap();
    let err = refused(&d, &["variants"]);
    assert!(
        err.contains("v/variant.toml: is outside the project folder"),
        "{err}"
    );
    std::fs::remove_dir_all(d.join("packs/a/variants")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.txt"), d.join("packs/a/rally.toml"))
        .unwrap();
    let err = refused(&d, &["run", "s.toml"]);
    assert!(
        err.contains("packs/a/rally.toml: is outside the project folder"),
        "{err}"
    );
    assert!(!err.contains("private"), "{err}");
    std::fs::remove_file(d.join("packs/a/rally.toml")).unwrap();
    // The project's own scripts too.
    std::os::unix::fs::symlink(
        dir.path().join("secret.txt"),
        d.join("scripts/elements/y.lua"),
    )
    .unwrap();
    let err = refused(&d, &["run", "s.toml"]);
    assert!(
        err.contains("scripts/elements/y.lua: is outside the project folder"),
        "{err}"
    );
}

/// docs/packs.md shows the toll gate example's element as the file in examples/ holds it
/// (its scenarios run with the others: tests/scenarios.rs).
#[test]
fn the_toll_gate_page_shows_the_pack_as_it_is() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/packs.md")).unwrap();
    let script = std::fs::read_to_string(
        root.join("examples/toll-gate/packs/tolls/scripts/elements/toll_gate.lua"),
    )
    .unwrap();
    let section = &page[page.find("## A worked example: a toll gate").unwrap()..];
    let marker = "```lua\n";
    let shown = &section[section.find(marker).expect("the page shows the gate") + marker.len()..];
    let shown = &shown[..shown.find("```").unwrap()];
    assert_eq!(shown, script);
    let out = rally_ok(&root.join("examples/toll-gate"), &["test"]);
    assert!(out.contains("8 passed, 0 failed"), "{out}");
}
