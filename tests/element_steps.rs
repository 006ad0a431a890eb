//! Issue 12 §3: an element that needs a moment of its own in the order of play declares the
//! step (`new_steps`), without a variant. The spring pad (tests/element_steps/) throws robots
//! after the crushers and before the lasers.

use crate::support;

use std::path::Path;

/// A project: the standard scripts plus `tests/element_steps/spring_pad.lua` (or `pad`, if
/// given, in its place), and the spring pad's scenario.
fn project(pad: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixtures = root.join("tests/element_steps");
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    let script = match pad {
        Some(text) => text.to_string(),
        None => std::fs::read_to_string(fixtures.join("spring_pad.lua")).unwrap(),
    };
    std::fs::write(dir.path().join("scripts/elements/spring_pad.lua"), script).unwrap();
    std::fs::copy(
        fixtures.join("spring_pad.toml"),
        dir.path().join("spring_pad.toml"),
    )
    .unwrap();
    dir
}

#[test]
fn a_spring_pad_acts_in_its_own_step() {
    let dir = project(None);
    support::rally_ok(dir.path(), &["test", "spring_pad.toml"]);
    // `rally elements` shows the step in the order of play, where it was put.
    let steps = support::rally_ok(dir.path(), &["elements"]);
    let crushers = steps.find("\n  crushers").expect(&steps);
    let springs = steps
        .find("\n  springs         board_elements  C6: spring pads throw robots")
        .expect(&steps);
    let fire = steps.find("\n  fire").expect(&steps);
    assert!(crushers < springs && springs < fire, "{steps}");
}

#[test]
fn a_new_step_must_have_a_place_and_a_new_name() {
    let refused = |steps: &str, message: &str| {
        let pad = format!(
            "return rally.element {{\n  name = \"spring_pad\",\n  new_steps = {{ {steps} }},\n}}\n"
        );
        let dir = project(Some(&pad));
        let out = support::rally_refused(dir.path(), &["run", "spring_pad.toml"]);
        let first = format!("error: scripts/elements/spring_pad.lua:1: element `spring_pad`, new_steps[1]: {message}\n");
        assert!(out.contains(&first), "{out}");
    };
    refused(
        "{ name = \"springs\", after = \"crusher\" }",
        "step `springs`: there is no step `crusher` (did you mean `crushers`?)",
    );
    refused(
        "{ name = \"gears\", after = \"crushers\" }",
        "step `gears` already exists",
    );
    refused(
        "{ name = \"springs\" }",
        "step `springs` needs exactly one of `before` or `after`",
    );
}

/// Checks that the spring pad written as `pad` is refused, the error at one of `at` and
/// saying `message`.
fn refuses(pad: &str, at: &[&str], message: &str) {
    let dir = project(Some(pad));
    let out = assert_refused(dir.path(), "spring_pad.toml", message);
    assert!(at.iter().any(|place| out.contains(place)), "{out}");
}

/// Checks that `rally run scenario` in `dir` is refused saying `message`; its output.
fn assert_refused(dir: &Path, scenario: &str, message: &str) -> String {
    let out = support::rally_refused(dir, &["run", scenario]);
    assert!(out.contains(message), "{out}");
    out
}

/// Issue 26 §1: a step may be a declared effect (`rally.effect.*`); what it names is checked
/// where the element is declared, with the script's line.
#[test]
fn a_declared_effect_names_parameters_of_the_right_kind() {
    let refused = |steps: &str, message: &str| {
        let pad = format!(
            "return rally.element {{\n  name = \"spring_pad\",\n  params = {{ dir = rally.param.dir(), on = rally.param.bool {{ default = true }}, side = rally.param.dir {{ optional = true }} }},\n  new_steps = {{ {{ name = \"springs\", after = \"crushers\" }} }},\n  steps = {{ {steps} }},\n}}\n"
        );
        // At the declaration, or at the misspelt key itself (`rally check`'s caret).
        let at = [
            "scripts/elements/spring_pad.lua:1: element `spring_pad`",
            "scripts/elements/spring_pad.lua:5:52: element `spring_pad`",
        ];
        refuses(&pad, &at, message);
    };
    refused(
        "springs = rally.effect.convey(\"dri\")",
        "`dri` is not a parameter of the element",
    );
    refused(
        "springs = rally.effect.rotate(\"dir\")",
        "parameter `dir` must be a rally.param.rotation for `param`",
    );
    refused(
        "springs = rally.effect.convey(\"dir\", { when = \"dir\" })",
        "parameter `dir` must be a rally.param.bool or rally.param.phases for `when`",
    );
    refused(
        "springs = rally.effect.beam(\"dir\")",
        "(rally.effect.beam): not an effect of `steps`; it belongs in tile_steps: it acts once per tile, robot or not",
    );
    refused(
        "springs = rally.effect.checkpoint(\"dir\")",
        "parameter `dir` must be a rally.param.int for `param`",
    );
    refused(
        "springs = rally.effect.push(\"dir\", { by = string.rep(\"x\", 300) })",
        "`by` is 300 bytes; at most 256",
    );
    refused(
        "springs = rally.effect.push(\"dir\", { by = {} })",
        "`by` must be a string",
    );
    refused(
        "springs = rally.effect.robot_lasers()",
        "(rally.effect.robot_lasers): not an effect of an element's steps; it belongs in a rule's steps: it acts for the whole game",
    );
    refused(
        "springs = { effect = \"archive\", param = \"dir\" }",
        "(rally.effect.archive): takes no parameter, got `param`",
    );
    refused(
        "springs = { effect = \"teleport\", param = \"dir\" }",
        "unknown effect `teleport`, expected convey, rotate, push, checkpoint, archive, destroy, beam or robot_lasers",
    );
    refused(
        "springs = rally.effect.convey(\"side\")",
        "parameter `side` is optional",
    );
    refused(
        "springs = rally.effect.convey(\"dir\", { by = \"x\" })",
        "unknown field `by`",
    );
    refused(
        "springs = { 1 }",
        "`steps.springs` must be a function or a rally.effect.*, got a table",
    );
}

/// A project with the pulse laser (a declared beam that fires in its registers only) and its
/// scenario, and the echo rule if `echo`.
fn pulse_project(echo: bool) -> tempfile::TempDir {
    let dir = project(None);
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/element_steps");
    let copy = |from: &str, to: &str| {
        std::fs::copy(fixtures.join(from), dir.path().join(to)).unwrap();
    };
    copy("pulse_laser.lua", "scripts/elements/pulse_laser.lua");
    copy("pulse_laser.toml", "pulse_laser.toml");
    if echo {
        copy("echo.lua", "scripts/rules/echo.lua");
    }
    dir
}

/// Issue 26 §1: a tile's step may be a declared beam, and `when` may name the registers it
/// acts in (`rally.param.phases`).
#[test]
fn a_declared_beam_fires_only_in_the_registers_its_when_names() {
    let dir = pulse_project(false);
    support::rally_ok(dir.path(), &["test", "pulse_laser.toml"]);
    let out = support::rally_ok(dir.path(), &["run", "pulse_laser.toml", "--trace"]);
    let hit = out.find("R2  lasers          Robot A is hit by the pulse at [2, 0]");
    assert!(hit.is_some(), "{out}");
    assert!(!out.contains("R1  lasers"), "no beam in register 1:\n{out}");
    let traced = "R2 element `pulse_laser` at [2, 0] (scripts/elements/pulse_laser.lua), step `fire` (effect): queued 1 hit";
    assert!(out.contains(traced), "the trace names the effect:\n{out}");
    assert!(
        !out.contains("R1 element `pulse_laser`"),
        "not acting in register 1:\n{out}"
    );
}

/// A declared effect is still the function it stands for: a script calling an element's step
/// (`rally.elements.pulse_laser.tile_steps.fire(ctx, tile)`) does what the engine does,
/// `when` included.
#[test]
fn a_script_calls_a_declared_effect_as_a_function() {
    let dir = pulse_project(true);
    let out = support::rally(dir.path(), &["test", "pulse_laser.toml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("robot A: damage: expected 1, got 2"),
        "{text}"
    );
}

/// A project of two elements destroying robots by declared effects: the snare in its hook
/// (`on_enter`), the press in its step, in the registers its `when` names; and their scenario.
fn destroying_project() -> tempfile::TempDir {
    let dir = project(None);
    let elements = dir.path().join("scripts/elements");
    std::fs::write(
        elements.join("snare.lua"),
        "return rally.element {\n  name = \"snare\",\n  on_enter = rally.effect.destroy { cause = \"snare\" },\n}\n",
    )
    .unwrap();
    std::fs::write(
        elements.join("press.lua"),
        "return rally.element {\n  name = \"press\",\n  params = { phases = rally.param.phases() },\n  steps = { crushers = rally.effect.destroy { cause = \"press\", when = \"phases\" } },\n}\n",
    )
    .unwrap();
    // A drives onto the snare in register 1; B turns on the press in registers 1 and 2, and
    // the press closes in register 2 only.
    let scenario = r#"registers = 2
[board]
grid = """
.  S  .
.  .  P
"""
[board.legend]
"." = "floor"
"S" = "snare"
"P" = { element = "press", phases = [2] }

[[robot]]
name = "A"
at = [0, 0]
facing = "E"
program = ["move1@500", "left@100"]

[[robot]]
name = "B"
at = [2, 1]
facing = "N"
program = ["left@90", "left@80"]
"#;
    std::fs::write(dir.path().join("destroy.toml"), scenario).unwrap();
    dir
}

/// Issue 26 §1: `rally.effect.destroy` in a step (a crusher, in its registers) and in an
/// element's hook (a pit's `on_enter`), run without a Lua call and named so in the trace.
#[test]
fn a_declared_destroy_acts_in_a_hook_and_in_the_registers_of_a_step() {
    let dir = destroying_project();
    let out = support::rally_ok(dir.path(), &["run", "destroy.toml", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let destroyed: Vec<(String, u64, String)> = json["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["what"] == "destroyed")
        .map(|e| {
            let robot = e["robot"].as_str().unwrap().to_string();
            (
                robot,
                e["register"].as_u64().unwrap(),
                e["cause"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        destroyed,
        [
            ("A".to_string(), 1, "snare".to_string()),
            ("B".to_string(), 2, "press".to_string())
        ],
        "{out}"
    );
    let traced = support::rally_ok(dir.path(), &["run", "destroy.toml", "--trace"]);
    for line in [
        "R1 element `snare` at [1, 0] (scripts/elements/snare.lua), on_enter (effect), robot A",
        "R2 element `press` at [2, 1] (scripts/elements/press.lua), step `crushers` (effect), robot B",
    ] {
        assert!(traced.contains(line), "no `{line}` in\n{traced}");
    }
    assert!(!traced.contains("R1 element `press`"), "{traced}");
}

/// An element's hook takes a function or `rally.effect.destroy` without `when`, nothing else.
#[test]
fn a_hook_refuses_an_effect_that_belongs_in_a_step() {
    let refused = |hook: &str, message: &str| {
        let pad = format!(
            "return rally.element {{\n  name = \"spring_pad\",\n  params = {{ dir = rally.param.dir(), phases = rally.param.phases() }},\n  {hook},\n}}\n"
        );
        let at = ["scripts/elements/spring_pad.lua:1: element `spring_pad`: `on_enter`"];
        refuses(&pad, &at, message);
    };
    refused(
        "on_enter = rally.effect.convey(\"dir\")",
        "a hook takes a function or rally.effect.destroy (without `when`); rally.effect.convey belongs in `steps`",
    );
    refused(
        "on_enter = rally.effect.destroy { when = \"phases\" }",
        "rally.effect.destroy with `when` belongs in `steps`",
    );
    refused(
        "on_enter = rally.effect.destroy { cause = {} }",
        "`cause` must be a string",
    );
    refused(
        "on_enter = 7",
        "`on_enter` must be a function or rally.effect.destroy, got an integer",
    );
}

/// A rule's step may be the game's effect (`rally.effect.robot_lasers`, the standard robot
/// lasers' `fire`), not one of an element's.
#[test]
fn a_rule_takes_the_games_effects_only() {
    let dir = project(None);
    std::fs::write(
        dir.path().join("scripts/rules/drift.lua"),
        "return rally.rule {\n  name = \"drift\",\n  steps = { fire = rally.effect.convey(\"dir\") },\n}\n",
    )
    .unwrap();
    let message = "scripts/rules/drift.lua:1: rule `drift`: `steps.fire` (rally.effect.convey): not an effect of a rule's `steps`; it belongs in an element's steps or tile_steps: it acts on a tile or a robot standing there";
    assert_refused(dir.path(), "spring_pad.toml", message);
}

/// A bell rings (logs) when a robot enters its square, unless its tile is `muted`: a muted
/// tile's `build` says `b:ignore("on_enter")`, so the handler is not called there at all.
const BELL: &str = r#"return rally.element {
  name = "bell",
  params = { muted = rally.param.bool { default = false } },
  build = function(b, tile)
    if tile.muted then b:ignore("on_enter") end
  end,
  on_enter = function(ctx, tile, robot)
    ctx:log(robot, "rang", { at = tile.at })
  end,
}
"#;

/// Issue 26 §2: a tile may not hear a hook of its element (`b:ignore`), and its handler is
/// not called there; the other tiles of the element still hear it.
#[test]
fn a_tile_that_ignores_a_hook_is_not_told_it() {
    let dir = project(None);
    std::fs::write(dir.path().join("scripts/elements/bell.lua"), BELL).unwrap();
    let scenario = r#"registers = 2
[board]
grid = """
.  M  B
"""
[board.legend]
"." = "floor"
"B" = "bell"
"M" = { element = "bell", muted = true }

[[robot]]
name = "A"
at = [0, 0]
facing = "E"
program = ["move1@500", "move1@600"]
"#;
    std::fs::write(dir.path().join("bells.toml"), scenario).unwrap();
    let out = support::rally_ok(dir.path(), &["run", "bells.toml", "--trace"]);
    let rang: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("robots_move     Robot A rang"))
        .collect();
    assert!(
        rang == ["  R2  robots_move     Robot A rang at=[2, 0]"],
        "the loud bell rings in register 2, the muted one never:\n{out}"
    );
    assert!(!out.contains("R1 element `bell`"), "{out}");
}

/// `b:ignore` takes a hook an element hears, named as its key.
#[test]
fn ignoring_a_hook_names_one_an_element_hears() {
    let dir = project(None);
    let bell = BELL.replace("b:ignore(\"on_enter\")", "b:ignore(\"on_entre\")");
    std::fs::write(dir.path().join("scripts/elements/bell.lua"), bell).unwrap();
    std::fs::write(
        dir.path().join("bells.toml"),
        "[board]\ngrid = \"M\"\n[board.legend]\n\"M\" = { element = \"bell\", muted = true }\n",
    )
    .unwrap();
    let message = "b:ignore: `on_entre` is not a hook an element hears (did you mean `on_enter`?); they are on_";
    assert_refused(dir.path(), "bells.toml", message);
}
