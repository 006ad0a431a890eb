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
