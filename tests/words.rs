//! Events in words (docs/scripting.md, "Events in words"): a declaration's `events` give its
//! events' sentences, which `rally run`, `rally play`, the replay viewer and the table use;
//! squares read `[x, y]`; a cause given to `ctx:move`, `ctx:push`, `ctx:queue_push` or
//! `ctx:place` is said; `--raw-events` keeps the `key=value` lines. Also `ctx:trace` and what
//! `on_cross` may return, which the magnetic crane and the gates below use.

use crate::support;

use rally::formats::scenario::Scenario;
use rally::pictures::html;
use rally::script::RuleFolders;
use std::path::Path;
use support::{rally, rally_ok};

fn write(dir: &Path, file: &str, text: &str) {
    let path = dir.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A crane that looks east along its arm (`ctx:trace`, 3 squares) and pulls the first robot
/// it sees one square toward it, with the pushers (`ctx:queue_push` with a cause). It logs
/// what it saw: the robot's `craned`, or `crane_idle` with the wall that stopped its look.
const CRANE: &str = r#"return rally.element {
  name = "crane",
  describe = "Pulls the first robot within 3 squares east of it one square toward it, with the pushers.",
  glyph = "C",
  events = {
    craned = "{robot} is pulled toward the crane at {crane} ({squares} squares away)",
    crane_idle = "the crane at {crane} sees nobody: a wall at {wall}",
  },
  tile_steps = {
    pushers = function(ctx, tile)
      local seen = ctx:trace(tile.at, "E", { range = 3 })
      if seen.robot then
        ctx:log(seen.robot, "craned", { crane = tile.at, squares = #seen.squares })
        ctx:queue_push(seen.robot, "W", "the magnetic crane")
      elseif seen.wall then
        ctx:log(nil, "crane_idle", { crane = tile.at, wall = seen.wall.at, side = seen.wall.side })
      end
    end,
  },
}
"#;

const CRANE_SCENARIO: &str = r#"description = "The crane pulls B one square west"
[board]
grid = "C . . ."
[board.legend]
"." = "floor"
"C" = "crane"
[[robot]]
name = "B"
at = [3, 0]
facing = "N"
[expect.B]
at = [2, 0]
"#;

/// A project with the crane, and its scenario.
fn crane_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rally.toml", "name = \"cranes\"\n");
    write(dir.path(), "scripts/elements/crane.lua", CRANE);
    write(dir.path(), "crane.toml", CRANE_SCENARIO);
    dir
}

#[test]
fn rally_run_tells_a_scripts_events_in_its_sentences_with_the_cause() {
    let dir = crane_project();
    let out = rally_ok(dir.path(), &["run", "crane.toml"]);
    assert!(
        out.contains("Robot B is pulled toward the crane at [0, 0] (3 squares away)"),
        "{out}"
    );
    assert!(
        out.contains("Robot B is pushed W to [2, 0] by the magnetic crane"),
        "{out}"
    );
    assert!(
        !out.contains("craned"),
        "no raw line among the sentences:\n{out}"
    );
}

#[test]
fn raw_events_keep_the_key_value_lines_with_squares_as_the_engine_writes_them() {
    let dir = crane_project();
    let out = rally_ok(dir.path(), &["run", "--raw-events", "crane.toml"]);
    let craned = out.lines().find(|l| l.contains(" craned ")).expect(&out);
    // `tile.at` reads as the engine's squares do, not as `{"x":0,"y":0}`.
    assert!(craned.ends_with("craned crane=[0,0] squares=3"), "{craned}");
    let pushed = out.lines().find(|l| l.contains(" pushed ")).expect(&out);
    assert!(pushed.contains("by=the magnetic crane"), "{pushed}");
    assert!(!out.contains("is pulled toward"), "{out}");
}

#[test]
fn trace_stops_at_a_wall_and_says_where() {
    let dir = crane_project();
    write(
        dir.path(),
        "walled.toml",
        "[board]\ngrid = \"C . . .\"\n[board.legend]\n\".\" = \"floor\"\n\"C\" = \"crane\"\n[[board.tile]]\nat = [1, 0]\nelement = \"wall\"\nside = \"E\"\n[[robot]]\nname = \"B\"\nat = [3, 0]\nfacing = \"N\"\n[expect.B]\nat = [3, 0]\n",
    );
    let out = rally_ok(dir.path(), &["run", "walled.toml"]);
    assert!(
        out.contains("The crane at [0, 0] sees nobody: a wall at [1, 0]"),
        "{out}"
    );
}

/// The frames the viewer and the table draw carry the sentence, not the terminal's columns.
#[test]
fn frames_and_the_replay_page_carry_the_sentences() {
    let dir = crane_project();
    let path = dir.path().join("crane.toml");
    let scenario = Scenario::load(&path).unwrap();
    let rules = RuleFolders::default()
        .rules(Some(&path), Vec::new())
        .unwrap();
    let mut game = scenario.start(rules).unwrap();
    let frames = html::frames(&scenario, &mut game).unwrap();
    let views = html::view::views(&game.board(), &frames, &game.rules().sentences);
    let texts: Vec<String> = views
        .iter()
        .flat_map(|v| v.events.iter().map(|e| e.text.clone()))
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t == "Robot B is pulled toward the crane at [0, 0] (3 squares away)"),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t == "Robot B is pushed W to [2, 0] by the magnetic crane"),
        "{texts:?}"
    );
    assert!(texts.iter().all(|t| !t.contains("  ")), "{texts:?}");
    let page = html::page(&game, "crane", "", &frames);
    assert!(page.contains("is pulled toward the crane at [0, 0]"));
}

/// The built-in elements' events are told by the same mechanism: the teleporter's sentence
/// is its script's, and the placement says what placed it.
#[test]
fn built_in_elements_speak_through_their_declarations() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "jump.toml",
        "[board]\ngrid = \"T . . . . .\"\n[board.legend]\n\".\" = \"floor\"\n\"T\" = \"teleporter\"\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\nprogram = [\"move1\"]\n[expect.A]\nat = [3, 0]\n",
    );
    let out = rally_ok(dir.path(), &["run", "jump.toml"]);
    assert!(
        out.contains("Robot A is teleported 3 squares ahead, to [3, 0]"),
        "{out}"
    );
    assert!(
        out.contains("Robot A is put on [3, 0] by the teleporter"),
        "{out}"
    );
}

fn refused(dir: &Path, args: &[&str]) -> String {
    let out = rally(dir, args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "rally {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_sentence_with_a_stray_brace_is_refused_when_the_script_loads() {
    let dir = crane_project();
    let bad = CRANE.replace("({squares} squares away)", "({squares squares away)");
    write(dir.path(), "scripts/elements/crane.lua", &bad);
    let err = refused(dir.path(), &["run", "crane.toml"]);
    assert!(err.contains("crane.lua"), "{err}");
    assert!(err.contains("`craned`"), "{err}");
    assert!(err.contains("does not open a field name"), "{err}");
    let start = CRANE.find("  events = {").unwrap();
    let end = CRANE.find("  tile_steps").unwrap();
    let numbered = format!("{}  events = 3,\n{}", &CRANE[..start], &CRANE[end..]);
    write(dir.path(), "scripts/elements/crane.lua", &numbered);
    let err = refused(dir.path(), &["run", "crane.toml"]);
    assert!(err.contains("table of sentences by event name"), "{err}");
}

/// A gate that refuses every robot, declared with `blocks` or not.
fn gate(blocks: &str, answer: &str) -> String {
    format!(
        "return rally.element {{\n  name = \"gate\",\n  describe = \"Refuses robots.\",\n  glyph = \"G\",\n  {blocks}\n  on_cross = function(ctx, tile, robot, info)\n    if not info.leaving then return {answer} end\n  end,\n}}\n"
    )
}

const GATE_SCENARIO: &str = "[board]\ngrid = \". G .\"\n[board.legend]\n\".\" = \"floor\"\n\"G\" = \"gate\"\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\nprogram = [\"move2\"]\n[expect.A]\nat = [0, 0]\n";

#[test]
fn a_gate_refusal_is_told_naming_the_element_and_its_square() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rally.toml", "");
    write(
        dir.path(),
        "scripts/elements/gate.lua",
        &gate("blocks = {},", "{ block = true }"),
    );
    write(dir.path(), "gate.toml", GATE_SCENARIO);
    let out = rally_ok(dir.path(), &["run", "gate.toml"]);
    assert!(out.contains("✓ all expectations hold"), "{out}");
    assert!(
        out.contains("Robot A is blocked by the gate at [1, 0]"),
        "{out}"
    );
}

#[test]
fn only_an_element_that_declares_blocks_may_refuse_and_only_with_true_or_false() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "rally.toml", "");
    write(dir.path(), "gate.toml", GATE_SCENARIO);
    write(
        dir.path(),
        "scripts/elements/gate.lua",
        &gate("", "{ block = true }"),
    );
    let err = refused(dir.path(), &["run", "gate.toml"]);
    assert!(err.contains("gate.lua"), "{err}");
    assert!(err.contains("does not declare `blocks`"), "{err}");
    write(
        dir.path(),
        "scripts/elements/gate.lua",
        &gate("blocks = {},", "{ block = \"yes\" }"),
    );
    let err = refused(dir.path(), &["run", "gate.toml"]);
    assert!(err.contains("`block` that is not true or false"), "{err}");
    write(
        dir.path(),
        "scripts/elements/gate.lua",
        &gate("blocks = {},", "{ blcok = true }"),
    );
    let err = refused(dir.path(), &["run", "gate.toml"]);
    assert!(
        err.contains("the key `blcok` (did you mean `block`?)"),
        "{err}"
    );
    write(
        dir.path(),
        "scripts/elements/gate.lua",
        &gate("blocks = { laser = true },", "nil"),
    );
    let err = refused(dir.path(), &["run", "gate.toml"]);
    assert!(err.contains("laser"), "{err}");
    assert!(err.contains("lasers"), "a suggestion: {err}");
}
