//! The general hooks the option cards are built on (docs/options.md, README scripting
//! reference) as a script author meets them: a mistake in a declaration or a wrong return
//! value is a clear error naming the script, the hook and the line, never a silent no-op.
//! (What the hooks do is checked by the scenarios in tests/scenarios/options/.)

mod support;

use std::path::Path;
use std::process::Command;

/// A floor with A facing T (A's laser hits it) and B behind A.
const SCENARIO: &str = r#"
[board]
grid = ". . . ."
[board.legend]
"." = "floor"
[[robot]]
name = "A"
at = [0, 0]
facing = "E"
program = ["uturn@10", "uturn@20"]
options = ["probe"]
[[robot]]
name = "T"
at = [2, 0]
facing = "N"
[expect.A]
lives = 3
"#;

/// Runs `rally test` on SCENARIO with an option `probe` declared by `option` (a Lua
/// declaration body) beside the standard scripts; returns its output.
fn run_with_probe(option: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    std::fs::write(
        dir.path().join("scripts/options/probe.lua"),
        format!("return rally.option {{ name = \"probe\",\n{option}\n}}\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("s.toml"), SCENARIO).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rally"))
        .current_dir(dir.path())
        .args(["test", "s.toml"])
        .output()
        .unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn assert_mentions(out: &str, parts: &[&str]) {
    for part in parts {
        assert!(out.contains(part), "`{part}` missing from:\n{out}");
    }
}

#[test]
fn a_shot_needs_a_fire_function_and_known_keys() {
    let out = run_with_probe("shot = { can = function() return true end }");
    assert_mentions(
        &out,
        &["probe.lua:1", "shot: `fire = function", "is required"],
    );
    let out = run_with_probe("shot = { fire = function() end, advice = function() end }");
    assert_mentions(&out, &["unknown field `advice`", "did you mean `advise`"]);
    let out = run_with_probe("shot = 3");
    assert_mentions(&out, &["`shot` must be a table"]);
}

#[test]
fn on_rotate_must_return_nil_false_or_a_rotation() {
    let out = run_with_probe("on_rotate = function() return \"sideways\" end");
    assert_mentions(
        &out,
        &[
            "option `probe`",
            "on_rotate",
            "\"sideways\"",
            "not a rotation",
        ],
    );
    let out = run_with_probe("on_rotate = function() return 1 end");
    assert_mentions(
        &out,
        &["option `probe` (scripts/options/probe.lua), on_rotate, robot A, register 1: scripts/options/probe.lua:2: on_rotate returned an integer; it must return nil (turn), false (no turn) or a rotation"],
    );
}

#[test]
fn on_card_rotate_must_be_a_rotation() {
    let out = run_with_probe("on_card = function() return { rotate = \"around\" } end");
    assert_mentions(&out, &["rotate = \"around\"", "not a rotation"]);
}

#[test]
fn a_revealed_register_cannot_change() {
    let out = run_with_probe(
        "on_card = function(ctx, robot) ctx:set_card(robot, ctx.register, \"move2\") end",
    );
    assert_mentions(
        &out,
        &[
            "option `probe`",
            "on_card",
            "register 1 has been revealed this turn",
        ],
    );
    let out =
        run_with_probe("on_card = function(ctx, robot) ctx:set_card(robot, 6, \"move2\") end");
    assert_mentions(&out, &["register 6: registers are numbered 1 to 5"]);
}

#[test]
fn card_arguments_are_checked() {
    let out =
        run_with_probe("on_card = function(ctx, robot) ctx:set_card(robot, 2, \"jump@10\") end");
    assert_mentions(
        &out,
        &[
            "probe.lua:2: `ctx:set_card`: argument `card` must be a card",
            "unknown card `jump`",
        ],
    );
    let out =
        run_with_probe("on_card = function(ctx, robot) ctx:keep_card(robot, \"probe\", 7) end");
    assert_mentions(
        &out,
        &["probe.lua:2: `ctx:keep_card`: argument `card` must be a card (\"move2@700\" or a card table), got an integer"],
    );
}

#[test]
fn a_power_down_modifier_must_give_a_flag() {
    // Asked by the turn loop at the end of a turn: a scenario of one whole turn.
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    std::fs::write(
        dir.path().join("scripts/options/probe.lua"),
        "return rally.option { name = \"probe\", modify = { power_down = function() return 3 end } }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        format!(
            "turns = 1\n{}",
            SCENARIO.replace("program = [\"uturn@10\", \"uturn@20\"]", "")
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rally"))
        .current_dir(dir.path())
        .args(["test", "s.toml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_mentions(
        &text,
        &["robot A", "`modify.power_down` must give true or false"],
    );
}
