//! `rally step SCENARIO` (issue 28, docs/debugging.md#stepping-through-a-scenario) through
//! the real binary, its commands fed through standard input as a pipe: moving a stage, a
//! register and a turn on, going back, the robots and their vars, the events, a bad command,
//! a reload after a script was saved, the end of input, a scenario that does not load.

use crate::support::{finish, rally_command, refused, stdin_of, text};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;

/// An element `probe` that counts its visits (by `add`) in the robot's var `seen` and logs
/// each in step `gears`.
fn probe(add: u32) -> String {
    format!(
        r#"return rally.element {{
  name = "probe",
  steps = {{
    gears = function(ctx, tile, robot)
      ctx:set_var(robot, "seen", (robot.vars.seen or 0) + {add})
      ctx:log(robot, "probed", {{ n = robot.vars.seen }})
    end,
  }},
}}
"#
    )
}

/// Robot A on a probe, turning left and right, for two turns.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("scripts/elements")).unwrap();
    std::fs::write(dir.path().join("scripts/elements/probe.lua"), probe(1)).unwrap();
    let program = r#"["left@70", "right@80", "left@90", "right@100", "left@110"]"#;
    std::fs::write(
        dir.path().join("s.toml"),
        format!(
            "turns = 2\n[board]\ngrid = \"\"\"\nP .\n. .\n\"\"\"\n[board.legend]\n\".\" = \"floor\"\n\"P\" = {{ element = \"probe\" }}\n[[robot]]\nname = \"A\"\nat = [0, 0]\nfacing = \"E\"\nprograms = [{program}, {program}]\n"
        ),
    )
    .unwrap();
    dir
}

/// Runs `rally step s.toml` with `commands` as its input; returns its output, checking it
/// ended well.
fn session(dir: &Path, commands: &str) -> String {
    let out = finish(rally_command(dir, &["step", "s.toml"]).stdin(stdin_of(commands)));
    assert!(out.status.success(), "{}", text(&out));
    assert!(out.stderr.is_empty(), "{}", text(&out));
    String::from_utf8(out.stdout).unwrap()
}

/// What the session printed after the prompt line `prompt` (`t1r1s1> show A`), up to the
/// next prompt.
fn answer<'a>(out: &'a str, prompt: &str) -> &'a str {
    let start = out
        .find(&format!("{prompt}\n"))
        .unwrap_or_else(|| panic!("no `{prompt}` in\n{out}"))
        + prompt.len()
        + 1;
    let is_prompt = |l: &str| {
        l.split_once("> ").is_some_and(|(m, _)| {
            m == "start" || (m.starts_with('t') && m.chars().all(|c| c.is_ascii_alphanumeric()))
        })
    };
    let rest = &out[start..];
    let mut end = 0;
    for l in rest.split_inclusive('\n') {
        if is_prompt(l) {
            break;
        }
        end += l.len();
    }
    &rest[..end]
}

#[test]
fn a_piped_session_steps_on_and_back_and_shows_the_robots() {
    let dir = project();
    let out = session(
        dir.path(),
        "next\nnext\nnext\nshow A\nvars A\nregister\nnext\nback\nevents\nbogus\nnxt\nshow Zed\nturn\nturn\nturn\nboard\nquit\nnext\n",
    );
    assert!(
        out.starts_with("Stepping through s.toml: at the start, nothing resolved yet"),
        "{out}"
    );
    // next: the start of turn 1 (the programs), then each frame of register 1.
    let first = answer(&out, "start> next");
    assert!(
        first.starts_with("at t1r0 (the start of turn 1)\n"),
        "{first}"
    );
    assert!(
        first.contains("T1     program         Robot A programs Turn Left (70)"),
        "{first}"
    );
    let card = answer(&out, "t1r0> next");
    assert!(
        card.starts_with("at t1r1s1 (turn 1, register 1, frame 1)\n"),
        "{card}"
    );
    assert!(card.contains("Robot A turns left, now facing N"), "{card}");
    assert!(
        !card.contains("probed"),
        "the probe is the next frame: {card}"
    );
    let probed = answer(&out, "t1r1s1> next");
    assert!(
        probed.starts_with("at t1r1s2 (turn 1, register 1, frame 2)\n"),
        "{probed}"
    );
    // Only what is new since the last stop.
    assert!(
        probed.contains("probed n=1") && !probed.contains("turns left"),
        "{probed}"
    );
    assert!(probed.contains(r#"vars {"seen":1}"#), "{probed}");
    let show = answer(&out, "t1r1s2> show A");
    assert!(
        show.contains("A        at [0, 0] facing N, damage 0"),
        "{show}"
    );
    assert!(
        show.contains("  program  left@70, right@80, left@90, right@100, left@110"),
        "{show}"
    );
    assert_eq!(answer(&out, "t1r1s2> vars A"), "  seen = 1\n");
    // register: the whole of register 1, then next: the first frame of register 2.
    assert!(
        answer(&out, "t1r1s2> register").starts_with("at t1r1 (turn 1, register 1)\n"),
        "{out}"
    );
    let r2 = answer(&out, "t1r1> next");
    assert!(
        r2.starts_with("at t1r2s1 (turn 1, register 2, frame 1)"),
        "{r2}"
    );
    // back: re-run to where the last move started, the same state as the first time.
    let back = answer(&out, "t1r2s1> back");
    assert!(back.starts_with("at t1r1 (turn 1, register 1)\n"), "{back}");
    assert!(
        back.contains(r#"facing N, damage 0, lives 3, flags 0, archive [0, 0], vars {"seen":1}"#),
        "{back}"
    );
    let events = answer(&out, "t1r1> events");
    assert_eq!(events.lines().count(), 4, "{events}");
    assert!(
        events.ends_with("  T1 R1  board_elements  Robot A probed n=1\n"),
        "{events}"
    );
    // A bad command says what there is, and the nearest.
    let bad = answer(&out, "t1r1> bogus");
    assert!(bad.starts_with("unknown command `bogus`; the commands are next, register, turn, back, reload, show, vars, board, events, help, quit"), "{bad}");
    assert!(
        answer(&out, "t1r1> nxt").contains("(did you mean `next`?)"),
        "{out}"
    );
    assert!(
        answer(&out, "t1r1> show Zed").starts_with("there is no robot `Zed`; the robots are A"),
        "{out}"
    );
    // turn: to the end of this turn, then the next; then there is nothing after.
    assert!(
        answer(&out, "t1r1> turn").starts_with("at t1end (the end of turn 1)\n"),
        "{out}"
    );
    let t2 = answer(&out, "t1end> turn");
    assert!(t2.starts_with("at t2end (the end of turn 2)\n"), "{t2}");
    assert!(t2.contains(r#"vars {"seen":10}"#), "{t2}");
    assert!(
        answer(&out, "t2end> turn").starts_with("the scenario ends at t2end"),
        "{out}"
    );
    assert!(answer(&out, "t2end> board").contains("  0  A< ."), "{out}");
    // quit ends it: what follows is not read.
    assert!(out.ends_with("t2end> quit\n"), "{out}");
}

#[test]
fn the_end_of_input_ends_the_session_cleanly() {
    let dir = project();
    let out = session(dir.path(), "next");
    assert!(out.contains("start> next\nat t1r0"), "{out}");
    let out = session(dir.path(), "");
    assert!(out.starts_with("Stepping through"), "{out}");
}

#[test]
fn help_lists_every_command() {
    let dir = project();
    let help = session(dir.path(), "help\n");
    for command in [
        "next", "register", "turn", "back", "reload", "show", "vars", "board", "events", "quit",
    ] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command}: {help}"
        );
    }
}

#[test]
fn reload_runs_the_saved_script_to_the_same_moment_and_shows_what_changed() {
    let dir = project();
    let mut child = rally_command(dir.path(), &["step", "s.toml"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"register\nregister\n").unwrap();
    // Wait until the session stands at t1r2 before saving the script.
    let mut line = String::new();
    while !line.starts_with("at t1r2 ") {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the session ended early"
        );
    }
    std::fs::write(dir.path().join("scripts/elements/probe.lua"), probe(10)).unwrap();
    stdin.write_all(b"reload\nvars A\nreload\n").unwrap();
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(child.wait().unwrap().success(), "{rest}");
    let reload = answer(&rest, "t1r2> reload");
    assert!(
        reload.starts_with("reloaded, at t1r2 (turn 1, register 2)\n"),
        "{reload}"
    );
    // The difference at the same moment: seen is 20, not 2, after two visits of 10.
    assert!(reload.contains("20"), "{reload}");
    assert!(!reload.contains("nothing changed"), "{reload}");
    assert_eq!(answer(&rest, "t1r2> vars A"), "  seen = 20\n", "{rest}");
    assert!(
        answer(&rest.replacen("t1r2> reload", "", 1), "t1r2> reload")
            .contains("nothing changed here"),
        "{rest}"
    );
}

#[test]
fn a_script_error_on_the_way_shows_the_failure_and_stays() {
    let dir = project();
    std::fs::write(
        dir.path().join("scripts/elements/probe.lua"),
        probe(1).replace("+ 1)", "+ (ctx.register == 2 and error(\"boom\") or 1))"),
    )
    .unwrap();
    let out = session(dir.path(), "register\nregister\nvars A\n");
    let failed = answer(&out, "t1r1> register");
    assert!(failed.contains("Events up to the failure:"), "{failed}");
    assert!(
        failed.contains("error: element `probe` at [0, 0]"),
        "{failed}"
    );
    assert!(failed.contains("register 2"), "{failed}");
    assert!(
        failed.ends_with("still at t1r1 (turn 1, register 1)\n"),
        "{failed}"
    );
    assert_eq!(answer(&out, "t1r1> vars A"), "  seen = 1\n");
}

#[test]
fn a_scenario_that_does_not_load_is_refused_before_the_session() {
    let dir = project();
    let stderr = refused(&finish(
        rally_command(dir.path(), &["step", "missing.toml"]).stdin(stdin_of("next\n")),
    ));
    assert!(stderr.contains("missing.toml"), "{stderr}");
    std::fs::write(dir.path().join("bad.toml"), "[board]\ngrid = 3\n").unwrap();
    let out = finish(rally_command(dir.path(), &["step", "bad.toml"]).stdin(stdin_of("next\n")));
    let stderr = refused(&out);
    assert!(stderr.contains("bad.toml"), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", text(&out));
}
