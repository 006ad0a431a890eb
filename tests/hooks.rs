//! The general hooks the option cards are built on (docs/options.md, docs/scripting.md) as
//! a script author meets them: a mistake in a declaration or a wrong return
//! value is a clear error naming the script, the hook and the line, never a silent no-op.
//! (What the hooks do is checked by the scenarios in tests/scenarios/options/.)

use crate::support;

use std::path::Path;

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
    run_scenario_with_probe(option, SCENARIO)
}

/// [`run_with_probe`] on `scenario`.
fn run_scenario_with_probe(option: &str, scenario: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    std::fs::write(
        dir.path().join("scripts/options/probe.lua"),
        format!("return rally.option {{ name = \"probe\",\n{option}\n}}\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    support::text(&support::rally(dir.path(), &["test", "s.toml"]))
}

/// `rally test` of SCENARIO with T turned to shoot A (in both registers) and `expect` in
/// place of its own, `probe`'s `on_damage` returning `returned`; its output.
fn damage_returning(returned: &str, expect: &str) -> String {
    let shot_at_the_holder = SCENARIO
        .replace("facing = \"N\"", "facing = \"W\"")
        .replace("[expect.A]\nlives = 3\n", expect);
    run_scenario_with_probe(
        &format!(
            "on_damage = function(ctx, robot, amount, info, option)\n  return {returned}\nend"
        ),
        &shot_at_the_holder,
    )
}

/// `on_damage` may prevent damage and may add to it (rules.md §6.4: options prevent it,
/// house rules may well hurt more); each change is logged, by whom.
#[test]
fn on_damage_may_lower_or_raise_the_damage() {
    let out = damage_returning(
        "amount * 3",
        "[expect.A]\ndamage = 6\nevents = { damage_added = 2 }\n",
    );
    assert_mentions(&out, &["1 passed, 0 failed"]);
    let out = damage_returning(
        "10",
        "[expect.A]\nlives = 2\nevents = { damage_added = 1, destroyed = 1 }\n",
    );
    assert_mentions(&out, &["1 passed, 0 failed"]);
    let out = damage_returning(
        "0",
        "[expect.A]\ndamage = 0\nevents = { damage_prevented = 2 }\n",
    );
    assert_mentions(&out, &["1 passed, 0 failed"]);
}

/// What `on_damage` returns is checked, never clamped or wrapped: an error at the handler's
/// line (it is defined on line 2 of probe.lua).
#[test]
fn on_damage_out_of_range_is_an_error_at_the_handler() {
    for (returned, says) in [
        (
            "3000000000",
            "on_damage returned 3000000000: the damage to take is a whole number from 0 to 10",
        ),
        ("-1", "on_damage returned -1"),
        ("11", "on_damage returned 11"),
        ("amount / 2", "on_damage returned 0.5"),
        (
            "'1'",
            "on_damage returned 1, a string; it must return nil (no change) or the damage to take, a whole number",
        ),
    ] {
        let out = damage_returning(returned, "[expect.A]\nlives = 3\n");
        assert_mentions(&out, &["option `probe`", "probe.lua:2: ", says]);
    }
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
    let out = support::rally(dir.path(), &["test", "s.toml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_mentions(
        &text,
        &["robot A", "`modify.power_down` must give true or false"],
    );
}

/// docs/scripting.md and ARCHITECTURE.md show the table of hooks (`src/hooks.rs`) as the
/// engine reads it.
#[test]
fn the_docs_show_the_table_of_hooks() {
    let (start, end) = (
        "<!-- hooks: generated from src/hooks.rs; tests/hooks.rs checks it -->\n",
        "<!-- end hooks -->",
    );
    let table = rally::hooks::markdown();
    for doc in ["docs/scripting.md", "ARCHITECTURE.md"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(doc);
        let text = std::fs::read_to_string(&path).unwrap();
        let from = text.find(start).expect("the start marker") + start.len();
        let to = text[from..].find(end).expect("the end marker") + from;
        if text[from..to] == table {
            continue;
        }
        if std::env::var_os("RALLY_BLESS").is_some() {
            std::fs::write(&path, format!("{}{table}{}", &text[..from], &text[to..])).unwrap();
        } else {
            panic!("{doc}'s table of hooks differs from src/hooks.rs (RALLY_BLESS=1 rewrites it):\n{table}");
        }
    }
}

/// Issue 26 §1: a rule that can matter only to robots holding an option says so (`hears =
/// "robots_with_options"`, as option_absorb and option_loss do), and the engine does not call
/// it for the others; a value it does not know is refused where it is written.
#[test]
fn a_rule_that_hears_robots_with_options_is_not_called_for_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    support::copy_dir(&root.join("scripts"), &dir.path().join("scripts"));
    // Two lasers, each hitting one robot: A holds no option, B holds brakes (and keeps them).
    let scenario = r#"
registers = 1
[board]
grid = """
L . A
L . B
"""
[board.legend]
"." = "floor"
"L" = { element = "laser", dir = "E" }
"A" = "floor"
"B" = "floor"
[[robot]]
name = "A"
at = [2, 0]
facing = "E"
[[robot]]
name = "B"
at = [2, 1]
facing = "E"
options = ["brakes"]
choices = { absorb = "no" }
[expect.A]
damage = 1
[expect.B]
damage = 1
options = ["brakes"]
"#;
    std::fs::write(dir.path().join("s.toml"), scenario).unwrap();
    support::rally_ok(dir.path(), &["test", "s.toml"]);
    let out = support::rally_ok(dir.path(), &["run", "s.toml", "--trace"]);
    let absorb: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("rule `option_absorb`"))
        .collect();
    assert_eq!(absorb.len(), 1, "{out}");
    assert!(absorb[0].contains("robot B"), "{out}");

    let rule = dir.path().join("scripts/rules/option_absorb.lua");
    let text = std::fs::read_to_string(&rule).unwrap();
    let changed = text.replace("\"robots_with_options\"", "\"everyone\"");
    assert_ne!(text, changed);
    std::fs::write(&rule, changed).unwrap();
    let out = support::rally_refused(dir.path(), &["run", "s.toml"]);
    assert!(
        out.contains("unknown variant `everyone`, expected `all_robots` or `robots_with_options`"),
        "{out}"
    );
    assert!(out.contains("scripts/rules/option_absorb.lua:"), "{out}");
}
