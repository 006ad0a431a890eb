//! Variants from the command line: what scenario files cannot check themselves (errors, the
//! `rally variants` listing, `--variant`, logged events) and the walk-through of
//! docs/variants.md (copy the Ice Rink, change one rule, see the difference).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `rally` with the project's scripts and the given variants folder.
fn rally(variants: &Path, args: &[&str]) -> Output {
    let mut command = support::rally_command(support::root(), &["--scripts"]);
    command
        .arg(root().join("scripts"))
        .arg("--variants")
        .arg(variants)
        .args(args);
    support::finish(&mut command)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Two robots facing each other on plain floor, with `extra` lines (variants...) on top.
fn duel(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("duel.toml");
    std::fs::write(
        &path,
        format!(
            r#"{extra}
[board]
grid = ". . . ."
[board.legend]
"." = "floor"
[[robot]]
name = "A"
at = [0, 0]
facing = "E"
[[robot]]
name = "B"
at = [3, 0]
facing = "W"
"#
        ),
    )
    .unwrap();
    path
}

fn robot_damage(json: &serde_json::Value, name: &str) -> i64 {
    json["robots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap()["damage"]
        .as_i64()
        .unwrap()
}

#[test]
fn incompatible_variants_are_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let file = duel(
        dir.path(),
        r#"variants = ["no-robot-lasers", "rear-lasers"]"#,
    );
    let out = rally(&root().join("variants"), &["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("`no-robot-lasers`") && err.contains("`rear-lasers`"),
        "{err}"
    );
    assert!(err.contains("cannot be combined"), "{err}");

    // The same when the second one comes from the command line.
    let file = duel(dir.path(), r#"variants = ["rear-lasers"]"#);
    let out = rally(
        &root().join("variants"),
        &[
            "run",
            file.to_str().unwrap(),
            "--variant",
            "no-robot-lasers",
        ],
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("`no-robot-lasers`") && err.contains("`rear-lasers`"),
        "{err}"
    );
}

#[test]
fn variant_flag_switches_a_variant_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = duel(dir.path(), "");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", file.to_str().unwrap(), "--json"];
        args.extend(extra);
        let out = rally(&root().join("variants"), &args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(robot_damage(&run(&[]), "A"), 1);
    assert_eq!(
        robot_damage(&run(&["--variant", "no-robot-lasers"]), "A"),
        0
    );
}

#[test]
fn nothing_of_a_variant_is_loaded_unless_switched_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ice.toml");
    std::fs::write(
        &file,
        "[board]\ngrid = \"~ ~\"\n[board.legend]\n\"~\" = \"ice\"\n",
    )
    .unwrap();
    let out = rally(&root().join("variants"), &["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown element `ice`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn variants_command_lists_every_variant_with_parameters() {
    let out = rally(&root().join("variants"), &["variants"]);
    assert!(out.status.success());
    let listing = text(&out.stdout);
    for needle in [
        "ice-rink",
        "speed_damage",
        "repair-2005",
        "more-lives",
        "extra",
        "no-robot-lasers",
        "rear-lasers",
        "gold-belts",
        "gold_belts",
    ] {
        assert!(
            listing.contains(needle),
            "`{needle}` missing from:\n{listing}"
        );
    }
}

#[test]
fn repair_2005_logs_the_option_drawn() {
    let scenario = root().join("tests/scenarios/variants/repair_2005_double_wrench.toml");
    let out = rally(
        &root().join("variants"),
        &["run", scenario.to_str().unwrap(), "--json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let drawn = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["what"] == "option_drawn")
        .count();
    assert_eq!(drawn, 1);
}

#[test]
fn ice_chart_is_in_the_json_vars() {
    let scenario = root().join("tests/scenarios/ice-rink/spinbot_1_move1.toml");
    let out = rally(
        &root().join("variants"),
        &["run", scenario.to_str().unwrap(), "--json"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["robots"][0]["vars"]["ice"],
        serde_json::json!({"spin": 1, "vx": -1, "vy": -1})
    );
}

/// docs/variants.md, "Walk-through": copy ice-rink, rename it, lower the speed limit in Lua,
/// switch it on in one scenario and see a different result.
#[test]
fn guide_walkthrough_copy_ice_rink_and_change_a_rule() {
    let dir = tempfile::tempdir().unwrap();
    let variants = dir.path().join("variants");
    support::copy_dir(
        &root().join("variants/ice-rink"),
        &variants.join("slow-rink"),
    );
    let toml = variants.join("slow-rink/variant.toml");
    let text_of = |p: &Path| std::fs::read_to_string(p).unwrap();
    let changed = text_of(&toml).replace("name = \"ice-rink\"", "name = \"slow-rink\"");
    std::fs::write(&toml, changed).unwrap();
    let lua = variants.join("slow-rink/ice.lua");
    let original = text_of(&lua);
    assert!(
        original.contains("local LIMIT = 6"),
        "the guide's line is gone"
    );
    std::fs::write(&lua, original.replace("local LIMIT = 6", "local LIMIT = 3")).unwrap();

    let scenario = |variant: &str| {
        let path = dir.path().join(format!("{variant}.toml"));
        std::fs::write(
            &path,
            format!(
                r#"variants = ["{variant}"]
[board]
grid = "~ ~ ~ ~ ~ ~ ~ ~ ~ ~ ~ ~"
[board.legend]
"~" = "ice"
[[robot]]
name = "A"
at = [0, 0]
facing = "E"
program = ["move3", "move3"]
"#
            ),
        )
        .unwrap();
        let out = rally(&variants, &["run", path.to_str().unwrap(), "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["robots"][0]["at"].clone()
    };
    support::copy_dir(
        &root().join("variants/ice-rink"),
        &variants.join("ice-rink"),
    );
    // Standard rink: Move 3 gives speed 3 (slide to x = 3), the second Move 3 speed 6 (x = 9).
    assert_eq!(scenario("ice-rink"), serde_json::json!([9, 0]));
    // Speed limit 3: the second Move 3 adds nothing, so it slides only 3 more (x = 6).
    assert_eq!(scenario("slow-rink"), serde_json::json!([6, 0]));
}

/// The elements `rally elements` lists with the file that defines them, from its output.
fn elements_with_files(out: &Output) -> Vec<(String, String)> {
    let listing = text(&out.stdout);
    let lines: Vec<&str> = listing.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0].starts_with("  ") && !w[0].starts_with("   "))
        .filter_map(|w| {
            let name = w[0].split_whitespace().next()?.to_string();
            let file = w[1]
                .trim()
                .strip_prefix('(')?
                .strip_suffix(')')?
                .to_string();
            Some((name, file))
        })
        .collect()
}

/// What `rally run` says of a one-square board made of `element` (written in `dir`).
fn error_for_board_of(variants: &Path, dir: &Path, element: &str) -> String {
    let board = dir.join(format!("{element}.toml"));
    std::fs::write(
        &board,
        format!("[board]\ngrid = \"x\"\n[board.legend]\n\"x\" = \"{element}\"\n"),
    )
    .unwrap();
    let out = rally(variants, &["run", board.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{element}");
    text(&out.stderr)
}

#[test]
fn unknown_element_names_the_variant_that_defines_it() {
    let variants = root().join("variants");
    let standard: Vec<String> = elements_with_files(&rally(&variants, &["elements"]))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    // Each element a variant adds, with the variants whose files declare it (thaw declares
    // the Ice Rink's `ice` again, to replace it).
    let mut added: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for variant in std::fs::read_dir(&variants).unwrap() {
        let name = variant.unwrap().file_name().to_string_lossy().into_owned();
        let listed = rally(&variants, &["elements", "--variant", &name]);
        for (element, file) in elements_with_files(&listed) {
            if !standard.contains(&element) && file.contains(&format!("variants/{name}/")) {
                added.entry(element).or_default().push(name.clone());
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for (element, declared_by) in &added {
        let err = error_for_board_of(&variants, dir.path(), element);
        let named = declared_by.iter().find(|v| {
            err.contains(&format!(
                "unknown element `{element}`: `{element}` is defined by the variant `{v}`: add `variants = [\"{v}\"]`"
            ))
        });
        assert!(named.is_some(), "{element} ({declared_by:?}): {err}");
        checked += 1;
    }
    assert!(
        checked >= 4,
        "ice, snow, ice_hole, gold_belt at least: {checked}"
    );

    // A variant of the designer's own, in the variants folder in use, is named too.
    let mine = dir.path().join("variants");
    support::copy_dir(&variants, &mine);
    std::fs::create_dir_all(mine.join("springs")).unwrap();
    std::fs::write(
        mine.join("springs/variant.toml"),
        "name = \"springs\"\ndescription = \"Spring pads\"\nfiles = [\"spring.lua\"]\n",
    )
    .unwrap();
    std::fs::write(
        mine.join("springs/spring.lua"),
        "rally.element { name = \"spring\", describe = \"A spring pad.\" }\n",
    )
    .unwrap();
    let err = error_for_board_of(&mine, dir.path(), "spring");
    assert!(
        err.contains("`spring` is defined by the variant `springs`"),
        "{err}"
    );
    // Nobody defines it: the usual suggestion.
    let err = error_for_board_of(&variants, dir.path(), "gaer");
    assert!(
        err.contains("unknown element `gaer` (did you mean `gear`?)"),
        "{err}"
    );
}

/// The warnings `rally sim` prints for the variants of each column (no games are played).
fn idle_warnings(game: &str, compare: &str) -> String {
    let out = rally(
        &root().join("variants"),
        &["sim", game, "--games", "0", "--compare", compare],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_variant_that_changes_nothing_on_the_board_is_warned_about() {
    let bots = root().join("games/bots.toml");
    let bots = bots.to_str().unwrap();
    let warning = idle_warnings(bots, "ice-rink");
    assert!(
        warning.contains(
            "the variant `ice-rink` changes nothing on the board `Practice Floor`: none of the elements it defines (`ice`, `snow`, `ice_hole`) is on the board"
        ),
        "{warning}"
    );
    assert!(idle_warnings(bots, "gold-belts").contains("`gold-belts` changes nothing"));
    // Rules act on any board: a house rule with handlers, a replaced rule without any.
    assert_eq!(idle_warnings(bots, "more-lives"), "");
    assert_eq!(idle_warnings(bots, "no-robot-lasers"), "");
    // The practice floor has repair sites, which repair-2005 replaces.
    assert_eq!(idle_warnings(bots, "repair-2005"), "");
    // The ice rink has ice.
    let rink = root().join("games/ice-rink-bots.toml");
    assert_eq!(idle_warnings(rink.to_str().unwrap(), "more-lives"), "");
    // A comparison that adds nothing.
    assert!(idle_warnings(rink.to_str().unwrap(), "ice-rink").contains(
        "two columns switch on the same variants with the same settings: they are the same games"
    ));
    // `rally play` warns too, before the game.
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("bots.save.json");
    let out = rally(
        &root().join("variants"),
        &[
            "play",
            bots,
            "--fast",
            "--variant",
            "gold-belts",
            "--save",
            save.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).starts_with("warning: ")
            && text(&out.stderr).contains("the variant `gold-belts` changes nothing"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_variant_requires_others_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let variants = dir.path().join("variants");
    support::copy_dir(&root().join("variants"), &variants);
    // `thaw` pulls `ice-rink` in, with the parameters the file gives it.
    let file = duel(
        dir.path(),
        "variants = [\"thaw\", \"ice-rink\"]\n[variant.ice-rink]\nspeed_damage = \"max\"",
    );
    let out = rally(&variants, &["run", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Two variants that require each other.
    for (name, other) in [("a", "b"), ("b", "a")] {
        std::fs::create_dir_all(variants.join(name)).unwrap();
        std::fs::write(
            variants.join(name).join("variant.toml"),
            format!("name = \"{name}\"\ndescription = \"x\"\nrequires = [\"{other}\"]\n"),
        )
        .unwrap();
    }
    let file = duel(dir.path(), "variants = [\"a\"]");
    let out = rally(&variants, &["run", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("variants require each other in a circle: a → b → a"),
        "{}",
        text(&out.stderr)
    );
    // A requirement that does not exist says who wants it.
    std::fs::write(
        variants.join("a/variant.toml"),
        "name = \"a\"\ndescription = \"x\"\nrequires = [\"nope\"]\n",
    )
    .unwrap();
    let out = rally(&variants, &["run", file.to_str().unwrap()]);
    assert!(
        text(&out.stderr).contains("unknown variant `nope`, required by `a`"),
        "{}",
        text(&out.stderr)
    );
}
