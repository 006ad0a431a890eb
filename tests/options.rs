//! The decision interface and option set-up as a scenario author meets them: mistakes in
//! `choices` and `options` are reported, never silently ignored. (What each option does is
//! checked by the scenarios in tests/scenarios/options/.)

use rally::formats::scenario::Scenario;
use rally::script::RuleSet;
use std::path::Path;

const BOARD: &str = r#"
[board]
grid = ". . . ."
[board.legend]
"." = "floor"
"#;

/// Loads `robot` (a `[[robot]]` body) on a 4×1 floor, with the standard scripts.
fn scenario(robot: &str) -> (tempfile::TempDir, Scenario, RuleSet) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.toml");
    std::fs::write(
        &path,
        format!("{BOARD}\n[[robot]]\n{robot}\n[expect.A]\nlives = 3\n"),
    )
    .unwrap();
    let scenario = Scenario::load(&path).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = scenario.sources(
        &rally::script::Project::folders(root.join("scripts"), root.join("variants")),
        &[],
    );
    let rules = RuleSet::load(&sources).unwrap();
    (dir, scenario, rules)
}

#[test]
fn a_fixed_answer_never_asked_is_a_failure() {
    // Brakes are asked about a Move 1 only: the answer for this Move 2 is never used.
    let (_dir, s, rules) = scenario(
        r#"name = "A"
at = [0, 0]
facing = "E"
program = ["move2"]
options = ["brakes"]
choices = { brakes = "yes" }"#,
    );
    let mut game = s.start(rules).unwrap();
    s.resolve(&mut game).unwrap();
    let failures = s.check(&game.state());
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0].key, "choices.brakes");
    assert_eq!(failures[0].actual, "asked 0 time(s)");
}

#[test]
fn an_answer_that_is_not_a_choice_is_an_error() {
    let (_dir, s, rules) = scenario(
        r#"name = "A"
at = [0, 0]
facing = "E"
program = ["move1"]
options = ["brakes"]
choices = { brakes = "maybe" }"#,
    );
    let mut game = s.start(rules).unwrap();
    let err = s.resolve(&mut game).unwrap_err().to_string();
    assert!(
        err.contains("`maybe` is not an answer to `brakes`"),
        "{err}"
    );
    assert!(err.contains("no, yes"), "{err}");
}

#[test]
fn an_unknown_option_is_an_error_with_a_suggestion() {
    let (_dir, s, rules) = scenario(
        r#"name = "A"
at = [0, 0]
facing = "E"
options = ["brake"]"#,
    );
    let err = s.start(rules).err().expect("unknown option").to_string();
    assert!(err.contains("there is no option `brake`"), "{err}");
    assert!(err.contains("brakes"), "{err}");
}

#[test]
fn held_options_show_in_the_json_state() {
    let (_dir, s, rules) = scenario(
        r#"name = "A"
at = [0, 0]
facing = "N"
options = ["ablative_coat"]"#,
    );
    let game = s.start(rules).unwrap();
    let json = serde_json::to_value(&game.state().robots[0]).unwrap();
    assert_eq!(json["options"][0]["name"], "ablative_coat");
    assert_eq!(
        json["options"][0]["uses_left"], 3,
        "a held option without `uses` starts full"
    );
}

/// Runs `rally test` on one scenario file made of `body` and returns its output.
fn test_output(body: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), format!("{BOARD}\n{body}")).unwrap();
    let out = crate::support::rally(dir.path(), &["test", "s.toml"]);
    assert_eq!(out.status.code(), Some(1), "the expectation fails");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn asked_and_offered_fail_when_the_question_says_otherwise() {
    // A Move 1 with Brakes is asked `brakes` (no, yes): `asked = false` fails, and so do a
    // wrong list of choices and a count.
    let robot = r#"[[robot]]
name = "A"
at = [0, 0]
facing = "E"
program = ["move1"]
options = ["brakes"]"#;
    let out = test_output(&format!(
        "{robot}\n[expect.A]\nasked = {{ brakes = false }}\n"
    ));
    assert!(
        out.contains("asked.brakes: expected never asked, got asked 1 time(s)"),
        "{out}"
    );
    let out = test_output(&format!(
        "{robot}\n[expect.A]\noffered = {{ brakes = [\"yes\", \"no\"] }}\n"
    ));
    assert!(
        out.contains("offered.brakes: expected [yes, no] every time, got [no, yes]"),
        "{out}"
    );
    let out = test_output(&format!(
        "{robot}\n[expect.A]\nasked = {{ brakes = 2 }}\noffered = {{ absorb = [\"no\"] }}\n"
    ));
    assert!(
        out.contains("asked.brakes: expected asked 2 time(s), got asked 1 time(s)"),
        "{out}"
    );
    assert!(
        out.contains("offered.absorb: expected [no] every time, got never asked"),
        "{out}"
    );
}
