//! Issue 28, a debugger for rules (docs/debugging.md), through the real binary: turns on
//! every event line of a several-turn log, the state at a script error (events up to it, the
//! board and robots as the register was rolled back, the moment in the message), and
//! `--until` a moment named as the replay viewer names its frames.

use crate::support::{rally, rally_ok, rally_refused, text};
use std::path::Path;

/// An element `probe` that counts its visits in the robot's var `seen` and logs each in
/// step `gears`, and fails (indexing a nil local at line 7) in turn `fail_turn`, register 3.
fn probe(fail_turn: u32) -> String {
    format!(
        r#"return rally.element {{
  name = "probe",
  steps = {{
    gears = function(ctx, tile, robot)
      ctx:set_var(robot, "seen", (robot.vars.seen or 0) + 1)
      ctx:log(robot, "probed", {{ n = robot.vars.seen }})
      if ctx.turn == {fail_turn} and ctx.register == 3 then local held = nil; return held.x end
    end,
  }},
}}
"#
    )
}

/// Robot A on a probe, turning left and right: five turns a turn.
const PROGRAM: &str = r#"["left@70", "right@80", "left@90", "right@100", "left@110"]"#;

/// A project with the probe failing in `fail_turn` (0: never) and a scenario `s.toml` of
/// `turns` turns (`None`: one turn, the classic form).
fn project(fail_turn: u32, turns: Option<u32>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    std::fs::write(
        dir.path().join("scripts/elements/probe.lua"),
        probe(fail_turn),
    )
    .unwrap();
    let (head, plan) = match turns {
        Some(n) => (
            format!("turns = {n}\n"),
            format!("programs = [{}]\n", vec![PROGRAM; n as usize].join(", ")),
        ),
        None => (String::new(), format!("program = {PROGRAM}\n")),
    };
    write_scenario(dir.path(), &head, &plan);
    dir
}

fn write_scenario(dir: &Path, head: &str, plan: &str) {
    std::fs::write(
        dir.join("s.toml"),
        format!(
            "{head}[board]\ngrid = \"\"\"\nP .\n. .\n\"\"\"\n[board.legend]\n\".\" = \"floor\"\n\"P\" = {{ element = \"probe\" }}\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\n{plan}[expect.A]\nat = [0, 0]\n"
        ),
    )
    .unwrap();
}

/// The lines of the event log `rally run` printed (after `Events:`).
fn event_lines(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("Events"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect()
}

#[test]
fn every_line_of_a_several_turn_log_says_its_turn() {
    let dir = project(0, Some(2));
    let out = rally_ok(dir.path(), &["run", "s.toml"]);
    let lines = event_lines(&out);
    assert!(!lines.is_empty(), "{out}");
    for line in &lines {
        assert!(
            line.starts_with("  T1 ") || line.starts_with("  T2 "),
            "{line}\n{out}"
        );
    }
    assert!(
        out.contains("  T2 R3  robots_move     Robot A plays Turn Left (90)\n"),
        "{out}"
    );
    assert!(
        out.contains("  T2     program         Robot A programs"),
        "{out}"
    );
    // With --raw-events too.
    let raw = rally_ok(dir.path(), &["run", "s.toml", "--raw-events"]);
    assert!(
        raw.contains("  T2 R3  board_elements  A        probed n=8\n"),
        "{raw}"
    );
}

#[test]
fn a_one_turn_log_reads_as_it_always_has() {
    let dir = project(0, None);
    let out = rally_ok(dir.path(), &["run", "s.toml"]);
    let lines = event_lines(&out);
    assert_eq!(
        lines[0], "  R1  robots_move     Robot A plays Turn Left (70)",
        "{out}"
    );
    assert!(lines.iter().all(|l| !l.contains("T1 R")), "{out}");
}

#[test]
fn a_script_error_shows_the_events_and_the_rolled_back_state_and_says_when() {
    let dir = project(2, Some(2));
    let out = rally(dir.path(), &["run", "s.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The error names the turn as well as the register.
    assert!(
        stderr.starts_with("error: element `probe` at [0, 0] (scripts/elements/probe.lua), step `gears`, robot A, turn 2, register 3: scripts/elements/probe.lua:7: attempt to index a nil value (local 'held')"),
        "{stderr}"
    );
    // Every event up to the failure: turn 1, turn 2's registers 1 and 2, and register 3's
    // events before the error, marked as taken back.
    assert!(
        stdout.contains("  T1 R5  board_elements  Robot A probed n=5\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  T2 R2  board_elements  Robot A probed n=7\n"),
        "{stdout}"
    );
    assert!(
        stdout
            .contains("  T2 R3  robots_move     Robot A turns left, now facing W (rolled back)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Robot A probed n=8 (rolled back)"),
        "{stdout}"
    );
    // The board and robots as register 3 was rolled back: facing N after register 2, and
    // `seen` 7, not 8.
    assert!(
        stdout.contains("(turn 2, register 3, step gears):\n     0  1 \n  0  A^ . \n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  A        at [0, 0] facing N, damage 0, lives 3, flags 0, archive [0, 0], vars {\"seen\":7}\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "✗ script error in turn 2, register 3, step gears, the register was rolled back:"
        ),
        "{stdout}"
    );
}

#[test]
fn a_script_error_in_one_turn_keeps_its_message() {
    let dir = project(1, None);
    let out = rally(dir.path(), &["run", "s.toml"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: element `probe` at [0, 0] (scripts/elements/probe.lua), step `gears`, robot A, register 3: "),
        "{stderr}"
    );
    assert!(
        stdout.contains("  R2  board_elements  Robot A probed n=2\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  R3  board_elements  Robot A probed n=3 (rolled back)\n"),
        "{stdout}"
    );
    assert!(stdout.contains("vars {\"seen\":2}"), "{stdout}");
    assert!(
        stdout.contains("✗ script error in turn 1, register 3, step gears"),
        "{stdout}"
    );
    // With --json, the error alone, on stderr: stdout stays empty (or JSON).
    let json = rally(dir.path(), &["run", "s.toml", "--json"]);
    assert!(json.stdout.is_empty(), "{}", text(&json));
}

#[test]
fn until_a_register_shows_the_state_then() {
    let dir = project(0, Some(2));
    let out = rally_ok(dir.path(), &["run", "s.toml", "--until", "t2r2"]);
    assert!(
        out.contains("At t2r2 (turn 2, register 2), stopped by --until:"),
        "{out}"
    );
    assert!(out.contains("  A        at [0, 0] facing N, damage 0, lives 3, flags 0, archive [0, 0], vars {\"seen\":7}\n"), "{out}");
    let lines = event_lines(&out);
    assert_eq!(
        lines.last().copied(),
        Some("  T2 R2  board_elements  Robot A probed n=7"),
        "{out}"
    );
    assert!(out.contains("expectations not checked"), "{out}");
    // The start of a turn and its end.
    let start = rally_ok(dir.path(), &["run", "s.toml", "--until", "t2r0"]);
    assert_eq!(
        event_lines(&start)
            .last()
            .map(|l| l.contains("T2     program")),
        Some(true),
        "{start}"
    );
    assert!(start.contains("vars {\"seen\":5}"), "{start}");
    let end = rally_ok(dir.path(), &["run", "s.toml", "--until", "t1end"]);
    assert!(end.contains("vars {\"seen\":5}"), "{end}");
    assert!(!end.contains("T2 "), "{end}");
}

#[test]
fn until_a_frame_stops_inside_the_register() {
    // Register 3 has two frames: the card (A turns left), then step gears (probed).
    for turns in [None, Some(2)] {
        let dir = project(0, turns);
        let card = rally_ok(dir.path(), &["run", "s.toml", "--until", "t1r3s1"]);
        assert!(
            card.contains(
                "facing N, damage 0, lives 3, flags 0, archive [0, 0], vars {\"seen\":2}"
            ),
            "{card}"
        );
        let last = *event_lines(&card).last().unwrap();
        assert!(last.ends_with("Robot A turns left, now facing N"), "{card}");
        let gears = rally_ok(dir.path(), &["run", "s.toml", "--until", "t1r3s2"]);
        assert!(gears.contains("vars {\"seen\":3}"), "{gears}");
        assert!(
            event_lines(&gears)
                .last()
                .unwrap()
                .ends_with("Robot A probed n=3"),
            "{gears}"
        );
        // There is no third frame.
        let e = rally_refused(dir.path(), &["run", "s.toml", "--until", "t1r3s3"]);
        assert!(e.contains("error: t1r3s3 is past the end of turn 1, register 3: it has 2 frame(s), t1r3s1 to t1r3s2"), "{e}");
    }
}

#[test]
fn until_with_json_gives_the_contracts_state_at_the_moment() {
    let dir = project(0, Some(2));
    let out = rally_ok(
        dir.path(),
        &["run", "s.toml", "--until", "t2r3s1", "--json"],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], 1);
    assert_eq!(v["turn"], 2);
    assert_eq!(v["register"], 3);
    assert_eq!(v["robots"][0]["facing"], "W");
    assert_eq!(v["robots"][0]["vars"]["seen"], 7);
    let last = v["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (
            last["turn"].clone(),
            last["register"].clone(),
            last["what"].clone()
        ),
        (2.into(), 3.into(), "turned".into())
    );
}

#[test]
fn a_moment_past_the_end_says_where_the_scenario_ends() {
    let dir = project(0, Some(2));
    let e = rally_refused(dir.path(), &["run", "s.toml", "--until", "t3r1"]);
    assert!(e.contains("--until t3r1: the scenario never reaches turn 3, register 1; it ends at t2end (the end of turn 2)"), "{e}");
    let one = project(0, None);
    let e = rally_refused(one.path(), &["run", "s.toml", "--until", "t1end"]);
    assert!(e.contains("it ends at t1r5 (turn 1, register 5)"), "{e}");
    let e = rally_refused(one.path(), &["run", "s.toml", "--until", "t2r1"]);
    assert!(e.contains("never reaches turn 2, register 1"), "{e}");
}

#[test]
fn a_bad_moment_is_refused_with_the_forms_it_takes() {
    let dir = project(0, None);
    for bad in [
        "3", "t2", "t0r1", "t1r9", "t1r1s0", "t1r0s1", "t1r1x", "", "t1 r1",
    ] {
        let e = rally_refused(dir.path(), &["run", "s.toml", "--until", bad]);
        assert!(e.contains("is not a moment"), "{bad}: {e}");
        assert!(
            e.contains("write t2r3 (turn 2, register 3), t2r3s4 (its 4th frame)"),
            "{e}"
        );
    }
    // Not with --repeat, --record or --replay.
    rally_refused(
        dir.path(),
        &["run", "s.toml", "--until", "t1r1", "--repeat", "2"],
    );
}

#[test]
fn a_script_error_before_the_moment_is_shown_as_any_failure() {
    let dir = project(1, None);
    let out = rally(dir.path(), &["run", "s.toml", "--until", "t1r4"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout)
        .contains("✗ script error in turn 1, register 3, step gears"));
}

/// A gear under robot A and a rule that hears its turn (`on_rotate`, called inside the gear's
/// `ctx:rotate`) and logs it: a call made inside another.
fn gear_and_spy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/rules")).unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    // The standard gear's step is a declared effect the engine runs without a call; this
    // project's gear is a function, so the trace has a call to show with one nested in it.
    std::fs::write(
        dir.path().join("scripts/elements/gear.lua"),
        "return rally.element {\n  name = \"gear\",\n  describe = \"Turns a robot on it in step C4.\",\n  params = { turn = rally.param.rotation() },\n  steps = { gears = function(ctx, tile, robot) ctx:rotate(robot, tile.turn, \"gear\") end },\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("scripts/rules/spy.lua"),
        "return rally.rule {\n  name = \"spy\",\n  on_rotate = function(ctx, robot, info)\n    ctx:log(robot, \"spied\", { by = info.by })\n  end,\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "registers = 1\n[board]\ngrid = \"G .\"\n[board.legend]\n\".\" = \"floor\"\n\"G\" = { element = \"gear\", turn = \"right\" }\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\nprogram = [\"left@70\"]\n",
    )
    .unwrap();
    dir
}

/// The trace's lines (after `Trace:`).
fn trace_lines(out: &str) -> Vec<&str> {
    out.lines()
        .skip_while(|l| !l.starts_with("Trace: "))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect()
}

#[test]
fn trace_prints_every_handler_call_in_order_with_what_it_did() {
    let dir = gear_and_spy();
    let out = rally_ok(dir.path(), &["run", "s.toml", "--trace"]);
    assert!(out.contains("\nTrace: 4 handler call(s)\n"), "{out}");
    let lines = trace_lines(&out);
    // The card turns A (the spy hears it), then the gear turns it (the spy again, inside the
    // gear's call: indented under it, and its event is its own, not the gear's); then the
    // robot lasers' step.
    let calls: Vec<&str> = lines
        .iter()
        .filter(|l| l.contains(" instructions, "))
        .copied()
        .collect();
    assert_eq!(calls.len(), 4, "{out}");
    assert!(
        calls[0]
            .starts_with("  R1 rule `spy` (scripts/rules/spy.lua), on_rotate, robot A: logged 1; "),
        "{out}"
    );
    assert!(calls[1].starts_with("  R1 element `gear` at [0, 0] (scripts/elements/gear.lua), step `gears`, robot A: logged 1; "), "{out}");
    assert!(
        lines.contains(&"      Robot A turns right, now facing N"),
        "the gear's own event: {out}"
    );
    assert!(
        calls[3].starts_with(
            "  R1 rule `robot_lasers` (scripts/rules/robot_lasers.lua), step `fire` (effect); "
        ),
        "{out}"
    );
    assert!(
        calls[2].starts_with(
            "    R1 rule `spy` (scripts/rules/spy.lua), on_rotate, robot A: logged 1; "
        ),
        "{out}"
    );
    let spied: Vec<&str> = lines
        .iter()
        .filter(|l| l.contains("spied"))
        .copied()
        .collect();
    assert_eq!(spied.len(), 2, "{out}");
    assert!(
        spied[1].starts_with("        "),
        "the nested call's event under it: {out}"
    );
    for line in &calls {
        let n: i64 = line
            .split("; ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(n >= 0, "{line}");
    }
    // Without --trace, no trace.
    let plain = rally_ok(dir.path(), &["run", "s.toml"]);
    assert!(!plain.contains("Trace:"), "{plain}");
}

#[test]
fn trace_queued_moves_are_said() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "registers = 1\n[board]\ngrid = \"v\\n.\"\n[board.legend]\n\".\" = \"floor\"\n\"v\" = { element = \"conveyor\", dir = \"S\" }\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"N\"\n",
    )
    .unwrap();
    let out = rally_ok(dir.path(), &["run", "s.toml", "--trace"]);
    assert!(
        trace_lines(&out)
            .iter()
            .any(|l| l.contains("element `conveyor` at [0, 0]")
                && l.contains(": queued 1 belt move;")),
        "{out}"
    );
}

#[test]
fn profile_adds_up_per_handler_and_per_script_costliest_first() {
    let dir = gear_and_spy();
    let out = rally_ok(dir.path(), &["run", "s.toml", "--profile"]);
    assert!(
        out.contains("Profile: 4 handler call(s) in 1 resolution(s), "),
        "{out}"
    );
    let handlers: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "By handler:")
        .skip(2)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(handlers.len(), 3, "{out}");
    assert!(
        handlers
            .iter()
            .any(|l| l.ends_with("         2  rule `spy` (scripts/rules/spy.lua), on_rotate")),
        "{out}"
    );
    assert!(
        handlers
            .iter()
            .any(|l| l
                .ends_with("         1  element `gear` (scripts/elements/gear.lua), step `gears`")),
        "{out}"
    );
    let count = |l: &str| -> i64 { l.split_whitespace().next().unwrap().parse().unwrap() };
    assert!(count(handlers[0]) >= count(handlers[1]), "sorted: {out}");
    assert!(out.contains("By script:\n"), "{out}");
    // With --repeat N, over the N timed resolutions.
    let repeated = rally_ok(
        dir.path(),
        &["run", "s.toml", "--repeat", "20", "--profile"],
    );
    assert!(
        repeated.contains("Profile: 80 handler call(s) in 20 resolution(s), "),
        "{repeated}"
    );
    // Not with --json.
    rally_refused(dir.path(), &["run", "s.toml", "--profile", "--json"]);
    rally_refused(dir.path(), &["run", "s.toml", "--trace", "--json"]);
}

#[test]
fn bench_profile_adds_up_every_scenario() {
    let dir = gear_and_spy();
    let out = rally_ok(
        dir.path(),
        &["bench", "s.toml", "--repeat", "5", "--profile"],
    );
    assert!(
        out.contains("Profile: 20 handler call(s) in 5 resolution(s), "),
        "{out}"
    );
    assert!(out.contains("scripts/rules/spy.lua\n"), "{out}");
}

/// A failing handler at the start of a turn is rolled back as a register's is: the start of a
/// turn copies the state for a rollback whenever something acts in it (it skips the copy
/// only where nothing does).
#[test]
fn a_script_error_at_the_start_of_a_turn_is_rolled_back() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    std::fs::write(
        dir.path().join("scripts/elements/probe.lua"),
        r#"return rally.element {
  name = "probe",
  steps = {
    turn_start = function(ctx, tile, robot)
      ctx:rotate(robot, "left", "alarm")
      if ctx.turn == 2 then local held = nil; return held.x end
    end,
  },
}
"#,
    )
    .unwrap();
    let plan = format!("programs = [{PROGRAM}, {PROGRAM}]\n");
    write_scenario(dir.path(), "turns = 2\n", &plan);
    let out = rally(dir.path(), &["run", "s.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("✗ script error in turn 2, step turn_start, the"),
        "{stdout}"
    );
    let turned = stdout
        .lines()
        .filter(|l| l.contains("T2     turn_start") && l.contains("turns left"))
        .collect::<Vec<_>>();
    assert!(
        turned.len() == 1 && turned[0].ends_with("(rolled back)"),
        "{stdout}"
    );
}
